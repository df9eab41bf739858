//! Virtual clients that save notes through the client's own save core: each intent gets
//! one key and is sent in bursts (the real retry policy, real sleeps) until it is saved,
//! exactly as the page does — a new burst standing for a reload or "Retry now".

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use app::api::NewNote;
use app::save::http_transport::HttpTransport;
use app::save::intent::SaveIntent;

use crate::follow_up::follow_up;
pub use crate::record::{FollowUp, FollowUpKind, IntentRecord};
use crate::send::{Done, TokioClock, send_until_done};
pub use crate::send::{OutcomeCounts, Progress};
use app::save::retry_policy::RetryPolicy;
use app::save::sender::Sender;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

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
