//! `prl` (P_RL): self-stabilizing leader election on directed rings in O(nN) expected steps.
//!
//! Source: D. Yokota, Y. Sudo, T. Masuzawa, "Time-Optimal Self-Stabilizing Leader Election on Rings
//! in Population Protocols" (IEICE 2021; 004 in `papers/`): section 2 (the
//! model on the directed ring), section 3 and Algorithm 1 (the protocol), section 4.1 (the safe set
//! `S_RL`, Figure 3, Lemmas 1-8) and section 4.2 (convergence, Lemmas 9-13). PROTOCOLS.md 2.7.
//!
//! # Model
//! Agents `u_0 .. u_{n-1}` on the directed ring; the arcs are `(u_i, u_{i+1 mod n})` and the
//! initiator `l` of an interaction is the *left* agent `u_i`, the responder `r` the *right* agent
//! `u_{i+1}` (section 2; [`Graph::DirectedRing`]). A configuration is a slice of states in which agent
//! `i`'s right neighbour is `i + 1 mod n`. `N >= n` is the common knowledge (parameter `N`, default
//! `n`). The protocol draws no random numbers: a leader's coin flip is read off whether its next
//! interaction is with its right neighbour (it is the initiator: line 7, live bullet) or with its
//! left one (it is the responder: line 9, dummy bullet), as section 3.1 explains.
//!
//! # Variables (Algorithm 1, "Variables")
//! `leader in {0,1}` (the output: 1 = L), `bullet in {0,1,2}` (none, dummy, live), `shield in {0,1}`,
//! `signal in {0,1}` (a bullet-absence signal), `distL in {0..N}` (the estimate of `d_L`). JSON keys:
//! `leader`, `bullet`, `shield`, `signal`, `dist_l`, all integers, domain-checked on read.
//!
//! # Transition: Algorithm 1, lines 1-16, executed in order ([`Prl::interact`])
//! - line 1: `l.distL <- 0` if `l` is a leader;
//! - line 2: `r.distL <- 0` if `r` is a leader, `<- min(l.distL + 1, N)` if `r.leader = r.bullet = 0`,
//!   unchanged otherwise;
//! - lines 3-5: if `r.distL = N`, `r` becomes a leader with `distL = 0`, a live bullet, a shield and
//!   no signal (leader creation);
//! - lines 6-7: a leader `l` holding a signal fires a live bullet, raises its shield, drops the signal;
//! - lines 8-9: a leader `r` holding a signal fires a dummy bullet, breaks its shield, drops the signal;
//! - lines 10-12: a bullet at `l` reaches a leader `r`: a live one kills an unshielded `r` (line 11);
//!   the bullet disappears either way (line 12);
//! - lines 13-15: otherwise a bullet at `l` moves to the follower `r` if `r` has none, else it
//!   disappears; `r`'s signal is erased either way;
//! - line 16: `l.signal <- max(l.signal, r.signal, r.leader)`.
//!
//! # Where the printed text needs a reading (each choice is tested in this module)
//! 1. *Sequential semantics.* Every line reads the values written by the lines before it in the same
//!    interaction: line 2 reads `l.distL` after line 1 (so a leader `l` gives `r.distL = 1`, as the
//!    proof of Lemma 4 requires); line 3 reads `r.distL` after line 2; lines 6 and 8 read the flags
//!    after line 5; line 10 reads `l.bullet` after line 7 (a just-fired live bullet leaves at once,
//!    which is why "live bullets are initially located at u_{j+1}", proof of Lemma 12); line 16 reads
//!    `r.signal` after line 15 and `r.leader` after lines 4 and 11.
//! 2. Line 2's middle case "`r.leader = r.bullet = 0`" is the conjunction `r.leader = 0 and r.bullet = 0`.
//! 3. Line 3 tests `r.distL` after line 2, so a follower that already holds `distL = N` (possible only
//!    in an arbitrary initial configuration, since line 2 stores at most `N` and line 4 resets it)
//!    becomes a leader at its first interaction as responder even if it carries a bullet, which
//!    line 5 then overwrites. Likewise lines 5, 7 and 9 overwrite whatever bullet the agent held:
//!    the old bullet disappears and a new one is fired (the paper never has two bullets on one agent).
//! 4. `max(...)` on line 16 over the 0/1 values is a logical or.
//! 5. `d_L`, `d_R` are `infinity` without a leader (section 3). Then `Peaceful`, `Modest` are false
//!    (there is no nearest left leader to be shielded) and a follower is not `Secure`
//!    (`distL <= N - infinity` fails); `C_PB` needs a leader anyway, so `S_RL` is unaffected.
//! 6. Figure 3's text says `u_i.distL = 100 - d_R(i)` "for all i = 1, ..., 49, 51, ..., 100";
//!    `u_100` is `u_0` (indices are mod n), a leader with `distL = 0`, so the range is read as
//!    `51..=99`. The text fixes neither the shields of `u_0` and the followers nor the signals and other
//!    bullets: family `fig3` gives `u_0` a shield and every signal 0 (both needed for the bullet at
//!    `u_49` to be peaceful, i.e. for `C in C_PB` as the paper states), no other bullet, and followers
//!    no shield (section 3.1: a follower's shield is ignored).
//!
//! # Safe set (section 4.1)
//! `S_RL` = configurations of `C_NI` with exactly one leader, `C_NI` = configurations of `C_PB` where
//! every agent is [`secure`] and every live bullet [`modest`], `C_PB` = a leader exists and every live
//! bullet is [`peaceful`]. The functions [`d_l`], [`d_r`], [`peaceful`], [`secure`], [`modest`],
//! [`in_c_pb`], [`in_c_ni`] and [`in_s_rl`] implement the definitions literally (reference versions,
//! O(n) to O(n^2) per call). A run has *converged* at its first step inside `S_RL` (Lemma 8: `S_RL` is
//! closed and no agent changes its output there), which is stronger than "one leader": one leader may
//! still be killed, or a new one created (Figure 3).
//!
//! The engine-facing [`PrlMonitor`] decides `S_RL` incrementally and exactly; see its docs.
//!
//! # Initial configurations
//! The default is `no-leader`: every variable 0 (no leader, no bullet, no shield, no signal, every
//! `distL = 0`). It is the blank configuration one would power a ring up in and Lemma 10's slow case
//! (a leader must first be created by `distL` climbing to `N`, Θ(nN) steps), so the default measures
//! the bound of the main theorem from a natural start. Families: `no-leader`, `all-leaders`
//! (every agent a leader, everything else 0), `safe` (a configuration of `S_RL`, for holding-time
//! runs: `u_0` the only leader, shielded, `distL = d_L`), `alternating` (agents with even index leaders,
//! everything else 0; with odd `n`, `u_{n-1}` and `u_0` are adjacent leaders), `fig3` (Figure 3,
//! only for `n = N = 100`, see [`Prl::fig3_configuration`]). `random` (every variable uniform over
//! its domain, independently) is built by the library from [`Protocol::random_state`].
//!
//! Claimed (main theorem): expected convergence O(nN) steps from any configuration, O(N) states.
//! Measured (tests/it/prl_runs.rs, `survey_*` tests, steps to `S_RL`): from `random` with n = N, the
//! mean is 2.5 nN at n = 8, 4.6 nN at 64 and levels off at about 4.9 nN for n = 128..512 (400
//! trials per size, seed 2024); from `no-leader` at n = 16 it is about 0.95 nN for N = 64..256.

