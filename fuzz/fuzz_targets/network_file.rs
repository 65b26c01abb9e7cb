//! Network files (`poplab::crn::file::parse`), any bytes: no panic; an error is a `ProtocolFile`
//! error with a message; a parsed file with few molecules and moderate rates (fractions: of 100)
//! runs a short time on both engines, which end exactly at that time or where the stop holds.
#![no_main]

use libfuzzer_sys::fuzz_target;
use poplab::Error;
use poplab::crn::{CrnEngine, CrnRun, file};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match file::parse(&text, "fuzz.toml") {
        Ok(parsed) => {
            let n = matches!(parsed.init, file::Init::Fractions(..)).then_some(100);
            let (network, init) = match parsed.start(n) {
                Ok(start) => start,
                Err(error) => return poplab_fuzz::check_error(&error),
            };
            assert_eq!(init.len(), network.species.len());
            let molecules: u64 = init.iter().sum();
            let tame = network.reactions.iter().all(|r| r.rate <= 100.0) && network.volume >= 1.0 && network.volume <= 1e4;
            if molecules > 1000 || !tame {
                return;
            }
            for engine in [CrnEngine::Direct, CrnEngine::Batched] {
                let mut run = CrnRun::new(network.clone(), init.clone(), engine, 1).unwrap();
                let stopped = match &parsed.stop {
                    Some(stop) => run.advance_until(0.01, stop),
                    None => run.advance_to(0.01).map(|()| None),
                };
                match stopped {
                    Ok(Some(at)) => assert!(at <= 0.01 && parsed.stop.as_ref().unwrap().holds(&network, run.counts())),
                    Ok(None) => assert_eq!(run.time(), 0.01),
                    Err(error) => poplab_fuzz::check_error(&error),
                }
                assert_eq!(run.counts().len(), network.species.len());
            }
        }
        Err(Error::ProtocolFile { reason, .. }) => assert!(!reason.is_empty()),
        Err(other) => panic!("not a network-file error: {other:?}"),
    }
});
