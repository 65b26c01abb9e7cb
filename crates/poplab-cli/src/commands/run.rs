//! `poplab run`: independent trials of one protocol.

use crate::cli::RunArgs;
use crate::output;
use crate::progress::Progress;
use anyhow::Result;
use poplab::export::{Csv, Exporter, Json};
use poplab::files;
use poplab::spec::{RawSpec, RunSpec};
use serde_json::{Value, json};

pub fn run(args: &RunArgs) -> Result<()> {
    let mut raw = args.target.raw("run")?;
    args.trials.apply(&mut raw);
    raw.faults = args.faults.clone();
    raw.trace_every = args.trace.as_ref().map(|_| args.trace_every.unwrap_or(u128::from(raw.n)));
    if args.splitting.splitting() {
        return splitting(args, raw);
    }
    let spec = RunSpec::resolve(&raw)?;
    if let Some(path) = &args.out {
        files::check_output_file(path)?;
        if args.trace.as_ref().is_some_and(|trace| trace == path) {
            return Err(crate::input::InputError(format!(
                "--out and --trace both name '{}'; give the time series a file of its own",
                path.display()
            ))
            .into());
        }
    }
    let progress = Progress::new(spec.settings.trials, &spec.protocol);
    let result = match &args.trace {
        Some(path) => spec.run_traced(&|| progress.inc(), path)?,
        None => spec.run(&|| progress.inc())?,
    };
    drop(progress);
    let text = if args.json {
        Json.export(&result)?
    } else if args.csv {
        Csv.export(&result)?
    } else {
        output::human(&result)
    };
    output::write_text(args.out.as_deref(), &text)
}

/// `--estimator splitting`: one estimate of the expected holding time with its interval.
fn splitting(args: &RunArgs, mut raw: RawSpec) -> Result<()> {
    args.splitting.check_engine(args.trials.engine)?;
    if args.csv || args.trace.is_some() || !args.faults.is_empty() {
        return Err(crate::input::InputError(
            "--estimator splitting gives one estimate, not trials: --csv, --trace and --fault do not apply".into(),
        )
        .into());
    }
    if args.trials.trials.is_none() {
        raw.trials = poplab::splitting::SplittingSettings::default().repetitions;
    }
    let spec = RunSpec::resolve(&raw)?;
    if let Some(path) = &args.out {
        files::check_output_file(path)?;
    }
    let progress = Progress::counting(spec.settings.trials, &spec.protocol, "repetitions");
    let started = std::time::Instant::now();
    let estimate = spec.estimate(&args.splitting.settings(), args.splitting.score.as_deref(), &|| progress.inc())?;
    let seconds = started.elapsed().as_secs_f64();
    drop(progress);
    let text = if args.json {
        let document = json!({
            "protocol": spec.protocol,
            "n": spec.n,
            "params": Value::Object(spec.params.clone()),
            "graph": spec.settings.graph.name(),
            "init": spec.settings.init.name(),
            "measure": spec.settings.measure.name(),
            "engine": "agents",
            "rng": poplab::rng::RNG_NAME,
            "seed": spec.settings.seed,
            "estimate": estimate,
            "wall_seconds": seconds,
        });
        serde_json::to_string_pretty(&document)? + "\n"
    } else {
        format!(
            "{} measure=holding estimator=splitting score={}\nseed={} repetitions={} replicas={} cycles={}\n{}",
            crate::output::what_ran(&spec),
            estimate.score,
            spec.settings.seed,
            estimate.repetitions,
            estimate.replicas,
            estimate.cycles,
            output::holding_estimate(&estimate, spec.n, seconds)
        )
    };
    output::write_text(args.out.as_deref(), &text)
}
