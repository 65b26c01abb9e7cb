//! What a verification finds: the verdict on each property and the counterexamples, shared by the
//! explorer ([`verify()`](super::verify())) and the dense mode.

/// A schedule that exhibits a violation: play `schedule` (pairs (initiator, responder), e.g. with
/// [`crate::graph::Replay`]) from `start` to reach `end`.
#[derive(Clone, Debug, PartialEq)]
pub struct Counterexample<S> {
    /// What is wrong with `end` (or with the last interaction).
    pub reason: String,
    /// The start configuration, one state per agent (usable as an explicit initial configuration).
    pub start: Vec<S>,
    /// The interactions to play, in order.
    pub schedule: Vec<(u32, u32)>,
    /// The configuration after the schedule.
    pub end: Vec<S>,
}

/// The verdict on one property.
#[derive(Clone, Debug, PartialEq)]
pub struct Check<S> {
    /// Whether the property holds.
    pub passed: bool,
    /// How many configurations violate it (see [`Verification`] for what is counted).
    pub violations: usize,
    /// A shortest counterexample from a start, when it failed.
    pub counterexample: Option<Counterexample<S>>,
}

impl<S> Counterexample<S> {
    /// The same counterexample with every state converted by `f` (for example to JSON).
    pub fn map<T>(self, f: &impl Fn(S) -> T) -> Counterexample<T> {
        Counterexample {
            reason: self.reason,
            start: self.start.into_iter().map(f).collect(),
            schedule: self.schedule,
            end: self.end.into_iter().map(f).collect(),
        }
    }
}

impl<S> Check<S> {
    /// The same check with the counterexample's states converted by `f`.
    pub fn map<T>(self, f: &impl Fn(S) -> T) -> Check<T> {
        Check {
            passed: self.passed,
            violations: self.violations,
            counterexample: self.counterexample.map(|c| c.map(f)),
        }
    }

    pub(super) fn pass() -> Self {
        Self { passed: true, violations: 0, counterexample: None }
    }
}

/// The result of [`verify()`](super::verify()).
///
/// - **closure**: no transition leaves the safe set. `violations` = safe configurations with an
///   unsafe successor; the counterexample reaches one of them and ends with the interaction that
///   leaves.
/// - **safety**: every safe configuration has exactly one leader (for yes/no protocols: every agent
///   gives the same answer, and not undecided) and no interaction from a safe configuration changes
///   an output.
///   `violations` = safe configurations that break the first part plus those that break the second.
/// - **convergence** (with probability 1): every bottom strongly connected component of the
///   reachable chain lies inside the safe set, i.e. from every start the chain is eventually in the
///   safe set forever. `violations` = configurations in bottom components that contain an unsafe
///   configuration; the counterexample reaches the first of them.
#[derive(Clone, Debug, PartialEq)]
pub struct Verification<S> {
    /// Configurations reachable from the starts.
    pub configurations: usize,
    /// Start configurations among them.
    pub starts: usize,
    /// Safe configurations among them.
    pub safe: usize,
    /// Edges between distinct configurations.
    pub transitions: usize,
    /// Whether the protocol is an election (leader/follower outputs) rather than a predicate.
    pub election: bool,
    /// No transition leaves the safe set.
    pub closure: Check<S>,
    /// Safe configurations are correct and keep their outputs.
    pub safety: Check<S>,
    /// Every bottom component lies in the safe set.
    pub convergence: Check<S>,
    /// Bottom strongly connected components, and how many of them contain an unsafe configuration.
    pub bottom_components: usize,
    /// Bottom components holding an unsafe configuration.
    pub unsafe_bottom_components: usize,
    /// Whether the dense mode decided it (every configuration a start; `transitions` and the
    /// component counts are then not computed and stay 0, and convergence was decided by
    /// reachability of the safe set, which closure makes equivalent).
    pub dense: bool,
}

impl<S> Verification<S> {
    /// The same verification with the counterexamples' states converted by `f`.
    pub fn map<T>(self, f: &impl Fn(S) -> T) -> Verification<T> {
        Verification {
            configurations: self.configurations,
            starts: self.starts,
            safe: self.safe,
            transitions: self.transitions,
            election: self.election,
            closure: self.closure.map(f),
            safety: self.safety.map(f),
            convergence: self.convergence.map(f),
            bottom_components: self.bottom_components,
            unsafe_bottom_components: self.unsafe_bottom_components,
            dense: self.dense,
        }
    }

    /// Whether all three properties hold.
    pub fn passed(&self) -> bool {
        self.closure.passed && self.safety.passed && self.convergence.passed
    }
}
