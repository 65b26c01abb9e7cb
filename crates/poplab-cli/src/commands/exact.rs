//! Placeholder: `poplab exact` and `poplab verify` are being written (see the issue tracker).

use crate::input::InputError;
use clap::Args;

#[derive(Debug, Args)]
pub struct ExactArgs {
    /// The protocol (see `poplab list`).
    pub protocol: String,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The protocol (see `poplab list`).
    pub protocol: String,
}

pub fn exact(_args: &ExactArgs) -> anyhow::Result<()> {
    Err(InputError("poplab exact is not available yet".into()).into())
}

pub fn verify(_args: &VerifyArgs) -> anyhow::Result<()> {
    Err(InputError("poplab verify is not available yet".into()).into())
}
