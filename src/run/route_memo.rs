//! Each thread's memo of routing answers: a run of an agent under its tenant's registered
//! policy, with no policy of its own and no resumed route, routes every capability the same
//! way for as long as the tenant's state is the same (routing is a function of the route
//! snapshot, the compiled capability and the compiled policy, all immutable in one
//! [`TenantState`]; every write publishes a new one). So the answer is computed once per
//! thread, agent version and tenant state, and later runs copy it.
//!
//! The memo is per thread so that runs on many threads share no lock or counter. An entry is
//! keyed by the addresses of the tenant state and the agent, and holds a [`Weak`] to the
//! state: while the entry lives, the state's allocation cannot be reused, so no other state
//! can have its key; the state's agent lives as long as the state. A memo keeps at most
//! [`CAPACITY`] answers (and the route snapshots their alternates refer to) alive: when it is
//! full, the entries of replaced states go, then all if it is still full.

use super::compiled::TenantState;
use super::error::RunStartError;
use super::wire::PlannedRoute;
use crate::pack::CompiledAgent;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Weak};

/// The routes of a run: the LLM route (the model), every capability's route in the agent's
/// order, and the router's warnings.
pub(super) type Routes = (PlannedRoute, Vec<PlannedRoute>, Vec<String>);

/// Most answers one thread keeps.
pub(super) const CAPACITY: usize = 256;

struct Entry {
    state: Weak<TenantState>,
    answer: Result<Routes, RunStartError>,
}

thread_local! {
    static MEMO: RefCell<HashMap<(usize, usize), Entry>> = RefCell::new(HashMap::new());
}

/// `route()`'s answer for `agent` under `state`, computed once per thread while `state` is
/// current. `route` must depend on nothing else (the caller routes here only runs without a
/// policy or a resumed route of their own).
pub(super) fn routes(
    state: &Arc<TenantState>,
    agent: &Arc<CompiledAgent>,
    route: impl FnOnce() -> Result<Routes, RunStartError>,
) -> Result<Routes, RunStartError> {
    let key = (Arc::as_ptr(state) as usize, Arc::as_ptr(agent) as usize);
    let hit = MEMO.with(|memo| {
        let memo = memo.try_borrow().ok()?;
        memo.get(&key).map(|entry| entry.answer.clone())
    });
    if let Some(answer) = hit {
        return answer;
    }
    let answer = route();
    MEMO.with(|memo| {
        // Only a reentrant call (none today) would find the memo borrowed: it just routes.
        let Ok(mut memo) = memo.try_borrow_mut() else {
            return;
        };
        if memo.len() >= CAPACITY {
            memo.retain(|_, entry| entry.state.strong_count() > 0);
            if memo.len() >= CAPACITY {
                memo.clear();
            }
        }
        memo.insert(
            key,
            Entry {
                state: Arc::downgrade(state),
                answer: answer.clone(),
            },
        );
    });
    answer
}

#[cfg(test)]
mod tests {
    use crate::route::ProviderMetadata;
    use crate::run::{RunRequest, RunStart};

    fn len() -> usize {
        super::MEMO.with(|memo| memo.borrow().len())
    }

    fn fixture(relative: &str) -> Vec<u8> {
        let path = format!("{}/fixtures/{relative}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
    }

    #[test]
    fn one_answer_per_agent_and_tenant_state_and_never_more_than_the_capacity() {
        let rs = RunStart::new();
        let pack = crate::index::load(&fixture("packs/order-review/index.json"))
            .index
            .expect("fixture loads");
        rs.register_pack("acme", &pack).expect("registers");
        let providers: Vec<ProviderMetadata> =
            serde_json::from_slice(&fixture("providers.json")).expect("providers");
        for p in providers {
            rs.register_provider("acme", p).expect("provider registers");
        }
        let request = RunRequest::new("acme", "shop.order-reviewer", "2026-09-17T15:30:00.000Z")
            .with_parameter("orderNumber", "A-1");
        let plan = rs.prepare(&request).expect("plan");
        assert_eq!(len(), 1);
        assert_eq!(rs.prepare(&request).expect("plan"), plan);
        assert_eq!(len(), 1);
        // Each write is a new tenant state: its runs route anew, and the memo stays bounded.
        for i in 0..super::CAPACITY + 10 {
            rs.set_tenant_policy("acme", None);
            assert_eq!(rs.prepare(&request).expect("plan"), plan);
            assert!(
                len() <= super::CAPACITY,
                "{} answers after {i} writes",
                len()
            );
        }
        // Pruning kept the current state's answer, or started over: either way a few remain.
        assert!(len() >= 1 && len() < super::CAPACITY);
    }
}
