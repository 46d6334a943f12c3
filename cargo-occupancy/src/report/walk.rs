//! The crate walk: its `.rs` files (links followed once, never out of the crate), and the
//! `cfg` conditions that `mod` declarations put on the files they bring in, as text.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::{Attribute, Expr, Meta};

/// Every `.rs` file under the crate's `src/`, `examples/`, `benches/`, `tests/` (in that
/// order, sorted in each; files reached only through links last), each once however many symbolic links lead to it (a link loop is walked once), under
/// its own path rather than a link's where both lead to it; and a note for each entry
/// skipped: a `.rs` entry that is not a regular file (a FIFO, a device: never opened), a
/// link that resolves outside the crate's directory (never followed: `ln -s / src/root`
/// would walk the machine).
pub(super) fn rust_files(crate_dir: &Path) -> (Vec<PathBuf>, Vec<String>) {
    use std::collections::HashSet;
    struct Walk {
        /// The crate's directory, links resolved.
        root: PathBuf,
        /// Directories and files visited, links resolved.
        seen: HashSet<PathBuf>,
        files: Vec<PathBuf>,
        skipped: Vec<String>,
        /// Links met, followed once every plain path has been walked.
        links: Vec<PathBuf>,
    }
    impl Walk {
        fn visit(&mut self, path: PathBuf) {
            let Ok(metadata) = std::fs::metadata(&path) else {
                return;
            };
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if !metadata.is_dir() && !name.ends_with(".rs") {
                return;
            }
            if let Some(kind) =
                occupancy_core::file::non_regular(&metadata).filter(|_| !metadata.is_dir())
            {
                self.skipped
                    .push(format!("{}: {kind}, skipped", path.display()));
                return;
            }
            let Ok(real) = std::fs::canonicalize(&path) else {
                return;
            };
            if !real.starts_with(&self.root) {
                self.skipped.push(format!(
                    "{}: a link to {}, outside the crate's directory, not followed",
                    path.display(),
                    real.display()
                ));
                return;
            }
            if !self.seen.insert(real) {
                return;
            }
            if !metadata.is_dir() {
                self.files.push(path);
                return;
            }
            let Ok(entries) = std::fs::read_dir(&path) else {
                return;
            };
            let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
            entries.sort();
            for entry in entries {
                let name = entry.file_name().and_then(|n| n.to_str()).unwrap_or("");
                if name.starts_with('.') || name == "target" {
                    continue;
                }
                if std::fs::symlink_metadata(&entry).is_ok_and(|m| m.file_type().is_symlink()) {
                    self.links.push(entry);
                } else {
                    self.visit(entry);
                }
            }
        }
    }
    let mut w = Walk {
        root: std::fs::canonicalize(crate_dir).unwrap_or_else(|_| crate_dir.to_path_buf()),
        seen: HashSet::new(),
        files: Vec::new(),
        skipped: Vec::new(),
        links: Vec::new(),
    };
    for sub in ["src", "examples", "benches", "tests"] {
        w.visit(crate_dir.join(sub));
    }
    // The links last, so that a file reached both ways keeps its own path.
    while !w.links.is_empty() {
        for link in std::mem::take(&mut w.links) {
            w.visit(link);
        }
    }
    (w.files, w.skipped)
}

/// A file that parsed: its path, its path as shown (relative to the crate) and what the
/// report keeps of it once its syntax tree is dropped.
pub(super) struct Parsed {
    pub(super) path: PathBuf,
    pub(super) shown: String,
    /// Items past the parser's limits, left out of its syntax (a function keeps its
    /// signature, with an empty body).
    pub(super) skipped: Vec<occupancy_attr::Skipped>,
    /// The files its `mod name;` declarations bring in (each with both of `name.rs` and
    /// `name/mod.rs` where no `#[path]` says), with the `cfg` conditions on them.
    declared: Vec<(PathBuf, Vec<String>)>,
}

