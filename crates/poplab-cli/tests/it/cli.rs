//! The command-line contract: outputs, determinism across thread counts, and clean errors.

use crate::common;

use common::{fails_with, holds_a_trial_in_progress, kill_in_a_trial, poplab};
use serde_json::Value;
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("poplab-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn run_json(args: &[&str]) -> Value {
    let output = poplab().arg("run").args(args).arg("--json").output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn json_document_has_the_contract_fields() {
    let doc = run_json(&["angluin", "--n", "50", "--trials", "5", "--seed", "3"]);
    for key in ["protocol", "n", "params", "graph", "engine", "rng", "seed", "trials", "summary"] {
        assert!(doc.get(key).is_some(), "missing {key}");
    }
    assert_eq!(doc["rng"], "Xoshiro256PlusPlus");
    assert_eq!(doc["engine"], "batched");
    let trials = doc["trials"].as_array().unwrap();
    assert_eq!(trials.len(), 5);
    for trial in trials {
        assert_eq!(trial["outcome"], "converged");
        let steps = trial["steps"].as_u64().unwrap();
        assert!((trial["parallel_time"].as_f64().unwrap() - steps as f64 / 50.0).abs() < 1e-9);
    }
    let summary = &doc["summary"];
    assert_eq!(summary["trials"], 5);
    assert_eq!(summary["converged"], 5);
    let [lo, hi] =
        [summary["ci95_parallel_time"][0].as_f64().unwrap(), summary["ci95_parallel_time"][1].as_f64().unwrap()];
    let mean = summary["mean_parallel_time"].as_f64().unwrap();
    assert!(lo < mean && mean < hi);
}

/// Step counts are 128-bit: a horizon beyond `u64::MAX` is taken and written back exactly.
#[test]
fn horizons_beyond_64_bits_round_trip() {
    let doc = run_json(&["angluin", "--n", "20", "--max-steps", "10^30"]);
    assert_eq!(doc["max_steps"].to_string(), format!("1{}", "0".repeat(30)));
    assert_eq!(doc["trials"][0]["outcome"], "converged");
    fails_with(&["run", "angluin", "--n", "20", "--max-steps", "10^39"], "too large");
}

#[test]
fn json_is_identical_across_thread_counts() {
    let args = ["threshold", "--n", "200", "--set", "k=5", "--trials", "12", "--seed", "17"];
    let one = poplab().arg("run").args(args).args(["--json", "--threads", "1"]).output().unwrap();
    let two = poplab().arg("run").args(args).args(["--json", "--threads", "2"]).output().unwrap();
    assert!(one.status.success() && two.status.success());
    assert_eq!(one.stdout, two.stdout);
}

#[test]
fn censored_trials_report_no_mean() {
    let doc = run_json(&["angluin", "--n", "1000", "--trials", "3", "--max-steps", "100"]);
    assert_eq!(doc["summary"]["censored"], 3);
    assert!(doc["summary"]["mean_steps"].is_null());
    assert!(doc["summary"]["median_steps"].is_null());
    assert_eq!(doc["summary"]["mean_steps_lower_bound"], 100.0);
    assert_eq!(doc["trials"][0]["outcome"], "censored");
}

#[test]
fn explicit_initial_configuration_from_a_file() {
    let path = scratch("init.json");
    std::fs::write(&path, r#"[{"leader": true}, {"leader": false}, {"leader": true}]"#).unwrap();
    let doc = run_json(&["angluin", "--n", "3", "--init", &format!("@{}", path.display()), "--trials", "4"]);
    assert_eq!(doc["summary"]["converged"], 4);
}

#[test]
fn csv_trace_and_out_files() {
    let out = scratch("trials.csv");
    let trace = scratch("trace.csv");
    poplab()
        .args(["run", "angluin", "--n", "30", "--trials", "2", "--csv", "--out"])
        .arg(&out)
        .arg("--trace")
        .arg(&trace)
        .args(["--trace-every", "10"])
        .assert()
        .success();
    let csv = std::fs::read_to_string(&out).unwrap();
    assert_eq!(csv.lines().count(), 3);
    assert!(
        csv.starts_with("protocol,n,params,graph,init,measure,engine,rng,master_seed,trial,trial_seed,outcome,steps")
    );
    let trace = std::fs::read_to_string(&trace).unwrap();
    assert!(trace.starts_with("trial,step,parallel_time,leaders\n0,0,0,30\n0,10,"), "{trace}");
}

#[test]
fn list_shows_protocols_parameters_and_families() {
    let output = poplab().arg("list").output().unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("threshold") && text.contains("angluin") && text.contains("all-leaders"));
    assert!(text.contains("default 10"));
    let json: Value = serde_json::from_slice(&poplab().args(["list", "--json"]).output().unwrap().stdout).unwrap();
    assert!(json["protocols"].as_array().unwrap().len() >= 2);
}

#[test]
fn approx_majority_is_listed_runs_and_refuses_a_outside_zero_one() {
    let list = String::from_utf8(poplab().arg("list").output().unwrap().stdout).unwrap();
    assert!(list.contains("approx-majority") && list.contains("default 0.5"), "{list}");
    let doc = run_json(&["approx-majority", "--n", "1000", "--set", "a=0.6", "--trials", "20"]);
    assert_eq!((doc["params"]["a"].as_f64(), doc["params"]["initial_a"].as_u64()), (Some(0.6), Some(600)));
    assert_eq!(doc["summary"]["converged"], 20);
    // Consensus from a 600/400 split takes about 6.8 parallel time (mean of 200 trials, sd 0.77).
    let mean = doc["summary"]["mean_parallel_time"].as_f64().unwrap();
    assert!((5.0..9.0).contains(&mean), "{mean}");
    fails_with(&["run", "approx-majority", "--n", "10", "--set", "a=1.5"], "must be a number from 0 to 1");
}

#[test]
fn bad_input_is_a_one_line_error_with_exit_code_2() {
    fails_with(&["run", "nosuch", "--n", "10"], "unknown protocol 'nosuch'");
    fails_with(&["run", "angluin", "--n", "1"], "at least 2 agents");
    fails_with(&["run", "threshold", "--n", "10", "--set", "k=0"], "parameter k = '0' is invalid");
    fails_with(&["run", "threshold", "--n", "10", "--set", "f=11"], "choose f <= n");
    fails_with(&["run", "threshold", "--n", "10", "--set", "z=1"], "has no parameter 'z'");
    fails_with(&["run", "angluin", "--n", "10", "--init", "nope"], "no initial configuration 'nope'");
    fails_with(&["run", "angluin", "--n", "10", "--graph", "torus"], "unknown graph 'torus'");
    fails_with(&["run", "angluin", "--n", "10", "--trials", "0"], "give from 1 to 100000000 trials");
    fails_with(&["run", "angluin", "--n", "ten"], "not a whole number");
    fails_with(&["run", "angluin", "--n", "10", "--init", "@/nonexistent/file.json"], "does not exist; give the path");
    fails_with(&["run", "angluin", "--n", "10", "--fault", "5"], "K is missing");

    let malformed = scratch("malformed.json");
    std::fs::write(&malformed, "[{\"leader\": true},").unwrap();
    fails_with(&["run", "angluin", "--n", "2", "--init", &format!("@{}", malformed.display())], "not valid JSON");
    let short = scratch("short.json");
    std::fs::write(&short, r#"[{"leader": true}, {"leader": false}]"#).unwrap();
    fails_with(
        &["run", "angluin", "--n", "3", "--init", &format!("@{}", short.display())],
        "has 2 agent states but n = 3",
    );
    let wrong_type = scratch("wrong-type.json");
    std::fs::write(&wrong_type, r#"[{"leader": true}, {"value": 1}]"#).unwrap();
    fails_with(&["run", "angluin", "--n", "2", "--init", &format!("@{}", wrong_type.display())], "agent 1");
    let arcs = scratch("arcs.txt");
    std::fs::write(&arcs, "0 1\n1 7\n").unwrap();
    fails_with(&["run", "angluin", "--n", "3", "--graph", &format!("@{}", arcs.display())], "outside 0..3");
}

#[test]
fn holding_starts_from_safe_and_refuses_unsafe_starts() {
    // angluin's safe set is closed: a holding run never breaks and is censored at the horizon.
    let doc = run_json(&["angluin", "--n", "10", "--measure", "holding", "--max-steps", "1000", "--trials", "2"]);
    assert_eq!(doc["init"], "safe");
    assert_eq!(doc["measure"], "holding");
    assert_eq!(doc["trials"][0]["outcome"], "censored");
    assert_eq!(doc["trials"][0]["steps"], 1000);
    fails_with(
        &["run", "angluin", "--n", "10", "--measure", "holding", "--init", "default"],
        "give a safe start with --init",
    );
}

/// `poplab plot`: a time series and a sweep directory drawn as SVG and PNG; other inputs and
/// formats refused with one line.
#[test]
fn plot_draws_time_series_and_sweeps() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("trace.csv");
    let sweep = dir.path().join("sweep");
    poplab()
        .args(["run", "angluin", "--n", "200", "--trials", "2", "--trace"])
        .arg(&trace)
        .args(["--trace-every", "50"])
        .assert()
        .success();
    poplab().args(["sweep", "angluin", "--n", "10,100", "--trials", "4", "--out"]).arg(&sweep).assert().success();
    for (input, out) in [(&trace, "trace.svg"), (&sweep, "sweep.png")] {
        let out = dir.path().join(out);
        poplab().arg("plot").arg(input).arg("--out").arg(&out).assert().success();
        let bytes = std::fs::read(&out).unwrap();
        if out.extension().unwrap() == "svg" {
            let text = String::from_utf8(bytes).unwrap();
            assert!(text.starts_with("<svg") && text.contains("trial 1"), "{text}");
        } else {
            assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        }
    }
    let refused = poplab().arg("plot").arg(&sweep).arg("--out").arg(dir.path().join("f.pdf")).output().unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("name an .svg or .png file"));
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let refused = poplab().arg("plot").arg(&empty).arg("--out").arg(dir.path().join("f.svg")).output().unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("holds neither summary.csv"));
}

