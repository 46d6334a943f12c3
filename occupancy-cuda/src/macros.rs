//! Expanding the file's own `#define`s in text, as the preprocessor would, within bounds:
//! object-like and function-like macros (`__VA_ARGS__`, `#` and `##`), arguments expanded
//! before substitution, the result rescanned with the macro being expanded hidden (no
//! recursion), at most [`MAX_DEPTH`] nested expansions and [`MAX_EXPANSION_BYTES`] of
//! output. Nothing is ever run: `#include`, `#if` and the system headers are not involved.

use std::collections::HashMap;

/// The deepest nesting of macro expansions followed.
pub const MAX_DEPTH: usize = 32;

/// The most text one expansion may produce, bytes.
pub const MAX_EXPANSION_BYTES: usize = 256 << 10;

/// A `#define`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Macro {
    /// `None` for an object-like macro; the parameter names otherwise (`...` last for a
    /// variadic one).
    pub(crate) params: Option<Vec<String>>,
    /// The replacement text, line continuations removed.
    pub(crate) body: String,
}

/// Why an expansion stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ExpansionError(pub(crate) String);

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Ident(String),
    /// Anything else, as written (numbers, strings, punctuation, whitespace).
    Other(String),
}

impl Tok {
    fn text(&self) -> &str {
        match self {
            Tok::Ident(s) | Tok::Other(s) => s,
        }
    }
}

/// Splits text into preprocessing tokens: identifiers, numbers, string and character
/// literals, whitespace runs, and single punctuation characters (enough for expansion:
/// `##` and `#` are found as consecutive `#`).
fn tokenize(text: &str) -> Vec<Tok> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Ident(text[start..i].to_owned()));
        } else if c.is_ascii_digit() {
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.' || bytes[i] == b'\'')
            {
                i += 1;
            }
            out.push(Tok::Other(text[start..i].to_owned()));
        } else if c == b'"' || c == b'\'' {
            i += 1;
            while i < bytes.len() && bytes[i] != c {
                if bytes[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i = (i + 1).min(bytes.len());
            out.push(Tok::Other(text[start..i].to_owned()));
        } else if c.is_ascii_whitespace() {
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            out.push(Tok::Other(" ".to_owned()));
        } else {
            // One character (UTF-8 aware).
            let ch = text[i..].chars().next().map_or(1, char::len_utf8);
            i += ch;
            out.push(Tok::Other(text[start..i].to_owned()));
        }
    }
    out
}

/// Splits the text between a call's parentheses into arguments at top-level commas
/// (parentheses, brackets and braces nest; angle brackets do not, as in the
/// preprocessor).
pub(crate) fn split_args(text: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut depth = 0i32;
    let mut current = String::new();
    for tok in tokenize(text) {
        match tok.text() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            "," if depth == 0 => {
                args.push(std::mem::take(&mut current).trim().to_owned());
                continue;
            }
            _ => {}
        }
        current.push_str(tok.text());
    }
    args.push(current.trim().to_owned());
    if args.len() == 1 && args[0].is_empty() {
        args.clear();
    }
    args
}

