//! Agent rules (agents.md §2) on JSON values: every rule of upstream's `defineAgent` for an
//! agent read from the document (one whose shape failed, so the compile never saw it:
//! [`AgentRules::check`]), and the rules on the fields a typed agent keeps as JSON values
//! (retrieval, budget, conversationPolicy, toolErrors, output: [`open_field_issues`],
//! which the compile runs).
//!
//! Issues carry upstream's paths (under `/agents/<i>`) and messages. The rules on typed values
//! are [`super::agent_rules`]'s, which both paths call.

use crate::diagnostics::IssueCode;
use crate::diagnostics::{Issue, Severity, pointer};
use crate::range::is_exact_version;
use crate::schema::SchemaCache;
use serde_json::{Map, Value};

fn is_positive_integer(v: &Value) -> bool {
    v.as_u64().is_some_and(|n| n >= 1) || v.as_f64().is_some_and(|f| f >= 1.0 && f.fract() == 0.0)
}

fn is_non_negative_integer(v: &Value) -> bool {
    v.as_u64().is_some() || v.as_f64().is_some_and(|f| f >= 0.0 && f.fract() == 0.0)
}

fn non_empty_trimmed(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str).filter(|s| !s.trim().is_empty())
}

/// Collects issues for one agent at `base` (`/agents/<i>`).
pub(crate) struct AgentIssues<'a> {
    base: &'a str,
    issues: Vec<Issue>,
}

impl<'a> AgentIssues<'a> {
    pub(crate) fn new(base: &'a str) -> AgentIssues<'a> {
        AgentIssues {
            base,
            issues: Vec::new(),
        }
    }

    fn at(&self, tokens: &[&str]) -> String {
        pointer::join(self.base, tokens)
    }

    pub(crate) fn push(
        &mut self,
        code: IssueCode,
        severity: Severity,
        tokens: &[&str],
        message: impl Into<String>,
    ) {
        let at = self.at(tokens);
        self.issues.push(Issue::new(severity, code, at, message));
    }

    fn error(&mut self, tokens: &[&str], message: impl Into<String>) {
        self.push(IssueCode::InvalidAgent, Severity::Error, tokens, message);
    }

    fn error_at(&mut self, pointer: String, message: impl Into<String>) {
        self.issues
            .push(Issue::error(IssueCode::InvalidAgent, pointer, message));
    }

    pub(crate) fn into_issues(self) -> Vec<Issue> {
        self.issues
    }
}

/// The fields of a typed agent that stay JSON values, borrowed for their rules.
#[derive(Default)]
pub(crate) struct OpenFields<'a> {
    pub retrieval: &'a [Value],
    pub budget: Option<&'a Value>,
    pub conversation_policy: Option<&'a Value>,
    pub tool_errors: Option<&'a Value>,
    pub output: Option<&'a Value>,
}

/// What the structural rules need beyond the agent itself.
pub(crate) struct AgentRules<'a> {
    /// Whether an npm range string is valid (`semver.validRange`).
    pub valid_range: &'a (dyn Fn(&str) -> bool + Sync),
    /// The shared schema compile cache.
    pub schemas: &'a SchemaCache,
}

use super::agent_rules::{
    AgentHeadView, InstructionsView, PROMPT_PARAMETERS_MESSAGE, ParameterView,
    guardrail_ref_issues, head_issues, parameter_value_issues, settings_ref_value_issues,
    tool_ref_issues,
};
use crate::index::RANGE_MESSAGE;

