//! The open streams of this process: who holds how many (capped per person and per
//! process, counted under one lock so sixty requests at once cannot walk past a cap), and
//! the wake-up each person's streams wait on.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::{broadcast, watch};

use super::shared_read::SharedReads;

use crate::storage::Store;
use crate::storage::feed::Moved;

/// The open streams and their wake-ups.
pub struct Hub {
    per_person: usize,
    max: usize,
    state: Mutex<State>,
    /// Set once at shutdown: every stream ends, so the server stops without waiting.
    closing: watch::Sender<bool>,
}

#[derive(Default)]
struct State {
    open: usize,
    people: HashMap<String, Person>,
}

struct Person {
    /// Bumped to wake the person's streams: their feed may have moved.
    wake: watch::Sender<u64>,
    /// Bumped when a session of theirs ended: their streams check theirs.
    sessions: watch::Sender<u64>,
    streams: usize,
    /// The last read of their feed, shared by their streams.
    reads: Arc<SharedReads>,
    /// The person's latest seq as the backstop poll last read it.
    head: Option<i64>,
}

/// Why a stream was not opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// This person holds `ONCENOTE_STREAMS_PER_PERSON` streams already.
    PersonFull,
    /// This process holds `ONCENOTE_STREAMS_MAX` streams already.
    ProcessFull,
}

/// An open stream's place: released when dropped (the client went away, the stream
/// ended).
pub struct Place {
    hub: Arc<Hub>,
    scope: String,
    /// Changes when the person's feed may have moved.
    pub woken: watch::Receiver<u64>,
    /// Changes when a session of the person's ended.
    pub sessions: watch::Receiver<u64>,
    /// Turns true when the server shuts down.
    pub closing: watch::Receiver<bool>,
    /// The read of the person's feed their streams share.
    pub reads: Arc<SharedReads>,
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut state = self.hub.lock();
        state.open -= 1;
        if let Some(person) = state.people.get_mut(&self.scope) {
            person.streams -= 1;
            if person.streams == 0 {
                state.people.remove(&self.scope);
            }
        }
    }
}

