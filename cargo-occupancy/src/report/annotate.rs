//! `report --all --annotate`: writes `#[occupancy::check(...)]` above each launching function
//! that is not annotated, as `cargo clippy --fix` edits code: only where the result builds
//! and the build gives the report's findings.
//!
//! 1. The candidates: the launching functions the report evaluated (numbers on every
//!    target), not under `cfg` (a build may leave them out), with no deny-level finding (the
//!    build would fail). The others are listed with the reason.
//! 2. The originals of the files to edit are kept, in memory and in a backup folder (its
//!    path printed), and restored on any failure: the tree is never left half-edited. Each
//!    file is written whole, to a temporary file in its folder renamed over it.
//! 3. `cargo check --all-targets --message-format=json` on the crate: each candidate keeps
//!    its attribute when the build's messages inside the function (from the attribute's line
//!    to the body's end) are exactly the report's findings there (their first lines, `use of
//!    deprecated macro` then the lint and the message), with no error; the others are
//!    removed again.
//!    Then once more, on what is left; what differs then is removed too.
//!
//! The summary says what was annotated and what not, and why.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use occupancy_attr::Grouping;
use occupancy_core::lint::{LINTS, Level};
use serde_json::Value as Json;

use super::model::{Outcome, Wrapper};

/// One function to annotate.
struct Candidate<'w> {
    wrapper: &'w Wrapper,
    file: PathBuf,
    /// The line the attribute goes above (1-based, in the original file).
    line: usize,
    /// The body's last line (in the original file).
    end: usize,
    /// `#[occupancy::check(...)]`.
    attribute: String,
    /// The first lines of the build's messages the report expects inside the function.
    expected: Vec<String>,
}

/// The originals of the edited files, restored when dropped unless kept.
struct Backup {
    originals: BTreeMap<PathBuf, String>,
    folder: PathBuf,
    keep: bool,
}

