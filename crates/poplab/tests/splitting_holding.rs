//! The splitting estimator of holding times (`poplab::splitting`): against the exact values of
//! `ls-timer` (`exact::expected_holding_steps`), against direct simulation where both are
//! feasible (`ls-timer`, `ppl`), across numbers of replicas, and the coverage of its interval.
//! Fixed seeds; each check fails by chance with probability about 5% per interval and seed, so
//! the seeds are fixed (a failing seed is a finding, not noise to reroll).

use poplab::engine::{Measure, Outcome};
use poplab::exact::{ExploreSettings, expected_holding_steps};
use poplab::experiment::{RunSettings, run_trials};
use poplab::graph::Graph;
use poplab::init::InitSpec;
use poplab::protocol::{Params, Protocol};
use poplab::protocols::ls_timer::LsTimer;
use poplab::protocols::ppl::Ppl;
use poplab::rng::TrialStreams;
use poplab::splitting::{HoldingEstimate, SplittingSettings, estimate_holding};
use std::time::Instant;

fn ls_timer(n: usize, s: u32) -> LsTimer {
    LsTimer::new(n, &Params::parse(&[&format!("s={s}")]).unwrap()).unwrap()
}

fn safe<P: Protocol>(p: &P) -> Vec<P::State> {
    p.family_configuration("safe", &mut TrialStreams::new(0).init).unwrap()
}

fn exact<P: Protocol>(p: &P) -> f64 {
    let explore = ExploreSettings { graph: Graph::Complete, max_configs: 1 << 22 };
    expected_holding_steps(p, &safe(p), &explore).unwrap().expected_steps
}

fn estimate<P: Protocol>(p: &P, replicas: usize, repetitions: u64, cycles: u64, seed: u64) -> HoldingEstimate {
    let settings = SplittingSettings { replicas, repetitions, cycles, seed, ..SplittingSettings::default() };
    let started = Instant::now();
    let e = estimate_holding(p, &Graph::Complete, &safe(p), &settings).unwrap();
    eprintln!(
        "{} n={} seed={seed} R={replicas} M={repetitions} C={cycles}: {:.6e} [{:.6e}, {:.6e}], {} interactions, \
         {:.2}s",
        p.info().name,
        p.n(),
        e.mean_steps,
        e.ci95[0],
        e.ci95[1],
        e.interactions_simulated,
        started.elapsed().as_secs_f64()
    );
    e
}

fn covers(e: &HoldingEstimate, value: f64) -> bool {
    e.ci95[0] <= value && value <= e.ci95[1]
}

#[test]
fn ls_timer_interval_covers_the_exact_holding_time() {
    for (n, s, seed) in [(4, 8, 1), (4, 12, 2)] {
        let p = ls_timer(n, s);
        let truth = exact(&p);
        let e = estimate(&p, 100, 20, 1000, seed);
        assert!(covers(&e, truth), "n={n} s={s}: exact {truth}, estimate {:?} {:?}", e.mean_steps, e.ci95);
        let width = e.ci95[1] / e.ci95[0];
        assert!(width < 2.0, "the interval is too wide to mean anything: {:?}", e.ci95);
    }
}

/// Direct simulation of the holding time: the mean over `trials` runs and its Student-t interval.
fn direct<P: Protocol>(p: &P, trials: u64, seed: u64) -> (f64, [f64; 2]) {
    let settings = RunSettings {
        measure: Measure::Holding,
        init: InitSpec::Family("safe".into()),
        trials,
        seed,
        max_steps: 1 << 40,
        ..RunSettings::default()
    };
    let records = run_trials(p, &settings, &|| {}).unwrap();
    assert!(records.iter().all(|r| r.outcome == Outcome::Broken));
    let steps: Vec<f64> = records.iter().map(|r| r.steps.0 as f64).collect();
    let (mean, ci) = (poplab::stats::mean(&steps), poplab::stats::mean_ci95(&steps).unwrap());
    eprintln!("{} n={} direct: {mean:.6e} [{:.6e}, {:.6e}] over {trials} runs", p.info().name, p.n(), ci[0], ci[1]);
    (mean, ci)
}

fn ppl(n: usize, settings: &[&str]) -> Ppl {
    Ppl::new(n, &Params::parse(settings).unwrap()).unwrap()
}

fn overlap(a: [f64; 2], b: [f64; 2]) -> bool {
    a[0] <= b[1] && b[0] <= a[1]
}

#[test]
fn agrees_with_direct_simulation_where_both_are_feasible() {
    // ls-timer n = 4, s = 8 (about 6.4e4 steps) and ppl n = 6 with short timers (about 1.1e4
    // steps): the direct mean's interval and the estimate's overlap.
    let p = ls_timer(4, 8);
    let (_, ci) = direct(&p, 300, 11);
    let e = estimate(&p, 100, 20, 1000, 12);
    assert!(overlap(ci, e.ci95), "ls-timer: direct {ci:?}, splitting {:?}", e.ci95);

    let p = ppl(6, &["t_virus=2", "t_max=8", "t_emit=8"]);
    let (_, ci) = direct(&p, 300, 13);
    let e = estimate(&p, 100, 20, 1000, 14);
    assert!(overlap(ci, e.ci95), "ppl: direct {ci:?}, splitting {:?}", e.ci95);
}

#[test]
fn the_estimate_does_not_depend_on_the_number_of_replicas() {
    let p = ls_timer(4, 12);
    let truth = exact(&p);
    let few = estimate(&p, 10, 40, 500, 21);
    let many = estimate(&p, 300, 20, 500, 22);
    assert!(overlap(few.ci95, many.ci95), "R = 10: {:?}, R = 300: {:?}", few.ci95, many.ci95);
    assert!(covers(&few, truth) && covers(&many, truth), "exact {truth}: {:?} {:?}", few.ci95, many.ci95);
}

/// How many of `count` independent estimates (seeds `1000..1000 + count`) of ls-timer at
/// `(n, s)` cover the exact value.
fn coverage(n: usize, s: u32, count: u64, replicas: usize, repetitions: u64, cycles: u64) -> u64 {
    let p = ls_timer(n, s);
    let truth = exact(&p);
    let start = safe(&p);
    let covered = (1000..1000 + count)
        .filter(|&seed| {
            let settings = SplittingSettings { replicas, repetitions, cycles, seed, ..SplittingSettings::default() };
            covers(&estimate_holding(&p, &Graph::Complete, &start, &settings).unwrap(), truth)
        })
        .count() as u64;
    eprintln!("coverage ls-timer n={n} s={s} R={replicas} M={repetitions} C={cycles}: {covered}/{count}");
    covered
}

#[test]
fn the_interval_covers_about_95_percent_of_the_time() {
    // Binomial(100, 0.95) is below 86 with probability below 0.001.
    let covered = coverage(4, 8, 100, 30, 10, 200);
    assert!(covered >= 86, "{covered}/100");
}

#[test]
#[ignore = "about a minute: the coverage figure of the report"]
fn coverage_over_200_estimates() {
    let covered = coverage(4, 12, 200, 100, 20, 1000);
    assert!((172..=200).contains(&covered), "{covered}/200");
}

#[test]
#[ignore = "the report's larger cases: n = 4, s = 16 (8.5e9 steps) and n = 5, s = 10"]
fn report_cases_beyond_direct_simulation() {
    for (n, s, truth) in [(4, 16, 8_511_729_110.54), (5, 10, 1_394_506.59)] {
        let e = estimate(&ls_timer(n, s), 100, 40, 1000, 31);
        eprintln!("n={n} s={s}: exact {truth:.6e}, covered {}", covers(&e, truth));
    }
}
