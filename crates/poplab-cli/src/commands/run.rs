//! `poplab run`: independent trials of one protocol.

use crate::cli::RunArgs;
use crate::output;
use crate::progress::Progress;
use anyhow::Result;
use poplab::export::{Csv, Exporter, Json};
use poplab::files;
use poplab::spec::RunSpec;

pub fn run(args: &RunArgs) -> Result<()> {
    let mut raw = args.target.raw("run")?;
    args.trials.apply(&mut raw);
    raw.faults = args.faults.clone();
    raw.trace_every = args.trace.as_ref().map(|_| args.trace_every.unwrap_or(u128::from(raw.n)));
    let spec = RunSpec::resolve(&raw)?;
    if let Some(path) = &args.out {
        files::check_output_file(path)?;
        if args.trace.as_ref().is_some_and(|trace| trace == path) {
            return Err(crate::input::InputError(format!(
                "--out and --trace both name '{}'; give the time series a file of its own",
                path.display()
            ))
            .into());
        }
    }
    let progress = Progress::new(spec.settings.trials, &spec.protocol);
    let result = match &args.trace {
        Some(path) => spec.run_traced(&|| progress.inc(), path)?,
        None => spec.run(&|| progress.inc())?,
    };
    drop(progress);
    let text = if args.json {
        Json.export(&result)?
    } else if args.csv {
        Csv.export(&result)?
    } else {
        output::human(&result)
    };
    output::write_text(args.out.as_deref(), &text)
}
