//! Numbers as people type them: `1000`, `1_000`, `10^5`, `1e5`, and lists `a,b,c` or ranges
//! `START..END[*F|+D]`. Every count, step number, seed and integer parameter goes through these,
//! so the notations work everywhere.

use crate::error::{Error, Result};

/// A whole number written as `1000`, `1_000`, `10^5`, `2^62` or `1e5`, up to `u128::MAX`.
/// Errors say whether the text is not a number or too large, and give the limit.
///
/// ```
/// use poplab::numbers::parse_u128;
/// assert_eq!(parse_u128("1e5"), Ok(100_000));
/// assert_eq!(parse_u128("10^30"), Ok(10u128.pow(30)));
/// assert!(parse_u128("2^128").unwrap_err().contains("at most 2^128 - 1"));
/// ```
pub fn parse_u128(text: &str) -> std::result::Result<u128, String> {
    let bytes = text.as_bytes();
    let misplaced_underscore = bytes.iter().enumerate().any(|(i, &b)| {
        b == b'_' && !(i > 0 && bytes[i - 1].is_ascii_digit() && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
    });
    if misplaced_underscore {
        return Err(format!("'{text}' is not a whole number (underscores go between digits: 1_000)"));
    }
    let plain = text.replace('_', "");
    let bad = || format!("'{text}' is not a whole number (examples: 1000, 10^5, 1e5)");
    let too_large = || format!("'{text}' is too large: at most 2^128 - 1 = {}", u128::MAX);
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some((base, exponent)) = plain.split_once('^') {
        if !digits(base) || !digits(exponent) {
            return Err(bad());
        }
        let base: u128 = base.parse().map_err(|_| too_large())?;
        let exponent: u32 = exponent.parse().map_err(|_| too_large())?;
        base.checked_pow(exponent).ok_or_else(too_large)
    } else if let Some((mantissa, exponent)) = plain.split_once(['e', 'E']) {
        if !digits(mantissa) || !digits(exponent) {
            return Err(bad());
        }
        let exponent: u32 = exponent.parse().map_err(|_| too_large())?;
        let mantissa: u128 = mantissa.parse().map_err(|_| too_large())?;
        if mantissa == 0 {
            return Ok(0);
        }
        10u128.checked_pow(exponent).and_then(|p| p.checked_mul(mantissa)).ok_or_else(too_large)
    } else if digits(&plain) {
        plain.parse().map_err(|_| too_large())
    } else {
        Err(bad())
    }
}

/// A whole number as [`parse_u128`], up to `max`.
pub fn parse_at_most(text: &str, max: u128) -> std::result::Result<u128, String> {
    let limit = match max {
        _ if max == u128::from(u64::MAX) => format!("2^64 - 1 = {max}"),
        _ if max.is_power_of_two() && max >= 1 << 20 => format!("2^{} = {max}", max.trailing_zeros()),
        _ => max.to_string(),
    };
    // Beyond 128 bits too, the limit given is this one's.
    let value = parse_u128(text)
        .map_err(|e| if e.contains("too large") { format!("'{text}' is too large: at most {limit}") } else { e })?;
    if value > max {
        return Err(format!("'{text}' is too large: at most {limit}"));
    }
    Ok(value)
}

/// A count (agents, trials, seeds) up to `u64::MAX`, in any notation of [`parse_u128`].
pub fn parse_u64(text: &str) -> std::result::Result<u64, String> {
    parse_at_most(text, u128::from(u64::MAX)).map(|v| v as u64)
}

/// A list of values: `a,b,c`, or an integer range `START..END` (inclusive) stepping by `+D`
/// (default `+1`) or multiplying by `*F`, e.g. `8..64*2` or `10^2..10^5*10`.
///
/// ```
/// use poplab::numbers::parse_list;
///
/// assert_eq!(parse_list("8..64*2")?, ["8", "16", "32", "64"]);
/// assert_eq!(parse_list("10..30+10")?, ["10", "20", "30"]);
/// assert_eq!(parse_list("10^2..10^4*10")?, ["100", "1000", "10000"]);
/// assert_eq!(parse_list("0.5,0.6")?, ["0.5", "0.6"]); // lists take any values
/// assert!(parse_list("1,,2").is_err());
/// # Ok::<(), poplab::Error>(())
/// ```
pub fn parse_list(text: &str) -> Result<Vec<String>> {
    let bad = |why: String| Error::Option {
        option: "a list",
        value: text.into(),
        reason: format!("{why}; write a,b,c or START..END[*F|+D]"),
    };
    let Some((start, rest)) = text.split_once("..") else {
        let values: Vec<String> = text.split(',').map(|v| v.trim().to_string()).collect();
        return if values.iter().any(String::is_empty) { Err(bad("an empty value".into())) } else { Ok(values) };
    };
    let (end, step) = match rest.find(['*', '+']) {
        Some(at) => (&rest[..at], &rest[at..]),
        None => (rest, "+1"),
    };
    let start = parse_u64(start).map_err(bad)?;
    let end = parse_u64(end).map_err(bad)?;
    let by = parse_u64(&step[1..]).map_err(bad)?;
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
        assert_eq!(parse_u64("1000"), Ok(1000));
        assert_eq!(parse_u64("1_000"), Ok(1000));
        assert_eq!(parse_u64("10^5"), Ok(100_000));
        assert_eq!(parse_u64("2e3"), Ok(2000));
        assert_eq!(parse_u64("1E2"), Ok(100));
        assert!(parse_u64("1.5").unwrap_err().contains("not a whole number"));
        assert!(parse_u64("-3").unwrap_err().contains("not a whole number"));
        assert!(parse_u64("+3").is_err());
        for bad in ["1_000_", "_10", "1__0", " 10", "1e", "10^", "0x10", ""] {
            assert!(parse_u64(bad).is_err(), "{bad}");
        }
        assert!(parse_u64("10^30").unwrap_err().contains("at most 2^64 - 1 = 18446744073709551615"));
        assert!(parse_at_most("2^63", 1 << 62).unwrap_err().contains("at most 2^62 = 4611686018427387904"));
        assert_eq!(parse_u128("10^30"), Ok(10u128.pow(30)));
        assert_eq!(parse_u128("2e20"), Ok(200_000_000_000_000_000_000));
        assert_eq!(
            parse_u128("2^128").unwrap_err(),
            format!("'2^128' is too large: at most 2^128 - 1 = {}", u128::MAX)
        );
        assert!(parse_u128("10^39").unwrap_err().contains("too large"));
        assert!(parse_u128("99999999999999999999999999999999999999999").unwrap_err().contains("too large"));
    }

    #[test]
    fn value_lists_and_ranges() {
        assert_eq!(parse_list("1,2.5, x").unwrap(), ["1", "2.5", "x"]);
        assert_eq!(parse_list("8..64*2").unwrap(), ["8", "16", "32", "64"]);
        assert_eq!(parse_list("10^2..10^4*10").unwrap(), ["100", "1000", "10000"]);
        assert_eq!(parse_list("1..7+3").unwrap(), ["1", "4", "7"]);
        assert_eq!(parse_list("3..5").unwrap(), ["3", "4", "5"]);
        assert!(parse_list("5..3").is_err());
        assert!(parse_list("1..9*1").is_err());
        assert!(parse_list("1,,2").is_err());
    }
}
