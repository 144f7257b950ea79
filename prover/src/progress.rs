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
    /// The `agg_layer` group open now, which the nodes that start are of.
    layer: Arc<Mutex<String>>,
    /// Each aggregation node (`single_leaf_agg`, `single_internal_agg`) as it ended: its
    /// layer's group and its time.
    nodes: Arc<Mutex<Vec<(String, Duration)>>>,
}

/// A node's span, as the layer it is of and when it started.
const NODE_PREFIX: &str = "node:";

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

    /// Every aggregation node's group and time, in the order they ended (OpenVM proves a
    /// layer's nodes one after another, so this is the tree's order, then the wraps').
    pub fn nodes(&self) -> Vec<(String, Duration)> {
        self.nodes.lock().map_or_else(|_| Vec::new(), |n| n.clone())
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
        let name = attrs.metadata().name();
        let key = if name == "agg_layer" {
            let mut group = GroupField(None);
            attrs.record(&mut group);
            let group = group.0.unwrap_or_default();
            eprintln!("  aggregation: {group} ...");
            if let Ok(mut layer) = self.layer.lock() {
                layer.clone_from(&group);
            }
            group
        } else if name == "single_leaf_agg" || name == "single_internal_agg" {
            let layer = self
                .layer
                .lock()
                .map_or_else(|_| String::new(), |l| l.clone());
            format!("{NODE_PREFIX}{layer}")
        } else {
            return;
        };
        if let Ok(mut open) = self.open.lock() {
            open.insert(id.clone(), (key, Instant::now()));
        }
    }

    fn on_close(&self, id: Id, _: Context<'_, S>) {
        let ended = self.open.lock().ok().and_then(|mut open| open.remove(&id));
        if let Some((key, started)) = ended {
            let elapsed = started.elapsed();
            if let Some(layer) = key.strip_prefix(NODE_PREFIX) {
                if let Ok(mut nodes) = self.nodes.lock() {
                    nodes.push((layer.to_owned(), elapsed));
                }
                return;
            }
            let group = key;
            eprintln!("  aggregation: {group} in {:.1} s", elapsed.as_secs_f64());
            if let Ok(mut done) = self.done.lock() {
                done.push((group, elapsed));
            }
        }
    }
}
