//! HTML tables as GFM tables. The converter keeps only tables with header cells as
//! tables; notes' tables (Evernote's, Standard Notes' rich text) seldom have any, so
//! their first row is taken as the header, as the person would read it.

use std::rc::{Rc, Weak};

use htmd::element_handler::{HandlerResult, Handlers};
use htmd::{Element, Node};
use markup5ever_rcdom::NodeData;

/// Converts `<table>` (one not inside another table's cell, which the default handling
/// flattens into the cell's text).
pub(crate) fn table(handlers: &dyn Handlers, element: Element) -> Option<HandlerResult> {
    if inside_cell(element.node) {
        return handlers.fallback(element);
    }
    let mut rows: Vec<Vec<String>> = Vec::new();
    collect_rows(handlers, element.node, &mut rows);
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    if columns == 0 {
        return handlers.fallback(element);
    }
    let mut lines = Vec::with_capacity(rows.len() + 1);
    for (i, row) in rows.iter().enumerate() {
        let cells: Vec<&str> = (0..columns)
            .map(|c| row.get(c).map_or("", String::as_str))
            .collect();
        lines.push(format!("| {} |", cells.join(" | ")));
        if i == 0 {
            lines.push(format!("|{}", " --- |".repeat(columns)));
        }
    }
    Some(format!("\n\n{}\n\n", lines.join("\n")).into())
}

/// The rows of the table, through `thead`, `tbody` and `tfoot` but not into nested tables.
fn collect_rows(handlers: &dyn Handlers, node: &Rc<Node>, rows: &mut Vec<Vec<String>>) {
    for child in node.children.borrow().iter() {
        match tag(child).as_deref() {
            Some("thead" | "tbody" | "tfoot") => collect_rows(handlers, child, rows),
            Some("tr") => {
                let cells = child
                    .children
                    .borrow()
                    .iter()
                    .filter(|c| matches!(tag(c).as_deref(), Some("td" | "th")))
                    .map(|cell| cell_text(&handlers.walk_children(cell).content))
                    .collect();
                rows.push(cells);
            }
            _ => {}
        }
    }
}

/// A cell's Markdown on one line, its pipes escaped.
fn cell_text(markdown: &str) -> String {
    let words: Vec<&str> = markdown.split_whitespace().collect();
    words.join(" ").replace('|', "\\|")
}

fn tag(node: &Node) -> Option<String> {
    match &node.data {
        NodeData::Element { name, .. } => Some(name.local.as_ref().to_owned()),
        _ => None,
    }
}

fn inside_cell(node: &Rc<Node>) -> bool {
    let mut current = parent(node);
    while let Some(node) = current {
        if matches!(tag(&node).as_deref(), Some("td" | "th")) {
            return true;
        }
        current = parent(&node);
    }
    false
}

fn parent(node: &Node) -> Option<Rc<Node>> {
    let weak = node.parent.take();
    let parent = weak.as_ref().and_then(Weak::upgrade);
    node.parent.set(weak);
    parent
}
