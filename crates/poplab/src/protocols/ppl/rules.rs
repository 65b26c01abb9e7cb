//! The transition of P_PL: Algorithm 1, lines 1-9, in order.

use super::{Ppl, PplState};

impl Ppl {
    /// Lines 1-9 of Algorithm 1 on initiator `a0` and responder `a1`.
    #[inline(always)]
    pub(super) fn interact(&self, a0: PplState, a1: PplState) -> (PplState, PplState) {
        let (mut a0, mut a1) = (a0, a1);
        // Line 1: larger value propagation of the leader timer.
        let timer_l = a0.timer_l.max(a1.timer_l).saturating_sub(1);
        a0.timer_l = timer_l;
        a1.timer_l = timer_l;
        // Line 2: timeout (both agents hold the same timer_L now).
        if timer_l == 0 {
            a0.leader = true;
            a1.leader = true;
        }
        // Line 3: timer reset.
        if a0.leader || a1.leader {
            a0.timer_l = self.t_max;
            a1.timer_l = self.t_max;
        }
        // Line 4: the virus spreads, its time to live decreasing.
        let virus = a0.virus.max(a1.virus).saturating_sub(1);
        a0.virus = virus;
        a1.virus = virus;
        // Line 5: unshielded carriers are killed.
        if virus > 0 {
            a0.leader &= a0.shield;
            a1.leader &= a1.shield;
        }
        // Line 6: individual timers count down.
        a0.timer_i = a0.timer_i.saturating_sub(1);
        a1.timer_i = a1.timer_i.saturating_sub(1);
        // Line 7: an initiator leader whose timer ran out emits a virus and shields itself.
        if a0.timer_i == 0 && a0.leader {
            a0.virus = self.t_virus;
            a0.shield = true;
        }
        // Line 8: a responder leader whose timer ran out loses its shield.
        if a1.timer_i == 0 && a1.leader {
            a1.shield = false;
        }
        // Line 9: expired individual timers restart.
        if a0.timer_i == 0 {
            a0.timer_i = self.t_emit;
        }
        if a1.timer_i == 0 {
            a1.timer_i = self.t_emit;
        }
        (a0, a1)
    }
}
