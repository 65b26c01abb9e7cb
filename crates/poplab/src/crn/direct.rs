//! Gillespie's direct method: one reaction at a time, exact, in time proportional to the number
//! of reactions times the network's size. The engine for small counts.

use super::clock::exponential;
use super::network::Network;
use super::stop::CrnStop;
use crate::engine::sampling::unit_open0;
use crate::rng::PopRng;

/// The state of a direct-method run: its two streams (which reaction, when), the time of the
/// next reaction once drawn, and scratch space.
#[derive(Clone, Debug)]
pub(super) struct Direct {
    propensities: Vec<f64>,
    choice: PopRng,
    clock: PopRng,
    next: Option<f64>,
}

/// What one step of the direct method did.
pub(super) enum Step {
    /// A reaction fired.
    Fired,
    /// No reaction can happen (the time is left as it was).
    Silent,
    /// The next reaction would come after the horizon: the time is the horizon.
    Horizon,
}

/// One reaction of the direct method on `x` from `*time`, unless it comes after `until`: then
/// its time is kept in `next` for the next call (valid while `x` is unchanged), so that stopping
/// at `until` to look changes nothing that follows. `propensities` is scratch space.
pub(super) fn step(
    network: &Network,
    x: &mut [u64],
    time: &mut f64,
    until: f64,
    propensities: &mut [f64],
    (choice, clock, next): (&mut PopRng, &mut PopRng, &mut Option<f64>),
) -> Step {
    let mut total = 0.0;
    for (r, a) in propensities.iter_mut().enumerate() {
        *a = network.propensity(r, x);
        total += *a;
    }
    if total <= 0.0 {
        return Step::Silent;
    }
    let at = next.take().unwrap_or_else(|| *time + exponential(clock, total));
    if at > until {
        *next = Some(at);
        *time = until;
        return Step::Horizon;
    }
    *time = at;
    let mut target = unit_open0(choice) * total;
    let mut r = propensities.len() - 1;
    for (i, &a) in propensities.iter().enumerate() {
        if target <= a && a > 0.0 {
            r = i;
            break;
        }
        target -= a;
    }
    // Rounding can leave the last reaction chosen with propensity 0: take the last positive.
    if propensities[r] <= 0.0 {
        r = propensities.iter().rposition(|&a| a > 0.0).expect("total > 0");
    }
    let reaction = &network.reactions[r];
    for &s in &reaction.reactants {
        x[s] -= 1;
    }
    for &s in &reaction.products {
        x[s] += 1;
    }
    Step::Fired
}

impl Direct {
    pub(super) fn new(network: &Network, choice: PopRng, clock: PopRng) -> Self {
        Direct { propensities: vec![0.0; network.reactions.len()], choice, clock, next: None }
    }

    /// Runs from `*time` to `until` or to the first time `stop` holds (returned, the run left
    /// there), firing reactions on `x`; returns how many fired.
    pub(super) fn advance(
        &mut self,
        network: &Network,
        x: &mut [u64],
        time: &mut f64,
        until: f64,
        stop: Option<&CrnStop>,
    ) -> (u64, Option<f64>) {
        let mut fired = 0;
        loop {
            if stop.is_some_and(|s| s.holds(network, x)) {
                return (fired, Some(*time));
            }
            let streams = (&mut self.choice, &mut self.clock, &mut self.next);
            match step(network, x, time, until, &mut self.propensities, streams) {
                Step::Fired => fired += 1,
                Step::Silent => {
                    *time = until; // nothing will ever happen
                    return (fired, None);
                }
                Step::Horizon => return (fired, None),
            }
        }
    }
}
