//! `poplab reproduce`: every claim of the four papers, measured, fitted, plotted and judged.
//!
//! The claims, their experiments and verdicts are the library's ([`poplab::claims`]): each runs
//! its sweeps into `DIR/data/CLAIM/SWEEP/` (the same files as `poplab sweep`, so an interrupted
//! reproduction continues where it stopped). This command runs them several at once, draws
//! `DIR/plots/CLAIM.svg` and `.png` and the pictures, and writes `DIR/report.md` and
//! `DIR/index.html` with the same content (the HTML embeds its plots and opens offline).

mod intervals;
#[cfg(feature = "pictures")]
mod pictures;
mod report;

use crate::cli::ReproduceArgs;
use anyhow::Result;
use poplab::claims::{Claim, Findings, Mode, Searches, claims};
use poplab::sweep::run_in;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

/// What the report says about one claim: its findings and pictures.
pub struct ClaimResult {
    pub claim: Claim,
    pub findings: Findings,
    /// More pictures of the claim: (what it shows, its SVG file).
    pub diagrams: Vec<(String, PathBuf)>,
    /// Wall time of the claim's experiment and pictures.
    pub seconds: f64,
}

pub fn reproduce(args: &ReproduceArgs) -> Result<()> {
    let mode = match (args.full, args.tiny) {
        (true, _) => Mode::Full,
        (false, true) => Mode::Tiny,
        (false, false) => Mode::Quick,
    };
    let started = Instant::now();
    let known: Vec<&str> = claims(mode, args.seed).iter().map(|c| c.id).collect();
    if let Some(unknown) = args.only.iter().find(|o| !known.contains(&o.as_str())) {
        return Err(
            crate::input::InputError(format!("--only {unknown}: no such claim; claims: {}", known.join(", "))).into()
        );
    }
    if let Some(threads) = args.threads
        && !(1..=poplab::experiment::MAX_THREADS).contains(&threads)
    {
        return Err(crate::input::InputError(format!(
            "--threads {threads}: give from 1 to {} worker threads",
            poplab::experiment::MAX_THREADS
        ))
        .into());
    }
    let selected: Vec<Claim> = claims(mode, args.seed)
        .into_iter()
        .filter(|c| args.only.is_empty() || args.only.iter().any(|o| o == c.id))
        .collect();
    let shard = args.shard.shard()?;
    // The reproduction to compare with is read before anything runs.
    let compare = args.compare.as_deref().map(report::Verdicts::read).transpose()?;
    if args.searches {
        return run_searches(&selected, shard, &args.out, args.threads);
    }
    import_starts(&selected, &args.starts, &args.out)?;
    if let Some(shard) = shard {
        let searches = if args.starts.is_empty() { Searches::Run } else { Searches::Stored };
        return run_shard(selected, shard, &args.out, args.threads, searches);
    }
    if !args.merge.is_empty() {
        merge_shards(&selected, &args.merge, !args.starts.is_empty(), &args.out)?;
    }
    poplab::files::prepare_output_dir(&args.out)?;
    #[cfg(feature = "pictures")]
    poplab::files::prepare_output_dir(&args.out.join("plots"))?;
    #[cfg(not(feature = "pictures"))]
    eprintln!("reproduce: the report will have no plots: {}", crate::commands::NO_PICTURES);
    // The experiments write under data/: a file in its place is refused before any runs.
    poplab::files::prepare_output_dir(&args.out.join("data"))?;
    let results = side_by_side(selected, args.threads, |claim| {
        eprintln!("reproduce: {} ...", claim.id);
        let result = run_claim(claim, &args.out, args.seed, args.threads)?;
        let verdict = result.findings.judgement.verdict.word();
        eprintln!("reproduce: {} -> {verdict} ({:.1} s)", result.claim.id, result.seconds);
        Ok(result)
    })?;
    #[cfg(feature = "pictures")]
    let papers = pictures::paper_summaries(&results, &args.out.join("plots"))?;
    let context = report::Context {
        mode,
        seed: args.seed,
        seconds: started.elapsed().as_secs_f64(),
        compare,
        #[cfg(feature = "pictures")]
        papers,
    };
    report::write(&args.out, &context, &results)?;
    eprintln!("report written to '{}' ({:.0} s)", args.out.join("report.md").display(), context.seconds);
    Ok(())
}

