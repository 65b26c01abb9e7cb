//! A protocol of your own, outside poplab's registry: the 4-state *exact majority* protocol
//! (Draief and Vojnovic 2012; Mertzios, Nikoletseas, Raptopoulos and Spirakis 2014), written as a
//! Rust type that implements [`Protocol`] and run through the experiment API
//! ([`run_trials`], [`RunSettings`], [`Summary`]) and the fits of [`poplab::fit`].
//!
//! States: strong opinions `A` and `B`, weak opinions `a` and `b`. Rules, in both orders: two
//! strong opposite opinions cancel into weak ones, `(A, B) -> (a, b)`; a strong opinion converts a
//! weak one of the other side, `(A, b) -> (A, a)` and `(B, a) -> (B, b)`; every other pair is null.
//! `#A - #B` never changes, so with a strict majority of `A` the strong `B` die out, the strong `A`
//! that remain convert every `b`, and every agent ends with the majority's output, however small
//! the margin (approximate majority, the 3-state `approx-majority`, can get it wrong; on a tie no
//! consensus is ever reached). The safe set is output consensus; the monitor keeps the four
//! counts, so a batch of the batched engine is one update and huge populations start from counts,
//! without an agent array.
//!
//! What it does, all on the complete graph:
//! 1. runs 100 trials at n = 10^5 with 60% `A` on the batched engine and prints the summary;
//! 2. sweeps n = 10^3 to 10^6 (40 trials each) and fits the mean parallel time with `a + b ln n`
//!    and with a power law;
//! 3. checks what could fail, and panics if it does: in every trial of the example, one whose
//!    majority is a single agent (n = 1001) included, the majority wins and keeps exactly its
//!    initial margin of strong agents (read from the end of each trial's time series); at n = 21
//!    the simulated mean agrees with the exact expectation of [`poplab::exact`]; the count engine
//!    and the batched engine agree at n = 10^4 (two-sample Kolmogorov-Smirnov test); and so do this
//!    type and the same rules as a protocol file (`examples/protocols/exact-majority.toml` at the
//!    root of the repository, run as a [`Custom`] protocol).
//!
//! `cargo run --release -p poplab --example custom_protocol` (a few seconds on one core).

use poplab::Result;
use poplab::engine::{Engine, Outcome, TraceEvery, TracePoint};
use poplab::exact::{ExploreSettings, expected_steps};
use poplab::experiment::{RunSettings, Summary, TrialRecord, run_trials};
use poplab::fit::{Form, fit_form, fit_power, local_exponent};
use poplab::graph::Graph;
use poplab::protocol::{
    Configurations, CountStart, EngineHints, FamilyInfo, Monitor, Observables, Output, ParamInfo, Protocol,
    ProtocolInfo, StateError, StateJson, json_bool, json_expect_keys,
};
use poplab::protocols::custom::{Amount, Custom, file};
use poplab::rng::{PopRng, below_u64};
use poplab::stats::{ks_critical, ks_two_sample};
use serde_json::{Map, Value};
use std::time::Instant;

/// The protocol's description, as a registry entry would give it (`poplab list` style).
static INFO: ProtocolInfo = ProtocolInfo {
    name: "exact-majority-4",
    summary: "4-state exact majority: (A,B) -> (a,b), (A,b) -> (A,a), (B,a) -> (B,b), in either order",
    source: "Draief and Vojnovic 2012; Mertzios, Nikoletseas, Raptopoulos, Spirakis 2014",
    params: &[ParamInfo {
        name: "initial_a",
        default: "given to the constructor",
        doc: "agents that start in A; the rest start in B",
    }],
    families: &[FamilyInfo {
        name: "safe",
        doc: "the end of a run: |#A - #B| strong agents of the initial majority, the rest weak of it",
    }],
};

/// An agent's state: an opinion, strong or weak.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Agent {
    /// Strong A.
    A = 0,
    /// Strong B.
    B = 1,
    /// Weak A.
    WeakA = 2,
    /// Weak B.
    WeakB = 3,
}

impl Agent {
    const ALL: [Agent; 4] = [Agent::A, Agent::B, Agent::WeakA, Agent::WeakB];

    /// The opinion, as JSON states and outputs show it.
    fn opinion(self) -> &'static str {
        match self {
            Agent::A | Agent::WeakA => "A",
            Agent::B | Agent::WeakB => "B",
        }
    }

    fn strong(self) -> bool {
        matches!(self, Agent::A | Agent::B)
    }
}

