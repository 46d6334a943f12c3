//! The crate's CUDA C++ sources: the `.cu` / `.cuh` files of the directories given, and the
//! headers they `#include "..."`, read once each, inside the crate only.
//!
//! Bounds: regular files only (a FIFO or a device is never opened), at most
//! [`MAX_FILE_BYTES`] per file and [`MAX_FILES`] files, links followed only when they
//! resolve inside the crate's directory, `#include <...>` never followed (system and CUDA
//! headers), and `#include "..."` only to a file inside the crate.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::index::strip_comments;
use crate::launch::ReadNote;
use crate::macros::Macro;
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
}

impl Sources {
    /// Reads the `.cu` / `.cuh` files under `dirs` (relative to `crate_dir`, searched
    /// recursively, hidden folders and `target/` left out) and the headers they include.
    pub(crate) fn read(crate_dir: &Path, dirs: &[PathBuf]) -> Sources {
        let root = std::fs::canonicalize(crate_dir).unwrap_or_else(|_| crate_dir.to_path_buf());
        let mut sources = Sources {
            root,
            files: Vec::new(),
            includes: Vec::new(),
            given: Vec::new(),
            notes: Vec::new(),
            by_path: HashMap::new(),
            raw: Vec::new(),
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
        sources.parse_all();
        sources
    }

    /// Parses every file read, once every file's macros are known: a macro that defines a
    /// function or a kernel, invoked at file scope, is expanded where it is invoked
    /// ([`expand_file_scope_definitions`]); a statement-like macro
    /// invocation with no `;` after it (`DISPATCH(dtype, [&] { ... })` before a `}`)
    /// derails the grammar, so one is added there (after an object-like macro written as
    /// a statement too); alignment specifiers and GNU attributes, which the grammar does
    /// not always read, are blanked ([`blank_attributes`]), and so are pragmas and the
    /// directives of a conditional group that continues an `else if` chain
    /// ([`blank_directives`]) and the `typename` of a dependent temporary
    /// ([`blank_dependent_temporaries`]).
    fn parse_all(&mut self) {
        let sources = self;
        let statement_macros =
            StatementMacros::of(sources.raw.iter().map(|(text, _, _)| text.as_str()));
        let definers = definers(sources.raw.iter().map(|(text, _, _)| text.as_str()));
        for (file, (text, shown, path)) in std::mem::take(&mut sources.raw).into_iter().enumerate()
        {
            let (text, mut placed) = expand_file_scope_definitions(&text, file, &definers);
            let (text, inserted) = terminate_macro_statements(
                &blank_dependent_temporaries(&blank_directives(&blank_attributes(&text))),
                &statement_macros,
            );
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
    }

    /// Sources given as text (`name`, `text`), not read from disk: each is a given file;
    /// `#include "name"` resolves to another of them by name (relative to the including
    /// file's folder, or as written). For tools and fuzzing.
    pub(crate) fn from_texts(files: &[(&str, &str)]) -> Sources {
        let mut sources = Sources {
            root: PathBuf::new(),
            files: Vec::new(),
            includes: Vec::new(),
            given: Vec::new(),
            notes: Vec::new(),
            by_path: HashMap::new(),
            raw: Vec::new(),
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
        sources.parse_all();
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

/// The function-like macros a text defines (`#define NAME(`): each name, with the first
/// word of its replacement (`else`, a macro's name; empty when it begins otherwise).
fn function_like_macros(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.trim_start().strip_prefix('#') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix("define") else {
            continue;
        };
        let rest = rest.trim_start();
        let len = rest.bytes().take_while(|b| is_ident(*b)).count();
        let (name, after) = rest.split_at(len);
        if name.is_empty() || !after.starts_with('(') {
            continue;
        }
        // The definition, continuations joined.
        let mut joined = after.to_owned();
        while joined.trim_end().ends_with('\\') {
            let cut = joined.trim_end().len() - 1;
            joined.truncate(cut);
            joined.push(' ');
            match lines.next() {
                Some(next) => joined.push_str(next),
                None => break,
            }
        }
        let first = crate::macros::paren_list(&joined, 0)
            .map(|(_, end)| {
                let body = joined[end..].trim_start();
                let len = body.bytes().take_while(|b| is_ident(*b)).count();
                body[..len].to_owned()
            })
            .unwrap_or_default();
        out.push((name.to_owned(), first));
    }
    out
}

/// The statement-like macros of a translation unit's sources, for
/// [`terminate_macro_statements`].
#[derive(Default)]
pub(crate) struct StatementMacros {
    /// Function-like macros.
    pub(crate) function_like: HashSet<String>,
    /// Object-like macros whose replacement ends a statement ([`object_like_statements`]).
    pub(crate) object_like: HashSet<String>,
    /// Function-like macros whose replacement is an `else if` case of a chain (it begins
    /// with `else`, or with such a macro's invocation): marlin's `CALL_IF(..)`.
    pub(crate) else_cases: HashSet<String>,
}

impl StatementMacros {
    /// The macros `texts` define.
    pub(crate) fn of<'a>(texts: impl Iterator<Item = &'a str> + Clone) -> StatementMacros {
        let firsts: Vec<(String, String)> = texts.clone().flat_map(function_like_macros).collect();
        let mut else_cases: HashSet<String> = HashSet::new();
        // Each round adds the macros that begin with one found before: as many rounds as
        // macros at most.
        loop {
            let before = else_cases.len();
            for (name, first) in &firsts {
                if first == "else" || else_cases.contains(first) {
                    else_cases.insert(name.clone());
                }
            }
            if else_cases.len() == before {
                break;
            }
        }
        StatementMacros {
            function_like: firsts.into_iter().map(|(name, _)| name).collect(),
            object_like: texts.flat_map(object_like_statements).collect(),
            else_cases,
        }
    }
}

/// The names of the object-like macros a text defines whose replacement ends a statement
/// (`;` or `}` last): `#define FLASH_UNSUPPORTED_ARCH printf("..");`, written alone on a
/// line where a statement stands.
fn object_like_statements(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.trim_start().strip_prefix('#') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix("define") else {
            continue;
        };
        if !rest.starts_with([' ', '\t']) {
            continue;
        }
        let rest = rest.trim_start();
        let len = rest.bytes().take_while(|b| is_ident(*b)).count();
        let (name, body) = rest.split_at(len);
        let function_like = body.starts_with('(');
        // The replacement's last line, past continuations.
        let mut last = body.trim_end();
        while let Some(joined) = last.strip_suffix('\\') {
            last = match lines.next().map(str::trim_end) {
                Some(next) if !next.trim().is_empty() => next,
                _ => joined.trim_end(),
            };
        }
        if !name.is_empty() && !function_like && last.ends_with([';', '}']) {
            out.push(name.to_owned());
        }
    }
    out
}

/// The label [`terminate_macro_statements`] gives the `else` that closes a chain of
/// `else if` macro cases, in place of the word (as long as it): the reader runs the
/// statement it labels on the paths no case of the chain took. A name with two leading
/// underscores is the implementation's: no user code defines it.
pub(crate) const CHAIN_ELSE_LABEL: &str = "__e";
const _: () = assert!(CHAIN_ELSE_LABEL.len() + 1 == "else".len());

/// `text` with a `;` after each invocation of one of `macros` (a function-like one, with
/// its arguments, or an object-like one) that stands as a statement (after `{`, `}`, `;`
/// or a line's start) and is followed by a `}` or a new line with no `;`, `{` or operator
/// in between, and the offsets (in `text`, ascending) where each was inserted. Lines and
/// the text before each insertion keep their places. An `else` after an invocation of
/// one of `macros.else_cases` (`if (false) {}` `CALL_IF(8)` `CALL_IF(4)` `else { .. }`),
/// which the grammar cannot place once the `;` is there, becomes the label
/// [`CHAIN_ELSE_LABEL`] (`__e: { .. }`).
pub(crate) fn terminate_macro_statements(
    text: &str,
    macros: &StatementMacros,
) -> (String, Vec<usize>) {
    if macros.function_like.is_empty() && macros.object_like.is_empty() {
        return (text.to_owned(), Vec::new());
    }
    let bytes = text.as_bytes();
    let mut inserts: Vec<usize> = Vec::new();
    // Where an `else` closing a chain of macro cases begins.
    let mut labels: Vec<usize> = Vec::new();
    let mut i = 0;
    // The last significant byte before `i`, outside comments and literals.
    let mut last = b'\n';
    let mut newline_since_last = true;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < bytes.len() && !(bytes[i] == b'*' && bytes[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
                continue;
            }
            b'#' if newline_since_last => {
                // A preprocessor line (with continuations): not code.
                i = directive_end(bytes, i);
                continue;
            }
            b'"' | b'\'' => {
                i = literal_end(bytes, i);
                last = c;
                newline_since_last = false;
                continue;
            }
            b'\n' => {
                newline_since_last = true;
                i += 1;
                continue;
            }
            _ if c.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            _ => {}
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let at_statement =
                matches!(last, b'{' | b'}' | b';') || (newline_since_last && last == b')');
            let name = &text[start..i];
            let function_like = macros.function_like.contains(name);
            if at_statement && (function_like || macros.object_like.contains(name)) {
                let mut j = i;
                while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                    j += 1;
                }
                let arguments = if function_like {
                    crate::macros::paren_list(text, j).map(|(_, after)| after)
                } else {
                    Some(i)
                };
                if let Some(after) = arguments {
                    let mut k = after;
                    let mut newline = false;
                    while k < bytes.len() && bytes[k].is_ascii_whitespace() {
                        newline |= bytes[k] == b'\n';
                        k += 1;
                    }
                    let next = bytes.get(k).copied().unwrap_or(b'}');
                    let ends = next == b'}'
                        || (newline
                            && (next.is_ascii_alphabetic() || next == b'_' || next == b'#'));
                    if ends && next != b';' {
                        inserts.push(after);
                    }
                    if macros.else_cases.contains(name) {
                        let mut m = k;
                        if next == b';' {
                            m += 1;
                            while m < bytes.len() && bytes[m].is_ascii_whitespace() {
                                m += 1;
                            }
                        }
                        if text[m..].starts_with("else")
                            && bytes
                                .get(m + 4)
                                .is_some_and(|b| b.is_ascii_whitespace() || *b == b'{')
                        {
                            labels.push(m);
                        }
                    }
                    last = b')';
                    newline_since_last = false;
                    i = after;
                    continue;
                }
            }
            last = b'a';
            newline_since_last = false;
            continue;
        }
        last = c;
        newline_since_last = false;
        i += 1;
    }
    let labelled;
    let text = if labels.is_empty() {
        text
    } else {
        let mut out = String::with_capacity(text.len());
        let mut from = 0;
        for at in labels {
            out.push_str(&text[from..at]);
            out.push_str(CHAIN_ELSE_LABEL);
            out.push(':');
            from = at + "else".len();
        }
        out.push_str(&text[from..]);
        labelled = out;
        &labelled
    };
    if inserts.is_empty() {
        return (text.to_owned(), inserts);
    }
    let mut out = String::with_capacity(text.len() + inserts.len());
    let mut from = 0;
    for &at in &inserts {
        out.push_str(&text[from..at]);
        out.push(';');
        from = at;
    }
    out.push_str(&text[from..]);
    (out, inserts)
}

