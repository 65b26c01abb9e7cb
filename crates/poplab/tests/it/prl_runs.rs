//! P_RL (004, Algorithm 1) on every step of runs: Figure 3 replayed, the lemmas of section 4.1 on
//! random executions, the incremental monitor against the literal safe-set predicate, and the
//! O(nN) convergence claim measured.
//!
//! A survey of mean convergence steps at larger n is the example `prl_convergence_survey`:
//! `cargo run --release -p poplab --example prl_convergence_survey`.

use crate::common;

use common::{leader_positions, leaders, prl, prl_mean_steps};
use poplab::engine::{AgentRun, Measure, Outcome, RunPlan, Watch, drive};
use poplab::graph::{Graph, Replay};
use poplab::init::InitSpec;
use poplab::protocol::Configurations;
use poplab::protocol::{Monitor, Params, Protocol};
use poplab::protocols::prl::{Bullet, Prl, PrlState, in_c_ni, in_c_pb, in_s_rl, modest, peaceful, secure};
use poplab::rng::{PopRng, TrialStreams, below_u64};
use rand_core::SeedableRng;

/// The small rings the per-step tests sweep: (n, N) with N from n to n + 3.
fn small_rings() -> impl Iterator<Item = (usize, u32)> {
    (2..=9usize).flat_map(|n| [0u32, 1, 3].into_iter().map(move |extra| (n, n as u32 + extra)))
}

fn random_configuration(p: &Prl, rng: &mut PopRng) -> Vec<PrlState> {
    (0..p.n()).map(|_| p.random_state(rng)).collect()
}

/// Figure 3 (004 section 4.1): from C in C_PB where every agent is secure, the schedule
/// (u_49, u_50), (u_49, u_50) kills the unshielded leader u_50 and then makes it a leader again,
/// although u_0 stays a leader throughout; the bullet at u_49 was not modest.
#[test]
fn figure_3_a_leader_is_killed_and_recreated_while_another_exists() {
    let p = prl(100, 100);
    let graph = Graph::DirectedRing;
    let mut rng = PopRng::seed_from_u64(0);
    let c0 = p.family_configuration("fig3", &mut rng).unwrap();

    // The configuration is in C_PB, every agent is secure, and the live bullet at u_49 is peaceful
    // but not modest, so C is not in C_NI (and not in S_RL: two leaders anyway).
    assert_eq!(leader_positions(&c0), [0, 50]);
    assert!(in_c_pb(&c0));
    assert!((0..100).all(|i| secure(&c0, 100, i)), "every agent secure");
    assert_eq!(c0[49].bullet, Bullet::Live);
    assert!(peaceful(&c0, 49));
    assert!(!modest(&c0, 49), "u_49.distL = 99 > d_L(49) = 49");
    assert!(!in_c_ni(&c0, 100));

    let streams = TrialStreams::new(0);
    let replay = Replay::new(vec![(49, 50), (49, 50)], 100).unwrap();
    let mut run = AgentRun::new(&p, &graph, c0.clone(), replay, streams.schedule);
    assert!(!run.monitor().is_safe());

    // First interaction: the live bullet kills u_50 (line 11) and disappears (line 12).
    run.advance(1, Watch::Nothing);
    let c1 = run.agents().to_vec();
    assert_eq!(leader_positions(&c1), [0], "u_50 was killed, u_0 is still a leader");
    assert_eq!(c1[49].bullet, Bullet::None);
    assert_eq!((c1[49].dist_l, c1[50].dist_l), (99, 0));
    assert!(!secure(&c1, 100, 49), "the caption: this interaction makes u_49 insecure");
    assert!(!run.monitor().is_safe(), "one leader but u_49 insecure");
    assert_eq!(c1.iter().zip(&c0).filter(|(a, b)| a != b).count(), 2, "only the pair changed");

    // Second interaction: u_50.distL <- min(99 + 1, N) = 100 = N, so u_50 becomes a leader again
    // (lines 2-5) with a live bullet and a shield, and u_49 receives a signal (line 16).
    run.advance(2, Watch::Nothing);
    let c2 = run.agents().to_vec();
    assert_eq!(leader_positions(&c2), [0, 50], "a new leader appeared although u_0 is a leader");
    assert_eq!(
        c2[50],
        PrlState { leader: true, bullet: Bullet::Live, shield: true, signal: false, dist_l: 0 },
        "u_50 as created by lines 4-5"
    );
    assert!(c2[49].signal);
    assert!(c2[0].leader && c2[0].shield);
    assert!(!run.monitor().is_safe());
    assert_eq!(run.pairs_left(), 0);
}

