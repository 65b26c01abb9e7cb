//! What ends a network's run before its horizon: silence, or a species' count crossing a
//! threshold. A stop is caught at the exact reaction that makes it hold: the batched engine
//! takes only batches too short for the stop to hold inside them ([`CrnStop::safe_steps`]), and
//! steps one reaction at a time (the direct method) once that is less than a small batch.

use super::network::Network;
use crate::error::{Error, Result};

/// When a run stops.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CrnStop {
    /// No reaction can happen any more.
    Silent,
    /// The count of species `.0` is at most `.1`.
    AtMost(usize, u64),
    /// The count of species `.0` is at least `.1`.
    AtLeast(usize, u64),
}

impl CrnStop {
    /// A stop written as `silent`, `F <= 0` or `R >= 1000` (a species of `network`).
    ///
    /// ```
    /// use poplab::crn::{CrnStop, Network};
    ///
    /// let lv = Network::parse(&[("R -> 2R", 1.0), ("R + F -> 2F", 1.0), ("F ->", 1.0)], 100.0)?;
    /// assert_eq!(CrnStop::parse("F <= 0", &lv)?, CrnStop::AtMost(1, 0));
    /// assert!(CrnStop::parse("G >= 3", &lv).is_err());
    /// # Ok::<(), poplab::Error>(())
    /// ```
    pub fn parse(text: &str, network: &Network) -> Result<Self> {
        let bad = |reason: String| Error::Option { option: "stop", value: text.into(), reason };
        let text = text.trim();
        if text == "silent" {
            return Ok(CrnStop::Silent);
        }
        let (name, count, at_most) = if let Some((a, b)) = text.split_once("<=") {
            (a, b, true)
        } else if let Some((a, b)) = text.split_once(">=") {
            (a, b, false)
        } else {
            return Err(bad("`silent`, `SPECIES <= COUNT` or `SPECIES >= COUNT`, e.g. \"F <= 0\"".into()));
        };
        let species = network.index(name.trim()).ok_or_else(|| {
            bad(format!("{} is not a species of the network: {}", name.trim(), network.species.join(", ")))
        })?;
        let count = crate::numbers::parse_u64(count.trim()).map_err(|e| bad(format!("the count: {e}")))?;
        Ok(if at_most { CrnStop::AtMost(species, count) } else { CrnStop::AtLeast(species, count) })
    }

    /// Whether the stop holds at counts `x`.
    pub fn holds(&self, network: &Network, x: &[u64]) -> bool {
        match *self {
            CrnStop::Silent => (0..network.reactions.len()).all(|r| network.propensity(r, x) == 0.0),
            CrnStop::AtMost(s, c) => x[s] <= c,
            CrnStop::AtLeast(s, c) => x[s] >= c,
        }
    }

    /// How many steps (reactions or null steps) may follow from `x`, where the stop does not hold,
    /// with the stop certain not to hold after any of them: each step changes a species by at
    /// most what one reaction changes it.
    pub(super) fn safe_steps(&self, network: &Network, x: &[u64]) -> u64 {
        // The most one reaction removes from (positive) or adds to (negative) species s.
        let net = |s: usize, sign: i64| -> u64 {
            network
                .reactions
                .iter()
                .map(|r| {
                    let used = r.reactants.iter().filter(|&&a| a == s).count() as i64;
                    let made = r.products.iter().filter(|&&a| a == s).count() as i64;
                    (sign * (used - made)).max(0) as u64
                })
                .max()
                .unwrap_or(0)
        };
        match *self {
            CrnStop::AtMost(s, c) => match net(s, 1) {
                0 => u64::MAX,
                d => (x[s] - c - 1) / d,
            },
            CrnStop::AtLeast(s, c) => match net(s, -1) {
                0 => u64::MAX,
                u => (c - x[s] - 1) / u,
            },
            CrnStop::Silent => network
                .reactions
                .iter()
                .map(|r| {
                    // Reaction r stays possible for as many steps as its scarcest reactant allows.
                    let mut steps = u64::MAX;
                    for &a in &r.reactants {
                        let needed = r.reactants.iter().filter(|&&b| b == a).count() as u64;
                        let spare = x[a].saturating_sub(needed);
                        if x[a] < needed {
                            return 0;
                        }
                        steps = steps.min(match net(a, 1) {
                            0 => u64::MAX,
                            d => spare / d,
                        });
                    }
                    steps
                })
                .max()
                .unwrap_or(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_steps_never_let_the_stop_hold() {
        let lv = Network::parse(&[("R -> 2R", 1.0), ("R + F -> 2F", 1.0), ("F ->", 1.0)], 100.0).unwrap();
        // F falls by at most 1 per step: from 10, 9 steps keep it above 0.
        assert_eq!(CrnStop::AtMost(1, 0).safe_steps(&lv, &[5, 10]), 9);
        // R rises by at most 1 per step: from 10 to reach 20 takes 10 steps, 9 are safe.
        assert_eq!(CrnStop::AtLeast(0, 20).safe_steps(&lv, &[10, 3]), 9);
        // Silent: R -> 2R stays possible as long as R >= 1; R falls by at most 1 per step.
        assert_eq!(CrnStop::Silent.safe_steps(&lv, &[7, 0]), 6);
        let decay = Network::parse(&[("2A -> B", 1.0)], 1.0).unwrap();
        // 2A -> B needs 2 A and takes 2 per step: from 9, 3 steps leave at least 3.
        assert_eq!(CrnStop::Silent.safe_steps(&decay, &[9, 0]), 3);
        assert_eq!(CrnStop::Silent.safe_steps(&decay, &[1, 0]), 0);
    }

    #[test]
    fn stops_are_written_as_comparisons() {
        let lv = Network::parse(&[("R -> 2R", 1.0), ("R + F -> 2F", 1.0), ("F ->", 1.0)], 100.0).unwrap();
        assert_eq!(CrnStop::parse(" silent ", &lv).unwrap(), CrnStop::Silent);
        assert_eq!(CrnStop::parse("R >= 10^3", &lv).unwrap(), CrnStop::AtLeast(0, 1000));
        for bad in ["F < 0", "F <= x", "Q <= 1", ""] {
            assert!(CrnStop::parse(bad, &lv).is_err(), "{bad}");
        }
    }
}
