//! The search for slow starts: `poplab search`, [`RunSpec::search`](crate::spec::RunSpec::search).
//!
//! A claim "from any configuration" bounds the slowest start. Where exact analysis cannot go, a
//! search races candidate starts and keeps the slowest:
//!
//! - **Candidates**: the spec's own start, `default` and each named family of the protocol (a
//!   random one drawn twice); the protocol's parameterized families
//!   ([`Configurations::search_candidates`](crate::protocol::Configurations::search_candidates): leader counts, timer, virus, bullet and shield
//!   patterns); corners and edges of the count simplex (every agent in one state; two states half
//!   and half, or one agent against the rest), over the listed state space when it is small, else
//!   over the states the other candidates hold; and, between rounds, mutations of the slowest so
//!   far (move k agents from one state to another, k in 1, 2, n/10, n/2; on rings also a segment
//!   set to one state, or two neighbours swapped).
//! - **Racing** (successive halving on common random numbers): every candidate of a round runs the
//!   same trials (trial `i` of every candidate uses the same scheduler stream), the slower half
//!   survives, new mutations of the slowest join at the survivors' number of trials, and the
//!   trials double (from [`FIRST_TRIALS`] to at most [`SearchSettings::race_trials`]). A budget in
//!   core-seconds may end the first round early: its candidates run in groups, in order (the
//!   families first), until the budget is spent.
//! - **Horizon**: a race's trials stop at [`RACE_HORIZON_FACTOR`] times the slowest family's mean
//!   of the first round (or the spec's horizon if lower): a start that slow is already the
//!   finding, and a start that never converges costs no more than that in the race. A censored
//!   trial counts at its horizon, a lower bound. The re-measurement runs to the spec's horizon
//!   (`--max-steps`), so a start that never converges is measured as censored there.
//! - **Re-measurement**: the seeds that selected the slowest bias its mean upwards, so the worst
//!   found, the top few and each family are measured again with fresh seeds (another stream of
//!   the spec's seed), [`SearchSettings::remeasure_trials`] trials each: the mean and 95% interval
//!   reported are those.
//!
//! The same seed gives the same result at any thread count. A budget in candidates is the same on
//! any machine; a budget in core-seconds stops where the processor time runs out, so it is
//! reproducible only on the same machine and load. With a journal
//! ([`SearchSettings::journal`]) a search killed and run again continues where it stopped.

use crate::clock;
use crate::engine::{Measure, Outcome, Series};
use crate::error::{Error, Result};
use crate::experiment::{self, RunSettings, TrialRecord};
use crate::graph::Graph;
use crate::init::InitSpec;
use crate::protocol::{Protocol, state_from_json, state_to_json};
use crate::rng::{PopRng, below_u64, trial_seed};
use crate::run::journal::{Timed, TrialJournal, TrialKey, parse_trial, start_hash, trial_line};
use crate::stats::{mean, mean_ci95};
use rand_core::SeedableRng;
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::path::PathBuf;

/// Trials per candidate in the first round.
pub const FIRST_TRIALS: u64 = 2;
/// Trials per candidate at most, by default (the rounds stop there).
pub const LAST_TRIALS: u64 = 64;
/// A race's horizon, in multiples of the slowest family's first-round mean.
pub const RACE_HORIZON_FACTOR: f64 = 100.0;
/// The default budget: a minute of one core, `--budget 60s`.
pub const DEFAULT_BUDGET: Budget = Budget::CoreSeconds(60.0);
/// The default number of trials that re-measure each start reported.
pub const DEFAULT_REMEASURE_TRIALS: u64 = 40;
/// Candidates of the first round raced together before the budget is checked again.
const FIRST_ROUND_GROUP: usize = 8;
/// States a corner or a mutation draws from, at most.
const STATE_POOL: usize = 256;
/// Purpose tags of the search's seeds (mixed into the spec's seed).
const RACE_TAG: u64 = 0x7261_6365;
const REMEASURE_TAG: u64 = 0x7265_6d65;
const CANDIDATE_TAG: u64 = 0x6361_6e64;

