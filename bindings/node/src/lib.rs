//! `runstart-node`: the Node-API addon behind the `runstart` npm package
//! (`bindings/node/index.js`).
//!
//! This crate only converts between JavaScript and runstart's own types; everything it
//! answers comes from the `runstart` library. Values cross the boundary as little as possible
//! (STYLE.md §6.3): requests arrive as JSON text (`JSON.stringify` on the JavaScript side,
//! then runstart's serde wire types), providers and packs are registered once and kept here,
//! and a route decision comes back as tuple indices that the loader maps to the caller's own
//! objects.
//!
//! Every export runs inside `guard::guard`: expected failures are values (built by the
//! loader in upstream's result unions), misuse throws an `Error` with a `.code`, and a Rust
//! panic throws an `Error` with `code: 'internal'` instead of aborting the process.

// In the unit-test build napi-derive registers no exports, so the exported functions look
// unused there.
#![cfg_attr(test, allow(dead_code))]

mod guard;
mod render;
mod routing;
mod run_start;
mod validate;
mod versions;

use napi::Env;
use napi_derive::napi;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Makes a guarded call panic inside its guard, after letting `skip` guarded calls through,
/// so that tests can prove a panic becomes a thrown `Error` (`code: 'internal'`) on every
/// export, the asynchronous computation included (`skip: 1` passes the task's creation and
/// panics in its computation). Nothing else arms it.
#[napi(js_name = "armPanicForTest")]
pub fn arm_panic_for_test(skip: Option<u32>) {
    guard::arm_forced_panic(skip.unwrap_or(0));
}

/// Panics inside the guard right away (a synchronous export that always panics).
#[napi(js_name = "panicForTest")]
pub fn panic_for_test(env: Env) -> napi::Result<()> {
    guard::guard(&env, || -> Result<(), guard::Failure> {
        panic!("panic forced by a test");
    })
}
