//! One experiment spec, resolved once.
//!
//! Every way of running poplab (`run`, `sweep`, `exact`, `verify`, the reproduction, the bindings)
//! starts from a [`RawSpec`]: what the user typed, as text and numbers. [`RunSpec::resolve`]
//! decides everything once: it builds the protocol for `n` and its parameters, reads `@FILE`
//! inputs (with a size limit), picks the graph (the protocol's own when none is named) and the
//! initial configuration (a holding run starts from the protocol's `safe` family unless told
//! otherwise), resolves the engine, parses the faults and validates all of it, memory included.
//! A resolved spec then runs trials ([`RunSpec::run`], [`RunSpec::trial`]), an exact analysis
//! ([`RunSpec::exact`]) or a verification ([`RunSpec::verify`]), without deciding anything again.
//!
//! ```
//! use poplab::spec::{RawSpec, RunSpec};
//!
//! let raw = RawSpec { trials: 50, seed: 1, ..RawSpec::new("angluin", 20) };
//! let spec = RunSpec::resolve(&raw).unwrap();
//! let result = spec.run(&|| {}).unwrap();
//! // The exact expectation is (n - 1)^2 = 361 steps.
//! assert!((result.summary.mean_steps.unwrap() - 361.0).abs() < 80.0);
//! assert_eq!(spec.settings.engine.name(), "batched");
//! ```

use crate::checkpoint::TrialCheckpoint;
use crate::engine::{Engine, Fault, Measure, Series, TraceEvery, TraceSink};
use crate::error::{Error, Result};
use crate::exact::{ExactReport, StartTimes, Verification};
use crate::experiment::{self, RunSettings, Summary, TrialRecord};
use crate::files;
use crate::graph::Graph;
use crate::init::InitSpec;
use crate::protocol::{Output, Params, Protocol};
use crate::protocols::custom::Custom;
use crate::protocols::{ProtocolVisitor, with_protocol};
pub use crate::run::estimator::{Estimator, SplittingOptions};
use crate::run::runner::{Runner, Typed};
use crate::search::{SearchResult, SearchSettings};
use crate::splitting::{HoldingEstimate, SplittingSettings};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use smart_default::SmartDefault;
use std::path::Path;
use std::sync::Arc;

/// An experiment as the user gave it: names, `@FILE` references and numbers, not yet checked.
///
/// Fields are what the command line takes; start from [`RawSpec::new`] and set what differs.
/// ```
/// use poplab::spec::{RawSpec, RunSpec};
///
/// // poplab run threshold --n 500 --set k=10 --set f=12 --trials 50 --seed 1
/// let params = vec!["k=10".into(), "f=12".into()];
/// let raw = RawSpec { params, trials: 50, seed: 1, ..RawSpec::new("threshold", 500) };
/// let result = RunSpec::resolve(&raw)?.run(&|| {})?;
/// assert_eq!(result.summary.converged, 50); // all 500 agents answer yes: 12 >= 10
///
/// // poplab run angluin --n 100 --fault 5000:10:all-leaders --trials 20: ten agents become
/// // leaders again after 5000 steps, and every trial elects one leader afresh.
/// let faults = vec!["5000:10:all-leaders".into()];
/// let raw = RawSpec { faults, trials: 20, ..RawSpec::new("angluin", 100) };
/// let spec = RunSpec::resolve(&raw)?;
/// assert_eq!(spec.settings.engine.name(), "agents"); // faults hit agents by position
/// let result = spec.run(&|| {})?;
/// assert_eq!(result.summary.converged, 20);
/// assert!(result.records.iter().all(|r| r.steps.0 > 5000 && r.recovery_steps.is_some()));
///
/// // Input errors are refused before anything runs, with a message that names the fix.
/// let typo = RawSpec { params: vec!["kk=3".into()], ..RawSpec::new("threshold", 500) };
/// assert!(RunSpec::resolve(&typo).unwrap_err().to_string().contains("kk"));
/// let too_many = RawSpec { params: vec!["f=600".into()], ..RawSpec::new("threshold", 500) };
/// assert!(RunSpec::resolve(&too_many).is_err());
/// # Ok::<(), poplab::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, SmartDefault)]
#[serde(default)]
pub struct RawSpec {
    /// A protocol of the registry (`poplab list`).
    pub protocol: String,
    /// The population size.
    pub n: u64,
    /// Protocol parameters as `KEY=VALUE`.
    pub params: Vec<String>,
    /// `default`, `random`, a family name, `counts:STATE=COUNT,...` (user protocols), `@FILE.json`,
    /// or the JSON text itself when it starts with `[` or `{` (as the file would hold it: an array
    /// of agent states, or an object of counts by state name) (`None`: `default`, or `safe` for a
    /// holding run).
    pub init: Option<String>,
    /// What the trials measure.
    #[serde(with = "named")]
    pub measure: Measure,
    /// `complete`, `ring`, `undirected-ring` or `@FILE` (`None`: the protocol's own).
    pub graph: Option<String>,
    /// Independent trials (the splitting estimator's independent repetitions).
    #[default(1)]
    pub trials: u64,
    /// The master seed.
    pub seed: u64,
    /// The horizon in steps.
    #[default(experiment::DEFAULT_MAX_STEPS)]
    pub max_steps: u128,
    /// Count distinct states and demotion causes per trial.
    pub census: bool,
    /// Which engine runs them (`auto` is resolved).
    #[serde(with = "named")]
    pub engine: Engine,
    /// Faults as `STEP:K[:FAMILY]`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<String>,
    /// Record a time series every this many steps, or every event.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace_every: Option<TraceEvery>,
    /// Worker threads (`None`: one per core). Results do not depend on it, so it is not written
    /// (a resume gives its own).
    #[serde(skip_serializing)]
    pub threads: Option<usize>,
    /// How a holding time is measured: trials until the break, or the splitting estimator
    /// ([`RunSpec::estimate`]).
    #[serde(skip_serializing_if = "Estimator::is_direct")]
    pub estimator: Estimator,
}

