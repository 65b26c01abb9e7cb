//! Exact expected holding time: the steps from a safe configuration until the first interaction
//! that changes some agent's output (what `poplab run --measure holding` samples).
//!
//! # The chain
//! [`Space::explore_holding`] explores from the start with every configuration expanded (the safe
//! set is not absorbing here). An interaction whose pair's outputs ([`Protocol::output`]) before
//! and after differ does not lead to a configuration but to one absorbing state, *broken*; every
//! other interaction moves between configurations as in [`expected_steps`](super::expected_steps)
//! (self-loops included). The holding time `H` is the number of steps to absorption, the breaking
//! interaction included, exactly as the engines count it (`Watch::OutputChange`). With `A` the
//! integer-weight matrix `D (I - Q)` over all explored configurations (`Q`: the transitions that
//! keep the outputs), `E[H]` solves `A h = D 1` and `E[H^2]` solves `A s = D (2h - 1)` (the
//! derivation in `solve.rs`). `h` is finite iff every explored configuration can still reach
//! *broken*; otherwise the report is infinite and gives a schedule to a configuration from which
//! no output ever changes.
//!
//! # Why a different solver
//! Holding times of loosely-stabilizing protocols are long: `10^12` steps or more for `ls-timer`
//! at `n = 4` and timers of 16 or 20. Then `A` is nearly singular (its smallest singular value
//! is about `D / E[H]`) and Gauss-Seidel needs about `E[H] / (mixing time)` sweeps. The chain is
//! also one strongly connected component of tens of thousands of configurations, beyond dense
//! elimination. So the system is solved by *sparse* state reduction in the subtraction-free form
//! of Grassmann, Taksar and Heyman (W. K. Grassmann, M. I. Taksar, D. P. Heyman, "Regenerative
//! analysis and steady state distributions for Markov chains", Operations Research 33:1107-1116,
//! 1985): configurations are eliminated one at a time, each pivot being the total weight leaving
//! the configuration in the reduced chain (to configurations not yet eliminated and to *broken*),
//! never `D - w_kk`; the elimination order is a greedy minimum-degree order (smallest
//! in-degree x out-degree first) to limit fill-in. Every operation of the factorization and of the
//! solves with a nonnegative right-hand side adds or multiplies nonnegative numbers, so each
//! computed expectation has a small *relative* error however large it is (C. A. O'Cinneide,
//! "Entrywise perturbation theory and error analysis for Markov chains", Numer. Math. 65:109-120,
//! 1993).
//!
//! # Refinement and the certificate
//! Even the correctly rounded `h` in `f64` leaves a residual `A h^ - D 1` of about
//! `2^-53 E[H] D`, so a residual certificate in double precision could not go below about
//! `10^-4` at `E[H] = 10^12`. The solution is therefore kept in double-double (a pair `hi + lo`)
//! and refined: the residual `r = A h^ - D 1` is computed with error-free transformations (an
//! FMA for each product, a compensated sum), the correction `A^{-1} r` is solved with the same
//! factors (as `A^{-1} r+ - A^{-1} r-`, both subtraction-free), and subtracted. Each round
//! multiplies the error by about `E[H] x 2^-53 x (a small factor)`, so a few rounds suffice up to
//! about `10^14` steps. The certificate is then that of `solve.rs`: with `delta = max |r_i| / D`
//! (each `|r_i|` increased by a bound on the rounding of its own computation),
//! `|h^ - h| <= delta h` componentwise because `A^{-1} >= 0`; the reported bound adds the final
//! rounding of `h^` to `f64`. The second moment is refined and certified the same way.

use super::hash::FastMap;
use super::report::Counterexample;
use super::scc::components;
use super::solve::ExactReport;
use super::space::{Path, Space};
use super::{ExploreSettings, Starts};
use crate::error::{Error, Result};
use crate::protocol::{Monitor, Protocol};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Refinement rounds at most.
const MAX_ROUNDS: usize = 12;

/// Refinement stops once the certified relative error is below this.
const REFINED_ENOUGH: f64 = 1e-14;

/// The unit roundoff of `f64`.
const EPS: f64 = f64::EPSILON / 2.0;

