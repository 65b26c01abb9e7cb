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
//! [`Protocol::transition`](crate::protocol::Protocol::transition) executes lines 1-57 in the printed order on the initiator `a_0` and
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
//! Safe set: exactly one leader ([`LeaderCount`](crate::protocols::leader_count::LeaderCount)); closed from the initial configuration because
//!
//! # Layout
//! `core` holds what `pll` and `pll-sym` share (parameters, lines 7-15, the epidemics, checks,
//! JSON fields); `state` the state encoding, `rules` the role-based lines (1-6, 35-37, 43-45,
//! 50-52, 57), `json` the JSON form.

pub(crate) mod core;
mod json;
mod rules;
mod state;
mod status;

pub use self::core::PllProtocol;
pub use state::{Group, State, eliminations};
pub use status::{Module, Status};

use self::core::Core;
use crate::error::Result;
use crate::protocol::{FamilyInfo, ParamInfo, Params, ProtocolInfo, StateError};
use serde_json::{Map, Value};

/// `--engine auto` runs pll on the batched engine from this many agents on. Few of the state
/// space's states are present at once (about 20 to 140 at n = 10^4 to 10^7), and batches beat
/// the agent array from about here (the figures are in README.md, Engines).
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

/// Which printing of line 12 the protocol follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// `pll`: followers enter V_A ∩ V_2 with `rand = 2^ceil(lg m)`.
    Corrected,
    /// `pll-as-printed`: every agent enters V_A ∩ V_2 with `rand = 1`.
    AsPrinted,
}

/// The probability that QuickElimination alone leaves one leader: that the largest of the
/// leaders' geometric levels (`P(level = l) = 2^-(l+1)`, coin flips of the initiator/responder
/// roles) is held by one leader. For `L` leaders it is `sum_l L 2^-(l+1) (1 - 2^-l)^(L-1)`, which
/// tends to `1 / (2 ln 2)` and is within `2 10^-5` of it for every `L >= 20` (a population of
/// `n >= 2^7` has hundreds of leaders). Checked against runs by `tests/it/pll_quick_elimination.rs`.
pub const QUICK_ELIMINATION_ENDS: f64 = 0.721_347_520_444_481_7;

/// Whether a run of a P_LL variant at `n` (with the default `m = ceil(lg n)`) that elected its
/// leader at `parallel_time` was ended by QuickElimination: such runs end before `0.25 c_max`,
/// the others (Tournament, BackUp) at or after about `0.43 c_max`, so the boundary is put at
/// `0.34 c_max` (`c_max = 41 m`).
pub fn quick_elimination_ended(n: u64, parallel_time: f64) -> bool {
    parallel_time < 0.34 * 41.0 * f64::from(self::core::ceil_lg(n).max(1))
}

/// P_LL for one population size and parameter set.
#[derive(Clone, Debug)]
pub struct Pll {
    n: usize,
    variant: Variant,
    /// `m`, `N`, `c_max`, `2^ceil(lg m)`.
    core: Core,
}

impl Pll {
    /// `pll`, the corrected protocol, for `n` agents: reads `m` (default `ceil(lg n)`) or `N`.
    pub fn new(n: usize, params: &Params) -> Result<Self> {
        Ok(Self { n, variant: Variant::Corrected, core: Core::new(n, params, &INFO)? })
    }

    /// `pll-as-printed`: line 12 as printed.
    pub fn as_printed(n: usize, params: &Params) -> Result<Self> {
        Ok(Self { n, variant: Variant::AsPrinted, core: Core::new(n, params, &INFO_AS_PRINTED)? })
    }

    /// Which printing of line 12 this instance follows.
    pub fn variant(&self) -> Variant {
        self.variant
    }
}

impl PllProtocol for Pll {
    type Agent = State;
    const INITIAL: State = State::INITIAL;
    const TRACE_COLUMNS: &'static [&'static str] = &["status_x", "epoch1", "epoch2", "epoch3"];

    fn entry(&self) -> &'static ProtocolInfo {
        match self.variant {
            Variant::Corrected => &INFO,
            Variant::AsPrinted => &INFO_AS_PRINTED,
        }
    }

    fn population(&self) -> usize {
        self.n
    }

    fn core(&self) -> &Core {
        &self.core
    }

    #[inline(always)]
    fn is_leader(state: State) -> bool {
        state.leader
    }

    /// Lines 1-57 in order (initiator `a_0`, responder `a_1`).
    #[inline]
    fn rules(&self, initiator: State, responder: State) -> (State, State) {
        self.interact(initiator, responder)
    }

    fn space_size(&self) -> u64 {
        self.state_count()
    }

    fn space_at(&self, index: u64) -> State {
        self.state_at(index)
    }

    fn demotions(before: [State; 2], after: [State; 2]) -> [Option<Module>; 2] {
        eliminations(before, after)
    }

    fn write_json(&self, state: State) -> Map<String, Value> {
        state.common().to_json()
    }

    /// Reads the six common variables and exactly the additional variables of the agent's group
    /// (`count` for status B; `level_q` and `done` for status A in epoch 1; `rand` in epoch 2;
    /// `level_b` in epoch 3; none for status X). A variable of another group is refused.
    fn read_json(&self, object: &Map<String, Value>) -> Result<State, StateError> {
        self.parse_json(object)
    }

    /// Agents of status X, and agents in each epoch.
    fn trace_counts(present: &[(State, u64)]) -> Vec<f64> {
        let mut counts = [0u64; 4];
        for &(s, c) in present {
            if s.status() == Status::X {
                counts[0] += c;
            }
            counts[usize::from(s.epoch())] += c;
        }
        counts.iter().map(|&c| c as f64).collect()
    }
}

/// States and instances for the tests of the submodules.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::{Group, Pll, State};
    use crate::protocol::Params;

    pub(crate) fn pll(n: usize) -> Pll {
        Pll::new(n, &Params::default()).unwrap()
    }

    pub(crate) fn printed(n: usize) -> Pll {
        Pll::as_printed(n, &Params::default()).unwrap()
    }

    pub(crate) fn st(leader: bool, color: u8, init: u8, group: Group) -> State {
        State { leader, tick: false, init, color, group }
    }

    pub(crate) fn b(epoch: u8, count: u16, color: u8) -> State {
        st(false, color, epoch, Group::B { epoch, count })
    }

    pub(crate) fn a1(leader: bool, level_q: u16, done: bool) -> State {
        st(leader, 0, 1, Group::A1 { level_q, done })
    }

    pub(crate) fn a2(leader: bool, rand: u16) -> State {
        st(leader, 1, 2, Group::A2 { rand })
    }

    pub(crate) fn a3(leader: bool, level_b: u16) -> State {
        st(leader, 2, 3, Group::A3 { level_b })
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::{pll, printed};
    use super::*;
    use crate::graph::Graph;
    use crate::protocol::Monitor;
    use crate::protocol::Protocol;

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
}
