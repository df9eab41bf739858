use super::render;
use crate::text::tags::of_note;

#[path = "../../../tests/api/html_safety.rs"]
mod safety;

use safety::{CORPUS, assert_safe, elements};

/// The `data-line` of every task box, in order (`None` for a box without one).
fn box_lines(html: &str) -> Vec<Option<usize>> {
    elements(html)
        .into_iter()
        .filter(|e| e.name == "input")
        .map(|e| e.attribute("data-line").map(|n| n.parse().unwrap()))
        .collect()
}

#[test]
fn no_body_of_the_script_corpus_renders_anything_that_runs_loads_or_navigates() {
    for (case, body) in CORPUS {
        assert_safe(case, &render(body));
    }
}

#[test]
fn the_safety_check_catches_each_thing_it_looks_for() {
    let unsafe_html = [
        "<script>alert(1)</script>",
        "<p onclick=\"x\">a</p>",
        "<a href=\"&#106;avascript:alert(1)\">x</a>",
        "<a href=\"java&#x09;script:alert(1)\">x</a>",
        "<a href=\" JAVASCRIPT:alert(1)\">x</a>",
        "<a href=\"data:text/html,x\">x</a>",
        "<a href=\"ftp://example.com\">x</a>",
        "<img src=\"https://tracker.example/p.gif\">",
        "<img src=\"/files/../api\">",
        "<p style=\"color:red\">x</p>",
        "<input type=\"text\">",
        "<svg></svg>",
        "<a href=\"/\" target=\"_blank\">x</a>",
    ];
    for html in unsafe_html {
        let caught = std::panic::catch_unwind(|| assert_safe("check", html)).is_err();
        assert!(caught, "the check let {html} pass");
    }
    assert_safe(
        "check",
        "<p><a href=\"https://e.com/?a=1&amp;b=2\" rel=\"x\">y</a></p>",
    );
}

#[test]
fn raw_html_typed_in_a_body_shows_as_text() {
    assert_eq!(render("<b>x</b>"), "<p>&lt;b&gt;x&lt;/b&gt;</p>\n");
    assert_eq!(
        render("say <i>hi</i> now"),
        "<p>say &lt;i&gt;hi&lt;/i&gt; now</p>\n"
    );
}

#[test]
fn a_block_of_raw_html_keeps_its_line_breaks_as_text() {
    assert_eq!(
        render("<div>\nhello\n</div>\n\nafter"),
        "<p>&lt;div&gt;<br>\nhello<br>\n&lt;/div&gt;</p>\n<p>after</p>\n"
    );
}

#[test]
fn a_single_line_break_is_a_line_break() {
    assert_eq!(render("one\ntwo"), "<p>one<br>\ntwo</p>\n");
    assert_eq!(render("one\r\ntwo"), "<p>one<br>\ntwo</p>\n");
    assert_eq!(render("one\n\ntwo"), "<p>one</p>\n<p>two</p>\n");
}

#[test]
fn a_table_renders_as_a_table_without_its_alignment_styles() {
    let html = render("| a | b |\n|:--|--:|\n| 1 | 2 |");
    assert_eq!(
        html,
        "<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody>\n\
         <tr><td>1</td><td>2</td></tr>\n</tbody></table>\n"
    );
}

#[test]
fn strikethrough_emphasis_headings_quotes_rules_and_lists_render() {
    assert_eq!(render("~~gone~~"), "<p><del>gone</del></p>\n");
    assert_eq!(
        render("# Title\n\n> *quoted* **strong**\n\n---\n\n3. three\n4. four"),
        "<h1>Title</h1>\n<blockquote>\n<p><em>quoted</em> <strong>strong</strong></p>\n\
         </blockquote>\n<hr>\n<ol start=\"3\">\n<li>three</li>\n<li>four</li>\n</ol>\n"
    );
}