impl Backup {
    fn new(files: &[&Path]) -> Result<Backup, String> {
        let folder = std::env::temp_dir().join(format!(
            "occupancy-annotate-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        ));
        std::fs::create_dir_all(&folder)
            .map_err(|e| format!("cannot make the backup folder {}: {e}", folder.display()))?;
        let mut originals = BTreeMap::new();
        for (i, file) in files.iter().enumerate() {
            let text = std::fs::read_to_string(file)
                .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("file");
            std::fs::write(folder.join(format!("{i}-{name}")), &text)
                .map_err(|e| format!("cannot back up {}: {e}", file.display()))?;
            originals.insert(file.to_path_buf(), text);
        }
        Ok(Backup {
            originals,
            folder,
            keep: false,
        })
    }

    /// Writes every file as its original with the attributes of `chosen` inserted.
    fn write(&self, chosen: &[&Candidate<'_>]) -> Result<(), String> {
        for (file, original) in &self.originals {
            let mut inserts: Vec<(usize, &str)> = chosen
                .iter()
                .filter(|c| c.file == *file)
                .map(|c| (c.line, c.attribute.as_str()))
                .collect();
            inserts.sort();
            write_atomically(file, &insert(original, &inserts))?;
        }
        Ok(())
    }

    fn restore(&self) {
        for (file, original) in &self.originals {
            if write_atomically(file, original).is_err() {
                eprintln!(
                    "error: could not restore {}; its original is in {}",
                    file.display(),
                    self.folder.display()
                );
            }
        }
    }
}

impl Drop for Backup {
    fn drop(&mut self) {
        if !self.keep {
            self.restore();
        }
    }
}

/// `text` with each `(line, attribute)` inserted above that line (1-based), indented as it.
fn insert(text: &str, inserts: &[(usize, &str)]) -> String {
    let mut out = String::with_capacity(text.len() + 64 * inserts.len());
    let mut next = inserts.iter().peekable();
    for (i, line) in text.split_inclusive('\n').enumerate() {
        while let Some((at, attribute)) = next.next_if(|(at, _)| *at == i + 1) {
            let _ = at;
            let indent: String = line
                .chars()
                .take_while(|c| c.is_whitespace() && *c != '\n')
                .collect();
            let _ = writeln!(out, "{indent}{attribute}");
        }
        out.push_str(line);
    }
    out
}

/// Writes `text` to `path` through a temporary file in its folder, renamed over it.
fn write_atomically(path: &Path, text: &str) -> Result<(), String> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let temporary = path.with_file_name(format!(".{name}.occupancy-annotate"));
    std::fs::write(&temporary, text)
        .and_then(|()| std::fs::rename(&temporary, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&temporary);
            format!("cannot write {}: {e}", path.display())
        })
}

/// The feature `condition` is exactly (`cfg(feature = "x") on ...`, as the report writes a
/// condition), if it is one.
fn feature_of(condition: &str) -> Option<&str> {
    let (name, _) = condition
        .strip_prefix("cfg(feature = \"")?
        .split_once("\") on ")?;
    (!name.contains('"')).then_some(name)
}

/// Whether `condition` holds in a build with `features` enabled: it is exactly one of them.
fn held(condition: &str, features: &[&str]) -> bool {
    feature_of(condition).is_some_and(|name| features.contains(&name))
}

/// `w` as a candidate to annotate, or why it is not one; `None` for a wrapper that is
/// annotated already. `features`: those the build enables (`--features`).
fn candidate<'w>(w: &'w Wrapper, features: &[&str]) -> Option<Result<Candidate<'w>, String>> {
    let Some(site) = &w.site else {
        return None;
    };
    // One attribute in the macro's body is every expansion's: written by hand.
    if let Some(name) = &site.expanded_from {
        return Some(Err(format!(
            "inside `macro_rules! {name}`, read once per expansion: annotate the function in \
             the macro's body by hand (the build checks every expansion)"
        )));
    }
    let (Some((file, target)), Some(args)) = (&site.target, &site.args) else {
        let why = match &w.outcome {
            Outcome::NotChecked(why) => why.join("; "),
            _ => "not read".to_owned(),
        };
        return Some(Err(why));
    };
    let why = match &w.outcome {
        Outcome::NotChecked(why) => Some(format!("not checked: {}", why.join("; "))),
        Outcome::Constant(..) => Some(
            "its values include constants only the compiler evaluates: the report cannot \
             compare the build's findings (annotate it by hand)"
                .to_owned(),
        ),
        Outcome::Errors(e) => Some(e.join("; ")),
        Outcome::BuildOnly(why) => Some(why.clone()),
        Outcome::Evaluated(spec, evaluation) => evaluation
            .diagnostics
            .iter()
            .find(|d| spec.level(d.finding.lint) == Level::Deny)
            .map(|d| {
                format!(
                    "a deny-level finding ({}): annotated, the build would fail; fix the \
                     launch, or annotate it with allow(...) by hand",
                    d.finding.lint.name
                )
            }),
    };
    if let Some(why) = why {
        return Some(Err(why));
    }
    let conditions: Vec<&str> = w
        .conditions
        .iter()
        .map(String::as_str)
        .filter(|c| !held(c, features))
        .collect();
    if !conditions.is_empty() {
        return Some(Err(format!(
            "under {}: a build may leave it out, so the report cannot compare{}",
            conditions.join(" and "),
            if conditions.iter().any(|c| feature_of(c).is_some()) {
                " (a feature's: name it in --features)"
            } else {
                ""
            }
        )));
    }
    let Outcome::Evaluated(spec, _) = &w.outcome else {
        return None;
    };
    // What the build prints: the whole function's findings grouped as the attribute groups
    // them (one warning per lint, target and token), not the report's per-site rows.
    let built = spec.evaluate_grouped(Grouping::OnePerPlace)?;
    let mut expected: Vec<String> = built
        .diagnostics
        .iter()
        .filter(|d| spec.level(d.finding.lint) == Level::Warn)
        .map(|d| {
            format!(
                "use of deprecated macro `{}`: {}",
                d.finding.lint.name, d.finding.message
            )
        })
        .collect();
    expected.sort();
    expected.dedup();
    Some(Ok(Candidate {
        wrapper: w,
        file: file.clone(),
        line: target.line,
        end: target.body.brace_token.span.close().start().line,
        attribute: super::model::attribute_text(args),
        expected,
    }))
}