//!
//! # Layout
//! `rules` holds the transition ([`Prl::interact`], [`Lines`]), `predicates` the section 4.1
//! predicates (reference versions), `monitor` the incremental monitor [`PrlMonitor`].

mod monitor;
mod predicates;
mod rules;

pub use monitor::PrlMonitor;
pub use predicates::{d_l, d_r, in_c_ni, in_c_pb, in_s_rl, modest, peaceful, secure};
pub use rules::Lines;

use super::search_levels::{CANDIDATES, leader_count};
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::protocol::{
    Configurations, EngineHints, FamilyInfo, Observables, OnlyGraph, Output, ParamInfo, Params, Protocol, ProtocolInfo,
    STATE_SPACE_LIMIT, StateError, StateJson, json_expect_keys, json_uint,
};
use crate::rng::{PopRng, below_u64, coin};
use serde_json::{Map, Value};

/// The largest accepted `N` (so that `distL + 1` never overflows a `u32`).
pub const MAX_BIG_N: u32 = u32::MAX - 1;

/// Registry entry.
pub const INFO: ProtocolInfo = ProtocolInfo {
    name: "prl",
    summary: "P_RL: self-stabilizing leader election on directed rings, O(nN) expected steps, O(N) states",
    source: "Yokota, Sudo, Masuzawa (004) section 3, Algorithm 1; safe set S_RL section 4.1",
    params: &[ParamInfo {
        name: "N",
        default: "n",
        doc: "the known upper bound on the ring size, n..=4294967294; distL counts up to N",
    }],
    families: &[
        FamilyInfo {
            name: "no-leader",
            doc: "every variable 0: no leader, no bullet, distL = 0 (the default; Lemma 10)",
        },
        FamilyInfo { name: "all-leaders", doc: "every agent a leader, every other variable 0" },
        FamilyInfo {
            name: "safe",
            doc: "a configuration of S_RL: u_0 the only leader, shielded, distL = d_L, no bullet or signal",
        },
        FamilyInfo { name: "alternating", doc: "agents with even index leaders, every other variable 0" },
        FamilyInfo {
            name: "fig3",
            doc: "Figure 3 of 004 (only n = N = 100): leaders u_0 (shielded) and u_50 (unshielded), \
                  distL = N - d_R, a live bullet at u_49",
        },
    ],
};

