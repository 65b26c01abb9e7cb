//! The manual's prose that the clap definition (`crate::cli`) does not hold: each command's
//! description (what it does, beyond its one-line summary) and its examples. [`command`] puts them
//! on the clap command, so `poplab CMD --help`, the man pages (`poplab man`) and the guide's CLI
//! reference (`docs/guide/src/cli/`, written by a test of `commands/generated.rs`)
//! show the same text. Every example is parsed by a test against the definition.

use crate::cli::Cli;
use clap::CommandFactory;

/// The manual text of one command: `poplab` itself (`name` empty) or a subcommand.
pub struct Page {
    /// The subcommand's name, or "" for `poplab`.
    pub name: &'static str,
    /// Paragraphs (separated by blank lines) saying what the command does, for whom and when.
    pub description: &'static str,
    /// Pairs of (what it does, the command line), each command line one `poplab ...` line.
    pub examples: &'static [(&'static str, &'static str)],
}

/// Every page: `poplab`'s own first, then one per subcommand.
pub const PAGES: &[Page] = &[
    Page {
        name: "",
        description: "poplab simulates population protocols: n anonymous agents, each a small state machine, \
interacting in pairs chosen by a uniformly random scheduler. It implements the leader-election protocols of \
Sudo et al. exactly (threshold, angluin, ls-timer, ppl, pll, pll-as-printed, pll-sym, prl), plus approximate \
majority and any protocol written as a TOML file, and measures what the papers claim: convergence time to the \
protocol's safe set, holding time, recovery after faults, and the states used.

Runs are exact: step counts are the scheduler's, whatever engine runs them, and a seed gives the same results \
for any number of threads. `poplab reproduce` runs one experiment per claim of the four papers and writes a \
report with plots and verdicts; `run`, `sweep`, `exact` and `verify` are for your own experiments.

Numbers accept 1000, 1_000, 10^5 and 1e5. Input errors print one line and exit with code 2; other failures \
exit with code 1.",
        examples: &[
            ("The protocols, their parameters and initial configurations", "poplab list"),
            (
                "Twenty trials of the 2-state election on 1000 agents",
                "poplab run angluin --n 1000 --trials 20 --seed 1",
            ),
            ("Every claim of the papers at small sizes, into report/", "poplab reproduce --quick"),
        ],
    },
    Page {
        name: "list",
        description: "Lists the built-in protocols: what each is and which paper and section it comes from, its \
parameters (given to other commands with --set KEY=VALUE) with their defaults, and its named initial \
configurations (given with --init). Given @FILE.toml, it reads and checks a protocol file and shows what it \
defines: states and outputs, rules, initial configuration and stop rule.",
        examples: &[
            ("Every protocol", "poplab list"),
            ("One protocol, as JSON", "poplab list pll --json"),
            ("Check a protocol file", "poplab list @examples/protocols/approximate-majority.toml"),
        ],
    },
    Page {
        name: "run",
        description: "Runs independent trials of one protocol on n agents and reports, per trial, whether and \
after how many steps it reached the protocol's safe set (or, with --measure holding, how long a safe \
configuration kept its output), with a summary: mean and median steps and parallel time (steps / n) and a 95% \
interval. Trials that reach the horizon (--max-steps) are censored: their steps are a lower bound, and the \
summary gives no mean.

The output is a table, or one JSON document (--json), or one CSV row per trial (--csv). --trace writes a time \
series; --fault overwrites agents at a given step to measure recovery; --checkpoint makes a long run \
resumable. Trial i uses the i-th SplitMix64 output of the seed, so results do not depend on --threads.",
        examples: &[
            ("Twenty trials, as a table", "poplab run angluin --n 1000 --trials 20 --seed 1"),
            (
                "The threshold protocol with 12 ones of at least 10, as JSON",
                "poplab run threshold --n 500 --set k=10 --set f=12 --trials 50 --json",
            ),
            (
                "Recovery after 10 agents are overwritten at step 5000",
                "poplab run threshold --n 100 --fault 5000:10 --trials 20",
            ),
            (
                "A time series of the leaders, a row every 100 steps",
                "poplab run angluin --n 100 --trace leaders.csv --trace-every 100",
            ),
            (
                "Holding time of P_PL with short timers",
                "poplab run ppl --n 30 --set t_virus=2 --set t_max=6 --set t_emit=6 --measure holding --trials 50",
            ),
            (
                "Your own protocol, from a file",
                "poplab run @examples/protocols/approximate-majority.toml --n 10^6 --trials 20",
            ),
        ],
    },
    Page {
        name: "sweep",
        description: "Runs a protocol over the cross product of lists of sizes (--n) and parameters (--set KEY=LIST), \
with --trials trials per cell, into a directory: sweep.json (the definition), trials.csv (a row per trial, \
appended as each finishes), and at the end summary.csv, summary.json and fits.json (the mean parallel time \
against n, fitted by a power law and by a + b f(n) for common growths). Lists are a,b,c or START..END with *F \
or +D steps.

A killed sweep continues with --resume DIR and ends with the files an uninterrupted one writes. --shard I/K \
runs one part of the sweep (a cluster task); `poplab merge` joins the parts.

--claim judges a claim about the mean, written as in the papers (O(log n), Omega(n^2), Theta(n log n), \
= (n-1)^2, Omega(e^N)), on the finished sweep by the rules of `poplab reproduce`: one line per claim on \
standard output (verdict, power, evidence) and DIR/claims.json. A claim is checked against the sweep before \
anything runs.",
        examples: &[
            (
                "P_RL from random starts, n = 8 to 64, 50 trials per size",
                "poplab sweep prl --n 8..64*2 --trials 50 --init random --out prl-sweep",
            ),
            ("Continue it after a kill", "poplab sweep --resume prl-sweep"),
            (
                "Judge a claim on the sweep's steps",
                "poplab sweep angluin --n 10..1000*10 --trials 200 --claim 'O(n^2)' --claim-in steps --out ang",
            ),
            ("Two parameters crossed", "poplab sweep threshold --n 100,1000 --set k=5,10 --trials 20 --out thr"),
            (
                "Shard 0 of 4 of a sweep (a cluster task)",
                "poplab sweep angluin --n 10^2..10^4*10 --shard 0/4 --out part-0",
            ),
        ],
    },
    Page {
        name: "merge",
        description: "Joins the shard directories of one sweep (written by `poplab sweep --shard I/K`) into the \
directory an unsharded sweep writes, after checking that the shards belong to one sweep, that none is missing \
or incomplete, and that every row is what the master seed and the horizon allow. Refusals name the shard and \
the row.",
        examples: &[("Join four shards", "poplab merge --out sweep part-0 part-1 part-2 part-3")],
    },
    Page {
        name: "reproduce",
        description: "Runs one experiment per claim of the four source papers (convergence and holding times, states \
used, the P_LL erratum), fits the measurements, plots them, and judges each claim by a written rule: \
consistent, inconsistent or inconclusive (with the reason). Writes DIR/report.md and DIR/index.html (one \
document, readable offline), DIR/plots/ and the data of every experiment under DIR/data/.

--quick takes minutes on 2 cores, --full hours. An interrupted reproduction continues from the data stored in \
DIR. The results do not depend on --threads.",
        examples: &[
            ("Every claim at small sizes, into report/", "poplab reproduce --quick"),
            ("One claim only", "poplab reproduce --quick --only pll-stabilisation --out pll-report"),
        ],
    },
    Page {
        name: "plot",
        description: "Draws your own runs as SVG or PNG (by the extension of --out): a time series written by \
`run --trace` (leaders against parallel time, a staircase per trial, the first ten, log axes), or a sweep \
directory (the mean parallel time against n with 95% bootstrap intervals of its trials; censored cells hollow at \
their lower bound; holding sweeps as log10 of the estimate).",
        examples: &[
            ("Leaders against time", "poplab plot leaders.csv --out leaders.svg"),
            ("A sweep's means against n", "poplab plot prl-sweep --out prl.png"),
        ],
    },
    Page {
        name: "spacetime",
        description: "Draws a space-time diagram of P_RL on its directed ring: one row per snapshot (every --every \
steps; time runs down), one column per agent, coloured by what the agent holds: shielded leader, leader, live \
bullet, dummy bullet, bullet-absence signal. The run is trial 0 of `poplab run prl --engine agents` with the \
same seed.",
        examples: &[
            ("From a random start", "poplab spacetime prl --n 50 --out ring.svg"),
            ("From Figure 3 of the paper (n = N = 100)", "poplab spacetime prl --n 100 --init fig3 --out fig3.png"),
        ],
    },
    Page {
        name: "exact",
        description: "Computes, for a small population, the exact expected number of steps to the safe set (and its \
variance) by exploring every reachable configuration and solving the absorbing Markov chain, with a certified \
error bound. With --measure holding, the exact expected holding time from a safe start. The exploration is \
capped by --max-configs: past it, an error, never a silent truncation.",
        examples: &[
            ("The 2-state election: exactly (n-1)^2 = 841 steps", "poplab exact angluin --n 30"),
            (
                "Expected holding time of ls-timer with a short timer",
                "poplab exact ls-timer --n 4 --set s=8 --measure holding",
            ),
            ("A protocol file", "poplab exact @examples/protocols/threshold.toml --n 12"),
            (
                "From every configuration: the worst start, and each family against it",
                "poplab exact ls-timer --n 4 --set s=6 --from all --save-worst worst.json",
            ),
        ],
    },
    Page {
        name: "search",
        description: "Searches for the slowest start to the safe set, where exact analysis cannot go: the start given, \
the protocol's named families and parameterized families, corners of the count simplex and mutations of the slowest \
are raced on common seeds (successive halving), and the slowest few and each family are re-measured on fresh seeds, \
since the seeds that selected a start bias its mean upwards. The budget is core-seconds (60s, the default: the \
result depends on the machine) or candidate starts (200c: the same result anywhere). No search proves a worst case: \
the result is a start at least as slow as every start tried. See the guide's chapter \"Worst-case starts\".",
        examples: &[
            ("P_RL at n = 300 within a minute of one core", "poplab search prl --n 300 --budget 60s --seed 1"),
            (
                "A protocol file; the slowest start into a file that --init takes",
                "poplab search @examples/protocols/slow-corner.toml --n 1000 --budget 100c --save-start worst.json",
            ),
        ],
    },
    Page {
        name: "verify",
        description: "Checks, for a small population and exhaustively, closure (once safe, always safe), safety and \
convergence with probability 1 (every bottom strongly connected component lies in the safe set), from the \
default start, from every configuration (--from all, for self-stabilizing protocols), a named family or a \
file. On failure it prints a shortest counterexample schedule and exits with code 1.",
        examples: &[
            ("P_RL on 3 agents from every configuration", "poplab verify prl --n 3 --from all"),
            ("The 2-state election from its default start", "poplab verify angluin --n 6"),
        ],
    },
    Page {
        name: "completions",
        description: "Prints the completion script of a shell to standard output: subcommands, options and their \
values, generated from the same definition as --help. The bash script also completes protocol names (and \
@FILE) after run, sweep, exact, search, verify, list and spacetime.",
        examples: &[
            ("bash, loaded by bash-completion on first use", "poplab completions bash"),
            ("zsh, into a directory on $fpath", "poplab completions zsh"),
        ],
    },
    Page {
        name: "man",
        description: "The man pages are generated from the same definition as --help: each has the command's \
synopsis, a description, every option with its default and values, and examples. Without arguments this \
prints poplab(1), which lists the subcommands; with a subcommand's name, that subcommand's page, \
poplab-COMMAND(1). Pipe either into `man -l -` to read it.

With --out DIR it writes every page as a file instead: poplab.1 and poplab-COMMAND.1 for each subcommand. A \
directory such as ~/.local/share/man/man1 makes them available to `man poplab-run`.",
        examples: &[("Read poplab-run(1)", "poplab man run"), ("Install every page", "poplab man --out man1")],
    },
];

