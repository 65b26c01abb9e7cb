//! The incremental monitor of `S_RL` ([`PrlMonitor`]).

use super::{Bullet, PrlState};
use crate::protocol::Monitor;

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
/// Exactness is tested against [`super::in_s_rl`] on every step of many random runs (tests/it/prl_runs.rs).
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
    use super::super::fixtures::prl;
    use super::super::in_s_rl;
    use super::*;
    use crate::protocol::Protocol;
    use crate::rng::{PopRng, below_u64, coin};
    use rand_core::SeedableRng;

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
