//! Wall time to stabilisation: for each protocol, n and engine, `trials` independent trials run one
//! after the other on one thread (`RunSettings::threads = Some(1)`), each from the protocol's default
//! initial configuration until it reaches its safe set (measure `convergence`). Prints one markdown
//! table: mean steps, mean parallel time, mean wall seconds per trial, and whether any trial was
//! censored (reached its horizon; its steps are then a lower bound, marked `>=`).
//!
//! `POPLAB_BENCH_SCALE=quick` runs only n <= 10^5 with 1 trial per cell; `full` (the default) runs
//! the whole list below with 3 trials per cell (minutes per cell at most; do not run it on a busy
//! machine). `POPLAB_BENCH_SEED` sets the master seed (default 1); every cell uses it, so the
//! engines of one (protocol, n) see the same trial seeds. A protocol that is not registered is
//! skipped with a note under the table.
//!
//! Where a cell lists several engines it also runs `auto`, printed as `auto (ENGINE)` with the
//! engine it resolved to (`RunSettings::engine_used`); it draws exactly as that engine does.
//! Cells left out because they would take far more than a couple of minutes per cell: angluin with
//! the agent engine beyond 10^3 (`(n-1)^2` interactions), threshold `f = k` with the agent engine
//! at 10^5 (about `0.8 n^2` interactions), and the many-state protocols (ls-timer, ppl, pll) on
//! the count engines beyond 10^3.

use poplab::engine::Engine;
use poplab::experiment::{RunSettings, Summary, run_trials};
use poplab::graph::Graph;
use poplab::protocol::{Params, Protocol};
use poplab::protocols::{ProtocolVisitor, with_protocol};
use std::io::Write;
use std::time::Instant;

const ALL: &[Engine] = &Engine::ALL;
const COUNTING: &[Engine] = &[Engine::Auto, Engine::Counts, Engine::Batched];
const BATCHED: &[Engine] = &[Engine::Batched];
const AGENTS: &[Engine] = &[Engine::Agents];
const AUTO_AGENTS: &[Engine] = &[Engine::Auto, Engine::Agents];

/// One protocol with its parameters, the population sizes to run, and the engines per size.
struct Workload {
    protocol: &'static str,
    /// `KEY=VALUE` parameters for `n` agents (empty: the protocol's defaults).
    params: fn(usize) -> Vec<String>,
    graph: Graph,
    sizes: &'static [usize],
    /// The engines to run at `n` (more than one: `auto` is listed too, to show what it resolves to).
    engines: fn(usize) -> &'static [Engine],
    /// The horizon in steps for `n` agents: a trial reaching it is censored.
    max_steps: fn(usize) -> u128,
}

/// A horizon of `t` parallel time units (`t n` steps).
fn parallel(t: u128, n: usize) -> u128 {
    t.saturating_mul(n as u128)
}

/// A paper's election on the complete graph with default parameters: every engine at n = 1000,
/// `auto` and `agents` above (their state spaces are large), censored at 10^6 parallel time.
fn election_on_complete_graph(protocol: &'static str, sizes: &'static [usize]) -> Workload {
    Workload {
        protocol,
        params: |_| vec![],
        graph: Graph::Complete,
        sizes,
        engines: |n| if n <= 1_000 { ALL } else { AUTO_AGENTS },
        max_steps: |n| parallel(1_000_000, n),
    }
}

fn workloads() -> Vec<Workload> {
    vec![
        Workload {
            // (n-1)^2 expected steps: 10^16 at n = 10^8, past the default 10^12 horizon.
            protocol: "angluin",
            params: |_| vec![],
            graph: Graph::Complete,
            sizes: &[1_000, 100_000, 1_000_000, 10_000_000, 100_000_000],
            engines: |n| {
                if n <= 10_000 {
                    ALL
                } else if n <= 1_000_000 {
                    COUNTING
                } else {
                    BATCHED
                }
            },
            max_steps: |_| 10_000_000_000_000_000_000,
        },
        Workload {
            // O(log n) parallel time; the horizon (10^4 n) also censors the rare silent all-U
            // configuration, which the agent engine would otherwise run to the end.
            protocol: "approx-majority",
            params: |_| vec!["a=0.5".into()],
            graph: Graph::Complete,
            sizes: &[1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000],
            engines: |n| if n <= 10_000_000 { ALL } else { BATCHED },
            max_steps: |n| parallel(10_000, n),
        },
        Workload {
            // The smallest yes-instance (f = k): the five ones must merge, about 0.8 n^2 steps of
            // mostly null interactions, then k spreads by epidemic.
            protocol: "threshold",
            params: |_| vec!["k=5".into(), "f=5".into()],
            graph: Graph::Complete,
            sizes: &[1_000, 100_000],
            engines: |n| if n <= 10_000 { ALL } else { COUNTING },
            max_steps: |n| parallel(100 * n as u128, n),
        },
        Workload {
            // Half the population holds a one: O(log n) parallel time, few null interactions.
            protocol: "threshold",
            params: |n| vec!["k=5".into(), format!("f={}", n / 2)],
            graph: Graph::Complete,
            sizes: &[1_000, 100_000],
            engines: |_| ALL,
            max_steps: |n| parallel(10_000, n),
        },
        election_on_complete_graph("ls-timer", &[1_000, 10_000]),
        election_on_complete_graph("ppl", &[1_000, 10_000]),
        election_on_complete_graph("pll", &[1_000, 10_000, 100_000]),
        Workload {
            protocol: "prl",
            params: |_| vec![],
            graph: Graph::DirectedRing,
            sizes: &[1_000],
            engines: |_| AGENTS,
            max_steps: |n| parallel(10_000_000, n),
        },
    ]
}