impl RawSpec {
    /// The files this spec reads (`@FILE` for the protocol, `--init` and `--graph`), each with
    /// the option that names it.
    pub fn input_files(&self) -> Vec<(&'static str, &Path)> {
        [("PROTOCOL", Some(&self.protocol)), ("--init", self.init.as_ref()), ("--graph", self.graph.as_ref())]
            .into_iter()
            .filter_map(|(option, text)| Some((option, Path::new(text?.strip_prefix('@')?))))
            .collect()
    }

    /// `protocol` for `n` agents with every other setting at its default.
    pub fn new(protocol: &str, n: u64) -> Self {
        Self { protocol: protocol.to_string(), n, ..Self::default() }
    }

    /// The names of its fields as a file or Python gives them: the list its `Deserialize` reads
    /// (serde's own, so a new field is in it).
    ///
    /// ```
    /// use poplab::spec::RawSpec;
    ///
    /// let fields = RawSpec::field_names();
    /// assert_eq!(fields[..3], ["protocol", "n", "params"]);
    /// assert!(fields.contains(&"estimator"));
    /// ```
    pub fn field_names() -> &'static [&'static str] {
        fields::of::<RawSpec>()
    }
}

/// The field names of a struct, as its derived `Deserialize` asks for them.
mod fields {
    use serde::de::{self, Deserialize, Deserializer, Visitor};

    /// A deserializer that records the fields it is asked for and gives nothing.
    struct Spy<'a>(&'a mut &'static [&'static str]);

    impl<'de> Deserializer<'de> for Spy<'_> {
        type Error = de::value::Error;

        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("not a struct"))
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            *self.0 = fields;
            Err(de::Error::custom("only its fields are read"))
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
            unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
        }
    }

    /// The fields `T`'s `Deserialize` reads (none if it is not a struct).
    pub fn of<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
        let mut fields: &'static [&'static str] = &[];
        // The spy always refuses: what counts is what it recorded.
        let _ = T::deserialize(Spy(&mut fields));
        fields
    }
}

/// Serde of the enums a spec names by their names (`name()` and `FromStr`), so a file and the
/// command line spell them alike.
mod named {
    use crate::engine::{Engine, Measure};
    use crate::error::Error;
    use serde::{Deserialize, Deserializer, Serializer, de};

    pub trait Named: Copy + std::str::FromStr<Err = Error> {
        fn name(self) -> &'static str;
    }

    impl Named for Measure {
        fn name(self) -> &'static str {
            Measure::name(self)
        }
    }

    impl Named for Engine {
        fn name(self) -> &'static str {
            Engine::name(self)
        }
    }

    pub fn serialize<T: Named, S: Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(value.name())
    }

    pub fn deserialize<'de, T: Named, D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
        String::deserialize(deserializer)?.parse().map_err(de::Error::custom)
    }
}

