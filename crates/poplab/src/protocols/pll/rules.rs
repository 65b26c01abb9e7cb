//! The transition of P_LL: Algorithm 1 (lines 1-22) with the role-based lines of Algorithms 3-5
//! (coin flips: initiator = head, responder = tail; line 57); the role-free lines are in `core`.

use super::core::{self, Vars};
use super::{Pll, Status, Variant};

impl Pll {
    /// Lines 1-57 in order (initiator `a_0`, responder `a_1`): [`crate::protocol::Protocol::transition`].
    #[inline(always)]
    pub(super) fn interact(&self, initiator: super::State, responder: super::State) -> (super::State, super::State) {
        let mut a = [Self::unpack(initiator), Self::unpack(responder)];
        // Lines 1-6.
        Self::assign_status(&mut a);
        // Lines 7-15; line 12 per the variant (erratum 3).
        let follower_rand = if self.variant == Variant::AsPrinted { 1 } else { self.core.nonce_start };
        self.core.lines_7_to_15(&mut a, follower_rand);
        // Lines 16-22.
        if a[0].epoch == 1 && a[1].epoch == 1 {
            self.quick_elimination(&mut a);
        } else if a[0].epoch == 2 && a[1].epoch == 2 {
            self.tournament(&mut a);
        } else if a[0].epoch == 3 && a[1].epoch == 3 {
            self.back_up(&mut a);
        }
        (Self::pack(&a[0]), Self::pack(&a[1]))
    }

    /// Lines 1-6: status assignment.
    #[inline(always)]
    fn assign_status(a: &mut [Vars<Status>; 2]) {
        if a[0].status == Status::X && a[1].status == Status::X {
            (a[0].status, a[0].level_q, a[0].done, a[0].leader) = (Status::A, 0, false, true);
            (a[1].status, a[1].count, a[1].leader) = (Status::B, 0, false);
        } else if let Some(i) = (0..2).find(|&i| a[i].status == Status::X && a[1 - i].status != Status::X) {
            (a[i].status, a[i].level_q, a[i].done, a[i].leader) = (Status::A, 0, true, false);
        }
    }

    /// Algorithm 3, lines 35-42 (both agents in epoch 1).
    #[inline(always)]
    fn quick_elimination(&self, a: &mut [Vars<Status>; 2]) {
        // `done` exists only in V_A ∩ V_1: a condition on it is false for any other agent.
        if let Some(i) = (0..2).find(|&i| a[i].leader && !a[1 - i].leader && a[i].status == Status::A && !a[i].done) {
            if i == 0 {
                a[0].level_q = (a[0].level_q + 1).min(self.core.c_max);
            } else {
                a[1].done = true;
            }
        }
        core::level_q_epidemic(a);
    }

    /// Algorithm 4, lines 43-49 (both agents in epoch 2), line 43 read as "there exists i".
    #[inline(always)]
    fn tournament(&self, a: &mut [Vars<Status>; 2]) {
        if let Some(i) = (0..2)
            .find(|&i| a[i].leader && !a[1 - i].leader && a[i].status == Status::A && a[i].rand < self.core.nonce_start)
        {
            a[i].rand = 2 * a[i].rand + i as u16;
        }
        self.core.nonce_epidemic(a);
    }

