//! The report: the same blocks rendered as Markdown (`report.md`) and as an offline HTML page
//! (`index.html`, plots embedded).

use super::ClaimResult;
use super::intervals::interval;
use crate::output::write_text;
use crate::typeset::typeset;
use anyhow::Result;
use poplab::claims::{Claim, FoundStarts, Mode, Remeasured, Row};
use poplab::rng::RNG_NAME;
use poplab::spec::Estimator;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The file of a report's verdicts, read back by another report's `--compare`.
pub const VERDICTS_FILE: &str = "verdicts.json";

/// Facts about the whole reproduction.
pub struct Context {
    pub mode: Mode,
    pub seed: u64,
    pub seconds: f64,
    /// The verdicts of another reproduction to set beside these (`--compare`).
    pub compare: Option<Verdicts>,
    /// One summary figure per paper: (paper, SVG file).
    #[cfg(feature = "pictures")]
    pub papers: Vec<(String, std::path::PathBuf)>,
}

/// What `verdicts.json` holds: a reproduction's mode and seed and each claim's verdict.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Verdicts {
    pub mode: String,
    pub seed: u64,
    pub claims: Vec<ClaimVerdict>,
}

/// One claim's verdict and the figures beside it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimVerdict {
    pub id: String,
    pub verdict: String,
    pub evidence: String,
    /// The probability that the design decides, estimated from its data.
    pub power: Option<f64>,
    /// The exponent of a power law fitted to the means, and its 95% interval.
    pub exponent: Option<f64>,
    pub exponent_ci95: Option<[f64; 2]>,
    /// The processor time of the claim's trials, in core-hours (none when every trial was read back).
    pub core_hours: Option<f64>,
    /// The processor time of its searches for slow starts, in core-hours.
    pub search_core_hours: f64,
    /// The wall time of the claim (its experiment and pictures), in seconds.
    pub seconds: f64,
}

impl Verdicts {
    fn of(context: &Context, results: &[ClaimResult]) -> Self {
        Verdicts {
            mode: mode_flag(context.mode).trim_start_matches("--").into(),
            seed: context.seed,
            claims: results
                .iter()
                .map(|r| ClaimVerdict {
                    id: r.claim.id.into(),
                    verdict: r.findings.judgement.verdict.word().into(),
                    evidence: r.findings.judgement.evidence.clone(),
                    power: r.findings.judgement.power.map(|p| p.decide),
                    exponent: r.findings.power.as_ref().map(|p| p.exponent),
                    exponent_ci95: r.findings.power.as_ref().and_then(|p| p.exponent_ci95),
                    core_hours: r.findings.core_hours(),
                    search_core_hours: r.findings.starts.core_seconds() / 3600.0,
                    seconds: r.seconds,
                })
                .collect(),
        }
    }

    /// The verdicts stored in `dir` (a report directory), checked as strictly as input.
    pub fn read(dir: &Path) -> Result<Self> {
        let path = dir.join(VERDICTS_FILE);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            crate::input::InputError(format!(
                "--compare {}: cannot read {} ({e}); give the directory of a report written by poplab reproduce",
                dir.display(),
                path.display()
            ))
        })?;
        serde_json::from_str(&text).map_err(|e| {
            crate::input::InputError(format!(
                "--compare {}: {} is not a report's verdicts ({e}); write it again with poplab reproduce",
                dir.display(),
                path.display()
            ))
            .into()
        })
    }
}

fn mode_flag(mode: Mode) -> &'static str {
    match mode {
        Mode::Tiny => "--tiny",
        Mode::Quick => "--quick",
        Mode::Full => "--full",
    }
}

/// The exponent of a claim's power-law fit and its interval, in words.
fn exponent(claim: Option<&ClaimVerdict>) -> String {
    match claim.and_then(|c| c.exponent.map(|e| (e, c.exponent_ci95))) {
        Some((e, Some([lo, hi]))) => format!("{} [{}, {}]", number(e), number(lo), number(hi)),
        Some((e, None)) => number(e),
        None => "-".into(),
    }
}