/// The exact expected holding time from `start`, a safe configuration: the expected number of
/// steps until the first interaction that changes some agent's output, and its variance (see the
/// module docs of `holding.rs` for the chain, the solver and the certified error bound). An
/// unsafe start is an input error.
///
/// ```
/// use poplab::exact::{ExploreSettings, expected_holding_steps};
/// use poplab::protocol::{Configurations, Params};
/// use poplab::protocols::ls_timer::LsTimer;
/// use poplab::rng::TrialStreams;
///
/// // ls-timer with 4 agents and timers of length s = 8, from one leader and full timers.
/// let protocol = LsTimer::new(4, &Params::parse(&["s=8"])?)?;
/// let safe = protocol.family_configuration("safe", &mut TrialStreams::new(0).init).unwrap();
/// let report = expected_holding_steps(&protocol, &safe, &ExploreSettings::default())?;
/// assert!((report.expected_steps - 64_431.72).abs() < 0.01);
/// assert_eq!(report.configurations, 109);
/// # Ok::<(), poplab::Error>(())
/// ```
pub fn expected_holding_steps<P: Protocol>(
    protocol: &P,
    start: &[P::State],
    settings: &ExploreSettings,
) -> Result<ExactReport<P::State>> {
    if start.len() == protocol.n() && !protocol.monitor(start, &settings.graph).is_safe() {
        let hint = if protocol.info().families.iter().any(|f| f.name == "safe") {
            "give a safe start, such as --init safe"
        } else {
            "give a safe start with --init (a family or @FILE.json)"
        };
        return Err(Error::Init(format!(
            "the holding time is measured from a safe configuration and this start is not safe; {hint}"
        )));
    }
    let space = Space::explore_holding(protocol, &Starts::Configurations(vec![start.to_vec()]), settings)?;
    let origin = space.starts()[0];
    let m = space.len();
    let (comps, _) = components(&space, |_| true);
    let largest = comps.iter().map(Vec::len).max().unwrap_or(0);
    let base = |solver| ExactReport {
        configurations: m,
        transient: m,
        transitions: space.edges(),
        expected_steps: f64::INFINITY,
        variance_steps: f64::INFINITY,
        expected_parallel_time: f64::INFINITY,
        relative_error_bound: 0.0,
        variance_error_bound: 0.0,
        largest_component: largest,
        solver,
        trap: None,
    };
    if let Some(stuck) = first_without_break(&space) {
        let Path { start, schedule, end } = space.schedule_to(stuck);
        return Ok(ExactReport {
            trap: Some(Counterexample {
                reason: "no interaction ever changes an output from the configuration this schedule leads to, so \
                         the holding time is infinite"
                    .into(),
                start,
                schedule,
                end,
            }),
            ..base("sparse-gth")
        });
    }
    let d = space.denominator() as f64;
    let factors = SparseGth::factor(&space);
    let ones = vec![d; m];
    let (h, delta) = refine(&space, &factors, &ones);
    let h_f: Vec<f64> = h.iter().map(|x| x.0 + x.1).collect();
    // The right-hand side of the second moment, rounded once (relative error <= EPS + delta).
    let rhs2: Vec<f64> = h_f.iter().map(|&t| d * (2.0 * t - 1.0)).collect();
    let (s, delta2) = refine(&space, &factors, &rhs2);
    let t = h_f[origin as usize];
    let second = s[origin as usize].0 + s[origin as usize].1;
    let delta_t = delta + 2.0 * EPS;
    // E[H^2]: the right-hand side is 2h - 1 up to (2 delta_t + EPS) relatively (h >= 1), so the
    // computed s is within (2 delta_t + EPS) + delta2 (1 + 2 delta_t + EPS) + EPS of s.
    let delta_s = 2.0 * delta_t + EPS + delta2 * (1.0 + 2.0 * delta_t + EPS) + EPS;
    Ok(ExactReport {
        expected_steps: t,
        variance_steps: (second - t * t).max(0.0),
        expected_parallel_time: t / protocol.n() as f64,
        relative_error_bound: delta_t,
        variance_error_bound: delta_s * second + (2.0 * delta_t + delta_t * delta_t) * t * t,
        ..base("sparse-gth+refinement")
    })
}

