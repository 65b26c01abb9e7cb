//! Exact draws of continuous time for the batched network engine, and the length of a
//! collision-free run in a population that grows by `g` molecules per step.
//!
//! A batch is a run of steps whose rates `λ C(n_i, 2)` grow with the population `n_i = n + g i`.
//! Time comes from a Poisson process at the batch's largest rate `Λ*`, thinned: step `i` takes
//! place at the first event it accepts, each with probability `q_i = C(n_i, 2) / C(n_last, 2)`,
//! so it waits `G_i` events, geometric with success `q_i`. The rejected events ("failures") are
//! rare (about `g` per batch), so they are drawn sparsely, in time independent of the batch
//! length. A batch of `M` events ends at its last, a `Gamma(M, Λ*)` time after it starts; the
//! others fall uniformly in between (drawn only when asked for: see `inside`).
//!
//! [`poisson_count`] and [`beta_place`] are the same laws for callers that run pair rules in
//! continuous time span by span (Python's `Simulation(..., continuous_time=True)`).

use crate::engine::sampling::{bisect, collision_free_run, ln_falling_over_power, stirling_remainder, unit_open0};
use crate::error::{Error, Result};
use crate::rng::PopRng;
use rand_core::SeedableRng;
use rand_distr::Distribution;

/// `C(m, 2)` as a float, exact below `2^53`.
pub(super) fn pairs(m: u64) -> f64 {
    (u128::from(m) * u128::from(m.saturating_sub(1)) / 2) as f64
}

/// A Poisson number with mean `mean >= 0`.
pub(super) fn poisson(rng: &mut PopRng, mean: f64) -> u64 {
    if mean <= 0.0 {
        return 0;
    }
    rand_distr::Poisson::new(mean).expect("a finite mean > 0").sample(rng) as u64
}

/// The time of the `events`-th event (`>= 1`) of a Poisson process of rate `rate > 0`: a
/// Gamma(`events`, `rate`) number.
pub(super) fn gamma(rng: &mut PopRng, events: u64, rate: f64) -> f64 {
    rand_distr::Gamma::new(events as f64, 1.0 / rate).expect("shape >= 1, rate > 0").sample(rng)
}

/// An exponential waiting time with rate `rate > 0`.
pub(super) fn exponential(rng: &mut PopRng, rate: f64) -> f64 {
    -unit_open0(rng).ln() / rate
}

/// A Poisson number with mean `mean >= 0` from the stream seeded by `seed`: how many interactions
/// a span of continuous time holds (ppsim's `continuous_time`, which Python's `Simulation` runs
/// span by span). Means beyond the sampler's range (about `1.8e19`) are summed from equal parts.
pub fn poisson_count(seed: u64, mean: f64) -> Result<u128> {
    if !(mean.is_finite() && mean >= 0.0) {
        return Err(Error::Option { option: "mean", value: mean.to_string(), reason: "a finite number >= 0".into() });
    }
    let mut rng = PopRng::seed_from_u64(seed);
    let parts = (mean / 1e18).ceil().max(1.0) as u64;
    Ok((0..parts).map(|_| u128::from(poisson(&mut rng, mean / parts as f64))).sum())
}

/// A Beta(`a`, `b`) number (`a`, `b` > 0) from the stream seeded by `seed`: where the `a`-th of
/// `a + b - 1` uniform points of a span falls, in order (the time of an interaction inside a span).
pub fn beta_place(seed: u64, a: f64, b: f64) -> Result<f64> {
    let law = rand_distr::Beta::new(a, b).map_err(|e| Error::Option {
        option: "beta",
        value: format!("({a}, {b})"),
        reason: e.to_string(),
    })?;
    Ok(law.sample(&mut PopRng::seed_from_u64(seed)))
}

/// The number of failures before the first success of probability `q` in `(0, 1]`.
fn failures(rng: &mut PopRng, q: f64) -> u64 {
    if q >= 1.0 {
        return 0;
    }
    (unit_open0(rng).ln() / (-q).ln_1p()).floor() as u64
}

/// `sum over 1 <= j <= m of ln(1 + j / x)` for a real `x > 0`: by Stirling's series,
/// `(x + m + 1/2) ln(1 + m / x) - m + R(x + m) - R(x)`, no large terms.
fn ln_rising_over_power(x: f64, m: u64) -> f64 {
    if m < 16 || x < 16.0 {
        return (1..=m).map(|j| (j as f64 / x).ln_1p()).sum();
    }
    let m_f = m as f64;
    (x + m_f + 0.5) * (m_f / x).ln_1p() - m_f + stirling_remainder(x + m_f) - stirling_remainder(x)
}