/// Where the preprocessor line starting at `i` (its `#`) ends: its new line, past any
/// line continuations.
fn directive_end(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && bytes[i] != b'\n' {
        if bytes[i] == b'\\' && bytes.get(i + 1) == Some(&b'\n') {
            i += 1;
        }
        i += 1;
    }
    i
}

/// Where the string or character literal starting at `i` (its quote) ends: past its
/// closing quote, or at the line's end when it is not closed there.
fn literal_end(bytes: &[u8], mut i: usize) -> usize {
    let quote = bytes[i];
    i += 1;
    while i < bytes.len() && bytes[i] != quote && bytes[i] != b'\n' {
        if bytes[i] == b'\\' {
            i += 1;
        }
        i += 1;
    }
    i + 1
}

/// `text` with the `typename` of each temporary of a dependent type blanked (as [`blank`]
/// does): `make_tensor(p, typename Kernel_traits::SmemLayoutQ{})`,
/// `get<2>(typename MMA_traits::Shape_MNK{})`. The grammar reads `typename` only in
/// declarations; without it the same text is a temporary it knows. Only a `typename`
/// after `(`, `,`, `=`, `{` or `return` and before a qualified name (`A::B`, no template
/// arguments) and a `{` or `(` is blanked.
pub(crate) fn blank_dependent_temporaries(text: &str) -> String {
    const WORD: &str = "typename";
    let bytes = text.as_bytes();
    let mut blanks: Vec<(usize, usize)> = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find(WORD) {
        let start = from + found;
        let end = start + WORD.len();
        from = end;
        if start > 0 && is_ident(bytes[start - 1]) || bytes.get(end).copied().is_some_and(is_ident)
        {
            continue;
        }
        let before = text[..start].trim_end();
        let after_operand = before.ends_with(['(', ',', '=', '{'])
            || before
                .strip_suffix("return")
                .is_some_and(|b| !b.bytes().next_back().is_some_and(is_ident));
        if !after_operand {
            continue;
        }
        // The qualified name: identifiers joined by `::`, at least two.
        let mut i = end;
        let mut parts = 0;
        loop {
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            let len = bytes[i..].iter().take_while(|b| is_ident(**b)).count();
            if len == 0 {
                break;
            }
            parts += 1;
            i += len;
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            if !text[i..].starts_with("::") {
                break;
            }
            i += 2;
        }
        if parts >= 2 && matches!(bytes.get(i), Some(b'{' | b'(')) {
            blanks.push((start, end));
        }
    }
    blank(text, &blanks)
}

