//! The network engines against the law of Gillespie's method: each engine's counts at a time,
//! over many seeds, against an independent simulator written here (the first-reaction method,
//! its own propensities and its own generator), by two-sample Kolmogorov-Smirnov tests at
//! alpha = 0.001; and against exact laws where they are known (a decay is binomial, a
//! birth-death process from 0 is Poisson).

use poplab::crn::{CrnEngine, CrnRun, Network};
use poplab::stats::{ks_critical, ks_integer_sample, ks_two_sample};
use statrs::distribution::{Binomial, DiscreteCDF, Poisson};

const ALPHA: f64 = 0.001;

/// SplitMix64: the reference's own generator.
struct Reference(u64);

impl Reference {
    fn uniform(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A reaction for the reference: reactants and products as (species, count), rate constant.
type Written = (&'static [(usize, u64)], &'static [(usize, u64)], f64);

/// Mass action in ppsim's units: `k v`, `k x`, `k x y / v`, `k x (x - 1) / (2 v)`.
fn reference_propensity(reaction: &Written, x: &[u64], v: f64) -> f64 {
    let (reactants, _, k) = reaction;
    match reactants {
        [] => k * v,
        [(a, 1)] => k * x[*a] as f64,
        [(a, 2)] => k * x[*a] as f64 * (x[*a] as f64 - 1.0) / (2.0 * v),
        [(a, 1), (b, 1)] => k * x[*a] as f64 * x[*b] as f64 / v,
        _ => panic!("not a reaction of this test"),
    }
}

/// The first-reaction method's step: every reaction draws its own exponential time; the first
/// is returned with its wait (`None`: no reaction can happen).
fn first_of(reactions: &[Written], x: &[u64], v: f64, rng: &mut Reference) -> Option<(usize, f64)> {
    let mut first = None;
    for (r, reaction) in reactions.iter().enumerate() {
        let a = reference_propensity(reaction, x, v);
        if a > 0.0 {
            let wait = -(1.0 - rng.uniform()).ln() / a;
            if first.is_none_or(|(_, w)| wait < w) {
                first = Some((r, wait));
            }
        }
    }
    first
}

/// Fires `reaction` on `x`.
fn fire(reaction: &Written, x: &mut [u64]) {
    for &(s, c) in reaction.0 {
        x[s] -= c;
    }
    for &(s, c) in reaction.1 {
        x[s] += c;
    }
}

/// The first-reaction method to time `until`: the counts then.
fn first_reaction(reactions: &[Written], start: &[u64], v: f64, until: f64, seed: u64) -> Vec<u64> {
    let mut rng = Reference(seed ^ 0x05EE_D0FF_1257);
    let mut x = start.to_vec();
    let mut t = 0.0;
    while let Some((r, wait)) = first_of(reactions, &x, v, &mut rng) {
        if t + wait > until {
            break;
        }
        t += wait;
        fire(&reactions[r], &mut x);
    }
    x
}

/// `runs` final counts per species from one engine.
fn engine_samples(network: &Network, start: &[u64], until: f64, engine: CrnEngine, runs: u64) -> Vec<Vec<u64>> {
    (0..runs)
        .map(|seed| {
            let mut run = CrnRun::new(network.clone(), start.to_vec(), engine, 1000 + seed).unwrap();
            run.advance_to(until).unwrap();
            run.counts().to_vec()
        })
        .collect()
}

/// Each species' count at `until`: both engines against the first-reaction method.
fn agree_with_reference(texts: &[(&str, f64)], reactions: &[Written], start: &[u64], v: f64, until: f64, runs: u64) {
    let network = Network::parse(texts, v).unwrap();
    let reference: Vec<Vec<u64>> = (0..runs).map(|seed| first_reaction(reactions, start, v, until, seed)).collect();
    let critical = ks_critical(ALPHA, runs as usize, Some(runs as usize));
    for engine in [CrnEngine::Direct, CrnEngine::Batched] {
        let samples = engine_samples(&network, start, until, engine, runs);
        for (s, name) in network.species.iter().enumerate() {
            let ours: Vec<f64> = samples.iter().map(|x| x[s] as f64).collect();
            let theirs: Vec<f64> = reference.iter().map(|x| x[s] as f64).collect();
            let d = ks_two_sample(&ours, &theirs);
            let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
            assert!(
                d < critical,
                "{engine:?}, {name}: KS {d:.4} >= {critical:.4} (means {:.2} and {:.2})",
                mean(&ours),
                mean(&theirs)
            );
        }
    }
}

/// Lotka-Volterra, for the engines and for the reference.
const LV: &[(&str, f64)] = &[("R -> 2R", 1.0), ("R + F -> 2F", 1.0), ("F ->", 1.0)];
const LV_REFERENCE: &[Written] =
    &[(&[(0, 1)], &[(0, 2)], 1.0), (&[(0, 1), (1, 1)], &[(1, 2)], 1.0), (&[(1, 1)], &[], 1.0)];

#[test]
fn lotka_volterra_small() {
    agree_with_reference(LV, LV_REFERENCE, &[20, 20], 40.0, 1.0, 1500);
}

#[test]
fn lotka_volterra_medium() {
    agree_with_reference(LV, LV_REFERENCE, &[600, 400], 1000.0, 0.5, 600);
}

#[test]
fn dimerization() {
    agree_with_reference(
        &[("2A -> D", 1.0), ("D -> 2A", 0.5)],
        &[(&[(0, 2)], &[(1, 1)], 1.0), (&[(1, 1)], &[(0, 2)], 0.5)],
        &[60, 0],
        60.0,
        1.0,
        1500,
    );
}

#[test]
fn reversible_binding() {
    agree_with_reference(
        &[("A + B -> C", 2.0), ("C -> A + B", 1.0)],
        &[(&[(0, 1), (1, 1)], &[(2, 1)], 2.0), (&[(2, 1)], &[(0, 1), (1, 1)], 1.0)],
        &[30, 40, 5],
        50.0,
        0.7,
        1500,
    );
}

#[test]
fn rock_paper_scissors() {
    agree_with_reference(
        &[("A + B -> 2A", 1.0), ("B + C -> 2B", 1.0), ("C + A -> 2C", 1.0)],
        &[
            (&[(0, 1), (1, 1)], &[(0, 2)], 1.0),
            (&[(1, 1), (2, 1)], &[(1, 2)], 1.0),
            (&[(0, 1), (2, 1)], &[(2, 2)], 1.0),
        ],
        &[30, 30, 30],
        90.0,
        2.0,
        1500,
    );
}

#[test]
fn decay_is_binomial_and_birth_death_is_poisson() {
    let runs = 2000;
    // A -> 0 at rate 1 from 200: Binomial(200, e^-1) at time 1.
    let decay = Network::parse(&[("A ->", 1.0)], 1.0).unwrap();
    let law = Binomial::new((-1.0f64).exp(), 200).unwrap();
    // -> A at k v = 5 * 10, A -> at 1, from 0: Poisson(50 (1 - e^-t)) at t = 0.8.
    let birth_death = Network::parse(&[("-> A", 5.0), ("A ->", 1.0)], 10.0).unwrap();
    let poisson = Poisson::new(50.0 * (1.0 - (-0.8f64).exp())).unwrap();
    let critical = ks_critical(ALPHA, runs as usize, None);
    for engine in [CrnEngine::Direct, CrnEngine::Batched] {
        let left: Vec<u64> = engine_samples(&decay, &[200], 1.0, engine, runs).iter().map(|x| x[0]).collect();
        let d = ks_integer_sample(&left, |k| law.cdf(k as u64));
        assert!(d < critical, "{engine:?} decay: KS {d:.4} >= {critical:.4}");
        let born: Vec<u64> = engine_samples(&birth_death, &[0], 0.8, engine, runs).iter().map(|x| x[0]).collect();
        let d = ks_integer_sample(&born, |k| poisson.cdf(k as u64));
        assert!(d < critical, "{engine:?} birth-death: KS {d:.4} >= {critical:.4}");
    }
}

#[test]
fn a_run_is_fixed_by_its_seed_and_stops_where_told() {
    let lv = Network::parse(LV, 1000.0).unwrap();
    for engine in [CrnEngine::Direct, CrnEngine::Batched] {
        let counts = |seed| {
            let mut run = CrnRun::new(lv.clone(), vec![500, 500], engine, seed).unwrap();
            run.advance_to(0.3).unwrap();
            assert_eq!(run.time(), 0.3);
            run.counts().to_vec()
        };
        assert_eq!(counts(5), counts(5));
        assert_ne!(counts(5), counts(6));
    }
}

#[test]
fn extinction_times_have_the_law_of_the_last_of_exponentials() {
    // A -> 0 at rate 1 from N = 3000: the time until none is left is the largest of N independent
    // Exp(1) times, P(T <= t) = (1 - e^-t)^N; one-sample KS of 1000 runs per engine (the batched
    // engine finds the last reaction inside its last batch).
    use poplab::crn::CrnStop;
    let (n, runs) = (3000u64, 1000u64);
    let decay = Network::parse(&[("A ->", 1.0)], 1.0).unwrap();
    let cdf = |t: f64| (1.0 - (-t).exp()).powf(n as f64);
    let critical = ks_critical(ALPHA, runs as usize, None);
    for engine in [CrnEngine::Direct, CrnEngine::Batched] {
        let mut times: Vec<f64> = (0..runs)
            .map(|seed| {
                let mut run = CrnRun::new(decay.clone(), vec![n], engine, 500 + seed).unwrap();
                let t = run.advance_until(1000.0, &CrnStop::AtMost(0, 0)).unwrap().unwrap();
                assert_eq!((run.counts()[0], run.time()), (0, t));
                t
            })
            .collect();
        times.sort_by(f64::total_cmp);
        let d = times
            .iter()
            .enumerate()
            .map(|(i, &t)| (cdf(t) - i as f64 / runs as f64).abs().max(((i + 1) as f64 / runs as f64 - cdf(t)).abs()))
            .fold(0.0, f64::max);
        assert!(d < critical, "{engine:?}: KS {d:.4} >= {critical:.4}");
    }
}

#[test]
fn a_threshold_stop_is_caught_at_its_reaction() {
    // Lotka-Volterra until R >= 1500 from 1000 each: the batched run's stop time against the
    // first-reaction method's, two-sample KS; the count at the stop is exactly the threshold.
    use poplab::crn::CrnStop;
    let lv = Network::parse(LV, 2000.0).unwrap();
    let stop = CrnStop::AtLeast(0, 1500);
    let runs = 600u64;
    let ours: Vec<f64> = (0..runs)
        .map(|seed| {
            let mut run = CrnRun::new(lv.clone(), vec![1000, 1000], CrnEngine::Batched, 900 + seed).unwrap();
            let t = run.advance_until(50.0, &stop).unwrap().expect("prey reach 1500 well before 50");
            assert_eq!(run.counts()[0], 1500);
            t
        })
        .collect();
    let theirs: Vec<f64> =
        (0..runs).map(|seed| first_reaction_until(LV_REFERENCE, &[1000, 1000], 2000.0, 0, 1500, seed)).collect();
    let d = ks_two_sample(&ours, &theirs);
    let critical = ks_critical(ALPHA, runs as usize, Some(runs as usize));
    assert!(d < critical, "KS {d:.4} >= {critical:.4}");
}

/// The first-reaction method until species `s` reaches `at_least`: its time.
fn first_reaction_until(reactions: &[Written], start: &[u64], v: f64, s: usize, at_least: u64, seed: u64) -> f64 {
    let mut rng = Reference(seed ^ 0x7777_0000_1234);
    let mut x = start.to_vec();
    let mut t = 0.0;
    while x[s] < at_least {
        let (r, wait) = first_of(reactions, &x, v, &mut rng).expect("never silent before the threshold");
        t += wait;
        fire(&reactions[r], &mut x);
    }
    t
}

#[test]
fn looking_at_a_run_changes_nothing() {
    // On either engine, what a seed gives at a time is the same whatever else is asked: a run
    // advanced in 30 pieces is the run advanced at once, each piece is what a run advanced
    // straight to its time shows, and a stop found after looking is the stop found without.
    use poplab::crn::CrnStop;
    let lv = Network::parse(LV, 20_000.0).unwrap();
    let start = vec![10_000, 10_000];
    let run = |engine| CrnRun::new(lv.clone(), start.clone(), engine, 8).unwrap();
    for engine in [CrnEngine::Direct, CrnEngine::Batched] {
        let mut whole = run(engine);
        whole.advance_to(1.5).unwrap();
        let mut pieces = run(engine);
        for k in 1..=30 {
            let t = k as f64 * 0.05;
            pieces.advance_to(t).unwrap();
            if k % 7 == 0 {
                let mut straight = run(engine);
                straight.advance_to(t).unwrap();
                assert_eq!(pieces.counts(), straight.counts(), "{engine:?} at {t}");
            }
        }
        assert_eq!((pieces.counts(), pieces.reactions()), (whole.counts(), whole.reactions()), "{engine:?}");
        let stop = CrnStop::AtLeast(0, 12_000);
        let mut unseen = run(engine);
        let at = unseen.advance_until(50.0, &stop).unwrap().expect("prey reach 12,000 before 50");
        let mut seen = run(engine);
        seen.advance_to(at * 0.9999).unwrap();
        assert_eq!(seen.advance_until(50.0, &stop).unwrap(), Some(at), "{engine:?}");
        assert_eq!((seen.counts(), seen.reactions()), (unseen.counts(), unseen.reactions()), "{engine:?}");
        assert_eq!(seen.counts()[0], 12_000);
    }
}

#[test]
fn a_look_inside_a_batch_has_the_exact_law() {
    // A -> 0 at rate 1 from 10^5: X(t1) ~ Binomial(N, e^-t1) and X(t2) | X(t1) ~
    // Binomial(X(t1), e^-(t2 - t1)). t2 - t1 = 2e-4 is about 20 reactions, so both looks fall
    // inside one batch of the batched engine most of the time. One-sample KS of the randomized
    // probability integral transform of each, 1000 runs.
    let (n, t1, t2, runs) = (100_000u64, 0.1, 0.1002, 1000u64);
    let decay = Network::parse(&[("A ->", 1.0)], 1.0).unwrap();
    let mut tie = Reference(99);
    let mut pit = |x: u64, trials: u64, p: f64| {
        let law = Binomial::new(p, trials).unwrap();
        let below = if x == 0 { 0.0 } else { law.cdf(x - 1) };
        below + tie.uniform() * (law.cdf(x) - below)
    };
    let (mut first, mut second) = (Vec::new(), Vec::new());
    for seed in 0..runs {
        let mut run = CrnRun::new(decay.clone(), vec![n], CrnEngine::Batched, 7000 + seed).unwrap();
        run.advance_to(t1).unwrap();
        let x1 = run.counts()[0];
        run.advance_to(t2).unwrap();
        let x2 = run.counts()[0];
        first.push(pit(x1, n, (-t1).exp()));
        second.push(pit(x2, x1, (-(t2 - t1)).exp()));
    }
    let critical = ks_critical(ALPHA, runs as usize, None);
    for (name, mut u) in [("X(t1)", first), ("X(t2) | X(t1)", second)] {
        u.sort_by(f64::total_cmp);
        let d = u
            .iter()
            .enumerate()
            .map(|(i, &v)| (v - i as f64 / runs as f64).abs().max(((i + 1) as f64 / runs as f64 - v).abs()))
            .fold(0.0, f64::max);
        assert!(d < critical, "{name}: KS {d:.4} >= {critical:.4}");
    }
}
