//! Plots: measured points with their intervals and fitted, exact or traced curves, on log-log
//! axes, written as SVG and PNG (text drawn with the bundled DejaVu Sans). The reproduction's
//! claims and `poplab plot` draw through it; [`spacetime`] draws P_RL's space-time diagrams.

pub mod spacetime;

pub use crate::typeset::typeset;
use anyhow::{Result, anyhow};
use plotters::coord::Shift;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;
use std::sync::Once;

/// One measured point: `y` with an optional interval `[low, high]`; `lower_bound` marks a censored
/// value (drawn hollow: the truth is at least this).
#[derive(Clone, Debug)]
pub struct Mark {
    pub x: f64,
    pub y: f64,
    pub interval: Option<[f64; 2]>,
    pub lower_bound: bool,
}

/// How a series of measured points looks: the same thing keeps its look in every figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkLook {
    /// Blue circles: the measured points of a claim (P_LL among them).
    Primary,
    /// Purple triangles: the second variant of a comparison (P_LL as printed).
    Secondary,
}

/// Measured points named in the legend, drawn with their intervals in their [`MarkLook`].
#[derive(Clone, Debug)]
pub struct Marks {
    pub label: String,
    pub look: MarkLook,
    pub points: Vec<Mark>,
}

impl Marks {
    /// Points in the [`MarkLook::Primary`] look.
    pub fn new(label: impl Into<String>, points: Vec<Mark>) -> Self {
        Marks { label: label.into(), look: MarkLook::Primary, points }
    }
}

/// The colour of a curve: fixed per kind of curve, so that a kind keeps its colour in every
/// figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ink {
    /// One of several curves of the same kind (runs, trials): a colour by its order.
    Auto,
    /// The curve a paper claims: black.
    Claimed,
    /// A fit of the claimed form: teal.
    FormFit,
    /// A power-law fit: brown.
    PowerFit,
    /// The `i`-th of `k` sizes (a family of curves, one per n): grey, darker for larger `i`.
    Size(usize, usize),
}

/// A curve drawn over the points, named in the legend.
#[derive(Clone, Debug)]
pub struct Curve {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    pub ink: Ink,
    /// Drawn as steps: each value held until the next point's x, then a vertical jump (a count
    /// sampled over time, which never takes the values between two samples).
    pub steps: bool,
}

impl Curve {
    /// A curve coloured by its order among the figure's [`Ink::Auto`] curves.
    pub fn new(label: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Curve { label: label.into(), points, ink: Ink::Auto, steps: false }
    }

    /// The same curve in `ink`.
    pub fn inked(self, ink: Ink) -> Self {
        Curve { ink, ..self }
    }

    /// The same curve drawn as steps.
    pub fn stepped(self) -> Self {
        Curve { steps: true, ..self }
    }

    /// The points the line goes through: for steps, a corner `(x1, y0)` before each point
    /// `(x1, y1)` after the first.
    fn path(&self) -> Vec<(f64, f64)> {
        if !self.steps {
            return self.points.clone();
        }
        let mut path = Vec::with_capacity(2 * self.points.len());
        for &(x, y) in &self.points {
            if let Some(&(_, held)) = path.last() {
                path.push((x, held));
            }
            path.push((x, y));
        }
        path
    }
}

/// Points drawn as dots in the group's own colour (`color`, an index into the group palette, so
/// that a category keeps its colour across figures), named in the legend.
#[derive(Clone, Debug)]
pub struct Group {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    pub color: usize,
}

/// Everything one plot shows.
#[derive(Clone, Debug)]
pub struct Figure {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub marks: Vec<Marks>,
    pub curves: Vec<Curve>,
    pub groups: Vec<Group>,
    /// Whether the y axis is logarithmic (the x axis always is).
    pub y_log: bool,
}

static FONT: Once = Once::new();

pub fn register_font() {
    FONT.call_once(|| {
        // The font file ships with the binary; registering it cannot fail for a valid TTF.
        let _ = plotters::style::register_font(
            "sans-serif",
            FontStyle::Normal,
            include_bytes!("../../assets/DejaVuSans.ttf"),
        );
    });
}

/// Whether `path` names an SVG or a PNG file (by its extension), or neither.
pub fn format_of(path: &Path) -> Option<&'static str> {
    match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("svg") => Some("svg"),
        Some("png") => Some("png"),
        _ => None,
    }
}

/// Checks before any work that `path` names a writable `.svg` or `.png` file (an input error
/// otherwise).
pub fn check_out(path: &Path) -> Result<()> {
    if format_of(path).is_none() {
        return Err(crate::input::InputError(format!("--out {}: name an .svg or .png file", path.display())).into());
    }
    Ok(poplab::files::check_output_file(path)?)
}

/// Writes `figure` to `path`, an SVG or PNG file by its extension, atomically ([`atomically`]).
pub fn write_file(figure: &Figure, path: &Path) -> Result<()> {
    render(std::slice::from_ref(figure), (1, 1), path)
}

/// Calls `draw` with a temporary path next to `path` and the format (`svg` or `png`, from
/// `path`'s extension), then renames the drawn file into place (through symbolic links; a pipe
/// or a device is written in place, never replaced: `poplab::files::write_atomic_by`); a failed
/// drawing leaves `path` as it was.
pub fn atomically(path: &Path, draw: impl FnOnce(&Path, &str) -> Result<()>) -> Result<()> {
    let format = format_of(path).ok_or_else(|| anyhow!("'{}' is neither an .svg nor a .png file", path.display()))?;
    poplab::files::write_atomic_by(path, &format!(".{format}"), |partial| draw(partial, format))
}

