//! `poplab run @FILE.toml --time T` where the file is a reaction network (a `[reactions]`
//! section, `poplab::crn::file`): independent runs to time `T`, the counts at `T` per trial and
//! their means.

use crate::cli::{RunArgs, SweepArgs, TargetArgs, TrialArgs};
use crate::input::InputError;
use crate::output;
use crate::parse::parse_n;
use anyhow::Result;
use poplab::crn::{CrnEngine, CrnStop, Network, NetworkTrial, TrialPlan, file, run_trials};
use poplab::files;
use poplab::judge::ClaimText;
use poplab::rng::{RNG_NAME, trial_seed};
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
    let n =
        args.target.n.as_deref().map(|n| parse_n(n).map_err(|e| InputError(format!("--n {n}: {e}")))).transpose()?;
    let (network, init) = network_file.start(n)?;
    if args.trace_time.is_some() && args.trace.is_none() {
        return Err(InputError("--trace-time goes with --trace FILE, the file the time series goes to".into()).into());
    }
    let outputs: Vec<(&str, &std::path::Path)> =
        [args.out.as_deref().map(|f| ("--out", f)), args.trace.as_deref().map(|f| ("--trace", f))]
            .into_iter()
            .flatten()
            .collect();
    for (_, file) in &outputs {
        files::check_output_file(file)?;
    }
    files::check_apart(&outputs, &[("the network file", std::path::Path::new(path))])?;
    let control = &args.trials.control;
    let engine = CrnEngine::of_engine(control.engine.unwrap_or_default())?;
    let trials = args.trials.trials.unwrap_or(1);
    let seed = control.seed.unwrap_or(0);
    let start = std::time::Instant::now();
    let stop = network_file.stop.as_ref();
    let every = args.trace.as_ref().map(|_| args.trace_time.unwrap_or(time / 100.0).max(f64::MIN_POSITIVE));
    if let Some(every) = every {
        let rows = (time / every + 2.0) * trials as f64;
        if rows > 1e7 {
            return Err(InputError(format!(
                "--trace-time {every} over --time {time} and {trials} trial(s) makes {rows:.3e} rows, more than the 10^7 a \
                 time series takes: give a larger --trace-time"
            ))
            .into());
        }
    }
    let plan = TrialPlan { engine, until: time, stop, trials, seed, threads: control.threads, every };
    let results = run_trials(&network, &init, &plan)?;
    let wall = start.elapsed().as_secs_f64();
    if let Some(trace) = &args.trace {
        let mut text = format!("trial,time,{}\n", network.species.join(","));
        for (i, r) in results.iter().enumerate() {
            for (t, counts) in &r.series {
                let counts: Vec<String> = counts.iter().map(u64::to_string).collect();
                text += &format!("{i},{t},{}\n", counts.join(","));
            }
        }
        files::write_atomic(trace, &text)?;
    }
    let run = Ran { name: &network_file.name, network: &network, init: &init, stop, time, seed };
    let text = if args.json {
        run.json(&results)?
    } else if args.csv {
        csv(&network, &results)
    } else {
        run.human(&results, wall)
    };
    output::write_text(args.out.as_deref(), &text)
}

