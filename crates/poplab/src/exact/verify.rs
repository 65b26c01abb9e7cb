//! Exhaustive verification of the safe set: closure, safety, convergence with probability 1.

use super::report::{Check, Counterexample, Verification};
use super::scc::components;
use super::space::{Path, Space};
use super::{ExploreSettings, Starts};
use crate::error::Result;
use crate::protocol::Protocol;

/// Explores everything reachable from `starts` (safe configurations included) and checks closure,
/// safety and convergence of the protocol's safe set (see [`Verification`]). From every
/// configuration of an agent-vector space above `settings.max_configs` (and at most
/// [`super::DENSE_LIMIT`]) it uses the dense mode, which reports no transition count and no
/// component count.
///
/// ```
/// use poplab::exact::{ExploreSettings, Starts, verify};
/// use poplab::protocol::{Params, Protocol};
/// use poplab::protocols::angluin::Angluin;
///
/// let protocol = Angluin::new(6, &Params::default())?;
/// let settings = ExploreSettings::default();
/// // From 6 leaders: one leader with probability 1, and it stays.
/// let start = Starts::Configurations(vec![protocol.initial_configuration()]);
/// assert!(verify(&protocol, &start, &settings)?.passed());
/// // From every configuration: the one without a leader never gets one.
/// let every = verify(&protocol, &Starts::Every(vec![true, false]), &settings)?;
/// assert!(every.closure.passed && every.safety.passed && !every.convergence.passed);
/// let counterexample = every.convergence.counterexample.unwrap();
/// assert!(counterexample.end.iter().all(|&leader| !leader));
/// # Ok::<(), poplab::Error>(())
/// ```
pub fn verify<P: Protocol>(
    protocol: &P,
    starts: &Starts<P::State>,
    settings: &ExploreSettings,
) -> Result<Verification<P::State>> {
    if let Starts::Every(states) = starts
        && protocol.randomized().is_none()
        && super::dense::applies(&settings.graph, states.len(), protocol.n(), settings.max_configs)
    {
        return super::dense::verify_every(protocol, states, &settings.graph);
    }
    let space = Space::explore(protocol, starts, settings, true)?;
    let len = space.len() as u32;

    // Closure.
    let mut closure = Check::pass();
    for i in 0..len {
        if !space.is_safe(i) {
            continue;
        }
        let Some(out) = space.targets_of(i).iter().copied().find(|&j| !space.is_safe(j)) else { continue };
        closure.passed = false;
        closure.violations += 1;
        if closure.counterexample.is_none() {
            let mut path = space.schedule_to(i);
            let (pair, after) = space.pair_leading_to(&path.end, out).expect("an edge has a pair of agents");
            path.push((pair, after));
            let Path { start, schedule, end } = path;
            closure.counterexample = Some(Counterexample {
                reason: format!(
                    "the last interaction ({}, {}) leaves the safe set: the configuration before it is safe, \
                     the one after it is not",
                    pair.0, pair.1
                ),
                start,
                schedule,
                end,
            });
        }
    }

    // Safety.
    let findings = space.findings;
    let mut safety = Check::pass();
    safety.violations = findings.bad_outputs_count + findings.output_change_count;
    safety.passed = safety.violations == 0;
    let what = if space.is_election() {
        "does not have exactly one leader"
    } else {
        "has agents that disagree or are undecided"
    };
    let first = match (findings.bad_outputs, findings.output_change) {
        (Some(a), Some((b, _))) if b < a => findings.output_change.map(|(c, pair)| (c, Some(pair))),
        (Some(a), _) => Some((a, None)),
        (None, Some((c, pair))) => Some((c, Some(pair))),
        (None, None) => None,
    };
    if let Some((config, pair)) = first {
        let mut path = space.schedule_to(config);
        let reason = match pair {
            None => format!("the configuration reached is in the safe set but {what}"),
            Some((a, b)) => {
                let (pair, after) =
                    space.pair_with_states(&path.end, a, b).expect("the pair of states occurs in the configuration");
                path.push((pair, after));
                format!(
                    "the configuration before the last interaction ({}, {}) is in the safe set, and that \
                     interaction changes an output",
                    pair.0, pair.1
                )
            }
        };
        let Path { start, schedule, end } = path;
        safety.counterexample = Some(Counterexample { reason, start, schedule, end });
    }

    // Convergence: bottom strongly connected components.
    let (comps, component_of) = components(&space, |_| true);
    let mut bottom = 0;
    let mut bad_bottom = 0;
    let mut convergence = Check::pass();
    let mut first_bad: Option<(u32, bool)> = None;
    for (number, comp) in comps.iter().enumerate() {
        let closed =
            comp.iter().all(|&i| space.targets_of(i).iter().all(|&j| component_of[j as usize] == number as u32));
        if !closed {
            continue;
        }
        bottom += 1;
        let safe = comp.iter().filter(|&&i| space.is_safe(i)).count();
        if safe == comp.len() {
            continue;
        }
        bad_bottom += 1;
        convergence.violations += comp.len();
        let first = *comp.iter().min().expect("non-empty");
        if first_bad.is_none_or(|(f, _)| first < f) {
            first_bad = Some((first, safe == 0));
        }
    }
    if let Some((config, none_safe)) = first_bad {
        convergence.passed = false;
        let Path { start, schedule, end } = space.schedule_to(config);
        let reason = if none_safe {
            "the safe set is unreachable from the configuration reached".to_string()
        } else {
            "the configuration reached lies in a bottom strongly connected component that contains unsafe \
             configurations: the chain leaves the safe set infinitely often"
                .to_string()
        };
        convergence.counterexample = Some(Counterexample { reason, start, schedule, end });
    }

    Ok(Verification {
        configurations: space.len(),
        starts: space.starts().len(),
        safe: (0..len).filter(|&i| space.is_safe(i)).count(),
        transitions: space.edges(),
        election: space.is_election(),
        closure,
        safety,
        convergence,
        bottom_components: bottom,
        unsafe_bottom_components: bad_bottom,
        dense: false,
    })
}
