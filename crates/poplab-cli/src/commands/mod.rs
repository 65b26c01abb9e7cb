//! One module per subcommand.

mod exact;
mod generated;
mod list;
mod plot;
mod reproduce;
mod run;
pub mod spacetime;
mod sweep;

use crate::cli::{Cli, Command};

/// Runs the chosen subcommand.
pub fn dispatch(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::List(args) => list::list(&args),
        Command::Run(args) => run::run(&args),
        Command::Sweep(args) => sweep::sweep(&args),
        Command::Merge(args) => sweep::merge(&args),
        Command::Reproduce(args) => reproduce::reproduce(&args),
        Command::Plot(args) => plot::plot(&args),
        Command::Spacetime(args) => spacetime::spacetime(&args),
        Command::Exact(args) => exact::exact(&args),
        Command::Verify(args) => exact::verify(&args),
        Command::Completions(args) => generated::completions(&args),
        Command::Man(args) => generated::man(&args),
    }
}
