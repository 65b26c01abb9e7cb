//! The claims of the four papers: per claim its source and statement, the sweeps that measure it
//! (a quick size that fits in minutes and a full size), what is plotted against what, and the
//! verdict rule of [`crate::verdict`] that decides it.

use crate::engine::{Measure, Outcome};
use crate::fit::Form;
use crate::growth::Bound;
use crate::judge::{self, Curve};
use crate::spec::{Estimator, SplittingOptions};
use crate::splitting::SplittingSettings;
use crate::sweep::SweepSpec;

/// How large the experiments are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Two sizes and a few trials per claim: seconds, for end-to-end tests of the report.
    Tiny,
    /// Sizes that fit in minutes on a laptop (`poplab reproduce --quick`).
    Quick,
    /// Larger n and more trials: hours (`poplab reproduce --full`).
    Full,
}

/// The swept variable on the x axis.
#[derive(Clone, Copy, Debug)]
pub enum XVar {
    /// The population size.
    N,
    /// A swept protocol parameter.
    Param(&'static str),
}

impl XVar {
    /// Its name: `n` or the parameter's.
    pub fn name(self) -> &'static str {
        match self {
            XVar::N => "n",
            XVar::Param(name) => name,
        }
    }
}

/// The measured quantity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum YVar {
    /// Steps (interactions).
    Steps,
    /// Parallel time: steps / n.
    ParallelTime,
    /// Distinct states some agent held during the trial (needs a census).
    DistinctStates,
}

impl YVar {
    /// What it is, with its unit: `parallel time (steps / n)`.
    pub fn label(self) -> &'static str {
        match self {
            YVar::Steps => "steps",
            YVar::ParallelTime => "parallel time (steps / n)",
            YVar::DistinctStates => "distinct states visited",
        }
    }
}

/// The verdict rule of a claim of the papers: a rule on its points, the one type a user's claim
/// is judged by too ([`judge::Rule`]), or a rule on the whole experiment.
#[derive(Clone, Debug)]
pub enum Rule {
    /// Judged on the points, as a user's claim written the same way would be.
    Points(judge::Rule),
    /// The protocol's number of states `|Q|`, computed exactly for `m = 1..=1000` at `n = 2^m`,
    /// grows at most like the form (rule `growth::growth` on exact values).
    StateCount {
        /// The claimed form, in n.
        form: Form,
    },
    /// Sweep 1's mean is larger than sweep 0's at the largest x (rule `verdict::slower_than`).
    SlowerThan,
    /// Every trial of sweep `i` ends with outcome `i` (rule `verdict::all_trials`).
    Outcomes(Vec<(Outcome, &'static str)>),
}

impl Rule {
    /// `O(form)` in the claim's variable `x`.
    fn at_most(form: Form, x: XVar) -> Self {
        Rule::Points(judge::Rule::Growth { bound: Bound::AtMost, curve: Curve::form(form, x.name()) })
    }
}

/// One claim and its experiment.
#[derive(Clone, Debug)]
pub struct Claim {
    /// The claim's name (`pll-stabilisation`).
    pub id: &'static str,
    /// A title for its section of a report.
    pub title: &'static str,
    /// The paper and where in it (the paper's number first: `000`, `001`, `003`, `004`).
    pub source: &'static str,
    /// The claim as the paper states it, and how it is measured.
    pub statement: &'static str,
    /// Why the experiment's sizes are what they are.
    pub sizes: &'static str,
    /// The sweeps that measure it.
    pub sweeps: Vec<SweepSpec>,
    /// The x axis.
    pub x: XVar,
    /// The measured quantity.
    pub y: YVar,
    /// The verdict rule.
    pub rule: Rule,
    /// How the mean at each x is estimated from the trials.
    pub means: Means,
    /// What the experiment covers of the claim, when it is less than the claim (a theorem over
    /// every starting configuration measured from one family of them).
    pub scope: Option<&'static str>,
    /// A claim "from any configuration": each size is measured from the slowest start a search
    /// finds there, not from the sweep's family (see [`WorstStarts`]).
    pub worst_starts: Option<WorstStarts>,
    /// Per sweep, its data directory relative to the reproduction's (set by [`claims`]; see
    /// [`Claim::data_dir`]).
    pub data: Vec<String>,
    /// More pictures for the claim's section.
    pub pictures: Vec<Picture>,
}

/// How a claim "from any configuration" chooses its starts: at each size a search
/// ([`crate::search`]) for the slowest start, which the claim's trials then measure with their own
/// seeds; and at a small instance, the search checked against the exact worst start.
#[derive(Clone, Copy, Debug)]
pub struct WorstStarts {
    /// The family the sweep names (measured before searches): the report compares the found start
    /// with it, re-measured the same way.
    pub family: &'static str,
    /// The search's budget at each size, in candidates (so that it is the same on any machine).
    pub candidates: u64,
    /// Trials that re-measure the found start and the family at each size (fresh seeds).
    pub remeasure: u64,
    /// Trials per candidate in the search's last round, at most.
    pub race_trials: u64,
    /// The small instance where exact analysis finds the worst start: `n` and parameters
    /// (`KEY=VALUE`).
    pub exact_check: (u64, &'static [&'static str]),
}

/// How a claim's mean at each x is estimated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Means {
    /// The sample mean of the trials.
    Plain,
    /// P_LL's runs post-stratified on "QuickElimination ended it" (classified by time,
    /// [`crate::protocols::pll::quick_elimination_ended`]), whose probability is known exactly
    /// ([`crate::protocols::pll::QUICK_ELIMINATION_ENDS`]): unbiased, and many times less variable
    /// than the plain mean, since the rare slow runs carry most of the variance.
    QuickElimination,
}

