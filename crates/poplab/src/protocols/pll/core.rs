//! The P_LL core that `pll` and `pll-sym` share: the parameters `m`, `N`, `c_max`, the variables
//! of an interaction ([`Vars`]), the role-free lines (7-15, `CountUp`, the epidemics of lines 39-42,
//! 46-49 and 53-56), state checks and the JSON fields common to both.
//!
//! The rules are generic over the status type (`pll`'s X, A, B or `pll-sym`'s X, Y, A, B, through
//! [`CoreStatus`]) and over the variables a variant adds ([`Extra`]), so each protocol keeps its own
//! state type while the lines both print are written once; the [`Protocol`] implementation both
//! share is written once for every [`PllProtocol`].

use super::status::{Module, Status};
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::protocol::{
    Configurations, CountStart, EngineHints, Observables, Output, Params, Protocol, ProtocolInfo, STATE_SPACE_LIMIT,
    StateError, StateJson, json_bool, json_uint,
};
use crate::protocols::LeaderCount;
use crate::rng::{PopRng, below_u64};
use serde_json::{Map, Value};
use std::fmt::Debug;
use std::hash::Hash;

/// Largest `m` accepted (so that `41 m` and `rand` fit in `u16`).
const M_MAX: u64 = 1000;

/// `rand` of an agent that entered V_A ∩ V_2 without line 12 (only from arbitrary configurations).
pub(crate) const RAND_UNDEFINED: u16 = 0;

/// `ceil(lg x)` for `x >= 1`.
pub(crate) fn ceil_lg(x: u64) -> u32 {
    if x <= 1 { 0 } else { 64 - (x - 1).leading_zeros() }
}

/// `(count + 1) mod c_max` (line 25), dividing only when the count wraps: a division by the
/// run-time `c_max` took a tenth of an interaction on the agent array.
#[inline(always)]
pub(crate) fn count_step(count: u16, c_max: u16) -> u16 {
    let next = count + 1;
    if next < c_max { next } else { next % c_max }
}

/// The parameters of P_LL: `m`, the bound `N` if given, `c_max = 41 m` and `2^ceil(lg m)`.
#[derive(Clone, Debug)]
pub struct Core {
    /// `m`: the knowledge `m >= lg n`.
    pub(crate) m: u16,
    /// `N`, when the upper bound was given instead of `m`.
    pub(crate) bound: Option<u64>,
    /// `c_max = 41 m`.
    pub(crate) c_max: u16,
    /// `2^ceil(lg m)`: a nonce is finished once `rand` reaches it.
    pub(crate) nonce_start: u16,
}

impl Core {
    /// Reads `m` (default `ceil(lg n)`) or `N` for `n` agents; unknown parameters are reported
    /// against `info`.
    pub(crate) fn new(n: usize, params: &Params, info: &ProtocolInfo) -> Result<Self> {
        let lg_n = u64::from(ceil_lg(n as u64));
        let (m, bound) = match (params.has("m"), params.has("N")) {
            (true, true) => {
                return Err(Error::Parameter {
                    name: "N".into(),
                    value: String::new(),
                    reason: "give either m or N (which sets m = ceil(lg N)), not both".into(),
                });
            }
            (_, true) => {
                let bound = params.int("N", n as u64, 2, u64::MAX)?;
                if bound < n as u64 {
                    return Err(Error::Parameter {
                        name: "N".into(),
                        value: bound.to_string(),
                        reason: format!("N is an upper bound on the population: choose N >= n = {n}"),
                    });
                }
                (u64::from(ceil_lg(bound)), Some(bound))
            }
            _ => (params.int("m", lg_n.max(1), 1, M_MAX)?, None),
        };
        params.finish(info)?;
        if m < lg_n {
            return Err(Error::Parameter {
                name: "m".into(),
                value: m.to_string(),
                reason: format!("P_LL needs m >= lg n; for n = {n} that is m >= {lg_n}"),
            });
        }
        let m = m.max(1);
        Ok(Self { m: m as u16, bound, c_max: (41 * m) as u16, nonce_start: 1 << ceil_lg(m) })
    }

