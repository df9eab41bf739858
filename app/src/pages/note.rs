//! `/notes/{id}`: one note in full (its Markdown rendered, with task boxes to tick, or its
//! plain text with line breaks kept), its tags, when it was written and last changed, and
//! what can be done with it — edit, pin, move to the trash (with Undo), restore or delete
//! for good from the trash, its history. Its unsaved changes are listed under
//! it with their state. It follows other devices' writes: the newer version shows at once
//! while the editor is closed; while it is open, the page only says the note changed.

use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};

use super::NoSuchNote;
use crate::api::{BODY_MAX_CHARS, Note, TITLE_MAX_CHARS};
use crate::components::attachments::Attachments;
use crate::components::compose::Counter;
use crate::components::local_time::LocalTime;
use crate::components::note_body::NoteBody;
use crate::components::notices::Notices;
use crate::components::pin_button::{PinButton, shows_pinned};
use crate::components::status_line::StatusLine;
use crate::components::tag_chips::TagChips;
use crate::components::unsaved_list::PendingItem;
use crate::data;
use crate::door;
use crate::save::intent::IntentKind;
use crate::state::PageState;
use crate::state::notices::{Notice, NoticeAction};

#[component]
pub fn NotePage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.with(|p| p.get("id").unwrap_or_default());
    let note = Resource::new(id, data::note);
    view! {
        <StatusLine />
        <Notices />
        <Transition fallback=|| view! { <p class="muted">"Loading the note…"</p> }>
            {move || Suspend::new(async move {
                match note.await {
                    Ok(Some(note)) => view! { <NoteView note /> }.into_any(),
                    Ok(None) => view! { <NoSuchNote /> }.into_any(),
                    Err(error) => view! { <p class="error">{error}</p> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn NoteView(note: Note) -> impl IntoView {
    let page = expect_context::<PageState>();
    let (queue, known_notes, feed) = (page.queue, page.notes, page.feed);
    let id = note.id.clone();
    let gone_id = id.clone();
    // The note as the latest answer left it (an edit or a move made during this visit).
    let shown = {
        let id = id.clone();
        Memo::new(move |_| match known_notes.latest(&id) {
            Some(newer) if newer.version > note.version => newer,
            _ => note.clone(),
        })
    };
    let gone = {
        let id = id.clone();
        Memo::new(move |_| known_notes.is_gone(&id))
    };
    let pending = {
        let id = id.clone();
        Memo::new(move |_| {
            queue
                .pending_for(&id)
                .into_iter()
                .map(|i| i.key)
                .collect::<Vec<_>>()
        })
    };
    let editing = RwSignal::new(false);
    let editor_id = id.clone();
    let query = use_query_map();
    // After hydration: a refused edit to change (`?edit=<key>`, from the unsaved list), or
    // an edit this tab was in the middle of before a reload, opens the editor again.
    Effect::new(move |_| {
        let refused = query.with_untracked(|q| q.get("edit"));
        let reopened = door::open_note_editor(page, &shown.get_untracked(), true);
        if let Some(key) = refused {
            door::edit(page, &key);
            editing.set(true);
        } else if reopened {
            editing.set(true);
        }
    });
    view! {
        <article class="note-page" aria-labelledby="note-title">
            {move || gone.get().then(|| {
                let text = if feed.purged(&gone_id) {
                    "This note was deleted for good on another device."
                } else {
                    "This note was deleted for good."
                };
                view! { <p class="banner" data-testid="note-gone">{text}</p> }
            })}
            {move || shown.get().trashed_at.map(|at| view! { <TrashBanner note=shown.get() at /> })}
            <Show
                when=move || !editing.get()
                fallback=move || view! { <NoteEditorForm editing note_id=editor_id.clone() /> }
            >
                {move || {
                    let note = shown.get();
                    view! { <NoteText note /> }
                }}
                <div class="note-actions">
                    <button type="button" on:click=move |_| {
                        if door::open_note_editor(page, &shown.get_untracked(), false) {
                            editing.set(true);
                        }
                    }>"Edit"</button>
                    <PinButton note=shown />
                    <TrashButton note=shown />
                    <a href=format!("/notes/{id}/history") rel="external">"History"</a>
                </div>
            </Show>
            <Show when=move || pending.with(|p| !p.is_empty())>
                <h3 class="pending-heading">"Not yet saved"</h3>
                <ul class="notes" data-testid="pending-for-note">
                    <For each=move || pending.get() key=|key| key.clone() children=|id| view! { <PendingItem id /> } />
                </ul>
            </Show>
        </article>
    }
}

/// Title (and whether it is pinned), times, version, tags and body.
#[component]
fn NoteText(note: Note) -> impl IntoView {
    let page = expect_context::<PageState>();
    let pinned = {
        let note = note.clone();
        move || shows_pinned(page, &note)
    };
    let copy_of = note.conflict_of.clone().map(|original| {
        view! {
            <p class="meta">"A conflict copy of " <a href=format!("/notes/{original}") rel="external">"another note"</a></p>
        }
    });
    view! {
        <h2 id="note-title" class="note-heading">
            {note.title.clone()}
            <Show when=pinned>" " <span class="pin-mark">"Pinned"</span></Show>
        </h2>
        <p class="meta">
            "Written " <LocalTime at=note.written_at.clone() />
            " · last changed " <LocalTime at=note.updated_at.clone() />
            " · version " {note.version}
        </p>
        {copy_of}
        <TagChips tags=note.tags.clone() />
        <NoteBody note />
    }
}

/// Moves the note to the trash, with Undo right after.
#[component]
fn TrashButton(note: Memo<Note>) -> impl IntoView {
    let page = expect_context::<PageState>();
    let in_trash = move || note.with(|n| n.trashed_at.is_some());
    let trash = move |_| {
        let note = note.get_untracked();
        door::change_note(
            page,
            IntentKind::Trash {
                note_id: note.id.clone(),
                title: note.title.clone(),
            },
        );
        page.notices.notify(Notice {
            id: format!("trash-{}", note.id),
            text: format!("“{}” is moving to the trash.", note.title),
            link: None,
            action: Some(NoticeAction::UndoTrash {
                note_id: note.id.clone(),
                title: note.title.clone(),
            }),
        });
    };
    view! {
        <Show when=move || !in_trash()>
            <button type="button" on:click=trash>"Move to trash"</button>
        </Show>
    }
}

/// Shown while the note is in the trash: Restore, or Delete for good (asked twice).
#[component]
fn TrashBanner(note: Note, at: String) -> impl IntoView {
    let page = expect_context::<PageState>();
    let (restore_note, purge_note) = (note.clone(), note);
    view! {
        <div class="banner trash-banner">
            <p>"In the trash since " <LocalTime at /> "."</p>
            <button type="button" on:click=move |_| door::change_note(page, IntentKind::Restore {
                note_id: restore_note.id.clone(),
                title: restore_note.title.clone(),
            })>"Restore"</button>
            " "
            <DeleteForGood note=purge_note />
        </div>
    }
}

/// "Delete for good", then "Really delete?" with the button that does it.
#[component]
pub fn DeleteForGood(note: Note) -> impl IntoView {
    let page = expect_context::<PageState>();
    let asking = RwSignal::new(false);
    view! {
        <Show
            when=move || asking.get()
            fallback=move || view! {
                <button type="button" class="danger" on:click=move |_| asking.set(true)>"Delete for good"</button>
            }
        >
            {
                let note = note.clone();
                view! {
                    <span class="confirm" role="group" aria-label="Confirm deleting for good">
                        "Delete for good? This cannot be undone. "
                        <button type="button" class="danger" on:click=move |_| {
                            door::change_note(page, IntentKind::Purge {
                                note_id: note.id.clone(),
                                title: note.title.clone(),
                            });
                            asking.set(false);
                        }>"Yes, delete it"</button>
                        " "
                        <button type="button" class="link" on:click=move |_| asking.set(false)>"Keep it"</button>
                    </span>
                }
            }
        </Show>
    }
}

/// The edit form: title and body as they are, Save or Cancel. A newer version written on
/// another device never replaces what is typed: the form says so, and Save sends the
/// version the edit started from, so the server merges the two.
#[component]
fn NoteEditorForm(editing: RwSignal<bool>, note_id: String) -> impl IntoView {
    let page = expect_context::<PageState>();
    let editor = page.note_editor;
    let changed_elsewhere = move || page.feed.changed_after(&note_id, editor.base_version.get());
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        door::press_save(page, editor);
        if editor.notice.with_untracked(Option::is_none) {
            editing.set(false);
        }
    };
    let title_chars = move || editor.title.with(|t| t.trim().chars().count());
    let body_chars = move || editor.body.with(|b| b.chars().count());
    view! {
        <form class="compose edit" on:submit=on_submit aria-label="Edit the note">
            <Show when=changed_elsewhere>
                <p class="banner" role="status" data-testid="changed-elsewhere">
                    "This note changed on another device — saving merges your edit with it."
                </p>
            </Show>
            <label for="edit-title">"Title"</label>
            <input id="edit-title" type="text" autocomplete="off" aria-describedby="edit-title-count" bind:value=editor.title />
            <Counter id="edit-title-count" count=Signal::derive(title_chars) max=TITLE_MAX_CHARS />
            <label for="edit-body">"Body"</label>
            <textarea
                id="edit-body"
                rows="12"
                aria-describedby="edit-body-count"
                bind:value=editor.body
                on:paste=move |ev| door::attach_pasted(page, editor, "edit-body", ev)
                on:drop=move |ev| door::attach_dropped(page, editor, "edit-body", ev)
            ></textarea>
            <Counter id="edit-body-count" count=Signal::derive(body_chars) max=BODY_MAX_CHARS />
            <Attachments editor textarea="edit-body" input="edit-attach" />
            <div class="actions">
                <button type="submit">"Save"</button>
                <button type="button" class="link" on:click=move |_| {
                    door::close_note_editor(page);
                    editing.set(false);
                }>"Cancel"</button>
                <p class="notice" role="alert" data-testid="edit-notice">{move || editor.notice.get()}</p>
            </div>
        </form>
    }
}
