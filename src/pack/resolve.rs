//! Resolving a pack's references: tool and data block versions of the pack itself (rejected
//! entries counted as present) and of what is already deployed where it goes.

use super::model::{BlockContent, CompiledBlock};
use super::rules::{BlockRole, block_pin_message, model_settings_problems, pin_tool_ref};
use crate::diagnostics::{Issue, IssueCode};
use crate::index::PackIndex;
use crate::range::{Range, RangeError, parse_version};
use crate::version_index::{VersionIndex, descending};
use semver::Version;
use std::collections::HashMap;
use std::sync::Arc;

/// The versions of one data block id; `None` for a version that is present but unusable (its
/// entry was rejected at load, or its template does not parse: its own issue says why).
pub(crate) type BlockVersions = VersionIndex<Option<Arc<CompiledBlock>>>;

/// What is already published where a pack deploys, that its references may resolve to: a
/// tenant's registered tools and blocks at registration, the caller's published tools at
/// deploy validation.
pub(crate) trait Deployed: Sync {
    /// The active versions of tool `id`, highest first.
    fn tool_versions(&self, id: &str) -> Vec<Version>;
    /// The versions of data block `id`.
    fn blocks(&self, id: &str) -> Option<Arc<VersionIndex<Arc<CompiledBlock>>>>;
}

/// Nothing deployed: the pack resolves against itself alone.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct NothingDeployed;

impl Deployed for NothingDeployed {
    fn tool_versions(&self, _: &str) -> Vec<Version> {
        Vec::new()
    }
    fn blocks(&self, _: &str) -> Option<Arc<VersionIndex<Arc<CompiledBlock>>>> {
        None
    }
}

/// A block reference resolved: the version picked and its block (`None` when that version is
/// present but unusable), or nothing in range.
pub(crate) type BlockPick = Option<(Version, Option<Arc<CompiledBlock>>)>;

/// The pack's own tool and block versions, indexed once, and what is deployed.
pub(crate) struct Resolver<'a> {
    /// Guardrail ids of the pack, rejected entries included.
    guardrails: std::collections::HashSet<&'a str>,
    tools: HashMap<&'a str, Vec<Version>>,
    /// Tool ids with an entry whose version does not parse (its own issue says so): a
    /// reference that finds no other version is not reported again as missing.
    unusable_tools: std::collections::HashSet<&'a str>,
    blocks: HashMap<&'a str, BlockVersions>,
    deployed: &'a dyn Deployed,
}

