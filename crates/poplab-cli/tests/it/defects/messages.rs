//! Messages: every refusal names the input and the fix, in one line; numbers in every notation; the report and plots name what they show or refuse.

use super::*;

/// Defect 8: a fault beyond the horizon would never happen: refused, instead of a run that reports
/// a recovery from it; a fault at the horizon's step hits.
#[test]
fn d08_no_recovery_without_a_fault() {
    refused(&["run", "angluin", "--n", "100", "--fault", "10^30:10", "--max-steps", "10^6"], &["after the horizon"]);
    let doc =
        json(&["run", "angluin", "--n", "100", "--fault", "10^3:10", "--max-steps", "10^3", "--engine", "agents"]);
    assert_eq!(doc["trials"][0]["outcome"], "censored");
    assert_eq!(doc["trials"][0]["recovery_steps"], 0, "{doc}");
    let doc = json(&["run", "angluin", "--n", "100", "--fault", "100:10", "--engine", "agents"]);
    assert!(doc["trials"][0]["recovery_steps"].as_u64().unwrap() > 0);
}

/// Defect 9: the report names the engine each experiment ran on, and a resumed reproduction says
/// what it reused instead of "wall time 0 s".
#[test]
fn d09_the_report_names_engines_and_reused_trials() {
    let out = scratch("d09-report");
    let _ = std::fs::remove_dir_all(&out);
    let args = ["reproduce", "--tiny", "--only", "angluin-exact", "--out"];
    poplab().args(args).arg(&out).assert().success();
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("engine batched;"), "{report}");
    assert!(!report.contains("engine agents (agent array)"));
    poplab().args(args).arg(&out).assert().success();
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("for the 0 trials run now; 16 trials read back from data/"), "{report}");
}

/// Defect 10: Every number accepts 10^k and 1ek; 2^128 is named too large with the limit.
#[test]
fn d10_numbers_in_every_notation_everywhere() {
    let doc = json(&["run", "threshold", "--n", "200", "--set", "k=1e2", "--seed", "1e3", "--threads", "10^0"]);
    let out = scratch("d10-report");
    let _ = std::fs::remove_dir_all(&out);
    poplab()
        .args(["reproduce", "--tiny", "--only", "angluin-exact", "--seed", "1e3", "--out"])
        .arg(&out)
        .assert()
        .success();
    assert_eq!(doc["params"]["k"], 100);
    assert_eq!(doc["seed"], 1000);
    let doc = json(&["run", "ls-timer", "--n", "10", "--set", "N=1e3", "--max-steps", "10"]);
    assert_eq!(doc["params"]["N"], 1000);
    refused(&["run", "angluin", "--n", "10", "--max-steps", "2^128"], &["too large", "at most 2^128 - 1"]);
}

/// Defect 13: verify refuses the graphs run refuses; --threads 0 is refused.
#[test]
fn d13_verify_checks_the_graph_and_threads_zero_is_refused() {
    refused(&["verify", "prl", "--n", "3", "--graph", "undirected-ring"], &["graph"]);
    refused(&["run", "angluin", "--n", "10", "--threads", "0"], &["--threads 0"]);
}

/// Defect 14: Messages suggest only what they accept; no-argument help exits 2.
#[test]
fn d14_messages_suggest_what_they_accept() {
    let err = refused(&["run", "threshold", "--n", "100", "--fault", "5000:10:default"], &["use one of random"]);
    assert!(!err.contains("default,"), "{err}");
    refused(&["run", "pll", "--n", "100", "--measure", "holding"], &["pll has no safe start family", "--init"]);
    let err = refused(&["run", "angluin", "--n", "-5"], &["'-5' is not a whole number"]);
    assert!(!err.contains("-- -5"), "{err}");
    for option in ["--trials", "--seed", "--max-steps", "--threads"] {
        let err = refused(&["run", "angluin", "--n", "5", option, "-5"], &["'-5' is not a whole number"]);
        assert!(!err.contains("-- -5"), "{err}");
    }
    refused(&["reproduce", "--seed", "-1"], &["'-1' is not a whole number"]);
    let output = poplab().output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let help = String::from_utf8_lossy(&output.stderr);
    assert!(help.lines().count() > 5 && help.contains("Commands:"), "{help}");
}

