//! Helpers shared by the command-line tests (`tests/it`, `use crate::common;`).
#![allow(dead_code)]

use assert_cmd::Command;

/// The `poplab` binary built for the tests.
pub fn poplab() -> Command {
    Command::cargo_bin("poplab").unwrap()
}

/// Runs `args`, expects exit code 2 and a one-line error containing `needle`.
pub fn fails_with(args: &[&str], needle: &str) {
    let output = poplab().args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "args {args:?}: stderr {stderr}");
    assert!(stderr.contains(needle), "args {args:?}: expected '{needle}' in: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "the error should be one line: {stderr}");
}

/// Whether the checkpoint `file` holds a running trial past its first step.
pub fn holds_a_trial_in_progress(file: &std::path::Path) -> bool {
    let Ok(text) = std::fs::read_to_string(file) else { return false };
    let body: serde_json::Value = serde_json::from_str(text.split_once('\n').unwrap().1).unwrap();
    body["running"].as_array().unwrap().iter().any(|trial| {
        let engine = &trial["run"]["engine"];
        engine.get("agents").or(engine.get("counts")).is_some_and(|e| e["step"].as_u64().is_some_and(|s| s > 0))
    })
}

/// Runs `command` (which checkpoints into `checkpoint`) and kills it with SIGKILL `delay` after the
/// checkpoint first holds a trial in progress, so the kill lands inside a trial however fast the
/// machine; returns whether the command was still running then.
pub fn kill_in_a_trial(
    command: &mut std::process::Command,
    checkpoint: &std::path::Path,
    delay: std::time::Duration,
) -> bool {
    use std::time::{Duration, Instant};
    let mut child = command.stderr(std::process::Stdio::null()).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while !holds_a_trial_in_progress(checkpoint) && Instant::now() < deadline {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(delay);
    let running = child.try_wait().unwrap().is_none();
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    running
}
