//! Renaming a tag: every note that has it (or a tag nested under it), in the trash or not,
//! gets the new name written into its text — one revision each (`tag-rename`), all in one
//! transaction, under one key. The rename keeps how many notes it changed past its key's
//! idempotency row, so a retry that comes after that row expired renames nothing again.

use app::api::{Note, RevisionKind, TAGS_PATH, TagRename, TagRenamed, tag_name, validate_draft};

use crate::error::ApiError;
use crate::idempotency::{Fingerprint, IdempotencyKey, Operation, Outcome};
use crate::notes::new_note::written_at;
use crate::storage::{NewRevision, NoteWrites};
use crate::text::tags;
use crate::timestamp;

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

/// Renaming a tag in every note that has it.
pub struct RenameTag(pub ValidRename);

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
        self.0.fingerprint()
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
        let now = timestamp::format(timestamp::now());
        let mut changed = Vec::new();
        for note in tx.tagged(scope, &self.0.from).await? {
            if let Some(after) = renamed_note(&note, &self.0, &now)? {
                changed.push(after);
            }
        }
        for note in &changed {
            tx.save_note(
                scope,
                note,
                NewRevision {
                    version: note.version,
                    kind: RevisionKind::TagRename,
                    key: &revision_key(key, &note.id),
                    fingerprint: &fingerprint,
                },
            )
            .await?;
        }
        let renamed = changed.len() as i64;
        tx.record_rename(scope, key, &fingerprint, renamed, &now)
            .await?;
        tracing::info!(from = %self.0.from, to = %self.0.to, renamed, "tag renamed");
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
