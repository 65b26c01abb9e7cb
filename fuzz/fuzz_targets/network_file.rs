//! Network files (`poplab::crn::file::parse`), any bytes: no panic; an error is a `ProtocolFile`
//! error with a message; a parsed file with few molecules and moderate rates runs a short time on
//! both engines, which end exactly at that time with one count per species.
#![no_main]

use libfuzzer_sys::fuzz_target;
use poplab::Error;
use poplab::crn::{CrnEngine, CrnRun, file};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match file::parse(&text, "fuzz.toml") {
        Ok(parsed) => {
            let network = &parsed.network;
            assert_eq!(parsed.init.len(), network.species.len());
            let molecules: u64 = parsed.init.iter().sum();
            let tame = network.reactions.iter().all(|r| r.rate <= 100.0) && network.volume >= 1.0 && network.volume <= 1e4;
            if molecules > 1000 || !tame {
                return;
            }
            for engine in [CrnEngine::Direct, CrnEngine::Batched] {
                let mut run = CrnRun::new(network.clone(), parsed.init.clone(), engine, 1).unwrap();
                match run.advance_to(0.01) {
                    Ok(()) => {
                        assert_eq!(run.time(), 0.01);
                        assert_eq!(run.counts().len(), network.species.len());
                    }
                    Err(error) => poplab_fuzz::check_error(&error),
                }
            }
        }
        Err(Error::ProtocolFile { reason, .. }) => assert!(!reason.is_empty()),
        Err(other) => panic!("not a network-file error: {other:?}"),
    }
});
