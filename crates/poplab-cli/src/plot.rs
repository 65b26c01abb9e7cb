//! Plots: measured points with their intervals and fitted, exact or traced curves, on log-log
//! axes, written as SVG and PNG (text drawn with the bundled DejaVu Sans). The reproduction's
//! claims and `poplab plot` draw through it.

use anyhow::{Result, anyhow};
use plotters::coord::Shift;
use plotters::prelude::*;
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

/// A curve drawn over the points.
#[derive(Clone, Debug)]
pub struct Curve {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// Everything one plot shows.
#[derive(Clone, Debug)]
pub struct Figure {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub marks_label: String,
    pub marks: Vec<Mark>,
    pub curves: Vec<Curve>,
}

static FONT: Once = Once::new();

pub fn register_font() {
    FONT.call_once(|| {
        // The font file ships with the binary; registering it cannot fail for a valid TTF.
        let _ =
            plotters::style::register_font("sans-serif", FontStyle::Normal, include_bytes!("../assets/DejaVuSans.ttf"));
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
    register_font();
    atomically(path, |partial, format| match format {
        "svg" => draw(&SVGBackend::new(partial, (800, 520)).into_drawing_area(), figure),
        _ => draw(&BitMapBackend::new(partial, (800, 520)).into_drawing_area(), figure),
    })
}

/// Calls `draw` with a temporary path next to `path` and the format (`svg` or `png`, from
/// `path`'s extension), then renames the drawn file into place; a failed drawing leaves `path`
/// as it was.
pub fn atomically(path: &Path, draw: impl FnOnce(&Path, &str) -> Result<()>) -> Result<()> {
    let format = format_of(path).ok_or_else(|| anyhow!("'{}' is neither an .svg nor a .png file", path.display()))?;
    let partial = path.with_extension(format!("partial-{}.{format}", std::process::id()));
    let done = draw(&partial, format)
        .and_then(|()| std::fs::rename(&partial, path).map_err(|e| anyhow!("'{}': {e}", path.display())));
    if done.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    done
}

/// Writes `figure` to `stem.svg` and `stem.png`.
pub fn write(figure: &Figure, stem: &Path) -> Result<()> {
    register_font();
    let svg = stem.with_extension("svg");
    draw(&SVGBackend::new(&svg, (800, 520)).into_drawing_area(), figure)?;
    let png = stem.with_extension("png");
    draw(&BitMapBackend::new(&png, (800, 520)).into_drawing_area(), figure)?;
    Ok(())
}

/// The range of a log axis: the values with some room, widened to whole decades when they span
/// less than one (a log axis labels only its decades and their multiples).
fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) =
        values.filter(|v| v.is_finite() && *v > 0.0).fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
    if lo > hi {
        (1.0, 10.0)
    } else if hi / lo < 10.0 {
        (10f64.powf(lo.log10().floor()), 10f64.powf((hi * 1.0001).log10().ceil()))
    } else {
        (lo / 1.5, hi * 1.5)
    }
}

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, figure: &Figure) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let fail = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("drawing '{}': {e:?}", figure.title);
    root.fill(&WHITE).map_err(fail)?;
    let xs = figure.marks.iter().map(|m| m.x).chain(figure.curves.iter().flat_map(|c| c.points.iter().map(|p| p.0)));
    let ys = figure
        .marks
        .iter()
        .flat_map(|m| [Some(m.y), m.interval.map(|i| i[0]), m.interval.map(|i| i[1])].into_iter().flatten())
        .chain(figure.curves.iter().flat_map(|c| c.points.iter().map(|p| p.1)));
    let (x0, x1) = bounds(xs);
    let (y0, y1) = bounds(ys);
    let mut chart = ChartBuilder::on(root)
        .caption(&figure.title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(75)
        .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())
        .map_err(fail)?;
    chart
        .configure_mesh()
        .x_desc(&figure.x_label)
        .y_desc(&figure.y_label)
        .label_style(("sans-serif", 14))
        .x_label_formatter(&|v| short(*v))
        .y_label_formatter(&|v| short(*v))
        .draw()
        .map_err(fail)?;
    let palette = [RGBColor(200, 60, 40), RGBColor(40, 120, 60), RGBColor(120, 60, 180), RGBColor(200, 140, 0)];
    for (i, curve) in figure.curves.iter().enumerate() {
        let color = palette[i % palette.len()];
        chart
            .draw_series(LineSeries::new(curve.points.iter().copied(), color.stroke_width(2)))
            .map_err(fail)?
            .label(curve.label.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
    }
    let blue = RGBColor(30, 80, 200);
    chart
        .draw_series(
            figure
                .marks
                .iter()
                .filter_map(|m| m.interval.map(|[lo, hi]| PathElement::new(vec![(m.x, lo.max(y0)), (m.x, hi)], blue))),
        )
        .map_err(fail)?;
    if !figure.marks.is_empty() {
        chart
            .draw_series(figure.marks.iter().map(|m| {
                let style = if m.lower_bound { blue.stroke_width(2) } else { blue.filled() };
                Circle::new((m.x, m.y), 5, style)
            }))
            .map_err(fail)?
            .label(figure.marks_label.clone())
            .legend(move |(x, y)| Circle::new((x + 10, y), 5, blue.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(fail)?;
    root.present().map_err(fail)?;
    Ok(())
}

/// Axis labels: `1e5` style for large and small values, plain otherwise.
fn short(v: f64) -> String {
    if v != 0.0 && (v.abs() >= 1e4 || v.abs() < 1e-2) {
        format!("{v:.0e}")
    } else {
        format!("{}", (v * 100.0).round() / 100.0)
    }
}