/// The table of this reproduction's verdicts beside `other`'s, claim by claim.
fn comparison(context: &Context, other: &Verdicts, results: &[ClaimResult]) -> Vec<Block> {
    let here = Verdicts::of(context, results);
    let (a, b) = (mode_flag(context.mode), format!("--{}", other.mode));
    let rows = here
        .claims
        .iter()
        .map(|mine| {
            let theirs = other.claims.iter().find(|c| c.id == mine.id);
            let verdict = theirs.map_or("-".to_string(), |c| c.verdict.clone());
            let agree = match theirs {
                None => "not in the other",
                Some(c) if c.verdict == mine.verdict => "same",
                Some(_) => "differs: see the claim",
            };
            vec![mine.id.clone(), mine.verdict.clone(), verdict, exponent(Some(mine)), exponent(theirs), agree.into()]
        })
        .collect();
    vec![
        Block::Heading(2, format!("{a} against {b}")),
        Block::Paragraph(format!(
            "Each claim's verdict here ({a}, seed {}) and in the reproduction compared ({b}, seed {}), with the exponent \
             of a power law fitted to the means and its 95% interval (the slope of ln mean on ln x; none for exact, \
             estimated or compared claims). A claim decided one way here and another way there is a finding to explain.",
            context.seed, other.seed
        )),
        Block::Table(
            [
                "claim",
                &format!("verdict {a}"),
                &format!("verdict {b}"),
                &format!("exponent {a}"),
                &format!("exponent {b}"),
                "verdicts",
            ]
            .map(String::from)
            .to_vec(),
            rows,
        ),
    ]
}

/// A piece of the report.
enum Block {
    Heading(usize, String),
    Paragraph(String),
    Table(Vec<String>, Vec<Vec<String>>),
    Image { alt: String, svg: String },
}

