//! Pack protocol v2: upstream's example messages and their mutations, the service check on the
//! fixture packs, call contexts from run plans, tool input validation.

mod util;

use runstart::protocol::{
    self, CallSite, Deployment, EnvCheck, EnvScopes, ErrorCode, Message, Request, Response,
    ServedTool, ServiceInfo, ToolFiles, WaitToken, check_service_info, parse_info,
    parse_message_value,
};
use runstart::run::{RunPlan, RunRequest, RunStart};
use serde_json::{Value, json};

const EXAMPLES: [&str; 4] = ["check-invoke", "info", "input-invalid", "tool-invoke"];

fn example(name: &str) -> Option<Value> {
    let text = util::shared_file(&format!("upstream/pack-protocol.example.{name}.json"))?;
    Some(serde_json::from_str(&text).expect("the example is JSON"))
}

/// Removes the member at `path` (dot-separated, `issues.0.message`).
fn remove(value: &mut Value, path: &str) {
    let mut parts: Vec<&str> = path.split('.').collect();
    let last = parts.pop().expect("a path");
    let mut at = value;
    for p in parts {
        at = match p.parse::<usize>() {
            Ok(i) => &mut at[i],
            Err(_) => &mut at[p],
        };
    }
    at.as_object_mut()
        .expect("an object holds the field")
        .remove(last)
        .expect("the field is there");
}

fn parse_any(name: &str, v: &Value) -> Result<(), Box<protocol::PackError>> {
    if name == "info" {
        parse_info(v).map(|_| ())
    } else {
        parse_message_value(v).map(|_| ())
    }
}

#[test]
fn every_upstream_example_parses_and_round_trips() {
    for name in EXAMPLES {
        let Some(v) = example(name) else { return };
        let parsed = parse_message_value(&v).unwrap_or_else(|e| panic!("{name}: {e}"));
        let kinds = [
            ("check-invoke", "check-invoke"),
            ("info", "info"),
            ("input-invalid", "error"),
            ("tool-invoke", "invoke"),
        ];
        let kind = kinds.iter().find(|(n, _)| *n == name).expect("listed").1;
        assert_eq!(parsed.kind(), kind, "{name}");
        // Nothing is lost: the typed message serializes back to the same JSON.
        assert_eq!(
            serde_json::to_value(&parsed).expect("serializes"),
            v,
            "{name}"
        );
    }
    let Some(v) = example("input-invalid") else {
        return;
    };
    let Ok(Message::Response(Response::Error(e))) = parse_message_value(&v) else {
        panic!("an error message")
    };
    assert_eq!(e.code, ErrorCode::InputValidationFailed);
    let issue = &e.issues.expect("issues")[0];
    assert_eq!(issue.keyword.as_deref(), Some("required"));
    assert_eq!(
        issue.params.as_ref().expect("params")["missingProperty"],
        "amountCents"
    );
    let Some(v) = example("tool-invoke") else {
        return;
    };
    let Ok(Message::Request(Request::Invoke(i))) = parse_message_value(&v) else {
        panic!("an invoke")
    };
    assert_eq!(i.tool.version.as_deref(), Some("1.0.0"));
    assert_eq!(i.ctx.env.expect("env")["LEDGER_DB"], "postgres://ledger");
}