/// `poplab sweep @FILE.toml --n LIST --time T`: the runs of each size (the file's [init] as
/// fractions of n), a row per size; with `--claim`, the claim judged on the times the file's stop
/// took (censored at `--time`). Cell `n` has master seed `trial_seed(seed, n)`.
pub fn sweep(args: &SweepArgs) -> Result<()> {
    let path = args.target.protocol.as_deref().and_then(|p| p.strip_prefix('@')).unwrap_or_default();
    let t = &args.trials;
    let sweep_only = [
        ("--resume", args.resume.is_some()),
        ("--checkpoint-every", args.checkpoint_every.is_some()),
        ("--shard", args.shard.shard.is_some() || args.shard.shard_from_env),
    ];
    let given = protocol_options(&args.target, t).into_iter().chain(sweep_only).find(|(_, set)| *set);
    if let Some((option, _)) = given {
        return Err(InputError(format!(
            "{option} does not apply to a reaction network's sweep: it takes --n, --time, --trials, --seed, --engine, \
             --threads, --claim and --out"
        ))
        .into());
    }
    let Some(time) = args.time else {
        return Err(InputError(format!("@{path} is a reaction network: give the time to run to, as --time 1")).into());
    };
    let Some(sizes) = args.target.n.as_deref() else {
        return Err(InputError("a network's sweep needs the sizes, as --n 10^3..10^6*10".into()).into());
    };
    let sizes: Vec<u64> = poplab::numbers::parse_list(sizes)?
        .iter()
        .map(|s| parse_n(s).map_err(|e| InputError(format!("--n {s}: {e}"))))
        .collect::<Result<_, _>>()?;
    let claims: Vec<ClaimText> = args.claim.iter().map(|c| ClaimText::parse(c)).collect::<poplab::Result<_>>()?;
    let network_file = file::read(path)?;
    if !claims.is_empty() && network_file.stop.is_none() {
        return Err(InputError(format!(
            "--claim judges the time a run takes to its stop: give @{path} one, as stop = \"F <= 0\""
        ))
        .into());
    }
    let starts: Vec<(u64, (Network, Vec<u64>))> =
        sizes.iter().map(|&n| network_file.start(Some(n)).map(|s| (n, s))).collect::<poplab::Result<_>>()?;
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir)
            .map_err(|e| InputError(format!("--out {}: cannot create it ({e})", dir.display())))?;
        files::check_output_file(&dir.join(SWEEP_FILE))?;
    }
    let control = &t.control;
    let engine = CrnEngine::of_engine(control.engine.unwrap_or_default())?;
    let trials = t.trials.unwrap_or(10);
    let seed = control.seed.unwrap_or(0);
    let stop = network_file.stop.as_ref();
    let mut table = String::from("n,trial,seed,engine,stopped,time,reactions");
    for species in &network_file.network.species {
        table += &format!(",{species}");
    }
    table.push('\n');
    let mut values = Vec::new();
    println!("{}: {trials} trial(s) per n to time {time}, seed {seed} ({RNG_NAME})\n", network_file.name);
    println!(
        "| n | engine | stopped | mean time to the stop | 95% interval | {} |",
        mean_headers(&network_file.network)
    );
    println!("|---:|---|---:|---:|---|{}", "---:|".repeat(network_file.network.species.len()));
    for (n, (network, init)) in &starts {
        let plan = TrialPlan {
            engine,
            until: time,
            stop,
            trials,
            seed: trial_seed(seed, *n),
            threads: control.threads,
            every: None,
        };
        let results = run_trials(network, init, &plan)?;
        let stopped: Vec<f64> = results.iter().filter_map(|r| r.stopped).collect();
        let mean = (!stopped.is_empty()).then(|| stopped.iter().sum::<f64>() / stopped.len() as f64);
        let interval = mean_ci95(&stopped).map_or("-".into(), |[lo, hi]| format!("[{lo:.4}, {hi:.4}]"));
        let means: Vec<String> = (0..network.species.len())
            .map(|s| format!("{:.1}", results.iter().map(|r| r.counts[s] as f64).sum::<f64>() / results.len() as f64))
            .collect();
        println!(
            "| {n} | {} | {}/{} | {} | {interval} | {} |",
            results.first().map_or("-", |r| r.engine),
            stopped.len(),
            results.len(),
            mean.map_or("-".into(), |m| format!("{m:.4}")),
            means.join(" | ")
        );
        for (i, r) in results.iter().enumerate() {
            let counts: Vec<String> = r.counts.iter().map(u64::to_string).collect();
            let at = r.stopped.map_or(String::new(), |t| t.to_string());
            table += &format!(
                "{n},{i},{},{},{},{at},{},{}\n",
                r.seed,
                r.engine,
                r.stopped.is_some(),
                r.reactions,
                counts.join(",")
            );
            values.push((*n as f64, r.stopped.unwrap_or(time), r.stopped.is_none()));
        }
    }
    let mut documents = Vec::new();
    for claim in &claims {
        let judgement = poplab::claims::judge_values(&values, claim, "n", &[])?;
        println!(
            "claim {} (time to the stop): {}{}: {}",
            claim.text,
            judgement.verdict.word(),
            judgement.power.map_or(String::new(), |p| format!(" (power {:.2})", p.decide)),
            judgement.evidence
        );
        documents.push(serde_json::json!({ "claim": claim.text, "unit": "time", "judgement": judgement }));
    }
    if let Some(dir) = &args.out {
        files::write_atomic(&dir.join(SWEEP_FILE), &table)?;
        if !documents.is_empty() {
            files::write_atomic(&dir.join("claims.json"), &(serde_json::to_string_pretty(&documents)? + "\n"))?;
        }
        eprintln!("network sweep written to '{}'", dir.join(SWEEP_FILE).display());
    }
    Ok(())
}

/// The file a network's sweep writes into `--out`: a row per run.
const SWEEP_FILE: &str = "network-sweep.csv";

fn mean_headers(network: &Network) -> String {
    network.species.iter().map(|s| format!("mean {s} at the end")).collect::<Vec<_>>().join(" | ")
}

