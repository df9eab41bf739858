//! The pipeline against a backend that counts its reads and writes: which requests read
//! the key first, which go straight to the write, and what a write that finds its key
//! answered gives.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;

/// Keys and their answers in memory; every read and write counted.
#[derive(Default)]
struct Counted {
    answers: Mutex<HashMap<String, SavedAnswer>>,
    reads: AtomicUsize,
    writes: AtomicUsize,
    /// The next write fails with this, writing nothing.
    fail_next: Mutex<Option<StorageError>>,
    /// A write whose key holds an answer gives it, marked a replay (as PostgreSQL's claim
    /// does), instead of failing with `KeyTaken` (as SQLite's does).
    replays_itself: bool,
}

impl Counted {
    fn reads(&self) -> usize {
        self.reads.load(Ordering::SeqCst)
    }

    fn writes(&self) -> usize {
        self.writes.load(Ordering::SeqCst)
    }

    /// Stores an answer for `key` as another process would.
    fn answered_elsewhere(&self, key: &str, fingerprint: &Fingerprint, body: &str) {
        self.answers.lock().unwrap().insert(
            format!("s\n{key}"),
            SavedAnswer {
                fingerprint: fingerprint.clone(),
                answer: stored(body),
            },
        );
    }
}

fn stored(body: &str) -> StoredAnswer {
    StoredAnswer {
        status: 201,
        headers: Vec::new(),
        body: body.as_bytes().to_vec(),
    }
}

impl Backend for Counted {
    async fn find_answer(
        &self,
        scope: &str,
        key: &IdempotencyKey,
    ) -> Result<Option<SavedAnswer>, StorageError> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        Ok(self
            .answers
            .lock()
            .unwrap()
            .get(&format!("{scope}\n{key}"))
            .cloned())
    }

    async fn write<W: Work>(
        &self,
        ticket: ClaimTicket,
        _work: Arc<W>,
    ) -> Result<Answer, StorageError> {
        self.writes.fetch_add(1, Ordering::SeqCst);
        if let Some(failure) = self.fail_next.lock().unwrap().take() {
            return Err(failure);
        }
        let mut answers = self.answers.lock().unwrap();
        let gate = format!("{}\n{}", ticket.scope, ticket.key);
        if let Some(saved) = answers.get(&gate) {
            if self.replays_itself {
                return Ok(Answer {
                    stored: saved.answer.clone(),
                    replayed: true,
                });
            }
            return Err(StorageError::KeyTaken);
        }
        answers.insert(
            gate,
            SavedAnswer {
                fingerprint: ticket.fingerprint,
                answer: stored("written"),
            },
        );
        Ok(Answer {
            stored: stored("written"),
            replayed: false,
        })
    }
}

