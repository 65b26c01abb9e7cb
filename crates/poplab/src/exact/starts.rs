//! Expected steps to the safe set from every start of a set: the absorbing chain of
//! [`expected_steps`](super::expected_steps), explored from all the starts at once and solved once
//! (its solution holds every transient configuration's value), then read at each start.
//!
//! A claim "from any configuration" bounds the *worst* start; this gives it exactly for small
//! populations, with the best start, quantiles over the starts, and the value of named starts (a
//! protocol's families) to show how far they are from the worst.
//!
//! On the complete graph a start is a multiset of states, counted once whatever the number of
//! agent vectors it stands for: quantiles and the mean over starts weigh every multiset alike.
//! [`StartTimes::uniform_states`] is the other average: the expectation when every agent's state is
//! drawn uniformly from the listed states (`--init random`), each multiset weighted by its
//! multinomial probability.

use super::report::Counterexample;
use super::solve::{hitting_times, trap_counterexample};
use super::space::{Representation, Space};
use super::{ExploreSettings, Starts};
use crate::error::Result;
use crate::protocol::Protocol;

/// How many worst starts are listed; further ties are counted ([`StartTimes::worst_ties`]).
pub const WORST_LISTED: usize = 5;

/// The quantiles reported over the starts.
pub const QUANTILES: [f64; 5] = [0.1, 0.25, 0.5, 0.75, 0.9];

/// One start and its expected steps to the safe set.
#[derive(Clone, Debug, PartialEq)]
pub struct StartTime<S> {
    /// The start as an agent vector (for a multiset, its states in the order they were met).
    pub start: Vec<S>,
    /// `E[T]` in steps (infinite if the safe set is not reached with probability 1).
    pub expected_steps: f64,
    /// The standard deviation of `T` in steps.
    pub std_steps: f64,
}

/// The expected steps to the safe set from every start of a set.
#[derive(Clone, Debug)]
pub struct StartTimes<S> {
    /// Configurations explored (the starts and what they reach; safe ones are absorbing).
    pub configurations: usize,
    /// Transient (unsafe) configurations among them.
    pub transient: usize,
    /// Edges between distinct configurations.
    pub transitions: usize,
    /// The number of starts.
    pub starts: usize,
    /// Starts already in the safe set (0 steps).
    pub safe_starts: usize,
    /// Starts from which the safe set is not reached with probability 1.
    pub infinite_starts: usize,
    /// The starts with the largest expectation (ties within the error bound), up to
    /// [`WORST_LISTED`], in breadth-first order.
    pub worst: Vec<StartTime<S>>,
    /// How many starts share the worst value.
    pub worst_ties: usize,
    /// The unsafe start with the smallest expectation (`None` when every start is safe).
    pub best: Option<StartTime<S>>,
    /// `(q, value)` for each of the quantiles 0.1, 0.25, 0.5, 0.75 and 0.9 of the starts (nearest
    /// rank).
    pub quantiles: Vec<(f64, f64)>,
    /// The mean of the expectations over the starts, each start counted once.
    pub mean_over_starts: f64,
    /// From every configuration over listed states: the expectation when each agent's state is
    /// drawn uniformly from them (`None` for a given set of starts).
    pub uniform_states: Option<f64>,
    /// The named starts given, each with its value, or `None` when it is not among the starts.
    pub named: Vec<(String, Option<StartTime<S>>)>,
    /// A certified bound on the relative error of every finite expectation.
    pub relative_error_bound: f64,
    /// The largest strongly connected component of transient configurations.
    pub largest_component: usize,
    /// `"gth"` or `"gth+gauss-seidel"`, as for [`super::ExactReport::solver`].
    pub solver: &'static str,
    /// When some start is infinite: a shortest schedule from a start into a trap.
    pub trap: Option<Counterexample<S>>,
}

