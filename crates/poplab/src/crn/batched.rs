//! The batched network engine: the network made uniform (every step meets two molecules and
//! leaves `2 + g` of them), then collision-free runs of steps drawn in bulk, as the batched
//! engine of protocols does, in a population that grows by `g` molecules per step.
//!
//! The uniform network (after batss's construction, on poplab's own engine): a catalyst `K`
//! (a constant count `κ`) pads a reaction's reactants to two, an inert waste `W` pads its
//! products to `2 + g` (`g` the network's largest generativity), and a step that meets a pair
//! where no reaction happens leaves it and `g` new `W`. So the population after `i` steps is
//! `n + g i` whatever happened, which keeps the law of a run's length exact. Steps happen at rate
//! `λ C(n_i, 2)`; a step that meets the pair of reaction `r` fires it with probability `c_r / λ`,
//! where `c_r` is `k / v` (two reactants), `k / κ` (one) or `k v / C(κ, 2)` (none), so that `r`
//! happens at its mass-action propensity exactly; `λ` is the largest total of one pair. Between
//! batches, the waste is dropped once it is the larger half and `κ` follows the number of
//! molecules (within a factor of 2): both change the rate of steps, never the law of the network.

use super::clock::{Events, gamma, growing_run, pairs};
use super::inside::Batch;
use super::network::Network;
use super::stop::CrnStop;
use crate::engine::sampling::{binomial, multivariate_hypergeometric, unit_open0};
use crate::error::{Error, Result};
use crate::rng::{PopRng, below_u64};
use rand_core::Rng;

/// The largest number of molecules (catalyst and waste included) a batched run holds.
pub const MAX_MOLECULES: u64 = 1 << 61;

/// A batched run's uniform network and scratch space. States: the species, then `K`, then `W`.
#[derive(Clone, Debug)]
pub(super) struct Batched {
    species: usize,
    /// The catalyst's count.
    kappa: u64,
    /// The waste's count.
    waste: u64,
    /// Molecules added per step.
    g: u64,
    /// The fewest catalysts the network needs (2 with a reaction without reactants, 1 with one of
    /// one reactant, else 0).
    kappa_min: u64,
    /// Steps per unit of time per pair of molecules.
    lambda: f64,
    /// For each ordered pair of states (species and `K`), the range of `entries` it may fire.
    cells: Vec<(u32, u32)>,
    /// `(reaction, probability)` per step that meets the cell's pair.
    entries: Vec<(u32, f64)>,
    /// Whether a state's row holds any reaction.
    active_rows: Vec<bool>,
    /// Per reaction: what one firing adds and removes, per state (`K` and `W` included).
    change: Vec<Vec<(usize, i64)>>,
    schedule: PopRng,
    outcomes: PopRng,
    clock: PopRng,
    /// The batch the run is in, or the last one (for its space).
    batch: Batch,
    scratch: Scratch,
}

#[derive(Clone, Debug, Default)]
struct Scratch {
    initiators: Vec<u64>,
    responders: Vec<u64>,
    row: Vec<u64>,
    touched: Vec<i64>,
    /// The species' counts inside a batch, for the stop's search.
    counts: Vec<u64>,
    share: Vec<u64>,
}

impl Batched {
    pub(super) fn new(network: &Network, x: &[u64], schedule: PopRng, outcomes: PopRng, clock: PopRng) -> Self {
        let orders = network.reactions.iter().map(|r| r.reactants.len());
        let kappa_min = orders.map(|o| [2, 1, 0][o]).max().unwrap_or(0);
        let mut batched = Batched {
            species: network.species.len(),
            kappa: 0,
            waste: 0,
            g: network.generativity() as u64,
            kappa_min,
            lambda: 0.0,
            cells: Vec::new(),
            entries: Vec::new(),
            active_rows: Vec::new(),
            change: Vec::new(),
            schedule,
            outcomes,
            clock,
            batch: Batch::default(),
            scratch: Scratch::default(),
        };
        let states = batched.species + 2;
        batched.scratch = Scratch {
            initiators: vec![0; states],
            responders: vec![0; states],
            row: vec![0; states],
            touched: vec![0; states],
            counts: vec![0; batched.species],
            share: Vec::new(),
        };
        batched.retune(network, x);
        batched
    }