/// The protocol, built for one population size and one initial split.
#[derive(Clone, Debug)]
struct ExactMajority {
    n: usize,
    /// Agents that start in `A`; the other `n - initial_a` start in `B`.
    initial_a: usize,
}

impl ExactMajority {
    /// `initial_a` agents in `A`, the rest in `B`.
    fn new(n: usize, initial_a: usize) -> Self {
        assert!(initial_a <= n, "initial_a = {initial_a} > n = {n}");
        Self { n, initial_a }
    }

    /// `round(a n)` agents in `A`, the rest in `B`.
    fn with_fraction(n: usize, a: f64) -> Self {
        Self::new(n, (a * n as f64).round() as usize)
    }

    /// The initial majority's opinion (`None` on a tie) and its margin `|#A - #B|`.
    fn majority(&self) -> (Option<Agent>, u64) {
        let (a, b) = (self.initial_a as u64, (self.n - self.initial_a) as u64);
        (
            if a > b {
                Some(Agent::A)
            } else if b > a {
                Some(Agent::B)
            } else {
                None
            },
            a.abs_diff(b),
        )
    }
}

impl Protocol for ExactMajority {
    type State = Agent;
    type Monitor = Tally;

    fn info(&self) -> &'static ProtocolInfo {
        &INFO
    }

    fn n(&self) -> usize {
        self.n
    }

    fn params(&self) -> Map<String, Value> {
        Map::from_iter([("initial_a".to_string(), Value::from(self.initial_a))])
    }

    fn transition(&self, initiator: Agent, responder: Agent) -> (Agent, Agent) {
        use Agent::{A, B, WeakA, WeakB};
        match (initiator, responder) {
            (A, B) => (WeakA, WeakB),
            (B, A) => (WeakB, WeakA),
            (A, WeakB) => (A, WeakA),
            (WeakB, A) => (WeakA, A),
            (B, WeakA) => (B, WeakB),
            (WeakA, B) => (WeakB, B),
            same => same,
        }
    }

    fn output(&self, state: Agent) -> Output {
        if state.opinion() == "A" { Output::Yes } else { Output::No }
    }

    fn initial_configuration(&self) -> Vec<Agent> {
        (0..self.n).map(|i| if i < self.initial_a { Agent::A } else { Agent::B }).collect()
    }

    fn random_state(&self, rng: &mut PopRng) -> Agent {
        Agent::ALL[below_u64(rng, 4) as usize]
    }

    fn monitor(&self, agents: &[Agent], _graph: &Graph) -> Tally {
        Tally::new(agents)
    }

    /// A consensus is closed (it holds no strong agent of the other side, so nothing converts);
    /// four states, so null skipping and batches beat the agent array.
    fn hints(&self) -> EngineHints {
        EngineHints { safe_set_is_closed: true, auto_batches: true, ..EngineHints::default() }
    }

    /// Start the count engines from counts (no agent array, whatever n).
    fn counts(&self) -> Option<&dyn CountStart<Self>> {
        Some(self)
    }

    fn configurations(&self) -> Option<&dyn Configurations<Agent>> {
        Some(self)
    }

    fn json(&self) -> Option<&dyn StateJson<Agent>> {
        Some(self)
    }

    fn observables(&self) -> Option<&dyn Observables<Agent>> {
        Some(self)
    }
}

impl CountStart<ExactMajority> for ExactMajority {
    fn initial_counts(&self) -> Vec<(Agent, u64)> {
        let a = self.initial_a as u64;
        [(Agent::A, a), (Agent::B, self.n as u64 - a)].into_iter().filter(|&(_, count)| count > 0).collect()
    }

    fn monitor_of_counts(&self, counts: &[(Agent, u64)]) -> Tally {
        let mut tally = Tally { n: self.n as u64, counts: [0; 4] };
        counts.iter().for_each(|&(state, count)| tally.counts[state as usize] += count);
        tally
    }
}

impl Configurations<Agent> for ExactMajority {
    fn family_configuration(&self, name: &str, _rng: &mut PopRng) -> Option<Vec<Agent>> {
        let (majority, margin) = self.majority();
        let (strong, weak) = match majority {
            Some(Agent::B) => (Agent::B, Agent::WeakB),
            _ => (Agent::A, Agent::WeakA),
        };
        (name == "safe").then(|| (0..self.n as u64).map(|i| if i < margin { strong } else { weak }).collect())
    }