/// Annotates what it can of `wrappers` in the crate at `crate_dir`; the summary.
/// `features`: cargo's `--features` for the build (comma- or space-separated), under which
/// a launch gated by exactly one of them is annotated too.
///
/// # Errors
///
/// When the build cannot run or the files cannot be written (the tree is then as before).
pub(crate) fn annotate(
    crate_dir: &Path,
    wrappers: &[Wrapper],
    features: Option<&str>,
) -> Result<String, String> {
    let listed: Vec<&str> = features
        .unwrap_or_default()
        .split([',', ' '])
        .filter(|f| !f.is_empty())
        .collect();
    let mut summary = String::new();
    let read: Vec<Read<'_>> = wrappers
        .iter()
        .filter_map(|w| {
            let function = w
                .site
                .as_ref()
                .and_then(|s| s.target.as_ref())
                .map(|(file, target)| (file.clone(), target.line));
            candidate(w, &listed).map(|c| (w, function, c))
        })
        .collect();
    let (mut candidates, mut skipped) = one_per_function(read);

    if !candidates.is_empty() && !depends_on_occupancy(crate_dir)? {
        for c in candidates.drain(..) {
            skipped.push((
                c.wrapper,
                "the crate does not depend on `occupancy`: add it to [dependencies] (the \
                 README's \"The attribute\") and run again"
                    .to_owned(),
            ));
        }
    }

    let mut annotated: Vec<&Candidate<'_>> = Vec::new();
    if !candidates.is_empty() {
        let mut files: Vec<&Path> = candidates.iter().map(|c| c.file.as_path()).collect();
        files.sort();
        files.dedup();
        let mut backup = Backup::new(&files)?;
        let mut chosen: Vec<&Candidate<'_>> = candidates.iter().collect();
        // All the candidates, then, if some differed, once more with those that passed.
        for round in 0..2 {
            backup.write(&chosen)?;
            let messages = check(crate_dir, &listed)?;
            let ranges: Vec<(usize, usize)> = chosen.iter().map(|c| edited(c, &chosen)).collect();
            // An error outside every candidate: the crate does not build, nothing can be
            // compared.
            if let Some(m) = messages.iter().find(|m| {
                m.level == "error"
                    && !chosen
                        .iter()
                        .zip(&ranges)
                        .any(|(c, r)| m.within(&c.file, *r))
            }) {
                return Err(format!(
                    "the crate does not build with the attributes in place, for a reason \
                     outside the functions annotated ({}:{}: {}); nothing was annotated",
                    m.file, m.line, m.first_line
                ));
            }
            let mut passed = Vec::new();
            for (c, range) in chosen.iter().zip(ranges) {
                match compare(c, range, &messages) {
                    Ok(()) => passed.push(*c),
                    Err(why) if round == 0 => skipped.push((c.wrapper, why)),
                    Err(why) => {
                        skipped.push((c.wrapper, format!("{why} (once the others were annotated)")))
                    }
                }
            }
            let all = passed.len() == chosen.len();
            chosen = passed;
            if all {
                break;
            }
        }
        backup.write(&chosen)?;
        if chosen.is_empty() {
            // As it was: nothing to keep a backup of.
            let _ = std::fs::remove_dir_all(&backup.folder);
        } else {
            let _ = writeln!(
                summary,
                "the originals of the edited files are in {}",
                backup.folder.display()
            );
        }
        backup.keep = true;
        annotated = chosen;
    }

    let mut text = String::new();
    let _ = writeln!(
        text,
        "annotated {} launching function{}:",
        annotated.len(),
        if annotated.len() == 1 { "" } else { "s" }
    );
    for c in &annotated {
        let shown = c
            .file
            .strip_prefix(crate_dir)
            .unwrap_or(&c.file)
            .display()
            .to_string();
        let _ = writeln!(
            text,
            "  {shown}:{}  {}  {}",
            c.line, c.wrapper.name, c.attribute
        );
    }
    skipped.sort_by_key(|a| super::model::natural(&a.0.location));
    skipped.dedup_by(|a, b| std::ptr::eq(a.0, b.0));
    let _ = writeln!(
        text,
        "not annotated {} launch site{}:",
        skipped.len(),
        if skipped.len() == 1 { "" } else { "s" }
    );
    for (w, why) in &skipped {
        let _ = writeln!(text, "  {}  {}: {why}", w.location, w.name);
    }
    text.push_str(&summary);
    Ok(text)
}

