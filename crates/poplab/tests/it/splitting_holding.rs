//! The splitting estimator of holding times (`poplab::splitting`): against the exact values of
//! `ls-timer` (`exact::expected_holding_steps`), against direct simulation where both are
//! feasible (`ls-timer`, `ppl`), across scores, reference sets and numbers of replicas, and the
//! coverage of its interval.
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
use statrs::distribution::{ContinuousCDF, StudentsT};
use std::time::Instant;

fn ls_timer(n: usize, s: u32) -> LsTimer {
    LsTimer::new(n, &Params::parse(&[&format!("s={s}")]).unwrap()).unwrap()
}

fn safe<P: Protocol>(p: &P) -> Vec<P::State> {
    p.configurations().and_then(|c| c.family_configuration("safe", &mut TrialStreams::new(0).init)).unwrap()
}

fn exact<P: Protocol>(p: &P) -> f64 {
    let explore = ExploreSettings { graph: Graph::Complete, max_configs: 1 << 22 };
    expected_holding_steps(p, &safe(p), &explore).unwrap().expected_steps
}

fn estimate<P: Protocol>(p: &P, replicas: usize, repetitions: u64, cycles: u64, seed: u64) -> HoldingEstimate {
    estimate_with(p, SplittingSettings { replicas, repetitions, cycles, seed, ..SplittingSettings::default() })
}

fn estimate_with<P: Protocol>(p: &P, settings: SplittingSettings) -> HoldingEstimate {
    let started = Instant::now();
    let e = estimate_holding(p, &Graph::Complete, &safe(p), &settings, &|| {}, None).unwrap();
    let ci = interval(&e);
    eprintln!(
        "{} n={} {settings:?}: score {} base {}: {:.6e} [{:.6e}, {:.6e}], {} interactions, {:.2}s",
        p.info().name,
        p.n(),
        e.score,
        e.levels.base,
        e.mean_steps.unwrap(),
        ci[0],
        ci[1],
        e.interactions_simulated,
        started.elapsed().as_secs_f64()
    );
    e
}

fn interval(e: &HoldingEstimate) -> [f64; 2] {
    e.ci95.expect("an estimate below 10^300 steps has a plain interval")
}

/// Whether the estimate agrees with `value` at level 0.001: `|log10 E - log10 value|` within
/// `t_{0.9995, M - 1}` standard errors.
fn agrees(e: &HoldingEstimate, value: f64) -> bool {
    let t = StudentsT::new(0.0, 1.0, e.repetitions as f64 - 1.0).unwrap().inverse_cdf(0.9995);
    (e.log10_mean_steps - value.log10()).abs() <= t * e.log10_standard_error
}

fn covers(e: &HoldingEstimate, value: f64) -> bool {
    let ci = interval(e);
    ci[0] <= value && value <= ci[1]
}

