//! User protocols from the command line: `@FILE.toml` in run, sweep, exact, verify and list;
//! `--init counts:...`; errors that name the line of the file.

use crate::common;

use common::{fails_with, poplab};
use serde_json::Value;

fn example(name: &str) -> String {
    format!("@{}/../../examples/protocols/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn json(args: &[&str]) -> Value {
    let output = poplab().args(args).arg("--json").output().unwrap();
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn a_protocol_file_runs_on_every_engine_with_the_same_document() {
    let file = example("approximate-majority.toml");
    for engine in ["agents", "counts", "batched"] {
        let doc = json(&["run", &file, "--n", "1000", "--trials", "20", "--seed", "3", "--engine", engine]);
        assert_eq!(doc["protocol"], "approximate-majority");
        assert_eq!(doc["engine"], engine);
        assert_eq!(doc["params"]["stop"], "consensus");
        assert_eq!(doc["summary"]["converged"], 20);
    }
    let auto = json(&["run", &file, "--n", "100000", "--trials", "2", "--seed", "3"]);
    assert_eq!(auto["engine"], "batched", "user protocols batch on the complete graph by default");
    let ring = json(&[
        "run",
        &example("approximate-majority.toml"),
        "--n",
        "40",
        "--init",
        "counts:A=30,B=10",
        "--graph",
        "undirected-ring",
        "--max-steps",
        "10^7",
        "--trials",
        "5",
    ]);
    assert_eq!(ring["engine"], "agents");
    assert_eq!(ring["summary"]["converged"], 5, "consensus on a ring too");
    // The 4-state exact majority cannot converge on a ring: strong agents never move, so strong
    // opinions apart never cancel. The runs end censored at the horizon.
    let stuck = json(&[
        "run",
        &example("exact-majority.toml"),
        "--n",
        "40",
        "--init",
        "counts:A=30,B=10",
        "--graph",
        "undirected-ring",
        "--max-steps",
        "10^6",
        "--trials",
        "3",
    ]);
    assert_eq!(stuck["summary"]["censored"], 3);
}

#[test]
fn initial_configurations_by_counts_and_fixed_time_stops() {
    let file = example("exact-majority.toml");
    let doc = json(&["run", &file, "--n", "100", "--init", "counts:A=60,B=40", "--trials", "5"]);
    assert_eq!(doc["init"], "counts:A=60,B=40");
    assert_eq!(doc["summary"]["converged"], 5);
    fails_with(&["run", &file, "--n", "100", "--init", "counts:A=60,B=30"], "the counts sum to 90 agents but n = 100");
    fails_with(&["run", &file, "--n", "100", "--init", "counts:A=60,C=40"], "unknown state 'C'");
}

#[test]
fn sweep_exact_verify_and_list_take_protocol_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep");
    let file = example("election-randomized.toml");
    poplab()
        .args(["sweep", &file, "--n", "20,40", "--trials", "30", "--seed", "2", "--out"])
        .arg(&out)
        .assert()
        .success();
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert_eq!(summary.lines().count(), 3, "{summary}");

    let exact = json(&["exact", &example("threshold.toml"), "--n", "12"]);
    let builtin = json(&["exact", "threshold", "--n", "12"]);
    assert_eq!(exact["expected_steps"], builtin["expected_steps"]);
    // A randomized rule is weighed exactly: from n leaders 2 (n - 1)^2 expected steps.
    let randomized = json(&["exact", &file, "--n", "5"]);
    assert!((randomized["expected_steps"].as_f64().unwrap() - 32.0).abs() < 1e-9, "{randomized}");
    let verified = json(&["verify", &example("threshold.toml"), "--n", "12"]);
    assert_eq!(verified["closure"]["passed"], true);
    assert_eq!(verified["convergence"]["passed"], true);

    let listed = json(&["list", &example("election-randomized.toml")]);
    assert_eq!(listed["stop"], "one-leader");
    assert_eq!(listed["rules"][0]["results"][0]["probability"], 0.5);
    let text = poplab().args(["list", &example("discrete-averaging.toml")]).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("states (51)") && text.contains("stop rule (safe set): silent"), "{text}");
}

#[test]
fn errors_in_a_protocol_file_name_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        format!("@{}", path.display())
    };
    let base =
        "name = \"p\"\n[states]\nA = \"yes\"\nB = \"no\"\n[rules]\n\"A,B\" = \"A,A\"\n[stop]\nsafe = \"consensus\"\n";
    let unknown = write("unknown.toml", &base.replace("\"A,A\"", "\"A,C\""));
    fails_with(&["run", &unknown, "--n", "10"], "line 6: state C is not in [states]");
    let above = write("above.toml", &base.replace("\"A,A\"", "{ \"A,A\" = 0.7, \"B,B\" = 0.4 }"));
    fails_with(&["run", &above, "--n", "10"], "line 6: rule \"A,B\": the probabilities sum to 1.1");
    let no_output = write("output.toml", &base.replace("B = \"no\"", "B = 1"));
    fails_with(&["list", &no_output], "line 4: state B: the output must be");
    let no_stop = write("stop.toml", &base.replace("[stop]\nsafe = \"consensus\"\n", ""));
    fails_with(&["run", &no_stop, "--n", "10"], "the [stop] section is missing");
    let ok = write("ok.toml", base);
    fails_with(&["run", &ok, "--n", "10"], "has no initial configuration; give one in [init] or with --init");
    fails_with(&["run", &ok, "--n", "10", "--set", "k=1"], "has no parameter 'k'");
}
