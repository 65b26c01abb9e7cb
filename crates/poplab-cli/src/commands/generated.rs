//! `completions` and `man`: shell completion scripts and man pages, and the guide's CLI reference
//! (`docs/guide/src/cli/`, [`cli_reference`]), generated from the clap definition of the command
//! line (`crate::cli`) and the manual's pages (`crate::manual`), so they always agree with `--help`.

use crate::cli::{CompletionsArgs, ManArgs};
use crate::input::InputError;
use crate::manual;
use crate::output::write_text;
use anyhow::Result;
use std::fmt::Write as _;

/// `poplab completions SHELL`: the shell's completion script on standard output.
pub fn completions(args: &CompletionsArgs) -> Result<()> {
    let mut script = Vec::new();
    let mut command = manual::command();
    clap_complete::generate(args.shell, &mut command, "poplab", &mut script);
    let mut script = String::from_utf8(script)?;
    if args.shell == clap_complete::Shell::Bash {
        command.build();
        script.push_str(&bash_protocols(&command));
    }
    write_text(None, &script)
}

/// The subcommands whose first positional argument is a protocol, and the protocols each takes
/// (`None`: every built-in one).
const PROTOCOL_COMMANDS: &[(&str, Option<&[&str]>)] = &[
    ("list", None),
    ("run", None),
    ("sweep", None),
    ("exact", None),
    ("search", None),
    ("verify", None),
    ("spacetime", Some(&["prl"])),
];

/// A bash function that completes protocol names at the protocol's place after `poplab run`,
/// `sweep`, ..., claim names after `--only`, and files after `@` (protocol files, `--init @FILE`,
/// `--graph @FILE`), and hands everything else to clap's `_poplab` (which completes files for
/// path options); registered in its place. Options that take a value skip that value, so `poplab run --n 10 an<TAB>` completes.
fn bash_protocols(command: &clap::Command) -> String {
    let mut cases = String::new();
    for (name, only) in PROTOCOL_COMMANDS {
        let Some(sub) = command.find_subcommand(name) else { continue };
        // The options that take no value (flags), as bash sees them.
        let mut flags = vec!["-h".to_string(), "--help".to_string()];
        for arg in sub.get_arguments().filter(|arg| !arg.is_positional() && !arg.get_action().takes_values()) {
            flags.extend(arg.get_long().map(|long| format!("--{long}")));
            flags.extend(arg.get_short().map(|short| format!("-{short}")));
        }
        flags.sort();
        flags.dedup();
        let protocols: Vec<&str> = match only {
            Some(names) => names.to_vec(),
            None => poplab::protocols::PROTOCOLS.iter().map(|info| info.name).collect(),
        };
        let _ =
            writeln!(cases, "        {name}) flags=' {} '; protocols='{}' ;;", flags.join(" "), protocols.join(" "));
    }
    let claims: Vec<&str> =
        poplab::claims::claims(poplab::claims::Mode::Full, 1).iter().map(|claim| claim.id).collect();
    let claims = claims.join(" ");
    format!(
        r#"
# Protocol names (and @FILE) at the protocol's place after a subcommand that takes one; the rest
# is clap's _poplab above. Appended by `poplab completions bash`.
_poplab_protocol() {{
    local cur=${{COMP_WORDS[COMP_CWORD]}} flags protocols word i=2
    # The claims `reproduce --only` takes; a file after `@` wherever a value may be one (a protocol,
    # --init, --graph).
    if [[ ${{COMP_WORDS[COMP_CWORD-1]}} == --only ]]; then
        COMPREPLY=( $(compgen -W "{claims}" -- "$cur") )
        return 0
    fi
    if [[ $cur == @* ]]; then
        local IFS=$'\n'
        COMPREPLY=( $(compgen -f -- "${{cur#@}}") )
        COMPREPLY=( "${{COMPREPLY[@]/#/@}}" )
        return 0
    fi
    case ${{COMP_WORDS[1]}} in
{cases}        *) _poplab "$@"; return ;;
    esac
    if [[ $cur != -* ]]; then
        while (( i < COMP_CWORD )); do
            word=${{COMP_WORDS[i]}}
            if [[ $word != -* ]]; then
                break
            elif [[ $word != *=* && $flags != *" $word "* ]]; then
                i=$((i + 1))
            fi
            i=$((i + 1))
        done
        if (( i == COMP_CWORD )); then
            COMPREPLY=( $(compgen -W "$protocols" -- "$cur") )
            return 0
        fi
    fi
    _poplab "$@"
}}
if [[ "${{BASH_VERSINFO[0]}}" -eq 4 && "${{BASH_VERSINFO[1]}}" -ge 4 || "${{BASH_VERSINFO[0]}}" -gt 4 ]]; then
    complete -F _poplab_protocol -o nosort -o bashdefault -o default poplab
else
    complete -F _poplab_protocol -o bashdefault -o default poplab
fi
"#
    )
}