/// The monitor is exact: on every step of many small random runs (from random configurations,
/// random ones with a single leader, and two families), its verdict equals the literal predicate
/// S_RL, including the first entry and the steps after it.
#[test]
fn the_incremental_monitor_equals_the_safe_set_on_every_step() {
    let graph = Graph::DirectedRing;
    let (mut safe_steps, mut unsafe_one_leader_steps, mut entries, mut runs) = (0u64, 0u64, 0u64, 0u64);
    for (index, (n, big_n)) in small_rings().chain([(12, 12), (16, 20), (24, 24), (31, 33)]).enumerate() {
        let p = prl(n, big_n);
        for trial in 0..150u64 {
            let mut streams = TrialStreams::new(1000 * index as u64 + trial);
            let start = match trial % 4 {
                0 => p.initial_configuration(),
                1 => p.family_configuration("all-leaders", &mut streams.init).unwrap(),
                2 => random_configuration(&p, &mut streams.init),
                // The hard case for the monitor: one leader, everything else arbitrary.
                _ => {
                    let mut c = random_configuration(&p, &mut streams.init);
                    let leader = below_u64(&mut streams.init, n as u64) as usize;
                    for (i, s) in c.iter_mut().enumerate() {
                        s.leader = i == leader;
                    }
                    c
                }
            };
            let mut run = AgentRun::new(&p, &graph, start, graph.scheduler(n).unwrap(), streams.schedule);
            runs += 1;
            let mut was_safe = in_s_rl(run.agents(), big_n);
            assert_eq!(run.monitor().is_safe(), was_safe, "at the start, n = {n}, N = {big_n}");
            // Up to 4000 steps, and 300 steps past the first entry (closure is tested below).
            let mut last = 4_000u64;
            let mut step = 0;
            while step < last {
                step += 1;
                run.advance(step.into(), Watch::Nothing);
                let safe = in_s_rl(run.agents(), big_n);
                if safe && !was_safe {
                    last = last.min(step + 300);
                }
                assert_eq!(
                    run.monitor().is_safe(),
                    safe,
                    "n = {n}, N = {big_n}, trial {trial}, step {step}: {:?}",
                    run.agents()
                );
                safe_steps += u64::from(safe);
                unsafe_one_leader_steps += u64::from(!safe && leaders(run.agents()) == 1);
                entries += u64::from(safe && !was_safe);
                was_safe = safe;
            }
        }
    }
    // The comparison covered both verdicts, the hard case (one leader, not safe) and entries.
    assert!(entries >= runs / 2, "{entries} entries in {runs} runs");
    eprintln!(
        "monitor check: {runs} runs, {entries} entries, {safe_steps} safe steps, {unsafe_one_leader_steps} unsafe steps with one leader"
    );
    assert!(safe_steps > 50_000 && unsafe_one_leader_steps > 20_000, "{safe_steps} {unsafe_one_leader_steps}");
}

