//! Merging the bound tenant policy with the registry-derived one (spec §2.14, changelog 0.1.0
//! "Safety fixes in model routing policy").

use super::wire::{AllowDeny, TenantPolicy};

/// Merges two routing policies so that neither can widen the other (spec §2.14).
///
/// - Allow lists (`providers.allow`, `models.allow`, `regionAllow`) are **intersected** when
///   both sides set one, in `a`'s order without duplicates; a list set on one side only applies
///   as it is.
/// - Deny lists are **unioned** without duplicates, `a`'s entries first.
/// - `maxCostPerCallUsd` and `maxTokensPerCall` take the smaller value.
/// - `tenantId` comes from `a`.
/// - With only one policy, it is returned as it is; with none, `None`.
///
/// # Examples
///
/// ```
/// use runstart::route::{merge_tenant_policies, TenantPolicy};
///
/// let bound: TenantPolicy = serde_json::from_str(r#"{"tenantId":"t","regionAllow":["eu-west-1"]}"#)?;
/// let registry: TenantPolicy = serde_json::from_str(r#"{"tenantId":"r","regionAllow":["eu-west-1","us-east-1"],"maxCostPerCallUsd":0.01}"#)?;
/// let merged = merge_tenant_policies(Some(&bound), Some(&registry)).expect("two policies");
/// assert_eq!(merged.region_allow, Some(vec!["eu-west-1".to_owned()]));
/// assert_eq!(merged.tenant_id.as_deref(), Some("t"));
/// assert_eq!(merged.max_cost_per_call_usd, Some(0.01));
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn merge_tenant_policies(
    a: Option<&TenantPolicy>,
    b: Option<&TenantPolicy>,
) -> Option<TenantPolicy> {
    let (a, b) = match (a, b) {
        (None, None) => return None,
        (Some(x), None) | (None, Some(x)) => return Some(x.clone()),
        (Some(a), Some(b)) => (a, b),
    };
    Some(TenantPolicy {
        tenant_id: a.tenant_id.clone(),
        providers: merge_lists(a.providers.as_ref(), b.providers.as_ref()),
        models: merge_lists(a.models.as_ref(), b.models.as_ref()),
        region_allow: intersect(a.region_allow.as_deref(), b.region_allow.as_deref()),
        max_cost_per_call_usd: min(a.max_cost_per_call_usd, b.max_cost_per_call_usd),
        max_tokens_per_call: min(a.max_tokens_per_call, b.max_tokens_per_call),
    })
}

fn merge_lists(a: Option<&AllowDeny>, b: Option<&AllowDeny>) -> Option<AllowDeny> {
    if a.is_none() && b.is_none() {
        return None;
    }
    fn allow(l: Option<&AllowDeny>) -> Option<&[String]> {
        l.and_then(|l| l.allow.as_deref())
    }
    fn deny(l: Option<&AllowDeny>) -> Option<&[String]> {
        l.and_then(|l| l.deny.as_deref())
    }
    Some(AllowDeny {
        allow: intersect(allow(a), allow(b)),
        deny: union(deny(a), deny(b)),
    })
}

fn intersect(a: Option<&[String]>, b: Option<&[String]>) -> Option<Vec<String>> {
    match (a, b) {
        (None, None) => None,
        (Some(x), None) | (None, Some(x)) => Some(x.to_vec()),
        (Some(a), Some(b)) => {
            let mut out: Vec<String> = Vec::new();
            for s in a {
                if b.contains(s) && !out.contains(s) {
                    out.push(s.clone());
                }
            }
            Some(out)
        }
    }
}

fn union(a: Option<&[String]>, b: Option<&[String]>) -> Option<Vec<String>> {
    match (a, b) {
        (None, None) => None,
        (Some(x), None) | (None, Some(x)) => Some(x.to_vec()),
        (Some(a), Some(b)) => {
            let mut out: Vec<String> = Vec::new();
            for s in a.iter().chain(b) {
                if !out.contains(s) {
                    out.push(s.clone());
                }
            }
            Some(out)
        }
    }
}

fn min(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (x, None) | (None, x) => x,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(json: &str) -> TenantPolicy {
        serde_json::from_str(json).expect("test policy parses")
    }

    #[test]
    fn allow_intersects_deny_unions_caps_take_min() {
        let a = policy(
            r#"{"tenantId":"a","providers":{"allow":["x","y","x"],"deny":["d1"]},"maxTokensPerCall":100}"#,
        );
        let b = policy(
            r#"{"tenantId":"b","providers":{"allow":["y","x"],"deny":["d2","d1"]},"models":{"deny":["m"]},"maxTokensPerCall":50,"maxCostPerCallUsd":1}"#,
        );
        let m = merge_tenant_policies(Some(&a), Some(&b)).expect("merged");
        let p = m.providers.expect("providers");
        assert_eq!(p.allow, Some(vec!["x".to_owned(), "y".to_owned()]));
        assert_eq!(p.deny, Some(vec!["d1".to_owned(), "d2".to_owned()]));
        assert_eq!(m.models.and_then(|l| l.deny), Some(vec!["m".to_owned()]));
        assert_eq!(m.max_tokens_per_call, Some(50.0));
        assert_eq!(m.max_cost_per_call_usd, Some(1.0));
        assert_eq!(m.tenant_id.as_deref(), Some("a"));
        // Disjoint allow lists intersect to the fail-closed empty list.
        let c = policy(r#"{"regionAllow":["eu"]}"#);
        let d = policy(r#"{"regionAllow":["us"]}"#);
        let m = merge_tenant_policies(Some(&c), Some(&d)).expect("merged");
        assert_eq!(m.region_allow, Some(vec![]));
        assert_eq!(merge_tenant_policies(None, None), None);
        assert_eq!(merge_tenant_policies(None, Some(&d)), Some(d));
    }
}