/// An experiment resolved and validated: what runs, exactly.
#[derive(Clone)]
pub struct RunSpec {
    /// The protocol's registry name.
    pub protocol: String,
    /// The population size.
    pub n: usize,
    /// The effective parameters, derived constants included.
    pub params: Map<String, Value>,
    /// Everything else, with the graph, initial configuration and faults read and the engine
    /// resolved (never [`Engine::Auto`]).
    pub settings: RunSettings,
    /// Names of the protocol's own time-series columns.
    pub trace_columns: Vec<String>,
    /// How a holding time is measured ([`RunSpec::estimate`] for the splitting estimator).
    pub estimator: Estimator,
    runner: Arc<dyn Runner>,
}

impl std::fmt::Debug for RunSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunSpec")
            .field("protocol", &self.protocol)
            .field("n", &self.n)
            .field("params", &self.params)
            .field("settings", &self.settings)
            .field("estimator", &self.estimator)
            .finish_non_exhaustive()
    }
}

/// The trials of a run and their summary.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// What ran.
    pub spec: RunSpec,
    /// One record per trial, in index order.
    pub records: Vec<TrialRecord>,
    /// Their summary statistics.
    pub summary: Summary,
}

/// A splitting estimate of a run's expected holding time ([`RunSpec::estimate`]).
#[derive(Clone, Debug)]
pub struct EstimateResult {
    /// What ran.
    pub spec: RunSpec,
    /// The estimate with its interval.
    pub estimate: HoldingEstimate,
    /// Wall-clock seconds it took.
    pub wall_seconds: f64,
}

/// What a run measured, by its estimator ([`RunSpec::measure`]).
#[derive(Clone, Debug)]
pub enum Measured {
    /// Direct trials.
    Trials(RunResult),
    /// A splitting estimate.
    Estimate(EstimateResult),
}

/// Bytes an initial-configuration file may hold per agent (a state object with its keys).
const INIT_BYTES_PER_AGENT: u64 = 1024;
/// Bytes an arc-list line may take.
const ARC_LINE_BYTES: u64 = 64;

impl RunSpec {
    /// Resolves and validates `raw` (see the module docs).
    pub fn resolve(raw: &RawSpec) -> Result<Self> {
        let n = usize::try_from(raw.n)
            .map_err(|_| Error::PopulationSize { n: raw.n, reason: "too large for this machine".into() })?;
        let params = Params::parse(&raw.params)?;
        with_protocol(&raw.protocol, n, &params, Resolve { raw })?
    }

    /// Resolves and validates `raw` for a user protocol built at run time (a callback protocol,
    /// say, from the Python bindings) instead of the registry entry `raw.protocol` names: the
    /// protocol is taken for `raw.n` agents ([`Custom::with_n`], sharing its rules and memo), and
    /// everything else is resolved as [`RunSpec::resolve`] does. Such a protocol takes no
    /// parameters (`raw.params` must be empty).
    pub fn resolve_custom(raw: &RawSpec, protocol: &Custom) -> Result<Self> {
        let n = usize::try_from(raw.n)
            .map_err(|_| Error::PopulationSize { n: raw.n, reason: "too large for this machine".into() })?;
        let protocol = protocol.with_n(n)?;
        Params::parse(&raw.params)?.finish(protocol.info())?;
        Resolve { raw }.visit(protocol)
    }

    /// Trial `index`, its time series (if any) into `trace`.
    ///
    /// ```
    /// use poplab::engine::{Series, TraceEvery};
    /// use poplab::spec::{RawSpec, RunSpec};
    ///
    /// // Trial 3 of `poplab run angluin --n 100 --trace-every 1000 --seed 1`.
    /// let raw = RawSpec { trace_every: Some(TraceEvery::Steps(1000)), seed: 1, ..RawSpec::new("angluin", 100) };
    /// let spec = RunSpec::resolve(&raw)?;
    /// let mut series = Series::default();
    /// let record = spec.trial(3, &mut series)?;
    /// let series = series.points;
    /// assert_eq!(record.seed, poplab::rng::trial_seed(1, 3));
    /// // From 100 leaders at step 0 down to one at the trial's last step.
    /// assert_eq!((series[0].step, series[0].leaders), (0, 100));
    /// let last = series.last().unwrap();
    /// assert_eq!((last.step, last.leaders), (record.steps.0, 1));
    /// assert!(series.windows(2).all(|w| w[0].leaders >= w[1].leaders));
    /// # Ok::<(), poplab::Error>(())
    /// ```
    pub fn trial(&self, index: u64, trace: &mut dyn TraceSink) -> Result<TrialRecord> {
        self.runner.trial(&self.settings, index, trace, None)
    }

