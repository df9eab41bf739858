//! One note of another app's export made into the request oncenote makes it with: a
//! title that fits, the Markdown with its tags written in, its own times, and the keys
//! that make importing it exactly once.
//!
//! Tags are read from a note's text here (`#tag`), so the other app's labels, notebooks
//! and folders are written at the end of the body as `#tags`, each once (not when the
//! text has it already), and archived notes get `#archived`.

use chrono::{DateTime, SecondsFormat, Utc};
use sha2::{Digest, Sha256};

use app::api::{NewNote, TITLE_MAX_CHARS, TagMapping};
use imports::{ForeignNote, Kind};

use super::tag_names::{TagName, tag_for};
use crate::error::ApiError;
use crate::idempotency::IdempotencyKey;
use crate::notes::create::ImportedTimes;
use crate::notes::new_note::ValidNewNote;
use crate::notes::transfer::export_reader::cut;
use crate::text::tags;

/// The tag an archived note of another app gets (oncenote has no archive; its trash
/// empties itself, so nothing imported goes there).
pub const ARCHIVED_TAG: &str = "archived";
/// The title of a note that had neither a title nor a name.
const UNTITLED: &str = "Untitled";

/// A foreign note, ready to be made.
#[derive(Debug)]
pub struct PreparedNote {
    pub note: ValidNewNote,
    pub times: ImportedTimes,
    pub pinned: bool,
    /// The create's key: the same for the same note of the same export, every time.
    pub key: IdempotencyKey,
    /// The pin's key (pinned notes only).
    pub pin_key: IdempotencyKey,
    /// The other app's names that were changed to be tags.
    pub renamed_tags: Vec<TagMapping>,
}

/// Prepares `note` of an export of `kind`; `now` bounds its times. Fails (422) as a create
/// would when the text cannot be a note (a body too long, say).
pub fn prepare(
    kind: Kind,
    note: &ForeignNote,
    now: DateTime<Utc>,
) -> Result<PreparedNote, ApiError> {
    let title = title_of(note);
    let (tags, renamed_tags) = tags_of(note);
    let body = with_tags(&title, note.body.trim_end(), &tags);
    let times = times_of(note, now);
    let valid = ValidNewNote::parse(NewNote {
        title,
        body,
        written_at: times.updated_at.clone(),
    })?;
    let id = hex::encode(Sha256::digest(note.source_id.as_bytes()));
    let key = IdempotencyKey::parse(&format!("import-{}-{}", kind.as_str(), &id[..40]))?;
    let pin_key = IdempotencyKey::parse(&format!("import-pin-{}-{}", kind.as_str(), &id[..40]))?;
    Ok(PreparedNote {
        note: valid,
        times,
        pinned: note.pinned,
        key,
        pin_key,
        renamed_tags,
    })
}

/// The title, else the name, else "Untitled": on one line, without control characters,
/// cut to the longest title.
fn title_of(note: &ForeignNote) -> String {
    let chosen = [note.title.as_str(), note.name.as_str()]
        .into_iter()
        .map(one_line)
        .find(|t| !t.is_empty())
        .unwrap_or_else(|| UNTITLED.to_owned());
    cut(&chosen, TITLE_MAX_CHARS - 1)
}

