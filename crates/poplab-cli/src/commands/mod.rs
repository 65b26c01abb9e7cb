//! One module per subcommand.

mod exact;
mod generated;
mod list;
mod network;
#[cfg(feature = "pictures")]
mod plot;
mod reproduce;
mod run;
mod search;
#[cfg(feature = "pictures")]
mod spacetime;
mod sweep;

use crate::cli::{Cli, Command};

/// What a command that draws says when poplab was built without its `pictures` feature.
#[cfg(not(feature = "pictures"))]
pub const NO_PICTURES: &str = "pictures were not built in: this poplab was built without its `pictures` feature (the default); build it \
     with `cargo build -p poplab-cli --features pictures`";

/// Runs the chosen subcommand.
pub fn dispatch(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::List(args) => list::list(&args),
        Command::Run(args) => run::run(&args),
        Command::Sweep(args) => sweep::sweep(&args),
        Command::Merge(args) => sweep::merge(&args),
        Command::Reproduce(args) => reproduce::reproduce(&args),
        #[cfg(feature = "pictures")]
        Command::Plot(args) => plot::plot(&args),
        #[cfg(feature = "pictures")]
        Command::Spacetime(args) => spacetime::spacetime(&args),
        #[cfg(not(feature = "pictures"))]
        Command::Plot(_) | Command::Spacetime(_) => Err(crate::input::InputError(NO_PICTURES.into()).into()),
        Command::Exact(args) => exact::exact(&args),
        Command::Search(args) => search::search(&args),
        Command::Verify(args) => exact::verify(&args),
        Command::Completions(args) => generated::completions(&args),
        Command::Man(args) => generated::man(&args),
    }
}

#[cfg(all(test, not(feature = "pictures")))]
mod tests {
    use crate::cli::Cli;
    use clap::Parser;

    #[test]
    fn without_pictures_plot_and_spacetime_refuse_and_reproduce_writes_no_plots() {
        let drawing = [
            vec!["poplab", "plot", "trace.csv", "--out", "leaders.svg"],
            vec!["poplab", "spacetime", "prl", "--n", "10", "--out", "prl.svg"],
        ];
        for args in drawing {
            let error = super::dispatch(Cli::parse_from(args)).unwrap_err();
            assert!(crate::input::is_input_error(&error), "exit code 2");
            assert_eq!(error.to_string(), super::NO_PICTURES);
        }
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("report");
        let args = ["poplab", "reproduce", "--tiny", "--only", "angluin-exact", "--out", out.to_str().unwrap()];
        super::dispatch(Cli::parse_from(args)).unwrap();
        let report = std::fs::read_to_string(out.join("report.md")).unwrap();
        assert!(report.contains(&format!("No pictures: {}.", super::NO_PICTURES)));
        assert!(!report.contains("!["), "no image in the report");
        assert!(!out.join("plots").exists());
    }
}