    /// The largest value of `rand`, `2^(ceil(lg m) + 1) - 1`.
    pub(crate) fn rand_max(&self) -> u16 {
        2 * self.nonce_start - 1
    }

    /// `m`, `N` (if given) and `c_max` as JSON.
    pub(crate) fn params(&self) -> Map<String, Value> {
        let mut map = Map::new();
        map.insert("m".into(), Value::from(self.m));
        if let Some(bound) = self.bound {
            map.insert("N".into(), Value::from(bound));
        }
        map.insert("c_max".into(), Value::from(self.c_max));
        map
    }

    /// Lines 7-15: tick reset, `CountUp`, the epoch's tick (erratum 1: min, not max), the common
    /// epoch, and the variables of a new epoch. An agent of status A entering epoch 2 gets
    /// `rand = 1` if a leader, else `follower_rand` (line 12 and erratum 3); one whose `rand` lines
    /// 11-15 left undefined gets that value too (not in the paper).
    #[inline(always)]
    pub(crate) fn lines_7_to_15<S: CoreStatus, E: Extra>(&self, a: &mut [Vars<S, E>; 2], follower_rand: u16) {
        let rand_start = |leader: bool| if leader { 1 } else { follower_rand };
        // Line 7.
        a[0].tick = false;
        a[1].tick = false;
        // Line 8.
        self.count_up(a);
        // Line 9 (erratum 1).
        for v in a.iter_mut() {
            if v.tick {
                v.epoch = (v.epoch + 1).min(3);
            }
        }
        // Line 10.
        let epoch = a[0].epoch.max(a[1].epoch);
        a[0].epoch = epoch;
        a[1].epoch = epoch;
        // Lines 11-15.
        for v in a.iter_mut() {
            if v.epoch > v.init {
                if v.status == S::A && v.epoch == 2 {
                    v.rand = rand_start(v.leader);
                }
                if v.status == S::A && v.epoch == 3 {
                    v.level_b = 0;
                }
                v.extra.enter_epoch(v.status == S::A, v.epoch);
                v.init = v.epoch;
            }
            if v.status == S::A && v.epoch == 2 && v.rand == RAND_UNDEFINED {
                v.rand = rand_start(v.leader);
            }
        }
    }

    /// Algorithm 2, lines 23-34 (symmetric: at most one agent is a colour behind).
    #[inline(always)]
    fn count_up<S: CoreStatus, E>(&self, a: &mut [Vars<S, E>; 2]) {
        for v in a.iter_mut() {
            if v.status == S::B {
                v.count = count_step(v.count, self.c_max);
                if v.count == 0 {
                    v.color = (v.color + 1) % 3;
                    v.tick = true;
                }
            }
        }
        if let Some(i) = (0..2).find(|&i| a[1 - i].color == (a[i].color + 1) % 3) {
            a[i].color = a[1 - i].color;
            a[i].tick = true;
            if a[i].status == S::B {
                a[i].count = 0;
            }
        }
    }

    /// Lines 46-49 (epoch 2): the epidemic of the largest finished nonce.
    #[inline(always)]
    pub(crate) fn nonce_epidemic<S: CoreStatus, E>(&self, a: &mut [Vars<S, E>; 2]) {
        if a[0].status == S::A
            && a[1].status == S::A
            && a[0].rand >= self.nonce_start
            && a[1].rand >= self.nonce_start
            && let Some(i) = (0..2).find(|&i| a[i].rand < a[1 - i].rand)
        {
            a[i].leader = false;
            a[i].rand = a[1 - i].rand;
        }
    }

    /// Refuses an additional variable out of its range.
    pub(crate) fn check_additional(&self, additional: Additional) -> Result<(), StateError> {
        let c = u64::from(self.c_max);
        match additional {
            Additional::None => Ok(()),
            Additional::Count(count) => range("count", count.into(), 0, c - 1),
            Additional::A1 { level_q, .. } => range("level_q", level_q.into(), 0, c),
            Additional::Rand(rand) => range("rand", rand.into(), 1, self.rand_max().into()),
            Additional::LevelB(level_b) => range("level_b", level_b.into(), 0, c),
        }
    }

