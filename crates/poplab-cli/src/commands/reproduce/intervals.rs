//! The interval the report's text and pictures both show for a row's mean.

use poplab::claims::Row;
use poplab::verdict::{FIGURE_BOOTSTRAP_SEED, bootstrap_mean_ci95};

/// The 95% interval drawn and tabled for a row's mean: the percentile bootstrap of its values
/// ([`bootstrap_mean_ci95`]), which follows skewed and bimodal times and is never below zero for
/// a time, as a symmetric t-interval can be; `None` where the row has no mean.
pub fn interval(row: &Row) -> Option<[f64; 2]> {
    row.mean.and_then(|_| bootstrap_mean_ci95(&row.point.values, FIGURE_BOOTSTRAP_SEED))
}