/// The examples of `page` as plain text, the way `--help` ends with them.
fn examples_text(page: &Page) -> String {
    let mut text = String::from("Examples:");
    for (what, line) in page.examples {
        text.push_str(&format!("\n  # {what}\n  {line}"));
    }
    text
}

/// The page of `name` ("" for poplab itself).
pub fn page(name: &str) -> Option<&'static Page> {
    PAGES.iter().find(|page| page.name == name)
}

/// The clap command of poplab with every page's description (`long_about`, shown by `--help` and as
/// DESCRIPTION in the man pages) and examples (`after_long_help`, shown by `--help`).
pub fn command() -> clap::Command {
    // poplab's own summary (NAME in poplab(1)), instead of the crate's description.
    let mut command = Cli::command().about("run population protocols, measure what the papers claim");
    for page in PAGES {
        let apply = |c: clap::Command| c.long_about(page.description).after_long_help(examples_text(page));
        command = if page.name.is_empty() { apply(command) } else { command.mut_subcommand(page.name, apply) };
    }
    command
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every subcommand has a page, every page names a command, and every example parses.
    #[test]
    fn every_command_has_a_page_and_every_example_parses() {
        let command = command();
        for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
            assert!(page(sub.get_name()).is_some(), "no manual page for {}", sub.get_name());
        }
        for page in PAGES {
            assert!(
                page.name.is_empty() || command.find_subcommand(page.name).is_some(),
                "page {} names no subcommand",
                page.name
            );
            assert!(!page.examples.is_empty(), "{}: no examples", page.name);
            for (_, line) in page.examples {
                let words: Vec<&str> = line.split_whitespace().collect();
                assert_eq!(words[0], "poplab", "{line}");
                if !page.name.is_empty() {
                    assert_eq!(words[1], page.name, "an example of {} runs another command: {line}", page.name);
                }
                if let Err(error) = command.clone().try_get_matches_from(&words) {
                    panic!("example does not parse: {line}\n{error}");
                }
            }
        }
    }
}