    /// Reads the additional variables of an agent of status `status` (X for one not yet assigned)
    /// in `epoch`: `count`; `level_q`, `done`; `rand`; `level_b`.
    pub(crate) fn additional_from_json(
        &self,
        object: &Map<String, Value>,
        status: Status,
        epoch: u8,
    ) -> Result<Additional, StateError> {
        let c = u64::from(self.c_max);
        Ok(match (status, epoch) {
            (Status::X, _) => Additional::None,
            (Status::B, _) => Additional::Count(json_uint(object, "count", c - 1)? as u16),
            (Status::A, 1) => {
                Additional::A1 { level_q: json_uint(object, "level_q", c)? as u16, done: json_bool(object, "done")? }
            }
            (Status::A, 2) => {
                let rand = json_uint(object, "rand", self.rand_max().into())? as u16;
                if rand == 0 {
                    return Err(StateError::value("rand", format!("a whole number from 1 to {}", self.rand_max()), 0));
                }
                Additional::Rand(rand)
            }
            (Status::A, _) => Additional::LevelB(json_uint(object, "level_b", c)? as u16),
        })
    }
}

/// A status type with the statuses A and B of Table 3, which the shared lines test.
pub(crate) trait CoreStatus: Copy + PartialEq {
    /// Leader candidate.
    const A: Self;
    /// Timer agent.
    const B: Self;
}

/// Variables that a variant of P_LL adds to [`Vars`].
pub(crate) trait Extra: Copy {
    /// Lines 11-15: the agent enters `epoch` (`status_a`: it has status A).
    fn enter_epoch(&mut self, status_a: bool, epoch: u8);
}

impl Extra for () {
    #[inline(always)]
    fn enter_epoch(&mut self, _status_a: bool, _epoch: u8) {}
}

/// All variables of one agent while an interaction runs (additional variables of other groups
/// hold their initial values and are dropped when the state is stored), and a variant's `extra`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Vars<S, E = ()> {
    pub(crate) leader: bool,
    pub(crate) tick: bool,
    pub(crate) status: S,
    pub(crate) epoch: u8,
    pub(crate) init: u8,
    pub(crate) color: u8,
    pub(crate) count: u16,
    pub(crate) level_q: u16,
    pub(crate) done: bool,
    pub(crate) rand: u16,
    pub(crate) level_b: u16,
    pub(crate) extra: E,
}

impl<S, E> Vars<S, E> {
    /// The common variables (`additional` variables at their initial values until
    /// [`Vars::with`] sets the group's).
    #[inline(always)]
    pub(crate) fn new(leader: bool, tick: bool, status: S, epoch: u8, init: u8, color: u8, extra: E) -> Self {
        Self {
            leader,
            tick,
            status,
            epoch,
            init,
            color,
            count: 0,
            level_q: 0,
            done: true,
            rand: RAND_UNDEFINED,
            level_b: 0,
            extra,
        }
    }

    /// Sets the group's additional variable.
    #[inline(always)]
    pub(crate) fn with(mut self, additional: Additional) -> Self {
        match additional {
            Additional::None => {}
            Additional::Count(count) => self.count = count,
            Additional::A1 { level_q, done } => (self.level_q, self.done) = (level_q, done),
            Additional::Rand(rand) => self.rand = rand,
            Additional::LevelB(level_b) => self.level_b = level_b,
        }
        self
    }
}

/// Lines 39-42 (epoch 1): the epidemic of the largest finished `level_q`.
#[inline(always)]
pub(crate) fn level_q_epidemic<S: CoreStatus, E>(a: &mut [Vars<S, E>; 2]) {
    if a[0].status == S::A
        && a[1].status == S::A
        && a[0].done
        && a[1].done
        && let Some(i) = (0..2).find(|&i| a[i].level_q < a[1 - i].level_q)
    {
        a[i].leader = false;
        a[i].level_q = a[1 - i].level_q;
    }
}