#[test]
fn a_missing_required_field_gets_the_protocols_error() {
    // Every required field of each example, as the seed lists them.
    let required: [(&str, &[&str]); 4] = [
        (
            "tool-invoke",
            &[
                "tool",
                "tool.id",
                "input",
                "ctx",
                "ctx.tenantId",
                "ctx.runId",
            ],
        ),
        ("check-invoke", &["check", "check.id", "config", "trace"]),
        (
            "input-invalid",
            &[
                "code",
                "message",
                "issues.0.instancePath",
                "issues.0.message",
            ],
        ),
        (
            "info",
            &[
                "packId",
                "packVersion",
                "artifactVersion",
                "tools",
                "tools.0.id",
                "checks",
            ],
        ),
    ];
    let mut checked = 0;
    for (name, fields) in required {
        let Some(v) = example(name) else { return };
        for field in fields {
            let mut m = v.clone();
            remove(&mut m, field);
            let e = parse_any(name, &m).expect_err(field);
            assert_eq!(
                e.code,
                ErrorCode::MalformedMessage,
                "{name} without {field}"
            );
            assert!(!e.message.is_empty());
            checked += 1;
        }
        if name != "info" {
            let mut m = v.clone();
            remove(&mut m, "v");
            assert_eq!(
                parse_any(name, &m).expect_err("no v").code,
                ErrorCode::UnknownProtocolVersion
            );
            let mut m = v.clone();
            remove(&mut m, "kind");
            let e = parse_any(name, &m).expect_err("no kind");
            assert_eq!(e.code, ErrorCode::UnexpectedMessageKind);
            assert_eq!(e.message, "Unknown message kind undefined");
            checked += 2;
        } else {
            let mut m = v.clone();
            remove(&mut m, "protocol");
            let e = parse_info(&m).expect_err("no protocol");
            assert_eq!(e.code, ErrorCode::UnknownProtocolVersion);
            checked += 1;
        }
    }
    assert_eq!(checked, 27);
    // Messages name the field, in upstream's words where upstream has them.
    let Some(v) = example("tool-invoke") else {
        return;
    };
    let mut m = v.clone();
    remove(&mut m, "ctx.runId");
    assert_eq!(
        parse_message_value(&m).expect_err("no runId").message,
        "`ctx` needs string `tenantId` and `runId`"
    );
    let mut m = v;
    remove(&mut m, "tool.id");
    assert_eq!(
        parse_message_value(&m).expect_err("no tool id").message,
        "`tool.id` is required"
    );
}

#[test]
fn wrong_v_wrong_kind_and_unknown_error_codes() {
    for name in ["check-invoke", "input-invalid", "tool-invoke"] {
        let Some(v) = example(name) else { return };
        for (bad, shown) in [
            (json!(1), "1"),
            (json!(3), "3"),
            (json!("2"), "\"2\""),
            (json!(null), "null"),
            (json!(2.5), "2.5"),
        ] {
            let mut m = v.clone();
            m["v"] = bad;
            let e = parse_message_value(&m).expect_err("wrong v");
            assert_eq!(e.code, ErrorCode::UnknownProtocolVersion, "{name}");
            assert_eq!(e.message, format!("Expected protocol v2, got {shown}"));
        }
        for bad in [json!("invoke2"), json!("Invoke"), json!(7), json!("info")] {
            let mut m = v.clone();
            m["kind"] = bad.clone();
            let e = parse_message_value(&m).expect_err("wrong kind");
            assert_eq!(e.code, ErrorCode::UnexpectedMessageKind, "{name} {bad}");
            assert_eq!(e.message, format!("Unknown message kind {bad}"));
        }
    }
    let Some(v) = example("info") else { return };
    let mut m = v;
    m["protocol"] = json!(1);
    let e = parse_info(&m).expect_err("protocol 1");
    assert_eq!(e.code, ErrorCode::UnknownProtocolVersion);
    assert_eq!(e.message, "Expected protocol v2, got 1");
    let Some(v) = example("input-invalid") else {
        return;
    };
    for bad in [
        json!("input-invalid"),
        json!("INPUT-VALIDATION-FAILED"),
        json!(3),
    ] {
        let mut m = v.clone();
        m["code"] = bad;
        assert_eq!(
            parse_message_value(&m).expect_err("unknown code").code,
            ErrorCode::MalformedMessage
        );
    }
    // A request kind is not a response, and the other way round.
    let Some(v) = example("tool-invoke") else {
        return;
    };
    let e = protocol::parse_response(&v).expect_err("a request");
    assert_eq!(e.code, ErrorCode::UnexpectedMessageKind);
    assert_eq!(e.message, "Unknown response kind \"invoke\"");
}

