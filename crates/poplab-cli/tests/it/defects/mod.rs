//! One test per input defect found by trying poplab as a new user would (issue "One experiment
//! spec, resolved once"): each fails on the code before the fix. Library-level halves of some
//! fixes are tested where they live (`poplab::files`, `poplab::graph`, `poplab::numbers`,
//! `poplab::sweep`).
//!
//! The tests are grouped by area; each keeps the id of the review that found it (`d` the first
//! new-user trial, `n` issue 33's hangs and lost output, `r` the robustness review, `h` the
//! hostile-input review), so that a finding can be traced to its issue.

mod checkpoints;
mod limits;
mod messages;
mod outputs;
mod sweeps;

use assert_cmd::Command;
use serde_json::Value;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn poplab() -> Command {
    Command::cargo_bin("poplab").unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("poplab-defects-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Runs `args`; expects exit code 2, one line on standard error, containing every needle.
fn refused(args: &[&str], needles: &[&str]) -> String {
    // The memory checks see 8 GB, whatever the machine has.
    refused_with(args, needles, "8e9")
}

/// [`refused`] with `memory` bytes available to the memory checks.
fn refused_with(args: &[&str], needles: &[&str], memory: &str) -> String {
    let output =
        poplab().args(args).env("POPLAB_AVAILABLE_MEMORY", memory).timeout(Duration::from_secs(60)).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: one line expected: {stderr}");
    for needle in needles {
        assert!(stderr.contains(needle), "{args:?}: expected '{needle}' in {stderr}");
    }
    stderr
}

fn json(args: &[&str]) -> Value {
    let output = poplab().args(args).arg("--json").output().unwrap();
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}