/// The specifiers [`blank_attributes`] blanks, each followed by a parenthesised list.
const BLANKED: &[&str] = &["__align__", "__builtin_align__", "__attribute__"];

/// `text` with each alignment specifier and GNU attribute replaced by spaces:
/// `__align__(16)` (`extern __shared__ __align__(16) unsigned char smem[];`,
/// `struct __align__(16) V`), `__builtin_align__(16)`, `__attribute__((aligned(16)))`
/// (after a declarator too). The grammar does not know the first two (it reads the
/// parenthesis as a declarator and fails on the type after it) nor the third after a
/// declarator, and none changes anything the reader computes. Lengths, byte offsets and
/// lines stay as they are (a new line inside the parentheses is kept).
pub(crate) fn blank_attributes(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut blanks: Vec<(usize, usize)> = Vec::new();
    let mut from = 0;
    // Each starts with `__`: find those, then which name (if any) begins there.
    while let Some(found) = text[from..].find("__") {
        let start = from + found;
        let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        let Some(name) = BLANKED.iter().find(|n| text[start..].starts_with(**n)) else {
            from = start + 2;
            while from < bytes.len() && ident(bytes[from]) {
                from += 1;
            }
            continue;
        };
        let end = start + name.len();
        from = end;
        if start > 0 && ident(bytes[start - 1]) || bytes.get(end).copied().is_some_and(ident) {
            continue;
        }
        let mut open = end;
        while open < bytes.len() && bytes[open].is_ascii_whitespace() {
            open += 1;
        }
        if let Some((_, after)) = crate::macros::paren_list(text, open) {
            blanks.push((start, after));
            from = after;
        }
    }
    blank(text, &blanks)
}