fn fixture(pack: &str) -> Vec<u8> {
    std::fs::read(format!("fixtures/packs/{pack}/index.json")).expect("fixture pack")
}

/// An info answer that matches `bytes` exactly, as upstream's pack service writes it.
fn matching_info(bytes: &[u8]) -> ServiceInfo {
    let index: Value = serde_json::from_slice(bytes).expect("JSON");
    let tools = index["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| ServedTool {
            id: t["id"].as_str().expect("id").to_owned(),
            version: t["version"].as_str().map(str::to_owned),
        })
        .collect();
    let checks = index["guardrails"]
        .as_array()
        .expect("guardrails")
        .iter()
        .map(|g| {
            g["checkId"]
                .as_str()
                .or(g["id"].as_str())
                .expect("an id")
                .to_owned()
        })
        .collect();
    ServiceInfo {
        protocol: 2,
        pack_id: index["packId"].as_str().expect("packId").to_owned(),
        pack_version: index["packVersion"]
            .as_str()
            .expect("packVersion")
            .to_owned(),
        artifact_version: index["artifactVersion"].as_str().expect("a").to_owned(),
        index_hash: Some(runstart::index::index_hash(bytes)),
        tools,
        checks,
        missing_env: Some(Vec::new()),
    }
}

fn codes(issues: &[runstart::diagnostics::Issue]) -> Vec<(&str, &str, &str)> {
    issues
        .iter()
        .map(|i| (i.code().as_str(), i.severity().as_str(), i.instance_path()))
        .collect()
}

#[test]
fn service_check_is_clean_on_a_matching_info_and_names_each_mismatch() {
    for pack in ["support-desk", "order-review"] {
        let bytes = fixture(pack);
        let d = Deployment::new(&bytes).expect("usable");
        let info = matching_info(&bytes);
        assert_eq!(check_service_info(&info, &d), vec![], "{pack}");
        // The info answer round-trips through the protocol's parser unchanged.
        let parsed = parse_info(&serde_json::to_value(&info).expect("json")).expect("parses");
        assert_eq!(parsed, info);

        let mut hash = info.clone();
        hash.index_hash = Some(runstart::index::index_hash(b"another index"));
        assert_eq!(
            codes(&check_service_info(&hash, &d)),
            vec![("index-hash-mismatch", "error", "/indexHash")]
        );
        let mut older = info.clone();
        older.index_hash = None;
        assert_eq!(
            codes(&check_service_info(&older, &d)),
            vec![("index-hash-absent", "warning", "/indexHash")]
        );

        let mut version = info.clone();
        version.tools[1].version = Some("99.0.0".into());
        assert_eq!(
            codes(&check_service_info(&version, &d)),
            vec![("tool-version-mismatch", "error", "/tools/1/version")],
            "{pack}"
        );
        let mut gone = info.clone();
        let removed = gone.tools.remove(0);
        let issues = check_service_info(&gone, &d);
        assert_eq!(codes(&issues), vec![("tool-not-served", "error", "/tools")]);
        assert!(issues[0].message().contains(&removed.id));

        let mut check = info.clone();
        let missing = check.checks.pop().expect("a check");
        let issues = check_service_info(&check, &d);
        assert_eq!(
            codes(&issues),
            vec![("check-not-served", "error", "/checks")]
        );
        assert!(issues[0].message().contains(&missing));

        let mut env = info.clone();
        env.missing_env = Some(vec![d.required_env()[0].clone()]);
        assert_eq!(
            codes(&check_service_info(&env, &d)),
            vec![("missing-env", "error", "/missingEnv/0")]
        );
        let warn = Deployment::new(&bytes)
            .expect("usable")
            .with_env_check(EnvCheck::Warn);
        assert_eq!(
            codes(&check_service_info(&env, &warn)),
            vec![("missing-env", "warning", "/missingEnv/0")]
        );

        let mut identity = info.clone();
        identity.protocol = 3;
        identity.pack_id.push('x');
        identity.pack_version = "0.0.1".into();
        identity.artifact_version = "20200101.1".into();
        identity.tools.push(ServedTool {
            id: "not.indexed".into(),
            version: None,
        });
        identity.checks.push("not.indexed".into());
        let n_tools = identity.tools.len() - 1;
        let n_checks = identity.checks.len() - 1;
        assert_eq!(
            codes(&check_service_info(&identity, &d)),
            vec![
                ("artifact-version-mismatch", "error", "/artifactVersion"),
                (
                    "check-not-indexed",
                    "warning",
                    &*format!("/checks/{n_checks}")
                ),
                ("pack-id-mismatch", "error", "/packId"),
                ("pack-version-mismatch", "error", "/packVersion"),
                ("protocol-version-mismatch", "error", "/protocol"),
                ("tool-not-indexed", "warning", &*format!("/tools/{n_tools}")),
            ]
        );
    }
}

