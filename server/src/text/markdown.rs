//! A note's body as HTML (PROTOCOL.md v3, Markdown): read as CommonMark with GFM tables,
//! task lists and strikethrough, bare URLs made links, a single line break kept as one,
//! then cleaned by an allowlist.
//!
//! Two walls, each enough alone for what it guards:
//! 1. `events` decides what the body means: raw HTML typed in a body becomes text, images
//!    from anywhere but the person's own files become links, task boxes carry their line,
//!    `#tags` and bare URLs become links. Nothing the person typed reaches the HTML as
//!    markup; only pulldown-cmark's own writer and the few tags written here do.
//! 2. `allowlist` (ammonia) parses that HTML as a browser would and keeps only the
//!    elements, attributes and URL schemes listed there — so a mistake in the first wall
//!    still cannot run script, load style, frame, submit or navigate by itself.
//!
//! The answer is a pure function of the body (no clock, no hash order), because write
//! answers carrying it are stored with their key and replayed byte for byte.

mod allowlist;
mod events;
mod runs;
#[cfg(test)]
mod tests;

/// The body rendered as Markdown and sanitized: the `html` of a note.
pub fn render(body: &str) -> String {
    let mut html = String::with_capacity(body.len() + body.len() / 2);
    pulldown_cmark::html::push_html(&mut html, events::rendered(body).into_iter());
    allowlist::cleaner().clean(&html).to_string()
}