/// A picture a claim's section of a report shows besides its plot (`poplab reproduce` draws them).
#[derive(Clone, Debug)]
pub enum Picture {
    /// P_RL's space-time diagram at n = N = `n` from `init` (`fig3` or `random`).
    Spacetime {
        /// The ring size.
        n: usize,
        /// The initial configuration.
        init: &'static str,
    },
    /// Leaders against parallel time: `runs` runs of `protocol` at `n` from `init`, overlaid.
    LeaderTraces {
        /// The protocol.
        protocol: &'static str,
        /// The population size.
        n: u64,
        /// The initial configuration.
        init: &'static str,
        /// How many runs.
        runs: u64,
    },
    /// Per n, the share of runs taking at least t against t, each run a dot coloured by the module
    /// that demoted the last leader (the census of sweep `sweep`).
    ModuleTails {
        /// The index of the sweep among the claim's.
        sweep: usize,
    },
    /// Exact expected holding steps against splitting estimates at small sizes: `protocol` at `n`
    /// (`None`: n equals the swept value) with `param` over `values` and the `fixed` settings.
    ExactHolding {
        /// The protocol.
        protocol: &'static str,
        /// The population size (`None`: the swept value).
        n: Option<u64>,
        /// The swept parameter.
        param: &'static str,
        /// Its values.
        values: &'static [&'static str],
        /// Other parameters, as `KEY=VALUE`.
        fixed: &'static [&'static str],
    },
}

/// `spec` measured by the splitting estimator with `replicas` replicas and the holding score
/// `score`, its trials being the estimator's repetitions.
fn by_splitting(mut spec: SweepSpec, replicas: usize, score: &str) -> SweepSpec {
    spec.template.estimator = Estimator::Splitting(SplittingOptions {
        replicas: replicas as u64,
        score: Some(score.into()),
        ..SplittingOptions::default()
    });
    spec
}

fn spec(protocol: &str, ns: &[u64], params: &[(&str, &[&str])], trials: u64, seed: u64) -> SweepSpec {
    let mut spec = SweepSpec {
        params: params.iter().map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect())).collect(),
        ..SweepSpec::new(protocol, ns)
    };
    spec.template.trials = trials;
    spec.template.seed = seed;
    spec
}

/// `spec` with `change` made to its template.
fn with_template(mut spec: SweepSpec, change: impl FnOnce(&mut crate::spec::RawSpec)) -> SweepSpec {
    change(&mut spec.template);
    spec
}

/// The sizes of the P_LL family's stabilisation sweeps: `n = 2^7, 2^11, 2^15` (to `2^23` in
/// --full). P_LL's constants step with `m = ceil(lg n)` (`c_max = 41 m`) and with
/// `K = 2^ceil(lg m)`, the nonces' length: on these sizes `m = 7, 11, 15, 19, 23` and only `K`
/// steps (8, 16, 16, 32, 32), where decades of n cross every step of both.
pub const PLL_SIZES: [u64; 5] = [1 << 7, 1 << 11, 1 << 15, 1 << 19, 1 << 23];

