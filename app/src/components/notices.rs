//! Messages about finished writes: an edit merged or saved as a copy, a note moved to the
//! trash (with Undo), an edit of a note that is in the trash (with Restore).

use leptos::prelude::*;

use crate::door;
use crate::save::intent::IntentKind;
use crate::state::PageState;
use crate::state::notices::{Notice, NoticeAction};

#[component]
pub fn Notices() -> impl IntoView {
    let page = expect_context::<PageState>();
    view! {
        <div class="notices" role="status" aria-live="polite" data-testid="notices">
            <For
                each=move || page.notices.all.get()
                key=|notice| notice.id.clone()
                children=move |notice| view! { <NoticeItem notice /> }
            />
        </div>
    }
}

#[component]
fn NoticeItem(notice: Notice) -> impl IntoView {
    let page = expect_context::<PageState>();
    let id = notice.id.clone();
    let action = notice.action.map(|action| {
        let id = id.clone();
        let (label, act): (&str, Box<dyn Fn() + Send + Sync>) = match action {
            NoticeAction::UndoTrash { note_id, title } => (
                "Undo",
                Box::new(move || door::undo_trash(page, note_id.clone(), title.clone())),
            ),
            NoticeAction::Restore { note_id, title } => (
                "Restore",
                Box::new(move || {
                    door::change_note(
                        page,
                        IntentKind::Restore {
                            note_id: note_id.clone(),
                            title: title.clone(),
                        },
                    )
                }),
            ),
        };
        view! {
            " "
            <button type="button" class="link" on:click=move |_| {
                act();
                page.notices.dismiss(&id);
            }>{label}</button>
        }
    });
    let link = notice
        .link
        .map(|(href, label)| view! { " " <a href=href rel="external">{label}</a> });
    view! {
        <p class="notice-item">
            {notice.text}
            {link}
            {action}
            " "
            <button type="button" class="link dismiss" aria-label="Dismiss this message"
                on:click=move |_| page.notices.dismiss(&id)>"×"</button>
        </p>
    }
}
