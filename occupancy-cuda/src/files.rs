//! The crate's CUDA C++ sources: the `.cu` / `.cuh` files of the directories given, and the
//! headers they `#include "..."`, read once each, inside the crate only.
//!
//! Bounds: regular files only (a FIFO or a device is never opened), at most
//! [`MAX_FILE_BYTES`] per file and [`MAX_FILES`] files, links followed only when they
//! resolve inside the crate's directory, `#include <...>` never followed (system and CUDA
//! headers), and `#include "..."` only to a file inside the crate.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use occupancy_core::read::budget::Budget;

use crate::index::strip_comments;
use crate::launch::ReadNote;
use crate::macros::Macro;
use crate::prepare::{
    Lists, StatementMacros, comment_end, define_line, directive_end, literal_end,
};
use crate::preproc::{Build, Decider};
use crate::syntax::Code;

/// The largest source file read, bytes (larger ones are skipped with a note).
pub const MAX_FILE_BYTES: u64 = 4 << 20;

/// The most files read for one crate.
pub const MAX_FILES: usize = 1024;

/// The extensions of CUDA C++ sources and headers the directories are searched for.
const SOURCE_EXTENSIONS: &[&str] = &["cu", "cuh"];

/// The extensions a followed `#include "..."` may have.
const HEADER_EXTENSIONS: &[&str] = &["cu", "cuh", "h", "hpp", "hh", "hxx", "inl", "cuinl"];

/// The sources read: each file parsed once, with the files each includes.
pub(crate) struct Sources {
    /// The crate's directory, links resolved.
    pub(crate) root: PathBuf,
    /// Every file read, in order.
    pub(crate) files: Vec<Code>,
    /// File index -> the indices of the files it includes (resolved, inside the crate).
    pub(crate) includes: Vec<Vec<usize>>,
    /// Files named in the directories (not reached only through an include).
    pub(crate) given: Vec<usize>,
    /// What could not be read.
    pub(crate) notes: Vec<ReadNote>,
    by_path: HashMap<PathBuf, usize>,
    /// The files' text before parsing: (text, shown, path).
    raw: Vec<(String, String, PathBuf)>,
    /// The bytes of every file read, as written (before file-scope macros are expanded):
    /// what the reader's budget is proportional to.
    pub(crate) read_bytes: usize,
    /// The bytes file-scope macro expansions added to them ([`expand_file_scope_definitions`]).
    pub(crate) expanded_bytes: usize,
}

impl Sources {
    /// Reads the `.cu` / `.cuh` files under `dirs` (relative to `crate_dir`, searched
    /// recursively, hidden folders and `target/` left out) and the headers they include;
    /// `build` decides the `#if` groups that must be read as one branch
    /// ([`crate::prepare`]).
    pub(crate) fn read(crate_dir: &Path, dirs: &[PathBuf], build: &Build) -> Sources {
        let root = std::fs::canonicalize(crate_dir).unwrap_or_else(|_| crate_dir.to_path_buf());
        let mut sources = Sources {
            root,
            files: Vec::new(),
            includes: Vec::new(),
            given: Vec::new(),
            notes: Vec::new(),
            by_path: HashMap::new(),
            raw: Vec::new(),
            read_bytes: 0,
            expanded_bytes: 0,
        };
        let mut found = Vec::new();
        for dir in dirs {
            let dir = if dir.is_absolute() {
                dir.clone()
            } else {
                crate_dir.join(dir)
            };
            if dir.is_file() {
                found.push(dir);
                continue;
            }
            if !dir.is_dir() {
                sources.notes.push(ReadNote {
                    file: sources.shown(&dir),
                    line: None,
                    message: "no such directory".to_owned(),
                });
                continue;
            }
            sources.walk(&dir, 0, &mut found);
        }
        for path in found {
            if let Some(index) = sources.load(&path, None)
                && !sources.given.contains(&index)
            {
                sources.given.push(index);
            }
        }
        // Includes, breadth first; `load` appends, so the loop sees new files too.
        let mut next = 0;
        while next < sources.raw.len() {
            let wanted: Vec<(String, u32)> = includes(&sources.raw[next].0);
            let dir = sources.raw[next]
                .2
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default();
            let mut resolved = Vec::new();
            for (name, line) in wanted {
                let at = (next, line);
                if let Some(index) = sources.include(&dir, &name, at) {
                    resolved.push(index);
                }
            }
            sources.includes[next] = resolved;
            next += 1;
        }
        sources.parse_all(build);
        sources
    }

