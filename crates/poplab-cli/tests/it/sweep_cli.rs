//! `poplab sweep`: files, resumption after a kill, and identical results.

use crate::common;

use assert_cmd::Command;
use common::{holds_a_trial_in_progress, kill_in_a_trial};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn poplab() -> Command {
    Command::cargo_bin("poplab").unwrap()
}

fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("poplab-sweep-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

const SWEEP: [&str; 9] = ["sweep", "threshold", "--n", "20,40", "--set", "k=3,5", "--trials", "25", "--seed"];

fn sweep_into(dir: &Path) {
    poplab().args(SWEEP).arg("7").arg("--out").arg(dir).assert().success();
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap()
}

#[test]
fn a_sweep_writes_tidy_rows_summaries_and_fits() {
    let dir = fresh_dir("files");
    sweep_into(&dir);
    let trials = read(&dir, "trials.csv");
    assert_eq!(trials.lines().count(), 1 + 4 * 25);
    assert!(trials.starts_with("protocol,cell,n,k,init,measure,rng,master_seed,trial,trial_seed,outcome,steps"));
    let summary = read(&dir, "summary.csv");
    assert_eq!(summary.lines().count(), 5);
    assert!(summary.lines().nth(1).unwrap().starts_with("n=20 k=3,20,3,25,25,0,"));
    let fits: serde_json::Value = serde_json::from_str(&read(&dir, "fits.json")).unwrap();
    assert_eq!(fits["fits"].as_array().unwrap().len(), 2, "one fit per k");
    // A second sweep into the same directory is refused: it would mix two sweeps.
    let again = poplab().args(SWEEP).arg("7").arg("--out").arg(&dir).output().unwrap();
    assert_eq!(again.status.code(), Some(2));
}

#[test]
fn resuming_a_cut_sweep_gives_the_uninterrupted_results() {
    let whole = fresh_dir("whole");
    sweep_into(&whole);

    // Simulate a kill: drop the last 40 rows and leave a torn line behind.
    let cut = fresh_dir("cut");
    sweep_into(&cut);
    let trials = read(&cut, "trials.csv");
    let kept: Vec<&str> = trials.lines().collect();
    let mut text = kept[..kept.len() - 40].join("\n");
    text += "\nthreshold,n=40 k=5,40,5,def";
    std::fs::write(cut.join("trials.csv"), text).unwrap();
    std::fs::remove_file(cut.join("summary.csv")).unwrap();
    poplab().args(["sweep", "--resume"]).arg(&cut).assert().success();

    assert_eq!(read(&cut, "summary.csv"), read(&whole, "summary.csv"));
    assert_eq!(read(&cut, "fits.json"), read(&whole, "fits.json"));
    let mut a: Vec<String> = read(&cut, "trials.csv").lines().map(String::from).collect();
    let mut b: Vec<String> = read(&whole, "trials.csv").lines().map(String::from).collect();
    a.sort();
    b.sort();
    assert_eq!(a, b);
}

#[test]
fn a_sweep_killed_with_sigkill_resumes_to_the_same_results() {
    let args = ["sweep", "angluin", "--n", "300,400", "--trials", "400", "--seed", "5", "--threads", "1"];
    let whole = fresh_dir("kill-whole");
    poplab().args(args).arg("--out").arg(&whole).assert().success();

    let killed = fresh_dir("killed");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("poplab"))
        .args(args)
        .arg("--out")
        .arg(&killed)
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    poplab().args(["sweep", "--resume"]).arg(&killed).assert().success();
    assert_eq!(read(&killed, "summary.csv"), read(&whole, "summary.csv"));
}

