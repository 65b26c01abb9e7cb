//! The symmetric transition: line 0 (coin rules), section 4's status assignment, P_LL's lines
//! 7-15 (from `core`), Algorithms 3 and 4 with section 4's coins, and Algorithm 6.

use super::state::Vars;
use super::{Coin, PllSym, State, Status};
use crate::protocols::pll::core;

impl PllSym {
    /// [`crate::protocol::Protocol::transition`]: symmetric in the two agents.
    #[inline(always)]
    pub(super) fn interact(&self, initiator: State, responder: State) -> (State, State) {
        let mut a = [Self::unpack(initiator), Self::unpack(responder)];
        // Line 0: coin statuses of two followers.
        Self::coin_rules(&mut a);
        // Lines 1-6 (section 4).
        Self::assign_status(&mut a);
        // Lines 7-15 (pll's errata 1 and 3), with Algorithm 6's `ready` and `status_L`.
        self.core.lines_7_to_15(&mut a, self.core.nonce_start);
        // Lines 16-22.
        let epoch = a[0].epoch;
        if epoch == 1 {
            self.quick_elimination(&mut a);
        } else if epoch == 2 {
            self.tournament(&mut a);
        } else {
            self.back_up(&mut a);
        }
        (Self::pack(&a[0]), Self::pack(&a[1]))
    }

    /// "Line 0" (section 4): the coin rules between two followers.
    #[inline(always)]
    fn coin_rules(a: &mut [Vars; 2]) {
        if a[0].leader || a[1].leader {
            return;
        }
        match (a[0].extra.coin, a[1].extra.coin) {
            (Coin::J, Coin::J) => (a[0].extra.coin, a[1].extra.coin) = (Coin::K, Coin::K),
            (Coin::K, Coin::K) => (a[0].extra.coin, a[1].extra.coin) = (Coin::J, Coin::J),
            (Coin::J, Coin::K) => (a[0].extra.coin, a[1].extra.coin) = (Coin::F0, Coin::F1),
            (Coin::K, Coin::J) => (a[0].extra.coin, a[1].extra.coin) = (Coin::F1, Coin::F0),
            _ => {}
        }
    }

    /// Section 4's status assignment (replaces lines 1-6).
    #[inline(always)]
    fn assign_status(a: &mut [Vars; 2]) {
        let unassigned = |s: Status| matches!(s, Status::X | Status::Y);
        match (a[0].status, a[1].status) {
            (Status::X, Status::X) => (a[0].status, a[1].status) = (Status::Y, Status::Y),
            (Status::Y, Status::Y) => (a[0].status, a[1].status) = (Status::X, Status::X),
            (Status::X, Status::Y) | (Status::Y, Status::X) => {
                let x = usize::from(a[1].status == Status::X);
                (a[x].status, a[x].level_q, a[x].done, a[x].leader) = (Status::A, 0, false, true);
                (a[1 - x].status, a[1 - x].count, a[1 - x].leader, a[1 - x].extra.coin) =
                    (Status::B, 0, false, Coin::J);
            }
            _ => {
                for i in 0..2 {
                    if unassigned(a[i].status) && !unassigned(a[1 - i].status) {
                        (a[i].status, a[i].level_q, a[i].done) = (Status::A, 0, true);
                        if a[i].leader {
                            (a[i].leader, a[i].extra.coin) = (false, Coin::J);
                        }
                    }
                }
            }
        }
    }

    /// The agent `i` such that `a_i` is a leader of status A and `a_{1-i}` a follower of coin status
    /// F0 or F1, with the coin it reads (true = head), if `flipping(a_i)`.
    #[inline(always)]
    fn flip(a: &[Vars; 2], flipping: impl Fn(&Vars) -> bool) -> Option<(usize, bool)> {
        (0..2).find_map(|i| {
            let (v, w) = (&a[i], &a[1 - i]);
            if v.leader && v.status == Status::A && !w.leader && flipping(v) {
                w.extra.coin.flip().map(|h| (i, h))
            } else {
                None
            }
        })
    }

    /// Algorithm 3 with section 4's coins (both agents in epoch 1).
    #[inline(always)]
    fn quick_elimination(&self, a: &mut [Vars; 2]) {
        // Lines 35-38: F0 = head (line 36), F1 = tail (line 37).
        if let Some((i, head)) = Self::flip(a, |v| !v.done) {
            if head {
                a[i].level_q = (a[i].level_q + 1).min(self.core.c_max);
            } else {
                a[i].done = true;
            }
        }
        // Lines 39-42.
        core::level_q_epidemic(a);
    }

    /// Algorithm 4 with section 4's coins (both agents in epoch 2).
    #[inline(always)]
    fn tournament(&self, a: &mut [Vars; 2]) {
        // Lines 43-45: rand <- 2 rand + 0 on F0 (head), + 1 on F1 (tail).
        if let Some((i, head)) = Self::flip(a, |v| v.rand < self.core.nonce_start) {
            a[i].rand = 2 * a[i].rand + u16::from(!head);
        }
        // Lines 46-49.
        self.core.nonce_epidemic(a);
    }

