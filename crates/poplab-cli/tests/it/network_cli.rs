//! Reaction networks from the command line: `poplab run @FILE.toml --time T` for a file with
//! `[reactions]` (examples/networks), its outputs, its errors.

use crate::common;

use common::{fails_with, poplab};
use serde_json::Value;

fn example(name: &str) -> String {
    format!("@{}/../../examples/networks/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn stdout(args: &[&str]) -> String {
    let output = poplab().args(args).output().unwrap();
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn a_network_file_runs_to_a_time_on_each_engine() {
    let lv = example("lotka-volterra.toml");
    for engine in ["counts", "batched"] {
        let doc: Value = serde_json::from_str(&stdout(&[
            "run", &lv, "--time", "0.5", "--trials", "30", "--seed", "2", "--engine", engine, "--json",
        ]))
        .unwrap();
        assert_eq!(doc["network"], "lotka-volterra");
        assert_eq!(doc["species"], serde_json::json!(["R", "F"]));
        assert_eq!(doc["generator"], "Xoshiro256PlusPlus");
        let trials = doc["trials"].as_array().unwrap();
        assert_eq!(trials.len(), 30);
        let expected = if engine == "counts" { "direct" } else { "batched" };
        assert!(trials.iter().all(|t| t["engine"] == expected));
        // Prey grow and predators shrink from (500, 500) at volume 1000: the rate equations give
        // R(0.5) = 678 and F(0.5) = 398; 30 runs put the means within a few percent.
        let mean = |s: usize| trials.iter().map(|t| t["counts"][s].as_f64().unwrap()).sum::<f64>() / 30.0;
        assert!(
            (mean(0) / 678.0 - 1.0).abs() < 0.05 && (mean(1) / 398.0 - 1.0).abs() < 0.05,
            "{} {}",
            mean(0),
            mean(1)
        );
    }
}

#[test]
fn the_seed_fixes_the_trials_whatever_the_threads() {
    let dimer = example("dimerization.toml");
    let run = |threads: &str| {
        stdout(&["run", &dimer, "--time", "0.3", "--trials", "6", "--seed", "9", "--csv", "--threads", threads])
    };
    let one = run("1");
    assert_eq!(one, run("2"));
    assert_eq!(one.lines().next().unwrap(), "trial,seed,engine,stopped,time,reactions,A,D");
    assert_eq!(one.lines().count(), 7);
    assert!(stdout(&["run", &dimer, "--time", "0.3", "--trials", "2"]).contains("| A | 100000 |"));
}

#[test]
fn network_runs_refuse_what_does_not_apply() {
    let lv = example("lotka-volterra.toml");
    fails_with(&["run", &lv], "give the time to run to");
    fails_with(&["run", &lv, "--time", "1", "--n", "10"], "gives counts in [init]; give fractions");
    fails_with(&["run", &lv, "--time", "1", "--set", "k=1"], "--set does not apply to a reaction network");
    fails_with(&["run", &lv, "--time", "1", "--fault", "10:1"], "--fault does not apply");
    fails_with(&["run", &lv, "--time", "1", "--engine", "agents"], "runs on counts");
    fails_with(&["run", &lv, "--time", "-1"], "a time >= 0");
    fails_with(&["run", "angluin", "--n", "10", "--time", "1"], "--time goes with a reaction network");
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "[reactions]\n\"A + B + C -> D\" = 1\n[init]\nA = 1\n").unwrap();
    fails_with(&["run", &format!("@{}", bad.display()), "--time", "1"], "at most two reactants");
    std::fs::write(&bad, "[reactions]\n\"A -> B\" = 1\n[init]\nC = 1\n").unwrap();
    fails_with(&["run", &format!("@{}", bad.display()), "--time", "1"], "one of the network's species: A, B");
}

#[test]
fn a_network_sweep_judges_a_claim_on_the_time_to_its_stop() {
    // decay.toml: the time until no A is left is ln n + 0.577 on average.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("decay");
    let decay = example("decay.toml");
    let text = stdout(&[
        "sweep",
        &decay,
        "--n",
        "10^2..10^5*10",
        "--time",
        "100",
        "--trials",
        "30",
        "--seed",
        "4",
        "--claim",
        "Θ(log n)",
        "--claim",
        "O(1)",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(text.contains("claim Θ(log n) (time to the stop): consistent"), "{text}");
    assert!(text.contains("claim O(1) (time to the stop): inconsistent"), "{text}");
    let rows = std::fs::read_to_string(out.join("network-sweep.csv")).unwrap();
    assert_eq!(rows.lines().count(), 1 + 4 * 30);
    let claims: Value = serde_json::from_str(&std::fs::read_to_string(out.join("claims.json")).unwrap()).unwrap();
    assert_eq!(claims.as_array().unwrap().len(), 2);
    // A run with a stop reports when it held; fractions need --n.
    let doc: Value = serde_json::from_str(&stdout(&["run", &decay, "--n", "500", "--time", "100", "--json"])).unwrap();
    let stopped = doc["trials"][0]["stopped"].as_f64().unwrap();
    assert!(stopped > 0.0 && stopped < 100.0 && doc["trials"][0]["counts"][0] == 0);
    fails_with(&["run", &decay, "--time", "1"], "give the number of molecules with --n");
    fails_with(&["sweep", &example("lotka-volterra.toml"), "--n", "100,200", "--time", "1"], "give fractions");
    fails_with(&["sweep", &example("dimerization.toml"), "--n", "100", "--time", "1", "--claim", "O(n)"], "give @");
    fails_with(&["sweep", &decay, "--time", "1"], "needs the sizes");
    fails_with(&["sweep", "angluin", "--n", "10", "--time", "1"], "--time goes with a reaction network");
}

#[test]
fn a_network_runs_time_series_is_exact_at_its_times() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("lv.csv");
    let lv = example("lotka-volterra.toml");
    stdout(&[
        "run",
        &lv,
        "--time",
        "1",
        "--trials",
        "3",
        "--seed",
        "5",
        "--trace",
        trace.to_str().unwrap(),
        "--trace-time",
        "0.25",
    ]);
    let text = std::fs::read_to_string(&trace).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "trial,time,R,F");
    assert_eq!(lines.len(), 1 + 3 * 5, "{text}");
    let times: Vec<&str> = lines[1..6].iter().map(|l| l.split(',').nth(1).unwrap()).collect();
    assert_eq!(times, ["0", "0.25", "0.5", "0.75", "1"]);
    assert_eq!(lines[1], "0,0,500,500");
    // The last row of each trial is its end, the counts the run reports.
    let doc: Value =
        serde_json::from_str(&stdout(&["run", &lv, "--time", "1", "--trials", "3", "--seed", "5", "--json"])).unwrap();
    let last: Vec<u64> = lines[5].split(',').skip(2).map(|c| c.parse().unwrap()).collect();
    assert_eq!(serde_json::json!(last), doc["trials"][0]["counts"]);
    fails_with(&["run", &lv, "--time", "1", "--trace-time", "0.1"], "--trace-time goes with --trace");
    fails_with(
        &["run", &lv, "--time", "1", "--trace", trace.to_str().unwrap(), "--trace-time", "1e-9"],
        "more than the 10^7",
    );
}
