//! Verification from *every* configuration of an agent-vector space too large for the explorer's
//! hash tables (prl at n = N = 4 has 120^4 = 207,360,000 configurations).
//!
//! Every configuration is a start, so the space is all of `Q^n`, and a configuration is its number
//! in base `|Q|` (agent `i` is digit `i`). Nothing is stored per configuration but two bits (safe,
//! reaches the safe set) and a work queue, and each transition is looked up in a `|Q| x |Q|` table
//! computed once with the protocol's own `transition`. The three properties:
//! - closure and safety are checked configuration by configuration (in parallel);
//! - convergence: when closure holds, "every bottom strongly connected component lies in the safe
//!   set" is the same as "the safe set is reachable from every configuration" (a component that
//!   meets the safe set cannot leave it, so lies inside it). Reachability is a backward breadth-first
//!   search from the safe set through a table of inverse transitions. When closure fails the two
//!   differ and this mode refuses to decide convergence (an error says so).
//!
//! Counterexamples are shortest from a start because every configuration is a start: a closure or
//! output-change violation is one interaction from a safe configuration; a configuration that cannot
//! reach the safe set is its own counterexample with an empty schedule.

use super::report::{Check, Counterexample, Verification};
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::protocol::{Monitor, Output, Protocol};
use rayon::prelude::*;

/// The largest space checked densely (the work queue needs 4 bytes per configuration).
pub const DENSE_LIMIT: u64 = 1 << 28;

/// Bits, one per configuration.
struct Bits(Vec<u64>);

impl Bits {
    fn get(&self, i: u64) -> bool {
        self.0[(i / 64) as usize] >> (i % 64) & 1 == 1
    }

    fn set(&mut self, i: u64) {
        self.0[(i / 64) as usize] |= 1 << (i % 64);
    }

    fn count(&self) -> u64 {
        self.0.iter().map(|w| u64::from(w.count_ones())).sum()
    }
}

/// A safe configuration that breaks closure or safety: the first arc whose interaction leaves the
/// safe set, the first that changes an output, and whether its outputs are wrong already.
#[derive(Clone, Copy)]
struct Finding {
    config: u64,
    leaves: Option<(usize, usize)>,
    changes: Option<(usize, usize)>,
    bad_outputs: bool,
}

/// The arcs of `graph` for `n` agents.
fn arcs(graph: &Graph, n: usize) -> Vec<(usize, usize)> {
    match graph {
        Graph::DirectedRing => (0..n).map(|i| (i, (i + 1) % n)).collect(),
        Graph::UndirectedRing => (0..n).flat_map(|i| [(i, (i + 1) % n), ((i + 1) % n, i)]).collect(),
        Graph::Arcs(list) => list.iter().map(|&(u, v)| (u as usize, v as usize)).collect(),
        Graph::Complete => (0..n).flat_map(|u| (0..n).filter(move |&v| v != u).map(move |v| (u, v))).collect(),
    }
}

/// Whether [`verify_every`] applies: agent vectors with `k^n` configurations in `(cap, DENSE_LIMIT]`.
pub fn applies(graph: &Graph, states: usize, n: usize, cap: usize) -> bool {
    let total = (states as u128).checked_pow(n as u32).unwrap_or(u128::MAX);
    *graph != Graph::Complete && total > cap as u128 && total <= u128::from(DENSE_LIMIT)
}

