//! Claims (`judge::ClaimText::parse`, what `--claim` and Python's `judge` read): no panic; a
//! refusal is a claim error that names the text; what parses reads back to itself from its text,
//! and judged on a small sweep's trials (`claims::judge_trials`, over n with a parameter held
//! fixed) gives a verdict or a typed refusal.
#![no_main]

use libfuzzer_sys::fuzz_target;
use poplab::Error;
use poplab::judge::ClaimText;
use poplab::claims::{SweptTrial, YVar, judge_trials};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let claim = match ClaimText::parse(text) {
        Ok(claim) => claim,
        Err(Error::Claim { claim, reason }) => {
            assert_eq!(claim, text.trim());
            assert!(!reason.is_empty(), "{text}");
            return;
        }
        Err(other) => panic!("{text}: not a claim error: {other}"),
    };
    assert_eq!(ClaimText::parse(&claim.text).as_ref(), Ok(&claim), "{text}");
    let params = [("N".to_string(), "100".to_string())];
    let params = &params;
    let trials: Vec<SweptTrial<'_>> = [10u64, 20, 40, 80]
        .into_iter()
        .flat_map(|n| {
            (0..5u64).map(move |i| SweptTrial { n, params, steps: u128::from(n * n + i * n), censored: i == 4 })
        })
        .collect();
    for y in [YVar::Steps, YVar::ParallelTime] {
        if let Err(error) = judge_trials(&trials, &claim, y) {
            assert!(!error.to_string().is_empty(), "{text}");
        }
    }
});