#[test]
fn a_built_in_check_need_not_be_served_and_may_be() {
    let mut index: Value = serde_json::from_slice(&fixture("order-review")).expect("JSON");
    index["guardrails"][0]["checkBuiltIn"] = json!(true);
    let bytes = serde_json::to_vec(&index).expect("bytes");
    let d = Deployment::new(&bytes).expect("usable");
    let mut info = matching_info(&bytes);
    assert_eq!(check_service_info(&info, &d), vec![]);
    info.checks.remove(0);
    assert_eq!(check_service_info(&info, &d), vec![]);
}

fn plan_for(bytes: &[u8], agent: &str, parameters: Value) -> RunPlan {
    let run_start = RunStart::new();
    let pack = runstart::index::load(bytes).index.expect("index");
    run_start.register_pack("acme", &pack).expect("registers");
    let providers: Vec<runstart::route::ProviderMetadata> =
        serde_json::from_slice(&std::fs::read("fixtures/providers.json").expect("providers"))
            .expect("providers parse");
    for p in providers {
        run_start.register_provider("acme", p).expect("provider");
    }
    let request: RunRequest = serde_json::from_value(json!({
        "tenantId": "acme", "agent": {"id": agent}, "parameters": parameters,
        "now": "2026-11-30T09:00:00.000Z"
    }))
    .expect("request");
    run_start.prepare(&request).expect("a plan")
}

#[test]
fn call_context_from_a_plan() {
    let bytes = fixture("support-desk");
    let d = Deployment::new(&bytes).expect("usable");
    let plan = plan_for(
        &bytes,
        "support.reply-drafter",
        json!({"customerName": "Ana", "ticketId": "T-9"}),
    );
    let mut env = EnvScopes::new();
    env.tenant
        .insert("CRM_API_URL".into(), "https://tenant.example".into());
    env.org.insert("CRM_API_URL".into(), String::new());
    env.project.insert("UNDECLARED".into(), "never sent".into());
    let files = ToolFiles {
        url: "https://files.example/c1".into(),
        token: "secret".into(),
    };
    let token = WaitToken {
        id: "w1".into(),
        url: "https://wait.example/w1".into(),
    };
    let site = CallSite::new("acme", "run-7")
        .with_project("p1")
        .with_org("o1")
        .with_request_id("toolu_9")
        .with_step_scope("agent-loop#1/dispatch-tools")
        .with_call_id("toolu_9")
        .with_env(&env)
        .with_wait_token(&token)
        .with_tool_files(&files);
    let invoke = d
        .invoke(
            &plan,
            "support.customers.lookup",
            json!({"email": "a@b.example"}),
            &site,
        )
        .expect("a call context");
    let wire = serde_json::to_value(Request::from(invoke)).expect("json");
    let key = runstart::protocol::idempotency_key(
        "run-7",
        "agent-loop#1/dispatch-tools",
        "support.customers.lookup",
        Some("toolu_9"),
    )
    .to_string();
    assert_eq!(
        wire,
        json!({
            "v": 2, "kind": "invoke",
            "tool": {"id": "support.customers.lookup", "version": "3.2.0"},
            "input": {"email": "a@b.example"},
            "ctx": {
                "tenantId": "acme", "runId": "run-7", "projectId": "p1", "orgId": "o1",
                "requestId": "toolu_9", "idempotencyKey": key,
                // The org's empty value counts as unset: the tenant's wins.
                "env": {"CRM_API_URL": "https://tenant.example"},
                "settings": {"support.reply-style": {"maxWords": 180, "tone": "warm"}}
            }
        })
    );
    // What the runtime sends is a message the protocol's parser accepts as is.
    let back = parse_message_value(&wire).expect("parses");
    assert_eq!(serde_json::to_value(&back).expect("json"), wire);
    // A tool that declares no env gets none; the project's value wins over the tenant's.
    let mut env = env.clone();
    env.project
        .insert("CRM_API_URL".into(), "https://project.example".into());
    let site = CallSite::new("acme", "run-7")
        .with_step_scope("s")
        .with_env(&env);
    let (_, ctx) = d
        .call_context(&plan, "support.customers.lookup", &site)
        .expect("ctx");
    assert_eq!(
        ctx.env.expect("env")["CRM_API_URL"],
        "https://project.example"
    );
    let (tool, ctx) = d
        .call_context(&plan, "support.kb.search", &site)
        .expect("ctx");
    assert_eq!(tool.version.as_deref(), Some("0.9.3"));
    assert_eq!(ctx.env, None);
    // No step scope: no idempotency key.
    let bare = CallSite::new("acme", "run-7").with_env(&env);
    let (_, ctx) = d
        .call_context(&plan, "support.kb.search", &bare)
        .expect("ctx");
    assert_eq!(ctx.idempotency_key, None);
}

