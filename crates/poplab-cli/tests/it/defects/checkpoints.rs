//! Checkpoints read back as strictly as user input: damaged, resealed or unreadable ones are refused, and a failed write stops the run.

use super::*;

/// A finished run's checkpoint of angluin with 200 agents and 2 trials on `engine`, with trial 1
/// made a running trial whose engine snapshot is `engine_snapshot` (the `agents` or `counts`
/// object) and whose faults' stream is `faults`; then `edit` changes the document before it is
/// resealed (its checksum made right, as a hand edit or a buggy tool would). Returns the path.
fn resealed_checkpoint(name: &str, engine: &str, engine_snapshot: Value, edit: impl FnOnce(&mut Value)) -> PathBuf {
    let file = scratch(&format!("{name}.ckpt"));
    let args = ["run", "angluin", "--n", "200", "--engine", engine, "--trials", "2", "--seed", "9", "--json"];
    poplab().args(args).arg("--checkpoint").arg(&file).assert().success();
    let text = std::fs::read_to_string(&file).unwrap();
    let mut document: Value = serde_json::from_str(text.split_once('\n').unwrap().1).unwrap();
    document["finished"].as_array_mut().unwrap().truncate(1);
    let kind = if engine == "agents" { "agents" } else { "counts" };
    document["running"] = serde_json::json!([{
        "index": 1,
        "faults_rng": {"s": [9, 9, 9, 9]},
        "run": {"states": [{"leader": true}, {"leader": false}], "engine": {kind: engine_snapshot}},
    }]);
    edit(&mut document);
    let body = document.to_string();
    std::fs::write(&file, poplab::checkpoint::head(&body) + &body).unwrap();
    file
}

/// An agent engine's snapshot of 200 leaders at `step` with the given blocks of pairs.
fn agent_snapshot(step: u64, pairs: Value, ahead: Value) -> Value {
    serde_json::json!({
        "agents": vec![0; 200], "step": step, "rng": {"s": [1, 2, 3, 4]}, "outcomes": {"s": [5, 6, 7, 8]},
        "pairs": pairs, "ahead": ahead, "census": null,
    })
}

/// A count engine's snapshot with these counts of leaders and followers (both present).
fn count_snapshot(counts: [u64; 2], batched: bool) -> Value {
    let batcher = batched.then(|| {
        serde_json::json!({"always": false, "steps_in_batches": 0, "census_rng": {"s": [1, 1, 1, 1]},
            "looks_rng": {"s": [2, 2, 2, 2]}})
    });
    serde_json::json!({
        "counts": counts, "present": [0, 1], "step": 0, "rng": {"s": [1, 2, 3, 4]}, "outcomes": {"s": [5, 6, 7, 8]},
        "pending": null, "skipping": false, "skip_review": 0, "census": false, "last_demotion": null,
        "batcher": batcher,
    })
}

/// `run --resume FILE` exits 2 (within the helper's 60 s) with one line naming the file as
/// damaged and containing `needle`.
fn refused_as_damaged(file: &std::path::Path, needle: &str) {
    let file = file.to_str().unwrap();
    refused(&["run", "--json", "--resume", file], &[&format!("checkpoint '{file}': is damaged ("), needle]);
}

/// R4: a checkpointed pair of agents beyond n panicked in a worker thread (index out of bounds),
/// and the checkpoint writer then waited forever for the dead trial's snapshot: the process never
/// ended. Restores now check every pair against n (and its two members apart).
#[test]
fn r4_a_checkpointed_pair_beyond_n_is_refused_not_a_hang() {
    let ok = resealed_checkpoint(
        "r4-ok",
        "agents",
        agent_snapshot(0, serde_json::json!([[0, 1]]), serde_json::json!([])),
        |_| {},
    );
    poplab().args(["run", "--json", "--resume"]).arg(&ok).timeout(Duration::from_secs(60)).assert().success();
    let beyond = resealed_checkpoint(
        "r4-beyond",
        "agents",
        agent_snapshot(0, serde_json::json!([]), serde_json::json!([[0, 200]])),
        |_| {},
    );
    refused_as_damaged(
        &beyond,
        "its pairs drawn ahead hold the pair (0, 200), which is not two distinct agents of 0..200",
    );
    let same = resealed_checkpoint(
        "r4-same",
        "agents",
        agent_snapshot(0, serde_json::json!([[7, 7]]), serde_json::json!([])),
        |_| {},
    );
    refused_as_damaged(&same, "(7, 7)");
    // The same through a sweep's running.ckpt.
    let dir = scratch("r4-sweep");
    let _ = std::fs::remove_dir_all(&dir);
    let args = ["sweep", "angluin", "--n", "200", "--engine", "agents", "--trials", "2", "--seed", "9"];
    poplab().args(args).arg("--out").arg(&dir).assert().success();
    let trials = std::fs::read_to_string(dir.join("trials.csv")).unwrap();
    let kept: Vec<&str> = trials.lines().take(2).collect();
    std::fs::write(dir.join("trials.csv"), kept.join("\n") + "\n").unwrap();
    let _ = std::fs::remove_file(dir.join("trials.csv.checksum"));
    let definition: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("sweep.json")).unwrap()).unwrap();
    let running = serde_json::json!({"poplab": env!("CARGO_PKG_VERSION"), "spec": definition, "finished": [],
        "running": [{"index": 1, "faults_rng": {"s": [9, 9, 9, 9]}, "run": {"states": [{"leader": true}],
        "engine": {"agents": agent_snapshot(0, serde_json::json!([]), serde_json::json!([[0, 200]]))}}}]});
    let body = running.to_string();
    std::fs::write(dir.join("running.ckpt"), poplab::checkpoint::head(&body) + &body).unwrap();
    refused(
        &["sweep", "--resume", dir.to_str().unwrap()],
        &["running.ckpt': is damaged (trial 1: ", "(0, 200)", "remove it: only the running trials restart"],
    );
}