#[test]
fn a_code_block_keeps_a_plain_language_class_and_nothing_else() {
    assert_eq!(
        render("```rust\nfn main() {}\n```"),
        "<pre><code class=\"language-rust\">fn main() {}\n</code></pre>\n"
    );
    assert_eq!(render("```x\"y\nz\n```"), "<pre><code>z\n</code></pre>\n");
}

#[test]
fn a_task_list_gives_each_box_its_line_and_its_tick() {
    let body = "Shopping\n\n- [ ] milk\n- [x] bread\n  - [X] nested\n\n1. [ ] numbered";
    let html = render(body);
    assert!(
        html.contains(
            "<li class=\"task\"><input type=\"checkbox\" data-line=\"3\" disabled=\"\">\nmilk</li>"
        ),
        "{html}"
    );
    assert!(
        html.contains("<input type=\"checkbox\" data-line=\"4\" disabled=\"\" checked=\"\">"),
        "{html}"
    );
    assert_eq!(box_lines(&html), [Some(3), Some(4), Some(5), Some(7)]);
}

#[test]
fn ticking_the_line_a_box_names_ticks_that_box() {
    let bodies = [
        "- [ ] a\n- [x] b",
        "* [ ] loose\n\n* [x] two\n\n  more",
        "> - [ ] quoted\n> - [x] too",
        "1. [ ] one\n2) [ ] two",
        "text\r\n\r\n- [ ] crlf\r\n- [ ] lines",
        "- a\n  - [ ] deep\n    - [x] deeper",
        "   - [ ] indented\n\t- [x] tab",
    ];
    for body in bodies {
        let html = render(body);
        let lines = box_lines(&html);
        assert!(!lines.is_empty(), "{body:?}");
        for (index, line) in lines.iter().enumerate() {
            let line = line.unwrap_or_else(|| panic!("box {index} of {body:?} has no line"));
            let ticked = app::api::toggle_task(body, line).expect("a task on that line");
            let before = elements(&html);
            let after_html = render(&ticked);
            let after = elements(&after_html);
            let boxes = |els: &[safety::Element]| -> Vec<bool> {
                els.iter()
                    .filter(|e| e.name == "input")
                    .map(|e| e.attribute("checked").is_some())
                    .collect()
            };
            let (was, now) = (boxes(&before), boxes(&after));
            for (other, (a, b)) in was.iter().zip(&now).enumerate() {
                assert_eq!(a != b, other == index, "{body:?}: line {line} box {other}");
            }
        }
    }
}

#[test]
fn a_box_that_ticking_its_line_could_not_reach_has_no_line() {
    // A nested list on its parent's line: `toggle_task` reads the first marker only.
    assert_eq!(box_lines(&render("- - [ ] nested")), [None]);
}

#[test]
fn bare_urls_www_addresses_and_emails_become_links() {
    assert_eq!(
        render("see https://example.com/a_b?x=1&y=2 and www.example.org or me@example.net."),
        "<p>see <a href=\"https://example.com/a_b?x=1&amp;y=2\" rel=\"noopener noreferrer nofollow\">\
         https://example.com/a_b?x=1&amp;y=2</a> and \
         <a href=\"https://www.example.org\" rel=\"noopener noreferrer nofollow\">www.example.org</a> \
         or <a href=\"mailto:me@example.net\" rel=\"noopener noreferrer nofollow\">me@example.net</a>.</p>\n"
    );
}

#[test]
fn a_url_the_parser_cuts_in_pieces_is_one_link() {
    // The parser gives `~`, `[`, `x`, `]` and the decoded `&amp;` as text events apart.
    assert_eq!(
        render("go https://example.com/~me/[x]?a=1&amp;b=2 now"),
        "<p>go <a href=\"https://example.com/~me/%5Bx%5D?a=1&amp;b=2\" \
         rel=\"noopener noreferrer nofollow\">https://example.com/~me/[x]?a=1&amp;b=2</a> now</p>\n"
    );
}