/// N14: messages say what is wrong with the input as given.
#[test]
fn n14_messages_name_the_real_problem() {
    let file = scratch("n14-afile");
    std::fs::write(&file, "").unwrap();
    let under = format!("{}/x.json", file.display());
    let err = refused(&["run", "angluin", "--n", "10", "--out", &under], &["is not a directory"]);
    assert!(!err.contains("does not exist"), "{err}");
    let err = refused(&["run", "angluin", "--n", "1e400"], &["too large: at most 2^62 = 4611686018427387904"]);
    assert!(!err.contains("2^128"), "{err}");
    let err = refused(
        &["run", "angluin", "--n", "4", "--init", "counts:L=4"],
        &["angluin has no named states", "@FILE.json"],
    );
    assert!(!err.contains("unknown key"), "{err}");
    refused(&["run", "threshold", "--n", "10", "--set", "=5"], &["name is missing", "KEY=VALUE"]);
    let err = refused(&["sweep", "angluin", "--n", "10", "--shard", "-1/2"], &["--shard -1/2: write I/K"]);
    assert!(!err.contains("-- -1"), "{err}");
    refused(&["sweep", "angluin", "--n", "10", "--shard", "2/2"], &["shard 2 does not exist", "numbered 0 to 1"]);
    refused(&["sweep", "angluin", "--n", "10", "--shard", "0/2", "--pack", "0"], &["--pack 0", "--pack 1 or more"]);
    let err = refused(
        &["run", "ls-timer", "--n", "5", "--measure", "holding", "--estimator", "splitting", "--trials", "10^8"],
        &["100000000 trial records", "fewer --trials"],
    );
    assert!(!err.contains("as an agent array"), "{err}");
    let dir = scratch("n14-sweep");
    let _ = std::fs::remove_dir_all(&dir);
    poplab().args(["sweep", "angluin", "--n", "10", "--trials", "1", "--out"]).arg(&dir).assert().success();
    let err = refused(&["sweep", "--resume", dir.to_str().unwrap(), "--pack", "2"], &["drop --pack"]);
    assert!(!err.contains("--shard"), "{err}");
    refused(
        &["sweep", "--resume", scratch("n14-nowhere").to_str().unwrap()],
        &["is not a directory", "--out directory"],
    );
    let big = scratch("n14-big.toml");
    std::fs::write(&big, vec![b' '; 65 << 20]).unwrap();
    let err = refused(&["run", &format!("@{}", big.display()), "--n", "10"], &["give the right protocol file"]);
    assert!(!err.contains("file file"), "{err}");
    std::fs::remove_file(&big).unwrap();
    refused(&["run", "@n14-missing.toml", "--n", "10"], &["does not exist; give the path of the protocol file"]);
    refused(&["exact", "angluin", "--n", "10^6"], &["exact analysis is for small populations, lower n"]);
    refused(
        &["reproduce", "--merge", "n14-nowhere", "--out", scratch("n14-rep").to_str().unwrap()],
        &["no such directory"],
    );
}