    /// Parses every file read, once every file's macros are known: a macro that defines a
    /// function or a kernel, invoked at file scope, is expanded where it is invoked
    /// ([`expand_file_scope_definitions`]), and what the grammar cannot place is made plain
    /// ([`crate::prepare`]).
    fn parse_all(&mut self, build: &Build) {
        let sources = self;
        let statement_macros =
            StatementMacros::of(sources.raw.iter().map(|(text, _, _)| text.as_str()));
        // The crate's `#define`s, all files together: a group read as one branch is read
        // once for every unit that includes its file.
        let decider = Decider::new(build, sources.raw.iter().map(|(text, _, _)| text.as_str()));
        let definers = definers(sources.raw.iter().map(|(text, _, _)| text.as_str()));
        sources.read_bytes = sources.raw.iter().map(|(text, _, _)| text.len()).sum();
        let mut allowance = definition_allowance(sources.read_bytes);
        let allowed = allowance;
        for (file, (text, shown, path)) in std::mem::take(&mut sources.raw).into_iter().enumerate()
        {
            let (text, mut placed, not_expanded) =
                expand_file_scope_definitions(&text, file, &definers, &mut allowance);
            if not_expanded > 0 {
                sources.notes.push(ReadNote {
                    file: shown.clone(),
                    line: None,
                    message: format!(
                        "{not_expanded} invocation(s) of macros that define functions are not \
                         expanded, so what they define is not read: the read's {} KiB for such \
                         expansions (4 bytes per byte of the files read, and 16 KiB) is spent",
                        definition_allowance(sources.read_bytes) >> 10
                    ),
                });
            }
            let (text, inserted) = crate::prepare::prepare(&text, &statement_macros, &decider);
            // Each `;` inserted moves what follows it by one byte.
            let moved = |at: usize| at + inserted.partition_point(|&i| i <= at);
            for p in &mut placed {
                let start = p.range.start;
                for b in &mut p.breaks {
                    *b = moved(start + *b) - moved(start);
                }
                p.range = moved(start)..moved(p.range.end);
            }
            let mut code = Code::parse(text, shown.clone(), None);
            code.path = path;
            code.placed = placed;
            if let Some(problem) = code.problem(&statement_macros.function_like) {
                sources.notes.push(ReadNote {
                    file: shown,
                    line: problem.0,
                    message: problem.1,
                });
            }
            sources.files.push(code);
        }
        sources.expanded_bytes = allowed - allowance;
    }

    /// Sources given as text (`name`, `text`), not read from disk: each is a given file;
    /// `#include "name"` resolves to another of them by name (relative to the including
    /// file's folder, or as written). For tools and fuzzing.
    pub(crate) fn from_texts(files: &[(&str, &str)], build: &Build) -> Sources {
        let mut sources = Sources {
            root: PathBuf::new(),
            files: Vec::new(),
            includes: Vec::new(),
            given: Vec::new(),
            notes: Vec::new(),
            by_path: HashMap::new(),
            raw: Vec::new(),
            read_bytes: 0,
            expanded_bytes: 0,
        };
        for (i, (name, text)) in files.iter().take(MAX_FILES).enumerate() {
            sources
                .raw
                .push(((*text).to_owned(), (*name).to_owned(), PathBuf::from(name)));
            sources.includes.push(Vec::new());
            sources.given.push(i);
        }
        for i in 0..sources.raw.len() {
            let dir = sources.raw[i]
                .2
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default();
            let mut resolved = Vec::new();
            for (name, _) in includes(&sources.raw[i].0) {
                let wanted = [dir.join(&name), PathBuf::from(&name)];
                if let Some(j) = sources.raw.iter().position(|(_, _, p)| wanted.contains(p)) {
                    resolved.push(j);
                }
            }
            sources.includes[i] = resolved;
        }
        sources.parse_all(build);
        sources
    }