/// A site read for `--annotate`: its wrapper, its function (file, the attribute's line),
/// and the candidate or why it is none.
type Read<'w> = (
    &'w Wrapper,
    Option<(PathBuf, usize)>,
    Result<Candidate<'w>, String>,
);

/// One candidate per function: the report lists each launch call of a function as its own
/// site, and the attribute goes once above the function, checking all of them. A function
/// is a candidate when every one of its sites is, with the same attribute; its expected
/// messages are those of all its sites. Otherwise none of its sites is annotated, each
/// with the reason.
fn one_per_function(read: Vec<Read<'_>>) -> (Vec<Candidate<'_>>, Vec<(&Wrapper, String)>) {
    // The sites of one function, by (file, the attribute's line), in the order read.
    type Sites<'w> = Vec<(&'w Wrapper, Result<Candidate<'w>, String>)>;
    let mut functions: Vec<((PathBuf, usize), Sites<'_>)> = Vec::new();
    let mut skipped = Vec::new();
    for (w, key, c) in read {
        let Some(key) = key else {
            if let Err(why) = c {
                skipped.push((w, why));
            }
            continue;
        };
        match functions.iter_mut().find(|(k, _)| *k == key) {
            Some((_, sites)) => sites.push((w, c)),
            None => functions.push((key, vec![(w, c)])),
        }
    }
    let mut candidates = Vec::new();
    for (_, sites) in functions {
        let refusal = sites.iter().find_map(|(w, c)| match c {
            Err(why) => Some(format!("{why} (at {})", w.location)),
            Ok(_) => None,
        });
        let attribute = sites
            .iter()
            .find_map(|(_, c)| c.as_ref().ok())
            .map(|c| c.attribute.clone());
        let differs = sites.iter().any(|(_, c)| {
            c.as_ref()
                .is_ok_and(|c| Some(&c.attribute) != attribute.as_ref())
        });
        let refusal = refusal.or_else(|| {
            differs.then(|| {
                "its launches are read with different attributes: annotate it by hand".to_owned()
            })
        });
        if let Some(why) = refusal.filter(|_| sites.len() > 1) {
            for (w, _) in sites {
                skipped.push((w, why.clone()));
            }
            continue;
        }
        let mut merged: Option<Candidate<'_>> = None;
        for (w, c) in sites {
            match (c, &mut merged) {
                (Err(why), _) => skipped.push((w, why)),
                (Ok(c), None) => merged = Some(c),
                (Ok(c), Some(m)) => m.expected.extend(c.expected),
            }
        }
        if let Some(mut m) = merged {
            m.expected.sort();
            m.expected.dedup();
            candidates.push(m);
        }
    }
    (candidates, skipped)
}

/// The lines of `c`'s attribute and body's end once `chosen` are inserted.
fn edited(c: &Candidate<'_>, chosen: &[&Candidate<'_>]) -> (usize, usize) {
    let before = |line: usize| {
        chosen
            .iter()
            .filter(|o| o.file == c.file && o.line <= line)
            .count()
    };
    // Inserted above `c.line`, after the attributes inserted above earlier lines.
    let attribute = c.line + before(c.line) - 1;
    (attribute, c.end + before(c.end))
}

