//! Work refused up front: what cannot fit in memory, what would hang or never end, inputs beyond their size limit, and parses that must stay linear.

use super::*;

/// Defect 3: runs that cannot fit in memory are refused up front with the figure; threshold's
/// default start is counts.
#[test]
fn d03_runs_that_cannot_fit_are_refused_up_front() {
    refused(&["run", "ppl", "--n", "4000000000"], &["agent array", "GB", "available"]);
    refused(&["run", "angluin", "--n", "10^11", "--init", "random"], &["GB", "available"]);
    refused(&["run", "angluin", "--n", "10^11", "--init", "random", "--engine", "counts"], &["GB"]);
    refused(&["exact", "angluin", "--n", "20000"], &["--max-configs", "GB"]);
    refused(&["exact", "angluin", "--n", "2^62"], &["GB"]);
    // ppl's start is built as an agent array even on the count engines.
    refused(&["run", "ppl", "--n", "4000000000", "--engine", "counts"], &["agent array", "GB"]);
    // Trial records count too.
    refused(&["run", "angluin", "--n", "10", "--trials", "10^8"], &["trial records", "GB"]);
    // A short arc list for a huge population is refused without a table of every agent.
    let arcs = scratch("d03-arcs.txt");
    std::fs::write(&arcs, "0 1\n1 0\n").unwrap();
    refused(&["run", "angluin", "--n", "10^11", "--graph", &format!("@{}", arcs.display())], &["touch at most 4"]);
    // threshold's default start costs nothing at n = 10^10: it is kept as counts.
    let doc = json(&["run", "threshold", "--n", "10^10", "--set", "f=0"]);
    assert_eq!(doc["trials"][0]["outcome"], "converged");
    assert_eq!(doc["trials"][0]["steps"], 0);
}

/// Defect 4: Hangs: disconnected graphs, huge trial counts, thread counts and exploration caps.
#[test]
fn d04_inputs_that_would_hang_are_refused() {
    let arcs = scratch("d04-split.txt");
    std::fs::write(&arcs, "0 1\n1 0\n2 3\n3 2\n").unwrap();
    let graph = format!("@{}", arcs.display());
    refused(&["run", "angluin", "--n", "4", "--graph", &graph], &["never meet", "agents 0-1; agents 2-3"]);
    refused(&["run", "angluin", "--n", "10", "--trials", "10^12"], &["give from 1 to 100000000 trials"]);
    let started = Instant::now();
    refused(&["run", "angluin", "--n", "10", "--threads", "10000"], &["--threads 10000", "256"]);
    assert!(started.elapsed() < Duration::from_secs(10));
    refused(&["exact", "angluin", "--n", "10", "--max-configs", "10^12"], &["--max-configs", "GB"]);
}

/// Defect 11: Input files are read only as far as n agents can need.
#[test]
fn d11_input_files_have_a_size_limit() {
    let started = Instant::now();
    refused(&["run", "angluin", "--n", "10", "--init", "@/dev/zero"], &["/dev/zero", "not a regular file"]);
    let big = scratch("d11-big.json");
    std::fs::write(&big, vec![b' '; 1 << 24]).unwrap();
    refused(&["run", "angluin", "--n", "10", "--init", &format!("@{}", big.display())], &["larger than 14336 bytes"]);
    assert!(started.elapsed() < Duration::from_secs(5));
}