    /// `path` relative to the crate's directory, `/`-separated.
    pub(crate) fn shown(&self, path: &Path) -> String {
        let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let rel = real.strip_prefix(&self.root).unwrap_or(&real);
        rel.to_string_lossy().replace('\\', "/")
    }

    fn walk(&mut self, dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
        if depth > 16 {
            return;
        }
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        entries.sort();
        for entry in entries {
            let name = entry.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.starts_with('.') || name == "target" {
                continue;
            }
            let Ok(meta) = std::fs::metadata(&entry) else {
                continue;
            };
            if meta.is_dir() {
                // A link to a folder outside the crate is not followed.
                if std::fs::canonicalize(&entry).is_ok_and(|real| real.starts_with(&self.root)) {
                    self.walk(&entry, depth + 1, out);
                }
            } else if has_extension(&entry, SOURCE_EXTENSIONS) {
                out.push(entry);
            }
        }
    }

    /// Resolves `#include "name"` from a file in `dir`: beside it, else in the crate's
    /// directory and its `src/`, `include/` folders; never outside the crate.
    fn include(&mut self, dir: &Path, name: &str, at: (usize, u32)) -> Option<usize> {
        let candidates = [
            dir.join(name),
            self.root.join(name),
            self.root.join("src").join(name),
            self.root.join("include").join(name),
        ];
        let path = candidates.iter().find(|p| p.is_file())?.clone();
        if !has_extension(&path, HEADER_EXTENSIONS) {
            return None;
        }
        self.load(&path, Some(at))
    }

    /// Reads and parses `path` once; its index. `from`: the including file and line.
    fn load(&mut self, path: &Path, from: Option<(usize, u32)>) -> Option<usize> {
        let note = |this: &Sources, message: String| {
            let (file, line) = match from {
                Some((i, line)) => (this.raw[i].1.clone(), Some(line)),
                None => (this.shown(path), None),
            };
            ReadNote {
                file,
                line,
                message,
            }
        };
        let Ok(real) = std::fs::canonicalize(path) else {
            let n = note(self, format!("{}: cannot be resolved", path.display()));
            self.notes.push(n);
            return None;
        };
        if let Some(index) = self.by_path.get(&real) {
            return Some(*index);
        }
        if !real.starts_with(&self.root) {
            let n = note(
                self,
                format!(
                    "{} leads outside the crate's directory ({}): not read",
                    path.display(),
                    real.display()
                ),
            );
            self.notes.push(n);
            return None;
        }
        if self.raw.len() >= MAX_FILES {
            let n = note(
                self,
                format!("more than {MAX_FILES} files: {} not read", path.display()),
            );
            self.notes.push(n);
            return None;
        }
        let shown = self.shown(&real);
        let text = match occupancy_core::file::read_text(&real, "CUDA source", MAX_FILE_BYTES) {
            Ok(text) => text,
            Err(e) => {
                let n = note(self, format!("{shown}: {}", e.reason));
                self.notes.push(n);
                return None;
            }
        };
        let index = self.raw.len();
        self.raw.push((text, shown, real.clone()));
        self.includes.push(Vec::new());
        self.by_path.insert(real, index);
        Some(index)
    }

