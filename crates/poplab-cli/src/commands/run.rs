//! `poplab run`: independent trials of one protocol.

use crate::cli::RunArgs;
use crate::input::InputError;
use crate::output;
use crate::progress::Progress;
use anyhow::Result;
use poplab::checkpoint::{self, Checkpoint};
use poplab::checkpointed::{StoredSpec, run_checkpointed};
use poplab::engine::TraceEvery;
use poplab::export::{Csv, Exporter, Json};
use poplab::files;
use poplab::spec::{EstimateResult, Measured, RawSpec, RunSpec};
use std::path::Path;

pub fn run(args: &RunArgs) -> Result<()> {
    if super::network::is_network_target(args.target.protocol.as_deref()) {
        return super::network::run(args);
    }
    if args.time.is_some() {
        return Err(InputError(
            "--time goes with a reaction network's file (@FILE.toml with [reactions]); a protocol's run ends at its \
             stop rule or --max-steps"
                .into(),
        )
        .into());
    }
    if let Some(file) = &args.resume {
        return resume(args, file);
    }
    if args.trace_every.is_some() && args.trace.is_none() {
        return Err(InputError("--trace-every goes with --trace FILE, the file the time series goes to".into()).into());
    }
    let mut raw = args.target.raw("run")?;
    args.trials.apply(&mut raw)?;
    raw.faults = args.faults.clone();
    raw.trace_every = args.trace.as_ref().map(|_| args.trace_every.unwrap_or(TraceEvery::Steps(u128::from(raw.n))));
    if !raw.estimator.is_direct()
        && (args.csv || args.trace.is_some() || !args.faults.is_empty() || args.checkpoint.is_some())
    {
        return Err(InputError(
            "--estimator splitting gives one estimate, not trials: --csv, --trace, --fault and --checkpoint do not \
             apply"
                .into(),
        )
        .into());
    }
    let every = checkpoint_every(args)?;
    if args.checkpoint_every.is_some() && args.checkpoint.is_none() {
        return Err(InputError("--checkpoint-every goes with --checkpoint FILE (or --resume FILE)".into()).into());
    }
    let stored = args.checkpoint.as_ref().map(|_| StoredSpec::of(&raw, args.trace.as_deref())).transpose()?;
    let spec = RunSpec::resolve(&raw)?;
    check_outputs(args, &raw, args.trace.as_deref())?;
    let progress = Progress::counting(spec.settings.trials, &spec.protocol, spec.estimator.trials_are());
    let result = match (&args.trace, &args.checkpoint, stored) {
        (_, Some(file), Some(stored)) => run_checkpointed(&spec, &|| progress.inc(), stored, file, every, None)?,
        (Some(path), _, _) => poplab::export::run_traced(&spec, &|| progress.inc(), path)?,
        _ => match spec.measure(&|| progress.inc())? {
            Measured::Trials(result) => result,
            Measured::Estimate(estimate) => {
                drop(progress);
                return write_estimate(args, &estimate);
            }
        },
    };
    drop(progress);
    write_result(args, &result)
}

/// `--resume FILE`: the checkpointed run goes on with its own settings.
fn resume(args: &RunArgs, file: &Path) -> Result<()> {
    let mut given = args.trials.given()?;
    let target = &args.target;
    for (name, is_given) in [
        ("PROTOCOL", target.protocol.is_some()),
        ("--n", target.n.is_some()),
        ("--set", !target.set.is_empty()),
        ("--graph", target.graph.is_some()),
        ("--fault", !args.faults.is_empty()),
        ("--trace", args.trace.is_some()),
        ("--trace-every", args.trace_every.is_some()),
    ] {
        if is_given {
            given.push(name);
        }
    }
    if !given.is_empty() {
        return Err(InputError(format!(
            "--resume goes on with the run checkpointed in '{}' with its own settings; drop {} (only --json, --csv, \
             --out, --threads and --checkpoint-every may be given)",
            file.display(),
            given.join(", ")
        ))
        .into());
    }
    let every = checkpoint_every(args)?;
    let checkpoint = Checkpoint::read(file)?;
    let stored = StoredSpec::of_checkpoint(&checkpoint, file)?;
    let raw = stored.raw(args.trials.control.threads)?;
    let spec = RunSpec::resolve(&raw)?;
    check_outputs(args, &raw, stored.trace.as_deref().map(Path::new))?;
    let progress = Progress::new(spec.settings.trials, &spec.protocol);
    let result = run_checkpointed(&spec, &|| progress.inc(), stored, file, every, Some(checkpoint))?;
    drop(progress);
    write_result(args, &result)
}

/// `--checkpoint-every`, or its default.
fn checkpoint_every(args: &RunArgs) -> Result<std::time::Duration> {
    Ok(args.checkpoint_every.as_deref().map(checkpoint::parse_every).transpose()?.unwrap_or(checkpoint::DEFAULT_EVERY))
}

/// Refuses, before anything runs, an output file that cannot be written or that is an input of
/// `raw` or another output (`trace` is the time series' file).
fn check_outputs(args: &RunArgs, raw: &RawSpec, trace: Option<&Path>) -> Result<()> {
    if let Some(path) = &args.out {
        files::check_output_file(path)?;
    }
    let checkpoint = match &args.resume {
        Some(file) => Some(("--resume", file.as_path())),
        None => args.checkpoint.as_deref().map(|file| ("--checkpoint", file)),
    };
    let outputs: Vec<(&str, &Path)> =
        [checkpoint, trace.map(|f| ("--trace", f)), args.out.as_deref().map(|f| ("--out", f))]
            .into_iter()
            .flatten()
            .collect();
    Ok(files::check_apart(&outputs, &raw.input_files())?)
}

/// Writes the run's results as asked: JSON, CSV or a table, to --out or standard output.
fn write_result(args: &RunArgs, result: &poplab::spec::RunResult) -> Result<()> {
    let text = if args.json {
        Json.export(result)?
    } else if args.csv {
        Csv.export(result)?
    } else {
        output::human(result)
    };
    output::write_text(args.out.as_deref(), &text)
}

/// `--estimator splitting`: one estimate of the expected holding time with its interval.
/// Writes a splitting estimate: its JSON document, or the text `poplab run` prints.
fn write_estimate(args: &RunArgs, result: &EstimateResult) -> Result<()> {
    let spec = &result.spec;
    let text = if args.json {
        Json.export(result)?
    } else {
        let estimate = &result.estimate;
        format!(
            "{} measure=holding estimator=splitting score={}\nseed={} repetitions={} replicas={} cycles={}\n{}",
            output::what_ran(spec),
            estimate.score,
            spec.settings.seed,
            estimate.repetitions,
            estimate.replicas,
            estimate.cycles,
            output::holding_estimate(estimate, spec.n, result.wall_seconds)
        )
    };
    output::write_text(args.out.as_deref(), &text)
}
