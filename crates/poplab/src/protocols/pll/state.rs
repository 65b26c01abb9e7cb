//! The state of a P_LL agent (Table 3): [`Group`], [`State`], their encoding as numbers
//! `0..state_count()`, and [`eliminations`] for measurements.

use super::Pll;
use super::PllProtocol;
use super::core::{self, Additional, Common, CoreStatus, Vars};
use super::status::{Module, Status};
use crate::protocol::StateError;

/// An agent's group (status and epoch) with its live additional variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Group {
    /// V_X: status X, no additional variable.
    X {
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
    /// V_A ∩ V_1: `level_q` (the paper's level_Q) in `0..=c_max`, `done`.
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
    /// V_A ∩ V_3: `level_b` (the paper's level_B) in `0..=c_max`.
    A3 {
        /// `level_b`: the level of `BackUp`.
        level_b: u16,
    },
}

impl Group {
    /// The group in `epoch` with `additional` (V_X if none).
    pub(crate) fn of(epoch: u8, additional: Additional) -> Group {
        match additional {
            Additional::None => Group::X { epoch },
            Additional::Count(count) => Group::B { epoch, count },
            Additional::A1 { level_q, done } => Group::A1 { level_q, done },
            Additional::Rand(rand) => Group::A2 { rand },
            Additional::LevelB(level_b) => Group::A3 { level_b },
        }
    }
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

    /// The group's additional variable.
    #[inline(always)]
    pub(crate) fn additional(self) -> Additional {
        match self.group {
            Group::X { .. } => Additional::None,
            Group::B { count, .. } => Additional::Count(count),
            Group::A1 { level_q, done } => Additional::A1 { level_q, done },
            Group::A2 { rand } => Additional::Rand(rand),
            Group::A3 { level_b } => Additional::LevelB(level_b),
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
        core::demotion(before[i].leader && !after[i].leader, before[i].status() == Status::X, after[i].epoch())
    })
}

impl Pll {
    /// The number of states of one agent (the size of the state space `random_state` draws from):
    /// 48 combinations of `leader`, `tick`, `init`, `color` times the (status, epoch, additional
    /// variable) combinations `3 + 3 c_max + 2 (c_max + 1) + rand_max + (c_max + 1)`.
    ///
    /// `random_state` is uniform over them: the common variables `leader`, `tick`, `init`,
    /// `color` are independent and uniform on their domains, and (status, epoch, additional
    /// variable) is drawn with each group weighted by its size: V_X by 3 (its epochs), V_B by
    /// `3 c_max`, V_A ∩ V_1 by `2 (c_max + 1)`, V_A ∩ V_2 by `rand_max`, V_A ∩ V_3 by `c_max + 1`.
    /// Most random agents are therefore in V_B or V_A ∩ V_1.
    pub fn state_count(&self) -> u64 {
        48 * self.group_count()
    }

    fn group_count(&self) -> u64 {
        let c = u64::from(self.core.c_max);
        3 + 3 * c + 2 * (c + 1) + u64::from(self.rand_max()) + (c + 1)
    }

    /// State number `index` of `0..state_count()`: `leader`, `tick`, `init`, `color` from the
    /// quotient by the number of (status, epoch, additional variable) combinations, those from the
    /// remainder, group by group (X, B, A1, A2, A3).
    pub(super) fn state_at(&self, index: u64) -> State {
        let (common, k) = (index / self.group_count(), index % self.group_count());
        let leader = common % 2 == 1;
        let tick = (common / 2) % 2 == 1;
        let init = ((common / 4) % 4) as u8 + 1;
        let color = (common / 16) as u8;
        let c = u64::from(self.core.c_max);
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

    /// All variables of an agent for an interaction.
    #[inline(always)]
    pub(super) fn unpack(s: State) -> Vars<Status> {
        Vars::new(s.leader, s.tick, s.status(), s.epoch(), s.init, s.color, ()).with(s.additional())
    }

    /// The state of the live variables.
    #[inline(always)]
    pub(super) fn pack(v: &Vars<Status>) -> State {
        let group = match (v.status, v.epoch) {
            (Status::X, epoch) => Group::X { epoch },
            (Status::B, epoch) => Group::B { epoch, count: v.count },
            (Status::A, 1) => Group::A1 { level_q: v.level_q, done: v.done },
            (Status::A, 2) => Group::A2 { rand: v.rand },
            (Status::A, _) => Group::A3 { level_b: v.level_b },
        };
        State { leader: v.leader, tick: v.tick, init: v.init, color: v.color, group }
    }

    /// Refuses states outside the state space (values out of range).
    pub(crate) fn check_state(&self, s: State) -> Result<State, StateError> {
        let common = s.common();
        common.check()?;
        self.core.check_additional(common.additional)?;
        Ok(s)
    }
}