#[test]
fn call_context_problems_are_issues() {
    let bytes = fixture("support-desk");
    let d = Deployment::new(&bytes).expect("usable");
    let plan = plan_for(
        &bytes,
        "support.reply-drafter",
        json!({"customerName": "Ana", "ticketId": "T-9"}),
    );
    let site = CallSite::new("acme", "run-7");
    let e = d
        .call_context(&plan, "support.customers.lookup", &site)
        .expect_err("no env value");
    assert_eq!(
        codes(&e),
        vec![("env-value-missing", "error", "/ctx/env/CRM_API_URL")]
    );
    let e = d
        .call_context(&plan, "support.sla.check", &site)
        .expect_err("not the agent's tool");
    assert_eq!(codes(&e), vec![("tool-not-planned", "error", "/tool/id")]);
    // The plan comes from another pack: its agent's settings are unknown here.
    let other = Deployment::new(&fixture("order-review")).expect("usable");
    let e = other
        .call_context(&plan, "support.kb.search", &site)
        .expect_err("not deployed here");
    assert_eq!(
        codes(&e),
        vec![("tool-not-in-deployment", "error", "/tool/version")]
    );
}

#[test]
fn env_defaults_and_schemas() {
    let mut index: Value = serde_json::from_slice(&fixture("support-desk")).expect("JSON");
    let lookup = index["tools"]
        .as_array_mut()
        .expect("tools")
        .iter_mut()
        .find(|t| t["id"] == "support.customers.lookup")
        .expect("the tool");
    lookup["needsSpec"]["env"] = json!({
        "CRM_API_URL": {"type": "string", "pattern": "^https://"},
        "CRM_REGION": {"type": "string", "enum": ["eu", "us"], "default": "eu"}
    });
    let bytes = serde_json::to_vec(&index).expect("bytes");
    let d = Deployment::new(&bytes).expect("usable");
    let plan = plan_for(
        &bytes,
        "support.reply-drafter",
        json!({"customerName": "Ana", "ticketId": "T-9"}),
    );
    let mut env = EnvScopes::new();
    env.tenant
        .insert("CRM_API_URL".into(), "http://plain".into());
    let site = CallSite::new("acme", "r").with_env(&env);
    let e = d
        .call_context(&plan, "support.customers.lookup", &site)
        .expect_err("not https");
    assert_eq!(
        codes(&e),
        vec![("env-value-invalid", "error", "/ctx/env/CRM_API_URL")]
    );
    assert!(
        e[0].message().contains("must match pattern"),
        "{}",
        e[0].message()
    );
    env.tenant
        .insert("CRM_API_URL".into(), "https://crm".into());
    let site = CallSite::new("acme", "r").with_env(&env);
    let (_, ctx) = d
        .call_context(&plan, "support.customers.lookup", &site)
        .expect("ctx");
    let env_sent = ctx.env.expect("env");
    assert_eq!(env_sent["CRM_REGION"], "eu", "the schema default");
    assert_eq!(env_sent.len(), 2);
    // A non-string default is refused when the deployment is built, as upstream refuses it.
    lookup_default(&mut index, json!(3));
    let bytes = serde_json::to_vec(&index).expect("bytes");
    let e = Deployment::new(&bytes).expect_err("a numeric default");
    assert_eq!(e[0].code(), "invalid-env-need");
    assert_eq!(
        e[0].instance_path(),
        "/tools/0/needsSpec/env/CRM_REGION/default"
    );
}

