//! `poplab sweep`: a protocol over the cross product of sizes and parameter lists, written trial by
//! trial into a directory that `--resume` can continue (the directory's files are described in
//! `poplab::sweep`).

use crate::cli::{ClaimUnit, MergeArgs, SweepArgs};
use crate::input::InputError;
use crate::progress::Progress;
use anyhow::Result;
use poplab::claims::YVar;
use poplab::judge::ClaimText;
use poplab::numbers::parse_list;
use poplab::spec::RunSpec;
use poplab::sweep::{SweepOutcome, SweepResults, SweepSpec, TRIALS_FILE, read_definition, run_sweep};
use std::path::PathBuf;

pub fn sweep(args: &SweepArgs) -> Result<()> {
    if super::network::is_network_target(args.target.protocol.as_deref()) {
        return super::network::sweep(args);
    }
    if args.time.is_some() {
        return Err(
            InputError("--time goes with a reaction network's file (@FILE.toml with [reactions])".into()).into()
        );
    }
    let claims: Vec<ClaimText> = args.claim.iter().map(|c| ClaimText::parse(c)).collect::<poplab::Result<_>>()?;
    let (mut spec, dir) = match &args.resume {
        Some(dir) => (resumed(args, dir)?, dir.clone()),
        None => {
            let dir = args.out.clone().unwrap_or_else(|| PathBuf::from("sweep"));
            let spec = spec_from_args(args)?;
            // A shard run again (a re-submitted cluster task) continues, and so does a holding
            // sweep run again; run_in refuses a directory that holds another sweep or shard.
            if spec.template.estimator.is_direct() && spec.shard.is_none() && dir.join(TRIALS_FILE).exists() {
                return Err(InputError(format!(
                    "'{}' already holds a sweep; continue it with --resume {0} or choose another --out",
                    dir.display()
                ))
                .into());
            }
            (spec, dir)
        }
    };
    for claim in &claims {
        if !spec.template.estimator.is_direct() || spec.shard.is_some() {
            return Err(InputError(
                "--claim judges a sweep's trials: not with --estimator splitting or a shard (give it to the sweep \
                 --resume that reads the merged directory)"
                    .into(),
            )
            .into());
        }
        poplab::claims::check(claim, &spec)?;
    }
    if let Some(every) = &args.checkpoint_every {
        spec.checkpoint_every = poplab::checkpoint::parse_every(every)?;
    }
    let progress = std::sync::OnceLock::new();
    let unit = spec.template.estimator.trials_are();
    let outcome = run_sweep(
        &spec,
        Some(&dir),
        &RunSpec::resolve,
        &|left| drop(progress.set(Progress::counting(left, &spec.template.protocol, unit))),
        &|| {
            if let Some(p) = progress.get() {
                p.inc()
            }
        },
    )?;
    drop(progress);
    let results = match outcome {
        SweepOutcome::Trials(results) => results,
        SweepOutcome::Holding(curve) => {
            print!("{}", crate::output::holding_curve(&curve));
            eprintln!("holding sweep of {} cells written to '{}'", curve.cells.len(), dir.display());
            return Ok(());
        }
    };
    match spec.shard {
        Some(shard) => eprintln!(
            "{} of a sweep of {} cells x {} trials ({} trials) written to '{}'; join the shards with poplab merge",
            shard.describe(),
            results.cells.len(),
            spec.template.trials,
            results.rows.len(),
            dir.display()
        ),
        None => {
            report(&results, spec.template.trials, &dir);
            judge(&claims, &results, args.claim_in, &dir)?;
        }
    }
    Ok(())
}

/// Judges each claim on the finished sweep: one line each on standard output, and all of them in
/// `DIR/claims.json`.
fn judge(claims: &[ClaimText], results: &SweepResults, unit: ClaimUnit, dir: &std::path::Path) -> Result<()> {
    if claims.is_empty() {
        return Ok(());
    }
    let y = match unit {
        ClaimUnit::ParallelTime => YVar::ParallelTime,
        ClaimUnit::Steps => YVar::Steps,
    };
    let mut documents = Vec::new();
    for claim in claims {
        let judgement = poplab::claims::judge_sweep(results, claim, y)?;
        println!(
            "claim {} ({}): {}{}: {}",
            claim.text,
            y.label(),
            judgement.verdict.word(),
            judgement.power.map_or(String::new(), |p| format!(" (power {:.2})", p.decide)),
            judgement.evidence
        );
        documents.push(serde_json::json!({ "claim": claim.text, "unit": y.label(), "judgement": judgement }));
    }
    let text = serde_json::to_string_pretty(&documents)? + "\n";
    poplab::files::write_atomic(&dir.join("claims.json"), &text)?;
    Ok(())
}

