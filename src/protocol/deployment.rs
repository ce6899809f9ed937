//! A deployed pack index, compiled once for the protocol: its identity and hash for the
//! service check, and per tool what a call needs (schemas, env needs, `pauses`, files).

use super::message::{ErrorCode, PackError};
use super::validate::{Side, SideSchema};
use crate::diagnostics::Issue;
use crate::index::{self, wire::BlockKind, wire::Tool};
use crate::pack::{EnvNeed, compile_env_needs};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// How a pack service treats a required pack env name it lacks (upstream's `envCheck`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum EnvCheck {
    /// The service is not ready while any is missing (upstream's default).
    #[default]
    Strict,
    /// It serves, and names them in its log and `/v1/info`.
    Warn,
}

/// One indexed tool version, compiled for calls.
#[derive(Debug)]
pub(crate) struct ToolContract {
    pub id: String,
    /// The version as indexed (a pack service compares it as text).
    pub version: Option<String>,
    pub input: SideSchema,
    pub output: SideSchema,
    pub env: Vec<EnvNeed>,
    pub pauses: bool,
    pub stores_files: bool,
    pub reads_files: bool,
}

/// A pack index as deployed to one pack service endpoint, compiled once: what the service
/// check compares a `/v1/info` answer with, and what every call to its tools needs.
///
/// Cheap to share: build it at registration and answer calls through `&self` from any number
/// of threads.
#[derive(Debug)]
pub struct Deployment {
    pub(crate) pack_id: String,
    pub(crate) pack_version: String,
    pub(crate) artifact_version: String,
    pub(crate) index_hash: String,
    /// Tools in index order.
    pub(crate) tools: Vec<ToolContract>,
    /// Check ids the service must serve (`checkId`, else `id`; built-in checks left out), in
    /// index order.
    pub(crate) checks: Vec<String>,
    /// Check ids of guardrails that name a built-in check (`checkBuiltIn`): a service may list
    /// them, none has to.
    pub(crate) built_in_checks: Vec<String>,
    pub(crate) required_env: Vec<String>,
    pub(crate) env_check: EnvCheck,
    /// Agent id → `(version, the ids of the settings blocks it pins, in its order)`; keyed by
    /// id alone so a call looks it up by `&str` without building a key.
    pub(crate) agent_settings: HashMap<String, Versions<Vec<String>>>,
    /// Block id → `(version, a settings block's values)`.
    pub(crate) settings_values: HashMap<String, Versions<Map<String, Value>>>,
}

/// Entries of one id by version text, in index order (a handful per id: a scan beats a map).
pub(crate) type Versions<T> = Vec<(String, T)>;

/// The tool fields of protocol 2.10.0 that pack index 1.7.0 does not define yet: read from the
/// raw entry, so a newer index's tool keeps them.
const PROTOCOL_TOOL_FIELDS: [&str; 2] = ["storesFiles", "readsFiles"];

