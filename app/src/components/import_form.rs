//! The account page's import: choose an export (oncenote's, or Google Keep's, Evernote's,
//! Standard Notes', Joplin's, a zip of Markdown files), watch it go in, read what came in
//! and what did not. Needs JavaScript.

use leptos::prelude::*;

use crate::api::{ImportProblem, ImportReport};
use crate::door;
use crate::state::import::{ImportStage, summary};

/// The import control and its progress.
#[component]
pub fn ImportForm() -> impl IntoView {
    let stage = RwSignal::new(ImportStage::Idle);
    let on_change = move |ev: leptos::ev::Event| door::import_file(ev, stage);
    let busy = move || {
        matches!(
            stage.get(),
            ImportStage::Sending { .. } | ImportStage::Reading(_)
        )
    };
    view! {
        <h3>"Bring your notes in"</h3>
        <p class="muted" id="import-kinds">
            "An export of oncenote, a Google Takeout of Keep (zip), an Evernote .enex, a Standard Notes "
            "decrypted backup, a Joplin .jex, or a zip of Markdown files (an Obsidian vault). "
            "Importing the same file again adds nothing, and finishes an import that was cut short."
        </p>
        <div class="compose import">
            <label for="import-file">"Import a file"</label>
            <input id="import-file" type="file" aria-describedby="import-kinds" on:change=on_change prop:disabled=busy />
            {move || progress(&stage.get())}
        </div>
        <div role="status" class="import-result">{move || outcome(stage.get())}</div>
    }
}

/// The bar and its words while the import runs (not announced at every step: the result
/// is).
fn progress(stage: &ImportStage) -> Option<AnyView> {
    match stage {
        ImportStage::Sending { loaded, total } => {
            let percent = if *total > 0.0 {
                (loaded / total * 100.0).round()
            } else {
                0.0
            };
            Some(
                view! {
                    <div class="import-progress">
                        <progress max="100" value=percent aria-label="Sending the file"></progress>
                        <p class="muted">{format!("Sending the file: {percent}%")}</p>
                    </div>
                }
                .into_any(),
            )
        }
        ImportStage::Reading(p) => Some(
            view! {
                <div class="import-progress">
                    <progress aria-label="Importing"></progress>
                    <p class="muted">{format!(
                        "Importing: {} {} and {} {} read so far…",
                        p.notes,
                        if p.notes == 1 { "note" } else { "notes" },
                        p.files,
                        if p.files == 1 { "file" } else { "files" },
                    )}</p>
                </div>
            }
            .into_any(),
        ),
        _ => None,
    }
}

/// What came in, or why it stopped.
fn outcome(stage: ImportStage) -> Option<AnyView> {
    match stage {
        ImportStage::Done(report) => Some(report_view(report).into_any()),
        ImportStage::Failed(why) => Some(view! { <p class="notice-item">{why}</p> }.into_any()),
        _ => None,
    }
}

fn report_view(report: ImportReport) -> impl IntoView {
    let sentence = summary(&report);
    let skipped = (!report.skipped_notes.is_empty()).then(|| {
        let more = report.skipped.saturating_sub(report.skipped_notes.len());
        view! {
            <details>
                <summary>{format!("Skipped ({})", report.skipped)}</summary>
                {problems(report.skipped_notes)}
                {(more > 0).then(|| view! { <p class="muted">{format!("…and {more} more.")}</p> })}
            </details>
        }
    });
    let failed = (!report.failed.is_empty()).then(|| {
        view! {
            <details open>
                <summary>{format!("Not imported ({})", report.failed.len())}</summary>
                {problems(report.failed)}
            </details>
        }
    });
    let renamed = (!report.tags_renamed.is_empty()).then(|| {
        view! {
            <details>
                <summary>{format!("Tags renamed ({})", report.tags_renamed.len())}</summary>
                <ul class="import-list">
                    {report.tags_renamed.into_iter().map(|m| {
                        let to = if m.to.is_empty() { "(left out: nothing in it can be a tag)".to_owned() } else { format!("#{}", m.to) };
                        view! { <li>{m.from}" → "{to}</li> }
                    }).collect_view()}
                </ul>
            </details>
        }
    });
    view! {
        <p><strong>{sentence}</strong></p>
        {skipped}
        {failed}
        {renamed}
    }
}

fn problems(list: Vec<ImportProblem>) -> impl IntoView {
    view! {
        <ul class="import-list">
            {list.into_iter().map(|p| view! { <li><strong>{p.name}</strong>": "{p.reason}</li> }).collect_view()}
        </ul>
    }
}
