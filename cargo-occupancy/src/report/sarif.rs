//! `cargo occupancy report --format sarif`: the report's evaluated wrappers as a SARIF 2.1.0
//! log (OASIS Static Analysis Results Interchange Format, Errata 01), for CI code scanning
//! (GitHub's `codeql-action/upload-sarif` and other SARIF viewers).
//!
//! One run, tool `cargo-occupancy`:
//!
//! - `tool.driver.rules`: every lint of [`occupancy_core::lint::LINTS`], in that order: `id`
//!   the lint's name, `shortDescription` its summary, `fullDescription` its "What it does"
//!   paragraph, `help` its whole documentation (text and Markdown), `defaultConfiguration`
//!   its default level;
//! - `results`: one per reported finding, that is every finding whose level for its
//!   wrapper is warn (`"warning"`) or deny (`"error"`); an allowed finding is not reported,
//!   as in the table and the build. `ruleId` / `ruleIndex` name the lint, `message.text` is
//!   the finding as the build prints it (the message with the numbers, then its `= note:`
//!   and `= help:` lines), the location is the attribute key the finding is about (the
//!   span the build points at): the file as an absolute `file://` URI, the key's start and
//!   end line and column (1-based, columns in Unicode code points: `run.columnKind`). The
//!   wrapper, the target and the `cfg` conditions go in `properties`;
//! - `invocations[0]`: the working directory (code scanning makes absolute URIs relative
//!   to the checkout with it or with the upload's `checkout_path`), and one
//!   `toolExecutionNotifications` entry per attribute error (level `error`), file that
//!   cannot be read (`error`) and wrapper left to the compiler because of constants
//!   (`note`): those are not findings, and the report's exit status already fails on the
//!   errors.
//!
//! The rendering only: which wrappers there are and what they found is `report`'s.

use std::path::{Component, Path};

use occupancy_attr::{Diagnostic, Location};
use occupancy_core::lint::{LINTS, Level, Lint};
use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use serde_json::{Value as Json, json};

use super::model::{Outcome, Wrapper};

/// The `$schema` of the log: the OASIS standard's schema, Errata 01.
pub(crate) const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The SARIF log of a report over the crate in `crate_dir` (absolute): `wrappers` as
/// `report` evaluated them, `unreadable` the files it could not read or parse (`path: why`
/// or `path:line:column: why`, relative to the crate). Pretty-printed JSON with a final
/// newline.
pub(crate) fn log(crate_dir: &Path, wrappers: &[&Wrapper], unreadable: &[String]) -> String {
    let mut results = Vec::new();
    let mut notifications = Vec::new();
    for w in wrappers {
        // `location` is `file:line`, the file relative to the crate.
        let file = w
            .location
            .rsplit_once(':')
            .map_or(w.location.as_str(), |(file, _)| file);
        let uri = file_uri(&crate_dir.join(file));
        match &w.outcome {
            Outcome::Evaluated(spec, evaluation) => {
                for diagnostic in &evaluation.diagnostics {
                    let finding = &diagnostic.finding;
                    let level = spec.level(finding.lint);
                    if level == Level::Allow {
                        continue;
                    }
                    // A Rust token's span, or a C++ launch's file and line.
                    let region = match spec.span_of(finding.input, diagnostic.plan) {
                        Location::Span(span) => Region {
                            start: (span.start().line, span.start().column),
                            end: (span.end().line, span.end().column),
                        },
                        Location::File { line, column, .. } => {
                            let at = (line as usize, column.map_or(0, |c| c as usize));
                            Region { start: at, end: at }
                        }
                    };
                    results.push(result(w, diagnostic, level, &uri, region));
                }
            }
            Outcome::Errors(errors) => {
                notifications.extend(
                    errors
                        .iter()
                        .map(|e| notification("error", &format!("{}: error: {e}", w.name), &uri)),
                );
            }
            Outcome::NotChecked(why) => notifications.push(notification(
                "note",
                &format!(
                    "{} ({}): not checked: {}",
                    w.name,
                    w.location,
                    why.join("; ")
                ),
                &uri,
            )),
            Outcome::BuildOnly(why) => notifications.push(notification(
                "note",
                &format!("{} ({}): {why}", w.name, w.location),
                &uri,
            )),
            Outcome::Constant(inputs, _) => notifications.push(notification(
                "note",
                &format!(
                    "{} ({}): not evaluated: constant {} (checked by the compiler)",
                    w.name,
                    w.location,
                    inputs.join(", ")
                ),
                &uri,
            )),
        }
    }
    for line in unreadable {
        let file = line.split(':').next().unwrap_or(line);
        notifications.push(notification(
            "error",
            &format!("cannot read {line} (its wrappers are not checked)"),
            &file_uri(&crate_dir.join(file)),
        ));
    }
    let working_directory = std::env::current_dir()
        .map(|dir| format!("{}/", file_uri(&dir).trim_end_matches('/')))
        .ok();
    let mut invocation = json!({
        "executionSuccessful": true,
        "toolExecutionNotifications": notifications,
    });
    if let Some(uri) = working_directory {
        invocation["workingDirectory"] = json!({ "uri": uri });
    }
    let log = json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "cargo-occupancy",
                    "semanticVersion": env!("CARGO_PKG_VERSION"),
                    "informationUri": env!("CARGO_PKG_REPOSITORY"),
                    "rules": LINTS.iter().map(|lint| rule(lint)).collect::<Vec<_>>(),
                }
            },
            "invocations": [invocation],
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    let mut text = serde_json::to_string_pretty(&log).unwrap_or_default();
    text.push('\n');
    text
}

