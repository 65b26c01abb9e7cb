//! User protocols against the built-ins they copy: wall time per trial of a protocol file
//! (`poplab::protocols::custom::Custom`, rules looked up by state pair) and of the built-in with
//! the same rules, on the batched engine, complete graph, one thread (`RunSettings::threads =
//! Some(1)`), the same trial seeds. The aim: a table protocol within 1.2x of the built-in.
//!
//! - `approx-majority` (`a=0.6`) against `examples/protocols/approximate-majority.toml` (init
//!   A = 0.6, B = 0.4), to consensus, n = 10^6 to 10^9;
//! - `angluin` against `examples/protocols/angluin.toml` (its table twin), to one leader, n = 10^6
//!   and 10^8 (`(n-1)^2` steps, 10^16 at 10^8: the batched engine batches while many leaders are
//!   left, then skips null steps one leader at a time, so a trial takes well under a second).
//!
//! Each cell runs its `trials` trials (master seed `POPLAB_BENCH_SEED`, default 1; trial `i` has
//! seed `trial_seed(seed, i)`) `reps` times, alternating built-in and file (which goes first
//! swaps every repetition), and reports per trial (the mean over one repetition's trials) the
//! min and the median over repetitions of the wall time and the min of the process CPU time, the
//! mean steps, and the ratio file / built-in of each. On a machine shared with other work the
//! CPU-time ratio is the steady one (wall time also counts the time the run waits for a core).
//! The two protocols intern their states in the same order, so with the same seeds they must
//! take the very same steps: the table says so (`same steps`), which also shows that the batched
//! engine batched both alike (it batches only where the safe set is closed).
//!
//! `POPLAB_BENCH_SIZES=10^6,10^7` runs only those sizes (`10^k`, `1ek` or digits);
//! `POPLAB_BENCH_REPS=R` overrides the repetitions; an argument (`majority` or `angluin`) runs
//! only the workloads whose name contains it:
//! `cargo bench -p poplab-bench --bench user_protocols -- angluin`. The whole default run takes
//! a few minutes on one core.
//!
//! Below the table: the setup time of each file protocol at the largest size run (reading the
//! file, `Custom::new`, the run's start and its first step) against its mean trial time.

use poplab::engine::{CountRun, Engine, Watch};
use poplab::experiment::{RunSettings, run_trials};
use poplab::protocol::{CountStart, Output, Params, Protocol};
use poplab::protocols::angluin::Angluin;
use poplab::protocols::approx_majority::ApproxMajority;
use poplab::protocols::custom::{Amount, Custom, Definition, StopRule, file};
use poplab::rng::TrialStreams;
use std::io::Write;
use std::time::Instant;

/// The protocol files, from the workspace root.
const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/protocols");

/// One comparison: a built-in, the file that copies it, the sizes and how much to run per size.
struct Workload {
    name: &'static str,
    file: &'static str,
    sizes: &'static [Size],
}

/// A population size with its trials and repetitions.
struct Size {
    n: usize,
    trials: u64,
    reps: usize,
}

const fn size(n: usize, trials: u64, reps: usize) -> Size {
    Size { n, trials, reps }
}

const MAJORITY: Workload = Workload {
    name: "approx-majority",
    file: "approximate-majority.toml",
    sizes: &[
        size(1_000_000, 100, 15),
        size(10_000_000, 40, 15),
        size(100_000_000, 20, 11),
        size(1_000_000_000, 10, 11),
    ],
};

const ANGLUIN: Workload =
    Workload { name: "angluin", file: "angluin.toml", sizes: &[size(1_000_000, 40, 11), size(100_000_000, 5, 9)] };

/// What the reps of one protocol measured.
struct Timing {
    /// Mean wall seconds per trial, one per repetition.
    per_trial: Vec<f64>,
    /// Mean CPU seconds of the process per trial, one per repetition.
    cpu_per_trial: Vec<f64>,
    /// Each trial's steps (the same every repetition).
    steps: Vec<u128>,
    censored: u64,
}

/// The CPU time of this process so far, in seconds: the one worker's, since the calling thread
/// sleeps while the trials run.
fn cpu_seconds() -> f64 {
    let mut time = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `time` is a valid timespec to write to.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut time) };
    assert_eq!(status, 0, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)");
    time.tv_sec as f64 + time.tv_nsec as f64 * 1e-9
}

fn min(values: &[f64]) -> f64 {
    values.iter().copied().fold(f64::INFINITY, f64::min)
}

impl Timing {
    fn min(&self) -> f64 {
        min(&self.per_trial)
    }

    fn cpu_min(&self) -> f64 {
        min(&self.cpu_per_trial)
    }

    fn median(&self) -> f64 {
        let mut sorted = self.per_trial.clone();
        sorted.sort_by(f64::total_cmp);
        let m = sorted.len() / 2;
        if sorted.len() % 2 == 1 { sorted[m] } else { (sorted[m - 1] + sorted[m]) / 2.0 }
    }

    fn mean_steps(&self) -> f64 {
        self.steps.iter().map(|&s| s as f64).sum::<f64>() / self.steps.len() as f64
    }
}