impl<'a> Resolver<'a> {
    /// Indexes `index`'s tools (`tool_versions`: each typed tool's parsed version, in list
    /// order; `None` when it does not parse) and blocks (`blocks`: each typed block's parsed
    /// version and compiled form, in list order), plus the rejected entries' versions.
    pub(crate) fn new(
        index: &'a PackIndex,
        tool_versions: &[Option<Version>],
        blocks: impl Iterator<Item = (Option<Version>, Option<Arc<CompiledBlock>>)>,
        deployed: &'a dyn Deployed,
    ) -> Resolver<'a> {
        let mut tools: HashMap<&'a str, Vec<Version>> = HashMap::new();
        let mut unusable_tools = std::collections::HashSet::new();
        for (t, v) in index.tools.iter().zip(tool_versions) {
            match v {
                Some(v) => tools
                    .entry(t.entry.id.as_str())
                    .or_default()
                    .push(v.clone()),
                None => {
                    unusable_tools.insert(t.entry.id.as_str());
                }
            }
        }
        let pack_version = parse_version(&index.pack_version);
        let mut by_id: HashMap<&'a str, BlockVersions> = HashMap::new();
        for (b, (version, block)) in index.blocks.iter().zip(blocks) {
            if let Some(v) = version {
                by_id
                    .entry(b.entry.id.as_str())
                    .or_default()
                    .insert(v, block);
            }
        }
        for r in &index.rejected {
            let Some(id) = r.id.as_deref() else { continue };
            match r.list {
                // A tool without a version takes the pack's, as the Python indexer assigns it.
                "tools" => {
                    let v = match &r.version {
                        Some(text) => parse_version(text),
                        None => pack_version.clone(),
                    };
                    match v {
                        Some(v) => tools.entry(id).or_default().push(v),
                        None => {
                            unusable_tools.insert(id);
                        }
                    }
                }
                "blocks" => {
                    if let Some(v) = r.version.as_deref().and_then(parse_version) {
                        let slot = by_id.entry(id).or_default();
                        if slot.get(&v).is_none() {
                            slot.insert(v, None);
                        }
                    }
                }
                _ => {}
            }
        }
        for versions in tools.values_mut() {
            versions.sort_by(descending);
            versions.dedup_by(|a, b| crate::range::compare_versions(a, b).is_eq());
        }
        let guardrails = index
            .guardrails
            .iter()
            .map(|g| g.entry.id.as_str())
            .chain(
                index
                    .rejected
                    .iter()
                    .filter(|r| r.list == "guardrails")
                    .filter_map(|r| r.id.as_deref()),
            )
            .collect();
        Resolver {
            guardrails,
            tools,
            unusable_tools,
            blocks: by_id,
            deployed,
        }
    }

    /// Whether the pack has a guardrail `id` (a rejected entry counts).
    pub(crate) fn has_guardrail(&self, id: &str) -> bool {
        self.guardrails.contains(id)
    }

    /// Every version of tool `id`: the pack's and the deployed ones, highest first, no
    /// duplicates.
    fn tool_versions(&self, id: &str) -> std::borrow::Cow<'_, [Version]> {
        let own = self.tools.get(id).map_or(&[][..], Vec::as_slice);
        let deployed = self.deployed.tool_versions(id);
        if deployed.is_empty() {
            // The common case (a pack resolving against itself): nothing copied.
            return std::borrow::Cow::Borrowed(own);
        }
        let mut all = own.to_vec();
        all.extend(deployed);
        all.sort_by(descending);
        all.dedup_by(|a, b| crate::range::compare_versions(a, b).is_eq());
        std::borrow::Cow::Owned(all)
    }

    /// Pins agent `agent_id`'s reference to tool `id` (see [`pin_tool_ref`]); `Ok(None)` when
    /// the tool has no version but an entry of the pack whose version does not parse, whose
    /// own issue already says why the reference cannot resolve.
    pub(crate) fn pin_tool(
        &self,
        agent_id: &str,
        id: &str,
        range_text: &str,
        range: Result<&Range, &RangeError>,
    ) -> Result<Option<Version>, Box<Issue>> {
        let versions = self.tool_versions(id);
        if versions.is_empty() && range.is_ok() && self.unusable_tools.contains(id) {
            return Ok(None);
        }
        pin_tool_ref(agent_id, id, range_text, range, &versions).map(|v| Some(v.clone()))
    }

    /// [`Resolver::pin_tool`] for a reference the compile did not see (its agent's shape
    /// failed), its range parsed here.
    pub(crate) fn pin_tool_text(
        &self,
        agent_id: &str,
        id: &str,
        range_text: &str,
    ) -> Result<Option<Version>, Box<Issue>> {
        self.pin_tool(agent_id, id, range_text, Range::parse(range_text).as_ref())
    }

    /// The highest version of block `id` in `range` among the pack's (which win a tie) and
    /// the deployed ones, and every version (highest first) for the message when none is.
    pub(crate) fn pick_block(&self, id: &str, range: &Range) -> (BlockPick, Vec<Version>) {
        let own = self.blocks.get(id);
        let deployed = self.deployed.blocks(id);
        let from_pack = own
            .and_then(|v| v.max_satisfying(range))
            .map(|(v, b)| (v.clone(), b.clone()));
        let from_deployed = deployed
            .as_deref()
            .and_then(|v| v.max_satisfying(range))
            .map(|(v, b)| (v.clone(), Some(Arc::clone(b))));
        let pick = match (from_pack, from_deployed) {
            (Some(p), Some(d)) if descending(&d.0, &p.0).is_lt() => Some(d),
            (Some(p), _) => Some(p),
            (None, d) => d,
        };
        if pick.is_some() {
            return (pick, Vec::new());
        }
        let mut all: Vec<Version> = own
            .into_iter()
            .flat_map(|v| v.versions().cloned())
            .collect();
        all.extend(deployed.iter().flat_map(|v| v.versions().cloned()));
        all.sort_by(descending);
        all.dedup_by(|a, b| crate::range::compare_versions(a, b).is_eq());
        (None, all)
    }

    /// Pins agent `agent_id`'s reference (`role`) to block `id` at `range`: the version and
    /// block picked, or the `block-unresolvable` issue at `at` — none in range, the wrong
    /// kind, or model settings that are not. `Ok((version, None))` when the version picked
    /// is present but unusable (its own issue says why).
    pub(crate) fn pin_block(
        &self,
        (agent_id, role): (&str, BlockRole),
        id: &str,
        (range_text, range): (&str, &Range),
        at: &str,
    ) -> Result<(Version, Option<Arc<CompiledBlock>>), Box<Issue>> {
        let desc = || format!("{} block \"{id}\"", role.desc());
        let issue = |message: String| {
            Box::new(
                Issue::error(
                    IssueCode::BlockUnresolvable,
                    at,
                    format!("agent \"{agent_id}\": {message}"),
                )
                .with_param("blockId", id)
                .with_param("requestedRange", range_text),
            )
        };
        let (pick, published) = self.pick_block(id, range);
        let Some((version, block)) = pick else {
            return Err(issue(block_pin_message(&desc(), range_text, &published)));
        };
        let Some(block) = block else {
            return Ok((version, None));
        };
        if block.kind() != role.kind() {
            return Err(issue(format!("{} is a {} block", desc(), block.kind())));
        }
        if let (BlockRole::ModelSettings, BlockContent::Settings { values }) =
            (role, &block.content)
            && let Some(why) = model_settings_problems(values)
        {
            return Err(issue(format!(
                "{} version {version} isn't model settings: {why}",
                desc()
            )));
        }
        Ok((version, Some(block)))
    }

    /// [`Resolver::pin_block`] for a reference the compile did not see (its agent's shape
    /// failed): `None` when `range_text` is no range (the agent rules report that).
    #[allow(clippy::type_complexity)]
    pub(crate) fn pin_block_text(
        &self,
        agent: (&str, BlockRole),
        id: &str,
        range_text: &str,
        at: &str,
    ) -> Option<Result<(Version, Option<Arc<CompiledBlock>>), Box<Issue>>> {
        let range = Range::parse(range_text).ok()?;
        Some(self.pin_block(agent, id, (range_text, &range), at))
    }

    /// The usable block [`Resolver::pick_block`] picks for `id` at `range_text`, for a
    /// reference the compile did not see; `None` when the range does not parse or nothing
    /// usable is in it.
    pub(crate) fn pick_block_text(&self, id: &str, range_text: &str) -> Option<Arc<CompiledBlock>> {
        let range = Range::parse(range_text).ok()?;
        self.pick_block(id, &range).0?.1
    }
}
