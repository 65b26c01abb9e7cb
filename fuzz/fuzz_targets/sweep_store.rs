//! A sweep's store: `sweep.json` (`SweepSpec::from_definition`), `trials.csv`
//! (`SweepSpec::parse_trials`) and shard directories merged by `sweep::merge`, from fuzzed files
//! written into a temporary directory. No panic, errors typed; a definition written back reads
//! back to the same definition; stored rows written back read back to the same rows.
#![no_main]

use libfuzzer_sys::fuzz_target;
use poplab::sweep::{self, SweepSpec};
use std::path::Path;

/// Sweeps small enough to resolve at every input (resolution, not size, is under test).
fn small(spec: &SweepSpec) -> bool {
    let cells = spec.params.iter().fold(spec.ns.len(), |c, (_, values)| c.saturating_mul(values.len()));
    cells <= 12 && spec.ns.iter().all(|&n| n <= 64) && spec.template.trials <= 64
}

fuzz_target!(|data: &[u8]| {
    let [definition, trials, other_definition, other_trials] =
        <[String; 4]>::try_from(poplab_fuzz::parts(data, 4)).unwrap();
    let spec = match SweepSpec::from_definition(&definition, Path::new("sweep.json")) {
        Ok(spec) => spec,
        Err(error) => return poplab_fuzz::check_error(&error),
    };
    if !small(&spec) {
        return;
    }
    let rows = match spec.parse_trials(&trials, Path::new("trials.csv")) {
        Ok(rows) => Some(rows),
        Err(error) => {
            poplab_fuzz::check_error(&error);
            None
        }
    };
    let cells = match spec.resolve() {
        Ok(cells) => cells,
        Err(error) => return poplab_fuzz::check_error(&error),
    };
    // The definition as a sweep writes it is a fixed point of reading and writing.
    let written = spec.definition(&cells);
    let again = SweepSpec::from_definition(&written, Path::new("sweep.json")).expect("a written definition reads back");
    assert_eq!(again.definition(&again.resolve().expect("a written definition resolves")), written);
    // Stored rows of this sweep's cells and trials, written back, read back the same.
    if let Some(rows) = rows {
        let keys: Vec<String> = cells.iter().map(|c| c.cell.key()).collect();
        let kept: std::collections::BTreeMap<_, _> =
            rows.into_iter().filter(|((key, trial), _)| keys.contains(key) && *trial < spec.template.trials).collect();
        let text = spec.trials_csv(&cells, &kept);
        assert_eq!(spec.parse_trials(&text, Path::new("trials.csv")).expect("written rows read back"), kept);
    }
    // Two shard directories as given, merged.
    let dir = tempfile::tempdir().unwrap();
    let parts: Vec<_> = [(definition, trials), (other_definition, other_trials)]
        .iter()
        .enumerate()
        .map(|(i, (definition, trials))| {
            let part = dir.path().join(format!("part{i}"));
            std::fs::create_dir(&part).unwrap();
            std::fs::write(part.join("sweep.json"), definition).unwrap();
            std::fs::write(part.join("trials.csv"), trials).unwrap();
            part
        })
        .collect();
    let out = dir.path().join("merged");
    let parts = if parts[1].join("sweep.json").metadata().unwrap().len() == 0 { &parts[..1] } else { &parts[..] };
    if !parts.iter().all(|p| sweep::read_definition(p).is_ok_and(|s| small(&s))) {
        return;
    }
    match sweep::merge(&out, parts) {
        Ok(results) => {
            assert_eq!(results.rows.len() as u64, results.cells.len() as u64 * spec.template.trials);
            assert!(out.join("summary.csv").is_file());
        }
        Err(error) => poplab_fuzz::check_error(&error),
    }
});