/// Writes `figure` to `stem.svg` and `stem.png`.
pub fn write(figure: &Figure, stem: &Path) -> Result<()> {
    write_grid(std::slice::from_ref(figure), 1, stem)
}

/// Writes `figures` as panels of one picture, `columns` to a row, to `stem.svg` and `stem.png`.
pub fn write_grid(figures: &[Figure], columns: usize, stem: &Path) -> Result<()> {
    let columns = columns.clamp(1, figures.len().max(1));
    let shape = (figures.len().div_ceil(columns).max(1), columns);
    render(figures, shape, &stem.with_extension("svg"))?;
    render(figures, shape, &stem.with_extension("png"))
}

/// The size of one panel's plot in pixels; its legend goes below it.
const PANEL: (u32, u32) = (800, 520);
/// The plotted area of a panel, at least (the rest holds the title and the axis labels): what
/// tick labels are spaced against.
const PLOT_PIXELS: (f64, f64) = (680.0, 400.0);
/// The legend's rows, its left edge (the plot's) and the pixels a character of its text takes at
/// most (DejaVu Sans at 14 px).
const LEGEND_ROW: u32 = 22;
const LEGEND_LEFT: i32 = 90;
const CHAR_PIXELS: f64 = 8.0;

/// The backends place every point on whole device pixels: an SVG is drawn at [`SVG_SCALE`] times
/// its size (and shown at its size through its `viewBox`), so that a curve's points fall within a
/// quarter pixel of where they belong and fitted curves are drawn smooth; a PNG at
/// [`PNG_SCALE`] times (a sharp picture on high-density screens and in print).
const SVG_SCALE: u32 = 4;
/// See [`SVG_SCALE`].
const PNG_SCALE: u32 = 2;

/// Draws `figures` as a grid of `shape` (rows, columns) panels, each 800 pixels wide and 520 high
/// plus the tallest panel's legend, into `path`, an SVG or PNG file by its extension, atomically.
fn render(figures: &[Figure], shape: (usize, usize), path: &Path) -> Result<()> {
    register_font();
    let legend = figures.iter().map(|f| legend_height(&legend(f))).max().unwrap_or(0);
    let size = (PANEL.0 * shape.1 as u32, (PANEL.1 + legend) * shape.0 as u32);
    let scaled = |k: u32| (size.0 * k, size.1 * k);
    atomically(path, |partial, format| match format {
        "svg" => {
            panels(&SVGBackend::new(partial, scaled(SVG_SCALE)).into_drawing_area(), figures, shape, SVG_SCALE)?;
            show_at_size(partial, scaled(SVG_SCALE), size)
        }
        _ => panels(&BitMapBackend::new(partial, scaled(PNG_SCALE)).into_drawing_area(), figures, shape, PNG_SCALE),
    })
}

/// Sets the width and height of the SVG at `path`, drawn at `drawn` pixels, to `size`: its
/// `viewBox` keeps the drawing's own coordinates.
fn show_at_size(path: &Path, drawn: (u32, u32), size: (u32, u32)) -> Result<()> {
    let svg = std::fs::read_to_string(path)?;
    let head = format!(r#"<svg width="{}" height="{}" "#, drawn.0, drawn.1);
    let shown = format!(r#"<svg width="{}" height="{}" "#, size.0, size.1);
    if !svg.starts_with(&head) {
        return Err(anyhow!("the SVG backend wrote an unexpected header: {}", svg.lines().next().unwrap_or("")));
    }
    std::fs::write(path, svg.replacen(&head, &shown, 1))?;
    Ok(())
}

/// Draws `figures` on `root` split into `shape` (rows, columns), every length `k` times its size
/// in pixels, then writes it.
fn panels<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    figures: &[Figure],
    shape: (usize, usize),
    k: u32,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let fail = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("drawing figures: {e:?}");
    root.fill(&WHITE).map_err(fail)?;
    for (figure, area) in figures.iter().zip(root.split_evenly(shape)) {
        let (plot, key) = area.split_vertically(PANEL.1 * k);
        draw(&plot, figure, k)?;
        draw_legend(&key, &legend(figure), k).map_err(fail)?;
    }
    // Once, for the whole picture: an SVG backend writes its file here and draws nothing after.
    root.present().map_err(fail)
}

/// The range of a log axis: the values with a twentieth of their span (in log) as room on either
/// side, at least 5 per cent.
fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) =
        values.filter(|v| v.is_finite() && *v > 0.0).fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
    if lo > hi {
        return (1.0, 10.0);
    }
    let room = ((hi / lo).ln() / 20.0).max(0.05).exp();
    (lo / room, hi * room)
}

/// Which axis a tick label sits on: labels along x need their width, along y their height.
#[derive(Clone, Copy, Debug)]
enum Axis {
    X,
    Y,
}

/// The pixels a tick label needs along its axis, with a gap to the next.
fn label_extent(label: &str, axis: Axis) -> f64 {
    match axis {
        Axis::X => label.chars().count() as f64 * CHAR_PIXELS + 12.0,
        Axis::Y => 22.0,
    }
}

/// Whether the labels of `ticks` on a log axis over `range`, `pixels` long, stay apart.
fn readable(ticks: &[f64], (lo, hi): (f64, f64), pixels: f64, axis: Axis) -> bool {
    let at = |v: f64| pixels * (v / lo).ln() / (hi / lo).ln();
    ticks
        .windows(2)
        .all(|w| at(w[1]) - at(w[0]) >= (label_extent(&short(w[0]), axis) + label_extent(&short(w[1]), axis)) / 2.0)
}

