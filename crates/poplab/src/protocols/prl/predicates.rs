//! Section 4.1 of 004: the predicates `Peaceful`, `Secure`, `Modest` and the sets `C_PB`, `C_NI`,
//! `S_RL`, literally (reference versions; [`super::PrlMonitor`] decides `S_RL` incrementally).

use super::{Bullet, PrlState};

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

#[cfg(test)]
mod tests {
    use super::super::fixtures::F;
    use super::*;

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
}