/// `bullet`: what an agent carries (section 3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Bullet {
    /// `bullet = 0`.
    None = 0,
    /// `bullet = 1`: cannot kill.
    Dummy = 1,
    /// `bullet = 2`: kills an unshielded leader it reaches.
    Live = 2,
}

impl Bullet {
    /// The bullet of paper value `0`, `1` or `2`.
    pub fn from_value(value: u64) -> Option<Self> {
        match value {
            0 => Some(Bullet::None),
            1 => Some(Bullet::Dummy),
            2 => Some(Bullet::Live),
            _ => None,
        }
    }
}

/// One agent's state (8 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PrlState {
    /// `leader`: 1 = the agent is a leader and outputs L.
    pub leader: bool,
    /// `bullet`: none, dummy or live.
    pub bullet: Bullet,
    /// `shield`: meaningful for leaders only.
    pub shield: bool,
    /// `signal`: the agent carries a bullet-absence signal.
    pub signal: bool,
    /// `distL in 0..=N`: the agent's estimate of its distance `d_L` to the nearest left leader.
    pub dist_l: u32,
}

impl PrlState {
    /// Every variable 0: a follower with no bullet, shield or signal and `distL = 0`.
    pub const ZERO: PrlState =
        PrlState { leader: false, bullet: Bullet::None, shield: false, signal: false, dist_l: 0 };

    /// A follower with `distL = dist_l` and every other variable 0.
    pub fn follower(dist_l: u32) -> Self {
        PrlState { dist_l, ..Self::ZERO }
    }

    /// A leader (`distL = 0`) with the given shield and every other variable 0.
    pub fn leader(shield: bool) -> Self {
        PrlState { leader: true, shield, ..Self::ZERO }
    }
}

/// The protocol P_RL for one ring size `n` and bound `N`.
#[derive(Clone, Debug)]
pub struct Prl {
    n: usize,
    /// `N`: the known upper bound on `n`; `distL` takes values `0..=N`.
    big_n: u32,
}

impl Prl {
    /// Reads `N` (default `n`); refuses `N < n`.
    pub fn new(n: usize, params: &Params) -> Result<Self> {
        if n as u64 > u64::from(MAX_BIG_N) {
            return Err(Error::PopulationSize {
                n: n as u64,
                reason: format!("prl supports rings of at most {MAX_BIG_N} agents"),
            });
        }
        let big_n = params.int("N", n as u64, 0, u64::from(MAX_BIG_N))?;
        params.finish(&INFO)?;
        if big_n < n as u64 {
            return Err(Error::Parameter {
                name: "N".into(),
                value: big_n.to_string(),
                reason: format!("N must be at least n = {n} (N is the known upper bound on the ring size)"),
            });
        }
        Ok(Self { n, big_n: big_n as u32 })
    }

