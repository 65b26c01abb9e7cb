//! Reading user input that lives outside the argument list (files), and telling input errors
//! (exit code 2) from failures of the machine (exit code 1).

use anyhow::{Context, Result};
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

/// Parses a count such as `1000`, `1_000`, `10^5` or `1e5`.
pub fn parse_count(text: &str) -> Result<u64, String> {
    let plain = text.replace('_', "");
    let bad = || format!("'{text}' is not a whole number (examples: 1000, 10^5, 1e5)");
    let power = |base: &str, exponent: &str| -> Result<u64, String> {
        let base: u64 = base.parse().map_err(|_| bad())?;
        let exponent: u32 = exponent.parse().map_err(|_| bad())?;
        base.checked_pow(exponent).ok_or_else(|| format!("'{text}' is too large"))
    };
    if let Some((base, exponent)) = plain.split_once('^') {
        power(base, exponent)
    } else if let Some((mantissa, exponent)) = plain.split_once(['e', 'E']) {
        let exponent: u32 = exponent.parse().map_err(|_| bad())?;
        let mantissa: u64 = mantissa.parse().map_err(|_| bad())?;
        10u64
            .checked_pow(exponent)
            .and_then(|p| p.checked_mul(mantissa))
            .ok_or_else(|| format!("'{text}' is too large"))
    } else {
        plain.parse().map_err(|_| bad())
    }
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
        assert!(parse_count("-3").is_err());
    }
}