/// How much a search may spend.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Budget {
    /// At most this many candidate starts (the same result on any machine).
    Candidates(u64),
    /// At most about this many processor seconds of racing trials.
    CoreSeconds(f64),
}

impl std::str::FromStr for Budget {
    type Err = Error;

    /// `60s` (core-seconds) or `200c` (candidates).
    fn from_str(text: &str) -> Result<Self> {
        let bad = || Error::Option {
            option: "--budget",
            value: text.into(),
            reason: "give core-seconds as 60s or a number of candidate starts as 200c".into(),
        };
        if let Some(seconds) = text.strip_suffix('s') {
            return seconds
                .parse::<f64>()
                .ok()
                .filter(|s| s.is_finite() && *s > 0.0)
                .map(Budget::CoreSeconds)
                .ok_or_else(bad);
        }
        let candidates = text.strip_suffix('c').ok_or_else(bad)?;
        candidates.parse::<u64>().ok().filter(|&c| c >= 1).map(Budget::Candidates).ok_or_else(bad)
    }
}

impl std::fmt::Display for Budget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Budget::Candidates(c) => write!(f, "{c}c"),
            Budget::CoreSeconds(s) => write!(f, "{s}s"),
        }
    }
}

/// How a search runs.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchSettings {
    /// What it may spend on racing.
    pub budget: Budget,
    /// Fresh trials that re-measure each start reported.
    pub remeasure_trials: u64,
    /// How many of the slowest starts are reported.
    pub top: usize,
    /// Trials per candidate in the last round, at most.
    pub race_trials: u64,
    /// Re-measure every named family (`false`: only the spec's own start, when it is one).
    pub families: bool,
    /// A file that records each trial as it finishes; a search run again with it reads them back
    /// instead of running them, and returns the same result. It belongs to one search (protocol,
    /// n, seed, horizon): another search refuses it.
    pub journal: Option<PathBuf>,
}

impl Default for SearchSettings {
    fn default() -> Self {
        SearchSettings {
            budget: DEFAULT_BUDGET,
            remeasure_trials: DEFAULT_REMEASURE_TRIALS,
            top: 3,
            race_trials: LAST_TRIALS,
            families: true,
            journal: None,
        }
    }
}

/// A start and its re-measured time to the safe set.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    /// One JSON state object per agent, as `--init @FILE.json` takes them.
    pub start: Vec<Map<String, Value>>,
    /// The start in words.
    pub description: String,
    /// Its mean parallel time in the race (biased upwards for the slowest: it selected it).
    pub selection_mean_parallel_time: f64,
    /// Its mean parallel time over the fresh trials (a lower bound if some were censored).
    pub mean_parallel_time: f64,
    /// The 95% interval of that mean (Student t).
    pub ci95: [f64; 2],
    /// Fresh trials.
    pub trials: u64,
    /// Fresh trials that reached the horizon (counted at it).
    pub censored: u64,
}

/// What a search found and spent.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The slowest start found.
    pub worst: Found,
    /// The slowest few, the worst first.
    pub top: Vec<Found>,
    /// `default` and each named family, measured the same way, for comparison.
    pub families: Vec<Found>,
    /// Candidate starts raced.
    pub candidates: u64,
    /// Trials run, re-measurements included.
    pub trials_run: u64,
    /// Processor seconds of those trials.
    pub core_seconds: f64,
    /// Rounds of the race.
    pub rounds: usize,
    /// The race's horizon, in steps.
    pub race_horizon: u128,
}

/// A candidate start and its race.
struct Candidate<S> {
    description: String,
    agents: Vec<S>,
    /// Parallel times of trials `0..times.len()` (censored ones at their horizon).
    times: Vec<f64>,
    /// A named family (`default`, `random`, ...): re-measured as the family (a random start drawn
    /// anew for each trial), raced as the one configuration drawn here.
    family: Option<InitSpec>,
}

impl<S> Candidate<S> {
    fn mean(&self) -> f64 {
        mean(&self.times)
    }
}

