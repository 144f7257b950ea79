//! Why each segment ended, as OpenVM's segmentation decided it.
//!
//! The metered interpreter cuts a segment when, at one of its periodic checks, the next
//! segment would pass a limit: an AIR's padded trace height, the proving-memory estimate or the
//! interaction count. It reports the trigger only as a `tracing` event (`overshoot: instret N |
//! …`); [`SegmentEnds`] is a tracing layer that records those events while one metered run
//! executes, and [`SegmentEnds::assign`] hands one to each segment in order (the last segment
//! ends with the program). Reading OpenVM's own decision, rather than re-deriving it from the
//! final trace heights (which are those of the last checkpoint, below every limit), is the only
//! way to name the limit that actually bound.

use std::fmt::Debug;
use std::sync::{Arc, Mutex};

use serde::Serialize;
use tracing::field::{Field, Visit};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

/// The limit that ended a segment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "limit", rename_all = "snake_case")]
pub enum SegmentEnd {
    /// An AIR's padded trace height would have passed the maximum.
    Height {
        /// The AIR.
        air: String,
        /// Its padded height at the check.
        height: u64,
        /// The maximum.
        max: u64,
    },
    /// The proving-memory estimate would have passed the maximum (OpenVM's rendering).
    Memory {
        /// The estimate at the check.
        estimate: String,
        /// The maximum.
        max: String,
    },
    /// The interaction count would have passed the maximum.
    Interactions {
        /// The count at the check.
        count: u64,
        /// The maximum.
        max: u64,
    },
    /// The program ended.
    Program,
    /// OpenVM reported no trigger this host could read.
    Unknown,
}

impl std::fmt::Display for SegmentEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Height { air, height, max } => write!(f, "height of {air} ({height} > {max})"),
            Self::Memory { estimate, max } => write!(f, "memory ({estimate} > {max})"),
            Self::Interactions { count, max } => write!(f, "interactions ({count} > {max})"),
            Self::Program => f.write_str("end of program"),
            Self::Unknown => f.write_str("unknown"),
        }
    }
}

/// One `overshoot` event: the instruction count of the check and the limit.
type Overshoot = (u64, SegmentEnd);

/// Records OpenVM's segmentation triggers during one run.
#[derive(Clone, Default)]
pub struct SegmentEnds {
    seen: Arc<Mutex<Vec<Overshoot>>>,
}

struct Message(Option<String>);

impl Visit for Message {
    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        if field.name() == "message" {
            self.0 = Some(format!("{value:?}"));
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.0 = Some(value.to_owned());
        }
    }
}

impl SegmentEnds {
    /// Runs `run` with this layer as the thread's subscriber.
    pub fn during<T>(&self, run: impl FnOnce() -> T) -> T {
        let subscriber = tracing_subscriber::registry().with(self.clone());
        tracing::subscriber::with_default(subscriber, run)
    }

    /// The end of each of `segments` segments: one trigger per check that cut a segment (a
    /// second trigger at the same check, when the new segment already exceeds a limit, is not
    /// a second cut), then the end of the program.
    pub fn assign(&self, segments: usize) -> Vec<SegmentEnd> {
        let seen = self.seen.lock().map(|s| s.clone()).unwrap_or_default();
        let mut cuts: Vec<SegmentEnd> = Vec::new();
        let mut last_check = None;
        for (instret, end) in seen {
            if last_check != Some(instret) {
                cuts.push(end);
                last_check = Some(instret);
            }
        }
        let mut ends: Vec<SegmentEnd> = (0..segments.saturating_sub(1))
            .map(|k| cuts.get(k).cloned().unwrap_or(SegmentEnd::Unknown))
            .collect();
        if segments > 0 {
            ends.push(SegmentEnd::Program);
        }
        ends
    }
}