#[test]
fn ls_timer_estimate_agrees_with_the_exact_holding_time() {
    for (n, s, seed) in [(4, 8, 1), (4, 12, 2)] {
        let p = ls_timer(n, s);
        let truth = exact(&p);
        let e = estimate(&p, 100, 20, 1000, seed);
        assert!(agrees(&e, truth), "n={n} s={s}: exact {truth}, estimate {:?} {:?}", e.mean_steps, e.ci95);
        let width = interval(&e)[1] / interval(&e)[0];
        assert!(width < 3.0, "the interval is too wide to mean anything: {:?}", e.ci95);
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
    assert!(overlap(ci, interval(&e)), "ls-timer: direct {ci:?}, splitting {:?}", e.ci95);

    let p = ppl(6, &["t_virus=2", "t_max=8", "t_emit=8"]);
    let (_, ci) = direct(&p, 300, 13);
    let e = estimate(&p, 100, 20, 1000, 14);
    assert!(overlap(ci, interval(&e)), "ppl: direct {ci:?}, splitting {:?}", e.ci95);
}

#[test]
fn ppl_leader_threat_follows_timeouts_and_suicides() {
    // n = 8, t_virus = 4, t_max = t_emit = 10: about 6e4 steps, broken by timeouts (about 30%)
    // and by the leader's own virus outliving its shield (about 70%; counted by an independent
    // C simulation, docs/holding.md). The default score follows both: the estimate is within
    // 35% of the direct mean, its interval covers it, and few repetitions end without a break.
    let p = ppl(8, &["t_virus=4", "t_max=10", "t_emit=10"]);
    assert_eq!(poplab::protocol::holding_scores(&p)[0], "leader-threat");
    let (mean, _) = direct(&p, 300, 51);
    let e = estimate(&p, 100, 40, 500, 52);
    let ci = interval(&e);
    assert!(ci[0] < mean && mean < ci[1], "direct {mean:.4e}, splitting {ci:?}");
    assert!((e.mean_steps.unwrap() / mean - 1.0).abs() < 0.35, "direct {mean:.4e}, splitting {:?}", e.mean_steps);
    let d = e.diagnostics;
    // About a quarter of the repetitions end in gAMS extinction (every replica tied: P = 0).
    assert!(d.repetitions_without_break <= 13 && d.log10_break_probability_sd < 1.0, "{d:?}");
}

#[test]
fn the_estimate_does_not_depend_on_the_number_of_replicas() {
    // Three numbers of replicas: the intervals overlap and each agrees with the exact value.
    let p = ls_timer(4, 12);
    let truth = exact(&p);
    let estimates: Vec<HoldingEstimate> = [(10, 100, 21), (50, 40, 23), (300, 20, 22)]
        .iter()
        .map(|&(r, m, seed)| estimate(&p, r, m, 500, seed))
        .collect();
    for (a, b) in [(0, 1), (0, 2), (1, 2)] {
        let (a, b) = (&estimates[a], &estimates[b]);
        assert!(
            overlap(interval(a), interval(b)),
            "R = {}: {:?}, R = {}: {:?}",
            a.replicas,
            a.ci95,
            b.replicas,
            b.ci95
        );
    }
    for e in &estimates {
        assert!(agrees(e, truth), "R = {}: exact {truth}, estimate {:?}", e.replicas, e.ci95);
    }
}

#[test]
fn the_estimate_does_not_depend_on_the_score_or_the_reference_set() {
    // ls-timer n = 5, s = 12: both scores, with the exact reference set (the safe start alone,
    // base 0) and with larger ones (the flux approximation), agree with the exact value.
    let p = ls_timer(5, 12);
    let truth = exact(&p);
    for (score, base, seed) in [(0, 0, 41), (1, 0, 42), (0, 3, 43), (1, 2, 44)] {
        let settings = SplittingSettings {
            replicas: 200,
            repetitions: 20,
            cycles: 500,
            seed,
            score,
            base_level: Some(base),
            ..SplittingSettings::default()
        };
        let e = estimate_with(&p, settings);
        assert_eq!(e.levels.base, base);
        assert!(agrees(&e, truth), "score {} base {base}: exact {truth}, estimate {:?}", e.score, e.ci95);
    }
}

#[test]
fn the_pilot_run_picks_a_reference_set_the_chain_returns_to() {
    // At n = 4 the safe start recurs often, so the pilot keeps it alone (the exact renewal); at
    // n = 8 it hardly ever recurs, and the pilot picks a larger set.
    let small = estimate(&ls_timer(4, 8), 50, 4, 100, 51);
    assert_eq!((small.levels.base, small.levels.base_from_pilot), (0, true));
    let large = estimate(&ls_timer(8, 8), 50, 4, 100, 52);
    assert!(large.levels.base > 0 && large.levels.base_from_pilot, "{:?}", large.levels);
}

/// How many of `count` independent estimates (seeds `1000..1000 + count`) of ls-timer at
/// `(n, s)` with `settings` cover the exact value.
fn coverage(n: usize, s: u32, count: u64, settings: SplittingSettings) -> u64 {
    let p = ls_timer(n, s);
    let truth = exact(&p);
    let start = safe(&p);
    let covered = (1000..1000 + count)
        .filter(|&seed| {
            let settings = SplittingSettings { seed, ..settings };
            covers(&estimate_holding(&p, &Graph::Complete, &start, &settings, &|| {}, None).unwrap(), truth)
        })
        .count() as u64;
    eprintln!("coverage ls-timer n={n} s={s} {settings:?}: {covered}/{count}");
    covered
}

#[test]
fn the_interval_covers_about_95_percent_of_the_time() {
    // Binomial(100, 0.95) is below 86 with probability below 0.001.
    let settings = SplittingSettings { replicas: 30, repetitions: 10, cycles: 200, ..SplittingSettings::default() };
    let covered = coverage(4, 8, 100, settings);
    assert!(covered >= 86, "{covered}/100");
}

#[test]
#[ignore = "about three minutes: the coverage figures of the closing note, at the default settings"]
fn coverage_over_200_estimates() {
    // The aim: the 95% interval covers 90-98% of the time, 180 to 196 of 200 (measured: 189
    // for both scores).
    for score in [0, 1] {
        let covered = coverage(4, 12, 200, SplittingSettings { score, ..SplittingSettings::default() });
        assert!((180..=196).contains(&covered), "score {score}: {covered}/200");
    }
}

#[test]
#[ignore = "the report's larger cases: n = 4, s = 16 (8.5e9 steps) and n = 5, s = 10"]
fn report_cases_beyond_direct_simulation() {
    for (n, s, truth) in [(4, 16, 8_511_729_110.54), (5, 10, 1_394_506.59)] {
        let e = estimate(&ls_timer(n, s), 100, 40, 1000, 31);
        eprintln!("n={n} s={s}: exact {truth:.6e}, covered {}", covers(&e, truth));
    }
}

#[test]
fn an_estimate_run_again_from_its_journal_continues_to_the_same_estimate() {
    let p = ls_timer(6, 6);
    let settings = SplittingSettings {
        replicas: 20,
        repetitions: 12,
        cycles: 50,
        seed: 5,
        threads: Some(2),
        ..Default::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("estimate.journal");
    let run =
        |settings: &SplittingSettings| estimate_holding(&p, &Graph::Complete, &safe(&p), settings, &|| {}, Some(&path));
    let whole = run(&settings).unwrap();
    assert_eq!(whole, estimate_holding(&p, &Graph::Complete, &safe(&p), &settings, &|| {}, None).unwrap());
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), 1 + 12);
    // Read back whole: the same estimate, nothing run again (nothing appended).
    assert_eq!(run(&SplittingSettings { threads: Some(1), ..settings }).unwrap(), whole);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    // Killed in the middle of a line: the repetitions missing run again, to the same estimate.
    std::fs::write(&path, &text[..text.len() / 2]).unwrap();
    assert_eq!(run(&settings).unwrap(), whole);
    assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 1 + 12);
    // Another estimate's journal is refused.
    let error = run(&SplittingSettings { seed: 6, ..settings }).unwrap_err().to_string();
    assert!(error.contains("not the journal of this computation"), "{error}");
}
