//! `completions` and `man`: shell completion scripts and man pages, generated from the clap
//! definition of the command line (`crate::cli`), so they always agree with `--help`.

use crate::cli::{Cli, CompletionsArgs, ManArgs};
use crate::input::InputError;
use crate::output::write_text;
use anyhow::Result;
use clap::CommandFactory;

/// `poplab completions SHELL`: the shell's completion script on standard output.
pub fn completions(args: &CompletionsArgs) -> Result<()> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "poplab", &mut script);
    write_text(None, &String::from_utf8(script)?)
}

/// `poplab man [COMMAND] [--out DIR]`: one page on standard output, or every page into `DIR`.
pub fn man(args: &ManArgs) -> Result<()> {
    // Built, so that each subcommand knows its full name (poplab-run); `help` gets no page.
    let mut poplab = Cli::command().disable_help_subcommand(true);
    poplab.build();
    if let Some(dir) = &args.out {
        poplab::files::prepare_output_dir(dir)?;
        for command in std::iter::once(&poplab).chain(poplab.get_subcommands()) {
            let name = format!("{}.1", command.get_display_name().unwrap_or(command.get_name()));
            poplab::files::write_atomic(&dir.join(name), &page(command)?)?;
        }
        return Ok(());
    }
    let command = match &args.command {
        None => &poplab,
        Some(name) => poplab.find_subcommand(name).ok_or_else(|| {
            let names: Vec<&str> = poplab.get_subcommands().map(clap::Command::get_name).collect();
            InputError(format!("man: no subcommand '{name}'; give one of {}", names.join(", ")))
        })?,
    };
    write_text(None, &page(command)?)
}

/// The roff source of `command`'s man page (section 1).
fn page(command: &clap::Command) -> Result<String> {
    let mut roff = Vec::new();
    let source = format!("poplab {}", env!("CARGO_PKG_VERSION"));
    clap_mangen::Man::new(command.clone()).source(source).render(&mut roff)?;
    Ok(String::from_utf8(roff)?)
}
