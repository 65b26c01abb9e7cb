//! The report's pictures: each claim's plot ([`figures`]), the pictures a claim asks for besides
//! ([`Picture`]), and one summary figure per paper. The report ([`super::report`]) takes them
//! from here; nothing here reads the report.

use super::ClaimResult;
use super::intervals::interval;
use crate::plot::{Curve, Figure, Group, Ink, Mark, MarkLook, Marks, write, write_grid};
use anyhow::Result;
use poplab::claims::{Claim, Picture, Row, Rule, Trial, XVar};
use poplab::engine::{Measure, Outcome, TraceEvery};
use poplab::judge;
use poplab::protocols::pll::Module;
use poplab::spec::{Estimator, RawSpec, RunSpec, SplittingOptions};
use poplab::splitting::SplittingSettings;
use poplab::verdict::median_or_bound;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Points a run's curve keeps at most (the rows where the leader count changes, thinned evenly).
const MAX_CURVE_POINTS: usize = 1500;

/// Points a fitted or claimed curve is evaluated at, evenly spaced in log x: a bend at every 7
/// pixels or so, finer than the eye sees and coarser than the pixel grid (shorter segments show
/// the grid as a wobble).
const CURVE_POINTS: usize = 100;

/// What a claim is about, in words: its title up to the colon (`P_LL` of `P_LL: stabilisation
/// time`).
fn subject(claim: &Claim) -> &str {
    claim.title.split(':').next().unwrap_or(claim.title)
}

/// The plots of one claim, one measure per axis: a panel per measure its sweeps take (the
/// threshold predicate's runs below the threshold wait out a horizon with no yes, those above it
/// converge: two panels), each with the rows its sweeps measured.
pub fn figures(result: &ClaimResult) -> Vec<Figure> {
    let claim = &result.claim;
    let mut measures: Vec<Measure> = Vec::new();
    for sweep in &claim.sweeps {
        if !measures.contains(&sweep.template.measure) {
            measures.push(sweep.template.measure);
        }
    }
    if measures.len() < 2 {
        return vec![figure(result, &result.findings.rows.iter().collect::<Vec<_>>(), None)];
    }
    measures
        .into_iter()
        .map(|measure| {
            let xs: Vec<f64> = claim
                .sweeps
                .iter()
                .filter(|s| s.template.measure == measure)
                .flat_map(|s| match claim.x {
                    XVar::N => s.ns.iter().map(|&n| n as f64).collect::<Vec<_>>(),
                    XVar::Param(name) => s
                        .params
                        .iter()
                        .filter(|(k, _)| k == name)
                        .flat_map(|(_, values)| values.iter().filter_map(|v| v.parse().ok()))
                        .collect(),
                })
                .collect();
            let rows: Vec<&Row> = result.findings.rows.iter().filter(|r| xs.contains(&r.point.x)).collect();
            figure(result, &rows, Some(measure))
        })
        .collect()
}

