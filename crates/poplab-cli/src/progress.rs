//! A progress bar on standard error that appears only when a run lasts more than a second and
//! standard error is a terminal; it never writes to standard output.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// A delayed progress bar over a number of trials.
pub struct Progress {
    bar: ProgressBar,
    finished: Arc<AtomicBool>,
}

impl Progress {
    /// A bar over `trials` trials, shown after one second.
    pub fn new(trials: u64, label: &str) -> Self {
        Self::counting(trials, label, "trials")
    }

    /// A bar over `count` things called `unit`, shown after one second.
    pub fn counting(count: u64, label: &str, unit: &str) -> Self {
        let bar = ProgressBar::with_draw_target(Some(count), ProgressDrawTarget::hidden());
        let template =
            format!("{{spinner}} {{msg}} [{{elapsed_precise}}] {{bar:30}} {{pos}}/{{len}} {unit}, eta {{eta}}");
        bar.set_style(ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar()));
        bar.set_message(label.to_string());
        let finished = Arc::new(AtomicBool::new(false));
        let (delayed, done) = (bar.clone(), finished.clone());
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(1));
            if !done.load(Ordering::Relaxed) {
                delayed.set_draw_target(ProgressDrawTarget::stderr());
                delayed.enable_steady_tick(Duration::from_millis(200));
            }
        });
        Self { bar, finished }
    }

    /// One more is done.
    pub fn inc(&self) {
        self.bar.inc(1);
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finished.store(true, Ordering::Relaxed);
        self.bar.finish_and_clear();
    }
}
