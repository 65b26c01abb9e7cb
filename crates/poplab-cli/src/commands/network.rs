//! `poplab run @FILE.toml --time T` where the file is a reaction network (a `[reactions]`
//! section, `poplab::crn::file`): independent runs to time `T`, the counts at `T` per trial and
//! their means.

use crate::cli::RunArgs;
use crate::input::InputError;
use crate::output;
use anyhow::Result;
use poplab::crn::{CrnEngine, NetworkTrial, file, run_trials};
use poplab::files;
use poplab::rng::RNG_NAME;
use poplab::stats::mean_ci95;

/// Whether `@path` names a network file (read once more by [`run`]).
pub fn is_network_target(protocol: Option<&str>) -> bool {
    let Some(path) = protocol.and_then(|p| p.strip_prefix('@')) else { return false };
    files::read_limited(std::path::Path::new(path), "network file", file::MAX_FILE_BYTES, "a network file may take")
        .is_ok_and(|text| file::is_network(&text))
}

/// Runs the trials of the network file that `args` names.
pub fn run(args: &RunArgs) -> Result<()> {
    let path = args.target.protocol.as_deref().and_then(|p| p.strip_prefix('@')).unwrap_or_default();
    refuse_protocol_options(args)?;
    let Some(time) = args.time else {
        return Err(InputError(format!("@{path} is a reaction network: give the time to run to, as --time 1")).into());
    };
    if !(time.is_finite() && time >= 0.0) {
        return Err(InputError(format!("--time {time}: a time >= 0")).into());
    }
    let network_file = file::read(path)?;
    if let Some(out) = &args.out {
        files::check_output_file(out)?;
        files::check_apart(&[("--out", out.as_path())], &[("the network file", std::path::Path::new(path))])?;
    }
    let control = &args.trials.control;
    let engine = CrnEngine::of_engine(control.engine.unwrap_or_default())?;
    let trials = args.trials.trials.unwrap_or(1);
    let seed = control.seed.unwrap_or(0);
    let start = std::time::Instant::now();
    let results = run_trials(&network_file.network, &network_file.init, engine, time, trials, seed, control.threads)?;
    let wall = start.elapsed().as_secs_f64();
    let text = if args.json {
        json(&network_file, &results, time, seed)?
    } else if args.csv {
        csv(&network_file, &results)
    } else {
        human(&network_file, &results, time, seed, wall)
    };
    output::write_text(args.out.as_deref(), &text)
}

/// The options of protocol runs that mean nothing for a network, refused before anything runs.
fn refuse_protocol_options(args: &RunArgs) -> Result<()> {
    let t = &args.trials;
    let given = [
        ("--n", args.target.n.is_some()),
        ("--set", !args.target.set.is_empty()),
        ("--graph", args.target.graph.is_some()),
        ("--init", t.init.is_some()),
        ("--measure", t.measure.is_some()),
        ("--max-steps", t.control.max_steps.is_some()),
        ("--census", t.census),
        ("--estimator", t.splitting.estimator.is_some()),
        ("--fault", !args.faults.is_empty()),
        ("--trace", args.trace.is_some()),
        ("--trace-every", args.trace_every.is_some()),
        ("--checkpoint", args.checkpoint.is_some()),
        ("--resume", args.resume.is_some()),
    ];
    if let Some((option, _)) = given.iter().find(|(_, set)| *set) {
        return Err(InputError(format!(
            "{option} does not apply to a reaction network (its file gives the counts and the volume): a network run \
             takes --time, --trials, --seed, --engine, --threads, --json or --csv and --out"
        ))
        .into());
    }
    Ok(())
}

fn human(network_file: &file::NetworkFile, results: &[NetworkTrial], time: f64, seed: u64, wall: f64) -> String {
    let network = &network_file.network;
    let engine = results.first().map_or("-", |r| r.engine);
    let mut text = format!(
        "{}: {} species, {} reactions, volume {}; {} trial(s) to time {time}, engine {engine}, seed {seed} ({RNG_NAME}), \
         {wall:.3} s wall\n\n| species | start | mean at time {time} | 95% interval | min | max |\n|---|---:|---:|---|---:|---:|\n",
        network_file.name,
        network.species.len(),
        network.reactions.len(),
        network.volume,
        results.len(),
    );
    for (s, name) in network.species.iter().enumerate() {
        let values: Vec<f64> = results.iter().map(|r| r.counts[s] as f64).collect();
        let mean = values.iter().sum::<f64>() / values.len().max(1) as f64;
        let interval = mean_ci95(&values).map_or("-".into(), |[lo, hi]| format!("[{lo:.1}, {hi:.1}]"));
        let min = results.iter().map(|r| r.counts[s]).min().unwrap_or(0);
        let max = results.iter().map(|r| r.counts[s]).max().unwrap_or(0);
        text += &format!("| {name} | {} | {mean:.1} | {interval} | {min} | {max} |\n", network_file.init[s]);
    }
    let reactions: u128 = results.iter().map(|r| r.reactions).sum();
    text += &format!("\n{reactions} reactions fired in all.\n");
    text
}

fn csv(network_file: &file::NetworkFile, results: &[NetworkTrial]) -> String {
    let mut text = format!("trial,seed,engine,reactions,{}\n", network_file.network.species.join(","));
    for (i, r) in results.iter().enumerate() {
        let counts: Vec<String> = r.counts.iter().map(u64::to_string).collect();
        text += &format!("{i},{},{},{},{}\n", r.seed, r.engine, r.reactions, counts.join(","));
    }
    text
}

fn json(network_file: &file::NetworkFile, results: &[NetworkTrial], time: f64, seed: u64) -> Result<String> {
    let network = &network_file.network;
    let reactions: Vec<serde_json::Value> = network
        .reactions
        .iter()
        .map(|r| {
            let side = |list: &[usize]| list.iter().map(|&s| network.species[s].as_str()).collect::<Vec<_>>();
            serde_json::json!({ "reactants": side(&r.reactants), "products": side(&r.products), "rate": r.rate })
        })
        .collect();
    let value = serde_json::json!({
        "network": network_file.name,
        "species": network.species,
        "reactions": reactions,
        "volume": network.volume,
        "init": network_file.init,
        "time": time,
        "seed": seed,
        "generator": RNG_NAME,
        "trials": results,
    });
    Ok(serde_json::to_string_pretty(&value)? + "\n")
}