/// Lemma 1 (every bullet disappears before it moves N times) and Lemma 4 (a newly fired live
/// bullet is modest), on every interaction of random runs from random configurations. Bullets are
/// followed through the branches Algorithm 1 reports ([`Prl::interact`]); the properties are
/// checked with the literal predicates of section 4.1.
#[test]
fn lemmas_1_and_4_bullets_are_short_lived_and_new_live_bullets_modest() {
    let (mut fired, mut longest, mut interactions) = (0u64, 0u32, 0u64);
    for (index, (n, big_n)) in small_rings().chain([(16, 16), (12, 30)]).enumerate() {
        let p = prl(n, big_n);
        for trial in 0..20u64 {
            let mut rng = PopRng::seed_from_u64(7_000 + 100 * index as u64 + trial);
            let mut c = random_configuration(&p, &mut rng);
            // moves[i]: how often the bullet now at u_i has moved (bullets of the initial
            // configuration start at 0, which only underestimates).
            let mut moves = vec![0u32; n];
            for _ in 0..5_000 {
                let i = below_u64(&mut rng, n as u64) as usize;
                let j = (i + 1) % n;
                let (l, r, lines) = p.interact(c[i], c[j]);
                interactions += 1;
                let (moves_l, moves_r) = (moves[i], moves[j]);
                c[i] = l;
                c[j] = r;
                // Where each bullet is now and how often it moved.
                moves[i] = if lines.fired_live { 0 } else { moves_l };
                moves[j] = if lines.created || lines.fired_dummy { 0 } else { moves_r };
                if lines.moved {
                    moves[j] = moves[i] + 1;
                }
                if c[i].bullet == Bullet::None {
                    moves[i] = 0;
                }
                if c[j].bullet == Bullet::None {
                    moves[j] = 0;
                }
                for k in [i, j] {
                    assert!(moves[k] < big_n, "Lemma 1: a bullet moved {} >= N = {big_n} times", moves[k]);
                    longest = longest.max(moves[k]);
                }
                // Lemma 4: the live bullet fired by l (line 7) or created with r (line 5).
                if lines.fired_live && lines.moved {
                    assert_eq!(c[j].bullet, Bullet::Live);
                    assert!(modest(&c, j), "Lemma 4 (line 7): n = {n}, N = {big_n}: {c:?}");
                    fired += 1;
                }
                if lines.created {
                    assert_eq!(c[j].bullet, Bullet::Live);
                    assert!(modest(&c, j), "Lemma 4 (line 5): n = {n}, N = {big_n}: {c:?}");
                    fired += 1;
                }
            }
        }
    }
    assert!(fired > 10_000, "only {fired} live bullets fired in {interactions} interactions");
    // Non-vacuous: some bullet came close to the bound (N - 1 moves is possible).
    assert!(longest >= 10, "the longest bullet path was {longest}");
}

/// Lemmas 2 and 6 (C_PB and C_NI are closed), Lemma 7 (no leader is created from C_NI) and
/// Lemma 8 (in S_RL no agent changes its output), on every step of runs from random starts.
#[test]
fn lemmas_2_6_7_8_closure_on_every_step() {
    let graph = Graph::DirectedRing;
    let (mut in_pb, mut in_ni, mut in_rl, mut runs_entering_rl) = (0u64, 0u64, 0u64, 0u64);
    for (index, (n, big_n)) in small_rings().chain([(14, 14), (10, 20)]).enumerate() {
        let p = prl(n, big_n);
        for trial in 0..10u64 {
            let mut streams = TrialStreams::new(50_000 + 100 * index as u64 + trial);
            let start = random_configuration(&p, &mut streams.init);
            let mut run = AgentRun::new(&p, &graph, start, graph.scheduler(n).unwrap(), streams.schedule);
            let mut before = run.agents().to_vec();
            let mut entered_rl = false;
            for step in 1..=6_000u128 {
                run.advance(step, Watch::Nothing);
                let after = run.agents();
                let (pb, ni, rl) = (in_c_pb(&before), in_c_ni(&before, big_n), in_s_rl(&before, big_n));
                if pb {
                    in_pb += 1;
                    assert!(in_c_pb(after), "Lemma 2: left C_PB at step {step}, n = {n}: {before:?} -> {after:?}");
                }
                if ni {
                    in_ni += 1;
                    assert!(in_c_ni(after, big_n), "Lemma 6: left C_NI at step {step}, n = {n}");
                    assert!(leaders(after) <= leaders(&before), "Lemma 7: a leader was created");
                }
                if rl {
                    in_rl += 1;
                    entered_rl = true;
                    assert!(in_s_rl(after, big_n), "Lemma 8: left S_RL at step {step}");
                    assert!(
                        before.iter().zip(after).all(|(a, b)| a.leader == b.leader),
                        "Lemma 8: an output changed in S_RL at step {step}"
                    );
                }
                before = after.to_vec();
            }
            runs_entering_rl += u64::from(entered_rl);
        }
    }
    assert!(in_pb > in_ni && in_ni > in_rl && in_rl > 100_000, "{in_pb} {in_ni} {in_rl}");
    assert!(runs_entering_rl > 200, "{runs_entering_rl} runs reached S_RL");
}

