//! A note's body on its page: the Markdown the server rendered (and sanitized) when the
//! note came with it, else the plain text with its line breaks. Once the page is live its
//! task boxes can be ticked — each tick an edit of that one line (`door::tick_task`) —
//! and each box shows as the latest unsent edit leaves it, so a tick waiting to be sent
//! (offline, or behind a lost answer) stays as the person left it. Without JavaScript the
//! boxes stay disabled, as the server rendered them: nothing that cannot be saved looks
//! clickable. Its links (a tag's page) load their page from the server, like every link.

use leptos::html::Div;
use leptos::prelude::*;

use crate::api::Note;
use crate::door;
use crate::state::PageState;

#[component]
pub fn NoteBody(note: Note) -> impl IntoView {
    let Some(html) = note.html.clone() else {
        return view! { <div class="note-body" data-testid="note-body">{note.body}</div> }
            .into_any();
    };
    let page = expect_context::<PageState>();
    let container = NodeRef::<Div>::new();
    let shown = note.clone();
    Effect::new(move |_| {
        // Runs again when an edit of this note is queued, sent or refused.
        let unsent = page.queue.latest_unsent_edit(&shown.id);
        if let Some(container) = container.get() {
            live::links_load_pages(&container);
            live::enable_boxes(&container, &shown, unsent.as_ref());
        }
    });
    let on_change = move |event: leptos::ev::Event| {
        if let Some((line, checked)) = live::ticked_box(&event) {
            door::tick_task(page, note.clone(), line, checked);
        }
    };
    view! {
        <div class="note-body markdown" data-testid="note-body" node_ref=container inner_html=html on:change=on_change></div>
    }
    .into_any()
}

/// The boxes in the browser.
#[cfg(feature = "hydrate")]
mod live {
    use wasm_bindgen::JsCast;
    use web_sys::{Element, HtmlInputElement};

    use crate::api::Note;
    use crate::save::intent::SaveIntent;
    use crate::save::tick::{Shown, Unsent, shown_ticked};

    /// The task boxes the renderer marked with their line.
    const BOXES: &str = "input[type=checkbox][data-line]";

    fn line_of(input: &HtmlInputElement) -> Option<usize> {
        input.get_attribute("data-line")?.parse().ok()
    }

    /// The box that changed, its line and whether it is ticked now.
    pub fn ticked_box(event: &leptos::ev::Event) -> Option<(usize, bool)> {
        let input = event.target()?.dyn_into::<HtmlInputElement>().ok()?;
        Some((line_of(&input)?, input.checked()))
    }

    /// Every link in the body loads its page from the server, as every link of the app
    /// does (`rel="external"`): the router would otherwise render a tag's page in the
    /// browser, which has no data of its own.
    pub fn links_load_pages(container: &Element) {
        let Ok(links) = container.query_selector_all("a[href]") else {
            return;
        };
        for i in 0..links.length() {
            let Some(link) = links.item(i).and_then(|n| n.dyn_into::<Element>().ok()) else {
                continue;
            };
            let rel = link.get_attribute("rel").unwrap_or_default();
            if !rel.split_whitespace().any(|r| r == "external") {
                let _ = link.set_attribute("rel", format!("{rel} external").trim_start());
            }
        }
    }

    /// Enables every box whose line holds a task in the note's text (one the text does
    /// not agree with stays disabled: a tick of it could not be saved), ticked as the
    /// latest unsent edit leaves it, and named by its item's text.
    pub fn enable_boxes(container: &Element, note: &Note, unsent: Option<&SaveIntent>) {
        let Ok(boxes) = container.query_selector_all(BOXES) else {
            return;
        };
        let shown = Shown {
            title: &note.title,
            body: &note.body,
        };
        let unsent = unsent.map(|intent| {
            let (title, body) = intent.text();
            Unsent {
                key: &intent.key,
                title,
                body,
            }
        });
        for i in 0..boxes.length() {
            let Some(input) = boxes
                .item(i)
                .and_then(|node| node.dyn_into::<HtmlInputElement>().ok())
            else {
                continue;
            };
            let Some(ticked) = line_of(&input).and_then(|line| shown_ticked(shown, unsent, line))
            else {
                continue;
            };
            input.set_checked(ticked);
            input.set_disabled(false);
            name_box(&input);
        }
    }

    /// A box the renderer did not put in a `<label>` is named by its item's text, so a
    /// screen reader says what it ticks.
    fn name_box(input: &HtmlInputElement) {
        if input.has_attribute("aria-label") || input.closest("label").ok().flatten().is_some() {
            return;
        }
        let Some(item) = input.closest("li").ok().flatten() else {
            return;
        };
        // The item's own text, without the items of a list nested in it.
        let parts = item.child_nodes();
        let mut text = String::new();
        for i in 0..parts.length() {
            let Some(part) = parts.item(i) else { continue };
            if matches!(part.node_name().as_str(), "UL" | "OL") {
                continue;
            }
            text.push_str(&part.text_content().unwrap_or_default());
            text.push(' ');
        }
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if !text.is_empty() {
            let _ = input.set_attribute("aria-label", &text);
        }
    }
}

/// Without a browser there are no boxes to enable and no ticks.
#[cfg(not(feature = "hydrate"))]
mod live {
    use crate::api::Note;
    use crate::save::intent::SaveIntent;

    pub fn ticked_box(_event: &leptos::ev::Event) -> Option<(usize, bool)> {
        None
    }

    pub fn links_load_pages<E>(_container: &E) {}

    pub fn enable_boxes<E>(_container: &E, _note: &Note, _unsent: Option<&SaveIntent>) {}
}