/// Runs one cell on the protocol it is handed and formats its table row.
struct Cell<'a> {
    settings: &'a RunSettings,
    params: &'a str,
}

impl ProtocolVisitor for Cell<'_> {
    type Output = poplab::error::Result<String>;

    fn visit<P: Protocol + Clone + 'static>(self, protocol: P) -> Self::Output {
        let settings = self.settings;
        let used = settings.engine_used(&protocol)?;
        let engine = match settings.engine {
            Engine::Auto => format!("auto ({})", used.name()),
            engine => engine.name().to_string(),
        };
        // One worker thread: the trials run one after the other, so the total over the number of
        // trials is the mean wall time of a trial.
        let start = Instant::now();
        let records = run_trials(&protocol, settings, &|| {})?;
        let wall = start.elapsed().as_secs_f64() / records.len() as f64;
        let summary = Summary::of(&records, protocol.n());
        let censored = summary.censored > 0;
        let (steps, time) = match (summary.mean_steps, summary.mean_steps_lower_bound) {
            (Some(steps), _) => (number(steps), number(steps / protocol.n() as f64)),
            (None, Some(bound)) => {
                (format!(">= {}", number(bound)), format!(">= {}", number(bound / protocol.n() as f64)))
            }
            (None, None) => ("-".into(), "-".into()),
        };
        Ok(format!(
            "| {:<15} | {:<12} | {:>5} | {:<14} | {:>6} | {:>4} | {:>10} | {:>14} | {:>12} | {:<8} |",
            protocol.info().name,
            self.params,
            power_of_ten(protocol.n()),
            engine,
            summary.trials,
            settings.seed,
            steps,
            time,
            format!("{wall:.4}"),
            if censored { format!("yes ({})", summary.censored) } else { "no".into() },
        ))
    }
}

/// `10^k` for exact powers of ten, the plain number otherwise.
fn power_of_ten(n: usize) -> String {
    let k = (n as f64).log10().round() as u32;
    if k >= 3 && 10usize.checked_pow(k) == Some(n) { format!("10^{k}") } else { n.to_string() }
}

/// Plain below 10^7, scientific above.
fn number(x: f64) -> String {
    if x.abs() < 1e7 { format!("{x:.1}") } else { format!("{x:.3e}") }
}

fn main() {
    // `cargo test --benches` runs this file without --bench: time only under `cargo bench`.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let scale = std::env::var("POPLAB_BENCH_SCALE").unwrap_or_else(|_| "full".into());
    let (quick, trials, max_n) = match scale.as_str() {
        "quick" => (true, 1, 100_000),
        "full" => (false, 3, usize::MAX),
        other => {
            eprintln!("POPLAB_BENCH_SCALE must be quick or full, not '{other}'");
            std::process::exit(2);
        }
    };
    let seed: u64 = match std::env::var("POPLAB_BENCH_SEED") {
        Ok(s) => s.parse().unwrap_or_else(|_| {
            eprintln!("POPLAB_BENCH_SEED must be an unsigned integer, not '{s}'");
            std::process::exit(2);
        }),
        Err(_) => 1,
    };
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    println!("\nwall time to stabilisation (convergence from the default initial configuration)");
    println!(
        "machine: {cores} cores (nproc); scale: {scale}{}; seed: {seed}; {trials} trial(s) per cell, run one after the other on 1 thread",
        if quick { " (n <= 10^5)" } else { "" }
    );
    println!();
    println!(
        "| protocol        | params       |     n | engine         | trials | seed | mean steps | mean par. time | wall s/trial | censored |"
    );
    println!(
        "|-----------------|--------------|------:|----------------|-------:|-----:|-----------:|---------------:|-------------:|----------|"
    );
    let mut notes = Vec::new();
    let mut stdout = std::io::stdout();
    for workload in workloads() {
        for &n in workload.sizes.iter().filter(|&&n| n <= max_n) {
            let given = (workload.params)(n);
            let mut shown = given.clone();
            if workload.graph != Graph::Complete {
                shown.push(format!("graph={}", workload.graph.name()));
            }
            let params_text = if shown.is_empty() { "defaults".to_string() } else { shown.join(" ") };
            for &engine in (workload.engines)(n) {
                let settings = RunSettings {
                    graph: workload.graph.clone(),
                    trials,
                    seed,
                    max_steps: (workload.max_steps)(n),
                    threads: Some(1),
                    engine,
                    ..RunSettings::default()
                };
                let params = match Params::parse(&given) {
                    Ok(params) => params,
                    Err(e) => {
                        notes.push(format!("{} {params_text}: skipped: {e}", workload.protocol));
                        continue;
                    }
                };
                let cell = Cell { settings: &settings, params: &params_text };
                match with_protocol(workload.protocol, n, &params, cell).and_then(|row| row) {
                    Ok(row) => {
                        println!("{row}");
                        stdout.flush().ok();
                    }
                    Err(poplab::error::Error::UnknownProtocol { .. }) => {
                        let note = format!("{}: not registered in this build, skipped", workload.protocol);
                        if !notes.contains(&note) {
                            notes.push(note);
                        }
                    }
                    Err(e) => notes.push(format!(
                        "{} {params_text} n = {n} engine {}: skipped: {e}",
                        workload.protocol,
                        engine.name()
                    )),
                }
            }
        }
    }
    for note in notes {
        println!("\nnote: {note}");
    }
}
