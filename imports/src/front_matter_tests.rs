use super::*;
use crate::test_support::samples;

fn at(text: &str) -> Option<DateTime<Utc>> {
    parse_instant(text)
}

#[test]
fn joplin_s_front_matter_gives_title_times_and_a_tag_list() {
    let text = std::fs::read_to_string(samples("joplin").join("full.md")).unwrap();
    let (front, body) = split(&text);
    let front = front.unwrap();
    assert_eq!(front.title.as_deref(), Some("Test Note Title"));
    assert_eq!(front.tags, ["Joplin", "nOte", "pencil"]);
    assert_eq!(front.created, at("2019-05-01 16:54"));
    assert_eq!(front.updated, at("2019-05-01 16:54"));
    assert_eq!(body, "This is the note body\n");
}

#[test]
fn obsidian_s_front_matter_gives_its_tags_and_date_and_leaves_inline_tags() {
    let path = samples("markdown").join("obsidian-importer/frontmatter.md");
    let text = std::fs::read_to_string(path).unwrap();
    let (front, body) = split(&text);
    let front = front.unwrap();
    assert_eq!(front.title.as_deref(), Some("Reading list"));
    assert_eq!(front.tags, ["books"]);
    assert_eq!(front.created, at("2026-01-14"));
    assert_eq!(front.updated, None);
    assert!(body.starts_with("Started *Piranesi* last night. #books #fiction"));
}

#[test]
fn tags_as_a_string_are_split_and_lose_their_hash() {
    let (front, body) =
        split("---\ntags: \"#a, b  #c\"\naliases: [x]\nmodified: 2024-02-03T04:05:06Z\n---\ntext");
    let front = front.unwrap();
    assert_eq!(front.tags, ["a", "b", "c"]);
    assert_eq!(front.updated, at("2024-02-03T04:05:06Z"));
    assert_eq!(body, "text");
}

#[test]
fn text_without_a_closed_valid_block_is_all_body() {
    for text in [
        "no front matter\n---\n",
        "---\nnever closed\n",
        "---\n: [unbalanced\n---\nbody",
        "--- \n",
    ] {
        let (front, body) = split(text);
        assert_eq!(front, None, "{text:?}");
        assert_eq!(body, text);
    }
}

#[test]
fn aliases_are_not_expanded() {
    let mut yaml = String::from("---\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for n in 1..40 {
        let p = n - 1;
        yaml.push_str(&format!(
            "a{n}: &a{n} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    yaml.push_str("title: Laughs\ntags: *a39\n---\nbody");
    let (front, body) = split(&yaml);
    let front = front.unwrap();
    assert_eq!(front.title.as_deref(), Some("Laughs"));
    assert!(front.tags.is_empty());
    assert_eq!(body, "body");
}

#[test]
fn front_matter_of_unknown_keys_is_taken_out_and_says_nothing() {
    let (front, body) = split("---\nFoo: bar\n---\n\nNote with frontmatter.\n");
    assert_eq!(front, Some(FrontMatter::default()));
    assert_eq!(body, "Note with frontmatter.\n");
}

#[test]
fn a_front_matter_of_thousands_of_tag_keys_is_read_in_one_pass() {
    // YAML takes a key again and again: 64 KiB of `tag:` lines is some 6,500 keys.
    let mut text = String::from("---\n");
    let mut n = 0;
    while text.len() < 60 * 1024 {
        text.push_str(&format!("tag: t{n}\n"));
        n += 1;
    }
    text.push_str("tags: [t0, extra]\n---\nbody");
    let started = std::time::Instant::now();
    let (front, body) = split(&text);
    let front = front.unwrap();
    assert_eq!(body, "body");
    assert_eq!(front.tags.len(), n + 1, "each once, `t0` not twice");
    assert_eq!(front.tags.last().map(String::as_str), Some("extra"));
    // Made again at each key it took seconds even optimised; once, milliseconds.
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
}
