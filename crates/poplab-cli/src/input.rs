//! From arguments to a raw experiment spec, and telling input errors (exit code 2) from failures
//! of the machine (exit code 1).

use crate::cli::{ShardArgs, TargetArgs, TrialArgs};
use poplab::engine::TraceEvery;
use poplab::numbers;
use poplab::spec::RawSpec;
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

/// Parses a count such as `1000`, `1_000`, `10^5` or `1e5`.
pub fn parse_count(text: &str) -> Result<u64, String> {
    numbers::parse_u64(text)
}

/// Parses a population size, written as for [`parse_count`], up to the engines' limit (2^62).
pub fn parse_n(text: &str) -> Result<u64, String> {
    numbers::parse_at_most(text, u128::from(poplab::engine::MAX_AGENTS)).map(|n| n as u64)
}

/// Parses a number of steps, written as for [`parse_count`], up to `2^128 - 1`.
pub fn parse_steps(text: &str) -> Result<u128, String> {
    numbers::parse_u128(text)
}

/// Parses `--trace-every`: `event`, or a number of steps written as for [`parse_steps`].
pub fn parse_trace_every(text: &str) -> Result<TraceEvery, String> {
    if text == TraceEvery::EVENT {
        return Ok(TraceEvery::Event);
    }
    parse_steps(text).map(TraceEvery::Steps).map_err(|e| format!("{e}, or `event` for a row per event"))
}

/// Parses a thread count, written as for [`parse_count`], up to `MAX_THREADS`.
pub fn parse_threads(text: &str) -> Result<usize, String> {
    parse_up_to(text, poplab::experiment::MAX_THREADS as u128, "worker threads").map(|v| v as usize)
}

/// Parses `--trials`, written as for [`parse_count`], up to `MAX_TRIALS`.
pub fn parse_trials(text: &str) -> Result<u64, String> {
    parse_up_to(text, u128::from(poplab::experiment::MAX_TRIALS), "trials").map(|v| v as u64)
}

/// A count up to `max` (of `what`): a larger one, even beyond 128 bits, is refused with the
/// option's own range, not the type's.
fn parse_up_to(text: &str, max: u128, what: &str) -> Result<u128, String> {
    let range = || format!("give from 1 to {max} {what}");
    let value = numbers::parse_u128(text).map_err(|e| if e.contains("too large") { range() } else { e })?;
    if value > max {
        return Err(range());
    }
    Ok(value)
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

impl TrialArgs {
    /// Sets the options given on `raw` (the others keep its defaults; `--trials` defaults to the
    /// estimator's repetitions) and returns their names as typed, but `--threads` (it changes no
    /// result, so a resume may give it).
    pub fn apply(&self, raw: &mut RawSpec) -> Result<Vec<&'static str>, InputError> {
        self.splitting.check(self.engine)?;
        raw.estimator = self.splitting.estimator();
        let mut given = Vec::new();
        if let Some(init) = &self.init {
            raw.init = Some(init.clone());
            given.push("--init");
        }
        if let Some(measure) = self.measure {
            raw.measure = measure.into();
            given.push("--measure");
        }
        raw.trials = self.trials.unwrap_or(raw.estimator.default_trials(raw.trials));
        given.extend(self.trials.map(|_| "--trials"));
        if let Some(seed) = self.seed {
            raw.seed = seed;
            given.push("--seed");
        }
        if let Some(max_steps) = self.max_steps {
            raw.max_steps = max_steps;
            given.push("--max-steps");
        }
        if let Some(engine) = self.engine {
            raw.engine = engine.into();
            given.push("--engine");
        }
        if self.census {
            raw.census = true;
            given.push("--census");
        }
        if self.splitting.estimator.is_some() {
            given.push("--estimator");
        }
        raw.threads = self.threads;
        Ok(given)
    }

    /// The options given that would change an experiment (all but `--threads`), as typed.
    pub fn given(&self) -> Result<Vec<&'static str>, InputError> {
        self.apply(&mut RawSpec::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_every_notation() {
        assert_eq!(parse_count("10^5"), Ok(100_000));
        assert_eq!(parse_threads("10^2"), Ok(100));
        assert!(parse_steps("2^128").unwrap_err().contains("at most 2^128 - 1"));
        assert_eq!(parse_steps("2^127"), Ok(1 << 127));
    }
}