impl AgentRules<'_> {
    /// Every `defineAgent` rule on an agent read from the document, in upstream's order:
    /// identity, content, block refs, arrays, retrieval, parameters, budget,
    /// conversationPolicy, toolErrors, output.
    pub(crate) fn check(&self, agent: &Map<String, Value>, out: &mut AgentIssues<'_>) {
        self.head(agent, out);
        self.block_refs(agent, out);
        self.parameters(agent.get("parameters"), &[], out);
        let retrieval = agent.get("retrieval");
        if retrieval.is_some_and(|r| !r.is_array()) {
            out.error(
                &["retrieval"],
                "retrieval must be an array of RetrievalIntents",
            );
        }
        let fields = OpenFields {
            retrieval: retrieval
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice),
            budget: agent.get("budget"),
            conversation_policy: agent.get("conversationPolicy"),
            tool_errors: agent.get("toolErrors"),
            output: agent.get("output"),
        };
        open_field_issues(&fields, self.schemas, out);
    }

    /// Whether a block reference's `version` is a range; a string's parse is the compile's to
    /// check when it saw the entry.
    fn range_ok(&self, version: Option<&Value>) -> bool {
        version
            .and_then(Value::as_str)
            .is_some_and(|v| (self.valid_range)(v))
    }

    /// Identity, instructions, capabilities, tool and guardrail references of an entry the
    /// compile did not see (it checks those of the others, with the same functions): each
    /// wrong field named, then the rules on the values.
    fn head(&self, agent: &Map<String, Value>, out: &mut AgentIssues<'_>) {
        if !agent
            .get("version")
            .and_then(Value::as_str)
            .is_some_and(is_exact_version)
        {
            out.error(&["version"], "version must be a valid semver string");
        }
        let instructions = match agent.get("instructions") {
            Some(Value::String(s)) => InstructionsView::Inline(s),
            Some(Value::Object(r)) => InstructionsView::Prompt(text(r.get("prompt"))),
            _ => InstructionsView::Neither,
        };
        let view = AgentHeadView {
            id: text(agent.get("id")),
            name: text(agent.get("name")),
            instructions,
            capabilities: agent
                .get("capabilities")
                .and_then(Value::as_array)
                .map(Vec::len),
        };
        out.issues.extend(head_issues(out.base, &view));
        if let Some(Value::Object(prompt_ref)) = agent.get("instructions") {
            if !self.range_ok(prompt_ref.get("version")) {
                out.error(&["instructions", "version"], RANGE_MESSAGE);
            }
            if agent.contains_key("parameters") {
                out.error(&["parameters"], PROMPT_PARAMETERS_MESSAGE);
            }
        }
        match agent.get("tools") {
            Some(Value::Array(tools)) => {
                let mut refs = Vec::new();
                for (j, tool) in tools.iter().enumerate() {
                    if tool.is_object() {
                        refs.push((j, text(tool.get("id")), text(tool.get("version"))));
                    } else {
                        out.error(&["tools", &j.to_string()], "each tool must be a { id, version } object; bare-string ids are not allowed");
                    }
                }
                out.issues
                    .extend(tool_ref_issues(out.base, refs.into_iter()));
            }
            _ => out.error(&["tools"], "tools must be an array of { id: string, version: string } refs. No bare-string ids — every tool must carry a semver range."),
        }
        match agent.get("guardrails") {
            None => {}
            Some(Value::Array(ids)) => {
                let ids = ids.iter().enumerate().map(|(j, id)| (j, id.as_str()));
                out.issues.extend(guardrail_ref_issues(out.base, ids));
            }
            Some(_) => out.error(
                &["guardrails"],
                "guardrails must be an array of guardrail ids",
            ),
        }
    }

    /// The settings and model-settings references of an entry the compile did not see (it
    /// checks those of the others): each wrong field named (as registration names it, see
    /// [`crate::index::settings_ref_issues`]), then the rules on their ids and ranges.
    fn block_refs(&self, agent: &Map<String, Value>, out: &mut AgentIssues<'_>) {
        let mut refs: Vec<(String, &Value)> = Vec::new();
        match agent.get("settings") {
            None => {}
            Some(Value::Array(list)) => {
                for (i, r) in list.iter().enumerate() {
                    refs.push((out.at(&["settings", &i.to_string()]), r));
                }
            }
            Some(_) => out.error(
                &["settings"],
                "settings must be an array of { id, version }",
            ),
        }
        if let Some(r) = agent.get("modelSettings") {
            refs.push((out.at(&["modelSettings"]), r));
        }
        for (at, r) in &refs {
            crate::index::settings_ref_issues(r, at, &mut out.issues);
            if r.get("version")
                .and_then(Value::as_str)
                .is_some_and(|v| !(self.valid_range)(v))
            {
                out.error_at(format!("{at}/version"), RANGE_MESSAGE);
            }
        }
        let ids = refs
            .iter()
            .filter_map(|(at, r)| Some((at.clone(), r.get("id")?.as_str()?)));
        out.issues.extend(settings_ref_value_issues(ids));
    }
}