/// The plot of `rows` of one claim; `measure` names the panel's measure where the claim has
/// several.
fn figure(result: &ClaimResult, rows: &[&Row], measure: Option<Measure>) -> Figure {
    let claim = &result.claim;
    let estimates = claim.estimates();
    let what = if estimates {
        "splitting estimate with 95% CI"
    } else {
        "mean with 95% bootstrap interval (hollow: median, a lower bound)"
    };
    // One series per variant (the rows of a comparison name theirs), P_LL as printed in its own look.
    let mut marks: Vec<Marks> = Vec::new();
    for row in rows {
        let protocol = row
            .variant
            .as_ref()
            .map_or_else(|| claim.sweeps.first().map(|s| s.template.protocol.as_str()), |v| Some(v.0.as_str()));
        let look = if protocol == Some("pll-as-printed") { MarkLook::Secondary } else { MarkLook::Primary };
        let label = match protocol {
            Some(protocol) if row.variant.is_some() || look == MarkLook::Secondary => format!("{protocol}: {what}"),
            _ => what.to_string(),
        };
        let mark = match (row.log10_estimate, row.mean) {
            (Some((log10, interval)), _) => {
                Mark { x: row.point.x, y: log10, interval: Some(interval), lower_bound: false }
            }
            (None, Some(mean)) => Mark { x: row.point.x, y: mean, interval: interval(row), lower_bound: false },
            (None, None) => {
                let (y, lower_bound) = median_or_bound(&row.point);
                Mark { x: row.point.x, y, interval: None, lower_bound }
            }
        };
        match marks.iter_mut().find(|m| m.label == label) {
            Some(series) => series.points.push(mark),
            None => marks.push(Marks { label, look, points: vec![mark] }),
        }
    }
    // The claimed curve spans every x; the fits only the x whose means they were fitted to; each
    // is evaluated at many points between, never only at the data's x.
    let grid = grid_of(rows.iter().copied());
    let fitted = grid_of(rows.iter().copied().filter(|r| r.mean.is_some()));
    let mut curves = Vec::new();
    if let Rule::Points(judge::Rule::ExactMean { curve, .. }) = &claim.rule {
        let points = grid.iter().map(|&x| (x, curve.eval(x))).collect();
        curves.push(Curve::new(format!("claimed {}", curve.name()), points).inked(Ink::Claimed));
    }
    // A panel of a claim measured two ways has no fit over both.
    if measure.is_none() {
        if let (Rule::Points(judge::Rule::Growth { curve, .. }), Some(fit)) = (&claim.rule, &result.findings.form_fit)
            && let Some(form) = curve.as_form()
        {
            let points = fitted.iter().map(|&x| (x, fit.a + fit.b * form.eval(x))).filter(|p| p.1 > 0.0).collect();
            curves.push(Curve::new(format!("fit a + b {}", fit.form), points).inked(Ink::FormFit));
        }
        if let Some(power) = &result.findings.power {
            let label = format!("fit c x^e, e = {:.2}", power.exponent);
            let points = fitted.iter().map(|&x| (x, power.coefficient * x.powf(power.exponent))).collect();
            curves.push(Curve::new(label, points).inked(Ink::PowerFit));
        }
    }
    let (title, y_label) = match measure {
        None => (claim.title.to_string(), claim.y.label().to_string()),
        Some(Measure::Convergence) => {
            (format!("{}: time to converge", subject(claim)), format!("time to converge, {}", claim.y.label()))
        }
        Some(Measure::Holding) => (
            format!("{}: time until an output changes", subject(claim)),
            format!("time until an output changes, {}", claim.y.label()),
        ),
    };
    Figure {
        title,
        x_label: claim.x.name().to_string(),
        y_label: if estimates { format!("log10 of the expected {}", claim.y.label()) } else { y_label },
        marks,
        curves,
        groups: Vec::new(),
        y_log: !estimates,
    }
}

/// [`CURVE_POINTS`] points evenly spaced in log from the smallest to the largest x of `rows`.
fn grid_of<'a>(rows: impl Iterator<Item = &'a Row>) -> Vec<f64> {
    let (x0, x1) = rows.map(|r| r.point.x).fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    if x0 > x1 {
        return Vec::new();
    }
    let last = (CURVE_POINTS - 1) as f64;
    (0..CURVE_POINTS).map(|i| x0 * (x1 / x0).powf(i as f64 / last)).collect()
}

/// Draws `picture` for the claim `claim` into `plots` (SVG and PNG) and returns its caption and
/// SVG file; `trials` are the claim's trials by sweep.
pub fn draw(
    picture: &Picture,
    claim: &Claim,
    trials: &[Vec<Trial>],
    plots: &Path,
    seed: u64,
    threads: Option<usize>,
) -> Result<(String, PathBuf)> {
    let id = claim.id;
    match picture {
        Picture::Spacetime { n, init } => spacetime(*n, init, plots, seed),
        Picture::LeaderTraces { protocol, n, init, runs } => {
            let stem = plots.join(format!("{id}-leaders"));
            write(&leader_traces(subject(claim), protocol, *n, init, *runs, seed, threads)?, &stem)?;
            let caption = format!(
                "Leaders against parallel time: {runs} runs of {protocol} at n = {n} from init {init} (master seed \
                 {seed}), until the safe set; rows every n steps, kept where the count changes"
            );
            Ok((caption, stem.with_extension("svg")))
        }
        Picture::ModuleTails { sweep } => {
            let stem = plots.join(format!("{id}-modules"));
            let empty = Vec::new();
            write(&module_tails(subject(claim), trials.get(*sweep).unwrap_or(&empty)), &stem)?;
            let caption = "Stabilisation time per n: for each n a grey staircase (darker for larger n) of the \
                           share of runs that took at least t, against t in parallel time; each run is a dot coloured by \
                           the module that demoted the last leader (from the census)";
            Ok((caption.into(), stem.with_extension("svg")))
        }
        Picture::ExactHolding { protocol, n, param, values, fixed } => {
            let stem = plots.join(format!("{id}-exact"));
            let (figure, caption) = exact_holding(subject(claim), protocol, *n, param, values, fixed, seed, threads)?;
            write(&figure, &stem)?;
            Ok((caption, stem.with_extension("svg")))
        }
    }
}

