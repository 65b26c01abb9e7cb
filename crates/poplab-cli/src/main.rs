//! `poplab`: the command-line face of the poplab library. `main` only maps `run`'s result to an
//! exit code: 0 on success (and when standard output is a closed pipe, as `| head` leaves it), 2
//! for input the user can fix, 1 for anything else.

mod cli;
mod commands;
mod input;
mod manual;
mod output;
mod parse;
#[cfg(feature = "pictures")]
mod plot;
mod progress;
mod typeset;

use std::process::ExitCode;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if input::is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            if input::is_input_error(&error) { ExitCode::from(2) } else { ExitCode::FAILURE }
        }
    }
}

fn run() -> anyhow::Result<()> {
    use clap::FromArgMatches;
    // Parsed with the manual's descriptions and examples on the definition, so `--help` shows them.
    let matches = manual::command().try_get_matches().and_then(|matches| cli::Cli::from_arg_matches(&matches));
    let cli = matches.map_err(|error| {
        use clap::error::ErrorKind;
        // Help and version print normally; `poplab` alone prints the help and exits with 2.
        if matches!(
            error.kind(),
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
        ) {
            error.exit();
        }
        // A value one of our parsers refused: `--threads 10000: give from 1 to 256 ...`, as the
        // library words its refusals.
        use clap::error::{ContextKind, ContextValue};
        if error.kind() == ErrorKind::ValueValidation
            && let (Some(ContextValue::String(arg)), Some(ContextValue::String(value))) =
                (error.get(ContextKind::InvalidArg), error.get(ContextKind::InvalidValue))
            && let Some(reason) = std::error::Error::source(&error)
        {
            let option = arg.split(' ').next().unwrap_or(arg);
            return input::InputError(format!("{option} {value}: {reason}"));
        }
        // An option the command does not take: said as such, without clap's tips (`-- --fault`).
        if error.kind() == ErrorKind::UnknownArgument
            && let Some(ContextValue::String(option)) = error.get(ContextKind::InvalidArg)
            && let Some(command) = std::env::args().nth(1).filter(|c| !c.starts_with('-'))
        {
            return input::InputError(format!(
                "poplab {command} does not take {option}; see poplab {command} --help for the options it takes"
            ));
        }
        input::InputError(one_line(&error.to_string()))
    })?;
    commands::dispatch(cli)
}

/// Clap's usage error on one line, without its "error:" prefix and its pointers to --help.
fn one_line(message: &str) -> String {
    let lines: Vec<&str> = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .collect();
    let joined = lines.join(" ");
    joined.strip_prefix("error: ").unwrap_or(&joined).to_string() + " (see poplab --help)"
}