/// The first configuration (in breadth-first order) from which no output-changing interaction
/// can be reached, if any.
fn first_without_break<P: Protocol>(space: &Space<'_, P>) -> Option<u32> {
    let m = space.len();
    let mut predecessors: Vec<Vec<u32>> = vec![Vec::new(); m];
    for i in 0..m as u32 {
        for (j, _) in space.successors(i) {
            predecessors[j as usize].push(i);
        }
    }
    let mut reaches = vec![false; m];
    let mut queue: Vec<u32> = (0..m as u32).filter(|&i| space.broken_weight(i) > 0).collect();
    for &i in &queue {
        reaches[i as usize] = true;
    }
    while let Some(j) = queue.pop() {
        for &i in &predecessors[j as usize] {
            if !reaches[i as usize] {
                reaches[i as usize] = true;
                queue.push(i);
            }
        }
    }
    reaches.iter().position(|&r| !r).map(|i| i as u32)
}

/// A double-double number `hi + lo`.
type Dd = (f64, f64);

/// Error-free sum: `a + b = s + e` exactly.
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// A compensated accumulator of exact products: the value is `hi + lo`; `bound` collects the
/// magnitudes of what was added (for the rounding bound of the accumulation itself).
#[derive(Default)]
struct Acc {
    hi: f64,
    lo: f64,
    bound: f64,
    terms: usize,
}

impl Acc {
    fn add(&mut self, x: f64) {
        let (s, e) = two_sum(self.hi, x);
        self.hi = s;
        self.lo += e;
        self.bound += x.abs();
        self.terms += 1;
    }

    /// Adds `w * (x.0 + x.1)` (the product `w * x.0` exactly, through an FMA).
    fn add_product(&mut self, w: f64, x: Dd) {
        let p = w * x.0;
        self.add(p);
        self.add(w.mul_add(x.0, -p));
        self.add(w * x.1);
    }

    /// The value, and a bound on its error: the compensated sum is within about
    /// `(terms + 2) EPS^2 sum |terms|` of the exact sum plus `EPS |value|` from the final rounding.
    fn value(&self) -> (f64, f64) {
        let v = self.hi + self.lo;
        (v, 2.0 * EPS * v.abs() + (self.terms as f64 + 4.0) * EPS * EPS * self.bound * 4.0)
    }
}

/// Solves `A x = b` (`b > 0`) with iterative refinement in double-double; returns `x` and the
/// certified relative error `delta = max_i |(A x - b)_i| / b_i` (each residual increased by the
/// bound on its own rounding): `|x^ - x| <= A^{-1} |r| <= delta A^{-1} b = delta x`.
fn refine<P: Protocol>(space: &Space<'_, P>, factors: &SparseGth, b: &[f64]) -> (Vec<Dd>, f64) {
    let m = b.len();
    let mut x: Vec<Dd> = factors.solve(b.to_vec()).into_iter().map(|v| (v, 0.0)).collect();
    let mut best = (x.clone(), f64::INFINITY);
    for _ in 0..MAX_ROUNDS {
        let mut plus = vec![0.0f64; m];
        let mut minus = vec![0.0f64; m];
        let mut delta: f64 = 0.0;
        for i in 0..m as u32 {
            let k = i as usize;
            let mut acc = Acc::default();
            let pivot = space.denominator() as f64 - f64::from(space.self_weight(i));
            acc.add_product(pivot, x[k]);
            for (j, w) in space.successors(i) {
                acc.add_product(-f64::from(w), x[j as usize]);
            }
            acc.add(-b[k]);
            let (r, err) = acc.value();
            if r > 0.0 {
                plus[k] = r;
            } else {
                minus[k] = -r;
            }
            delta = delta.max((r.abs() + err) / b[k]);
        }
        if delta < best.1 {
            best = (x.clone(), delta);
        } else {
            break;
        }
        if delta <= REFINED_ENOUGH {
            break;
        }
        let up = factors.solve(plus);
        let down = factors.solve(minus);
        for k in 0..m {
            let (s, e) = two_sum(x[k].0, -(up[k] - down[k]));
            let (hi, lo) = two_sum(s, e + x[k].1);
            x[k] = (hi, lo);
        }
    }
    best
}

