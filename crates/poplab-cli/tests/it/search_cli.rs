//! `poplab search` from the command line.

use assert_cmd::Command;
use serde_json::Value;

fn poplab() -> Command {
    Command::cargo_bin("poplab").unwrap()
}

#[test]
fn search_writes_the_slowest_start_as_a_file_run_takes() {
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("worst.json");
    let output = poplab()
        .args([
            "search",
            "prl",
            "--n",
            "8",
            "--budget",
            "20c",
            "--trials",
            "6",
            "--seed",
            "4",
            "--json",
            "--save-start",
        ])
        .arg(&saved)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    let worst = &doc["worst"];
    assert_eq!(worst["start"].as_array().unwrap().len(), 8);
    assert_eq!(worst["trials"], 6);
    let [low, high] = [worst["ci95"][0].as_f64().unwrap(), worst["ci95"][1].as_f64().unwrap()];
    assert!(
        low <= worst["mean_parallel_time"].as_f64().unwrap() && worst["mean_parallel_time"].as_f64().unwrap() <= high
    );
    assert!(doc["budget"]["candidates"].as_u64().unwrap() <= 20);
    assert!(doc["families"].as_array().unwrap().iter().any(|f| f["description"] == "no-leader"));
    // Progress goes to standard error, a line per round.
    assert!(String::from_utf8_lossy(&output.stderr).contains("search: round 1:"));
    // The saved start is the worst's, and `run` takes it.
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    assert_eq!(file, worst["start"]);
    let init = format!("@{}", saved.display());
    let output =
        poplab().args(["run", "prl", "--n", "8", "--init", &init, "--trials", "3", "--json"]).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    // The same seed gives the same document, budget and timings aside.
    let again = poplab()
        .args([
            "search",
            "prl",
            "--n",
            "8",
            "--budget",
            "20c",
            "--trials",
            "6",
            "--seed",
            "4",
            "--json",
            "--threads",
            "1",
        ])
        .output()
        .unwrap();
    let again: Value = serde_json::from_slice(&again.stdout).unwrap();
    for key in ["worst", "top", "families"] {
        assert_eq!(again[key], doc[key], "{key}");
    }
}

#[test]
fn a_bad_budget_is_an_input_error_on_one_line() {
    let output = poplab().args(["search", "prl", "--n", "8", "--budget", "20"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--budget") && stderr.contains("60s"), "{stderr}");
    let output =
        poplab().args(["search", "ls-timer", "--n", "4", "--set", "s=6", "--measure", "holding"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "search takes no --measure");
    let output =
        poplab().args(["search", "prl", "--n", "8", "--save-start", "/nonexistent-dir/w.json"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
}
