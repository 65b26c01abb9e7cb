//! The run wing: a spec resolved once and run as trials, under checkpoints, by the splitting
//! estimator, and written by the exporters. Its modules import one way, bottom to top:
//! `record` (a trial's record), `checkpoint`, `experiment`, `splitting`, `search` (slow starts),
//! `spec`, `export`,
//! `checkpointed` (a run under checkpoints). They are public at the crate root (`poplab::spec`,
//! ...).

pub mod checkpoint;
pub mod checkpointed;
mod estimator;
pub mod experiment;
pub mod export;
mod journal;
mod record;
mod runner;
pub mod search;
pub mod spec;
pub mod splitting;
