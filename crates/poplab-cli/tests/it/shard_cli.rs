//! Sharded sweeps: shards run as separate processes, killed and run again, then merged, give
//! byte for byte the directory an unsharded sweep writes; merge refuses what it cannot join.

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn poplab() -> Command {
    Command::cargo_bin("poplab").unwrap()
}

fn fresh(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("poplab-shard-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

const SPEC: [&str; 9] = ["angluin", "--n", "10,30,100", "--set", "", "--trials", "7", "--seed", "11"];

/// The sweep's arguments (without the empty `--set`).
fn sweep_args() -> Vec<&'static str> {
    let mut args = vec!["sweep"];
    args.extend(SPEC.iter().filter(|a| !a.is_empty() && **a != "--set"));
    args
}

const FILES: [&str; 5] = ["sweep.json", "trials.csv", "summary.csv", "summary.json", "fits.json"];

fn assert_same_files(a: &Path, b: &Path) {
    for file in FILES {
        let (x, y) = (std::fs::read(a.join(file)).unwrap(), std::fs::read(b.join(file)).unwrap());
        assert!(x == y, "{file} differs between {} and {}", a.display(), b.display());
    }
}

/// The unsharded sweep, into a directory of the caller's own.
fn unsharded(name: &str) -> PathBuf {
    let dir = fresh(name);
    poplab().args(sweep_args()).arg("--out").arg(&dir).assert().success();
    dir
}

fn shards(name: &str, k: u64) -> Vec<PathBuf> {
    (0..k)
        .map(|i| {
            let dir = fresh(&format!("{name}-{i}"));
            let shard = format!("{i}/{k}");
            poplab()
                .args(sweep_args())
                .args(["--shard", &shard, "--threads", "1", "--out"])
                .arg(&dir)
                .assert()
                .success();
            dir
        })
        .collect()
}

fn merge(out: &Path, parts: &[PathBuf]) -> std::process::Output {
    poplab().arg("merge").arg("--out").arg(out).args(parts).output().unwrap()
}

#[test]
fn any_number_of_shards_merges_to_the_unsharded_sweep() {
    let whole = unsharded("whole-k");
    for k in [1, 3, 7] {
        let parts = shards(&format!("k{k}"), k);
        let out = fresh(&format!("merged-{k}"));
        let merged = merge(&out, &parts);
        assert!(merged.status.success(), "{}", String::from_utf8_lossy(&merged.stderr));
        assert_same_files(&whole, &out);
    }
}

#[test]
fn shards_from_the_slurm_environment_and_packed() {
    let whole = unsharded("whole-env");
    // An array --array=1-3 with two shards packed per task: 6 shards in all.
    let parts: Vec<PathBuf> = (1..=3)
        .map(|task| {
            let dir = fresh(&format!("env-{task}"));
            poplab()
                .args(sweep_args())
                .args(["--shard-from-env", "--pack", "2", "--out"])
                .arg(&dir)
                .env("SLURM_ARRAY_TASK_ID", task.to_string())
                .env("SLURM_ARRAY_TASK_MIN", "1")
                .env("SLURM_ARRAY_TASK_COUNT", "3")
                .env("SLURM_ARRAY_TASK_MAX", "3")
                .assert()
                .success();
            dir
        })
        .collect();
    let out = fresh("env-merged");
    assert!(merge(&out, &parts).status.success());
    assert_same_files(&whole, &out);
    let missing =
        poplab().args(sweep_args()).args(["--shard-from-env", "--out"]).arg(fresh("no-env")).output().unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("SLURM_ARRAY_TASK_ID"));
}

