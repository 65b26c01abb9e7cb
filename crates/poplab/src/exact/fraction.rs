//! Exact weights for randomized laws: a probability read as a fraction, and the common
//! denominator of the fractions met while exploring.
//!
//! A law's probabilities are `f64`s (`0.5`, `1.0 / 3.0`). Exact analysis reads each as the
//! fraction `k / d` with the smallest `d <= MAX_DENOMINATOR` within `1e-15` of it (a convergent of
//! its continued fraction), so `1.0 / 3.0` is `1/3` exactly. The weights of a space are then
//! integers over `D * L`: `D` the graph's denominator and `L` the least common multiple of the
//! denominators met ([`Scale`]).

use crate::error::{Error, Result};

/// The largest denominator a probability is read with.
pub const MAX_DENOMINATOR: u64 = 1_000_000;

/// How close the fraction must be to the probability.
const TOLERANCE: f64 = 1e-15;

/// `p` as a fraction `(k, d)` in lowest terms with `d <= MAX_DENOMINATOR` and `|p - k/d| <=
/// 1e-15`, if there is one (`p` in `[0, 1]`).
pub fn fraction(p: f64) -> Option<(u64, u64)> {
    if !(0.0..=1.0).contains(&p) {
        return None;
    }
    // Convergents h/k of the continued fraction of p.
    let (mut h0, mut h1, mut k0, mut k1) = (0u64, 1u64, 1u64, 0u64);
    let mut x = p;
    loop {
        let a = x.floor();
        if a > MAX_DENOMINATOR as f64 {
            return None;
        }
        let a = a as u64;
        let (h2, k2) = (a.checked_mul(h1)?.checked_add(h0)?, a.checked_mul(k1)?.checked_add(k0)?);
        if k2 > MAX_DENOMINATOR {
            return None;
        }
        (h0, h1, k0, k1) = (h1, h2, k1, k2);
        if (p - h1 as f64 / k1 as f64).abs() <= TOLERANCE {
            return Some((h1, k1));
        }
        let rest = x - a as f64;
        if rest <= 0.0 {
            return None;
        }
        x = 1.0 / rest;
    }
}

/// The common denominator `L` of the probabilities met so far, and the larger one a fraction that
/// does not divide it asks for (the exploration then starts again with it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scale {
    value: u32,
    wanted: Option<u32>,
}

impl Scale {
    /// `L = 1`: deterministic protocols, and the first try of a randomized one.
    pub const ONE: Scale = Scale { value: 1, wanted: None };

    /// `L`.
    pub fn value(self) -> u32 {
        self.value
    }

    /// The larger scale an exploration must start again with, if a fraction asked for one.
    pub fn wanted(self) -> Option<Scale> {
        self.wanted.map(|value| Scale { value, wanted: None })
    }

    /// `k / d` as a numerator over `L`; when `d` does not divide `L`, records the scale that it
    /// does divide (the result is then not used: the exploration starts again).
    pub fn numerator(&mut self, k: u64, d: u64) -> u32 {
        let value = u64::from(self.value);
        if value % d == 0 {
            return (k * (value / d)) as u32;
        }
        let have = u64::from(self.wanted.unwrap_or(self.value));
        let lcm = have / gcd(have, d) * d;
        self.wanted = Some(u32::try_from(lcm).unwrap_or(u32::MAX));
        0
    }

    /// `D * L`, the denominator of a space's weights, if it fits the 32-bit weights.
    pub fn check_product(self, graph_denominator: u64) -> Result<u64> {
        let product = graph_denominator.saturating_mul(u64::from(self.value));
        if product > u64::from(u32::MAX) {
            return Err(Error::Limit {
                reason: format!(
                    "exact weights need a common denominator of {product} (the scheduler's {graph_denominator} times \
                     {} for the law's probabilities), more than 2^32; lower n or give probabilities with smaller \
                     denominators",
                    self.value
                ),
            });
        }
        Ok(product)
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probabilities_are_read_as_their_fractions() {
        assert_eq!(fraction(0.5), Some((1, 2)));
        assert_eq!(fraction(1.0 / 3.0), Some((1, 3)));
        assert_eq!(fraction(0.0), Some((0, 1)));
        assert_eq!(fraction(1.0), Some((1, 1)));
        assert_eq!(fraction(0.125), Some((1, 8)));
        assert_eq!(fraction(2.0 / 7.0), Some((2, 7)));
        assert_eq!(fraction(0.123457), Some((123_457, 1_000_000)));
        // No fraction with a denominator up to 10^6 is within 1e-15 of pi / 4.
        assert_eq!(fraction(std::f64::consts::FRAC_PI_4), None);
        assert_eq!(fraction(1.5), None);
        assert_eq!(fraction(f64::NAN), None);
    }

    #[test]
    fn a_fraction_that_does_not_divide_the_scale_asks_for_their_lcm() {
        let mut scale = Scale::ONE;
        assert_eq!(scale.numerator(1, 1), 1);
        assert_eq!(scale.wanted(), None);
        scale.numerator(1, 2);
        scale.numerator(1, 3);
        let mut larger = scale.wanted().unwrap();
        assert_eq!(larger.value(), 6);
        assert_eq!(larger.numerator(1, 2), 3);
        assert_eq!(larger.numerator(2, 3), 4);
        assert_eq!(larger.wanted(), None);
        assert!(larger.check_product(90).is_ok());
        assert!(Scale { value: 1 << 20, wanted: None }.check_product(1 << 13).is_err());
    }
}
