//! `run --resume` of a checkpoint whose document is the fuzz input, resealed (its first line made
//! right, as a hand edit or a buggy tool would): `Checkpoint::read`, the stored spec, and
//! `run_checkpointed` restoring its running trials on the engine the spec names (agents, counts,
//! batched). No panic, no hang, errors typed; a run that resumes writes a checkpoint that reads
//! back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use poplab::checkpoint::{self, Checkpoint};
use poplab::checkpointed::{StoredSpec, run_checkpointed};
use poplab::spec::RunSpec;
use std::time::Duration;

fuzz_target!(|data: &[u8]| {
    let body = String::from_utf8_lossy(data);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.ckpt");
    std::fs::write(&path, checkpoint::head(&body) + &body).unwrap();
    let resume = match Checkpoint::read(&path) {
        Ok(resume) => resume,
        Err(error) => return poplab_fuzz::check_error(&error),
    };
    let stored = match StoredSpec::of_checkpoint(&resume, &path) {
        Ok(stored) => stored,
        Err(error) => return poplab_fuzz::check_error(&error),
    };
    // Small runs that write no file but the checkpoint: restoring is under test, not long runs.
    let raw = &stored.raw;
    if stored.trace.is_some()
        || !stored.files.is_empty()
        || raw.n > 64
        || raw.trials > 4
        || raw.max_steps > 100_000
        || !raw.input_files().is_empty()
    {
        return;
    }
    let spec = match stored.raw(Some(1)).and_then(|raw| RunSpec::resolve(&raw)) {
        Ok(spec) => spec,
        Err(error) => return poplab_fuzz::check_error(&error),
    };
    match run_checkpointed(&spec, &|| {}, stored, &path, Duration::from_secs(3600), Some(resume)) {
        Ok(result) => {
            assert_eq!(result.records.len() as u64, spec.settings.trials);
            Checkpoint::read(&path).expect("a written checkpoint reads back");
        }
        Err(error) => poplab_fuzz::check_error(&error),
    }
});
