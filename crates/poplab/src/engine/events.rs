//! Event traces: one row per interaction that changes some agent's state.
//!
//! A time series samples the configuration every so many steps ([`TraceEvery::Steps`]); an event
//! trace ([`TraceEvery::Event`]) records every interaction that changes a state, with its exact
//! step number and the two agents' states before and after, and nothing for the null ones. The
//! agent and count engines know the exact step of each such interaction (the count engine skips
//! null steps exactly), so they keep the events in a short log ([`EventLog`]) as they take them;
//! the driver hands the log to the observers that asked for events ([`Observer::wants_events`])
//! whenever it fills up, and before a checkpoint and the end. Keeping the log changes no draw. The
//! batched engine takes interactions in bulk without their order, so an event trace runs on the
//! count engine (same law; see [`Engine::resolve`](super::Engine::resolve)).
//!
//! ```
//! use poplab::engine::{Series, TraceEvery};
//! use poplab::spec::{RawSpec, RunSpec};
//!
//! // Every leader-meets-leader interaction of `poplab run angluin --n 5 --trace-every event`.
//! let raw = RawSpec { trace_every: Some(TraceEvery::Event), seed: 1, ..RawSpec::new("angluin", 5) };
//! let spec = RunSpec::resolve(&raw)?;
//! let mut series = Series::default();
//! let record = spec.trial(0, &mut series)?;
//! // From 5 leaders to 1: four demotions, the last at the trial's last step.
//! assert_eq!(series.events.len(), 4);
//! assert_eq!(series.events.last().unwrap().step, record.steps.0);
//! assert_eq!(&*series.events[0].states[0], r#"{"leader":true}"#);
//! # Ok::<(), poplab::Error>(())
//! ```

use super::{Event, EventPoint, Observer, SeriesPosition, TraceSink};
use crate::protocol::{Protocol, StateHasher};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::HashMap;
use std::sync::Arc;

/// When a time series takes a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceEvery {
    /// Every this many steps (at least 1), and at the end.
    Steps(u128),
    /// At every interaction that changes some agent's state (`--trace-every event`).
    Event,
}

impl TraceEvery {
    /// The word for [`TraceEvery::Event`] on the command line and in files.
    pub const EVENT: &'static str = "event";
}

/// In files: a number of steps (as a decimal string beyond 64 bits, which JSON readers would round),
/// or the string `event`.
impl Serialize for TraceEvery {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        match *self {
            Self::Steps(every) => match u64::try_from(every) {
                Ok(every) => serializer.serialize_u64(every),
                Err(_) => serializer.serialize_str(&every.to_string()),
            },
            Self::Event => serializer.serialize_str(Self::EVENT),
        }
    }
}

impl<'de> Deserialize<'de> for TraceEvery {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = TraceEvery;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a number of steps or \"event\"")
            }

            fn visit_u64<E: serde::de::Error>(self, every: u64) -> std::result::Result<TraceEvery, E> {
                Ok(TraceEvery::Steps(u128::from(every)))
            }

            fn visit_str<E: serde::de::Error>(self, text: &str) -> std::result::Result<TraceEvery, E> {
                match text {
                    TraceEvery::EVENT => Ok(TraceEvery::Event),
                    steps => steps
                        .parse()
                        .map(TraceEvery::Steps)
                        .map_err(|_| E::invalid_value(serde::de::Unexpected::Str(text), &self)),
                }
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// The events an engine took since the driver last collected them.
#[derive(Clone, Debug)]
pub struct EventLog<S> {
    events: Vec<Event<S>>,
}

impl<S> EventLog<S> {
    /// Events the log holds before the engine hands over (it may hold up to one block more).
    pub const SIZE: usize = 4096;

    /// An empty log.
    pub fn new() -> Self {
        Self { events: Vec::with_capacity(Self::SIZE) }
    }

    /// Keeps `event`.
    #[inline]
    pub fn push(&mut self, event: Event<S>) {
        self.events.push(event);
    }

    /// Whether the engine should hand the log over now.
    #[inline]
    pub fn full(&self) -> bool {
        self.events.len() >= Self::SIZE
    }

    /// Hands the events kept, oldest first, to each of `observers` that wants them, and empties
    /// the log; returns whether it was full.
    pub fn hand_over<P: Protocol<State = S>>(&mut self, protocol: &P, observers: &mut [&mut dyn Observer<P>]) -> bool {
        let full = self.full();
        if !self.events.is_empty() {
            for observer in observers.iter_mut().filter(|o| o.wants_events()) {
                observer.events(protocol, &self.events);
            }
            self.events.clear();
        }
        full
    }
}

impl<S> Default for EventLog<S> {
    fn default() -> Self {
        Self::new()
    }
}

/// Rows of a trace kept in memory: samples of a time series or events.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    /// The rows of a time series ([`TraceEvery::Steps`]).
    pub points: Vec<super::TracePoint>,
    /// The rows of an event trace ([`TraceEvery::Event`]).
    pub events: Vec<EventPoint>,
}