    /// The translation units: each given `.cu` file with every file it includes,
    /// transitively; and each given header that no `.cu` includes, on its own.
    pub(crate) fn units(&self) -> Vec<Vec<usize>> {
        let mut units = Vec::new();
        let mut covered = vec![false; self.files.len()];
        let closure = |start: usize| {
            let mut seen = vec![start];
            let mut i = 0;
            while i < seen.len() {
                for &inc in &self.includes[seen[i]] {
                    if !seen.contains(&inc) {
                        seen.push(inc);
                    }
                }
                i += 1;
            }
            seen
        };
        for &g in &self.given {
            if self.files[g].path.extension().is_some_and(|e| e == "cu") {
                let unit = closure(g);
                for &f in &unit {
                    covered[f] = true;
                }
                units.push(unit);
            }
        }
        for &g in &self.given {
            if !covered[g] {
                let unit = closure(g);
                for &f in &unit {
                    covered[f] = true;
                }
                units.push(unit);
            }
        }
        units
    }
}

fn has_extension(path: &Path, extensions: &[&str]) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| extensions.contains(&e))
}

/// The `#include "..."` lines of a text (never `<...>`), with their lines.
fn includes(text: &str) -> Vec<(String, u32)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix('#') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix("include") else {
            continue;
        };
        let rest = rest.trim_start();
        if let Some(quoted) = rest.strip_prefix('"')
            && let Some(end) = quoted.find('"')
        {
            out.push((
                quoted[..end].to_owned(),
                u32::try_from(i + 1).unwrap_or(u32::MAX),
            ));
        }
    }
    out
}

/// The steps of interpretation one read may take per byte of the source files it reads,
/// as written (every unit and root together, [`read_budget`]; the text that file-scope
/// macros expand to is not counted: a few bytes can expand to kilobytes): what bounds the
/// reader's time by the size of its input (times in docs/PERFORMANCE.md, section 7). The
/// real-crate corpus's reads take at most 1.37 steps per byte (mistralrs-core: 142,653
/// steps for 104,440 bytes; candle-kernels 1.09, candle-flash-attn 0.95; counted by
/// printing `Budget::taken` after each read).
pub(crate) const STEPS_PER_SOURCE_BYTE: usize = 4;

/// The bytes of a macro's expansion parsed per step of the budget. Tree-sitter takes up
/// to 830 instructions a byte on text it must recover from (one 256 KiB expansion took
/// 218 M instructions, callgrind, on a 4 KiB input of the cuda fuzz target), so a read
/// parses at most 2 bytes per step of its budget. The corpus's macros cost most in
/// candle-flash-attn, whose read takes 211,367 steps with them (59,238 without) of its
/// 894,152.
pub(crate) const PARSED_BYTES_PER_STEP: usize = 2;

/// The fewest steps a read may take, however small its files.
pub(crate) const MIN_READ_STEPS: usize = 16_000;

/// The budget of a read of `source_bytes` bytes of source: [`STEPS_PER_SOURCE_BYTE`] per
/// byte, at least [`MIN_READ_STEPS`], of which the parse of the `expanded_bytes` that
/// file-scope macros added is already taken (a step per [`PARSED_BYTES_PER_STEP`], as for
/// the expansions the reader parses itself).
pub(crate) fn read_budget(source_bytes: usize, expanded_bytes: usize) -> Budget {
    let mut budget = Budget::new(
        source_bytes
            .saturating_mul(STEPS_PER_SOURCE_BYTE)
            .max(MIN_READ_STEPS),
    );
    budget.take(expanded_bytes / PARSED_BYTES_PER_STEP);
    budget
}

/// The most text the file-scope expansions of one read may add, bytes: 4 per byte of the
/// files read as written, and 16 KiB, at most 4 MiB. Their parse is taken from the read's
/// budget ([`read_budget`]: 4 steps per byte, at least 16,000; a step per
/// 2 bytes parsed), so this leaves at least half of it for reading. Parsing what they add
/// is the costliest part of a small read (tree-sitter takes about 1,500 instructions a
/// byte of candle's expanded binary ops, over 4,000 on text it must recover from). The
/// real-crate corpus adds at most 0.67 bytes per byte read (candle-kernels: 846,861 bytes
/// read, 570,399 added; its `binary.cu` alone 38 times its 5,107 bytes, within the whole
/// read's allowance).
pub(crate) fn definition_allowance(read_bytes: usize) -> usize {
    read_bytes
        .saturating_mul(4)
        .saturating_add(16 << 10)
        .min(4 << 20)
}

