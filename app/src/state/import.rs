//! How an import stands on the account page: sending the file, then the server's progress
//! through it, then what came in (or why nothing more could).

use crate::api::{ImportLine, ImportProgress, ImportReport};

/// One import's stage.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum ImportStage {
    /// Nothing chosen yet.
    #[default]
    Idle,
    /// The file on its way: `loaded` of `total` bytes sent.
    Sending { loaded: f64, total: f64 },
    /// The server reading it: notes and files so far.
    Reading(ImportProgress),
    /// Done: what came in, what was there, skipped and failed.
    Done(ImportReport),
    /// Stopped; the sentence says why and what to do.
    Failed(String),
}

/// Reads the lines an import's progress stream has sent so far (`text`, one JSON object a
/// line; the last may be cut) into the stage they tell of, or `None` if no whole line came.
pub fn stage_of_lines(text: &str) -> Option<ImportStage> {
    let mut lines = text.split('\n').collect::<Vec<_>>();
    // The part after the last newline is a line still arriving.
    lines.pop();
    lines
        .iter()
        .rev()
        .find_map(|line| serde_json::from_str::<ImportLine>(line).ok())
        .map(|line| match line {
            ImportLine::Progress(progress) => ImportStage::Reading(progress),
            ImportLine::Report(report) => ImportStage::Done(report),
            ImportLine::Problem(problem) => ImportStage::Failed(format!(
                "Stopped: {} Importing the same file again goes on where it stopped.",
                end_with_stop(&problem.detail)
            )),
        })
}

fn end_with_stop(text: &str) -> String {
    let text = text.trim();
    if text.ends_with(['.', '!', '?']) {
        text.to_owned()
    } else {
        format!("{text}.")
    }
}

/// The report in one sentence.
pub fn summary(report: &ImportReport) -> String {
    let mut parts = vec![format!(
        "Imported {} {}",
        report.imported,
        plural(report.imported, "note", "notes")
    )];
    if report.files > 0 {
        parts.push(format!(
            "{} {}",
            report.files,
            plural(report.files, "file", "files")
        ));
    }
    if report.already_there > 0 {
        parts.push(format!("{} were here already", report.already_there));
    }
    if report.skipped > 0 {
        parts.push(format!("{} skipped", report.skipped));
    }
    if !report.failed.is_empty() {
        parts.push(format!("{} could not be imported", report.failed.len()));
    }
    format!("{}.", parts.join(", "))
}

fn plural(n: usize, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ImportProblem;

    #[test]
    fn the_last_whole_line_tells_the_stage_and_a_cut_line_waits() {
        let text = "{\"progress\":{\"notes\":3,\"files\":1}}\n{\"progress\":{\"notes\":7,\"fi";
        assert_eq!(
            stage_of_lines(text),
            Some(ImportStage::Reading(ImportProgress { notes: 3, files: 1 }))
        );
        assert_eq!(stage_of_lines("{\"progress\":{\"no"), None);
        let done = "{\"progress\":{}}\n{\"report\":{\"kind\":\"keep\",\"imported\":2}}\n";
        let Some(ImportStage::Done(report)) = stage_of_lines(done) else {
            panic!("done");
        };
        assert_eq!((report.kind.as_str(), report.imported), ("keep", 2));
    }

    #[test]
    fn a_problem_line_says_the_import_can_be_started_again() {
        let line = "{\"problem\":{\"type\":\"x/storage-full\",\"title\":\"t\",\"status\":507,\"detail\":\"The disk is full\"}}\n";
        assert_eq!(
            stage_of_lines(line),
            Some(ImportStage::Failed(
                "Stopped: The disk is full. Importing the same file again goes on where it stopped."
                    .into()
            ))
        );
    }

    #[test]
    fn the_summary_counts_what_came_in_and_what_did_not() {
        let report = ImportReport {
            imported: 1,
            files: 2,
            already_there: 3,
            skipped: 1,
            failed: vec![ImportProblem::default()],
            ..ImportReport::default()
        };
        assert_eq!(
            summary(&report),
            "Imported 1 note, 2 files, 3 were here already, 1 skipped, 1 could not be imported."
        );
    }
}
