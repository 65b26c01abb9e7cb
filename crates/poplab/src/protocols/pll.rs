//! `pll` and `pll-as-printed`: P_LL, leader election in O(log n) parallel time with O(log n)
//! states.
//!
//! Source: Sudo, Ooshita, Izumi, Kakugawa, Masuzawa, "Time-optimal leader election in population
//! protocols" (paper 003 in `papers/`), section 3: Algorithm 1 (main function, lines 1-22),
//! Algorithm 2 (`CountUp`, lines 23-34), Algorithm 3 (`QuickElimination`, lines 35-42),
//! Algorithm 4 (`Tournament`, lines 43-49), Algorithm 5 (`BackUp`, lines 50-57), Table 3
//! (variables and initial values). `PROTOCOLS.md` section 2.5 fixes the three errata below.
//!
//! # Variables (Table 3)
//! Every agent has the six common variables `leader`, `tick`, `status` in {X, A, B}, `epoch` in
//! {1, 2, 3}, `init` in {1, 2, 3, 4} and `color` in {0, 1, 2}. The pair (`status`, `epoch`) puts an
//! agent in one of the groups V_X, V_B, V_A ∩ V_1, V_A ∩ V_2, V_A ∩ V_3, and the group decides
//! which additional variable is live: `count` in 0..c_max (V_B), `level_q` in 0..=c_max and `done`
//! (V_A ∩ V_1), `rand` in 1..2^(ceil(lg m) + 1) (V_A ∩ V_2), `level_b` in 0..=c_max (V_A ∩ V_3);
//! V_X has none. [`State`] stores exactly this: the common variables and a [`Group`] enum whose
//! variant carries the live additional variable (and the epoch for V_X and V_B; for V_A the
//! variant is the epoch), so an agent can never hold a variable of another group. Parameters:
//! `m >= lg n` (default `ceil(lg n)`, or `ceil(lg N)` from an upper bound `N >= n`) and
//! `c_max = 41 m`.
//!
//! The initial configuration (Table 3, `PROTOCOLS.md` 2.5): every agent has status X,
//! `leader = true`, `tick = false`, `epoch = 1`, `init = 1`, `color = 0`.
//!
//! # Transition
//! [`Protocol::transition`] executes lines 1-57 in the printed order on the initiator `a_0` and
//! the responder `a_1`. Coin flips are read off the roles, as the paper says: initiator = head,
//! responder = tail (lines 36-37, 44, 50). No random number is drawn. Note that the literal order
//! makes the very interaction that creates a leader (lines 2-3, an X meeting an X in epoch 1) also
//! its first coin flip in `QuickElimination`: the new leader `a_0` meets the new follower `a_1` as
//! initiator, so every player's first flip is a head (line 36). This shifts every player's
//! `level_q` by one and does not change who wins the game of section 3.1.1.
//!
//! # Errata (PROTOCOLS.md 2.5)
//! 1. Line 9 prints `epoch <- max(epoch + 1, 3)`, which would jump every ticking agent to epoch 3
//!    (or 4) at once; epoch lives in {1, 2, 3} and moves up one per tick (section 3.2.2: "increases
//!    by one unless it has already reached 3"), so both variants use `min(epoch + 1, 3)`.
//! 2. Line 43 prints `if i in {0, 1} : ...`; it means "if there exists i in {0, 1} such that ...",
//!    like lines 35, 39, 46 and 53. Both variants read it that way.
//! 3. Line 12 sets `rand <- 1` for every agent entering V_A ∩ V_2. Only leaders build a nonce
//!    (line 43), and line 46 needs both agents at `rand >= 2^ceil(lg m)`, so a follower that entered
//!    epoch 2 as a follower never takes part in the epidemic of the largest nonce, while the proof of
//!    Lemma 10 spreads it through all of V_A (Lemma 1 with n' = |V_A|). As printed, leaders are
//!    compared only when two of them meet directly (or through agents that were leaders themselves
//!    in epoch 2). `pll` (the default) therefore starts followers of V_A ∩ V_2 at
//!    `rand = 2^ceil(lg m)`, a finished and smallest nonce (it eliminates nobody); leaders still
//!    start at 1. `pll-as-printed` keeps the printed line 12 (errata 1 and 2 still apply: the printed
//!    text of those lines has no executable meaning).
//!
//! # Choices where the paper is silent
//! - Lines 12-13 initialise `rand`/`level_b` only when `epoch > init`. From the initial configuration
//!   this always happens when an agent enters V_A ∩ V_2 or V_A ∩ V_3 (`init <= epoch` is invariant),
//!   but from an arbitrary configuration (for example `init > epoch`) an agent can enter a group
//!   without initialising its variable ("Undefined" in Table 3). Such a variable is taken to hold
//!   the value lines 12-13 would have assigned (`rand` as line 12 of the variant, `level_b = 0`).
//! - A condition that reads an additional variable the agent does not have is false, and a write
//!   to it is skipped. This matters only for states outside the reachable set, such as an agent of
//!   V_B with `leader = true` (Table 3 allows it; lines 3 and 5 never produce it): such a leader flips
//!   no coins (lines 35, 43, 50 need `done`, `rand`, `level_b`) but does lose at line 57.
//! - `init` has the domain {1, 2, 3, 4} of Table 3 although executions only ever use 1-3 (the value
//!   4 would come from the printed line 9); it is kept so that the state space is Table 3's.
//! - `m` is at most 1000 so that `c_max = 41 m` and `rand` fit in 16 bits.
//!
//! # Measurement helpers
//! [`State::epoch`] gives an agent's epoch; [`eliminations`] says, for an interaction (states
//! before and after), which part of the protocol turned a leader into a follower ([`Module`]),
//! so a caller that sees every state-changing interaction (for example through
//! [`crate::protocol::Monitor::record`]) can keep the module of the last elimination of a run.
//!
//! Safe set: exactly one leader ([`LeaderCount`]); closed from the initial configuration because
//! leaders never appear and never all vanish (Lemma 11).

use super::leader_count::LeaderCount;
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::protocol::{
    FamilyInfo, Output, ParamInfo, Params, Protocol, ProtocolInfo, STATE_SPACE_LIMIT, json_bool, json_expect_keys,
    json_uint,
};
use crate::rng::{PopRng, below_u64};
use serde_json::{Map, Value};

/// `--engine auto` runs pll on the batched engine from this many agents on. Few of the state
/// space's states are present at once (about 20 to 140 at n = 10^4 to 10^7), and batches beat
/// the agent array from about here. Per interaction, 20 trials of seed 1 per cell on one core
/// (timings varied by about 20% between runs): at n = 10^4 the agent array took 57 ns and the
/// batched engine 108 to 154 ns; at 10^5, 65 ns against 48 to 63 ns; at 10^6, 80 ns against 28 ns.
pub const AUTO_BATCHED_MIN_N: u64 = 100_000;

