//! The files of a Markdown folder and how a note's reference finds one, the way Obsidian
//! finds it: relative to the note's folder, then from the top of the vault, then by its
//! name anywhere in the vault (letter case aside).

use std::collections::HashMap;

/// The entries of a zipped vault.
pub(crate) struct Vault {
    /// The one folder every entry is in (the vault's own, when the folder itself was
    /// zipped), with its `/`; empty when there is none.
    root: String,
    /// Entry names by their path below the root, in lower case.
    by_path: HashMap<String, String>,
    /// Entry names by their file name, in lower case; the shallowest first.
    by_name: HashMap<String, Vec<String>>,
    /// The notes (`.md`, `.markdown`) outside hidden folders, in the archive's order.
    notes: Vec<String>,
    /// The notes in Obsidian's trash (`.trash/`).
    trashed: Vec<String>,
}

impl Vault {
    /// Indexes the entry names of a zip. Hidden folders (`.obsidian/`, `.git/`) and
    /// `__MACOSX/` are left out; notes in `.trash/` are listed apart.
    pub fn new(names: Vec<String>) -> Self {
        let root = common_root(&names);
        let mut vault = Vault {
            root,
            by_path: HashMap::new(),
            by_name: HashMap::new(),
            notes: Vec::new(),
            trashed: Vec::new(),
        };
        let mut by_name: Vec<(usize, String, String)> = Vec::new();
        for name in names {
            let relative = vault.relative(&name).to_owned();
            let hidden = relative
                .split('/')
                .rev()
                .skip(1)
                .any(|folder| folder.starts_with('.') || folder == "__MACOSX");
            if hidden {
                if relative.starts_with(".trash/") && is_note(&relative) {
                    vault.trashed.push(name);
                }
                continue;
            }
            if is_note(&relative) {
                vault.notes.push(name.clone());
            }
            let file = relative.rsplit('/').next().unwrap_or(&relative);
            by_name.push((
                relative.matches('/').count(),
                file.to_lowercase(),
                name.clone(),
            ));
            vault.by_path.insert(relative.to_lowercase(), name);
        }
        by_name.sort();
        for (_, file, name) in by_name {
            vault.by_name.entry(file).or_default().push(name);
        }
        vault
    }

    /// The notes to read, in the archive's order.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The notes in Obsidian's trash.
    pub fn trashed(&self) -> &[String] {
        &self.trashed
    }

    /// The entry's path below the vault's own folder.
    pub fn relative<'a>(&self, name: &'a str) -> &'a str {
        name.strip_prefix(self.root.as_str()).unwrap_or(name)
    }

    /// The entry `reference` points at from the note in `note_folder` (below the root,
    /// empty at the top): that folder's, then the vault's `reference`, then any file of
    /// that name. `..` cannot leave the vault.
    pub fn find(&self, note_folder: &str, reference: &str) -> Option<&str> {
        let reference = reference.trim();
        if reference.is_empty() {
            return None;
        }
        let beside = normalize(&format!("{note_folder}/{reference}"));
        let from_top = normalize(reference);
        [beside, from_top]
            .into_iter()
            .flatten()
            .find_map(|path| self.by_path.get(&path.to_lowercase()))
            .or_else(|| {
                let file = reference.rsplit('/').next().unwrap_or(reference);
                self.by_name.get(&file.to_lowercase())?.first()
            })
            .map(String::as_str)
    }
}

/// Whether the entry is a note, by its extension.
pub(crate) fn is_note(name: &str) -> bool {
    let lower = name.to_lowercase();
    lower.ends_with(".md") || lower.ends_with(".markdown")
}

/// The folder every name is in, with its `/`, or empty.
fn common_root(names: &[String]) -> String {
    let Some(first) = names.first() else {
        return String::new();
    };
    let Some((top, _)) = first.split_once('/') else {
        return String::new();
    };
    let root = format!("{top}/");
    if names.iter().all(|n| n.starts_with(&root)) {
        root
    } else {
        String::new()
    }
}

/// `path` with `.` and `..` worked out and empty parts dropped; `None` when `..` would
/// leave the vault.
fn normalize(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vault() -> Vault {
        Vault::new(
            [
                "Vault/Home.md",
                "Vault/Projects/2024/Plan.md",
                "Vault/Projects/2024/chart.png",
                "Vault/attachments/white.png",
                "Vault/attachments/deep/white.png",
                "Vault/.obsidian/app.json",
                "Vault/.obsidian/snippets/x.md",
                "Vault/.trash/Old.md",
                "Vault/Docs/My File.pdf",
            ]
            .map(String::from)
            .to_vec(),
        )
    }

    #[test]
    fn the_vault_s_own_folder_is_not_part_of_a_note_s_path() {
        let vault = vault();
        assert_eq!(
            vault.relative("Vault/Projects/2024/Plan.md"),
            "Projects/2024/Plan.md"
        );
        assert_eq!(
            vault.notes(),
            ["Vault/Home.md", "Vault/Projects/2024/Plan.md"]
        );
        assert_eq!(vault.trashed(), ["Vault/.trash/Old.md"]);
    }

    #[test]
    fn references_are_found_beside_the_note_then_from_the_top_then_by_name() {
        let vault = vault();
        assert_eq!(
            vault.find("Projects/2024", "chart.png"),
            Some("Vault/Projects/2024/chart.png")
        );
        assert_eq!(
            vault.find("Projects/2024", "../../Docs/my file.PDF"),
            Some("Vault/Docs/My File.pdf")
        );
        assert_eq!(
            vault.find("Projects/2024", "Docs/My File.pdf"),
            Some("Vault/Docs/My File.pdf")
        );
        assert_eq!(
            vault.find("", "white.png"),
            Some("Vault/attachments/white.png")
        );
        assert_eq!(
            vault.find("", "Plan.md"),
            Some("Vault/Projects/2024/Plan.md")
        );
        assert_eq!(vault.find("", "app.json"), None);
        assert_eq!(vault.find("", "missing.png"), None);
        assert_eq!(vault.find("", "../../../etc/passwd"), None);
    }
}
