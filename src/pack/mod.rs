//! One compiled pack: the single step that turns a loaded [`PackIndex`] into what run start
//! holds, and the issues that step finds.
//!
//! Deploy validation ([`crate::validate::validate_index`]) and run registration
//! ([`crate::run::RunStart::register_pack`]) both call [`CompiledPack::compile`], so a pack that
//! registration refuses is refused with issues that validation reports too — same code, same
//! instance path, same message — and the two cannot drift. What compiling does:
//!
//! - **the lists**: each kind, id and version defined once (`duplicate-entry`; guardrails
//!   by id), since of two definitions neither may win in silence;
//! - **tools**: each version parsed (a tool without one takes the pack's version);
//! - **data blocks**: each version checked (`major.minor.patch`), each prompt template parsed;
//! - **agents**: the version checked; every tool reference's npm range parsed and pinned to
//!   the highest version in range among the pack's tools and those already deployed (npm's
//!   prerelease rule); the instructions parsed (inline) or the prompt block pinned; settings
//!   and model-settings block references pinned, their kinds and model settings checked; the
//!   capability declarations checked and typed; and `defineAgent`'s rules on the typed values
//!   (blank ids and names, parameters' names and defaults, block ids, references listed twice:
//!   `agent_rules`), which deploy validation also runs, from the same functions, on entries
//!   whose shape failed.
//!
//! An agent's parameters and settings references are typed at load
//! ([`crate::index::wire::Parameter`], [`crate::index::wire::SettingsRef`]); one that does not
//! type is a rejected entry, refused with the issue of each wrong field.
//!
//! Entries whose shape failed at load ([`crate::index::RejectedEntry`]) count as present for
//! resolution, so a reference to one is not reported a second time as missing; registration
//! refuses such a pack with the shape issues themselves.

mod agent_rules;
mod block_rules;
mod compile;
mod define_agent;
mod duplicates;
mod env_need;
mod model;
mod resolve;
mod rules;

pub(crate) use crate::version_index::VersionIndex;
pub(crate) use agent_rules::is_date_value;
pub(crate) use block_rules::check_block;
pub(crate) use compile::{AgentRef, CompiledInstructions, CompiledPack, PackBlock};
pub(crate) use define_agent::{AgentIssues, AgentRules};
pub(crate) use env_need::{EnvNeed, compile_env_needs, needs_slot};
pub(crate) use model::{
    BlockContent, BlockRef, CompiledAgent, CompiledBlock, CompiledCapability, InstructionsSource,
    ToolRecord, ToolRefC,
};
pub(crate) use resolve::{Deployed, NothingDeployed, Resolver};
pub use rules::BlockRole;
pub(crate) use rules::tool_version;
pub(crate) use rules::{block_pin_message, is_range, model_settings_problems, parse_template};