/// The options of protocol trials (`run` and `sweep`) that mean nothing for a network: each with
/// whether it was given.
fn protocol_options(target: &TargetArgs, t: &TrialArgs) -> [(&'static str, bool); 7] {
    [
        ("--set", !target.set.is_empty()),
        ("--graph", target.graph.is_some()),
        ("--init", t.init.is_some()),
        ("--measure", t.measure.is_some()),
        ("--max-steps", t.control.max_steps.is_some()),
        ("--census", t.census),
        ("--estimator", t.splitting.estimator.is_some()),
    ]
}

/// The options of protocol runs that mean nothing for a network, refused before anything runs.
fn refuse_protocol_options(args: &RunArgs) -> Result<()> {
    let run_only = [
        ("--fault", !args.faults.is_empty()),
        ("--trace-every (give --trace-time)", args.trace_every.is_some()),
        ("--checkpoint", args.checkpoint.is_some()),
        ("--resume", args.resume.is_some()),
    ];
    let given = protocol_options(&args.target, &args.trials).into_iter().chain(run_only).find(|(_, set)| *set);
    if let Some((option, _)) = given {
        return Err(InputError(format!(
            "{option} does not apply to a reaction network (its file gives the counts and the volume): a network run \
             takes --n (for [init] as fractions), --time, --trace and --trace-time, --trials, --seed, --engine, --threads, --json or --csv and --out"
        ))
        .into());
    }
    Ok(())
}

/// What a network's run was: for its outputs.
struct Ran<'a> {
    name: &'a str,
    network: &'a Network,
    init: &'a [u64],
    stop: Option<&'a CrnStop>,
    time: f64,
    seed: u64,
}

impl Ran<'_> {
    fn human(&self, results: &[NetworkTrial], wall: f64) -> String {
        let (network, time) = (self.network, self.time);
        let engine = results.first().map_or("-", |r| r.engine);
        let mut text = format!(
            "{}: {} species, {} reactions, volume {}; {} trial(s) to time {time}, engine {engine}, seed {} \
             ({RNG_NAME}), {wall:.3} s wall\n",
            self.name,
            network.species.len(),
            network.reactions.len(),
            network.volume,
            results.len(),
            self.seed,
        );
        if self.stop.is_some() {
            let stopped: Vec<f64> = results.iter().filter_map(|r| r.stopped).collect();
            let interval = mean_ci95(&stopped).map_or("-".into(), |[lo, hi]| format!("[{lo:.4}, {hi:.4}]"));
            let mean = stopped.iter().sum::<f64>() / stopped.len().max(1) as f64;
            text += &format!(
                "stop held in {} of {} runs, at mean time {mean:.4} (95% interval {interval}); the others ran to {time} \
                 (censored: at least {time})\n",
                stopped.len(),
                results.len()
            );
        }
        text += "
| species | start | mean at the end | 95% interval | min | max |
|---|---:|---:|---|---:|---:|
";
        for (s, name) in network.species.iter().enumerate() {
            let values: Vec<f64> = results.iter().map(|r| r.counts[s] as f64).collect();
            let mean = values.iter().sum::<f64>() / values.len().max(1) as f64;
            let interval = mean_ci95(&values).map_or("-".into(), |[lo, hi]| format!("[{lo:.1}, {hi:.1}]"));
            let min = results.iter().map(|r| r.counts[s]).min().unwrap_or(0);
            let max = results.iter().map(|r| r.counts[s]).max().unwrap_or(0);
            text += &format!("| {name} | {} | {mean:.1} | {interval} | {min} | {max} |\n", self.init[s]);
        }
        let reactions: u128 = results.iter().map(|r| r.reactions).sum();
        text += &format!("\n{reactions} reactions fired in all.\n");
        text
    }

    fn json(&self, results: &[NetworkTrial]) -> Result<String> {
        let network = self.network;
        let reactions: Vec<serde_json::Value> = network
            .reactions
            .iter()
            .map(|r| {
                let side = |list: &[usize]| list.iter().map(|&s| network.species[s].as_str()).collect::<Vec<_>>();
                serde_json::json!({ "reactants": side(&r.reactants), "products": side(&r.products), "rate": r.rate })
            })
            .collect();
        let value = serde_json::json!({
            "network": self.name,
            "species": network.species,
            "reactions": reactions,
            "volume": network.volume,
            "init": self.init,
            "stop": self.stop.map(|s| format!("{s:?}")),
            "time": self.time,
            "seed": self.seed,
            "generator": RNG_NAME,
            "trials": results,
        });
        Ok(serde_json::to_string_pretty(&value)? + "\n")
    }
}

fn csv(network: &Network, results: &[NetworkTrial]) -> String {
    let mut text = format!("trial,seed,engine,stopped,time,reactions,{}\n", network.species.join(","));
    for (i, r) in results.iter().enumerate() {
        let counts: Vec<String> = r.counts.iter().map(u64::to_string).collect();
        let at = r.stopped.map_or(String::new(), |t| t.to_string());
        text +=
            &format!("{i},{},{},{},{at},{},{}\n", r.seed, r.engine, r.stopped.is_some(), r.reactions, counts.join(","));
    }
    text
}
