//! The service check: does an endpoint serve the deployment it was set for?
//!
//! Before a run's first tool call the runtime reads the endpoint's `GET /v1/info` and compares
//! it with the deployed index (protocol 2.7.0 adds `indexHash` for exactly this).

use super::deployment::{Deployment, EnvCheck};
use super::message::{PROTOCOL_VERSION, ServiceInfo};
use crate::diagnostics::IssueCode;
use crate::diagnostics::{Issue, Report, pointer};

/// Compares a `/v1/info` answer with the deployed index.
///
/// Checks, each problem an [`Issue`] whose `instancePath` points into the info answer:
/// the protocol version ([`IssueCode::ProtocolVersionMismatch`]); `packId`, `packVersion` and
/// `artifactVersion` ([`IssueCode::PackIdMismatch`], [`IssueCode::PackVersionMismatch`],
/// [`IssueCode::ArtifactVersionMismatch`]); `indexHash` equal to
/// [`index_hash`](crate::index::index_hash) of the deployed bytes ([`IssueCode::IndexHashMismatch`];
/// absent, an older service: the warning [`IssueCode::IndexHashAbsent`]); every indexed tool served at
/// its indexed version ([`IssueCode::ToolNotServed`], [`IssueCode::ToolVersionMismatch`]); every pack check id
/// served ([`IssueCode::CheckNotServed`]; a guardrail naming a built-in check ships none and is not
/// required); every `missingEnv` name ([`IssueCode::MissingEnv`]: an error under
/// [`EnvCheck::Strict`], where the service is not ready, a warning under [`EnvCheck::Warn`]).
/// What the service serves beyond the index is a warning ([`IssueCode::ToolNotIndexed`],
/// [`IssueCode::CheckNotIndexed`]).
///
/// An empty list means the endpoint serves this deployment. Issues are ordered by pointer,
/// then code.
///
/// # Examples
///
/// ```
/// use runstart::protocol::{check_service_info, Deployment, ServedTool, ServiceInfo};
///
/// let bytes = std::fs::read("fixtures/packs/order-review/index.json")?;
/// let deployment = Deployment::new(&bytes).expect("a usable index");
/// let mut info: ServiceInfo = serde_json::from_value(serde_json::json!({
///     "protocol": 2, "packId": "shop", "packVersion": "0.8.0", "artifactVersion": "20261118.1",
///     "tools": [], "checks": ["shop.amount-consistency", "shop.tone"], "missingEnv": []
/// }))?;
/// info.index_hash = Some(deployment.index_hash().to_owned());
/// for (id, version) in [("shop.address.verify", "0.4.0"), ("shop.fraud.score", "3.8.1"),
///     ("shop.fraud.score", "4.0.0"), ("shop.inventory.check", "1.6.0"),
///     ("shop.notify.staff", "1.2.0"), ("shop.orders.get", "2.3.0"),
///     ("shop.orders.hold", "1.0.2"), ("shop.orders.release", "1.0.2")] {
///     info.tools.push(ServedTool { id: id.into(), version: Some(version.into()) });
/// }
/// assert!(check_service_info(&info, &deployment).is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Complexity
///
/// O((t + c)·(t' + c')) string comparisons for t indexed tools, c checks and t', c' served
/// ones: packs hold tens of tools, so a scan beats building maps.
pub fn check_service_info(info: &ServiceInfo, deployment: &Deployment) -> Vec<Issue> {
    let mut report = Report::new();
    if info.protocol != PROTOCOL_VERSION {
        report.push(Issue::error(
            IssueCode::ProtocolVersionMismatch,
            "/protocol",
            format!(
                "the service speaks pack protocol v{}, the runtime v{PROTOCOL_VERSION}; deploy a pack service that speaks v{PROTOCOL_VERSION}",
                info.protocol
            ),
        ));
    }
    for (field, code, got, want) in [
        (
            "packId",
            IssueCode::PackIdMismatch,
            &info.pack_id,
            &deployment.pack_id,
        ),
        (
            "packVersion",
            IssueCode::PackVersionMismatch,
            &info.pack_version,
            &deployment.pack_version,
        ),
        (
            "artifactVersion",
            IssueCode::ArtifactVersionMismatch,
            &info.artifact_version,
            &deployment.artifact_version,
        ),
    ] {
        if got != want {
            report.push(Issue::error(
                code,
                format!("/{field}"),
                format!(
                    "the service serves {field} {}, the deployment is for {}; point the deployment at the endpoint that serves it, or redeploy the service",
                    quoted(got),
                    quoted(want)
                ),
            ));
        }
    }
    match &info.index_hash {
        None => report.push(Issue::warning(
            IssueCode::IndexHashAbsent,
            "/indexHash",
            format!(
                "the service does not report indexHash (a pack service older than protocol 2.7.0), so its index cannot be checked against the deployed {}; upgrade the pack service",
                deployment.index_hash
            ),
        )),
        Some(hash) if *hash != deployment.index_hash => report.push(Issue::error(
            IssueCode::IndexHashMismatch,
            "/indexHash",
            format!(
                "the service's index is {}, the deployed index is {}: the endpoint serves other bytes; redeploy the service with the deployed index.json",
                quoted(hash),
                quoted(&deployment.index_hash)
            ),
        )),
        Some(_) => {}
    }
    check_tools(info, deployment, &mut report);
    check_checks(info, deployment, &mut report);
    for (i, name) in info.missing_env.iter().flatten().enumerate() {
        let at = format!("/missingEnv/{i}");
        let issue = match deployment.env_check {
            EnvCheck::Strict => Issue::error(
                IssueCode::MissingEnv,
                at,
                format!(
                    "the service lacks the required env name {} (unset or empty) and is not ready while it does; set it in the service's environment",
                    quoted(name)
                ),
            ),
            EnvCheck::Warn => Issue::warning(
                IssueCode::MissingEnv,
                at,
                format!(
                    "the service lacks the required env name {} (unset or empty) and serves anyway under the warn env check; set it, or calls that read it may fail",
                    quoted(name)
                ),
            ),
        };
        report.push(issue);
    }
    report.finish().into_issues()
}

