//! runstart: validate Kindgi pack indexes, resolve npm-style tool ranges, route capability
//! declarations to providers and prepare agent runs.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![warn(
    missing_debug_implementations,
    clippy::print_stdout,
    clippy::print_stderr
)]
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod catalog;
pub mod diagnostics;
pub mod flow;
pub mod index;
pub mod input;

pub mod protocol;
pub mod range;
pub mod route;
pub mod run;
pub mod schema;
pub mod template;
pub mod validate;

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
