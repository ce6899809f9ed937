//! `explain`: for every tuple, which requirements it met or failed, its score and its place
//! in the final order. Upstream (and the gateways we know) give one aggregate error instead.

use super::check::{self, Check};
use super::error::{CapabilityUnsatisfiable, RejectionReason};
use super::numfmt::Js;
use super::reference;
use super::wire::{RouteInput, RoutingDecision};
use serde::Serialize;
use std::fmt::{self, Write};

/// One requirement's verdict on one tuple.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequirementOutcome {
    /// The requirement's label (spec §2.12).
    pub requirement: String,
    /// Why the tuple fails it; `None` when it passes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rejected: Option<RejectionReason>,
}

impl RequirementOutcome {
    /// Whether the tuple meets this requirement.
    pub fn passed(&self) -> bool {
        self.rejected.is_none()
    }
}

/// Everything about one `(provider, model)` tuple.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TupleExplanation {
    /// Provider id.
    #[serde(rename = "providerId")]
    pub provider: String,
    /// Model name.
    pub model: String,
    /// One outcome per requirement, in requirement order (kind gate, needs, tenant rules).
    pub requirements: Vec<RequirementOutcome>,
    /// Whether it met every requirement.
    pub survived: bool,
    /// Whether its provider is a fallback provider.
    pub fallback: bool,
    /// Preference score (spec §2.8); `None` without preferences.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "super::numfmt::serialize_js_opt"
    )]
    pub score: Option<f64>,
    /// Whether the preferred-provider / preferred-model hints match it (`false` without hints).
    pub hinted: bool,
    /// Place in the final order (0 is the pick); `None` when it is not a candidate (rejected,
    /// or a fallback tuple while regular tuples survive).
    pub rank: Option<usize>,
}

/// The per-tuple report of [`explain`], plus the routing outcome itself.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Explanation {
    /// Requirement labels, in evaluation order.
    pub requirements: Vec<String>,
    /// One entry per tuple, in expansion order.
    pub tuples: Vec<TupleExplanation>,
    /// What [`crate::route::route`] answers for the same input.
    pub outcome: ExplainedOutcome,
}

/// [`Explanation::outcome`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ExplainedOutcome {
    /// The decision.
    Ok(RoutingDecision),
    /// The error.
    Err(CapabilityUnsatisfiable),
}

/// Explains a route: every tuple against every requirement, with scores, hints and ranks.
///
/// Does all the work per call, like [`crate::route::route`], and always builds the full
/// per-tuple diagnostics, so it is meant for operators asking "why not X?", not the hot path.
///
/// # Examples
///
/// ```
/// use runstart::route::{explain, RouteInput};
///
/// let input: RouteInput = serde_json::from_str(r#"{
///   "capability": {"needs": [{"region": "eu"}]},
///   "providers": [{"id": "us", "region": "us", "models": [{"name": "m", "contextWindow": 1,
///     "features": [], "cost": {"promptUsdPer1kTokens": 0, "completionUsdPer1kTokens": 0}}]}]
/// }"#)?;
/// let e = explain(&input);
/// let t = &e.tuples[0];
/// assert!(!t.survived);
/// assert_eq!(t.requirements[1].requirement, "region=eu");
/// assert_eq!(t.requirements[1].rejected.as_ref().unwrap().code(), "region-mismatch");
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn explain(input: &RouteInput) -> Explanation {
    let policy = input.tenant_policy.as_ref();
    let checks: Vec<Check<'_>> = check::checks(&input.capability, policy);
    let tuples = reference::expand(&input.providers);
    let (order, _) = reference::ranked(input, &checks, &tuples);
    let prefs = input.capability.prefer.as_deref().unwrap_or_default();
    let pp = input.preferred_provider.as_deref();
    let pm = input.preferred_model.as_deref();
    let hints = pp.is_some() || pm.is_some();
    let mut rank = vec![None; tuples.len()];
    for (pos, &i) in order.iter().enumerate() {
        if let Some(r) = rank.get_mut(i) {
            *r = Some(pos);
        }
    }
    let rows = tuples
        .iter()
        .zip(rank)
        .map(|(&(p, m), rank)| {
            let requirements: Vec<RequirementOutcome> = checks
                .iter()
                .map(|c| RequirementOutcome {
                    requirement: c.label(),
                    rejected: c.evaluate(p, m),
                })
                .collect();
            TupleExplanation {
                provider: p.id.clone(),
                model: m.name.clone(),
                survived: requirements.iter().all(RequirementOutcome::passed),
                requirements,
                fallback: p.fallback,
                score: (!prefs.is_empty()).then(|| check::score(prefs, p, m)),
                hinted: hints && pp.is_none_or(|x| p.id == x) && pm.is_none_or(|x| m.name == x),
                rank,
            }
        })
        .collect();
    Explanation {
        requirements: checks.iter().map(Check::label).collect(),
        tuples: rows,
        outcome: match reference::route(input) {
            Ok(d) => ExplainedOutcome::Ok(d),
            Err(e) => ExplainedOutcome::Err(e),
        },
    }
}

impl fmt::Display for Explanation {
    /// A plain-text table: one line per tuple (rank, tuple, score, verdict), then one indented
    /// line per failed requirement.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "requirements: {}", self.requirements.join(" | "))?;
        let width = self
            .tuples
            .iter()
            .map(|t| t.provider.chars().count() + 1 + t.model.chars().count())
            .max()
            .unwrap_or(0);
        writeln!(
            f,
            "{:>5}  {:<width$}  {:>8}  verdict",
            "rank", "tuple", "score"
        )?;
        for t in &self.tuples {
            let rank = t
                .rank
                .map_or_else(|| "-".to_owned(), |r| (r + 1).to_string());
            let tuple = format!("{}/{}", t.provider, t.model);
            let score = t
                .score
                .map_or_else(|| "-".to_owned(), |s| Js(s).to_string());
            let mut verdict = String::new();
            if t.survived {
                verdict.push_str(if t.rank.is_some() {
                    "candidate"
                } else {
                    "survives (fallback, unused)"
                });
            } else {
                let failed = t.requirements.iter().filter(|r| !r.passed()).count();
                let _ = write!(verdict, "rejected by {failed} requirement(s)");
            }
            if t.fallback {
                verdict.push_str(" [fallback]");
            }
            if t.hinted {
                verdict.push_str(" [hint]");
            }
            writeln!(f, "{rank:>5}  {tuple:<width$}  {score:>8}  {verdict}")?;
            for r in &t.requirements {
                if let Some(why) = &r.rejected {
                    writeln!(
                        f,
                        "{:>5}  - {}: {} ({})",
                        "",
                        r.requirement,
                        why,
                        why.code()
                    )?;
                }
            }
        }
        match &self.outcome {
            ExplainedOutcome::Ok(d) => write!(f, "decision: {}", d.reason),
            ExplainedOutcome::Err(e) => write!(f, "error: {}: {}", e.code(), e),
        }
    }
}