/// The ticks of a log axis over `range`, `pixels` long: the first of decades (every second, fifth
/// ... decade on long ranges), 1-2-5, 1 to 9 times the decades, and evenly spaced round values
/// (tried first on ranges shorter than a decade) that gives at least three labels that do not
/// overlap; failing that, the one with most.
fn log_ticks((lo, hi): (f64, f64), pixels: f64, axis: Axis, whole: bool) -> Vec<f64> {
    let (first, last) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let inside = |v: &f64| *v >= lo * (1.0 - 1e-9) && *v <= hi * (1.0 + 1e-9);
    let decades = |mantissas: &[f64], every: i32| -> Vec<f64> {
        (first..=last)
            .filter(|e| e.rem_euclid(every) == 0)
            .flat_map(|e| mantissas.iter().map(move |m| m * 10f64.powi(e)))
            .filter(inside)
            .collect()
    };
    let every = [1, 2, 5, 10, 20, 50].into_iter().find(|&k| decades(&[1.0], k).len() <= 8).unwrap_or(100);
    // Within a decade the axis is nearly straight: round steps first.
    let mut candidates = if hi / lo < 10.0 { vec![even_ticks(lo, hi, whole)] } else { Vec::new() };
    candidates.push(decades(&[1.0], every));
    if every == 1 {
        candidates.push(decades(&[1.0, 2.0, 5.0], 1));
        candidates.push(decades(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], 1));
        candidates.push(even_ticks(lo, hi, whole));
    }
    let readable = |ticks: &&Vec<f64>| readable(ticks, (lo, hi), pixels, axis);
    let chosen = candidates.iter().filter(readable).find(|t| t.len() >= 3);
    chosen.or_else(|| candidates.iter().filter(readable).max_by_key(|t| t.len())).cloned().unwrap_or_default()
}

/// Four to seven round values (1, 2 or 5 times a power of ten apart) from `lo` to `hi`; whole
/// numbers only when `whole` (an axis of sizes 4, 5, 6 has no tick at 4.5).
fn even_ticks(lo: f64, hi: f64, whole: bool) -> Vec<f64> {
    let rough = (hi - lo) / 6.0;
    let power = 10f64.powf(rough.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * power).find(|s| *s >= rough).unwrap_or(10.0 * power);
    let step = if whole { step.max(1.0) } else { step };
    let (from, to) = ((lo / step).ceil() as i64, (hi / step).floor() as i64);
    (from..=to).map(|i| i as f64 * step).collect()
}

/// `range` of a log axis if plotters can draw it: its ticks are counted from `high / low`, and a
/// ratio beyond `f64::MAX` (values spanning more than 308 decades, or below 2.2e-308) would make
/// that count endless; such a figure is an input error.
fn drawable(range: (f64, f64), axis: &str, figure: &Figure) -> Result<(f64, f64)> {
    if (range.1 / range.0).is_finite() {
        return Ok(range);
    }
    Err(crate::input::InputError(format!(
        "'{}': the {axis} values run from {:e} to {:e}, more decades than a log axis can show",
        figure.title, range.0, range.1
    ))
    .into())
}

/// Draws `figure` on `root`, every length `k` times its size in pixels.
fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, figure: &Figure, k: u32) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let fail = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("drawing '{}': {e:?}", figure.title);
    root.fill(&WHITE).map_err(fail)?;
    let x = drawable(bounds(xs(figure)), "x", figure)?;
    // Measured sizes all whole (not a figure of curves alone, whose x is time): whole ticks.
    let mut sizes = figure.marks.iter().flat_map(|m| &m.points).map(|m| m.x).peekable();
    let whole = sizes.peek().is_some() && sizes.all(|x| x.fract() == 0.0);
    let x_ticks = log_ticks(x, PLOT_PIXELS.0, Axis::X, whole);
    let x_labels = Labels::of(&x_ticks);
    let x_axis = (x.0..x.1).log_scale().with_key_points(x_ticks);
    let mut builder = ChartBuilder::on(root);
    builder
        .caption(typeset(&figure.title), ("sans-serif", 20 * k))
        .margin(12 * k)
        .x_label_area_size(45 * k)
        .y_label_area_size(75 * k);
    if figure.y_log {
        let y = drawable(bounds(ys(figure)), "y", figure)?;
        let y_ticks = log_ticks(y, PLOT_PIXELS.1, Axis::Y, false);
        let y_labels = Labels::of(&y_ticks);
        let y_axis = (y.0..y.1).log_scale().with_key_points(y_ticks);
        let chart = builder.build_cartesian_2d(x_axis, y_axis).map_err(fail)?;
        series(chart, figure, x, y.0, |v| v.ln(), k, (x_labels, y_labels))?;
    } else {
        let y = linear_bounds(ys(figure));
        let chart = builder.build_cartesian_2d(x_axis, y.0..y.1).map_err(fail)?;
        series(chart, figure, x, y.0, |v| v, k, (x_labels, Labels::Plain))?;
    }
    Ok(())
}

/// Every point of the figure's curves and groups.
fn points(figure: &Figure) -> impl Iterator<Item = (f64, f64)> + '_ {
    figure
        .curves
        .iter()
        .flat_map(|c| c.points.iter().copied())
        .chain(figure.groups.iter().flat_map(|g| g.points.iter().copied()))
}

/// Every x the figure plots.
fn xs(figure: &Figure) -> impl Iterator<Item = f64> + '_ {
    figure.marks.iter().flat_map(|m| &m.points).map(|m| m.x).chain(points(figure).map(|p| p.0))
}