/// Lines 53-56 of Algorithm 5, lines 12-15 of Algorithm 6 (epoch 3): the epidemic of the largest
/// `level_b`.
#[inline(always)]
pub(crate) fn level_b_epidemic<S: CoreStatus, E>(a: &mut [Vars<S, E>; 2]) {
    if a[0].status == S::A
        && a[1].status == S::A
        && let Some(i) = (0..2).find(|&i| a[i].level_b < a[1 - i].level_b)
    {
        a[i].level_b = a[1 - i].level_b;
        a[i].leader = false;
    }
}

/// The module that turned an agent from a leader into a follower (`demoted`), given whether it
/// had no status yet before the interaction and the common epoch after it.
#[inline]
pub(crate) fn demotion(demoted: bool, unassigned: bool, epoch: u8) -> Option<Module> {
    demoted.then_some(match (unassigned, epoch) {
        (true, _) => Module::StatusAssignment,
        (_, 1) => Module::QuickElimination,
        (_, 2) => Module::Tournament,
        _ => Module::BackUp,
    })
}

/// The additional variable of a group (Table 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Additional {
    /// V_X (and `pll-sym`'s V_Y).
    None,
    /// V_B: `count`.
    Count(u16),
    /// V_A ∩ V_1: `level_q`, `done`.
    A1 { level_q: u16, done: bool },
    /// V_A ∩ V_2: `rand`.
    Rand(u16),
    /// V_A ∩ V_3: `level_b`.
    LevelB(u16),
}

/// The common variables of Table 3 (with `status` as its letter) and the additional variable.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Common {
    pub(crate) leader: bool,
    pub(crate) tick: bool,
    pub(crate) status: &'static str,
    pub(crate) epoch: u8,
    pub(crate) init: u8,
    pub(crate) color: u8,
    pub(crate) additional: Additional,
}

impl Common {
    /// Refuses `init`, `color` or `epoch` out of range.
    pub(crate) fn check(&self) -> Result<(), StateError> {
        range("init", self.init.into(), 1, 4)?;
        range("color", self.color.into(), 0, 2)?;
        range("epoch", self.epoch.into(), 1, 3)
    }

    /// The JSON object of the paper's names: `leader`, `tick`, `status`, `epoch`, `init`, `color`,
    /// then the additional variables.
    pub(crate) fn to_json(self) -> Map<String, Value> {
        let mut map = Map::new();
        map.insert("leader".into(), Value::Bool(self.leader));
        map.insert("tick".into(), Value::Bool(self.tick));
        map.insert("status".into(), Value::from(self.status));
        map.insert("epoch".into(), Value::from(self.epoch));
        map.insert("init".into(), Value::from(self.init));
        map.insert("color".into(), Value::from(self.color));
        match self.additional {
            Additional::None => {}
            Additional::Count(count) => {
                map.insert("count".into(), Value::from(count));
            }
            Additional::A1 { level_q, done } => {
                map.insert("level_q".into(), Value::from(level_q));
                map.insert("done".into(), Value::Bool(done));
            }
            Additional::Rand(rand) => {
                map.insert("rand".into(), Value::from(rand));
            }
            Additional::LevelB(level_b) => {
                map.insert("level_b".into(), Value::from(level_b));
            }
        }
        map
    }
}

/// The JSON keys every agent has.
pub(crate) const COMMON_KEYS: [&str; 6] = ["leader", "tick", "status", "epoch", "init", "color"];

/// Reads `"status"`, one of `letters` (in the order the error message lists them).
pub(crate) fn status_from_json<S: Copy>(object: &Map<String, Value>, letters: &[(&str, S)]) -> Result<S, StateError> {
    let found = match object.get("status") {
        Some(Value::String(s)) => letters.iter().find(|(l, _)| l == s),
        _ => None,
    };
    match (object.get("status"), found) {
        (_, Some(&(_, status))) => Ok(status),
        (Some(other), None) => {
            let quoted: Vec<String> = letters.iter().map(|(l, _)| format!("\"{l}\"")).collect();
            let (last, rest) = quoted.split_last().expect("statuses");
            Err(StateError::value("status", format!("{} or {last}", rest.join(", ")), other))
        }
        (None, None) => Err(StateError::Missing("status".into())),
    }
}

