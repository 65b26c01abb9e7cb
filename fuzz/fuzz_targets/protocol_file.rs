//! Protocol files (`poplab::protocols::custom::file::parse`), any bytes: no panic; an error is a
//! `ProtocolFile` error whose line lies in the file; a parsed file builds a protocol or says why,
//! and a built one runs a short trial.
#![no_main]

use libfuzzer_sys::fuzz_target;
use poplab::Error;
use poplab::protocols::custom::{Custom, file};
use poplab::spec::{RawSpec, RunSpec};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match file::parse(&text, "fuzz.toml") {
        Ok(definition) => {
            assert!(!definition.states.is_empty());
            let protocol = match Custom::new(&definition, 12) {
                Ok(protocol) => protocol,
                Err(error) => return poplab_fuzz::check_error(&error),
            };
            let raw = RawSpec { max_steps: 2000, threads: Some(1), ..RawSpec::new(&definition.name, 12) };
            match RunSpec::resolve_custom(&raw, &protocol) {
                Ok(spec) => {
                    if let Err(error) = spec.run(&|| {}) {
                        poplab_fuzz::check_error(&error);
                    }
                }
                Err(error) => poplab_fuzz::check_error(&error),
            }
        }
        Err(Error::ProtocolFile { line, reason, .. }) => {
            assert!(!reason.is_empty());
            if let Some(line) = line {
                assert!(line >= 1 && line <= text.lines().count() + 1, "line {line}: {reason}");
            }
        }
        Err(other) => panic!("not a protocol-file error: {other:?}"),
    }
});
