//! Time per aggregation stage while proving.
//!
//! OpenVM's aggregation prover opens an `agg_layer` tracing span (field `group`: `leaf`,
//! `internal_for_leaf`, `internal_recursive.N`, `wrap`…) around each layer. [`StageTimes`] is a
//! tracing layer that prints each layer as it ends and adds up the time per group, installed
//! only for the duration of one aggregation.

use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing::Subscriber;
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// Wall time per `agg_layer` group, shared with the layer that records it.
#[derive(Clone, Default)]
pub struct StageTimes {
    open: Arc<Mutex<HashMap<Id, (String, Instant)>>>,
    done: Arc<Mutex<Vec<(String, Duration)>>>,
}

struct GroupField(Option<String>);

impl Visit for GroupField {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "group" {
            self.0 = Some(value.to_owned());
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        if field.name() == "group" {
            self.0 = Some(format!("{value:?}").trim_matches('"').to_owned());
        }
    }
}

impl StageTimes {
    /// Runs `work` with this layer as the thread's subscriber.
    pub fn during<T>(&self, work: impl FnOnce() -> T) -> T {
        let subscriber = tracing_subscriber::registry().with(self.clone());
        tracing::subscriber::with_default(subscriber, work)
    }

    /// The time spent in groups that start with `prefix`.
    pub fn total(&self, prefix: &str) -> Duration {
        self.done.lock().map_or(Duration::ZERO, |done| {
            done.iter()
                .filter(|(group, _)| group.starts_with(prefix))
                .map(|(_, time)| *time)
                .sum()
        })
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for StageTimes {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _: Context<'_, S>) {
        if attrs.metadata().name() != "agg_layer" {
            return;
        }
        let mut group = GroupField(None);
        attrs.record(&mut group);
        let group = group.0.unwrap_or_default();
        eprintln!("  aggregation: {group} ...");
        if let Ok(mut open) = self.open.lock() {
            open.insert(id.clone(), (group, Instant::now()));
        }
    }

    fn on_close(&self, id: Id, _: Context<'_, S>) {
        let ended = self.open.lock().ok().and_then(|mut open| open.remove(&id));
        if let Some((group, started)) = ended {
            let elapsed = started.elapsed();
            eprintln!("  aggregation: {group} in {:.1} s", elapsed.as_secs_f64());
            if let Ok(mut done) = self.done.lock() {
                done.push((group, elapsed));
            }
        }
    }
}