const PARAMS: &[ParamInfo] = &[
    ParamInfo { name: "m", default: "ceil(lg n)", doc: "knowledge m >= lg n, m = Θ(log n); 1..=1000; c_max = 41 m" },
    ParamInfo { name: "N", default: "unset", doc: "an upper bound N >= n on the population; sets m = ceil(lg N)" },
];

const FAMILIES: &[FamilyInfo] = &[];

/// Registry entry of `pll`: the corrected protocol (followers take part in `Tournament`).
pub const INFO: ProtocolInfo = ProtocolInfo {
    name: "pll",
    summary: "P_LL: O(log n)-time, O(log n)-state leader election (QuickElimination, Tournament, BackUp)",
    source: "Sudo et al., time-optimal leader election (003) section 3, Algorithms 1-5, corrected per PROTOCOLS.md",
    params: PARAMS,
    families: FAMILIES,
};

/// Registry entry of `pll-as-printed`: line 12 as printed (followers never join `Tournament`).
pub const INFO_AS_PRINTED: ProtocolInfo = ProtocolInfo {
    name: "pll-as-printed",
    summary: "P_LL with line 12 as printed: followers start Tournament at rand = 1 and never spread nonces",
    source: "Sudo et al., time-optimal leader election (003) section 3, Algorithms 1-5 (lines 9, 43 corrected)",
    params: PARAMS,
    families: FAMILIES,
};

/// `status` of Table 3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// Not yet assigned (every agent before its first interaction).
    X,
    /// Leader candidate.
    A,
    /// Timer agent.
    B,
}

impl Status {
    /// The paper's letter.
    pub fn letter(self) -> &'static str {
        match self {
            Status::X => "X",
            Status::A => "A",
            Status::B => "B",
        }
    }
}

/// An agent's group (status and epoch) with its live additional variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Group {
    /// V_X: status X, no additional variable.
    X { epoch: u8 },
    /// V_B: status B; `count` in `0..c_max`.
    B { epoch: u8, count: u16 },
    /// V_A ∩ V_1: `level_q` (the paper's level_Q) in `0..=c_max`, `done`.
    A1 { level_q: u16, done: bool },
    /// V_A ∩ V_2: `rand` in `1..2^(ceil(lg m) + 1)`.
    A2 { rand: u16 },
    /// V_A ∩ V_3: `level_b` (the paper's level_B) in `0..=c_max`.
    A3 { level_b: u16 },
}

/// One agent's state: the common variables of Table 3 and its [`Group`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct State {
    /// `leader`: output L if true, F otherwise.
    pub leader: bool,
    /// `tick`: raised when the agent got a new colour at its last interaction (lines 27, 32).
    pub tick: bool,
    /// `init` in 1..=4: the last epoch whose additional variables were initialised (line 14).
    pub init: u8,
    /// `color` in 0..=2: the phase of the count-up clock (Algorithm 2).
    pub color: u8,
    /// `status`, `epoch` and the group's additional variable.
    pub group: Group,
}

impl State {
    /// The initial state of every agent: status X, leader, no tick, epoch 1, init 1, colour 0.
    pub const INITIAL: State = State { leader: true, tick: false, init: 1, color: 0, group: Group::X { epoch: 1 } };

    /// `status`.
    #[inline(always)]
    pub fn status(self) -> Status {
        match self.group {
            Group::X { .. } => Status::X,
            Group::B { .. } => Status::B,
            Group::A1 { .. } | Group::A2 { .. } | Group::A3 { .. } => Status::A,
        }
    }

    /// `epoch` in 1..=3.
    #[inline(always)]
    pub fn epoch(self) -> u8 {
        match self.group {
            Group::X { epoch } | Group::B { epoch, .. } => epoch,
            Group::A1 { .. } => 1,
            Group::A2 { .. } => 2,
            Group::A3 { .. } => 3,
        }
    }
}

/// The epoch (1, 2 or 3) of a state: which module its agent is in (1 `QuickElimination`,
/// 2 `Tournament`, 3 `BackUp`). Same as [`State::epoch`].
pub fn epoch(state: State) -> u8 {
    state.epoch()
}

/// The part of P_LL that can turn a leader into a follower.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Module {
    /// Lines 1-6: an agent of status X gets status B (line 3) or becomes a follower of status A
    /// (line 5).
    StatusAssignment,
    /// Lines 39-42 (epoch 1).
    QuickElimination,
    /// Lines 46-49 (epoch 2).
    Tournament,
    /// Lines 53-57 (epoch 3).
    BackUp,
}

impl Module {
    /// The module's name as written in outputs.
    pub fn name(self) -> &'static str {
        match self {
            Module::StatusAssignment => "status-assignment",
            Module::QuickElimination => "quick-elimination",
            Module::Tournament => "tournament",
            Module::BackUp => "backup",
        }
    }
}

/// Which part of the protocol made each agent of an interaction lose its leadership: entry `i` is
/// `Some(module)` iff agent `i` (0 initiator, 1 responder) was a leader in `before` and is a
/// follower in `after`, where `after` is `transition(before)`.
///
/// Exact for every interaction: an agent of status X changes `leader` only in lines 1-6; any other
/// agent only in the module that lines 16-22 run, and that module is fixed by the common epoch the
/// two agents have after line 10, which is the epoch of `after` (modules do not change epochs).
/// From the initial configuration at most one agent loses its leadership per interaction.
pub fn eliminations(before: [State; 2], after: [State; 2]) -> [Option<Module>; 2] {
    std::array::from_fn(|i| {
        (before[i].leader && !after[i].leader).then(|| match (before[i].status(), after[i].epoch()) {
            (Status::X, _) => Module::StatusAssignment,
            (_, 1) => Module::QuickElimination,
            (_, 2) => Module::Tournament,
            _ => Module::BackUp,
        })
    })
}

/// Which printing of line 12 the protocol follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// `pll`: followers enter V_A ∩ V_2 with `rand = 2^ceil(lg m)`.
    Corrected,
    /// `pll-as-printed`: every agent enters V_A ∩ V_2 with `rand = 1`.
    AsPrinted,
}

/// P_LL for one population size and parameter set.
#[derive(Clone, Debug)]
pub struct Pll {
    n: usize,
    variant: Variant,
    /// `m`: the knowledge `m >= lg n`.
    m: u16,
    /// `N`, when the upper bound was given instead of `m`.
    bound: Option<u64>,
    /// `c_max = 41 m`.
    c_max: u16,
    /// `2^ceil(lg m)`: a nonce is finished once `rand` reaches it.
    nonce_start: u16,
}