/// A run driven to convergence stops at its first configuration in S_RL, and the engine's step
/// count matches a step-by-step replay of the same seed.
#[test]
fn drive_stops_at_the_first_step_inside_s_rl() {
    let graph = Graph::DirectedRing;
    for (seed, n, big_n, family) in
        [(1u64, 20, 20, "no-leader"), (2, 15, 40, "all-leaders"), (3, 11, 11, "alternating")]
    {
        let p = prl(n, big_n);
        let mut streams = TrialStreams::new(seed);
        let start = p.family_configuration(family, &mut streams.init).unwrap();
        let mut run = AgentRun::new(&p, &graph, start.clone(), graph.scheduler(n).unwrap(), streams.schedule.clone());
        let ending = drive(
            &mut run,
            RunPlan { measure: Measure::Convergence, max_steps: 10_000_000, watch_from: 0 },
            &mut [],
            &mut streams.faults,
        )
        .unwrap();
        assert_eq!(ending.outcome, Outcome::Converged, "{family}");
        assert!(in_s_rl(run.agents(), big_n));
        let mut replay = AgentRun::new(&p, &graph, start, graph.scheduler(n).unwrap(), streams.schedule);
        replay.advance(ending.steps.0 - 1, Watch::Nothing);
        assert!(!in_s_rl(replay.agents(), big_n), "{family}: already safe one step earlier");
        replay.advance(ending.steps.0, Watch::Nothing);
        assert_eq!(replay.agents(), run.agents());
    }
}

/// Least-squares slope of `ys` against `xs`, with its standard error from given standard errors
/// of the `ys` (weighted by nothing: the points are few and of similar precision).
fn slope(xs: &[f64], ys: &[f64], y_se: &[f64]) -> (f64, f64) {
    let mx = xs.iter().sum::<f64>() / xs.len() as f64;
    let sxx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    let my = ys.iter().sum::<f64>() / ys.len() as f64;
    let b = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum::<f64>() / sxx;
    let se = (xs.iter().zip(y_se).map(|(x, s)| ((x - mx) / sxx).powi(2) * s * s).sum::<f64>()).sqrt();
    (b, se)
}