impl Deployment {
    /// Compiles the deployed `index.json` bytes.
    ///
    /// Every tool's input and output schema is compiled here (strict mode, as the pack service
    /// compiles them); one that does not compile is not a deploy error here, since upstream
    /// answers it per call (`input-validation-failed`, "…schema failed to compile"). Each
    /// `needsSpec.env` schema is compiled as the runtime compiles it, and its `default` must
    /// be a string. A tool entry may carry `storesFiles` / `readsFiles` (protocol 2.10.0),
    /// which pack index 1.7.0 does not define.
    ///
    /// # Errors
    ///
    /// The load's issues when the bytes are not a usable index (not UTF-8, not JSON, envelope
    /// `v` not 1); [`IssueCode::InvalidEnvNeed`](crate::diagnostics::IssueCode::InvalidEnvNeed) issues for env needs a runtime would refuse (upstream
    /// refuses such a deployment).
    pub fn new(bytes: &[u8]) -> Result<Deployment, Vec<Issue>> {
        let loaded = index::load(bytes);
        let (Some(pack), Some(document)) = (loaded.index, loaded.document.as_ref()) else {
            return Err(loaded.report.into_issues());
        };
        let mut issues = Vec::new();
        let raw_tools = document
            .get("tools")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let mut tools = Vec::with_capacity(raw_tools.len());
        for (i, raw) in raw_tools.iter().enumerate() {
            let Some(mut entry) = raw.as_object().cloned() else {
                continue;
            };
            let flag = |name: &str| entry.get(name).and_then(Value::as_bool).unwrap_or(false);
            let (stores_files, reads_files) = (flag("storesFiles"), flag("readsFiles"));
            for f in PROTOCOL_TOOL_FIELDS {
                entry.remove(f);
            }
            // An entry of the wrong shape is the loader's (and validate's) to report.
            let Ok(tool) = serde_json::from_value::<Tool>(Value::Object(entry)) else {
                continue;
            };
            let env = compile_env_needs(&tool, i, &mut issues);
            tools.push(ToolContract {
                input: SideSchema::compile(&tool.input, Side::Input),
                output: SideSchema::compile(&tool.output, Side::Output),
                env,
                pauses: tool.pauses.unwrap_or(false),
                stores_files,
                reads_files,
                version: tool.version,
                id: tool.id,
            });
        }
        if !issues.is_empty() {
            return Err(issues);
        }
        let (built_in, shipped): (Vec<_>, Vec<_>) = pack
            .guardrails
            .iter()
            .partition(|g| g.entry.check_built_in == Some(true));
        let check_id = |g: &&index::Indexed<crate::index::wire::Guardrail>| {
            g.entry
                .check_id
                .clone()
                .unwrap_or_else(|| g.entry.id.clone())
        };
        let checks = shipped.iter().map(check_id).collect();
        let built_in_checks = built_in.iter().map(check_id).collect();
        let mut agent_settings = HashMap::new();
        for a in &pack.agents {
            let ids = a
                .entry
                .settings
                .iter()
                .flatten()
                .map(|s| s.id.clone())
                .collect();
            agent_settings
                .entry(a.entry.id.clone())
                .or_insert_with(Vec::new)
                .push((a.entry.version.clone(), ids));
        }
        let mut settings_values = HashMap::new();
        for b in &pack.blocks {
            if b.entry.kind != BlockKind::Settings {
                continue;
            }
            if let Some(values) = b.entry.content.get("values").and_then(Value::as_object) {
                settings_values
                    .entry(b.entry.id.clone())
                    .or_insert_with(Vec::new)
                    .push((b.entry.version.clone(), values.clone()));
            }
        }
        Ok(Deployment {
            index_hash: index::index_hash(bytes),
            required_env: pack.env.map(|e| e.required).unwrap_or_default(),
            pack_id: pack.pack_id,
            pack_version: pack.pack_version,
            artifact_version: pack.artifact_version,
            tools,
            checks,
            built_in_checks,
            env_check: EnvCheck::Strict,
            agent_settings,
            settings_values,
        })
    }

    /// The same deployment under another env check (default [`EnvCheck::Strict`]).
    #[must_use]
    pub fn with_env_check(mut self, env_check: EnvCheck) -> Deployment {
        self.env_check = env_check;
        self
    }

    /// The `indexHash` of the deployed bytes (`sha256:<hex>`).
    pub fn index_hash(&self) -> &str {
        &self.index_hash
    }

    /// The pack's id.
    pub fn pack_id(&self) -> &str {
        &self.pack_id
    }

    /// The pack env names the index requires (`env.required`), which a service's `missingEnv`
    /// may name.
    pub fn required_env(&self) -> &[String] {
        &self.required_env
    }

    /// The tool version a call names, resolved as the pack service resolves it: that version
    /// (compared as text), or, when the call names none, the tool's only version.
    /// The settings block ids agent `id` version `version` pins, if the agent is here.
    pub(crate) fn agent_settings(&self, id: &str, version: &str) -> Option<&[String]> {
        self.agent_settings
            .get(id)?
            .iter()
            .find(|(v, _)| v == version)
            .map(|(_, ids)| ids.as_slice())
    }

    /// The values of settings block `id` at `version`, if it is here.
    pub(crate) fn settings_values(&self, id: &str, version: &str) -> Option<&Map<String, Value>> {
        self.settings_values
            .get(id)?
            .iter()
            .find(|(v, _)| v == version)
            .map(|(_, values)| values)
    }

