//! `runstart plan <index.json>... --providers <providers.json> --tenant <id> --agent
//! <id>[@version] [--param k=v]... [--policy <policy.json>]`: prepare a run and print its plan.

use super::files::{load_index_file, read_input};
use super::outcome::{CliError, EXIT_CLEAN, EXIT_PROBLEMS, Format, after_writing, write_json};
use runstart::route::{ProviderMetadata, TenantPolicy};
use runstart::run::{
    InvalidRequestReason, RegisterError, RunPlan, RunRequest, RunStart, RunStartError,
};
use serde_json::{Value, json};
use std::io::Write;
use std::path::PathBuf;

pub const HELP: &str = "\
Examples:
  runstart plan fixtures/packs/support-desk/index.json --providers fixtures/providers.json \\
      --agent support.escalation-writer --param ticketId=T-17 --param maxWords=80
  runstart plan pack/index.json --providers providers.json --tenant acme \\
      --agent shop.order-reviewer@0.3.1 --policy policy.json --now 2026-09-17T15:30:00.000Z --format human

--providers is a JSON array of provider metadata and --policy a tenant policy
{tenantId?, providers?: {allow?, deny?}, models?: {allow?, deny?}, regionAllow?,
maxCostPerCallUsd?, maxTokensPerCall?}; both are closed (an unknown field is an error naming
it). A --param value is read as JSON when it parses (80, true) and as text otherwise; a
parameter declared as string always gets the text. Every parameter must be declared and have
its declared type.

Output (--format json, the default): the plan, or {\"error\": {\"code\", \"message\", ...}}
(`invalid-index` or `pack-not-registered` with every issue, a run-start code, or
`invalid-request` for a parameter or clock the agent cannot take).

Exit status: 0 planned, 1 a pack that cannot be used or a run that cannot start, 2 usage,
input or I/O error.";

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Pack index files to register for the tenant.
    #[arg(required = true, value_name = "INDEX")]
    files: Vec<PathBuf>,
    /// JSON array of provider metadata to register for the tenant.
    #[arg(long, value_name = "FILE")]
    providers: PathBuf,
    /// Tenant id.
    #[arg(long, default_value = "default")]
    tenant: String,
    /// Agent to run: `id` (latest version) or `id@version`.
    #[arg(long)]
    agent: String,
    /// A prompt parameter, `name=value`; the value is JSON when it parses as JSON, else a
    /// string. Repeatable.
    #[arg(long = "param", value_name = "NAME=VALUE")]
    params: Vec<String>,
    /// A tenant policy (JSON) for this request, merged with none registered.
    #[arg(long, value_name = "FILE")]
    policy: Option<PathBuf>,
    /// The render clock, as `toISOString` writes it (`2026-09-17T15:30:00.000Z`, milliseconds
    /// optional); default: the system clock.
    #[arg(long, value_parser = iso_instant)]
    now: Option<String>,
    /// The conversation id (the `conversation` auto-variable); a turn always has one.
    #[arg(long, default_value = "cli-conversation")]
    conversation: String,
    /// The turn number in the conversation, counting from 1.
    #[arg(long, default_value_t = 1, value_parser = turn)]
    turn: u64,
    /// Output format: the plan as JSON, or a summary for a person.
    #[arg(long, value_enum, default_value_t = Format::Json)]
    format: Format,
}