fn quoted(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

fn check_tools(info: &ServiceInfo, deployment: &Deployment, report: &mut Report) {
    for tool in &deployment.tools {
        let same_id = || {
            info.tools
                .iter()
                .enumerate()
                .filter(|(_, s)| s.id == tool.id)
        };
        let served = match &tool.version {
            None => same_id().next().is_some(),
            Some(v) => same_id().any(|(_, s)| s.version.as_ref() == Some(v)),
        };
        if served {
            continue;
        }
        let indexed = match &tool.version {
            Some(v) => format!("tool {} version {}", quoted(&tool.id), quoted(v)),
            None => format!("tool {} (unversioned)", quoted(&tool.id)),
        };
        let others: Vec<(usize, String)> = same_id()
            .map(|(i, s)| (i, s.version.clone().unwrap_or_else(|| "unversioned".into())))
            .collect();
        match others.first() {
            None => report.push(Issue::error(
                IssueCode::ToolNotServed,
                "/tools",
                format!(
                    "{indexed} is indexed but the service does not serve it; redeploy the service with the deployed index"
                ),
            )),
            Some((i, _)) => {
                let served: Vec<&str> = others.iter().map(|(_, v)| v.as_str()).collect();
                report.push(Issue::error(
                    IssueCode::ToolVersionMismatch,
                    format!("/tools/{i}/version"),
                    format!(
                        "{indexed} is indexed but the service serves {} (calls naming the indexed version would fail with tool-version-mismatch); redeploy the service with the deployed index",
                        served.join(", ")
                    ),
                ));
            }
        }
    }
    for (i, served) in info.tools.iter().enumerate() {
        if !deployment.tools.iter().any(|t| t.id == served.id) {
            report.push(Issue::warning(
                IssueCode::ToolNotIndexed,
                format!("/tools/{i}"),
                format!(
                    "the service serves tool {}, which the deployed index does not have; the endpoint may serve another build",
                    quoted(&served.id)
                ),
            ));
        }
    }
}

fn check_checks(info: &ServiceInfo, deployment: &Deployment, report: &mut Report) {
    for check in &deployment.checks {
        if !info.checks.contains(check) {
            report.push(Issue::error(
                IssueCode::CheckNotServed,
                "/checks",
                format!(
                    "check {} is indexed but the service does not serve it; guardrails using it would fail with check-not-in-pack",
                    quoted(check)
                ),
            ));
        }
    }
    for (i, served) in info.checks.iter().enumerate() {
        if !deployment.checks.contains(served) && !deployment.built_in_checks.contains(served) {
            let mut at = String::from("/checks");
            pointer::push_index(&mut at, i);
            report.push(Issue::warning(
                IssueCode::CheckNotIndexed,
                at,
                format!(
                    "the service serves check {}, which the deployed index has no pack check for",
                    quoted(served)
                ),
            ));
        }
    }
}
