//! The state of a `pll-sym` agent: [`Status`] with Y, [`Coin`], [`Group`] with `ready`, [`State`]
//! with `coin` and `status_l`, their numbering `0..state_count()`, and [`eliminations`].

use super::PllSym;
use crate::protocol::StateError;
use crate::protocols::pll::PllProtocol;
use crate::protocols::pll::core::{self, Additional, Common, CoreStatus, Extra};
use crate::protocols::pll::{self, Module};

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
    /// The status as P_LL's (Y is X: neither has a group variable).
    pub(crate) fn as_pll(self) -> pll::Status {
        match self {
            Status::X | Status::Y => pll::Status::X,
            Status::A => pll::Status::A,
            Status::B => pll::Status::B,
        }
    }

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

    pub(super) const ALL: [Coin; 4] = [Coin::J, Coin::K, Coin::F0, Coin::F1];

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
    X {
        /// `epoch` in 1..=3.
        epoch: u8,
    },
    /// V_Y: status Y, no additional variable.
    Y {
        /// `epoch` in 1..=3.
        epoch: u8,
    },
    /// V_B: status B; `count` in `0..c_max`.
    B {
        /// `epoch` in 1..=3.
        epoch: u8,
        /// `count`: the timer (Algorithm 2).
        count: u16,
    },
    /// V_A ∩ V_1: `level_q` in `0..=c_max`, `done`.
    A1 {
        /// `level_q`: the heads flipped in `QuickElimination`.
        level_q: u16,
        /// `done`: the agent stopped flipping.
        done: bool,
    },
    /// V_A ∩ V_2: `rand` in `1..2^(ceil(lg m) + 1)`.
    A2 {
        /// `rand`: the nonce of `Tournament`.
        rand: u16,
    },
    /// V_A ∩ V_3: `level_b` in `0..=c_max`; `ready` (leaders only; false for followers).
    A3 {
        /// `level_b`: the level of `BackUp`.
        level_b: u16,
        /// `ready` of Algorithm 6.
        ready: bool,
    },
}

impl Group {
    /// The group in `epoch` with `additional` (V_Y if none and `status_y`, else V_X) and, for
    /// V_A ∩ V_3, `ready`.
    pub(crate) fn of(status_y: bool, epoch: u8, additional: Additional, ready: bool) -> Group {
        match additional {
            Additional::None if status_y => Group::Y { epoch },
            Additional::None => Group::X { epoch },
            Additional::Count(count) => Group::B { epoch, count },
            Additional::A1 { level_q, done } => Group::A1 { level_q, done },
            Additional::Rand(rand) => Group::A2 { rand },
            Additional::LevelB(level_b) => Group::A3 { level_b, ready },
        }
    }
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

    /// The group's additional variable (`level_b` without `ready` for V_A ∩ V_3).
    #[inline(always)]
    pub(crate) fn additional(self) -> Additional {
        match self.group {
            Group::X { .. } | Group::Y { .. } => Additional::None,
            Group::B { count, .. } => Additional::Count(count),
            Group::A1 { level_q, done } => Additional::A1 { level_q, done },
            Group::A2 { rand } => Additional::Rand(rand),
            Group::A3 { level_b, .. } => Additional::LevelB(level_b),
        }
    }

    /// The common variables and the additional variable, for checks and JSON.
    pub(crate) fn common(self) -> Common {
        Common {
            leader: self.leader,
            tick: self.tick,
            status: self.status().letter(),
            epoch: self.epoch(),
            init: self.init,
            color: self.color,
            additional: self.additional(),
        }
    }
}

impl CoreStatus for Status {
    const A: Self = Status::A;
    const B: Self = Status::B;
}

/// The variables `pll-sym` adds to P_LL's while an interaction runs.
#[derive(Clone, Copy, Debug)]
pub(super) struct Sym {
    /// The coin status (a leader's is J and unused).
    pub(super) coin: Coin,
    /// `status_L` of Algorithm 6.
    pub(super) status_l: u8,
    /// `ready` of Algorithm 6.
    pub(super) ready: bool,
}

impl Extra for Sym {
    /// Lines 11-15 with Algorithm 6's `ready` and `status_L`.
    #[inline(always)]
    fn enter_epoch(&mut self, status_a: bool, epoch: u8) {
        if status_a && epoch == 3 {
            self.ready = false;
        }
        if epoch == 3 {
            self.status_l = 0;
        }
    }
}

/// All variables of one agent while an interaction runs.
pub(super) type Vars = core::Vars<Status, Sym>;

