//! Plots: measured points with their intervals and fitted, exact or traced curves, on log-log
//! axes, written as SVG and PNG (text drawn with the bundled DejaVu Sans). The reproduction's
//! claims and `poplab plot` draw through it.

use anyhow::{Result, anyhow};
use plotters::coord::Shift;
use plotters::coord::ranged1d::ValueFormatter;
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

/// A curve drawn over the points: in colour with its label in the legend, or with a `tag`: thin
/// and grey with its label written at the tag's point (for families of curves such as one per n).
#[derive(Clone, Debug)]
pub struct Curve {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    pub tag: Option<(f64, f64)>,
}

impl Curve {
    /// A curve in colour, named in the legend.
    pub fn new(label: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Curve { label: label.into(), points, tag: None }
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
    pub marks_label: String,
    pub marks: Vec<Mark>,
    pub curves: Vec<Curve>,
    pub groups: Vec<Group>,
    /// Whether the y axis is logarithmic (the x axis always is).
    pub y_log: bool,
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

/// Draws `figures` as a grid of `shape` (rows, columns) panels of 800 x 520 pixels into `path`,
/// an SVG or PNG file by its extension, atomically.
fn render(figures: &[Figure], shape: (usize, usize), path: &Path) -> Result<()> {
    register_font();
    let size = (800 * shape.1 as u32, 520 * shape.0 as u32);
    atomically(path, |partial, format| match format {
        "svg" => panels(&SVGBackend::new(partial, size).into_drawing_area(), figures, shape),
        _ => panels(&BitMapBackend::new(partial, size).into_drawing_area(), figures, shape),
    })
}

/// Draws `figures` on `root` split into `shape` (rows, columns), then writes it.
fn panels<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, figures: &[Figure], shape: (usize, usize)) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let fail = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("drawing figures: {e:?}");
    root.fill(&WHITE).map_err(fail)?;
    for (figure, area) in figures.iter().zip(root.split_evenly(shape)) {
        draw(&area, figure)?;
    }
    // Once, for the whole picture: an SVG backend writes its file here and draws nothing after.
    root.present().map_err(fail)
}

/// The range of a log axis: the values with some room, widened to whole decades when they span
/// less than one (a log axis labels only its decades and their multiples).
fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) =
        values.filter(|v| v.is_finite() && *v > 0.0).fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
    if lo > hi {
        (1.0, 10.0)
    } else if hi / lo < 10.0 {
        let (low, high) = (10f64.powf(lo.log10().floor()), 10f64.powf(hi.log10().ceil()));
        (low, if high > low { high } else { high * 10.0 })
    } else {
        (lo / 1.5, hi * 1.5)
    }
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

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, figure: &Figure) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let fail = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("drawing '{}': {e:?}", figure.title);
    root.fill(&WHITE).map_err(fail)?;
    let points = || figure.curves.iter().flat_map(|c| &c.points).chain(figure.groups.iter().flat_map(|g| &g.points));
    let xs = figure.marks.iter().map(|m| m.x).chain(points().map(|p| p.0));
    let ys = figure
        .marks
        .iter()
        .flat_map(|m| [Some(m.y), m.interval.map(|i| i[0]), m.interval.map(|i| i[1])].into_iter().flatten())
        .chain(points().map(|p| p.1));
    let x = drawable(bounds(xs), "x", figure)?;
    let mut builder = ChartBuilder::on(root);
    builder.caption(&figure.title, ("sans-serif", 20)).margin(12).x_label_area_size(45).y_label_area_size(75);
    if figure.y_log {
        let y = drawable(bounds(ys), "y", figure)?;
        let chart = builder.build_cartesian_2d((x.0..x.1).log_scale(), (y.0..y.1).log_scale()).map_err(fail)?;
        series(chart, figure, x, y, |v| v.ln())?;
    } else {
        let y = linear_bounds(ys);
        let chart = builder.build_cartesian_2d((x.0..x.1).log_scale(), y.0..y.1).map_err(fail)?;
        series(chart, figure, x, y, |v| v)?;
    }
    Ok(())
}

