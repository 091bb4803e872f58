//! Summaries that can be trusted (design Phase 3, summary quality governance).
//!
//! A compaction replaces turns with OpenViking's archive summary. A summary that says nothing
//! would replace them with nothing: OpenViking 0.5.2 writes a placeholder when no model is
//! configured for it (`# Session Summary` / `**Overview**: N turns, M messages`), working
//! memory can be off (no summary at all), a model can answer with the empty template, and a
//! summary can be far shorter than the turns it stands for. [`check_summary`] tells these
//! apart; a summary it distrusts is not used: the turns behind it stay raw where the host
//! still holds them, and the previous good summary stands for the older ones.

/// Why a summary is not used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SummaryProblem {
    /// No summary, or only white space.
    Empty,
    /// A placeholder: OpenViking's no-model fallback, a "not ready" marker.
    Placeholder,
    /// The working-memory template with no content under any section.
    EmptyTemplate,
    /// Far shorter than the turns it replaces (see [`TOO_SHORT_RATIO`]).
    TooShort,
}

impl SummaryProblem {
    /// The reason as `status`, `trace` and the log say it.
    pub fn reason(self) -> &'static str {
        match self {
            SummaryProblem::Empty => "empty (the archive has no summary: working memory off, or its model failed)",
            SummaryProblem::Placeholder => "a placeholder (OpenViking had no model to summarise with)",
            SummaryProblem::EmptyTemplate => "the summary template with nothing filled in",
            SummaryProblem::TooShort => "far shorter than the turns it replaces",
        }
    }
}

/// A summary's content (its text without headings and the template's `_instructions_`) under
/// this share of the archived turns' text is [`SummaryProblem::TooShort`]…
pub const TOO_SHORT_RATIO: usize = 40;
/// …when the turns hold at least this many characters (a short conversation may well have a
/// short summary).
pub const TOO_SHORT_MIN_REPLACED_CHARS: usize = 2_000;

/// Checks an archive summary against the text of the turns it replaces (`replaced_chars`:
/// characters of the archived turns' text; 0 when unknown, which skips the length check).
pub fn check_summary(summary: Option<&str>, replaced_chars: usize) -> Result<(), SummaryProblem> {
    let text = summary.map(str::trim).unwrap_or("");
    if text.is_empty() {
        return Err(SummaryProblem::Empty);
    }
    if is_placeholder(text) {
        return Err(SummaryProblem::Placeholder);
    }
    let content = content_chars(text);
    if content == 0 {
        return Err(SummaryProblem::EmptyTemplate);
    }
    if replaced_chars >= TOO_SHORT_MIN_REPLACED_CHARS && content.saturating_mul(TOO_SHORT_RATIO) < replaced_chars {
        return Err(SummaryProblem::TooShort);
    }
    Ok(())
}

/// Why a checkpoint's summary is not used, if it is not: its recorded verdict, else (a
/// checkpoint recorded by an earlier release) the summary checked now. The one rule `assemble`,
/// `status` and `trace` read.
pub fn checkpoint_summary_problem(cp: &crate::lifecycle::checkpoint::CompactCheckpoint) -> Option<String> {
    cp.summary_problem.clone().or_else(|| check_summary(cp.summary.as_deref(), 0).err().map(|p| p.reason().to_string()))
}

fn is_placeholder(text: &str) -> bool {
    let lower = text.to_lowercase();
    // "# Session Summary\n\n**Overview**: 3 turns, 6 messages" (OpenViking without a model)
    let overview_only = lower.starts_with("# session summary")
        && content_lines(text).all(|l| l.to_lowercase().starts_with("**overview**:") && l.contains("turns") && l.contains("messages"));
    overview_only || (lower.starts_with('[') && lower.ends_with(']') && lower.contains("not ready"))
}

/// Lines that carry content: not headings, not the template's italic instructions, not
/// "none recorded" stand-ins.
fn content_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().map(str::trim).filter(|l| {
        !l.is_empty()
            && !l.starts_with('#')
            && !(l.len() > 1 && l.starts_with('_') && l.ends_with('_'))
            && !matches!(l.to_lowercase().trim_start_matches(['-', '*', ' ']).trim_end_matches('.'), "none" | "none recorded" | "n/a")
    })
}

fn content_chars(text: &str) -> usize {
    content_lines(text).map(|l| l.chars().count()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEMPLATE: &str = "# Working Memory\n\n## Session Title\n_A short and distinctive 5-10 word descriptive title._\n\n## Current State\n_2-5 sentences MAX: What is the latest status?_\n\n## Open Issues\n- None recorded.\n";

    #[test]
    fn each_kind_of_useless_summary_is_told_apart_and_a_real_one_passes() {
        assert_eq!(check_summary(None, 0), Err(SummaryProblem::Empty));
        assert_eq!(check_summary(Some("  \n "), 0), Err(SummaryProblem::Empty));
        assert_eq!(check_summary(Some("# Session Summary\n\n**Overview**: 3 turns, 6 messages"), 0), Err(SummaryProblem::Placeholder));
        assert_eq!(check_summary(Some("[Directory overview is not ready]"), 0), Err(SummaryProblem::Placeholder));
        assert_eq!(check_summary(Some(TEMPLATE), 0), Err(SummaryProblem::EmptyTemplate));
        let state = "Billing moved to Postgres 16; the pool stays at 10 connections.";
        let real = TEMPLATE.replace("_2-5 sentences MAX: What is the latest status?_", state);
        assert_eq!(check_summary(Some(&real), 0), Ok(()));
        assert_eq!(check_summary(Some(&real), 1_500), Ok(()), "a short conversation may have a short summary");
        let content = state.chars().count(); // the headings, instructions and "None recorded." do not count
        assert_eq!(check_summary(Some(&real), content * TOO_SHORT_RATIO + 1), Err(SummaryProblem::TooShort));
        assert_eq!(check_summary(Some(&real), content * TOO_SHORT_RATIO), Ok(()));
    }

    #[test]
    fn a_summary_that_mentions_sessions_and_overviews_is_not_a_placeholder() {
        let s = "# Session Summary\n\n**Overview**: 3 turns, 6 messages\n\nWe chose Postgres 16 for billing.";
        assert_eq!(check_summary(Some(s), 0), Ok(()));
        assert_eq!(check_summary(Some("[We said the overview is not ready for review]\nThe report ships Friday."), 0), Ok(()));
    }
}
