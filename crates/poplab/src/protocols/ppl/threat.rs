//! P_PL's holding scores for the splitting estimator ([`crate::splitting`]): how close a
//! configuration is to losing its unique leader.
//!
//! With one leader, P_PL loses it in two ways only (001 section 4.2 bounds them: Lemma 10 for a
//! new leader, Lemma 11 for none; see `docs/holding.md`):
//! - a **timeout**: some pair reaches `timer_L <= 1` and a second leader appears (line 2). The
//!   leader's partners get `t_max` (line 3) and the value spreads by larger-value propagation
//!   minus one (line 1), so every `timer_L` stays near `t_max` while the leader interacts
//!   (001 Corollary 7, Lemma 15: `G_half`); for the timers to run down by `k`, the largest of them
//!   must fall by `k`;
//! - a **suicide** (001 section 3): the leader emits a virus shielded (line 7), drops its shield
//!   at a later expiry of `timer_I` as a responder (line 8) and meets a carrier, itself included,
//!   while the virus lives (line 5). Each carrier's value falls by one per interaction (line 4),
//!   so the virus outlives the `r = timer_I` interactions the leader has left only along a rare
//!   slow chain of carriers (001 bounds its life by `t_virus` rounds: Corollary 13, Lemma 14).
//!
//! The `leader-threat` score approximates `-ln P(break | configuration)` by the cheaper of the
//! two paths, each the large-deviation cost of a chain of interactions in which every link
//! costs one unit of a timer and lasts an exponential time (rate 1 per interaction of an agent,
//! two chains where an interaction branches; `U = 2.678...` solves `U - 1 - ln U = ln 2`, so
//! the longest of the branching chains spends `U` leader interactions per unit on average):
//! - timeout: `U (m - 1)`, `m` the second-smallest `timer_L` (the leader must fall silent while
//!   the largest timer runs down; silence costs 2 per parallel time, the largest value falls by
//!   one per `U / 2`), plus `ln((n-1)/(k-1))` for the `k` agents that low (two must meet);
//! - suicide (only while a virus that can kill lives): `ln 2` (the expiry must come as a
//!   responder) plus `V * (I(r/V) - ln 2)` beyond `r > U V` (0 below), with `V` the largest virus
//!   less one, `r` the leader's `timer_I` and `I(x) = x - 1 - ln x` Cramér's function of `V`
//!   exponential link times; an unshielded leader costs `ln(n / k)`, `k` the carriers of
//!   `virus >= 2`.
//!
//! The score is `round(4 (C0 - min(timeout, suicide)))`, clamped at 0, with `C0 = U (t_max - 1)`
//! the cost at the safe start (so the start scores 0). The shielded suicide cost leaves out the
//! final meeting with a carrier (`ln(n / k)` once unshielded), so dropping the shield can lower
//! the score slightly; this is the form validated in `docs/holding.md`. The count terms split the top levels,
//! where otherwise every replica could tie and end a repetition with no break. These costs are approximations: they only
//! place gAMS's levels, and the estimator is unbiased for any score (the variance is what a
//! better score lowers). `timer-deficit` (`t_max - min timer_L`, timeouts only) is kept.

use super::{Ppl, PplState};

/// The holding scores of P_PL, the default first.
pub const HOLDING_SCORES: &[&str] = &["leader-threat", "timer-deficit"];

/// `U`, the root above 1 of `U - 1 - ln U = ln 2`: the leader interactions per link of the
/// longest-lasting chain of a binary branching of exponential(1) link times.
pub const CHAIN_SPAN: f64 = 2.678_346_990_016_661;

/// Score units per nat.
const RESOLUTION: f64 = 4.0;

impl Ppl {
    /// The approximate cost (`-ln P`) of a break by timeout from `agents`: `U (m - 1)` with `m`
    /// the second-smallest `timer_L` (a timeout needs two agents at `timer_L <= 1` to meet), plus
    /// `ln((n - 1) / (k - 1))` with `k` the agents at `timer_L <= max(m, 1)`.
    pub fn timeout_cost(&self, agents: &[PplState]) -> f64 {
        let (mut low, mut second) = (u32::MAX, u32::MAX);
        for a in agents {
            if a.timer_l < low {
                (low, second) = (a.timer_l, low);
            } else if a.timer_l < second {
                second = a.timer_l;
            }
        }
        if second == u32::MAX {
            return f64::INFINITY;
        }
        let k = agents.iter().filter(|a| a.timer_l <= second.max(1)).count();
        CHAIN_SPAN * f64::from(second.saturating_sub(1)) + ((agents.len() - 1) as f64 / (k - 1) as f64).ln()
    }

    /// The approximate cost (`-ln P`) of a break by suicide from `agents` (infinite with no
    /// virus that can still kill, 0 unless exactly one leader). A virus kills where `virus >= 2`
    /// meets an unshielded leader (lines 4-5), so `V` is the largest virus less one; an
    /// unshielded leader costs `ln(n / k)`, `k` the agents with `virus >= 2`.
    pub fn suicide_cost(&self, agents: &[PplState]) -> f64 {
        let virus = agents.iter().map(|a| a.virus).max().unwrap_or(0);
        if virus < 2 {
            return f64::INFINITY;
        }
        let mut leaders = agents.iter().filter(|a| a.leader);
        let (Some(leader), None) = (leaders.next(), leaders.next()) else { return 0.0 };
        if !leader.shield {
            let carriers = agents.iter().filter(|a| a.virus >= 2).count();
            return (agents.len() as f64 / carriers as f64).ln();
        }
        let (v, r) = (f64::from(virus - 1), f64::from(leader.timer_i));
        let chain = if r > CHAIN_SPAN * v { r - v * (1.0 + (2.0 * r / v).ln()) } else { 0.0 };
        std::f64::consts::LN_2 + chain
    }

    /// Holding score number `score` of [`HOLDING_SCORES`] (`None` for another number).
    pub fn holding_score_of(&self, score: usize, agents: &[PplState]) -> Option<u64> {
        match score {
            0 => {
                let start = CHAIN_SPAN * f64::from(self.t_max.saturating_sub(1));
                let cost = self.timeout_cost(agents).min(self.suicide_cost(agents));
                Some((RESOLUTION * (start - cost)).round().max(0.0) as u64)
            }
            1 => Some(u64::from(self.t_max - agents.iter().map(|a| a.timer_l).min().unwrap_or(self.t_max))),
            _ => None,
        }
    }
}