pub fn run(args: Args, out: &mut dyn Write) -> Result<u8, CliError> {
    let run_start = RunStart::new();
    let mut definitions = Definitions::default();
    for path in &args.files {
        let index = match load_index_file(path)? {
            Ok(index) => index,
            Err(unusable) => return unusable.print(out, args.format),
        };
        definitions.add(path, &index)?;
        match run_start.register_pack(&args.tenant, &index) {
            Ok(()) => {}
            // A pack registration refuses (agents that cannot be pinned or compiled, a flow
            // the flow checks refuse) is a problem found, like a failed plan: every issue,
            // exit 1.
            Err(RegisterError::Pack(issues)) => {
                let written = print_unregistered(out, path, &issues, args.format);
                return after_writing(EXIT_PROBLEMS, written);
            }
            Err(e) => return Err(CliError::Usage(format!("{}: {e}", path.display()))),
        }
    }
    let providers: Vec<ProviderMetadata> = read_input(&args.providers)?;
    for (i, p) in providers.into_iter().enumerate() {
        run_start.register_provider(&args.tenant, p).map_err(|e| {
            // The provider's place in the file, and the registry's code (router.md §4.1).
            let code = match &e {
                RegisterError::Provider(e) => e.code(),
                _ => "invalid-provider",
            };
            CliError::Usage(format!("{}: /{i}: {code}: {e}", args.providers.display()))
        })?;
    }
    let (mut request, raw) = request(&args)?;
    let mut result = run_start.prepare(&request);
    // The command line cannot know a parameter's declared type before preparing: a value
    // that read as JSON (`ticketId=17`) for a parameter declared as string is its text.
    for _ in 0..raw.len() {
        let Err(RunStartError::InvalidRequest {
            reason:
                InvalidRequestReason::WrongParameterType {
                    name,
                    declared_type,
                    ..
                },
        }) = &result
        else {
            break;
        };
        let Some((_, text)) = raw.iter().find(|(n, _)| n == name) else {
            break;
        };
        let as_text = Value::String(text.clone());
        if declared_type != "string" || request.parameters.get(name) == Some(&as_text) {
            break;
        }
        request.parameters.insert(name.clone(), as_text);
        result = run_start.prepare(&request);
    }
    match result {
        Ok(plan) => {
            let written = match args.format {
                Format::Json => write_json(out, &plan),
                Format::Human => human(out, &plan),
            };
            after_writing(EXIT_CLEAN, written)
        }
        Err(e) => {
            let written = match args.format {
                Format::Json => write_json(out, &json!({ "error": e })),
                Format::Human => writeln!(out, "error[{}] {e}", e.code()).map_err(CliError::from),
            };
            after_writing(EXIT_PROBLEMS, written)
        }
    }
}

/// `pack-not-registered` with every issue registration refused the pack at `path` with.
fn print_unregistered(
    out: &mut dyn Write,
    path: &std::path::Path,
    issues: &[runstart::diagnostics::Issue],
    format: Format,
) -> Result<(), CliError> {
    let message = format!(
        "{}: the pack cannot be registered ({} issue(s))",
        path.display(),
        issues.len()
    );
    match format {
        Format::Json => write_json(
            out,
            &json!({"error": {"code": "pack-not-registered", "message": message, "issues": issues}}),
        ),
        Format::Human => {
            writeln!(out, "error[pack-not-registered] {message}")?;
            for issue in issues {
                writeln!(out, "  {issue}")?;
            }
            Ok(())
        }
    }
}

/// The tools, agents, blocks and guardrails the index files define, by what registration
/// keys them by (`kind id@version`, the version as a semver version so `v1.2.0` is `1.2.0`; a
/// guardrail by id), with the file of each and its canonical text. Registering one again
/// replaces it, so of two files that define one differently the later would win in silence:
/// that is refused instead. The same definition twice (a tool two packs share, written with
/// or without its pack's version, `10` or `10.0`) is fine.
#[derive(Default)]
struct Definitions(std::collections::HashMap<String, (String, String)>);

impl Definitions {
    fn add(
        &mut self,
        path: &std::path::Path,
        index: &runstart::index::PackIndex,
    ) -> Result<(), CliError> {
        let file = path.display().to_string();
        let mut entries: Vec<(String, Value)> = Vec::new();
        let mut add = |key: String, entry: Result<Value, serde_json::Error>| {
            entry
                .map(|e| entries.push((key, e)))
                .map_err(|e| CliError::Usage(format!("{file}: {e}")))
        };
        for t in &index.tools {
            let version = t.entry.version.as_deref().unwrap_or(&index.pack_version);
            let mut tool = t.entry.clone();
            let version = version_key(version);
            let key = format!("tool {}@{version}", tool.id);
            tool.version = Some(version);
            add(key, serde_json::to_value(&tool))?;
        }
        for a in &index.agents {
            let mut agent = a.entry.clone();
            agent.version = version_key(&agent.version);
            let key = format!("agent {}@{}", agent.id, agent.version);
            add(key, serde_json::to_value(&agent))?;
        }
        for b in &index.blocks {
            let mut block = b.entry.clone();
            block.version = version_key(&block.version);
            let key = format!("block {}@{}", block.id, block.version);
            add(key, serde_json::to_value(&block))?;
        }
        for g in &index.guardrails {
            add(
                format!("guardrail {}", g.entry.id),
                serde_json::to_value(&g.entry),
            )?;
        }
        for (key, entry) in entries {
            let text = runstart::index::canonical_text(&entry);
            match self.0.get(&key) {
                Some((first, earlier)) if *earlier != text => {
                    return Err(CliError::Usage(format!(
                        "{key} is defined differently in {first} and {file}; one version has one definition, so give one of the files a new version"
                    )));
                }
                Some(_) => {}
                None => {
                    self.0.insert(key, (file.clone(), text));
                }
            }
        }
        Ok(())
    }
}

