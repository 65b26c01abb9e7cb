//! From arguments to a raw experiment spec, and telling input errors (exit code 2) from failures
//! of the machine (exit code 1).

use crate::cli::{ControlArgs, ShardArgs, SplittingArgs, TargetArgs, TrialArgs};
use crate::parse::parse_n;
use poplab::engine::Engine;
use poplab::spec::{Estimator, RawSpec, SplittingOptions};
use poplab::sweep::Shard;

/// An error in what the user typed or gave us: the fix is on their side.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InputError(pub String);

/// Whether `error` comes from user input (a library error other than a failure of the machine,
/// or an [`InputError`]).
pub fn is_input_error(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause.downcast_ref::<poplab::Error>().is_some_and(|e| !matches!(e.innermost(), poplab::Error::Io(_)))
            || cause.is::<InputError>()
    })
}

/// Whether `error` is a write into a closed pipe (`poplab run --csv | head -1`): not a failure.
pub fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error
        .chain()
        .any(|cause| cause.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe))
}

impl TargetArgs {
    /// The protocol name, required.
    pub fn protocol(&self, command: &str) -> Result<String, InputError> {
        self.protocol
            .clone()
            .ok_or_else(|| InputError(format!("name the protocol, for example `poplab {command} angluin --n 100`")))
    }

    /// `--n` as the text given, required.
    pub fn n_text(&self, command: &str) -> Result<&str, InputError> {
        self.n.as_deref().ok_or_else(|| {
            InputError(format!("give the population size with --n, for example `poplab {command} angluin --n 100`"))
        })
    }

    /// The raw spec of one population size (`run`, `exact`, `verify`).
    pub fn raw(&self, command: &str) -> Result<RawSpec, InputError> {
        let text = self.n_text(command)?;
        let n = parse_n(text).map_err(|e| {
            let hint =
                if text.contains(',') || text.contains("..") { " (a list of sizes is for poplab sweep)" } else { "" };
            InputError(format!("--n: {e}{hint}"))
        })?;
        let mut raw = RawSpec::new(&self.protocol(command)?, n);
        raw.params = self.set.clone();
        raw.graph = self.graph.clone();
        Ok(raw)
    }
}

impl ShardArgs {
    /// The part of a sweep to run (`None`: all of it).
    pub fn shard(&self) -> Result<Option<Shard>, poplab::Error> {
        match (&self.shard, self.shard_from_env) {
            (Some(text), _) => Shard::parse(text, self.pack).map(Some),
            (None, true) => Shard::from_slurm(|name| std::env::var(name).ok(), self.pack).map(Some),
            (None, false) if self.pack != 1 => {
                Err(poplab::Error::Conflict { reason: "--pack goes with --shard or --shard-from-env".into() })
            }
            (None, false) => Ok(None),
        }
    }
}

impl ControlArgs {
    /// Sets the seed, horizon, engine and threads given on `raw`; returns the options given that
    /// would change an experiment (all but `--threads`), as typed.
    pub fn apply(&self, raw: &mut RawSpec) -> Vec<&'static str> {
        let mut given = Vec::new();
        if let Some(seed) = self.seed {
            raw.seed = seed;
            given.push("--seed");
        }
        if let Some(max_steps) = self.max_steps {
            raw.max_steps = max_steps;
            given.push("--max-steps");
        }
        if let Some(engine) = self.engine {
            raw.engine = engine;
            given.push("--engine");
        }
        raw.threads = self.threads;
        given
    }
}

impl TrialArgs {
    /// Sets the options given on `raw` (the others keep its defaults; `--trials` defaults to the
    /// estimator's repetitions) and returns their names as typed, but `--threads` (it changes no
    /// result, so a resume may give it).
    pub fn apply(&self, raw: &mut RawSpec) -> Result<Vec<&'static str>, InputError> {
        self.splitting.check(self.control.engine)?;
        raw.estimator = self.splitting.estimator();
        let mut given = Vec::new();
        if let Some(init) = &self.init {
            raw.init = Some(init.clone());
            given.push("--init");
        }
        if let Some(measure) = self.measure {
            raw.measure = measure;
            given.push("--measure");
        }
        raw.trials = self.trials.unwrap_or(raw.estimator.default_trials(raw.trials));
        given.extend(self.trials.map(|_| "--trials"));
        given.extend(self.control.apply(raw));
        if self.census {
            raw.census = true;
            given.push("--census");
        }
        if self.splitting.estimator.is_some() {
            given.push("--estimator");
        }
        Ok(given)
    }

    /// The options given that would change an experiment (all but `--threads`), as typed.
    pub fn given(&self) -> Result<Vec<&'static str>, InputError> {
        self.apply(&mut RawSpec::default())
    }
}

impl SplittingArgs {
    /// Whether the splitting estimator was asked for.
    pub fn splitting(&self) -> bool {
        matches!(self.estimator, Some(Estimator::Splitting(_)))
    }

    /// Refuses the splitting estimator's settings without it, and an engine it does not run on:
    /// it reads the score after every interaction, on the agent array, so `--engine counts` or
    /// `batched` would be ignored.
    pub fn check(&self, engine: Option<Engine>) -> Result<(), InputError> {
        let given: Vec<&str> = [
            ("--replicas", self.replicas.is_some()),
            ("--cycles", self.cycles.is_some()),
            ("--score", self.score.is_some()),
            ("--base-level", self.base_level.is_some()),
        ]
        .into_iter()
        .filter_map(|(name, given)| given.then_some(name))
        .collect();
        if !self.splitting() && !given.is_empty() {
            return Err(InputError(format!(
                "{} set the splitting estimator: give --estimator splitting with them, or drop them",
                given.join(", ")
            )));
        }
        match engine {
            Some(engine @ (Engine::Counts | Engine::Batched)) if self.splitting() => Err(InputError(format!(
                "--estimator splitting runs on the agent array (it reads the holding score after every \
                     interaction), not on --engine {}; drop --engine or give --engine agents",
                engine.name()
            ))),
            _ => Ok(()),
        }
    }

    /// The estimator asked for.
    pub fn estimator(&self) -> Estimator {
        match &self.estimator {
            Some(Estimator::Splitting(defaults)) => Estimator::Splitting(SplittingOptions {
                replicas: self.replicas.unwrap_or(defaults.replicas),
                cycles: self.cycles.unwrap_or(defaults.cycles),
                score: self.score.clone(),
                base_level: self.base_level,
            }),
            _ => Estimator::Direct,
        }
    }
}
