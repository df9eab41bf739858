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
    ) -> Result<Self, ApiError> {
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
        Ok(Self { rename, plan })
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
mod tests {
    use super::*;

    fn rename(from: &str, to: &str) -> Result<ValidRename, ApiError> {
        ValidRename::parse(TagRename {
            from: from.into(),
            to: to.into(),
            written_at: "2026-12-01T00:00:00Z".into(),
        })
    }

    fn note(title: &str, body: &str) -> Note {
        Note {
            id: "n".into(),
            title: title.into(),
            body: body.into(),
            written_at: "w".into(),
            created_at: "c".into(),
            updated_at: "u".into(),
            version: 2,
            trashed_at: None,
            conflict_of: None,
            tags: tags::of_note(title, body),
            pinned: true,
            html: None,
        }
    }

    #[test]
    fn a_rename_names_two_tags_and_keeps_how_the_new_one_is_written() {
        let r = rename("#Work", "#Job").unwrap();
        assert_eq!((r.from.as_str(), r.to.as_str()), ("work", "Job"));
        assert!(matches!(
            rename("work", "work"),
            Err(ApiError::ValidationFailed(_))
        ));
        assert!(rename("work", "Work").is_ok(), "a new spelling is a rename");
        assert!(matches!(
            rename("work", "a b"),
            Err(ApiError::ValidationFailed(_))
        ));
        assert!(matches!(
            rename("", "job"),
            Err(ApiError::ValidationFailed(_))
        ));
    }

    #[test]
    fn a_renamed_note_gets_the_new_tag_and_one_more_version() {
        let r = rename("work", "job").unwrap();
        let after = renamed_note(&note("#work", "see #work/x and #play"), &r, "now")
            .unwrap()
            .unwrap();
        assert_eq!(after.title, "#job");
        assert_eq!(after.body, "see #job/x and #play");
        assert_eq!(after.tags, ["job", "job/x", "play"]);
        assert_eq!(after.version, 3);
        assert!(after.pinned);
        assert_eq!(renamed_note(&note("t", "#play"), &r, "now").unwrap(), None);
    }

    #[test]
    fn a_rename_whose_new_name_would_not_read_as_a_tag_is_refused() {
        let emphasis = rename("work", "_x_").unwrap();
        assert!(matches!(
            renamed_note(&note("t", "#work"), &emphasis, "now"),
            Err(ApiError::ValidationFailed(_))
        ));
        let long = rename("w", &"x".repeat(95)).unwrap();
        assert!(matches!(
            renamed_note(&note("t", &format!("#w/{}", "y".repeat(90))), &long, "now"),
            Err(ApiError::ValidationFailed(_))
        ));
        assert!(
            renamed_note(&note("t", "#w/y"), &long, "now")
                .unwrap()
                .is_some()
        );
    }

    /// A person's notes in memory, as a rename's transaction sees them: it counts what
    /// the write reads whole, and keeps what it saves.
    #[derive(Default)]
    struct Notes {
        notes: Vec<Note>,
        read_whole: usize,
        saved: Vec<Note>,
        renames: Vec<i64>,
    }

    impl NoteWrites for Notes {
        async fn insert_note(
            &mut self,
            _: &str,
            _: &IdempotencyKey,
            _: &Fingerprint,
            _: &Note,
        ) -> Result<bool, crate::storage::StorageError> {
            unreachable!("a rename makes no note")
        }
        async fn note_created_by(
            &mut self,
            _: &str,
            _: &IdempotencyKey,
        ) -> Result<Option<(Note, Fingerprint)>, crate::storage::StorageError> {
            Ok(None)
        }
        async fn past_write(
            &mut self,
            _: &str,
            _: &IdempotencyKey,
        ) -> Result<Option<(crate::storage::PastWrite, Fingerprint)>, crate::storage::StorageError>
        {
            Ok(None)
        }
        async fn note(
            &mut self,
            _: &str,
            id: &str,
        ) -> Result<Option<Note>, crate::storage::StorageError> {
            self.read_whole += 1;
            Ok(self.notes.iter().find(|n| n.id == id).cloned())
        }
        async fn revision_at(
            &mut self,
            _: &str,
            _: &str,
            _: i64,
        ) -> Result<Option<app::api::Revision>, crate::storage::StorageError> {
            unreachable!("a rename reads no revision")
        }
        async fn save_note(
            &mut self,
            _: &str,
            note: &Note,
            _: NewRevision<'_>,
        ) -> Result<(), crate::storage::StorageError> {
            self.saved.push(note.clone());
            Ok(())
        }
        async fn is_purged(
            &mut self,
            _: &str,
            _: &str,
        ) -> Result<bool, crate::storage::StorageError> {
            Ok(false)
        }
        async fn purge(
            &mut self,
            _: &str,
            _: &str,
            _: &IdempotencyKey,
            _: &Fingerprint,
            _: &str,
        ) -> Result<(), crate::storage::StorageError> {
            unreachable!("a rename purges nothing")
        }
        async fn tagged_versions(
            &mut self,
            _: &str,
            tag: &str,
        ) -> Result<Vec<(String, i64)>, crate::storage::StorageError> {
            Ok(self
                .notes
                .iter()
                .filter(|n| {
                    n.tags
                        .iter()
                        .any(|t| t == tag || t.starts_with(&format!("{tag}/")))
                })
                .map(|n| (n.id.clone(), n.version))
                .collect())
        }
        async fn past_rename(
            &mut self,
            _: &str,
            _: &IdempotencyKey,
        ) -> Result<Option<(i64, Fingerprint)>, crate::storage::StorageError> {
            Ok(None)
        }
        async fn record_rename(
            &mut self,
            _: &str,
            _: &IdempotencyKey,
            _: &Fingerprint,
            renamed: i64,
            _: &str,
        ) -> Result<(), crate::storage::StorageError> {
            self.renames.push(renamed);
            Ok(())
        }
    }

    fn with_id(id: &str, version: i64, body: &str) -> Note {
        Note {
            id: id.into(),
            version,
            ..note("t", body)
        }
    }

    #[tokio::test]
    async fn the_write_reads_no_note_it_renamed_beforehand_and_works_out_one_changed_since_again() {
        let r = rename("work", "job").unwrap();
        let read = [
            with_id("a", 2, "#work one"),
            with_id("b", 2, "#work two"),
            with_id("c", 2, "#work three"),
        ];
        let prepared = RenameTag {
            plan: plan_of(&read, &r),
            rename: r,
        };
        // Since the rename read them: b was edited, and d was tagged.
        let mut tx = Notes {
            notes: vec![
                read[0].clone(),
                with_id("b", 3, "#work two, edited"),
                read[2].clone(),
                with_id("d", 1, "#work/x four"),
            ],
            ..Notes::default()
        };
        let key = IdempotencyKey::parse("rename-1").unwrap();
        let done = prepared.apply(&mut tx, "scope", &key).await.unwrap();
        assert_eq!(done.done.renamed, 4);
        // Only the two it had not read as they are now were read whole in the write.
        assert_eq!(tx.read_whole, 2);
        let saved: Vec<(&str, i64, &str)> = tx
            .saved
            .iter()
            .map(|n| (n.id.as_str(), n.version, n.body.as_str()))
            .collect();
        assert_eq!(
            saved,
            [
                ("a", 3, "#job one"),
                ("b", 4, "#job two, edited"),
                ("c", 3, "#job three"),
                ("d", 2, "#job/x four"),
            ]
        );
        assert!(
            tx.saved.iter().all(|n| n.updated_at != "u"),
            "stamped when written"
        );
        assert_eq!(tx.renames, [4]);
    }

    #[tokio::test]
    async fn a_rename_whose_notes_changed_by_the_dozen_since_it_read_them_is_503_for_its_retry() {
        let r = rename("work", "job").unwrap();
        let read: Vec<Note> = (0..20)
            .map(|n| with_id(&format!("n{n}"), 1, "#work"))
            .collect();
        let prepared = RenameTag {
            plan: plan_of(&read, &r),
            rename: r,
        };
        let mut tx = Notes {
            notes: read
                .iter()
                .map(|n| Note {
                    version: 2,
                    ..n.clone()
                })
                .collect(),
            ..Notes::default()
        };
        let key = IdempotencyKey::parse("rename-2").unwrap();
        assert!(matches!(
            prepared.apply(&mut tx, "scope", &key).await,
            Err(ApiError::Busy)
        ));
    }

    #[tokio::test]
    async fn past_its_bound_a_rename_is_refused_after_its_key_is_checked() {
        let prepared = RenameTag {
            rename: rename("work", "job").unwrap(),
            plan: Plan::TooLarge {
                notes: 3,
                chars: 1_200,
                max_chars: 1_000,
            },
        };
        let mut tx = Notes::default();
        let key = IdempotencyKey::parse("rename-3").unwrap();
        let refused = prepared.apply(&mut tx, "scope", &key).await;
        assert!(matches!(
            refused,
            Err(ApiError::RenameTooLarge { notes: 3, .. })
        ));
        assert!(tx.saved.is_empty() && tx.renames.is_empty());
    }

    #[test]
    fn a_rename_that_would_make_a_title_too_long_is_refused() {
        let title = format!("#a {}", "x".repeat(196));
        let r = rename("a", "abcdefgh").unwrap();
        assert!(matches!(
            renamed_note(&note(&title, ""), &r, "now"),
            Err(ApiError::ValidationFailed(_))
        ));
    }
}
