//! Exact expected steps to the safe set, and their variance, from the absorbing chain.
//!
//! # The linear systems
//! Make the safe set absorbing and let `T` be the steps to reach it. Over the transient (unsafe,
//! reachable) configurations, with `Q` the transition matrix restricted to them,
//! - `t = E[T]` solves `(I - Q) t = 1` (one step, then the expectation from where it lands; 0 in
//!   the safe set);
//! - `s = E[T^2]` solves `(I - Q) s = 2t - 1`: writing `T = 1 + T'`, `E[T^2] = 1 + 2 E[T'] +
//!   E[T'^2] = 1 + 2 (Q t) + Q s`, and `Q t = t - 1`;
//! - the variance is `s - t^2`.
//!
//! With the integer weights of [`Space`] each row reads `(D - w_ii) t_i - sum_{j != i} w_ij t_j = D`.
//!
//! # Finite or not
//! `t_i` is finite iff every configuration reachable from `i` can still reach the safe set. The
//! solver decides this exactly on the graph: a strongly connected component of transient
//! configurations with no edge out of it is a *trap* (the safe set is unreachable from it), and a
//! component with an edge to an infinite configuration is infinite too. Infinite values are
//! `f64::INFINITY`; [`ExactReport`] then says so and gives a schedule into a trap.
//!
//! # The solver
//! Components are solved one at a time, sinks first (Tarjan's order), each with the values of the
//! components below it already known:
//! - one configuration: `t_i = (D + sum_j w_ij t_j) / (D - w_ii)`;
//! - up to `DENSE_LIMIT` configurations: Gaussian elimination in the subtraction-free form of
//!   Grassmann, Taksar and Heyman (GTH): the pivot `D - w_kk` of the reduced chain is computed as
//!   the sum of the weights leaving `k` (to the rest of the component and out of it), so every
//!   operation adds or multiplies nonnegative numbers and the result has a small *relative* error
//!   even when expected times are huge;
//! - larger components: Gauss-Seidel sweeps until the residual certificate below is met.
//!
//! # The error bound (a certificate, computed after solving)
//! For computed `t^` let `r = (I - Q) t^ - 1` be the residual and `delta = max |r_i|`. The error
//! `t^ - t = N r` with `N = (I - Q)^{-1} >= 0` entrywise, so `|t^ - t| <= delta N 1 = delta t`
//! componentwise: `delta` bounds the *relative* error of every expected time. For the second
//! moment, with `delta2` the residual of its system relative to its right-hand side,
//! `|s^ - s| <= (2 delta + delta2 (1 + 2 delta)) s` (using `t >= 1` on transient configurations).
//! [`HittingTimes::relative_error_bound`] is the first bound, [`HittingTimes::second_moment_error_bound`]
//! the second; the iterative solver stops when the first is below [`TARGET_RELATIVE_ERROR`].

use super::ExploreSettings;
use super::Starts;
use super::report::Counterexample;
use super::scc::components;
use super::space::Space;
use crate::error::{Error, Result};
use crate::protocol::Protocol;

/// Components up to this size are solved by dense elimination (O(m^3)); larger ones iteratively.
pub const DENSE_LIMIT: usize = 2500;

/// The relative accuracy the iterative solver must certify.
pub const TARGET_RELATIVE_ERROR: f64 = 1e-10;

/// Sweeps after which the iterative solver gives up with an error.
const MAX_SWEEPS: usize = 1_000_000;

/// Expected steps to the safe set (and second moments) of every explored configuration.
#[derive(Clone, Debug)]
pub struct HittingTimes {
    /// `E[T]` per configuration: 0 in the safe set, infinite where the safe set is not reached with
    /// probability 1.
    pub mean: Vec<f64>,
    /// `E[T^2]` per configuration.
    pub second_moment: Vec<f64>,
    /// A certified bound on the relative error of every finite `mean` (see the module docs).
    pub relative_error_bound: f64,
    /// A certified bound on the relative error of every finite `second_moment`.
    pub second_moment_error_bound: f64,
    /// Transient (unsafe) configurations.
    pub transient: usize,
    /// The size of the largest strongly connected component of transient configurations.
    pub largest_component: usize,
    /// Components solved by Gauss-Seidel (larger than `DENSE_LIMIT`).
    pub iterative_components: usize,
    /// Some configuration of a trap (a closed set of unsafe configurations), the first in
    /// breadth-first order.
    pub trap: Option<u32>,
}