/// Runs `run` on every claim, several at once: every chain of claims ([`chains`]) at once, or
/// `threads` chains at a time in order when given (each sweep then runs on `threads` workers of
/// its own). Claims side by side keep the cores busy while a sweep waits for its slowest trials,
/// and no long claim starts last. What a claim finds does not depend on what runs beside it (its
/// trials are seeded by their index, its files are its own), so the results, returned in the
/// claims' order, are those of one claim after another. After a failure no further claim starts,
/// and the first failure in the claims' order is returned.
fn side_by_side<T: Send>(
    claims: Vec<Claim>,
    threads: Option<usize>,
    run: impl Fn(Claim) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let chains = chains(&claims);
    let workers = threads.unwrap_or(chains.len()).clamp(1, chains.len().max(1));
    let claims: Vec<Mutex<Option<Claim>>> = claims.into_iter().map(|c| Mutex::new(Some(c))).collect();
    let results: Vec<Mutex<Option<Result<T>>>> = claims.iter().map(|_| Mutex::new(None)).collect();
    let (next, failed) = (AtomicUsize::new(0), AtomicBool::new(false));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some(chain) = chains.get(next.fetch_add(1, Ordering::Relaxed)) {
                    for &i in chain {
                        if failed.load(Ordering::Relaxed) {
                            return;
                        }
                        let Some(claim) = claims[i].lock().unwrap_or_else(|e| e.into_inner()).take() else { continue };
                        let result = run(claim);
                        if result.is_err() {
                            failed.store(true, Ordering::Relaxed);
                        }
                        *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
                    }
                }
            });
        }
    });
    let mut done = Vec::new();
    // Claims left out are those a failure stopped: some result below is that failure.
    for result in results.into_iter().filter_map(|r| r.into_inner().unwrap_or_else(|e| e.into_inner())) {
        done.push(result?);
    }
    Ok(done)
}

/// The claims in groups that must run one after another, each in the claims' order: claims that
/// share a sweep directory (an identical sweep runs once, for the first, and the others read it
/// back). Groups are listed by their first claim.
fn chains(claims: &[Claim]) -> Vec<Vec<usize>> {
    let mut chains: Vec<(Vec<usize>, Vec<&String>)> = Vec::new();
    for (i, claim) in claims.iter().enumerate() {
        // Every chain this claim shares a directory with joins the first of them (a claim reading
        // two sweeps links their chains).
        let (mut joined, mut dirs): (Vec<usize>, Vec<&String>) = (vec![i], claim.data.iter().collect());
        let mut at = None;
        let mut k = 0;
        while k < chains.len() {
            if chains[k].1.iter().any(|d| dirs.contains(d)) {
                let (members, shared) = chains.remove(k);
                at.get_or_insert(k);
                joined.extend(members);
                dirs.extend(shared);
            } else {
                k += 1;
            }
        }
        joined.sort_unstable();
        chains.insert(at.unwrap_or(chains.len()), (joined, dirs));
    }
    chains.into_iter().map(|(members, _)| members).collect()
}

/// Runs one claim ([`Claim::run`]), draws its plot and pictures into `out/plots`.
#[cfg_attr(not(feature = "pictures"), allow(unused_variables))]
fn run_claim(claim: Claim, out: &Path, seed: u64, threads: Option<usize>) -> Result<ClaimResult> {
    let started = Instant::now();
    let findings = claim.run(out, threads)?;
    #[cfg(feature = "pictures")]
    let plots = out.join("plots");
    #[cfg(not(feature = "pictures"))]
    let diagrams = Vec::new();
    #[cfg(feature = "pictures")]
    let diagrams = claim
        .pictures
        .iter()
        .map(|picture| pictures::draw(picture, &claim, &findings.trials, &plots, seed, threads))
        .collect::<Result<_>>()?;
    let result = ClaimResult { claim, findings, diagrams, seconds: 0.0 };
    #[cfg(feature = "pictures")]
    {
        let panels = pictures::figures(&result);
        crate::plot::write_grid(&panels, panels.len(), &plots.join(result.claim.id))?;
    }
    Ok(ClaimResult { seconds: started.elapsed().as_secs_f64(), ..result })
}