/// The retrieval intents of an agent.
fn retrieval_intents(intents: &[Value], out: &mut AgentIssues<'_>) {
    const SCOPES: [&str; 5] = [
        "same-conversation",
        "same-user",
        "same-segment",
        "same-project",
        "tenant",
    ];
    const FIELDS: [&str; 6] = ["source", "types", "roles", "scope", "limit", "mode"];
    for (i, intent) in intents.iter().enumerate() {
        let index = i.to_string();
        let Some(obj) = intent.as_object() else {
            out.error(
                &["retrieval", &index],
                "each retrieval intent must be an object",
            );
            continue;
        };
        for key in obj.keys().filter(|k| !FIELDS.contains(&k.as_str())) {
            out.error(
                &["retrieval", &index, key],
                format!("unknown retrieval intent field \"{key}\""),
            );
        }
        let source = obj.get("source").and_then(Value::as_str).unwrap_or("facts");
        if !matches!(source, "facts" | "conversations") {
            out.error(
                &["retrieval", &index, "source"],
                "source must be facts or conversations",
            );
        }
        let types_ok = obj.get("types").and_then(Value::as_array).is_some_and(|t| {
            !t.is_empty() && t.iter().all(|x| non_empty_trimmed(Some(x)).is_some())
        });
        if source == "conversations" {
            if obj.contains_key("types") {
                out.error(
                    &["retrieval", &index, "types"],
                    "a conversations intent takes no types",
                );
            }
        } else if !types_ok {
            out.error(
                &["retrieval", &index, "types"],
                "each retrieval intent must declare at least one type",
            );
        }
        if let Some(roles) = obj.get("roles") {
            let ok = roles.as_array().is_some_and(|r| {
                !r.is_empty()
                    && r.iter()
                        .all(|x| matches!(x.as_str(), Some("user" | "agent")))
            });
            if !ok || source != "conversations" {
                out.error(
                    &["retrieval", &index, "roles"],
                    "roles must be a non-empty list of user, agent, on a conversations intent",
                );
            }
        }
        if !obj
            .get("scope")
            .and_then(Value::as_str)
            .is_some_and(|s| SCOPES.contains(&s))
        {
            out.error(
                &["retrieval", &index, "scope"],
                "scope must be same-conversation, same-user, same-segment, same-project, or tenant",
            );
        }
        if obj.get("limit").is_some_and(|l| !is_positive_integer(l)) {
            out.error(
                &["retrieval", &index, "limit"],
                "limit must be a positive integer",
            );
        }
        if obj
            .get("mode")
            .is_some_and(|m| !matches!(m.as_str(), Some("keyword" | "semantic" | "both")))
        {
            out.error(
                &["retrieval", &index, "mode"],
                "mode must be keyword, semantic, or both",
            );
        }
    }
}

impl AgentRules<'_> {
    /// Parameter rules (agents.md §2) of a `parameters` list read from an entry the compile
    /// did not see (it checks those of the others), shared with prompt blocks (`prefix` is
    /// where the list sits relative to the issue base: `[]` for agents, `["content"]` for
    /// blocks): each wrong field named as registration names it
    /// ([`crate::index::parameter_list_issues`]), then the rules on the values.
    pub(crate) fn parameters(
        &self,
        value: Option<&Value>,
        prefix: &[&str],
        out: &mut AgentIssues<'_>,
    ) {
        let Some(value) = value else {
            return;
        };
        let list = pointer::join(out.base, &[prefix, &["parameters"]].concat());
        crate::index::parameter_list_issues(value, &list, IssueCode::InvalidAgent, &mut out.issues);
        let items = value.as_array().map_or(&[][..], Vec::as_slice);
        let views = items.iter().map(ParameterView::of_raw);
        out.issues.extend(parameter_value_issues(
            views,
            &list,
            IssueCode::InvalidAgent,
        ));
    }
}

/// `output` `{schema, name?, maxRepairs?}`, its schema compiled under Ajv strict mode.
fn output(output: Option<&Value>, schemas: &SchemaCache, out: &mut AgentIssues<'_>) {
    let Some(output) = output else {
        return;
    };
    let Some(obj) = output.as_object() else {
        out.error(
            &["output"],
            "output must be an object { schema, name?, maxRepairs? }",
        );
        return;
    };
    for key in obj
        .keys()
        .filter(|k| !matches!(k.as_str(), "schema" | "name" | "maxRepairs"))
    {
        out.error(&["output", key], format!("unknown output field \"{key}\""));
    }
    if obj
        .get("maxRepairs")
        .is_some_and(|m| !is_non_negative_integer(m))
    {
        out.error(
            &["output", "maxRepairs"],
            "maxRepairs must be a non-negative integer",
        );
    }
    if obj
        .get("name")
        .is_some_and(|n| non_empty_trimmed(Some(n)).is_none())
    {
        out.error(&["output", "name"], "name must be a non-empty string");
    }
    match obj.get("schema") {
        None => out.error(
            &["output", "schema"],
            "output needs a schema (JSON Schema draft 2020-12)",
        ),
        Some(schema) => {
            let at = out.at(&["output", "schema"]);
            out.issues.extend(schemas.compile_issues(schema, &at));
        }
    }
}