/// Every y the figure plots, interval ends included.
fn ys(figure: &Figure) -> impl Iterator<Item = f64> + '_ {
    figure
        .marks
        .iter()
        .flat_map(|m| &m.points)
        .flat_map(|m| [Some(m.y), m.interval.map(|i| i[0]), m.interval.map(|i| i[1])].into_iter().flatten())
        .chain(points(figure).map(|p| p.1))
}

/// The colours of curves in [`Ink::Auto`], by their order.
const AUTO: [RGBColor; 4] =
    [RGBColor(200, 60, 40), RGBColor(40, 120, 60), RGBColor(120, 60, 180), RGBColor(200, 140, 0)];

/// The colours of groups (P_LL's modules: quick elimination, tournament, BackUp, ... ).
const GROUPS: [RGBColor; 5] =
    [RGBColor(0, 150, 60), RGBColor(230, 120, 0), RGBColor(210, 30, 30), RGBColor(120, 60, 180), RGBColor(90, 90, 90)];

/// The colour of each of the figure's curves.
fn curve_colors(figure: &Figure) -> Vec<RGBColor> {
    let mut auto = 0;
    let mut color = |ink: Ink| match ink {
        Ink::Auto => {
            auto += 1;
            AUTO[(auto - 1) % AUTO.len()]
        }
        Ink::Claimed => RGBColor(20, 20, 20),
        Ink::FormFit => RGBColor(0, 140, 150),
        Ink::PowerFit => RGBColor(160, 90, 20),
        Ink::Size(i, k) => {
            let shade = 180 - (160 * i / k.saturating_sub(1).max(1)).min(160) as u8;
            RGBColor(shade, shade, shade)
        }
    };
    figure.curves.iter().map(|c| color(c.ink)).collect()
}

/// Whether curves in `ink` are dashed: power-law fits, which often lie on the claimed curve or
/// the fit of the claimed form, and must leave it visible.
fn dashed(ink: Ink) -> bool {
    ink == Ink::PowerFit
}

/// The colour of a look of measured points.
fn mark_color(look: MarkLook) -> RGBColor {
    match look {
        MarkLook::Primary => RGBColor(30, 80, 200),
        MarkLook::Secondary => RGBColor(180, 30, 150),
    }
}

/// A measured point at `at` in `look`: a circle or a triangle, hollow for a lower bound, `k` times
/// its size in pixels.
fn marker<DB: DrawingBackend, C: Clone + 'static>(
    at: C,
    look: MarkLook,
    hollow: bool,
    k: u32,
) -> DynElement<'static, DB, C> {
    let color = mark_color(look);
    let style = if hollow { color.stroke_width(2 * k) } else { color.filled() };
    match look {
        MarkLook::Primary => Circle::new(at, 5 * k, style).into_dyn(),
        MarkLook::Secondary => TriangleMarker::new(at, 7 * k, style).into_dyn(),
    }
}

/// The factors `series` series of marks are moved by along a log x axis over `x_range`, so that
/// points at the same x stand side by side, 9 pixels apart, with their intervals (none for one
/// series).
fn dodges(series: usize, (x0, x1): (f64, f64)) -> Vec<f64> {
    let step = (x1 / x0).ln() * 9.0 / PLOT_PIXELS.0;
    (0..series).map(|i| (step * (i as f64 - (series as f64 - 1.0) / 2.0)).exp()).collect()
}

/// Draws the mesh and the figure's curves, groups and marks on `chart`, whose x axis runs over
/// `x_range` and whose y axis starts at `y0` and is straight in `scale(y)`, every length `k` times
/// its size in pixels.
fn series<'a, DB: DrawingBackend + 'a, X, Y>(
    mut chart: ChartContext<'a, DB, Cartesian2d<X, Y>>,
    figure: &Figure,
    x_range: (f64, f64),
    y0: f64,
    scale: fn(f64) -> f64,
    k: u32,
    (x_labels, y_labels): (Labels, Labels),
) -> Result<()>
where
    DB::ErrorType: 'static,
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let fail = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("drawing '{}': {e:?}", figure.title);
    chart
        .configure_mesh()
        .x_desc(typeset(&figure.x_label))
        .y_desc(typeset(&figure.y_label))
        .label_style(("sans-serif", 14 * k))
        .axis_desc_style(("sans-serif", 15 * k))
        .axis_style(BLACK.stroke_width(k))
        .bold_line_style(BLACK.mix(0.12).stroke_width(k))
        .set_all_tick_mark_size(5 * k)
        .x_label_formatter(&|v| x_labels.label(*v))
        .y_label_formatter(&|v| y_labels.label(*v))
        .light_line_style(TRANSPARENT)
        .draw()
        .map_err(fail)?;
    let in_range = |(x, y): (f64, f64)| x > 0.0 && x.is_finite() && scale(y).is_finite();
    for (curve, color) in figure.curves.iter().zip(curve_colors(figure)) {
        let points = curve.path().into_iter().filter(|p| in_range(*p));
        if dashed(curve.ink) {
            chart.draw_series(DashedLineSeries::new(points, 10 * k, 6 * k, color.stroke_width(2 * k))).map_err(fail)?;
        } else {
            chart.draw_series(LineSeries::new(points, color.stroke_width(2 * k))).map_err(fail)?;
        }
    }
    for group in &figure.groups {
        let color = GROUPS[group.color % GROUPS.len()];
        let dots = group.points.iter().filter(|p| in_range(**p)).map(|&p| Circle::new(p, 4 * k, color.filled()));
        chart.draw_series(dots).map_err(fail)?;
    }
    for (marks, shift) in figure.marks.iter().zip(dodges(figure.marks.len(), x_range)) {
        let color = mark_color(marks.look);
        let intervals = marks.points.iter().filter_map(|m| {
            let x = m.x * shift;
            m.interval.map(|[lo, hi]| PathElement::new(vec![(x, lo.max(y0)), (x, hi)], color.stroke_width(2 * k)))
        });
        chart.draw_series(intervals).map_err(fail)?;
        let points = marks.points.iter().map(|m| marker((m.x * shift, m.y), marks.look, m.lower_bound, k));
        chart.draw_series(points).map_err(fail)?;
    }
    Ok(())
}