/// `text` with each of `ranges` (byte ranges, ascending, not overlapping, on character
/// boundaries) replaced by spaces, one per byte, new lines kept: lengths, byte offsets
/// and lines stay as they are.
fn blank(text: &str, ranges: &[(usize, usize)]) -> String {
    if ranges.is_empty() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut kept = 0;
    for &(start, end) in ranges {
        out.push_str(&text[kept..start]);
        for c in text[start..end].chars() {
            if c == '\n' {
                out.push('\n');
            } else {
                out.extend(std::iter::repeat_n(' ', c.len_utf8()));
            }
        }
        kept = end;
    }
    out.push_str(&text[kept..]);
    out
}

/// `text` with the preprocessor lines the grammar cannot place blanked (as [`blank`]
/// does), none of which changes what the reader computes:
///
/// - `#pragma` lines and `_Pragma("...")` operators (`#pragma unroll` between a `for`
///   and its body, `_Pragma("unroll")` in a macro's replacement: tree-sitter takes the
///   statement that follows for the pragma's and loses the loop);
/// - the directives of a conditional group that continues an `if` / `else` chain
///   (`}` `#ifndef NO_BF16_KERNEL` `else if (dtype == 1) { .. }` `#endif` `else { .. }`):
///   the grammar reads a group as whole statements, and a group that begins with `else`
///   is none. Its branches are read as part of the chain, as a build that compiles them
///   makes it (one that does not makes a chain without those cases, whose launches are
///   the others');
/// - white space at the end of a directive line, moved past its new line: the grammar
///   reads the line after `#define CHECK(cond, ...) ` (an empty replacement, then a
///   space) as part of the replacement (marlin's `namespace marlin {`).
pub(crate) fn blank_directives(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut blanks: Vec<(usize, usize)> = Vec::new();
    // Open conditional groups: whether each continues a chain (its directives blanked).
    let mut groups: Vec<bool> = Vec::new();
    // Directive lines' trailing white space and new line, to be swapped.
    let mut rotations: Vec<std::ops::Range<usize>> = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                line_start = true;
                i += 1;
            }
            b' ' | b'\t' | b'\r' => i += 1,
            b'/' if matches!(bytes.get(i + 1), Some(b'/' | b'*')) => i = comment_end(bytes, i),
            b'#' if line_start => {
                let end = directive_end(bytes, i);
                let word = directive_word(&text[i + 1..end]);
                let blanked = match word {
                    "pragma" => true,
                    "if" | "ifdef" | "ifndef" => {
                        let chain = next_word(text, end) == Some("else");
                        groups.push(chain);
                        chain
                    }
                    "elif" | "else" | "elifdef" | "elifndef" => groups.last() == Some(&true),
                    "endif" => groups.pop() == Some(true),
                    _ => false,
                };
                if blanked {
                    blanks.push((i, end));
                } else {
                    blanks.extend(directive_comments(bytes, i, end));
                }
                let trailing = bytes[i..end]
                    .iter()
                    .rev()
                    .take_while(|b| matches!(b, b' ' | b'\t' | b'\r'))
                    .count();
                if trailing > 0 && bytes.get(end) == Some(&b'\n') {
                    rotations.push(end - trailing..end + 1);
                }
                i = end;
            }
            b'"' | b'\'' => {
                i = literal_end(bytes, i);
                line_start = false;
            }
            b'_' if text[i..].starts_with("_Pragma") && (i == 0 || !is_ident(bytes[i - 1])) => {
                let mut open = i + "_Pragma".len();
                while open < bytes.len() && bytes[open].is_ascii_whitespace() {
                    open += 1;
                }
                match crate::macros::paren_list(text, open) {
                    Some((_, after)) => {
                        blanks.push((i, after));
                        i = after;
                    }
                    None => i += 1,
                }
                line_start = false;
            }
            c => {
                i += 1;
                if is_ident(c) {
                    while i < bytes.len() && is_ident(bytes[i]) {
                        i += 1;
                    }
                }
                line_start = false;
            }
        }
    }
    let blanked = blank(text, &blanks);
    if rotations.is_empty() {
        return blanked;
    }
    let mut out = blanked.into_bytes();
    for r in rotations {
        // White space and new line are ASCII: the text stays UTF-8.
        out[r.clone()].rotate_right(1);
    }
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The block comments in the preprocessor line `bytes[start..end]` (a `/* .. */` inside
/// a macro's replacement ends tree-sitter's reading of the `#define`, and what follows is
/// parsed as code), each cut at the line's end.
fn directive_comments(bytes: &[u8], start: usize, end: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = start;
    while i < end {
        match bytes[i] {
            b'"' | b'\'' => i = literal_end(bytes, i),
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let close = comment_end(bytes, i).min(end);
                out.push((i, close));
                i = close;
            }
            _ => i += 1,
        }
    }
    out
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The directive's name in a preprocessor line's text after its `#` (`if`, `pragma`).
fn directive_word(rest: &str) -> &str {
    let rest = rest.trim_start_matches([' ', '\t']);
    let len = rest.bytes().take_while(|b| is_ident(*b)).count();
    &rest[..len]
}

/// The first word of code at or after `i`, past white space, comments and preprocessor
/// lines; `None` when code there begins with something else.
fn next_word(text: &str, mut i: usize) -> Option<&str> {
    let bytes = text.as_bytes();
    let mut line_start = true;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                line_start = true;
                i += 1;
            }
            c if c.is_ascii_whitespace() => i += 1,
            b'/' if matches!(bytes.get(i + 1), Some(b'/' | b'*')) => i = comment_end(bytes, i),
            b'#' if line_start => i = directive_end(bytes, i),
            _ => {
                let len = bytes[i..].iter().take_while(|b| is_ident(**b)).count();
                return (len > 0).then(|| &text[i..i + len]);
            }
        }
    }
    None
}