/// Runs the searches of the claims "from any configuration" into `out` (all, or those of one
/// shard: the searched sizes of every claim, numbered in the claims' order, dealt round-robin).
fn run_searches(
    claims: &[Claim],
    shard: Option<poplab::sweep::Shard>,
    out: &Path,
    threads: Option<usize>,
) -> Result<()> {
    let started = Instant::now();
    poplab::files::prepare_output_dir(&out.join("data"))?;
    let searching: Vec<Claim> = claims.iter().filter(|c| c.worst_starts.is_some()).cloned().collect();
    // Each claim's first job: its sizes are numbered after those of the claims before it.
    let mut firsts = std::collections::HashMap::new();
    let mut first = 0;
    for claim in &searching {
        firsts.insert(claim.id, first);
        first += claim.search_cells()?.len();
    }
    let searched = side_by_side(searching, threads, |claim| {
        let first = firsts[claim.id];
        let seconds = claim.search_starts(out, threads, &|i| shard.is_none_or(|s| s.contains((first + i) as u64)))?;
        eprintln!("reproduce: the searches of {} done ({seconds:.0} core-s)", claim.id);
        Ok(seconds)
    })?;
    eprintln!(
        "{} of the searches ({first} sizes in all) written to '{}' ({:.0} s wall, {:.0} core-s); give it to the \
         shards and the merge with --starts",
        shard.map_or("all".to_string(), |s| s.describe()),
        out.display(),
        started.elapsed().as_secs_f64(),
        searched.iter().sum::<f64>()
    );
    Ok(())
}

/// Copies the searches stored under each of `from` (`reproduce --searches` directories) into
/// `out`; a record already there must be the same.
fn import_starts(claims: &[Claim], from: &[PathBuf], out: &Path) -> Result<()> {
    for dir in from {
        if !dir.join("data").is_dir() {
            return Err(crate::input::InputError(format!(
                "--starts {}: not a `poplab reproduce --searches` directory (it has no data/ directory)",
                dir.display()
            ))
            .into());
        }
        for claim in claims.iter().filter(|c| c.worst_starts.is_some()) {
            let starts = format!("data/{}/starts", claim.id);
            if dir.join(&starts).is_dir() {
                copy_files(&dir.join(&starts), &out.join(&starts))?;
            }
        }
    }
    Ok(())
}