    pub(crate) fn tool(
        &self,
        id: &str,
        version: Option<&str>,
    ) -> Result<&ToolContract, Box<PackError>> {
        let mut versions = self.tools.iter().filter(|t| t.id == id);
        let found = match version {
            // The call names none: the tool's only version, if it has one only.
            None => versions
                .next()
                .filter(|_| self.tools.iter().filter(|t| t.id == id).nth(1).is_none()),
            Some(v) => versions.find(|t| t.version.as_deref() == Some(v)),
        };
        found.ok_or_else(|| Box::new(self.tool_refusal(id, version)))
    }

    /// The error a pack service answers for a call naming a tool version it does not hold.
    fn tool_refusal(&self, id: &str, version: Option<&str>) -> PackError {
        let have: Vec<&str> = self
            .tools
            .iter()
            .filter(|t| t.id == id)
            .map(|t| t.version.as_deref().unwrap_or("unversioned"))
            .collect();
        if have.is_empty() {
            return PackError::new(
                ErrorCode::ToolNotInPack,
                format!("This pack has no tool \"{id}\""),
            )
            .with_tool_id(id);
        }
        let have = have.join(", ");
        let message = match version {
            None => format!(
                "Tool \"{id}\" has several versions in this pack ({have}); the caller named none"
            ),
            Some(v) => format!("Tool \"{id}\" is {have} in this pack; the caller asked for {v}"),
        };
        PackError::new(ErrorCode::ToolVersionMismatch, message).with_tool_id(id)
    }

    /// Checks a tool call's input as the pack service will, before it is sent: the tool is
    /// resolved as the service resolves it (`version` `None`: its only version), and the input,
    /// with its schema's defaults filled in, must satisfy the indexed input schema.
    ///
    /// # Errors
    ///
    /// The protocol error the service would answer: `input-validation-failed` with Ajv-shaped
    /// `issues` (or, for a schema that does not compile, its reason), `tool-not-in-pack`,
    /// `tool-version-mismatch`.
    ///
    /// # Examples
    ///
    /// ```
    /// use runstart::protocol::{Deployment, ErrorCode};
    /// use serde_json::json;
    ///
    /// let bytes = std::fs::read("fixtures/packs/support-desk/index.json")?;
    /// let d = Deployment::new(&bytes).expect("a usable index");
    /// assert!(d.validate_tool_input("support.kb.search", Some("0.9.3"), &json!({"query": "refund"})).is_ok());
    /// let e = d.validate_tool_input("support.kb.search", None, &json!({})).unwrap_err();
    /// assert_eq!(e.code, ErrorCode::InputValidationFailed);
    /// assert_eq!(e.issues.unwrap()[0].message, "must have required property 'query'");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn validate_tool_input(
        &self,
        tool_id: &str,
        version: Option<&str>,
        input: &Value,
    ) -> Result<(), Box<PackError>> {
        self.tool(tool_id, version)?.input.check(tool_id, input)
    }

    /// Checks a handler's return value against the tool's indexed output schema (no defaults
    /// filled in), as the pack service does before it answers `result`.
    ///
    /// # Errors
    ///
    /// `output-validation-failed` with Ajv-shaped `issues`, `tool-not-in-pack`,
    /// `tool-version-mismatch`.
    pub fn validate_tool_output(
        &self,
        tool_id: &str,
        version: Option<&str>,
        output: &Value,
    ) -> Result<(), Box<PackError>> {
        self.tool(tool_id, version)?.output.check(tool_id, output)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn compiled_types_are_send_and_sync() {
        assert_send_sync::<Deployment>();
        assert_send_sync::<ToolContract>();
    }

    #[test]
    fn bytes_that_are_no_index_are_refused_with_the_loads_issues() {
        let e = Deployment::new(b"{").expect_err("not JSON");
        assert_eq!(e[0].code(), "json-syntax");
        let e = Deployment::new(br#"{"v": 2}"#).expect_err("envelope");
        assert_eq!(e[0].code(), "envelope-version");
    }
}