/// Solves for the hitting times of the safe set on an explored space (safe configurations need not
/// be expanded).
pub fn hitting_times<P: Protocol>(space: &Space<'_, P>) -> Result<HittingTimes> {
    let len = space.len();
    let d = space.denominator() as f64;
    let (comps, component_of) = components(space, |i| !space.is_safe(i));
    let mut mean = vec![0.0f64; len];
    let mut second = vec![0.0f64; len];
    let mut position = vec![u32::MAX; len];
    let mut largest = 0;
    let mut iterative = 0;
    let mut trap: Option<u32> = None;
    for (number, comp) in comps.iter().enumerate() {
        let number = number as u32;
        largest = largest.max(comp.len());
        // Exits: weight out of the component, and whether an exit leads to an infinite value.
        let mut exit_weight = 0u64;
        let mut infinite = false;
        for &i in comp {
            for (j, w) in space.successors(i) {
                if component_of[j as usize] != number {
                    exit_weight += u64::from(w);
                    infinite |= mean[j as usize].is_infinite();
                }
            }
        }
        if exit_weight == 0 || infinite {
            if exit_weight == 0 {
                let first = *comp.iter().min().expect("components are non-empty");
                trap = Some(trap.map_or(first, |t| t.min(first)));
            }
            for &i in comp {
                mean[i as usize] = f64::INFINITY;
                second[i as usize] = f64::INFINITY;
            }
            continue;
        }
        // Right-hand sides from outside the component (safe configurations contribute 0).
        let outside = |values: &[f64], i: u32| -> f64 {
            space
                .successors(i)
                .filter(|&(j, _)| component_of[j as usize] != number)
                .map(|(j, w)| f64::from(w) * values[j as usize])
                .sum::<f64>()
        };
        if comp.len() == 1 {
            let i = comp[0];
            let pivot = d - f64::from(space.self_weight(i));
            mean[i as usize] = (d + outside(&mean, i)) / pivot;
            second[i as usize] = (d * (2.0 * mean[i as usize] - 1.0) + outside(&second, i)) / pivot;
            continue;
        }
        for (k, &i) in comp.iter().enumerate() {
            position[i as usize] = k as u32;
        }
        let b: Vec<f64> = comp.iter().map(|&i| d + outside(&mean, i)).collect();
        if comp.len() <= DENSE_LIMIT {
            let factors = Gth::factor(space, comp, &position, number, &component_of);
            let t = factors.solve(b);
            for (k, &i) in comp.iter().enumerate() {
                mean[i as usize] = t[k];
            }
            let b2: Vec<f64> = comp.iter().map(|&i| d * (2.0 * mean[i as usize] - 1.0) + outside(&second, i)).collect();
            let s = factors.solve(b2);
            for (k, &i) in comp.iter().enumerate() {
                second[i as usize] = s[k];
            }
        } else {
            iterative += 1;
            gauss_seidel(space, comp, &position, &b, &mut mean, d)?;
            let b2: Vec<f64> = comp.iter().map(|&i| d * (2.0 * mean[i as usize] - 1.0) + outside(&second, i)).collect();
            gauss_seidel(space, comp, &position, &b2, &mut second, d)?;
        }
    }
    let (delta, delta2) = residuals(space, &mean, &second, d);
    Ok(HittingTimes {
        mean,
        second_moment: second,
        relative_error_bound: delta,
        second_moment_error_bound: 2.0 * delta + delta2 * (1.0 + 2.0 * delta),
        transient: comps.iter().map(Vec::len).sum(),
        largest_component: largest,
        iterative_components: iterative,
        trap,
    })
}

/// The largest residuals of both systems, relative to their right-hand sides, over the finite
/// transient configurations.
fn residuals<P: Protocol>(space: &Space<'_, P>, mean: &[f64], second: &[f64], d: f64) -> (f64, f64) {
    let mut delta: f64 = 0.0;
    let mut delta2: f64 = 0.0;
    for i in 0..space.len() as u32 {
        let t = mean[i as usize];
        if space.is_safe(i) || !t.is_finite() {
            continue;
        }
        let pivot = d - f64::from(space.self_weight(i));
        let flow_t: f64 = space.successors(i).map(|(j, w)| f64::from(w) * mean[j as usize]).sum();
        let flow_s: f64 = space.successors(i).map(|(j, w)| f64::from(w) * second[j as usize]).sum();
        delta = delta.max((pivot * t - flow_t - d).abs() / d);
        let rhs2 = d * (2.0 * t - 1.0);
        delta2 = delta2.max((pivot * second[i as usize] - flow_s - rhs2).abs() / rhs2);
    }
    (delta, delta2)
}

