//! The snapshot fast path allocates only its result: with a warm `Scratch`, one `route_with`
//! call on each bench workload performs exactly one heap allocation (the ranked tuple list).

mod util;

use runstart::route::{RouteInput, RouteRequest, RouteSnapshot, Scratch};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Counts allocations made by the current thread (other test threads do not interfere).
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: defers every call to the system allocator; only bumps a thread-local counter.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as our caller's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: same contract as our caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn warm_route_allocates_only_its_result() {
    let Some(text) = util::shared_file("bench/route-workloads.json") else {
        return;
    };
    let doc: serde_json::Value = serde_json::from_str(&text).expect("workloads are JSON");
    for w in doc["workloads"].as_array().expect("workloads") {
        let input: RouteInput = serde_json::from_value(w["input"].clone()).expect("input parses");
        let snapshot = RouteSnapshot::compile(input.providers.clone());
        let request = RouteRequest::from_input(&input);
        let mut scratch = Scratch::default();
        drop(snapshot.route_with(&request, &mut scratch).expect("routes"));
        let before = ALLOCATIONS.with(Cell::get);
        let routed = snapshot.route_with(&request, &mut scratch).expect("routes");
        let after = ALLOCATIONS.with(Cell::get);
        assert_eq!(
            after - before,
            1,
            "{}: allocations in one warm route",
            w["name"]
        );
        drop(routed);
    }
}