/// `poplab merge`: the shards of one sweep joined into one sweep directory.
pub fn merge(args: &MergeArgs) -> Result<()> {
    let results = poplab::sweep::merge(&args.out, &args.parts)?;
    report(&results, results.rows.len() as u64 / results.cells.len().max(1) as u64, &args.out);
    Ok(())
}

/// The closing lines of a finished sweep.
fn report(results: &SweepResults, trials: u64, dir: &std::path::Path) {
    eprintln!("sweep of {} cells x {trials} trials written to '{}'", results.summaries.len(), dir.display());
    let left_out = results.left_out_of_fits();
    if !left_out.is_empty() {
        let cells: Vec<&str> = left_out.iter().map(|(cell, _)| cell.as_str()).collect();
        eprintln!("fits leave out {} cells with censored trials: {} (see fits.json)", cells.len(), cells.join(", "));
    }
}

/// The stored sweep of `dir`; options that would change it are refused, `--threads` is honoured.
fn resumed(args: &SweepArgs, dir: &std::path::Path) -> Result<SweepSpec> {
    let mut given = args.trials.given()?;
    let target = &args.target;
    for (name, is_given) in [
        ("PROTOCOL", target.protocol.is_some()),
        ("--n", target.n.is_some()),
        ("--set", !target.set.is_empty()),
        ("--graph", target.graph.is_some()),
        ("--shard", args.shard.shard.is_some()),
        ("--shard-from-env", args.shard.shard_from_env),
        ("--pack", args.shard.pack != 1),
    ] {
        if is_given {
            given.push(name);
        }
    }
    if !given.is_empty() {
        return Err(InputError(format!(
            "--resume continues the sweep stored in '{}' with its own settings; drop {} (only --threads and \
             --checkpoint-every may be given)",
            dir.display(),
            given.join(", ")
        ))
        .into());
    }
    let mut spec = read_definition(dir)?;
    spec.template.threads = args.trials.control.threads;
    Ok(spec)
}

fn spec_from_args(args: &SweepArgs) -> Result<SweepSpec> {
    let target = &args.target;
    // A list's error names the option it was given to.
    let named = |option: String| {
        move |e: poplab::Error| match e {
            poplab::Error::Option { value, reason, .. } => InputError(format!("{option}{value}: {reason}")),
            other => InputError(other.to_string()),
        }
    };
    let ns = parse_list(target.n_text("sweep")?)
        .map_err(named("--n ".into()))?
        .iter()
        .map(|v| crate::parse::parse_n(v).map_err(|e| InputError(format!("--n: {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    let mut params = Vec::new();
    for item in &target.set {
        let (name, values) = item
            .split_once('=')
            .ok_or_else(|| InputError(format!("--set {item}: write KEY=LIST, for example k=3,5,7")))?;
        params.push((name.trim().to_string(), parse_list(values).map_err(named(format!("--set {}=", name.trim())))?));
    }
    let mut spec = SweepSpec { params, shard: args.shard.shard()?, ..SweepSpec::new(&target.protocol("sweep")?, &ns) };
    args.trials.apply(&mut spec.template)?;
    // A file is stored with its absolute path, so --resume finds it from any directory.
    spec.template.init = spec.template.init.as_deref().map(absolute_file).transpose()?;
    spec.template.graph = target.graph.as_deref().map(absolute_file).transpose()?;
    Ok(spec)
}

/// `@FILE` with FILE made absolute; names pass through.
fn absolute_file(text: &str) -> Result<String> {
    match text.strip_prefix('@') {
        None => Ok(text.to_string()),
        Some(path) => {
            let absolute = std::path::absolute(path)
                .map_err(|e| InputError(format!("'{path}': cannot resolve the path ({e})")))?;
            Ok(format!("@{}", absolute.display()))
        }
    }
}