/// How a legend entry shows its series.
#[derive(Clone, Debug, PartialEq)]
enum Glyph {
    /// A line, dashed or solid.
    Line(RGBColor, bool),
    Dot(RGBColor),
    Marker(MarkLook),
}

/// One line of a legend: every curve, group and series of marks has one.
#[derive(Clone, Debug, PartialEq)]
struct Entry {
    label: String,
    glyph: Glyph,
}

/// The figure's legend: its curves, groups and marks in that order.
fn legend(figure: &Figure) -> Vec<Entry> {
    let curves = figure
        .curves
        .iter()
        .zip(curve_colors(figure))
        .map(|(c, color)| (c.label.clone(), Glyph::Line(color, dashed(c.ink))));
    let groups = figure.groups.iter().map(|g| (g.label.clone(), Glyph::Dot(GROUPS[g.color % GROUPS.len()])));
    let marks = figure.marks.iter().map(|m| (m.label.clone(), Glyph::Marker(m.look)));
    curves.chain(groups).chain(marks).map(|(label, glyph)| Entry { label: typeset(&label), glyph }).collect()
}

/// The legend's columns: two, side by side, if every label fits half the panel, else one.
fn legend_columns(entries: &[Entry]) -> usize {
    let half = (PANEL.0 as i32 - LEGEND_LEFT) as f64 / 2.0 - 40.0;
    if entries.iter().all(|e| e.label.chars().count() as f64 * CHAR_PIXELS <= half) { 2 } else { 1 }
}

/// The pixels a legend takes below its plot.
fn legend_height(entries: &[Entry]) -> u32 {
    match entries.len() {
        0 => 0,
        n => n.div_ceil(legend_columns(entries)) as u32 * LEGEND_ROW + 10,
    }
}

/// Draws `entries` on `area`, below the plot, in [`legend_columns`] columns filled one after the
/// other, every length `k` times its size in pixels.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[Entry],
    k: u32,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let columns = legend_columns(entries);
    let rows = entries.len().div_ceil(columns).max(1);
    let width = (PANEL.0 as i32 - LEGEND_LEFT) / columns as i32;
    let px = |v: i32| v * k as i32;
    for (i, entry) in entries.iter().enumerate() {
        let x = px(LEGEND_LEFT + (i / rows) as i32 * width);
        let y = px((i % rows) as i32 * LEGEND_ROW as i32 + LEGEND_ROW as i32 / 2);
        let line =
            |color: RGBColor, from: i32, to: i32| PathElement::new(vec![(from, y), (to, y)], color.stroke_width(2 * k));
        match entry.glyph {
            Glyph::Line(color, false) => area.draw(&line(color, x, x + px(24)))?,
            Glyph::Line(color, true) => {
                for from in [x, x + px(16)] {
                    area.draw(&line(color, from, from + px(10)))?;
                }
            }
            Glyph::Dot(color) => area.draw(&Circle::new((x + px(12), y), 4 * k, color.filled()))?,
            Glyph::Marker(look) => area.draw(&marker::<DB, (i32, i32)>((x + px(12), y), look, false, k))?,
        }
        let style = ("sans-serif", 14 * k).into_font().color(&BLACK).pos(Pos::new(HPos::Left, VPos::Center));
        area.draw(&Text::new(entry.label.clone(), (x + px(32), y), style))?;
    }
    Ok(())
}

/// The range of a linear axis: the values with a tenth of their span as room on either side.
fn linear_bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values.filter(|v| v.is_finite()).fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
    if lo > hi {
        (0.0, 1.0)
    } else {
        let room = ((hi - lo) / 10.0).max(hi.abs().max(1.0) * 1e-3);
        (lo - room, hi + room)
    }
}

/// Axis labels: `1e5` or `2.5e-3` style for large and small values, plain otherwise (rounded to
/// six significant digits).
fn short(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    if v.abs() >= 1e4 || v.abs() < 1e-2 { scientific(v) } else { plain(v, mantissa_and_exponent(v).1) }
}

/// A nonzero `v` as printed in a journal: 10⁴, 2.5×10⁴, 10⁻³.
fn scientific(v: f64) -> String {
    let (mantissa, exponent) = mantissa_and_exponent(v);
    let power = format!("10{}", superscript(exponent));
    if mantissa.abs() == 1.0 {
        format!("{}{power}", if mantissa < 0.0 { "\u{2212}" } else { "" })
    } else {
        format!("{}\u{00d7}{power}", mantissa.to_string().replace('-', "\u{2212}"))
    }
}

/// `v`'s mantissa (six significant digits, in `[1, 10)` in magnitude) and power of ten; `v != 0`.
fn mantissa_and_exponent(v: f64) -> (f64, i32) {
    let mut exponent = v.abs().log10().floor() as i32;
    let mut mantissa = (v / 10f64.powi(exponent) * 1e5).round() / 1e5;
    if mantissa.abs() >= 10.0 {
        (mantissa, exponent) = (mantissa / 10.0, exponent + 1);
    }
    (mantissa, exponent)
}

