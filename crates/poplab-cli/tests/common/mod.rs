//! Helpers shared by the command-line tests (`mod common;`); each test binary uses part of them.
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