fn one_line(text: &str) -> String {
    text.split(|c: char| c.is_control())
        .filter(|part| !part.trim().is_empty())
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The note's tags as oncenote names them (`archived` last if it was), each once, and the
/// names that had to change.
fn tags_of(note: &ForeignNote) -> (Vec<String>, Vec<TagMapping>) {
    let mut tags = Vec::new();
    let mut renamed = Vec::new();
    // A set, not a search of the list for each tag: a note's labels can number hundreds
    // of thousands in a hostile export (they are a few bytes each).
    let mut seen = std::collections::HashSet::new();
    for name in &note.tags {
        let tag = match tag_for(name) {
            TagName::Kept(tag) => tag,
            TagName::Mapped(tag) => {
                renamed.push(TagMapping {
                    from: name.clone(),
                    to: tag.clone(),
                });
                tag
            }
            TagName::Dropped => {
                renamed.push(TagMapping {
                    from: name.clone(),
                    to: String::new(),
                });
                continue;
            }
        };
        if seen.insert(tag.clone()) {
            tags.push(tag);
        }
    }
    if note.archived && !seen.contains(ARCHIVED_TAG) {
        tags.push(ARCHIVED_TAG.to_owned());
    }
    (tags, renamed)
}

/// `body` with a last paragraph of the `tags` its text does not carry yet.
fn with_tags(title: &str, body: &str, tags: &[String]) -> String {
    // Sorted and deduplicated: searched by halves.
    let has = tags::of_note(title, body);
    let missing: Vec<String> = tags
        .iter()
        .filter(|t| has.binary_search(t).is_err())
        .map(|t| format!("#{t}"))
        .collect();
    match (body.is_empty(), missing.is_empty()) {
        (_, true) => body.to_owned(),
        (true, false) => missing.join(" "),
        (false, false) => format!("{body}\n\n{}", missing.join(" ")),
    }
}

/// The note's own times, as the other app gave them, made believable: none ahead of
/// `now`, none before 1970, edited no earlier than made; a missing one is the other.
fn times_of(note: &ForeignNote, now: DateTime<Utc>) -> ImportedTimes {
    let believable = |at: Option<DateTime<Utc>>| at.filter(|t| t.timestamp() >= 0 && *t <= now);
    let created = believable(note.created_at);
    let updated = believable(note.updated_at);
    let created = created.or(updated).unwrap_or(now);
    let updated = updated.unwrap_or(created).max(created);
    let format = |at: DateTime<Utc>| at.to_rfc3339_opts(SecondsFormat::Millis, true);
    ImportedTimes {
        created_at: format(created),
        updated_at: format(updated),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn note() -> ForeignNote {
        ForeignNote {
            source_id: "Keep/Shopping.json".into(),
            name: "Shopping".into(),
            title: "Shopping".into(),
            body: "- [ ] milk".into(),
            tags: vec!["Errands".into(), "Home & Garden".into()],
            ..ForeignNote::default()
        }
    }

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 12, 1, 12, 0, 0).unwrap()
    }

    #[test]
    fn labels_are_written_into_the_body_as_tags_and_renames_are_listed() {
        let prepared = prepare(Kind::Keep, &note(), now()).unwrap();
        assert_eq!(prepared.note.body, "- [ ] milk\n\n#errands #home-garden");
        assert_eq!(
            prepared.renamed_tags,
            vec![TagMapping {
                from: "Home & Garden".into(),
                to: "home-garden".into()
            }]
        );
    }

    #[test]
    fn a_tag_the_text_has_already_is_not_written_twice_and_archived_is_added() {
        let mut note = note();
        note.body = "milk #errands".into();
        note.archived = true;
        let prepared = prepare(Kind::Keep, &note, now()).unwrap();
        assert_eq!(
            prepared.note.body,
            "milk #errands\n\n#home-garden #archived"
        );
    }

    #[test]
    fn the_same_note_gets_the_same_key_and_another_kind_or_note_another() {
        let a = prepare(Kind::Keep, &note(), now()).unwrap();
        let b = prepare(Kind::Keep, &note(), now()).unwrap();
        assert_eq!(a.key, b.key);
        let mut other = note();
        other.source_id = "Keep/Other.json".into();
        assert_ne!(prepare(Kind::Keep, &other, now()).unwrap().key, a.key);
        assert_ne!(prepare(Kind::Evernote, &note(), now()).unwrap().key, a.key);
    }

    #[test]
    fn times_are_kept_and_made_believable() {
        let mut note = note();
        note.created_at = Some(Utc.with_ymd_and_hms(2023, 7, 28, 3, 22, 52).unwrap());
        note.updated_at = Some(Utc.with_ymd_and_hms(2023, 7, 29, 0, 0, 0).unwrap());
        let times = prepare(Kind::Keep, &note, now()).unwrap().times;
        assert_eq!(times.created_at, "2023-07-28T03:22:52.000Z");
        assert_eq!(times.updated_at, "2023-07-29T00:00:00.000Z");
        // Edited before it was made: edited when made. Ahead of now: now.
        note.updated_at = Some(Utc.with_ymd_and_hms(2020, 1, 1, 0, 0, 0).unwrap());
        let times = prepare(Kind::Keep, &note, now()).unwrap().times;
        assert_eq!(times.updated_at, times.created_at);
        note.created_at = Some(Utc.with_ymd_and_hms(2090, 1, 1, 0, 0, 0).unwrap());
        note.updated_at = None;
        let times = prepare(Kind::Keep, &note, now()).unwrap().times;
        assert_eq!(times.created_at, "2026-12-01T12:00:00.000Z");
    }

    #[test]
    fn a_title_is_one_line_cut_to_fit_or_the_name_or_untitled() {
        let mut note = note();
        note.title = "first\nsecond\u{7}".into();
        assert_eq!(
            prepare(Kind::Keep, &note, now()).unwrap().note.title,
            "first second"
        );
        note.title = "x".repeat(500);
        let title = prepare(Kind::Keep, &note, now()).unwrap().note.title;
        assert_eq!(title.chars().count(), TITLE_MAX_CHARS);
        note.title = " ".into();
        assert_eq!(
            prepare(Kind::Keep, &note, now()).unwrap().note.title,
            "Shopping"
        );
        note.name = String::new();
        assert_eq!(
            prepare(Kind::Keep, &note, now()).unwrap().note.title,
            UNTITLED
        );
    }

    #[test]
    fn a_body_too_long_to_be_a_note_is_refused_as_a_create_would() {
        let mut note = note();
        note.body = "x".repeat(app::api::BODY_MAX_CHARS + 1);
        assert!(matches!(
            prepare(Kind::Keep, &note, now()),
            Err(ApiError::ValidationFailed(_))
        ));
    }
}
