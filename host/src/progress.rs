//! Per-segment progress while proving.
//!
//! OpenVM's continuation prover opens a `prove_segment` tracing span (field `segment`) around
//! each segment's proof. [`SegmentProgress`] is a tracing layer that prints when each segment
//! starts and how long it took, installed only for the duration of one proof.

use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::Mutex;
use std::time::Instant;

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing::Subscriber;
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// Prints `segment k/n` lines as OpenVM proves each segment.
pub struct SegmentProgress {
    total: usize,
    open: Mutex<HashMap<Id, (u64, Instant)>>,
}

struct SegmentField(Option<u64>);

impl Visit for SegmentField {
    fn record_u64(&mut self, field: &Field, value: u64) {
        if field.name() == "segment" {
            self.0 = Some(value);
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.record_u64(field, value as u64);
    }

    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        if field.name() == "segment" {
            self.0 = format!("{value:?}").parse().ok();
        }
    }
}

impl SegmentProgress {
    /// Progress for a proof of `total` segments.
    pub fn new(total: usize) -> Self {
        Self {
            total,
            open: Mutex::new(HashMap::new()),
        }
    }

    /// Runs `prove` with this layer as the thread's subscriber.
    pub fn during<T>(self, prove: impl FnOnce() -> T) -> T {
        let subscriber = tracing_subscriber::registry().with(self);
        tracing::subscriber::with_default(subscriber, prove)
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for SegmentProgress {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _: Context<'_, S>) {
        if attrs.metadata().name() != "prove_segment" {
            return;
        }
        let mut segment = SegmentField(None);
        attrs.record(&mut segment);
        let segment = segment.0.unwrap_or_default();
        eprintln!("  segment {}/{} ...", segment + 1, self.total);
        if let Ok(mut open) = self.open.lock() {
            open.insert(id.clone(), (segment, Instant::now()));
        }
    }

    fn on_close(&self, id: Id, _: Context<'_, S>) {
        let done = self.open.lock().ok().and_then(|mut open| open.remove(&id));
        if let Some((segment, started)) = done {
            eprintln!(
                "  segment {}/{} proved in {:.1} s",
                segment + 1,
                self.total,
                started.elapsed().as_secs_f64()
            );
        }
    }
}
