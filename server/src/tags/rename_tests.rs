use std::time::Duration;

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
    async fn is_purged(&mut self, _: &str, _: &str) -> Result<bool, crate::storage::StorageError> {
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
        _turn: None,
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
        _turn: None,
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
        _turn: None,
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

#[tokio::test]
async fn renames_are_prepared_two_at_a_time_and_a_third_waits_then_is_503() {
    let first = turn(Duration::from_secs(1)).await.unwrap();
    let _second = turn(Duration::from_secs(1)).await.unwrap();
    assert!(matches!(
        turn(Duration::from_millis(100)).await,
        Err(ApiError::Busy)
    ));
    drop(first);
    assert!(turn(Duration::from_millis(100)).await.is_ok());
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
