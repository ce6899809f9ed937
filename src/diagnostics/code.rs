//! [`IssueCode`]: every machine code an [`Issue`](super::Issue) can carry, as one type.
//!
//! The strings are part of runstart's contract (the README's code table, SARIF rule ids, the
//! upstream codes of flows.md §2 and the pack protocol), so they live in one exhaustive match
//! and nowhere else. A test checks the README's table against [`IssueCode::ALL`].

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// Declares the enum, its one `as_str` match and the list of every code.
macro_rules! issue_codes {
    ($($(#[doc = $doc:literal])+ $variant:ident => $code:literal,)+) => {
        /// The stable machine code of an [`Issue`](super::Issue).
        ///
        /// [`as_str`](IssueCode::as_str) gives the wire string (`tool-version-unresolvable`);
        /// [`FromStr`] and serde read it back, refusing a string that is no code. The enum is
        /// `#[non_exhaustive]`: new checks add codes without breaking a `match` downstream.
        ///
        /// ```
        /// use runstart::diagnostics::IssueCode;
        ///
        /// assert_eq!(IssueCode::CycleDetected.as_str(), "cycle-detected");
        /// assert_eq!("cycle-detected".parse::<IssueCode>(), Ok(IssueCode::CycleDetected));
        /// assert!("cycle".parse::<IssueCode>().is_err());
        /// ```
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum IssueCode {
            $($(#[doc = $doc])+ $variant,)+
        }

        impl IssueCode {
            /// Every code, in declaration order (grouped by what checks them).
            pub const ALL: &'static [IssueCode] = &[$(IssueCode::$variant,)+];

            /// The wire string, e.g. `"tool-version-unresolvable"`.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(IssueCode::$variant => $code,)+
                }
            }
        }
    };
}

issue_codes! {
    // Loading the file (index::load).
    /// The file is not UTF-8.
    InvalidUtf8 => "invalid-utf8",
    /// The file is not JSON (with line and column).
    JsonSyntax => "json-syntax",
    /// The file is over the size cap of `index::Limits`.
    IndexTooLarge => "index-too-large",
    /// The JSON nests deeper than the cap of `index::Limits`.
    JsonTooDeep => "json-too-deep",
    /// A key appears more than once in one JSON object: readers keep only the last value.
    DuplicateKey => "duplicate-key",
    /// A list holds more entries than the cap of `index::Limits`.
    TooManyEntries => "too-many-entries",
    /// The envelope `v` is not 1; nothing else is checked.
    EnvelopeVersion => "envelope-version",
    /// An envelope field or entry does not have the pack index shape.
    InvalidShape => "invalid-shape",
    /// The CLI could not read the file.
    IoError => "io-error",

    // Whole-file checks.
    /// A list is not sorted by `id` in UTF-16 code-unit order.
    EntriesNotSorted => "entries-not-sorted",
    /// A `kind:id:version` is defined twice.
    DuplicateEntry => "duplicate-entry",
    /// The bytes are not what an indexer writes (warning).
    NonCanonicalIndex => "non-canonical-index",
    /// An `env` rule of the pack config is broken.
    EnvInvalid => "env-invalid",
    /// A `modulePath`/`checkModulePath` is not relative with forward slashes.
    ModulePathForm => "module-path-form",
    /// Two ids differ only by look-alike characters (warning).
    ConfusableId => "confusable-id",

    // Tools as manifests (deploy step 4).
    /// A tool entry breaks a rule of the tool manifest (`tool.schema.json`, `defineTool`).
    InvalidToolDefinition => "invalid-tool-definition",

    // Schemas.
    /// A tool or guardrail schema is not a valid draft 2020-12 schema.
    InvalidSchema => "invalid-schema",
    /// A schema fails (strict-mode) compilation.
    SchemaCompile => "schema-compile",
    /// A flow document does not match the flow schema.
    SchemaValidationFailed => "schema-validation-failed",

    // Agents and their references.
    /// A `defineAgent` rule (agents.md §2).
    InvalidAgent => "invalid-agent",
    /// A capability declaration does not match the capability schema.
    InvalidCapability => "invalid-capability",
    /// A parameter's `default` does not have its declared `type`.
    ParameterDefaultType => "parameter-default-type",
    /// A parameter named `input` (warning).
    InputParameter => "input-parameter",
    /// A tool or guardrail listed twice (warning).
    DuplicateRef => "duplicate-ref",
    /// A tool reference names no tool of the pack.
    ToolNotFound => "tool-not-found",
    /// A tool reference's `version` is not an npm range.
    InvalidVersionRange => "invalid-version-range",
    /// No published version satisfies a tool reference's range.
    ToolVersionUnresolvable => "tool-version-unresolvable",
    /// The exact tool version asked for is not registered.
    ToolVersionNotFound => "tool-version-not-found",
    /// An agent names a guardrail the pack does not have.
    UnresolvedGuardrail => "unresolved-guardrail",
    /// An agent names a data block the pack does not have (or of the wrong kind).
    BlockUnresolvable => "block-unresolvable",

    // Templates.
    /// A Liquid template does not parse.
    TemplateParse => "template-parse",
    /// A Liquid template nests deeper than the cap.
    TemplateTooDeep => "template-too-deep",
    /// A Liquid template is longer than the cap.
    TemplateTooLong => "template-too-long",
    /// A template reads a variable the run will not provide.
    TemplateUnknownVariable => "template-unknown-variable",
    /// A template reads a field its source does not have.
    TemplateUnknownField => "template-unknown-field",
    /// A template reads a settings block the agent does not reference.
    TemplateUnknownSettings => "template-unknown-settings",
    /// A template reads `input.*` in an agent no flow runs (warning).
    TemplateInputOutsideFlow => "template-input-outside-flow",
    /// A template uses a partial (`include`/`render`/`layout`).
    TemplatePartial => "template-partial",
    /// A template uses what runstart cannot render exactly as LiquidJS.
    TemplateUnsupported => "template-unsupported",
    /// A required parameter the instructions never read (warning).
    UnusedParameter => "unused-parameter",
    /// An optional parameter without a default is read (warning).
    OptionalParameterRead => "optional-parameter-read",

    // Blocks and guardrails.
    /// A `validateBlock` rule.
    InvalidBlock => "invalid-block",
    /// Settings values that do not satisfy their schema.
    SettingsValues => "settings-values",
    /// A guardrail rule (`at` outside `checkPoints`, `llm-judge` without judges).
    InvalidGuardrail => "invalid-guardrail",
    /// A guardrail `config` that does not satisfy its `configSchema`.
    GuardrailConfig => "guardrail-config",

    // Flows (flows.md §2, then runstart's own).
    /// Rule 1: a node is named after a sentinel.
    ReservedId => "reserved-id",
    /// Rule 2: a node id is used twice, at any depth.
    DuplicateNodeId => "duplicate-node-id",
    /// Rule 3: an edge id is used twice, at any depth.
    DuplicateEdgeId => "duplicate-edge-id",
    /// Rule 4: an outer edge names an unknown node.
    UnknownNodeReference => "unknown-node-reference",
    /// Rule 5: a malformed predicate.
    InvalidPredicate => "invalid-predicate",
    /// Rule 6: an edge policy value out of bounds.
    InvalidEdgePolicy => "invalid-edge-policy",
    /// Rule 7: a loop's `maxIterations` out of bounds.
    LoopInvalidMaxIterations => "loop-invalid-max-iterations",
    /// Rule 8: a loop mixes while and foreach fields.
    LoopVariantMismatch => "loop-variant-mismatch",
    /// Rule 9: a loop's `outputSchema` does not compile.
    LoopInvalidOutputSchema => "loop-invalid-output-schema",
    /// Rule 10: a foreach loop's `concurrency` out of bounds.
    LoopInvalidConcurrency => "loop-invalid-concurrency",
    /// Rule 11: a malformed fanout node.
    InvalidFanoutNode => "invalid-fanout-node",
    /// Rule 12: a malformed subgraph node.
    InvalidSubgraphNode => "invalid-subgraph-node",
    /// Rule 13: a mapping path names no node, its own node, or a loop-only root.
    InvalidMapping => "invalid-mapping",
    /// Rule 14: `output.schema` does not compile.
    InvalidFlowOutput => "invalid-flow-output",
    /// Rule 15: no edge leaves `$start`.
    MissingStartEdge => "missing-start-edge",
    /// Rule 16: the outer graph has a cycle.
    CycleDetected => "cycle-detected",
    /// Rule 17a: no body edge leaves `$loop-start`.
    LoopBodyMissingStartEdge => "loop-body-missing-start-edge",
    /// Rule 17b: a body edge names a node outside its body.
    LoopBodyUnknownNodeReference => "loop-body-unknown-node-reference",
    /// Rule 17c: a loop body has a cycle.
    LoopBodyCycleDetected => "loop-body-cycle-detected",
    /// Beyond upstream (warning): a node no path from the entry sentinel reaches.
    NodeUnreachable => "node-unreachable",
    /// Beyond upstream (warning): a node with no path to the exit sentinel.
    NodeCannotReachEnd => "node-cannot-reach-end",
    /// Beyond upstream (warning): an edge from the entry straight to the exit sentinel.
    StartToEndEdge => "start-to-end-edge",
    /// Beyond upstream (warning): two edges with the same `from` and `to`.
    DuplicateParallelEdge => "duplicate-parallel-edge",
    /// Beyond upstream (warning): a loop body with no edge to `$loop-end`.
    LoopBodyMissingEndEdge => "loop-body-missing-end-edge",
    /// Beyond upstream: a tool `ref` or fanout `handler` naming no tool.
    FlowUnknownTool => "flow-unknown-tool",
    /// Beyond upstream: an agent `ref` naming no agent.
    FlowUnknownAgent => "flow-unknown-agent",
    /// Beyond upstream: a subgraph node, which the runtime refuses.
    FlowUnbound => "flow-unbound",
    /// A flow over the size caps; nothing else is checked.
    FlowTooLarge => "flow-too-large",

    // Pack protocol v2: deployments, call contexts, service info.
    /// An env need of a deployment is malformed.
    InvalidEnvNeed => "invalid-env-need",
    /// A call names a tool the run's plan does not hold.
    ToolNotPlanned => "tool-not-planned",
    /// A tool is not part of the deployment.
    ToolNotInDeployment => "tool-not-in-deployment",
    /// A required env value is missing.
    EnvValueMissing => "env-value-missing",
    /// An env value does not satisfy its rule.
    EnvValueInvalid => "env-value-invalid",
    /// An agent is not part of the deployment.
    AgentNotInDeployment => "agent-not-in-deployment",
    /// A settings block the call needs is missing.
    SettingsBlockMissing => "settings-block-missing",
    /// A resumed call has no wait token.
    WaitTokenMissing => "wait-token-missing",
    /// The service speaks another protocol version.
    ProtocolVersionMismatch => "protocol-version-mismatch",
    /// The service serves another pack.
    PackIdMismatch => "pack-id-mismatch",
    /// The service serves another pack version.
    PackVersionMismatch => "pack-version-mismatch",
    /// The service's artifact version differs from the index's.
    ArtifactVersionMismatch => "artifact-version-mismatch",
    /// The service's index hash differs from the deployed index's.
    IndexHashMismatch => "index-hash-mismatch",
    /// The service reports no index hash (warning).
    IndexHashAbsent => "index-hash-absent",
    /// An indexed tool is not served.
    ToolNotServed => "tool-not-served",
    /// A served tool's version differs from the indexed one.
    ToolVersionMismatch => "tool-version-mismatch",
    /// An indexed check is not served.
    CheckNotServed => "check-not-served",
    /// A served tool is not in the index.
    ToolNotIndexed => "tool-not-indexed",
    /// A served check is not in the index.
    CheckNotIndexed => "check-not-indexed",
    /// The service lacks an env value the index needs.
    MissingEnv => "missing-env",
    /// A tool call's input or output does not satisfy the tool's schema.
    ToolValidation => "tool-validation",

    // Pack protocol v2 error codes, when a message that should be an answer is one issue.
    /// Protocol `input-validation-failed`.
    InputValidationFailed => "input-validation-failed",
    /// Protocol `output-validation-failed`.
    OutputValidationFailed => "output-validation-failed",
    /// Protocol `handler-import-failed`.
    HandlerImportFailed => "handler-import-failed",
    /// Protocol `handler-shape-invalid`.
    HandlerShapeInvalid => "handler-shape-invalid",
    /// Protocol `handler-throw`.
    HandlerThrow => "handler-throw",
    /// Protocol `connection-rejected`.
    ConnectionRejected => "connection-rejected",
    /// Protocol `check-shape-invalid`.
    CheckShapeInvalid => "check-shape-invalid",
    /// Protocol `malformed-message`: not JSON, not an object, or a required field missing.
    MalformedMessage => "malformed-message",
    /// Protocol `unknown-protocol-version`: `v` is not 2.
    UnknownProtocolVersion => "unknown-protocol-version",
    /// Protocol `unexpected-message-kind`.
    UnexpectedMessageKind => "unexpected-message-kind",
    /// Protocol `tool-not-in-pack`.
    ToolNotInPack => "tool-not-in-pack",
    /// Protocol `check-not-in-pack`.
    CheckNotInPack => "check-not-in-pack",
    /// Protocol `deadline-exceeded`.
    DeadlineExceeded => "deadline-exceeded",
    /// Protocol `cancelled`.
    Cancelled => "cancelled",
    /// Protocol `pause-not-available`.
    PauseNotAvailable => "pause-not-available",
}

/// Codes order as their strings do, so a sorted report or a SARIF rule list reads
/// alphabetically whatever the declaration order.
impl Ord for IssueCode {
    fn cmp(&self, other: &IssueCode) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for IssueCode {
    fn partial_cmp(&self, other: &IssueCode) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for IssueCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string that is no [`IssueCode`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownIssueCode(pub String);

impl fmt::Display for UnknownIssueCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is not a runstart issue code", self.0)
    }
}

impl std::error::Error for UnknownIssueCode {}

impl FromStr for IssueCode {
    type Err = UnknownIssueCode;

    fn from_str(s: &str) -> Result<IssueCode, UnknownIssueCode> {
        IssueCode::ALL
            .iter()
            .copied()
            .find(|code| code.as_str() == s)
            .ok_or_else(|| UnknownIssueCode(s.to_owned()))
    }
}

impl PartialEq<str> for IssueCode {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for IssueCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<IssueCode> for &str {
    fn eq(&self, other: &IssueCode) -> bool {
        *self == other.as_str()
    }
}

impl Serialize for IssueCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for IssueCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<IssueCode, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn codes_are_distinct_kebab_case_and_round_trip() {
        let mut seen = BTreeSet::new();
        for &code in IssueCode::ALL {
            let s = code.as_str();
            assert!(seen.insert(s), "{s} twice");
            assert!(
                s.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{s} is not kebab-case"
            );
            assert_eq!(s.parse::<IssueCode>(), Ok(code));
            let json = serde_json::to_string(&code).unwrap();
            assert_eq!(serde_json::from_str::<IssueCode>(&json).unwrap(), code);
        }
        assert!(serde_json::from_str::<IssueCode>("\"nope\"").is_err());
    }
}
