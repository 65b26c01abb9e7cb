//! Typed errors. Every message says what was wrong and how to fix the input.

use thiserror::Error;

/// Everything the library refuses, with a message meant for the person who typed the input. New
/// kinds of refusal may be added, so a `match` needs a catch-all arm.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// The protocol name is not in the registry.
    #[error("unknown protocol '{name}'; known protocols: {known} (see `poplab list`)")]
    UnknownProtocol {
        /// The name given.
        name: String,
        /// The registered names.
        known: String,
    },

    /// A name that is none of the choices of its kind (an engine, a measure, an outcome, a claim).
    #[error("unknown {kind} '{name}'; use {choices}")]
    UnknownName {
        /// What was named: `engine`, `measure`, `outcome`, `estimator`, `stop rule`, `claim`.
        kind: &'static str,
        /// The name given.
        name: String,
        /// The choices, in words ("auto, agents, counts or batched").
        choices: String,
    },

    /// The population is too small or too large for the model or engine.
    #[error("n = {n} is out of range: {reason}")]
    PopulationSize {
        /// The size given.
        n: u64,
        /// Why it cannot be used, and what to use instead.
        reason: String,
    },

    /// A protocol parameter has a value outside its domain, or cannot be parsed.
    #[error("parameter {name} = '{value}' is invalid: {reason}")]
    Parameter {
        /// The parameter.
        name: String,
        /// The value given.
        value: String,
        /// Why it is invalid.
        reason: String,
    },

    /// `--set KEY=VALUE` named a parameter the protocol does not have.
    #[error("protocol {protocol} has no parameter '{name}'; its parameters: {known}")]
    UnknownParameter {
        /// The protocol.
        protocol: String,
        /// The name given.
        name: String,
        /// The protocol's parameters.
        known: String,
    },

    /// A claim (`O(log n)`, `= (n-1)^2`) cannot be read, or cannot be judged on the data given.
    #[error("claim '{claim}': {reason}")]
    Claim {
        /// The claim as written.
        claim: String,
        /// What is wrong and what to write or sweep instead.
        reason: String,
    },

    /// The initial configuration cannot be built (bad family name, bad file contents, wrong length).
    #[error("initial configuration: {0}")]
    Init(String),

    /// The interaction graph is malformed or does not fit the protocol.
    #[error("interaction graph: {0}")]
    Graph(String),

    /// A file the user named cannot be read or written.
    #[error("'{path}' {reason}")]
    File {
        /// The path as given.
        path: String,
        /// What is wrong and what to do.
        reason: String,
    },

    /// The run would need more memory than the machine has; refused before it starts.
    #[error("{0}")]
    Memory(String),

    /// The machine failed (a file that passed its checks cannot be written on a full disk, worker
    /// threads cannot start) or the library did (`internal: ...`, a bug to report): not an input
    /// error.
    #[error("{0}")]
    Io(String),

    /// A protocol file is malformed; `line` is where, when known.
    #[error("protocol file '{path}'{}: {reason}", line.map(|l| format!(", line {l}")).unwrap_or_default())]
    ProtocolFile {
        /// The file as named.
        path: String,
        /// The line of the defect (1-based), when known.
        line: Option<usize>,
        /// What is wrong and how to fix it.
        reason: String,
    },

    /// A user protocol's definition is invalid (an unknown state, a law whose probabilities exceed
    /// 1, a state whose output cannot be had).
    #[error("rule of {protocol}: {reason}")]
    Rule {
        /// The protocol.
        protocol: String,
        /// The pair or state concerned and what went wrong.
        reason: String,
    },

    /// A user protocol's rule failed inside a run (a callback's error, an output missing for a
    /// new state, a malformed law): the run stopped at its next safe point
    /// ([`crate::protocol::Protocol::failure`]).
    #[error("rule of {protocol}: pair ({}, {}): {reason}", pair.0, pair.1)]
    RuleFailed {
        /// The protocol.
        protocol: String,
        /// The pair of states (initiator, responder) whose rule failed, by name.
        pair: (String, String),
        /// What went wrong.
        reason: String,
    },

    /// One option's value is out of range or malformed: `--trials 0`, `--shard 5/4`, a `--fault`
    /// that cannot be parsed, `--set =3`.
    ///
    /// ```
    /// use poplab::spec::{RawSpec, RunSpec};
    ///
    /// let raw = RawSpec { trials: 0, ..RawSpec::new("angluin", 10) };
    /// let Err(poplab::Error::Option { option, value, .. }) = RunSpec::resolve(&raw) else { panic!() };
    /// assert_eq!((option, value.as_str()), ("--trials", "0"));
    /// ```
    #[error("{option} {value}: {reason}")]
    Option {
        /// The option as written on the command line (`--trials`), or what the value is when no
        /// option names it (`a list`).
        option: &'static str,
        /// The value given.
        value: String,
        /// What is wrong and what to give instead.
        reason: String,
    },

    /// Settings that cannot go together: an engine on a graph it cannot run, faults in a holding
    /// run, the splitting estimator without `--measure holding`, `--pack` without `--shard`.
    #[error("{reason}")]
    Conflict {
        /// Which settings clash and what to change.
        reason: String,
    },

    /// A saved run (a checkpoint's content, a pickled simulation) that cannot be restored: of
    /// another engine or population size, damaged, or holding a state that does not survive being
    /// saved. A checkpoint file that cannot be read at all is [`Error::Checkpoint`].
    #[error("{reason}")]
    Snapshot {
        /// What does not fit, and what to do.
        reason: String,
    },

    /// A sweep that cannot be run or merged: an empty list of sizes or values, a parameter swept
    /// twice, a repeated cell, too many cells, missing or unfinished shards, a Slurm array that
    /// does not say which shard to run.
    #[error("{reason}")]
    Sweep {
        /// What is wrong with the sweep and how to fix it.
        reason: String,
    },

    /// The computation reached one of its bounds before it could answer: more configurations than
    /// `--max-configs` for exact analysis, a solver or a splitting piece that did not finish
    /// within its cap, no splitting replica that broke. A smaller input or a larger cap helps.
    #[error("{reason}")]
    Limit {
        /// Which bound was reached, and what to lower or raise.
        reason: String,
    },

    /// A live run stopped at a failing rule (reported once as [`Error::RuleFailed`]): it can
    /// neither go on nor be saved.
    #[error("this run stopped at a failing rule, so it can neither go on nor be saved; start a new one")]
    RunStopped,

    /// One cell of a sweep failed; `error` says why.
    #[error("cell {cell}: {error}")]
    Cell {
        /// The cell, as its key (`n=100 k=3`).
        cell: String,
        /// Its error.
        error: Box<Error>,
    },

    /// A checkpoint file that cannot be resumed: another format version, damaged, or not a
    /// checkpoint at all.
    #[error("checkpoint '{path}': {reason}")]
    Checkpoint {
        /// The file.
        path: String,
        /// What is wrong with it and what to do.
        reason: String,
    },
}

impl Error {
    /// The error that says what kind of refusal this is: the one a [`Error::Cell`] wraps, any
    /// other as itself.
    pub fn innermost(&self) -> &Error {
        match self {
            Error::Cell { error, .. } => error.innermost(),
            other => other,
        }
    }
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
