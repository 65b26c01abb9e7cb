//! Sweeps, shards and their stored files: inputs by file, torn and edited stores, resumes that would change the sweep, merges that check their shards.

use super::*;

/// Defect 1: Sweeps take `--init @FILE` and `--graph @FILE` like run.
#[test]
fn d01_sweep_takes_files_for_init_and_graph() {
    let init = scratch("d01-init.json");
    std::fs::write(&init, r#"[{"leader": true}, {"leader": true}, {"leader": false}, {"leader": true}]"#).unwrap();
    let arcs = scratch("d01-arcs.txt");
    // Every ordered pair: angluin's leaders never move, so they must all be able to meet.
    let all: String = (0..4).flat_map(|u| (0..4).filter(move |&v| v != u).map(move |v| format!("{u} {v}\n"))).collect();
    std::fs::write(&arcs, all).unwrap();
    let dir = scratch("d01-sweep");
    let _ = std::fs::remove_dir_all(&dir);
    let init_arg = format!("@{}", init.display());
    let graph_arg = format!("@{}", arcs.display());
    let args = [
        "sweep",
        "angluin",
        "--n",
        "4",
        "--trials",
        "3",
        "--max-steps",
        "10^6",
        "--init",
        &init_arg,
        "--graph",
        &graph_arg,
    ];
    poplab().args(args).arg("--out").arg(&dir).assert().success();
    let trials = std::fs::read_to_string(dir.join("trials.csv")).unwrap();
    assert_eq!(trials.lines().count(), 4, "{trials}");
    assert!(trials.lines().skip(1).all(|l| l.contains(",converged,")), "{trials}");
    poplab().args(["sweep", "--resume"]).arg(&dir).assert().success();
}

/// Defect 2: A sweep killed before its header was complete resumes (an empty or torn header is zero rows).
#[test]
fn d02_a_sweep_with_an_empty_or_torn_trials_file_resumes() {
    let whole = scratch("d02-whole");
    let _ = std::fs::remove_dir_all(&whole);
    let args = ["sweep", "angluin", "--n", "20,30", "--trials", "4", "--seed", "3"];
    poplab().args(args).arg("--out").arg(&whole).assert().success();
    for (name, contents) in [("d02-empty", ""), ("d02-torn", "protocol,cell,n,in")] {
        let dir = scratch(name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(whole.join("sweep.json"), dir.join("sweep.json")).unwrap();
        std::fs::write(dir.join("trials.csv"), contents).unwrap();
        poplab().args(["sweep", "--resume"]).arg(&dir).assert().success();
        let read = |d: &PathBuf| std::fs::read_to_string(d.join("summary.csv")).unwrap();
        assert_eq!(read(&dir), read(&whole), "{name}");
    }
}

/// Defect 7: `--resume` refuses options that would change the sweep and honours `--threads`.
#[test]
fn d07_resume_refuses_options_that_change_the_sweep() {
    let dir = scratch("d07-sweep");
    let _ = std::fs::remove_dir_all(&dir);
    poplab().args(["sweep", "angluin", "--n", "10", "--trials", "2", "--out"]).arg(&dir).assert().success();
    let d = dir.display().to_string();
    for option in [["--trials", "5"], ["--seed", "3"], ["--n", "20"], ["--engine", "agents"], ["--max-steps", "100"]] {
        refused(&["sweep", "--resume", &d, option[0], option[1]], &["drop", option[0]]);
    }
    poplab().args(["sweep", "--resume", &d, "--threads", "1"]).assert().success();
}

/// Defect 12: fits.json names the censored cells it leaves out, and the command says so.
#[test]
fn d12_fits_name_the_cells_left_out() {
    let dir = scratch("d12-sweep");
    let _ = std::fs::remove_dir_all(&dir);
    let output = poplab()
        .args(["sweep", "angluin", "--n", "10,20,200,400", "--trials", "3", "--max-steps", "2000", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("fits leave out"));
    let fits: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("fits.json")).unwrap()).unwrap();
    let left_out = fits["fits"][0]["left_out"].as_array().unwrap();
    assert!(left_out.iter().any(|c| c["cell"] == "n=400"), "{fits}");
    assert!(std::fs::read_to_string(dir.join("summary.csv")).unwrap().contains(",false\n"));
}

/// Two shards of a small sweep, fresh, in `name-0` and `name-1`.
fn two_shards(name: &str) -> Vec<PathBuf> {
    (0..2)
        .map(|i| {
            let dir = scratch(&format!("{name}-{i}"));
            let _ = std::fs::remove_dir_all(&dir);
            poplab()
                .args([
                    "sweep",
                    "angluin",
                    "--n",
                    "10,20",
                    "--trials",
                    "3",
                    "--seed",
                    "1",
                    "--shard",
                    &format!("{i}/2"),
                ])
                .arg("--out")
                .arg(&dir)
                .assert()
                .success();
            dir
        })
        .collect()
}

/// An edit of a row's fields.
type RowEdit<'a> = &'a dyn Fn(&mut Vec<String>);

/// Rewrites line `line` (0: the header) of the shard's trials.csv with `edit`, or appends a copy
/// of it when `edit` is `None`.
fn edit_row(shard: &std::path::Path, line: usize, edit: Option<RowEdit<'_>>) {
    let path = shard.join("trials.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    assert!(header.contains(&"steps"), "{header:?}");
    match edit {
        Some(edit) => {
            let mut fields: Vec<String> = lines[line].split(',').map(str::to_string).collect();
            edit(&mut fields);
            lines[line] = fields.join(",");
        }
        None => lines.push(lines[line].clone()),
    }
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
}

/// The column `name` of the shard's trials.csv.
fn column(shard: &std::path::Path, name: &str) -> usize {
    let text = std::fs::read_to_string(shard.join("trials.csv")).unwrap();
    text.lines().next().unwrap().split(',').position(|c| c == name).unwrap()
}

/// N8: merge checks what the shards hold, not only that they are complete: each row's trial seed
/// is the one its master seed gives, outcome and steps agree with the horizon, no row is given
/// twice, and each trials.csv matches the checksum written with it (an edited step count).
#[test]
fn n8_merge_checks_the_content_of_shards() {
    let merge = |parts: &[PathBuf], needles: &[&str]| {
        let out = scratch("n8-merged");
        let _ = std::fs::remove_dir_all(&out);
        let mut args = vec!["merge".to_string(), "--out".into(), out.display().to_string()];
        args.extend(parts.iter().map(|p| p.display().to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        refused(&args, needles);
    };
    let parts = two_shards("n8-steps");
    let steps = column(&parts[0], "steps");
    edit_row(&parts[0], 1, Some(&|f: &mut Vec<String>| f[steps] = (f[steps].parse::<u64>().unwrap() + 1).to_string()));
    merge(&parts, &["trials.csv", "does not match its checksum"]);

    let parts = two_shards("n8-seed");
    let seed = column(&parts[0], "trial_seed");
    edit_row(&parts[0], 2, Some(&|f: &mut Vec<String>| f[seed] = "12345".into()));
    merge(&parts, &["n8-seed-0/trials.csv", "row 3", "trial seed 12345"]);

    let parts = two_shards("n8-censored");
    let outcome = column(&parts[1], "outcome");
    edit_row(&parts[1], 1, Some(&|f: &mut Vec<String>| f[outcome] = "censored".into()));
    merge(&parts, &["n8-censored-1/trials.csv", "row 2", "censored at", "the horizon"]);

    let parts = two_shards("n8-twice");
    edit_row(&parts[1], 1, None);
    merge(&parts, &["n8-twice-1/trials.csv", "is given twice"]);

    let parts = two_shards("n8-cell");
    edit_row(
        &parts[0],
        1,
        Some(&|f: &mut Vec<String>| {
            f[1] = "n=30".into();
            f[2] = "30".into();
        }),
    );
    merge(&parts, &["n8-cell-0/trials.csv", "row 2", "not in the sweep"]);
}

/// R2, sweeps: an input file that is one of the files a sweep writes into its directory was
/// overwritten (here the initial configuration, kept as `summary.csv`).
#[test]
fn r2_a_sweep_over_its_own_input_is_refused() {
    let dir = scratch("r2-sweep");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let init = dir.join("summary.csv");
    let agents = r#"[{"leader": true}, {"leader": true}, {"leader": false}, {"leader": true}]"#;
    std::fs::write(&init, agents).unwrap();
    refused(
        &[
            "sweep",
            "angluin",
            "--n",
            "4",
            "--trials",
            "2",
            "--init",
            &format!("@{}", init.display()),
            "--out",
            dir.to_str().unwrap(),
        ],
        &["summary.csv' is the same file as the input --init"],
    );
    assert_eq!(std::fs::read_to_string(&init).unwrap(), agents);
    // merge into one of its own shards (also through another spelling of its path).
    let parts: Vec<PathBuf> = (0..2).map(|i| scratch(&format!("r2-part-{i}"))).collect();
    for (i, part) in parts.iter().enumerate() {
        let _ = std::fs::remove_dir_all(part);
        let shard = format!("{i}/2");
        poplab().args(["sweep", "angluin", "--n", "10,20", "--shard", &shard, "--out"]).arg(part).assert().success();
    }
    let before = std::fs::read(parts[0].join("trials.csv")).unwrap();
    let aliased = parts[0].join("..").join(parts[0].file_name().unwrap());
    for out in [&parts[0], &aliased] {
        let mut args = vec!["merge".to_string(), "--out".into(), out.display().to_string()];
        args.extend(parts.iter().map(|p| p.display().to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        refused(&args, &["r2-part-0' is both a shard and the output; merge into a new directory"]);
    }
    assert_eq!(std::fs::read(parts[0].join("trials.csv")).unwrap(), before);
}

/// A sweep directory for the hostile-input tests below: angluin, n = 10 and 20, 3 trials.
fn hostile_sweep(name: &str) -> PathBuf {
    let dir = scratch(name);
    let _ = std::fs::remove_dir_all(&dir);
    poplab().args(["sweep", "angluin", "--n", "10,20", "--trials", "3", "--out"]).arg(&dir).assert().success();
    for file in ["summary.csv", "summary.json", "fits.json"] {
        std::fs::remove_file(dir.join(file)).unwrap();
    }
    dir
}

/// H1 (scripts/hostile/bad-input.py): `sweep --resume` on a directory whose trials.csv or
/// sweep.json is a named pipe waited forever on it, and a trials.csv that is a directory failed
/// with exit 1 after reading it as empty. Each is now refused, naming the file.
#[cfg(unix)]
#[test]
fn h1_a_sweep_file_that_is_a_pipe_or_a_directory_is_refused_not_a_hang() {
    for (name, file, kind) in [
        ("h1-trials-fifo", "trials.csv", "fifo"),
        ("h1-spec-fifo", "sweep.json", "fifo"),
        ("h1-trials-dir", "trials.csv", "dir"),
        ("h1-ckpt-fifo", "running.ckpt", "fifo"),
    ] {
        let dir = hostile_sweep(name);
        let path = dir.join(file);
        let _ = std::fs::remove_file(&path);
        if kind == "dir" {
            std::fs::create_dir(&path).unwrap();
        } else {
            assert!(std::process::Command::new("mkfifo").arg(&path).status().unwrap().success());
        }
        let started = Instant::now();
        refused(&["sweep", "--resume", dir.to_str().unwrap()], &[file]);
        assert!(started.elapsed() < Duration::from_secs(30), "{name}");
    }
}

/// H2 (scripts/hostile/bad-input.py): a resumed sweep kept stored rows that its master seed and
/// horizon rule out (a trial seed edited by hand, steps beyond the horizon), and read a trials.csv
/// that is not text as empty, overwriting it. Resume now checks rows as merge does.
#[test]
fn h2_a_resumed_sweep_checks_its_stored_rows() {
    let edit = |name: &str, column: &str, value: &str| {
        let dir = hostile_sweep(name);
        let text = std::fs::read_to_string(dir.join("trials.csv")).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        let at = lines[0].split(',').position(|c| c == column).unwrap();
        let mut cells: Vec<&str> = lines[1].split(',').collect();
        cells[at] = value;
        lines[1] = cells.join(",");
        std::fs::write(dir.join("trials.csv"), lines.join("\n") + "\n").unwrap();
        dir
    };
    let dir = edit("h2-seed", "trial_seed", "12345");
    refused(
        &["sweep", "--resume", dir.to_str().unwrap()],
        &["trials.csv", "row 2", "trial seed 12345", "remove the row"],
    );
    let dir = edit("h2-steps", "steps", "99999999999999999");
    refused(&["sweep", "--resume", dir.to_str().unwrap()], &["row 2", "beyond the horizon", "remove the row"]);
    let dir = hostile_sweep("h2-binary");
    std::fs::write(dir.join("trials.csv"), (0..=255u8).collect::<Vec<u8>>()).unwrap();
    refused(&["sweep", "--resume", dir.to_str().unwrap()], &["trials.csv", "not text", "remove it"]);
    assert_eq!(std::fs::read(dir.join("trials.csv")).unwrap().len(), 256, "the file is left as it was");
}

/// H4 (scripts/hostile/bad-input.py): `reproduce --out DIR` with a file DIR/data ran the first
/// experiment, then failed with two lines on standard error; it is now refused before running.
#[test]
fn h4_reproduce_refuses_a_file_in_place_of_data_before_running() {
    let out = scratch("h4-report");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("data"), "a file").unwrap();
    refused(
        &["reproduce", "--tiny", "--only", "angluin-exact", "--out", out.to_str().unwrap()],
        &["data", "is not a directory"],
    );
}
