//! [`PplMonitor`]: the safe set of P_PL kept with counters.

use super::PplState;
use crate::protocol::Monitor;

/// Tracks the four parts of the safe set with counters: leaders (`L1`), agents with
/// `timer_L < t_max/2` (`G_half`), virus carriers (`V_clean`), and shielded leaders with
/// `timer_I >= t_emit/2` (`L_safe`).
#[derive(Clone, Debug)]
pub struct PplMonitor {
    t_max: u32,
    t_emit: u32,
    leaders: usize,
    low_timers: usize,
    virus_carriers: usize,
    safe_leaders: usize,
}

impl PplMonitor {
    /// The monitor of `agents` for timers `t_max` and `t_emit`.
    pub(super) fn of(t_max: u32, t_emit: u32, agents: &[PplState]) -> Self {
        let mut monitor = Self { t_max, t_emit, leaders: 0, low_timers: 0, virus_carriers: 0, safe_leaders: 0 };
        for &agent in agents {
            monitor.add(agent);
        }
        monitor
    }

    /// Agents with `leader`.
    pub fn leaders(&self) -> usize {
        self.leaders
    }

    /// Agents with `2 timer_L < t_max`.
    pub fn low_timers(&self) -> usize {
        self.low_timers
    }

    /// Agents with `virus > 0`.
    pub fn virus_carriers(&self) -> usize {
        self.virus_carriers
    }

    /// Leaders that are shielded and have `2 timer_I >= t_emit`.
    pub fn safe_leaders(&self) -> usize {
        self.safe_leaders
    }

    /// `L1` as tracked.
    pub fn l1(&self) -> bool {
        self.leaders == 1
    }

    /// `G_half` as tracked.
    pub fn g_half(&self) -> bool {
        self.low_timers == 0
    }

    /// `L_safe` as tracked.
    pub fn l_safe(&self) -> bool {
        self.safe_leaders > 0
    }

    /// `V_clean` as tracked.
    pub fn v_clean(&self) -> bool {
        self.virus_carriers == 0
    }

    #[inline(always)]
    fn counts(&self, s: PplState) -> [usize; 4] {
        [
            usize::from(s.leader),
            usize::from(2 * u64::from(s.timer_l) < u64::from(self.t_max)),
            usize::from(s.virus > 0),
            usize::from(s.leader && s.shield && 2 * u64::from(s.timer_i) >= u64::from(self.t_emit)),
        ]
    }

    #[inline(always)]
    fn add(&mut self, s: PplState) {
        let [a, b, c, d] = self.counts(s);
        self.leaders += a;
        self.low_timers += b;
        self.virus_carriers += c;
        self.safe_leaders += d;
    }

    #[inline(always)]
    fn remove(&mut self, s: PplState) {
        let [a, b, c, d] = self.counts(s);
        self.leaders -= a;
        self.low_timers -= b;
        self.virus_carriers -= c;
        self.safe_leaders -= d;
    }
}

impl Monitor<PplState> for PplMonitor {
    #[inline(always)]
    fn record(&mut self, before: [PplState; 2], after: [PplState; 2]) {
        // Add first so that no counter goes below zero in between.
        self.add(after[0]);
        self.add(after[1]);
        self.remove(before[0]);
        self.remove(before[1]);
    }

    #[inline(always)]
    fn is_safe(&self) -> bool {
        self.l1() && self.g_half() && (self.l_safe() || self.v_clean())
    }
}