/// The main theorem from random configurations: mean convergence steps grow no faster than nN.
///
/// With n = N the least-squares exponent of n on log-log axes over n = 8..64 must be below
/// 2 + 0.4. The tolerance: (a) statistics: the slope's standard error, from the trials, is about
/// 0.012 (asserted below 0.05), so 5 standard errors are at most 0.06 (in practice 0.06 is far
/// more than needed); (b) pre-asymptotic bias: the measured means follow a nN - b n with a of about
/// 4.9 and b of about 20 (mean/(nN) = 2.5 at n = 8, 4.6 at 64, then flat: 4.9, 5.0, 4.8 at
/// n = 128, 256, 512, see the example `prl_convergence_survey`); a curve n^2 - 4n
/// (linear term half the quadratic one at n = 8) has a log-log slope of 2.30 over these sizes.
/// 2.30 + 0.06 rounds to 2.4. An Ω(n^3) protocol (the earlier ring protocols, section 1.1) gives
/// about 3 and fails. Over 8..64 a log factor cannot be told apart, so a second, sharper check
/// fits only n = 32, 48, 64, where the same lower-order term biases the slope by about 0.1: it must
/// stay below 2.25 (n^2 log n would give 2 + 1/ln 45 = 2.26 there).
#[test]
fn convergence_from_random_configurations_scales_like_n_times_big_n() {
    let sizes = [8usize, 12, 16, 24, 32, 48, 64];
    let points: Vec<(usize, u32)> = sizes.iter().map(|&n| (n, n as u32)).collect();
    let results = prl_mean_steps(&points, InitSpec::Random, 800, 2024);
    let xs: Vec<f64> = sizes.iter().map(|&n| (n as f64).ln()).collect();
    let ys: Vec<f64> = results.iter().map(|r| r.0.ln()).collect();
    let ses: Vec<f64> = results.iter().map(|r| r.1).collect();
    let (b, se) = slope(&xs, &ys, &ses);
    let (top, top_se) = slope(&xs[4..], &ys[4..], &ses[4..]);
    eprintln!("prl random, n = N = 8..64: fitted exponent {b:.3} (standard error {se:.3})");
    eprintln!("prl random, n = N = 32..64: fitted exponent {top:.3} (standard error {top_se:.3})");
    assert!(se < 0.05 && top_se < 0.05, "too noisy to judge: standard errors {se}, {top_se}");
    assert!(b < 2.4, "mean steps grow like n^{b:.3} over 8..64, faster than nN = n^2 allows");
    assert!(top < 2.25, "mean steps grow like n^{top:.3} over 32..64, faster than nN = n^2 allows");
    // Ω(n^2) is a lower bound for every SS-LE protocol on rings (section 1.1).
    assert!(b > 1.7 && top > 1.7, "mean steps grow like n^{b:.3}: implausibly slow");
}

/// From the no-leader configuration (Lemma 10's case) at fixed n, convergence is linear in N once
/// N dominates: a leader appears after distL climbs to N (Θ(nN) steps), and the rest takes
/// O(n^2) (Lemmas 11 and 13). At n = 16 the means are about 0.95 nN for N >= 64 (1.4 nN at
/// N = 32, where the n^2 part still counts), so the exponent of N fitted over 64..256 must be
/// 1 within 0.15 (its standard error is about 0.01).
#[test]
fn convergence_from_no_leader_is_linear_in_big_n() {
    let n = 16;
    let bounds = [16u32, 32, 64, 128, 256];
    let points: Vec<(usize, u32)> = bounds.iter().map(|&big_n| (n, big_n)).collect();
    let results = prl_mean_steps(&points, InitSpec::Default, 300, 77);
    let xs: Vec<f64> = bounds.iter().map(|&b| f64::from(b).ln()).collect();
    let ys: Vec<f64> = results.iter().map(|r| r.0.ln()).collect();
    let ses: Vec<f64> = results.iter().map(|r| r.1).collect();
    let (b, se) = slope(&xs[2..], &ys[2..], &ses[2..]);
    eprintln!("prl no-leader, n = 16, N = 64..256: fitted exponent of N {b:.3} (standard error {se:.3})");
    assert!(se < 0.05, "too noisy: {se}");
    assert!((b - 1.0).abs() < 0.15, "mean steps grow like N^{b:.3}; linear in N expected");
    // And never faster than linear over the whole range.
    let (all, _) = slope(&xs, &ys, &ses);
    assert!(all < 1.15, "N^{all:.3} over 16..256");
}

