//! Tool input and output validation as upstream's pack service does it (handler runtime
//! `compileSchema` / `runHandler`): Ajv 2020-12 with `strict: true`, `allErrors: true`,
//! union types allowed and `ajv-formats`; the input side also `useDefaults: true` (a copy of
//! the input, each missing property's `default` filled in, is what is checked).
//!
//! Compiled once per schema when the [`Deployment`](super::Deployment) is built, through the
//! schema module's [`CompiledSchema`]; [`schema_issues`] is the one place that turns its
//! issues into the protocol's, so a more exact schema module is inherited here unchanged.

use super::defaults::DefaultPlan;
use super::message::{ErrorCode, PackError, ValidationIssue};
use crate::diagnostics::IssueCode;
use crate::schema::CompiledSchema;
use serde_json::{Map, Value};

/// Which side of a call a schema checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Input,
    Output,
}

/// One side's schema, compiled: the validator and, on the input side, where defaults go.
#[derive(Debug)]
pub(crate) struct SideSchema {
    side: Side,
    compiled: Result<(CompiledSchema, DefaultPlan), String>,
}

impl SideSchema {
    /// Compiles `schema` for `side`; a schema that does not compile is kept as its reason and
    /// answered on every call, as upstream answers it.
    pub fn compile(schema: &Value, side: Side) -> SideSchema {
        let compiled = CompiledSchema::compile(schema)
            .map_err(|why| why.to_string())
            .and_then(|c| match side {
                Side::Input => DefaultPlan::build(schema).map(|plan| (c, plan)),
                Side::Output => Ok((c, DefaultPlan::default())),
            });
        SideSchema { side, compiled }
    }

    /// Checks `value`; the error is the protocol's `input-validation-failed` /
    /// `output-validation-failed` answer for tool `tool_id`.
    pub fn check(&self, tool_id: &str, value: &Value) -> Result<(), Box<PackError>> {
        let (code, what) = match self.side {
            Side::Input => (ErrorCode::InputValidationFailed, "input"),
            Side::Output => (ErrorCode::OutputValidationFailed, "output"),
        };
        let (schema, defaults) = match &self.compiled {
            Ok(c) => c,
            Err(why) => {
                let mut cause = Map::new();
                cause.insert("name".into(), Value::from("Error"));
                cause.insert("message".into(), Value::from(why.as_str()));
                let mut e = PackError::new(
                    code,
                    format!("Tool \"{tool_id}\" {what} schema failed to compile: {why}"),
                )
                .with_tool_id(tool_id);
                e.cause = Some(cause);
                return Err(Box::new(e));
            }
        };
        let issues = if defaults.is_empty() {
            if schema.is_valid(value) {
                return Ok(());
            }
            schema_issues(schema, value)
        } else {
            let mut candidate = value.clone();
            defaults.apply(&mut candidate);
            if schema.is_valid(&candidate) {
                return Ok(());
            }
            schema_issues(schema, &candidate)
        };
        let message = match self.side {
            Side::Input => format!("Tool \"{tool_id}\" input failed validation"),
            Side::Output => {
                format!("Tool \"{tool_id}\" handler produced output that failed validation")
            }
        };
        Err(Box::new(
            PackError::new(code, message)
                .with_tool_id(tool_id)
                .with_issues(issues),
        ))
    }
}

/// Every violation of `schema` by `instance`, as the protocol's Ajv-shaped issues. The one
/// bridge between the schema module's issues and the protocol's: the schema module decides
/// the messages, paths, keywords and params.
pub(crate) fn schema_issues(schema: &CompiledSchema, instance: &Value) -> Vec<ValidationIssue> {
    schema
        .issues(instance, "", IssueCode::ToolValidation)
        .into_iter()
        .map(|issue| ValidationIssue {
            instance_path: issue.instance_path().to_owned(),
            schema_path: issue.schema_path().map(str::to_owned),
            keyword: issue.keyword().map(str::to_owned),
            params: Some(issue.params().clone()),
            message: issue.message().to_owned(),
            extra: Map::new(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn input_defaults_satisfy_required_and_are_checked() {
        let schema = json!({"type": "object", "properties": {"top": {"type": "integer", "default": 5}},
            "required": ["top"], "additionalProperties": false});
        let input = SideSchema::compile(&schema, Side::Input);
        assert!(input.check("t", &json!({})).is_ok());
        let output = SideSchema::compile(&schema, Side::Output);
        let e = output
            .check("t", &json!({}))
            .expect_err("no defaults on output");
        assert_eq!(e.code, ErrorCode::OutputValidationFailed);
        assert_eq!(
            e.message,
            "Tool \"t\" handler produced output that failed validation"
        );
        let issues = e.issues.expect("issues");
        assert_eq!(issues[0].message, "must have required property 'top'");
        assert_eq!(issues[0].schema_path.as_deref(), Some("#/required"));
        assert_eq!(
            issues[0].params.as_ref().expect("params")["missingProperty"],
            "top"
        );
        let bad_default =
            json!({"type": "object", "properties": {"n": {"type": "integer", "default": "x"}}});
        let e = SideSchema::compile(&bad_default, Side::Input)
            .check("t", &json!({}))
            .expect_err("the default is checked");
        assert_eq!(e.issues.expect("issues")[0].instance_path, "/n");
    }

    #[test]
    fn a_schema_that_does_not_compile_answers_every_call() {
        let s = SideSchema::compile(&json!({"type": "object", "foo": 1}), Side::Input);
        let e = s.check("t", &json!({})).expect_err("does not compile");
        assert_eq!(e.code, ErrorCode::InputValidationFailed);
        assert!(
            e.message.starts_with(
                "Tool \"t\" input schema failed to compile: strict mode: unknown keyword"
            ),
            "{}",
            e.message
        );
    }
}