/// The rules on the fields a typed agent keeps as JSON values (`fields`), in upstream's
/// order: retrieval, budget, conversationPolicy, toolErrors, output. The compile runs these
/// for a typed agent; [`AgentRules::check`] runs them for an agent whose shape failed.
pub(crate) fn open_field_issues(
    fields: &OpenFields<'_>,
    schemas: &SchemaCache,
    out: &mut AgentIssues<'_>,
) {
    retrieval_intents(fields.retrieval, out);
    budget(fields.budget, out);
    conversation_policy(fields.conversation_policy, out);
    tool_errors(fields.tool_errors, out);
    output(fields.output, schemas, out);
}

/// `v` when it is a string.
fn text(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str)
}

fn budget(value: Option<&Value>, out: &mut AgentIssues<'_>) {
    let Some(budget) = value.and_then(Value::as_object) else {
        return;
    };
    for key in budget.keys() {
        match key.as_str() {
            "maxSteps" | "maxWallMs" => {
                if !is_positive_integer(&budget[key]) {
                    out.error(
                        &["budget", key],
                        format!("{key} must be a positive integer"),
                    );
                }
            }
            "maxCostUsd" => {
                if !budget[key].as_f64().is_some_and(|f| f >= 0.0) {
                    out.error(&["budget", key], "maxCostUsd must be a non-negative number");
                }
            }
            _ => out.error(
                &["budget", key],
                format!("unknown budget field \"{key}\" (maxSteps, maxCostUsd, maxWallMs)"),
            ),
        }
    }
}

fn conversation_policy(value: Option<&Value>, out: &mut AgentIssues<'_>) {
    let Some(policy) = value.and_then(Value::as_object) else {
        return;
    };
    const ROLES: [&str; 3] = ["standard", "senior", "admin"];
    const MODES: [&str; 3] = ["never_ask", "ask_on_first_use", "always_ask"];
    for (key, value) in policy {
        match key.as_str() {
            "autoCloseAfterInactiveSeconds" => out.error(
                &["conversationPolicy", key],
                "autoCloseAfterInactiveSeconds is refused in a pack index: a conversation never closes by itself, only when someone closes it",
            ),
            "historyLimit" | "hitlAfterTurns" => {
                if !is_positive_integer(value) {
                    out.error(&["conversationPolicy", key], format!("{key} must be a positive integer"));
                }
            }
            "hitl" => {
                let Some(hitl) = value.as_object() else {
                    out.error(&["conversationPolicy", "hitl"], "hitl must be an object");
                    continue;
                };
                for (k, v) in hitl {
                    let p = ["conversationPolicy", "hitl", k.as_str()];
                    match k.as_str() {
                        "afterTurns" if !is_positive_integer(v) => out.error(&p, "hitl.afterTurns must be a positive integer"),
                        "timeoutMs" if !is_positive_integer(v) => out.error(&p, "hitl.timeoutMs must be a positive integer (ms)"),
                        "onTimeout" => match v.as_str() {
                            Some("escalate") => {}
                            Some(other @ ("auto-approve" | "auto-reject")) => out.error(&p, format!(
                                "hitl.onTimeout '{other}' isn't supported: an approval that times out escalates one reviewer tier, and at admin it expires (the turn fails with hitl-cancelled). Use 'escalate', or leave it out."
                            )),
                            _ => out.error(&p, "hitl.onTimeout must be 'escalate'"),
                        },
                        "defaultReviewerRole" if !v.as_str().is_some_and(|r| ROLES.contains(&r)) => {
                            out.error(&p, "hitl.defaultReviewerRole must be one of: standard, senior, admin");
                        }
                        "tools" => hitl_tools(v, out, &MODES, &ROLES),
                        "afterTurns" | "timeoutMs" | "defaultReviewerRole" => {}
                        _ => out.error(&p, format!("unknown hitl field \"{k}\"")),
                    }
                }
            }
            _ => out.error(&["conversationPolicy", key], format!("unknown conversationPolicy field \"{key}\"")),
        }
    }
}

