//! One item of a Joplin export as Joplin writes it (in a RAW export, a `.jex` and a sync
//! folder alike): the title line, a blank line, the body, a blank line, then `key: value`
//! lines ending with `type_: N`.

use std::collections::HashMap;

/// What an item is, by its `type_`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ItemType {
    Note,
    Folder,
    Resource,
    Tag,
    NoteTag,
    /// Revisions, settings, master keys…: not read.
    Other,
}

/// An item of a Joplin export.
#[derive(Debug)]
pub(crate) struct Item {
    pub title: String,
    pub body: String,
    props: HashMap<String, String>,
}

impl Item {
    /// Reads the item in `text`; `None` when `text` is not one (no trailing `key: value`
    /// block with a `type_`).
    pub fn parse(text: &str) -> Option<Item> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut lines: Vec<&str> = text.split('\n').collect();
        while lines.last().is_some_and(|l| l.trim().is_empty()) {
            lines.pop();
        }
        let mut props = HashMap::new();
        while let Some(line) = lines.pop() {
            let line = line.trim();
            if line.is_empty() {
                break;
            }
            let (key, value) = line.split_once(':')?;
            props.insert(key.trim().to_owned(), value.trim().to_owned());
        }
        props.get("type_")?.parse::<u32>().ok()?;
        let (title, body) = match lines.split_first() {
            Some((title, rest)) => {
                // The blank line after the title is the separator, not the body.
                let rest = rest.strip_prefix(&[""][..]).unwrap_or(rest);
                (title.trim_end_matches('\r').to_owned(), rest.join("\n"))
            }
            None => (String::new(), String::new()),
        };
        Some(Item { title, body, props })
    }

    /// The value of `key`, empty when the item has none.
    pub fn get(&self, key: &str) -> &str {
        self.props.get(key).map_or("", String::as_str)
    }

    /// The item's id, when it is one Joplin makes (32 hexadecimal digits).
    pub fn id(&self) -> Option<&str> {
        Some(self.get("id")).filter(|id| is_joplin_id(id))
    }

    /// What the item is.
    pub fn item_type(&self) -> ItemType {
        match self.get("type_") {
            "1" => ItemType::Note,
            "2" => ItemType::Folder,
            "4" => ItemType::Resource,
            "5" => ItemType::Tag,
            "6" => ItemType::NoteTag,
            _ => ItemType::Other,
        }
    }

    /// Whether `key` holds a number other than zero (`is_todo: 1`, `deleted_time: 16…`).
    pub fn flag(&self, key: &str) -> bool {
        let value = self.get(key);
        !value.is_empty() && value.chars().any(|c| c != '0')
    }
}

/// Whether `text` is a Joplin id: 32 hexadecimal digits.
pub(crate) fn is_joplin_id(text: &str) -> bool {
    text.len() == 32 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_item_has_its_title_body_and_metadata() {
        let item = Item::parse(
            "note5\n\n![photo.jpg](:/933cf209b0094d43884c03149f034128)\n\nsecond: para\n\n\
             id: 264606b4634f4fe58dda0e58a0dc64d9\nparent_id: \nis_todo: 0\n\
             created_time: 2021-08-07T17:03:33.725Z\ntype_: 1",
        )
        .unwrap();
        assert_eq!(item.title, "note5");
        assert_eq!(
            item.body,
            "![photo.jpg](:/933cf209b0094d43884c03149f034128)\n\nsecond: para"
        );
        assert_eq!(item.id(), Some("264606b4634f4fe58dda0e58a0dc64d9"));
        assert_eq!(item.item_type(), ItemType::Note);
        assert_eq!(item.get("created_time"), "2021-08-07T17:03:33.725Z");
        assert_eq!(item.get("parent_id"), "");
        assert!(!item.flag("is_todo"));
    }

    #[test]
    fn an_item_without_a_title_has_only_metadata() {
        let item = Item::parse(
            "id: 0394074009f8454e86cbf935a03da973\nnote_id: 59e44f93f28242529fbbca804bdd25c5\ntype_: 6",
        )
        .unwrap();
        assert_eq!(item.title, "");
        assert_eq!(item.item_type(), ItemType::NoteTag);
        assert_eq!(item.get("note_id"), "59e44f93f28242529fbbca804bdd25c5");
    }

    #[test]
    fn markdown_without_a_metadata_block_is_not_an_item() {
        assert!(Item::parse("# Title\n\nSome text.\n").is_none());
        assert!(Item::parse("Title\n\nid: 1\nnot metadata\n").is_none());
        assert!(Item::parse("").is_none());
    }
}
