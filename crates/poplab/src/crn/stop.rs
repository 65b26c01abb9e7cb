//! What ends a network's run before its horizon: silence, or a species' count crossing a
//! threshold. A stop is caught at the exact reaction that makes it hold: the batched engine
//! searches a batch's steps for it, skipping every stretch in which it cannot hold
//! ([`CrnStop::may_hold_within`]), so a stop never changes what the batches draw.

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

    /// Whether the stop may hold somewhere in a stretch of steps that starts at counts `x` and
    /// fires `fired[r]` reactions `r` (and any number of null steps) in some order: a species'
    /// count stays between what all the reactions that lower it would leave and what all those
    /// that raise it would make.
    pub(super) fn may_hold_within(&self, network: &Network, x: &[u64], fired: &[u64]) -> bool {
        // The most the stretch can lower (sign 1) or raise (sign -1) species s.
        let most = |s: usize, sign: i128| -> i128 {
            network
                .reactions
                .iter()
                .zip(fired)
                .map(|(r, &times)| {
                    let used = r.reactants.iter().filter(|&&a| a == s).count() as i128;
                    let made = r.products.iter().filter(|&&a| a == s).count() as i128;
                    (sign * (used - made)).max(0) * i128::from(times)
                })
                .sum()
        };
        match *self {
            CrnStop::AtMost(s, c) => i128::from(x[s]) - most(s, 1) <= i128::from(c),
            CrnStop::AtLeast(s, c) => i128::from(x[s]) + most(s, -1) >= i128::from(c),
            // Silence needs every reaction impossible at some point; one that keeps enough of
            // each reactant throughout (or has none) rules it out.
            CrnStop::Silent => !network.reactions.iter().any(|r| {
                r.reactants.iter().all(|&a| {
                    let needed = r.reactants.iter().filter(|&&b| b == a).count() as i128;
                    i128::from(x[a]) - most(a, 1) >= needed
                })
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stretch_may_let_the_stop_hold_only_if_its_worst_order_does() {
        let lv = Network::parse(&[("R -> 2R", 1.0), ("R + F -> 2F", 1.0), ("F ->", 1.0)], 100.0).unwrap();
        // F falls only by F -> (1 each): from 10, nine of them keep it above 0, ten may not.
        assert!(!CrnStop::AtMost(1, 0).may_hold_within(&lv, &[5, 10], &[7, 4, 9]));
        assert!(CrnStop::AtMost(1, 0).may_hold_within(&lv, &[5, 10], &[0, 0, 10]));
        // R rises only by R -> 2R: from 10 to 20 takes ten of them.
        assert!(!CrnStop::AtLeast(0, 20).may_hold_within(&lv, &[10, 3], &[9, 5, 5]));
        assert!(CrnStop::AtLeast(0, 20).may_hold_within(&lv, &[10, 3], &[10, 0, 0]));
        // Silent: R -> 2R stays possible while R >= 1; R falls only by R + F -> 2F.
        assert!(!CrnStop::Silent.may_hold_within(&lv, &[7, 0], &[3, 6, 0]));
        assert!(CrnStop::Silent.may_hold_within(&lv, &[7, 0], &[0, 7, 0]));
        let dimer = Network::parse(&[("2A -> B", 1.0)], 1.0).unwrap();
        // 2A -> B takes 2 A: from 9, three of them leave 3, four leave 1.
        assert!(!CrnStop::Silent.may_hold_within(&dimer, &[9, 0], &[3]));
        assert!(CrnStop::Silent.may_hold_within(&dimer, &[9, 0], &[4]));
        let birth = Network::parse(&[("-> A", 1.0), ("A ->", 1.0)], 1.0).unwrap();
        assert!(!CrnStop::Silent.may_hold_within(&birth, &[0], &[0, 0]), "a reaction without reactants");
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
