//! The import's progress: a bar on a terminal, a log line every few seconds elsewhere.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar that appears only on a terminal and only once an import has run for a
/// second; elsewhere (CI, logs) a plain line every few seconds.
pub(super) struct Progress {
    bar: Option<ProgressBar>,
    started: Instant,
    last_log: std::cell::Cell<Instant>,
    shown: std::cell::Cell<bool>,
    label: String,
}

impl Progress {
    pub(super) fn new(enabled: bool, total: Option<u64>, label: &str) -> Self {
        let tty = enabled && std::io::stderr().is_terminal();
        let bar = tty.then(|| {
            let b = ProgressBar::with_draw_target(total, ProgressDrawTarget::hidden());
            b.set_style(
                ProgressStyle::with_template(
                    "{msg} [{bar:40}] {pos}/{len} features ({per_sec}, eta {eta})",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            b.set_message(label.to_string());
            b
        });
        Progress {
            bar,
            started: Instant::now(),
            last_log: std::cell::Cell::new(Instant::now()),
            shown: std::cell::Cell::new(false),
            label: label.to_string(),
        }
    }

    pub(super) fn tick(&self, n: u64) {
        if n % 1024 != 0 {
            return;
        }
        match &self.bar {
            Some(b) => {
                if !self.shown.get() && self.started.elapsed() > Duration::from_secs(1) {
                    b.set_draw_target(ProgressDrawTarget::stderr());
                    self.shown.set(true);
                }
                b.set_position(n);
            }
            None => {
                if self.last_log.get().elapsed() > Duration::from_secs(5) {
                    tracing::info!(source = %self.label, features = n, "importing");
                    self.last_log.set(Instant::now());
                }
            }
        }
    }

    pub(super) fn finish(&self, n: u64) {
        if let Some(b) = &self.bar {
            b.set_position(n);
            b.finish_and_clear();
        }
    }
}