/// Draws the mesh, the figure's curves, groups and marks and the legend on `chart`, whose y axis
/// runs over `y` and is straight in `scale(y)`.
fn series<'a, DB: DrawingBackend + 'a, Y>(
    mut chart: ChartContext<'a, DB, Cartesian2d<LogCoord<f64>, Y>>,
    figure: &Figure,
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
    scale: fn(f64) -> f64,
) -> Result<()>
where
    DB::ErrorType: 'static,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let fail = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("drawing '{}': {e:?}", figure.title);
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
    let grey = RGBColor(150, 150, 150);
    let in_range = |(x, y): (f64, f64)| x > 0.0 && x.is_finite() && scale(y).is_finite();
    for (i, curve) in figure.curves.iter().filter(|c| c.tag.is_none()).enumerate() {
        let color = palette[i % palette.len()];
        chart
            .draw_series(LineSeries::new(curve.points.iter().copied().filter(|p| in_range(*p)), color.stroke_width(2)))
            .map_err(fail)?
            .label(curve.label.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
    }
    for curve in &figure.curves {
        let Some(tag) = curve.tag else { continue };
        let points = curve.points.iter().copied().filter(|p| in_range(*p));
        chart.draw_series(LineSeries::new(points, grey.stroke_width(1))).map_err(fail)?;
        let style = ("sans-serif", 12).into_font().color(&BLACK);
        chart.draw_series(std::iter::once(Text::new(curve.label.clone(), tag, style))).map_err(fail)?;
    }
    let group_palette = [
        RGBColor(0, 150, 60),
        RGBColor(230, 120, 0),
        RGBColor(210, 30, 30),
        RGBColor(120, 60, 180),
        RGBColor(90, 90, 90),
    ];
    for group in &figure.groups {
        let color = group_palette[group.color % group_palette.len()];
        chart
            .draw_series(group.points.iter().filter(|p| in_range(**p)).map(|&p| Circle::new(p, 4, color.filled())))
            .map_err(fail)?
            .label(group.label.clone())
            .legend(move |(x, y)| Circle::new((x + 10, y), 4, color.filled()));
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
        .position(legend_corner(figure, (x0, x1), (y0, y1), scale))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(fail)?;
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

/// The corner of the plot where the legend hides the fewest points (upper left on ties): the
/// quarter of the plotted area (log x, y straight in `scale(y)`) each corner's legend covers.
fn legend_corner(
    figure: &Figure,
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
    scale: fn(f64) -> f64,
) -> SeriesLabelPosition {
    let fraction = |v: f64, lo: f64, hi: f64, f: fn(f64) -> f64| (f(v) - f(lo)) / (f(hi) - f(lo));
    let points = figure
        .marks
        .iter()
        .map(|m| (m.x, m.y))
        .chain(figure.curves.iter().flat_map(|c| c.points.iter().copied()))
        .chain(figure.groups.iter().flat_map(|g| g.points.iter().copied()))
        .map(|(x, y)| (fraction(x, x0, x1, f64::ln), fraction(y, y0, y1, scale)));
    let mut hidden = [0usize; 4];
    for (x, y) in points {
        let (left, right, top, bottom) = (x < 0.5, x > 0.5, y > 0.6, y < 0.4);
        hidden[0] += usize::from(left && top);
        hidden[1] += usize::from(right && top);
        hidden[2] += usize::from(left && bottom);
        hidden[3] += usize::from(right && bottom);
    }
    let corners = [
        SeriesLabelPosition::UpperLeft,
        SeriesLabelPosition::UpperRight,
        SeriesLabelPosition::LowerLeft,
        SeriesLabelPosition::LowerRight,
    ];
    let best = (0..4).min_by_key(|&i| hidden[i]).unwrap_or(0);
    corners[best].clone()
}

/// Axis labels: `1e5` style for large and small values, plain otherwise.
fn short(v: f64) -> String {
    if v != 0.0 && (v.abs() >= 1e4 || v.abs() < 1e-2) {
        format!("{v:.0e}")
    } else {
        format!("{}", (v * 100.0).round() / 100.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_log_ranges_widen_to_whole_decades_and_a_decade_edge_stays_the_edge() {
        assert_eq!(bounds([0.25, 1.0].into_iter()), (0.1, 1.0));
        assert_eq!(bounds([2.0, 5.0].into_iter()), (1.0, 10.0));
        assert_eq!(bounds([10.0, 10.0].into_iter()), (10.0, 100.0));
        // Wide ranges get half a step of room instead.
        assert_eq!(bounds([3.0, 3000.0].into_iter()), (2.0, 4500.0));
    }

    #[test]
    fn n5_log_ranges_beyond_f64_are_refused_not_drawn_forever() {
        let figure = |points| Figure {
            title: "t".into(),
            x_label: String::new(),
            y_label: String::new(),
            marks_label: String::new(),
            marks: Vec::new(),
            curves: vec![Curve::new("c", points)],
            groups: Vec::new(),
            y_log: true,
        };
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

    #[test]
    fn linear_ranges_get_a_tenth_of_their_span_on_each_side() {
        let (lo, hi) = linear_bounds([250.0, 420.0].into_iter());
        assert!((lo - 233.0).abs() < 1e-9 && (hi - 437.0).abs() < 1e-9, "{lo} {hi}");
        assert_eq!(linear_bounds(std::iter::empty()), (0.0, 1.0));
    }

    #[test]
    fn the_legend_goes_where_it_hides_no_point() {
        let figure = |points: Vec<(f64, f64)>| Figure {
            title: String::new(),
            x_label: String::new(),
            y_label: String::new(),
            marks_label: String::new(),
            marks: Vec::new(),
            curves: vec![Curve::new("c", points)],
            groups: Vec::new(),
            y_log: true,
        };
        let corner = |points| format!("{:?}", legend_corner(&figure(points), (1.0, 100.0), (1.0, 100.0), f64::ln));
        // A rising line crosses the lower left and upper right: the legend goes upper left.
        assert_eq!(corner(vec![(1.0, 1.0), (100.0, 100.0)]), "UpperLeft");
        // A falling one: upper right.
        assert_eq!(corner(vec![(1.0, 90.0), (2.0, 90.0), (100.0, 1.0)]), "UpperRight");
    }
}