impl TraceSink for Series {
    fn push(&mut self, point: super::TracePoint) {
        self.points.push(point);
    }

    fn push_event(&mut self, event: EventPoint) {
        self.events.push(event);
    }

    fn position(&mut self) -> std::io::Result<u64> {
        Ok((self.points.len() + self.events.len()) as u64)
    }
}

/// The observer of an event trace: writes a row per event into a [`TraceSink`], each state
/// written once and then remembered.
pub struct EventTrace<'a, P: Protocol> {
    sink: &'a mut dyn TraceSink,
    labels: HashMap<P::State, Arc<str>, StateHasher>,
}

impl<'a, P: Protocol> EventTrace<'a, P> {
    /// An event trace into `sink`.
    pub fn new(sink: &'a mut dyn TraceSink) -> Self {
        Self { sink, labels: HashMap::default() }
    }

    fn label(&mut self, protocol: &P, state: P::State) -> Arc<str> {
        let label = self.labels.entry(state).or_insert_with(|| {
            serde_json::Value::Object(crate::protocol::state_to_json(protocol, state)).to_string().into()
        });
        Arc::clone(label)
    }
}

impl<P: Protocol> Observer<P> for EventTrace<'_, P> {
    fn next_at(&self) -> Option<u128> {
        None
    }

    fn observe(&mut self, _: u128, _: &P, _: &mut [P::State], _: &mut crate::rng::PopRng) -> bool {
        false
    }

    fn only_looks(&self) -> bool {
        true
    }

    fn wants_events(&self) -> bool {
        true
    }

    fn events(&mut self, protocol: &P, events: &[Event<P::State>]) {
        for &Event { step, before, after } in events {
            let states = [before[0], before[1], after[0], after[1]].map(|s| self.label(protocol, s));
            self.sink.push_event(EventPoint { step, states });
        }
    }

    fn position(&mut self) -> std::io::Result<Option<SeriesPosition>> {
        Ok(Some(SeriesPosition { next: 0, last: None, written: self.sink.position()? }))
    }
}

#[cfg(test)]
mod tests {
    use super::TraceEvery;

    #[test]
    fn trace_every_is_a_number_of_steps_or_event_in_files_and_reads_back_exactly() {
        for (every, text) in [
            (TraceEvery::Steps(1000), "1000"),
            (TraceEvery::Steps(u128::from(u64::MAX)), "18446744073709551615"),
            (TraceEvery::Steps(u128::MAX), "\"340282366920938463463374607431768211455\""),
            (TraceEvery::Event, "\"event\""),
        ] {
            assert_eq!(serde_json::to_string(&every).unwrap(), text);
            assert_eq!(serde_json::from_str::<TraceEvery>(text).unwrap(), every);
        }
        for bad in ["\"events\"", "-1", "1.5", "null"] {
            assert!(serde_json::from_str::<TraceEvery>(bad).is_err(), "{bad}");
        }
    }
}
