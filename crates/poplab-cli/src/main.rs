//! `poplab`: the command-line face of the poplab library. `main` only maps `run`'s result to an
//! exit code: 0 on success (and when standard output is a closed pipe, as `| head` leaves it), 2
//! for input the user can fix, 1 for anything else.

mod cli;
mod commands;
mod input;
mod manual;
mod output;
mod plot;
mod progress;

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