impl<S> StartTimes<S> {
    /// The same result with every state converted by `f` (for example to JSON).
    pub fn map<T>(self, f: &impl Fn(S) -> T) -> StartTimes<T> {
        let start = |t: StartTime<S>| StartTime {
            start: t.start.into_iter().map(f).collect(),
            expected_steps: t.expected_steps,
            std_steps: t.std_steps,
        };
        StartTimes {
            configurations: self.configurations,
            transient: self.transient,
            transitions: self.transitions,
            starts: self.starts,
            safe_starts: self.safe_starts,
            infinite_starts: self.infinite_starts,
            worst: self.worst.into_iter().map(start).collect(),
            worst_ties: self.worst_ties,
            best: self.best.map(start),
            quantiles: self.quantiles,
            mean_over_starts: self.mean_over_starts,
            uniform_states: self.uniform_states,
            named: self.named.into_iter().map(|(name, t)| (name, t.map(start))).collect(),
            relative_error_bound: self.relative_error_bound,
            largest_component: self.largest_component,
            solver: self.solver,
            trap: self.trap.map(|t| t.map(f)),
        }
    }

    /// The worst expectation (the first of [`StartTimes::worst`]).
    pub fn worst_steps(&self) -> f64 {
        self.worst.first().map_or(0.0, |t| t.expected_steps)
    }
}

/// Explores from every start of `starts` (the safe set absorbing), solves for the expected steps
/// to the safe set once, and reads them at every start and at each `named` configuration.
///
/// ```
/// use poplab::exact::{ExploreSettings, Starts, expected_steps_from_every};
/// use poplab::protocol::{Params, Protocol};
/// use poplab::protocols::ls_timer::{LsState, LsTimer};
///
/// // ls-timer at n = 3 with timers 0..=4: every multiset of its 10 states.
/// let protocol = LsTimer::new(3, &Params::parse(&["s=4".to_string()])?)?;
/// let states: Vec<LsState> =
///     [false, true].iter().flat_map(|&leader| (0..=4).map(move |timer| LsState { leader, timer })).collect();
/// let named = vec![("default".to_string(), protocol.initial_configuration())];
/// let times = expected_steps_from_every(&protocol, &Starts::Every(states), &named, &ExploreSettings::default())?;
/// assert_eq!(times.starts, 220); // C(10 + 3 - 1, 3)
/// // No start is slower than the worst, and the default start is one of the starts.
/// let default = times.named[0].1.as_ref().unwrap();
/// assert!(default.expected_steps <= times.worst_steps());
/// assert!(times.quantiles.iter().all(|&(_, v)| v <= times.worst_steps()));
/// # Ok::<(), poplab::Error>(())
/// ```
pub fn expected_steps_from_every<P: Protocol>(
    protocol: &P,
    starts: &Starts<P::State>,
    named: &[(String, Vec<P::State>)],
    settings: &ExploreSettings,
) -> Result<StartTimes<P::State>> {
    let space = Space::explore(protocol, starts, settings, false)?;
    let times = hitting_times(&space)?;
    let time = |i: u32| {
        let t = times.mean[i as usize];
        let s = times.second_moment[i as usize];
        let std_steps = if t.is_finite() { (s - t * t).max(0.0).sqrt() } else { f64::INFINITY };
        StartTime { start: space.agents(i), expected_steps: t, std_steps }
    };
    let indices = space.starts();
    let mut values: Vec<f64> = indices.iter().map(|&i| times.mean[i as usize]).collect();
    let worst_value = values.iter().copied().fold(0.0, f64::max);
    // Ties: values equal to the worst within twice the certified relative error.
    let tolerance = 2.0 * times.relative_error_bound.max(f64::EPSILON) * worst_value;
    let is_worst = |v: f64| if worst_value.is_finite() { worst_value - v <= tolerance } else { v.is_infinite() };
    let worst_indices: Vec<u32> = indices.iter().copied().filter(|&i| is_worst(times.mean[i as usize])).collect();
    let best = indices
        .iter()
        .copied()
        .filter(|&i| !space.is_safe(i))
        .min_by(|&a, &b| times.mean[a as usize].total_cmp(&times.mean[b as usize]));
    let uniform_states = match starts {
        Starts::Every(states) => {
            let q = states.iter().collect::<std::collections::HashSet<_>>().len();
            Some(uniform_expectation(&space, q, indices, &times.mean))
        }
        Starts::Configurations(_) => None,
    };
    let mean_over_starts = values.iter().sum::<f64>() / values.len() as f64;
    values.sort_by(f64::total_cmp);
    let quantiles = QUANTILES
        .iter()
        .map(|&q| {
            let rank = ((q * values.len() as f64).ceil() as usize).clamp(1, values.len());
            (q, values[rank - 1])
        })
        .collect();
    let named = named
        .iter()
        .map(|(name, agents)| {
            (name.clone(), space.find(agents).map(|i| StartTime { start: agents.clone(), ..time(i) }))
        })
        .collect();
    let trap = times.trap.map(|target| trap_counterexample(&space, target));
    Ok(StartTimes {
        configurations: space.len(),
        transient: times.transient,
        transitions: space.edges(),
        starts: indices.len(),
        safe_starts: indices.iter().filter(|&&i| space.is_safe(i)).count(),
        infinite_starts: indices.iter().filter(|&&i| times.mean[i as usize].is_infinite()).count(),
        worst: worst_indices.iter().take(WORST_LISTED).map(|&i| time(i)).collect(),
        worst_ties: worst_indices.len(),
        best: best.map(time),
        quantiles,
        mean_over_starts,
        uniform_states,
        named,
        relative_error_bound: times.relative_error_bound,
        largest_component: times.largest_component,
        solver: if times.iterative_components > 0 { "gth+gauss-seidel" } else { "gth" },
        trap,
    })
}

