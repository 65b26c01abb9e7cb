//! `pll-sym`: the symmetric variant of P_LL (paper 003, section 4 and Algorithm 6).
//!
//! Source: Sudo, Ooshita, Izumi, Kakugawa, Masuzawa, "Time-optimal leader election in population
//! protocols" (paper 003 in `papers/`), section 4 ("Discussion"), which sketches how to make P_LL
//! symmetric, and Algorithm 6 (symmetric `BackUp`, lines 1-18). Everything else is P_LL of section 3
//! as the [`pll`] module implements it, errata included (`PROTOCOLS.md` 2.5 and 2.6).
//!
//! # Symmetry (section 4, first paragraph)
//! A protocol is symmetric if `T(p, q) = (p', q')` implies `T(q, p) = (q', p')` for all states `p`,
//! `q`. In particular `T(p, p) = (q, r)` implies `q = r`: two agents in the same state cannot be told
//! apart, so they end in the same state. This module's [`Protocol::transition`](crate::protocol::Protocol::transition) is symmetric on the
//! whole state space (not only on reachable states): every rule below is written "for every agent"
//! or "if there is an agent `a_i` such that ...", and every such condition holds for at most one of
//! the two agents, so the result never depends on which agent is the initiator. The integration
//! test `tests/it/pll_sym_runs.rs` checks this on every pair of states reachable for `m = 2` and
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
//! - `m` and `N` as in `pll` (default `m = ceil(lg n)`), parsed as [`pll::Pll::new`] parses them; `c_max = 41 m`.
//!
//! # Stabilisation
//! From the initial configuration (every agent: status X, leader, no tick, epoch 1, init 1, colour
//! 0) the number of leaders never rises and never reaches 0 (as Lemma 11: the leader of status A
//! created by `X, Y -> A, B` is not lost in that interaction, and the modules lose a leader only to
//! an agent carrying a larger value, or, in lines 16-18, to another leader). The safe set is
//! "exactly one leader" ([`LeaderCount`](crate::protocols::leader_count::LeaderCount)). The election behind everything, lines 16-18, takes
//! O(n log n) parallel time in expectation (section 4's Markov-chain argument) instead of P_LL's
//! O(n), which section 4 shows is still enough for O(log n) expected stabilisation time.

//!
//! # Layout
//! The lines `pll-sym` shares with P_LL (parameters, lines 7-15, the epidemics, checks, JSON
//! fields) come from `pll`'s `core`; `state` holds the state encoding, `rules` the symmetric rules
//! (line 0, section 4's status assignment and coins, Algorithm 6), `json` the JSON form.

mod json;
mod rules;
mod state;

pub use state::{Coin, Group, State, Status, eliminations};

use super::pll::core::Core;
use super::pll::{self, Module, PllProtocol};
use crate::error::{Error, Result};
use crate::protocol::{FamilyInfo, Params, ProtocolInfo, StateError};
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

/// The symmetric P_LL for one population size and parameter set.
#[derive(Clone, Debug)]
pub struct PllSym {
    n: usize,
    /// `m`, `N`, `c_max`, `2^ceil(lg m)`, as P_LL's.
    core: Core,
}

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
        Ok(Self { n, core: Core::new(n, params, &INFO)? })
    }
}

impl PllProtocol for PllSym {
    type Agent = State;
    const INITIAL: State = State::INITIAL;
    const TRACE_COLUMNS: &'static [&'static str] =
        &["status_x", "status_y", "epoch1", "epoch2", "epoch3", "coin_f0", "coin_f1"];

    fn entry(&self) -> &'static ProtocolInfo {
        &INFO
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

    /// Line 0 (coin rules), section 4's status assignment, lines 7-34 of P_LL, then the module of
    /// the common epoch: Algorithm 3 or 4 with section 4's coins, or Algorithm 6. Symmetric.
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

    /// The paper's names: `leader`, `tick`, `status`, `epoch`, `init`, `color`, the group's
    /// additional variables (`count`; `level_q`, `done`; `rand`; `level_b` and, for a leader,
    /// `ready`), `status_l` for agents of status A or B in epoch 3, and `coin` (J, K, F0, F1) for a
    /// follower.
    fn write_json(&self, state: State) -> Map<String, Value> {
        Self::to_json(state)
    }

    /// Reads exactly the keys [`PllProtocol::write_json`] writes for such an agent.
    fn read_json(&self, object: &Map<String, Value>) -> Result<State, StateError> {
        self.parse_json(object)
    }

    /// Agents of status X and Y, agents in each epoch, followers of coin status F0 and F1.
    fn trace_counts(present: &[(State, u64)]) -> Vec<f64> {
        let mut counts = [0u64; 7];
        for &(s, c) in present {
            match s.status() {
                Status::X => counts[0] += c,
                Status::Y => counts[1] += c,
                _ => {}
            }
            counts[usize::from(s.epoch()) + 1] += c;
            match s.coin_status() {
                Some(Coin::F0) => counts[5] += c,
                Some(Coin::F1) => counts[6] += c,
                _ => {}
            }
        }
        counts.iter().map(|&c| c as f64).collect()
    }
}

/// States and instances for the tests of the submodules.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::{Coin, Group, PllSym, State};
    use crate::protocol::{Params, Protocol};

    pub(crate) fn sym(n: usize) -> PllSym {
        PllSym::new(n, &Params::default()).unwrap()
    }

    pub(crate) fn st(leader: bool, coin: Coin, color: u8, init: u8, group: Group) -> State {
        State { leader, coin, tick: false, init, color, status_l: 0, group }
    }

    pub(crate) fn follower(coin: Coin) -> State {
        st(false, coin, 0, 1, Group::A1 { level_q: 0, done: true })
    }

    pub(crate) fn a1(level_q: u16, done: bool) -> State {
        st(true, Coin::J, 0, 1, Group::A1 { level_q, done })
    }

    pub(crate) fn a2(leader: bool, coin: Coin, rand: u16) -> State {
        st(leader, coin, 1, 2, Group::A2 { rand })
    }

    pub(crate) fn a3(leader: bool, coin: Coin, level_b: u16, ready: bool, status_l: u8) -> State {
        State { status_l, ..st(leader, coin, 2, 3, Group::A3 { level_b, ready }) }
    }

    /// Both orders, checking symmetry.
    pub(crate) fn t(p: &PllSym, x: State, y: State) -> (State, State) {
        let (a, b) = p.transition(x, y);
        assert_eq!(p.transition(y, x), (b, a), "{x:?} {y:?}");
        (a, b)
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::{a3, sym};
    use super::*;
    use crate::protocol::{Configurations, Protocol, StateJson};
    use crate::rng::PopRng;
    use rand_core::SeedableRng;

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
        assert!(parse(leader_coin).unwrap_err().to_string().contains("\"coin\" is not a variable"));
        let no_ready =
            r#"{"leader":true,"tick":false,"status":"A","epoch":3,"init":3,"color":1,"level_b":2,"status_l":1}"#;
        assert!(parse(no_ready).unwrap_err().to_string().contains("ready"));
        let bad_coin =
            r#"{"leader":false,"tick":false,"status":"B","epoch":1,"init":1,"color":1,"count":3,"coin":"F2"}"#;
        assert!(parse(bad_coin).is_err());
        assert_eq!(sym(1000).state_space().map(|s| s.len()), Some(sym(1000).state_count() as usize));
    }
}
