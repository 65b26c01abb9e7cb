//! Every integration test of the `poplab` command, in one test binary (one link instead of one per file):
//! each module was a file of its own under `tests/`. Run one with its module path, e.g.
//! `cargo test -p poplab-cli --test it sweep_cli::`.

#[path = "../common/mod.rs"]
mod common;

mod cli;
mod defects;
mod docs_agree;
mod engine_cli;
mod exact_cli;
mod network_cli;
mod reproduce_cli;
mod search_cli;
mod shard_cli;
mod splitting_cli;
mod sweep_cli;
mod user_protocol_cli;