/// The expectation when every agent's state is uniform over the `q` listed states (the first `q`
/// interned, in the order of the list): over agent vectors every start weighs `q^-n`, over
/// multisets each weighs its multinomial probability `n! / prod(c_s!) q^-n`.
fn uniform_expectation<P: Protocol>(space: &Space<'_, P>, q: usize, starts: &[u32], mean: &[f64]) -> f64 {
    let n = space.n();
    match space.representation() {
        Representation::Agents => starts.iter().map(|&i| mean[i as usize]).sum::<f64>() / starts.len() as f64,
        Representation::Multiset => {
            let ln_factorial: Vec<f64> = std::iter::once(0.0)
                .chain((1..=n).scan(0.0, |sum, k| {
                    *sum += (k as f64).ln();
                    Some(*sum)
                }))
                .collect();
            let ln_q_n = n as f64 * (q as f64).ln();
            starts
                .iter()
                .map(|&i| {
                    let config = space.config(i);
                    let mut ln_weight = ln_factorial[n] - ln_q_n;
                    let mut run = 1;
                    for k in 1..=config.len() {
                        if k < config.len() && config[k] == config[k - 1] {
                            run += 1;
                        } else {
                            ln_weight -= ln_factorial[run];
                            run = 1;
                        }
                    }
                    let value = mean[i as usize];
                    if value == 0.0 { 0.0 } else { ln_weight.exp() * value }
                })
                .sum()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Graph;
    use crate::protocol::{Monitor, Params};
    use crate::protocols::angluin::Angluin;
    use crate::protocols::ls_timer::{LsState, LsTimer};

    fn ls_states(s: u32) -> Vec<LsState> {
        [false, true].iter().flat_map(|&leader| (0..=s).map(move |timer| LsState { leader, timer })).collect()
    }

    /// An independent computation: the chain over *agent vectors* of the complete graph (every
    /// ordered pair of distinct agents with probability 1 / (n (n - 1))), its expected hitting
    /// times of the safe set solved by plain Gaussian elimination with partial pivoting, on the
    /// protocol's `transition` and `monitor` alone.
    fn agent_vector_times(protocol: &LsTimer, states: &[LsState]) -> Vec<(Vec<LsState>, f64)> {
        let n = protocol.n();
        let q = states.len();
        let total = q.pow(n as u32);
        let vector = |mut code: usize| -> Vec<LsState> {
            (0..n)
                .map(|_| {
                    let s = states[code % q];
                    code /= q;
                    s
                })
                .collect()
        };
        let code = |agents: &[LsState]| -> usize {
            agents.iter().rev().fold(0, |acc, s| acc * q + states.iter().position(|t| t == s).unwrap())
        };
        let safe: Vec<bool> = (0..total).map(|c| protocol.monitor(&vector(c), &Graph::Complete).is_safe()).collect();
        let unsafe_codes: Vec<usize> = (0..total).filter(|&c| !safe[c]).collect();
        let row_of = |c: usize| unsafe_codes.iter().position(|&u| u == c);
        let m = unsafe_codes.len();
        let mut a = vec![vec![0.0f64; m + 1]; m];
        let p = 1.0 / (n * (n - 1)) as f64;
        for (r, &c) in unsafe_codes.iter().enumerate() {
            a[r][r] += 1.0;
            a[r][m] = 1.0;
            let agents = vector(c);
            for u in 0..n {
                for v in 0..n {
                    if u == v {
                        continue;
                    }
                    let mut next = agents.clone();
                    let (x, y) = protocol.transition(agents[u], agents[v]);
                    next[u] = x;
                    next[v] = y;
                    if let Some(col) = row_of(code(&next)) {
                        a[r][col] -= p;
                    }
                }
            }
        }
        for k in 0..m {
            let pivot = (k..m).max_by(|&i, &j| a[i][k].abs().total_cmp(&a[j][k].abs())).unwrap();
            a.swap(k, pivot);
            let pivot_row = a[k].clone();
            for (i, row) in a.iter_mut().enumerate() {
                let f = row[k] / pivot_row[k];
                if i != k && f != 0.0 {
                    row.iter_mut().zip(&pivot_row).skip(k).for_each(|(x, p)| *x -= f * p);
                }
            }
        }
        (0..total).map(|c| (vector(c), row_of(c).map_or(0.0, |r| a[r][m] / a[r][r]))).collect()
    }

    #[test]
    fn every_start_equals_an_independent_solution_over_agent_vectors() {
        let protocol = LsTimer::new(3, &Params::parse(&["s=3".to_string()]).unwrap()).unwrap();
        let states = ls_states(3);
        let times =
            expected_steps_from_every(&protocol, &Starts::Every(states.clone()), &[], &ExploreSettings::default())
                .unwrap();
        let independent = agent_vector_times(&protocol, &states);
        let worst = independent.iter().map(|(_, t)| *t).fold(0.0, f64::max);
        assert!((times.worst_steps() - worst).abs() <= 1e-9 * worst, "{} against {worst}", times.worst_steps());
        // The argmax: every listed worst start is a worst agent vector, and the number of worst
        // multisets is the number of distinct sorted worst agent vectors.
        let mut worst_multisets: Vec<Vec<(bool, u32)>> = independent
            .iter()
            .filter(|(_, t)| (worst - t).abs() <= 1e-9 * worst)
            .map(|(agents, _)| {
                let mut key: Vec<(bool, u32)> = agents.iter().map(|s| (s.leader, s.timer)).collect();
                key.sort_unstable();
                key
            })
            .collect();
        worst_multisets.dedup();
        worst_multisets.sort_unstable();
        worst_multisets.dedup();
        assert_eq!(times.worst_ties, worst_multisets.len());
        for listed in &times.worst {
            let mut key: Vec<(bool, u32)> = listed.start.iter().map(|s| (s.leader, s.timer)).collect();
            key.sort_unstable();
            assert!(worst_multisets.contains(&key), "{key:?} is not a worst start");
        }
        // Every multiset's value equals every agent vector's of the same multiset.
        let uniform: f64 = independent.iter().map(|(_, t)| t).sum::<f64>() / independent.len() as f64;
        let found = times.uniform_states.unwrap();
        assert!((found - uniform).abs() <= 1e-9 * uniform, "{found} against {uniform}");
        assert_eq!(times.starts, 120); // C(8 + 3 - 1, 3)
    }

    #[test]
    fn an_unreachable_safe_set_makes_the_worst_start_infinite() {
        let protocol = Angluin::new(4, &Params::default()).unwrap();
        let times =
            expected_steps_from_every(&protocol, &Starts::Every(vec![true, false]), &[], &ExploreSettings::default())
                .unwrap();
        assert_eq!((times.starts, times.infinite_starts, times.worst_ties), (5, 1, 1));
        assert!(times.worst_steps().is_infinite());
        assert_eq!(times.worst[0].start, vec![false; 4]);
        assert!(times.trap.is_some());
        // The best unsafe start is 2 leaders: n (n - 1) / 2 = 6 expected steps to one.
        let best = times.best.unwrap();
        assert!((best.expected_steps - 6.0).abs() < 1e-12, "{}", best.expected_steps);
    }
}
