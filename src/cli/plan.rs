//! `runstart plan <index.json>... --providers <providers.json> --tenant <id> --agent
//! <id>[@version] [--param k=v]... [--policy <policy.json>]`: prepare a run and print its plan.

use super::{CliError, EXIT_CLEAN, EXIT_PROBLEMS, load_index_file, write_json};
use runstart::route::{ProviderMetadata, TenantPolicy};
use runstart::run::{AgentSelector, Conversation, RegisterError, RunRequest, RunStart};
use serde_json::{Map, Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};

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
    /// The render clock, ISO 8601 UTC (`2026-09-17T15:30:00.000Z`, milliseconds optional);
    /// default: now.
    #[arg(long, value_parser = iso_instant)]
    now: Option<String>,
    /// The conversation id (the `conversation` auto-variable); a turn always has one.
    #[arg(long, default_value = "cli-conversation")]
    conversation: String,
    /// The turn number in the conversation, counting from 1.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    turn: u64,
}

fn read(path: &Path) -> Result<Vec<u8>, CliError> {
    std::fs::read(path).map_err(|e| CliError::Usage(format!("cannot read {}: {e}", path.display())))
}

fn json_file<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, CliError> {
    serde_json::from_slice(&read(path)?)
        .map_err(|e| CliError::Usage(format!("{}: {e}", path.display())))
}

pub fn run(args: Args, out: &mut dyn Write) -> Result<u8, CliError> {
    let run_start = RunStart::new();
    for path in &args.files {
        let index = load_index_file(path)?;
        match run_start.register_pack(&args.tenant, &index) {
            Ok(()) => {}
            // A pack whose agents cannot be pinned or compiled is a problem found, like a
            // failed plan: every issue as JSON, exit 1.
            Err(RegisterError::Pack(issues)) => {
                let message = format!(
                    "{}: the pack cannot be registered ({} issue(s))",
                    path.display(),
                    issues.len()
                );
                write_json(
                    out,
                    &json!({"error": {"code": "pack-not-registered", "message": message, "issues": issues}}),
                )?;
                return Ok(EXIT_PROBLEMS);
            }
            Err(e) => return Err(CliError::Usage(format!("{}: {e}", path.display()))),
        }
    }
    let providers: Vec<ProviderMetadata> = json_file(&args.providers)?;
    for p in providers {
        run_start
            .register_provider(&args.tenant, p)
            .map_err(|e| CliError::Usage(format!("{}: {e}", args.providers.display())))?;
    }
    let tenant_policy: Option<TenantPolicy> = args.policy.as_deref().map(json_file).transpose()?;
    let (id, version) = match args.agent.split_once('@') {
        Some((id, v)) => (id.to_owned(), Some(v.to_owned())),
        None => (args.agent.clone(), None),
    };
    let mut parameters = Map::new();
    for p in &args.params {
        let (name, value) = p
            .split_once('=')
            .ok_or_else(|| CliError::Usage(format!("--param {p:?}: write name=value")))?;
        let value = serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.to_owned()));
        parameters.insert(name.to_owned(), value);
    }
    let request = RunRequest {
        tenant_id: args.tenant.clone(),
        agent: AgentSelector { id, version },
        parameters,
        input: None,
        conversation: Some(Conversation {
            id: args.conversation.clone(),
            turn: args.turn,
        }),
        pins: None,
        tenant_policy,
        now: args.now.clone().unwrap_or_else(now_iso),
    };
    match run_start.prepare(&request) {
        Ok(plan) => {
            write_json(out, &plan)?;
            Ok(EXIT_CLEAN)
        }
        Err(e) => {
            write_json(out, &json!({ "error": e }))?;
            Ok(EXIT_PROBLEMS)
        }
    }
}

/// Accepts an instant written as JavaScript's `toISOString` writes it,
/// `YYYY-MM-DDTHH:MM:SS.sssZ` (the milliseconds may be left out), with a real calendar date.
fn iso_instant(text: &str) -> Result<String, String> {
    let bad = || format!("{text:?} is not an ISO 8601 UTC instant like 2026-09-17T15:30:00.000Z");
    let b = text.as_bytes();
    let digits = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = b.get(r)?;
        if part.iter().all(u8::is_ascii_digit) {
            std::str::from_utf8(part).ok()?.parse().ok()
        } else {
            None
        }
    };
    let shape = matches!(b.len(), 20 | 24)
        && b.get(4) == Some(&b'-')
        && b.get(7) == Some(&b'-')
        && b.get(10) == Some(&b'T')
        && b.get(13) == Some(&b':')
        && b.get(16) == Some(&b':')
        && b.last() == Some(&b'Z')
        && (b.len() == 20 || (b.get(19) == Some(&b'.') && digits(20..23).is_some()));
    let (Some(year), Some(month), Some(day), Some(hour), Some(minute), Some(second)) = (
        digits(0..4),
        digits(5..7),
        digits(8..10),
        digits(11..13),
        digits(14..16),
        digits(17..19),
    ) else {
        return Err(bad());
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let month_days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    let valid = shape
        && (1..=12).contains(&month)
        && (1..=month_days).contains(&day)
        && hour < 24
        && minute < 60
        && second < 60;
    if valid {
        Ok(text.to_owned())
    } else {
        Err(bad())
    }
}

/// The system clock as ISO 8601 UTC with milliseconds.
fn now_iso() -> String {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = since.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        since.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_must_be_a_real_utc_instant() {
        for ok in [
            "2026-09-17T15:30:00.000Z",
            "2026-09-17T15:30:00Z",
            "2024-02-29T23:59:59.999Z",
        ] {
            assert_eq!(iso_instant(ok).as_deref(), Ok(ok));
        }
        for bad in [
            "notadate",
            "2026-13-45T99:00:00Z",
            "2025-02-29T00:00:00Z",
            "2026-09-17T15:30:00.000",
            "2026-09-17 15:30:00Z",
            "2026-09-17T15:30:00.00Z",
            "2026-09-17T24:00:00Z",
            "+2026-09-17T15:30:00Z",
        ] {
            assert!(iso_instant(bad).is_err(), "{bad}");
        }
        assert!(iso_instant(&now_iso()).is_ok());
    }
}
