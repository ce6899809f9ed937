//! Property tests of the router: decisions respect every hard requirement and tenant rule
//! (checked by an independent predicate below), answers are deterministic, the snapshot path
//! agrees with the reference path, and tenants never see each other's providers.

use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use runstart::route::{
    AllowDeny, Capability, ComparisonOp, ContextWindowBound, CostBound, LatencyBound, ModelCost,
    ModelInfo, Preference, ProviderMetadata, ProviderRegistry, Requirement, RouteInput,
    RouteRequest, RouteSnapshot, Scratch, TenantPolicy, UpperBoundOp, route,
};

// Pools chosen to exercise collation (case, punctuation, digits) and list membership.
const IDS: &[&str] = &[
    "a", "A", "a-b", "a_b", "b", "B2", "b10", "gemini", "dev-echo",
];
const NAMES: &[&str] = &["m", "M", "m-1", "m10", "m2", "opus", "sonnet"];
const REGIONS: &[&str] = &["eu", "us", "unspecified"];
const FEATURES: &[&str] = &["vision", "tool-use", "streaming", "batch"];
const ATTRS: &[&str] = &["local", "lower-cost", "vision"];
const KINDS: &[&str] = &["llm-inference", "embedding"];

fn pick(pool: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop::sample::select(pool).prop_map(str::to_owned)
}

fn subset(pool: &'static [&'static str]) -> impl Strategy<Value = Vec<String>> {
    prop::sample::subsequence(pool, 0..=pool.len())
        .prop_map(|v| v.into_iter().map(str::to_owned).collect())
}

fn op() -> impl Strategy<Value = ComparisonOp> {
    prop::sample::select(
        &[
            ComparisonOp::Ge,
            ComparisonOp::Gt,
            ComparisonOp::Eq,
            ComparisonOp::Le,
            ComparisonOp::Lt,
        ][..],
    )
}

fn model() -> impl Strategy<Value = ModelInfo> {
    (
        pick(NAMES),
        prop::sample::select(&[4096.0, 8192.0, 128000.0, 200000.0][..]),
        subset(FEATURES),
        prop::sample::select(&[0.0, 0.001, 0.003, 0.015][..]),
        option::of(prop::sample::select(&[80.0, 500.0, 2000.0][..])),
    )
        .prop_map(|(name, cw, features, prompt, p95)| ModelInfo {
            name,
            context_window: cw,
            features,
            cost: ModelCost {
                prompt_usd_per_1k_tokens: prompt,
                completion_usd_per_1k_tokens: prompt * 2.0,
                ..ModelCost::default()
            },
            p95_latency_ms: p95,
            ..ModelInfo::default()
        })
}

fn provider() -> impl Strategy<Value = ProviderMetadata> {
    (
        pick(IDS),
        pick(REGIONS),
        vec(model(), 1..4),
        option::of(subset(ATTRS)),
        option::of(pick(KINDS)),
        prop::bool::weighted(0.2),
        any::<prop::sample::Index>(),
        any::<bool>(),
    )
        .prop_map(
            |(id, region, mut models, attributes, kind, fallback, dm, use_dm)| {
                let mut seen = Vec::new();
                models.retain(|m| {
                    let fresh = !seen.contains(&m.name);
                    seen.push(m.name.clone());
                    fresh
                });
                let default_model = use_dm.then(|| dm.get(&models).name.clone());
                ProviderMetadata {
                    id,
                    region,
                    models,
                    default_model,
                    attributes,
                    capability_kind: kind,
                    fallback,
                    ..ProviderMetadata::default()
                }
            },
        )
}

fn allow_deny(pool: &'static [&'static str]) -> impl Strategy<Value = AllowDeny> {
    (option::of(subset(pool)), option::of(subset(pool)))
        .prop_map(|(allow, deny)| AllowDeny { allow, deny })
}

