//! What tree-sitter is given: each file's text with the constructs its C++ grammar cannot
//! place made plain, byte offsets and lines kept (a `;` inserted is the one change of
//! length, and its offsets are returned). Each pass is one function, run in this order by
//! [`prepare`]: [`blank_attributes`], [`blank_dependent_temporaries`],
//! [`replace_specifier_macros`], [`terminate_macro_statements`], [`blank_directives`]
//! (pragmas, and `#if` groups the grammar cannot read as alternatives: [`group_blanks`]).

use std::collections::{HashMap, HashSet};

use crate::preproc::Decider;

/// `text` ready to parse, and the offsets where a `;` was inserted (ascending): every pass
/// of this module, with the statement-like macros of the translation unit's sources.
pub(crate) fn prepare(
    text: &str,
    macros: &StatementMacros,
    decider: &Decider<'_>,
) -> (String, Vec<usize>) {
    let text = blank_dependent_temporaries(&blank_attributes(text));
    let text = replace_specifier_macros(&text, &macros.specifiers);
    // Statements ended first: a conditional group's branches are judged whole or not by
    // their last byte.
    let (text, inserted) = terminate_macro_statements(&text, macros);
    (blank_directives(&text, decider), inserted)
}

/// `text` with each use of a specifier macro (`FLASHINFER_INLINE`, `CUTE_HOST_DEVICE`,
/// [`StatementMacros::specifiers`]) in code replaced by `__global__` when the macro says
/// so and its name is as long (what the reader needs of a declaration's specifiers: that
/// it declares a kernel), else by spaces. Lengths stay.
fn replace_specifier_macros(text: &str, specifiers: &HashMap<String, bool>) -> String {
    if specifiers.is_empty() {
        return text.to_owned();
    }
    let uses: Vec<(usize, usize, bool)> = code_words(text)
        .into_iter()
        .filter_map(|(start, end)| {
            specifiers
                .get(&text[start..end])
                .map(|&global| (start, end, global))
        })
        .collect();
    if uses.is_empty() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut kept = 0;
    for (start, end, global) in uses {
        out.push_str(&text[kept..start]);
        let kernel = "__global__";
        if global && end - start >= kernel.len() {
            out.push_str(kernel);
            out.extend(std::iter::repeat_n(' ', end - start - kernel.len()));
        } else {
            out.extend(std::iter::repeat_n(' ', end - start));
        }
        kept = end;
    }
    out.push_str(&text[kept..]);
    out
}

/// The byte ranges of the words (identifiers and keywords) of `text`'s code: outside
/// comments, string and character literals and preprocessor lines.
fn code_words(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
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
            b'"' | b'\'' => {
                i = literal_end(bytes, i);
                line_start = false;
            }
            c if is_ident(c) => {
                let start = i;
                while i < bytes.len() && is_ident(bytes[i]) {
                    i += 1;
                }
                // A number's digits and suffix are no word.
                if !c.is_ascii_digit() {
                    out.push((start, i));
                }
                line_start = false;
            }
            _ => {
                i += 1;
                line_start = false;
            }
        }
    }
    out
}

/// One `#define` of a text.
struct Define {
    name: String,
    /// `#define NAME(..)`.
    function_like: bool,
    /// What follows the name (and the parameters), continuations joined with a space.
    replacement: String,
}

/// The most parenthesised lists one pass over a text looks for that do not close: each
/// such look reads to the end of the text, so a text of many unclosed `M(` would cost
/// its length squared. Past it, the pass takes no more invocations in that text.
const MAX_UNCLOSED: usize = 64;

/// [`crate::macros::paren_list`] for one pass over one text, at most [`MAX_UNCLOSED`]
/// times without a close.
#[derive(Default)]
pub(crate) struct Lists {
    unclosed: usize,
}

impl Lists {
    /// The list opening at `open` in `text`: its inside and the byte after its `)`.
    pub(crate) fn at<'t>(&mut self, text: &'t str, open: usize) -> Option<(&'t str, usize)> {
        if self.unclosed >= MAX_UNCLOSED {
            return None;
        }
        let list = crate::macros::paren_list(text, open);
        if list.is_none() && text.as_bytes().get(open) == Some(&b'(') {
            self.unclosed += 1;
        }
        list
    }
}

/// What follows `#define` and its white space on a `#define` line; `None` for any other
/// line.
pub(crate) fn define_line(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix('#')?;
    let rest = rest.trim_start().strip_prefix("define")?;
    rest.starts_with([' ', '\t']).then(|| rest.trim_start())
}

