//! Virtual clients that save notes through the client's own save core: each intent gets
//! one key and is sent in bursts (the real retry policy, real sleeps) until it is saved,
//! exactly as the page does — a new burst standing for a reload or "Retry now".

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use app::api::NewNote;
use app::save::http_transport::HttpTransport;
use app::save::intent::SaveIntent;
use app::save::outcome::{AttemptOutcome, WriteAnswer};

use crate::follow_up::follow_up;
pub use crate::follow_up::{FollowUp, FollowUpKind};
use app::save::retry_policy::RetryPolicy;
use app::save::sender::{BurstEnd, BurstEvent, BurstHooks, Clock, Sender};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// One intent and what became of it.
#[derive(Clone, Debug)]
pub struct IntentRecord {
    pub key: String,
    pub payload: NewNote,
    /// The note id the client was given, once saved.
    pub acked_note_id: Option<String>,
    pub attempts: u32,
    pub bursts: u32,
    /// A permanent refusal: never expected for these valid notes.
    pub refused: Option<String>,
    /// How many senders sent this intent at once (several: like tabs without a lock).
    pub senders: u32,
    /// Saved answers to concurrent senders that named different notes.
    pub disagreeing_answers: u32,
    /// Later writes to the note: edits, moves to the trash and back, in order.
    pub follow_ups: Vec<FollowUp>,
}

impl IntentRecord {
    /// The body the note must have at the end: the last acknowledged edit's, or the
    /// created one.
    pub fn final_body(&self) -> &str {
        self.follow_ups
            .iter()
            .rev()
            .filter(|f| f.acked)
            .find_map(|f| f.kind.body())
            .unwrap_or(&self.payload.body)
    }

    /// Whether the note must end in the trash.
    pub fn final_trashed(&self) -> bool {
        self.follow_ups
            .iter()
            .rev()
            .filter(|f| f.acked)
            .find_map(|f| match f.kind {
                FollowUpKind::Trash => Some(true),
                FollowUpKind::Restore => Some(false),
                _ => None,
            })
            .unwrap_or(false)
    }

    /// Whether the note must end pinned.
    pub fn final_pinned(&self) -> bool {
        self.follow_ups
            .iter()
            .rev()
            .filter(|f| f.acked)
            .find_map(|f| match f.kind {
                FollowUpKind::Pin { pinned } => Some(pinned),
                _ => None,
            })
            .unwrap_or(false)
    }

    /// Acknowledged writes after the create: each made exactly one revision.
    pub fn acked_follow_ups(&self) -> usize {
        self.follow_ups.iter().filter(|f| f.acked).count()
    }
}

/// How attempts ended, over the whole run.
#[derive(Clone, Debug, Default)]
pub struct OutcomeCounts {
    pub attempts: u64,
    pub saved_first_time: u64,
    pub saved_by_replay: u64,
    pub network_errors: u64,
    pub timeouts: u64,
    pub busy_503: u64,
    pub in_use_409: u64,
    pub other_answers: BTreeMap<u16, u64>,
}

impl OutcomeCounts {
    fn count_failure(&mut self, outcome: &AttemptOutcome) {
        match outcome {
            AttemptOutcome::Network { .. } => self.network_errors += 1,
            AttemptOutcome::TimedOut => self.timeouts += 1,
            AttemptOutcome::Answered { status: 503, .. } => self.busy_503 += 1,
            AttemptOutcome::Answered { status: 409, .. } => self.in_use_409 += 1,
            AttemptOutcome::Answered { status, .. } => {
                *self.other_answers.entry(*status).or_default() += 1
            }
            AttemptOutcome::Saved { .. } => {}
        }
    }

    /// Attempts that were retried (every failed attempt but a burst's last).
    pub fn retries(&self) -> u64 {
        self.network_errors
            + self.timeouts
            + self.busy_503
            + self.in_use_409
            + self.other_answers.values().sum::<u64>()
    }
}

#[derive(Clone, Debug)]
pub struct LoadConfig {
    pub clients: usize,
    pub intents: usize,
    pub deadline: Duration,
    pub seed: u64,
    pub policy: RetryPolicy,
    /// The share of intents sent by 2–4 senders at once, with the same key.
    pub same_key_share: f64,
    /// The share of created notes that are then edited (and some moved to the trash and
    /// back), each write an intent of its own.
    pub follow_up_share: f64,
}

pub struct LoadResult {
    pub records: Vec<IntentRecord>,
    pub counts: OutcomeCounts,
    pub elapsed: Duration,
}

/// Progress shared with the kill scheduler (which runs on another thread).
#[derive(Default)]
pub struct Progress {
    pub acked: AtomicUsize,
    /// Keys of acknowledged creates.
    pub acked_keys: Mutex<Vec<String>>,
    /// Keys of acknowledged later writes (each made one revision).
    pub acked_follow_up_keys: Mutex<Vec<String>>,
}