/// Gauss-Seidel on one component until the relative residual is below the target.
fn gauss_seidel<P: Protocol>(
    space: &Space<'_, P>,
    comp: &[u32],
    position: &[u32],
    b: &[f64],
    values: &mut [f64],
    d: f64,
) -> Result<()> {
    let in_comp = |j: u32| position[j as usize] != u32::MAX && comp.get(position[j as usize] as usize) == Some(&j);
    for &i in comp {
        values[i as usize] = 0.0;
    }
    for sweep in 0..MAX_SWEEPS {
        for (k, &i) in comp.iter().enumerate() {
            let inner: f64 =
                space.successors(i).filter(|&(j, _)| in_comp(j)).map(|(j, w)| f64::from(w) * values[j as usize]).sum();
            values[i as usize] = (b[k] + inner) / (d - f64::from(space.self_weight(i)));
        }
        if sweep % 8 == 7 {
            let mut worst: f64 = 0.0;
            for (k, &i) in comp.iter().enumerate() {
                let inner: f64 = space
                    .successors(i)
                    .filter(|&(j, _)| in_comp(j))
                    .map(|(j, w)| f64::from(w) * values[j as usize])
                    .sum();
                let pivot = d - f64::from(space.self_weight(i));
                worst = worst.max((pivot * values[i as usize] - inner - b[k]).abs() / b[k]);
            }
            if worst <= TARGET_RELATIVE_ERROR / 10.0 {
                return Ok(());
            }
        }
    }
    Err(Error::Limit {
        reason: format!(
            "the iterative solver did not reach a relative accuracy of {TARGET_RELATIVE_ERROR:e} on a component of {} \
             configurations within {MAX_SWEEPS} sweeps; lower n or the protocol's parameters",
            comp.len()
        ),
    })
}

/// The GTH factorization of one component: `a[i][k]` (i > k) holds the multipliers, `a[k][j]`
/// (j > k) the reduced rows, `pivot[k]` the subtraction-free pivots.
struct Gth {
    m: usize,
    a: Vec<f64>,
    pivot: Vec<f64>,
}

impl Gth {
    fn factor<P: Protocol>(
        space: &Space<'_, P>,
        comp: &[u32],
        position: &[u32],
        number: u32,
        component_of: &[u32],
    ) -> Self {
        let m = comp.len();
        let mut a = vec![0.0f64; m * m];
        let mut exit = vec![0.0f64; m];
        for (k, &i) in comp.iter().enumerate() {
            for (j, w) in space.successors(i) {
                if component_of[j as usize] == number {
                    a[k * m + position[j as usize] as usize] += f64::from(w);
                } else {
                    exit[k] += f64::from(w);
                }
            }
        }
        let mut pivot = vec![0.0f64; m];
        for k in 0..m {
            let (done, rest) = a.split_at_mut((k + 1) * m);
            let row_k = &done[k * m..];
            pivot[k] = exit[k] + row_k[k + 1..].iter().sum::<f64>();
            for i in k + 1..m {
                let row_i = &mut rest[(i - k - 1) * m..(i - k) * m];
                let aik = row_i[k];
                if aik == 0.0 {
                    continue;
                }
                let f = aik / pivot[k];
                row_i[k] = f;
                for j in k + 1..m {
                    if j != i {
                        row_i[j] += f * row_k[j];
                    }
                }
                exit[i] += f * exit[k];
            }
        }
        Gth { m, a, pivot }
    }

    #[allow(clippy::needless_range_loop)] // the multipliers are a column of the factor
    fn solve(&self, mut b: Vec<f64>) -> Vec<f64> {
        let m = self.m;
        for k in 0..m {
            let bk = b[k];
            for i in k + 1..m {
                let f = self.a[i * m + k];
                if f != 0.0 {
                    b[i] += f * bk;
                }
            }
        }
        let mut x = vec![0.0f64; m];
        for k in (0..m).rev() {
            let row = &self.a[k * m..(k + 1) * m];
            let flow: f64 = (k + 1..m).map(|j| row[j] * x[j]).sum();
            x[k] = (b[k] + flow) / self.pivot[k];
        }
        x
    }
}