#[test]
fn addresses_in_code_links_and_other_schemes_stay_as_they_are() {
    assert_eq!(
        render("`https://a.example` ftp://b.example javascript:alert(1)"),
        "<p><code>https://a.example</code> ftp://b.example javascript:alert(1)</p>\n"
    );
    assert_eq!(
        render("[site](https://a.example) <https://b.example>"),
        "<p><a href=\"https://a.example\" rel=\"noopener noreferrer nofollow\">site</a> \
         <a href=\"https://b.example\" rel=\"noopener noreferrer nofollow\">https://b.example</a></p>\n"
    );
}

#[test]
fn links_keep_only_safe_schemes_and_never_open_a_new_window() {
    assert_eq!(
        render("[a](javascript:alert(1)) [b](/notes/x) [c](mailto:a@b.example \"t\")"),
        "<p><a rel=\"noopener noreferrer nofollow\">a</a> \
         <a href=\"/notes/x\" rel=\"noopener noreferrer nofollow\">b</a> \
         <a href=\"mailto:a@b.example\" title=\"t\" rel=\"noopener noreferrer nofollow\">c</a></p>\n"
    );
}

#[test]
fn tags_in_text_link_to_their_page_as_written() {
    assert_eq!(
        render("Plan #Work/Réunions and #todo."),
        "<p>Plan <a href=\"/tags/work/r%C3%A9unions\" class=\"tag\" rel=\"noopener noreferrer nofollow\">\
         #Work/Réunions</a> and \
         <a href=\"/tags/todo\" class=\"tag\" rel=\"noopener noreferrer nofollow\">#todo</a>.</p>\n"
    );
}

#[test]
fn a_hash_in_code_a_link_an_image_a_url_or_after_an_escape_is_not_linked() {
    let html = render(
        "`#code` [#linked](https://e.example) ![#alt](/files/a) \
         https://e.example/#frag \\#escaped issue#12",
    );
    assert!(!html.contains("class=\"tag\""), "{html}");
}

#[test]
fn the_tags_linked_are_exactly_the_tags_the_note_carries() {
    let bodies = [
        "#a #b/c `#d` [#e](x) #f",
        "&amp;#g x&#35;h \\#i **#j** *#k*",
        "| #l | #m |\n|---|---|\n| #n | x |",
        "- [ ] #o task\n> #p quoted\n# #q heading",
        "https://x.example/~a/#r #s https://x.example/[#t] www.x.example/?a=#w",
        "<span>#u</span>\n\n<div>\n#v\n</div>",
    ];
    for body in bodies {
        let html = render(body);
        let mut linked: Vec<String> = elements(&html)
            .iter()
            .filter(|e| e.attribute("class") == Some("tag"))
            .map(|e| e.attribute("href").unwrap()["/tags/".len()..].to_owned())
            .collect();
        linked.sort();
        linked.dedup();
        assert_eq!(linked, of_note("", body), "{body:?} → {html}");
    }
}

#[test]
fn images_from_the_persons_files_show_lazily_and_others_become_links() {
    let hash = "ab".repeat(32);
    assert_eq!(
        render(&format!("![a *cat*](/files/{hash} \"t\")")),
        format!("<p><img src=\"/files/{hash}\" alt=\"a cat\" title=\"t\" loading=\"lazy\"></p>\n")
    );
    assert_eq!(
        render("![pixel](https://tracker.example/p.gif)"),
        "<p><a href=\"https://tracker.example/p.gif\" rel=\"noopener noreferrer nofollow\">pixel</a></p>\n"
    );
    assert_eq!(
        render("![](https://tracker.example/p.gif)"),
        "<p><a href=\"https://tracker.example/p.gif\" rel=\"noopener noreferrer nofollow\">\
         https://tracker.example/p.gif</a></p>\n"
    );
    assert_eq!(
        render("[see ![photo](//t.example/p.gif)](https://e.example)"),
        "<p><a href=\"https://e.example\" rel=\"noopener noreferrer nofollow\">see photo</a></p>\n"
    );
}