/// The most text the file-scope expansions of one file may add, bytes.
const MAX_DEFINITION_BYTES: usize = 4 << 20;

/// The function-like macros of `texts` whose replacement defines something with a body
/// (`#define DEFINE_LAUNCHER(bits, T) extern "C" void launch_##bits(..) { .. }`,
/// `#define CAST_OP(A, B, NAME) __global__ void NAME(..) { .. }`), or invokes such a macro:
/// name to definitions, continuations joined and comments removed.
fn definers<'a>(texts: impl Iterator<Item = &'a str>) -> Definers {
    let mut out = Definers::default();
    for (file, text) in texts.enumerate() {
        let mut lines = text.lines().enumerate();
        while let Some((row, line)) = lines.next() {
            let Some(rest) = line.trim_start().strip_prefix('#') else {
                continue;
            };
            let Some(rest) = rest.trim_start().strip_prefix("define") else {
                continue;
            };
            if !rest.starts_with([' ', '\t']) {
                continue;
            }
            let mut whole = rest.trim_start().to_owned();
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

/// The end of the comment at `i` (`//` to the end of its line, `/*` past its `*/`).
fn comment_end(bytes: &[u8], mut i: usize) -> usize {
    if bytes[i + 1] == b'/' {
        while i < bytes.len() && bytes[i] != b'\n' {
            i += 1;
        }
    } else {
        i += 2;
        while i + 1 < bytes.len() && !(bytes[i] == b'*' && bytes[i + 1] == b'/') {
            i += 1;
        }
        i = (i + 2).min(bytes.len());
    }
    i
}

/// Whether a brace after `head` (the declaration before it) opens a scope rather than a
/// body: `namespace a {`, `extern "C" {` are scopes; `extern "C" void f() {` is a body.
fn opens_scope(head: &str) -> bool {
    let head: String = head.chars().filter(|c| !c.is_whitespace()).collect();
    (head.starts_with("namespace") && !head.contains(['(', '=']))
        || head == "extern\"C\""
        || head == "extern\"C++\""
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
/// Other macros are left for the reader. Lines keep their places; at most
/// [`MAX_DEFINITION_BYTES`] are added (past that, invocations stay as written).
pub(crate) fn expand_file_scope_definitions(
    text: &str,
    file: usize,
    definers: &Definers,
) -> (String, Vec<Placed>) {
    if definers.macros.is_empty() {
        return (text.to_owned(), Vec::new());
    }
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
                let Some((_, after)) = crate::macros::paren_list(text, open) else {
                    continue;
                };
                let invocation = &text[start..after];
                if let Some((expansion, placed)) =
                    expand_definer(invocation, name, file, definers, &mut added)
                {
                    replaced.push((start, after, expansion, placed));
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
        return (text.to_owned(), Vec::new());
    }
    splice(text, replaced, added)
}

/// A definer's invocation, `invocation` (of the macro `name`, in file `file`), expanded on
/// one line with its own new lines after it, and the `#define`'s line and the expansion's
/// line breaks where that is in this file; `None` where it does not expand or would add
/// more than [`MAX_DEFINITION_BYTES`] in all (`added`, counted here).
fn expand_definer(
    invocation: &str,
    name: &str,
    file: usize,
    definers: &Definers,
    added: &mut usize,
) -> Option<(String, Option<DefineLines>)> {
    let expansion = crate::macros::Expander::new(&definers.macros)
        .expand(invocation)
        .ok()
        .map(|e| e.replace(['\n', '\r'], " "));
    let expansion = expansion.filter(|e| *added + e.len() <= MAX_DEFINITION_BYTES)?;
    *added += expansion.len();
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