/// P_RL's space-time diagram at n = N = `n` from `init`, until the safe set or 300 rows of n steps.
fn spacetime(n: usize, init: &str, plots: &Path, seed: u64) -> Result<(String, PathBuf)> {
    let prl = poplab::protocols::prl::Prl::new(n, &poplab::protocol::Params::default())?;
    let diagram = crate::plot::spacetime::Diagram { init, seed, every: n as u64, rows: 300, until_safe: true };
    let stem = plots.join(format!("prl-spacetime-{init}"));
    for format in ["svg", "png"] {
        diagram.write(&prl, &stem.with_extension(format))?;
    }
    let from = match init {
        "fig3" => format!("from Figure 3's configuration (n = N = {n})"),
        _ => format!("from a uniformly random configuration (n = N = {n}, seed {seed})"),
    };
    Ok((format!("P_RL space-time diagram {from}: one row per n steps, time running down"), stem.with_extension("svg")))
}

/// `runs` runs of `protocol` (`subject`, in words) at `n` from `init`, each as a staircase of
/// leaders against parallel time (a count: it holds between samples, never takes the values
/// between two).
fn leader_traces(
    subject: &str,
    protocol: &str,
    n: u64,
    init: &str,
    runs: u64,
    seed: u64,
    threads: Option<usize>,
) -> Result<Figure> {
    let raw = RawSpec {
        init: Some(init.to_string()),
        trials: runs,
        seed,
        trace_every: Some(TraceEvery::Steps(u128::from(n))),
        threads,
        ..RawSpec::new(protocol, n)
    };
    let result = RunSpec::resolve(&raw)?.run(&|| {})?;
    let curves = result
        .records
        .iter()
        .enumerate()
        .map(|(trial, record)| {
            let mut points: Vec<(f64, f64)> = Vec::new();
            for (i, row) in record.trace.iter().enumerate() {
                let changed = points.last().is_none_or(|p| p.1 != row.leaders as f64);
                if changed || i + 1 == record.trace.len() {
                    points.push((row.step as f64 / n as f64, row.leaders as f64));
                }
            }
            let stride = points.len().div_ceil(MAX_CURVE_POINTS).max(1);
            let last = points.last().copied();
            let mut kept: Vec<(f64, f64)> = points.into_iter().step_by(stride).collect();
            kept.extend(last.filter(|p| kept.last() != Some(p)));
            Curve::new(format!("run {trial}"), kept).stepped()
        })
        .collect();
    Ok(Figure {
        title: format!("{subject}: leaders against time, n = {n}"),
        x_label: "parallel time (steps / n)".into(),
        y_label: "leaders".into(),
        marks: Vec::new(),
        curves,
        groups: Vec::new(),
        y_log: true,
    })
}

/// Per n, the share of runs taking at least t against t (grey staircases named in the legend), and every run as a
/// dot coloured by the module that demoted its last leader.
fn module_tails(subject: &str, trials: &[Trial]) -> Figure {
    let mut by_n: BTreeMap<u64, Vec<&Trial>> = BTreeMap::new();
    for trial in trials.iter().filter(|t| t.outcome != Outcome::Censored) {
        by_n.entry(trial.n).or_default().push(trial);
    }
    let mut curves = Vec::new();
    let mut groups: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    let sizes = by_n.len();
    for (i, (n, mut runs)) in by_n.into_iter().enumerate() {
        runs.sort_by(|a, b| a.parallel_time.total_cmp(&b.parallel_time));
        let total = runs.len() as f64;
        let mut staircase = Vec::new();
        for (i, run) in runs.iter().enumerate() {
            let share = (total - i as f64) / total;
            staircase.push((run.parallel_time, if i == 0 { 1.0 } else { (total - i as f64 + 1.0) / total }));
            staircase.push((run.parallel_time, share));
            let module = run.last_demotion.clone().unwrap_or_else(|| "not recorded".into());
            groups.entry(module).or_default().push((run.parallel_time, share));
        }
        // Each n in its own grey, darker for larger n, named in the legend.
        curves.push(Curve::new(format!("n = {}", short_n(n)), staircase).inked(Ink::Size(i, sizes)));
    }
    // A module keeps its colour in every figure: quick elimination green, tournament orange,
    // BackUp red (the order of P_LL's modules after status assignment); anything else grey.
    let rank = |module: &str| Module::ALL.iter().skip(1).position(|m| m.name() == module).unwrap_or(Module::ALL.len());
    let mut groups: Vec<Group> = groups
        .into_iter()
        .map(|(module, points)| Group { label: format!("ended by {module}"), color: rank(&module), points })
        .collect();
    groups.sort_by_key(|g| g.color);
    Figure {
        title: format!("{subject}: stabilisation time, by the module that ended the run"),
        x_label: "parallel time (steps / n)".into(),
        y_label: "share of runs taking at least t".into(),
        marks: Vec::new(),
        curves,
        groups,
        y_log: true,
    }
}