#[test]
fn a_link_to_one_of_the_persons_files_stays_a_plain_link_and_an_image_keeps_its_alt_text() {
    let hash = "cd".repeat(32);
    // A PDF in a note: a link the browser follows (the file is served as an attachment).
    assert_eq!(
        render(&format!("[the report.pdf](/files/{hash})")),
        format!(
            "<p><a href=\"/files/{hash}\" rel=\"noopener noreferrer nofollow\">the report.pdf</a></p>\n"
        )
    );
    // Its address written out is text, not a link or an image.
    assert_eq!(
        render(&format!("see /files/{hash}")),
        format!("<p>see /files/{hash}</p>\n")
    );
    // An image as the editor writes it: shown lazily, its alt text kept, escaped.
    assert_eq!(
        render(&format!("![whiteboard \"Q3\" <plan>](/files/{hash})")),
        format!(
            "<p><img src=\"/files/{hash}\" alt=\"whiteboard &quot;Q3&quot; &lt;plan&gt;\" loading=\"lazy\"></p>\n"
        )
    );
}

#[test]
fn the_same_body_renders_to_the_same_bytes() {
    let body = "# T\n\n- [ ] a #tag\n- [x] ![i](/files/x) https://e.example\n\n| a |\n|---|\n| b |";
    let first = render(body);
    assert_eq!(render(body), first);
    // Pinned, so a change of output (which would break replays) is seen in review.
    assert_eq!(
        first,
        "<h1>T</h1>\n<ul>\n<li class=\"task\"><input type=\"checkbox\" data-line=\"3\" disabled=\"\">\n\
         a <a href=\"/tags/tag\" class=\"tag\" rel=\"noopener noreferrer nofollow\">#tag</a></li>\n\
         <li class=\"task\"><input type=\"checkbox\" data-line=\"4\" disabled=\"\" checked=\"\">\n\
         <img src=\"/files/x\" alt=\"i\" loading=\"lazy\"> \
         <a href=\"https://e.example\" rel=\"noopener noreferrer nofollow\">https://e.example</a></li>\n\
         </ul>\n<table><thead><tr><th>a</th></tr></thead><tbody>\n<tr><td>b</td></tr>\n</tbody></table>\n"
    );
}

#[test]
fn an_empty_body_renders_to_nothing() {
    assert_eq!(render(""), "");
}

#[test]
fn nesting_deeper_than_the_limit_is_left_out_and_its_text_kept() {
    let html = render(&format!("{} deep", ">".repeat(100)));
    assert_eq!(html.matches("<blockquote>").count(), 32, "{html}");
    assert_eq!(html.matches("</blockquote>").count(), 32, "{html}");
    assert!(html.contains("deep"), "{html}");
    let list = render(&format!("{}[ ] x", "- ".repeat(100)));
    assert_eq!(list.matches("<ul>").count(), 16, "{list}");
    assert!(list.contains('x'), "{list}");
}

#[test]
fn a_table_of_more_cells_than_a_page_can_hold_shows_as_its_source() {
    // 3 KB whose rows the parser pads to 512 columns: 262,144 cells.
    let wide = format!(
        "{}\n{}\n{}",
        "|a".repeat(512),
        "|-".repeat(512),
        "x\n".repeat(512)
    );
    let html = render(&wide);
    assert!(!html.contains("<table"), "{}", &html[..200]);
    assert!(html.len() < 2 * wide.len() + 100, "{} bytes", html.len());
    assert!(html.contains("<pre><code>|a|a"));
    let small = "| a | b |\n|---|---|\n| 1 | 2 |";
    assert!(render(small).contains("<table>"));
}

#[test]
fn a_tag_that_runs_into_an_address_is_linked_apart_from_it_and_no_text_is_written_twice() {
    let html = render("see #todo/https://e.example/x");
    assert!(html.contains(">#todo</a>"), "{html}");
    assert!(html.contains(">https://e.example/x</a>"), "{html}");
    assert_eq!(
        html.matches("https").count(),
        2,
        "href and text once each: {html}"
    );
}
