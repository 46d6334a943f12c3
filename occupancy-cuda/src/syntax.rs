//! Parsing with tree-sitter's CUDA grammar, within bounds, and small helpers on its nodes.

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use tree_sitter::{Node, Parser, Tree};

/// The longest a file (or a macro expansion) may take to parse; past it the file is not
/// read, with a note.
pub const MAX_PARSE_TIME: Duration = Duration::from_secs(10);

/// Parsed source text: a file of the crate, or the text a macro expanded to.
pub(crate) struct Code {
    pub(crate) text: String,
    /// The file, relative to the crate (`src/cuda/a.cu`); for an expansion, the file of
    /// the invocation.
    pub(crate) shown: String,
    /// The file's path as found (empty for an expansion).
    pub(crate) path: PathBuf,
    /// `Some(line)`: every node is reported at this line (an expansion: the invocation's).
    pub(crate) fixed_line: Option<u32>,
    tree: Option<Tree>,
    timed_out: bool,
}

impl Code {
    /// Parses `text`; `shown` names it in messages.
    pub(crate) fn parse(text: String, shown: String, fixed_line: Option<u32>) -> Code {
        let mut parser = Parser::new();
        let language: tree_sitter::Language = tree_sitter_cuda::LANGUAGE.into();
        let tree = if parser.set_language(&language).is_ok() {
            let start = Instant::now();
            let mut timed_out = false;
            let mut progress = |_: &tree_sitter::ParseState| {
                if start.elapsed() > MAX_PARSE_TIME {
                    timed_out = true;
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            };
            let bytes = text.as_bytes();
            let mut read = |offset: usize, _| bytes.get(offset..).unwrap_or(&[]);
            let options = tree_sitter::ParseOptions::new().progress_callback(&mut progress);
            let tree = parser.parse_with_options(&mut read, None, Some(options));
            return Code {
                path: PathBuf::from(&shown),
                text,
                shown,
                fixed_line,
                tree,
                timed_out,
            };
        } else {
            None
        };
        Code {
            path: PathBuf::from(&shown),
            text,
            shown,
            fixed_line,
            tree,
            timed_out: false,
        }
    }

    /// The root node, when the text parsed.
    pub(crate) fn root(&self) -> Option<Node<'_>> {
        self.tree.as_ref().map(Tree::root_node)
    }

    /// What went wrong parsing, for a note: (line, message). Syntax errors are not fatal
    /// (tree-sitter recovers and the rest is read); a timeout is.
    pub(crate) fn problem(&self) -> Option<(Option<u32>, String)> {
        if self.timed_out {
            return Some((
                None,
                format!(
                    "parsing took longer than {} s: the file is not read",
                    MAX_PARSE_TIME.as_secs()
                ),
            ));
        }
        let root = self.root()?;
        if !root.has_error() {
            return None;
        }
        let error = first_error(root)?;
        Some((
            Some(self.line(error)),
            format!(
                "tree-sitter's C++ grammar does not parse `{}` (a macro's arguments, or C++ it does not know): the rest of the file is read",
                clip(self.text(error), 40)
            ),
        ))
    }

    /// A node's text.
    pub(crate) fn text(&self, node: Node<'_>) -> &str {
        self.text.get(node.byte_range()).unwrap_or("")
    }

    /// A node's 1-based line (the invocation's for an expansion).
    pub(crate) fn line(&self, node: Node<'_>) -> u32 {
        self.fixed_line
            .unwrap_or_else(|| u32::try_from(node.start_position().row + 1).unwrap_or(u32::MAX))
    }

    /// The `#include "..."` of the file (never `<...>`), with their lines.
    pub(crate) fn includes(&self) -> Vec<(String, u32)> {
        let mut out = Vec::new();
        let Some(root) = self.root() else {
            return out;
        };
        let mut stack = vec![root];
        let mut visited = 0usize;
        while let Some(node) = stack.pop() {
            visited += 1;
            if visited > 1_000_000 {
                break;
            }
            match node.kind() {
                "preproc_include" => {
                    if let Some(path) = node.child_by_field_name("path")
                        && path.kind() == "string_literal"
                    {
                        let name = self.text(path).trim_matches('"').to_owned();
                        out.push((name, self.line(node)));
                    }
                }
                "translation_unit"
                | "preproc_if"
                | "preproc_ifdef"
                | "preproc_else"
                | "preproc_elif"
                | "preproc_elifdef"
                | "namespace_definition"
                | "declaration_list"
                | "linkage_specification" => {
                    let mut cursor = node.walk();
                    let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                    stack.extend(children.into_iter().rev());
                }
                _ => {}
            }
        }
        out
    }
}

/// The first node (in document order) that is an error or missing.
fn first_error(root: Node<'_>) -> Option<Node<'_>> {
    let mut node = root;
    'down: loop {
        if node.is_error() || node.is_missing() {
            return Some(node);
        }
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.has_error() {
                node = child;
                continue 'down;
            }
        }
        return Some(node);
    }
}

/// At most `max` characters of `text` on one line, `...` when cut.
pub(crate) fn clip(text: &str, max: usize) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= max {
        one_line
    } else {
        let cut: String = one_line.chars().take(max).collect();
        format!("{cut}...")
    }
}

/// The named children of a node.
pub(crate) fn named_children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// The children of a node under a field name.
pub(crate) fn field_children<'t>(node: Node<'t>, field: &str) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.children_by_field_name(field, &mut cursor).collect()
}