/// Searches for the slowest start of `protocol` under `settings` (see the module docs); `progress`
/// gets a line per round.
pub(crate) fn search<P: Protocol>(
    protocol: &P,
    settings: &RunSettings,
    search: &SearchSettings,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<SearchResult> {
    if settings.measure != Measure::Convergence {
        return Err(Error::Conflict {
            reason: "a search looks for the slowest start to the safe set; drop --measure holding".into(),
        });
    }
    if search.remeasure_trials < 2 {
        return Err(Error::Option {
            option: "--trials",
            value: search.remeasure_trials.to_string(),
            reason: "a search re-measures each start with at least 2 trials".into(),
        });
    }
    let mut rng = PopRng::seed_from_u64(trial_seed(settings.seed ^ CANDIDATE_TAG, 0));
    let journal = match &search.journal {
        Some(path) => TrialJournal::open(
            path,
            &format!(
                "search of {} n={} seed={:016x} horizon={}",
                protocol.info().name,
                protocol.n(),
                settings.seed,
                settings.max_steps
            ),
            parse_trial,
        )?,
        None => TrialJournal::none(),
    };
    let mut race =
        Race { protocol, settings, horizon: settings.max_steps, trials_run: 0, core_seconds: 0.0, journal: &journal };
    let mut pool = initial_candidates(protocol, settings, &mut rng)?;
    let states = state_pool(protocol, &pool, &mut rng);
    pool.extend(corners(protocol.n(), &states, &mut rng));
    dedup(&mut pool, &settings.graph);
    let limit = match search.budget {
        Budget::Candidates(k) => usize::try_from(k).unwrap_or(usize::MAX),
        Budget::CoreSeconds(_) => usize::MAX,
    };
    let families = pool.iter().filter(|c| c.family.is_some()).count();
    // Half the budget for the first round (the families at least), half for mutations.
    let first = pool.len().min((limit / 2).max(families.min(limit)));
    pool.truncate(first.max(1));
    let spent = |race: &Race<'_, P>| match search.budget {
        Budget::CoreSeconds(s) => race.core_seconds >= s,
        Budget::Candidates(_) => false,
    };
    // First round: the candidates in groups until the budget is spent, then the horizon from the
    // families' means.
    let mut trials = FIRST_TRIALS.min(search.race_trials);
    let mut raced = 0;
    while raced < pool.len() && (raced == 0 || !spent(&race)) {
        let end = (raced + FIRST_ROUND_GROUP).min(pool.len());
        race.run(&mut pool[raced..end], trials)?;
        raced = end;
    }
    pool.truncate(raced);
    let mut tried = raced;
    let slowest_family = pool.iter().filter(|c| c.family.is_some()).map(Candidate::mean).fold(0.0, f64::max);
    let fallback = pool.iter().map(Candidate::mean).fold(0.0, f64::max);
    let reference = if slowest_family > 0.0 { slowest_family } else { fallback };
    let race_horizon = ((reference * protocol.n() as f64 * RACE_HORIZON_FACTOR).ceil() as u128).max(1);
    race.horizon = race.horizon.min(race_horizon);
    let mut rounds = 1;
    sort_slowest_first(&mut pool);
    progress(&round_line(rounds, &pool, trials));
    let mut graveyard: Vec<Candidate<P::State>> = Vec::new();
    loop {
        let quota = limit.saturating_sub(tried);
        if trials >= search.race_trials || spent(&race) || (pool.len() <= 2 && quota == 0) {
            break;
        }
        let keep = pool.len().div_ceil(2).max(2).min(pool.len());
        graveyard.extend(pool.drain(keep..));
        // The mutation quota spread over the rounds left (the trials double up to the last).
        let rounds_left = (u64::BITS - (search.race_trials / trials.max(1)).leading_zeros()).saturating_sub(1);
        let mutants = match search.budget {
            Budget::Candidates(_) => quota.div_ceil(rounds_left.max(1) as usize),
            Budget::CoreSeconds(_) => (keep / 2).max(2),
        };
        let mut new: Vec<Candidate<P::State>> = (0..mutants)
            .map(|i| mutate(protocol, &pool[i % pool.len().min(3)], &states, &settings.graph, &mut rng))
            .collect();
        new.retain(|c| !pool.iter().chain(&graveyard).any(|o| same(&o.agents, &c.agents, &settings.graph)));
        tried += new.len();
        race.run(&mut new, trials)?;
        pool.extend(new);
        trials = (trials * 2).min(search.race_trials);
        race.run(&mut pool, trials)?;
        sort_slowest_first(&mut pool);
        rounds += 1;
        progress(&round_line(rounds, &pool, trials));
    }
    // Fresh seeds for what is reported.
    let top: Vec<&Candidate<P::State>> = pool.iter().take(search.top.max(1)).collect();
    let mut fresh = race.fresh(search.remeasure_trials);
    let mut found: Vec<Found> = top.iter().map(|c| fresh.measure(c)).collect::<Result<_>>()?;
    // The slowest on fresh seeds is the worst reported (the race's order can differ by noise).
    found.sort_by(|a, b| b.mean_parallel_time.total_cmp(&a.mean_parallel_time));
    let family_starts: Vec<&Candidate<P::State>> = pool
        .iter()
        .chain(&graveyard)
        .filter(|c| c.family.as_ref().is_some_and(|f| search.families || *f == settings.init))
        .collect();
    let families = family_starts.iter().map(|c| fresh.measure(c)).collect::<Result<Vec<_>>>()?;
    let (trials_run, core_seconds) = (race.trials_run + fresh.trials_run, race.core_seconds + fresh.core_seconds);
    progress(&format!(
        "done: {tried} candidates, {rounds} rounds, {trials_run} trials, {core_seconds:.1} core-seconds; slowest \
         {:.4} parallel time ({}) on fresh seeds",
        found[0].mean_parallel_time, found[0].description
    ));
    Ok(SearchResult {
        worst: found[0].clone(),
        top: found,
        families,
        candidates: tried as u64,
        trials_run,
        core_seconds,
        rounds,
        race_horizon: race.horizon,
    })
}