    /// The names and outputs of the protocol's states known so far, by number, for a protocol whose
    /// time series counts its states ([`Observables::counts_states`]; a user protocol), else
    /// empty. A callback protocol knows the states its runs met, so ask after the run.
    ///
    /// [`Observables::counts_states`]: crate::protocol::Observables::counts_states
    pub fn state_names(&self) -> Vec<(String, Output)> {
        self.runner.state_names()
    }

    /// Trial `index` under checkpoints ([`crate::checkpoint`]), its time series (if any) into
    /// `trace`.
    pub(crate) fn trial_checkpointed(
        &self,
        index: u64,
        trace: &mut dyn TraceSink,
        checkpoint: TrialCheckpoint<'_>,
    ) -> Result<TrialRecord> {
        self.runner.trial(&self.settings, index, trace, Some(checkpoint))
    }

    /// Runs every trial in parallel (time series kept in the records); `on_done` is called once
    /// per finished trial.
    pub fn run(&self, on_done: &(dyn Fn() + Sync)) -> Result<RunResult> {
        let records = self.run_records(on_done, |index| {
            let mut series = Series::default();
            Ok(self.trial(index, &mut series)?.with_series(series))
        })?;
        Ok(self.result(records))
    }

    pub(crate) fn run_records(
        &self,
        on_done: &(dyn Fn() + Sync),
        trial: impl Fn(u64) -> Result<TrialRecord> + Sync,
    ) -> Result<Vec<TrialRecord>> {
        experiment::in_parallel(self.settings.threads, self.settings.trials, on_done, trial)
    }

    pub(crate) fn result(&self, records: Vec<TrialRecord>) -> RunResult {
        let summary = Summary::of(&records, self.n);
        RunResult { spec: self.clone(), records, summary }
    }

    /// The exact expected steps from the initial configuration, exploring at most `max_configs`
    /// configurations: to the safe set ([`Measure::Convergence`]), or until an output changes from
    /// a safe start ([`Measure::Holding`], [`crate::exact::expected_holding_steps`]), as the spec's measure
    /// says; states of a trap come back as JSON objects.
    ///
    /// ```
    /// use poplab::engine::Measure;
    /// use poplab::exact::DEFAULT_MAX_CONFIGS;
    /// use poplab::spec::{RawSpec, RunSpec};
    ///
    /// // poplab exact angluin --n 30: (n - 1)^2 = 841 steps.
    /// let report = RunSpec::resolve(&RawSpec::new("angluin", 30))?.exact(DEFAULT_MAX_CONFIGS)?;
    /// assert!((report.expected_steps - 841.0).abs() < 1e-9);
    /// // poplab exact ls-timer --n 4 --set s=8 --measure holding (from the safe family)
    /// let holding = RawSpec { params: vec!["s=8".into()], measure: Measure::Holding, ..RawSpec::new("ls-timer", 4) };
    /// let report = RunSpec::resolve(&holding)?.exact(DEFAULT_MAX_CONFIGS)?;
    /// assert!((report.expected_steps - 64_431.72).abs() < 0.01);
    /// # Ok::<(), poplab::Error>(())
    /// ```
    pub fn exact(&self, max_configs: usize) -> Result<ExactReport<Map<String, Value>>> {
        if self.settings.init == InitSpec::Random {
            return Err(Error::Init(
                "exact analysis starts from one configuration, not a random one; give --init default, a family, \
                 or @FILE.json (or use poplab verify --from all)"
                    .into(),
            ));
        }
        self.check_exploration(max_configs)?;
        self.runner.exact(&self.settings, max_configs)
    }

