//! Routing: the reference path and the compiled snapshot, on arbitrary providers,
//! capabilities, policies and hints.
//!
//! Input: a `RouteInput` as JSON when the bytes start with `{`; otherwise the bytes drive a
//! generator over small pools of ids, regions, models, features and numbers, so that
//! collisions (duplicate ids, shared model names, ties) are common.
//!
//! Invariants:
//! - `route::route` and `RouteSnapshot::compile(..).route(..)` (with and without a reused
//!   `Scratch`) give the same decision or the same error;
//! - a decision's pick and each alternate is a tuple that meets every hard requirement (the
//!   capability kind, every need) and every tenant policy rule, checked here independently;
//! - the pick is a fallback tuple only when no regular tuple meets them all;
//! - an error means no tuple meets them all.
#![no_main]

use libfuzzer_sys::arbitrary::{Result as AResult, Unstructured};
use libfuzzer_sys::fuzz_target;
use runstart::route::{
    AllowDeny, ModelInfo, ProviderMetadata, Requirement, RouteInput, RouteRequest, RouteSnapshot,
    Scratch, route,
};
use serde_json::{Value, json};

const IDS: [&str; 5] = ["a", "b", "c", "a/b", ""];
const REGIONS: [&str; 3] = ["eu", "us", "ap"];
const MODELS: [&str; 5] = ["m1", "m2", "a/b", "M1", "b"];
const FEATURES: [&str; 6] = ["vision", "tool-use", "streaming", "json-mode", "x", "local"];
const KINDS: [&str; 3] = ["llm-inference", "embedding", "custom"];
const NUMBERS: [f64; 10] = [
    0.0, 1.0, 0.5, 0.003, 1000.0, 8000.0, 128000.0, -1.0, 1e308, 2.5e-7,
];
const OPS: [&str; 5] = [">=", ">", "<=", "<", "="];

fn pick<'a, T: Copy>(u: &mut Unstructured<'a>, from: &[T]) -> AResult<T> {
    Ok(*u.choose(from)?)
}

fn strings(u: &mut Unstructured<'_>, from: &[&str]) -> AResult<Value> {
    let n = u.int_in_range(0..=3)?;
    let mut out = Vec::new();
    for _ in 0..n {
        out.push(json!(pick(u, from)?));
    }
    Ok(Value::Array(out))
}

fn allow_deny(u: &mut Unstructured<'_>, from: &[&str]) -> AResult<Value> {
    let mut o = serde_json::Map::new();
    if u.arbitrary()? {
        o.insert("allow".into(), strings(u, from)?);
    }
    if u.arbitrary()? {
        o.insert("deny".into(), strings(u, from)?);
    }
    Ok(Value::Object(o))
}

fn requirement(u: &mut Unstructured<'_>) -> AResult<Value> {
    Ok(match u.int_in_range(0..=7)? {
        0 => json!({"feature": pick(u, &FEATURES)?}),
        1 => json!({"contextWindow": {"op": pick(u, &OPS)?, "value": pick(u, &NUMBERS)?}}),
        2 => json!({"costPerCall": {"op": pick(u, &OPS)?, "usd": pick(u, &NUMBERS)?}}),
        3 => json!({"region": pick(u, &REGIONS)?}),
        4 => json!({"p95LatencyMs": {"op": pick(u, &["<=", "<"])?, "value": pick(u, &NUMBERS)?}}),
        5 => json!({"providers": allow_deny(u, &IDS)?}),
        6 => json!({"models": allow_deny(u, &MODELS)?}),
        _ => json!({"somethingElse": 1}),
    })
}

fn generate(u: &mut Unstructured<'_>) -> AResult<Value> {
    let mut providers = Vec::new();
    for _ in 0..u.int_in_range(0..=4)? {
        let mut models = Vec::new();
        for _ in 0..u.int_in_range(0..=3)? {
            let mut m = json!({
                "name": pick(u, &MODELS)?,
                "contextWindow": pick(u, &NUMBERS)?,
                "features": strings(u, &FEATURES)?,
                "cost": {"promptUsdPer1kTokens": pick(u, &NUMBERS)?,
                         "completionUsdPer1kTokens": pick(u, &NUMBERS)?},
            });
            if u.arbitrary()? {
                m["p95LatencyMs"] = json!(pick(u, &NUMBERS)?);
            }
            models.push(m);
        }
        let mut p = json!({"id": pick(u, &IDS)?, "region": pick(u, &REGIONS)?, "models": models});
        if u.arbitrary()? {
            p["capabilityKind"] = json!(pick(u, &KINDS)?);
        }
        if u.arbitrary()? {
            p["fallback"] = json!(true);
        }
        if u.arbitrary()? {
            p["attributes"] = strings(u, &FEATURES)?;
        }
        providers.push(p);
    }
    let mut needs = Vec::new();
    for _ in 0..u.int_in_range(0..=3)? {
        needs.push(requirement(u)?);
    }
    let mut capability = json!({"needs": needs});
    if u.arbitrary()? {
        capability["kind"] = json!(pick(u, &KINDS)?);
    }
    if u.arbitrary()? {
        let mut prefer = Vec::new();
        for _ in 0..u.int_in_range(0..=3)? {
            prefer.push(json!({"feature": pick(u, &FEATURES)?, "weight": pick(u, &NUMBERS)?}));
        }
        capability["prefer"] = Value::Array(prefer);
    }
    let mut input = json!({"capability": capability, "providers": providers});
    if u.arbitrary()? {
        let mut policy = json!({"tenantId": "t"});
        if u.arbitrary()? {
            policy["providers"] = allow_deny(u, &IDS)?;
        }
        if u.arbitrary()? {
            policy["models"] = allow_deny(u, &MODELS)?;
        }
        if u.arbitrary()? {
            policy["regionAllow"] = strings(u, &REGIONS)?;
        }
        if u.arbitrary()? {
            policy["maxCostPerCallUsd"] = json!(pick(u, &NUMBERS)?);
        }
        if u.arbitrary()? {
            policy["maxTokensPerCall"] = json!(pick(u, &NUMBERS)?);
        }
        input["tenantPolicy"] = policy;
    }
    if u.arbitrary()? {
        input["preferredProvider"] = json!(pick(u, &IDS)?);
    }
    if u.arbitrary()? {
        input["preferredModel"] = json!(pick(u, &MODELS)?);
    }
    Ok(input)
}