fn round_line<S>(round: usize, pool: &[Candidate<S>], trials: u64) -> String {
    format!(
        "round {round}: {} candidates, {trials} trials each; slowest {:.4} parallel time ({})",
        pool.len(),
        pool[0].mean(),
        pool[0].description
    )
}

/// Slowest mean first; ties keep their order (the candidates' order is deterministic).
fn sort_slowest_first<S>(pool: &mut [Candidate<S>]) {
    pool.sort_by(|a, b| b.mean().total_cmp(&a.mean()));
}

/// Trials of candidates under one horizon, counted.
struct Race<'a, P: Protocol> {
    protocol: &'a P,
    settings: &'a RunSettings,
    horizon: u128,
    trials_run: u64,
    core_seconds: f64,
    journal: &'a TrialJournal,
}

impl<P: Protocol> Race<'_, P> {
    /// Runs trials `c.times.len()..trials` of every candidate, in parallel; trial `i` of every
    /// candidate uses the same seed.
    fn run(&mut self, pool: &mut [Candidate<P::State>], trials: u64) -> Result<()> {
        let jobs: Vec<(usize, u64)> = pool
            .iter()
            .enumerate()
            .flat_map(|(c, cand)| (cand.times.len() as u64..trials).map(move |t| (c, t)))
            .collect();
        if jobs.is_empty() {
            return Ok(());
        }
        let inits: Vec<(InitSpec, u64)> = pool
            .iter()
            .map(|c| {
                let init = self.init_of(&c.agents);
                let hash = start_hash(&init);
                (init, hash)
            })
            .collect();
        let settings = RunSettings { seed: self.settings.seed ^ RACE_TAG, ..self.run_settings() };
        let results = experiment::in_parallel(self.settings.threads, jobs.len() as u64, &|| {}, |job| {
            let (c, t) = jobs[job as usize];
            let (init, hash) = &inits[c];
            self.timed_trial(&RunSettings { init: init.clone(), ..settings.clone() }, *hash, t)
        })?;
        for (&(c, _), timed) in jobs.iter().zip(results) {
            self.count(&timed);
            pool[c].times.push(self.parallel_time(&timed));
        }
        Ok(())
    }

    /// The spec's settings for a race: no faults, no trace or census, this horizon.
    fn run_settings(&self) -> RunSettings {
        RunSettings {
            max_steps: self.horizon,
            trace_every: None,
            census: false,
            faults: Vec::new(),
            trials: 1,
            ..self.settings.clone()
        }
    }

    fn init_of(&self, agents: &[P::State]) -> InitSpec {
        InitSpec::Explicit(agents.iter().map(|&s| state_to_json(self.protocol, s)).collect())
    }

    /// Trial `index` from the start `settings.init` (whose [`start_hash`] is `start`) and its
    /// processor time: read back from the journal, or run and recorded there.
    fn timed_trial(&self, settings: &RunSettings, start: u64, index: u64) -> Result<Timed> {
        let key = TrialKey::new(start, settings.seed, index, settings.max_steps);
        if let Some(timed) = self.journal.get(&key) {
            return Ok(timed);
        }
        let started = clock::thread_cpu_seconds();
        let engine = settings.engine_used(self.protocol)?;
        let record: TrialRecord =
            experiment::trial(self.protocol, settings, engine, index, &mut Series::default(), None)?;
        let seconds = clock::thread_cpu_seconds().zip(started).map_or(0.0, |(end, start)| end - start);
        let timed = Timed { steps: record.steps.0, censored: record.outcome == Outcome::Censored, seconds };
        self.journal.record(&trial_line(&key, &timed))?;
        Ok(timed)
    }

    fn count(&mut self, timed: &Timed) {
        self.trials_run += 1;
        self.core_seconds += timed.seconds;
    }

    /// A trial's parallel time (a censored one's at its horizon).
    fn parallel_time(&self, timed: &Timed) -> f64 {
        timed.steps as f64 / self.protocol.n() as f64
    }

    /// A re-measurement on fresh seeds, at the spec's own horizon (a race's is shorter).
    fn fresh(&self, trials: u64) -> Fresh<'_, P> {
        Fresh { race: self, trials, trials_run: 0, core_seconds: 0.0 }
    }
}

