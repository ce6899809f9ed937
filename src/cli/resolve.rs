//! `runstart resolve <index.json>... --tool <id> --range <range>` and `--agents`: resolve tool
//! references against the tools of one or more pack indexes, as run start would.

use super::files::{Unusable, load_index_file};
use super::outcome::{CliError, EXIT_CLEAN, EXIT_PROBLEMS, Format, after_writing, write_json};
use runstart::catalog::{Catalog, ToolRange};
use runstart::range::parse_version;
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;

/// The single tenant the CLI's catalog uses.
const TENANT: &str = "cli";

pub const HELP: &str = "\
Examples:
  runstart resolve fixtures/packs/order-review/index.json --tool shop.fraud.score --range '^3.0.0'
  runstart resolve fixtures/packs/support-desk/index.json --agents --format json

Ranges are npm semver 7 ranges; a prerelease is picked only when the range names one on the
same major.minor.patch. A file that is not a usable pack index is refused with the issues
`runstart validate` reports.

Exit status: 0 every reference resolves, 1 a reference does not resolve or a file is not a
usable pack index, 2 usage or I/O error.";

#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["tool", "agents"])))]
pub struct Args {
    /// Pack index files whose tools form the catalog.
    #[arg(required = true, value_name = "INDEX")]
    files: Vec<PathBuf>,
    /// Tool id to resolve (with --range).
    #[arg(long, requires = "range")]
    tool: Option<String>,
    /// npm semver range to resolve --tool with.
    #[arg(long, allow_hyphen_values = true)]
    range: Option<String>,
    /// List every agent tool reference of the indexes with its resolution.
    #[arg(long)]
    agents: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

/// Where a catalog entry came from.
#[derive(Debug, Clone)]
struct Source {
    file: String,
    pointer: String,
}

/// One agent's tool references: `(tool id, range)`.
struct AgentRefs {
    id: String,
    version: String,
    refs: Vec<(String, String)>,
}

struct Loaded {
    file: String,
    agents: Vec<AgentRefs>,
}

/// What the files give: the catalog of their tools and each file's agents.
struct Inputs {
    catalog: Catalog<Source>,
    loaded: Vec<Loaded>,
}

pub fn run(args: Args, out: &mut dyn Write) -> Result<u8, CliError> {
    let Inputs { catalog, loaded } = match load(&args.files)? {
        Ok(inputs) => inputs,
        Err(unusable) => return unusable.print(out, args.format),
    };
    let mut failures = 0usize;
    let mut rows: Vec<Row> = Vec::new();
    if let (Some(tool), Some(range)) = (&args.tool, &args.range) {
        let result = resolve(&catalog, tool, range);
        failures += usize::from(result.is_err());
        rows.push((None, tool.clone(), range.clone(), result));
    }
    if args.agents {
        for l in &loaded {
            for AgentRefs {
                id: agent,
                version,
                refs,
            } in &l.agents
            {
                for (tool, range) in refs {
                    let result = resolve(&catalog, tool, range);
                    failures += usize::from(result.is_err());
                    rows.push((
                        Some((l.file.clone(), agent.clone(), version.clone())),
                        tool.clone(),
                        range.clone(),
                        result,
                    ));
                }
            }
        }
    }
    let status = if failures > 0 {
        EXIT_PROBLEMS
    } else {
        EXIT_CLEAN
    };
    let written = match args.format {
        Format::Human => write_human(out, &rows),
        Format::Json => write_rows_json(out, &rows, args.agents),
    };
    after_writing(status, written)
}

/// One resolution: the agent it belongs to (`file`, id, version) unless it is `--tool`'s,
/// the tool id, the range, and the version with its source or the error code and message.
type Row = (
    Option<(String, String, String)>,
    String,
    String,
    Result<(String, Source), (String, String)>,
);

/// Loads every file: the catalog of their tools (the first file defining a tool version
/// wins) and each file's agents; the first file that is not a usable index is returned as
/// such.
fn load(files: &[PathBuf]) -> Result<Result<Inputs, Unusable>, CliError> {
    let mut catalog: Catalog<Source> = Catalog::new();
    let mut loaded = Vec::new();
    for path in files {
        let file = path.display().to_string();
        let index = match load_index_file(path)? {
            Ok(index) => index,
            Err(unusable) => return Ok(Err(unusable)),
        };
        for tool in &index.tools {
            let version = tool.entry.version.as_deref().unwrap_or(&index.pack_version);
            let Some(v) = parse_version(version) else {
                continue;
            };
            let source = Source {
                file: file.clone(),
                pointer: format!("/tools/{}", tool.index),
            };
            // A second file defining the same tool version does not replace the first.
            let _ = catalog.insert(TENANT, &tool.entry.id, v, source);
        }
        let agents = index
            .agents
            .iter()
            .map(|a| {
                let refs = a
                    .entry
                    .tools
                    .iter()
                    .map(|t| (t.id.clone(), t.version.clone()))
                    .collect();
                AgentRefs {
                    id: a.entry.id.clone(),
                    version: a.entry.version.clone(),
                    refs,
                }
            })
            .collect();
        loaded.push(Loaded { file, agents });
    }
    Ok(Ok(Inputs { catalog, loaded }))
}

/// Resolves tool `id`'s `range` against the catalog.
fn resolve(
    catalog: &Catalog<Source>,
    id: &str,
    range: &str,
) -> Result<(String, Source), (String, String)> {
    let range = ToolRange::new(range);
    catalog
        .resolve(TENANT, id, &range)
        .map(|hit| (hit.version.to_string(), hit.value.clone()))
        .map_err(|e| {
            // Explain a bad range as `validate` does (what is wrong, and a range that
            // works), not only that it is invalid.
            let message = match runstart::range::Range::parse(range.text()) {
                Err(why) if e.code() == "invalid-version-range" => format!(
                    "tool \"{id}\" has an invalid version range \"{}\": {why}",
                    range.text()
                ),
                _ => e.to_string(),
            };
            (e.code().to_string(), message)
        })
}

/// The human lines: one per resolution, prefixed with its agent.
fn write_human(out: &mut dyn Write, rows: &[Row]) -> Result<(), CliError> {
    for (agent, tool, range, result) in rows {
        if let Some((_, a, v)) = agent {
            write!(out, "{a}@{v}: ")?;
        }
        match result {
            Ok((version, src)) => writeln!(
                out,
                "{tool} {range:?} -> {version} ({} {})",
                src.file, src.pointer
            )?,
            Err((code, message)) => writeln!(out, "{tool} {range:?} -> error[{code}] {message}")?,
        }
    }
    Ok(())
}

/// The JSON answer: the list of resolutions with `--agents`, else the one resolution.
fn write_rows_json(out: &mut dyn Write, rows: &[Row], agents: bool) -> Result<(), CliError> {
    let list: Vec<_> = rows
        .iter()
        .map(|(agent, tool, range, result)| {
            let mut row = json!({"tool": tool, "range": range});
            if let Some((file, a, v)) = agent {
                row["file"] = json!(file);
                row["agent"] = json!(a);
                row["agentVersion"] = json!(v);
            }
            match result {
                Ok((version, src)) => {
                    row["version"] = json!(version);
                    row["source"] = json!({"file": src.file, "pointer": src.pointer});
                }
                Err((code, message)) => row["error"] = json!({"code": code, "message": message}),
            }
            row
        })
        .collect();
    let value = if agents {
        json!(list)
    } else {
        list.into_iter().next().unwrap_or_default()
    };
    write_json(out, &value)?;
    Ok(())
}
