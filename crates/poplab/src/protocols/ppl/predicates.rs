//! The safe set of P_PL (section 4): `S = L1 ∩ G_half ∩ (L_safe ∪ V_clean)`, part by part, on a
//! configuration.

use super::{Ppl, PplState};

impl Ppl {
    /// Whether a state's `timer_L >= t_max/2` (read as `2 timer_L >= t_max`).
    #[inline(always)]
    pub fn timer_l_is_high(&self, state: PplState) -> bool {
        2 * u64::from(state.timer_l) >= u64::from(self.t_max)
    }

    /// Whether a state is a leader that makes `L_safe` true: shielded with `timer_I >= t_emit/2`.
    #[inline(always)]
    pub fn is_safe_leader(&self, state: PplState) -> bool {
        state.leader && state.shield && 2 * u64::from(state.timer_i) >= u64::from(self.t_emit)
    }

    /// `L1`: exactly one leader.
    pub fn l1(&self, agents: &[PplState]) -> bool {
        agents.iter().filter(|a| a.leader).count() == 1
    }

    /// `G_half`: every `timer_L >= t_max/2`.
    pub fn g_half(&self, agents: &[PplState]) -> bool {
        agents.iter().all(|&a| self.timer_l_is_high(a))
    }

    /// `L_safe`: some leader is shielded and has `timer_I >= t_emit/2`.
    pub fn l_safe(&self, agents: &[PplState]) -> bool {
        agents.iter().any(|&a| self.is_safe_leader(a))
    }

    /// `V_clean`: no agent carries a virus.
    pub fn v_clean(&self, agents: &[PplState]) -> bool {
        agents.iter().all(|a| a.virus == 0)
    }

    /// `S = L1 ∩ G_half ∩ (L_safe ∪ V_clean)`.
    pub fn in_safe_set(&self, agents: &[PplState]) -> bool {
        self.l1(agents) && self.g_half(agents) && (self.l_safe(agents) || self.v_clean(agents))
    }
}