fn number(v: f64) -> String {
    if v.abs() >= 1e6 || (v != 0.0 && v.abs() < 1e-3) {
        format!("{v:.4e}")
    } else {
        format!("{:.4}", v).trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

fn blocks(context: &Context, results: &[ClaimResult], out: &Path) -> Vec<Block> {
    let mode = mode_flag(context.mode);
    let mut blocks = vec![
        Block::Heading(1, "poplab reproduce: the claims of the four papers".into()),
        Block::Paragraph(format!(
            "Mode {mode}, master seed {} (run `poplab reproduce {mode} --seed {}` to reproduce every number), engines as \
             named per experiment (--engine auto), generator {RNG_NAME}, poplab {}, wall time {:.0} s for the {} trials run \
             now{}. Every time is labelled steps or parallel time (steps / n); every trial that reached its horizon is \
             censored and counts only as a lower bound.",
            context.seed,
            context.seed,
            env!("CARGO_PKG_VERSION"),
            context.seconds,
            results.iter().map(|r| r.findings.trials_run).sum::<u64>(),
            reused(results.iter().map(|r| r.findings.trials_reused).sum()),
        )),
        Block::Heading(2, "Verdicts".into()),
        Block::Table(
            ["claim", "source", "verdict", "power", "evidence"].map(String::from).to_vec(),
            results
                .iter()
                .map(|r| {
                    vec![
                        r.claim.id.into(),
                        r.claim.source.into(),
                        r.findings.judgement.verdict.word().into(),
                        r.findings.judgement.power.map_or("-".into(), |p| format!("{:.2}", p.decide)),
                        format!(
                            "{}{}",
                            match (r.claim.worst_starts, r.claim.scope) {
                                (Some(_), _) => "(slowest starts found) ",
                                (None, Some(_)) => "(one family of starts) ",
                                (None, None) => "",
                            },
                            r.findings.judgement.evidence
                        ),
                    ]
                })
                .collect(),
        ),
    ];
    if let Some(other) = &context.compare {
        blocks.extend(comparison(context, other, results));
    }
    blocks.push(Block::Heading(2, "Summary by paper".into()));
    #[cfg(not(feature = "pictures"))]
    blocks.push(Block::Paragraph(format!("No pictures: {}.", crate::commands::NO_PICTURES)));
    #[cfg(feature = "pictures")]
    for (paper, svg) in &context.papers {
        let claims: Vec<&str> =
            results.iter().filter(|r| super::pictures::paper(r.claim.source) == paper).map(|r| r.claim.id).collect();
        blocks.push(Block::Paragraph(format!("Paper {paper}: {}.", claims.join(", "))));
        blocks.push(Block::Image { alt: format!("paper {paper}"), svg: svg.to_string_lossy().into() });
    }
    blocks.extend([
        Block::Heading(2, "How verdicts are decided".into()),
        Block::Paragraph(
            "Every rule is about the mean, the quantity the claims are about, and each wrong decision has probability \
             at most 0.001 where its assumptions hold (docs/verdicts.md gives every rule's operating characteristics on \
             synthetic data). Upper bounds O(f): the slope of ln(mean / f) against ln x, fitted with the means' standard \
             errors, is compared with a margin of half the slope the next faster form f ln x would give (1 / ln x): \
             below it by t standard errors (one-sided level 0.001, Student t on the trials' degrees of freedom) is \
             consistent, above it by as much inconsistent, otherwise inconclusive; lower-order terms and integer steps \
             that fade do not count against the claim, faster growth does, and the decision gets surer as trials are \
             added. Omega(f) is the mirror image. P_LL's means are post-stratified on whether QuickElimination ended the \
             run, whose probability 1/(2 ln 2) is exact. Exact expectations: per point the mean against the claimed value \
             at family-wise level 0.001 (Bonferroni), with the law's exact variance and skewness where known \
             (Cornish-Fisher), else Student t; any rejection is inconsistent. A count of states known exactly is judged by \
             the same growth rule on the exact counts. Certainties: every trial must end as claimed. Lower bounds \
             Omega(e^(r x)): the slope of ln E against x, one-sided at level 0.001 (widened when the points scatter more \
             than their errors), at or above r is consistent, below r inconsistent, within its error of r inconclusive. \
             Comparisons (an erratum): the ratio of the two variants' means per n, with bootstrap intervals paired by \
             trial at family-wise level 0.001: some above 1 and none below consistent, the reverse inconsistent, else \
             inconclusive. Experiments that do not meet their claim's hypotheses (shortened constants) report their \
             rate and are inconclusive. Any censored trial makes a mean inconclusive. Each claim's design gives its \
             power estimated from its own data and, where it did not decide, the design that would, with its cost."
                .into(),
        ),
    ]);
    for result in results {
        blocks.extend(claim_blocks(result, out));
    }
    blocks
}

#[cfg_attr(not(feature = "pictures"), allow(unused_variables))]
fn claim_blocks(result: &ClaimResult, out: &Path) -> Vec<Block> {
    let claim = &result.claim;
    let mut blocks = vec![
        Block::Heading(2, format!("{}: {}", claim.id, claim.title)),
        Block::Paragraph(format!("Claim ({}): {}", claim.source, typeset(claim.statement))),
        Block::Paragraph(format!("Sizes: {}", claim.sizes)),
    ];
    if let Some(scope) = claim.scope {
        blocks.push(Block::Paragraph(format!("Scope: {scope}.")));
    }
    for (i, spec) in claim.sweeps.iter().enumerate() {
        let params: Vec<String> = spec.params.iter().map(|(k, v)| format!("{k} in {{{}}}", v.join(", "))).collect();
        let trials = match &spec.template.estimator {
            Estimator::Direct => format!("{} trials per cell", spec.template.trials),
            Estimator::Splitting(e) => format!(
                "splitting estimator (score {}, {} independent repetitions of {} replicas and {} cycles per cell)",
                e.score.as_deref().unwrap_or("the protocol's first"),
                spec.template.trials,
                e.replicas,
                e.cycles
            ),
        };
        blocks.push(Block::Paragraph(format!(
            "Experiment {}: protocol {}, n in {{{}}}{}{}, init {}, measure {}, {trials}, master seed {}, horizon {} steps, \
             engine {}; data in {}/{}.",
            i + 1,
            spec.template.protocol,
            spec.ns.iter().map(u64::to_string).collect::<Vec<_>>().join(", "),
            if params.is_empty() { "" } else { ", " },
            params.join(", "),
            spec.init_label(),
            spec.template.measure.name(),
            spec.template.seed,
            spec.template.max_steps,
            result.findings.engines.get(i).map_or("-", String::as_str),
            claim.data[i],
            match claim.data[i].split('/').nth(1) {
                Some(owner) if owner != claim.id => format!(" (claim {owner}'s sweep: identical, run once)"),
                _ => String::new(),
            },
        )));
    }
    blocks.extend(start_blocks(claim, &result.findings.starts));
    #[cfg(feature = "pictures")]
    let svg_path = out.join("plots").join(format!("{}.svg", claim.id));
    #[cfg(feature = "pictures")]
    blocks.push(Block::Image { alt: claim.id.into(), svg: svg_path.to_string_lossy().into() });
    for (what, svg) in &result.diagrams {
        blocks.push(Block::Paragraph(format!("{what}.")));
        blocks.push(Block::Image { alt: what.clone(), svg: svg.to_string_lossy().into() });
    }
    let unit = claim.y.label();
    blocks.push(Block::Table(
        vec![
            claim.x.name().into(),
            "trials".into(),
            "ended".into(),
            "censored".into(),
            format!("mean ({unit})"),
            "95% CI (bootstrap)".into(),
            "median".into(),
        ],
        result.findings.rows.iter().map(row_cells).collect(),
    ));
    let mut fits = Vec::new();
    if let Some(p) = &result.findings.power {
        let ci = p.exponent_ci95.map(|[lo, hi]| format!(" (95% CI [{lo:.3}, {hi:.3}])")).unwrap_or_default();
        fits.push(format!(
            "power law c x^e on the means: e = {:.3}{ci}, c = {}, R^2 = {:.4}",
            p.exponent,
            number(p.coefficient),
            p.r2
        ));
    }
    if let Some(f) = &result.findings.form_fit {
        fits.push(format!(
            "claimed form a + b {}: a = {}, b = {}, R^2 = {:.4}",
            f.form,
            number(f.a),
            number(f.b),
            f.r2
        ));
    }
    if !fits.is_empty() {
        blocks.push(Block::Paragraph(typeset(&format!("Fits: {}.", fits.join("; ")))));
    }
    blocks.push(Block::Paragraph(format!("Design: {}.", result.findings.design(claim))));
    blocks.push(Block::Paragraph(format!(
        "Verdict: **{}**: {} ({:.1} s for {} trials run now{}).",
        result.findings.judgement.verdict.word(),
        result.findings.judgement.evidence,
        result.seconds,
        result.findings.trials_run,
        reused(result.findings.trials_reused)
    )));
    blocks
}

/// The starts a claim "from any configuration" was measured from: per size the slowest start a
/// search found against the sweep's family, and the search against the exact worst start.
fn start_blocks(claim: &Claim, found: &FoundStarts) -> Vec<Block> {
    let Some(worst) = claim.worst_starts else { return Vec::new() };
    let interval = |r: &Remeasured| {
        let lower = if r.censored > 0 { ">= " } else { "" };
        format!("{lower}{} [{}, {}]", number(r.mean_parallel_time), number(r.ci95[0]), number(r.ci95[1]))
    };
    let mut blocks = vec![
        Block::Paragraph(format!(
            "Starts: at each size a search raced {} candidate starts (the protocol's families, its parameterized \
             families, corners of the count simplex, mutations of the slowest) on common seeds, and re-measured the \
             slowest and the family {} with {} fresh trials each (parallel time, mean and 95% interval); the claim's \
             trials above start from the slower of the two (the start found is in the file named, in the report's \
             directory).",
            worst.candidates, worst.family, worst.remeasure
        )),
        Block::Table(
            vec![
                claim.x.name().into(),
                "start found".into(),
                "its mean".into(),
                format!("{} mean", worst.family),
                "ratio".into(),
                "measured from".into(),
                "file".into(),
            ],
            found
                .starts
                .iter()
                .map(|s| {
                    vec![
                        number(s.x),
                        s.found.description.clone(),
                        interval(&s.found),
                        interval(&s.family),
                        format!("{:.2}", s.found.mean_parallel_time / s.family.mean_parallel_time),
                        if s.uses_family() { worst.family.to_string() } else { "the start found".to_string() },
                        s.file.clone(),
                    ]
                })
                .collect(),
        ),
    ];
    if let Some(exact) = &found.exact {
        blocks.push(Block::Paragraph(format!(
            "Against the exact worst start ({}, `poplab exact --from all`): the exact worst is {} parallel time ({} \
             start{} share it); the search ({} candidates) found {} (exactly {}), re-measured with {} fresh trials at \
             {}: z = {:.2} against the exact worst, {} at level 0.001.",
            exact.instance,
            number(exact.exact_worst_parallel_time),
            exact.exact_ties,
            if exact.exact_ties == 1 { "" } else { "s" },
            poplab::claims::EXACT_CHECK_CANDIDATES,
            exact.found.description,
            number(exact.found_exact_parallel_time),
            exact.found.trials,
            interval(&exact.found),
            exact.z,
            if exact.z.abs() < 3.29 { "which agrees" } else { "which does not agree" }
        )));
    }
    blocks
}

/// `; N trials read back from data/ ...` when some were.
fn reused(trials: u64) -> String {
    if trials == 0 {
        String::new()
    } else {
        format!(
            "; {trials} trials read back from data/, run by an earlier reproduction or by a claim sharing the sweep"
        )
    }
}

fn row_cells(row: &Row) -> Vec<String> {
    let opt = |v: Option<f64>| v.map(number).unwrap_or_else(|| "-".into());
    if let Some((log10, [lo, hi])) = row.log10_estimate {
        let power = |v: f64| format!("10^{v:.2}");
        return vec![
            number(row.point.x),
            format!("{} repetitions", row.trials),
            "-".into(),
            "-".into(),
            power(log10),
            format!("[{}, {}]", power(lo), power(hi)),
            "-".into(),
        ];
    }
    let x = match &row.variant {
        Some((protocol, _)) => format!("{} ({protocol})", number(row.point.x)),
        None => number(row.point.x),
    };
    vec![
        x,
        row.trials.to_string(),
        row.point.values.len().to_string(),
        row.point.censored.to_string(),
        opt(row.mean),
        interval(row).map(|[lo, hi]| format!("[{}, {}]", number(lo), number(hi))).unwrap_or_else(|| "-".into()),
        match row.median {
            Some(m) => number(m),
            None if row.point.censored > 0 => format!(">= {}", number(row.point.horizon)),
            None => "-".into(),
        },
    ]
}

fn markdown(blocks: &[Block], out: &Path) -> String {
    let mut md = String::new();
    for block in blocks {
        match block {
            Block::Heading(level, text) => md += &format!("{} {text}\n\n", "#".repeat(*level)),
            Block::Paragraph(text) => md += &format!("{text}\n\n"),
            Block::Table(header, rows) => {
                md += &format!(
                    "| {} |\n|{}|\n",
                    header.join(" | "),
                    header.iter().map(|_| "---").collect::<Vec<_>>().join("|")
                );
                for row in rows {
                    md +=
                        &format!("| {} |\n", row.iter().map(|c| c.replace('|', "\\|")).collect::<Vec<_>>().join(" | "));
                }
                md += "\n";
            }
            Block::Image { alt, svg } => {
                let relative =
                    Path::new(svg).strip_prefix(out).map(|p| p.to_string_lossy().into_owned()).unwrap_or(svg.clone());
                md += &format!("![{alt}]({relative})\n\n");
            }
        }
    }
    md
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

fn html(blocks: &[Block]) -> String {
    let mut page = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>poplab reproduce</title>\n<style>\
         body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em;line-height:1.45}\
         table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:.25em .5em;text-align:left}\
         th{background:#eee}svg{max-width:100%;height:auto}\
         td.consistent{background:#d5eed5}td.inconsistent{background:#f5cccc}td.inconclusive{background:#f5ebc4}\
         nav li{margin:.1em 0}</style></head><body>\n",
    );
    // The contents: every second-level heading, listed after the opening paragraph.
    let contents: String = blocks
        .iter()
        .filter_map(|b| match b {
            Block::Heading(2, text) => Some(format!("<li><a href=\"#{}\">{}</a></li>", anchor(text), escape(text))),
            _ => None,
        })
        .collect();
    let mut listed = false;
    for block in blocks {
        match block {
            Block::Heading(level, text) => {
                page += &format!("<h{level} id=\"{}\">{}</h{level}>\n", anchor(text), escape(text))
            }
            Block::Paragraph(text) => {
                page += &format!("<p>{}</p>\n", inline_html(text));
                if !listed {
                    page += &format!("<nav><h2>Contents</h2><ul>{contents}</ul></nav>\n");
                    listed = true;
                }
            }
            Block::Table(header, rows) => {
                page += "<table><tr>";
                for h in header {
                    page += &format!("<th>{}</th>", escape(h));
                }
                page += "</tr>\n";
                for row in rows {
                    page += "<tr>";
                    for cell in row {
                        // Verdict cells are coloured by verdict.
                        let class = match cell.as_str() {
                            "consistent" | "inconsistent" | "inconclusive" => format!(" class=\"{cell}\""),
                            _ => String::new(),
                        };
                        page += &format!("<td{class}>{}</td>", escape(cell));
                    }
                    page += "</tr>\n";
                }
                page += "</table>\n";
            }
            Block::Image { alt, svg } => {
                let content = std::fs::read_to_string(svg).unwrap_or_else(|_| format!("<p>(plot {alt} missing)</p>"));
                page += &format!("<figure>{content}</figure>\n");
            }
        }
    }
    page + "</body></html>\n"
}

/// A paragraph's Markdown as HTML: `code` and **bold** (the only inline marks the report uses),
/// the rest escaped. A mark without its closing half is kept as written.
fn inline_html(text: &str) -> String {
    let mut html = String::new();
    let code: Vec<&str> = text.split('`').collect();
    let closed = code.len() % 2 == 1;
    for (i, part) in code.iter().enumerate() {
        if i % 2 == 1 && (closed || i + 1 < code.len()) {
            html += &format!("<code>{}</code>", escape(part));
            continue;
        }
        if i % 2 == 1 {
            html.push('`');
        }
        let bold: Vec<&str> = part.split("**").collect();
        for (j, piece) in bold.iter().enumerate() {
            let piece = escape(piece);
            html += &if j % 2 == 1 && (bold.len() % 2 == 1 || j + 1 < bold.len()) {
                format!("<strong>{piece}</strong>")
            } else if j % 2 == 1 {
                format!("**{piece}")
            } else {
                piece
            };
        }
    }
    html
}

/// The anchor of a heading: its lowercase letters and digits, other runs of characters as `-`.
fn anchor(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

/// Writes `report.md`, `index.html` and `verdicts.json` into `out`.
pub fn write(out: &Path, context: &Context, results: &[ClaimResult]) -> Result<()> {
    let blocks = blocks(context, results, out);
    write_text(Some(&out.join("report.md")), &markdown(&blocks, out))?;
    write_text(Some(&out.join("index.html")), &html(&blocks))?;
    let verdicts = serde_json::to_string_pretty(&Verdicts::of(context, results))?;
    write_text(
        Some(&out.join(VERDICTS_FILE)),
        &(verdicts
            + "
"),
    )
}