#[test]
fn resume_needs_a_sweep_directory() {
    let output = poplab().args(["sweep", "--resume", "/nonexistent/sweep"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("is not a directory") && stderr.contains("--out directory"), "{stderr}");
}

#[test]
fn a_sweep_names_the_engine_of_each_cell_when_auto_picks_several() {
    let dir = fresh_dir("engines");
    let args = ["sweep", "threshold", "--n", "100", "--set", "k=3,70", "--trials", "3", "--seed", "1", "--out"];
    poplab().args(args).arg(&dir).assert().success();
    let spec: serde_json::Value = serde_json::from_str(&read(&dir, "sweep.json")).unwrap();
    // 4 states batch; 71 states stay on the agent array.
    assert_eq!(spec["engine"], "auto");
    assert_eq!(spec["engine_by_cell"], serde_json::json!({"n=100 k=3": "batched", "n=100 k=70": "agents"}));
    // One engine for every cell: named, with no list.
    let single = fresh_dir("one-engine");
    poplab().args(["sweep", "angluin", "--n", "50,100", "--trials", "2", "--out"]).arg(&single).assert().success();
    let spec: serde_json::Value = serde_json::from_str(&read(&single, "sweep.json")).unwrap();
    assert_eq!((spec["engine"].as_str(), spec.get("engine_by_cell")), (Some("batched"), None));
}

/// A sweep killed with SIGKILL inside its trials (twice, at fixed pseudo-random delays after a
/// trial in progress was first checkpointed) and resumed, with 1 thread then 2, ends with the files
/// of the uninterrupted sweep, on every engine; the trials running at a kill go on from their
/// checkpoint (`running.ckpt`, removed when the sweep ends). Each uninterrupted sweep takes 2 to 3
/// seconds on an idle 2-core machine.
#[test]
fn a_sweep_killed_mid_trial_resumes_its_trials_from_their_checkpoints() {
    let cases: [&[&str]; 3] = [
        &["ls-timer", "--n", "8000,9000", "--engine", "agents", "--trials", "2", "--seed", "3"],
        &["ls-timer", "--n", "4000,4500", "--engine", "counts", "--census", "--trials", "2", "--seed", "4"],
        &["angluin", "--n", "100000000,120000000", "--engine", "batched", "--trials", "2", "--seed", "5"],
    ];
    // Fixed pseudo-random delays (milliseconds) after the first checkpointed trial in progress.
    let delays = [120, 380, 210, 450, 60, 300];
    let mut in_progress = 0;
    for (c, args) in cases.iter().enumerate() {
        let whole = fresh_dir(&format!("ckpt-whole-{c}"));
        poplab().arg("sweep").args(*args).arg("--out").arg(&whole).assert().success();
        let killed = fresh_dir(&format!("ckpt-killed-{c}"));
        let mut first = std::process::Command::new(assert_cmd::cargo::cargo_bin("poplab"));
        first.arg("sweep").args(*args).args(["--threads", "1", "--checkpoint-every", "40ms", "--out"]).arg(&killed);
        let mut again = std::process::Command::new(assert_cmd::cargo::cargo_bin("poplab"));
        again.args(["sweep", "--threads", "2", "--checkpoint-every", "40ms", "--resume"]).arg(&killed);
        for (k, command) in [&mut first, &mut again].into_iter().enumerate() {
            let checkpoint = killed.join("running.ckpt");
            let killed_running = kill_in_a_trial(command, &checkpoint, Duration::from_millis(delays[2 * c + k]));
            in_progress += usize::from(killed_running && holds_a_trial_in_progress(&checkpoint));
        }
        poplab().args(["sweep", "--threads", "2", "--resume"]).arg(&killed).assert().success();
        assert_eq!(read(&killed, "summary.csv"), read(&whole, "summary.csv"), "{args:?}");
        assert_eq!(read(&killed, "trials.csv"), read(&whole, "trials.csv"), "{args:?}");
        assert!(!killed.join("running.ckpt").exists());
    }
    assert!(in_progress >= 4, "only {in_progress} of 6 kills left a trial in progress in the checkpoint");
}

#[test]
fn a_claim_is_judged_on_the_sweep_and_kept_in_claims_json() {
    let dir = fresh_dir("claim");
    let output = poplab()
        .args(["sweep", "angluin", "--n", "100,1000,10000", "--trials", "200", "--seed", "3", "--claim-in", "steps"])
        .args(["--claim", "O(n^2)", "--claim", "O(n)", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("claim O(n^2) (steps): consistent (power "), "{stdout}");
    assert!(lines[1].starts_with("claim O(n) (steps): inconsistent (power "), "{stdout}");
    let kept: serde_json::Value = serde_json::from_str(&read(&dir, "claims.json")).unwrap();
    assert_eq!(kept[1]["claim"], "O(n)");
    assert_eq!(kept[1]["judgement"]["verdict"], "inconsistent");
}

#[test]
fn a_claim_that_cannot_be_judged_is_refused_before_anything_runs() {
    for (args, says) in [
        (vec!["--n", "10,20,40", "--claim", "O(N log n)"], "'N' has no value: the swept variable is n"),
        (vec!["--n", "10,20", "--claim", "O(n)"], "needs three values of n or more"),
        (vec!["--n", "10,20,40", "--claim", "Q(n)"], "'Q' is no bound"),
        (vec!["--n", "10,20,40", "--claim", "Omega(e^(n^2))"], "linear"),
    ] {
        let dir = fresh_dir("bad-claim");
        let output = poplab().args(["sweep", "angluin"]).args(&args).arg("--out").arg(&dir).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says) && stderr.lines().count() == 1, "{args:?}: {stderr}");
        assert!(!dir.join("trials.csv").exists(), "{args:?}: a refused claim ran the sweep");
    }
}
