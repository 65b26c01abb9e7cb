//! `poplab spacetime prl`: a space-time diagram of P_RL on its directed ring. One row per
//! snapshot (time runs down), one column per agent; each cell coloured by what the agent holds:
//! a leader (dark red if shielded, red if not), else a live bullet (blue), a dummy bullet (light
//! blue), a bullet-absence signal (green), else white (a plain follower). The run is trial 0 of `poplab run prl --engine agents` with the same seed, and it
//! stops at the safe set unless `--past-safe`.

use crate::cli::SpacetimeArgs;
use crate::input::InputError;
use anyhow::{Result, anyhow};
use plotters::prelude::*;
use poplab::engine::snapshots;
use poplab::graph::Graph;
use poplab::init::InitSpec;
use poplab::protocol::{Params, Protocol};
use poplab::protocols::prl::{Bullet, Prl, PrlState};
use std::path::Path;

/// The widest image drawn, in pixels; each agent gets `max(1, WIDTH / n)` of them.
const WIDTH: usize = 1200;
/// Pixels above the diagram for its title and key.
const HEADER: usize = 50;

pub fn spacetime(args: &SpacetimeArgs) -> Result<()> {
    if args.protocol != "prl" {
        return Err(InputError(format!(
            "spacetime draws prl on its ring (the only protocol whose agents' places matter); '{}' is not prl",
            args.protocol
        ))
        .into());
    }
    crate::plot::check_out(&args.out)?;
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

/// Refuses a diagram of `rows` snapshots of `n` agents whose snapshots and picture (a bitmap of 3
/// bytes per pixel for PNG, about 100 bytes per cell of SVG text) cannot fit in memory.
fn check_memory(n: usize, rows: usize, png: bool) -> Result<()> {
    let cell = (WIDTH / n.max(1)).max(1) as u128;
    let (n, rows) = (n as u128, rows as u128);
    let snapshots = n * rows * std::mem::size_of::<PrlState>() as u128;
    let picture = if png { n * cell * (HEADER as u128 + rows * cell) * 3 } else { n * rows * 100 };
    Ok(poplab::files::check_memory(
        snapshots + picture,
        &format!("a diagram of {rows} rows of {n} agents"),
        "lower --rows or --n",
    )?)
}

/// What a space-time diagram shows: the run and how much of it.
pub struct Diagram<'a> {
    pub init: &'a str,
    pub seed: u64,
    pub every: u64,
    pub rows: usize,
    pub until_safe: bool,
}

impl Diagram<'_> {
    /// Runs `prl` and writes the diagram to `path` (SVG or PNG by its extension), atomically.
    pub fn write(&self, prl: &Prl, path: &Path) -> Result<()> {
        let init = InitSpec::from_name(self.init);
        let rows = snapshots(prl, &Graph::DirectedRing, &init, self.seed, self.every, self.rows, self.until_safe)?;
        let n = prl.n();
        let cell = (WIDTH / n).max(1);
        let (width, height) = ((n * cell) as u32, (HEADER + rows.len() * cell) as u32);
        let title = format!(
            "prl, n = {n}, N = {}, init {}, seed {}: one row per {} steps ({} rows{})",
            prl.big_n(),
            self.init,
            self.seed,
            self.every,
            rows.len(),
            if rows.len() < self.rows { ", ends in the safe set" } else { "" }
        );
        crate::plot::atomically(path, |partial, format| match format {
            "svg" => draw(SVGBackend::new(partial, (width, height)).into_drawing_area(), &rows, cell, &title),
            _ => draw(BitMapBackend::new(partial, (width, height)).into_drawing_area(), &rows, cell, &title),
        })
    }
}

fn colour(state: &PrlState) -> RGBColor {
    match (state.leader, state.shield, state.bullet, state.signal) {
        (true, true, ..) => RGBColor(140, 0, 0),
        (true, false, ..) => RGBColor(235, 70, 50),
        (false, _, Bullet::Live, _) => RGBColor(30, 80, 210),
        (false, _, Bullet::Dummy, _) => RGBColor(150, 190, 245),
        (false, _, Bullet::None, true) => RGBColor(40, 160, 60),
        _ => WHITE,
    }
}

fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    rows: &[Vec<PrlState>],
    cell: usize,
    title: &str,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let fail = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("drawing the space-time diagram: {e:?}");
    crate::plot::register_font();
    root.fill(&WHITE).map_err(fail)?;
    let style = ("sans-serif", 14).into_font();
    root.draw(&Text::new(title.to_string(), (4, 4), style.clone())).map_err(fail)?;
    let key = "dark red: shielded leader, red: leader, blue: live bullet, light blue: dummy bullet, green: signal";
    root.draw(&Text::new(key, (4, 24), style)).map_err(fail)?;
    let c = cell as i32;
    for (t, row) in rows.iter().enumerate() {
        let y = HEADER as i32 + t as i32 * c;
        // Runs of one colour as one rectangle, so an SVG stays small.
        let mut start = 0;
        for i in 1..=row.len() {
            let here = colour(&row[start]);
            if i == row.len() || colour(&row[i]) != here {
                if here != WHITE {
                    root.draw(&Rectangle::new([(start as i32 * c, y), (i as i32 * c, y + c)], here.filled()))
                        .map_err(fail)?;
                }
                start = i;
            }
        }
    }
    root.present().map_err(fail)?;
    Ok(())
}