/// The function-like macros of `texts` whose replacement defines something with a body
/// (`#define DEFINE_LAUNCHER(bits, T) extern "C" void launch_##bits(..) { .. }`,
/// `#define CAST_OP(A, B, NAME) __global__ void NAME(..) { .. }`), or invokes such a macro:
/// name to definitions, continuations joined and comments removed.
fn definers<'a>(texts: impl Iterator<Item = &'a str>) -> Definers {
    let mut out = Definers::default();
    for (file, text) in texts.enumerate() {
        let mut lines = text.lines().enumerate();
        while let Some((row, line)) = lines.next() {
            let Some(rest) = define_line(line) else {
                continue;
            };
            let mut whole = rest.to_owned();
            let mut continued = 0usize;
            while whole.ends_with('\\') {
                whole.pop();
                match lines.next() {
                    Some((_, next)) => {
                        // The line break, kept as a mark for the lines of what it defines.
                        whole.push(LINE_MARK);
                        whole.push_str(next);
                        continued += 1;
                    }
                    None => break,
                }
            }
            let name: String = whole
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let Some((params, after)) = whole
                .get(name.len()..)
                .and_then(|r| r.strip_prefix('('))
                .and_then(|r| r.split_once(')'))
            else {
                continue;
            };
            let body = strip_comments(after).trim().to_owned();
            if name.is_empty() {
                continue;
            }
            let params: Vec<String> = params
                .replace(LINE_MARK, " ")
                .split(',')
                .map(|p| p.trim().to_owned())
                .filter(|p| !p.is_empty())
                .collect();
            // Where a comment swallowed a line break, the marks no longer tell lines.
            // The replacement's first line: the `#define`'s, past any line its parameters
            // take.
            let head_marks = whole[..whole.len() - after.len()]
                .matches(LINE_MARK)
                .count();
            let line = (body.matches(LINE_MARK).count() + head_marks == continued)
                .then(|| u32::try_from(row + 1 + head_marks).unwrap_or(u32::MAX));
            let m = Macro {
                params: Some(params),
                body,
            };
            let list = out.macros.entry(name.clone()).or_default();
            if !list.contains(&m) {
                list.push(m);
                // The first definition of a name is the one expanded ([`Expander`]).
                if list.len() == 1 {
                    out.lines.insert(name, (file, line));
                }
            }
        }
    }
    // Definers: a replacement with a body, or one invoking a definer
    // (`#define BATCH(t) ENTRY(t, 1) ENTRY(t, 2)`), to a fixed point.
    let mut defining: HashSet<String> = out
        .macros
        .iter()
        .filter(|(_, ms)| ms[0].body.contains('{') && ms[0].body.contains('}'))
        .map(|(name, _)| name.clone())
        .collect();
    loop {
        let more: Vec<String> = out
            .macros
            .iter()
            .filter(|(name, ms)| {
                !defining.contains(*name)
                    && crate::index::identifiers(&ms[0].body)
                        .iter()
                        .any(|w| defining.contains(w))
            })
            .map(|(name, _)| name.clone())
            .collect();
        if more.is_empty() {
            break;
        }
        defining.extend(more);
    }
    out.macros.retain(|name, _| defining.contains(name));
    out.lines.retain(|name, _| defining.contains(name));
    out
}

/// The mark [`definers`] leaves in a macro's replacement where a line continues.
const LINE_MARK: char = '\u{1}';

