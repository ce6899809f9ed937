//! Issues of one kind capped per scope: the first few of each code are listed, the rest
//! counted in one summary issue of the same code ("N more issues of this kind"), as compilers
//! do. One template of 256 KiB can name 26,000 unknown variables and one flow can repeat an
//! edge a million times; nobody reads past the first screen of either, and listing them all
//! costs gigabytes.

use super::{Issue, IssueCode, Severity};

/// Collects issues, keeping the first `cap` of each code (in the order pushed) and counting
/// the rest; [`CappedIssues::finish`] appends one summary per code over the cap.
#[derive(Debug)]
pub(crate) struct CappedIssues {
    cap: usize,
    listed: Vec<Issue>,
    /// Each code seen, its severity (of its first issue) and how many issues of it came.
    counts: Vec<(IssueCode, Severity, usize)>,
}

impl CappedIssues {
    /// An empty collector listing at most `cap` issues of each code.
    pub(crate) fn new(cap: usize) -> CappedIssues {
        CappedIssues {
            cap,
            listed: Vec::new(),
            counts: Vec::new(),
        }
    }

    /// Counts one issue and lists it while its code is under the cap.
    pub(crate) fn push(&mut self, issue: Issue) {
        self.push_with(issue.code(), issue.severity(), || issue);
    }

    /// Counts one issue of `code`, building it with `build` only when it is listed (the
    /// issues past the cap are only counted, so their text is never written).
    pub(crate) fn push_with(
        &mut self,
        code: IssueCode,
        severity: Severity,
        build: impl FnOnce() -> Issue,
    ) {
        let n = match self.counts.iter_mut().find(|(c, ..)| *c == code) {
            Some((_, _, n)) => {
                *n += 1;
                *n
            }
            None => {
                self.counts.push((code, severity, 1));
                1
            }
        };
        if n <= self.cap {
            self.listed.push(build());
        }
    }

    /// Whether no issue came.
    pub(crate) fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// The listed issues, then per code over the cap one issue at `at` saying how many more
    /// there are `scope` (e.g. "in this template"), with `params.omitted`.
    pub(crate) fn finish(self, at: &str, scope: &str) -> Vec<Issue> {
        let mut out = self.listed;
        for (code, severity, n) in self.counts {
            if n > self.cap {
                out.push(more_issues(
                    severity,
                    code,
                    at,
                    n - self.cap,
                    scope,
                    self.cap,
                ));
            }
        }
        out
    }
}

/// The summary issue for `omitted` issues of `code` not listed `scope` (only the first
/// `shown` are).
pub(crate) fn more_issues(
    severity: Severity,
    code: IssueCode,
    at: &str,
    omitted: usize,
    scope: &str,
    shown: usize,
) -> Issue {
    let message = if omitted == 1 {
        format!(
            "1 more issue of this kind {scope} is not listed (only the first {shown} are); fix these and validate again"
        )
    } else {
        format!(
            "{omitted} more issues of this kind {scope} are not listed (only the first {shown} are); fix these and validate again"
        )
    };
    Issue::new(severity, code, at, message).with_param("omitted", omitted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_more_issue_is_said_in_the_singular() {
        let one = more_issues(
            Severity::Error,
            IssueCode::StartToEndEdge,
            "",
            1,
            "in this flow",
            100,
        );
        assert_eq!(
            one.message(),
            "1 more issue of this kind in this flow is not listed (only the first 100 are); fix these and validate again"
        );
    }

    fn issue(code: IssueCode, n: usize) -> Issue {
        Issue::warning(code, format!("/e/{n}"), format!("issue {n}"))
    }

    #[test]
    fn lists_the_first_of_each_code_and_counts_the_rest() {
        let mut capped = CappedIssues::new(2);
        assert!(capped.is_empty());
        for n in 0..5 {
            capped.push(issue(IssueCode::DuplicateParallelEdge, n));
        }
        capped.push(issue(IssueCode::StartToEndEdge, 9));
        let mut built = 0;
        for n in 5..7 {
            capped.push_with(IssueCode::DuplicateParallelEdge, Severity::Warning, || {
                built += 1;
                issue(IssueCode::DuplicateParallelEdge, n)
            });
        }
        assert_eq!(built, 0, "issues past the cap are never built");
        assert!(!capped.is_empty());
        let out = capped.finish("/flows/0", "in this flow");
        let got: Vec<(&str, &str)> = out
            .iter()
            .map(|i| (i.instance_path(), i.message()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("/e/0", "issue 0"),
                ("/e/1", "issue 1"),
                ("/e/9", "issue 9"),
                (
                    "/flows/0",
                    "5 more issues of this kind in this flow are not listed (only the first 2 are); fix these and validate again"
                ),
            ]
        );
        assert_eq!(out[3].code(), IssueCode::DuplicateParallelEdge);
        assert_eq!(out[3].severity(), Severity::Warning);
        assert_eq!(out[3].params()["omitted"], 5);
    }
}