/// For each file that a `mod` declaration carrying `#[cfg(...)]` brings in (directly or
/// through other modules), those conditions, outermost first: `#[cfg(feature = "x")] mod
/// broken;` in `src/lib.rs` makes every wrapper of `src/broken.rs` and of the files under it
/// conditional.
pub(super) fn module_conditions(files: &[Parsed]) -> BTreeMap<PathBuf, Vec<String>> {
    let known: BTreeSet<&Path> = files.iter().map(|f| f.path.as_path()).collect();
    // Child file -> (the file declaring it, the declaration's conditions): the first
    // declaration found wins.
    let mut parents: BTreeMap<PathBuf, (PathBuf, Vec<String>)> = BTreeMap::new();
    for file in files {
        for (child, conditions) in &file.declared {
            if known.contains(child.as_path()) && *child != file.path {
                parents
                    .entry(child.clone())
                    .or_insert_with(|| (file.path.clone(), conditions.clone()));
            }
        }
    }
    let mut out = BTreeMap::new();
    for file in files {
        let mut chain = Vec::new();
        let mut seen = BTreeSet::new();
        let mut at = &file.path;
        while let Some((parent, conditions)) = parents.get(at) {
            if !seen.insert(at) {
                break;
            }
            chain.push(conditions.clone());
            at = parent;
        }
        chain.reverse();
        let conditions = chain.concat();
        if !conditions.is_empty() {
            out.insert(file.path.clone(), conditions);
        }
    }
    out
}

/// The files that the `mod name;` declarations of `items` bring in, each with the `cfg`
/// conditions on it and on the inline modules around it. `dir`: where `mod name;` looks for
/// `name.rs` and `name/mod.rs`; `base`: what `#[path = "..."]` is relative to.
fn module_declarations(
    items: &[syn::Item],
    dir: &Path,
    base: &Path,
    shown: &str,
    conditions: &[String],
    out: &mut Vec<(PathBuf, Vec<String>)>,
) {
    for item in items {
        let syn::Item::Mod(m) = item else {
            continue;
        };
        let name = m.ident.to_string();
        let mut inner = conditions.to_vec();
        let line = m.mod_token.span.start().line;
        inner.extend(cfgs(&m.attrs, &format!("mod {name} ({shown}:{line})")));
        let explicit = m.attrs.iter().find_map(|a| match &a.meta {
            Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        });
        match (&m.content, explicit) {
            (Some((_, items)), explicit) => {
                let sub = dir.join(explicit.unwrap_or(name));
                module_declarations(items, &sub, &sub, shown, &inner, out);
            }
            (None, Some(path)) => out.push((normalize(&base.join(path)), inner)),
            (None, None) => {
                let file = dir.join(format!("{name}.rs"));
                let folder = dir.join(&name).join("mod.rs");
                out.push((file, inner.clone()));
                out.push((folder, inner));
            }
        }
    }
}

/// The folder where a file's `mod name;` looks: the file's own folder for crate roots and
/// `mod.rs`, else a folder named after the file (`src/a.rs`: `src/a/`).
fn module_dir(crate_dir: &Path, file: &Path) -> PathBuf {
    let parent = file.parent().unwrap_or(crate_dir);
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let roots = ["examples", "tests", "benches", "src/bin"].map(|r| crate_dir.join(r));
    let is_root_folder = |dir: &Path| roots.iter().any(|r| r == dir);
    let crate_root = is_root_folder(parent)
        || (matches!(name, "lib.rs" | "main.rs")
            && (parent == crate_dir.join("src") || parent.parent().is_some_and(is_root_folder)));
    if name == "mod.rs" || crate_root {
        parent.to_path_buf()
    } else {
        parent.join(file.file_stem().unwrap_or_default())
    }
}

/// `a/./b/../c` -> `a/c`, without the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `cfg(PREDICATE) on WHAT` for each `#[cfg(...)]` of an item.
pub(crate) fn cfgs(attrs: &[Attribute], what: &str) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .filter_map(|a| match &a.meta {
            Meta::List(list) => Some(format!(
                "cfg({}) on {what}",
                predicate_text(list.tokens.clone())
            )),
            _ => None,
        })
        .collect()
}

