//! The crate's CUDA C++ sources: the `.cu` / `.cuh` files of the directories given, and the
//! headers they `#include "..."`, read once each, inside the crate only.
//!
//! Bounds: regular files only (a FIFO or a device is never opened), at most
//! [`MAX_FILE_BYTES`] per file and [`MAX_FILES`] files, links followed only when they
//! resolve inside the crate's directory, `#include <...>` never followed (system and CUDA
//! headers), and `#include "..."` only to a file inside the crate.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::launch::ReadNote;
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
            if let Some(index) = sources.load(&path, None) {
                if !sources.given.contains(&index) {
                    sources.given.push(index);
                }
            }
        }
        // Includes, breadth first; `load` appends, so the loop sees new files too.
        let mut next = 0;
        while next < sources.files.len() {
            let wanted: Vec<(String, u32)> = sources.files[next].includes();
            let dir = sources.files[next]
                .path
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
                Some((i, line)) => (this.files[i].shown.clone(), Some(line)),
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
        if self.files.len() >= MAX_FILES {
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
        let mut code = Code::parse(text, shown.clone(), None);
        code.path = real.clone();
        if let Some(problem) = code.problem() {
            self.notes.push(ReadNote {
                file: shown,
                line: problem.0,
                message: problem.1,
            });
        }
        let index = self.files.len();
        self.files.push(code);
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