/// `poplab man [COMMAND] [--out DIR]`: one page on standard output, or every page into `DIR`.
pub fn man(args: &ManArgs) -> Result<()> {
    // Built, so that each subcommand knows its full name (poplab-run); `help` gets no page.
    let mut poplab = manual::command().disable_help_subcommand(true);
    poplab.build();
    if let Some(dir) = &args.out {
        poplab::files::prepare_output_dir(dir)?;
        for command in std::iter::once(&poplab).chain(poplab.get_subcommands().filter(|sub| !sub.is_hide_set())) {
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

/// The roff source of `command`'s man page (section 1): clap_mangen's sections, with the
/// manual's description as DESCRIPTION and its examples as EXAMPLES (before VERSION).
fn page(command: &clap::Command) -> Result<String> {
    let mut roff = Vec::new();
    let source = format!("poplab {}", env!("CARGO_PKG_VERSION"));
    // The examples are set as `after_long_help` for --help; clap_mangen would print them as one
    // filled paragraph under EXTRA, so they are taken off and written as EXAMPLES here.
    let bare = command.clone().after_long_help(None::<&str>);
    clap_mangen::Man::new(bare).source(source).render(&mut roff)?;
    let mut page = String::from_utf8(roff)?;
    if let Some(manual) = manual::page(manual_name(command)) {
        let examples = examples_roff(manual);
        match page.find("\n.SH VERSION") {
            Some(at) => page.insert_str(at + 1, &examples),
            None => page.push_str(&examples),
        }
    }
    Ok(page)
}

/// The name of `command`'s manual page: "" for poplab itself, else the subcommand's name.
fn manual_name(command: &clap::Command) -> &str {
    if command.get_name() == "poplab" { "" } else { command.get_name() }
}

/// Text for roff: backslashes, hyphens and apostrophes escaped, no control character up front.
fn roff_escape(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-").replace('\'', "\\*(Aq");
    if escaped.starts_with('.') { format!("\\&{escaped}") } else { escaped }
}

/// The EXAMPLES section: each example's purpose, then its command line, indented and unfilled.
fn examples_roff(manual: &manual::Page) -> String {
    let mut roff = String::from(".SH EXAMPLES\n");
    for (what, line) in manual.examples {
        let _ = write!(roff, ".PP\n{}\n.RS 4\n.nf\n\\fB{}\\fR\n.fi\n.RE\n", roff_escape(what), roff_escape(line));
    }
    roff
}

#[cfg(test)]
/// The guide's CLI reference: one markdown page per command (`poplab.md`, `run.md`, ...), each as
/// (file name, text), from the same definition and manual pages as `--help` and `poplab man`.
/// `docs/guide/src/cli/` holds them; a test fails when they are stale (and rewrites them with
/// `POPLAB_BLESS=1`).
pub fn cli_reference() -> Vec<(String, String)> {
    let mut poplab = manual::command().disable_help_subcommand(true);
    poplab.build();
    let mut pages = vec![("poplab.md".to_string(), markdown_page(&poplab, &poplab))];
    for sub in poplab.get_subcommands().filter(|sub| !sub.is_hide_set()) {
        pages.push((format!("{}.md", sub.get_name()), markdown_page(&poplab, sub)));
    }
    pages
}

#[cfg(test)]
/// Text for markdown outside code: characters that would start markup escaped.
fn markdown_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '_' | '<' | '>' | '[' | ']' | '|') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
/// Help text for markdown: spans in backticks kept as code, the rest escaped.
fn markdown_text(text: &str) -> String {
    text.split('`')
        .enumerate()
        .map(|(i, part)| if i % 2 == 1 { format!("`{part}`") } else { markdown_escape(part) })
        .collect()
}

#[cfg(test)]
/// One command's reference page.
fn markdown_page(poplab: &clap::Command, command: &clap::Command) -> String {
    let top = std::ptr::eq(poplab, command);
    let full = if top { "poplab".to_string() } else { format!("poplab {}", command.get_name()) };
    let mut md = format!(
        "<!-- Generated from the clap definition by crates/poplab-cli (commands/generated.rs); do not edit:\n     \
         `POPLAB_BLESS=1 cargo test -p poplab-cli --bin poplab cli_reference` rewrites it. -->\n\n# {full}\n\n"
    );
    if let Some(about) = command.get_about() {
        let _ = writeln!(md, "{}\n", markdown_text(&about.to_string()));
    }
    let usage = command.clone().render_usage().to_string();
    let usage = usage.strip_prefix("Usage: ").unwrap_or(&usage);
    let _ = writeln!(md, "```text\n{usage}\n```\n");
    if let Some(description) = command.get_long_about() {
        let _ = writeln!(md, "## Description\n\n{}\n", markdown_text(&description.to_string()));
    }
    if top {
        md.push_str("## Commands\n\n");
        for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
            let about = sub.get_about().map(|about| markdown_text(&about.to_string())).unwrap_or_default();
            let _ = writeln!(md, "- [`poplab {0}`]({0}.md): {about}", sub.get_name());
        }
        md.push('\n');
    }
    let arguments: Vec<&clap::Arg> = command.get_arguments().filter(|arg| !arg.is_hide_set()).collect();
    if !arguments.is_empty() {
        md.push_str("## Options\n\n");
        for arg in arguments {
            let _ = writeln!(md, "- {}", markdown_arg(arg));
        }
        md.push('\n');
    }
    if let Some(manual) = manual::page(manual_name(command)) {
        md.push_str("## Examples\n\n```sh\n");
        for (what, line) in manual.examples {
            let _ = writeln!(md, "# {what}\n{line}");
        }
        md.push_str("```\n");
    }
    md
}

#[cfg(test)]
/// One option or argument: its syntax in code, its help, its default and its values.
fn markdown_arg(arg: &clap::Arg) -> String {
    let names: Vec<String> =
        arg.get_value_names().map(|names| names.iter().map(|name| name.to_string()).collect()).unwrap_or_default();
    let value = names.first().cloned().unwrap_or_else(|| arg.get_id().to_string().to_uppercase());
    let syntax = if arg.is_positional() {
        let many = if matches!(arg.get_action(), clap::ArgAction::Append) { "..." } else { "" };
        if arg.is_required_set() { format!("<{value}>{many}") } else { format!("[{value}]{many}") }
    } else {
        let mut forms = Vec::new();
        forms.extend(arg.get_short().map(|short| format!("-{short}")));
        forms.extend(arg.get_long().map(|long| format!("--{long}")));
        let forms = forms.join(", ");
        if arg.get_action().takes_values() { format!("{forms} <{value}>") } else { forms }
    };
    let help = arg.get_long_help().or_else(|| arg.get_help()).map(|help| help.to_string()).unwrap_or_default();
    let mut text = format!("`{syntax}`: {}", markdown_text(&help));
    let defaults: Vec<String> =
        arg.get_default_values().iter().map(|value| value.to_string_lossy().into_owned()).collect();
    if !defaults.is_empty() && arg.get_action().takes_values() {
        let _ = write!(text, " (default: `{}`)", defaults.join(","));
    }
    let values: Vec<clap::builder::PossibleValue> =
        arg.get_possible_values().into_iter().filter(|value| !value.is_hide_set()).collect();
    if !values.is_empty() && arg.get_action().takes_values() {
        for value in values {
            let help =
                value.get_help().map(|help| format!(": {}", markdown_text(&help.to_string()))).unwrap_or_default();
            let _ = write!(text, "\n  - `{}`{help}", value.get_name());
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// docs/guide/src/cli/ holds exactly the pages `cli_reference` writes, and the guide's
    /// SUMMARY.md lists each; with POPLAB_BLESS=1 the pages are rewritten instead of compared.
    #[test]
    fn cli_reference_is_current() {
        let guide = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/guide/src");
        let dir = guide.join("cli");
        let pages = cli_reference();
        if std::env::var_os("POPLAB_BLESS").is_some() {
            std::fs::create_dir_all(&dir).unwrap();
            for entry in std::fs::read_dir(&dir).unwrap() {
                std::fs::remove_file(entry.unwrap().path()).unwrap();
            }
            for (name, text) in &pages {
                std::fs::write(dir.join(name), text).unwrap();
            }
        }
        let mut stale = Vec::new();
        for (name, text) in &pages {
            if std::fs::read_to_string(dir.join(name)).ok().as_deref() != Some(text.as_str()) {
                stale.push(name.clone());
            }
        }
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .map(|entries| entries.map(|entry| entry.unwrap().file_name().into_string().unwrap()).collect())
            .unwrap_or_default();
        on_disk.retain(|name| !pages.iter().any(|(page, _)| page == name));
        assert!(
            stale.is_empty() && on_disk.is_empty(),
            "docs/guide/src/cli/ is stale (differs: {stale:?}; not generated: {on_disk:?}); \
             rewrite it with `POPLAB_BLESS=1 cargo test -p poplab-cli --bin poplab cli_reference`"
        );
        let summary = std::fs::read_to_string(guide.join("SUMMARY.md")).unwrap();
        for (name, _) in &pages {
            assert!(summary.contains(&format!("(cli/{name})")), "SUMMARY.md does not list cli/{name}");
        }
    }

    #[test]
    fn roff_escapes_what_roff_would_read() {
        assert_eq!(roff_escape("--n 10^4 'x' a\\b"), "\\-\\-n 10^4 \\*(Aqx\\*(Aq a\\eb");
        assert_eq!(roff_escape(".x"), "\\&.x");
    }
}