/// A cfg predicate as written, spaced as rustfmt would: `not(feature = "nodeny")`.
pub(super) fn predicate_text(tokens: TokenStream) -> String {
    match syn::parse2::<Meta>(tokens.clone()) {
        Ok(meta) => meta_text(&meta),
        Err(_) => tokens.to_string(),
    }
}

fn meta_text(meta: &Meta) -> String {
    let path = |p: &syn::Path| {
        let segments: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        let leading = if p.leading_colon.is_some() { "::" } else { "" };
        format!("{leading}{}", segments.join("::"))
    };
    match meta {
        Meta::Path(p) => path(p),
        Meta::NameValue(nv) => format!(
            "{} = {}",
            path(&nv.path),
            quote::ToTokens::to_token_stream(&nv.value)
        ),
        Meta::List(list) => {
            let items: Vec<String> = split_top_level(list.tokens.clone())
                .into_iter()
                .map(predicate_text)
                .collect();
            format!("{}({})", path(&list.path), items.join(", "))
        }
    }
}

/// `tokens` split at the commas outside any group; no empty pieces.
pub(super) fn split_top_level(tokens: TokenStream) -> Vec<TokenStream> {
    let mut pieces = Vec::new();
    let mut current = Vec::new();
    for tree in tokens {
        match &tree {
            TokenTree::Punct(p) if p.as_char() == ',' => {
                if !current.is_empty() {
                    pieces.push(std::mem::take(&mut current).into_iter().collect());
                }
            }
            _ => current.push(tree),
        }
    }
    if !current.is_empty() {
        pieces.push(current.into_iter().collect());
    }
    pieces
}

/// Every `.rs` file of the crate in `crate_dir`, parsed one at a time and given with its
/// syntax tree to `each`, which is dropped after (a note on stderr for each entry or item
/// skipped), and `file: reason` for each that cannot be read or parsed.
pub(super) fn parse_files(
    crate_dir: &Path,
    mut each: impl FnMut(&Parsed, &syn::File),
) -> (Vec<Parsed>, Vec<String>) {
    let mut parsed = Vec::new();
    let mut unreadable = Vec::new();
    let (files, skipped) = rust_files(crate_dir);
    for note in skipped {
        eprintln!("note: {note}");
    }
    for file in files {
        let shown = file
            .strip_prefix(crate_dir)
            .unwrap_or(&file)
            .display()
            .to_string();
        let source = match parse_one(&file, &shown) {
            Ok(source) => source,
            Err(why) => {
                unreadable.push(why);
                continue;
            }
        };
        for skipped in &source.skipped {
            let what = match &skipped.body_of {
                Some(_) => format!("the body of `{}`", skipped.what),
                None => format!("`{}`", skipped.what),
            };
            eprintln!(
                "note: {shown}:{}: {what} is not read: {}",
                skipped.span.start().line,
                skipped.why
            );
        }
        let mut declared = Vec::new();
        module_declarations(
            &source.syntax.items,
            &module_dir(crate_dir, &file),
            file.parent().unwrap_or(crate_dir),
            &shown,
            &[],
            &mut declared,
        );
        let file = Parsed {
            path: file,
            shown,
            skipped: source.skipped,
            declared,
        };
        each(&file, &source.syntax);
        parsed.push(file);
    }
    (parsed, unreadable)
}

/// The syntax tree of `file` (`shown`: its path as shown) again, as [`parse_files`] read it.
pub(super) fn parse_again(file: &Parsed) -> Option<syn::File> {
    parse_one(&file.path, &file.shown).ok().map(|s| s.syntax)
}

/// Reads and parses one source file: items past the limits that keep syn within its stack
/// are left out (listed); the rest of the file is read. Errors: `file: reason`.
fn parse_one(file: &Path, shown: &str) -> Result<occupancy_attr::SourceFile, String> {
    let text =
        occupancy_core::file::read_text(file, "source file", occupancy_core::file::MAX_TEXT_BYTES)
            .map_err(|e| format!("{shown}: {}", e.reason))?;
    occupancy_attr::parse_source_file(&text, shown).map_err(|e| {
        let at = e.span().start();
        format!("{shown}:{}:{}: {e}", at.line, at.column + 1)
    })
}
