//! `poplab spacetime prl`: a space-time diagram of P_RL on its directed ring
//! ([`crate::plot::spacetime`] draws it). The run is trial 0 of `poplab run prl --engine agents`
//! with the same seed, and it stops at the safe set unless `--past-safe`.

use crate::cli::SpacetimeArgs;
use crate::input::InputError;
use crate::plot::spacetime::{Diagram, check_memory};
use anyhow::Result;
use poplab::protocol::Params;
use poplab::protocols::prl::Prl;

pub fn spacetime(args: &SpacetimeArgs) -> Result<()> {
    if args.protocol != "prl" {
        return Err(InputError(format!(
            "spacetime draws prl on its ring (the only protocol whose agents' places matter); '{}' is not prl: \
             give prl, for example `poplab spacetime prl --n 50 --out ring.svg`",
            args.protocol
        ))
        .into());
    }
    crate::plot::check_out(&args.out)?;
    if let Some(init) = args.init.strip_prefix('@') {
        poplab::files::check_apart(&[("--out", &args.out)], &[("--init", std::path::Path::new(init))])?;
    }
    if args.rows == 0 {
        return Err(
            InputError("--rows 0: a diagram needs at least 1 row (the start); give --rows 1 or more".into()).into()
        );
    }
    if args.every == Some(0) {
        return Err(InputError("--every 0: rows are at least 1 step apart; give --every 1 or more".into()).into());
    }
    let n = usize::try_from(args.n).map_err(|_| InputError(format!("--n {}: too large", args.n)))?;
    let every = args.every.unwrap_or(args.n);
    // The steps the diagram may simulate: refused up front beyond the default horizon of a run.
    let steps = u128::from(every) * u128::from(args.rows - 1);
    if steps > MAX_STEPS {
        return Err(InputError(format!(
            "--rows {} --every {every} may simulate {steps} steps, more than the {MAX_STEPS} a diagram draws (hours \
             of work); lower --every or --rows",
            args.rows
        ))
        .into());
    }
    let rows = usize::try_from(args.rows).unwrap_or(usize::MAX);
    check_memory(n, rows, crate::plot::format_of(&args.out) == Some("png"))?;
    let prl = Prl::new(n, &Params::parse(&args.set)?)?;
    let diagram = Diagram { init: &args.init, seed: args.seed, every, rows, until_safe: !args.past_safe };
    diagram.write(&prl, &args.out)
}

/// The most steps a diagram simulates (`--every` times the rows after the first).
const MAX_STEPS: u128 = 1_000_000_000_000;