/// Whether the build's messages inside `range` of `c`'s file are the report's findings.
fn compare(c: &Candidate<'_>, range: (usize, usize), messages: &[Message]) -> Result<(), String> {
    let inside: Vec<&Message> = messages
        .iter()
        .filter(|m| m.within(&c.file, range))
        .collect();
    if let Some(e) = inside.iter().find(|m| m.level == "error") {
        return Err(format!("the build fails there: {}", e.first_line));
    }
    let mut found: Vec<String> = inside
        .iter()
        .filter(|m| {
            LINTS.iter().any(|lint| {
                m.first_line
                    .starts_with(&format!("use of deprecated macro `{}`: ", lint.name))
            })
        })
        .map(|m| m.first_line.clone())
        .collect();
    found.sort();
    found.dedup();
    if found == c.expected {
        return Ok(());
    }
    let missing: Vec<&String> = c.expected.iter().filter(|e| !found.contains(e)).collect();
    let extra: Vec<&String> = found.iter().filter(|f| !c.expected.contains(f)).collect();
    let mut why = "the build's findings differ from the report's".to_owned();
    if let Some(m) = missing.first() {
        why.push_str(&format!("; the build does not give `{m}`"));
        if found.is_empty() {
            why.push_str(" (it shows none: is `deprecated` allowed in the crate?)");
        }
    }
    if let Some(e) = extra.first() {
        why.push_str(&format!("; the build also gives `{e}`"));
    }
    Err(why)
}

/// A compiler message of the build, at its primary span.
struct Message {
    /// As cargo gives it: relative to the workspace root, or absolute.
    file: String,
    line: usize,
    level: String,
    first_line: String,
}

impl Message {
    fn within(&self, file: &Path, (start, end): (usize, usize)) -> bool {
        (start..=end).contains(&self.line)
            && (Path::new(&self.file) == file || file.ends_with(&self.file))
    }
}

/// `cargo check --all-targets --message-format=json` on the crate: its compiler messages.
fn check(crate_dir: &Path, features: &[&str]) -> Result<Vec<Message>, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .args([
            "check",
            "--all-targets",
            "--message-format=json",
            "--manifest-path",
        ])
        .arg(crate_dir.join("Cargo.toml"));
    if !features.is_empty() {
        command.arg("--features").arg(features.join(","));
    }
    let output = command
        .output()
        .map_err(|e| format!("cannot run cargo check: {e}"))?;
    let mut messages = Vec::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Ok(json) = serde_json::from_str::<Json>(line) else {
            continue;
        };
        if json["reason"] != "compiler-message" {
            continue;
        }
        let message = &json["message"];
        let Some(span) = message["spans"]
            .as_array()
            .and_then(|spans| spans.iter().find(|s| s["is_primary"] == true))
        else {
            continue;
        };
        messages.push(Message {
            file: span["file_name"].as_str().unwrap_or_default().to_owned(),
            line: usize::try_from(span["line_start"].as_u64().unwrap_or(0)).unwrap_or(0),
            level: message["level"].as_str().unwrap_or_default().to_owned(),
            first_line: message["message"]
                .as_str()
                .unwrap_or_default()
                .lines()
                .next()
                .unwrap_or_default()
                .to_owned(),
        });
    }
    if messages.is_empty() && !output.status.success() {
        return Err(format!(
            "cargo check failed: {}",
            String::from_utf8_lossy(&output.stderr)
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("no message")
        ));
    }
    Ok(messages)
}

