//! Space-time diagrams of P_RL on its directed ring: one row per snapshot (time runs down), one
//! column per agent; each cell coloured by what the agent holds: a leader (dark red if shielded,
//! red if not), else a live bullet (blue), a dummy bullet (light blue), a bullet-absence signal
//! (green), else white (a plain follower). `poplab spacetime` and the reproduction's pictures
//! draw through it.

use anyhow::{Result, anyhow};
use plotters::prelude::*;
use poplab::engine::snapshots;
use poplab::graph::Graph;
use poplab::init::InitSpec;
use poplab::protocol::Protocol;
use poplab::protocols::prl::{Bullet, Prl, PrlState};
use std::path::Path;

/// The widest image drawn, in pixels; each agent gets `max(1, WIDTH / n)` of them.
const WIDTH: usize = 1200;
/// Pixels above the diagram for its title and key.
const HEADER: usize = 50;

/// Refuses a diagram of `rows` snapshots of `n` agents whose snapshots and picture (a bitmap of 3
/// bytes per pixel for PNG, about 100 bytes per cell of SVG text) cannot fit in memory.
pub fn check_memory(n: usize, rows: usize, png: bool) -> Result<()> {
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
        super::atomically(path, |partial, format| match format {
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
    super::register_font();
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