fn list_passes(l: &AllowDeny, s: &str) -> bool {
    let denied = l.deny.as_ref().is_some_and(|d| d.iter().any(|x| x == s));
    let allowed = l.allow.as_ref().is_none_or(|a| a.iter().any(|x| x == s));
    !denied && allowed
}

/// Every hard requirement and policy rule, written from the spec, not from the router.
fn meets_everything(input: &RouteInput, p: &ProviderMetadata, m: &ModelInfo) -> bool {
    let cap = &input.capability;
    let kind = |k: &Option<String>| k.clone().unwrap_or_else(|| "llm-inference".to_owned());
    if kind(&p.capability_kind) != kind(&cap.kind) {
        return false;
    }
    let needs = cap.needs.iter().all(|r| match r {
        Requirement::Feature(f) => m.features.contains(f),
        Requirement::ContextWindow(b) => b.op.holds(m.context_window, b.value),
        Requirement::CostPerCall(b) => b.op.holds(m.cost.prompt_usd_per_1k_tokens, b.usd),
        Requirement::Region(r) => &p.region == r,
        Requirement::P95LatencyMs(b) => m.p95_latency_ms.is_some_and(|v| b.op.holds(v, b.value)),
        Requirement::Providers(l) => list_passes(l, &p.id),
        Requirement::Models(l) => list_passes(l, &m.name),
        Requirement::Unknown(_) => false,
    });
    if !needs {
        return false;
    }
    let Some(policy) = &input.tenant_policy else {
        return true;
    };
    policy
        .providers
        .as_ref()
        .is_none_or(|l| list_passes(l, &p.id))
        && policy
            .models
            .as_ref()
            .is_none_or(|l| list_passes(l, &m.name))
        && policy
            .region_allow
            .as_ref()
            .is_none_or(|a| a.contains(&p.region))
        && policy
            .max_cost_per_call_usd
            .is_none_or(|c| m.cost.prompt_usd_per_1k_tokens <= c)
        && policy
            .max_tokens_per_call
            .is_none_or(|c| m.context_window >= c)
}

fn tuples(input: &RouteInput) -> impl Iterator<Item = (&ProviderMetadata, &ModelInfo)> {
    input
        .providers
        .iter()
        .flat_map(|p| p.models.iter().map(move |m| (p, m)))
}

fuzz_target!(|data: &[u8]| {
    let input: RouteInput = if data.first() == Some(&b'{') {
        match serde_json::from_slice(data) {
            Ok(i) => i,
            Err(_) => return,
        }
    } else {
        let mut u = Unstructured::new(data);
        let Ok(value) = generate(&mut u) else {
            return;
        };
        // The generator also writes shapes the strict wire types refuse (a need with two
        // keys or none): those are input errors, not routes.
        match serde_json::from_value(value) {
            Ok(i) => i,
            Err(_) => return,
        }
    };
    let reference = route(&input);
    let snapshot = RouteSnapshot::compile(input.providers.clone());
    let request = RouteRequest::from_input(&input);
    let fast = snapshot.route(&request).map(|r| r.to_decision());
    assert_eq!(reference, fast, "reference and snapshot disagree");
    let mut scratch = Scratch::default();
    let reused = snapshot
        .route_with(&request, &mut scratch)
        .map(|r| r.to_decision());
    assert_eq!(reference, reused, "a reused scratch changes the answer");
    let passing: Vec<_> = tuples(&input)
        .filter(|(p, m)| meets_everything(&input, p, m))
        .collect();
    match &reference {
        Ok(decision) => {
            let meets = |provider: &str, model: &str| {
                passing
                    .iter()
                    .any(|(p, m)| p.id == provider && m.name == model)
            };
            assert!(
                meets(&decision.provider, &decision.model),
                "the pick fails a requirement"
            );
            for (p, m) in &decision.alternates {
                assert!(meets(p, m), "an alternate fails a requirement");
            }
            let regular = passing.iter().any(|(p, _)| !p.fallback);
            assert_eq!(decision.fallback, !regular, "fallback flag is wrong");
        }
        Err(e) => {
            assert!(
                passing.is_empty(),
                "an error although a tuple meets everything"
            );
            assert_eq!(e.code(), "capability-unsatisfiable");
        }
    }
});