/// A write whose request is told by `payload` (the backend above never runs it).
struct Asked(&'static str);

impl Asked {
    fn fingerprint_of(payload: &str) -> Fingerprint {
        Fingerprint::of("POST", "/api/notes", &[payload])
    }
}

impl Work for Asked {
    fn fingerprint(&self) -> Fingerprint {
        Self::fingerprint_of(self.0)
    }

    async fn run<T: NoteWrites + Send>(
        &self,
        _tx: &mut T,
        _scope: &str,
        _key: &IdempotencyKey,
    ) -> Result<Applied, StorageError> {
        unreachable!("the counting backend does not run the work")
    }
}

struct Setting {
    gates: KeyGates,
    health: WriteHealth,
    backend: Counted,
}

impl Setting {
    fn new() -> Self {
        Self {
            gates: KeyGates::default(),
            health: WriteHealth::default(),
            backend: Counted::default(),
        }
    }

    async fn run(&self, key: &str, payload: &'static str) -> Result<Answer, ApiError> {
        let rules = Rules {
            gates: &self.gates,
            key_wait: Duration::from_secs(5),
            key_ttl: Duration::from_secs(3600),
            health: &self.health,
        };
        let key = IdempotencyKey::from_stored(key.to_owned());
        run_once(&self.backend, rules, "s", &key, Asked(payload)).await
    }
}

#[tokio::test]
async fn a_new_key_goes_to_the_write_without_a_read_first() {
    let setting = Setting::new();
    let answer = setting.run("k1", "a").await.unwrap();
    assert!(!answer.replayed);
    assert_eq!((setting.backend.reads(), setting.backend.writes()), (0, 1));
}

#[tokio::test]
async fn a_key_answered_in_this_process_is_replayed_from_a_read_without_a_write() {
    let setting = Setting::new();
    setting.run("k1", "a").await.unwrap();
    let again = setting.run("k1", "a").await.unwrap();
    assert!(again.replayed);
    assert_eq!(again.stored.body, b"written");
    assert_eq!((setting.backend.reads(), setting.backend.writes()), (1, 1));
}

#[tokio::test]
async fn a_key_answered_by_another_process_is_replayed_once_the_write_finds_it_taken() {
    let setting = Setting::new();
    let fingerprint = Asked::fingerprint_of("a");
    setting
        .backend
        .answered_elsewhere("k1", &fingerprint, "theirs");
    let answer = setting.run("k1", "a").await.unwrap();
    assert!(answer.replayed);
    assert_eq!(
        answer.stored.body, b"theirs",
        "the stored answer, not a new one"
    );
    // Now known here: the next retry is read first and never written.
    setting.run("k1", "a").await.unwrap();
    assert_eq!((setting.backend.reads(), setting.backend.writes()), (2, 1));
}

#[tokio::test]
async fn any_failed_write_whose_key_holds_an_answer_gives_that_answer() {
    let setting = Setting::new();
    for failure in [
        StorageError::Refused("412: the note moved on".into()),
        StorageError::Busy,
    ] {
        // Forgotten here, so the write is tried and fails as the late one would.
        let fresh = Setting::new();
        fresh
            .backend
            .answered_elsewhere("k1", &Asked::fingerprint_of("a"), "theirs");
        *fresh.backend.fail_next.lock().unwrap() = Some(failure);
        let answer = fresh.run("k1", "a").await.unwrap();
        assert!(answer.replayed);
        assert_eq!(answer.stored.body, b"theirs");
    }
    // A failure with nothing stored is told as it is, and the key is not remembered.
    *setting.backend.fail_next.lock().unwrap() = Some(StorageError::Unavailable);
    assert!(setting.run("k2", "a").await.is_err());
    assert!(!setting.gates.answered.lately("s\nk2"));
}

#[tokio::test]
async fn a_key_used_for_another_request_is_refused_whether_or_not_it_was_known() {
    let setting = Setting::new();
    setting
        .backend
        .answered_elsewhere("k1", &Asked::fingerprint_of("a"), "theirs");
    // Not known here: the write finds the key taken, the read finds another request.
    assert!(matches!(
        setting.run("k1", "b").await,
        Err(ApiError::IdempotencyKeyReused)
    ));
    // Known now: refused from the read alone.
    let writes = setting.backend.writes();
    assert!(matches!(
        setting.run("k1", "b").await,
        Err(ApiError::IdempotencyKeyReused)
    ));
    assert_eq!(setting.backend.writes(), writes);
}

#[tokio::test]
async fn a_replay_the_write_gives_does_not_tell_healthz_that_writes_work_again() {
    let mut setting = Setting::new();
    setting.backend.replays_itself = true;
    setting
        .backend
        .answered_elsewhere("k1", &Asked::fingerprint_of("a"), "theirs");
    setting.health.record::<()>(&Err(ApiError::StorageFull));
    let answer = setting.run("k1", "a").await.unwrap();
    assert!(answer.replayed);
    assert!(
        setting.health.is_refusing(),
        "nothing was written: still full"
    );
    setting.run("k2", "a").await.unwrap();
    assert!(!setting.health.is_refusing(), "a write made clears it");
}
