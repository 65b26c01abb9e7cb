//! A user protocol's states and rules: states interned by name, each pair's rule resolved from an
//! explicit table or, the first time the pair meets, from a callback, and memoised.
//!
//! **One memo shared by every trial.** A callback (a Python function, say) may be slow and is
//! meant to run once per pair, so its results are kept in one memo for all trials and threads,
//! behind a read-write lock; a second lock serialises the callback itself, so that a pair is
//! resolved exactly once even when two trials meet it at the same time. Sharing cannot change a
//! trajectory: a rule is a function of the pair's names (a law, never a sample), and the
//! engines never depend on the numbers given to states, only on which states are equal.

use super::state::CustomState;
use crate::protocol::StateHasher;
use crate::protocol::{Law, Output};
use crate::rng::PopRng;
use rand_core::Rng;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError, RwLock};

/// A rule given as a function of the pair's names: `Ok(None)` for a null pair, else the law of
/// the result (a single result with probability 1 for a deterministic rule), or an error message.
pub type RuleFn = dyn Fn(&str, &str) -> Result<Option<Law<String>>, String> + Send + Sync;

/// The output of a state first met as a rule's result (callback protocols).
pub type OutputFn = dyn Fn(&str) -> Result<Output, String> + Send + Sync;

/// A pair's rule, on interned states.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Rule {
    /// Nothing changes.
    Null,
    /// One certain result.
    To(CustomState, CustomState),
    /// Results with probabilities (summing to at most 1; the rest is null) and their running sums.
    Random { results: Vec<(CustomState, CustomState)>, probabilities: Vec<f64>, cumulative: Vec<f64> },
}

impl Rule {
    /// The rule of a law on interned states: results equal to the pair or with probability 0
    /// dropped, one certain result as [`Rule::To`].
    pub(super) fn of_law(pair: (CustomState, CustomState), law: Law<CustomState>) -> Rule {
        let law: Vec<_> = law.into_iter().filter(|&(result, p)| p > 0.0 && result != pair).collect();
        match law.as_slice() {
            [] => Rule::Null,
            [(result, p)] if *p >= 1.0 => Rule::To(result.0, result.1),
            _ => {
                let (results, probabilities): (Vec<_>, Vec<_>) = law.into_iter().unzip();
                let cumulative = probabilities
                    .iter()
                    .scan(0.0, |sum, p| {
                        *sum += p;
                        Some(*sum)
                    })
                    .collect();
                Rule::Random { results, probabilities, cumulative }
            }
        }
    }

    /// The law of the rule's result (empty for a null pair).
    pub(super) fn law(&self) -> Law<CustomState> {
        match self {
            Rule::Null => Vec::new(),
            Rule::To(a, b) => vec![((*a, *b), 1.0)],
            Rule::Random { results, probabilities, .. } => {
                results.iter().copied().zip(probabilities.iter().copied()).collect()
            }
        }
    }

    /// One interaction's result for the pair `pair`, drawn from `rng` if random.
    #[inline]
    pub(super) fn draw(&self, pair: (CustomState, CustomState), rng: &mut PopRng) -> (CustomState, CustomState) {
        match self {
            Rule::Null => pair,
            Rule::To(a, b) => (*a, *b),
            Rule::Random { results, cumulative, .. } => {
                let u = (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
                cumulative.iter().position(|&c| u < c).map_or(pair, |k| results[k])
            }
        }
    }

    /// Whether the pair can change something.
    pub(super) fn is_null(&self) -> bool {
        *self == Rule::Null
    }
}

/// Interned states: names and outputs by number.
#[derive(Default)]
pub(super) struct StateTable {
    names: Vec<String>,
    ids: HashMap<String, CustomState>,
}

impl StateTable {
    /// The state named `name`, interned now with `output` if new.
    pub(super) fn intern(&mut self, name: &str, output: Output) -> CustomState {
        if let Some(&state) = self.ids.get(name) {
            return state;
        }
        let state = CustomState::new(self.names.len() as u32, output);
        self.names.push(name.to_string());
        self.ids.insert(name.to_string(), state);
        state
    }

    /// The state named `name`, if interned.
    pub(super) fn get(&self, name: &str) -> Option<CustomState> {
        self.ids.get(name).copied()
    }

    /// The name of `state`.
    pub(super) fn name(&self, state: CustomState) -> &str {
        &self.names[state.id() as usize]
    }

    /// Every state's name and output, by number.
    pub(super) fn named(&self) -> Vec<(String, Output)> {
        self.names.iter().map(|name| (name.clone(), self.ids[name].output())).collect()
    }

