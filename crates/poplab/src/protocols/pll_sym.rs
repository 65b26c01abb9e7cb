//! `pll-sym`: the symmetric variant of P_LL (paper 003, section 4 and Algorithm 6).
//!
//! Source: Sudo, Ooshita, Izumi, Kakugawa, Masuzawa, "Time-optimal leader election in population
//! protocols" (paper 003 in `papers/`), section 4 ("Discussion"), which sketches how to make P_LL
//! symmetric, and Algorithm 6 (symmetric `BackUp`, lines 1-18). Everything else is P_LL of section 3
//! as the [`pll`](super::pll) module implements it, errata included (`PROTOCOLS.md` 2.5 and 2.6).
//!
//! # Symmetry (section 4, first paragraph)
//! A protocol is symmetric if `T(p, q) = (p', q')` implies `T(q, p) = (q', p')` for all states `p`,
//! `q`. In particular `T(p, p) = (q, r)` implies `q = r`: two agents in the same state cannot be told
//! apart, so they end in the same state. This module's [`Protocol::transition`] is symmetric on the
//! whole state space (not only on reachable states): every rule below is written "for every agent"
//! or "if there is an agent `a_i` such that ...", and every such condition holds for at most one of
//! the two agents, so the result never depends on which agent is the initiator. The integration
//! test `tests/pll_sym_runs.rs` checks this on every pair of states reachable for `m = 2` and
//! `m = 3` and on millions of sampled pairs.
//!
//! A consequence the paper does not state: with `n = 2` the two agents start in the same state and
//! therefore stay in equal states forever (X,X -> Y,Y -> X,X -> ...), so no symmetric protocol
//! elects a leader among 2 agents. [`PllSym::new`] refuses `n < 3`.
//!
//! # Where P_LL is asymmetric and what replaces it (section 4)
//! P_LL uses the roles in exactly three places: status assignment (lines 2-3), the simple election
//! of `BackUp` (line 57) and its coin flips (lines 36-37, 44, 50, where initiator = head and
//! responder = tail). `pll-sym` replaces them as follows; every other line (7-34, 39-42, 46-49, the
//! errata of `pll`) is unchanged, which keeps the corrected Tournament epidemic of `pll`: followers
//! enter V_A ∩ V_2 with `rand = 2^ceil(lg m)`.
//!
//! 1. **Status assignment** (replaces lines 1-6). A fourth status Y, with the rules of section 4:
//!    `X, X -> Y, Y` and `Y, Y -> X, X` (both stay leaders, nothing else changes); `X, Y -> A, B`:
//!    the agent of status X becomes the leader of status A (`level_q = 0`, `done = false`, as line
//!    2) and the agent of status Y becomes a timer agent of status B (`count = 0`, follower, as line
//!    3); an agent of status X or Y that meets an agent of status A or B becomes a follower of status
//!    A (`level_q = 0`, `done = true`, as line 5). Choice: the X side of `X, Y` becomes A, the order
//!    in which the paper writes the rule (either choice is symmetric, since X and Y differ).
//! 2. **Coin statuses** (new). Every follower has a coin status `coin` in {J, K, F0, F1}; leaders
//!    have none. A leader that becomes a follower gets J, whatever made it a follower (section 4:
//!    "Every time a leader v becomes a follower, initial status J is assigned"); this includes the
//!    agents that become followers at status assignment (Y -> B, X or Y -> follower of status A).
//!    When two followers meet, whatever their status and epoch: `J, J -> K, K`, `K, K -> J, J`,
//!    `J, K -> F0, F1` (the J side gets F0); F0 and F1 never change again. Choices and reasons:
//!    - F0 and F1 are absorbing and only leaders turn into followers, so F0 and F1 are created in
//!      pairs and never destroyed: **#F0 = #F1 in every configuration reachable from the initial
//!      one** (the claim of section 4). Nothing else writes `coin`.
//!    - The coin rules look at the two agents as they were when the interaction began: they run
//!      first ("line 0"), before lines 1-6, and only if both agents were followers then. An agent
//!      that becomes a follower in an interaction therefore ends that interaction with coin J
//!      ("a new follower starts at J") and joins the coin rules from its next interaction. (Running
//!      them last instead would change nothing that matters: the rules never involve a leader, and a
//!      leader reads only F0 and F1, which nothing changes.)
//!    - Followers of every status (B included) and every epoch take part, and the coin status is
//!      kept across epochs, so the F0/F1 followers made in epoch 1 serve as coins in epochs 2 and 3.
//!      Timer agents (status B) are followers and count as coins exactly as they count as followers
//!      in P_LL's line 35.
//!    - J and K followers never serve as coins. (With a single J or K follower left it stays so for
//!      ever; that costs nothing since the others are F0 or F1.)
//! 3. **Coin flips** (replace lines 36-37 and 44). A leader flips a coin only when it meets a
//!    follower of coin status F0 or F1, and reads it: F0 = head, F1 = tail (section 4). So line 35
//!    becomes "a_i is a leader, a_{1-i} a follower of coin status F0 or F1, and not a_i.done"; line 36
//!    (head: `level_q <- min(level_q + 1, c_max)`) runs on F0, line 37 (tail: `done <- true`) on F1.
//!    Line 43 likewise needs the follower to be F0 or F1 and line 44 becomes
//!    `rand <- 2 rand + j` with `j = 0` for F0 (head, as the initiator's `i = 0` in P_LL) and `j = 1`
//!    for F1 (tail). Why this is fair and independent: at every step, a given leader meets each given
//!    agent with the same probability `2 / (n (n - 1))`, and #F0 = #F1, so, given the whole history,
//!    a leader that flips sees head with probability exactly 1/2; a flip needs a leader and a
//!    follower, so at most one coin is flipped per step. The flips are therefore i.i.d. fair coins
//!    (section 4: "totally independent and fair"), unlike P_LL's, where a leader's role is fair but
//!    the roles of two agents in one step are not independent.
//! 4. **BackUp** (replaces lines 50-57): Algorithm 6, lines 1-18, in the printed order, with these
//!    readings:
//!    - `status_L` in {0, 1} (JSON `status_l`) is a variable of the agents that run `BackUp`, those
//!      of status A or B in epoch 3 ("for all i" of line 1: followers flip it too). It is set to 0
//!      when the agent enters epoch 3 (lines 11-15; the paper gives no initial value and the analysis
//!      of section 4 does not depend on it). Agents of status X or Y have none (they only exist in
//!      epoch 1 in executions from the initial configuration); line 1 skips them and they are in
//!      neither V_L0 nor V_L1.
//!    - `ready` (JSON `ready`) is a variable of the leaders of V_A ∩ V_3 ("Initially, ready = false";
//!      lines 11-15 set it to false on entering epoch 3). Line 2's "a_i in V_L" is read as a leader of
//!      V_A ∩ V_3, the agents that have `ready` and `level_B` (as in `pll`, a condition on a variable
//!      the agent lacks is false and a write to it is skipped). A follower has no `ready`.
//!    - Lines 5 and 8: V_F0 and V_F1 are the followers of coin status F0 and F1 (section 4), so a
//!      ready leader keeps `ready` through meetings with leaders and with J or K followers.
//!    - Line 3 reads the tick raised in this very interaction (lines 27, 32; reset by line 7), as line
//!      50 of P_LL does. As in `pll`, the tick that takes an agent into epoch 3 counts (lines 11-15
//!      first set `ready = false`, then line 4 sets it to true).
//!    - Lines 16-18 read `status_L` after line 1 flipped it for both agents (the printed order;
//!      flipping both keeps "different" different). V_L0 and V_L1 are leaders with `status_L`, i.e.
//!      of status A or B in epoch 3.
//!
//!    Algorithm 6 flips coins only through F0/F1 followers too, so BackUp's flips are also fair and
//!    independent (P_LL's line 50 is not: two leaders meeting with ticks flip together).
//!
//! # Other choices
//! - Lines 11-15, as in `pll`: a variable the agent should have but that lines 11-15 did not
//!   initialise (only from arbitrary configurations, for example `init > epoch`) holds the value they
//!   would have assigned. For the new variables: `ready = false`, `status_L = 0`.
//! - The state stores only live variables (as in `pll`): `coin` for followers, `ready` for leaders of
//!   V_A ∩ V_3, `status_l` for agents of status A or B in epoch 3. [`State`] keeps the dead ones at a
//!   fixed value (`coin = J`, `ready = false`, `status_l = 0`), so equal agents have equal states.
//! - `m` and `N` as in `pll` (default `m = ceil(lg n)`), parsed by [`Pll::new`]; `c_max = 41 m`.
//!
//! # Stabilisation
//! From the initial configuration (every agent: status X, leader, no tick, epoch 1, init 1, colour
//! 0) the number of leaders never rises and never reaches 0 (as Lemma 11: the leader of status A
//! created by `X, Y -> A, B` is not lost in that interaction, and the modules lose a leader only to
//! an agent carrying a larger value, or, in lines 16-18, to another leader). The safe set is
//! "exactly one leader" ([`LeaderCount`]). The election behind everything, lines 16-18, takes
//! O(n log n) parallel time in expectation (section 4's Markov-chain argument) instead of P_LL's
//! O(n), which section 4 shows is still enough for O(log n) expected stabilisation time.