/// All variables of one agent while an interaction runs (additional variables of other groups
/// hold their initial values and are dropped when the state is stored).
#[derive(Clone, Copy, Debug)]
struct Vars {
    leader: bool,
    tick: bool,
    status: Status,
    epoch: u8,
    init: u8,
    color: u8,
    count: u16,
    level_q: u16,
    done: bool,
    rand: u16,
    level_b: u16,
}

/// `rand` of an agent that entered V_A ∩ V_2 without line 12 (only from arbitrary configurations).
const RAND_UNDEFINED: u16 = 0;

/// Largest `m` accepted (so that `41 m` and `rand` fit in `u16`).
const M_MAX: u64 = 1000;

/// `(count + 1) mod c_max` (line 25), dividing only when the count wraps: a division by the
/// run-time `c_max` took a tenth of an interaction on the agent array.
#[inline(always)]
pub(crate) fn count_step(count: u16, c_max: u16) -> u16 {
    let next = count + 1;
    if next < c_max { next } else { next % c_max }
}

/// `ceil(lg x)` for `x >= 1`.
fn ceil_lg(x: u64) -> u32 {
    if x <= 1 { 0 } else { 64 - (x - 1).leading_zeros() }
}

impl Pll {
    /// `pll`, the corrected protocol, for `n` agents: reads `m` (default `ceil(lg n)`) or `N`.
    pub fn new(n: usize, params: &Params) -> Result<Self> {
        Self::build(n, params, Variant::Corrected)
    }

    /// `pll-as-printed`: line 12 as printed.
    pub fn as_printed(n: usize, params: &Params) -> Result<Self> {
        Self::build(n, params, Variant::AsPrinted)
    }

    /// The protocol of `variant` for `n` agents.
    pub fn with_variant(n: usize, params: &Params, variant: Variant) -> Result<Self> {
        Self::build(n, params, variant)
    }

    fn build(n: usize, params: &Params, variant: Variant) -> Result<Self> {
        let info = match variant {
            Variant::Corrected => &INFO,
            Variant::AsPrinted => &INFO_AS_PRINTED,
        };
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
        Ok(Self { n, variant, m: m as u16, bound, c_max: (41 * m) as u16, nonce_start: 1 << ceil_lg(m) })
    }

    /// Which printing of line 12 this instance follows.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// `m`.
    pub fn m(&self) -> u16 {
        self.m
    }

    /// `c_max = 41 m`.
    pub fn c_max(&self) -> u16 {
        self.c_max
    }

    /// `2^ceil(lg m)`: the smallest finished nonce.
    pub fn nonce_start(&self) -> u16 {
        self.nonce_start
    }

    /// The largest value of `rand`, `2^(ceil(lg m) + 1) - 1`.
    pub fn rand_max(&self) -> u16 {
        2 * self.nonce_start - 1
    }

    /// The number of states of one agent (the size of the state space `random_state` draws from):
    /// 48 combinations of `leader`, `tick`, `init`, `color` times the (status, epoch, additional
    /// variable) combinations `3 + 3 c_max + 2 (c_max + 1) + rand_max + (c_max + 1)`.
    pub fn state_count(&self) -> u64 {
        48 * self.group_count()
    }

    fn group_count(&self) -> u64 {
        let c = u64::from(self.c_max);
        3 + 3 * c + 2 * (c + 1) + u64::from(self.rand_max()) + (c + 1)
    }

    /// State number `index` of `0..state_count()`: `leader`, `tick`, `init`, `color` from the
    /// quotient by the number of (status, epoch, additional variable) combinations, those from the
    /// remainder, group by group (X, B, A1, A2, A3).
    fn state_at(&self, index: u64) -> State {
        let (common, k) = (index / self.group_count(), index % self.group_count());
        let leader = common % 2 == 1;
        let tick = (common / 2) % 2 == 1;
        let init = ((common / 4) % 4) as u8 + 1;
        let color = (common / 16) as u8;
        let c = u64::from(self.c_max);
        let (x, bs, a1, a2) = (3, 3 * c, 2 * (c + 1), u64::from(self.rand_max()));
        let group = if k < x {
            Group::X { epoch: k as u8 + 1 }
        } else if k < x + bs {
            let k = k - x;
            Group::B { epoch: (k / c) as u8 + 1, count: (k % c) as u16 }
        } else if k < x + bs + a1 {
            let k = k - x - bs;
            Group::A1 { level_q: (k / 2) as u16, done: k % 2 == 1 }
        } else if k < x + bs + a1 + a2 {
            Group::A2 { rand: (k - x - bs - a1) as u16 + 1 }
        } else {
            Group::A3 { level_b: (k - x - bs - a1 - a2) as u16 }
        };
        State { leader, tick, init, color, group }
    }

    /// `rand` of an agent entering V_A ∩ V_2 (line 12 and erratum 3).
    #[inline(always)]
    fn rand_start(&self, leader: bool) -> u16 {
        if leader || self.variant == Variant::AsPrinted { 1 } else { self.nonce_start }
    }

    #[inline(always)]
    fn unpack(&self, s: State) -> Vars {
        let mut v = Vars {
            leader: s.leader,
            tick: s.tick,
            status: s.status(),
            epoch: s.epoch(),
            init: s.init,
            color: s.color,
            count: 0,
            level_q: 0,
            done: true,
            rand: RAND_UNDEFINED,
            level_b: 0,
        };
        match s.group {
            Group::X { .. } => {}
            Group::B { count, .. } => v.count = count,
            Group::A1 { level_q, done } => (v.level_q, v.done) = (level_q, done),
            Group::A2 { rand } => v.rand = rand,
            Group::A3 { level_b } => v.level_b = level_b,
        }
        v
    }

    #[inline(always)]
    fn pack(v: &Vars) -> State {
        let group = match (v.status, v.epoch) {
            (Status::X, epoch) => Group::X { epoch },
            (Status::B, epoch) => Group::B { epoch, count: v.count },
            (Status::A, 1) => Group::A1 { level_q: v.level_q, done: v.done },
            (Status::A, 2) => Group::A2 { rand: v.rand },
            (Status::A, _) => Group::A3 { level_b: v.level_b },
        };
        State { leader: v.leader, tick: v.tick, init: v.init, color: v.color, group }
    }

    /// Lines 1-6: status assignment.
    #[inline(always)]
    fn assign_status(a: &mut [Vars; 2]) {
        if a[0].status == Status::X && a[1].status == Status::X {
            (a[0].status, a[0].level_q, a[0].done, a[0].leader) = (Status::A, 0, false, true);
            (a[1].status, a[1].count, a[1].leader) = (Status::B, 0, false);
        } else if let Some(i) = (0..2).find(|&i| a[i].status == Status::X && a[1 - i].status != Status::X) {
            (a[i].status, a[i].level_q, a[i].done, a[i].leader) = (Status::A, 0, true, false);
        }
    }

