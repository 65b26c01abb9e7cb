//! The transition of P_RL: Algorithm 1, lines 1-16 ([`Prl::interact`]), and the report of which
//! branches ran ([`Lines`]).

use super::{Bullet, Prl, PrlState};

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

impl Prl {
    /// Algorithm 1, lines 1-16, on initiator `l` (left) and responder `r` (right), reporting which
    /// branches ran. [`crate::protocol::Protocol::transition`] is this without the report.
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
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{F, prl, st};
    use super::*;
    use crate::protocol::Protocol;
    use crate::rng::PopRng;
    use rand_core::SeedableRng;

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
}