/// The exact expected steps from one start configuration to the safe set.
#[derive(Clone, Debug)]
pub struct ExactReport<S> {
    /// Configurations explored (safe ones are absorbing and not expanded).
    pub configurations: usize,
    /// Transient (unsafe) configurations among them.
    pub transient: usize,
    /// Edges between distinct configurations.
    pub transitions: usize,
    /// `E[T]` in steps (infinite if the safe set is not reached with probability 1).
    pub expected_steps: f64,
    /// `Var[T]` in steps^2.
    pub variance_steps: f64,
    /// `E[T] / n`.
    pub expected_parallel_time: f64,
    /// Certified bound on the relative error of `expected_steps`.
    pub relative_error_bound: f64,
    /// Certified bound on the absolute error of `variance_steps`.
    pub variance_error_bound: f64,
    /// The largest strongly connected component of transient configurations.
    pub largest_component: usize,
    /// How the system was solved: `"gth"` (direct elimination throughout), `"gth+gauss-seidel"`,
    /// or for holding times `"sparse-gth+refinement"` (`"sparse-gth"` when infinite).
    pub solver: &'static str,
    /// When `expected_steps` is infinite: a shortest schedule from the start into a trap (a closed
    /// set of unsafe configurations; for a holding time, a configuration from which no output ever
    /// changes).
    pub trap: Option<Counterexample<S>>,
}

impl<S> ExactReport<S> {
    /// The same report with the trap's states converted by `f` (for example to JSON).
    pub fn map<T>(self, f: &impl Fn(S) -> T) -> ExactReport<T> {
        ExactReport {
            configurations: self.configurations,
            transient: self.transient,
            transitions: self.transitions,
            expected_steps: self.expected_steps,
            variance_steps: self.variance_steps,
            expected_parallel_time: self.expected_parallel_time,
            relative_error_bound: self.relative_error_bound,
            variance_error_bound: self.variance_error_bound,
            largest_component: self.largest_component,
            solver: self.solver,
            trap: self.trap.map(|t| t.map(f)),
        }
    }
}

/// Explores from `start` (the safe set absorbing) and solves for the expected steps to the safe set
/// and their variance.
///
/// ```
/// use poplab::exact::{ExploreSettings, expected_steps};
/// use poplab::protocol::{Params, Protocol};
/// use poplab::protocols::angluin::Angluin;
///
/// // angluin from 30 leaders: exactly (n - 1)^2 = 841 expected steps.
/// let protocol = Angluin::new(30, &Params::default())?;
/// let report = expected_steps(&protocol, &protocol.initial_configuration(), &ExploreSettings::default())?;
/// assert!((report.expected_steps - 841.0).abs() < 1e-9);
/// assert!(report.relative_error_bound < 1e-12);
/// assert_eq!(report.configurations, 30); // multisets with 30, 29, ..., 1 leaders
/// # Ok::<(), poplab::Error>(())
/// ```
pub fn expected_steps<P: Protocol>(
    protocol: &P,
    start: &[P::State],
    settings: &ExploreSettings,
) -> Result<ExactReport<P::State>> {
    let space = Space::explore(protocol, &Starts::Configurations(vec![start.to_vec()]), settings, false)?;
    let times = hitting_times(&space)?;
    let origin = space.starts()[0];
    let t = times.mean[origin as usize];
    let s = times.second_moment[origin as usize];
    let variance = if t.is_finite() { (s - t * t).max(0.0) } else { f64::INFINITY };
    let delta = times.relative_error_bound;
    let trap = (!t.is_finite())
        .then(|| trap_counterexample(&space, times.trap.expect("an infinite expectation comes from a trap")));
    Ok(ExactReport {
        configurations: space.len(),
        transient: times.transient,
        transitions: space.edges(),
        expected_steps: t,
        variance_steps: variance,
        expected_parallel_time: t / protocol.n() as f64,
        relative_error_bound: delta,
        variance_error_bound: if t.is_finite() {
            times.second_moment_error_bound * s + (2.0 * delta + delta * delta) * t * t
        } else {
            0.0
        },
        largest_component: times.largest_component,
        solver: if times.iterative_components > 0 { "gth+gauss-seidel" } else { "gth" },
        trap,
    })
}

/// A shortest schedule from a start into the trap configuration `target` (from which the safe set
/// is unreachable).
pub(super) fn trap_counterexample<P: Protocol>(space: &Space<'_, P>, target: u32) -> Counterexample<P::State> {
    let path = space.schedule_to(target);
    Counterexample {
        reason: "the safe set is unreachable from the configuration this schedule leads to".into(),
        start: path.start,
        schedule: path.schedule,
        end: path.end,
    }
}