    /// How many states are interned.
    pub(super) fn len(&self) -> usize {
        self.names.len()
    }
}

/// Where a protocol's rules come from.
pub(super) enum Rules {
    /// Every rule known up front (a protocol file): pairs not listed are null.
    Table(HashMap<(CustomState, CustomState), Rule, StateHasher>),
    /// Rules resolved by a callback the first time a pair meets, then memoised.
    Lazy(Box<Lazy>),
}

/// A callback's rules, resolved so far.
pub(super) struct Lazy {
    pub(super) rule: Box<RuleFn>,
    pub(super) output: Box<OutputFn>,
    memo: RwLock<HashMap<(CustomState, CustomState), Rule, StateHasher>>,
    /// Held while the callback runs, so that a pair is resolved once.
    resolving: Mutex<()>,
    resolved: AtomicU64,
}

impl Lazy {
    pub(super) fn new(rule: Box<RuleFn>, output: Box<OutputFn>) -> Self {
        Self { rule, output, memo: RwLock::default(), resolving: Mutex::new(()), resolved: AtomicU64::new(0) }
    }

    /// How many pairs the callback resolved.
    pub(super) fn resolved(&self) -> u64 {
        self.resolved.load(Ordering::Relaxed)
    }

    /// The memoised rule of `pair`, if resolved.
    #[inline]
    pub(super) fn known<T>(&self, pair: (CustomState, CustomState), then: impl FnOnce(&Rule) -> T) -> Option<T> {
        self.memo.read().unwrap_or_else(PoisonError::into_inner).get(&pair).map(then)
    }

    /// Resolves `pair` by the callback (once), interning new result states in `states`; a
    /// failure is the pair's names and what went wrong.
    pub(super) fn resolve(
        &self,
        pair: (CustomState, CustomState),
        states: &RwLock<StateTable>,
    ) -> Result<Rule, ((String, String), String)> {
        let _once = self.resolving.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(rule) = self.known(pair, Rule::clone) {
            return Ok(rule);
        }
        let (a, b) = {
            let table = states.read().unwrap_or_else(PoisonError::into_inner);
            (table.name(pair.0).to_string(), table.name(pair.1).to_string())
        };
        let fail = |reason: String| ((a.clone(), b.clone()), reason);
        let law = (self.rule)(&a, &b).map_err(fail)?.unwrap_or_default();
        check_law(&law).map_err(|e| fail(e.to_string()))?;
        let mut interned = Vec::with_capacity(law.len());
        for ((c, d), p) in law {
            let c = self.intern(&c, states).map_err(|e| fail(format!("its result state {c}: {e}")))?;
            let d = self.intern(&d, states).map_err(|e| fail(format!("its result state {d}: {e}")))?;
            interned.push(((c, d), p));
        }
        let rule = Rule::of_law(pair, interned);
        self.memo.write().unwrap_or_else(PoisonError::into_inner).insert(pair, rule.clone());
        self.resolved.fetch_add(1, Ordering::Relaxed);
        Ok(rule)
    }

    /// The state named `name`, interned with its output (asked of the output callback) if new.
    pub(super) fn intern(&self, name: &str, states: &RwLock<StateTable>) -> Result<CustomState, String> {
        if let Some(state) = states.read().unwrap_or_else(PoisonError::into_inner).get(name) {
            return Ok(state);
        }
        let output = (self.output)(name)?;
        Ok(states.write().unwrap_or_else(PoisonError::into_inner).intern(name, output))
    }
}

/// Refuses probabilities outside `[0, 1]` or summing above 1 (the rest of 1 is null).
pub(crate) fn check_law<T>(law: &Law<T>) -> Result<(), LawError> {
    if let Some(&(_, p)) = law.iter().find(|(_, p)| !p.is_finite() || *p < 0.0 || *p > 1.0) {
        return Err(LawError::NotAProbability(p));
    }
    let total: f64 = law.iter().map(|(_, p)| p).sum();
    if total > 1.0 + 1e-12 {
        return Err(LawError::AboveOne(total));
    }
    Ok(())
}

/// Why a rule's results are not a law (its message follows the rule's name).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub(crate) enum LawError {
    /// A probability outside `[0, 1]` (or not a number).
    #[error("probability {0} is not from 0 to 1")]
    NotAProbability(f64),
    /// Probabilities summing above 1.
    #[error("the probabilities sum to {0}, above 1; the rest of 1 is null, so lower them")]
    AboveOne(f64),
}