use super::leader_count::LeaderCount;
use super::pll::{self, Module, Pll};
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::protocol::{
    FamilyInfo, Output, Params, Protocol, ProtocolInfo, STATE_SPACE_LIMIT, json_bool, json_expect_keys, json_uint,
};
use crate::rng::{PopRng, below_u64};
use serde_json::{Map, Value};

const FAMILIES: &[FamilyInfo] = &[];

/// Registry entry of `pll-sym`.
pub const INFO: ProtocolInfo = ProtocolInfo {
    name: "pll-sym",
    summary: "P_LL made symmetric: status Y, follower coins J/K/F0/F1 (fair independent flips), BackUp of Algorithm 6",
    source: "Sudo et al., time-optimal leader election (003) section 4 and Algorithm 6, on pll (PROTOCOLS.md 2.5, 2.6)",
    params: pll::INFO.params,
    families: FAMILIES,
};

/// `status`: Table 3's X, A, B and section 4's Y.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// Not yet assigned (every agent before its first interaction).
    X,
    /// Not yet assigned, the partner status of X (section 4).
    Y,
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
            Status::Y => "Y",
            Status::A => "A",
            Status::B => "B",
        }
    }
}

/// The coin status of a follower (section 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Coin {
    /// The status of a new follower.
    J,
    /// `J, J -> K, K`; `K, K -> J, J`.
    K,
    /// `J, K -> F0, F1`: a leader meeting it reads head.
    F0,
    /// A leader meeting it reads tail.
    F1,
}

impl Coin {
    /// The paper's name.
    pub fn letter(self) -> &'static str {
        match self {
            Coin::J => "J",
            Coin::K => "K",
            Coin::F0 => "F0",
            Coin::F1 => "F1",
        }
    }

    const ALL: [Coin; 4] = [Coin::J, Coin::K, Coin::F0, Coin::F1];

    /// The coin a leader reads off a follower of this coin status: `Some(true)` head (F0),
    /// `Some(false)` tail (F1), `None` no flip (J, K).
    #[inline(always)]
    pub fn flip(self) -> Option<bool> {
        match self {
            Coin::F0 => Some(true),
            Coin::F1 => Some(false),
            Coin::J | Coin::K => None,
        }
    }
}

/// An agent's group (status and epoch) with its live additional variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Group {
    /// V_X: status X, no additional variable.
    X { epoch: u8 },
    /// V_Y: status Y, no additional variable.
    Y { epoch: u8 },
    /// V_B: status B; `count` in `0..c_max`.
    B { epoch: u8, count: u16 },
    /// V_A ∩ V_1: `level_q` in `0..=c_max`, `done`.
    A1 { level_q: u16, done: bool },
    /// V_A ∩ V_2: `rand` in `1..2^(ceil(lg m) + 1)`.
    A2 { rand: u16 },
    /// V_A ∩ V_3: `level_b` in `0..=c_max`; `ready` (leaders only; false for followers).
    A3 { level_b: u16, ready: bool },
}