pub(crate) struct TokioClock;

impl Clock for TokioClock {
    async fn sleep(&self, delay: Duration) {
        tokio::time::sleep(delay).await;
    }
}

struct ClientHooks<'a> {
    rng: StdRng,
    counts: &'a RefCell<OutcomeCounts>,
    attempts: u32,
}

impl BurstHooks for ClientHooks<'_> {
    fn jitter(&mut self) -> f64 {
        self.rng.random_range(0.5..=1.0)
    }

    fn on_event(&mut self, event: BurstEvent) {
        let mut counts = self.counts.borrow_mut();
        match event {
            BurstEvent::AttemptStarted { .. } => {
                counts.attempts += 1;
                self.attempts += 1;
            }
            BurstEvent::RetryScheduled { outcome, .. } => counts.count_failure(&outcome),
        }
    }
}

/// Runs `config.clients` clients over `config.intents` intents against `base_url`.
/// Must run inside a `LocalSet` (the save core's futures stay on one thread, as in a
/// browser).
pub async fn run(
    base_url: &str,
    config: &LoadConfig,
    progress: Arc<Progress>,
) -> anyhow::Result<LoadResult> {
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .pool_max_idle_per_host(config.clients)
        .build()?;
    // Every virtual client is a person of their own, signed in (the server runs with
    // open signup).
    let mut sessions = Vec::with_capacity(config.clients);
    for client_no in 0..config.clients {
        sessions.push(
            sign_up(
                &client,
                base_url,
                &format!("chaos-{}-{client_no}", config.seed),
            )
            .await?,
        );
    }
    let records: Rc<RefCell<Vec<IntentRecord>>> =
        Rc::new(RefCell::new(Vec::with_capacity(config.intents)));
    let counts = Rc::new(RefCell::new(OutcomeCounts::default()));
    let started = Instant::now();
    let deadline = started + config.deadline;

    let mut clients = Vec::new();
    for (client_no, session) in sessions.into_iter().enumerate() {
        let transport = HttpTransport {
            client: client.clone(),
            base: base_url.to_owned(),
            session: Some(session),
            owner: None,
        };
        let sender = Sender::new(transport, TokioClock, config.policy.clone());
        let (records, counts, progress) = (records.clone(), counts.clone(), progress.clone());
        let mine: Vec<usize> = (client_no..config.intents)
            .step_by(config.clients)
            .collect();
        let seed = config.seed.wrapping_add(client_no as u64);
        let same_key_share = config.same_key_share;
        let follow_up_share = config.follow_up_share;
        clients.push(tokio::task::spawn_local(async move {
            let mut rng = StdRng::seed_from_u64(seed);
            for n in mine {
                let senders = if rng.random_bool(same_key_share) {
                    rng.random_range(2..=4)
                } else {
                    1
                };
                let mut record = save_one(
                    &sender, &mut rng, &counts, &progress, n, seed, deadline, senders,
                )
                .await;
                if record.acked_note_id.is_some() && rng.random_bool(follow_up_share) {
                    follow_up(&sender, &mut rng, &counts, &progress, &mut record, deadline).await;
                }
                records.borrow_mut().push(record);
            }
        }));
    }
    for client in clients {
        client.await?;
    }
    let records = records.borrow().clone();
    let counts = counts.borrow().clone();
    Ok(LoadResult {
        records,
        counts,
        elapsed: started.elapsed(),
    })
}