    /// The expected steps per unit of time of the uniform network at counts `x` (its rate of
    /// steps, `λ C(n, 2)`), and the number of molecules it holds, catalyst included.
    pub(super) fn step_rate(&self, x: &[u64]) -> (f64, u64) {
        let n = x.iter().sum::<u64>() + self.kappa + self.waste;
        (self.lambda * pairs(n), n)
    }

    fn k_state(&self) -> usize {
        self.species
    }

    fn w_state(&self) -> usize {
        self.species + 1
    }

    /// Sets `κ` to the number of molecules (at least `kappa_min`) when it is off by more than a
    /// factor of 2 (or unset), and rebuilds the tables for it.
    fn retune(&mut self, network: &Network, x: &[u64]) {
        if self.kappa_min == 0 {
            if self.cells.is_empty() {
                self.build(network);
            }
            return;
        }
        let target = x.iter().sum::<u64>().max(self.kappa_min);
        if self.cells.is_empty() || self.kappa < target.div_ceil(2) || self.kappa > target.saturating_mul(2) {
            self.kappa = target;
            self.build(network);
        }
    }

    /// The tables of the uniform network for the current `κ`.
    fn build(&mut self, network: &Network) {
        let (k, w) = (self.k_state(), self.w_state());
        let width = self.species + 1; // species and K; W meets nothing
        let v = network.volume;
        let mut lists: Vec<Vec<(u32, f64)>> = vec![Vec::new(); width * width];
        self.change.clear();
        for (r, reaction) in network.reactions.iter().enumerate() {
            let (a, b, c) = match reaction.reactants[..] {
                [a, b] => (a, b, reaction.rate / v),
                [a] => (a, k, reaction.rate / self.kappa as f64),
                _ => (k, k, reaction.rate * v / pairs(self.kappa)),
            };
            lists[a * width + b].push((r as u32, c));
            if a != b {
                lists[b * width + a].push((r as u32, c));
            }
            let mut change = vec![0i64; self.species + 2];
            for &s in &reaction.reactants {
                change[s] -= 1;
            }
            for &s in &reaction.products {
                change[s] += 1;
            }
            // K returns what it padded; W pads the products to 2 + g.
            let padding = self.g as i64 - reaction.generativity();
            change[w] += padding;
            self.change.push(change.into_iter().enumerate().filter(|&(_, d)| d != 0).collect());
        }
        self.lambda = lists.iter().map(|l| l.iter().map(|&(_, c)| c).sum::<f64>()).fold(0.0, f64::max);
        self.entries.clear();
        self.cells.clear();
        self.active_rows = vec![false; self.species + 2];
        for (cell, list) in lists.iter().enumerate() {
            let start = self.entries.len() as u32;
            self.entries.extend(list.iter().map(|&(r, c)| (r, c / self.lambda)));
            self.cells.push((start, list.len() as u32));
            if !list.is_empty() {
                self.active_rows[cell / width] = true;
            }
        }
    }

    /// Runs from `*time` to `until` or to the first time `stop` holds (returned, the run left
    /// there), firing reactions on `x`; returns how many fired. Batches are drawn whole, whatever
    /// the horizon or the stop; where either falls inside one, the run is left at the step it
    /// falls on (see `inside`), and the batch's remaining steps are taken next.
    pub(super) fn advance(
        &mut self,
        network: &Network,
        x: &mut [u64],
        time: &mut f64,
        until: f64,
        stop: Option<&CrnStop>,
    ) -> Result<(u64, Option<f64>)> {
        let mut fired = 0;
        loop {
            if stop.is_some_and(|s| s.holds(network, x)) {
                return Ok((fired, Some(*time)));
            }
            if *time >= until {
                return Ok((fired, None));
            }
            if !self.batch.open {
                if (0..network.reactions.len()).all(|r| network.propensity(r, x) == 0.0) {
                    *time = until; // silent
                    return Ok((fired, None));
                }
                self.begin(network, x, *time)?;
            }
            if let Some(stop) = stop {
                let found = self.batch.first_stop(stop, network, &self.change, &mut self.scratch.counts);
                if let Some(j) = found {
                    let at = self.batch.event_time(self.batch.events.of_steps(j));
                    if at <= until {
                        fired += self.pass(j, x);
                        *time = at.max(*time);
                        return Ok((fired, Some(*time)));
                    }
                }
            }
            if self.batch.end_time <= until {
                let end = self.batch.end_time;
                fired += self.pass(self.batch.steps(), x);
                *time = end.max(*time);
                continue;
            }
            let d = self.batch.events.steps_within(self.batch.events_by(until));
            fired += self.pass(d, x);
            *time = until;
            return Ok((fired, None));
        }
    }