/// `poplab spacetime prl`: a diagram as SVG and PNG, ending at the safe set (its title says so);
/// other protocols refused with one line.
#[test]
fn spacetime_draws_prl_on_its_ring() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("ring.svg");
    poplab()
        .args(["spacetime", "prl", "--n", "100", "--init", "fig3", "--seed", "1", "--out"])
        .arg(&svg)
        .assert()
        .success();
    let text = std::fs::read_to_string(&svg).unwrap();
    // Figure 3's run with seed 1 converges at step 28,090 (`poplab run prl --n 100 --init fig3
    // --engine agents --seed 1`): 281 rows of 100 steps after the first.
    assert!(text.starts_with("<svg") && text.contains("282 rows, ends in the safe set"), "{}", &text[..400]);
    let png = dir.path().join("ring.png");
    poplab().args(["spacetime", "prl", "--n", "50", "--rows", "20", "--out"]).arg(&png).assert().success();
    assert_eq!(&std::fs::read(&png).unwrap()[..8], b"\x89PNG\r\n\x1a\n");
    fails_with(&["spacetime", "angluin", "--n", "10", "--out", "x.svg"], "spacetime draws prl");
}

/// The subcommands `poplab --help` lists, without `help`.
fn subcommands() -> Vec<String> {
    let output = poplab().arg("--help").output().unwrap();
    assert!(output.status.success());
    let help = String::from_utf8(output.stdout).unwrap();
    let names: Vec<String> = help
        .lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter(|line| !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(String::from)
        .collect();
    assert!(names.len() >= 10 && names.iter().any(|name| name == "reproduce"), "{help}");
    names
}

fn stdout_of(args: &[&str]) -> String {
    let output = poplab().args(args).output().unwrap();
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    assert!(output.stderr.is_empty(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn completions_for_every_shell_name_every_subcommand() {
    let subcommands = subcommands();
    // Each shell's script, recognised by how it registers itself.
    for (shell, registers) in [
        ("bash", "complete -F _poplab"),
        ("zsh", "#compdef poplab"),
        ("fish", "complete -c poplab"),
        ("powershell", "Register-ArgumentCompleter"),
        ("elvish", "edit:completion:arg-completer[poplab]"),
    ] {
        let script = stdout_of(&["completions", shell]);
        assert!(script.contains(registers), "{shell}: no '{registers}' in\n{script}");
        for name in &subcommands {
            assert!(script.contains(name.as_str()), "{shell}: subcommand {name} missing");
        }
        // Options of subcommands too, not only their names.
        assert!(script.contains("max-steps"), "{shell}: no --max-steps");
    }
    fails_with(&["completions", "tcsh"], "tcsh");
    fails_with(&["completions"], "SHELL");
}

#[test]
fn man_pages_are_roff_and_name_every_subcommand() {
    let subcommands = subcommands();
    let page = stdout_of(&["man"]);
    assert!(page.starts_with(".TH") || page.starts_with(".ie"), "not roff:\n{}", &page[..page.len().min(200)]);
    assert!(page.contains(".TH poplab 1") && page.contains(".SH SUBCOMMANDS"), "{page}");
    for name in &subcommands {
        // roff escapes the hyphen: poplab\-run(1).
        assert!(page.contains(&format!("poplab\\-{name}(1)")), "man: subcommand {name} missing");
    }
    let run = stdout_of(&["man", "run"]);
    assert!(run.starts_with(".ie") && run.contains(".TH poplab-run 1") && run.contains("\\-\\-max\\-steps"), "{run}");
    fails_with(&["man", "walk"], "no subcommand 'walk'");

    let dir = scratch("man-pages");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(stdout_of(&["man", "--out", dir.to_str().unwrap()]).is_empty());
    let mut written: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|entry| entry.unwrap().file_name().into_string().unwrap()).collect();
    written.sort();
    let mut expected: Vec<String> = subcommands.iter().map(|name| format!("poplab-{name}.1")).collect();
    expected.push("poplab.1".into());
    expected.sort();
    assert_eq!(written, expected);
    assert_eq!(std::fs::read_to_string(dir.join("poplab.1")).unwrap(), page);
    assert_eq!(std::fs::read_to_string(dir.join("poplab-run.1")).unwrap(), run);
    let file = scratch("not-a-dir");
    std::fs::write(&file, "").unwrap();
    fails_with(&["man", "--out", file.to_str().unwrap()], "not a directory");
}

/// Every man page has a DESCRIPTION that says more than its NAME line, and EXAMPLES whose command
/// lines are poplab's; `--help` (not `-h`) ends with the same examples.
#[test]
fn man_pages_have_a_description_and_examples() {
    for name in std::iter::once(None).chain(subcommands().iter().map(|name| Some(name.clone()))) {
        let page = match &name {
            None => stdout_of(&["man"]),
            Some(name) => stdout_of(&["man", name]),
        };
        let section = |title: &str| -> String {
            let start = page.find(&format!(".SH {title}\n")).unwrap_or_else(|| panic!("{name:?}: no {title}:\n{page}"));
            let rest = &page[start + title.len() + 5..];
            rest[..rest.find("\n.SH ").unwrap_or(rest.len())].to_string()
        };
        let summary = section("NAME");
        let summary = summary.split(" \\- ").nth(1).unwrap_or_else(|| panic!("{name:?}: NAME {summary}")).trim();
        let description = section("DESCRIPTION");
        assert!(!description.contains(summary), "{name:?}: DESCRIPTION repeats NAME: {description}");
        assert!(description.len() > 2 * summary.len(), "{name:?}: DESCRIPTION says little: {description}");
        let examples = section("EXAMPLES");
        let commands: Vec<&str> = examples.lines().filter(|line| line.starts_with("\\fBpoplab")).collect();
        assert!(!commands.is_empty(), "{name:?}: no example command in\n{examples}");
        if let Some(name) = &name {
            let help = stdout_of(&[name.as_str(), "--help"]);
            let tail = &help[help.find("Examples:\n").unwrap_or_else(|| panic!("{name} --help: no examples"))..];
            assert!(tail.contains(&format!("  poplab {name} ")), "{name} --help: {tail}");
            assert!(!stdout_of(&[name.as_str(), "-h"]).contains("Examples:"), "{name} -h shows the examples");
        }
    }
}

/// The bash completion script completes protocol names at the protocol's place (after options and
/// their values too), `prl` alone for spacetime, and leaves options and other places to clap's.
#[test]
fn bash_completion_offers_protocol_names() {
    if std::process::Command::new("bash").arg("-c").arg("true").status().map(|s| !s.success()).unwrap_or(true) {
        eprintln!("no bash here: skipped");
        return;
    }
    let script = scratch("poplab.bash");
    let files = scratch("completion-files");
    std::fs::create_dir_all(&files).unwrap();
    std::fs::write(files.join("cmpl-p.toml"), "").unwrap();
    std::fs::write(&script, stdout_of(&["completions", "bash"])).unwrap();
    // Each case: the words typed (the last is being completed), then what COMPREPLY holds.
    let program = format!(
        r#"source '{}'
complete -p poplab
try() {{ COMP_WORDS=("$@"); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); COMP_LINE="$*"; COMP_POINT=${{#COMP_LINE}}
  COMPREPLY=(); _poplab_protocol poplab "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"; echo "${{COMPREPLY[*]}}"; }}
try poplab run ''
try poplab sweep pl
try poplab exact --n 10 --json a
try poplab verify --max-configs 10 pr
try poplab spacetime ''
try poplab run angluin --tr
try poplab r
try poplab reproduce --quick --only pll-s
try poplab run @{dir}/cmpl-
try poplab run angluin --init @{dir}/cmpl-
try poplab run angluin --out {dir}/cmpl-
"#,
        script.display(),
        dir = files.display()
    );
    let output = std::process::Command::new("bash").arg("-c").arg(program).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].contains("-F _poplab_protocol") && lines[0].ends_with(" poplab"), "{text}");
    let words = |i: usize| -> Vec<&str> { lines[i].split_whitespace().collect() };
    for protocol in ["angluin", "threshold", "pll", "prl", "approx-majority"] {
        assert!(words(1).contains(&protocol), "run: {protocol} not offered: {}", lines[1]);
    }
    assert_eq!(words(2), ["pll", "pll-as-printed", "pll-sym"]);
    assert_eq!(words(3), ["angluin", "approx-majority"]);
    assert_eq!(words(4), ["prl"]);
    assert_eq!(words(5), ["prl"]);
    assert!(words(6).contains(&"--trials") && words(6).iter().all(|w| w.starts_with("--tr")), "{}", lines[6]);
    assert!(words(7).contains(&"run") && words(7).contains(&"reproduce"), "{}", lines[7]);
    // Claim names after --only; files after @ (a protocol file, --init @FILE) and for path options.
    assert_eq!(words(8), ["pll-stabilisation", "pll-states", "pll-sym"]);
    let file = files.join("cmpl-p.toml").display().to_string();
    assert_eq!(words(9), [format!("@{file}")]);
    assert_eq!(words(10), [format!("@{file}")]);
    assert!(words(11).iter().any(|w| *w == file), "{}", lines[11]);
}

/// The kill points of the checkpoint tests: a fixed-seed linear congruential sequence of delays
/// in `lo..hi` milliseconds, so every run of the test kills at the same points.
fn kill_points(seed: u64, lo: u64, hi: u64, count: usize) -> Vec<u64> {
    let mut x = seed;
    (0..count)
        .map(|_| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            lo + (x >> 33) % (hi - lo)
        })
        .collect()
}

/// `run --checkpoint` killed with SIGKILL at fixed pseudo-random delays after a trial in progress
/// was first checkpointed (so inside a trial however fast the machine), then `run --resume`
/// (killed again, then let finish): the same JSON document, byte for byte, as the uninterrupted
/// run, and the same time series file (`--trace`), on every engine (with a fault and a census on
/// the way; the batched engine also on a monotone rule, whose ranking of the states must not
/// depend on where the run was stopped), for convergence and holding runs, with 1 and 2 threads.
#[test]
fn runs_killed_at_random_points_resume_to_the_same_document() {
    let max_propagation = format!("@{}/../../examples/protocols/max-propagation.toml", env!("CARGO_MANIFEST_DIR"));
    // (arguments, time series every so many steps, or an event trace)
    let cases: [(&[&str], Option<&str>); 8] = [
        (
            &["ls-timer", "--n", "4000", "--engine", "agents", "--fault", "10^6:100", "--trials", "12", "--seed", "3"],
            None,
        ),
        (&["ls-timer", "--n", "1500", "--engine", "counts", "--census", "--trials", "12", "--seed", "4"], Some("10^5")),
        (&["angluin", "--n", "10^7", "--engine", "batched", "--trials", "12", "--seed", "5"], Some("10^12")),
        (
            &["ls-timer", "--n", "6", "--set", "s=10", "--measure", "holding", "--engine", "agents", "--trials", "12"],
            Some("7"),
        ),
        (
            &["ls-timer", "--n", "6", "--set", "s=8", "--measure", "holding", "--engine", "counts", "--trials", "12"],
            None,
        ),
        (
            &["ls-timer", "--n", "6", "--set", "s=8", "--measure", "holding", "--engine", "batched", "--trials", "12"],
            Some("5"),
        ),
        (&["angluin", "--n", "3000", "--engine", "agents", "--trials", "12", "--seed", "6"], Some("event")),
        (&[&max_propagation, "--n", "10^5", "--engine", "batched", "--trials", "12", "--seed", "7"], Some("10^5")),
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut delays = kill_points(33, 20, 300, 32).into_iter();
    let mut in_progress = 0;
    for (c, (args, trace_every)) in cases.iter().enumerate() {
        let traced = |command: &mut std::process::Command, file: &std::path::Path| {
            if let Some(every) = trace_every {
                command.args(["--trace-every", every, "--trace"]).arg(file);
            }
        };
        let whole_trace = dir.path().join(format!("case{c}.csv"));
        let mut whole = std::process::Command::new(assert_cmd::cargo::cargo_bin("poplab"));
        whole.arg("run").args(*args).args(["--json", "--threads", "1"]);
        traced(&mut whole, &whole_trace);
        let whole = whole.output().unwrap();
        assert!(whole.status.success(), "{}", String::from_utf8_lossy(&whole.stderr));
        for threads in ["1", "2"] {
            let file = dir.path().join(format!("case{c}-{threads}.ckpt"));
            let out = dir.path().join(format!("case{c}-{threads}.json"));
            let trace = dir.path().join(format!("case{c}-{threads}.csv"));
            let mut first = std::process::Command::new(assert_cmd::cargo::cargo_bin("poplab"));
            first.arg("run").args(*args).args(["--json", "--threads", threads, "--checkpoint-every", "40ms"]);
            first.arg("--checkpoint").arg(&file).arg("--out").arg(&out);
            traced(&mut first, &trace);
            let mut again = std::process::Command::new(assert_cmd::cargo::cargo_bin("poplab"));
            again.args(["run", "--json", "--threads", threads, "--checkpoint-every", "40ms", "--resume"]);
            again.arg(&file).arg("--out").arg(&out);
            for command in [&mut first, &mut again] {
                let delay = std::time::Duration::from_millis(delays.next().unwrap());
                let killed_running = kill_in_a_trial(command, &file, delay);
                in_progress += usize::from(killed_running && holds_a_trial_in_progress(&file));
            }
            let last = poplab().args(["run", "--json", "--threads", threads, "--resume"]).arg(&file).output().unwrap();
            assert!(last.status.success(), "{args:?}: {}", String::from_utf8_lossy(&last.stderr));
            assert_eq!(
                String::from_utf8_lossy(&last.stdout),
                String::from_utf8_lossy(&whole.stdout),
                "{args:?} with {threads} threads"
            );
            if trace_every.is_some() {
                let (resumed, expected) = (std::fs::read(&trace).unwrap(), std::fs::read(&whole_trace).unwrap());
                assert!(resumed == expected, "{args:?} with {threads} threads: the time series differs");
                let parts = dir.path().join(format!("case{c}-{threads}.ckpt.parts"));
                assert!(!parts.exists(), "the time series' part files stayed");
            }
        }
    }
    // Resumes went on from trials in progress, not only from finished ones.
    assert!(in_progress >= 8, "only {in_progress} kills left a trial in progress in the checkpoint");
}

/// A checkpoint of another format version, a damaged one and a file that is none are refused
/// with one line (exit 2), as are a bad --checkpoint-every and settings given with --resume; a
/// finished run's checkpoint resumes to its document at once.
#[test]
fn checkpoints_of_another_version_or_damaged_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.ckpt");
    let args = ["run", "angluin", "--n", "200", "--engine", "agents", "--trials", "3", "--seed", "9", "--json"];
    let whole = poplab().args(args).arg("--checkpoint").arg(&file).output().unwrap();
    assert!(whole.status.success(), "{}", String::from_utf8_lossy(&whole.stderr));
    let again = poplab().args(["run", "--json", "--resume"]).arg(&file).output().unwrap();
    assert_eq!(again.stdout, whole.stdout);
    let text = std::fs::read_to_string(&file).unwrap();
    let (head, body) = text.split_once('\n').unwrap();
    assert!(head.starts_with("poplab-checkpoint 1 "), "{head}");
    let path = |name: &str, contents: String| {
        let p = dir.path().join(name);
        std::fs::write(&p, contents).unwrap();
        p.to_string_lossy().into_owned()
    };
    let other = path("other.ckpt", format!("{}\n{body}", head.replacen(" 1 ", " 999 ", 1)));
    fails_with(&["run", "--resume", &other], "has checkpoint format version 999, and this poplab reads version 1");
    let damaged = path("damaged.ckpt", format!("{head}\n{}", body.replacen("\"seed\":9", "\"seed\":8", 1)));
    fails_with(&["run", "--resume", &damaged], "is damaged: its checksum does not match");
    let cut = path("cut.ckpt", format!("{head}\n{}", &body[..body.len() / 2]));
    fails_with(&["run", "--resume", &cut], "is damaged");
    let none = path("none.ckpt", "hello\n".into());
    fails_with(&["run", "--resume", &none], "is not a poplab checkpoint");
    let file = file.to_string_lossy().into_owned();
    fails_with(&["run", "--resume", &file, "--seed", "3"], "drop --seed");
    fails_with(
        &["run", "angluin", "--n", "20", "--checkpoint", &file, "--checkpoint-every", "5x"],
        "--checkpoint-every",
    );
    fails_with(&["run", "angluin", "--n", "20", "--checkpoint-every", "10s"], "goes with --checkpoint");
    fails_with(&["run", "--resume", &file, "--trace", "t.csv"], "--resume goes on with the run checkpointed in");
}