/// Whether the crate's `Cargo.toml` has `occupancy` among its dependencies (also renamed,
/// or target-specific).
fn depends_on_occupancy(crate_dir: &Path) -> Result<bool, String> {
    let path = crate_dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let toml: toml::Table =
        toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let has = |deps: Option<&toml::Value>| {
        deps.and_then(toml::Value::as_table).is_some_and(|deps| {
            deps.iter().any(|(name, value)| {
                name == "occupancy"
                    || value.get("package").and_then(toml::Value::as_str) == Some("occupancy")
            })
        })
    };
    let targets = toml.get("target").and_then(toml::Value::as_table);
    Ok(has(toml.get("dependencies"))
        || targets.is_some_and(|t| t.values().any(|t| has(t.get("dependencies")))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(location: &str) -> Wrapper {
        Wrapper {
            location: location.to_owned(),
            name: "cast".to_owned(),
            conditions: Vec::new(),
            outcome: Outcome::NotChecked(Vec::new()),
            site: None,
            cuda: None,
        }
    }

    fn candidate<'w>(w: &'w Wrapper, attribute: &str, expected: &[&str]) -> Candidate<'w> {
        Candidate {
            wrapper: w,
            file: PathBuf::from("src/cast.rs"),
            line: 10,
            end: 40,
            attribute: attribute.to_owned(),
            expected: expected.iter().map(|e| (*e).to_owned()).collect(),
        }
    }

    /// The launches of one function are one attribute, expecting what each launch gives;
    /// a function with a launch that cannot be annotated is not annotated at all.
    #[test]
    fn a_function_of_several_launch_sites_is_annotated_once() {
        let at = Some((PathBuf::from("src/cast.rs"), 10));
        let (a, b, c) = (
            site("src/cast.rs:14"),
            site("src/cast.rs:20"),
            site("src/cast.rs:30"),
        );
        let attr = "#[occupancy::check(kernel = \"cast_*\")]";
        let (chosen, skipped) = one_per_function(vec![
            (
                &a,
                at.clone(),
                Ok(candidate(&a, attr, &["low_occupancy: x"])),
            ),
            (
                &b,
                at.clone(),
                Ok(candidate(&b, attr, &["block_limit: y", "low_occupancy: x"])),
            ),
        ]);
        assert_eq!(chosen.len(), 1);
        assert_eq!(chosen[0].expected, ["block_limit: y", "low_occupancy: x"]);
        assert!(skipped.is_empty());

        let (chosen, skipped) = one_per_function(vec![
            (&a, at.clone(), Ok(candidate(&a, attr, &[]))),
            (&b, at.clone(), Err("not checked: smem run time".to_owned())),
            (&c, at.clone(), Ok(candidate(&c, attr, &[]))),
        ]);
        assert!(chosen.is_empty());
        let why: Vec<(&str, &str)> = skipped
            .iter()
            .map(|(w, why)| (w.location.as_str(), why.as_str()))
            .collect();
        assert_eq!(
            why,
            [
                (
                    "src/cast.rs:14",
                    "not checked: smem run time (at src/cast.rs:20)"
                ),
                (
                    "src/cast.rs:20",
                    "not checked: smem run time (at src/cast.rs:20)"
                ),
                (
                    "src/cast.rs:30",
                    "not checked: smem run time (at src/cast.rs:20)"
                ),
            ]
        );

        let (chosen, skipped) = one_per_function(vec![
            (&a, at.clone(), Ok(candidate(&a, attr, &[]))),
            (
                &b,
                at,
                Ok(candidate(&b, "#[occupancy::check(block = 64)]", &[])),
            ),
        ]);
        assert!(chosen.is_empty());
        assert!(
            skipped
                .iter()
                .all(|(_, why)| why.contains("different attributes")),
            "{:?}",
            skipped.iter().map(|s| &s.1).collect::<Vec<_>>()
        );

        // One site alone keeps its own reason; sites of other functions are their own.
        let other = Some((PathBuf::from("src/cast.rs"), 50));
        let (chosen, skipped) = one_per_function(vec![
            (
                &a,
                Some((PathBuf::from("src/cast.rs"), 10)),
                Err("under cfg".to_owned()),
            ),
            (&c, other, Ok(candidate(&c, attr, &[]))),
        ]);
        assert_eq!(chosen.len(), 1);
        assert_eq!(skipped.len(), 1);
        assert_eq!(skipped[0].1, "under cfg");
    }

    #[test]
    fn a_feature_named_in_features_holds_any_other_cfg_does_not() {
        let cuda = "cfg(feature = \"cuda\") on mod cuda (src/quantized/mod.rs:27)";
        assert_eq!(feature_of(cuda), Some("cuda"));
        assert!(held(cuda, &["metal", "cuda"]));
        assert!(!held(cuda, &["cud"]));
        assert!(!held(cuda, &[]));
        for other in [
            "cfg(not(feature = \"cuda\")) on mod cpu",
            "cfg(all(feature = \"cuda\", unix)) on fn launch",
            "cfg(any(feature = \"cuda\", feature = \"metal\")) on mod gpu",
            "cfg(target_os = \"linux\") on mod linux",
            "cfg(feature) on mod odd",
            "cfg_attr(feature = \"cuda\", x) on fn launch",
        ] {
            assert_eq!(feature_of(other), None, "{other}");
            assert!(!held(other, &["cuda", "metal"]), "{other}");
        }
    }
}