    /// Draws the next batch whole from the species' counts `x` at `time`.
    fn begin(&mut self, network: &Network, x: &[u64], time: f64) -> Result<()> {
        let real: u64 = x.iter().sum();
        if real > MAX_MOLECULES {
            return Err(Error::Limit {
                reason: format!(
                    "the network holds {real} molecules at time {time}, more than the batched engine takes (2^61): \
                     stop it earlier"
                ),
            });
        }
        if self.waste > real + self.kappa {
            self.waste = 0; // inert: dropping it changes the rate of steps, not the law
        }
        self.retune(network, x);
        let mut batch = std::mem::take(&mut self.batch);
        let mut all = std::mem::take(&mut batch.end);
        all.clear();
        all.extend_from_slice(x);
        all.extend([self.kappa, self.waste]);
        let n: u64 = all.iter().sum();
        batch.key = self.schedule.next_u64();
        batch.run = growing_run(&mut self.schedule, n, self.g);
        batch.events =
            Events::draw(&mut self.clock, n, self.g, batch.run + 1, std::mem::take(&mut batch.events).into_list());
        let rate = self.lambda * pairs(n + self.g * batch.run);
        batch.start_time = time;
        batch.end_time = time + gamma(&mut self.clock, batch.events.total(), rate);
        batch.start.clear();
        batch.start.extend_from_slice(x);
        batch.outcomes.resize(network.reactions.len() + 1, 0);
        batch.fired = self.steps(&mut all, n, batch.run, &mut batch.outcomes);
        batch.end = all;
        (batch.open, batch.passed, batch.passed_fired) = (true, 0, 0);
        self.batch = batch;
        Ok(())
    }

    /// Takes the open batch to its first `d` steps (no fewer than it passed): the species' counts
    /// become those then, in `x`; returns the reactions fired on the way.
    fn pass(&mut self, d: u64, x: &mut [u64]) -> u64 {
        let batch = &mut self.batch;
        let d = d.max(batch.passed);
        let reactions = batch.after(d, &self.change, x, &mut self.scratch.share);
        let fired = reactions - batch.passed_fired;
        (batch.passed, batch.passed_fired) = (d, reactions);
        if d == batch.steps() {
            batch.open = false;
            self.kappa = batch.end[self.species];
            self.waste = batch.end[self.species + 1];
        }
        fired
    }

