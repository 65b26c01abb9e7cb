//! The laws of the pairs of a [randomized](crate::protocol::Protocol::randomized) protocol, met so
//! far: by pair of state indices, their possible results with cumulative probabilities.
//!
//! Every pair of a randomized protocol that can change something gets a law, even one certain
//! result: results are interned only when drawn, so the census counts only states some agent held.

use crate::protocol::Law;
use crate::protocol::StateHasher;
use crate::rng::PopRng;
use rand_core::Rng;
use std::collections::HashMap;

/// A pair's law.
pub(in crate::engine) struct PairLaw<S> {
    /// The pair's own state indices: the result of a null draw.
    pub(in crate::engine) before: (u32, u32),
    /// The results that change something, with their probabilities.
    pub(in crate::engine) results: Vec<(S, S)>,
    /// The probability of each result.
    pub(in crate::engine) probabilities: Vec<f64>,
    /// `cumulative[k]`: the probabilities of results `0..=k`.
    cumulative: Vec<f64>,
    /// The results' state indices, once interned.
    pub(in crate::engine) interned: Vec<Option<(u32, u32)>>,
}

impl<S> PairLaw<S> {
    /// Whether the law is one result with probability 1 (drawing it needs no random number).
    fn is_certain(&self) -> bool {
        self.cumulative.len() == 1 && self.cumulative[0] >= 1.0
    }

    /// The result's state indices when the law is certain and its result interned (drawing it
    /// would take no random number and intern nothing).
    pub(in crate::engine) fn certain_result(&self) -> Option<(u32, u32)> {
        if self.is_certain() { self.interned[0] } else { None }
    }

    /// Draws a result from `rng`: its position in `results`, or `None` for nothing changing.
    pub(in crate::engine) fn draw(&self, rng: &mut PopRng) -> Option<usize> {
        if self.is_certain() {
            return Some(0);
        }
        // 53 random bits: u uniform on [0, 1) in steps of 2^-53.
        let u = (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
        self.cumulative.iter().position(|&c| u < c)
    }
}

/// The laws met so far, by id, and the id of each pair's law.
pub(in crate::engine) struct Laws<S> {
    laws: Vec<PairLaw<S>>,
    ids: HashMap<(u32, u32), Option<u32>, StateHasher>,
}

impl<S> Default for Laws<S> {
    fn default() -> Self {
        Self { laws: Vec::new(), ids: HashMap::default() }
    }
}

impl<S: Copy + PartialEq> Laws<S> {
    /// The law id of the pair of state indices `(i, j)` (states `a`, `b`), `None` when it changes
    /// nothing; `law` gives its law the first time.
    pub(in crate::engine) fn id(
        &mut self,
        (i, j): (u32, u32),
        (a, b): (S, S),
        law: impl FnOnce() -> Law<S>,
    ) -> Option<u32> {
        if let Some(&id) = self.ids.get(&(i, j)) {
            return id;
        }
        let mut results = Vec::new();
        let mut probabilities = Vec::new();
        for (result, p) in law() {
            if p > 0.0 && result != (a, b) {
                results.push(result);
                probabilities.push(p);
            }
        }
        let id = (!results.is_empty()).then(|| {
            let cumulative = probabilities
                .iter()
                .scan(0.0, |sum, p| {
                    *sum += p;
                    Some(*sum)
                })
                .collect();
            let interned = vec![None; results.len()];
            self.laws.push(PairLaw { before: (i, j), results, probabilities, cumulative, interned });
            (self.laws.len() - 1) as u32
        });
        self.ids.insert((i, j), id);
        id
    }

    /// The law with id `id`.
    #[inline]
    pub(in crate::engine) fn get(&self, id: u32) -> &PairLaw<S> {
        &self.laws[id as usize]
    }

    /// The law with id `id`, to record interned results.
    pub(in crate::engine) fn get_mut(&mut self, id: u32) -> &mut PairLaw<S> {
        &mut self.laws[id as usize]
    }
}