/// Checks closure, safety and convergence from every configuration over `states` (see the module
/// docs).
pub fn verify_every<P: Protocol>(protocol: &P, states: &[P::State], graph: &Graph) -> Result<Verification<P::State>> {
    let n = protocol.n();
    let k = states.len() as u64;
    let total = k.pow(n as u32);
    let index_of = |s: P::State| states.iter().position(|&t| t == s).map(|i| i as u64);
    // table[a * k + b] = (a', b') as state numbers.
    let table: Vec<(u64, u64)> = (0..k * k)
        .map(|ab| {
            let (a, b) = protocol.transition(states[(ab / k) as usize], states[(ab % k) as usize]);
            match (index_of(a), index_of(b)) {
                (Some(a), Some(b)) => Ok((a, b)),
                _ => Err(Error::Init(format!(
                    "{} leaves the states given to Starts::Every; give every state it can reach",
                    protocol.info().name
                ))),
            }
        })
        .collect::<Result<_>>()?;
    crate::protocol::check_rules(protocol)?;
    let arcs = arcs(graph, n);
    let power: Vec<u64> = (0..n).map(|i| k.pow(i as u32)).collect();
    let decode = |c: u64| -> Vec<P::State> { (0..n).map(|i| states[((c / power[i]) % k) as usize]).collect() };
    let digit = |c: u64, i: usize| (c / power[i]) % k;
    let successor = |c: u64, (u, v): (usize, usize)| {
        let (a, b) = (digit(c, u), digit(c, v));
        let (a2, b2) = table[(a * k + b) as usize];
        c - a * power[u] - b * power[v] + a2 * power[u] + b2 * power[v]
    };
    let words = total.div_ceil(64) as usize;

    // The safe set, 64 configurations per task.
    let safe = Bits(
        (0..words as u64)
            .into_par_iter()
            .map(|w| {
                (0..64).filter(|b| w * 64 + b < total).fold(0u64, |word, b| {
                    let agents = decode(w * 64 + b);
                    word | (u64::from(protocol.monitor(&agents, graph).is_safe()) << b)
                })
            })
            .collect(),
    );

    // Closure and safety, configuration by configuration.
    let election = states.iter().any(|&s| matches!(protocol.output(s), Output::Leader | Output::Follower));
    let outputs = |c: u64| -> Vec<Output> { decode(c).into_iter().map(|s| protocol.output(s)).collect() };
    let findings: Vec<Finding> = (0..total)
        .into_par_iter()
        .filter(|&c| safe.get(c))
        .filter_map(|c| {
            let before = outputs(c);
            let bad_outputs = if election {
                before.iter().filter(|o| **o == Output::Leader).count() != 1
            } else {
                before[0] == Output::Undecided || before.windows(2).any(|w| w[0] != w[1])
            };
            let leaves = arcs.iter().copied().find(|&arc| !safe.get(successor(c, arc)));
            let changes = arcs.iter().copied().find(|&arc| outputs(successor(c, arc)) != before);
            (bad_outputs || leaves.is_some() || changes.is_some()).then_some(Finding {
                config: c,
                leaves,
                changes,
                bad_outputs,
            })
        })
        .collect();
    let step = |c: u64, arc: (usize, usize), reason: String| Counterexample {
        reason,
        start: decode(c),
        schedule: vec![(arc.0 as u32, arc.1 as u32)],
        end: decode(successor(c, arc)),
    };
    let mut closure = Check { passed: true, violations: 0, counterexample: None };
    let mut safety = Check { passed: true, violations: 0, counterexample: None };
    for &Finding { config: c, leaves, changes, bad_outputs: bad } in &findings {
        if let Some(arc) = leaves {
            closure.passed = false;
            closure.violations += 1;
            closure.counterexample.get_or_insert_with(|| step(c, arc, "the interaction leaves the safe set".into()));
        }
        if bad || changes.is_some() {
            safety.passed = false;
            safety.violations += 1;
            safety.counterexample.get_or_insert_with(|| match changes {
                Some(arc) if !bad => step(c, arc, "an interaction inside the safe set changes an output".into()),
                _ => Counterexample {
                    reason: "a safe configuration without exactly one leader".into(),
                    start: decode(c),
                    schedule: Vec::new(),
                    end: decode(c),
                },
            });
        }
    }
    if !closure.passed {
        return Err(Error::Limit {
            reason: "closure fails, and without it convergence needs the full exploration; lower n or the parameters"
                .into(),
        });
    }

    // Convergence: backward breadth-first search from the safe set.
    let mut inverse: Vec<Vec<u64>> = vec![Vec::new(); (k * k) as usize];
    for (ab, &(a2, b2)) in table.iter().enumerate() {
        inverse[(a2 * k + b2) as usize].push(ab as u64);
    }
    let mut reaches = Bits(safe.0.clone());
    let mut queue: Vec<u32> = (0..total).filter(|&c| safe.get(c)).map(|c| c as u32).collect();
    let mut head = 0;
    while head < queue.len() {
        let c = u64::from(queue[head]);
        head += 1;
        for &(u, v) in &arcs {
            let (a2, b2) = (digit(c, u), digit(c, v));
            for &ab in &inverse[(a2 * k + b2) as usize] {
                let (a, b) = (ab / k, ab % k);
                let p = c - a2 * power[u] - b2 * power[v] + a * power[u] + b * power[v];
                if !reaches.get(p) {
                    reaches.set(p);
                    queue.push(p as u32);
                }
            }
        }
    }
    let stuck = total - reaches.count();
    let convergence = Check {
        passed: stuck == 0,
        violations: stuck as usize,
        counterexample: (0..total).find(|&c| !reaches.get(c)).map(|c| Counterexample {
            reason: "the safe set is unreachable from this configuration".into(),
            start: decode(c),
            schedule: Vec::new(),
            end: decode(c),
        }),
    };
    Ok(Verification {
        configurations: total as usize,
        starts: total as usize,
        safe: safe.count() as usize,
        transitions: 0,
        election,
        closure,
        safety,
        convergence,
        bottom_components: 0,
        unsafe_bottom_components: 0,
        dense: true,
    })
}