/// Reads `"epoch"` in 1..=3.
pub(crate) fn epoch_from_json(object: &Map<String, Value>) -> Result<u8, StateError> {
    let epoch = json_uint(object, "epoch", 3)? as u8;
    if epoch == 0 {
        return Err(StateError::value("epoch", "a whole number from 1 to 3", 0));
    }
    Ok(epoch)
}

/// Reads `"init"` in 1..=4.
pub(crate) fn init_from_json(object: &Map<String, Value>) -> Result<u8, StateError> {
    let init = json_uint(object, "init", 4)? as u8;
    if init == 0 {
        return Err(StateError::value("init", "a whole number from 1 to 4", 0));
    }
    Ok(init)
}

/// `Ok` iff `min <= value <= max`, else the error message of a state check.
pub(crate) fn range(name: &str, value: u64, min: u64, max: u64) -> Result<(), StateError> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(StateError::value(name, format!("a whole number from {min} to {max}"), value))
    }
}

/// A protocol built on the P_LL core: `pll` (and `pll-as-printed`) and `pll-sym`. Each says
/// what it has of its own (its state type, rules, state space, JSON form, time-series columns);
/// the [`Protocol`] implementation and its abilities are written once, below, for every such
/// type: `n`, the parameters, a closed safe set, output (leader or follower), the uniform initial
/// configuration [`PllProtocol::INITIAL`] of `n` agents as counts, the [`LeaderCount`] monitor,
/// the module of a demotion, and uniform random states through the state space.
pub trait PllProtocol: Clone + Send + Sync + Sized + 'static {
    /// One agent's state.
    type Agent: Copy + Eq + Hash + Debug + Send + Sync;
    /// The initial state of every agent (Table 3; `PROTOCOLS.md` 2.5).
    const INITIAL: Self::Agent;
    /// The protocol's time-series columns.
    const TRACE_COLUMNS: &'static [&'static str];

    /// The registry entry.
    fn entry(&self) -> &'static ProtocolInfo;
    /// The population size.
    fn population(&self) -> usize;
    /// `m`, `N`, `c_max`, `2^ceil(lg m)`.
    fn core(&self) -> &Core;
    /// Whether the agent is a leader.
    fn is_leader(state: Self::Agent) -> bool;
    /// The transition function (initiator, responder).
    fn rules(&self, initiator: Self::Agent, responder: Self::Agent) -> (Self::Agent, Self::Agent);
    /// The number of states of one agent.
    fn space_size(&self) -> u64;
    /// State number `index` of `0..space_size()`.
    fn space_at(&self, index: u64) -> Self::Agent;
    /// Which module turned each agent from a leader into a follower.
    fn demotions(before: [Self::Agent; 2], after: [Self::Agent; 2]) -> [Option<Module>; 2];
    /// The state as a JSON object of the paper's names.
    fn write_json(&self, state: Self::Agent) -> Map<String, Value>;
    /// Reads a state from a JSON object of the paper's names.
    fn read_json(&self, object: &Map<String, Value>) -> Result<Self::Agent, StateError>;
    /// The values of [`PllProtocol::TRACE_COLUMNS`] for the states present.
    fn trace_counts(present: &[(Self::Agent, u64)]) -> Vec<f64>;

    /// `m`.
    fn m(&self) -> u16 {
        self.core().m
    }

    /// `c_max = 41 m`.
    fn c_max(&self) -> u16 {
        self.core().c_max
    }

    /// `2^ceil(lg m)`: the smallest finished nonce.
    fn nonce_start(&self) -> u16 {
        self.core().nonce_start
    }

    /// The largest value of `rand`, `2^(ceil(lg m) + 1) - 1`.
    fn rand_max(&self) -> u16 {
        self.core().rand_max()
    }
}

impl<P: PllProtocol> Protocol for P {
    type State = P::Agent;
    type Monitor = LeaderCount<Self>;

