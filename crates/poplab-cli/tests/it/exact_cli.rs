//! `poplab exact` and `poplab verify` from the command line.

use assert_cmd::Command;
use serde_json::Value;

fn poplab() -> Command {
    Command::cargo_bin("poplab").unwrap()
}

#[test]
fn exact_angluin_json_gives_n_minus_one_squared() {
    let output = poplab().args(["exact", "angluin", "--n", "20", "--json"]).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    for key in [
        "protocol",
        "n",
        "params",
        "graph",
        "init",
        "expected_steps",
        "variance_steps",
        "expected_parallel_time",
        "configurations",
    ] {
        assert!(doc.get(key).is_some(), "missing {key}");
    }
    assert!((doc["expected_steps"].as_f64().unwrap() - 361.0).abs() < 1e-9);
    assert!((doc["expected_parallel_time"].as_f64().unwrap() - 361.0 / 20.0).abs() < 1e-9);
    assert_eq!(doc["configurations"], 20);
    assert_eq!(doc["graph"], "complete");
}

#[test]
fn exact_reports_an_infinite_expectation_with_a_trap() {
    let output = poplab().args(["exact", "angluin", "--n", "4", "--graph", "ring", "--json"]).output().unwrap();
    assert!(output.status.success());
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(doc["expected_steps"].is_null());
    assert_eq!(doc["converges_with_probability_1"], false);
    assert!(doc["trap"]["schedule"].is_array());
}

#[test]
fn verify_passes_and_fails_with_exit_codes() {
    let output = poplab().args(["verify", "angluin", "--n", "5"]).output().unwrap();
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("closure      PASS") && text.contains("convergence  PASS"), "{text}");

    let output = poplab().args(["verify", "angluin", "--n", "5", "--from", "all", "--json"]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(doc["passed"], false);
    assert_eq!(doc["convergence"]["passed"], false);
    assert_eq!(doc["convergence"]["counterexample"]["start"][0]["leader"], false);
    assert!(String::from_utf8_lossy(&output.stderr).contains("verification failed: convergence"));
}

#[test]
fn the_cap_is_an_input_error() {
    let output = poplab().args(["exact", "angluin", "--n", "30", "--max-configs", "10"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("raise --max-configs or lower n"), "{stderr}");
    let output = poplab().args(["exact", "angluin", "--n", "5", "--init", "random"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn exact_holding_starts_from_the_safe_family() {
    // ls-timer, n = 3, s = 1 from ((l,1), (f,1), (f,1)): 12 steps (derived by hand in
    // poplab/tests/it/exact_holding.rs).
    let output = poplab()
        .args(["exact", "ls-timer", "--n", "3", "--set", "s=1", "--measure", "holding", "--json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(doc["measure"], "holding");
    assert_eq!(doc["init"], "safe");
    assert!((doc["expected_steps"].as_f64().unwrap() - 12.0).abs() < 1e-9);
    let text =
        poplab().args(["exact", "ls-timer", "--n", "3", "--set", "s=1", "--measure", "holding"]).output().unwrap();
    assert!(String::from_utf8_lossy(&text.stdout).contains("expected steps until an output changes"));
    let convergence = poplab().args(["exact", "ls-timer", "--n", "3", "--set", "s=1", "--json"]).output().unwrap();
    let doc: Value = serde_json::from_slice(&convergence.stdout).unwrap();
    assert_eq!(doc["measure"], "convergence");
    assert_eq!(doc["init"], "default");
    // An unsafe start is an input error that names the safe family.
    let unsafe_start = poplab()
        .args(["exact", "ls-timer", "--n", "3", "--set", "s=1", "--measure", "holding", "--init", "no-leader"])
        .output()
        .unwrap();
    assert!(!unsafe_start.status.success());
    assert!(String::from_utf8_lossy(&unsafe_start.stderr).contains("--init safe"));
}

#[test]
fn exact_from_all_gives_the_worst_start_as_a_file_init_takes() {
    let dir = tempfile::tempdir().unwrap();
    let worst = dir.path().join("worst.json");
    let output = poplab()
        .args(["exact", "ls-timer", "--n", "4", "--set", "s=6", "--from", "all", "--json", "--save-worst"])
        .arg(&worst)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    // 14 states (leader or not, timer 0..=6): C(14 + 4 - 1, 4) = 2380 multisets.
    assert_eq!(doc["starts"], 2380);
    let worst_steps = doc["worst"]["expected_steps"].as_f64().unwrap();
    assert_eq!(doc["worst"]["start"].as_array().unwrap().len(), 4);
    // Every named start is at most the worst; no-leader (every timer s) is the worst here.
    for (name, family) in doc["families"].as_object().unwrap() {
        let steps = family["expected_steps"].as_f64().unwrap();
        assert!(steps <= worst_steps * (1.0 + 1e-12), "{name}: {steps} > {worst_steps}");
    }
    assert!((doc["families"]["no-leader"]["share_of_worst"].as_f64().unwrap() - 1.0).abs() < 1e-9, "{doc}");
    // The saved start, given back as --init, has the worst value.
    let init = format!("@{}", worst.display());
    let output =
        poplab().args(["exact", "ls-timer", "--n", "4", "--set", "s=6", "--init", &init, "--json"]).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let again: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!((again["expected_steps"].as_f64().unwrap() - worst_steps).abs() <= 1e-9 * worst_steps);
    // The same file runs as a start.
    let output = poplab().args(["run", "ls-timer", "--n", "4", "--set", "s=6", "--init", &init]).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}

#[test]
fn exact_from_all_says_which_starts_never_converge() {
    let output = poplab().args(["exact", "angluin", "--n", "5", "--from", "all"]).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("1 starts never reach the safe set"), "{text}");
    assert!(text.contains(r#"worst start 1: [{"leader":false}"#), "{text}");
    // --from and --init naming two different starts, and --save-worst without --from all.
    let output =
        poplab().args(["exact", "angluin", "--n", "5", "--from", "default", "--init", "default"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let output = poplab()
        .args(["exact", "angluin", "--n", "5", "--from", "default", "--save-worst", "w.json"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("add --from all"));
}

#[test]
fn a_sweep_reads_each_cells_start_file_by_its_size() {
    let dir = tempfile::tempdir().unwrap();
    for n in ["4", "5"] {
        let file = dir.path().join(format!("worst-{n}.json"));
        let output = poplab()
            .args(["exact", "ls-timer", "--n", n, "--set", "s=6", "--from", "all", "--save-worst"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    }
    let init = format!("@{}/worst-{{n}}.json", dir.path().display());
    let out = dir.path().join("sweep");
    let output = poplab()
        .args(["sweep", "ls-timer", "--n", "4,5", "--set", "s=6", "--trials", "2", "--init", &init, "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    // A size without its file is refused before anything runs, naming the file.
    let output = poplab()
        .args(["sweep", "ls-timer", "--n", "4,6", "--set", "s=6", "--trials", "2", "--init", &init, "--out"])
        .arg(dir.path().join("other"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("worst-6.json"));
}