fn requirement() -> impl Strategy<Value = Requirement> {
    prop_oneof![
        pick(FEATURES).prop_map(Requirement::Feature),
        (op(), prop::sample::select(&[8192.0, 128000.0][..]))
            .prop_map(|(op, value)| Requirement::ContextWindow(ContextWindowBound { op, value })),
        (op(), prop::sample::select(&[0.0, 0.003, 0.01][..]))
            .prop_map(|(op, usd)| Requirement::CostPerCall(CostBound { op, usd })),
        pick(REGIONS).prop_map(Requirement::Region),
        (prop::bool::ANY, prop::sample::select(&[100.0, 2000.0][..])).prop_map(|(le, value)| {
            Requirement::P95LatencyMs(LatencyBound {
                op: if le {
                    UpperBoundOp::Le
                } else {
                    UpperBoundOp::Lt
                },
                value,
            })
        }),
        allow_deny(IDS).prop_map(Requirement::Providers),
        allow_deny(NAMES).prop_map(Requirement::Models),
    ]
}

fn policy() -> impl Strategy<Value = TenantPolicy> {
    (
        option::of(allow_deny(IDS)),
        option::of(allow_deny(NAMES)),
        option::of(subset(REGIONS)),
        option::of(prop::sample::select(&[0.001, 0.01][..])),
        option::of(prop::sample::select(&[8192.0, 128000.0][..])),
    )
        .prop_map(
            |(providers, models, region_allow, cost, tokens)| TenantPolicy {
                tenant_id: Some("t".into()),
                providers,
                models,
                region_allow,
                max_cost_per_call_usd: cost,
                max_tokens_per_call: tokens,
            },
        )
}

fn input() -> impl Strategy<Value = RouteInput> {
    (
        option::of(pick(KINDS)),
        vec(requirement(), 0..4),
        option::of(vec(
            (
                pick(ATTRS),
                prop::sample::select(&[-1.0, 0.0, -0.0, 0.5, 1.0, 2.0, 1e308, -1e308][..]),
            )
                .prop_map(|(feature, weight)| Preference { feature, weight }),
            // Past six preferences the snapshot ranks by a different algorithm; cover both.
            0..9,
        )),
        vec(provider(), 0..6),
        option::of(policy()),
        option::of(pick(IDS)),
        option::of(pick(NAMES)),
    )
        .prop_map(
            |(kind, needs, prefer, providers, tenant_policy, pp, pm)| RouteInput {
                capability: Capability {
                    kind,
                    needs,
                    prefer,
                    budget: None,
                },
                providers,
                tenant_policy,
                preferred_provider: pp,
                preferred_model: pm,
            },
        )
}

fn in_list(list: &Option<Vec<String>>, s: &str) -> bool {
    list.as_ref().is_some_and(|l| l.iter().any(|x| x == s))
}

fn lists_ok(l: &AllowDeny, s: &str) -> bool {
    !in_list(&l.deny, s) && l.allow.as_ref().is_none_or(|a| a.iter().any(|x| x == s))
}

/// An independent reading of spec §2.4: does the tuple meet every hard rule?
fn meets_everything(input: &RouteInput, p: &ProviderMetadata, m: &ModelInfo) -> bool {
    let cap = &input.capability;
    if p.capability_kind.as_deref().unwrap_or("llm-inference")
        != cap.kind.as_deref().unwrap_or("llm-inference")
    {
        return false;
    }
    let needs_ok = cap.needs.iter().all(|r| match r {
        Requirement::Feature(f) => m.features.contains(f),
        Requirement::ContextWindow(b) => b.op.holds(m.context_window, b.value),
        Requirement::CostPerCall(b) => b.op.holds(m.cost.prompt_usd_per_1k_tokens, b.usd),
        Requirement::Region(r) => &p.region == r,
        Requirement::P95LatencyMs(b) => m.p95_latency_ms.is_some_and(|v| b.op.holds(v, b.value)),
        Requirement::Providers(l) => lists_ok(l, &p.id),
        Requirement::Models(l) => lists_ok(l, &m.name),
        _ => false,
    });
    let policy_ok = input.tenant_policy.as_ref().is_none_or(|t| {
        t.providers.as_ref().is_none_or(|l| lists_ok(l, &p.id))
            && t.models.as_ref().is_none_or(|l| lists_ok(l, &m.name))
            && t.region_allow
                .as_ref()
                .is_none_or(|a| a.contains(&p.region))
            && t.max_cost_per_call_usd
                .is_none_or(|c| m.cost.prompt_usd_per_1k_tokens <= c)
            && t.max_tokens_per_call.is_none_or(|c| m.context_window >= c)
    });
    needs_ok && policy_ok
}