/// Runs one shard of every claim's sweeps into `out` (no analysis: `--merge` joins the shards and
/// writes the report). Claims measured by the splitting estimator are not sharded: the merging
/// run estimates them.
fn run_shard(
    claims: Vec<Claim>,
    shard: poplab::sweep::Shard,
    out: &Path,
    threads: Option<usize>,
    searches: Searches,
) -> Result<()> {
    let started = Instant::now();
    let claims = claims.into_iter().filter(|c| !c.estimates()).collect();
    side_by_side(claims, threads, |claim| {
        // A claim "from any configuration" searches its starts in every shard (the same starts:
        // the searches are seeded and budgeted in candidates), so its sweeps are the same; with
        // --starts the searches ran apart and are read back.
        let (claim, _) = claim.with_found_starts(out, threads, searches)?;
        for (i, spec) in claim.sweeps.iter().enumerate() {
            let mut spec = poplab::sweep::SweepSpec { shard: Some(shard), ..spec.clone() };
            spec.template.threads = threads;
            run_in(&spec, &out.join(claim.data_dir(i)), &|_| {}, &|| {})?;
        }
        eprintln!("reproduce: {} ({}) done", claim.id, shard.describe());
        Ok(())
    })?;
    eprintln!(
        "{} of the reproduction written to '{}' ({:.0} s); join the shards with poplab reproduce --merge",
        shard.describe(),
        out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Joins the shards of every claim's sweeps, stored under each of `parts`, into `out`: every
/// merge is checked before any is written. The searches are read from the first part, or from
/// `out` when they were imported there (`--starts`).
fn merge_shards(claims: &[Claim], parts: &[PathBuf], imported: bool, out: &Path) -> Result<()> {
    if let Some(part) = parts.iter().find(|part| !part.is_dir()) {
        return Err(crate::input::InputError(format!(
            "--merge {}: no such directory; give the --out directories of the reproduce --shard runs",
            part.display()
        ))
        .into());
    }
    let not_a_shard = |part: &Path, what: String| {
        crate::input::InputError(format!(
            "--merge {}: {what}; give the --out directories of `poplab reproduce --shard I/K` runs with the same \
             mode, --only and --seed",
            part.display()
        ))
    };
    if let Some(part) = parts.iter().find(|part| !part.join("data").is_dir()) {
        return Err(not_a_shard(part, "not a reproduction shard (it has no data/ directory)".into()).into());
    }
    // The sweeps of a claim "from any configuration" are those of the starts its searches found,
    // read back from the first shard (every shard found the same), whose records are copied.
    let searched = if imported { out } else { &parts[0] };
    let claims: Vec<Claim> = claims
        .iter()
        .filter(|c| !c.estimates())
        .map(|c| c.with_found_starts(searched, None, Searches::Stored).map(|(claim, _)| claim))
        .collect::<poplab::Result<_>>()?;
    let starts: Vec<String> =
        claims.iter().filter(|c| c.worst_starts.is_some()).map(|c| format!("data/{}/starts", c.id)).collect();
    let mut dirs: Vec<&String> = claims.iter().flat_map(|c| &c.data).collect();
    dirs.sort();
    dirs.dedup();
    let mut plans = Vec::new();
    for dir in dirs {
        if let Some(part) = parts.iter().find(|part| !part.join(dir).is_dir()) {
            return Err(not_a_shard(part, format!("has no shard of the sweep {dir}")).into());
        }
        let shards: Vec<_> = parts.iter().map(|part| part.join(dir)).collect();
        plans.push(poplab::sweep::plan_merge(&out.join(dir), &shards)?);
    }
    for plan in plans {
        plan.write()?;
    }
    if !imported {
        for dir in starts {
            copy_files(&parts[0].join(&dir), &out.join(&dir))?;
        }
    }
    Ok(())
}

/// Copies the files of directory `from` into `to` (made if missing), each written atomically; a
/// file already in `to` must have the same content.
fn copy_files(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let path = entry?.path();
        if let Some(name) = path.file_name().filter(|_| path.is_file()) {
            let text = std::fs::read_to_string(&path)?;
            let target = to.join(name);
            match std::fs::read_to_string(&target) {
                Ok(there) if there == text => {}
                Ok(_) => {
                    return Err(crate::input::InputError(format!(
                        "{} differs from {}: the two come from different searches (another seed, mode or \
                         version); use one reproduction's searches",
                        target.display(),
                        path.display()
                    ))
                    .into());
                }
                Err(_) => poplab::files::write_atomic(&target, &text)?,
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_sharing_a_sweep_form_one_chain_the_others_run_apart() {
        let all = claims(Mode::Quick, 1);
        let chains = chains(&all);
        let ids: Vec<Vec<&str>> = chains.iter().map(|c| c.iter().map(|&i| all[i].id).collect()).collect();
        assert_eq!(ids.len(), all.len() - 3);
        assert!(ids.contains(&vec!["pll-stabilisation", "pll-states", "pll-as-printed", "pll-errata"]), "{ids:?}");
        assert!(ids.iter().filter(|c| c.len() > 1).count() == 1, "{ids:?}");
        // Every claim once, in order within its chain.
        let mut listed: Vec<usize> = chains.concat();
        listed.sort();
        assert_eq!(listed, (0..all.len()).collect::<Vec<_>>());
    }
}
