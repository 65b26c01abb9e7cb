//! `--engine`: the count engine from the command line, what `auto` picks, and the refusal of
//! `counts` on graphs other than the complete one.

use assert_cmd::Command;
use serde_json::Value;

fn poplab() -> Command {
    Command::cargo_bin("poplab").unwrap()
}

fn run_json(args: &[&str]) -> Value {
    let output = poplab().arg("run").args(args).arg("--json").output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn engine_counts_runs_and_says_so() {
    let doc = run_json(&["angluin", "--n", "10^5", "--engine", "counts", "--trials", "3", "--seed", "1"]);
    assert_eq!(doc["engine"], "counts");
    assert_eq!(doc["summary"]["converged"], 3);
    let human = poplab().args(["run", "threshold", "--n", "100", "--engine", "counts"]).output().unwrap();
    assert!(human.status.success());
    assert!(String::from_utf8_lossy(&human.stdout).contains("engine=counts"));
    let csv = poplab().args(["run", "angluin", "--n", "100", "--engine", "counts", "--csv"]).output().unwrap();
    assert!(String::from_utf8_lossy(&csv.stdout).lines().nth(1).unwrap().contains(",counts,"));
}

#[test]
fn engine_auto_picks_batched_on_the_complete_graph_and_agents_elsewhere() {
    let complete = run_json(&["angluin", "--n", "100", "--trials", "2"]);
    assert_eq!(complete["engine"], "batched");
    let explicit = run_json(&["angluin", "--n", "100", "--trials", "2", "--engine", "auto"]);
    assert_eq!(explicit["engine"], "batched");
    let batched = run_json(&["approx-majority", "--n", "10^6", "--engine", "batched", "--seed", "3"]);
    assert_eq!((batched["engine"].as_str(), batched["summary"]["converged"].as_u64()), (Some("batched"), Some(1)));
    let ring = run_json(&["angluin", "--n", "10", "--graph", "ring", "--max-steps", "1000", "--engine", "auto"]);
    assert_eq!(ring["engine"], "agents");
    let faults = run_json(&["threshold", "--n", "100", "--fault", "500:5"]);
    assert_eq!(faults["engine"], "agents");
    let agents = run_json(&["angluin", "--n", "100", "--engine", "agents"]);
    assert_eq!(agents["engine"], "agents");
}

#[test]
fn count_engines_on_a_ring_are_an_input_error() {
    let output =
        poplab().args(["run", "angluin", "--n", "10", "--graph", "ring", "--engine", "counts"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("complete graph"), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    let ring =
        poplab().args(["run", "angluin", "--n", "10", "--graph", "ring", "--engine", "batched"]).output().unwrap();
    assert_eq!(ring.status.code(), Some(2));
    let bad = poplab().args(["run", "angluin", "--n", "10", "--engine", "batches"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn sweep_writes_the_engine_it_used_and_resumes_with_it() {
    let dir = std::env::temp_dir().join(format!("poplab-engine-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.join("s");
    let status = poplab()
        .args(["sweep", "angluin", "--n", "20,40", "--trials", "3", "--engine", "counts", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    let spec: Value = serde_json::from_str(&std::fs::read_to_string(out.join("sweep.json")).unwrap()).unwrap();
    assert_eq!(spec["engine"], "counts");
    let resumed = poplab().arg("sweep").arg("--resume").arg(&out).output().unwrap();
    assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
    let ring = poplab()
        .args(["sweep", "angluin", "--n", "20", "--trials", "1", "--graph", "ring", "--engine", "counts", "--out"])
        .arg(dir.join("r"))
        .output()
        .unwrap();
    assert_eq!(ring.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}
