//! Gillespie's direct method: one reaction at a time, exact, in time proportional to the number
//! of reactions times the network's size. The engine for small counts.

use super::clock::exponential;
use super::network::Network;
use crate::engine::sampling::unit_open0;
use crate::rng::PopRng;

/// The state of a direct-method run: the counts and its two streams (which reaction, when).
#[derive(Clone, Debug)]
pub(super) struct Direct {
    propensities: Vec<f64>,
    choice: PopRng,
    clock: PopRng,
}

impl Direct {
    pub(super) fn new(network: &Network, choice: PopRng, clock: PopRng) -> Self {
        Direct { propensities: vec![0.0; network.reactions.len()], choice, clock }
    }

    /// Runs from `*time` to `until`, firing reactions on `x`; returns how many fired. The time of
    /// the next reaction beyond `until` is forgotten (memoryless, so the law is the same).
    pub(super) fn advance(&mut self, network: &Network, x: &mut [u64], time: &mut f64, until: f64) -> u64 {
        let mut fired = 0;
        loop {
            let mut total = 0.0;
            for (r, a) in self.propensities.iter_mut().enumerate() {
                *a = network.propensity(r, x);
                total += *a;
            }
            if total <= 0.0 {
                *time = until; // silent: nothing will ever happen
                return fired;
            }
            let wait = exponential(&mut self.clock, total);
            if *time + wait > until {
                *time = until;
                return fired;
            }
            *time += wait;
            let mut target = unit_open0(&mut self.choice) * total;
            let mut r = self.propensities.len() - 1;
            for (i, &a) in self.propensities.iter().enumerate() {
                if target <= a && a > 0.0 {
                    r = i;
                    break;
                }
                target -= a;
            }
            // Rounding can leave the last reaction chosen with propensity 0: take the last positive.
            if self.propensities[r] <= 0.0 {
                r = self.propensities.iter().rposition(|&a| a > 0.0).expect("total > 0");
            }
            let reaction = &network.reactions[r];
            for &s in &reaction.reactants {
                x[s] -= 1;
            }
            for &s in &reaction.products {
                x[s] += 1;
            }
            fired += 1;
        }
    }
}