/// `v` as a plain number with about six significant digits (`exponent` is its power of ten),
/// trailing zeros dropped.
fn plain(v: f64, exponent: i32) -> String {
    let digits = (5 - exponent).max(0) as usize;
    let text = format!("{v:.digits$}");
    if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.').to_string() } else { text }
}

/// How an axis writes its tick labels: one notation for the whole axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Labels {
    /// Ticks at powers of ten only (three or more): every one as a power of ten (10¹, 10², 10³;
    /// 1 for 10⁰).
    Powers,
    /// Other ticks of which one is at least 10⁵ or below 10⁻³ in magnitude: every one as a
    /// multiple of a power of ten (2×10⁴, 5×10⁴, 10⁵), never a long number beside a power.
    Scaled,
    /// Any other ticks (a range within a decade, a linear axis): plain numbers (9800, 10000,
    /// 10200), and a power of ten only beyond 10⁷ or below 10⁻³ (a linear axis, whose ticks the
    /// chart chooses, is labelled value by value).
    Plain,
}

impl Labels {
    /// The notation for an axis with `ticks`.
    fn of(ticks: &[f64]) -> Self {
        let decade = |v: &f64| *v > 0.0 && (v.log10() - v.log10().round()).abs() < 1e-9;
        let far = |v: &f64| v.abs() >= 1e5 || (*v != 0.0 && v.abs() < 1e-3);
        if ticks.len() >= 3 && ticks.iter().all(decade) {
            Labels::Powers
        } else if ticks.iter().any(far) {
            Labels::Scaled
        } else {
            Labels::Plain
        }
    }

    fn label(self, v: f64) -> String {
        match self {
            Labels::Powers if v > 0.0 => match v.log10().round() as i32 {
                0 => "1".into(),
                k => format!("10{}", superscript(k)),
            },
            Labels::Powers => short(v),
            Labels::Scaled if v != 0.0 => scientific(v),
            Labels::Scaled => "0".into(),
            Labels::Plain if v != 0.0 && (v.abs() >= 1e7 || v.abs() < 1e-3) => short(v),
            Labels::Plain => plain(v, v.abs().log10().floor() as i32),
        }
    }
}