    /// Algorithm 2, lines 23-34.
    #[inline(always)]
    fn count_up(&self, a: &mut [Vars; 2]) {
        for v in a.iter_mut() {
            if v.status == Status::B {
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
            if a[i].status == Status::B {
                a[i].count = 0;
            }
        }
    }

    /// Algorithm 3, lines 35-42 (both agents in epoch 1).
    #[inline(always)]
    fn quick_elimination(&self, a: &mut [Vars; 2]) {
        // `done` exists only in V_A ∩ V_1: a condition on it is false for any other agent.
        if let Some(i) = (0..2).find(|&i| a[i].leader && !a[1 - i].leader && a[i].status == Status::A && !a[i].done) {
            if i == 0 {
                a[0].level_q = (a[0].level_q + 1).min(self.c_max);
            } else {
                a[1].done = true;
            }
        }
        if a[0].status == Status::A
            && a[1].status == Status::A
            && a[0].done
            && a[1].done
            && let Some(i) = (0..2).find(|&i| a[i].level_q < a[1 - i].level_q)
        {
            a[i].leader = false;
            a[i].level_q = a[1 - i].level_q;
        }
    }

    /// Algorithm 4, lines 43-49 (both agents in epoch 2), line 43 read as "there exists i".
    #[inline(always)]
    fn tournament(&self, a: &mut [Vars; 2]) {
        if let Some(i) = (0..2)
            .find(|&i| a[i].leader && !a[1 - i].leader && a[i].status == Status::A && a[i].rand < self.nonce_start)
        {
            a[i].rand = 2 * a[i].rand + i as u16;
        }
        if a[0].status == Status::A
            && a[1].status == Status::A
            && a[0].rand >= self.nonce_start
            && a[1].rand >= self.nonce_start
            && let Some(i) = (0..2).find(|&i| a[i].rand < a[1 - i].rand)
        {
            a[i].leader = false;
            a[i].rand = a[1 - i].rand;
        }
    }

    /// Algorithm 5, lines 50-57 (both agents in epoch 3).
    #[inline(always)]
    fn back_up(&self, a: &mut [Vars; 2]) {
        if a[0].tick && a[0].leader && a[0].status == Status::A {
            a[0].level_b = (a[0].level_b + 1).min(self.c_max);
        }
        if a[0].status == Status::A
            && a[1].status == Status::A
            && let Some(i) = (0..2).find(|&i| a[i].level_b < a[1 - i].level_b)
        {
            a[i].level_b = a[1 - i].level_b;
            a[i].leader = false;
        }
        if a[0].leader && a[1].leader {
            a[1].leader = false;
        }
    }

    fn check_state(&self, s: State) -> Result<State, String> {
        let range = |name: &str, value: u64, min: u64, max: u64| {
            if (min..=max).contains(&value) {
                Ok(())
            } else {
                Err(format!("\"{name}\" must be a whole number from {min} to {max}, found {value}"))
            }
        };
        range("init", s.init.into(), 1, 4)?;
        range("color", s.color.into(), 0, 2)?;
        range("epoch", s.epoch().into(), 1, 3)?;
        let c = u64::from(self.c_max);
        match s.group {
            Group::X { .. } => {}
            Group::B { count, .. } => range("count", count.into(), 0, c - 1)?,
            Group::A1 { level_q, .. } => range("level_q", level_q.into(), 0, c)?,
            Group::A2 { rand } => range("rand", rand.into(), 1, self.rand_max().into())?,
            Group::A3 { level_b } => range("level_b", level_b.into(), 0, c)?,
        }
        Ok(s)
    }
}

impl Protocol for Pll {
    type State = State;
    type Monitor = LeaderCount<Self>;

    fn info(&self) -> &'static ProtocolInfo {
        match self.variant {
            Variant::Corrected => &INFO,
            Variant::AsPrinted => &INFO_AS_PRINTED,
        }
    }

    fn n(&self) -> usize {
        self.n
    }

    fn params(&self) -> Map<String, Value> {
        let mut map = Map::new();
        map.insert("m".into(), Value::from(self.m));
        if let Some(bound) = self.bound {
            map.insert("N".into(), Value::from(bound));
        }
        map.insert("c_max".into(), Value::from(self.c_max));
        map
    }

    /// Leaders never appear and never all vanish (Lemma 11): one leader stays one.
    fn safe_set_is_closed(&self) -> bool {
        true
    }

    /// From n = [`AUTO_BATCHED_MIN_N`] on (see there).
    fn auto_batches(&self) -> bool {
        self.n as u64 >= AUTO_BATCHED_MIN_N
    }

