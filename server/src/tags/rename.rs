//! Renaming a tag: every note that has it (or a tag nested under it), in the trash or not,
//! gets the new name written into its text — one revision each (`tag-rename`), all in one
//! transaction, under one key. The rename keeps how many notes it changed past its key's
//! idempotency row, so a retry that comes after that row expired renames nothing again.
//!
//! The work is done before the write ([`RenameTag::prepare`]): the notes are read from
//! the readers and each is parsed and renamed on a blocking thread, so the write holds the
//! database — on SQLite the one writer, every person's writes — only to check each note's
//! version and write it. A note changed since it was read is worked out again inside (a
//! few at most; past that the write is 503 and the client's retry prepares again). And
//! one rename rewrites at most `ONCENOTE_RENAME_MAX_CHARS` of text: a rename of a tag on
//! 1,000 notes of 100,000 characters once held every write of the server for 151 s.

use std::collections::HashMap;

use app::api::{Note, RevisionKind, TAGS_PATH, TagRename, TagRenamed, tag_name, validate_draft};

use crate::error::ApiError;
use crate::idempotency::{Fingerprint, IdempotencyKey, Operation, Outcome};
use crate::notes::new_note::written_at;
use crate::storage::{NewRevision, NoteWrites, Store, TaggedRead};
use crate::text::tags;
use crate::timestamp;

/// Renames being prepared or written at once in this process. Each holds up to
/// `ONCENOTE_RENAME_MAX_CHARS` of notes twice (as read, and renamed) and a blocking
/// thread: 60 at once were a gigabyte and every thread, where the one writer once took
/// them one at a time. One past them waits for a turn up to `ONCENOTE_KEY_WAIT_MS`, then is
/// 503 `database-busy`, and its retry (the same key) tries again.
const RENAMES_AT_ONCE: usize = 2;
static TURNS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(RENAMES_AT_ONCE);

/// Notes a rename's write works out again itself (changed since the rename read them)
/// before it gives up with 503 for its retry to read them afresh.
const WORKED_OUT_IN_THE_WRITE: usize = 8;

/// A valid rename: `from` as kept (folded), `to` as the person wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidRename {
    pub from: String,
    pub to: String,
    pub written_at: String,
}

impl ValidRename {
    pub fn parse(request: TagRename) -> Result<Self, ApiError> {
        let invalid = |what: &str, raw: &str, e: app::api::TagError| {
            ApiError::ValidationFailed(format!("{what} {raw:?} is not a tag: {e}"))
        };
        let from = tag_name(&request.from).map_err(|e| invalid("from", &request.from, e))?;
        tag_name(&request.to).map_err(|e| invalid("to", &request.to, e))?;
        let to = request.to.trim();
        let to = to.strip_prefix('#').unwrap_or(to).to_owned();
        if to == from {
            return Err(ApiError::ValidationFailed(format!(
                "from and to are the same tag, {from:?}"
            )));
        }
        let written_at = written_at(&request.written_at)?;
        Ok(Self {
            from,
            to,
            written_at,
        })
    }

    pub fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of(
            "POST",
            &format!("{TAGS_PATH}/rename"),
            &[&self.from, &self.to, &self.written_at],
        )
    }
}

/// Renaming a tag in every note that has it, with what it will write worked out.
pub struct RenameTag {
    rename: ValidRename,
    plan: Plan,
    /// The rename's turn among those at once, held until it is written (or dropped).
    _turn: Option<tokio::sync::SemaphorePermit<'static>>,
}

/// A turn among the renames prepared at once, waited for at most `wait`.
async fn turn(
    wait: std::time::Duration,
) -> Result<tokio::sync::SemaphorePermit<'static>, ApiError> {
    match tokio::time::timeout(wait, TURNS.acquire()).await {
        Ok(Ok(turn)) => Ok(turn),
        _ => Err(ApiError::Busy),
    }
}

/// What a rename found before its write.
enum Plan {
    /// Each note read, by id: its version then, and its text renamed (`None` when its
    /// text does not carry the tag after all).
    Ready(HashMap<String, (i64, Option<Note>)>),
    /// A note would be left invalid (told once the key is checked: a late retry of a
    /// rename that was done is told what it did, whatever the notes hold now).
    Refused(String),
    /// Past what one rename may rewrite.
    TooLarge {
        notes: usize,
        chars: u64,
        max_chars: u64,
    },
}

impl RenameTag {
    /// Reads the notes the rename would rewrite (from the readers) and works out each
    /// one's new text on a blocking thread, before any write.
    pub async fn prepare(
        store: &Store,
        scope: &str,
        rename: ValidRename,
        max_chars: u64,
        wait: std::time::Duration,
    ) -> Result<Self, ApiError> {
        let turn = turn(wait).await?;
        let read = store
            .tags()
            .tagged_for_rename(scope, &rename.from, max_chars)
            .await?;
        let plan = match read {
            TaggedRead::TooLarge { notes, chars } => Plan::TooLarge {
                notes,
                chars,
                max_chars,
            },
            TaggedRead::Notes(notes) => {
                let working = rename.clone();
                tokio::task::spawn_blocking(move || plan_of(&notes, &working))
                    .await
                    .map_err(|e| ApiError::Internal(e.into()))?
            }
        };
        Ok(Self {
            rename,
            plan,
            _turn: Some(turn),
        })
    }
}