/// The monitor is not fooled by its own bookkeeping across many leader changes: a long run from
/// all leaders on a larger ring ends in S_RL as the literal predicate says, after few rebuilds.
#[test]
fn long_runs_agree_with_the_predicate_at_the_end() {
    let graph = Graph::DirectedRing;
    for (seed, n, big_n) in [(5u64, 200usize, 200u32), (6, 150, 400)] {
        let p = prl(n, big_n);
        let mut streams = TrialStreams::new(seed);
        let start = random_configuration(&p, &mut streams.init);
        let mut run = AgentRun::new(&p, &graph, start, graph.scheduler(n).unwrap(), streams.schedule);
        let ending = drive(
            &mut run,
            RunPlan { measure: Measure::Convergence, max_steps: 1_000_000_000, watch_from: 0 },
            &mut [],
            &mut streams.faults,
        )
        .unwrap();
        assert_eq!(ending.outcome, Outcome::Converged);
        assert!(in_s_rl(run.agents(), big_n));
        let rebuilds = run.monitor().rebuilds();
        eprintln!("prl n = {n} N = {big_n} seed {seed}: {} steps, {rebuilds} monitor rebuilds", ending.steps.0);
        // Each rebuild costs O(n); they must be rare compared with the steps.
        assert!(u128::from(rebuilds) * (n as u128) < ending.steps.0, "{rebuilds} rebuilds in {} steps", ending.steps.0);
        // Record one more interaction by hand: the monitor API used directly stays consistent.
        let mut monitor = run.monitor().clone();
        let mut agents = run.agents().to_vec();
        let before = [agents[0], agents[1]];
        let (a, b) = p.transition(before[0], before[1]);
        agents[0] = a;
        agents[1] = b;
        monitor.record_at(&agents, (0, 1), before);
        assert_eq!(monitor.is_safe(), in_s_rl(&agents, big_n));
    }
}

/// One convergence run at n = N = 3000 from a random configuration and one from no leader: each
/// ends in S_RL, and the same schedule replayed by a bare loop of transitions (no engine, no
/// monitor) gives the same configuration. Also prints the speed of both and how often the monitor
/// rebuilt. Ignored because it is slow: run with `--ignored --nocapture`.
#[test]
#[ignore]
fn survey_large_ring_speed() {
    let graph = Graph::DirectedRing;
    for (seed, family) in [(1u64, "random"), (2, "no-leader")] {
        let (n, big_n) = (3000usize, 3000u32);
        let p = prl(n, big_n);
        let mut streams = TrialStreams::new(seed);
        let start = if family == "random" {
            random_configuration(&p, &mut streams.init)
        } else {
            p.family_configuration(family, &mut streams.init).unwrap()
        };
        let mut run = AgentRun::new(&p, &graph, start, graph.scheduler(n).unwrap(), streams.schedule);
        let clock = std::time::Instant::now();
        let plan = RunPlan { measure: Measure::Convergence, max_steps: u128::MAX, watch_from: 0 };
        let ending = drive(&mut run, plan, &mut [], &mut streams.faults).unwrap();
        let seconds = clock.elapsed().as_secs_f64();
        assert!(in_s_rl(run.agents(), big_n));
        eprintln!(
            "prl n = N = {n} from {family}, seed {seed}: {} steps ({:.2} nN), {seconds:.2} s, {:.1} ns/step, {} rebuilds",
            ending.steps.0,
            ending.steps.0 as f64 / (n as f64 * f64::from(big_n)),
            seconds * 1e9 / ending.steps.0 as f64,
            run.monitor().rebuilds()
        );
        // The same schedule without any monitor: the transition and scheduler cost alone.
        let mut streams = TrialStreams::new(seed);
        let mut agents = if family == "random" {
            random_configuration(&p, &mut streams.init)
        } else {
            p.family_configuration(family, &mut streams.init).unwrap()
        };
        let mut scheduler = graph.scheduler(n).unwrap();
        let clock = std::time::Instant::now();
        for _ in 0..ending.steps.0 {
            let (u, v) = poplab::graph::Scheduler::next_pair(&mut scheduler, &mut streams.schedule);
            let (a, b) = p.transition(agents[u as usize], agents[v as usize]);
            agents[u as usize] = a;
            agents[v as usize] = b;
        }
        let bare = clock.elapsed().as_secs_f64();
        assert_eq!(agents, run.agents(), "same schedule, same configuration");
        eprintln!("  without a monitor: {:.1} ns/step", bare * 1e9 / ending.steps.0 as f64);
    }
}

#[test]
fn fig3_is_refused_outside_n_equals_100_with_a_reason() {
    let p = Prl::new(10, &Params::default()).unwrap();
    let err = InitSpec::from_name("fig3").validate(&p).unwrap_err().to_string();
    assert!(err.contains("--n 100"), "{err}");
    assert!(InitSpec::from_name("fig3").validate(&Prl::new(100, &Params::default()).unwrap()).is_ok());
}