    /// The exact expected steps to the safe set from every configuration of the protocol's state
    /// space (`poplab exact --from all`), exploring at most `max_configs` configurations: the
    /// worst start, the best, quantiles, and the value from each of the protocol's named families
    /// (and from the spec's own start, when it is given as a file or counts), so that a claim
    /// "from any configuration" can be read against its worst case.
    ///
    /// ```
    /// use poplab::exact::DEFAULT_MAX_CONFIGS;
    /// use poplab::spec::{RawSpec, RunSpec};
    ///
    /// // poplab exact prl --n 2 --from all: P_RL is self-stabilizing, so every start is finite.
    /// let times = RunSpec::resolve(&RawSpec::new("prl", 2))?.exact_from_every(DEFAULT_MAX_CONFIGS)?;
    /// assert_eq!((times.starts, times.infinite_starts), (5184, 0));
    /// let no_leader = times.named.iter().find(|(name, _)| name == "no-leader").unwrap().1.as_ref().unwrap();
    /// assert!(no_leader.expected_steps <= times.worst_steps());
    /// # Ok::<(), poplab::Error>(())
    /// ```
    pub fn exact_from_every(&self, max_configs: usize) -> Result<StartTimes<Map<String, Value>>> {
        if self.settings.measure != Measure::Convergence {
            return Err(Error::Conflict {
                reason: "--from all computes the expected steps to the safe set from every configuration; drop \
                         --measure holding (or give one safe start with --init)"
                    .into(),
            });
        }
        self.check_exploration(max_configs)?;
        self.runner.exact_every(&self.settings, max_configs)
    }

    /// Searches for the slowest start to the safe set (`poplab search`; see [`crate::search`]):
    /// the spec's start, the protocol's families and parameterized families, corners and
    /// mutations raced on common seeds within the budget, the slowest few re-measured on fresh
    /// seeds; `progress` gets a line per round.
    ///
    /// ```
    /// use poplab::search::{Budget, SearchSettings};
    /// use poplab::spec::{RawSpec, RunSpec};
    ///
    /// // poplab search ls-timer --n 4 --set s=6 --budget 12c --trials 10
    /// let spec = RunSpec::resolve(&RawSpec { params: vec!["s=6".into()], ..RawSpec::new("ls-timer", 4) })?;
    /// let settings = SearchSettings { budget: Budget::Candidates(12), remeasure_trials: 10, ..Default::default() };
    /// let found = spec.search(&settings, &|_| {})?;
    /// assert_eq!(found.worst.start.len(), 4);
    /// assert!(found.candidates <= 12 && found.worst.trials == 10);
    /// # Ok::<(), poplab::Error>(())
    /// ```
    pub fn search(&self, settings: &SearchSettings, progress: &(dyn Fn(&str) + Sync)) -> Result<SearchResult> {
        self.runner.search(&self.settings, settings, progress)
    }

    /// Checks closure, safety and convergence from the initial configuration, or from every
    /// configuration (`from_all`), exploring at most `max_configs` configurations.
    ///
    /// ```
    /// use poplab::exact::DEFAULT_MAX_CONFIGS;
    /// use poplab::spec::{RawSpec, RunSpec};
    ///
    /// // poplab verify prl --n 2 --from all: self-stabilizing, so from every configuration.
    /// let verification = RunSpec::resolve(&RawSpec::new("prl", 2))?.verify(true, DEFAULT_MAX_CONFIGS)?;
    /// assert!(verification.passed() && verification.configurations == 5184);
    /// // angluin is not: from no leader at all it never elects one.
    /// let angluin = RunSpec::resolve(&RawSpec::new("angluin", 5))?.verify(true, DEFAULT_MAX_CONFIGS)?;
    /// assert!(!angluin.convergence.passed);
    /// # Ok::<(), poplab::Error>(())
    /// ```
    pub fn verify(&self, from_all: bool, max_configs: usize) -> Result<Verification<Map<String, Value>>> {
        if !from_all && self.settings.init == InitSpec::Random {
            return Err(Error::Init(
                "--from random is not a set of configurations; use --from all to start from every configuration".into(),
            ));
        }
        self.check_exploration(max_configs)?;
        self.runner.verify(&self.settings, from_all, max_configs)
    }

    /// Runs the spec by its estimator: its trials ([`RunSpec::run`]) or the splitting estimate
    /// ([`RunSpec::estimate`], without a journal). The one place that chooses between them for a
    /// run: the command line's `run` and Python's `poplab.run` call it; `done` is called as each
    /// trial or repetition finishes.
    pub fn measure(&self, done: &(dyn Fn() + Sync)) -> Result<Measured> {
        match self.estimator {
            Estimator::Direct => self.run(done).map(Measured::Trials),
            Estimator::Splitting(_) => self.estimate(done, None).map(Measured::Estimate),
        }
    }