/// R5: other contents no run writes, resealed: a schedule stream of zeros ran forever, counts
/// summing to n only modulo 2^64 aborted the batched engine and gave a wrong result on the count
/// engine, and a step beyond the horizon, a horizon below a snapshot's step or a finished trial
/// censored short of the horizon were accepted. Each is refused, naming the file.
#[test]
fn r5_damaged_checkpoint_contents_are_refused() {
    let zeros = resealed_checkpoint(
        "r5-zeros",
        "agents",
        agent_snapshot(0, serde_json::json!([]), serde_json::json!([])),
        |d| {
            d["running"][0]["run"]["engine"]["agents"]["rng"] = serde_json::json!({"s": [0, 0, 0, 0]});
        },
    );
    refused_as_damaged(&zeros, "its schedule stream is all zeros");
    let wrapping = [u64::MAX - 55, 256];
    for engine in ["counts", "batched"] {
        let ok = resealed_checkpoint(
            &format!("r5-{engine}-ok"),
            engine,
            count_snapshot([150, 50], engine == "batched"),
            |_| {},
        );
        poplab().args(["run", "--json", "--resume"]).arg(&ok).timeout(Duration::from_secs(60)).assert().success();
        let wraps =
            resealed_checkpoint(&format!("r5-{engine}"), engine, count_snapshot(wrapping, engine == "batched"), |_| {});
        refused_as_damaged(&wraps, "its counts sum to 18446744073709551816 agents, and the run has n = 200");
    }
    let beyond = resealed_checkpoint(
        "r5-beyond",
        "agents",
        agent_snapshot(0, serde_json::json!([]), serde_json::json!([])),
        |d| {
            d["running"][0]["run"]["engine"]["agents"]["step"] = serde_json::json!(2_000_000_000_000u64);
        },
    );
    refused_as_damaged(&beyond, "trial 1: paused at step 2000000000000, beyond the horizon 1000000000000");
    let horizon = resealed_checkpoint(
        "r5-horizon",
        "agents",
        agent_snapshot(0, serde_json::json!([]), serde_json::json!([])),
        |d| {
            d["running"][0]["run"]["engine"]["agents"]["step"] = serde_json::json!(10);
            d["spec"]["max_steps"] = serde_json::json!(5);
            d["finished"] = serde_json::json!([]);
        },
    );
    refused_as_damaged(&horizon, "trial 1: paused at step 10, beyond the horizon 5");
    let censored = resealed_checkpoint(
        "r5-censored",
        "agents",
        agent_snapshot(0, serde_json::json!([]), serde_json::json!([])),
        |d| {
            d["finished"][0]["outcome"] = serde_json::json!("censored");
        },
    );
    refused_as_damaged(&censored, "finished trial 0 is censored at step");
}

/// R3: `--checkpoint` on a named pipe blocked forever (waiting for a reader), and `/dev/null` was
/// accepted; a checkpoint `--resume` could not read back is now refused up front.
#[cfg(unix)]
#[test]
fn r3_a_checkpoint_that_cannot_be_read_back_is_refused() {
    let fifo = scratch("r3-fifo");
    let _ = std::fs::remove_file(&fifo);
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    for file in [fifo.to_str().unwrap(), "/dev/null"] {
        refused(
            &["run", "angluin", "--n", "100", "--checkpoint", file],
            &[&format!("'{file}' is a device or a pipe"), "--resume could not read the checkpoint back"],
        );
    }
}

/// R6: a checkpoint that could not be written was reported only after every trial, and then no
/// result was written. The run now stops at the first failed write, within one period (here its
/// directory is removed under it, and the run would take hours).
#[test]
fn r6_a_failed_checkpoint_write_stops_the_run() {
    let dir = scratch("r6");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("c.ckpt");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("poplab"))
        .args(["run", "angluin", "--n", "10^6", "--engine", "agents", "--trials", "2", "--threads", "1"])
        .args(["--checkpoint-every", "100ms", "--checkpoint"])
        .arg(&file)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !file.exists() {
        assert!(started.elapsed() < Duration::from_secs(60), "no checkpoint was written");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::fs::remove_dir_all(&dir).unwrap();
    let removed = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        // The run to its end would take hours ((n - 1)^2 = 10^12 expected steps per trial); 120 s
        // leaves room for a loaded machine (30 s was exceeded at a load of 9 on 2 cores).
        if removed.elapsed() > Duration::from_secs(120) {
            child.kill().unwrap();
            panic!("the run went on after its checkpoint could not be written");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(!status.success() && stderr.contains("c.ckpt"), "{status}: {stderr}");
}