/// Re-measurements on fresh seeds.
struct Fresh<'a, P: Protocol> {
    race: &'a Race<'a, P>,
    trials: u64,
    trials_run: u64,
    core_seconds: f64,
}

impl<P: Protocol> Fresh<'_, P> {
    fn measure(&mut self, candidate: &Candidate<P::State>) -> Result<Found> {
        let race = self.race;
        let settings = RunSettings {
            seed: race.settings.seed ^ REMEASURE_TAG,
            init: candidate.family.clone().unwrap_or_else(|| race.init_of(&candidate.agents)),
            max_steps: race.settings.max_steps,
            ..race.run_settings()
        };
        let start = start_hash(&settings.init);
        let records = experiment::in_parallel(race.settings.threads, self.trials, &|| {}, |t| {
            race.timed_trial(&settings, start, t)
        })?;
        let times: Vec<f64> = records.iter().map(|r| race.parallel_time(r)).collect();
        let censored = records.iter().filter(|r| r.censored).count() as u64;
        self.trials_run += records.len() as u64;
        self.core_seconds += records.iter().map(|r| r.seconds).sum::<f64>();
        let m = mean(&times);
        Ok(Found {
            start: candidate.agents.iter().map(|&s| state_to_json(race.protocol, s)).collect(),
            description: candidate.description.clone(),
            selection_mean_parallel_time: candidate.mean(),
            mean_parallel_time: m,
            ci95: mean_ci95(&times).unwrap_or([m, m]),
            trials: self.trials,
            censored,
        })
    }
}