    fn state_space(&self) -> Option<Vec<Agent>> {
        Some(Agent::ALL.to_vec())
    }
}

impl StateJson<Agent> for ExactMajority {
    fn state_to_json(&self, state: Agent) -> Map<String, Value> {
        Map::from_iter([
            ("opinion".to_string(), Value::from(state.opinion())),
            ("strong".to_string(), Value::from(state.strong())),
        ])
    }

    fn state_from_json(&self, object: &Map<String, Value>) -> std::result::Result<Agent, StateError> {
        json_expect_keys(object, &["opinion", "strong"])?;
        let strong = json_bool(object, "strong")?;
        match (object.get("opinion").and_then(Value::as_str), strong) {
            (Some("A"), true) => Ok(Agent::A),
            (Some("B"), true) => Ok(Agent::B),
            (Some("A"), false) => Ok(Agent::WeakA),
            (Some("B"), false) => Ok(Agent::WeakB),
            _ => Err(StateError::value("opinion", "\"A\" or \"B\"", format!("{:?}", object.get("opinion")))),
        }
    }
}

impl Observables<Agent> for ExactMajority {
    /// The four counts at every point of a time series (the end included).
    fn trace_columns(&self) -> &'static [&'static str] {
        &["strong_a", "strong_b", "weak_a", "weak_b"]
    }

    fn trace_values(&self, counts: &[(Agent, u64)]) -> Vec<f64> {
        let mut by_state = [0u64; 4];
        counts.iter().for_each(|&(s, c)| by_state[s as usize] += c);
        by_state.iter().map(|&c| c as f64).collect()
    }
}

/// The safe-set monitor: counts of the four states; safe at output consensus.
#[derive(Clone, Debug)]
struct Tally {
    n: u64,
    /// Indexed by [`Agent`] as `usize`.
    counts: [u64; 4],
}

impl Tally {
    fn new(agents: &[Agent]) -> Self {
        let mut counts = [0; 4];
        agents.iter().for_each(|&s| counts[s as usize] += 1);
        Self { n: agents.len() as u64, counts }
    }
}

impl Monitor<Agent> for Tally {
    fn record(&mut self, before: [Agent; 2], after: [Agent; 2]) {
        self.record_times(before, after, 1);
    }

    /// A batch of the batched engine: one update, whatever `times`.
    fn record_times(&mut self, before: [Agent; 2], after: [Agent; 2], times: u64) {
        // Additions first, so that no count goes below zero on the way.
        after.iter().for_each(|&s| self.counts[s as usize] += times);
        before.iter().for_each(|&s| self.counts[s as usize] -= times);
    }

    fn is_safe(&self) -> bool {
        let c = &self.counts;
        c[Agent::A as usize] + c[Agent::WeakA as usize] == self.n
            || c[Agent::B as usize] + c[Agent::WeakB as usize] == self.n
    }
}

/// Settings of `trials` trials on `engine` with a time series sampled only at each trial's start
/// and end (every `max_steps` steps): [`check_majority_wins`] reads its last point.
fn settings(trials: u64, seed: u64, engine: Engine) -> RunSettings {
    let defaults = RunSettings::default();
    RunSettings { trials, seed, engine, trace_every: Some(TraceEvery::Steps(defaults.max_steps)), ..defaults }
}

/// Checks that every trial converged to the initial majority with exactly its initial margin of
/// strong agents (`#A - #B` is invariant and the minority's strong agents are gone); returns how
/// many trials it checked.
fn check_majority_wins(protocol: &ExactMajority, records: &[TrialRecord]) -> usize {
    let (majority, margin) = protocol.majority();
    let majority = majority.expect("the checks start from a strict majority");
    let n = protocol.n() as u64;
    for record in records {
        let end: &TracePoint = record.trace.last().expect("a time series ends at the trial's end");
        let (strong_a, strong_b) = (end.values[0] as u64, end.values[1] as u64);
        // `leaders` counts the agents whose output is yes, i.e. of opinion A.
        let (winners, strong) =
            if majority == Agent::A { (end.leaders, strong_a) } else { (n - end.leaders, strong_b) };
        assert!(
            record.outcome == Outcome::Converged && winners == n && strong == margin && strong_a.min(strong_b) == 0,
            "n = {n}, trial {}: {:?} at step {}, {winners} agents of the majority, strong counts A {strong_a} B \
             {strong_b} (margin {margin})",
            record.index,
            record.outcome,
            end.step,
        );
    }
    records.len()
}