#[test]
fn a_shard_killed_and_run_again_merges_to_the_unsharded_sweep() {
    let args = [
        "sweep",
        "angluin",
        "--n",
        "3000,4000",
        "--trials",
        "30",
        "--seed",
        "5",
        "--threads",
        "1",
        "--engine",
        "agents",
    ];
    let whole = fresh("kill-whole");
    poplab().args(args).arg("--out").arg(&whole).assert().success();
    let parts: Vec<PathBuf> = (0..2).map(|i| fresh(&format!("kill-{i}"))).collect();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("poplab"))
        .args(args)
        .args(["--shard", "0/2", "--out"])
        .arg(&parts[0])
        .spawn()
        .unwrap();
    let rows = || std::fs::read_to_string(parts[0].join("trials.csv")).map_or(0, |t| t.lines().count());
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while rows() < 3 {
        assert!(child.try_wait().unwrap().is_none(), "the shard ended before it could be killed");
        assert!(std::time::Instant::now() < deadline, "no rows within 2 minutes");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    assert!(rows() < 1 + 30, "killed before the shard's 30 trials ended");
    for (i, part) in parts.iter().enumerate() {
        // The same command again: shard 0 continues, shard 1 starts.
        let shard = format!("{i}/2");
        poplab().args(args).args(["--shard", &shard, "--out"]).arg(part).assert().success();
    }
    let out = fresh("kill-merged");
    assert!(merge(&out, &parts).status.success());
    assert_same_files(&whole, &out);
}

/// Runs merge, expects exit code 2 and one line containing `needle`.
fn merge_refused(parts: &[PathBuf], needle: &str) {
    let output = merge(&fresh("refused"), parts);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(stderr.contains(needle), "expected '{needle}' in {stderr}");
}

#[test]
fn merge_refuses_mixed_missing_repeated_and_torn_shards() {
    let parts = shards("refuse", 3);
    merge_refused(&parts[..2], "missing shards of 3: 2;");
    merge_refused(&parts[1..], "missing shards of 3: 0;");
    merge_refused(&[parts[0].clone(), parts[0].clone(), parts[1].clone(), parts[2].clone()], "holds shard 0");
    let other = fresh("refuse-other");
    poplab()
        .args(["sweep", "angluin", "--n", "10", "--trials", "2", "--shard", "0/3", "--out"])
        .arg(&other)
        .assert()
        .success();
    merge_refused(&[parts[0].clone(), parts[1].clone(), other], "belongs to a different sweep");
    let whole = unsharded("whole-refuse");
    merge_refused(&[whole], "is not a shard");
    // A torn trials.csv: its last rows are lost, so the shard is incomplete.
    let trials = parts[1].join("trials.csv");
    let text = std::fs::read_to_string(&trials).unwrap();
    std::fs::write(&trials, &text[..text.len() - 20]).unwrap();
    merge_refused(&parts, "lacks 1 of its");
    // Another split of the same sweep does not mix with this one.
    let four = fresh("refuse-four");
    poplab().args(sweep_args()).args(["--shard", "1/4", "--out"]).arg(&four).assert().success();
    merge_refused(&[parts[0].clone(), four.clone()], "splits the sweep into 3 shards");
    // A hand-edited shard that does not exist is refused, not a panic.
    let spec = parts[2].join("sweep.json");
    let text = std::fs::read_to_string(&spec).unwrap().replace("\"of\": 3", "\"of\": 0");
    std::fs::write(&spec, text).unwrap();
    merge_refused(&parts, "is not a sweep definition");
}

#[test]
fn a_shard_resumes_with_resume_and_refuses_another_shard_in_its_directory() {
    let whole = unsharded("whole-resume");
    let parts = shards("resume", 2);
    let trials = parts[0].join("trials.csv");
    let text = std::fs::read_to_string(&trials).unwrap();
    let kept: Vec<&str> = text.lines().collect();
    std::fs::write(&trials, kept[..kept.len() - 3].join("\n") + "\n").unwrap();
    poplab().args(["sweep", "--resume"]).arg(&parts[0]).assert().success();
    let out = fresh("resume-merged");
    assert!(merge(&out, &parts).status.success());
    assert_same_files(&whole, &out);
    let other = poplab().args(sweep_args()).args(["--shard", "1/2", "--out"]).arg(&parts[0]).output().unwrap();
    assert_eq!(other.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&other.stderr).contains("holds a different sweep"));
}

