//! What became of each intent of a load: its note, its attempts, and the later writes
//! made to its note — and what the note must therefore look like at the end.

use app::api::NewNote;

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

/// A later write to the note an intent created, and what became of it.
#[derive(Clone, Debug)]
pub struct FollowUp {
    pub key: String,
    pub kind: FollowUpKind,
    /// The server acknowledged it.
    pub acked: bool,
    /// A refusal or an unexpected answer (never expected).
    pub problem: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FollowUpKind {
    Edit {
        body: String,
    },
    /// A task ticked (or unticked) on the note page: an edit of that one line.
    Tick {
        line: usize,
        body: String,
    },
    /// Pinned or unpinned.
    Pin {
        pinned: bool,
    },
    /// The note's own tag renamed (the only note that carries it): `body` is what the
    /// rename leaves.
    RenameTag {
        from: String,
        to: String,
        body: String,
    },
    Trash,
    Restore,
}

impl FollowUpKind {
    /// The body this write leaves, if it changes the body.
    pub fn body(&self) -> Option<&str> {
        match self {
            FollowUpKind::Edit { body }
            | FollowUpKind::Tick { body, .. }
            | FollowUpKind::RenameTag { body, .. } => Some(body),
            FollowUpKind::Pin { .. } | FollowUpKind::Trash | FollowUpKind::Restore => None,
        }
    }
}