/// `1e6` for powers of ten from 10^4, the number otherwise.
fn short_n(n: u64) -> String {
    let log = (n as f64).log10();
    if n >= 10_000 && log.fract() == 0.0 { format!("1e{}", log as u32) } else { n.to_string() }
}

/// Exact expected holding steps and splitting estimates of `protocol` at `n` (`None`: n is the
/// swept value) with `param` over `values`: the figure, and a caption listing both.
#[allow(clippy::too_many_arguments)]
fn exact_holding(
    subject: &str,
    protocol: &str,
    n: Option<u64>,
    param: &str,
    values: &[&str],
    fixed: &[&str],
    seed: u64,
    threads: Option<usize>,
) -> Result<(Figure, String)> {
    let (mut marks, mut exact, mut listed) = (Vec::new(), Vec::new(), Vec::new());
    for value in values {
        let x: f64 = value.parse()?;
        let mut params: Vec<String> = fixed.iter().map(|p| p.to_string()).collect();
        params.push(format!("{param}={value}"));
        let raw = RawSpec {
            params,
            measure: Measure::Holding,
            trials: SplittingSettings::default().repetitions,
            seed,
            threads,
            estimator: Estimator::Splitting(SplittingOptions::default()),
            ..RawSpec::new(protocol, n.unwrap_or(x as u64))
        };
        let spec = RunSpec::resolve(&raw)?;
        let truth = spec.exact(poplab::exact::DEFAULT_MAX_CONFIGS)?.expected_steps;
        let estimate = spec.estimate(&|| {}, None)?.estimate;
        let (Some(mean), Some(interval)) = (estimate.mean_steps, estimate.ci95) else {
            anyhow::bail!("{protocol} {param} = {value}: the estimate is beyond 10^300 steps");
        };
        marks.push(Mark { x, y: mean, interval: Some(interval), lower_bound: false });
        exact.push((x, truth));
        listed.push(format!(
            "{param} = {value}: exact {}, estimate {} [{}, {}]",
            sci(truth),
            sci(mean),
            sci(interval[0]),
            sci(interval[1])
        ));
    }
    let setting = n.map_or_else(|| format!("n = {param}"), |n| format!("n = {n}"));
    let figure = Figure {
        title: format!("{subject}: exact and estimated holding time ({setting})"),
        x_label: param.into(),
        y_label: "expected holding time (steps)".into(),
        marks: vec![Marks::new("splitting estimate with 95% CI", marks)],
        curves: vec![Curve::new("exact (poplab exact --measure holding)", exact).inked(Ink::Claimed)],
        groups: Vec::new(),
        y_log: true,
    };
    let caption = format!(
        "The estimator against exact values at small sizes: {protocol} with {}{setting}, {param} swept, the \
         estimator at its defaults (100 repetitions of 200 replicas, seed {seed}) and the exact expectation from the \
         Markov chain: {}",
        fixed.iter().map(|p| format!("{p}, ")).collect::<String>(),
        listed.join("; ")
    );
    Ok((figure, caption))
}

fn sci(v: f64) -> String {
    format!("{v:.4e}")
}

/// One figure per paper: its claims' plots as panels, two to a row. Returns (paper, SVG file).
pub fn paper_summaries(results: &[ClaimResult], plots: &Path) -> Result<Vec<(String, PathBuf)>> {
    let mut by_paper: BTreeMap<&str, Vec<Figure>> = BTreeMap::new();
    for result in results {
        by_paper.entry(paper(result.claim.source)).or_default().extend(figures(result));
    }
    let mut out = Vec::new();
    for (paper, figures) in by_paper {
        let stem = plots.join(format!("paper-{paper}"));
        write_grid(&figures, 2, &stem)?;
        out.push((paper.to_string(), stem.with_extension("svg")));
    }
    Ok(out)
}