    /// The bound `N`.
    pub fn big_n(&self) -> u32 {
        self.big_n
    }

    /// A configuration of `S_RL` (family `safe`, for holding-time runs): `u_0` the only leader, with a
    /// shield and `distL = 0`; follower `u_i` with `distL = i = d_L(i)`; no bullet, no signal.
    pub fn safe_configuration(&self) -> Vec<PrlState> {
        let mut agents: Vec<PrlState> = (0..self.n).map(|i| PrlState::follower(i as u32)).collect();
        agents[0] = PrlState::leader(true);
        agents
    }

    /// Figure 3 of 004 (section 4.1): `n = N = 100`, leaders `u_0` (shielded) and `u_50` (unshielded)
    /// with `distL = 0`, every other `u_i` a follower with `distL = N - d_R(i)` (so `u_49.distL = 99`),
    /// a live bullet at `u_49`, no other bullet, no signal. Refused unless `n = N = 100`, since the
    /// figure's distances are those of that ring.
    pub fn fig3_configuration(&self) -> Result<Vec<PrlState>, String> {
        if self.n != 100 || self.big_n != 100 {
            return Err(format!(
                "the fig3 configuration exists only for n = N = 100 (Figure 3 of 004), not n = {}, N = {}; \
                 use --n 100 (and N = 100, the default)",
                self.n, self.big_n
            ));
        }
        let mut agents: Vec<PrlState> = (0..100u32)
            .map(|i| {
                // d_R(i): distance to the next leader to the right (u_50 or u_100 = u_0).
                let d_r = if i <= 50 { 50 - i } else { 100 - i };
                PrlState::follower(100 - d_r)
            })
            .collect();
        agents[0] = PrlState::leader(true);
        agents[50] = PrlState::leader(false);
        agents[49].bullet = Bullet::Live;
        Ok(agents)
    }
}

impl Protocol for Prl {
    type State = PrlState;
    type Monitor = PrlMonitor;

    fn info(&self) -> &'static ProtocolInfo {
        &INFO
    }

    fn n(&self) -> usize {
        self.n
    }

    fn params(&self) -> Map<String, Value> {
        Map::from_iter([("N".to_string(), Value::from(self.big_n))])
    }

    #[inline(always)]
    fn transition(&self, initiator: PrlState, responder: PrlState) -> (PrlState, PrlState) {
        let (l, r, _) = self.interact(initiator, responder);
        (l, r)
    }

    fn output(&self, state: PrlState) -> Output {
        if state.leader { Output::Leader } else { Output::Follower }
    }

    fn initial_configuration(&self) -> Vec<PrlState> {
        vec![PrlState::ZERO; self.n]
    }

    fn random_state(&self, rng: &mut PopRng) -> PrlState {
        PrlState {
            leader: coin(rng),
            bullet: Bullet::from_value(below_u64(rng, 3)).unwrap_or(Bullet::None),
            shield: coin(rng),
            signal: coin(rng),
            dist_l: below_u64(rng, u64::from(self.big_n) + 1) as u32,
        }
    }

    fn monitor(&self, agents: &[PrlState], _graph: &Graph) -> PrlMonitor {
        PrlMonitor::new(agents, self.big_n)
    }

    /// The directed ring only, the default graph.
    fn hints(&self) -> EngineHints {
        EngineHints {
            only_graph: Some(OnlyGraph {
                name: "ring",
                what: "the directed ring (004 section 2: initiator = left neighbour)",
            }),
            ..EngineHints::default()
        }
    }

    fn configurations(&self) -> Option<&dyn Configurations<PrlState>> {
        Some(self)
    }

    fn json(&self) -> Option<&dyn StateJson<PrlState>> {
        Some(self)
    }

    fn observables(&self) -> Option<&dyn Observables<PrlState>> {
        Some(self)
    }
}

