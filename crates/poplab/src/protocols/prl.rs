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
//! Measured (tests/prl_runs.rs, `survey_*` tests, steps to `S_RL`): from `random` with n = N, the
//! mean is 2.5 nN at n = 8, 4.6 nN at 64 and levels off at about 4.9 nN for n = 128..512 (400
//! trials per size, seed 2024); from `no-leader` at n = 16 it is about 0.95 nN for N = 64..256.

use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::protocol::{
    FamilyInfo, Monitor, Output, ParamInfo, Params, Protocol, ProtocolInfo, STATE_SPACE_LIMIT, json_expect_keys,
    json_uint,
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

/// Which branches of Algorithm 1 an interaction took (for tests and instrumentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lines {
    /// Lines 3-5: `r.distL` reached `N` and `r` became a leader with a live bullet and a shield.
    pub created: bool,
    /// Lines 6-7: the leader `l` fired a live bullet.
    pub fired_live: bool,
    /// Lines 8-9: the leader `r` fired a dummy bullet.
    pub fired_dummy: bool,
    /// Lines 10-12: the bullet at `l` reached the leader `r` and disappeared.
    pub hit_leader: bool,
    /// Line 11: that bullet was live and `r` unshielded: `r` became a follower.
    pub killed: bool,
    /// Lines 13-15 with `r.bullet = 0`: the bullet at `l` moved to `r`.
    pub moved: bool,
    /// Lines 13-15 with `r.bullet > 0`: the bullet at `l` disappeared into `r`'s.
    pub absorbed: bool,
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

    /// Algorithm 1, lines 1-16, on initiator `l` (left) and responder `r` (right), reporting which
    /// branches ran. [`Protocol::transition`] is this without the report.
    #[inline(always)]
    pub fn interact(&self, mut l: PrlState, mut r: PrlState) -> (PrlState, PrlState, Lines) {
        let big_n = self.big_n;
        let mut lines = Lines::default();
        // Line 1.
        if l.leader {
            l.dist_l = 0;
        }
        // Line 2 (reads l.distL after line 1).
        if r.leader {
            r.dist_l = 0;
        } else if r.bullet == Bullet::None {
            r.dist_l = l.dist_l.saturating_add(1).min(big_n);
        }
        // Lines 3-5.
        if r.dist_l == big_n {
            r.leader = true;
            r.dist_l = 0;
            r.bullet = Bullet::Live;
            r.shield = true;
            r.signal = false;
            lines.created = true;
        }
        // Lines 6-7.
        if l.leader && l.signal {
            l.bullet = Bullet::Live;
            l.shield = true;
            l.signal = false;
            lines.fired_live = true;
        }
        // Lines 8-9.
        if r.leader && r.signal {
            r.bullet = Bullet::Dummy;
            r.shield = false;
            r.signal = false;
            lines.fired_dummy = true;
        }
        if l.bullet != Bullet::None && r.leader {
            // Lines 10-12.
            if l.bullet == Bullet::Live && !r.shield {
                r.leader = false;
                lines.killed = true;
            }
            l.bullet = Bullet::None;
            lines.hit_leader = true;
        } else if l.bullet != Bullet::None && !r.leader {
            // Lines 13-15.
            if r.bullet == Bullet::None {
                r.bullet = l.bullet;
                lines.moved = true;
            } else {
                lines.absorbed = true;
            }
            l.bullet = Bullet::None;
            r.signal = false;
        }
        // Line 16.
        l.signal = l.signal || r.signal || r.leader;
        (l, r, lines)
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

    fn monitor(&self, agents: &[PrlState], _graph: &Graph) -> PrlMonitor {
        PrlMonitor::new(agents, self.big_n)
    }

    fn state_to_json(&self, state: PrlState) -> Map<String, Value> {
        Map::from_iter([
            ("leader".to_string(), Value::from(u8::from(state.leader))),
            ("bullet".to_string(), Value::from(state.bullet as u8)),
            ("shield".to_string(), Value::from(u8::from(state.shield))),
            ("signal".to_string(), Value::from(u8::from(state.signal))),
            ("dist_l".to_string(), Value::from(state.dist_l)),
        ])
    }

    fn state_from_json(&self, object: &Map<String, Value>) -> Result<PrlState, String> {
        json_expect_keys(object, &["leader", "bullet", "shield", "signal", "dist_l"])?;
        Ok(PrlState {
            leader: json_uint(object, "leader", 1)? == 1,
            bullet: Bullet::from_value(json_uint(object, "bullet", 2)?).unwrap_or(Bullet::None),
            shield: json_uint(object, "shield", 1)? == 1,
            signal: json_uint(object, "signal", 1)? == 1,
            dist_l: json_uint(object, "dist_l", u64::from(self.big_n))? as u32,
        })
    }

    fn trace_columns(&self) -> &'static [&'static str] {
        &["live_bullets", "dummy_bullets", "signals", "shielded_leaders"]
    }

    fn trace_values(&self, agents: &[PrlState]) -> Vec<f64> {
        let count = |f: &dyn Fn(&PrlState) -> bool| agents.iter().filter(|s| f(s)).count() as f64;
        vec![
            count(&|s| s.bullet == Bullet::Live),
            count(&|s| s.bullet == Bullet::Dummy),
            count(&|s| s.signal),
            count(&|s| s.leader && s.shield),
        ]
    }

    fn family_unavailable(&self, name: &str) -> Option<String> {
        (name == "fig3").then(|| self.fig3_configuration().err()).flatten()
    }

    fn default_graph(&self) -> Graph {
        Graph::DirectedRing
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

    fn check_graph(&self, graph: &Graph) -> Result<()> {
        match graph {
            Graph::DirectedRing => Ok(()),
            other => Err(Error::Graph(format!(
                "prl runs only on the directed ring (004 section 2: initiator = left neighbour), not on the {} \
                 graph; use --graph ring",
                other.name()
            ))),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Section 4.1: the predicates, literally (reference versions).
// ---------------------------------------------------------------------------------------------

/// `u_{i-j mod n}`.
fn left_of(n: usize, i: usize, j: usize) -> usize {
    (i + n - j % n) % n
}

/// `d_L(i) = min{ j >= 0 | u_{i-j}.leader = 1 }`, `None` (infinity) without a leader.
pub fn d_l(config: &[PrlState], i: usize) -> Option<usize> {
    let n = config.len();
    (0..n).find(|&j| config[left_of(n, i, j)].leader)
}

/// `d_R(i) = min{ j >= 0 | u_{i+j}.leader = 1 }`, `None` (infinity) without a leader.
pub fn d_r(config: &[PrlState], i: usize) -> Option<usize> {
    let n = config.len();
    (0..n).find(|&j| config[(i + j) % n].leader)
}

/// `Peaceful(i)`: `u_{i - d_L(i)}.shield = 1` and `u_{i-j}.signal = 0` for `j = 0..=d_L(i)`.
/// False without a leader. (The paper applies it to agents holding a live bullet; it is a
/// predicate of `i` alone.)
pub fn peaceful(config: &[PrlState], i: usize) -> bool {
    let n = config.len();
    let Some(d) = d_l(config, i) else { return false };
    config[left_of(n, i, d)].shield && (0..=d).all(|j| !config[left_of(n, i, j)].signal)
}

/// `Secure(i)`: `distL = 0` for a leader, `distL <= N - d_R(i)` for a follower (false without a
/// leader, `d_R = infinity`).
pub fn secure(config: &[PrlState], big_n: u32, i: usize) -> bool {
    let s = config[i];
    if s.leader {
        return s.dist_l == 0;
    }
    match d_r(config, i) {
        Some(d) => i64::from(s.dist_l) <= i64::from(big_n) - d as i64,
        None => false,
    }
}

/// `Modest(i)`: `Peaceful(i)` and `u_{i-j}.distL <= d_L(i-j)` for `j = 0..=d_L(i)`.
pub fn modest(config: &[PrlState], i: usize) -> bool {
    let n = config.len();
    if !peaceful(config, i) {
        return false;
    }
    let d = d_l(config, i).expect("peaceful implies a leader");
    (0..=d).all(|j| {
        let k = left_of(n, i, j);
        d_l(config, k).is_some_and(|dk| config[k].dist_l as usize <= dk)
    })
}

/// `C_PB`: some agent is a leader and every live bullet is peaceful.
pub fn in_c_pb(config: &[PrlState]) -> bool {
    config.iter().any(|s| s.leader)
        && (0..config.len()).all(|j| config[j].bullet != Bullet::Live || peaceful(config, j))
}

/// `C_NI`: in `C_PB`, every agent secure and every live bullet modest.
pub fn in_c_ni(config: &[PrlState], big_n: u32) -> bool {
    in_c_pb(config)
        && (0..config.len())
            .all(|i| secure(config, big_n, i) && (config[i].bullet != Bullet::Live || modest(config, i)))
}

/// `S_RL`: in `C_NI` with exactly one leader.
pub fn in_s_rl(config: &[PrlState], big_n: u32) -> bool {
    config.iter().filter(|s| s.leader).count() == 1 && in_c_ni(config, big_n)
}

// ---------------------------------------------------------------------------------------------
// The incremental monitor.
// ---------------------------------------------------------------------------------------------

/// Decides `S_RL` after every interaction, exactly, in O(1) amortised work for most steps.
///
/// # The reformulation it rests on
/// With exactly one leader `p`, every distance is an offset from `p`: for agent `i` let
/// `k(i) = i - p mod n`; then `d_L(i) = k(i)` and, for `i != p`, `d_R(i) = n - k(i)`. So
/// - `Secure(i)` is `distL = 0` for `p` and `distL + n <= N + k(i)` for a follower: a function of the
///   agent's own state and offset only;
/// - `Peaceful(i)` for a live bullet at offset `k` is `p.shield = 1` and no signal at offsets `0..=k`;
/// - `Modest(i)` adds `distL(p + j) <= j` for offsets `j = 0..=k` (since `d_L(p + j) = j`).
///
/// Call agent `i` a *barrier* if `signal = 1` or `distL > k(i)`, and let `x` be the smallest offset of
/// a barrier. A live bullet at offset `k` is modest iff `p.shield = 1` and `k < x`; modest implies
/// peaceful. Hence, with one leader,
/// `S_RL  <=>  no insecure agent  and  (no live bullet  or  (p.shield = 1 and no live bullet at an
/// offset >= x))`, and with any other number of leaders the configuration is not in `S_RL`.
///
/// # What is kept
/// Always: the number of leaders and a bitset of the agents holding a live bullet (absolute
/// positions, so independent of `p`) with its count. While there is exactly one leader: its
/// position, the number of insecure agents and a bitset of barriers. An interaction touches two
/// agents; each is updated from its old to its new state in O(1). Only `r`'s leadership can change
/// in one interaction (line 4 creates `r`, line 11 kills `r`), so when the number of leaders stays 1
/// the leader, and with it every offset, stays put. When an interaction changes some agent's
/// leadership and leaves exactly one leader, everything offset-dependent is rebuilt in O(n)
/// ([`PrlMonitor::rebuilds`] counts these; they are rare: a leader is created or killed). The final
/// test scans bitsets only when the cheap conditions (one leader, no insecure agent, a live bullet)
/// hold, and then at most n/64 words in total (the barrier scan stops at `x`, the bullet scan starts
/// there).
///
/// Exactness is tested against [`in_s_rl`] on every step of many random runs (tests/prl_runs.rs).
#[derive(Clone, Debug)]
pub struct PrlMonitor {
    n: usize,
    big_n: u32,
    leaders: usize,
    /// Position of the unique leader (valid while `leaders == 1`).
    leader_at: usize,
    /// Insecure agents (valid while `leaders == 1`).
    insecure: usize,
    /// Barrier bitset (valid while `leaders == 1`).
    barrier: Vec<u64>,
    /// Live-bullet bitset, absolute positions (always valid).
    live: Vec<u64>,
    live_count: usize,
    safe: bool,
    rebuilds: u64,
}

impl PrlMonitor {
    /// The monitor of configuration `agents` (a ring, agent `i`'s right neighbour `i + 1 mod n`).
    pub fn new(agents: &[PrlState], big_n: u32) -> Self {
        let n = agents.len();
        let words = n.div_ceil(64);
        let mut monitor = Self {
            n,
            big_n,
            leaders: agents.iter().filter(|s| s.leader).count(),
            leader_at: 0,
            insecure: 0,
            barrier: vec![0; words],
            live: vec![0; words],
            live_count: 0,
            safe: false,
            rebuilds: 0,
        };
        for (i, s) in agents.iter().enumerate() {
            if s.bullet == Bullet::Live {
                set_bit(&mut monitor.live, i, true);
                monitor.live_count += 1;
            }
        }
        if monitor.leaders == 1 {
            monitor.rebuild(agents);
        }
        monitor.safe = monitor.verdict(agents);
        monitor
    }

    /// The current number of leaders.
    pub fn leaders(&self) -> usize {
        self.leaders
    }

    /// How many O(n) rebuilds (a change of leadership leaving one leader) have happened.
    pub fn rebuilds(&self) -> u64 {
        self.rebuilds
    }

    #[inline(always)]
    fn offset(&self, i: usize) -> usize {
        if i >= self.leader_at { i - self.leader_at } else { i + self.n - self.leader_at }
    }

    #[inline(always)]
    fn is_insecure(&self, s: PrlState, k: usize) -> bool {
        if s.leader { s.dist_l != 0 } else { u64::from(s.dist_l) + self.n as u64 > u64::from(self.big_n) + k as u64 }
    }

    #[inline(always)]
    fn is_barrier(s: PrlState, k: usize) -> bool {
        s.signal || s.dist_l as usize > k
    }

    fn rebuild(&mut self, agents: &[PrlState]) {
        self.rebuilds += 1;
        self.leader_at = agents.iter().position(|s| s.leader).expect("one leader");
        self.insecure = 0;
        self.barrier.fill(0);
        for (i, &s) in agents.iter().enumerate() {
            let k = self.offset(i);
            self.insecure += usize::from(self.is_insecure(s, k));
            if Self::is_barrier(s, k) {
                set_bit(&mut self.barrier, i, true);
            }
        }
    }

    #[inline(always)]
    fn update(&mut self, i: usize, before: PrlState, after: PrlState) {
        let k = self.offset(i);
        self.insecure =
            self.insecure + usize::from(self.is_insecure(after, k)) - usize::from(self.is_insecure(before, k));
        let barrier = Self::is_barrier(after, k);
        if barrier != Self::is_barrier(before, k) {
            set_bit(&mut self.barrier, i, barrier);
        }
    }

    /// The smallest offset `>= from` (from the leader) whose bit is set.
    fn first_offset(&self, bits: &[u64], from: usize) -> Option<usize> {
        let (n, p) = (self.n, self.leader_at);
        let start = p + from;
        if start < n {
            first_set(bits, start, n).map(|i| i - p).or_else(|| first_set(bits, 0, p).map(|i| i + n - p))
        } else {
            first_set(bits, start - n, p).map(|i| i + n - p)
        }
    }

    fn verdict(&self, agents: &[PrlState]) -> bool {
        if self.leaders != 1 || self.insecure != 0 {
            return false;
        }
        if self.live_count == 0 {
            return true;
        }
        if !agents[self.leader_at].shield {
            return false;
        }
        match self.first_offset(&self.barrier, 0) {
            None => true,
            Some(x) => self.first_offset(&self.live, x).is_none(),
        }
    }
}

impl Monitor<PrlState> for PrlMonitor {
    /// Without positions the ring predicate cannot be tracked: engines call
    /// [`Monitor::record_at`], which this monitor overrides. Calling this directly is a bug.
    fn record(&mut self, _before: [PrlState; 2], _after: [PrlState; 2]) {
        panic!("PrlMonitor needs positions: engines must call record_at");
    }

    #[inline]
    fn record_at(&mut self, agents: &[PrlState], pair: (usize, usize), before: [PrlState; 2]) {
        let positions = [pair.0, pair.1];
        let mut leadership_changed = false;
        for (&i, &old) in positions.iter().zip(&before) {
            let new = agents[i];
            if old.leader != new.leader {
                leadership_changed = true;
                if new.leader {
                    self.leaders += 1;
                } else {
                    self.leaders -= 1;
                }
            }
            let (was, is) = (old.bullet == Bullet::Live, new.bullet == Bullet::Live);
            if was != is {
                set_bit(&mut self.live, i, is);
                if is {
                    self.live_count += 1;
                } else {
                    self.live_count -= 1;
                }
            }
        }
        if self.leaders != 1 {
            self.safe = false;
            return;
        }
        if leadership_changed {
            self.rebuild(agents);
        } else {
            for (&i, &old) in positions.iter().zip(&before) {
                self.update(i, old, agents[i]);
            }
        }
        self.safe = self.verdict(agents);
    }

    #[inline(always)]
    fn is_safe(&self) -> bool {
        self.safe
    }
}

#[inline(always)]
fn set_bit(bits: &mut [u64], i: usize, value: bool) {
    let mask = 1u64 << (i % 64);
    if value {
        bits[i / 64] |= mask;
    } else {
        bits[i / 64] &= !mask;
    }
}

/// The smallest set index in `a..b`.
fn first_set(bits: &[u64], a: usize, b: usize) -> Option<usize> {
    if a >= b {
        return None;
    }
    let mut w = a / 64;
    let mut word = bits[w] & (!0u64 << (a % 64));
    loop {
        if word != 0 {
            let i = w * 64 + word.trailing_zeros() as usize;
            return (i < b).then_some(i);
        }
        w += 1;
        if w * 64 >= b {
            return None;
        }
        word = bits[w];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::SeedableRng;

    const F: PrlState = PrlState::ZERO;

    fn prl(n: usize, big_n: u32) -> Prl {
        Prl::new(n, &Params::parse(&[format!("N={big_n}")]).unwrap()).unwrap()
    }

    fn st(leader: bool, bullet: Bullet, shield: bool, signal: bool, dist_l: u32) -> PrlState {
        PrlState { leader, bullet, shield, signal, dist_l }
    }

    // ---- one test per line (or group of lines) of Algorithm 1 ----

    #[test]
    fn line_1_a_leader_initiator_resets_its_distance() {
        let p = prl(5, 10);
        let (l, _, _) = p.interact(st(true, Bullet::None, true, false, 7), F);
        assert_eq!(l.dist_l, 0);
        // A follower initiator keeps its distance.
        let (l, _, _) = p.interact(PrlState::follower(7), F);
        assert_eq!(l.dist_l, 7);
    }

    #[test]
    fn line_2_three_cases_of_the_responder_distance() {
        let p = prl(5, 10);
        // r a leader: 0.
        let (_, r, _) = p.interact(PrlState::follower(3), st(true, Bullet::None, true, false, 6));
        assert_eq!(r.dist_l, 0);
        // r a follower without bullet: min(l.distL + 1, N), reading l.distL after line 1.
        let (_, r, _) = p.interact(PrlState::follower(3), PrlState::follower(9));
        assert_eq!(r.dist_l, 4);
        let (_, r, _) = p.interact(st(true, Bullet::None, false, false, 8), PrlState::follower(9));
        assert_eq!(r.dist_l, 1, "line 2 reads l.distL = 0 written by line 1");
        // r a follower with a bullet: unchanged.
        let (_, r, _) = p.interact(PrlState::follower(3), st(false, Bullet::Dummy, false, false, 9));
        assert_eq!(r.dist_l, 9);
    }

    #[test]
    fn lines_3_to_5_create_a_leader_when_the_distance_reaches_n() {
        let p = prl(5, 10);
        let (l, r, lines) = p.interact(PrlState::follower(9), st(false, Bullet::None, false, true, 2));
        assert!(lines.created);
        assert_eq!(r, st(true, Bullet::Live, true, false, 0));
        // Line 16: the new leader gives its left neighbour a signal at once.
        assert!(l.signal);
        // N - 2 + 1 < N: no creation.
        let (_, r, lines) = p.interact(PrlState::follower(8), F);
        assert!(!lines.created && !r.leader && r.dist_l == 9);
        // A follower carrying a bullet with distL = N (only in arbitrary configurations) is created
        // too; its bullet is replaced by the live one of line 5.
        let (_, r, lines) = p.interact(F, st(false, Bullet::Dummy, false, false, 10));
        assert!(lines.created);
        assert_eq!(r, st(true, Bullet::Live, true, false, 0));
    }

    #[test]
    fn lines_6_7_a_signalled_leader_initiator_fires_a_live_bullet_that_leaves_at_once() {
        let p = prl(5, 10);
        let (l, r, lines) = p.interact(st(true, Bullet::None, false, true, 0), PrlState::follower(4));
        assert!(lines.fired_live && lines.moved);
        assert_eq!(l, st(true, Bullet::None, true, false, 0));
        assert_eq!(r, st(false, Bullet::Live, false, false, 1));
        // Without a signal nothing is fired.
        let (l, r, lines) = p.interact(st(true, Bullet::None, false, false, 0), PrlState::follower(4));
        assert!(!lines.fired_live && l.bullet == Bullet::None && r.bullet == Bullet::None);
        // A follower with a signal does not fire.
        let (l, _, lines) = p.interact(st(false, Bullet::None, false, true, 2), F);
        assert!(!lines.fired_live && l.bullet == Bullet::None);
    }

    #[test]
    fn lines_8_9_a_signalled_leader_responder_fires_a_dummy_bullet_and_drops_its_shield() {
        let p = prl(5, 10);
        let (l, r, lines) = p.interact(PrlState::follower(3), st(true, Bullet::None, true, true, 0));
        assert!(lines.fired_dummy);
        assert_eq!(r, st(true, Bullet::Dummy, false, false, 0));
        // Line 16: l gets a signal from the leader r.
        assert!(l.signal);
    }

    #[test]
    fn lines_10_12_a_bullet_reaching_a_leader_kills_only_if_live_and_unshielded() {
        let p = prl(5, 10);
        let bullet = |b| st(false, b, false, false, 3);
        // Live bullet, unshielded leader: killed (line 11), bullet gone (line 12).
        let (l, r, lines) = p.interact(bullet(Bullet::Live), PrlState::leader(false));
        assert!(lines.hit_leader && lines.killed);
        assert!(!r.leader && l.bullet == Bullet::None);
        assert_eq!(r.dist_l, 0, "line 2 ran while r was still a leader");
        // Line 16 reads r.leader after line 11: no signal from a killed leader.
        assert!(!l.signal);
        // Live bullet, shielded leader: survives.
        let (l, r, lines) = p.interact(bullet(Bullet::Live), PrlState::leader(true));
        assert!(lines.hit_leader && !lines.killed && r.leader && l.bullet == Bullet::None && l.signal);
        // Dummy bullet, unshielded leader: survives.
        let (l, r, lines) = p.interact(bullet(Bullet::Dummy), PrlState::leader(false));
        assert!(lines.hit_leader && !lines.killed && r.leader && l.bullet == Bullet::None);
    }

    #[test]
    fn lines_13_15_a_bullet_moves_to_a_free_follower_or_vanishes_and_erases_the_signal() {
        let p = prl(5, 10);
        let (l, r, lines) =
            p.interact(st(false, Bullet::Dummy, false, false, 2), st(false, Bullet::None, false, true, 9));
        assert!(lines.moved);
        assert_eq!((l.bullet, r.bullet, r.signal, r.dist_l), (Bullet::None, Bullet::Dummy, false, 3));
        assert!(!l.signal, "the signal was erased before line 16 could pass it on");
        // r already carries a bullet: l's disappears, r keeps its own.
        let (l, r, lines) =
            p.interact(st(false, Bullet::Live, false, false, 2), st(false, Bullet::Dummy, false, true, 9));
        assert!(lines.absorbed && !lines.moved);
        assert_eq!((l.bullet, r.bullet, r.signal), (Bullet::None, Bullet::Dummy, false));
    }

    #[test]
    fn line_16_signals_propagate_leftwards_and_from_leaders() {
        let p = prl(5, 10);
        let (l, _, _) = p.interact(F, st(false, Bullet::None, false, true, 1));
        assert!(l.signal, "from r.signal");
        let (l, _, _) = p.interact(F, PrlState::leader(true));
        assert!(l.signal, "from r.leader");
        let (l, _, _) = p.interact(st(false, Bullet::None, false, true, 0), F);
        assert!(l.signal, "kept");
        let (l, _, _) = p.interact(F, F);
        assert!(!l.signal);
    }

    #[test]
    fn transition_equals_interact() {
        let p = prl(4, 6);
        let mut rng = PopRng::seed_from_u64(3);
        for _ in 0..2000 {
            let (a, b) = (p.random_state(&mut rng), p.random_state(&mut rng));
            let (l, r, _) = p.interact(a, b);
            assert_eq!(p.transition(a, b), (l, r));
        }
    }

    // ---- section 4.1 predicates ----

    /// Ring of 6: leader u_1 (shielded), leader u_4 (unshielded).
    fn two_leaders() -> Vec<PrlState> {
        let mut c = vec![F; 6];
        c[1] = PrlState::leader(true);
        c[4] = PrlState::leader(false);
        c
    }

    #[test]
    fn distances_to_the_nearest_leaders() {
        let c = two_leaders();
        assert_eq!((0..6).map(|i| d_l(&c, i).unwrap()).collect::<Vec<_>>(), [2, 0, 1, 2, 0, 1]);
        assert_eq!((0..6).map(|i| d_r(&c, i).unwrap()).collect::<Vec<_>>(), [1, 0, 2, 1, 0, 2]);
        assert_eq!(d_l(&[F; 3], 1), None);
        assert_eq!(d_r(&[F; 3], 1), None);
    }

    #[test]
    fn peaceful_needs_a_shielded_left_leader_and_no_signal_up_to_it() {
        let mut c = two_leaders();
        assert!(peaceful(&c, 3), "u_1 shielded, no signals at u_1..u_3");
        assert!(peaceful(&c, 1), "a bullet at a shielded leader");
        assert!(!peaceful(&c, 5), "nearest left leader u_4 unshielded");
        assert!(!peaceful(&c, 0), "u_0's nearest left leader is u_4");
        c[2].signal = true;
        assert!(!peaceful(&c, 3) && !peaceful(&c, 2) && peaceful(&c, 1));
        c[2].signal = false;
        c[1].signal = true;
        assert!(!peaceful(&c, 1), "j = 0..=d_L includes the leader itself");
        c[1].signal = false;
        c[0].signal = true;
        assert!(peaceful(&c, 3), "a signal left of the leader does not matter");
        assert!(!peaceful(&[F; 4], 2), "no leader");
    }

    #[test]
    fn secure_bounds_distances_by_n_minus_d_r() {
        let mut c = two_leaders();
        let big_n = 8;
        // u_2: d_R = 2, so distL <= 6.
        c[2].dist_l = 6;
        assert!(secure(&c, big_n, 2));
        c[2].dist_l = 7;
        assert!(!secure(&c, big_n, 2));
        // Leaders need distL = 0.
        assert!(secure(&c, big_n, 1));
        c[1].dist_l = 1;
        assert!(!secure(&c, big_n, 1));
        // No leader: no follower is secure.
        assert!(!secure(&[F; 3], 8, 0));
    }

    #[test]
    fn modest_adds_distance_bounds_up_to_the_left_leader() {
        let mut c = two_leaders();
        c[3].bullet = Bullet::Live;
        c[2].dist_l = 1;
        c[3].dist_l = 2;
        assert!(modest(&c, 3));
        c[3].dist_l = 3;
        assert!(!modest(&c, 3) && peaceful(&c, 3));
        c[3].dist_l = 2;
        c[2].dist_l = 2;
        assert!(!modest(&c, 3), "u_2.distL = 2 > d_L(2) = 1");
        assert!(modest(&c, 1), "a bullet at a shielded leader with distL 0");
        c[1].dist_l = 1;
        assert!(!modest(&c, 1));
        assert!(!modest(&c, 5), "not peaceful");
    }

    #[test]
    fn the_sets_c_pb_c_ni_and_s_rl() {
        let big_n = 6;
        let mut c = vec![F; 6];
        assert!(!in_c_pb(&c), "no leader");
        c[0] = PrlState::leader(true);
        for (i, s) in c.iter_mut().enumerate().skip(1) {
            s.dist_l = i as u32;
        }
        assert!(in_c_pb(&c) && in_c_ni(&c, big_n) && in_s_rl(&c, big_n));
        c[3].bullet = Bullet::Live;
        assert!(in_s_rl(&c, big_n), "a modest bullet");
        c[2].signal = true;
        assert!(!in_c_pb(&c) && !in_s_rl(&c, big_n), "the bullet is no longer peaceful");
        c[2].signal = false;
        c[3].bullet = Bullet::Dummy;
        c[2].dist_l = 5;
        // u_2: d_R = 4, N - d_R = 2 < 5: insecure.
        assert!(in_c_pb(&c) && !in_c_ni(&c, big_n));
        c[2].dist_l = 2;
        c[4] = PrlState::leader(false);
        assert!(in_c_ni(&c, 6) && !in_s_rl(&c, big_n), "two leaders");
    }

    // ---- monitor, families, JSON, parameters, graph ----

    #[test]
    fn monitor_matches_the_predicate_on_random_configurations_and_rings_with_one_leader() {
        let mut rng = PopRng::seed_from_u64(17);
        let mut agreed_safe = 0;
        for trial in 0..20_000 {
            let n = 2 + trial % 7;
            let big_n = n as u32 + (trial % 3) as u32;
            let p = prl(n, big_n);
            let mut c: Vec<PrlState> = (0..n).map(|_| p.random_state(&mut rng)).collect();
            if trial % 2 == 0 {
                // Bias towards S_RL: one leader, small distances, few signals.
                let leader = below_u64(&mut rng, n as u64) as usize;
                for (i, s) in c.iter_mut().enumerate() {
                    s.leader = i == leader;
                    s.dist_l = if i == leader { 0 } else { ((i + n - leader) % n) as u32 };
                    s.signal &= coin(&mut rng) && coin(&mut rng);
                }
            }
            let expected = in_s_rl(&c, big_n);
            assert_eq!(PrlMonitor::new(&c, big_n).is_safe(), expected, "{c:?}");
            agreed_safe += usize::from(expected);
        }
        assert!(agreed_safe > 1000, "too few safe samples: {agreed_safe}");
    }

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
        assert!(read(r#"{"leader":2,"bullet":0,"shield":0,"signal":0,"dist_l":0}"#).unwrap_err().contains("leader"));
        assert!(read(r#"{"leader":0,"bullet":3,"shield":0,"signal":0,"dist_l":0}"#).unwrap_err().contains("bullet"));
        assert!(read(r#"{"leader":0,"bullet":0,"shield":0,"signal":0,"dist_l":6}"#).unwrap_err().contains("0 to 5"));
        assert!(read(r#"{"leader":true,"bullet":0,"shield":0,"signal":0,"dist_l":0}"#).is_err());
        assert!(read(r#"{"leader":0,"bullet":0,"shield":0,"signal":0}"#).unwrap_err().contains("missing"));
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
        assert!(p.check_graph(&Graph::DirectedRing).is_ok());
        for g in [Graph::Complete, Graph::UndirectedRing, Graph::Arcs(vec![(0, 1)])] {
            let err = p.check_graph(&g).unwrap_err().to_string();
            assert!(err.contains("use --graph ring"), "{err}");
        }
    }

    #[test]
    fn state_is_compact() {
        assert_eq!(std::mem::size_of::<PrlState>(), 8);
    }

    #[test]
    fn first_set_respects_bounds() {
        let mut bits = vec![0u64; 3];
        for i in [5, 64, 130] {
            set_bit(&mut bits, i, true);
        }
        assert_eq!(first_set(&bits, 0, 192), Some(5));
        assert_eq!(first_set(&bits, 6, 192), Some(64));
        assert_eq!(first_set(&bits, 65, 130), None);
        assert_eq!(first_set(&bits, 65, 131), Some(130));
        assert_eq!(first_set(&bits, 131, 192), None);
        assert_eq!(first_set(&bits, 7, 7), None);
    }
}