fn find<'a>(
    input: &'a RouteInput,
    pid: &str,
    name: &str,
) -> Vec<(&'a ProviderMetadata, &'a ModelInfo)> {
    input
        .providers
        .iter()
        .filter(|p| p.id == pid)
        .flat_map(|p| {
            p.models
                .iter()
                .filter(|m| m.name == name)
                .map(move |m| (p, m))
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn decisions_respect_every_hard_rule(input in input()) {
        match route(&input) {
            Ok(d) => {
                let all = std::iter::once((d.provider.clone(), d.model.clone())).chain(d.alternates.iter().cloned());
                for (pid, name) in all {
                    let tuples = find(&input, &pid, &name);
                    prop_assert!(tuples.iter().any(|(p, m)| meets_everything(&input, p, m)),
                        "{pid}/{name} breaks a rule");
                    if !d.fallback {
                        prop_assert!(tuples.iter().any(|(p, _)| !p.fallback), "fallback {pid} used as a regular pick");
                    }
                }
            }
            Err(e) => {
                let any = input.providers.iter().any(|p| p.models.iter().any(|m| meets_everything(&input, p, m)));
                prop_assert!(!any, "unsatisfiable although a tuple meets every rule");
                prop_assert_eq!(e.reasons.is_empty(), input.providers.is_empty());
            }
        }
    }

    #[test]
    fn deterministic_and_snapshot_agrees_with_reference(input in input()) {
        let first = route(&input);
        prop_assert_eq!(&first, &route(&input));
        let snapshot = RouteSnapshot::compile(input.providers.clone());
        let mut scratch = Scratch::default();
        let request = RouteRequest::from_input(&input);
        for _ in 0..2 {
            let fast = snapshot.route_with(&request, &mut scratch).map(|r| r.to_decision());
            prop_assert_eq!(&fast, &first);
        }
    }

    #[test]
    fn tightening_the_policy_never_adds_candidates(input in input(), deny in pick(IDS)) {
        let mut tighter = input.clone();
        let policy = tighter.tenant_policy.get_or_insert_with(TenantPolicy::default);
        policy.providers.get_or_insert_with(AllowDeny::default).deny.get_or_insert_with(Vec::new).push(deny);
        let count = |r: &RouteInput| route(r).map_or(0, |d| 1 + d.alternates.len());
        // A fallback may step in only when every regular tuple is gone, so compare survivors
        // of the same class: the tighter policy can never route more tuples.
        let before = route(&input);
        let after = route(&tighter);
        if let (Ok(b), Ok(a)) = (&before, &after) && a.fallback == b.fallback {
            prop_assert!(count(&tighter) <= count(&input));
        }
        if before.is_err() {
            prop_assert!(after.is_err());
        }
    }

    #[test]
    fn tenants_never_see_each_other(a in vec(provider(), 0..5), b in vec(provider(), 0..5), input in input()) {
        let mut registry = ProviderRegistry::new();
        for mut p in a {
            p.id = format!("a-{}", p.id);
            let _ = registry.register("tenant-a", p);
        }
        for mut p in b {
            p.id = format!("b-{}", p.id);
            let _ = registry.register("tenant-b", p);
        }
        prop_assert!(registry.list("tenant-a").all(|p| p.id.starts_with("a-")));
        prop_assert!(registry.list("tenant-b").all(|p| p.id.starts_with("b-")));
        let snapshot = registry.snapshot("tenant-a");
        let request = RouteRequest {
            preferred_provider: Some("b-a"),
            ..RouteRequest::from_input(&input)
        };
        if let Ok(r) = snapshot.route(&request) {
            prop_assert!(r.provider().id.starts_with("a-"));
            prop_assert!(r.alternates().all(|(p, _)| p.id.starts_with("a-")));
        }
        prop_assert!(registry.get("tenant-a", "b-a").is_none());
    }
}