/// The paper a claim's source names first (`000`, `001`, `003`, `004`).
pub fn paper(source: &str) -> &str {
    source.split_whitespace().next().unwrap_or(source)
}

#[cfg(test)]
mod tests {
    use super::*;
    use poplab::claims::{Findings, Mode, claims};
    use poplab::verdict::{Judgement, Point, Verdict};

    fn row(x: f64, mean: f64, variant: Option<&str>) -> Row {
        Row {
            point: Point { x, values: vec![mean * 0.8, mean * 1.2], censored: 0, horizon: f64::INFINITY },
            trials: 2,
            mean: Some(mean),
            ci95: Some([mean * 0.9, mean * 1.1]),
            median: Some(mean),
            log10_estimate: None,
            variant: variant.map(|v| (v.to_string(), 0)),
        }
    }

    fn result(id: &str, rows: Vec<Row>) -> ClaimResult {
        let claim = claims(Mode::Quick, 1).into_iter().find(|c| c.id == id).unwrap();
        let findings = Findings {
            rows,
            judgement: Judgement::new(Verdict::Inconclusive, ""),
            power: None,
            form_fit: None,
            engines: Vec::new(),
            trials: Vec::new(),
            trials_run: 0,
            trials_reused: 0,
            cpu_seconds: 0.0,
            estimates: Vec::new(),
            starts: Default::default(),
        };
        ClaimResult { claim, findings, diagrams: Vec::new(), seconds: 0.0 }
    }

    #[test]
    fn a_comparison_draws_each_variant_as_its_own_named_series() {
        let rows = [1e3, 1e4]
            .iter()
            .flat_map(|&n| [row(n, 20.0, Some("pll")), row(n, 40.0, Some("pll-as-printed"))])
            .collect();
        let [both] = &figures(&result("pll-errata", rows))[..] else { panic!("one panel") };
        let series: Vec<(&str, MarkLook, usize)> =
            both.marks.iter().map(|m| (m.label.as_str(), m.look, m.points.len())).collect();
        let what = "mean with 95% bootstrap interval (hollow: median, a lower bound)";
        assert_eq!(
            series,
            [
                (format!("pll: {what}").as_str(), MarkLook::Primary, 2),
                (format!("pll-as-printed: {what}").as_str(), MarkLook::Secondary, 2),
            ]
        );
        // The literal text keeps its look in its own claim's figure too.
        let alone = &figures(&result("pll-as-printed", vec![row(1e3, 40.0, None)]))[0];
        assert_eq!(alone.marks.len(), 1);
        assert_eq!(alone.marks[0].look, MarkLook::Secondary);
        assert!(alone.marks[0].label.starts_with("pll-as-printed: "));
        let pll = &figures(&result("pll-stabilisation", vec![row(1e3, 20.0, None)]))[0];
        assert_eq!(pll.marks[0].look, MarkLook::Primary);
        // Titles in words, not the claim's id.
        assert_eq!(pll.title, "P_LL: stabilisation time");
    }

    #[test]
    fn intervals_follow_the_values_and_never_run_below_zero() {
        // Bimodal times (P_LL: quick elimination or BackUp): the t-interval runs below zero.
        let mut times = vec![10.0; 18];
        times.extend([4000.0, 5000.0]);
        let mean = times.iter().sum::<f64>() / 20.0;
        let t = poplab::stats::mean_ci95(&times).unwrap();
        assert!(t[0] < 0.0, "{t:?}");
        let bimodal = Row {
            point: Point { x: 1e3, values: times, censored: 0, horizon: f64::INFINITY },
            trials: 20,
            mean: Some(mean),
            ci95: Some(t),
            median: Some(10.0),
            log10_estimate: None,
            variant: None,
        };
        let [low, high] = interval(&bimodal).unwrap();
        assert!(10.0 <= low && low < mean && mean < high && high <= 5000.0, "[{low}, {high}]");
        let figure = &figures(&result("pll-stabilisation", vec![bimodal.clone()]))[0];
        assert_eq!(figure.marks[0].points[0].interval, Some([low, high]));
        // No mean (censored trials): no interval.
        assert_eq!(interval(&Row { mean: None, ..bimodal }), None);
    }