/// The spec's start, `default`, each named family, and the protocol's parameterized families.
fn initial_candidates<P: Protocol>(
    protocol: &P,
    settings: &RunSettings,
    rng: &mut PopRng,
) -> Result<Vec<Candidate<P::State>>> {
    let candidate = |description: String, agents: Vec<P::State>, family: Option<InitSpec>| Candidate {
        description,
        agents,
        times: Vec::new(),
        family,
    };
    // The spec's own start first: a family by its name, a file or counts as "the start given".
    let mut pool = Vec::new();
    let own = settings.init.build(protocol, rng)?;
    match &settings.init {
        InitSpec::Explicit(_) | InitSpec::Counts(_) => {
            pool.push(candidate(format!("the start given ({})", settings.init.name()), own, None));
        }
        named => pool.push(candidate(named.name(), own, Some(named.clone()))),
    }
    let mut named: Vec<InitSpec> = vec![InitSpec::Default];
    named.extend(protocol.info().families.iter().map(|f| InitSpec::from_name(f.name)));
    named.push(InitSpec::Random);
    for init in named.into_iter().filter(|init| *init != settings.init) {
        if let Ok(agents) = init.build(protocol, rng) {
            pool.push(candidate(init.name(), agents, Some(init)));
        }
    }
    // A second random configuration, raced (not re-measured) as one start.
    pool.push(candidate("a uniformly random configuration".into(), InitSpec::Random.build(protocol, rng)?, None));
    if let Some(configurations) = protocol.configurations() {
        for (description, agents) in configurations.search_candidates(rng) {
            if agents.len() == protocol.n() {
                pool.push(candidate(description, agents, None));
            }
        }
    }
    Ok(pool)
}

/// The states corners and mutations draw from: the listed state space when it is small, else the
/// states the candidates hold (at most [`STATE_POOL`], drawn evenly).
fn state_pool<P: Protocol>(protocol: &P, pool: &[Candidate<P::State>], rng: &mut PopRng) -> Vec<P::State> {
    if let Some(states) = protocol.configurations().and_then(|c| c.state_space()).filter(|s| s.len() <= STATE_POOL) {
        return states;
    }
    let mut seen = HashSet::new();
    let mut states: Vec<P::State> =
        pool.iter().flat_map(|c| c.agents.iter().copied()).filter(|s| seen.insert(*s)).collect();
    while states.len() > STATE_POOL {
        let drop = below_u64(rng, states.len() as u64) as usize;
        states.swap_remove(drop);
    }
    states
}

/// Every agent in one state (for up to 16 states), and for 8 pairs of states half and half or
/// one against the rest.
fn corners<S: Copy + PartialEq>(n: usize, states: &[S], rng: &mut PopRng) -> Vec<Candidate<S>> {
    let pick = |rng: &mut PopRng| below_u64(rng, states.len() as u64) as usize;
    let mut out = Vec::new();
    let singles: Vec<usize> =
        if states.len() <= 16 { (0..states.len()).collect() } else { (0..16).map(|_| pick(rng)).collect() };
    for i in singles {
        out.push(Candidate {
            description: format!("corner: every agent in state #{i}"),
            agents: vec![states[i]; n],
            times: Vec::new(),
            family: None,
        });
    }
    if states.len() >= 2 {
        for _ in 0..8 {
            let (a, b) = (pick(rng), pick(rng));
            if a == b {
                continue;
            }
            let mut half = vec![states[a]; n];
            half[n / 2..].fill(states[b]);
            out.push(Candidate {
                description: format!("edge: states #{a} and #{b} half and half"),
                agents: half,
                times: Vec::new(),
                family: None,
            });
            let mut one = vec![states[b]; n];
            one[0] = states[a];
            out.push(Candidate {
                description: format!("edge: one agent in state #{a}, the rest in #{b}"),
                agents: one,
                times: Vec::new(),
                family: None,
            });
        }
    }
    out
}