impl Configurations<PrlState> for Prl {
    fn family_configuration(&self, name: &str, _rng: &mut PopRng) -> Option<Vec<PrlState>> {
        match name {
            "no-leader" => Some(self.initial_configuration()),
            "all-leaders" => Some(vec![PrlState::leader(false); self.n]),
            "alternating" => {
                Some((0..self.n).map(|i| if i % 2 == 0 { PrlState::leader(false) } else { PrlState::ZERO }).collect())
            }
            "safe" => Some(self.safe_configuration()),
            "fig3" => self.fig3_configuration().ok(),
            _ => None,
        }
    }

    fn family_unavailable(&self, name: &str) -> Option<String> {
        (name == "fig3").then(|| self.fig3_configuration().err()).flatten()
    }

    /// A few leaders (0, 1, 2, n/2, n), spread evenly or adjacent, shielded none, all or every
    /// other; bullets none, live or dummy just before each leader, live everywhere, or uniform;
    /// signals none or all; `distL` 0, the distance to the nearest leader on the left (as in
    /// S_RL), `N`, or uniform.
    fn search_candidates(&self, rng: &mut PopRng) -> Vec<(String, Vec<PrlState>)> {
        let n = self.n;
        (0..CANDIDATES)
            .map(|_| {
                let leaders = leader_count(rng, n);
                let spread = coin(rng);
                let (shields, bullets, signals, dist) =
                    (below_u64(rng, 3), below_u64(rng, 4), coin(rng), below_u64(rng, 4));
                let leader_at: Vec<bool> = (0..n)
                    .map(|i| if spread { leaders > 0 && (i * leaders) % n < leaders } else { i < leaders })
                    .collect();
                let mut agents: Vec<PrlState> = (0..n)
                    .map(|i| PrlState {
                        leader: leader_at[i],
                        shield: leader_at[i] && (shields == 1 || (shields == 2 && i % 2 == 0)),
                        signal: signals,
                        ..PrlState::ZERO
                    })
                    .collect();
                let mut since_leader = None::<u32>;
                for round in 0..2 {
                    for i in 0..n {
                        if leader_at[i] {
                            since_leader = Some(0);
                        } else if let Some(d) = since_leader.as_mut() {
                            *d = (*d + 1).min(self.big_n);
                        }
                        if round == 1 {
                            agents[i].dist_l = match dist {
                                0 => 0,
                                1 => since_leader.unwrap_or(self.big_n),
                                2 => self.big_n,
                                _ => below_u64(rng, u64::from(self.big_n) + 1) as u32,
                            };
                        }
                    }
                }
                for i in 0..n {
                    let before_leader = leader_at[(i + 1) % n];
                    agents[i].bullet = match bullets {
                        0 => Bullet::None,
                        1 if before_leader => {
                            if coin(rng) {
                                Bullet::Live
                            } else {
                                Bullet::Dummy
                            }
                        }
                        1 => Bullet::None,
                        2 => Bullet::Live,
                        _ => Bullet::from_value(below_u64(rng, 3)).unwrap_or(Bullet::None),
                    };
                }
                let description = format!(
                    "{leaders} leaders {} (shielded: {}), bullets {}, signals {}, distL {}",
                    if spread { "spread evenly" } else { "adjacent" },
                    ["none", "all", "every other"][shields as usize],
                    ["none", "live or dummy before each leader", "live everywhere", "uniform"][bullets as usize],
                    if signals { "all" } else { "none" },
                    ["0", "to the nearest leader on the left", "N", "uniform"][dist as usize]
                );
                (description, agents)
            })
            .collect()
    }

    fn state_space(&self) -> Option<Vec<PrlState>> {
        let size = 24 * (u64::from(self.big_n()) + 1);
        (size <= STATE_SPACE_LIMIT).then(|| {
            let mut states = Vec::with_capacity(size as usize);
            for leader in [false, true] {
                for bullet in [Bullet::None, Bullet::Dummy, Bullet::Live] {
                    for shield in [false, true] {
                        for signal in [false, true] {
                            for dist_l in 0..=self.big_n() {
                                states.push(PrlState { leader, bullet, shield, signal, dist_l });
                            }
                        }
                    }
                }
            }
            states
        })
    }
}

