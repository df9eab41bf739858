//! A note's history a page at a time. Issue #60: one answer with every version's body
//! grew without bound (100 MB after 1,000 edits of a 100 KB note), so a page lists
//! versions without their bodies, and a body is read one version at a time.

use app::api::{RevisionSummary, RevisionsPage};

use crate::records::cursor::cut_to_page;

/// Where a page of a note's history starts, and which way it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Versions {
    /// Oldest first, after this version (0: from the first) — the API's order.
    After(i64),
    /// Newest first, before this version (`i64::MAX`: from the latest) — the history
    /// page's order.
    Before(i64),
}

impl Versions {
    /// The condition on `version` (its bound a parameter) and the order, as SQL.
    pub fn sql(self) -> (&'static str, &'static str) {
        match self {
            Versions::After(_) => ("version >", "ORDER BY version"),
            Versions::Before(_) => ("version <", "ORDER BY version DESC"),
        }
    }

    /// The version the condition compares with.
    pub fn bound(self) -> i64 {
        match self {
            Versions::After(version) | Versions::Before(version) => version,
        }
    }
}

/// A page from `limit + 1` versions read in the page's order: the extra one, if there,
/// says that another page follows, which starts after the last one kept.
pub fn page(mut revisions: Vec<RevisionSummary>, limit: u32) -> RevisionsPage {
    let next = cut_to_page(&mut revisions, limit, |r| r.version.to_string());
    RevisionsPage { revisions, next }
}

#[cfg(test)]
mod tests {
    use super::*;
    use app::api::RevisionKind;

    fn listed(versions: &[i64]) -> Vec<RevisionSummary> {
        versions
            .iter()
            .map(|&version| RevisionSummary {
                version,
                title: "t".into(),
                created_at: "2026-12-01T00:00:00.000000Z".into(),
                kind: RevisionKind::Edit,
            })
            .collect()
    }

    #[test]
    fn a_page_with_one_version_more_than_its_limit_leads_on_from_its_last() {
        let page = page(listed(&[3, 4, 5]), 2);
        assert_eq!(page.revisions.len(), 2);
        assert_eq!(page.next.as_deref(), Some("4"));
        let newest_first = super::page(listed(&[9, 8, 7]), 2);
        assert_eq!(newest_first.next.as_deref(), Some("8"));
    }

    #[test]
    fn the_last_page_leads_nowhere() {
        assert_eq!(page(listed(&[1, 2]), 2).next, None);
        assert_eq!(page(Vec::new(), 50).next, None);
    }
}