/// Whether a brace after `head` (the declaration before it) opens a scope rather than a
/// body: `namespace a {`, `extern "C" {`, a class's members (`struct Variant {`,
/// `template <typename P> struct Variant : Base {`) are scopes; `extern "C" void f() {` is
/// a body.
fn opens_scope(head: &str) -> bool {
    let squeezed: String = head.chars().filter(|c| !c.is_whitespace()).collect();
    let class = || {
        let head = head.trim_start();
        // Past a template's parameter list (angle brackets counted).
        let head = match head.strip_prefix("template").map(str::trim_start) {
            Some(rest) if rest.starts_with('<') => {
                let mut depth = 0i32;
                let end = rest.char_indices().find_map(|(i, c)| {
                    match c {
                        '<' => depth += 1,
                        '>' => depth -= 1,
                        _ => {}
                    }
                    (depth == 0).then_some(i + 1)
                });
                match end {
                    Some(end) => rest[end..].trim_start(),
                    None => return false,
                }
            }
            Some(_) => return false,
            None => head,
        };
        ["struct", "class", "union"].iter().any(|k| {
            head.strip_prefix(k)
                .is_some_and(|rest| rest.starts_with(char::is_whitespace))
        }) && !head.contains(['(', '=', ';'])
    };
    (squeezed.starts_with("namespace") && !squeezed.contains(['(', '=']))
        || squeezed == "extern\"C\""
        || squeezed == "extern\"C++\""
        || class()
}

/// The definer macros of the sources: each with the file (its index in the order read) and
/// line of its `#define`, when the lines of its replacement are known.
#[derive(Default)]
pub(crate) struct Definers {
    macros: HashMap<String, Vec<Macro>>,
    lines: HashMap<String, (usize, Option<u32>)>,
}

/// A file-scope expansion placed in a file's text: its bytes, the line of the `#define`
/// its first line is, and the offsets (from the start of the range) where the
/// replacement's lines break.
#[derive(Clone, Debug)]
pub(crate) struct Placed {
    pub(crate) range: std::ops::Range<usize>,
    pub(crate) first_line: u32,
    pub(crate) breaks: Vec<usize>,
}

/// The line of the `#define` an expansion's first line is, and the offsets where its
/// replacement's lines break.
type DefineLines = (u32, Vec<usize>);

/// (start, end, expansion, its `#define` line and line breaks) of each invocation.
type Replaced = (usize, usize, String, Option<DefineLines>);