/// Input defect N4 (issue 33): `plot` on a malformed CSV (uneven rows, not UTF-8, binary) is an
/// input error naming the file, the line and what is wrong, not the csv crate's failure (exit 1).
#[test]
fn n4_plot_refuses_malformed_csv_naming_file_and_line() {
    let out = scratch("n4.svg");
    let out = out.to_str().unwrap();
    let cases: [(&str, &[u8], &[&str]); 3] = [
        (
            "n4-uneven.csv",
            b"trial,step,parallel_time,leaders\n0,10,1,5\n0,20,2\n",
            &["n4-uneven.csv' line 3: 3 fields where the header has 4"],
        ),
        (
            "n4-latin1.csv",
            b"trial,step,parallel_time,leaders\n0,10,1,5\n0,20,2,3\xe9\n",
            &["n4-latin1.csv' line 3: field 4 is not UTF-8 text"],
        ),
        (
            "n4-binary.csv",
            &[0x7f, b'E', b'L', b'F', 2, 1, 1, 0, 0xff, 0xfe, b'\n', 0, 0, 0x80],
            &["n4-binary.csv' line 1"],
        ),
    ];
    for (name, bytes, needles) in cases {
        let path = scratch(name);
        std::fs::write(&path, bytes).unwrap();
        refused(&["plot", path.to_str().unwrap(), "--out", out], needles);
    }
    // A sweep's summary.csv goes through the same reader.
    let dir = scratch("n4-sweep");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("summary.csv"), "n,mean_parallel_time\n8,2.5\n16\n").unwrap();
    refused(&["plot", dir.to_str().unwrap(), "--out", out], &["summary.csv' line 3: 1 field where the header has 2"]);
    assert!(!std::path::Path::new(out).exists());
}

/// Input defect N5 (issue 33): `plot` on values below 2.2e-308 (subnormal) or spanning more
/// decades than an f64 ratio holds looped forever drawing a log axis; now refused at once (the
/// helper's 60-second timeout guards the suite against the old hang).
#[test]
fn n5_plot_refuses_values_a_log_axis_cannot_show_instead_of_hanging() {
    let out = scratch("n5.svg");
    let out = out.to_str().unwrap();
    let subnormal = scratch("n5-subnormal.csv");
    std::fs::write(&subnormal, "trial,step,parallel_time,leaders\n0,10,1e-310,5\n0,20,2,3\n").unwrap();
    let started = Instant::now();
    refused(
        &["plot", subnormal.to_str().unwrap(), "--out", out],
        &["n5-subnormal.csv' line 2: parallel_time = '1e-310' is too close to 0"],
    );
    let wide = scratch("n5-wide.csv");
    std::fs::write(&wide, "trial,step,parallel_time,leaders\n0,10,1e-300,5\n0,20,1e300,3\n").unwrap();
    refused(
        &["plot", wide.to_str().unwrap(), "--out", out],
        &["the x values run from", "more decades than a log axis"],
    );
    assert!(started.elapsed() < Duration::from_secs(30), "{:?}", started.elapsed());
    assert!(!std::path::Path::new(out).exists());
}