/// The text of a parenthesised list starting at `open` (the byte of its `(`) in `text`:
/// the text inside, and the byte after its `)`; `None` when it does not close.
pub(crate) fn paren_list(text: &str, open: usize) -> Option<(&str, usize)> {
    let bytes = text.as_bytes();
    if bytes.get(open) != Some(&b'(') {
        return None;
    }
    let mut depth = 0i32;
    let mut i = open;
    while i < bytes.len() {
        match bytes[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some((&text[open + 1..i], i + 1));
                }
            }
            q @ (b'"' | b'\'') => {
                i += 1;
                while i < bytes.len() && bytes[i] != q {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// One invocation [`invocations`] found: `NAME(args)`.
pub(crate) struct Invocation<'t> {
    pub(crate) name: &'t str,
    /// The text between its parentheses.
    pub(crate) args: &'t str,
    /// Its bytes in the text read, its name to its `)`.
    pub(crate) range: std::ops::Range<usize>,
}

/// `text` (a statement the grammar could not parse) read as invocations of function-like
/// macros one after the other, each `NAME(args)` with an optional `;`. `None` when any of
/// it is something else, or names a macro `is_macro` does not know.
/// `CALL(float, float, 256); CALL(half, uint8_t, 128)`, which the grammar takes for broken
/// declarations (types among the arguments).
pub(crate) fn invocations<'t>(
    text: &'t str,
    is_macro: impl Fn(&str) -> bool,
) -> Option<Vec<Invocation<'t>>> {
    let bytes = text.as_bytes();
    let skip_space = |mut i: usize| {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let mut out = Vec::new();
    let mut i = skip_space(0);
    while i < bytes.len() {
        let len = bytes[i..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count();
        let name = &text[i..i + len];
        if len == 0 || !is_macro(name) {
            return None;
        }
        let (args, after) = paren_list(text, skip_space(i + len))?;
        out.push(Invocation {
            name,
            args,
            range: i..after,
        });
        i = skip_space(after);
        if bytes.get(i) == Some(&b';') {
            i = skip_space(i + 1);
        }
    }
    (!out.is_empty()).then_some(out)
}

/// The expander of one translation unit's macros.
pub(crate) struct Expander<'m> {
    pub(crate) macros: &'m HashMap<String, Vec<Macro>>,
    produced: usize,
}

impl<'m> Expander<'m> {
    pub(crate) fn new(macros: &'m HashMap<String, Vec<Macro>>) -> Expander<'m> {
        Expander {
            macros,
            produced: 0,
        }
    }

    /// `name(args)` (or `name` for an object-like macro) fully expanded.
    pub(crate) fn invoke(
        &mut self,
        name: &str,
        args: Option<&str>,
    ) -> Result<String, ExpansionError> {
        let text = match args {
            Some(args) => format!("{name}({args})"),
            None => name.to_owned(),
        };
        self.expand(&text)
    }

    /// `text` with every macro expanded.
    pub(crate) fn expand(&mut self, text: &str) -> Result<String, ExpansionError> {
        let out = self.rescan(tokenize(text), &mut Vec::new(), 0)?;
        Ok(out.iter().map(Tok::text).collect())
    }

    fn budget(&mut self, more: usize) -> Result<(), ExpansionError> {
        self.produced = self.produced.saturating_add(more);
        if self.produced > MAX_EXPANSION_BYTES {
            return Err(ExpansionError(format!(
                "the macro expands to more than {} KiB: not read",
                MAX_EXPANSION_BYTES >> 10
            )));
        }
        Ok(())
    }

    fn rescan(
        &mut self,
        toks: Vec<Tok>,
        hidden: &mut Vec<String>,
        depth: usize,
    ) -> Result<Vec<Tok>, ExpansionError> {
        if depth > MAX_DEPTH {
            return Err(ExpansionError(format!(
                "macros nest deeper than {MAX_DEPTH} expansions: not read"
            )));
        }
        let mut out = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            let Tok::Ident(name) = &toks[i] else {
                out.push(toks[i].clone());
                i += 1;
                continue;
            };
            let Some(m) = self.macros.get(name).and_then(|d| d.first()) else {
                out.push(toks[i].clone());
                i += 1;
                continue;
            };
            if hidden.contains(name) {
                out.push(toks[i].clone());
                i += 1;
                continue;
            }
            let m = m.clone();
            let name = name.clone();
            match &m.params {
                None => {
                    self.budget(m.body.len())?;
                    hidden.push(name);
                    let expanded = self.rescan(tokenize(&m.body), hidden, depth + 1)?;
                    hidden.pop();
                    out.extend(expanded);
                    i += 1;
                }
                Some(params) => {
                    // A function-like macro's name not followed by `(` is not an invocation.
                    let mut j = i + 1;
                    while j < toks.len() && toks[j].text().trim().is_empty() {
                        j += 1;
                    }
                    if toks.get(j).map(Tok::text) != Some("(") {
                        out.push(toks[i].clone());
                        i += 1;
                        continue;
                    }
                    let mut depth_paren = 0i32;
                    let mut k = j;
                    let mut inner = String::new();
                    while k < toks.len() {
                        match toks[k].text() {
                            "(" => depth_paren += 1,
                            ")" => depth_paren -= 1,
                            _ => {}
                        }
                        if depth_paren == 0 {
                            break;
                        }
                        if k > j {
                            inner.push_str(toks[k].text());
                        }
                        k += 1;
                    }
                    if k >= toks.len() {
                        return Err(ExpansionError(format!("`{name}(` is not closed: not read")));
                    }
                    let args = split_args(&inner);
                    let body = self.substitute(&m, params, &args, hidden, depth)?;
                    self.budget(body.iter().map(|t| t.text().len()).sum())?;
                    hidden.push(name);
                    let expanded = self.rescan(body, hidden, depth + 1)?;
                    hidden.pop();
                    out.extend(expanded);
                    i = k + 1;
                }
            }
        }
        Ok(out)
    }

    /// The body with parameters replaced: by the argument as written after `#` (as a
    /// string) and next to `##`, else by the argument fully expanded.
    fn substitute(
        &mut self,
        m: &Macro,
        params: &[String],
        args: &[String],
        hidden: &mut Vec<String>,
        depth: usize,
    ) -> Result<Vec<Tok>, ExpansionError> {
        let variadic = params.last().is_some_and(|p| p == "...");
        let named = if variadic {
            &params[..params.len() - 1]
        } else {
            params
        };
        let arg_of = |name: &str| -> Option<String> {
            if name == "__VA_ARGS__" && variadic {
                return Some(args.get(named.len()..).unwrap_or(&[]).join(", "));
            }
            let at = named.iter().position(|p| p == name)?;
            Some(args.get(at).cloned().unwrap_or_default())
        };
        let body = tokenize(&m.body);
        let mut out: Vec<Tok> = Vec::new();
        let mut i = 0;
        while i < body.len() {
            let tok = &body[i];
            // `#param`: the argument as a string literal (`##` is handled below).
            if tok.text() == "#" && body.get(i + 1).map(Tok::text) != Some("#") {
                let mut j = i + 1;
                while j < body.len() && body[j].text() == " " {
                    j += 1;
                }
                if let Some(Tok::Ident(p)) = body.get(j)
                    && let Some(arg) = arg_of(p)
                {
                    out.push(Tok::Other(format!("{arg:?}")));
                    i = j + 1;
                    continue;
                }
            }
            if tok.text() == "#" && body.get(i + 1).map(Tok::text) == Some("#") {
                // Token pasting: drop the `##` and the spaces around it.
                while out.last().is_some_and(|t| t.text() == " ") {
                    out.pop();
                }
                let mut j = i + 2;
                while j < body.len() && body[j].text() == " " {
                    j += 1;
                }
                if let Some(next) = body.get(j) {
                    let piece = match next {
                        Tok::Ident(p) => arg_of(p).unwrap_or_else(|| p.clone()),
                        other => other.text().to_owned(),
                    };
                    let left = out.pop().map(|t| t.text().to_owned()).unwrap_or_default();
                    out.extend(tokenize(&format!("{left}{piece}")));
                }
                i = j + 1;
                continue;
            }
            match tok {
                Tok::Ident(p) => match arg_of(p) {
                    Some(arg) => {
                        let next_is_paste = body
                            .iter()
                            .skip(i + 1)
                            .find(|t| t.text() != " ")
                            .is_some_and(|t| t.text() == "#");
                        if next_is_paste {
                            out.extend(tokenize(&arg));
                        } else {
                            let expanded = self.rescan(tokenize(&arg), hidden, depth + 1)?;
                            out.extend(expanded);
                        }
                    }
                    None => out.push(tok.clone()),
                },
                Tok::Other(_) => out.push(tok.clone()),
            }
            i += 1;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defs(list: &[(&str, Option<&[&str]>, &str)]) -> HashMap<String, Vec<Macro>> {
        list.iter()
            .map(|(name, params, body)| {
                (
                    (*name).to_owned(),
                    vec![Macro {
                        params: params.map(|p| p.iter().map(|s| (*s).to_owned()).collect()),
                        body: (*body).to_owned(),
                    }],
                )
            })
            .collect()
    }

    #[test]
    fn expands_dispatch_macros_with_variadic_bodies() {
        let macros = defs(&[
            ("BLOCK", None, "(WARPS * 32)"),
            ("WARPS", None, "4"),
            (
                "DISPATCH",
                Some(&["D", "..."]),
                "switch (D) { case 64: { constexpr int kD = 64; __VA_ARGS__ } break; }",
            ),
        ]);
        let mut e = Expander::new(&macros);
        assert_eq!(
            e.expand("k<<<g, BLOCK>>>()").unwrap(),
            "k<<<g, (4 * 32)>>>()"
        );
        assert_eq!(
            e.invoke("DISPATCH", Some("hd, launch<kD>(a, b);")).unwrap(),
            "switch (hd) { case 64: { constexpr int kD = 64; launch<kD>(a, b); } break; }"
        );
    }

    #[test]
    fn recursion_is_hidden_and_nesting_bounded() {
        let macros = defs(&[("A", None, "A + 1"), ("F", Some(&["x"]), "F(x) * x")]);
        let mut e = Expander::new(&macros);
        assert_eq!(e.expand("A").unwrap(), "A + 1");
        assert_eq!(e.expand("F(2)").unwrap(), "F(2) * 2");
        // Doubling at each level: past the byte bound, an error rather than 2^40 bytes.
        let macros = defs(&[
            ("X0", None, "X1 X1"),
            ("X1", None, "X2 X2"),
            ("X2", None, "X3 X3"),
            ("X3", None, "X4 X4"),
            ("X4", None, "X5 X5"),
            ("X5", None, "X6 X6"),
            ("X6", None, "X7 X7"),
            ("X7", None, "X8 X8"),
            ("X8", None, "X9 X9"),
            (
                "X9",
                None,
                "Y0 Y0 Y0 Y0 Y0 Y0 Y0 Y0 Y0 Y0 Y0 Y0 Y0 Y0 Y0 Y0",
            ),
            (
                "Y0",
                None,
                "Y1 Y1 Y1 Y1 Y1 Y1 Y1 Y1 Y1 Y1 Y1 Y1 Y1 Y1 Y1 Y1",
            ),
            (
                "Y1",
                None,
                "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
            ),
        ]);
        let mut e = Expander::new(&macros);
        assert!(e.expand("X0").unwrap_err().0.contains("KiB"));
    }

    #[test]
    fn stringizing_and_pasting() {
        let macros = defs(&[
            ("NAME", Some(&["p", "t"]), "p ## _ ## t"),
            ("STR", Some(&["x"]), "#x"),
        ]);
        let mut e = Expander::new(&macros);
        assert_eq!(e.expand("NAME(softmax, f32)").unwrap(), "softmax_f32");
        assert_eq!(e.expand("STR(a + b)").unwrap(), "\"a + b\"");
    }

    #[test]
    fn arguments_split_at_top_level_commas_only() {
        assert_eq!(
            split_args("x, f(a, b), {1, 2}, k<T, 4>"),
            vec!["x", "f(a, b)", "{1, 2}", "k<T", "4>"]
        );
        assert_eq!(paren_list("M(a, (b)) rest", 1), Some(("a, (b)", 9)));
        assert_eq!(paren_list("M(a", 1), None);
    }
}
