//! What compiling a pack makes: agents with their tool and block references parsed and
//! pinned, data blocks with their templates parsed, capabilities compiled for routing. Run
//! start holds these; deploy validation reads the templates of them.

use crate::catalog::ToolRange;
use crate::index::wire::Tool;
use crate::range::Range;
use crate::template::{CompiledTemplate, PromptParameter};
use semver::Version;
use serde_json::Value;
use std::sync::Arc;

/// One registered tool version.
#[derive(Debug, Clone)]
pub(crate) struct ToolRecord {
    pub id: String,
    pub version: Version,
    pub retired: bool,
    pub tool: Arc<Tool>,
}

/// A reference to a data block, its range parsed, pinned at registration.
#[derive(Debug, Clone)]
pub(crate) struct BlockRef {
    pub id: String,
    pub range_text: String,
    pub range: Range,
    pub pin: Option<Version>,
}

/// Where an agent's instructions come from.
#[derive(Debug, Clone)]
pub(crate) enum InstructionsSource {
    Inline {
        template: Arc<CompiledTemplate>,
        params: Vec<PromptParameter>,
    },
    /// Boxed: a `BlockRef` holds a parsed `Range`, whose comparators are stored inline.
    Block(Box<BlockRef>),
}

/// One tool reference, its range parsed once, pinned at registration.
#[derive(Debug, Clone)]
pub(crate) struct ToolRefC {
    pub id: Arc<str>,
    pub range_text: Arc<str>,
    pub range: ToolRange,
    pub pin: Option<Version>,
}

/// An agent version ready to run.
#[derive(Debug)]
pub(crate) struct CompiledAgent {
    pub id: Arc<str>,
    pub version: Version,
    pub version_text: Arc<str>,
    /// The `agent` auto-variable, `{id, name, version}`, made once.
    pub agent_value: Value,
    pub tools: Vec<ToolRefC>,
    pub guardrails: Arc<[String]>,
    pub instructions: InstructionsSource,
    pub settings: Vec<BlockRef>,
    pub model_settings: Option<BlockRef>,
    /// The capability declarations, compiled for routing.
    pub capabilities: Vec<CompiledCapability>,
    pub preferred_provider: Option<String>,
    pub preferred_model: Option<String>,
}

impl CompiledAgent {
    /// Whether the agent references any data block (then the `settings` variable exists).
    /// Every data block reference: the prompt block, settings, model settings.
    pub fn block_refs(&self) -> impl Iterator<Item = &BlockRef> {
        let prompt = match &self.instructions {
            InstructionsSource::Block(r) => Some(&**r),
            InstructionsSource::Inline { .. } => None,
        };
        prompt
            .into_iter()
            .chain(&self.settings)
            .chain(&self.model_settings)
    }

    pub fn references_blocks(&self) -> bool {
        matches!(self.instructions, InstructionsSource::Block(_))
            || !self.settings.is_empty()
            || self.model_settings.is_some()
    }
}

/// A capability declaration, compiled for routing at registration (with the agent's
/// preferred provider and model, applied to `llm-inference` capabilities), and its kind
/// (defaulted) kept as shared text for the plans.
#[derive(Debug)]
pub(crate) struct CompiledCapability {
    pub capability: crate::route::CompiledCapability,
    pub kind: Arc<str>,
}

/// A data block version ready to use.
#[derive(Debug)]
pub(crate) enum BlockContent {
    Prompt {
        template: Arc<CompiledTemplate>,
        params: Vec<PromptParameter>,
    },
    Settings {
        values: Value,
    },
}

/// One data block version.
#[derive(Debug)]
pub(crate) struct CompiledBlock {
    pub version: Version,
    pub version_text: String,
    pub content: BlockContent,
}

impl CompiledBlock {
    pub fn kind(&self) -> &'static str {
        match self.content {
            BlockContent::Prompt { .. } => "prompt",
            BlockContent::Settings { .. } => "settings",
        }
    }
}