/// The `#define`s of a text, in order.
fn defines(text: &str) -> Vec<Define> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = define_line(line) else {
            continue;
        };
        let len = rest.bytes().take_while(|b| is_ident(*b)).count();
        let (name, after) = rest.split_at(len);
        if name.is_empty() {
            continue;
        }
        let mut joined = after.trim_end().to_owned();
        while let Some(cut) = joined.strip_suffix('\\').map(str::len) {
            joined.truncate(cut);
            joined.push(' ');
            match lines.next() {
                Some(next) => joined.push_str(next.trim_end()),
                None => break,
            }
        }
        let function_like = joined.starts_with('(');
        let replacement = match crate::macros::paren_list(&joined, 0) {
            Some((_, end)) if function_like => joined[end..].trim().to_owned(),
            _ if function_like => String::new(),
            _ => joined.trim().to_owned(),
        };
        out.push(Define {
            name: name.to_owned(),
            function_like,
            replacement,
        });
    }
    out
}

/// The statement-like macros of a translation unit's sources, for
/// [`terminate_macro_statements`].
#[derive(Default)]
pub(crate) struct StatementMacros {
    /// Function-like macros.
    pub(crate) function_like: HashSet<String>,
    /// Object-like macros whose replacement ends a statement ([`ends_statement`]).
    pub(crate) object_like: HashSet<String>,
    /// Function-like macros whose replacement is an `else if` case of a chain (it begins
    /// with `else`, or with such a macro's invocation): marlin's `CALL_IF(..)`.
    pub(crate) else_cases: HashSet<String>,
    /// Object-like macros that are declaration specifiers ([`specifiers_only`]), and
    /// whether each says `__global__`.
    pub(crate) specifiers: HashMap<String, bool>,
}

impl StatementMacros {
    /// The macros `texts` define.
    pub(crate) fn of<'a>(texts: impl Iterator<Item = &'a str>) -> StatementMacros {
        let (functions, objects): (Vec<Define>, Vec<Define>) =
            texts.flat_map(defines).partition(|d| d.function_like);
        // Each function-like macro with the first word of its replacement (`else`, a
        // macro's name).
        let firsts: Vec<(String, String)> = functions
            .into_iter()
            .map(|d| {
                let len = d.replacement.bytes().take_while(|b| is_ident(*b)).count();
                let first = d.replacement[..len].to_owned();
                (d.name, first)
            })
            .collect();
        // The macros that begin with each word; then those reached from `else`.
        let mut beginning_with: HashMap<&str, Vec<&str>> = HashMap::new();
        for (name, first) in &firsts {
            beginning_with.entry(first).or_default().push(name);
        }
        let mut else_cases: HashSet<String> = HashSet::new();
        let mut next: Vec<&str> = vec!["else"];
        while let Some(word) = next.pop() {
            for &name in beginning_with.get(word).into_iter().flatten() {
                if else_cases.insert(name.to_owned()) {
                    next.push(name);
                }
            }
        }
        let objects: Vec<(String, String)> = objects
            .into_iter()
            .map(|d| (d.name, d.replacement))
            .collect();
        let mut specifiers: HashMap<String, bool> = LIBRARY_SPECIFIERS
            .iter()
            .filter(|(name, _)| !objects.iter().any(|(n, _)| n == name))
            .map(|&(name, global)| (name.to_owned(), global))
            .collect();
        specifiers.extend(
            objects
                .iter()
                .filter(|(_, body)| specifiers_only(body))
                .map(|(name, body)| {
                    (
                        name.clone(),
                        body.split_whitespace().any(|w| w == "__global__"),
                    )
                }),
        );
        StatementMacros {
            function_like: firsts.into_iter().map(|(name, _)| name).collect(),
            object_like: objects
                .into_iter()
                .filter(|(_, body)| ends_statement(body))
                .map(|(name, _)| name)
                .collect(),
            else_cases,
            specifiers,
        }
    }
}

/// Whether an object-like macro's replacement ends a statement (`;` or `}` last):
/// `#define FLASH_UNSUPPORTED_ARCH printf("..");`, written alone on a line where a statement
/// stands.
fn ends_statement(body: &str) -> bool {
    body.ends_with([';', '}'])
}

/// The words a function's declaration may begin with that [`specifiers_only`] accepts.
const SPECIFIERS: &[&str] = &[
    "inline",
    "static",
    "extern",
    "constexpr",
    "__inline__",
    "__forceinline__",
    "__noinline__",
    "__device__",
    "__host__",
    "__global__",
];