    #[test]
    fn fits_are_smooth_curves_over_the_fitted_range() {
        let mut angluin = result("angluin-exact", vec![row(10.0, 81.0, None), row(1000.0, 998_001.0, None)]);
        angluin.findings.power = poplab::fit::fit_power(&[10.0, 1000.0], &[81.0, 998_001.0]);
        let [figure] = &figures(&angluin)[..] else { panic!("one panel") };
        for curve in &figure.curves {
            assert_eq!(curve.points.len(), CURVE_POINTS, "{}", curve.label);
            assert_eq!(curve.points.first().unwrap().0, 10.0);
            assert!((curve.points.last().unwrap().0 - 1000.0).abs() < 1e-9);
        }
        assert_eq!(figure.curves.len(), 2);
    }

    #[test]
    fn a_claim_measured_two_ways_gets_one_panel_per_measure() {
        // threshold-correct: below the threshold (f = 1, 5, 9) runs wait out a horizon with no
        // yes (a holding measure, censored); at or above it (f = 10 ... 100) they converge.
        let censored = |f: f64| Row {
            point: Point { x: f, values: Vec::new(), censored: 20, horizon: 1e4 },
            trials: 20,
            mean: None,
            ci95: None,
            median: None,
            log10_estimate: None,
            variant: None,
        };
        let rows = vec![censored(1.0), censored(5.0), censored(9.0), row(10.0, 100.0, None), row(100.0, 6.0, None)];
        let mut threshold = result("threshold-correct", rows);
        threshold.findings.power = poplab::fit::fit_power(&[10.0, 100.0], &[100.0, 6.0]);
        let panels = figures(&threshold);
        let xs = |f: &Figure| f.marks.iter().flat_map(|m| m.points.iter().map(|p| p.x)).collect::<Vec<_>>();
        assert_eq!(panels.len(), 2);
        assert_eq!(xs(&panels[0]), [1.0, 5.0, 9.0]);
        assert!(panels[0].marks[0].points.iter().all(|p| p.lower_bound));
        assert_eq!(panels[0].title, "Threshold predicate: time until an output changes");
        assert_eq!(xs(&panels[1]), [10.0, 100.0]);
        assert_eq!(panels[1].title, "Threshold predicate: time to converge");
        assert!(panels.iter().all(|p| p.curves.is_empty()), "no fit spans two measures");
    }

    #[test]
    fn the_picture_module_does_not_read_the_report() {
        let source = include_str!("pictures.rs");
        let uses: Vec<&str> = source.lines().filter(|l| l.starts_with("use ")).collect();
        assert!(uses.iter().all(|l| !l.contains("report")), "{uses:?}");
    }

    fn trial(n: u64, parallel_time: f64, module: &str) -> Trial {
        Trial { n, parallel_time, outcome: Outcome::Converged, last_demotion: Some(module.into()) }
    }

    #[test]
    fn module_tails_give_each_run_its_share_and_colour_modules_fastest_first() {
        let trials = [
            trial(100, 300.0, "backup"),
            trial(100, 10.0, "quick-elimination"),
            trial(100, 20.0, "quick-elimination"),
            trial(100, 50.0, "tournament"),
            trial(1000, 12.0, "quick-elimination"),
            Trial { outcome: Outcome::Censored, ..trial(1000, 1e9, "backup") },
        ];
        let figure = module_tails("P_LL", &trials);
        let labels: Vec<&str> = figure.groups.iter().map(|g| g.label.as_str()).collect();
        assert_eq!(labels, ["ended by quick-elimination", "ended by tournament", "ended by backup"]);
        assert_eq!(figure.groups.iter().map(|g| g.color).collect::<Vec<_>>(), [0, 1, 2]);
        // n = 100: four runs, the slowest took at least 300 alone (share 1/4); censored runs left out.
        assert_eq!(figure.groups[0].points, [(10.0, 1.0), (20.0, 0.75), (12.0, 1.0)]);
        assert_eq!(figure.groups[2].points, [(300.0, 0.25)]);
        assert_eq!(figure.curves.len(), 2);
        assert_eq!(figure.curves.iter().map(|c| c.ink).collect::<Vec<_>>(), [Ink::Size(0, 2), Ink::Size(1, 2)]);
        assert_eq!(figure.curves[0].points.last(), Some(&(300.0, 0.25)));
        assert_eq!(figure.curves[1].label, "n = 1000");
        // Without a tournament run, BackUp keeps its colour.
        let figure =
            module_tails("P_LL as printed", &[trial(100, 10.0, "quick-elimination"), trial(100, 900.0, "backup")]);
        assert_eq!(figure.groups.iter().map(|g| g.color).collect::<Vec<_>>(), [0, 2]);
    }
}