/// The sparse GTH factorization of `A` over all configurations of a holding space, in
/// elimination order.
struct SparseGth {
    order: Vec<u32>,
    pivot: Vec<f64>,
    /// Per eliminated configuration (in order), its reduced row: (column, weight), columns
    /// eliminated later.
    rows: Vec<Vec<(u32, f64)>>,
    /// Per eliminated configuration, the multipliers `a_ik / pivot_k` of the rows it was
    /// eliminated from.
    multipliers: Vec<Vec<(u32, f64)>>,
}

impl SparseGth {
    fn factor<P: Protocol>(space: &Space<'_, P>) -> Self {
        let m = space.len();
        let mut out: Vec<FastMap<u32, f64>> = Vec::with_capacity(m);
        let mut inn: Vec<FastMap<u32, ()>> = vec![FastMap::default(); m];
        let mut exit: Vec<f64> = Vec::with_capacity(m);
        for i in 0..m as u32 {
            let mut row = FastMap::default();
            for (j, w) in space.successors(i) {
                row.insert(j, f64::from(w));
                inn[j as usize].insert(i, ());
            }
            out.push(row);
            exit.push(f64::from(space.broken_weight(i)));
        }
        let score = |out: &[FastMap<u32, f64>], inn: &[FastMap<u32, ()>], k: usize| {
            (out[k].len() as u64) * (inn[k].len() as u64)
        };
        let mut heap: BinaryHeap<Reverse<(u64, u32)>> =
            (0..m).map(|k| Reverse((score(&out, &inn, k), k as u32))).collect();
        let mut done = vec![false; m];
        let mut factors = SparseGth {
            order: Vec::with_capacity(m),
            pivot: Vec::with_capacity(m),
            rows: Vec::with_capacity(m),
            multipliers: Vec::with_capacity(m),
        };
        while let Some(Reverse((s, k))) = heap.pop() {
            let ku = k as usize;
            if done[ku] {
                continue;
            }
            let now = score(&out, &inn, ku);
            if now > s {
                heap.push(Reverse((now, k)));
                continue;
            }
            done[ku] = true;
            let row: Vec<(u32, f64)> = std::mem::take(&mut out[ku]).into_iter().collect();
            let pivot = exit[ku] + row.iter().map(|&(_, w)| w).sum::<f64>();
            let sources: Vec<u32> = std::mem::take(&mut inn[ku]).into_keys().collect();
            let mut mults = Vec::with_capacity(sources.len());
            for &i in &sources {
                let iu = i as usize;
                let aik = out[iu].remove(&k).expect("an in-edge has its out-edge");
                let f = aik / pivot;
                mults.push((i, f));
                exit[iu] += f * exit[ku];
                for &(j, akj) in &row {
                    if j != i {
                        *out[iu].entry(j).or_insert(0.0) += f * akj;
                        inn[j as usize].insert(i, ());
                    }
                }
            }
            for &(j, _) in &row {
                inn[j as usize].remove(&k);
            }
            factors.order.push(k);
            factors.pivot.push(pivot);
            factors.rows.push(row);
            factors.multipliers.push(mults);
        }
        factors
    }

    /// `A^{-1} b` for `b >= 0` (subtraction-free).
    fn solve(&self, mut b: Vec<f64>) -> Vec<f64> {
        for (step, &k) in self.order.iter().enumerate() {
            let bk = b[k as usize];
            if bk != 0.0 {
                for &(i, f) in &self.multipliers[step] {
                    b[i as usize] += f * bk;
                }
            }
        }
        let mut x = vec![0.0f64; b.len()];
        for (step, &k) in self.order.iter().enumerate().rev() {
            let flow: f64 = self.rows[step].iter().map(|&(j, w)| w * x[j as usize]).sum();
            x[k as usize] = (b[k as usize] + flow) / self.pivot[step];
        }
        x
    }
}