    /// Lines 1-57 in order (initiator `a_0`, responder `a_1`).
    #[inline]
    fn transition(&self, initiator: State, responder: State) -> (State, State) {
        let mut a = [self.unpack(initiator), self.unpack(responder)];
        // Lines 1-6.
        Self::assign_status(&mut a);
        // Line 7.
        a[0].tick = false;
        a[1].tick = false;
        // Line 8.
        self.count_up(&mut a);
        // Line 9 (erratum 1: min, not max).
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
                if v.status == Status::A && v.epoch == 2 {
                    v.rand = self.rand_start(v.leader);
                }
                if v.status == Status::A && v.epoch == 3 {
                    v.level_b = 0;
                }
                v.init = v.epoch;
            }
            // Not in the paper: a `rand` that lines 11-15 left undefined gets line 12's value.
            if v.status == Status::A && v.epoch == 2 && v.rand == RAND_UNDEFINED {
                v.rand = self.rand_start(v.leader);
            }
        }
        // Lines 16-22.
        if a[0].epoch == 1 && a[1].epoch == 1 {
            self.quick_elimination(&mut a);
        } else if a[0].epoch == 2 && a[1].epoch == 2 {
            self.tournament(&mut a);
        } else if a[0].epoch == 3 && a[1].epoch == 3 {
            self.back_up(&mut a);
        }
        (Self::pack(&a[0]), Self::pack(&a[1]))
    }

    fn output(&self, state: State) -> Output {
        if state.leader { Output::Leader } else { Output::Follower }
    }

    fn initial_configuration(&self) -> Vec<State> {
        vec![State::INITIAL; self.n]
    }

    fn initial_counts(&self) -> Vec<(State, u64)> {
        vec![(State::INITIAL, self.n as u64)]
    }

    fn monitor_of_counts(&self, counts: &[(State, u64)]) -> LeaderCount<Self> {
        LeaderCount::of_counts(self, counts)
    }

    fn demotion_cause(&self, before: [State; 2], after: [State; 2]) -> Option<&'static str> {
        let [first, second] = eliminations(before, after);
        first.or(second).map(Module::name)
    }

    /// Uniform over the whole state space: every valid combination of the common variables and the
    /// group's additional variable has the same probability, `1 / state_count()`. So the common
    /// variables `leader`, `tick`, `init`, `color` are independent and uniform on their domains, and
    /// (status, epoch, additional variable) is drawn with each group weighted by its size: V_X by 3
    /// (its epochs), V_B by `3 c_max`, V_A ∩ V_1 by `2 (c_max + 1)`, V_A ∩ V_2 by `rand_max`,
    /// V_A ∩ V_3 by `c_max + 1`. Most random agents are therefore in V_B or V_A ∩ V_1.
    fn random_state(&self, rng: &mut PopRng) -> State {
        self.state_at(below_u64(rng, self.state_count()))
    }

    fn state_space(&self) -> Option<Vec<State>> {
        (self.state_count() <= STATE_SPACE_LIMIT).then(|| (0..self.state_count()).map(|i| self.state_at(i)).collect())
    }

    fn family_configuration(&self, _name: &str, _rng: &mut PopRng) -> Option<Vec<State>> {
        None
    }

    fn monitor(&self, agents: &[State], _graph: &Graph) -> LeaderCount<Self> {
        LeaderCount::new(self, agents)
    }

    fn state_to_json(&self, state: State) -> Map<String, Value> {
        let mut map = Map::new();
        map.insert("leader".into(), Value::Bool(state.leader));
        map.insert("tick".into(), Value::Bool(state.tick));
        map.insert("status".into(), Value::from(state.status().letter()));
        map.insert("epoch".into(), Value::from(state.epoch()));
        map.insert("init".into(), Value::from(state.init));
        map.insert("color".into(), Value::from(state.color));
        match state.group {
            Group::X { .. } => {}
            Group::B { count, .. } => {
                map.insert("count".into(), Value::from(count));
            }
            Group::A1 { level_q, done } => {
                map.insert("level_q".into(), Value::from(level_q));
                map.insert("done".into(), Value::Bool(done));
            }
            Group::A2 { rand } => {
                map.insert("rand".into(), Value::from(rand));
            }
            Group::A3 { level_b } => {
                map.insert("level_b".into(), Value::from(level_b));
            }
        }
        map
    }

    /// Reads the six common variables and exactly the additional variables of the agent's group
    /// (`count` for status B; `level_q` and `done` for status A in epoch 1; `rand` in epoch 2;
    /// `level_b` in epoch 3; none for status X). A variable of another group is refused.
    fn state_from_json(&self, object: &Map<String, Value>) -> Result<State, String> {
        const COMMON: [&str; 6] = ["leader", "tick", "status", "epoch", "init", "color"];
        let status = match object.get("status") {
            Some(Value::String(s)) if s == "X" => Status::X,
            Some(Value::String(s)) if s == "A" => Status::A,
            Some(Value::String(s)) if s == "B" => Status::B,
            Some(other) => return Err(format!("\"status\" must be \"X\", \"A\" or \"B\", found {other}")),
            None => return Err("missing key \"status\"".into()),
        };
        let epoch = json_uint(object, "epoch", 3)? as u8;
        if epoch == 0 {
            return Err("\"epoch\" must be a whole number from 1 to 3, found 0".into());
        }
        let (extra, group_name): (&[&str], &str) = match (status, epoch) {
            (Status::X, _) => (&[], "V_X"),
            (Status::B, _) => (&["count"], "V_B"),
            (Status::A, 1) => (&["level_q", "done"], "V_A ∩ V_1"),
            (Status::A, 2) => (&["rand"], "V_A ∩ V_2"),
            (Status::A, _) => (&["level_b"], "V_A ∩ V_3"),
        };
        let keys: Vec<&str> = COMMON.iter().chain(extra).copied().collect();
        if let Some(extra_key) = object.keys().find(|k| !keys.contains(&k.as_str())) {
            if ["count", "level_q", "done", "rand", "level_b"].contains(&extra_key.as_str()) {
                return Err(format!(
                    "\"{extra_key}\" is not a variable of group {group_name} (status {}, epoch {epoch}); its \
                     additional variables: {}",
                    status.letter(),
                    if extra.is_empty() { "none".to_string() } else { extra.join(", ") }
                ));
            }
            json_expect_keys(object, &keys)?;
        }
        let c = u64::from(self.c_max);
        let group = match (status, epoch) {
            (Status::X, epoch) => Group::X { epoch },
            (Status::B, epoch) => Group::B { epoch, count: json_uint(object, "count", c - 1)? as u16 },
            (Status::A, 1) => {
                Group::A1 { level_q: json_uint(object, "level_q", c)? as u16, done: json_bool(object, "done")? }
            }
            (Status::A, 2) => {
                let rand = json_uint(object, "rand", self.rand_max().into())? as u16;
                if rand == 0 {
                    return Err(format!("\"rand\" must be a whole number from 1 to {}, found 0", self.rand_max()));
                }
                Group::A2 { rand }
            }
            (Status::A, _) => Group::A3 { level_b: json_uint(object, "level_b", c)? as u16 },
        };
        let init = json_uint(object, "init", 4)? as u8;
        if init == 0 {
            return Err("\"init\" must be a whole number from 1 to 4, found 0".into());
        }
        let state = State {
            leader: json_bool(object, "leader")?,
            tick: json_bool(object, "tick")?,
            init,
            color: json_uint(object, "color", 2)? as u8,
            group,
        };
        self.check_state(state)
    }

    fn trace_columns(&self) -> &'static [&'static str] {
        &["status_x", "epoch1", "epoch2", "epoch3"]
    }

    /// Agents of status X, and agents in each epoch.
    fn trace_values(&self, agents: &[State]) -> Vec<f64> {
        let mut counts = [0u64; 4];
        for s in agents {
            if s.status() == Status::X {
                counts[0] += 1;
            }
            counts[usize::from(s.epoch())] += 1;
        }
        counts.iter().map(|&c| c as f64).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Monitor;
    use rand_core::SeedableRng;

    fn pll(n: usize) -> Pll {
        Pll::new(n, &Params::default()).unwrap()
    }

    fn printed(n: usize) -> Pll {
        Pll::as_printed(n, &Params::default()).unwrap()
    }

    fn st(leader: bool, color: u8, init: u8, group: Group) -> State {
        State { leader, tick: false, init, color, group }
    }

    fn b(epoch: u8, count: u16, color: u8) -> State {
        st(false, color, epoch, Group::B { epoch, count })
    }

    fn a1(leader: bool, level_q: u16, done: bool) -> State {
        st(leader, 0, 1, Group::A1 { level_q, done })
    }

    fn a2(leader: bool, rand: u16) -> State {
        st(leader, 1, 2, Group::A2 { rand })
    }

    fn a3(leader: bool, level_b: u16) -> State {
        st(leader, 2, 3, Group::A3 { level_b })
    }

    #[test]
    fn count_step_is_count_plus_one_mod_c_max() {
        for c_max in [1u16, 2, 3, 41, 820, 41_000] {
            for count in 0..c_max {
                assert_eq!(count_step(count, c_max), (count + 1) % c_max, "count {count}, c_max {c_max}");
            }
        }
    }
    #[test]
    fn parameters_m_n_and_c_max() {
        let p = pll(1000);
        assert_eq!((p.m(), p.c_max(), p.nonce_start(), p.rand_max()), (10, 410, 16, 31));
        assert_eq!(p.params().get("m"), Some(&Value::from(10)));
        assert_eq!(p.params().get("c_max"), Some(&Value::from(410)));
        let p = pll(1024);
        assert_eq!(p.m(), 10);
        let p = pll(1025);
        assert_eq!(p.m(), 11);
        let p = pll(2);
        assert_eq!((p.m(), p.c_max(), p.nonce_start()), (1, 41, 1));

        let p = Pll::new(100, &Params::parse(&["N=5000"]).unwrap()).unwrap();
        assert_eq!((p.m(), p.c_max()), (13, 533));
        assert_eq!(p.params().get("N"), Some(&Value::from(5000)));
        let p = Pll::new(100, &Params::parse(&["m=20"]).unwrap()).unwrap();
        assert_eq!((p.m(), p.c_max(), p.nonce_start()), (20, 820, 32));

        let err = Pll::new(100, &Params::parse(&["m=6"]).unwrap()).unwrap_err().to_string();
        assert!(err.contains("m >= lg n") && err.contains("m >= 7"), "{err}");
        let err = Pll::new(100, &Params::parse(&["N=99"]).unwrap()).unwrap_err().to_string();
        assert!(err.contains("N >= n"), "{err}");
        assert!(Pll::new(100, &Params::parse(&["N=200", "m=8"]).unwrap()).is_err());
        assert!(Pll::new(100, &Params::parse(&["m=1001"]).unwrap()).is_err());
        assert!(Pll::as_printed(100, &Params::parse(&["k=1"]).unwrap()).is_err());
        assert_eq!(pll(10).info().name, "pll");
        assert_eq!(printed(10).info().name, "pll-as-printed");
    }

    #[test]
    fn status_assignment_lines_1_to_6() {
        let p = pll(10);
        let x = State::INITIAL;
        let (i, r) = p.transition(x, x);
        // Line 2 makes the initiator a player; QuickElimination then runs on the same pair and the
        // new leader, initiator against the new follower, sees its first head (line 36).
        assert_eq!(i, st(true, 0, 1, Group::A1 { level_q: 1, done: false }));
        assert_eq!(r, st(false, 0, 1, Group::B { epoch: 1, count: 1 }));
        assert_eq!(eliminations([x, x], [i, r]), [None, Some(Module::StatusAssignment)]);
        // Line 5, either role.
        let (i2, r2) = p.transition(x, r);
        assert_eq!(i2, a1(false, 0, true));
        assert_eq!(r2, b(1, 2, 0));
        let (i3, r3) = p.transition(i, x);
        assert_eq!(r3, a1(false, 0, true));
        // The new follower counts as a follower for the player's coin flips: a head.
        assert_eq!(i3, a1(true, 2, false));
        assert_eq!(eliminations([i, x], [i3, r3]), [None, Some(Module::StatusAssignment)]);
    }

    #[test]
    fn count_up_ticks_and_wraps_the_timer() {
        let p = pll(10); // c_max = 41 * 4 = 164
        let c = p.c_max();
        let follower = a1(false, 0, true);
        // An ordinary step of the timer.
        let (i, r) = p.transition(b(1, 5, 0), follower);
        assert_eq!(i, b(1, 6, 0));
        assert_eq!(r, follower);
        // The timer wraps: new colour, tick, epoch + 1 (line 9), init follows (line 14); the partner
        // adopts the colour at once (line 30), ticks and moves to epoch 2 as well.
        let (i, r) = p.transition(b(1, c - 1, 0), follower);
        assert_eq!(i, State { tick: true, ..b(2, 0, 1) });
        assert_eq!(r, State { tick: true, ..st(false, 1, 2, Group::A2 { rand: p.nonce_start() }) });
        // Tick is reset at the next interaction (line 7).
        let (i2, _) = p.transition(i, b(2, 3, 1));
        assert_eq!(i2, b(2, 1, 1));
    }

    #[test]
    fn count_up_spreads_the_next_colour_only() {
        let p = pll(10);
        // Responder behind: it adopts the colour, ticks (epoch + 1), resets its count.
        let (i, r) = p.transition(b(2, 7, 1), b(1, 9, 0));
        assert_eq!(i, b(2, 8, 1));
        assert_eq!(r, State { tick: true, ..b(2, 0, 1) });
        // Initiator behind (0 is the colour after 2): it adopts 0; epoch 3 stays 3.
        let (i, r) = p.transition(b(3, 7, 2), b(3, 9, 0));
        assert_eq!(i, State { tick: true, ..b(3, 0, 0) });
        assert_eq!(r, b(3, 10, 0));
        // Colour 2 meeting colour 1 from the other side: the 1 adopts 2.
        let (i, r) = p.transition(b(2, 7, 1), b(3, 9, 2));
        assert_eq!(i, State { tick: true, ..b(3, 0, 2) });
        assert_eq!(r, b(3, 10, 2));
        // Line 10 alone: a higher epoch spreads without a colour change.
        let (i, r) = p.transition(b(1, 7, 1), b(2, 9, 1));
        assert_eq!((i, r), (State { init: 2, ..b(2, 8, 1) }, b(2, 10, 1)));
        // Equal colours: nothing but the counts.
        let (i, r) = p.transition(b(1, 7, 2), b(1, 9, 2));
        assert_eq!((i, r), (b(1, 8, 2), b(1, 10, 2)));
    }

    #[test]
    fn line_10_equalises_epochs_and_lines_9_11_to_14_initialise() {
        // An epoch-3 agent pulls an epoch-1 agent of status A into epoch 3: level_b starts at 0.
        let p = pll(10);
        let (i, r) = p.transition(a1(true, 4, true), b(3, 2, 0));
        assert_eq!(i, st(true, 0, 3, Group::A3 { level_b: 0 }));
        assert_eq!(r, b(3, 3, 0));
        // Erratum 1: a tick in epoch 3 keeps epoch 3.
        let c = p.c_max();
        let (i, _) = p.transition(b(3, c - 1, 2), a3(false, 0));
        assert_eq!(i.epoch(), 3);
        assert_eq!(i, State { tick: true, ..b(3, 0, 0) });
    }

    #[test]
    fn quick_elimination_coin_flips_initiator_is_head() {
        let p = pll(10);
        let follower = a1(false, 0, true);
        // Head: the leader is the initiator.
        let (i, r) = p.transition(a1(true, 2, false), follower);
        assert_eq!((i, r), (a1(true, 3, false), follower));
        // A timer agent is a follower too.
        let (i, _) = p.transition(a1(true, 2, false), b(1, 0, 0));
        assert_eq!(i, a1(true, 3, false));
        // Tail: the leader is the responder; it stops flipping.
        // (Both are then done, so the follower also learns the level at once, line 41.)
        let (i, r) = p.transition(follower, a1(true, 2, false));
        assert_eq!((i, r), (a1(false, 2, true), a1(true, 2, true)));
        // Two leaders: no flip.
        let (i, r) = p.transition(a1(true, 2, false), a1(true, 5, false));
        assert_eq!((i, r), (a1(true, 2, false), a1(true, 5, false)));
        // A finished leader flips no more.
        let (i, _) = p.transition(a1(true, 2, true), follower);
        assert_eq!(i, a1(true, 2, true));
        // The flip is capped at c_max (line 36).
        let (i, _) = p.transition(a1(true, p.c_max(), false), follower);
        assert_eq!(i, a1(true, p.c_max(), false));
    }

    #[test]
    fn quick_elimination_epidemic_of_the_largest_level() {
        let p = pll(10);
        // A finished leader with the smaller level loses and copies, whatever its role.
        let (i, r) = p.transition(a1(true, 1, true), a1(true, 3, true));
        assert_eq!((i, r), (a1(false, 3, true), a1(true, 3, true)));
        assert_eq!(
            eliminations([a1(true, 1, true), a1(true, 3, true)], [i, r]),
            [Some(Module::QuickElimination), None]
        );
        // The level spreads through followers.
        let (i, r) = p.transition(a1(false, 3, true), a1(false, 0, true));
        assert_eq!((i, r), (a1(false, 3, true), a1(false, 3, true)));
        let (i, r) = p.transition(a1(false, 4, true), a1(true, 3, true));
        assert_eq!((i, r), (a1(false, 4, true), a1(false, 4, true)));
        // Equal levels: nobody loses.
        let (i, r) = p.transition(a1(true, 3, true), a1(true, 3, true));
        assert_eq!((i, r), (a1(true, 3, true), a1(true, 3, true)));
        // A player still flipping takes no part (its level is not final).
        let (i, r) = p.transition(a1(true, 1, false), a1(false, 3, true));
        assert_eq!((i, r), (a1(true, 2, false), a1(false, 3, true)));
    }

    #[test]
    fn tournament_builds_nonces_from_roles() {
        let p = pll(1000); // m = 10, 2^ceil(lg m) = 16
        let s = p.nonce_start();
        let f = a2(false, s);
        // rand <- 2 rand + i: the initiator appends 0, the responder 1.
        let (i, r) = p.transition(a2(true, 1), f);
        assert_eq!((i, r), (a2(true, 2), f));
        let (i, r) = p.transition(f, a2(true, 2));
        assert_eq!((i, r), (f, a2(true, 5)));
        // Four flips make a nonce in 16..=31: here 1 -> 3 -> 6 -> 13 -> 26.
        let mut leader = a2(true, 1);
        for responder in [true, false, true, false] {
            leader = if responder { p.transition(f, leader).1 } else { p.transition(leader, f).0 };
        }
        assert_eq!(leader, a2(true, 26));
        // A finished nonce stops growing.
        assert_eq!(p.transition(leader, f).0, leader);
        // Two leaders do not flip.
        let (i, r) = p.transition(a2(true, 1), a2(true, 3));
        assert_eq!((i, r), (a2(true, 1), a2(true, 3)));
    }

    #[test]
    fn tournament_spreads_the_largest_nonce_through_followers() {
        let p = pll(1000);
        let s = p.nonce_start();
        // pll: a follower entering epoch 2 (colour 0 -> 1, tick) starts at 2^ceil(lg m) (erratum 3)...
        let (i, r) = p.transition(a2(false, s), a1(false, 2, true));
        assert_eq!((i, r), (a2(false, s), State { tick: true, ..a2(false, s) }));
        // ... a leader at 1.
        let (i, r) = p.transition(a2(true, 29), a1(true, 2, true));
        assert_eq!((i, r), (a2(true, 29), State { tick: true, ..a2(true, 1) }));
        // The follower learns the largest nonce and passes it on; a leader with a smaller finished
        // nonce loses when it meets the follower.
        let (i, r) = p.transition(a2(true, 29), a2(false, s));
        assert_eq!((i, r), (a2(true, 29), a2(false, 29)));
        let (i, r) = p.transition(a2(false, 29), a2(true, 17));
        assert_eq!((i, r), (a2(false, 29), a2(false, 29)));
        assert_eq!(eliminations([a2(false, 29), a2(true, 17)], [i, r]), [None, Some(Module::Tournament)]);
        // The smallest nonce eliminates nobody; unfinished nonces take no part.
        let (i, r) = p.transition(a2(false, s), a2(true, s));
        assert_eq!((i, r), (a2(false, s), a2(true, s)));
        let (i, r) = p.transition(a2(true, 3), a2(false, 29));
        assert_eq!((i, r), (a2(true, 6), a2(false, 29)));
    }

    #[test]
    fn as_printed_followers_never_take_part_in_tournament() {
        let p = printed(1000);
        // Line 12 as printed: a follower enters epoch 2 with rand = 1 ...
        let (i, r) = p.transition(a2(false, 16), a1(false, 2, true));
        assert_eq!((i, r), (a2(false, 16), State { tick: true, ..a2(false, 1) }));
        // ... never raises it (line 43 is for leaders) ...
        let (i, r) = p.transition(a2(false, 1), a2(false, 29));
        assert_eq!((i, r), (a2(false, 1), a2(false, 29)));
        // ... so it neither learns nor carries the largest nonce (line 46 needs rand >= 16).
        let (i, r) = p.transition(a2(true, 29), a2(false, 1));
        assert_eq!((i, r), (a2(true, 29), a2(false, 1)));
        let (i, r) = p.transition(a2(false, 1), a2(true, 17));
        assert_eq!((i, r), (a2(false, 1), a2(true, 17)));
        // Leaders still compare finished nonces when they meet directly.
        let (i, r) = p.transition(a2(true, 29), a2(true, 17));
        assert_eq!((i, r), (a2(true, 29), a2(false, 29)));
        // The same follower in pll spreads the nonce.
        let q = pll(1000);
        let (i, _) = q.transition(a1(false, 2, true), a2(true, 1));
        assert_eq!(q.transition(a2(true, 29), i).1, a2(false, 29));
    }

    #[test]
    fn back_up_levels_ticks_and_the_leader_leader_rule() {
        let p = pll(10);
        let c = p.c_max();
        // A tick raised in this interaction (colour 0 -> 1 from the partner) and the leader is the
        // initiator: head, level_b + 1.
        let leader = st(true, 0, 3, Group::A3 { level_b: 2 });
        let ahead = st(false, 1, 3, Group::A3 { level_b: 2 });
        let (i, r) = p.transition(leader, ahead);
        assert_eq!(i, State { tick: true, ..st(true, 1, 3, Group::A3 { level_b: 3 }) });
        // The follower learns the level at once (line 53, same interaction).
        assert_eq!(r, st(false, 1, 3, Group::A3 { level_b: 3 }));
        // Responder with a tick: tail, no change of level.
        let (i, r) = p.transition(ahead, leader);
        assert_eq!(i, ahead);
        assert_eq!(r, State { tick: true, ..st(true, 1, 3, Group::A3 { level_b: 2 }) });
        // No tick: no flip.
        let (i, _) = p.transition(a3(true, 2), a3(false, 2));
        assert_eq!(i, a3(true, 2));
        // Level propagation: the smaller level is overwritten, a leader with it loses.
        let (i, r) = p.transition(a3(false, 5), a3(true, 4));
        assert_eq!((i, r), (a3(false, 5), a3(false, 5)));
        assert_eq!(eliminations([a3(false, 5), a3(true, 4)], [i, r]), [None, Some(Module::BackUp)]);
        let (i, r) = p.transition(a3(true, 1), a3(false, 4));
        assert_eq!((i, r), (a3(false, 4), a3(false, 4)));
        // Two leaders with the same level: the responder yields (line 57).
        let (i, r) = p.transition(a3(true, 4), a3(true, 4));
        assert_eq!((i, r), (a3(true, 4), a3(false, 4)));
        // Different levels: the smaller yields, whatever its role (line 55 before 57).
        let (i, r) = p.transition(a3(true, 6), a3(true, 4));
        assert_eq!((i, r), (a3(true, 6), a3(false, 6)));
        // Capped at c_max (line 51).
        let top = st(true, 0, 3, Group::A3 { level_b: c });
        let (i, _) = p.transition(top, st(false, 1, 3, Group::A3 { level_b: c }));
        assert_eq!(i, State { tick: true, ..st(true, 1, 3, Group::A3 { level_b: c }) });
        // Timer agents carry no level but still count.
        let (i, r) = p.transition(a3(true, 4), b(3, 7, 2));
        assert_eq!((i, r), (a3(true, 4), b(3, 8, 2)));
    }

    #[test]
    fn monitor_counts_leaders() {
        let p = pll(3);
        let agents = p.initial_configuration();
        let mut m = p.monitor(&agents, &Graph::Complete);
        assert!(!m.is_safe());
        assert_eq!(m.leaders(), 3);
        let (i, r) = p.transition(agents[0], agents[1]);
        m.record([agents[0], agents[1]], [i, r]);
        assert_eq!(m.leaders(), 2);
        let (x, y) = p.transition(agents[2], i);
        m.record([agents[2], i], [x, y]);
        assert!(m.is_safe());
    }

    #[test]
    fn json_round_trip_and_group_checks() {
        let p = pll(1000);
        let mut rng = PopRng::seed_from_u64(3);
        let mut seen = [0u32; 5];
        for _ in 0..20_000 {
            let s = p.random_state(&mut rng);
            assert_eq!(p.check_state(s), Ok(s));
            assert_eq!(p.state_from_json(&p.state_to_json(s)), Ok(s));
            seen[match s.group {
                Group::X { .. } => 0,
                Group::B { .. } => 1,
                Group::A1 { .. } => 2,
                Group::A2 { .. } => 3,
                Group::A3 { .. } => 4,
            }] += 1;
        }
        // Group weights 3 : 3 c_max : 2 (c_max + 1) : rand_max : c_max + 1 = 3 : 1230 : 822 : 31 : 411.
        let expected = [3.0, 1230.0, 822.0, 31.0, 411.0].map(|w| 20_000.0 * w / 2497.0);
        let chi2: f64 = seen.iter().zip(expected).map(|(&o, e)| (f64::from(o) - e).powi(2) / e).sum();
        assert!(chi2 < 18.47, "chi2 = {chi2}, seen = {seen:?}");
        assert_eq!(p.state_count(), 48 * 2497);

        let parse = |text: &str| p.state_from_json(&serde_json::from_str(text).unwrap());
        let ok = r#"{"leader":true,"tick":false,"status":"A","epoch":2,"init":2,"color":1,"rand":7}"#;
        assert_eq!(parse(ok), Ok(a2(true, 7)));
        let x = r#"{"leader":true,"tick":false,"status":"X","epoch":1,"init":1,"color":0}"#;
        assert_eq!(parse(x), Ok(State::INITIAL));
        let wrong_group = r#"{"leader":true,"tick":false,"status":"A","epoch":2,"init":2,"color":1,"level_q":7}"#;
        assert!(parse(wrong_group).unwrap_err().contains("not a variable of group V_A ∩ V_2"));
        let missing = r#"{"leader":true,"tick":false,"status":"B","epoch":2,"init":2,"color":1}"#;
        assert!(parse(missing).unwrap_err().contains("missing key \"count\""));
        let too_big = r#"{"leader":true,"tick":false,"status":"A","epoch":2,"init":2,"color":1,"rand":32}"#;
        assert!(parse(too_big).is_err());
        let zero = r#"{"leader":true,"tick":false,"status":"A","epoch":2,"init":2,"color":1,"rand":0}"#;
        assert!(parse(zero).is_err());
        let count = r#"{"leader":false,"tick":false,"status":"B","epoch":1,"init":1,"color":1,"count":410}"#;
        assert!(parse(count).is_err());
        let bad_status = r#"{"leader":false,"tick":false,"status":"Y","epoch":1,"init":1,"color":1}"#;
        assert!(parse(bad_status).is_err());
        let bad_epoch = r#"{"leader":false,"tick":false,"status":"X","epoch":0,"init":1,"color":1}"#;
        assert!(parse(bad_epoch).is_err());
        let unknown = r#"{"leader":false,"tick":false,"status":"X","epoch":1,"init":1,"color":1,"foo":1}"#;
        assert!(parse(unknown).unwrap_err().contains("unknown key \"foo\""));
    }

    #[test]
    fn transitions_of_random_states_stay_in_the_state_space() {
        for p in [pll(50), printed(50), pll(2)] {
            let mut rng = PopRng::seed_from_u64(9);
            for _ in 0..200_000 {
                let (x, y) = (p.random_state(&mut rng), p.random_state(&mut rng));
                let (x2, y2) = p.transition(x, y);
                assert_eq!(p.check_state(x2), Ok(x2), "{x:?} {y:?}");
                assert_eq!(p.check_state(y2), Ok(y2), "{x:?} {y:?}");
                assert_eq!(x2.epoch(), y2.epoch());
            }
        }
    }
}