#[test]
fn a_sharded_reproduction_merges_to_the_same_data() {
    let whole = fresh("rep-whole");
    let only = ["reproduce", "--tiny", "--only", "angluin-exact", "--only", "prl-n", "--out"];
    poplab().args(only).arg(&whole).assert().success();
    let parts: Vec<PathBuf> = (0..2).map(|i| fresh(&format!("rep-{i}"))).collect();
    for (i, part) in parts.iter().enumerate() {
        let shard = format!("{i}/2");
        poplab().args(only).arg(part).args(["--shard", &shard]).assert().success();
        assert!(!part.join("report.md").exists());
    }
    let merged = fresh("rep-merged");
    // A missing shard is refused before anything is written.
    let partial = poplab().args(only).arg(&merged).arg("--merge").arg(&parts[0]).output().unwrap();
    assert_eq!(partial.status.code(), Some(2));
    assert!(!merged.join("data").exists());
    poplab().args(only).arg(&merged).arg("--merge").args(&parts).assert().success();
    // prl-n, a claim "from any configuration", has a sweep per size from the start its search
    // found there (the same in the shards, the whole and the merge).
    let prl: Vec<String> = std::fs::read_dir(whole.join("data/prl-n"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name != "starts")
        .map(|name| format!("data/prl-n/{name}"))
        .collect();
    assert_eq!(prl.len(), 2, "{prl:?}");
    for sweep in prl.iter().map(String::as_str).chain(["data/angluin-exact/sweep-0"]) {
        assert_same_files(&whole.join(sweep), &merged.join(sweep));
    }
    assert!(merged.join("report.md").exists());
}

#[test]
fn a_reproduction_whose_searches_ran_apart_merges_to_the_same_data() {
    let only = ["reproduce", "--tiny", "--only", "prl-n", "--only", "ls-timer-big-n", "--out"];
    let whole = fresh("apart-whole");
    poplab().args(only).arg(&whole).assert().success();
    // The searched sizes (2 per claim) dealt to 3 search shards, then 2 shards of the sweeps.
    let searches: Vec<PathBuf> = (0..3).map(|i| fresh(&format!("apart-search-{i}"))).collect();
    for (i, dir) in searches.iter().enumerate() {
        poplab().args(only).arg(dir).args(["--searches", "--shard", &format!("{i}/3")]).assert().success();
    }
    let records = |dir: &Path| -> usize {
        ["prl-n", "ls-timer-big-n"]
            .iter()
            .filter_map(|claim| std::fs::read_dir(dir.join("data").join(claim).join("starts")).ok())
            .map(|entries| {
                entries.filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().ends_with(".search.json")).count()
            })
            .sum()
    };
    assert_eq!(searches.iter().map(|d| records(d)).collect::<Vec<_>>(), [2, 1, 1]);
    // A shard without every search refuses to search on its own.
    let lacking = fresh("apart-lacking");
    let refused =
        poplab().args(only).arg(&lacking).args(["--shard", "0/2", "--starts"]).arg(&searches[0]).output().unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("reproduce --searches"), "{refused:?}");
    let parts: Vec<PathBuf> = (0..2).map(|i| fresh(&format!("apart-rep-{i}"))).collect();
    for (i, part) in parts.iter().enumerate() {
        poplab()
            .args(only)
            .arg(part)
            .args(["--shard", &format!("{i}/2"), "--starts"])
            .args(&searches)
            .assert()
            .success();
    }
    let merged = fresh("apart-merged");
    poplab().args(only).arg(&merged).arg("--merge").args(&parts).arg("--starts").args(&searches).assert().success();
    for claim in ["prl-n", "ls-timer-big-n"] {
        for entry in std::fs::read_dir(whole.join("data").join(claim)).unwrap() {
            let name = entry.unwrap().file_name();
            if name != "starts" {
                let sweep = Path::new("data").join(claim).join(name);
                assert_same_files(&whole.join(&sweep), &merged.join(&sweep));
            }
        }
    }
    assert_eq!(records(&merged), 4);
    // Searches of another seed clash with those imported.
    let other = fresh("apart-other");
    poplab().args(only).arg(&other).args(["--searches", "--seed", "2"]).assert().success();
    let clash = poplab().args(only).arg(&merged).arg("--starts").arg(&other).output().unwrap();
    assert_eq!(clash.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&clash.stderr).contains("different searches"), "{clash:?}");
}