/// `ln P(L >= k)` for the run length `L` of [`growing_run`] (`k >= 1`, `2k <= n`):
/// `prod over i < k of (n - 2i)(n - 2i - 1) / ((n + g i)(n + g i - 1))`.
fn ln_run_at_least(n: u64, g: u64, k: u64) -> f64 {
    let n_f = n as f64;
    let growth = ln_rising_over_power(n_f / g as f64, k - 1) + ln_rising_over_power((n_f - 1.0) / g as f64, k - 1);
    ln_falling_over_power(n, 2 * k) - k as f64 * (-1.0 / n_f).ln_1p() - growth
}

/// The number `L` of steps before the first that meets a touched molecule, among `n >= 2`
/// molecules of which none is touched yet, when each step picks an ordered pair of distinct
/// molecules uniformly, touches both and adds `g` touched ones. By inversion of
/// [`ln_run_at_least`]: a guess from `-ln P(L >= k) ~ (2 + g) k^2 / n`, a gallop and a bisection.
pub(super) fn growing_run(rng: &mut PopRng, n: u64, g: u64) -> u64 {
    debug_assert!(n >= 2);
    if g == 0 {
        return collision_free_run(rng, n, n);
    }
    let ln_u = unit_open0(rng).ln();
    let max = n / 2;
    let ok = |k: u64| k <= 1 || ln_run_at_least(n, g, k) >= ln_u;
    let guess = ((-ln_u * n as f64 / (2 + g) as f64).sqrt() as u64).clamp(1, max);
    let (mut lo, mut hi);
    if ok(guess) {
        lo = guess;
        let mut step = 1 + guess / 8;
        loop {
            if lo == max {
                return max;
            }
            hi = (lo + step).min(max);
            if !ok(hi) {
                break;
            }
            lo = hi;
            step *= 2;
        }
    } else {
        hi = guess;
        let mut step = 1 + guess / 8;
        loop {
            lo = hi.saturating_sub(step).max(1);
            if ok(lo) {
                break;
            }
            hi = lo;
            step *= 2;
        }
    }
    bisect(lo, hi, ok)
}

/// The events a batch of `steps` steps waits for: the steps `i` (from 0) that rejected events
/// before their own, and how many; the population of step `i` is `n + g i`.
#[derive(Clone, Debug, Default)]
pub(super) struct Events {
    /// `(step, failures)`, in step order, only steps with failures.
    failures: Vec<(u64, u64)>,
    /// The number of steps.
    steps: u64,
}

impl Events {
    /// Draws the failures of `steps` steps from a population of `n` growing by `g` per step.
    pub(super) fn draw(rng: &mut PopRng, n: u64, g: u64, steps: u64, out: Vec<(u64, u64)>) -> Self {
        let mut events = Events { failures: out, steps };
        events.failures.clear();
        if g == 0 || steps <= 1 {
            return events;
        }
        let last = pairs(n + g * (steps - 1));
        // 1 - q_i = (C(n_last, 2) - C(n_i, 2)) / C(n_last, 2), largest at i = 0.
        let reject = |i: u64| (last - pairs(n + g * i)) / last;
        let bound = reject(0);
        let mut i = 0u64;
        loop {
            // The next step that rejects with probability `bound`: a geometric skip.
            i += failures(rng, bound);
            if i >= steps - 1 {
                break; // the last step accepts every event
            }
            let p = reject(i);
            if unit_open0(rng) * bound <= p {
                events.failures.push((i, 1 + failures(rng, 1.0 - p)));
            }
            i += 1;
        }
        events
    }

    /// All the events the batch waits for.
    pub(super) fn total(&self) -> u64 {
        self.steps + self.failures.iter().map(|&(_, f)| f).sum::<u64>()
    }

    /// How many steps are done after `budget` events (`budget < total()`).
    pub(super) fn steps_within(&self, budget: u64) -> u64 {
        let mut used = 0u64; // events of the steps before `next`
        let mut next = 0u64;
        for &(step, f) in &self.failures {
            // Steps next..step wait one event each.
            if used + (step - next) > budget {
                return next + (budget - used);
            }
            used += step - next;
            next = step;
            if used + f + 1 > budget {
                return next;
            }
            used += f + 1;
            next += 1;
        }
        (next + (budget - used)).min(self.steps)
    }

