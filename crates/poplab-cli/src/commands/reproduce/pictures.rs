//! The report's pictures besides each claim's plot ([`Picture`]), and one summary figure per
//! paper.

use super::ClaimResult;
use crate::plot::{Curve, Figure, Group, Ink, Mark, Marks, write, write_grid};
use anyhow::Result;
use poplab::claims::{Picture, Trial};
use poplab::engine::{Measure, Outcome, TraceEvery};
use poplab::protocols::pll::Module;
use poplab::spec::{Estimator, RawSpec, RunSpec, SplittingOptions};
use poplab::splitting::SplittingSettings;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Points a run's curve keeps at most (the rows where the leader count changes, thinned evenly).
const MAX_CURVE_POINTS: usize = 1500;

/// Draws `picture` for the claim `id` into `plots` (SVG and PNG) and returns its caption and SVG
/// file; `trials` are the claim's trials by sweep.
pub fn draw(
    picture: &Picture,
    id: &str,
    trials: &[Vec<Trial>],
    plots: &Path,
    seed: u64,
    threads: Option<usize>,
) -> Result<(String, PathBuf)> {
    match picture {
        Picture::Spacetime { n, init } => spacetime(*n, init, plots, seed),
        Picture::LeaderTraces { protocol, n, init, runs } => {
            let stem = plots.join(format!("{id}-leaders"));
            write(&leader_traces(protocol, *n, init, *runs, seed, threads)?, &stem)?;
            let caption = format!(
                "Leaders against parallel time: {runs} runs of {protocol} at n = {n} from init {init} (master seed \
                 {seed}), until the safe set; rows every n steps, kept where the count changes"
            );
            Ok((caption, stem.with_extension("svg")))
        }
        Picture::ModuleTails { sweep } => {
            let stem = plots.join(format!("{id}-modules"));
            let empty = Vec::new();
            write(&module_tails(id, trials.get(*sweep).unwrap_or(&empty)), &stem)?;
            let caption = "Stabilisation time per n: for each n a grey staircase (darker for larger n) of the \
                           share of runs that took at least t, against t in parallel time; each run is a dot coloured by \
                           the module that demoted the last leader (from the census)";
            Ok((caption.into(), stem.with_extension("svg")))
        }
        Picture::ExactHolding { protocol, n, param, values, fixed } => {
            let stem = plots.join(format!("{id}-exact"));
            let (figure, caption) = exact_holding(protocol, *n, param, values, fixed, seed, threads)?;
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

/// `runs` runs of `protocol` at `n` from `init`, each as a curve of leaders against parallel time.
fn leader_traces(protocol: &str, n: u64, init: &str, runs: u64, seed: u64, threads: Option<usize>) -> Result<Figure> {
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
            Curve::new(format!("run {trial}"), kept)
        })
        .collect();
    Ok(Figure {
        title: format!("{protocol}: leaders against time, n = {n}"),
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
fn module_tails(id: &str, trials: &[Trial]) -> Figure {
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
        title: format!("{id}: stabilisation time by module"),
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
fn exact_holding(
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
        let estimate = spec.estimate(&|| {})?.estimate;
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
        title: format!("{protocol}: exact and estimated holding time ({setting})"),
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
        by_paper.entry(paper(result.claim.source)).or_default().push(super::report::figure(result));
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
        let figure = module_tails("pll", &trials);
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
            module_tails("pll-as-printed", &[trial(100, 10.0, "quick-elimination"), trial(100, 900.0, "backup")]);
        assert_eq!(figure.groups.iter().map(|g| g.color).collect::<Vec<_>>(), [0, 2]);
    }
}