/// A protocol file with `states` states `S0 ..`, every ordered pair of distinct states as a rule
/// when `all_rules` (else one rule), every agent in `S0`, silent stop.
fn protocol_file(name: &str, states: usize, all_rules: bool) -> PathBuf {
    use std::fmt::Write;
    let mut text = String::from("[states]\n");
    for i in 0..states {
        writeln!(text, "S{i} = \"no\"").unwrap();
    }
    text.push_str("[rules]\n");
    if all_rules {
        for a in 0..states {
            for b in (0..states).filter(|&b| b != a) {
                writeln!(text, "\"S{a},S{b}\" = \"S{b},S{a}\"").unwrap();
            }
        }
    } else {
        text.push_str("\"S0,S1\" = \"S1,S1\"\n");
    }
    text.push_str("[init]\nS0 = 1.0\n[stop]\nsafe = \"silent\"\n");
    let path = scratch(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// N1: protocol files parse in linear time (the quadratic parser took 2.2 s for 10^4 states and
/// more than a minute for 10^5 states, or for 300 states with all 89,700 rules).
#[test]
fn n1_protocol_files_parse_in_linear_time() {
    for (name, states, all_rules) in [("n1-states.toml", 100_000, false), ("n1-rules.toml", 300, true)] {
        let path = protocol_file(name, states, all_rules);
        let started = Instant::now();
        let output = poplab()
            .args(["run", &format!("@{}", path.display()), "--n", "100", "--json"])
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap();
        let seconds = started.elapsed().as_secs_f64();
        assert!(output.status.success(), "{name}: {}", String::from_utf8_lossy(&output.stderr));
        // Linear work takes well under a second here; the quadratic parser took minutes.
        assert!(seconds < 10.0, "{name}: {states} states took {seconds:.1} s");
    }
}

/// N6: sizes whose memory was not checked (the process aborted) are refused with the figure.
#[test]
fn n6_splitting_replicas_and_diagrams_are_checked_against_memory() {
    let splitting =
        ["run", "ls-timer", "--n", "5", "--set", "s=20", "--measure", "holding", "--estimator", "splitting"];
    let mut args = splitting.to_vec();
    args.extend(["--replicas", "10^12"]);
    refused(&args, &["--replicas 1000000000000", "needs about", "lower --replicas"]);
    let out = scratch("n6.png");
    let out = out.to_str().unwrap();
    refused(
        &["spacetime", "prl", "--n", "8", "--rows", "10^7", "--past-safe", "--out", out],
        &["needs about", "lower --rows"],
    );
    refused(&["spacetime", "prl", "--n", "10^7", "--out", out], &["10000000 agents", "needs about"]);
}

/// N7: the memory check sees an address-space limit (`ulimit -v`), not only the machine's
/// available memory: the run below needs 1.6 GB and aborted under a 1 GB limit.
#[cfg(target_os = "linux")]
#[test]
fn n7_memory_checks_see_the_address_space_limit() {
    let binary = assert_cmd::cargo::cargo_bin("poplab");
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v 1000000; exec '{}' run ppl --n 10^8 --max-steps 10 --threads 1", binary.display()))
        .env_remove("POPLAB_AVAILABLE_MEMORY")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("needs about 1.6 GB"), "{stderr}");
    // The exact analysis counts what a configuration really takes (137 kB at n = 7,000, not 28).
    refused_with(
        &["exact", "angluin", "--n", "7000", "--max-configs", "7000"],
        &["about 280512 bytes each", "give --max-configs 1604 or less"],
        "5e8",
    );
}

/// N10: the splitting estimator refuses a count engine it would not use; a diagram refuses zero
/// rows or rows zero steps apart.
#[test]
fn n10_splitting_refuses_count_engines_and_diagrams_refuse_zero_sizes() {
    let splitting =
        ["run", "ls-timer", "--n", "5", "--set", "s=20", "--measure", "holding", "--estimator", "splitting"];
    for engine in ["counts", "batched"] {
        let mut args = splitting.to_vec();
        args.extend(["--engine", engine]);
        refused(&args, &["runs on the agent array", "drop --engine"]);
    }
    let out = scratch("n10.svg");
    let out = out.to_str().unwrap();
    refused(&["spacetime", "prl", "--n", "8", "--rows", "0", "--out", out], &["--rows 0", "at least 1 row"]);
    refused(&["spacetime", "prl", "--n", "8", "--every", "0", "--out", out], &["--every 0", "--every 1 or more"]);
}

/// N13: work without a bound is refused up front: a diagram of 10^19 steps per row, splitting
/// with 10^15 cycles.
#[test]
fn n13_unbounded_work_is_refused_up_front() {
    let out = scratch("n13.svg");
    refused(&["spacetime", "prl", "--n", "8", "--every", "10^19", "--out", out.to_str().unwrap()], &["lower --every"]);
    let splitting =
        ["run", "ls-timer", "--n", "5", "--set", "s=20", "--measure", "holding", "--estimator", "splitting"];
    let mut args = splitting.to_vec();
    args.extend(["--cycles", "10^15"]);
    refused(&args, &["--cycles 1000000000000000", "lower --cycles"]);
}

/// `--max-steps 0` runs nothing: refused with the smallest value allowed, in runs and sweeps.
#[test]
fn max_steps_0_is_refused_naming_the_smallest_allowed_value() {
    refused(&["run", "angluin", "--n", "10", "--max-steps", "0"], &["--max-steps 0", "give at least 1"]);
    let out = scratch("max-steps-0");
    refused(
        &["sweep", "angluin", "--n", "10,20", "--max-steps", "0", "--out", out.to_str().unwrap()],
        &["--max-steps 0", "give at least 1"],
    );
}

/// R1: `exact` aborted in the allocator (exit 134) at the `--max-configs` its own refusal
/// suggested, under an address-space limit: the estimate had no room for its tables' growth.
/// A suggested cap now runs or is refused (exit 0 or 2), and is not refused again.
#[cfg(target_os = "linux")]
#[test]
fn r1_a_suggested_max_configs_runs_or_is_refused_never_aborts() {
    let binary = assert_cmd::cargo::cargo_bin("poplab");
    let exact = |limit: &str, cap: Option<&str>| {
        let cap = cap.map(|c| format!(" --max-configs {c}")).unwrap_or_default();
        let command = format!("ulimit -v {limit}; exec '{}' exact angluin --n 10^4{cap}", binary.display());
        let output = std::process::Command::new("sh")
            .args(["-c", &command])
            .env_remove("POPLAB_AVAILABLE_MEMORY")
            .output()
            .unwrap();
        (output.status.code(), String::from_utf8_lossy(&output.stderr).to_string())
    };
    for limit in ["2300000", "2600000"] {
        let (code, stderr) = exact(limit, None);
        assert_eq!(code, Some(2), "{stderr}");
        let suggested = stderr.split("give --max-configs ").nth(1).and_then(|rest| rest.split(' ').next()).unwrap();
        let (code, stderr) = exact(limit, Some(suggested));
        assert!(code == Some(0) || code == Some(2), "--max-configs {suggested} under {limit} kB: {code:?} {stderr}");
        assert!(!stderr.contains("give --max-configs"), "the suggested cap was refused again: {stderr}");
    }
}