/// The stabilisation sweep of a P_LL variant on [`PLL_SIZES`] (the first three in quick mode),
/// with a census (distinct states, and which module demoted the last leader) if asked.
fn pll_sweep(protocol: &str, mode: Mode, trials: u64, census: bool, seed: u64) -> SweepSpec {
    let ns = if mode == Mode::Full { &PLL_SIZES[..] } else { &PLL_SIZES[..3] };
    with_template(spec(protocol, ns, &[], trials, seed), |t| t.census = census)
}

fn with(mut spec: SweepSpec, init: &str, measure: Measure, max_steps: u64) -> SweepSpec {
    spec.template.init = Some(init.to_string());
    spec.template.measure = measure;
    spec.template.max_steps = max_steps.into();
    spec
}

/// Every claim, sized for `mode`, all seeded from `seed`.
pub fn claims(mode: Mode, seed: u64) -> Vec<Claim> {
    let quick = mode != Mode::Full;
    let pick = |q: u64, f: u64| if quick { q } else { f };
    let mut claims = vec![
        Claim {
            id: "angluin-exact",
            title: "2-state election: expected steps to one leader",
            source: "000 (Sudo, tutorial) section 3",
            statement: "The expected number of steps until one leader remains is sum_{i=2..n} n(n-1)/(i(i-1)) = (n-1)^2, i.e. O(n) parallel time. Measured to n = 10^8 (10^9 in --full) on the batched engine.",
            sizes: "800 trials per size up to n = 1000 on the direct engines (2000 in --full), which pin the pooled ratio of the means to (n-1)^2 within 5%; 25 trials (40 in --full) at 10^6 to 10^8 (10^9 in --full) on the batched engine, where a trial of (n-1)^2 = 10^16 steps takes about a second: each is tested against the claim with the law's exact variance and skewness (the steps are a sum of independent geometric variables), so few trials keep the test's level.",
            // Many trials where they are cheap; at 10^6 and beyond (10^12 to 10^18 steps, on the
            // batched engine) fewer, which the per-point z-test accounts for.
            sweeps: vec![
                spec(
                    "angluin",
                    if quick { &[10, 30, 100, 300, 1000] } else { &[10, 30, 100, 300, 1000, 3000, 10_000] },
                    &[],
                    pick(800, 2000),
                    seed,
                ),
                with_template(
                    spec(
                        "angluin",
                        if quick {
                            &[1_000_000, 10_000_000, 100_000_000]
                        } else {
                            &[1_000_000, 10_000_000, 100_000_000, 1_000_000_000]
                        },
                        &[],
                        pick(25, 40),
                        seed,
                    ),
                    |t| t.max_steps = 1 << 62,
                ),
            ],
            x: XVar::N,
            y: YVar::Steps,
            rule: Rule::Points(judge::Rule::ExactMean {
                curve: Curve::closed("(n-1)^2", |n| (n - 1.0).powi(2)),
                moments: Some(crate::protocols::angluin::election_cumulants),
            }),
            means: Means::Plain,
            scope: None,
            worst_starts: None,
            data: Vec::new(),
            pictures: vec![Picture::LeaderTraces { protocol: "angluin", n: 1000, init: "all-leaders", runs: 4 }],
        },
        Claim {
            id: "threshold-correct",
            title: "Threshold predicate: every agent outputs yes iff f >= k",
            source: "000 (Sudo, tutorial) section 2",
            statement: "With k = 10, all agents eventually output yes if at least k agents start in state 1, and no agent ever outputs yes otherwise.",
            sizes: "One n = 100 suffices: the claim is about every run, not a rate; below the threshold each run waits out a horizon of 10^6 steps (10^7 in --full).",
            sweeps: vec![
                with(
                    spec("threshold", &[100], &[("k", &["10"]), ("f", &["1", "5", "9"])], pick(20, 100), seed),
                    "default",
                    Measure::Holding,
                    pick(1_000_000, 10_000_000),
                ),
                spec("threshold", &[100], &[("k", &["10"]), ("f", &["10", "20", "50", "100"])], pick(20, 100), seed),
            ],
            x: XVar::Param("f"),
            y: YVar::ParallelTime,
            rule: Rule::Outcomes(vec![
                (Outcome::Censored, "below the threshold (f < k): no agent output yes before the horizon"),
                (Outcome::Converged, "at or above the threshold (f >= k): every agent ended at yes"),
            ]),
            means: Means::Plain,
            scope: None,
            worst_starts: None,
            data: Vec::new(),
            pictures: Vec::new(),
        },
        Claim {
            id: "ls-timer-convergence",
            title: "ls-timer: convergence time from the slowest start",
            source: "000 (Sudo, tutorial) section 4",
            statement: "From any configuration the population reaches the safe set (one leader, every timer >= s/2) within O(N log n) expected parallel time (s = 96 N). Measured with N = n from no-leader, the start that waits longest for a timeout.",
            sizes: "N = n from 16 to 512 (2048 in --full), 10 trials per size (20 in --full). The means follow 124.65 N - 74.6 N^0.556 with a spread of 0.5% of the mean per trial; at N = 8 the correction is 24% of the mean, so the range starts at 16. A run takes about 120 N parallel time, 3 10^7 steps at N = 512.",
            sweeps: vec![with(
                spec(
                    "ls-timer",
                    if quick { &[16, 32, 64, 128, 256, 512] } else { &[16, 32, 64, 128, 256, 512, 1024, 2048] },
                    &[],
                    pick(10, 20),
                    seed,
                ),
                "no-leader",
                Measure::Convergence,
                1_000_000_000_000,
            )],
            x: XVar::N,
            y: YVar::ParallelTime,
            rule: Rule::at_most(Form::XLogX, XVar::N),
            means: Means::Plain,
            scope: Some(
                "necessary check: the theorem bounds the worst case over every starting configuration; each size is measured from the slowest start a search found there (the protocol's families, its parameterized families, corners of the count simplex and mutations of the slowest), which no search proves to be the worst; at a small instance the search is checked against the exact worst start",
            ),
            worst_starts: Some(WorstStarts {
                family: "no-leader",
                candidates: pick(8, 48),
                remeasure: pick(6, 20),
                race_trials: pick(4, 32),
                exact_check: (4, &["s=6"]),
            }),
            data: Vec::new(),
            pictures: vec![Picture::LeaderTraces { protocol: "ls-timer", n: 64, init: "all-leaders", runs: 4 }],
        },
        Claim {
            id: "ls-timer-big-n",
            title: "ls-timer: convergence time against N at n = 16",
            source: "000 (Sudo, tutorial) section 4",
            statement: "The O(N log n) bound, in N: n = 16 fixed and N to 10^4 (10^5 in --full), from no-leader. With N and n tied (the claim above) the timer s = 96 N makes every step of N cost n times more steps; with n fixed the bound is O(N), and N reaches the scale of real bounds.",
            sizes: "n = 16 keeps a run near 1.6 10^7 steps at N = 10^4 (0.06 s); --full goes to N = 10^5.",
            sweeps: vec![with(
                spec(
                    "ls-timer",
                    &[16],
                    &[(
                        "N",
                        if quick {
                            &["100", "300", "1000", "3000", "10000"]
                        } else {
                            &["100", "300", "1000", "3000", "10000", "30000", "100000"]
                        },
                    )],
                    pick(20, 50),
                    seed,
                ),
                "no-leader",
                Measure::Convergence,
                1_000_000_000_000,
            )],
            x: XVar::Param("N"),
            y: YVar::ParallelTime,
            rule: Rule::at_most(Form::Linear, XVar::Param("N")),
            means: Means::Plain,
            scope: Some(
                "necessary check: the theorem bounds the worst case over every starting configuration; each size is measured from the slowest start a search found there (the protocol's families, its parameterized families, corners of the count simplex and mutations of the slowest), which no search proves to be the worst; at a small instance the search is checked against the exact worst start",
            ),
            worst_starts: Some(WorstStarts {
                family: "no-leader",
                candidates: pick(8, 48),
                remeasure: pick(6, 20),
                race_trials: pick(4, 32),
                exact_check: (3, &["N=6", "s=12"]),
            }),
            data: Vec::new(),
            pictures: Vec::new(),
        },
        Claim {
            id: "ls-timer-holding",
            title: "ls-timer: holding time against N, with the paper's timer",
            source: "000 (Sudo, tutorial) section 4",
            statement: "From a safe configuration the unique leader is kept for Omega(e^N) expected parallel time (s = 96 N). Measured with the paper's timer s = 96 N and N = n by the splitting estimator (holding times of 10^250 steps and more: no break could be observed directly); the rate of ln E[holding] in N must be at least 1.",
            sizes: "N = n = 4..6 (to 8 in --full) with the paper's timer: holding times of 10^254 to 10^419 steps that only the estimator reaches; its cost grows with the 96 N levels of the score and the replicas they need (N = 8 took 437 s), so quick mode stops at 6 with 300 replicas.",
            sweeps: vec![by_splitting(
                with(
                    spec("ls-timer", if quick { &[4, 5, 6] } else { &[4, 5, 6, 7, 8] }, &[], pick(4, 10), seed),
                    "safe",
                    Measure::Holding,
                    1_000_000_000_000,
                ),
                if quick { 300 } else { 3000 },
                "total-deficit",
            )],
            x: XVar::N,
            y: YVar::ParallelTime,
            rule: Rule::Points(judge::Rule::ExponentialAtLeast { rate: 1.0 }),
            // Few replicas in quick mode: the estimates are skewed (the report's evidence shows
            // it), but the measured rate is two orders of magnitude above the claimed one.
            means: Means::Plain,
            scope: None,
            worst_starts: None,
            data: Vec::new(),
            pictures: vec![Picture::ExactHolding {
                protocol: "ls-timer",
                n: None,
                param: "N",
                values: if quick { &["3", "4", "5"] } else { &["3", "4", "5", "6"] },
                fixed: &["timer_factor=3"],
            }],
        },
        Claim {
            id: "ppl-convergence",
            title: "P_PL: convergence time with the paper's constants",
            source: "001 (Sudo et al., OPODIS 2018) section 4, Theorem 23",
            statement: "From any configuration P_PL reaches the safe set within O(c log n log^2 N) expected parallel time. Measured with c = 1, N = n (so the bound is O(log^3 n)) from uniformly random configurations. The protocol's timers grow with ceil(ln N)^2 (t_max = 720 c ceil(ln N)^2), a step at each integer ln N, which the growth rule's margin absorbs as long as the steps fade.",
            sizes: "n = 30, 100, 300 with 90 trials (--full: 100 to 3000, 50 trials); 60 trials gave power 0.81. A run takes about 0.1, 0.7, 4 and 23 CPU-seconds at n = 100, 300, 1000 and 3000. Below n = 30 the timers' integer steps dominate; the mean over ln^3 n is flat from 30 to 300 (461 and 459 in a 40-trial pilot).",
            sweeps: vec![with(
                spec("ppl", if quick { &[30, 100, 300] } else { &[100, 300, 1000, 3000] }, &[], pick(90, 50), seed),
                "random",
                Measure::Convergence,
                1_000_000_000_000,
            )],
            x: XVar::N,
            y: YVar::ParallelTime,
            rule: Rule::at_most(Form::Log3, XVar::N),
            means: Means::Plain,
            scope: Some(
                "necessary check: the theorem bounds the worst case over every starting configuration; each size is measured from the slowest start a search found there (the protocol's families, its parameterized families, corners of the count simplex and mutations of the slowest), which no search proves to be the worst; at a small instance the search is checked against the exact worst start",
            ),
            worst_starts: Some(WorstStarts {
                family: "random",
                candidates: pick(6, 48),
                remeasure: pick(6, 20),
                race_trials: pick(4, 32),
                exact_check: (2, &["t_virus=2", "t_max=6", "t_emit=6"]),
            }),
            data: Vec::new(),
            pictures: vec![Picture::LeaderTraces { protocol: "ppl", n: 100, init: "random", runs: 4 }],
        },
        Claim {
            id: "ppl-holding",
            title: "P_PL: holding time against c, shortened timers",
            source: "001 (Sudo et al., OPODIS 2018) section 4, Theorem 23",
            statement: "From a safe configuration the unique leader is kept for Omega(c n^{10c}) expected parallel time. Measured at n = N = 30 with small constants (virus_factor = 0.5, emit_factor = 0.75: t_virus = 2, t_max = t_emit = 6c) by the splitting estimator (score timer-deficit: with t_virus = 2 a virus cannot outlive the shield, so timeouts are the only way to break; the leader-threat score, which also follows viruses, goes extinct in gAMS at c = 3 here), so that the longer holding times need no horizon.",
            sizes: "n = 30 and shortened timers. At the paper's constants (n = 55: t_virus = 300, t_max = t_emit = 18000) one break costs about 7000 decades of probability, so gAMS would need some 6 10^4 replicas and 10^9 iterations: out of reach (docs/holding.md, \"ppl at the paper's constants\").",
            sweeps: vec![by_splitting(
                with(
                    spec(
                        "ppl",
                        &[30],
                        &[("virus_factor", &["0.5"]), ("emit_factor", &["0.75"]), ("c", &["1.5", "2", "2.5", "3"])],
                        pick(20, 100),
                        seed,
                    ),
                    "safe",
                    Measure::Holding,
                    1_000_000_000_000,
                ),
                SplittingSettings::default().replicas,
                "timer-deficit",
            )],
            x: XVar::Param("c"),
            y: YVar::ParallelTime,
            rule: Rule::Points(judge::Rule::RateOnly {
                reason: "not measurable at the paper's constants (n >= 55, t_virus = 60 ceil(ln N), t_max = 720 c \
                         ceil(ln N)^2): refuting the claim needs breaks before about 1.4 10^19 steps (some 10^11 \
                         CPU-seconds), confirming it needs break probabilities near 10^-7066 per excursion, which no \
                         estimator can validate (gAMS would need some 6 10^4 replicas). Reported instead, as its own \
                         observation: the rate of ln E in c with shortened timers (t_virus = 2, t_max = t_emit = 6c, n = \
                         30) for c >= 1.5, where the line fits (c = 1 is pre-asymptotic); the score is validated against \
                         direct simulation at n = 30 (docs/holding.md)"
                    .into(),
            }),
            means: Means::Plain,
            scope: None,
            worst_starts: None,
            data: Vec::new(),
            pictures: vec![Picture::ExactHolding {
                protocol: "ppl",
                n: Some(3),
                param: "c",
                values: &["1", "1.5", "2", "2.5"],
                fixed: &["virus_factor=1", "emit_factor=1"],
            }],
        },
        Claim {
            id: "pll-stabilisation",
            title: "P_LL: stabilisation time",
            source: "003 (Sudo et al., IEEE TPDS 2020) section 3, Theorem 1",
            statement: "P_LL elects a unique leader within O(log n) expected parallel time (m = ceil(lg n)).",
            sizes: "n = 2^7, 2^11, 2^15 (to 2^23 in --full), sizes whose m = ceil(lg n) keeps the nonce length K from stepping between neighbours but one (PLL_SIZES); 200 trials per size (100 in --full, where the range is wider). 72% of runs end by QuickElimination within 20 parallel time, the others at 0.449 c_max (Tournament) or later (BackUp); the mean is post-stratified on QuickElimination, whose probability 1/(2 ln 2) is exact, which cuts its variance about 18 times.",
            sweeps: vec![pll_sweep("pll", mode, pick(200, 100), true, seed)],
            x: XVar::N,
            y: YVar::ParallelTime,
            rule: Rule::at_most(Form::Log, XVar::N),
            means: Means::QuickElimination,
            scope: None,
            worst_starts: None,
            data: Vec::new(),
            pictures: vec![
                Picture::LeaderTraces { protocol: "pll", n: 10_000, init: "default", runs: 4 },
                Picture::ModuleTails { sweep: 0 },
            ],
        },
        Claim {
            id: "pll-states",
            title: "P_LL: distinct states used",
            source: "003 (Sudo et al., IEEE TPDS 2020) section 3, Lemma 3",
            statement: "P_LL uses O(log n) states per agent (c_max = 41 m, m = ceil(lg n)). Decided exactly: |Q| = 48 (246 m + 5 + 2^(ceil(lg m) + 1)), the protocol's own count of its state space, for m = 1..1000 (n up to 2^1000), judged by the growth rule on exact values. The plot shows the distinct states agents held during runs, a random lower bound on |Q| (0.14% of it at 10^6).",
            sizes: "|Q| is computed, not sampled; the plot's runs are the stabilisation sweep's (identical sweep, run once, with a census).",
            sweeps: vec![pll_sweep("pll", mode, pick(200, 100), true, seed)],
            x: XVar::N,
            y: YVar::DistinctStates,
            rule: Rule::StateCount { form: Form::Log },
            means: Means::Plain,
            scope: None,
            worst_starts: None,
            data: Vec::new(),
            pictures: Vec::new(),
        },
        Claim {
            id: "pll-as-printed",
            title: "P_LL as printed (uncorrected Tournament): stabilisation time",
            source: "003 section 3, Algorithm 4 line 12 taken literally (PROTOCOLS.md 2.5)",
            statement: "The literal text, in which followers never carry Tournament nonces, so Tournament cannot separate the leaders it should and BackUp runs with constant probability (28% of runs). No sentence of the paper claims O(log n) for it; the paper's own lemmas give O(log^2 n) when BackUp runs with constant probability (BackUp's bound), so the literal text is judged against O(log^2 n).",
            sizes: "As P_LL: n = 2^7, 2^11, 2^15 (to 2^23 in --full), 100 trials per size (as many in --full), post-stratified on QuickElimination, with a census (which module ended each run) that the erratum's comparison reads.",
            sweeps: vec![pll_sweep("pll-as-printed", mode, 100, true, seed)],
            x: XVar::N,
            y: YVar::ParallelTime,
            rule: Rule::at_most(Form::Log2, XVar::N),
            means: Means::QuickElimination,
            scope: None,
            worst_starts: None,
            data: Vec::new(),
            pictures: Vec::new(),
        },
        Claim {
            id: "pll-errata",
            title: "The Tournament erratum: P_LL against the literal text",
            source: "003 section 3, Algorithm 4 line 12 (PROTOCOLS.md 2.5)",
            statement: "Taken literally, line 12 never gives followers Tournament nonces, so Tournament cannot separate the leaders it should and more runs fall through to BackUp: the literal text (pll-as-printed) is measurably slower than the corrected P_LL. Measured per n: each variant's mean parallel time, the ratio of the means with a bootstrap interval (paired by trial where both have as many trials: trial i of each runs from the same seed), and how many runs BackUp ended (the census's last demotion).",
            sizes: "The two stabilisation sweeps, read back (identical sweeps, run once): n = 2^7, 2^11, 2^15 (to 2^23 in --full), both with a census.",
            sweeps: vec![
                pll_sweep("pll", mode, pick(200, 100), true, seed),
                pll_sweep("pll-as-printed", mode, 100, true, seed),
            ],
            x: XVar::N,
            y: YVar::ParallelTime,
            rule: Rule::SlowerThan,
            means: Means::Plain,
            scope: None,
            worst_starts: None,
            data: Vec::new(),
            pictures: vec![Picture::ModuleTails { sweep: 1 }],
        },
        Claim {
            id: "pll-sym",
            title: "Symmetric P_LL: stabilisation time",
            source: "003 (Sudo et al., IEEE TPDS 2020) section 4, Algorithm 6",
            statement: "The symmetric variant (T(p, q) = (p', q') implies T(q, p) = (q', p')) keeps P_LL's O(log n) expected parallel time.",
            sizes: "As P_LL: n = 2^7, 2^11, 2^15 (to 2^23 in --full), 100 trials per size (as many in --full), post-stratified on QuickElimination.",
            sweeps: vec![pll_sweep("pll-sym", mode, 100, false, seed)],
            x: XVar::N,
            y: YVar::ParallelTime,
            rule: Rule::at_most(Form::Log, XVar::N),
            means: Means::QuickElimination,
            scope: None,
            worst_starts: None,
            data: Vec::new(),
            pictures: vec![Picture::LeaderTraces { protocol: "pll-sym", n: 10_000, init: "default", runs: 4 }],
        },
        Claim {
            id: "prl-n",
            title: "P_RL: convergence steps on the directed ring, N = n",
            source: "004 (Yokota, Sudo, Masuzawa, IEICE 2021) section 4, Theorem 1",
            statement: "From any configuration P_RL reaches S_RL within O(nN) expected steps. Measured with N = n (so O(n^2)) from uniformly random configurations, at sizes where the lower-order terms have faded (below n = 128 the ratio steps / n^2 still rises).",
            sizes: "n = N from 64 to 1024 (128 to 4096 in --full), 80 trials per size (200 in --full): O(n^2) steps per run, 5 10^6 at 1024; 20 trials left the slope within its error of the margin (power 0.24).",
            sweeps: vec![with(
                spec(
                    "prl",
                    if quick { &[64, 128, 256, 512, 1024] } else { &[128, 256, 512, 1024, 2048, 4096] },
                    &[],
                    pick(80, 200),
                    seed,
                ),
                "random",
                Measure::Convergence,
                1_000_000_000_000,
            )],
            x: XVar::N,
            y: YVar::Steps,
            rule: Rule::at_most(Form::Square, XVar::N),
            means: Means::Plain,
            scope: Some(
                "necessary check: the theorem bounds the worst case over every starting configuration; each size is measured from the slowest start a search found there (the protocol's families, its parameterized families, corners of the count simplex and mutations of the slowest), which no search proves to be the worst; at a small instance the search is checked against the exact worst start",
            ),
            worst_starts: Some(WorstStarts {
                family: "random",
                candidates: pick(8, 48),
                remeasure: pick(6, 20),
                race_trials: pick(4, 32),
                exact_check: (3, &[]),
            }),
            data: Vec::new(),
            pictures: vec![
                Picture::Spacetime { n: 100, init: "fig3" },
                Picture::Spacetime { n: 200, init: "random" },
                Picture::LeaderTraces { protocol: "prl", n: 200, init: "random", runs: 4 },
            ],
        },
        Claim {
            id: "prl-big-n",
            title: "P_RL: convergence steps against N at n = 100",
            source: "004 (Yokota, Sudo, Masuzawa, IEICE 2021) section 4, Theorem 1",
            statement: "The O(nN) bound, in N: n = 100 fixed, N from 64 n = 6400 to 1024 n = 102400, from no-leader (Lemma 10's slow case).",
            sizes: "n = 100 with N = 64 n to 1024 n, 10 trials per size (50 in --full). Below N = 64 n the runs are in the n^2 regime (mean / N = 424 at N = 100), and a range straddling the knee into the n N regime (mean / N tends to 99.8) reads as a changing growth; from 64 n on, the bound's term dominates.",
            sweeps: vec![with(
                spec("prl", &[100], &[("N", &["6400", "12800", "25600", "51200", "102400"])], pick(10, 50), seed),
                "no-leader",
                Measure::Convergence,
                1_000_000_000_000,
            )],
            x: XVar::Param("N"),
            y: YVar::Steps,
            rule: Rule::at_most(Form::Linear, XVar::Param("N")),
            means: Means::Plain,
            scope: Some(
                "necessary check: the theorem bounds the worst case over every starting configuration; each size is measured from the slowest start a search found there (the protocol's families, its parameterized families, corners of the count simplex and mutations of the slowest), which no search proves to be the worst; at a small instance the search is checked against the exact worst start",
            ),
            worst_starts: Some(WorstStarts {
                family: "no-leader",
                candidates: pick(8, 48),
                remeasure: pick(6, 20),
                race_trials: pick(4, 32),
                exact_check: (2, &["N=4"]),
            }),
            data: Vec::new(),
            pictures: Vec::new(),
        },
    ];
    if mode == Mode::Tiny {
        for spec in claims.iter_mut().flat_map(|c| c.sweeps.iter_mut()) {
            spec.ns.truncate(2);
            for (_, values) in &mut spec.params {
                values.truncate(2);
            }
            spec.template.trials = 4;
        }
        for worst in claims.iter_mut().filter_map(|c| c.worst_starts.as_mut()) {
            worst.candidates = 4;
            worst.remeasure = 4;
            worst.race_trials = 2;
        }
        for picture in claims.iter_mut().flat_map(|c| c.pictures.iter_mut()) {
            match picture {
                Picture::ExactHolding { values, .. } => *values = &values[..values.len().min(2)],
                Picture::LeaderTraces { runs, .. } => *runs = 2,
                Picture::Spacetime { .. } | Picture::ModuleTails { .. } => {}
            }
        }
    }
    assign_data_dirs(&mut claims);
    claims
}

/// Gives every sweep its data directory, `data/CLAIM/sweep-I`; a trial sweep identical to an
/// earlier claim's shares that claim's directory, so its trials run once and are read back.
fn assign_data_dirs(claims: &mut [Claim]) {
    let mut owners: Vec<(SweepSpec, String)> = Vec::new();
    for claim in claims.iter_mut() {
        claim.data = claim
            .sweeps
            .iter()
            .enumerate()
            .map(|(i, spec)| {
                let own = own_data_dir(claim.id, i);
                if claim.estimates() {
                    return own;
                }
                if let Some((_, dir)) = owners.iter().find(|(s, _)| s == spec) {
                    return dir.clone();
                }
                owners.push((spec.clone(), own.clone()));
                own
            })
            .collect();
    }
}

/// The directory of a claim's own sweep `index`, `data/CLAIM/sweep-INDEX`.
pub(super) fn own_data_dir(id: &str, index: usize) -> String {
    format!("data/{id}/sweep-{index}")
}
