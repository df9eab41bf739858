//! The account page's files: how much room they take against the quota ("12.3 MiB of
//! 1 GiB used by 3 files", each file counting as at least 4 KiB) and each file — its
//! short name (the start of its SHA-256) linked to it, size, type and when it was stored.
//! Read from `GET /api/files` once the page has hydrated, 50 at a time (*More files* adds
//! the next 50): the page itself is rendered without them.

use leptos::prelude::*;

use crate::api::{FILE_MIN_CHARGE_BYTES, FileInfo, FileList, file_href};
use crate::components::local_time::LocalTime;
use crate::door;

/// The files section of `/account`.
#[component]
pub fn AccountFiles() -> impl IntoView {
    let list = RwSignal::new(None::<Result<FileList, String>>);
    let more_failed = RwSignal::new(None::<String>);
    Effect::new(move |_| door::load_files(list));
    view! {
        <h3>"Your files"</h3>
        <div data-testid="account-files">
            {move || match list.get() {
                None => view! { <p class="muted">"Reading your files…"</p> }.into_any(),
                Some(Err(why)) => view! { <p class="muted">{why}</p> }.into_any(),
                Some(Ok(shown)) => view! { <FileTable shown list more_failed /> }.into_any(),
            }}
        </div>
    }
}

/// The files read so far (`shown`, a copy of what `list` holds), and More while the
/// server has more.
#[component]
fn FileTable(
    shown: FileList,
    list: RwSignal<Option<Result<FileList, String>>>,
    more_failed: RwSignal<Option<String>>,
) -> impl IntoView {
    let count = shown.file_count;
    let usage = format!(
        "{} of {} used by {} file{}.",
        size_text(shown.used_bytes),
        size_text(shown.quota_bytes),
        count,
        if count == 1 { "" } else { "s" }
    );
    let minimum = format!(
        "Each file counts as at least {}.",
        size_text(FILE_MIN_CHARGE_BYTES)
    );
    let rows = shown
        .files
        .into_iter()
        .map(|file| view! { <FileRow file /> })
        .collect_view();
    let more = shown.next.map(|cursor| {
        view! {
            <p class="pager">
                <button type="button" on:click=move |_| {
                    door::load_more_files(list, cursor.clone(), more_failed)
                }>"More files"</button>
            </p>
        }
    });
    view! {
        <p data-testid="files-usage">{usage}</p>
        <p class="muted">{minimum}</p>
        <table class="files">
            <thead>
                <tr><th scope="col">"File"</th><th scope="col">"Size"</th><th scope="col">"Type"</th><th scope="col">"Stored"</th></tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
        {more}
        {move || more_failed.get().map(|why| view! { <p class="error" role="alert">{why}</p> })}
    }
}

#[component]
fn FileRow(file: FileInfo) -> impl IntoView {
    let short = file.sha256.chars().take(12).collect::<String>();
    view! {
        <tr>
            <td><a href=file_href(&file.sha256) rel="external"><code>{short}</code></a></td>
            <td>{size_text(file.size)}</td>
            <td>{file.content_type}</td>
            <td><LocalTime at=file.created_at /></td>
        </tr>
    }
}

/// A size in bytes as people read it, in the units the limits are set in: "512 bytes",
/// "12.3 MiB", "1 GiB" (powers of 1024, one decimal, none when it is zero).
pub fn size_text(bytes: u64) -> String {
    const UNITS: [(&str, f64); 4] = [
        ("TiB", 1_099_511_627_776.0),
        ("GiB", 1_073_741_824.0),
        ("MiB", 1_048_576.0),
        ("KiB", 1_024.0),
    ];
    for (unit, size) in UNITS {
        if bytes as f64 >= size {
            let value = (bytes as f64 / size * 10.0).round() / 10.0;
            let text = format!("{value:.1}");
            return format!("{} {unit}", text.trim_end_matches(".0"));
        }
    }
    if bytes == 1 {
        "1 byte".into()
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_in_the_largest_unit_with_one_decimal_at_most() {
        assert_eq!(size_text(0), "0 bytes");
        assert_eq!(size_text(1), "1 byte");
        assert_eq!(size_text(999), "999 bytes");
        assert_eq!(size_text(1_023), "1023 bytes");
        assert_eq!(size_text(1_024), "1 KiB");
        assert_eq!(size_text(12_345_678), "11.8 MiB");
        assert_eq!(size_text(26_214_400), "25 MiB");
        assert_eq!(size_text(1_073_741_824), "1 GiB");
    }
}