    /// Algorithm 5, lines 50-57 (both agents in epoch 3).
    #[inline(always)]
    fn back_up(&self, a: &mut [Vars<Status>; 2]) {
        if a[0].tick && a[0].leader && a[0].status == Status::A {
            a[0].level_b = (a[0].level_b + 1).min(self.core.c_max);
        }
        core::level_b_epidemic(a);
        if a[0].leader && a[1].leader {
            a[1].leader = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{a1, a2, a3, b, pll, printed, st};
    use super::super::{Group, Module, PllProtocol, State, eliminations};
    use crate::protocol::Protocol;
    use crate::rng::PopRng;
    use rand_core::SeedableRng;

    #[test]
    fn status_assignment_lines_1_to_6() {
        let p = pll(10);
        let x = State::INITIAL;
        let (i, r) = p.transition(x, x);
        // Line 2 makes the initiator a player; QuickElimination then runs on the same pair and the
        // new leader, initiator against the new follower, sees its first head (line 36).
        assert_eq!(i, st(true, 0, 1, Group::A1 { level_q: 1, done: false }));
        assert_eq!(r, st(false, 0, 1, Group::B { epoch: 1, count: 1 }));
        assert_eq!(eliminations([x, x], [i, r]), [None, Some(Module::StatusAssignment)]);
        // Line 5, either role.
        let (i2, r2) = p.transition(x, r);
        assert_eq!(i2, a1(false, 0, true));
        assert_eq!(r2, b(1, 2, 0));
        let (i3, r3) = p.transition(i, x);
        assert_eq!(r3, a1(false, 0, true));
        // The new follower counts as a follower for the player's coin flips: a head.
        assert_eq!(i3, a1(true, 2, false));
        assert_eq!(eliminations([i, x], [i3, r3]), [None, Some(Module::StatusAssignment)]);
    }

    #[test]
    fn count_up_ticks_and_wraps_the_timer() {
        let p = pll(10); // c_max = 41 * 4 = 164
        let c = p.c_max();
        let follower = a1(false, 0, true);
        // An ordinary step of the timer.
        let (i, r) = p.transition(b(1, 5, 0), follower);
        assert_eq!(i, b(1, 6, 0));
        assert_eq!(r, follower);
        // The timer wraps: new colour, tick, epoch + 1 (line 9), init follows (line 14); the partner
        // adopts the colour at once (line 30), ticks and moves to epoch 2 as well.
        let (i, r) = p.transition(b(1, c - 1, 0), follower);
        assert_eq!(i, State { tick: true, ..b(2, 0, 1) });
        assert_eq!(r, State { tick: true, ..st(false, 1, 2, Group::A2 { rand: p.nonce_start() }) });
        // Tick is reset at the next interaction (line 7).
        let (i2, _) = p.transition(i, b(2, 3, 1));
        assert_eq!(i2, b(2, 1, 1));
    }

    #[test]
    fn count_up_spreads_the_next_colour_only() {
        let p = pll(10);
        // Responder behind: it adopts the colour, ticks (epoch + 1), resets its count.
        let (i, r) = p.transition(b(2, 7, 1), b(1, 9, 0));
        assert_eq!(i, b(2, 8, 1));
        assert_eq!(r, State { tick: true, ..b(2, 0, 1) });
        // Initiator behind (0 is the colour after 2): it adopts 0; epoch 3 stays 3.
        let (i, r) = p.transition(b(3, 7, 2), b(3, 9, 0));
        assert_eq!(i, State { tick: true, ..b(3, 0, 0) });
        assert_eq!(r, b(3, 10, 0));
        // Colour 2 meeting colour 1 from the other side: the 1 adopts 2.
        let (i, r) = p.transition(b(2, 7, 1), b(3, 9, 2));
        assert_eq!(i, State { tick: true, ..b(3, 0, 2) });
        assert_eq!(r, b(3, 10, 2));
        // Line 10 alone: a higher epoch spreads without a colour change.
        let (i, r) = p.transition(b(1, 7, 1), b(2, 9, 1));
        assert_eq!((i, r), (State { init: 2, ..b(2, 8, 1) }, b(2, 10, 1)));
        // Equal colours: nothing but the counts.
        let (i, r) = p.transition(b(1, 7, 2), b(1, 9, 2));
        assert_eq!((i, r), (b(1, 8, 2), b(1, 10, 2)));
    }

    #[test]
    fn line_10_equalises_epochs_and_lines_9_11_to_14_initialise() {
        // An epoch-3 agent pulls an epoch-1 agent of status A into epoch 3: level_b starts at 0.
        let p = pll(10);
        let (i, r) = p.transition(a1(true, 4, true), b(3, 2, 0));
        assert_eq!(i, st(true, 0, 3, Group::A3 { level_b: 0 }));
        assert_eq!(r, b(3, 3, 0));
        // Erratum 1: a tick in epoch 3 keeps epoch 3.
        let c = p.c_max();
        let (i, _) = p.transition(b(3, c - 1, 2), a3(false, 0));
        assert_eq!(i.epoch(), 3);
        assert_eq!(i, State { tick: true, ..b(3, 0, 0) });
    }

    #[test]
    fn quick_elimination_coin_flips_initiator_is_head() {
        let p = pll(10);
        let follower = a1(false, 0, true);
        // Head: the leader is the initiator.
        let (i, r) = p.transition(a1(true, 2, false), follower);
        assert_eq!((i, r), (a1(true, 3, false), follower));
        // A timer agent is a follower too.
        let (i, _) = p.transition(a1(true, 2, false), b(1, 0, 0));
        assert_eq!(i, a1(true, 3, false));
        // Tail: the leader is the responder; it stops flipping.
        // (Both are then done, so the follower also learns the level at once, line 41.)
        let (i, r) = p.transition(follower, a1(true, 2, false));
        assert_eq!((i, r), (a1(false, 2, true), a1(true, 2, true)));
        // Two leaders: no flip.
        let (i, r) = p.transition(a1(true, 2, false), a1(true, 5, false));
        assert_eq!((i, r), (a1(true, 2, false), a1(true, 5, false)));
        // A finished leader flips no more.
        let (i, _) = p.transition(a1(true, 2, true), follower);
        assert_eq!(i, a1(true, 2, true));
        // The flip is capped at c_max (line 36).
        let (i, _) = p.transition(a1(true, p.c_max(), false), follower);
        assert_eq!(i, a1(true, p.c_max(), false));
    }

    #[test]
    fn quick_elimination_epidemic_of_the_largest_level() {
        let p = pll(10);
        // A finished leader with the smaller level loses and copies, whatever its role.
        let (i, r) = p.transition(a1(true, 1, true), a1(true, 3, true));
        assert_eq!((i, r), (a1(false, 3, true), a1(true, 3, true)));
        assert_eq!(
            eliminations([a1(true, 1, true), a1(true, 3, true)], [i, r]),
            [Some(Module::QuickElimination), None]
        );
        // The level spreads through followers.
        let (i, r) = p.transition(a1(false, 3, true), a1(false, 0, true));
        assert_eq!((i, r), (a1(false, 3, true), a1(false, 3, true)));
        let (i, r) = p.transition(a1(false, 4, true), a1(true, 3, true));
        assert_eq!((i, r), (a1(false, 4, true), a1(false, 4, true)));
        // Equal levels: nobody loses.
        let (i, r) = p.transition(a1(true, 3, true), a1(true, 3, true));
        assert_eq!((i, r), (a1(true, 3, true), a1(true, 3, true)));
        // A player still flipping takes no part (its level is not final).
        let (i, r) = p.transition(a1(true, 1, false), a1(false, 3, true));
        assert_eq!((i, r), (a1(true, 2, false), a1(false, 3, true)));
    }

    #[test]
    fn tournament_builds_nonces_from_roles() {
        let p = pll(1000); // m = 10, 2^ceil(lg m) = 16
        let s = p.nonce_start();
        let f = a2(false, s);
        // rand <- 2 rand + i: the initiator appends 0, the responder 1.
        let (i, r) = p.transition(a2(true, 1), f);
        assert_eq!((i, r), (a2(true, 2), f));
        let (i, r) = p.transition(f, a2(true, 2));
        assert_eq!((i, r), (f, a2(true, 5)));
        // Four flips make a nonce in 16..=31: here 1 -> 3 -> 6 -> 13 -> 26.
        let mut leader = a2(true, 1);
        for responder in [true, false, true, false] {
            leader = if responder { p.transition(f, leader).1 } else { p.transition(leader, f).0 };
        }
        assert_eq!(leader, a2(true, 26));
        // A finished nonce stops growing.
        assert_eq!(p.transition(leader, f).0, leader);
        // Two leaders do not flip.
        let (i, r) = p.transition(a2(true, 1), a2(true, 3));
        assert_eq!((i, r), (a2(true, 1), a2(true, 3)));
    }

    #[test]
    fn tournament_spreads_the_largest_nonce_through_followers() {
        let p = pll(1000);
        let s = p.nonce_start();
        // pll: a follower entering epoch 2 (colour 0 -> 1, tick) starts at 2^ceil(lg m) (erratum 3)...
        let (i, r) = p.transition(a2(false, s), a1(false, 2, true));
        assert_eq!((i, r), (a2(false, s), State { tick: true, ..a2(false, s) }));
        // ... a leader at 1.
        let (i, r) = p.transition(a2(true, 29), a1(true, 2, true));
        assert_eq!((i, r), (a2(true, 29), State { tick: true, ..a2(true, 1) }));
        // The follower learns the largest nonce and passes it on; a leader with a smaller finished
        // nonce loses when it meets the follower.
        let (i, r) = p.transition(a2(true, 29), a2(false, s));
        assert_eq!((i, r), (a2(true, 29), a2(false, 29)));
        let (i, r) = p.transition(a2(false, 29), a2(true, 17));
        assert_eq!((i, r), (a2(false, 29), a2(false, 29)));
        assert_eq!(eliminations([a2(false, 29), a2(true, 17)], [i, r]), [None, Some(Module::Tournament)]);
        // The smallest nonce eliminates nobody; unfinished nonces take no part.
        let (i, r) = p.transition(a2(false, s), a2(true, s));
        assert_eq!((i, r), (a2(false, s), a2(true, s)));
        let (i, r) = p.transition(a2(true, 3), a2(false, 29));
        assert_eq!((i, r), (a2(true, 6), a2(false, 29)));
    }

    #[test]
    fn as_printed_followers_never_take_part_in_tournament() {
        let p = printed(1000);
        // Line 12 as printed: a follower enters epoch 2 with rand = 1 ...
        let (i, r) = p.transition(a2(false, 16), a1(false, 2, true));
        assert_eq!((i, r), (a2(false, 16), State { tick: true, ..a2(false, 1) }));
        // ... never raises it (line 43 is for leaders) ...
        let (i, r) = p.transition(a2(false, 1), a2(false, 29));
        assert_eq!((i, r), (a2(false, 1), a2(false, 29)));
        // ... so it neither learns nor carries the largest nonce (line 46 needs rand >= 16).
        let (i, r) = p.transition(a2(true, 29), a2(false, 1));
        assert_eq!((i, r), (a2(true, 29), a2(false, 1)));
        let (i, r) = p.transition(a2(false, 1), a2(true, 17));
        assert_eq!((i, r), (a2(false, 1), a2(true, 17)));
        // Leaders still compare finished nonces when they meet directly.
        let (i, r) = p.transition(a2(true, 29), a2(true, 17));
        assert_eq!((i, r), (a2(true, 29), a2(false, 29)));
        // The same follower in pll spreads the nonce.
        let q = pll(1000);
        let (i, _) = q.transition(a1(false, 2, true), a2(true, 1));
        assert_eq!(q.transition(a2(true, 29), i).1, a2(false, 29));
    }

    #[test]
    fn back_up_levels_ticks_and_the_leader_leader_rule() {
        let p = pll(10);
        let c = p.c_max();
        // A tick raised in this interaction (colour 0 -> 1 from the partner) and the leader is the
        // initiator: head, level_b + 1.
        let leader = st(true, 0, 3, Group::A3 { level_b: 2 });
        let ahead = st(false, 1, 3, Group::A3 { level_b: 2 });
        let (i, r) = p.transition(leader, ahead);
        assert_eq!(i, State { tick: true, ..st(true, 1, 3, Group::A3 { level_b: 3 }) });
        // The follower learns the level at once (line 53, same interaction).
        assert_eq!(r, st(false, 1, 3, Group::A3 { level_b: 3 }));
        // Responder with a tick: tail, no change of level.
        let (i, r) = p.transition(ahead, leader);
        assert_eq!(i, ahead);
        assert_eq!(r, State { tick: true, ..st(true, 1, 3, Group::A3 { level_b: 2 }) });
        // No tick: no flip.
        let (i, _) = p.transition(a3(true, 2), a3(false, 2));
        assert_eq!(i, a3(true, 2));
        // Level propagation: the smaller level is overwritten, a leader with it loses.
        let (i, r) = p.transition(a3(false, 5), a3(true, 4));
        assert_eq!((i, r), (a3(false, 5), a3(false, 5)));
        assert_eq!(eliminations([a3(false, 5), a3(true, 4)], [i, r]), [None, Some(Module::BackUp)]);
        let (i, r) = p.transition(a3(true, 1), a3(false, 4));
        assert_eq!((i, r), (a3(false, 4), a3(false, 4)));
        // Two leaders with the same level: the responder yields (line 57).
        let (i, r) = p.transition(a3(true, 4), a3(true, 4));
        assert_eq!((i, r), (a3(true, 4), a3(false, 4)));
        // Different levels: the smaller yields, whatever its role (line 55 before 57).
        let (i, r) = p.transition(a3(true, 6), a3(true, 4));
        assert_eq!((i, r), (a3(true, 6), a3(false, 6)));
        // Capped at c_max (line 51).
        let top = st(true, 0, 3, Group::A3 { level_b: c });
        let (i, _) = p.transition(top, st(false, 1, 3, Group::A3 { level_b: c }));
        assert_eq!(i, State { tick: true, ..st(true, 1, 3, Group::A3 { level_b: c }) });
        // Timer agents carry no level but still count.
        let (i, r) = p.transition(a3(true, 4), b(3, 7, 2));
        assert_eq!((i, r), (a3(true, 4), b(3, 8, 2)));
    }

    #[test]
    fn transitions_of_random_states_stay_in_the_state_space() {
        for p in [pll(50), printed(50), pll(2)] {
            let mut rng = PopRng::seed_from_u64(9);
            for _ in 0..200_000 {
                let (x, y) = (p.random_state(&mut rng), p.random_state(&mut rng));
                let (x2, y2) = p.transition(x, y);
                assert_eq!(p.check_state(x2), Ok(x2), "{x:?} {y:?}");
                assert_eq!(p.check_state(y2), Ok(y2), "{x:?} {y:?}");
                assert_eq!(x2.epoch(), y2.epoch());
            }
        }
    }
}