/// Parallel times of the trials.
fn times(records: &[TrialRecord]) -> Vec<f64> {
    records.iter().map(|r| r.parallel_time.0).collect()
}

fn main() -> Result<()> {
    let started = Instant::now();
    let a = 0.6;
    let seed = 2024;
    let mut checked = 0;

    // 1. One population size on the batched engine.
    let protocol = ExactMajority::with_fraction(100_000, a);
    let clock = Instant::now();
    let records = run_trials(&protocol, &settings(100, seed, Engine::Batched), &|| {})?;
    let s = Summary::of(&records, protocol.n());
    let [lo, hi] = s.ci95_parallel_time.unwrap_or([f64::NAN; 2]);
    println!(
        "1. {} (n = {}, {}% A), {} trials, batched engine, seed {seed}:",
        INFO.name,
        protocol.n(),
        a * 100.0,
        s.trials
    );
    println!(
        "   converged {}/{}; mean {:.4e} steps (median {:.4e}); mean parallel time {:.2} (95% CI {lo:.2} to \
         {hi:.2}, median {:.2}) [parallel time = steps / n]; {:.2} s",
        s.converged,
        s.trials,
        s.mean_steps.unwrap_or(f64::NAN),
        s.median_steps.unwrap_or(f64::NAN),
        s.mean_parallel_time.unwrap_or(f64::NAN),
        s.median_parallel_time.unwrap_or(f64::NAN),
        clock.elapsed().as_secs_f64(),
    );
    checked += check_majority_wins(&protocol, &records);

    // 2. A sweep over n, and the growth of the mean parallel time.
    println!("\n2. Sweep, {}% A, batched engine:", a * 100.0);
    println!("   {:>9}  {:>6}  {:>13}  {:>17}  {:>7}", "n", "trials", "mean par. time", "95% CI", "seconds");
    let (mut ns, mut means, trials) = (Vec::new(), Vec::new(), 40);
    for (i, n) in [1_000, 10_000, 100_000, 1_000_000].into_iter().enumerate() {
        let protocol = ExactMajority::with_fraction(n, a);
        let clock = Instant::now();
        let records = run_trials(&protocol, &settings(trials, seed + 1 + i as u64, Engine::Batched), &|| {})?;
        let s = Summary::of(&records, n);
        let mean = s.mean_parallel_time.expect("no trial is censored");
        let [lo, hi] = s.ci95_parallel_time.unwrap_or([f64::NAN; 2]);
        println!(
            "   {n:>9}  {trials:>6}  {mean:>13.2}  {:>17}  {:>7.2}",
            format!("{lo:.2} to {hi:.2}"),
            clock.elapsed().as_secs_f64()
        );
        checked += check_majority_wins(&protocol, &records);
        ns.push(n as f64);
        means.push(mean);
    }
    let log = fit_form(Form::Log, &ns, &means).expect("four sizes");
    let power = fit_power(&ns, &means).expect("positive means");
    let [e_lo, e_hi] = power.exponent_ci95.unwrap_or([f64::NAN; 2]);
    println!("   log fit:   T(n) = {:.2} + {:.3} ln n  (R^2 = {:.4})", log.a, log.b, log.r2);
    println!(
        "   power law: T(n) = {:.2} n^{:.3}  (exponent 95% CI {e_lo:.3} to {e_hi:.3}; ln n itself shows {:.3} \
         on this range)",
        power.coefficient,
        power.exponent,
        local_exponent(Form::Log, &ns).unwrap_or(f64::NAN),
    );
    // Mean field: the minority's strong agents die out at rate 2 eps per unit of parallel time, and
    // its weak agents, which they feed, at the same rate (converted by the eps n strong majority
    // agents left), so about eps n t e^(-2 eps t) weak minority agents remain at time t: the last
    // goes at t = (ln n + ln ln n + O(1)) / (2 eps).
    let eps = 2.0 * a - 1.0;
    let law: Vec<f64> = ns.iter().map(|n| (n.ln() + n.ln().ln()) / (2.0 * eps)).collect();
    println!(
        "   mean field, margin eps = {eps:.1}: T(n) = (ln n + ln ln n + O(1)) / (2 eps), whose log fit on this range \
         has slope {:.3}",
        fit_form(Form::Log, &ns, &law).expect("four sizes").b,
    );

    // 3. Checks that could fail.
    println!("\n3. Checks:");
    // A majority of one agent: still exact.
    let tight = ExactMajority::new(1001, 501);
    let clock = Instant::now();
    let records = run_trials(&tight, &settings(100, seed + 10, Engine::Batched), &|| {})?;
    checked += check_majority_wins(&tight, &records);
    let s = Summary::of(&records, tight.n());
    println!(
        "   n = 1001, 501 A against 500 B: the majority won {}/{} trials, mean parallel time {:.0} ({:.2} s)",
        s.converged,
        s.trials,
        s.mean_parallel_time.unwrap_or(f64::NAN),
        clock.elapsed().as_secs_f64()
    );

    // Exact analysis of a small population (the whole chain of configurations) against simulation.
    let small = ExactMajority::new(21, 11);
    let exact = expected_steps(&small, &small.initial_configuration(), &ExploreSettings::default())?;
    let records = run_trials(&small, &settings(4000, seed + 11, Engine::Batched), &|| {})?;
    checked += check_majority_wins(&small, &records);
    let s = Summary::of(&records, small.n());
    let mean = s.mean_steps.unwrap_or(f64::NAN);
    // The summary's interval is in parallel time; in steps it is n times as wide.
    let [lo, hi] = s.ci95_parallel_time.unwrap_or([f64::NAN; 2]);
    let half_width = (hi - lo) / 2.0 * small.n() as f64;
    println!(
        "   n = 21, 11 A against 10 B: exact expectation {:.1} steps ({} configurations), simulated mean {mean:.1} \
         +- {half_width:.1} (95% CI) steps over {} trials",
        exact.expected_steps, exact.configurations, s.trials
    );
    assert!(
        (mean - exact.expected_steps).abs() < 2.0 * half_width,
        "simulation {mean} against exact {}",
        exact.expected_steps
    );

    // The count engine and the batched engine run the same chain: same distribution of times.
    let protocol = ExactMajority::with_fraction(10_000, a);
    let by_counts = run_trials(&protocol, &settings(200, seed + 20, Engine::Counts), &|| {})?;
    let by_batches = run_trials(&protocol, &settings(200, seed + 21, Engine::Batched), &|| {})?;
    let (counts, batches) = (Summary::of(&by_counts, 10_000), Summary::of(&by_batches, 10_000));
    let distance = ks_two_sample(&times(&by_counts), &times(&by_batches));
    let critical = ks_critical(0.001, by_counts.len(), Some(by_batches.len()));
    println!(
        "   n = 10^4, 200 trials each: mean parallel time {:.2} (count engine) and {:.2} (batched engine); \
         KS distance {distance:.3} (critical {critical:.3} at 0.1%)",
        counts.mean_parallel_time.unwrap_or(f64::NAN),
        batches.mean_parallel_time.unwrap_or(f64::NAN),
    );
    assert!(distance < critical, "the count and batched engines disagree: KS distance {distance} >= {critical}");
    checked += check_majority_wins(&protocol, &by_counts) + check_majority_wins(&protocol, &by_batches);

    // The same rules as a protocol file, run as a `Custom` protocol from the same start.
    let mut definition =
        file::parse(include_str!("../../../examples/protocols/exact-majority.toml"), "exact-majority.toml")?;
    definition.init = vec![("A".into(), Amount::Fraction(a)), ("B".into(), Amount::Fraction(1.0 - a))];
    let from_file = Custom::new(&definition, 10_000)?;
    let by_file = run_trials(&from_file, &settings(200, seed + 22, Engine::Batched), &|| {})?;
    let distance = ks_two_sample(&times(&by_file), &times(&by_batches));
    println!(
        "   the same rules from examples/protocols/exact-majority.toml (Custom), batched: mean parallel time {:.2}; \
         KS distance {distance:.3} to the batched run above",
        Summary::of(&by_file, 10_000).mean_parallel_time.unwrap_or(f64::NAN),
    );
    assert!(distance < critical, "the protocol file and the Rust type disagree: KS distance {distance} >= {critical}");

    println!(
        "   every trial ({checked} in all) ended in its initial majority with exactly its margin of strong agents"
    );
    println!("\nall checks passed; {:.1} s in all", started.elapsed().as_secs_f64());
    Ok(())
}