impl<S: Subscriber> Layer<S> for SegmentEnds {
    fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
        if !event.metadata().target().starts_with("openvm_circuit") {
            return;
        }
        let mut message = Message(None);
        event.record(&mut message);
        if let Some(overshoot) = message.0.as_deref().and_then(parse) {
            if let Ok(mut seen) = self.seen.lock() {
                seen.push(overshoot);
            }
        }
    }
}

/// Parses OpenVM 2.0.2's `overshoot: instret N | …` messages (`segment_ctx.rs`).
fn parse(message: &str) -> Option<Overshoot> {
    let rest = message.strip_prefix("overshoot:")?;
    let mut parts = rest.split('|').map(str::trim);
    let instret = parts.next()?.strip_prefix("instret")?.trim().parse().ok()?;
    let limit = parts.next()?;
    // The values in parentheses, in order.
    let values = |s: &str| -> Vec<String> {
        s.split('(')
            .skip(1)
            .filter_map(|v| v.split(')').next())
            .map(|v| v.trim().to_owned())
            .collect()
    };
    let end = if limit.starts_with("height") {
        let v = values(limit);
        let air = parts
            .next()
            .and_then(|chip| values(chip).into_iter().next())
            .unwrap_or_default();
        SegmentEnd::Height {
            air,
            height: v.first()?.parse().ok()?,
            max: v.get(1)?.parse().ok()?,
        }
    } else if limit.starts_with("total memory") {
        let v = values(limit);
        SegmentEnd::Memory {
            estimate: v.first()?.clone(),
            max: v.get(1)?.clone(),
        }
    } else if limit.starts_with("total interactions") {
        let v = values(limit);
        SegmentEnd::Interactions {
            count: v.first()?.parse().ok()?,
            max: v.get(1)?.parse().ok()?,
        }
    } else {
        SegmentEnd::Unknown
    };
    Some((instret, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The three messages as OpenVM 2.0.2 formats them.
    #[test]
    fn openvm_overshoot_messages_parse() {
        let height = format!(
            "overshoot: instret {:10} | height ({:8}) > max ({:8}) | chip {:3} ({}) ",
            4_194_304,
            8_388_608,
            4_194_304,
            7,
            "VmAirWrapper<Rv32BaseAluAdapterAir, BaseAluCoreAir<4, 8>>"
        );
        assert_eq!(
            parse(&height),
            Some((
                4_194_304,
                SegmentEnd::Height {
                    air: "VmAirWrapper<Rv32BaseAluAdapterAir, BaseAluCoreAir<4, 8>>".into(),
                    height: 8_388_608,
                    max: 4_194_304
                }
            ))
        );
        let memory = format!(
            "overshoot: instret {:10} | total memory ({:5}) > max ({:5}) | main ({:5}) | interaction ({:5})",
            123, "15.2 GiB", "15.0 GiB", "9.1 GiB", "6.1 GiB"
        );
        assert_eq!(
            parse(&memory),
            Some((
                123,
                SegmentEnd::Memory {
                    estimate: "15.2 GiB".into(),
                    max: "15.0 GiB".into()
                }
            ))
        );
        let interactions = format!(
            "overshoot: instret {:10} | total interactions ({:10}) > max ({:10})",
            9, 200, 100
        );
        assert_eq!(
            parse(&interactions),
            Some((
                9,
                SegmentEnd::Interactions {
                    count: 200,
                    max: 100
                }
            ))
        );
        assert_eq!(parse("Segment   0 | instret 0"), None);
    }

    #[test]
    fn one_end_per_cut_then_the_program() {
        let ends = SegmentEnds::default();
        let memory = |e: &str| SegmentEnd::Memory {
            estimate: e.into(),
            max: "15 GiB".into(),
        };
        ends.seen.lock().unwrap().extend([
            (10, memory("16")),
            (10, memory("15.5")),
            (20, memory("17")),
        ]);
        assert_eq!(
            ends.assign(3),
            [memory("16"), memory("17"), SegmentEnd::Program]
        );
        assert_eq!(
            ends.assign(4)[2..],
            [SegmentEnd::Unknown, SegmentEnd::Program]
        );
    }
}
