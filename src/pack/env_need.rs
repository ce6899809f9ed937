//! What a tool declares in `needsSpec.env`, compiled as the runtime compiles it: the protocol's
//! deployment keeps the result for each call, and deploy validation reports the same issues,
//! so an index that validates is one a pack service accepts.

use crate::diagnostics::{Issue, IssueCode, pointer};
use crate::index::wire::Tool;
use crate::schema::CompiledSchema;
use serde_json::{Map, Value};

/// One env name a tool declares in `needsSpec.env`.
#[derive(Debug)]
pub(crate) struct EnvNeed {
    pub name: String,
    /// The schema's `default` (a string), which makes the name optional.
    pub default: Option<String>,
    pub schema: CompiledSchema,
}

/// The schemas, by name, a tool declares in one slot of its `needsSpec` (`env`, `secrets`);
/// `None` when the slot is absent or not an object.
pub(crate) fn needs_slot<'t>(tool: &'t Tool, slot: &str) -> Option<&'t Map<String, Value>> {
    tool.needs_spec
        .as_ref()
        .and_then(|n| n.get(slot))
        .and_then(Value::as_object)
}

/// The env needs of the tool at `/tools/<index>`; each schema that does not compile, and each
/// `default` that is not a string, is an [`IssueCode::InvalidEnvNeed`] issue instead (upstream
/// refuses such a deployment).
pub(crate) fn compile_env_needs(
    tool: &Tool,
    index: usize,
    issues: &mut Vec<Issue>,
) -> Vec<EnvNeed> {
    let Some(env) = needs_slot(tool, "env") else {
        return Vec::new();
    };
    let mut needs = Vec::with_capacity(env.len());
    for (name, schema) in env {
        let at = pointer::join(&format!("/tools/{index}"), &["needsSpec", "env", name]);
        let default = match schema.get("default") {
            None => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => {
                issues.push(Issue::error(
                    IssueCode::InvalidEnvNeed,
                    format!("{at}/default"),
                    format!(
                        "Tool \"{}\": needsSpec.env.{name}'s default must be a string: env values are strings.",
                        tool.id
                    ),
                ));
                continue;
            }
        };
        match CompiledSchema::compile(schema) {
            Ok(schema) => needs.push(EnvNeed {
                name: name.clone(),
                default,
                schema,
            }),
            Err(why) => issues.push(Issue::error(
                IssueCode::InvalidEnvNeed,
                at,
                format!(
                    "Tool \"{}\": the schema for needsSpec.env.{name} doesn't compile: {}",
                    tool.id, why
                ),
            )),
        }
    }
    needs
}