/// R9 to R16 (issue 46): messages say what is wrong with which input and how to fix it, where
/// clap's requirements and tips, the type's limits or another input were named before.
#[test]
fn r9_to_r16_messages_name_the_input_and_the_fix() {
    let file = scratch("r9.ckpt");
    poplab().args(["run", "angluin", "--n", "20", "--checkpoint"]).arg(&file).assert().success();
    let file = file.to_str().unwrap();
    refused(&["run", "--resume", file, "--trace-every", "5"], &["drop --trace-every"]);
    refused(&["run", "angluin", "--n", "20", "--trace-every", "5"], &["--trace-every goes with --trace FILE"]);
    refused(&["run", "--resume", file, "--replicas", "5"], &["--replicas set the splitting estimator", "or drop them"]);
    refused(
        &["run", "angluin", "--n", "20", "--checkpoint", file, "--checkpoint-every", "-1s"],
        &["--checkpoint-every -1s: give a number with a unit"],
    );
    refused(
        &["exact", "angluin", "--n", "5", "--fault", "5:1"],
        &["poplab exact does not take --fault; see poplab exact --help"],
    );
    refused(&["exact", "angluin", "--n", "5", "--census"], &["poplab exact does not take --census"]);
    refused(&["list", "--n", "5"], &["poplab list does not take --n"]);
    refused(&["run", "angluin", "--n", "2^63"], &["--n: '2^63' is too large: at most 2^62 = 4611686018427387904"]);
    for (option, range) in
        [("--trials", "give from 1 to 100000000 trials"), ("--threads", "give from 1 to 256 worker threads")]
    {
        let err = refused(&["run", "angluin", "--n", "10", option, "2^64"], &[range]);
        assert!(!err.contains("2^64 - 1"), "{err}");
    }
    let err = refused(&["run", "prl", "--n", "10", "--fault", "100:2:fig3"], &["--fault 100:2:fig3: ", "use --n 100"]);
    assert!(!err.contains("initial configuration"), "{err}");
    refused(&["plot", "r9-nope.csv", "--out", "r9.svg"], &["'r9-nope.csv' does not exist"]);
    let output = poplab()
        .args(["sweep", "angluin", "--n", "10", "--shard-from-env", "--out"])
        .arg(scratch("r9-sweep"))
        .env("SLURM_ARRAY_TASK_ID", "0")
        .env("SLURM_ARRAY_TASK_COUNT", "1")
        .env("POPLAB_SHARD_COUNT", "0")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("POPLAB_SHARD_COUNT=0 leaves out SLURM_ARRAY_TASK_ID=0") && !stderr.contains("--shard"),
        "{stderr}"
    );
    refused(
        &["run", "angluin", "--n", "100", "--fault", "100:10^20"],
        &["K = 100000000000000000000 agents is more than any population holds", "from 1 to n agents"],
    );
    let plain = scratch("r9-plain");
    std::fs::create_dir_all(&plain).unwrap();
    refused(
        &["reproduce", "--merge", plain.to_str().unwrap(), "--out", scratch("r9-rep").to_str().unwrap()],
        &["r9-plain: not a reproduction shard (it has no data/ directory)", "reproduce --shard I/K"],
    );
    let protocol = scratch("r9-am.toml");
    std::fs::write(&protocol, "name = \"am\"\n[states]\nA = \"yes\"\n\" A\" = \"no\"\n[rules]\n\"A,A\" = \"A,A\"\n")
        .unwrap();
    refused(
        &["run", &format!("@{}", protocol.display()), "--n", "10"],
        &["r9-am.toml', line 4: state A is listed twice in [states]"],
    );
}

/// H3 (scripts/hostile/bad-input.py): `--init counts:A=5,A=5` was read as one state given twice
/// and accepted.
#[test]
fn h3_counts_naming_a_state_twice_are_refused() {
    let protocol = format!(
        "@{}",
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/protocols/approximate-majority.toml")
            .display()
    );
    refused(
        &["run", &protocol, "--n", "10", "--init", "counts:A=5,A=5"],
        &["state A is given twice", "give each state once"],
    );
}

/// H5 (scripts/checks/check-html.py in headless Chromium): the HTML report showed the Markdown of its
/// first paragraph's command as a stray pair of backticks; inline code is now `<code>`.
#[test]
fn h5_the_html_report_renders_inline_code() {
    let out = scratch("h5-report");
    let _ = std::fs::remove_dir_all(&out);
    poplab().args(["reproduce", "--tiny", "--only", "angluin-exact", "--out"]).arg(&out).assert().success();
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("(run <code>poplab reproduce"), "{}", &html[..html.len().min(2000)]);
    let text: String = html.split("<figure>").map(|part| part.split("</figure>").last().unwrap_or("")).collect();
    assert!(!text.contains('`'), "a backtick is left in the report's text");
}

/// H6 (scripts/hostile/bad-input.py, "unclear"): a sweep's bad list did not name its option
/// ("a list 10..: ..."), and spacetime of another protocol and a claim on too few sizes said what
/// was wrong but not what to give.
#[test]
fn h6_list_errors_name_their_option_and_messages_give_the_fix() {
    let out = scratch("h6-sweep");
    let out = out.to_str().unwrap();
    refused(&["sweep", "angluin", "--n", "10..", "--out", out], &["--n 10..: ", "write a,b,c or START..END"]);
    refused(&["sweep", "threshold", "--n", "10", "--set", "k=5,", "--out", out], &["--set k=5,: an empty value"]);
    refused(&["spacetime", "angluin", "--n", "10", "--out", "h6.svg"], &["'angluin' is not prl: give prl"]);
    refused(
        &["sweep", "angluin", "--n", "10,20", "--claim", "O(n)", "--out", out],
        &["a claim needs three values of n or more", "sweep three or more values of n"],
    );
}