/// Each note renamed, or the first refusal.
fn plan_of(notes: &[Note], rename: &ValidRename) -> Plan {
    let mut planned = HashMap::with_capacity(notes.len());
    for note in notes {
        // The note's own time for now: the write sets the time it is written at.
        match renamed_note(note, rename, &note.updated_at) {
            Ok(after) => {
                planned.insert(note.id.clone(), (note.version, after));
            }
            Err(refused) => return Plan::Refused(refused.to_string()),
        }
    }
    Plan::Ready(planned)
}

/// The key a rename's revision of one note is kept under: the rename's key and the
/// note's id, apart by a space — which no key a client sends can hold (keys are visible
/// ASCII), so it never meets another write's key.
fn revision_key(key: &IdempotencyKey, note_id: &str) -> IdempotencyKey {
    IdempotencyKey::from_stored(format!("{} {note_id}", key.as_str()))
}

/// `note` with the tag renamed, one version on; `None` if its text does not carry it.
/// A rename that would make a title or a body too long is refused for every note.
pub fn renamed_note(
    note: &Note,
    rename: &ValidRename,
    now: &str,
) -> Result<Option<Note>, ApiError> {
    let Some((title, body)) =
        tags::rename_in_note(&note.title, &note.body, &rename.from, &rename.to)
    else {
        return Ok(None);
    };
    validate_draft(&title, &body).map_err(|e| {
        ApiError::ValidationFailed(format!(
            "renaming #{} to #{} would leave the note {:?} invalid: {e}; nothing was renamed",
            rename.from, rename.to, note.title
        ))
    })?;
    // Every tag renamed must read back as its new name: `_x_` would be emphasis, and a
    // nested name past 100 characters no tag at all.
    let after = tags::of_note(&title, &body);
    let to = tag_name(&rename.to).unwrap_or_default();
    for old in &note.tags {
        let Some(rest) = old.strip_prefix(rename.from.as_str()) else {
            continue;
        };
        if !(rest.is_empty() || rest.starts_with('/')) {
            continue;
        }
        let new = format!("{to}{rest}");
        if !after.contains(&new) {
            return Err(ApiError::ValidationFailed(format!(
                "renamed, #{old} in the note {:?} would not read as the tag #{new}; \
                 nothing was renamed",
                note.title
            )));
        }
    }
    Ok(Some(Note {
        tags: after,
        title,
        body,
        version: note.version + 1,
        updated_at: now.to_owned(),
        ..note.clone()
    }))
}

impl Operation for RenameTag {
    type Done = TagRenamed;

    fn fingerprint(&self) -> Fingerprint {
        self.rename.fingerprint()
    }

    async fn apply<T: NoteWrites + Send>(
        &self,
        tx: &mut T,
        scope: &str,
        key: &IdempotencyKey,
    ) -> Result<Outcome<TagRenamed>, ApiError> {
        let fingerprint = self.fingerprint();
        if let Some((renamed, by)) = tx.past_rename(scope, key).await? {
            if by != fingerprint {
                return Err(ApiError::IdempotencyKeyReused);
            }
            return Ok(Outcome::late(TagRenamed { renamed }));
        }
        if tx.earlier_write(scope, key, &fingerprint).await?.is_some() {
            // A note's write used this key: never the same request as a rename.
            return Err(ApiError::IdempotencyKeyReused);
        }
        let planned = match &self.plan {
            Plan::Ready(planned) => planned,
            Plan::Refused(why) => return Err(ApiError::ValidationFailed(why.clone())),
            Plan::TooLarge {
                notes,
                chars,
                max_chars,
            } => {
                return Err(ApiError::RenameTooLarge {
                    from: self.rename.from.clone(),
                    notes: *notes,
                    chars: *chars,
                    max_chars: *max_chars,
                });
            }
        };
        let now = timestamp::format(timestamp::now());
        let writing = std::time::Instant::now();
        let mut worked_out_here = 0;
        let mut renamed = 0;
        // Every note tagged now, at the version it is at now: as read before, its text
        // renamed then; changed (or tagged) since, worked out again here.
        for (id, version) in tx.tagged_versions(scope, &self.rename.from).await? {
            let after = match planned.get(&id) {
                Some((read_at, after)) if *read_at == version => after.clone(),
                _ => {
                    worked_out_here += 1;
                    if worked_out_here > WORKED_OUT_IN_THE_WRITE {
                        return Err(ApiError::Busy);
                    }
                    let Some(note) = tx.note(scope, &id).await? else {
                        continue;
                    };
                    renamed_note(&note, &self.rename, &now)?
                }
            };
            let Some(mut after) = after else {
                continue;
            };
            after.version = version + 1;
            after.updated_at.clone_from(&now);
            tx.save_note(
                scope,
                &after,
                NewRevision {
                    version: after.version,
                    kind: RevisionKind::TagRename,
                    key: &revision_key(key, &id),
                    fingerprint: &fingerprint,
                },
            )
            .await?;
            renamed += 1;
        }
        tx.record_rename(scope, key, &fingerprint, renamed, &now)
            .await?;
        tracing::info!(
            from = %self.rename.from,
            to = %self.rename.to,
            renamed,
            worked_out_here,
            write_ms = writing.elapsed().as_millis() as u64,
            "tag renamed"
        );
        Ok(Outcome::now(TagRenamed { renamed }))
    }
}

#[cfg(test)]
#[path = "rename_tests.rs"]
mod tests;