/// A mutation of `parent`: one variable of one agent set to a value another state has, k agents
/// of one state moved to another (k in 1, 2, n/10, n/2), or on a ring a segment set to one state,
/// or two neighbours swapped.
fn mutate<P: Protocol>(
    protocol: &P,
    parent: &Candidate<P::State>,
    states: &[P::State],
    graph: &Graph,
    rng: &mut PopRng,
) -> Candidate<P::State> {
    let n = parent.agents.len();
    let mut agents = parent.agents.clone();
    let target = states[below_u64(rng, states.len() as u64) as usize];
    // 0: a variable, 1: k agents moved, and on rings 2: a segment, 3: a swap.
    let kinds = if *graph == Graph::Complete { 2 } else { 4 };
    let what = match below_u64(rng, kinds) {
        0 => {
            let at = below_u64(rng, n as u64) as usize;
            let (mut object, other) = (state_to_json(protocol, agents[at]), state_to_json(protocol, target));
            let keys: Vec<&String> = other.keys().collect();
            let key = keys[below_u64(rng, keys.len() as u64) as usize].clone();
            object.insert(key.clone(), other[&key].clone());
            match state_from_json(protocol, &object) {
                Ok(state) => {
                    agents[at] = state;
                    format!("one agent's {key} changed")
                }
                Err(_) => {
                    agents[at] = target;
                    "one agent's state changed".to_string()
                }
            }
        }
        2 => {
            let len = 1 + below_u64(rng, (n / 4).max(1) as u64) as usize;
            let at = below_u64(rng, n as u64) as usize;
            for i in 0..len {
                agents[(at + i) % n] = target;
            }
            format!("a segment of {len} agents set to one state")
        }
        3 => {
            let at = below_u64(rng, n as u64) as usize;
            agents.swap(at, (at + 1) % n);
            "two neighbours swapped".to_string()
        }
        _ => {
            let source = agents[below_u64(rng, n as u64) as usize];
            let k = [1, 2, (n / 10).max(1), (n / 2).max(1)][below_u64(rng, 4) as usize];
            let mut moved = 0;
            for slot in agents.iter_mut().filter(|s| **s == source) {
                if moved == k {
                    break;
                }
                *slot = target;
                moved += 1;
            }
            format!("{moved} agents moved from one state to another")
        }
    };
    let base = parent.description.split(" + ").next().unwrap_or(&parent.description);
    let depth = parent.description.matches(" + ").count() + 1;
    Candidate {
        description: format!("{base} + {depth} mutation(s), the last: {what}"),
        agents,
        times: Vec::new(),
        family: None,
    }
}

/// Whether two agent vectors are the same start: as multisets on the complete graph.
fn same<S: Copy + PartialEq + std::hash::Hash + Eq>(a: &[S], b: &[S], graph: &Graph) -> bool {
    if *graph != Graph::Complete {
        return a == b;
    }
    let count = |v: &[S]| {
        let mut m = std::collections::HashMap::new();
        for s in v {
            *m.entry(*s).or_insert(0u64) += 1;
        }
        m
    };
    a.len() == b.len() && count(a) == count(b)
}