/// Which part of the protocol made each agent of an interaction lose its leadership (entry `i` for
/// agent `i`, 0 initiator, 1 responder), as [`pll::eliminations`](crate::protocols::pll::eliminations): [`Module::StatusAssignment`] for
/// an agent of status X or Y (the rules of section 4 that replace lines 1-6), otherwise the module of
/// the common epoch after the interaction (Algorithm 6 for epoch 3).
pub fn eliminations(before: [State; 2], after: [State; 2]) -> [Option<Module>; 2] {
    std::array::from_fn(|i| {
        let unassigned = matches!(before[i].status(), Status::X | Status::Y);
        core::demotion(before[i].leader && !after[i].leader, unassigned, after[i].epoch())
    })
}

impl PllSym {
    /// The number of states of one agent: 24 combinations of `tick`, `init`, `color`, times the
    /// combinations of role (leader, or follower with one of 4 coin statuses) and group.
    pub fn state_count(&self) -> u64 {
        24 * (self.groups(true) + 4 * self.groups(false))
    }

    /// The number of (status, epoch, additional variables, `status_l`) combinations of a leader or a
    /// follower: X and Y 3 each; B `2 c_max` in epochs 1-2 and `2 c_max` in epoch 3 (`status_l`);
    /// A1 `2 (c_max + 1)`; A2 `rand_max`; A3 `2 (c_max + 1)` times 2 for a leader (`ready`).
    fn groups(&self, leader: bool) -> u64 {
        let c = u64::from(self.core.c_max);
        6 + 4 * c + 2 * (c + 1) + u64::from(self.rand_max()) + 2 * (c + 1) * if leader { 2 } else { 1 }
    }

    /// State number `index` of `0..state_count()`.
    pub(super) fn state_at(&self, index: u64) -> State {
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
        let c = u64::from(self.core.c_max);
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
    /// [`crate::protocol::Configurations::state_space`] lists and [`crate::protocol::Protocol::random_state`] draws from (for dense tables
    /// indexed by state). `state` must be valid ([`PllSym::check_state`]).
    pub fn state_index(&self, s: State) -> u64 {
        let c = u64::from(self.core.c_max);
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

    /// All variables of an agent for an interaction.
    #[inline(always)]
    pub(super) fn unpack(s: State) -> Vars {
        let extra = Sym {
            coin: if s.leader { Coin::J } else { s.coin },
            status_l: if s.has_status_l() { s.status_l } else { 0 },
            ready: matches!(s.group, Group::A3 { ready: true, .. }) && s.leader,
        };
        Vars::new(s.leader, s.tick, s.status(), s.epoch(), s.init, s.color, extra).with(s.additional())
    }

    /// Stores the live variables only; dead ones get their fixed values (see [`State`]).
    #[inline(always)]
    pub(super) fn pack(v: &Vars) -> State {
        let group = match (v.status, v.epoch) {
            (Status::X, epoch) => Group::X { epoch },
            (Status::Y, epoch) => Group::Y { epoch },
            (Status::B, epoch) => Group::B { epoch, count: v.count },
            (Status::A, 1) => Group::A1 { level_q: v.level_q, done: v.done },
            (Status::A, 2) => Group::A2 { rand: v.rand },
            (Status::A, _) => Group::A3 { level_b: v.level_b, ready: v.extra.ready && v.leader },
        };
        let has_status_l = v.epoch == 3 && matches!(v.status, Status::A | Status::B);
        State {
            leader: v.leader,
            coin: if v.leader { Coin::J } else { v.extra.coin },
            tick: v.tick,
            init: v.init,
            color: v.color,
            status_l: if has_status_l { v.extra.status_l } else { 0 },
            group,
        }
    }

    /// Refuses states outside the state space: values out of range, and dead variables away from
    /// their fixed values (a leader's coin, a follower's `ready`, `status_l` of an agent without it).
    pub fn check_state(&self, s: State) -> Result<State, StateError> {
        let common = s.common();
        common.check()?;
        core::range("status_l", s.status_l.into(), 0, if s.has_status_l() { 1 } else { 0 })?;
        if s.leader && s.coin != Coin::J {
            return Err(StateError::NoSuchState("a leader has no coin status (stored as J)"));
        }
        self.core.check_additional(common.additional)?;
        if let Group::A3 { ready: true, .. } = s.group
            && !s.leader
        {
            return Err(StateError::NoSuchState("a follower has no \"ready\" (stored as false)"));
        }
        Ok(s)
    }
}