impl StateJson<PrlState> for Prl {
    fn state_to_json(&self, state: PrlState) -> Map<String, Value> {
        Map::from_iter([
            ("leader".to_string(), Value::from(u8::from(state.leader))),
            ("bullet".to_string(), Value::from(state.bullet as u8)),
            ("shield".to_string(), Value::from(u8::from(state.shield))),
            ("signal".to_string(), Value::from(u8::from(state.signal))),
            ("dist_l".to_string(), Value::from(state.dist_l)),
        ])
    }

    fn state_from_json(&self, object: &Map<String, Value>) -> Result<PrlState, StateError> {
        json_expect_keys(object, &["leader", "bullet", "shield", "signal", "dist_l"])?;
        Ok(PrlState {
            leader: json_uint(object, "leader", 1)? == 1,
            bullet: Bullet::from_value(json_uint(object, "bullet", 2)?).unwrap_or(Bullet::None),
            shield: json_uint(object, "shield", 1)? == 1,
            signal: json_uint(object, "signal", 1)? == 1,
            dist_l: json_uint(object, "dist_l", u64::from(self.big_n))? as u32,
        })
    }
}

impl Observables<PrlState> for Prl {
    fn trace_columns(&self) -> &'static [&'static str] {
        &["live_bullets", "dummy_bullets", "signals", "shielded_leaders"]
    }

    fn trace_values(&self, counts: &[(PrlState, u64)]) -> Vec<f64> {
        let count =
            |f: &dyn Fn(&PrlState) -> bool| counts.iter().filter(|(s, _)| f(s)).map(|&(_, c)| c).sum::<u64>() as f64;
        vec![
            count(&|s| s.bullet == Bullet::Live),
            count(&|s| s.bullet == Bullet::Dummy),
            count(&|s| s.signal),
            count(&|s| s.leader && s.shield),
        ]
    }
}

