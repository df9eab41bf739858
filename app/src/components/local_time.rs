//! A moment, shown in the reader's own time zone. The server renders it in UTC (it does
//! not know the reader's zone) and the browser renders the same text while hydrating, so
//! the two agree; right after, the browser rewrites it in local time.

use leptos::prelude::*;

#[component]
pub fn LocalTime(at: String) -> impl IntoView {
    let text = RwSignal::new(readable_utc(&at));
    #[cfg(feature = "hydrate")]
    {
        let at = at.clone();
        Effect::new(move |_| {
            if let Some(local) = local_text(&at) {
                text.set(local);
            }
        });
    }
    view! { <time datetime=at>{move || text.get()}</time> }
}

/// `2026-11-30T05:00:00.000Z` → `2026-11-30 05:00 UTC`.
pub fn readable_utc(rfc3339: &str) -> String {
    match rfc3339.get(..16) {
        Some(minutes) => format!("{} UTC", minutes.replacen('T', " ", 1)),
        None => rfc3339.to_owned(),
    }
}

#[cfg(feature = "hydrate")]
thread_local! {
    /// The page's one formatter (`Intl.DateTimeFormat`'s bound `format`): a
    /// `toLocaleString` with options builds a formatter of its own at every call (in
    /// Node, 20 calls 2.3 ms against 0.17 ms for one formatter).
    static FORMAT: Option<js_sys::Function> = {
        let options = js_sys::Object::new();
        let set = |key: &str, value: &str| {
            js_sys::Reflect::set(&options, &key.into(), &value.into()).is_ok()
        };
        (set("dateStyle", "medium") && set("timeStyle", "short")).then(|| {
            let locales = js_sys::Array::of1(&"default".into());
            js_sys::Intl::DateTimeFormat::new(&locales, &options).format()
        })
    };
}

/// The browser's own wording of the moment in its time zone ("30 Nov 2026, 06:00").
#[cfg(feature = "hydrate")]
fn local_text(rfc3339: &str) -> Option<String> {
    let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_str(rfc3339));
    if date.get_time().is_nan() {
        return None;
    }
    FORMAT.with(|format| {
        format
            .as_ref()?
            .call1(&wasm_bindgen::JsValue::NULL, &date)
            .ok()?
            .as_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_to_the_minute_in_utc_until_the_browser_knows_its_zone() {
        assert_eq!(
            readable_utc("2026-11-30T05:07:09.123Z"),
            "2026-11-30 05:07 UTC"
        );
        assert_eq!(readable_utc("odd"), "odd");
    }
}
