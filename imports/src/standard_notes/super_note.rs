//! A Super note (Standard Notes' block editor, Lexical underneath) stores the editor's
//! state as JSON: `{"root":{"children":[…]}}`. Its blocks become Markdown; what has no
//! Markdown (colours, alignment) is left out, its text kept. serde_json stops at 128
//! levels of nesting, so walking the tree recursively is bounded.

use serde_json::Value;

/// The Markdown for a Super note's `text`, or `None` if it is not the editor's JSON.
pub(super) fn to_markdown(text: &str) -> Option<String> {
    let state: Value = serde_json::from_str(text).ok()?;
    let root = state.get("root")?;
    let mut blocks = Vec::new();
    for child in children(root) {
        block(child, &mut blocks);
    }
    Some(blocks.join("\n\n"))
}

fn children(node: &Value) -> impl Iterator<Item = &Value> {
    node.get("children")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn kind(node: &Value) -> &str {
    node.get("type").and_then(Value::as_str).unwrap_or_default()
}

/// Appends the Markdown of a block node to `blocks`.
fn block(node: &Value, blocks: &mut Vec<String>) {
    match kind(node) {
        "heading" => {
            let level = node
                .get("tag")
                .and_then(Value::as_str)
                .and_then(|t| t.strip_prefix('h'))
                .and_then(|n| n.parse::<usize>().ok())
                .unwrap_or(1)
                .clamp(1, 6);
            blocks.push(format!("{} {}", "#".repeat(level), inline(node)));
        }
        "quote" => {
            let text = inline(node);
            let quoted: Vec<String> = text.lines().map(|l| format!("> {l}")).collect();
            blocks.push(quoted.join("\n"));
        }
        "list" => {
            let mut lines = Vec::new();
            list(node, 0, &mut lines);
            blocks.push(lines.join("\n"));
        }
        "code" => {
            let code = inline_plain(node);
            let language = node
                .get("language")
                .and_then(Value::as_str)
                .unwrap_or_default();
            blocks.push(format!("```{language}\n{code}\n```"));
        }
        "horizontalrule" => blocks.push("---".into()),
        "table" => blocks.push(table(node)),
        "paragraph" => {
            let text = inline(node);
            if !text.trim().is_empty() {
                blocks.push(text);
            }
        }
        _ if node.get("text").is_some() => blocks.push(inline_node(node)),
        _ => {
            for child in children(node) {
                block(child, blocks);
            }
        }
    }
}

/// A list's items, indented two spaces per level; nested lists sit in an item.
fn list(node: &Value, depth: usize, lines: &mut Vec<String>) {
    let list_type = node
        .get("listType")
        .and_then(Value::as_str)
        .unwrap_or("bullet");
    let mut number = node.get("start").and_then(Value::as_u64).unwrap_or(1);
    for item in children(node) {
        let nested: Vec<&Value> = children(item).filter(|c| kind(c) == "list").collect();
        let text = inline(item);
        if !(nested.len() == children(item).count() && text.trim().is_empty()) {
            let marker = match list_type {
                "number" => {
                    let m = format!("{number}.");
                    number += 1;
                    m
                }
                "check" => {
                    let checked = item.get("checked").and_then(Value::as_bool) == Some(true);
                    if checked { "- [x]" } else { "- [ ]" }.to_owned()
                }
                _ => "-".to_owned(),
            };
            lines.push(format!("{}{marker} {text}", "  ".repeat(depth)));
        }
        for sub in nested {
            list(sub, depth + 1, lines);
        }
    }
}

/// A table as GFM, its first row the header.
fn table(node: &Value) -> String {
    let mut lines = Vec::new();
    for (i, row) in children(node).enumerate() {
        let cells: Vec<String> = children(row)
            .map(|cell| inline_cell(cell).replace('|', "\\|"))
            .collect();
        lines.push(format!("| {} |", cells.join(" | ")));
        if i == 0 {
            lines.push(format!("|{}", " --- |".repeat(cells.len().max(1))));
        }
    }
    lines.join("\n")
}

/// A cell's blocks on one line.
fn inline_cell(cell: &Value) -> String {
    let parts: Vec<String> = children(cell).map(inline).collect();
    parts.join(" ").replace('\n', " ")
}

/// The inline Markdown of a node's children (text, links, line breaks), nested lists
/// left to [`list`].
fn inline(node: &Value) -> String {
    children(node)
        .filter(|c| kind(c) != "list")
        .map(inline_node)
        .collect()
}

fn inline_node(node: &Value) -> String {
    match kind(node) {
        "linebreak" => "\n".into(),
        "tab" => "\t".into(),
        "link" | "autolink" => {
            let url = node.get("url").and_then(Value::as_str).unwrap_or_default();
            format!("[{}]({url})", inline(node))
        }
        _ => match node.get("text").and_then(Value::as_str) {
            Some(text) => formatted(
                text,
                node.get("format").and_then(Value::as_u64).unwrap_or(0),
            ),
            None => inline(node),
        },
    }
}

/// Lexical's format bits: 1 bold, 2 italic, 4 strikethrough, 16 code.
fn formatted(text: &str, format: u64) -> String {
    if text.trim().is_empty() {
        return text.to_owned();
    }
    let mut out = text.to_owned();
    if format & 16 != 0 {
        out = format!("`{out}`");
    }
    if format & 4 != 0 {
        out = format!("~~{out}~~");
    }
    if format & 2 != 0 {
        out = format!("*{out}*");
    }
    if format & 1 != 0 {
        out = format!("**{out}**");
    }
    out
}

/// A code block's text as it is.
fn inline_plain(node: &Value) -> String {
    children(node)
        .map(|c| match kind(c) {
            "linebreak" => "\n".to_owned(),
            "tab" => "\t".to_owned(),
            _ => c
                .get("text")
                .and_then(Value::as_str)
                .map_or_else(|| inline_plain(c), str::to_owned),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_super_notes_blocks_become_markdown() {
        let state = r#"{"root":{"type":"root","children":[
            {"type":"heading","tag":"h2","children":[{"type":"text","text":"Plan","format":0}]},
            {"type":"paragraph","children":[{"type":"text","text":"Some ","format":0},
                {"type":"text","text":"bold","format":1},{"type":"linebreak"},
                {"type":"link","url":"https://example.com","children":[{"type":"text","text":"a link","format":0}]}]},
            {"type":"list","listType":"check","children":[
                {"type":"listitem","checked":true,"children":[{"type":"text","text":"done","format":0}]},
                {"type":"listitem","checked":false,"children":[{"type":"text","text":"to do","format":0}]},
                {"type":"listitem","children":[{"type":"list","listType":"bullet","children":[
                    {"type":"listitem","children":[{"type":"text","text":"inner","format":2}]}]}]}]},
            {"type":"code","language":"rust","children":[{"type":"code-highlight","text":"let x = 1;"},
                {"type":"linebreak"},{"type":"code-highlight","text":"x"}]},
            {"type":"quote","children":[{"type":"text","text":"said","format":0}]}
        ]}}"#;
        assert_eq!(
            to_markdown(state).unwrap(),
            "## Plan\n\nSome **bold**\n[a link](https://example.com)\n\n\
             - [x] done\n- [ ] to do\n  - *inner*\n\n```rust\nlet x = 1;\nx\n```\n\n> said"
        );
    }

    #[test]
    fn text_that_is_not_the_editors_json_is_none() {
        assert_eq!(to_markdown("just text"), None);
        assert_eq!(to_markdown("{\"a\":1}"), None);
    }
}