    /// Algorithm 6, lines 1-18 (both agents in epoch 3).
    #[inline(always)]
    fn back_up(&self, a: &mut [Vars; 2]) {
        let has_status_l = |v: &Vars| matches!(v.status, Status::A | Status::B);
        // Line 1.
        for v in a.iter_mut() {
            if has_status_l(v) {
                v.extra.status_l ^= 1;
            }
        }
        // Lines 2-11 (a leader of V_A ∩ V_3: the agents with `ready` and `level_B`).
        for i in 0..2 {
            if !(a[i].leader && a[i].status == Status::A) {
                continue;
            }
            let partner = (!a[1 - i].leader).then_some(a[1 - i].extra.coin).and_then(Coin::flip);
            if a[i].tick {
                a[i].extra.ready = true;
            } else if a[i].extra.ready && partner == Some(true) {
                a[i].level_b = (a[i].level_b + 1).min(self.core.c_max);
                a[i].extra.ready = false;
            } else if a[i].extra.ready && partner == Some(false) {
                a[i].extra.ready = false;
            }
        }
        // Lines 12-15.
        core::level_b_epidemic(a);
        // Lines 16-18: the leader with status_L = 1 yields to the one with status_L = 0.
        if let Some(i) = (0..2).find(|&i| {
            a[i].leader
                && a[1 - i].leader
                && has_status_l(&a[i])
                && has_status_l(&a[1 - i])
                && a[i].extra.status_l == 0
                && a[1 - i].extra.status_l == 1
        }) {
            a[1 - i].leader = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{a1, a2, a3, follower, st, sym, t};
    use super::super::{Coin, Group, State, Status, eliminations};
    use crate::protocols::pll::{Module, PllProtocol};

    #[test]
    fn status_assignment_through_y() {
        let p = sym(10);
        let x = State::INITIAL;
        let y = State { group: Group::Y { epoch: 1 }, ..x };
        assert_eq!(t(&p, x, x), (y, y));
        assert_eq!(t(&p, y, y), (x, x));
        // X, Y -> A, B: the X side is the leader (done = false), the Y side a timer agent at J.
        let (a, b) = t(&p, x, y);
        assert_eq!(a, a1(0, false));
        assert_eq!(b, st(false, Coin::J, 0, 1, Group::B { epoch: 1, count: 1 }));
        // X or Y meeting A or B: a follower of status A with done = true and coin J.
        for u in [x, y] {
            for w in [a1(2, true), st(false, Coin::F0, 0, 1, Group::B { epoch: 1, count: 5 })] {
                let (a, _) = t(&p, u, w);
                assert!(!a.leader && a.coin == Coin::J && a.status() == Status::A, "{a:?}");
            }
        }
        assert_eq!(eliminations([x, y], [a, b]), [None, Some(Module::StatusAssignment)]);
    }

    #[test]
    fn coin_rules_between_followers() {
        let p = sym(10);
        let (j, k, f0, f1) = (follower(Coin::J), follower(Coin::K), follower(Coin::F0), follower(Coin::F1));
        assert_eq!(t(&p, j, j), (k, k));
        assert_eq!(t(&p, k, k), (j, j));
        assert_eq!(t(&p, j, k), (f0, f1));
        for (x, y) in [(f0, f1), (f0, j), (f1, k), (f0, f0), (f1, f1)] {
            assert_eq!(t(&p, x, y), (x, y));
        }
        // A leader never changes a coin; a timer agent takes part like any follower.
        assert_eq!(t(&p, a1(1, true), j).1.coin, Coin::J);
        let b = st(false, Coin::K, 0, 1, Group::B { epoch: 1, count: 0 });
        assert_eq!(t(&p, b, j).0.coin, Coin::F1);
    }

    #[test]
    fn quick_elimination_reads_f0_as_head_and_f1_as_tail() {
        let p = sym(10);
        assert_eq!(t(&p, a1(2, false), follower(Coin::F0)).0, a1(3, false));
        let (a, _) = t(&p, a1(2, false), follower(Coin::F1));
        assert_eq!(a, a1(2, true));
        // J and K followers and other leaders are no coins.
        for other in [follower(Coin::J), follower(Coin::K), a1(0, false)] {
            assert_eq!(t(&p, a1(2, false), other).0, a1(2, false));
        }
        // Capped at c_max.
        assert_eq!(t(&p, a1(p.c_max(), false), follower(Coin::F0)).0, a1(p.c_max(), false));
        // The epidemic of line 39-42 is unchanged; the loser becomes a follower at J.
        let (a, b) = t(&p, a1(1, true), a1(3, true));
        assert_eq!((a, b), (st(false, Coin::J, 0, 1, Group::A1 { level_q: 3, done: true }), a1(3, true)));
    }

    #[test]
    fn tournament_appends_0_on_f0_and_1_on_f1() {
        let p = sym(1000); // nonce_start = 16
        let s = p.nonce_start();
        assert_eq!(t(&p, a2(true, Coin::J, 3), a2(false, Coin::F0, s)).0, a2(true, Coin::J, 6));
        assert_eq!(t(&p, a2(true, Coin::J, 3), a2(false, Coin::F1, s)).0, a2(true, Coin::J, 7));
        assert_eq!(t(&p, a2(true, Coin::J, 3), a2(false, Coin::K, s)).0, a2(true, Coin::J, 3));
        // Corrected epidemic of pll: followers carry the largest finished nonce.
        let (a, b) = t(&p, a2(false, Coin::F0, 29), a2(true, Coin::J, 17));
        assert_eq!((a, b), (a2(false, Coin::F0, 29), a2(false, Coin::J, 29)));
        assert_eq!(eliminations([a2(false, Coin::F0, 29), a2(true, Coin::J, 17)], [a, b])[1], Some(Module::Tournament));
        // A follower entering epoch 2 starts at 2^ceil(lg m) (pll's erratum 3), keeping its coin.
        let old = st(false, Coin::F1, 0, 1, Group::A1 { level_q: 2, done: true });
        let (_, b) = t(&p, a2(false, Coin::F0, s), old);
        assert_eq!(b, State { tick: true, ..a2(false, Coin::F1, s) });
    }

    #[test]
    fn back_up_follows_algorithm_6() {
        let p = sym(10);
        let c = p.c_max();
        // Line 1 flips status_L of both; line 4: a tick makes the leader ready (no flip yet).
        let leader = a3(true, Coin::J, 2, false, 0);
        let ahead = State { color: 0, ..a3(false, Coin::F0, 2, false, 1) };
        let (a, b) = t(&p, leader, ahead);
        assert_eq!(a, State { tick: true, color: 0, ..a3(true, Coin::J, 2, true, 1) });
        assert_eq!(b, State { color: 0, ..a3(false, Coin::F0, 2, false, 0) });
        // Lines 5-7: ready meets F0: head, level_B + 1; lines 8-9: F1: tail, ready cleared.
        let ready = a3(true, Coin::J, 2, true, 0);
        let (a, b) = t(&p, ready, a3(false, Coin::F0, 2, false, 0));
        assert_eq!(a, a3(true, Coin::J, 3, false, 1));
        assert_eq!(b, a3(false, Coin::F0, 3, false, 1)); // line 13: the follower learns the level
        assert_eq!(t(&p, ready, a3(false, Coin::F1, 2, false, 0)).0, a3(true, Coin::J, 2, false, 1));
        // A J or K follower, or a leader, leaves ready alone.
        assert_eq!(t(&p, ready, a3(false, Coin::K, 2, false, 0)).0, a3(true, Coin::J, 2, true, 1));
        // Capped at c_max.
        assert_eq!(
            t(&p, a3(true, Coin::J, c, true, 0), a3(false, Coin::F0, c, false, 0)).0,
            a3(true, Coin::J, c, false, 1)
        );
        // Lines 12-15: a smaller level loses, a new follower starts at J.
        let (a, b) = t(&p, a3(true, Coin::J, 1, false, 0), a3(false, Coin::F1, 4, false, 0));
        assert_eq!((a, b), (a3(false, Coin::J, 4, false, 1), a3(false, Coin::F1, 4, false, 1)));
        // Lines 16-18: after line 1 the leader with status_L = 1 yields; equal status_L: nobody.
        let (a, b) = t(&p, a3(true, Coin::J, 4, false, 1), a3(true, Coin::J, 4, true, 0));
        assert_eq!((a, b), (a3(true, Coin::J, 4, false, 0), a3(false, Coin::J, 4, false, 1)));
        assert_eq!(
            eliminations([a3(true, Coin::J, 4, false, 1), a3(true, Coin::J, 4, true, 0)], [a, b])[1],
            Some(Module::BackUp)
        );
        let same = a3(true, Coin::J, 4, false, 1);
        assert_eq!(t(&p, same, same), (a3(true, Coin::J, 4, false, 0), a3(true, Coin::J, 4, false, 0)));
        // Timer agents in epoch 3 flip status_L too.
        let timer = State { status_l: 1, ..st(false, Coin::F0, 2, 3, Group::B { epoch: 3, count: 7 }) };
        assert_eq!(t(&p, timer, same).0.status_l, 0);
        // Entering epoch 3: level_B = 0, ready = false (then the tick sets it), status_L = 0 (then line 1).
        let old = State { color: 1, ..a2(true, Coin::J, 20) };
        let (a, _) = t(&p, old, State { color: 2, ..a3(false, Coin::F0, 5, false, 0) });
        assert_eq!(a, State { tick: true, color: 2, ..a3(false, Coin::J, 5, false, 1) });
    }
}