/// One agent's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct State {
    /// `leader`: output L if true, F otherwise.
    pub leader: bool,
    /// The coin status of a follower; always [`Coin::J`] for a leader (which has none).
    pub coin: Coin,
    /// `tick`: raised when the agent got a new colour at its last interaction.
    pub tick: bool,
    /// `init` in 1..=4.
    pub init: u8,
    /// `color` in 0..=2.
    pub color: u8,
    /// `status_L` in {0, 1} of Algorithm 6, for agents of status A or B in epoch 3; 0 for others.
    pub status_l: u8,
    /// `status`, `epoch` and the group's additional variables.
    pub group: Group,
}

impl State {
    /// The initial state of every agent: status X, leader, no tick, epoch 1, init 1, colour 0.
    pub const INITIAL: State = State {
        leader: true,
        coin: Coin::J,
        tick: false,
        init: 1,
        color: 0,
        status_l: 0,
        group: Group::X { epoch: 1 },
    };

    /// `status`.
    #[inline(always)]
    pub fn status(self) -> Status {
        match self.group {
            Group::X { .. } => Status::X,
            Group::Y { .. } => Status::Y,
            Group::B { .. } => Status::B,
            Group::A1 { .. } | Group::A2 { .. } | Group::A3 { .. } => Status::A,
        }
    }

    /// `epoch` in 1..=3.
    #[inline(always)]
    pub fn epoch(self) -> u8 {
        match self.group {
            Group::X { epoch } | Group::Y { epoch } | Group::B { epoch, .. } => epoch,
            Group::A1 { .. } => 1,
            Group::A2 { .. } => 2,
            Group::A3 { .. } => 3,
        }
    }

    /// The follower's coin status, `None` for a leader.
    #[inline(always)]
    pub fn coin_status(self) -> Option<Coin> {
        (!self.leader).then_some(self.coin)
    }

    /// Whether the agent has the variable `status_L` (status A or B in epoch 3).
    #[inline(always)]
    pub fn has_status_l(self) -> bool {
        matches!(self.group, Group::A3 { .. } | Group::B { epoch: 3, .. })
    }
}

/// Which part of the protocol made each agent of an interaction lose its leadership (entry `i` for
/// agent `i`, 0 initiator, 1 responder), as [`pll::eliminations`]: [`Module::StatusAssignment`] for
/// an agent of status X or Y (the rules of section 4 that replace lines 1-6), otherwise the module of
/// the common epoch after the interaction (Algorithm 6 for epoch 3).
pub fn eliminations(before: [State; 2], after: [State; 2]) -> [Option<Module>; 2] {
    std::array::from_fn(|i| {
        (before[i].leader && !after[i].leader).then(|| match (before[i].status(), after[i].epoch()) {
            (Status::X | Status::Y, _) => Module::StatusAssignment,
            (_, 1) => Module::QuickElimination,
            (_, 2) => Module::Tournament,
            _ => Module::BackUp,
        })
    })
}

/// The symmetric P_LL for one population size and parameter set.
#[derive(Clone, Debug)]
pub struct PllSym {
    n: usize,
    /// P_LL with the same parameters (`m`, `N`, `c_max`, `2^ceil(lg m)`).
    base: Pll,
    c_max: u16,
    nonce_start: u16,
}

/// All variables of one agent while an interaction runs.
#[derive(Clone, Copy, Debug)]
struct Vars {
    leader: bool,
    coin: Coin,
    tick: bool,
    status: Status,
    epoch: u8,
    init: u8,
    color: u8,
    status_l: u8,
    count: u16,
    level_q: u16,
    done: bool,
    rand: u16,
    level_b: u16,
    ready: bool,
}

/// `rand` of an agent that entered V_A ∩ V_2 without line 12 (only from arbitrary configurations).
const RAND_UNDEFINED: u16 = 0;

impl PllSym {
    /// `pll-sym` for `n >= 3` agents: reads `m` (default `ceil(lg n)`) or `N`, as `pll`.
    pub fn new(n: usize, params: &Params) -> Result<Self> {
        if n < 3 {
            return Err(Error::PopulationSize {
                n: n as u64,
                reason: "pll-sym is symmetric, and two agents that start in the same state stay in equal states \
                         (X,X -> Y,Y -> X,X ...), so no leader is ever elected; use --n 3 or more"
                    .into(),
            });
        }
        let base = Pll::new(n, params).map_err(|e| match e {
            Error::UnknownParameter { name, known, .. } => {
                Error::UnknownParameter { protocol: INFO.name.into(), name, known }
            }
            other => other,
        })?;
        Ok(Self { n, c_max: base.c_max(), nonce_start: base.nonce_start(), base })
    }