/// `text` with each invocation of a [`definers`] macro at file scope (outside any function
/// body: at the top level, or in a `namespace` / `extern "C"` block) replaced by its
/// expansion on the invocation's own line, so that the functions and kernels it defines
/// are read as written there: a launch inside is reported at its line in the `#define`
/// when that is in the same file (the places returned), else at the invocation's line.
/// Other macros are left for the reader. Lines keep their places; at most `allowance`
/// bytes are added (counted down here; past it, invocations stay as written, and the
/// number of those is returned).
pub(crate) fn expand_file_scope_definitions(
    text: &str,
    file: usize,
    definers: &Definers,
    allowance: &mut usize,
) -> (String, Vec<Placed>, usize) {
    if definers.macros.is_empty() {
        return (text.to_owned(), Vec::new(), 0);
    }
    let mut not_expanded = 0;
    let mut lists = Lists::default();
    let bytes = text.as_bytes();
    let mut replaced: Vec<Replaced> = Vec::new();
    let mut added = 0usize;
    // Each open brace: whether it opens a scope (namespace, extern "C") rather than a body.
    let mut braces: Vec<bool> = Vec::new();
    // Where the current declaration or statement began.
    let mut statement = 0usize;
    let mut newline_since = true;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'/' if matches!(bytes.get(i + 1), Some(b'/' | b'*')) => {
                let start = i;
                i = comment_end(bytes, i);
                // A comment before a declaration is not part of it.
                if text
                    .get(statement..start)
                    .is_some_and(|t| t.trim().is_empty())
                {
                    statement = i;
                }
                continue;
            }
            b'#' if newline_since => {
                i = directive_end(bytes, i);
                statement = i;
                continue;
            }
            b'"' | b'\'' => {
                i = literal_end(bytes, i);
                newline_since = false;
                continue;
            }
            b'\n' => {
                newline_since = true;
                i += 1;
                continue;
            }
            b'{' => {
                braces.push(opens_scope(text.get(statement..i).unwrap_or("")));
                statement = i + 1;
            }
            b'}' => {
                braces.pop();
                statement = i + 1;
            }
            b';' => statement = i + 1,
            _ if c.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            _ if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                newline_since = false;
                let name = &text[start..i];
                let first = text
                    .get(statement..start)
                    .is_some_and(|t| t.trim().is_empty());
                if !(first
                    && braces.iter().all(|scope| *scope)
                    && definers.macros.contains_key(name))
                {
                    continue;
                }
                let mut open = i;
                while open < bytes.len() && bytes[open].is_ascii_whitespace() {
                    open += 1;
                }
                let Some((_, after)) = lists.at(text, open) else {
                    continue;
                };
                let invocation = &text[start..after];
                match expand_definer(invocation, name, file, definers) {
                    Some((expansion, placed)) if expansion.len() <= *allowance => {
                        *allowance -= expansion.len();
                        added += expansion.len();
                        replaced.push((start, after, expansion, placed));
                    }
                    Some(_) => not_expanded += 1,
                    None => {}
                }
                i = after;
                statement = after;
                continue;
            }
            _ => {}
        }
        newline_since = false;
        i += 1;
    }
    if replaced.is_empty() {
        return (text.to_owned(), Vec::new(), not_expanded);
    }
    let (text, placed) = splice(text, replaced, added);
    (text, placed, not_expanded)
}

/// A definer's invocation, `invocation` (of the macro `name`, in file `file`), expanded on
/// one line with its own new lines after it, and the `#define`'s line and the expansion's
/// line breaks where that is in this file; `None` where it does not expand.
fn expand_definer(
    invocation: &str,
    name: &str,
    file: usize,
    definers: &Definers,
) -> Option<(String, Option<DefineLines>)> {
    let expansion = crate::macros::Expander::new(&definers.macros)
        .expand(invocation)
        .ok()
        .map(|e| e.replace(['\n', '\r'], " "))?;
    // Lines inside the `#define` where it is in this file (its marks, one
    // byte each, become spaces); else the invocation's line.
    let breaks: Vec<usize> = expansion
        .char_indices()
        .filter(|(_, c)| *c == LINE_MARK)
        .map(|(at, _)| at)
        .collect();
    // A nested definer's own line breaks would be counted as this one's.
    let own = definers.macros[name][0].body.matches(LINE_MARK).count();
    let placed = match definers.lines.get(name) {
        Some((f, Some(line))) if *f == file && breaks.len() == own => Some((*line, breaks)),
        _ => None,
    };
    let expansion = expansion.replace(LINE_MARK, " ");
    // The invocation's own new lines stay, after the expansion.
    let lines = invocation.matches('\n').count();
    Some((format!("{expansion}{}", "\n".repeat(lines)), placed))
}

/// `text` with each invocation replaced by its expansion, and where each expansion placed
/// on the lines of its `#define` lies in the result.
fn splice(text: &str, replaced: Vec<Replaced>, added: usize) -> (String, Vec<Placed>) {
    let mut out = String::with_capacity(text.len() + added);
    let mut placed = Vec::new();
    let mut kept = 0;
    for (start, end, expansion, lines) in replaced {
        out.push_str(&text[kept..start]);
        if let Some((first_line, breaks)) = lines {
            placed.push(Placed {
                range: out.len()..out.len() + expansion.len(),
                first_line,
                breaks,
            });
        }
        out.push_str(&expansion);
        kept = end;
    }
    out.push_str(&text[kept..]);
    (out, placed)
}