/// Drops repeated starts, keeping the first (a family before the same start found otherwise).
fn dedup<S: Copy + PartialEq + std::hash::Hash + Eq>(pool: &mut Vec<Candidate<S>>, graph: &Graph) {
    let mut kept: Vec<Candidate<S>> = Vec::with_capacity(pool.len());
    for candidate in pool.drain(..) {
        // Two families with the same configuration (`default` is `all-leaders`) stay apart: each is
        // reported; other repeats go.
        if candidate.family.is_some() || !kept.iter().any(|k| same(&k.agents, &candidate.agents, graph)) {
            kept.push(candidate);
        }
    }
    *pool = kept;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{RawSpec, RunSpec};

    fn ls_timer(threads: Option<usize>) -> RunSpec {
        RunSpec::resolve(&RawSpec { params: vec!["s=8".into()], threads, seed: 3, ..RawSpec::new("ls-timer", 6) })
            .unwrap()
    }

    fn small(candidates: u64) -> SearchSettings {
        SearchSettings { budget: Budget::Candidates(candidates), remeasure_trials: 20, ..SearchSettings::default() }
    }

    #[test]
    fn budgets_are_read_with_their_unit() {
        assert_eq!("60s".parse::<Budget>().unwrap(), Budget::CoreSeconds(60.0));
        assert_eq!("0.5s".parse::<Budget>().unwrap(), Budget::CoreSeconds(0.5));
        assert_eq!("200c".parse::<Budget>().unwrap(), Budget::Candidates(200));
        for bad in ["60", "0c", "-1s", "1e400s", "c", "5 c", "é"] {
            let error = bad.parse::<Budget>().unwrap_err().to_string();
            assert!(error.contains("--budget") && error.contains("60s"), "{bad}: {error}");
        }
        assert_eq!(Budget::Candidates(7).to_string().parse::<Budget>().unwrap(), Budget::Candidates(7));
    }

    #[test]
    fn the_same_seed_gives_the_same_search_at_any_thread_count() {
        let one = ls_timer(Some(1)).search(&small(16), &|_| {}).unwrap();
        let three = ls_timer(Some(3)).search(&small(16), &|_| {}).unwrap();
        let numbers = |r: &SearchResult| {
            (r.worst.clone(), r.top.clone(), r.families.clone(), r.candidates, r.trials_run, r.rounds, r.race_horizon)
        };
        assert_eq!(numbers(&one), numbers(&three));
        assert!(one.candidates <= 16);
    }

    #[test]
    fn the_slowest_found_is_at_least_as_slow_as_every_family() {
        let found = ls_timer(None).search(&small(24), &|_| {}).unwrap();
        assert!(found.families.iter().any(|f| f.description == "default"));
        for family in &found.families {
            // Both re-measured on the same fresh seeds: the slowest found is not below a family
            // by more than the noise of 20 trials (ls-timer's no-leader is its worst start here).
            assert!(
                found.worst.mean_parallel_time >= family.mean_parallel_time * 0.9,
                "{} {} against {} {}",
                found.worst.description,
                found.worst.mean_parallel_time,
                family.description,
                family.mean_parallel_time
            );
        }
        assert_eq!(found.worst.start.len(), 6);
        assert_eq!(found.worst.trials, 20);
    }

    #[test]
    fn a_search_run_again_from_its_journal_continues_to_the_same_result() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("search.journal");
        let settings = SearchSettings { journal: Some(path.clone()), ..small(16) };
        let whole = ls_timer(Some(2)).search(&settings, &|_| {}).unwrap();
        let lines = std::fs::read_to_string(&path).unwrap().lines().count() as u64;
        assert_eq!(lines, 1 + whole.trials_run);
        let numbers = |r: &SearchResult| {
            (r.worst.clone(), r.top.clone(), r.families.clone(), r.candidates, r.trials_run, r.rounds, r.race_horizon)
        };
        // Read back whole: the same result, and no trial ran again (none was appended).
        let text = std::fs::read_to_string(&path).unwrap();
        let replayed = ls_timer(Some(1)).search(&settings, &|_| {}).unwrap();
        assert_eq!(numbers(&replayed), numbers(&whole));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        // Killed halfway through a line: the rest runs again, to the same starts and means.
        std::fs::write(&path, &text[..text.len() / 2]).unwrap();
        let continued = ls_timer(Some(2)).search(&settings, &|_| {}).unwrap();
        assert_eq!(numbers(&continued), numbers(&whole));
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count() as u64, 1 + whole.trials_run);
        // The journal of another search is refused.
        let other = RunSpec::resolve(&RawSpec { params: vec!["s=8".into()], seed: 4, ..RawSpec::new("ls-timer", 6) });
        let error = other.unwrap().search(&settings, &|_| {}).unwrap_err().to_string();
        assert!(error.contains("not the journal of this computation"), "{error}");
    }

    #[test]
    fn a_holding_measure_and_too_few_trials_are_refused() {
        let holding = RunSpec::resolve(&RawSpec {
            params: vec!["s=8".into()],
            measure: Measure::Holding,
            ..RawSpec::new("ls-timer", 4)
        })
        .unwrap();
        let error = holding.search(&small(4), &|_| {}).unwrap_err().to_string();
        assert!(error.contains("drop --measure holding"), "{error}");
        let settings = SearchSettings { remeasure_trials: 1, ..small(4) };
        let error = ls_timer(None).search(&settings, &|_| {}).unwrap_err().to_string();
        assert!(error.contains("--trials"), "{error}");
    }

    #[test]
    fn a_core_seconds_budget_ends_the_first_round_early() {
        // A tiny budget: the first group of candidates runs, the rest are not raced.
        let settings = SearchSettings { budget: Budget::CoreSeconds(1e-9), ..small(0) };
        let found = ls_timer(Some(1)).search(&settings, &|_| {}).unwrap();
        assert!(found.candidates <= FIRST_ROUND_GROUP as u64, "{}", found.candidates);
        assert_eq!(found.rounds, 1);
    }
}