fn hitl_tools(value: &Value, out: &mut AgentIssues<'_>, modes: &[&str], roles: &[&str]) {
    let Some(tools) = value.as_object() else {
        out.error(
            &["conversationPolicy", "hitl", "tools"],
            "hitl.tools must be an object { default?, overrides? }",
        );
        return;
    };
    if tools
        .get("default")
        .is_some_and(|d| !d.as_str().is_some_and(|m| modes.contains(&m)))
    {
        out.error(
            &["conversationPolicy", "hitl", "tools", "default"],
            "hitl.tools.default must be one of: never_ask, ask_on_first_use, always_ask",
        );
    }
    if let Some(overrides) = tools.get("overrides").and_then(Value::as_object) {
        for (tool, o) in overrides {
            let base = [
                "conversationPolicy",
                "hitl",
                "tools",
                "overrides",
                tool.as_str(),
            ];
            let (mode, role) = match o {
                Value::String(m) => (Some(m.as_str()), None),
                Value::Object(obj) => (
                    obj.get("mode").and_then(Value::as_str),
                    obj.get("requiredRole"),
                ),
                _ => (None, None),
            };
            if !mode.is_some_and(|m| modes.contains(&m)) {
                out.error(
                    &base,
                    "override mode must be one of: never_ask, ask_on_first_use, always_ask",
                );
            }
            if role.is_some_and(|r| !r.as_str().is_some_and(|r| roles.contains(&r))) {
                out.error(
                    &[&base[..], &["requiredRole"]].concat(),
                    "override requiredRole must be one of: standard, senior, admin",
                );
            }
        }
    }
}