/// A key's span: (line, column) of its start and of its end, lines 1-based, columns
/// 0-based in characters (`proc_macro2`'s `LineColumn`).
#[derive(Clone, Copy)]
struct Region {
    start: (usize, usize),
    end: (usize, usize),
}

fn result(w: &Wrapper, diagnostic: &Diagnostic, level: Level, uri: &str, region: Region) -> Json {
    let finding = &diagnostic.finding;
    let index = LINTS.iter().position(|lint| *lint == finding.lint);
    let mut properties = json!({ "wrapper": w.name, "annotated": w.site.is_none() });
    if let Some(target) = finding.target {
        properties["target"] = json!(target.to_string());
    }
    if diagnostic.targets.len() > 1 {
        properties["targets"] = json!(
            diagnostic
                .targets
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
        );
    }
    if !diagnostic.kernels.is_empty() {
        properties["kernels"] = json!(diagnostic.kernels);
    }
    if !w.conditions.is_empty() {
        properties["conditional"] = json!(w.conditions);
    }
    json!({
        "ruleId": finding.lint.name,
        "ruleIndex": index,
        "level": sarif_level(level),
        "message": { "text": finding.to_string() },
        "locations": [{
            "physicalLocation": {
                "artifactLocation": { "uri": uri },
                // SARIF columns are 1-based and the end column is the one after the region.
                "region": {
                    "startLine": region.start.0,
                    "startColumn": region.start.1 + 1,
                    "endLine": region.end.0,
                    "endColumn": region.end.1 + 1,
                }
            },
            "logicalLocations": [{ "name": w.name, "kind": "function" }],
        }],
        "properties": properties,
    })
}

/// A lint as a `reportingDescriptor`.
fn rule(lint: &Lint) -> Json {
    // The docs are `///` lines: one leading space each.
    let docs: String = lint
        .docs
        .lines()
        .map(|line| line.strip_prefix(' ').unwrap_or(line))
        .collect::<Vec<_>>()
        .join("\n");
    json!({
        "id": lint.name,
        "shortDescription": { "text": lint.summary },
        "fullDescription": { "text": what_it_does(&docs) },
        "help": { "text": docs, "markdown": docs },
        "defaultConfiguration": { "level": sarif_level(lint.default_level) },
        "properties": { "configurable": lint.configurable },
    })
}

/// The paragraph under `### What it does`, on one line.
fn what_it_does(docs: &str) -> String {
    docs.lines()
        .skip_while(|line| line.trim() != "### What it does")
        .skip(1)
        .take_while(|line| !line.trim().is_empty() && !line.starts_with("###"))
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
}

fn sarif_level(level: Level) -> &'static str {
    match level {
        Level::Allow => "none",
        Level::Warn => "warning",
        Level::Deny => "error",
    }
}

fn notification(level: &str, text: &str, uri: &str) -> Json {
    json!({
        "level": level,
        "message": { "text": text },
        "locations": [{ "physicalLocation": { "artifactLocation": { "uri": uri } } }],
    })
}

/// What a path segment of a `file:` URI escapes (RFC 3986: everything but unreserved
/// characters, sub-delimiters, `:` and `@`; non-ASCII is always escaped, as UTF-8).
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// `file:///abs/path` of an absolute path (`file:///C:/dir/file` on Windows).
fn file_uri(path: &Path) -> String {
    let mut uri = String::from("file://");
    for component in path.components() {
        match component {
            Component::Prefix(prefix) => {
                uri.push('/');
                uri.push_str(&prefix.as_os_str().to_string_lossy());
            }
            Component::Normal(segment) => {
                uri.push('/');
                uri.extend(utf8_percent_encode(&segment.to_string_lossy(), SEGMENT));
            }
            Component::ParentDir => uri.push_str("/.."),
            Component::RootDir | Component::CurDir => {}
        }
    }
    if uri == "file://" {
        uri.push('/');
    }
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_escape_what_a_path_segment_cannot_hold() {
        assert_eq!(
            file_uri(Path::new("/work/my crate/src/lib.rs")),
            "file:///work/my%20crate/src/lib.rs"
        );
        assert_eq!(
            file_uri(Path::new("/a/#b%/c?d/é.rs")),
            "file:///a/%23b%25/c%3Fd/%C3%A9.rs"
        );
        assert_eq!(file_uri(Path::new("/")), "file:///");
    }

    #[test]
    fn rules_carry_each_lints_documentation() {
        let low = rule(&occupancy_core::lint::LOW_OCCUPANCY);
        assert_eq!(low["id"], "low_occupancy");
        assert_eq!(low["defaultConfiguration"]["level"], "warning");
        assert_eq!(
            low["shortDescription"]["text"],
            "theoretical occupancy below the policy floor"
        );
        let full = low["fullDescription"]["text"].as_str().unwrap();
        assert!(
            full.starts_with("Reports a launch whose theoretical occupancy (active warps per SM")
                && full.ends_with("that reaches the floor."),
            "{full}"
        );
        let help = low["help"]["markdown"].as_str().unwrap();
        assert!(help.starts_with("### What it does\nReports"), "{help}");
        assert!(help.contains("\n### Example\n```text\n"), "{help}");
        let impossible = rule(&occupancy_core::lint::LAUNCH_IMPOSSIBLE);
        assert_eq!(impossible["defaultConfiguration"]["level"], "error");
        assert_eq!(impossible["properties"]["configurable"], false);
    }
}