/// A version as registration compares it: parsed (no `v`, no build metadata), or the text
/// as written when it is not semver (registration refuses such a pack anyway).
fn version_key(text: &str) -> String {
    match runstart::range::parse_version(text) {
        Some(mut v) => {
            v.build = semver::BuildMetadata::EMPTY;
            v.to_string()
        }
        None => text.to_owned(),
    }
}

/// The run request the arguments describe, and each `--param` as written (`name`, `value`).
/// A parameter's value is JSON when it parses, text otherwise: `maxWords=80` is the number
/// 80, `ticketId=T-17` text.
fn request(args: &Args) -> Result<(RunRequest, Vec<(String, String)>), CliError> {
    let tenant_policy: Option<TenantPolicy> = args.policy.as_deref().map(read_input).transpose()?;
    let (id, version) = match args.agent.split_once('@') {
        Some((id, v)) => (id.to_owned(), Some(v.to_owned())),
        None => (args.agent.clone(), None),
    };
    let mut request = RunRequest::new(
        args.tenant.clone(),
        id,
        args.now.clone().unwrap_or_else(runstart::run::iso_now),
    )
    .with_conversation(args.conversation.clone(), args.turn);
    request.agent.version = version;
    request.tenant_policy = tenant_policy;
    let mut raw = Vec::new();
    for p in &args.params {
        let (name, value) = p.split_once('=').ok_or_else(|| {
            CliError::Usage(format!(
                "--param {p:?}: write name=value, like --param ticketId=T-17"
            ))
        })?;
        let parsed =
            serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.to_owned()));
        raw.push((name.to_owned(), value.to_owned()));
        if request.parameters.insert(name.to_owned(), parsed).is_some() {
            // Which of two values was meant cannot be told; neither wins in silence.
            return Err(CliError::Usage(format!(
                "--param {name} is given more than once; give each parameter one value"
            )));
        }
    }
    Ok((request, raw))
}

fn human(out: &mut dyn Write, plan: &RunPlan) -> Result<(), CliError> {
    writeln!(out, "agent {}@{}", plan.agent_id, plan.agent_version)?;
    for t in plan.tools.iter() {
        writeln!(
            out,
            "tool {} {} (range {})",
            t.id, t.version, t.requested_range
        )?;
    }
    for (id, v) in plan.block_versions.iter() {
        writeln!(out, "block {id} {v}")?;
    }
    for c in &plan.capabilities {
        writeln!(
            out,
            "route {} -> {}/{}{}: {}",
            c.kind,
            c.provider_id,
            c.model,
            if c.fallback { " (fallback)" } else { "" },
            c.reason
        )?;
    }
    for w in &plan.warnings {
        writeln!(out, "warning {w}")?;
    }
    writeln!(out, "instructions:\n{}", plan.instructions)?;
    Ok(())
}

/// Accepts an instant written as JavaScript's `toISOString` writes it (the library checks it
/// again; this only gives the error before any file is read).
fn iso_instant(text: &str) -> Result<String, String> {
    if runstart::run::is_iso_instant(text) {
        Ok(text.to_owned())
    } else {
        Err(format!(
            "{text:?} is not an instant as toISOString writes it; write UTC with a real date, like 2026-09-17T15:30:00.000Z"
        ))
    }
}

fn turn(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => {
            Err("the turn number counts from 1 (the first turn of a conversation is 1)".to_owned())
        }
    }
}