/// Whether an object-like macro's replacement is only declaration specifiers and GNU
/// attributes (`#define FLASHINFER_INLINE inline __attribute__((always_inline)) __device__`):
/// written before a function's return type, where the grammar takes the unknown name for
/// the type and fails on the real one.
fn specifiers_only(body: &str) -> bool {
    let mut rest = body.trim();
    if rest.is_empty() {
        return false;
    }
    while !rest.is_empty() {
        let len = rest.bytes().take_while(|b| is_ident(*b)).count();
        let word = &rest[..len];
        rest = rest[len..].trim_start();
        if word == "__attribute__" {
            match crate::macros::paren_list(rest, 0) {
                Some((_, after)) => rest = rest[after..].trim_start(),
                None => return false,
            }
        } else if !SPECIFIERS.contains(&word) {
            return false;
        }
    }
    true
}

/// Specifier macros of CUDA libraries whose headers a package may not carry (CUTLASS and
/// CuTe, which flash-attention's build fetches), with whether each is `__global__`, as
/// those libraries define them (`CUTE_HOST_DEVICE` is `__forceinline__ __host__
/// __device__`, `CUTLASS_GLOBAL` is `__global__`). Used when no file read defines them.
const LIBRARY_SPECIFIERS: &[(&str, bool)] = &[
    ("CUTE_HOST_DEVICE", false),
    ("CUTE_HOST", false),
    ("CUTE_DEVICE", false),
    ("CUTLASS_HOST_DEVICE", false),
    ("CUTLASS_DEVICE", false),
    ("CUTLASS_GLOBAL", true),
];

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
fn terminate_macro_statements(text: &str, macros: &StatementMacros) -> (String, Vec<usize>) {
    if macros.function_like.is_empty() && macros.object_like.is_empty() {
        return (text.to_owned(), Vec::new());
    }
    let bytes = text.as_bytes();
    let mut inserts: Vec<usize> = Vec::new();
    let mut lists = Lists::default();
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
                    lists.at(text, j).map(|(_, after)| after)
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
pub(crate) fn directive_end(bytes: &[u8], mut i: usize) -> usize {
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
pub(crate) fn literal_end(bytes: &[u8], mut i: usize) -> usize {
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
fn blank_dependent_temporaries(text: &str) -> String {
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
fn blank_attributes(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut blanks: Vec<(usize, usize)> = Vec::new();
    let mut lists = Lists::default();
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
        if let Some((_, after)) = lists.at(text, open) {
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
/// does):
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
/// - the branches of a conditional group that splits a statement or a declaration but
///   one, and its directives ([`group_blanks`]): the branch a build compiles, as
///   `decider` (the build's `-D` macros and the crate's `#define`s) tells;
/// - white space at the end of a directive line, moved past its new line: the grammar
///   reads the line after `#define CHECK(cond, ...) ` (an empty replacement, then a
///   space) as part of the replacement (marlin's `namespace marlin {`).
fn blank_directives(text: &str, decider: &Decider<'_>) -> String {
    let bytes = text.as_bytes();
    let mut lists = Lists::default();
    let mut blanks: Vec<(usize, usize)> = Vec::new();
    // The conditional directives, and the code before each (one more: after the last).
    let mut conditionals: Vec<Conditional> = Vec::new();
    let mut segments: Vec<Stretch> = vec![Stretch::default()];
    // The last significant byte of code so far, in the text's order.
    let mut last_code: Option<u8> = None;
    // Directive lines' trailing white space and new line, to be swapped.
    let mut rotations: Vec<std::ops::Range<usize>> = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < bytes.len() {
        let code = segments.last_mut().expect("one segment at least");
        match bytes[i] {
            b'\n' => {
                line_start = true;
                i += 1;
            }
            b' ' | b'\t' | b'\r' => i += 1,
            b'/' if matches!(bytes.get(i + 1), Some(b'/' | b'*')) => i = comment_end(bytes, i),
            b'#' if line_start => {
                let end = directive_end(bytes, i);
                let (word, condition) = directive_word(&text[i + 1..end]);
                let kind = match word {
                    "if" | "ifdef" | "ifndef" => Some(Branching::Opens),
                    "elif" | "else" | "elifdef" | "elifndef" => Some(Branching::Continues),
                    "endif" => Some(Branching::Closes),
                    _ => None,
                };
                if word == "pragma" {
                    blanks.push((i, end));
                } else {
                    blanks.extend(directive_comments(bytes, i, end));
                }
                if let Some(kind) = kind {
                    let decided = match word {
                        "else" | "endif" => None,
                        _ if !cuda_may_compile(word, condition) => Some(false),
                        _ => decider.decide(&format!("#{word}"), condition, false),
                    };
                    conditionals.push(Conditional {
                        kind,
                        range: (i, end),
                        decided,
                        chain: kind == Branching::Opens && next_word(text, end) == Some("else"),
                        mid_statement: !matches!(last_code, None | Some(b';' | b'}' | b'{' | b':')),
                    });
                    segments.push(Stretch::default());
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
                code.push(b'"');
                last_code = Some(b'"');
                line_start = false;
            }
            b'_' if text[i..].starts_with("_Pragma") && (i == 0 || !is_ident(bytes[i - 1])) => {
                let mut open = i + "_Pragma".len();
                while open < bytes.len() && bytes[open].is_ascii_whitespace() {
                    open += 1;
                }
                match lists.at(text, open) {
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
                code.push(c);
                last_code = Some(c);
                line_start = false;
            }
        }
    }
    blanks.extend(group_blanks(&conditionals, &segments));
    blanks.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(blanks.len());
    for (start, end) in blanks {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    let blanked = blank(text, &merged);
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

/// What a conditional directive does to its group.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Branching {
    /// `#if`, `#ifdef`, `#ifndef`.
    Opens,
    /// `#elif`, `#else` (`#elifdef`, `#elifndef`).
    Continues,
    /// `#endif`.
    Closes,
}

/// One conditional directive line.
#[derive(Debug)]
struct Conditional {
    kind: Branching,
    /// Its bytes, `#` to the end of the line.
    range: (usize, usize),
    /// Whether the build compiles its branch, where that is known: from the build's `-D`
    /// macros and the crate's `#define`s ([`Decider`]), and `false` for a branch no CUDA
    /// build compiles ([`cuda_may_compile`]). `None` for `#else`, `#endif`.
    decided: Option<bool>,
    /// An `#if` whose first branch begins with `else`: the group continues an `if` chain.
    chain: bool,
    /// An `#if` written inside a statement or declaration (after `?`, `=`, a return type):
    /// its group cannot be read as alternatives however whole its branches are.
    mid_statement: bool,
}

/// What [`group_blanks`] needs of a stretch of code: its brace depth at the end, and its
/// last significant byte (an identifier's last, a literal's quote).
#[derive(Clone, Copy, Default, Debug)]
struct Stretch {
    braces: i64,
    last: Option<u8>,
}

impl Stretch {
    fn push(&mut self, c: u8) {
        match c {
            b'{' => self.braces += 1,
            b'}' => self.braces -= 1,
            _ => {}
        }
        self.last = Some(c);
    }

    /// This stretch, then `next`.
    fn then(self, next: Stretch) -> Stretch {
        Stretch {
            braces: self.braces + next.braces,
            last: next.last.or(self.last),
        }
    }

    /// Whether it is whole statements or declarations (none, or ends a statement with its
    /// braces closed): a branch the grammar reads where it stands.
    fn whole(self) -> bool {
        self.braces == 0 && matches!(self.last, None | Some(b';' | b'}' | b':'))
    }
}

/// Whether a CUDA build may compile the branch of a conditional directive (`word` and the
/// rest of its line): not for `#if 0`, nor a branch for HIP or ROCm (`#ifdef
/// GGML_USE_HIP`, `#if defined(__HIP_PLATFORM_AMD__)`, `#elif defined(USE_ROCM)`).
fn cuda_may_compile(word: &str, condition: &str) -> bool {
    let condition = condition.trim();
    let for_amd = |name: &str| name.contains("HIP") || name.contains("ROCM");
    match word {
        "ifdef" | "elifdef" => !for_amd(condition),
        "if" | "elif" => {
            let name = condition
                .strip_prefix("defined")
                .map(|rest| {
                    rest.trim()
                        .trim_start_matches('(')
                        .trim_end_matches(')')
                        .trim()
                })
                .unwrap_or(condition);
            let single = !name.is_empty() && name.bytes().all(is_ident);
            condition != "0" && !(single && for_amd(name))
        }
        _ => true,
    }
}

/// The conditional groups the grammar cannot read as alternatives, and what to blank of
/// each: a group whose branches are not whole statements (`if (i < n) {` in one branch and
/// `{` in the other, `__launch_bounds__(..)` before a kernel's declaration) or that is
/// written inside one (`cond ?` `#ifdef FORCE` `128 : 64;` `#else` `64 : 32;` `#endif`) is
/// read as one branch, as a build compiles it: the first one the build surely compiles,
/// else the first it may (`#else` when the others are for HIP), the others and the
/// group's directives blanked. A group that
/// continues an `if` chain has its directives blanked and each branch kept. Groups are
/// judged innermost first: a group read as one branch is that branch to the group around
/// it. `segments[k]` is the code before `conditionals[k]`.
fn group_blanks(conditionals: &[Conditional], segments: &[Stretch]) -> Vec<(usize, usize)> {
    struct Open {
        /// Each branch: its directive's index, and its code so far.
        branches: Vec<(usize, Stretch)>,
    }
    let mut out = Vec::new();
    let mut open: Vec<Open> = Vec::new();
    let add = |open: &mut Vec<Open>, code: Stretch| {
        if let Some((_, last)) = open.last_mut().and_then(|g| g.branches.last_mut()) {
            *last = last.then(code);
        }
    };
    for (k, directive) in conditionals.iter().enumerate() {
        add(&mut open, segments[k]);
        match directive.kind {
            Branching::Opens => open.push(Open {
                branches: vec![(k, Stretch::default())],
            }),
            Branching::Continues => {
                if let Some(group) = open.last_mut() {
                    group.branches.push((k, Stretch::default()));
                }
            }
            Branching::Closes => {
                let Some(group) = open.pop() else {
                    continue;
                };
                let first = &conditionals[group.branches[0].0];
                let directives = group
                    .branches
                    .iter()
                    .map(|&(d, _)| conditionals[d].range)
                    .chain([directive.range]);
                let as_read = if first.chain {
                    out.extend(directives);
                    Stretch {
                        braces: 0,
                        last: Some(b'}'),
                    }
                } else if !first.mid_statement
                    && group.branches.iter().all(|(_, code)| code.whole())
                {
                    let any = group.branches.iter().any(|(_, code)| code.last.is_some());
                    Stretch {
                        braces: 0,
                        last: any.then_some(b';'),
                    }
                } else {
                    out.extend(directives);
                    // The first branch the build surely compiles, else the first it may.
                    let decided = |b: &(usize, Stretch)| conditionals[b.0].decided;
                    let kept = group
                        .branches
                        .iter()
                        .position(|b| decided(b) == Some(true))
                        .or_else(|| group.branches.iter().position(|b| decided(b).is_none()));
                    for (b, &(d, _)) in group.branches.iter().enumerate() {
                        if Some(b) != kept {
                            let next = group.branches.get(b + 1).map_or(k, |&(n, _)| n);
                            out.push((conditionals[d].range.1, conditionals[next].range.0));
                        }
                    }
                    kept.map_or_else(Stretch::default, |b| group.branches[b].1)
                };
                add(&mut open, as_read);
            }
        }
    }
    out
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

/// The directive's name in a preprocessor line's text after its `#` (`if`, `pragma`),
/// and the rest of the line.
fn directive_word(rest: &str) -> (&str, &str) {
    let rest = rest.trim_start_matches([' ', '\t']);
    let len = rest.bytes().take_while(|b| is_ident(*b)).count();
    rest.split_at(len)
}

/// The first word of code at or after `i`, past white space and comments; `None` when
/// code there begins with something else, or a preprocessor line comes first.
fn next_word(text: &str, mut i: usize) -> Option<&str> {
    let bytes = text.as_bytes();
    while i < bytes.len() {
        match bytes[i] {
            c if c.is_ascii_whitespace() => i += 1,
            b'/' if matches!(bytes.get(i + 1), Some(b'/' | b'*')) => i = comment_end(bytes, i),
            _ => {
                let len = bytes[i..].iter().take_while(|b| is_ident(**b)).count();
                return (len > 0).then(|| &text[i..i + len]);
            }
        }
    }
    None
}

/// The end of the comment at `i` (`//` to the end of its line, `/*` past its `*/`).
pub(crate) fn comment_end(bytes: &[u8], mut i: usize) -> usize {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_stops_looking_for_lists_after_so_many_that_do_not_close() {
        // `M(` without a close, then one list that closes.
        let text = format!("{}M(a)", "M(\n".repeat(MAX_UNCLOSED));
        let closed = text.len() - 3;
        let mut lists = Lists::default();
        assert_eq!(lists.at(&text, closed), Some(("a", text.len())));
        for k in 0..MAX_UNCLOSED {
            assert_eq!(lists.at(&text, 3 * k + 1), None);
        }
        // Past the limit: not looked for, even where it closes.
        assert_eq!(lists.at(&text, closed), None);
        // A position that is no `(` is not counted as unclosed.
        let mut lists = Lists::default();
        for _ in 0..2 * MAX_UNCLOSED {
            assert_eq!(lists.at(&text, 0), None);
        }
        assert_eq!(lists.at(&text, closed), Some(("a", text.len())));
    }
}