/// `k` in superscript digits (and a superscript minus).
fn superscript(k: i32) -> String {
    const DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let digits = k.unsigned_abs().to_string().chars().map(|d| DIGITS[d as usize - '0' as usize]).collect::<String>();
    if k < 0 { format!("⁻{digits}") } else { digits }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figure(curves: Vec<Curve>, marks: Vec<Marks>) -> Figure {
        Figure {
            title: String::new(),
            x_label: String::new(),
            y_label: String::new(),
            marks,
            curves,
            groups: Vec::new(),
            y_log: true,
        }
    }

    #[test]
    fn n5_log_ranges_beyond_f64_are_refused_not_drawn_forever() {
        let figure = |points| Figure { title: "t".into(), ..figure(vec![Curve::new("c", points)], Vec::new()) };
        // Before the fix, drawing these never returned: each runs on a thread given 60 seconds.
        for (points, axis) in [(vec![(1e-310, 5.0), (2.0, 3.0)], "x"), (vec![(1.0, 1e-300), (2.0, 1e300)], "y")] {
            let path = std::env::temp_dir().join(format!("poplab-n5-{}-{axis}.svg", std::process::id()));
            let (send, receive) = std::sync::mpsc::channel();
            let (figure, drawn) = (figure(points), path.clone());
            std::thread::spawn(move || send.send(write_file(&figure, &drawn).map_err(|e| e.to_string())));
            let result = receive.recv_timeout(std::time::Duration::from_secs(60)).expect("drawing hangs");
            let message = result.unwrap_err();
            assert!(message.starts_with(&format!("'t': the {axis} values run from")), "{message}");
            assert!(message.ends_with("more decades than a log axis can show"), "{message}");
            assert!(!path.exists());
        }
        assert_eq!(drawable((1.0, 10.0), "y", &figure(Vec::new())).unwrap(), (1.0, 10.0));
    }

    fn mark(x: f64, y: f64) -> Mark {
        Mark { x, y, interval: Some([y * 0.9, y * 1.1]), lower_bound: false }
    }

    #[test]
    fn a_log_axis_ends_within_one_tick_of_its_data() {
        // ppl-holding: c from 1 to 3 (the axis used to run on to 10).
        for (lo, hi) in [(1.0, 3.0), (2.0, 5.0), (100.0, 1e6), (0.05, 1.0), (12.0, 370.0), (1e2, 1e16)] {
            let range = bounds([lo, hi].into_iter());
            assert!(range.0 < lo && range.1 > hi, "{range:?} holds {lo}..{hi}");
            for axis in [(PLOT_PIXELS.0, Axis::X), (PLOT_PIXELS.1, Axis::Y)] {
                let ticks = log_ticks(range, axis.0, axis.1, false);
                assert!(ticks.len() >= 2, "{lo}..{hi}: {ticks:?}");
                assert!(ticks.iter().filter(|t| **t > hi).count() <= 1, "{lo}..{hi}: {ticks:?}");
                assert!(ticks.iter().filter(|t| **t < lo).count() <= 1, "{lo}..{hi}: {ticks:?}");
                assert!(ticks.iter().all(|t| *t >= range.0 && *t <= range.1), "{range:?}: {ticks:?}");
            }
        }
        // The room is a twentieth of the span on either side, at least 5 per cent.
        let (lo, hi) = bounds([1.0, 2.0].into_iter());
        assert!((lo - 1.0 / 0.05f64.exp()).abs() < 1e-12 && (hi - 2.0 * 0.05f64.exp()).abs() < 1e-12);
        let (lo, hi) = bounds([1.0, 1e4].into_iter());
        assert!((lo - 1.0 / 10f64.powf(0.2)).abs() < 1e-12 && (hi - 1e4 * 10f64.powf(0.2)).abs() < 1e-9);
        assert_eq!(bounds(std::iter::empty()), (1.0, 10.0));
    }

    #[test]
    fn log_axis_labels_never_overlap_and_prefer_decades() {
        let ticks = |lo: f64, hi: f64, axis: Axis| {
            let pixels = if let Axis::X = axis { PLOT_PIXELS.0 } else { PLOT_PIXELS.1 };
            log_ticks(bounds([lo, hi].into_iter()), pixels, axis, false)
        };
        // 60 to 100 (the labels 60, 70, 80, 90 used to be stacked) and 0.9 to 1 (1 and 0.9 overlapped).
        assert_eq!(ticks(60.0, 100.0, Axis::Y), [60.0, 70.0, 80.0, 90.0, 100.0]);
        assert_eq!(ticks(0.9, 1.0, Axis::Y).into_iter().map(short).collect::<Vec<_>>(), ["0.9", "0.95", "1", "1.05"]);
        assert_eq!(ticks(1.0, 1000.0, Axis::X), [1.0, 10.0, 100.0, 1000.0]);
        assert_eq!(ticks(700.0, 1.6e4, Axis::Y), [1000.0, 2000.0, 5000.0, 1e4]);
        // ppl-holding's c from 1 to 3 in steps of a half.
        assert_eq!(ticks(1.0, 3.0, Axis::X), [1.0, 1.5, 2.0, 2.5, 3.0]);
        // ls-timer-holding's N = 4, 5, 6: whole sizes, whole ticks.
        let whole = log_ticks(bounds([4.0, 6.0].into_iter()), PLOT_PIXELS.0, Axis::X, true);
        assert_eq!(whole, [4.0, 5.0, 6.0]);
        // Thirty decades: every fifth.
        assert_eq!(ticks(1.0, 1e30, Axis::Y).len(), 7);
        for (lo, hi) in [(60.0, 100.0), (0.9, 1.0), (0.5, 1.0), (0.01, 1.0), (5.0, 9e9), (1.0, 1e30), (0.97, 1.02)] {
            for (axis, pixels) in [(Axis::X, PLOT_PIXELS.0), (Axis::Y, PLOT_PIXELS.1)] {
                let range = bounds([lo, hi].into_iter());
                let ticks = log_ticks(range, pixels, axis, false);
                assert!(ticks.len() >= 2 && readable(&ticks, range, pixels, axis), "{lo}..{hi} {axis:?}: {ticks:?}");
            }
        }
    }

    #[test]
    fn two_series_at_the_same_x_stand_apart_and_one_stays_put() {
        assert_eq!(dodges(1, (1.0, 1e4)), [1.0]);
        let [left, right] = dodges(2, (1.0, 1e4))[..] else { panic!("two series") };
        let pixels = |factor: f64| PLOT_PIXELS.0 * factor.ln() / 1e4f64.ln();
        assert!((pixels(right / left) - 9.0).abs() < 1e-9 && (left * right - 1.0).abs() < 1e-12);
    }

    #[test]
    fn math_is_typeset_in_unicode() {
        assert_eq!(typeset("fit a + b log^2 x"), "fit a + b log² x");
        assert_eq!(typeset("fit c x^e, e = 1.23"), "fit c xᵉ, e = 1.23");
        assert_eq!(typeset("claimed (n-1)^2, R^2 = 0.99"), "claimed (n-1)², R² = 0.99");
        assert_eq!(
            typeset("Theta(n log n) and Omega(N^2) iff f >= k, m <= 3"),
            "Θ(n log n) and Ω(N²) iff f ≥ k, m ≤ 3"
        );
        assert_eq!(typeset("c_max = 41 m, 2^-3"), "cₘₐₓ = 41 m, 2⁻³");
        assert_eq!(typeset("t_virus and e^N"), "tᵥᵢᵣᵤₛ and eᴺ");
        // A subscript with a letter Unicode lacks stays as written, whole.
        assert_eq!(typeset("virus_factor, 2^(ceil(lg m) + 1)"), "virus_factor, 2^(ceil(lg m) + 1)");
        // No subscript capitals in Unicode: P_LL stays as written, and so does a lone caret.
        assert_eq!(typeset("P_LL: x ^ 2"), "P_LL: x ^ 2");
    }

    #[test]
    fn a_stepped_curve_holds_each_value_until_the_next_point() {
        let counts = Curve::new("leaders", vec![(1.0, 5.0), (2.0, 3.0), (4.0, 1.0)]);
        assert_eq!(counts.path(), counts.points);
        assert_eq!(counts.stepped().path(), [(1.0, 5.0), (2.0, 5.0), (2.0, 3.0), (4.0, 3.0), (4.0, 1.0)]);
    }

    #[test]
    fn tick_labels_are_short_and_exact() {
        let labels: Vec<String> = [1e5, 2.5e4, 0.95, 99999.99999999, 0.001, 3.0, 1234.5].map(short).into();
        assert_eq!(labels, ["10⁵", "2.5×10⁴", "0.95", "10⁵", "10⁻³", "3", "1234.5"]);
        assert_eq!(short(-2e-12), "−2×10⁻¹²");
        // One notation per axis: powers of ten on an axis of decades, plain numbers within one.
        let within = [9600.0, 9800.0, 1e4, 10200.0];
        assert_eq!(Labels::of(&within), Labels::Plain);
        assert_eq!(within.map(|v| Labels::Plain.label(v)), ["9600", "9800", "10000", "10200"]);
        let decades = [1.0, 1e1, 1e2, 1e4, 1e-3];
        assert_eq!(Labels::of(&decades), Labels::Powers);
        assert_eq!(decades.map(|v| Labels::Powers.label(v)), ["1", "10¹", "10²", "10⁴", "10⁻³"]);
        let mixed = [1e3, 2e3, 5e3, 1e4, 2e4];
        assert_eq!(Labels::of(&mixed), Labels::Plain);
        assert_eq!(mixed.map(|v| Labels::Plain.label(v)), ["1000", "2000", "5000", "10000", "20000"]);
        // Past 10⁵ the whole axis is scaled: no 5000000 beside a 10⁷.
        let large = [1e6, 2e6, 5e6, 1e7];
        assert_eq!(Labels::of(&large), Labels::Scaled);
        assert_eq!(large.map(|v| Labels::Scaled.label(v)), ["10⁶", "2×10⁶", "5×10⁶", "10⁷"]);
        let wide = [2e4, 4e4, 6e4, 8e4, 1e5];
        assert_eq!(Labels::of(&wide), Labels::Scaled);
        assert_eq!(wide.map(|v| Labels::Scaled.label(v)), ["2×10⁴", "4×10⁴", "6×10⁴", "8×10⁴", "10⁵"]);
    }

    #[test]
    fn every_series_has_a_legend_entry_and_the_variants_look_apart() {
        let both = figure(
            vec![
                Curve::new("run 0", vec![(1.0, 1.0)]),
                Curve::new("claimed", vec![(1.0, 2.0)]).inked(Ink::Claimed),
                Curve::new("run 1", vec![(1.0, 3.0)]),
            ],
            vec![
                Marks::new("pll", vec![mark(1e3, 20.0)]),
                Marks { look: MarkLook::Secondary, ..Marks::new("pll-as-printed", vec![mark(1e3, 30.0)]) },
            ],
        );
        let entries = legend(&both);
        let labels: Vec<&str> = entries.iter().map(|e| e.label.as_str()).collect();
        assert_eq!(labels, ["run 0", "claimed", "run 1", "pll", "pll-as-printed"]);
        assert_eq!(entries[1].glyph, Glyph::Line(RGBColor(20, 20, 20), false));
        assert_eq!(entries[3].glyph, Glyph::Marker(MarkLook::Primary));
        assert_eq!(entries[4].glyph, Glyph::Marker(MarkLook::Secondary));
        assert_ne!(mark_color(MarkLook::Primary), mark_color(MarkLook::Secondary));
        // Auto curves take colours by their order among themselves: a claimed curve keeps black.
        assert_eq!(curve_colors(&both), [AUTO[0], RGBColor(20, 20, 20), AUTO[1]]);
        let alone = figure(vec![Curve::new("claimed", vec![(1.0, 2.0)]).inked(Ink::Claimed)], Vec::new());
        assert_eq!(curve_colors(&alone), [RGBColor(20, 20, 20)]);
        // Sizes get distinct greys, darker for larger n.
        // A power fit is dashed (it often lies on another curve), in the legend too.
        let fit = figure(vec![Curve::new("fit", vec![]).inked(Ink::PowerFit)], Vec::new());
        assert!(matches!(legend(&fit)[0].glyph, Glyph::Line(_, true)));
        let sizes = figure((0..3).map(|i| Curve::new("n", vec![]).inked(Ink::Size(i, 3))).collect(), Vec::new());
        let greys = curve_colors(&sizes);
        assert!(greys[0].0 > greys[1].0 && greys[1].0 > greys[2].0, "{greys:?}");
    }

    #[test]
    fn legends_sit_below_the_plot_in_columns_their_labels_fit() {
        let short_labels = figure((0..3).map(|i| Curve::new(format!("n = 1e{i}"), vec![])).collect(), Vec::new());
        assert_eq!(legend_columns(&legend(&short_labels)), 2);
        assert_eq!(legend_height(&legend(&short_labels)), 2 * LEGEND_ROW + 10);
        let long = figure(Vec::new(), vec![Marks::new("mean with 95% CI (hollow: median, a lower bound)", vec![])]);
        assert_eq!(legend_columns(&legend(&long)), 1);
        let width = (PANEL.0 as i32 - LEGEND_LEFT) as f64 / 2.0;
        for entry in legend(&short_labels) {
            assert!(32.0 + entry.label.chars().count() as f64 * CHAR_PIXELS <= width);
        }
        assert_eq!(legend_height(&legend(&figure(Vec::new(), Vec::new()))), 0);
    }

    #[test]
    fn a_figure_draws_to_svg_with_every_label() {
        let dir = std::env::temp_dir().join(format!("poplab-plot-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let both = figure(
            vec![Curve::new("fit", vec![(1e3, 20.0), (1e5, 40.0)]).inked(Ink::PowerFit)],
            vec![
                Marks::new("pll: mean with 95% CI", vec![mark(1e3, 20.0), mark(1e5, 40.0)]),
                Marks { look: MarkLook::Secondary, ..Marks::new("pll-as-printed: mean", vec![mark(1e3, 30.0)]) },
            ],
        );
        let path = dir.join("both.svg");
        write_file(&both, &path).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        for label in ["fit", "pll: mean with 95% CI", "pll-as-printed: mean", "10³", "10⁴", "10⁵"] {
            assert!(svg.contains(&format!(">\n{label}\n<")), "{label}");
        }
    }
}