/// Runs `settings.trials` trials of `protocol` once; appends the mean wall time per trial to
/// `timing` and checks the steps against the previous repetitions.
fn repetition<P: Protocol>(protocol: &P, settings: &RunSettings, timing: &mut Timing) {
    let (start, cpu_start) = (Instant::now(), cpu_seconds());
    let records = run_trials(protocol, settings, &|| {}).expect("benchmark runs are valid");
    timing.cpu_per_trial.push((cpu_seconds() - cpu_start) / records.len() as f64);
    timing.per_trial.push(start.elapsed().as_secs_f64() / records.len() as f64);
    let steps: Vec<u128> = records.iter().map(|r| r.steps.0).collect();
    if timing.steps.is_empty() {
        timing.steps = steps;
        timing.censored = records.iter().filter(|r| r.outcome == poplab::engine::Outcome::Censored).count() as u64;
    } else {
        assert_eq!(timing.steps, steps, "a trial's steps depend only on its seed");
    }
}

/// `10^k` for exact powers of ten, the plain number otherwise.
fn power_of_ten(n: usize) -> String {
    let k = (n as f64).log10().round() as u32;
    if k >= 3 && 10usize.checked_pow(k) == Some(n) { format!("10^{k}") } else { n.to_string() }
}

/// Plain below 10^7, scientific above.
fn number(x: f64) -> String {
    if x.abs() < 1e7 { format!("{x:.1}") } else { format!("{x:.4e}") }
}

/// Milliseconds with three significant digits or so.
fn ms(seconds: f64) -> String {
    let ms = seconds * 1e3;
    if ms < 10.0 {
        format!("{ms:.3}")
    } else if ms < 100.0 {
        format!("{ms:.2}")
    } else {
        format!("{ms:.1}")
    }
}

/// `10^k`, `1ek` or digits.
fn parse_size(text: &str) -> Option<usize> {
    let text = text.trim();
    if let Some(k) = text.strip_prefix("10^").or_else(|| text.strip_prefix("1e")) {
        return 10usize.checked_pow(k.parse().ok()?);
    }
    text.replace('_', "").parse().ok()
}

fn env_or_exit<T>(name: &str, parse: impl Fn(&str) -> Option<T>, what: &str) -> Option<T> {
    let text = std::env::var(name).ok()?;
    Some(parse(&text).unwrap_or_else(|| {
        eprintln!("{name} must be {what}, not '{text}'");
        std::process::exit(2);
    }))
}

/// The angluin twin built in code: it must be what `angluin.toml` says.
fn angluin_twin() -> Definition {
    Definition {
        name: "angluin-table".into(),
        source: String::new(),
        states: vec![("L".into(), Output::Leader), ("F".into(), Output::Follower)],
        rules: vec![(("L".into(), "L".into()), vec![(("L".into(), "F".into()), 1.0)])],
        init: vec![("L".into(), Amount::Fraction(1.0))],
        stop: StopRule::OneLeader,
    }
}

/// The protocol file of `workload` (checked against [`angluin_twin`] for angluin).
fn read_file(workload: &Workload) -> Definition {
    let path = format!("{EXAMPLES}/{}", workload.file);
    let definition = file::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    if workload.name == "angluin" {
        assert_eq!(Definition { source: String::new(), ..definition.clone() }, angluin_twin(), "{path}");
    }
    definition
}

/// Seconds from reading the file to the end of the first step of a batched run of it.
fn setup_seconds(workload: &Workload, n: usize, seed: u64) -> f64 {
    let start = Instant::now();
    let protocol = Custom::new(&read_file(workload), n).expect("valid protocol");
    let mut run = CountRun::from_counts(&protocol, &protocol.initial_counts(), TrialStreams::new(seed).schedule)
        .expect("valid start");
    run.batch();
    run.advance(1, Watch::SafeSet);
    let seconds = start.elapsed().as_secs_f64();
    assert!(run.step() >= 1);
    seconds
}