/// States and instances for the tests of the submodules.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::{Bullet, Prl, PrlState};
    use crate::protocol::Params;

    /// A follower with every variable 0.
    pub(crate) const F: PrlState = PrlState::ZERO;

    pub(crate) fn prl(n: usize, big_n: u32) -> Prl {
        Prl::new(n, &Params::parse(&[format!("N={big_n}")]).unwrap()).unwrap()
    }

    pub(crate) fn st(leader: bool, bullet: Bullet, shield: bool, signal: bool, dist_l: u32) -> PrlState {
        PrlState { leader, bullet, shield, signal, dist_l }
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::{F, prl, st};
    use super::*;
    use crate::protocol::Monitor;
    use rand_core::SeedableRng;

    #[test]
    fn families_have_the_documented_shape() {
        let p = prl(7, 9);
        let mut rng = PopRng::seed_from_u64(0);
        let none = p.family_configuration("no-leader", &mut rng).unwrap();
        assert_eq!(none, vec![F; 7]);
        assert_eq!(p.initial_configuration(), none);
        let all = p.family_configuration("all-leaders", &mut rng).unwrap();
        assert!(all.iter().all(|s| s.leader && s.dist_l == 0 && s.bullet == Bullet::None));
        let alt = p.family_configuration("alternating", &mut rng).unwrap();
        assert_eq!(alt.iter().map(|s| s.leader).collect::<Vec<_>>(), [true, false, true, false, true, false, true]);
        assert!(p.family_configuration("fig3", &mut rng).is_none());
        assert!(p.family_unavailable("fig3").unwrap().contains("only for n = N = 100"));
        assert!(p.family_unavailable("all-leaders").is_none());
        assert!(p.family_configuration("nope", &mut rng).is_none());
        let safe = p.family_configuration("safe", &mut rng).unwrap();
        assert!(in_s_rl(&safe, 9) && PrlMonitor::new(&safe, 9).is_safe());
        for family in INFO.families {
            assert!(p.family_configuration(family.name, &mut rng).is_some() || family.name == "fig3");
        }
        // fig3 needs N = 100 too.
        assert!(prl(100, 101).fig3_configuration().is_err());
    }

    #[test]
    fn fig3_is_the_configuration_of_the_text() {
        let p = prl(100, 100);
        let c = p.fig3_configuration().unwrap();
        assert_eq!(c.iter().filter(|s| s.leader).count(), 2);
        assert!(c[0].leader && c[50].leader && c[0].shield && !c[50].shield);
        assert_eq!(
            (c[0].dist_l, c[50].dist_l, c[49].dist_l, c[1].dist_l, c[51].dist_l, c[99].dist_l),
            (0, 0, 99, 51, 51, 99)
        );
        for i in (1..50).chain(51..100) {
            assert_eq!(c[i].dist_l as usize, 100 - d_r(&c, i).unwrap(), "u_{i}");
        }
        assert_eq!(c.iter().filter(|s| s.bullet != Bullet::None).count(), 1);
        assert_eq!(c[49].bullet, Bullet::Live);
    }

    #[test]
    fn random_states_cover_every_domain() {
        let p = prl(3, 4);
        let mut rng = PopRng::seed_from_u64(9);
        let states: std::collections::HashSet<PrlState> = (0..20_000).map(|_| p.random_state(&mut rng)).collect();
        // 2 * 3 * 2 * 2 * 5 = 120 states, all reachable by the uniform draw.
        assert_eq!(states.len(), 120);
    }

    #[test]
    fn json_round_trip_and_domain_checks() {
        let p = prl(3, 5);
        let s = st(true, Bullet::Dummy, true, false, 5);
        let json = p.state_to_json(s);
        // Compared as values: key order depends on serde_json's preserve_order feature.
        assert_eq!(
            serde_json::Value::Object(json.clone()),
            serde_json::json!({"bullet": 1, "dist_l": 5, "leader": 1, "shield": 1, "signal": 0})
        );
        assert_eq!(p.state_from_json(&json), Ok(s));
        let read = |text: &str| p.state_from_json(&serde_json::from_str(text).unwrap());
        assert!(
            read(r#"{"leader":2,"bullet":0,"shield":0,"signal":0,"dist_l":0}"#)
                .unwrap_err()
                .to_string()
                .contains("leader")
        );
        assert!(
            read(r#"{"leader":0,"bullet":3,"shield":0,"signal":0,"dist_l":0}"#)
                .unwrap_err()
                .to_string()
                .contains("bullet")
        );
        assert!(
            read(r#"{"leader":0,"bullet":0,"shield":0,"signal":0,"dist_l":6}"#)
                .unwrap_err()
                .to_string()
                .contains("0 to 5")
        );
        assert!(read(r#"{"leader":true,"bullet":0,"shield":0,"signal":0,"dist_l":0}"#).is_err());
        assert!(read(r#"{"leader":0,"bullet":0,"shield":0,"signal":0}"#).unwrap_err().to_string().contains("missing"));
        assert!(read(r#"{"leader":0,"bullet":0,"shield":0,"signal":0,"dist_l":0,"x":1}"#).is_err());
    }

    #[test]
    fn parameter_n_defaults_to_n_and_may_not_be_smaller() {
        assert_eq!(Prl::new(12, &Params::default()).unwrap().big_n(), 12);
        assert_eq!(prl(12, 40).big_n(), 40);
        let err = Prl::new(12, &Params::parse(&["N=11"]).unwrap()).unwrap_err().to_string();
        assert!(err.contains("N must be at least n = 12"), "{err}");
        assert!(Prl::new(12, &Params::parse(&["M=11"]).unwrap()).is_err());
        assert_eq!(prl(4, 9).params().get("N"), Some(&Value::from(9)));
    }

    #[test]
    fn only_the_directed_ring_is_accepted() {
        let p = prl(5, 5);
        assert!(p.hints().check_graph("prl", &Graph::DirectedRing).is_ok());
        for g in [Graph::Complete, Graph::UndirectedRing, Graph::Arcs(vec![(0, 1)].into())] {
            let err = p.hints().check_graph("prl", &g).unwrap_err().to_string();
            assert!(err.contains("use --graph ring"), "{err}");
        }
    }

    #[test]
    fn state_is_compact() {
        assert_eq!(std::mem::size_of::<PrlState>(), 8);
    }
}