/// `toolErrors` per `validateToolErrorsSpec`: `maxRetries` an integer 0..=10, `retryOn` unique
/// values of invalid-arguments, unknown-tool, tool-error.
fn tool_errors(value: Option<&Value>, out: &mut AgentIssues<'_>) {
    let Some(spec) = value.and_then(Value::as_object) else {
        return;
    };
    for (key, value) in spec {
        match key.as_str() {
            "maxRetries" => {
                if value.as_u64().is_none_or(|n| n > 10) {
                    out.error(
                        &["toolErrors", "maxRetries"],
                        "maxRetries must be an integer from 0 to 10",
                    );
                }
            }
            "retryOn" => {
                let Some(kinds) = value.as_array() else {
                    out.error(&["toolErrors", "retryOn"], "retryOn must be an array");
                    continue;
                };
                for (i, kind) in kinds.iter().enumerate() {
                    let index = i.to_string();
                    if !matches!(
                        kind.as_str(),
                        Some("invalid-arguments" | "unknown-tool" | "tool-error")
                    ) {
                        out.error(
                            &["toolErrors", "retryOn", &index],
                            "retryOn items must be invalid-arguments, unknown-tool, or tool-error",
                        );
                    } else if kinds[..i].contains(kind) {
                        out.error(
                            &["toolErrors", "retryOn", &index],
                            "retryOn items must be unique",
                        );
                    }
                }
            }
            _ => out.error(
                &["toolErrors", key],
                format!("unknown toolErrors field \"{key}\" (maxRetries, retryOn)"),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(agent: Value) -> Vec<(String, String, String)> {
        let schemas = SchemaCache::new();
        let rules = AgentRules {
            valid_range: &|r: &str| !r.contains('!'),
            schemas: &schemas,
        };
        let mut out = AgentIssues::new("/agents/0");
        rules.check(agent.as_object().expect("object"), &mut out);
        out.into_issues()
            .into_iter()
            .map(|i| {
                (
                    i.code().to_string(),
                    i.instance_path().to_owned(),
                    i.message().to_owned(),
                )
            })
            .collect()
    }

    fn valid() -> Value {
        json!({"id":"a.b","version":"1.0.0","name":"A","instructions":"Hi {{ x }}",
               "capabilities":[{"needs":[{"feature":"tool-use"}]}],"tools":[],"modulePath":"a.ts",
               "parameters":[{"name":"x","type":"string"}]})
    }

    #[test]
    fn a_valid_agent_has_no_issues() {
        assert_eq!(check(valid()), vec![]);
    }

    #[test]
    fn exact_versions() {
        assert!(is_exact_version("1.2.3-rc.1"));
        assert!(is_exact_version("01.2.3"));
        assert!(!is_exact_version("1.2.3+build"));
        assert!(!is_exact_version("1.2"));
    }

    #[test]
    fn one_agent_with_many_problems_reports_them_all() {
        let agent = json!({
            "id": " ", "version": "1.0", "name": "",
            "instructions": {"prompt": "Bad", "version": "!"},
            "parameters": [{"name": "today", "type": "text"}, {"name": "x", "type": "number", "default": "five"}, {"name": "x", "type": "string"}],
            "capabilities": [],
            "settings": [{"id": "acme.s", "version": "1.x"}, {"id": "acme.s", "version": "!"}, "nope"],
            "modelSettings": {"id": "acme.s", "version": "1.x"},
            "tools": [{"id": "t", "version": ""}, "bare", {"id": "t", "version": "1"}],
            "guardrails": ["g", "g", ""],
            "retrieval": [{"scope": "world", "limit": 0}],
            "budget": {"maxSteps": 0, "maxCostUsd": -1, "maxWallMs": 1.5},
            "conversationPolicy": {"historyLimit": 0, "autoCloseAfterInactiveSeconds": 60,
                "hitl": {"onTimeout": "auto-approve", "defaultReviewerRole": "boss", "tools": {"default": "sometimes"}}},
            "toolErrors": {"maxRetries": 11, "retryOn": ["tool-error", "tool-error"]},
            "output": {"maxRepairs": -1, "name": "", "schema": {"type": "object", "oops": true}}
        });
        let got = check(agent);
        let paths: Vec<&str> = got.iter().map(|(_, p, _)| p.as_str()).collect();
        for want in [
            "/agents/0/id",
            "/agents/0/version",
            "/agents/0/name",
            "/agents/0/instructions/prompt",
            "/agents/0/instructions/version",
            "/agents/0/parameters",
            "/agents/0/capabilities",
            "/agents/0/settings/1/id",
            "/agents/0/settings/1/version",
            "/agents/0/settings/2",
            "/agents/0/modelSettings/id",
            "/agents/0/tools/0/version",
            "/agents/0/tools/1",
            "/agents/0/tools/2/id",
            "/agents/0/guardrails/1",
            "/agents/0/guardrails/2",
            "/agents/0/retrieval/0/types",
            "/agents/0/retrieval/0/scope",
            "/agents/0/retrieval/0/limit",
            "/agents/0/parameters/0/name",
            "/agents/0/parameters/0/type",
            "/agents/0/parameters/1/default",
            "/agents/0/parameters/2/name",
            "/agents/0/budget/maxSteps",
            "/agents/0/budget/maxCostUsd",
            "/agents/0/budget/maxWallMs",
            "/agents/0/conversationPolicy/historyLimit",
            "/agents/0/conversationPolicy/autoCloseAfterInactiveSeconds",
            "/agents/0/conversationPolicy/hitl/onTimeout",
            "/agents/0/conversationPolicy/hitl/defaultReviewerRole",
            "/agents/0/conversationPolicy/hitl/tools/default",
            "/agents/0/toolErrors/maxRetries",
            "/agents/0/toolErrors/retryOn/1",
            "/agents/0/output/maxRepairs",
            "/agents/0/output/name",
            "/agents/0/output/schema",
        ] {
            assert!(paths.contains(&want), "no issue at {want}: {got:#?}");
        }
        assert!(got.len() >= 36);
        let msg = |p: &str| {
            got.iter()
                .find(|(_, q, _)| q == p)
                .map(|(_, _, m)| m.clone())
                .expect("issue")
        };
        assert_eq!(
            msg("/agents/0/parameters/0/name"),
            "\"today\" is a reserved auto-injected variable — do not declare it as a parameter"
        );
        assert_eq!(
            msg("/agents/0/parameters/2/name"),
            "duplicate parameter name \"x\""
        );
        assert_eq!(
            msg("/agents/0/modelSettings/id"),
            "settings block \"acme.s\" is referenced twice"
        );
        assert_eq!(
            msg("/agents/0/output/schema"),
            "Inline schema failed to compile: strict mode: unknown keyword: \"oops\""
        );
        assert_eq!(
            msg("/agents/0/parameters/1/default"),
            "default \"five\" does not match the declared type number"
        );
    }

    #[test]
    fn input_parameter_is_a_warning() {
        let mut a = valid();
        a["parameters"] = json!([{"name": "input", "type": "string"}]);
        let got = check(a);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].0, IssueCode::InputParameter.as_str());
    }
}