    /// `run` collision-free steps from `all` (`n` molecules), then the step that meets a touched
    /// molecule; `all` becomes the configuration after them, `outcomes` how many of the run's
    /// steps fired each reaction (then how many were null). Returns the number of reactions fired.
    fn steps(&mut self, all: &mut [u64], n: u64, run: u64, outcomes: &mut [u64]) -> u64 {
        let states = all.len();
        let Scratch { initiators, responders, row, touched, .. } = &mut self.scratch;
        let mut fired = 0u64;
        outcomes.fill(0);
        // The run's initiators, then its responders, drawn without replacement.
        multivariate_hypergeometric(&mut self.schedule, all, n, run, initiators);
        for s in 0..states {
            all[s] -= initiators[s];
        }
        multivariate_hypergeometric(&mut self.schedule, all, n - run, run, responders);
        for s in 0..states {
            all[s] -= responders[s];
            touched[s] = (initiators[s] + responders[s]) as i64;
        }
        // `all` is now the untouched molecules. Each initiator state that can react meets its
        // share of the responders (a uniform matching); the others meet the rest, unchanged.
        let mut left = run;
        for (a, &meeting) in initiators.iter().enumerate() {
            if meeting == 0 || !self.active_rows[a] {
                continue;
            }
            multivariate_hypergeometric(&mut self.schedule, responders, left, meeting, row);
            left -= meeting;
            for b in 0..states {
                if row[b] == 0 {
                    continue;
                }
                responders[b] -= row[b];
                let mut meetings = row[b];
                let mut mass = 1.0;
                for &(r, p) in cell(&self.cells, &self.entries, self.species, a, b) {
                    let count = if p >= mass { meetings } else { binomial(&mut self.outcomes, meetings, p / mass) };
                    mass -= p;
                    if count > 0 {
                        outcomes[r as usize] += count;
                        for &(s, d) in &self.change[r as usize] {
                            touched[s] += d * count as i64;
                        }
                        fired += count;
                        meetings -= count;
                    }
                    if meetings == 0 {
                        break;
                    }
                }
            }
        }
        touched[self.species + 1] += (self.g * (run - fired)) as i64;
        outcomes[outcomes.len() - 1] = run - fired;
        // The step that ends the batch: it meets a touched molecule.
        let untouched = n - 2 * run;
        let touched_total = (2 + self.g) * run;
        // The ordered pair of the step: uniform among those with a touched molecule.
        let tt = u128::from(touched_total) * u128::from(touched_total.saturating_sub(1));
        let tu = u128::from(touched_total) * u128::from(untouched);
        let pick = crate::rng::below_u128(&mut self.schedule, tt + 2 * tu);
        let (first_touched, second_touched) = if pick < tt {
            (true, true)
        } else if pick < tt + tu {
            (true, false)
        } else {
            (false, true)
        };
        let a = take(&mut self.schedule, if first_touched { Pool::Touched(touched) } else { Pool::Untouched(all) });
        let b = take(&mut self.schedule, if second_touched { Pool::Touched(touched) } else { Pool::Untouched(all) });
        // Both are out of their pools; the step's result goes back to the touched ones.
        let mut reaction = None;
        let mut u = unit_open0(&mut self.outcomes);
        for &(r, p) in cell(&self.cells, &self.entries, self.species, a, b) {
            if u <= p {
                reaction = Some(r as usize);
                break;
            }
            u -= p;
        }
        touched[a] += 1;
        touched[b] += 1;
        match reaction {
            Some(r) => {
                for &(s, d) in &self.change[r] {
                    touched[s] += d;
                }
                fired += 1;
            }
            None => touched[self.species + 1] += self.g as i64,
        }
        for s in 0..states {
            debug_assert!(touched[s] >= 0, "state {s}: {}", touched[s]);
            all[s] += touched[s] as u64;
        }
        fired
    }
}

/// What a step that meets states `a` and `b` (in this order) may fire: `(reaction, probability)`
/// (`species` species; `W`, past `K`, meets nothing).
fn cell<'e>(cells: &[(u32, u32)], entries: &'e [(u32, f64)], species: usize, a: usize, b: usize) -> &'e [(u32, f64)] {
    let width = species + 1;
    if a >= width || b >= width {
        return &[];
    }
    let (start, len) = cells[a * width + b];
    &entries[start as usize..(start + len) as usize]
}

enum Pool<'a> {
    Touched(&'a mut [i64]),
    Untouched(&'a mut [u64]),
}

/// Takes one molecule uniformly out of a pool of counts; returns its state.
fn take(rng: &mut PopRng, pool: Pool<'_>) -> usize {
    match pool {
        Pool::Touched(counts) => {
            let total: i64 = counts.iter().sum();
            let mut rank = below_u64(rng, total as u64) as i64;
            for (s, c) in counts.iter_mut().enumerate() {
                if rank < *c {
                    *c -= 1;
                    return s;
                }
                rank -= *c;
            }
        }
        Pool::Untouched(counts) => {
            let total: u64 = counts.iter().sum();
            let mut rank = below_u64(rng, total);
            for (s, c) in counts.iter_mut().enumerate() {
                if rank < *c {
                    *c -= 1;
                    return s;
                }
                rank -= *c;
            }
        }
    }
    unreachable!("a pool of at least one molecule")
}