fn lookup_default(index: &mut Value, default: Value) {
    let lookup = index["tools"]
        .as_array_mut()
        .expect("tools")
        .iter_mut()
        .find(|t| t["id"] == "support.customers.lookup")
        .expect("the tool");
    lookup["needsSpec"]["env"]["CRM_REGION"]["default"] = default;
}

#[test]
fn wait_tokens_go_only_to_tools_that_pause_and_files_only_to_tools_with_files() {
    let mut index: Value = serde_json::from_slice(&fixture("order-review")).expect("JSON");
    for t in index["tools"].as_array_mut().expect("tools") {
        match t["id"].as_str() {
            Some("shop.inventory.check") => t["readsFiles"] = json!(true),
            Some("shop.orders.get") => t["storesFiles"] = json!(true),
            // The fixture says `pauses: false`; the deployment says it pauses (a plan pins
            // versions, not flags, so the run's registration may keep the fixture's).
            Some("shop.notify.staff") => t["pauses"] = json!(true),
            _ => {}
        }
    }
    let bytes = serde_json::to_vec(&index).expect("bytes");
    let d = Deployment::new(&bytes).expect("usable");
    // Pack index 1.7.0 has no `storesFiles`/`readsFiles` yet, so the run registers the index
    // without them; the deployment reads them from the newer entry.
    let plan = plan_for(
        &fixture("order-review"),
        "shop.order-reviewer",
        json!({"orderNumber": "A-1"}),
    );
    let token = WaitToken {
        id: "w".into(),
        url: "https://wait.example/w".into(),
    };
    let files = ToolFiles {
        url: "https://files.example".into(),
        token: "t".into(),
    };
    let full = CallSite::new("acme", "r")
        .with_step_scope("s")
        .with_wait_token(&token)
        .with_tool_files(&files);
    let (_, ctx) = d
        .call_context(&plan, "shop.notify.staff", &full)
        .expect("ctx");
    assert_eq!(ctx.wait_token.as_ref(), Some(&token));
    assert_eq!(ctx.tool_files, None);
    assert_eq!(
        ctx.settings.expect("settings")["shop.review-settings"]["storeName"],
        "Acme Outdoor"
    );
    let (_, ctx) = d
        .call_context(&plan, "shop.address.verify", &full)
        .expect("ctx");
    assert_eq!(ctx.wait_token, None);
    assert_eq!(ctx.tool_files, None);
    let (_, ctx) = d
        .call_context(&plan, "shop.inventory.check", &full)
        .expect("ctx");
    assert_eq!(ctx.tool_files.as_ref(), Some(&files));
    let (_, ctx) = d
        .call_context(&plan, "shop.orders.get", &full)
        .expect("ctx");
    assert_eq!(ctx.tool_files.as_ref(), Some(&files), "stores, with a key");
    let no_key = CallSite::new("acme", "r").with_tool_files(&files);
    let (_, ctx) = d
        .call_context(&plan, "shop.orders.get", &no_key)
        .expect("ctx");
    assert_eq!(ctx.tool_files, None, "only stores, and no idempotency key");
    let e = d
        .call_context(&plan, "shop.notify.staff", &no_key)
        .expect_err("pauses without a token");
    assert_eq!(
        codes(&e),
        vec![("wait-token-missing", "error", "/ctx/waitToken")]
    );
}