    /// How many events the first `steps` steps wait for (the last of them is the `steps`-th
    /// step's own).
    pub(super) fn of_steps(&self, steps: u64) -> u64 {
        steps + self.failures.iter().take_while(|&&(step, _)| step < steps).map(|&(_, f)| f).sum::<u64>()
    }

    /// Gives back the list, for reuse.
    pub(super) fn into_list(self) -> Vec<(u64, u64)> {
        self.failures
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::SeedableRng;

    fn tail(n: u64, g: u64, k: u64) -> f64 {
        (0..k).map(|i| ((n - 2 * i) * (n - 2 * i - 1)) as f64 / ((n + g * i) * (n + g * i - 1)) as f64).product()
    }

    #[test]
    fn run_tail_matches_the_product() {
        for (n, g) in [(10, 1), (1000, 1), (1000, 3), (100_000, 2), (37, 5)] {
            for k in [1, 2, 5, 17, 40] {
                if 2 * k > n {
                    continue;
                }
                let exact = tail(n, g, k).ln();
                let got = ln_run_at_least(n, g, k);
                assert!((got - exact).abs() < 1e-9 * (1.0 + exact.abs()), "n {n} g {g} k {k}: {got} {exact}");
            }
        }
    }

    #[test]
    fn run_length_has_the_exact_law() {
        // Chi-square of 20,000 draws against P(L = k) at n = 60, g = 2 (alpha = 0.001).
        let (n, g, draws) = (60u64, 2u64, 20_000u64);
        let mut rng = PopRng::seed_from_u64(7);
        let mut seen = vec![0u64; 31];
        for _ in 0..draws {
            seen[growing_run(&mut rng, n, g) as usize] += 1;
        }
        let mut chi = 0.0;
        let mut cells = 0;
        for k in 1..=30u64 {
            let p = tail(n, g, k) - if k < 30 { tail(n, g, k + 1) } else { 0.0 };
            let expected = p * draws as f64;
            if expected < 5.0 {
                assert!((seen[k as usize] as f64) < expected + 30.0, "k {k}");
                continue;
            }
            chi += (seen[k as usize] as f64 - expected).powi(2) / expected;
            cells += 1;
        }
        // The 0.999 quantile of chi-square with at most 12 degrees of freedom is 32.9.
        assert!(cells <= 13 && chi < 32.9, "chi {chi} over {cells} cells");
    }

    #[test]
    fn thinned_events_have_the_mean_of_the_rates() {
        // Sum over steps of E[G_i] = C(n_last, 2) / C(n_i, 2), at n = 200, g = 3, 40 steps.
        let (n, g, steps) = (200u64, 3u64, 40u64);
        let expected: f64 = (0..steps).map(|i| pairs(n + g * (steps - 1)) / pairs(n + g * i)).sum();
        let mut rng = PopRng::seed_from_u64(3);
        let mut list = Vec::new();
        let (mut sum, mut sum2, reps) = (0.0, 0.0, 20_000);
        for _ in 0..reps {
            let events = Events::draw(&mut rng, n, g, steps, list);
            let t = events.total() as f64;
            sum += t;
            sum2 += t * t;
            list = events.into_list();
        }
        let mean = sum / reps as f64;
        let se = ((sum2 / reps as f64 - mean * mean) / reps as f64).sqrt();
        assert!((mean - expected).abs() < 3.3 * se, "mean {mean} expected {expected} se {se}");
    }

    #[test]
    fn steps_within_a_budget() {
        let events = Events { failures: vec![(2, 3), (5, 1)], steps: 8 };
        // Steps 0, 1 one event each; step 2 four; steps 3, 4 one; step 5 two; 6, 7 one.
        assert_eq!(events.total(), 12);
        let expected = [0, 1, 2, 2, 2, 2, 3, 4, 5, 5, 6, 7];
        for (budget, &steps) in expected.iter().enumerate() {
            assert_eq!(events.steps_within(budget as u64), steps, "budget {budget}");
        }
        // The events through each step: the step is done by its last one, not before.
        for steps in 1..=8 {
            let through = events.of_steps(steps);
            assert!(through == 12 || events.steps_within(through) == steps, "steps {steps}");
            assert_eq!(events.steps_within(through - 1), steps - 1, "steps {steps}");
        }
    }
}
