//! Reading a server-sent event stream in the tests: `id`, `event` and `data` of each
//! event, comments skipped.

use std::time::Duration;

use app::api::{ChangeEvent, EVENTS_PATH};

/// One event of the stream.
#[derive(Debug, Clone)]
pub struct SseEvent {
    pub id: Option<String>,
    pub event: String,
    pub data: String,
}

impl SseEvent {
    pub fn change(&self) -> ChangeEvent {
        assert_eq!(self.event, "change", "{self:?}");
        serde_json::from_str(&self.data).expect("a change event's data")
    }
}

/// An open stream.
pub struct EventStream {
    response: reqwest::Response,
    buffer: String,
    ended: bool,
}

/// What waiting for the next event gave.
#[derive(Debug)]
pub enum Next {
    Event(SseEvent),
    /// The server closed the stream.
    Ended,
    /// Nothing within the time given.
    Quiet,
}

impl EventStream {
    /// Opens `/api/events` (with `?since=` and `Last-Event-ID` when given) and checks it
    /// is a stream.
    pub async fn open(
        client: &reqwest::Client,
        address: &str,
        since: Option<i64>,
        last_id: Option<i64>,
    ) -> Self {
        let response = Self::request(client, address, since, last_id).await;
        assert_eq!(response.status(), 200, "opening the stream");
        assert!(
            response
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.starts_with("text/event-stream")),
            "{:?}",
            response.headers()
        );
        Self {
            response,
            buffer: String::new(),
            ended: false,
        }
    }

    /// The answer to opening a stream, whatever it is.
    pub async fn request(
        client: &reqwest::Client,
        address: &str,
        since: Option<i64>,
        last_id: Option<i64>,
    ) -> reqwest::Response {
        let mut url = format!("{address}{EVENTS_PATH}");
        if let Some(since) = since {
            url.push_str(&format!("?since={since}"));
        }
        // Not the client's 30 s timeout: a stream stays open.
        let mut request = client.get(url).timeout(Duration::from_secs(3600));
        if let Some(id) = last_id {
            request = request.header("Last-Event-ID", id.to_string());
        }
        request.send().await.expect("the server answers")
    }

    /// The next event (comments skipped), waiting at most `within`.
    pub async fn next(&mut self, within: Duration) -> Next {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            if let Some(at) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..at + 2).collect();
                if let Some(event) = parse(&block) {
                    return Next::Event(event);
                }
                continue;
            }
            if self.ended {
                return Next::Ended;
            }
            match tokio::time::timeout_at(deadline, self.response.chunk()).await {
                Err(_) => return Next::Quiet,
                Ok(Ok(Some(bytes))) => self.buffer.push_str(&String::from_utf8_lossy(&bytes)),
                Ok(Ok(None)) | Ok(Err(_)) => self.ended = true,
            }
        }
    }

    /// The next event, which must come within `within`.
    pub async fn expect(&mut self, within: Duration) -> SseEvent {
        match self.next(within).await {
            Next::Event(event) => event,
            other => panic!("expected an event within {within:?}, got {other:?}"),
        }
    }

    /// The seqs of the next `n` change events.
    pub async fn seqs(&mut self, n: usize, within: Duration) -> Vec<i64> {
        let mut seqs = Vec::new();
        for _ in 0..n {
            seqs.push(self.expect(within).await.change().seq);
        }
        seqs
    }
}

/// An event from its block of lines; `None` for a block of comments (or `retry:`) only.
fn parse(block: &str) -> Option<SseEvent> {
    let (mut id, mut event, mut data, mut any) = (None, "message".to_owned(), Vec::new(), false);
    for line in block.lines() {
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "id" => id = Some(value.to_owned()),
            "event" => {
                event = value.to_owned();
                any = true;
            }
            "data" => {
                data.push(value.to_owned());
                any = true;
            }
            _ => {}
        }
    }
    any.then(|| SseEvent {
        id,
        event,
        data: data.join("\n"),
    })
}