/// Makes an account (signup is open on the chaos server) and returns its session token.
/// Retried: the server may be down for a moment in crash mode.
pub async fn sign_up(
    client: &reqwest::Client,
    base_url: &str,
    username: &str,
) -> anyhow::Result<String> {
    let body = serde_json::json!({ "username": username, "password": "chaos password" });
    let mut last = String::from("no answer");
    for _ in 0..50 {
        let Ok(response) = client
            .post(format!("{base_url}/api/users"))
            .json(&body)
            .send()
            .await
        else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let status = response.status().as_u16();
        last = format!("the last answer was {status}");
        let token = response
            .headers()
            .get_all("set-cookie")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .find_map(|v| v.strip_prefix("oncenote_session="))
            .map(|v| v.split(';').next().unwrap_or_default().to_owned());
        match (status, token) {
            (201, Some(token)) => return Ok(token),
            (409, _) => {
                // Made by an earlier attempt whose answer was lost: sign in instead.
                let response = client
                    .post(format!("{base_url}/api/session"))
                    .json(&body)
                    .send()
                    .await?;
                if let Some(token) = response
                    .headers()
                    .get_all("set-cookie")
                    .iter()
                    .filter_map(|v| v.to_str().ok())
                    .find_map(|v| v.strip_prefix("oncenote_session="))
                {
                    return Ok(token.split(';').next().unwrap_or_default().to_owned());
                }
            }
            _ => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    anyhow::bail!("could not make the account {username}: {last}")
}

/// How sending one intent until it is done ended.
pub(crate) enum Done {
    Saved {
        answer: WriteAnswer,
        /// Saved answers to several senders that named different notes.
        disagreeing: u32,
    },
    Refused(String),
    OutOfTime,
}

/// Sends `intent` from `senders` senders at once, burst after burst (as reloads and
/// Retry now would), until it is saved or refused or the deadline passes.
pub(crate) async fn send_until_done(
    sender: &Sender<HttpTransport, TokioClock>,
    rng: &mut StdRng,
    counts: &RefCell<OutcomeCounts>,
    intent: &SaveIntent,
    deadline: Instant,
    senders: u32,
    tally: &mut (u32, u32),
) -> Done {
    while Instant::now() < deadline {
        tally.1 += 1;
        // One burst per sender, all at once, all with the intent's one key.
        let bursts = (0..senders).map(|_| {
            let mut hooks = ClientHooks {
                rng: StdRng::seed_from_u64(rng.random()),
                counts,
                attempts: 0,
            };
            async move {
                let end = sender.run_burst(intent, &mut hooks).await;
                (end, hooks.attempts)
            }
        });
        let ends = futures::future::join_all(bursts).await;
        tally.0 += ends.iter().map(|(_, attempts)| attempts).sum::<u32>();
        let saved: Vec<(&WriteAnswer, bool)> = ends
            .iter()
            .filter_map(|(end, _)| match end {
                BurstEnd::Saved { answer, replayed } => Some((answer, *replayed)),
                _ => None,
            })
            .collect();
        if let Some((answer, _)) = saved.first() {
            let id = |a: &WriteAnswer| a.note().map(|n| n.id.clone());
            let disagreeing = saved
                .iter()
                .filter(|(other, _)| id(other) != id(answer))
                .count() as u32;
            let mut counts = counts.borrow_mut();
            for (_, replayed) in &saved {
                if *replayed {
                    counts.saved_by_replay += 1;
                } else {
                    counts.saved_first_time += 1;
                }
            }
            return Done::Saved {
                answer: (*answer).clone(),
                disagreeing,
            };
        }
        if let Some(problem) = ends.iter().find_map(|(end, _)| match end {
            BurstEnd::Failed { problem } => Some(problem),
            _ => None,
        }) {
            return Done::Refused(format!(
                "{} {}: {}",
                problem.status,
                problem.slug(),
                problem.detail
            ));
        }
        for (end, _) in &ends {
            match end {
                BurstEnd::Waiting { last } => counts.borrow_mut().count_failure(last),
                BurstEnd::Offline => unreachable!("the virtual clients are always online"),
                _ => {}
            }
        }
        // What the page does on a reload or "Retry now": a new burst, same key.
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    Done::OutOfTime
}

#[allow(clippy::too_many_arguments)]
async fn save_one(
    sender: &Sender<HttpTransport, TokioClock>,
    rng: &mut StdRng,
    counts: &RefCell<OutcomeCounts>,
    progress: &Progress,
    n: usize,
    seed: u64,
    deadline: Instant,
    senders: u32,
) -> IntentRecord {
    let written_at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let words: String = (0..rng.random_range(3..40))
        .map(|_| format!("w{} ", rng.random_range(0..10_000)))
        .collect();
    let title = format!("chaos note {n}");
    // Two tasks to tick and a tag of the note's own to rename (see `follow_up`).
    let body = format!("intent {n} of run {seed}: {words}\n- [ ] first\n- [ ] second\n#n{n}");
    let intent = SaveIntent::create(
        uuid::Uuid::new_v4().to_string(),
        &title,
        &body,
        written_at.clone(),
    );
    let mut record = IntentRecord {
        key: intent.key.clone(),
        payload: NewNote {
            title,
            body,
            written_at,
        },
        acked_note_id: None,
        attempts: 0,
        bursts: 0,
        refused: None,
        senders,
        disagreeing_answers: 0,
        follow_ups: Vec::new(),
    };
    let mut tally = (0, 0);
    let done = send_until_done(sender, rng, counts, &intent, deadline, senders, &mut tally).await;
    (record.attempts, record.bursts) = tally;
    match done {
        Done::Saved {
            answer,
            disagreeing,
        } => {
            record.disagreeing_answers = disagreeing;
            record.acked_note_id = answer.note().map(|n| n.id.clone());
            progress
                .acked_keys
                .lock()
                .expect("not poisoned")
                .push(record.key.clone());
            progress.acked.fetch_add(1, Ordering::Relaxed);
        }
        Done::Refused(problem) => record.refused = Some(problem),
        Done::OutOfTime => {}
    }
    record
}
