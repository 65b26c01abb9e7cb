//! Reading user input that lives outside the argument list (files), and telling input errors
//! (exit code 2) from failures of the machine (exit code 1).

use anyhow::{Context, Result};
use poplab::graph::Graph;
use poplab::init::InitSpec;
use std::path::Path;

/// An error in what the user typed or gave us: the fix is on their side.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InputError(pub String);

/// Whether `error` comes from user input (a library error, or an [`InputError`]).
pub fn is_input_error(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| cause.is::<poplab::Error>() || cause.is::<InputError>())
}

/// Reads a file the user named, as an input error if it cannot be read.
pub fn read_user_file(path: &Path, what: &str) -> Result<String> {
    std::fs::read_to_string(path)
        .map_err(|e| InputError(format!("cannot read {what} '{}': {e}", path.display())))
        .context("reading input")
}

/// A graph named on the command line: a name, or `@FILE` with one arc `u v` per line.
pub fn parse_graph(spec: &str) -> Result<Graph> {
    match spec.strip_prefix('@') {
        Some(path) => Ok(Graph::parse_arcs(&read_user_file(Path::new(path), "arc list")?)
            .with_context(|| format!("in arc list '{path}'"))?),
        None => Ok(Graph::from_name(spec)?),
    }
}

/// An initial configuration named on the command line: a name, or `@FILE.json`.
pub fn parse_init(spec: &str) -> Result<InitSpec> {
    match spec.strip_prefix('@') {
        Some(path) => Ok(InitSpec::from_json(&read_user_file(Path::new(path), "initial configuration")?)
            .with_context(|| format!("in '{path}'"))?),
        None => Ok(InitSpec::from_name(spec)),
    }
}

/// Parses a count such as `1000`, `1_000`, `10^5` or `1e5`.
pub fn parse_count(text: &str) -> Result<u64, String> {
    u64::try_from(parse_steps(text)?).map_err(|_| format!("'{text}' is too large (at most {})", u64::MAX))
}

/// Parses a number of steps, written as for [`parse_count`], up to `u128::MAX` (angluin needs
/// `(n-1)^2` expected steps, beyond 64 bits from `n` of about `4.3 * 10^9` on).
pub fn parse_steps(text: &str) -> Result<u128, String> {
    let plain = text.replace('_', "");
    let bad = || format!("'{text}' is not a whole number (examples: 1000, 10^5, 1e5)");
    let too_large = || format!("'{text}' is too large");
    if let Some((base, exponent)) = plain.split_once('^') {
        let base: u128 = base.parse().map_err(|_| bad())?;
        let exponent: u32 = exponent.parse().map_err(|_| bad())?;
        base.checked_pow(exponent).ok_or_else(too_large)
    } else if let Some((mantissa, exponent)) = plain.split_once(['e', 'E']) {
        let exponent: u32 = exponent.parse().map_err(|_| bad())?;
        let mantissa: u128 = mantissa.parse().map_err(|_| bad())?;
        10u128.checked_pow(exponent).and_then(|p| p.checked_mul(mantissa)).ok_or_else(too_large)
    } else {
        plain.parse().map_err(|_| bad())
    }
}

/// A list of values: `a,b,c`, or an integer range `START..END` (inclusive) stepping by `+D`
/// (default `+1`) or multiplying by `*F`, e.g. `8..64*2` or `10^2..10^5*10`.
pub fn parse_values(text: &str) -> Result<Vec<String>, InputError> {
    let bad = |why: String| InputError(format!("'{text}': {why}; write a,b,c or START..END[*F|+D]"));
    let Some((start, rest)) = text.split_once("..") else {
        let values: Vec<String> = text.split(',').map(|v| v.trim().to_string()).collect();
        return if values.iter().any(String::is_empty) { Err(bad("an empty value".into())) } else { Ok(values) };
    };
    let (end, step) = match rest.find(['*', '+']) {
        Some(at) => (&rest[..at], &rest[at..]),
        None => (rest, "+1"),
    };
    let start = parse_count(start).map_err(bad)?;
    let end = parse_count(end).map_err(bad)?;
    let by = parse_count(&step[1..]).map_err(bad)?;
    let multiply = step.starts_with('*');
    if (multiply && by < 2) || by == 0 || start == 0 && multiply || start > end {
        return Err(bad("the range never reaches its end".into()));
    }
    let mut values = Vec::new();
    let mut value = start;
    while value <= end {
        if values.len() >= 100_000 {
            return Err(bad("more than 100000 values".into()));
        }
        values.push(value.to_string());
        value = if multiply { value.saturating_mul(by) } else { value.saturating_add(by) };
        if value == u64::MAX {
            break;
        }
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_in_every_notation() {
        assert_eq!(parse_count("1000"), Ok(1000));
        assert_eq!(parse_count("1_000"), Ok(1000));
        assert_eq!(parse_count("10^5"), Ok(100_000));
        assert_eq!(parse_count("2e3"), Ok(2000));
        assert!(parse_count("1.5").is_err());
        assert!(parse_count("10^30").is_err());
        assert_eq!(parse_steps("10^30"), Ok(10u128.pow(30)));
        assert_eq!(parse_steps("2e20"), Ok(200_000_000_000_000_000_000));
        assert!(parse_steps("10^39").is_err());
        assert!(parse_count("-3").is_err());
    }

    #[test]
    fn value_lists_and_ranges() {
        assert_eq!(parse_values("1,2.5, x").unwrap(), ["1", "2.5", "x"]);
        assert_eq!(parse_values("8..64*2").unwrap(), ["8", "16", "32", "64"]);
        assert_eq!(parse_values("10^2..10^4*10").unwrap(), ["100", "1000", "10000"]);
        assert_eq!(parse_values("1..7+3").unwrap(), ["1", "4", "7"]);
        assert_eq!(parse_values("3..5").unwrap(), ["3", "4", "5"]);
        assert!(parse_values("5..3").is_err());
        assert!(parse_values("1..9*1").is_err());
        assert!(parse_values("1,,2").is_err());
    }
}