#[test]
fn tool_input_and_output_validation_answer_the_protocols_errors() {
    let d = Deployment::new(&fixture("support-desk")).expect("usable");
    assert!(
        d.validate_tool_input(
            "support.kb.search",
            Some("0.9.3"),
            &json!({"query": "refunds"})
        )
        .is_ok()
    );
    let e = d
        .validate_tool_input(
            "support.kb.search",
            Some("0.9.3"),
            &json!({"query": "ab", "top": 0}),
        )
        .expect_err("invalid");
    assert_eq!(e.code, ErrorCode::InputValidationFailed);
    assert_eq!(e.tool_id.as_deref(), Some("support.kb.search"));
    assert_eq!(
        e.message,
        "Tool \"support.kb.search\" input failed validation"
    );
    let issues: Vec<(String, Option<String>)> = e
        .issues
        .expect("issues")
        .into_iter()
        .map(|i| (i.instance_path, i.keyword))
        .collect();
    assert_eq!(issues.len(), 2);
    assert!(issues.contains(&("/query".into(), Some("minLength".into()))));
    assert!(issues.contains(&("/top".into(), Some("minimum".into()))));
    let e = d
        .validate_tool_input("support.kb.search", Some("1.0.0"), &json!({}))
        .expect_err("version");
    assert_eq!(e.code, ErrorCode::ToolVersionMismatch);
    assert_eq!(
        e.message,
        "Tool \"support.kb.search\" is 0.9.3 in this pack; the caller asked for 1.0.0"
    );
    let e = d
        .validate_tool_input("support.nope", None, &json!({}))
        .expect_err("unknown");
    assert_eq!(e.code, ErrorCode::ToolNotInPack);
    assert_eq!(e.message, "This pack has no tool \"support.nope\"");
    let e = d
        .validate_tool_output("support.kb.search", None, &json!("not an object"))
        .expect_err("output");
    assert_eq!(e.code, ErrorCode::OutputValidationFailed);
    // Two versions of one tool: naming none is a mismatch, as the pack service says.
    let shop = Deployment::new(&fixture("order-review")).expect("usable");
    let e = shop
        .validate_tool_input("shop.fraud.score", None, &json!({"orderId": "A"}))
        .expect_err("two versions");
    assert_eq!(e.code, ErrorCode::ToolVersionMismatch);
    assert!(e.message.contains("has several versions in this pack"));
    // The error is a protocol message the parser accepts.
    let wire = serde_json::to_value(&e).expect("json");
    assert_eq!(wire["kind"], Value::Null, "a bare PackError has no kind");
    let message = serde_json::to_value(Response::Error(*e)).expect("json");
    assert_eq!(message["kind"], "error");
    assert!(parse_message_value(&message).is_ok());
}

#[test]
fn every_fixture_tool_schema_compiles_as_the_pack_service_compiles_it() {
    for pack in ["support-desk", "order-review"] {
        let bytes = fixture(pack);
        let d = Deployment::new(&bytes).expect("usable");
        let index: Value = serde_json::from_slice(&bytes).expect("JSON");
        for t in index["tools"].as_array().expect("tools") {
            let (id, version) = (t["id"].as_str().expect("id"), t["version"].as_str());
            for e in [
                d.validate_tool_input(id, version, &json!(null)).err(),
                d.validate_tool_output(id, version, &json!(null)).err(),
            ]
            .into_iter()
            .flatten()
            {
                assert!(
                    !e.message.contains("failed to compile"),
                    "{id}: {}",
                    e.message
                );
                assert!(!e.issues.expect("issues").is_empty(), "{id}");
            }
        }
    }
}
