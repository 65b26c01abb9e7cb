//! The command line's value parsers: numbers in every notation of `poplab::numbers`, checked
//! against each option's own range. `cli.rs` names them in its `value_parser`s; clap reports a
//! refusal as `--OPTION VALUE: reason` (see `main.rs`).

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use poplab::engine::TraceEvery;
use poplab::numbers;
use std::str::FromStr;

/// A value an option refused, saying what is wrong with it and what to write instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    /// Not a whole number, or beyond what the type holds (the library's wording: which notation,
    /// or the limit).
    #[error("{0}")]
    Number(String),
    /// A whole number beyond the option's own range.
    #[error("give from 1 to {max} {what}")]
    Range {
        /// The largest value the option takes.
        max: u128,
        /// What the option counts, plural (`worker threads`).
        what: &'static str,
    },
    /// `--trace-every`: neither a number of steps nor `event`.
    #[error("{0}, or `event` for a row per event")]
    TraceEvery(Box<ValueError>),
}

/// The values of a library enum as a parser of its names: which values there are, their order
/// and their names are the library's (`values`, `name`, `FromStr`), each value's help the command
/// line's (`help`).
pub fn choices<T>(
    values: impl IntoIterator<Item = T>,
    name: fn(&T) -> &'static str,
    help: fn(&T) -> &'static str,
) -> impl TypedValueParser<Value = T>
where
    T: FromStr<Err = poplab::Error> + Clone + Send + Sync + 'static,
{
    let values: Vec<PossibleValue> = values.into_iter().map(|v| PossibleValue::new(name(&v)).help(help(&v))).collect();
    PossibleValuesParser::new(values).map(|name| T::from_str(&name).expect("the library parses the names it gives"))
}

/// Parses a count such as `1000`, `1_000`, `10^5` or `1e5`.
pub fn parse_count(text: &str) -> Result<u64, ValueError> {
    numbers::parse_u64(text).map_err(ValueError::Number)
}

/// Parses a population size, written as for [`parse_count`], up to the engines' limit (2^62).
pub fn parse_n(text: &str) -> Result<u64, ValueError> {
    numbers::parse_at_most(text, u128::from(poplab::engine::MAX_AGENTS)).map(|n| n as u64).map_err(ValueError::Number)
}

/// Parses a number of steps, written as for [`parse_count`], up to `2^128 - 1`.
pub fn parse_steps(text: &str) -> Result<u128, ValueError> {
    numbers::parse_u128(text).map_err(ValueError::Number)
}

/// Parses `--trace-every`: `event`, or a number of steps written as for [`parse_steps`].
pub fn parse_trace_every(text: &str) -> Result<TraceEvery, ValueError> {
    if text == TraceEvery::EVENT {
        return Ok(TraceEvery::Event);
    }
    parse_steps(text).map(TraceEvery::Steps).map_err(|e| ValueError::TraceEvery(Box::new(e)))
}

/// Parses `--budget` (`60s` or `200c`) with the library's reading; the error is its reason alone
/// (the option and value are said by the caller).
pub fn parse_budget(text: &str) -> Result<poplab::search::Budget, String> {
    text.parse().map_err(|e| match e {
        poplab::Error::Option { reason, .. } => reason,
        other => other.to_string(),
    })
}

/// Parses `--time`: a finite number >= 0 (`1`, `0.5`, `1e3`).
pub fn parse_time(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(t) if t.is_finite() && t >= 0.0 => Ok(t),
        _ => Err(format!("a time >= 0 in the network's units, such as 1 or 0.5, not {text:?}")),
    }
}

/// Parses a thread count, written as for [`parse_count`], up to `MAX_THREADS`.
pub fn parse_threads(text: &str) -> Result<usize, ValueError> {
    parse_up_to(text, poplab::experiment::MAX_THREADS as u128, "worker threads").map(|v| v as usize)
}

/// Parses `--trials`, written as for [`parse_count`], up to `MAX_TRIALS`.
pub fn parse_trials(text: &str) -> Result<u64, ValueError> {
    parse_up_to(text, u128::from(poplab::experiment::MAX_TRIALS), "trials").map(|v| v as u64)
}

/// A count up to `max` (of `what`): a larger one, even beyond 128 bits, is refused with the
/// option's own range, not the type's.
fn parse_up_to(text: &str, max: u128, what: &'static str) -> Result<u128, ValueError> {
    let range = ValueError::Range { max, what };
    let value = numbers::parse_u128(text)
        .map_err(|e| if e.contains("too large") { range.clone() } else { ValueError::Number(e) })?;
    if value > max {
        return Err(range);
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_every_notation() {
        assert_eq!(parse_count("10^5"), Ok(100_000));
        assert_eq!(parse_threads("10^2"), Ok(100));
        assert!(parse_steps("2^128").unwrap_err().to_string().contains("at most 2^128 - 1"));
        assert_eq!(parse_steps("2^127"), Ok(1 << 127));
    }

    #[test]
    fn an_options_range_beats_the_types() {
        let max = poplab::experiment::MAX_THREADS as u128;
        assert_eq!(parse_threads("2^200"), Err(ValueError::Range { max, what: "worker threads" }));
        assert_eq!(parse_threads(&(max + 1).to_string()), Err(ValueError::Range { max, what: "worker threads" }));
        assert_eq!(
            parse_trace_every("often").unwrap_err().to_string(),
            "'often' is not a whole number (examples: 1000, 10^5, 1e5), or `event` for a row per event"
        );
    }
}