    /// `m`.
    pub fn m(&self) -> u16 {
        self.base.m()
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

    /// The number of states of one agent: 24 combinations of `tick`, `init`, `color`, times the
    /// combinations of role (leader, or follower with one of 4 coin statuses) and group.
    pub fn state_count(&self) -> u64 {
        24 * (self.groups(true) + 4 * self.groups(false))
    }

    /// The number of (status, epoch, additional variables, `status_l`) combinations of a leader or a
    /// follower: X and Y 3 each; B `2 c_max` in epochs 1-2 and `2 c_max` in epoch 3 (`status_l`);
    /// A1 `2 (c_max + 1)`; A2 `rand_max`; A3 `2 (c_max + 1)` times 2 for a leader (`ready`).
    fn groups(&self, leader: bool) -> u64 {
        let c = u64::from(self.c_max);
        6 + 4 * c + 2 * (c + 1) + u64::from(self.rand_max()) + 2 * (c + 1) * if leader { 2 } else { 1 }
    }

    /// State number `index` of `0..state_count()`.
    fn state_at(&self, index: u64) -> State {
        let per_common = self.groups(true) + 4 * self.groups(false);
        let (common, k) = (index / per_common, index % per_common);
        let tick = common % 2 == 1;
        let init = ((common / 2) % 4) as u8 + 1;
        let color = (common / 8) as u8;
        let (leader, coin, mut k) = if k < self.groups(true) {
            (true, Coin::J, k)
        } else {
            let k = k - self.groups(true);
            (false, Coin::ALL[(k / self.groups(false)) as usize], k % self.groups(false))
        };
        let c = u64::from(self.c_max);
        let mut status_l = 0;
        let group = if k < 6 {
            if k < 3 { Group::X { epoch: k as u8 + 1 } } else { Group::Y { epoch: k as u8 - 2 } }
        } else if k < 6 + 4 * c {
            k -= 6;
            let (epoch, rest) = if k < 2 * c { ((k / c) as u8 + 1, k % c) } else { (3, k - 2 * c) };
            if epoch == 3 {
                status_l = (rest / c) as u8;
                Group::B { epoch, count: (rest % c) as u16 }
            } else {
                Group::B { epoch, count: rest as u16 }
            }
        } else if k < 6 + 4 * c + 2 * (c + 1) {
            k -= 6 + 4 * c;
            Group::A1 { level_q: (k / 2) as u16, done: k % 2 == 1 }
        } else if k < 6 + 4 * c + 2 * (c + 1) + u64::from(self.rand_max()) {
            Group::A2 { rand: (k - 6 - 4 * c - 2 * (c + 1)) as u16 + 1 }
        } else {
            k -= 6 + 4 * c + 2 * (c + 1) + u64::from(self.rand_max());
            status_l = (k % 2) as u8;
            k /= 2;
            if leader {
                Group::A3 { level_b: (k / 2) as u16, ready: k % 2 == 1 }
            } else {
                Group::A3 { level_b: k as u16, ready: false }
            }
        };
        State { leader, coin, tick, init, color, status_l, group }
    }

    /// The number of `state` in `0..state_count()`, the inverse of the enumeration that
    /// [`Protocol::state_space`] lists and [`Protocol::random_state`] draws from (for dense tables
    /// indexed by state). `state` must be valid ([`PllSym::check_state`]).
    pub fn state_index(&self, s: State) -> u64 {
        let c = u64::from(self.c_max);
        let common = u64::from(s.tick) + 2 * (u64::from(s.init) - 1) + 8 * u64::from(s.color);
        let role = if s.leader {
            0
        } else {
            self.groups(true) + Coin::ALL.iter().position(|&c| c == s.coin).unwrap() as u64 * self.groups(false)
        };
        let status_l = u64::from(s.status_l);
        let k = match s.group {
            Group::X { epoch } => u64::from(epoch) - 1,
            Group::Y { epoch } => 3 + u64::from(epoch) - 1,
            Group::B { epoch: 3, count } => 6 + 2 * c + status_l * c + u64::from(count),
            Group::B { epoch, count } => 6 + (u64::from(epoch) - 1) * c + u64::from(count),
            Group::A1 { level_q, done } => 6 + 4 * c + 2 * u64::from(level_q) + u64::from(done),
            Group::A2 { rand } => 6 + 4 * c + 2 * (c + 1) + u64::from(rand) - 1,
            Group::A3 { level_b, ready } => {
                let level = if s.leader { 2 * u64::from(level_b) + u64::from(ready) } else { u64::from(level_b) };
                6 + 4 * c + 2 * (c + 1) + u64::from(self.rand_max()) + 2 * level + status_l
            }
        };
        common * (self.groups(true) + 4 * self.groups(false)) + role + k
    }

    /// `rand` of an agent entering V_A ∩ V_2 (line 12 with `pll`'s erratum 3).
    #[inline(always)]
    fn rand_start(&self, leader: bool) -> u16 {
        if leader { 1 } else { self.nonce_start }
    }

    #[inline(always)]
    fn unpack(s: State) -> Vars {
        let mut v = Vars {
            leader: s.leader,
            coin: if s.leader { Coin::J } else { s.coin },
            tick: s.tick,
            status: s.status(),
            epoch: s.epoch(),
            init: s.init,
            color: s.color,
            status_l: if s.has_status_l() { s.status_l } else { 0 },
            count: 0,
            level_q: 0,
            done: true,
            rand: RAND_UNDEFINED,
            level_b: 0,
            ready: false,
        };
        match s.group {
            Group::X { .. } | Group::Y { .. } => {}
            Group::B { count, .. } => v.count = count,
            Group::A1 { level_q, done } => (v.level_q, v.done) = (level_q, done),
            Group::A2 { rand } => v.rand = rand,
            Group::A3 { level_b, ready } => (v.level_b, v.ready) = (level_b, ready && s.leader),
        }
        v
    }

    /// Stores the live variables only; dead ones get their fixed values (see [`State`]).
    #[inline(always)]
    fn pack(v: &Vars) -> State {
        let group = match (v.status, v.epoch) {
            (Status::X, epoch) => Group::X { epoch },
            (Status::Y, epoch) => Group::Y { epoch },
            (Status::B, epoch) => Group::B { epoch, count: v.count },
            (Status::A, 1) => Group::A1 { level_q: v.level_q, done: v.done },
            (Status::A, 2) => Group::A2 { rand: v.rand },
            (Status::A, _) => Group::A3 { level_b: v.level_b, ready: v.ready && v.leader },
        };
        let has_status_l = v.epoch == 3 && matches!(v.status, Status::A | Status::B);
        State {
            leader: v.leader,
            coin: if v.leader { Coin::J } else { v.coin },
            tick: v.tick,
            init: v.init,
            color: v.color,
            status_l: if has_status_l { v.status_l } else { 0 },
            group,
        }
    }

    /// "Line 0" (section 4): the coin rules between two followers.
    #[inline(always)]
    fn coin_rules(a: &mut [Vars; 2]) {
        if a[0].leader || a[1].leader {
            return;
        }
        match (a[0].coin, a[1].coin) {
            (Coin::J, Coin::J) => (a[0].coin, a[1].coin) = (Coin::K, Coin::K),
            (Coin::K, Coin::K) => (a[0].coin, a[1].coin) = (Coin::J, Coin::J),
            (Coin::J, Coin::K) => (a[0].coin, a[1].coin) = (Coin::F0, Coin::F1),
            (Coin::K, Coin::J) => (a[0].coin, a[1].coin) = (Coin::F1, Coin::F0),
            _ => {}
        }
    }

    /// Section 4's status assignment (replaces lines 1-6).
    #[inline(always)]
    fn assign_status(a: &mut [Vars; 2]) {
        let unassigned = |s: Status| matches!(s, Status::X | Status::Y);
        match (a[0].status, a[1].status) {
            (Status::X, Status::X) => (a[0].status, a[1].status) = (Status::Y, Status::Y),
            (Status::Y, Status::Y) => (a[0].status, a[1].status) = (Status::X, Status::X),
            (Status::X, Status::Y) | (Status::Y, Status::X) => {
                let x = usize::from(a[1].status == Status::X);
                (a[x].status, a[x].level_q, a[x].done, a[x].leader) = (Status::A, 0, false, true);
                (a[1 - x].status, a[1 - x].count, a[1 - x].leader, a[1 - x].coin) = (Status::B, 0, false, Coin::J);
            }
            _ => {
                for i in 0..2 {
                    if unassigned(a[i].status) && !unassigned(a[1 - i].status) {
                        (a[i].status, a[i].level_q, a[i].done) = (Status::A, 0, true);
                        if a[i].leader {
                            (a[i].leader, a[i].coin) = (false, Coin::J);
                        }
                    }
                }
            }
        }
    }

    /// Algorithm 2, lines 23-34 (already symmetric: at most one agent is a colour behind).
    #[inline(always)]
    fn count_up(&self, a: &mut [Vars; 2]) {
        for v in a.iter_mut() {
            if v.status == Status::B {
                v.count = pll::count_step(v.count, self.c_max);
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

    /// The agent `i` such that `a_i` is a leader of status A and `a_{1-i}` a follower of coin status
    /// F0 or F1, with the coin it reads (true = head), if `flipping(a_i)`.
    #[inline(always)]
    fn flip(a: &[Vars; 2], flipping: impl Fn(&Vars) -> bool) -> Option<(usize, bool)> {
        (0..2).find_map(|i| {
            let (v, w) = (&a[i], &a[1 - i]);
            if v.leader && v.status == Status::A && !w.leader && flipping(v) {
                w.coin.flip().map(|h| (i, h))
            } else {
                None
            }
        })
    }

    /// Algorithm 3 with section 4's coins (both agents in epoch 1).
    #[inline(always)]
    fn quick_elimination(&self, a: &mut [Vars; 2]) {
        // Lines 35-38: F0 = head (line 36), F1 = tail (line 37).
        if let Some((i, head)) = Self::flip(a, |v| !v.done) {
            if head {
                a[i].level_q = (a[i].level_q + 1).min(self.c_max);
            } else {
                a[i].done = true;
            }
        }
        // Lines 39-42.
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

    /// Algorithm 4 with section 4's coins (both agents in epoch 2).
    #[inline(always)]
    fn tournament(&self, a: &mut [Vars; 2]) {
        // Lines 43-45: rand <- 2 rand + 0 on F0 (head), + 1 on F1 (tail).
        if let Some((i, head)) = Self::flip(a, |v| v.rand < self.nonce_start) {
            a[i].rand = 2 * a[i].rand + u16::from(!head);
        }
        // Lines 46-49.
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

    /// Algorithm 6, lines 1-18 (both agents in epoch 3).
    #[inline(always)]
    fn back_up(&self, a: &mut [Vars; 2]) {
        let has_status_l = |v: &Vars| matches!(v.status, Status::A | Status::B);
        // Line 1.
        for v in a.iter_mut() {
            if has_status_l(v) {
                v.status_l ^= 1;
            }
        }
        // Lines 2-11 (a leader of V_A ∩ V_3: the agents with `ready` and `level_B`).
        for i in 0..2 {
            if !(a[i].leader && a[i].status == Status::A) {
                continue;
            }
            let partner = (!a[1 - i].leader).then_some(a[1 - i].coin).and_then(Coin::flip);
            if a[i].tick {
                a[i].ready = true;
            } else if a[i].ready && partner == Some(true) {
                a[i].level_b = (a[i].level_b + 1).min(self.c_max);
                a[i].ready = false;
            } else if a[i].ready && partner == Some(false) {
                a[i].ready = false;
            }
        }
        // Lines 12-15.
        if a[0].status == Status::A
            && a[1].status == Status::A
            && let Some(i) = (0..2).find(|&i| a[i].level_b < a[1 - i].level_b)
        {
            a[i].level_b = a[1 - i].level_b;
            a[i].leader = false;
        }
        // Lines 16-18: the leader with status_L = 1 yields to the one with status_L = 0.
        if let Some(i) = (0..2).find(|&i| {
            a[i].leader
                && a[1 - i].leader
                && has_status_l(&a[i])
                && has_status_l(&a[1 - i])
                && a[i].status_l == 0
                && a[1 - i].status_l == 1
        }) {
            a[1 - i].leader = false;
        }
    }

    /// Refuses states outside the state space: values out of range, and dead variables away from
    /// their fixed values (a leader's coin, a follower's `ready`, `status_l` of an agent without it).
    pub fn check_state(&self, s: State) -> Result<State, String> {
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
        range("status_l", s.status_l.into(), 0, if s.has_status_l() { 1 } else { 0 })?;
        if s.leader && s.coin != Coin::J {
            return Err("a leader has no coin status (stored as J)".into());
        }
        let c = u64::from(self.c_max);
        match s.group {
            Group::X { .. } | Group::Y { .. } => {}
            Group::B { count, .. } => range("count", count.into(), 0, c - 1)?,
            Group::A1 { level_q, .. } => range("level_q", level_q.into(), 0, c)?,
            Group::A2 { rand } => range("rand", rand.into(), 1, self.rand_max().into())?,
            Group::A3 { level_b, ready } => {
                range("level_b", level_b.into(), 0, c)?;
                if ready && !s.leader {
                    return Err("a follower has no \"ready\" (stored as false)".into());
                }
            }
        }
        Ok(s)
    }
}

impl Protocol for PllSym {
    type State = State;
    type Monitor = LeaderCount<Self>;

    fn info(&self) -> &'static ProtocolInfo {
        &INFO
    }

    fn n(&self) -> usize {
        self.n
    }

    fn params(&self) -> Map<String, Value> {
        self.base.params()
    }

    /// Leaders never appear and never all vanish (as Lemma 11): one leader stays one.
    fn safe_set_is_closed(&self) -> bool {
        true
    }

    /// From n = [`pll::AUTO_BATCHED_MIN_N`] on, like P_LL: few states are present at once. Per
    /// interaction, 3 trials of seed 1 on one core: at n = 10^5 the agent array took 100 ns and
    /// the batched engine 94 ns; at 10^6, 145 ns against 58 ns.
    fn auto_batches(&self) -> bool {
        self.n as u64 >= pll::AUTO_BATCHED_MIN_N
    }

    /// Line 0 (coin rules), section 4's status assignment, lines 7-34 of P_LL, then the module of
    /// the common epoch: Algorithm 3 or 4 with section 4's coins, or Algorithm 6. Symmetric.
    #[inline]
    fn transition(&self, initiator: State, responder: State) -> (State, State) {
        let mut a = [Self::unpack(initiator), Self::unpack(responder)];
        // Line 0: coin statuses of two followers.
        Self::coin_rules(&mut a);
        // Lines 1-6 (section 4).
        Self::assign_status(&mut a);
        // Line 7.
        a[0].tick = false;
        a[1].tick = false;
        // Line 8.
        self.count_up(&mut a);
        // Line 9 (pll's erratum 1: min, not max).
        for v in a.iter_mut() {
            if v.tick {
                v.epoch = (v.epoch + 1).min(3);
            }
        }
        // Line 10.
        let epoch = a[0].epoch.max(a[1].epoch);
        a[0].epoch = epoch;
        a[1].epoch = epoch;
        // Lines 11-15, with Algorithm 6's `ready` and `status_L`.
        for v in a.iter_mut() {
            if v.epoch > v.init {
                if v.status == Status::A && v.epoch == 2 {
                    v.rand = self.rand_start(v.leader);
                }
                if v.status == Status::A && v.epoch == 3 {
                    v.level_b = 0;
                    v.ready = false;
                }
                if v.epoch == 3 {
                    v.status_l = 0;
                }
                v.init = v.epoch;
            }
            // As in pll: a `rand` that lines 11-15 left undefined gets line 12's value.
            if v.status == Status::A && v.epoch == 2 && v.rand == RAND_UNDEFINED {
                v.rand = self.rand_start(v.leader);
            }
        }
        // Lines 16-22.
        if epoch == 1 {
            self.quick_elimination(&mut a);
        } else if epoch == 2 {
            self.tournament(&mut a);
        } else {
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

    /// Uniform over the whole state space (`state_count()` states, each equally likely).
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

    /// The paper's names: `leader`, `tick`, `status`, `epoch`, `init`, `color`, the group's
    /// additional variables (`count`; `level_q`, `done`; `rand`; `level_b` and, for a leader,
    /// `ready`), `status_l` for agents of status A or B in epoch 3, and `coin` (J, K, F0, F1) for a
    /// follower.
    fn state_to_json(&self, state: State) -> Map<String, Value> {
        let mut map = Map::new();
        map.insert("leader".into(), Value::Bool(state.leader));
        map.insert("tick".into(), Value::Bool(state.tick));
        map.insert("status".into(), Value::from(state.status().letter()));
        map.insert("epoch".into(), Value::from(state.epoch()));
        map.insert("init".into(), Value::from(state.init));
        map.insert("color".into(), Value::from(state.color));
        match state.group {
            Group::X { .. } | Group::Y { .. } => {}
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
            Group::A3 { level_b, ready } => {
                map.insert("level_b".into(), Value::from(level_b));
                if state.leader {
                    map.insert("ready".into(), Value::Bool(ready));
                }
            }
        }
        if state.has_status_l() {
            map.insert("status_l".into(), Value::from(state.status_l));
        }
        if !state.leader {
            map.insert("coin".into(), Value::from(state.coin.letter()));
        }
        map
    }

    /// Reads exactly the keys [`Protocol::state_to_json`] writes for such an agent.
    fn state_from_json(&self, object: &Map<String, Value>) -> Result<State, String> {
        const COMMON: [&str; 6] = ["leader", "tick", "status", "epoch", "init", "color"];
        let status = match object.get("status") {
            Some(Value::String(s)) if s == "X" => Status::X,
            Some(Value::String(s)) if s == "Y" => Status::Y,
            Some(Value::String(s)) if s == "A" => Status::A,
            Some(Value::String(s)) if s == "B" => Status::B,
            Some(other) => return Err(format!("\"status\" must be \"X\", \"Y\", \"A\" or \"B\", found {other}")),
            None => return Err("missing key \"status\"".into()),
        };
        let epoch = json_uint(object, "epoch", 3)? as u8;
        if epoch == 0 {
            return Err("\"epoch\" must be a whole number from 1 to 3, found 0".into());
        }
        let leader = json_bool(object, "leader")?;
        let mut keys: Vec<&str> = COMMON.to_vec();
        keys.extend_from_slice(match (status, epoch) {
            (Status::X | Status::Y, _) => &[],
            (Status::B, _) => &["count"],
            (Status::A, 1) => &["level_q", "done"],
            (Status::A, 2) => &["rand"],
            (Status::A, _) => &["level_b"],
        });
        if status == Status::A && epoch == 3 && leader {
            keys.push("ready");
        }
        let has_status_l = epoch == 3 && matches!(status, Status::A | Status::B);
        if has_status_l {
            keys.push("status_l");
        }
        if !leader {
            keys.push("coin");
        }
        if let Some(extra) = object.keys().find(|k| !keys.contains(&k.as_str()))
            && ["count", "level_q", "done", "rand", "level_b", "ready", "status_l", "coin"].contains(&extra.as_str())
        {
            return Err(format!(
                "\"{extra}\" is not a variable of a {} of status {} in epoch {epoch}; its variables: {}",
                if leader { "leader" } else { "follower" },
                status.letter(),
                keys.join(", ")
            ));
        }
        json_expect_keys(object, &keys)?;
        let c = u64::from(self.c_max);
        let group = match (status, epoch) {
            (Status::X, epoch) => Group::X { epoch },
            (Status::Y, epoch) => Group::Y { epoch },
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
            (Status::A, _) => Group::A3 {
                level_b: json_uint(object, "level_b", c)? as u16,
                ready: leader && json_bool(object, "ready")?,
            },
        };
        let coin = if leader {
            Coin::J
        } else {
            match object.get("coin") {
                Some(Value::String(s)) => *Coin::ALL
                    .iter()
                    .find(|c| c.letter() == s)
                    .ok_or_else(|| format!("\"coin\" must be \"J\", \"K\", \"F0\" or \"F1\", found \"{s}\""))?,
                Some(other) => return Err(format!("\"coin\" must be \"J\", \"K\", \"F0\" or \"F1\", found {other}")),
                None => return Err("missing key \"coin\"".into()),
            }
        };
        let init = json_uint(object, "init", 4)? as u8;
        if init == 0 {
            return Err("\"init\" must be a whole number from 1 to 4, found 0".into());
        }
        let state = State {
            leader,
            coin,
            tick: json_bool(object, "tick")?,
            init,
            color: json_uint(object, "color", 2)? as u8,
            status_l: if has_status_l { json_uint(object, "status_l", 1)? as u8 } else { 0 },
            group,
        };
        self.check_state(state)
    }

    fn trace_columns(&self) -> &'static [&'static str] {
        &["status_x", "status_y", "epoch1", "epoch2", "epoch3", "coin_f0", "coin_f1"]
    }

    /// Agents of status X and Y, agents in each epoch, followers of coin status F0 and F1.
    fn trace_values(&self, agents: &[State]) -> Vec<f64> {
        let mut counts = [0u64; 7];
        for s in agents {
            match s.status() {
                Status::X => counts[0] += 1,
                Status::Y => counts[1] += 1,
                _ => {}
            }
            counts[usize::from(s.epoch()) + 1] += 1;
            match s.coin_status() {
                Some(Coin::F0) => counts[5] += 1,
                Some(Coin::F1) => counts[6] += 1,
                _ => {}
            }
        }
        counts.iter().map(|&c| c as f64).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::SeedableRng;

    fn sym(n: usize) -> PllSym {
        PllSym::new(n, &Params::default()).unwrap()
    }

    fn st(leader: bool, coin: Coin, color: u8, init: u8, group: Group) -> State {
        State { leader, coin, tick: false, init, color, status_l: 0, group }
    }

    fn follower(coin: Coin) -> State {
        st(false, coin, 0, 1, Group::A1 { level_q: 0, done: true })
    }

    fn a1(level_q: u16, done: bool) -> State {
        st(true, Coin::J, 0, 1, Group::A1 { level_q, done })
    }

    fn a2(leader: bool, coin: Coin, rand: u16) -> State {
        st(leader, coin, 1, 2, Group::A2 { rand })
    }

    fn a3(leader: bool, coin: Coin, level_b: u16, ready: bool, status_l: u8) -> State {
        State { status_l, ..st(leader, coin, 2, 3, Group::A3 { level_b, ready }) }
    }

    /// Both orders, checking symmetry.
    fn t(p: &PllSym, x: State, y: State) -> (State, State) {
        let (a, b) = p.transition(x, y);
        assert_eq!(p.transition(y, x), (b, a), "{x:?} {y:?}");
        (a, b)
    }

    #[test]
    fn status_assignment_through_y() {
        let p = sym(10);
        let x = State::INITIAL;
        let y = State { group: Group::Y { epoch: 1 }, ..x };
        assert_eq!(t(&p, x, x), (y, y));
        assert_eq!(t(&p, y, y), (x, x));
        // X, Y -> A, B: the X side is the leader (done = false), the Y side a timer agent at J.
        let (a, b) = t(&p, x, y);
        assert_eq!(a, a1(0, false));
        assert_eq!(b, st(false, Coin::J, 0, 1, Group::B { epoch: 1, count: 1 }));
        // X or Y meeting A or B: a follower of status A with done = true and coin J.
        for u in [x, y] {
            for w in [a1(2, true), st(false, Coin::F0, 0, 1, Group::B { epoch: 1, count: 5 })] {
                let (a, _) = t(&p, u, w);
                assert!(!a.leader && a.coin == Coin::J && a.status() == Status::A, "{a:?}");
            }
        }
        assert_eq!(eliminations([x, y], [a, b]), [None, Some(Module::StatusAssignment)]);
    }

    #[test]
    fn coin_rules_between_followers() {
        let p = sym(10);
        let (j, k, f0, f1) = (follower(Coin::J), follower(Coin::K), follower(Coin::F0), follower(Coin::F1));
        assert_eq!(t(&p, j, j), (k, k));
        assert_eq!(t(&p, k, k), (j, j));
        assert_eq!(t(&p, j, k), (f0, f1));
        for (x, y) in [(f0, f1), (f0, j), (f1, k), (f0, f0), (f1, f1)] {
            assert_eq!(t(&p, x, y), (x, y));
        }
        // A leader never changes a coin; a timer agent takes part like any follower.
        assert_eq!(t(&p, a1(1, true), j).1.coin, Coin::J);
        let b = st(false, Coin::K, 0, 1, Group::B { epoch: 1, count: 0 });
        assert_eq!(t(&p, b, j).0.coin, Coin::F1);
    }

    #[test]
    fn quick_elimination_reads_f0_as_head_and_f1_as_tail() {
        let p = sym(10);
        assert_eq!(t(&p, a1(2, false), follower(Coin::F0)).0, a1(3, false));
        let (a, _) = t(&p, a1(2, false), follower(Coin::F1));
        assert_eq!(a, a1(2, true));
        // J and K followers and other leaders are no coins.
        for other in [follower(Coin::J), follower(Coin::K), a1(0, false)] {
            assert_eq!(t(&p, a1(2, false), other).0, a1(2, false));
        }
        // Capped at c_max.
        assert_eq!(t(&p, a1(p.c_max(), false), follower(Coin::F0)).0, a1(p.c_max(), false));
        // The epidemic of line 39-42 is unchanged; the loser becomes a follower at J.
        let (a, b) = t(&p, a1(1, true), a1(3, true));
        assert_eq!((a, b), (st(false, Coin::J, 0, 1, Group::A1 { level_q: 3, done: true }), a1(3, true)));
    }

    #[test]
    fn tournament_appends_0_on_f0_and_1_on_f1() {
        let p = sym(1000); // nonce_start = 16
        let s = p.nonce_start();
        assert_eq!(t(&p, a2(true, Coin::J, 3), a2(false, Coin::F0, s)).0, a2(true, Coin::J, 6));
        assert_eq!(t(&p, a2(true, Coin::J, 3), a2(false, Coin::F1, s)).0, a2(true, Coin::J, 7));
        assert_eq!(t(&p, a2(true, Coin::J, 3), a2(false, Coin::K, s)).0, a2(true, Coin::J, 3));
        // Corrected epidemic of pll: followers carry the largest finished nonce.
        let (a, b) = t(&p, a2(false, Coin::F0, 29), a2(true, Coin::J, 17));
        assert_eq!((a, b), (a2(false, Coin::F0, 29), a2(false, Coin::J, 29)));
        assert_eq!(eliminations([a2(false, Coin::F0, 29), a2(true, Coin::J, 17)], [a, b])[1], Some(Module::Tournament));
        // A follower entering epoch 2 starts at 2^ceil(lg m) (pll's erratum 3), keeping its coin.
        let old = st(false, Coin::F1, 0, 1, Group::A1 { level_q: 2, done: true });
        let (_, b) = t(&p, a2(false, Coin::F0, s), old);
        assert_eq!(b, State { tick: true, ..a2(false, Coin::F1, s) });
    }

    #[test]
    fn back_up_follows_algorithm_6() {
        let p = sym(10);
        let c = p.c_max();
        // Line 1 flips status_L of both; line 4: a tick makes the leader ready (no flip yet).
        let leader = a3(true, Coin::J, 2, false, 0);
        let ahead = State { color: 0, ..a3(false, Coin::F0, 2, false, 1) };
        let (a, b) = t(&p, leader, ahead);
        assert_eq!(a, State { tick: true, color: 0, ..a3(true, Coin::J, 2, true, 1) });
        assert_eq!(b, State { color: 0, ..a3(false, Coin::F0, 2, false, 0) });
        // Lines 5-7: ready meets F0: head, level_B + 1; lines 8-9: F1: tail, ready cleared.
        let ready = a3(true, Coin::J, 2, true, 0);
        let (a, b) = t(&p, ready, a3(false, Coin::F0, 2, false, 0));
        assert_eq!(a, a3(true, Coin::J, 3, false, 1));
        assert_eq!(b, a3(false, Coin::F0, 3, false, 1)); // line 13: the follower learns the level
        assert_eq!(t(&p, ready, a3(false, Coin::F1, 2, false, 0)).0, a3(true, Coin::J, 2, false, 1));
        // A J or K follower, or a leader, leaves ready alone.
        assert_eq!(t(&p, ready, a3(false, Coin::K, 2, false, 0)).0, a3(true, Coin::J, 2, true, 1));
        // Capped at c_max.
        assert_eq!(
            t(&p, a3(true, Coin::J, c, true, 0), a3(false, Coin::F0, c, false, 0)).0,
            a3(true, Coin::J, c, false, 1)
        );
        // Lines 12-15: a smaller level loses, a new follower starts at J.
        let (a, b) = t(&p, a3(true, Coin::J, 1, false, 0), a3(false, Coin::F1, 4, false, 0));
        assert_eq!((a, b), (a3(false, Coin::J, 4, false, 1), a3(false, Coin::F1, 4, false, 1)));
        // Lines 16-18: after line 1 the leader with status_L = 1 yields; equal status_L: nobody.
        let (a, b) = t(&p, a3(true, Coin::J, 4, false, 1), a3(true, Coin::J, 4, true, 0));
        assert_eq!((a, b), (a3(true, Coin::J, 4, false, 0), a3(false, Coin::J, 4, false, 1)));
        assert_eq!(
            eliminations([a3(true, Coin::J, 4, false, 1), a3(true, Coin::J, 4, true, 0)], [a, b])[1],
            Some(Module::BackUp)
        );
        let same = a3(true, Coin::J, 4, false, 1);
        assert_eq!(t(&p, same, same), (a3(true, Coin::J, 4, false, 0), a3(true, Coin::J, 4, false, 0)));
        // Timer agents in epoch 3 flip status_L too.
        let timer = State { status_l: 1, ..st(false, Coin::F0, 2, 3, Group::B { epoch: 3, count: 7 }) };
        assert_eq!(t(&p, timer, same).0.status_l, 0);
        // Entering epoch 3: level_B = 0, ready = false (then the tick sets it), status_L = 0 (then line 1).
        let old = State { color: 1, ..a2(true, Coin::J, 20) };
        let (a, _) = t(&p, old, State { color: 2, ..a3(false, Coin::F0, 5, false, 0) });
        assert_eq!(a, State { tick: true, color: 2, ..a3(false, Coin::J, 5, false, 1) });
    }

    #[test]
    fn constructor_state_space_and_json() {
        assert!(PllSym::new(2, &Params::default()).is_err());
        let err = PllSym::new(10, &Params::parse(&["x=1"]).unwrap()).unwrap_err();
        assert!(err.to_string().contains("protocol pll-sym has no parameter 'x'"), "{err}");
        assert!(PllSym::new(1000, &Params::parse(&["m=3"]).unwrap()).is_err());
        assert_eq!(PllSym::new(10, &Params::parse(&["N=1000"]).unwrap()).unwrap().m(), 10);

        let p = sym(10);
        let states = p.state_space().unwrap();
        assert_eq!(states.len() as u64, p.state_count());
        for (i, &s) in states.iter().enumerate() {
            assert_eq!(p.state_index(s), i as u64, "{s:?}");
            assert_eq!(p.check_state(s), Ok(s));
        }
        for &s in states.iter().step_by(13) {
            assert_eq!(p.state_from_json(&p.state_to_json(s)), Ok(s), "{s:?}");
        }
        let mut rng = PopRng::seed_from_u64(5);
        for _ in 0..10_000 {
            let s = p.random_state(&mut rng);
            assert_eq!(p.check_state(s), Ok(s));
        }
        let parse = |text: &str| p.state_from_json(&serde_json::from_str(text).unwrap());
        let ok = r#"{"leader":false,"tick":false,"status":"A","epoch":3,"init":3,"color":1,"level_b":2,"status_l":1,"coin":"F0"}"#;
        assert_eq!(parse(ok), Ok(State { color: 1, ..a3(false, Coin::F0, 2, false, 1) }));
        let leader_coin = r#"{"leader":true,"tick":false,"status":"Y","epoch":1,"init":1,"color":0,"coin":"J"}"#;
        assert!(parse(leader_coin).unwrap_err().contains("\"coin\" is not a variable"));
        let no_ready =
            r#"{"leader":true,"tick":false,"status":"A","epoch":3,"init":3,"color":1,"level_b":2,"status_l":1}"#;
        assert!(parse(no_ready).unwrap_err().contains("ready"));
        let bad_coin =
            r#"{"leader":false,"tick":false,"status":"B","epoch":1,"init":1,"color":1,"count":3,"coin":"F2"}"#;
        assert!(parse(bad_coin).is_err());
        assert_eq!(sym(1000).state_space().map(|s| s.len()), Some(sym(1000).state_count() as usize));
    }
}