/// Runs one cell (a workload at one size): both protocols, alternating; prints its rows.
fn cell(workload: &Workload, size: &Size, reps: usize, seed: u64) -> Cell {
    let settings = RunSettings {
        trials: size.trials,
        seed,
        threads: Some(1),
        engine: Engine::Batched,
        max_steps: u128::MAX,
        ..RunSettings::default()
    };
    let definition = read_file(workload);
    let custom = Custom::new(&definition, size.n).expect("valid protocol file");
    assert!(custom.hints().safe_set_is_closed, "{}: the batched engine batches only closed safe sets", workload.file);
    let new = || Timing { per_trial: Vec::new(), cpu_per_trial: Vec::new(), steps: Vec::new(), censored: 0 };
    let (mut built_in, mut table) = (new(), new());
    let n = size.n;
    for rep in 0..reps {
        let run_built_in = |timing: &mut Timing| match workload.name {
            "approx-majority" => {
                let params = Params::parse(&["a=0.6"]).expect("valid parameters");
                repetition(&ApproxMajority::new(n, &params).expect("valid protocol"), &settings, timing)
            }
            _ => repetition(&Angluin::new(n, &Params::default()).expect("valid protocol"), &settings, timing),
        };
        if rep % 2 == 0 {
            run_built_in(&mut built_in);
            repetition(&custom, &settings, &mut table);
        } else {
            repetition(&custom, &settings, &mut table);
            run_built_in(&mut built_in);
        }
    }
    let same = built_in.steps == table.steps;
    let ratios =
        [table.min() / built_in.min(), table.median() / built_in.median(), table.cpu_min() / built_in.cpu_min()];
    let label = |name: &str, timing: &Timing| {
        if timing.censored > 0 { format!("{name} ({} censored)", timing.censored) } else { name.to_string() }
    };
    let file_label = format!("@{}", workload.file);
    for (name, timing, ratios) in
        [(label(workload.name, &built_in), &built_in, None), (label(&file_label, &table), &table, Some(ratios))]
    {
        let ratio = |k: usize| ratios.map_or("-".into(), |r| format!("{:.3}", r[k]));
        println!(
            "| {:>5} | {:<28} | {:>6} | {:>4} | {:>4} | {:>8} | {:>8} | {:>8} | {:>12} | {:>14} | {:>14} | {:>13} | {:<10} |",
            power_of_ten(n),
            name,
            size.trials,
            seed,
            reps,
            ms(timing.min()),
            ms(timing.median()),
            ms(timing.cpu_min()),
            number(timing.mean_steps()),
            ratio(0),
            ratio(1),
            ratio(2),
            if ratios.is_some() { if same { "yes" } else { "NO" } } else { "" },
        );
    }
    std::io::stdout().flush().ok();
    Cell { trial_seconds: table.min(), cpu_ratio: ratios[2], wall_ratio: ratios[0] }
}

/// What a cell reports to the summary.
struct Cell {
    /// The file protocol's wall time per trial (min over repetitions).
    trial_seconds: f64,
    cpu_ratio: f64,
    wall_ratio: f64,
}

fn main() {
    // `cargo test --benches` runs this file without --bench: time only under `cargo bench`.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let filter = std::env::args().skip(1).find(|a| !a.starts_with("--")).unwrap_or_default();
    let sizes: Option<Vec<usize>> = env_or_exit(
        "POPLAB_BENCH_SIZES",
        |text| text.split(',').map(parse_size).collect(),
        "a comma-separated list of sizes (10^k, 1ek or digits)",
    );
    let reps: Option<usize> =
        env_or_exit("POPLAB_BENCH_REPS", |text| text.parse().ok().filter(|&r| r > 0), "a positive integer");
    let seed: u64 = env_or_exit("POPLAB_BENCH_SEED", |text| text.parse().ok(), "an unsigned integer").unwrap_or(1);
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    println!("\nuser protocols (files) against the built-ins they copy: batched engine, complete graph, 1 thread");
    println!(
        "machine: {cores} cores (nproc); master seed {seed} (trial i: trial_seed({seed}, i)); every trial runs to \
         its safe set (no horizon)"
    );
    println!(
        "times: ms per trial, the mean over the trials of one repetition; wall min and median, and process CPU min, \
         over repetitions; ratios file / built-in of each"
    );
    println!();
    println!(
        "|     n | protocol                     | trials | seed | reps | wall min | wall med |  CPU min |   mean steps | ratio wall min | ratio wall med | ratio CPU min | same steps |"
    );
    println!(
        "|------:|------------------------------|-------:|-----:|-----:|---------:|---------:|---------:|-------------:|---------------:|---------------:|--------------:|------------|"
    );
    let mut setups = Vec::new();
    let mut cells = Vec::new();
    for workload in [&MAJORITY, &ANGLUIN] {
        if !workload.name.contains(filter.as_str()) {
            continue;
        }
        let chosen: Vec<&Size> =
            workload.sizes.iter().filter(|s| sizes.as_ref().is_none_or(|sizes| sizes.contains(&s.n))).collect();
        let mut largest = None;
        for size in &chosen {
            let cell = cell(workload, size, reps.unwrap_or(size.reps), seed);
            largest = Some((size.n, cell.trial_seconds));
            cells.push(cell);
        }
        if let Some((n, trial_seconds)) = largest {
            let setup = (0..5).map(|_| setup_seconds(workload, n, seed)).fold(f64::INFINITY, f64::min);
            setups.push(format!(
                "@{} at n = {}: {} ms from reading the file to the end of the first step (min of 5), {:.3}% of a trial ({} ms)",
                workload.file,
                power_of_ten(n),
                ms(setup),
                100.0 * setup / trial_seconds,
                ms(trial_seconds),
            ));
        }
    }
    println!();
    let worst = |ratio: fn(&Cell) -> f64| cells.iter().map(ratio).fold(f64::NAN, f64::max);
    if !cells.is_empty() {
        let (cpu, wall) = (worst(|c| c.cpu_ratio), worst(|c| c.wall_ratio));
        println!(
            "aim (a table protocol within 1.2x of the built-in it copies): {} (largest ratio file / built-in: CPU \
             {cpu:.3}, wall min {wall:.3})",
            if cpu <= 1.2 { "met at every size" } else { "NOT met" }
        );
    }
    for setup in setups {
        println!("setup: {setup}");
    }
}