impl Hub {
    pub fn new(per_person: usize, max: usize) -> Arc<Self> {
        Arc::new(Self {
            per_person,
            max,
            state: Mutex::default(),
            closing: watch::channel(false).0,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes a place for one of `scope`'s streams, if both caps allow.
    pub fn admit(self: &Arc<Self>, scope: &str) -> Result<Place, Refusal> {
        let mut state = self.lock();
        if state.open >= self.max {
            return Err(Refusal::ProcessFull);
        }
        let person = state
            .people
            .entry(scope.to_owned())
            .or_insert_with(|| Person {
                wake: watch::channel(0).0,
                sessions: watch::channel(0).0,
                streams: 0,
                reads: Arc::default(),
                head: None,
            });
        if person.streams >= self.per_person {
            return Err(Refusal::PersonFull);
        }
        person.streams += 1;
        let woken = person.wake.subscribe();
        let sessions = person.sessions.subscribe();
        let reads = Arc::clone(&person.reads);
        state.open += 1;
        Ok(Place {
            hub: Arc::clone(self),
            scope: scope.to_owned(),
            woken,
            sessions,
            closing: self.closing.subscribe(),
            reads,
        })
    }

    /// Streams open now (for `/healthz` and the tests).
    pub fn open_streams(&self) -> usize {
        self.lock().open
    }

    /// Wakes `scope`'s streams.
    pub fn wake(&self, scope: &str) {
        if let Some(person) = self.lock().people.get(scope) {
            person.wake.send_modify(|n| *n = n.wrapping_add(1));
        }
    }

    /// Tells `scope`'s streams to check their session.
    pub fn sessions_ended(&self, scope: &str) {
        if let Some(person) = self.lock().people.get(scope) {
            person.sessions.send_modify(|n| *n = n.wrapping_add(1));
        }
    }

    /// Wakes every stream, and has each check its session (signals may have been
    /// missed).
    pub fn wake_everyone(&self) {
        for person in self.lock().people.values() {
            person.wake.send_modify(|n| *n = n.wrapping_add(1));
            person.sessions.send_modify(|n| *n = n.wrapping_add(1));
        }
    }

    /// Wakes the streams of each person whose head moved since the last poll.
    fn saw_heads(&self, heads: &[(String, i64)]) {
        let mut state = self.lock();
        for (scope, seq) in heads {
            if let Some(person) = state.people.get_mut(scope)
                && person.head != Some(*seq)
            {
                person.head = Some(*seq);
                person.wake.send_modify(|n| *n = n.wrapping_add(1));
            }
        }
    }

    fn anyone_listening(&self) -> bool {
        self.lock().open > 0
    }

    /// Ends every stream (at shutdown).
    pub fn close(&self) {
        self.closing.send_replace(true);
    }

    /// Follows the store's signals, and polls every person's head each `poll` as the
    /// backstop, for as long as the hub is in use (the task holds it weakly, so a server
    /// dropped — a test's — lets its store, and PostgreSQL's listener, go).
    pub fn follow(self: &Arc<Self>, store: Store, poll: Duration) -> tokio::task::JoinHandle<()> {
        let hub = Arc::downgrade(self);
        let mut signals = store.changes().follow();
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(poll);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    signal = signals.recv() => {
                        let Some(hub) = hub.upgrade() else { return };
                        match signal {
                            Ok(Moved::Person(scope)) => hub.wake(&scope),
                            Ok(Moved::Sessions(scope)) => hub.sessions_ended(&scope),
                            Ok(Moved::Everyone) | Err(broadcast::error::RecvError::Lagged(_)) => {
                                hub.wake_everyone();
                            }
                            Err(broadcast::error::RecvError::Closed) => return,
                        }
                    }
                    _ = ticks.tick() => {
                        let Some(hub) = hub.upgrade() else { return };
                        if hub.anyone_listening() {
                            match store.changes().feed_heads().await {
                                Ok(heads) => hub.saw_heads(&heads),
                                Err(error) => tracing::debug!(%error, "the feed's poll failed"),
                            }
                        }
                    }
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_person_past_their_cap_is_refused_and_a_closed_stream_frees_its_place() {
        let hub = Hub::new(2, 10);
        let a = hub.admit("ann").unwrap();
        let _b = hub.admit("ann").unwrap();
        assert_eq!(hub.admit("ann").err(), Some(Refusal::PersonFull));
        assert!(
            hub.admit("bob").is_ok(),
            "another person has places of their own"
        );
        drop(a);
        assert!(hub.admit("ann").is_ok());
    }

    #[test]
    fn the_process_cap_holds_for_everyone_together() {
        let hub = Hub::new(5, 3);
        let places: Vec<Place> = ["a", "b", "c"]
            .iter()
            .map(|p| hub.admit(p).unwrap())
            .collect();
        assert_eq!(hub.admit("d").err(), Some(Refusal::ProcessFull));
        assert_eq!(hub.open_streams(), 3);
        drop(places);
        assert_eq!(hub.open_streams(), 0);
    }

    #[test]
    fn sixty_admissions_at_once_never_pass_the_caps() {
        let hub = Hub::new(4, 1000);
        let admitted: Vec<Option<Place>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..60).map(|_| s.spawn(|| hub.admit("ann").ok())).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(admitted.iter().filter(|p| p.is_some()).count(), 4);
    }

    #[test]
    fn a_wake_reaches_only_that_persons_streams() {
        let hub = Hub::new(5, 10);
        let mut ann = hub.admit("ann").unwrap();
        let mut bob = hub.admit("bob").unwrap();
        hub.wake("ann");
        assert!(ann.woken.has_changed().unwrap());
        assert!(!bob.woken.has_changed().unwrap());
        ann.woken.mark_unchanged();
        hub.saw_heads(&[("bob".into(), 7)]);
        assert!(bob.woken.has_changed().unwrap());
        bob.woken.mark_unchanged();
        hub.saw_heads(&[("bob".into(), 7)]);
        assert!(
            !bob.woken.has_changed().unwrap(),
            "a head that did not move wakes nobody"
        );
        hub.wake_everyone();
        assert!(ann.woken.has_changed().unwrap() && bob.woken.has_changed().unwrap());
    }

    #[test]
    fn a_session_ended_reaches_only_that_persons_streams_and_not_as_a_feed_move() {
        let hub = Hub::new(5, 10);
        let ann = hub.admit("ann").unwrap();
        let bob = hub.admit("bob").unwrap();
        hub.sessions_ended("ann");
        assert!(ann.sessions.has_changed().unwrap());
        assert!(!ann.woken.has_changed().unwrap(), "the feed did not move");
        assert!(!bob.sessions.has_changed().unwrap());
        hub.wake("bob");
        assert!(
            !bob.sessions.has_changed().unwrap(),
            "a write ends no session"
        );
        hub.wake_everyone();
        assert!(ann.sessions.has_changed().unwrap() && bob.sessions.has_changed().unwrap());
    }
}