    /// Estimates the expected holding time from the spec's (safe) initial configuration by the
    /// splitting estimator ([`crate::splitting`]) its [`Estimator::Splitting`] options describe, on
    /// the agent-array engine whatever the spec's engine: the spec's trials are the estimator's
    /// independent repetitions, its seed and threads the estimator's; `done` is called as each
    /// repetition finishes; with a `journal` file the repetitions are written there as they
    /// finish, and an estimate run again with it continues where it stopped
    /// ([`estimate_holding`](crate::splitting::estimate_holding)).
    pub fn estimate(&self, done: &(dyn Fn() + Sync), journal: Option<&Path>) -> Result<EstimateResult> {
        let Estimator::Splitting(options) = &self.estimator else {
            return Err(Error::Conflict {
                reason: "this run measures by direct simulation; give --estimator splitting".into(),
            });
        };
        if self.settings.measure != Measure::Holding {
            return Err(Error::Conflict {
                reason: "the splitting estimator estimates holding times; give --measure holding".into(),
            });
        }
        if self.settings.init == InitSpec::Random {
            return Err(Error::Init(
                "the splitting estimator starts from one safe configuration, not a random one; give --init safe, \
                 a family or @FILE.json"
                    .into(),
            ));
        }
        let offered = self.runner.holding_scores();
        if offered.is_empty() {
            return Err(Error::Conflict {
                reason: format!(
                    "{} has no holding score, so the splitting estimator is not available for it; use direct \
                     simulation",
                    self.protocol
                ),
            });
        }
        let score = match &options.score {
            None => 0,
            Some(name) => offered.iter().position(|offer| *offer == name.as_str()).ok_or_else(|| Error::Option {
                option: "--score",
                value: name.clone(),
                reason: format!("{} offers {}", self.protocol, offered.join(", ")),
            })?,
        };
        let splitting = SplittingSettings {
            replicas: usize::try_from(options.replicas).unwrap_or(usize::MAX),
            cycles: options.cycles,
            base_level: options.base_level,
            repetitions: self.settings.trials,
            seed: self.settings.seed,
            threads: self.settings.threads,
            score,
            ..SplittingSettings::default()
        };
        let started = std::time::Instant::now();
        let estimate = self.runner.estimate(&self.settings, &splitting, done, journal)?;
        Ok(EstimateResult { spec: self.clone(), estimate, wall_seconds: started.elapsed().as_secs_f64() })
    }

    /// Refuses an exploration whose cap could not fit in memory: every configuration takes about
    /// [`EXPLORATION_BYTES_PER_AGENT`] bytes per agent (its state indices, kept in the index, the
    /// queue and the solver's rows; measured: angluin at n = 7,000 used 137 kB per configuration)
    /// and [`EXPLORATION_BYTES_PER_CONFIG`] of bookkeeping, up to [`EXPLORATION_GROWTH`] times
    /// that while its tables grow. A suggested cap keeps a tenth of the memory spare, so that it
    /// runs (rather than being refused again) when a little less is available the next time.
    fn check_exploration(&self, max_configs: usize) -> Result<()> {
        let per_config =
            (EXPLORATION_BYTES_PER_AGENT * self.n as u128 + EXPLORATION_BYTES_PER_CONFIG) * EXPLORATION_GROWTH;
        let available = u128::from(files::available_memory());
        if per_config > available {
            return Err(Error::Memory(format!(
                "exact analysis of n = {} agents keeps each configuration as n state indices: one takes about {}, more \
                 than the {} of memory available; lower n",
                self.n,
                files::gigabytes(per_config),
                files::gigabytes(available)
            )));
        }
        if per_config * max_configs as u128 > available {
            let fits = (available / 10 * 9 / per_config).max(1);
            if fits < 1000 {
                return Err(Error::Memory(format!(
                    "exact analysis of n = {} agents: 1000 configurations alone would take {} of the {} of memory \
                     available (about {} bytes each); exact analysis is for small populations, lower n",
                    self.n,
                    files::gigabytes(per_config * 1000),
                    files::gigabytes(available),
                    per_config
                )));
            }
            return Err(Error::Memory(format!(
                "exact analysis keeps up to --max-configs {max_configs} configurations of n = {} agents, about {} \
                 bytes each ({} in all), but {} of memory are available; give --max-configs {fits} or less, or \
                 lower n",
                self.n,
                per_config,
                files::gigabytes(per_config * max_configs as u128),
                files::gigabytes(available)
            )));
        }
        Ok(())
    }
}