    fn info(&self) -> &'static ProtocolInfo {
        self.entry()
    }

    fn n(&self) -> usize {
        self.population()
    }

    fn params(&self) -> Map<String, Value> {
        self.core().params()
    }

    #[inline]
    fn transition(&self, initiator: P::Agent, responder: P::Agent) -> (P::Agent, P::Agent) {
        self.rules(initiator, responder)
    }

    #[inline]
    fn output(&self, state: P::Agent) -> Output {
        if P::is_leader(state) { Output::Leader } else { Output::Follower }
    }

    fn initial_configuration(&self) -> Vec<P::Agent> {
        vec![P::INITIAL; self.population()]
    }

    /// Uniform over the whole state space (`space_size()` states, each equally likely).
    fn random_state(&self, rng: &mut PopRng) -> P::Agent {
        self.space_at(below_u64(rng, self.space_size()))
    }

    fn monitor(&self, agents: &[P::Agent], _graph: &Graph) -> LeaderCount<Self> {
        LeaderCount::new(self, agents)
    }

    /// The safe set is closed: leaders never appear and never all vanish (Lemma 11 for P_LL;
    /// the same argument for `pll-sym`, see its module docs), so one leader stays one. Batched
    /// under `auto` from n = [`AUTO_BATCHED_MIN_N`](super::AUTO_BATCHED_MIN_N) on (few states
    /// are present at once; the figures are in README.md, Engines).
    fn hints(&self) -> EngineHints {
        EngineHints {
            safe_set_is_closed: true,
            auto_batches: self.population() as u64 >= super::AUTO_BATCHED_MIN_N,
            ..EngineHints::default()
        }
    }

    fn counts(&self) -> Option<&dyn CountStart<Self>> {
        Some(self)
    }

    fn configurations(&self) -> Option<&dyn Configurations<P::Agent>> {
        Some(self)
    }

    fn json(&self) -> Option<&dyn StateJson<P::Agent>> {
        Some(self)
    }

    fn observables(&self) -> Option<&dyn Observables<P::Agent>> {
        Some(self)
    }
}

impl<P: PllProtocol> CountStart<P> for P {
    fn initial_counts(&self) -> Vec<(P::Agent, u64)> {
        vec![(P::INITIAL, self.population() as u64)]
    }

    fn monitor_of_counts(&self, counts: &[(P::Agent, u64)]) -> LeaderCount<P> {
        LeaderCount::of_counts(self, counts)
    }
}

impl<P: PllProtocol> Configurations<P::Agent> for P {
    fn state_space(&self) -> Option<Vec<P::Agent>> {
        (self.space_size() <= STATE_SPACE_LIMIT).then(|| (0..self.space_size()).map(|i| self.space_at(i)).collect())
    }

    fn state_count(&self) -> Option<u64> {
        Some(self.space_size())
    }
}

impl<P: PllProtocol> StateJson<P::Agent> for P {
    fn state_to_json(&self, state: P::Agent) -> Map<String, Value> {
        self.write_json(state)
    }

    fn state_from_json(&self, object: &Map<String, Value>) -> Result<P::Agent, StateError> {
        self.read_json(object)
    }
}

impl<P: PllProtocol> Observables<P::Agent> for P {
    fn trace_columns(&self) -> &'static [&'static str] {
        P::TRACE_COLUMNS
    }

    fn trace_values(&self, present: &[(P::Agent, u64)]) -> Vec<f64> {
        P::trace_counts(present)
    }

    fn demotion_cause(&self, before: [P::Agent; 2], after: [P::Agent; 2]) -> Option<&'static str> {
        let [first, second] = P::demotions(before, after);
        first.or(second).map(Module::name)
    }

    fn has_demotion_causes(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_step_is_count_plus_one_mod_c_max() {
        for c_max in [1u16, 2, 3, 41, 820, 41_000] {
            for count in 0..c_max {
                assert_eq!(count_step(count, c_max), (count + 1) % c_max, "count {count}, c_max {c_max}");
            }
        }
    }
}