/// Resolves a raw spec against the protocol the registry built.
struct Resolve<'a> {
    raw: &'a RawSpec,
}

impl ProtocolVisitor for Resolve<'_> {
    type Output = Result<RunSpec>;

    fn visit<P: Protocol + Clone + 'static>(self, protocol: P) -> Result<RunSpec> {
        let raw = self.raw;
        let n = protocol.n();
        let graph = match raw.graph.as_deref() {
            None => protocol.hints().default_graph(),
            Some(text) => read_graph(text, n)?,
        };
        let init_text = raw.init.clone().unwrap_or_else(|| default_init(raw.measure).to_string());
        if raw.init.is_none()
            && raw.measure == Measure::Holding
            && !protocol.info().families.iter().any(|f| f.name == "safe")
        {
            return Err(Error::Init(format!(
                "{} has no safe start family, so a holding run needs --init: a safe configuration, as a family \
                 or @FILE.json",
                protocol.info().name
            )));
        }
        let init = read_init(&init_text, n)?;
        let faults = raw.faults.iter().map(|f| f.parse::<Fault>()).collect::<Result<Vec<_>>>()?;
        let mut settings = RunSettings {
            measure: raw.measure,
            graph,
            init,
            trials: raw.trials,
            seed: raw.seed,
            max_steps: protocol.hints().horizon.map_or(raw.max_steps, |h| h.min(raw.max_steps)),
            threads: raw.threads,
            faults,
            trace_every: raw.trace_every,
            census: raw.census,
            engine: raw.engine,
        };
        settings.engine = experiment::validate(&protocol, &settings)?;
        Ok(RunSpec {
            protocol: protocol.info().name.to_string(),
            n,
            params: protocol.params(),
            settings,
            trace_columns: crate::protocol::trace_columns(&protocol).iter().map(|c| c.to_string()).collect(),
            estimator: raw.estimator.clone(),
            runner: Arc::new(Typed(protocol)),
        })
    }
}

/// The initial configuration when none is named: `default`, or `safe` for a holding run.
pub fn default_init(measure: Measure) -> &'static str {
    match measure {
        Measure::Convergence => "default",
        Measure::Holding => "safe",
    }
}

/// A graph by name, or `@FILE` with one arc `u v` per line (at most 64 bytes per possible arc),
/// for `n` agents.
pub fn read_graph(text: &str, n: usize) -> Result<Graph> {
    match text.strip_prefix('@') {
        None => text.parse(),
        Some(path) => {
            let pairs = (n as u64).saturating_mul((n as u64).saturating_sub(1)).max(1);
            let limit = pairs.saturating_mul(ARC_LINE_BYTES).saturating_add(4096).min(1 << 32);
            let contents =
                files::read_limited(Path::new(path), "arc list", limit, &format!("the arcs of {n} agents can take"))?;
            Graph::parse_arcs(&contents).map_err(|e| match e {
                Error::Graph(reason) => Error::Graph(format!("arc list '{path}': {reason}")),
                other => other,
            })
        }
    }
}

/// An initial configuration by name, `@FILE.json` (at most 1 kB per agent), or JSON text.
fn read_init(text: &str, n: usize) -> Result<InitSpec> {
    if text.starts_with(['[', '{']) {
        return InitSpec::from_json(text);
    }
    match text.strip_prefix('@') {
        None => text.parse(),
        Some(path) => {
            let limit = (n as u64).saturating_mul(INIT_BYTES_PER_AGENT).saturating_add(4096);
            let contents = files::read_limited(
                Path::new(path),
                "initial configuration",
                limit,
                &format!("{n} agent states can take"),
            )?;
            InitSpec::from_json(&contents).map_err(|e| match e {
                Error::Init(reason) => Error::Init(format!("'{path}': {reason}")),
                other => other,
            })
        }
    }
}

/// Memory an exploration takes per agent of each configuration it keeps, in bytes.
pub const EXPLORATION_BYTES_PER_AGENT: u128 = 20;
/// Memory an exploration takes per configuration besides its agents, in bytes.
pub const EXPLORATION_BYTES_PER_CONFIG: u128 = 256;
/// How many times its measured size an exploration may take at its peak: its tables grow by
/// doubling, and the solver adds its own (angluin at n = 10,000 under a 2.3 GB address-space
/// limit aborted at 7,000 configurations, 1.6 times the measured size).
pub const EXPLORATION_GROWTH: u128 = 2;
