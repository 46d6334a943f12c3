//! Which `#if` / `#ifdef` branches a build compiles, where the reader can tell.
//!
//! Without the build's `-D` macros ([`Build::defines`] `None`: the policy has no
//! `defines`), every branch is a configuration some build makes, and the reader reads
//! each, as before; only `__CUDA_ARCH__` is decided, in host code: nvcc's host pass never
//! defines it. With them, a condition is decided when every name it tests is known:
//!
//! - a macro the build defines (`-D NAME` is `1`, `-D NAME=VALUE` its value);
//! - a name that no file of the translation unit `#define`s, that the build does not
//!   define, and that no CUDA toolkit or compiler header could define (no leading
//!   underscore, no `CUDA`, `CUDART`, `CU_`, `CUB`, `THRUST`, `NV`, `CUTLASS`, `CUTE`,
//!   `CCCL` prefix): undefined (`0` in an `#if`, as the C preprocessor says);
//! - a macro the files define once, unconditionally or not, as an integer expression:
//!   its value (a name defined twice, `#if` alternatives, is not decided);
//! - `__CUDA_ARCH__` in host code: undefined.
//! - `__CUDA_ARCH_LIST__`: defined, in host and device code (nvcc defines it since CUDA
//!   11.5: the architectures it compiles); its value is each target's
//!   ([`crate::device::arch_list`]), so an `#if` on it is not decided.
//!
//! Anything else (`__CUDACC_VER_MAJOR__`, a function-like macro) leaves the condition
//! undecided, and every branch is read.

use std::collections::HashMap;

/// The build's preprocessor configuration, as the policy declares it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Build {
    /// `-D` macros, name to value; `None`: not declared (every branch is read).
    pub(crate) defines: Option<HashMap<String, String>>,
}

impl Build {
    /// From the policy's `defines` (`NAME` or `NAME=VALUE` each).
    pub(crate) fn from_defines(defines: Option<&[String]>) -> Build {
        Build {
            defines: defines.map(|list| {
                list.iter()
                    .map(|d| match d.split_once('=') {
                        Some((n, v)) => (n.trim().to_owned(), v.trim().to_owned()),
                        None => (d.trim().to_owned(), "1".to_owned()),
                    })
                    .collect()
            }),
        }
    }
}

/// Decides conditions for one translation unit: the build, and the `#define`s its files
/// make (every one, in any branch).
pub(crate) struct Decider<'b> {
    build: &'b Build,
    /// Object-like macro bodies by name, each `#define` (several: alternatives); a
    /// function-like macro or one `#undef`ined has an empty list entry marked `None`.
    file_defines: HashMap<String, Vec<Option<String>>>,
}

/// The deepest macro-in-macro evaluation.
const MAX_DEPTH: usize = 16;

impl<'b> Decider<'b> {
    /// Scans `texts` (the unit's files) for their `#define` and `#undef` lines.
    pub(crate) fn new<'x>(build: &'b Build, texts: impl IntoIterator<Item = &'x str>) -> Self {
        let mut file_defines: HashMap<String, Vec<Option<String>>> = HashMap::new();
        for text in texts {
            let mut lines = text.lines();
            while let Some(line) = lines.next() {
                let t = line.trim_start();
                let Some(rest) = t.strip_prefix('#') else {
                    continue;
                };
                let rest = rest.trim_start();
                let (undef, rest) = if let Some(r) = rest.strip_prefix("define") {
                    (false, r)
                } else if let Some(r) = rest.strip_prefix("undef") {
                    (true, r)
                } else {
                    continue;
                };
                if !rest.starts_with([' ', '\t']) {
                    continue;
                }
                let rest = rest.trim_start();
                let end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                let name = &rest[..end];
                if name.is_empty() {
                    continue;
                }
                let after = &rest[end..];
                let mut body = after.to_owned();
                let continued = line.trim_end().ends_with('\\');
                if continued {
                    // Skip the continuation lines: such a body is not a value here.
                    for l in lines.by_ref() {
                        if !l.trim_end().ends_with('\\') {
                            break;
                        }
                    }
                }
                let value = if undef || after.starts_with('(') || continued {
                    None
                } else {
                    body = strip_line_comment(&body);
                    Some(body.trim().to_owned())
                };
                file_defines.entry(name.to_owned()).or_default().push(value);
            }
        }
        Decider {
            build,
            file_defines,
        }
    }

    /// A branch's condition decided: `kind` is the directive (`#if`, `#ifdef`, `#ifndef`,
    /// `#elif`, `#elifdef`, `#elifndef`), `condition` its text; `host`: the code is host
    /// code (`__CUDA_ARCH__` undefined). `None`: not decided.
    pub(crate) fn decide(&self, kind: &str, condition: &str, host: bool) -> Option<bool> {
        let name = condition.trim();
        match kind.trim() {
            "#ifdef" | "#elifdef" => self.defined(name, host),
            "#ifndef" | "#elifndef" => self.defined(name, host).map(|d| !d),
            "#if" | "#elif" => {
                let tokens = tokenize(condition)?;
                let mut p = Parser {
                    d: self,
                    tokens: &tokens,
                    at: 0,
                    host,
                    depth: 0,
                };
                let v = p.ternary()?;
                (p.at == tokens.len()).then_some(v != 0)
            }
            _ => None,
        }
    }

    fn defined(&self, name: &str, host: bool) -> Option<bool> {
        if name == "__CUDA_ARCH__" && host {
            return Some(false);
        }
        if name == "__CUDA_ARCH_LIST__" {
            return Some(true);
        }
        let build = self.build.defines.as_ref()?;
        if build.contains_key(name) {
            return Some(true);
        }
        if self.file_defines.contains_key(name) || maybe_toolkit(name) {
            return None;
        }
        Some(false)
    }

    fn value(&self, name: &str, host: bool, depth: usize) -> Option<i128> {
        if depth > MAX_DEPTH {
            return None;
        }
        if name == "__CUDA_ARCH__" && host {
            return Some(0);
        }
        if name == "true" {
            return Some(1);
        }
        if name == "false" {
            return Some(0);
        }
        let build = self.build.defines.as_ref()?;
        if let Some(v) = build.get(name) {
            return self.eval_text(v, host, depth + 1);
        }
        match self.file_defines.get(name) {
            Some(defs) => match defs.as_slice() {
                [Some(body)] => self.eval_text(body, host, depth + 1),
                _ => None,
            },
            None if maybe_toolkit(name) => None,
            None => Some(0),
        }
    }

    fn eval_text(&self, text: &str, host: bool, depth: usize) -> Option<i128> {
        let tokens = tokenize(text)?;
        let mut p = Parser {
            d: self,
            tokens: &tokens,
            at: 0,
            host,
            depth,
        };
        let v = p.ternary()?;
        (p.at == tokens.len()).then_some(v)
    }
}

/// A name a header outside the crate may define: the compiler's and the toolkit's.
fn maybe_toolkit(name: &str) -> bool {
    name.starts_with('_')
        || [
            "CUDA",
            "CUDART",
            "CU_",
            "CUB",
            "THRUST",
            "NV",
            "CUTLASS",
            "CUTE",
            "CCCL",
            "LIBCUDACXX",
        ]
        .iter()
        .any(|p| name.starts_with(p))
}

fn strip_line_comment(s: &str) -> String {
    let s = match s.find("//") {
        Some(i) => &s[..i],
        None => s,
    };
    match (s.find("/*"), s.find("*/")) {
        (Some(a), Some(b)) if b > a => format!("{}{}", &s[..a], &s[b + 2..]),
        _ => s.to_owned(),
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(i128),
    Ident(String),
    Op(&'static str),
}

const OPS: [&str; 24] = [
    "||", "&&", "==", "!=", "<=", ">=", "<<", ">>", "<", ">", "+", "-", "*", "/", "%", "!", "~",
    "&", "|", "^", "(", ")", "?", ":",
];

fn tokenize(text: &str) -> Option<Vec<Tok>> {
    let text = strip_line_comment(text);
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < b.len() && (b[i] as char).is_ascii_alphanumeric() {
                i += 1;
            }
            let lit = text[start..i].trim_end_matches(['u', 'U', 'l', 'L']);
            let v = if let Some(h) = lit.strip_prefix("0x").or_else(|| lit.strip_prefix("0X")) {
                i128::from_str_radix(h, 16).ok()?
            } else if lit.len() > 1 && lit.starts_with('0') {
                i128::from_str_radix(&lit[1..], 8).ok()?
            } else {
                lit.parse().ok()?
            };
            out.push(Tok::Num(v));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < b.len() && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Ident(text[start..i].to_owned()));
        } else {
            let op = OPS.iter().find(|op| text[i..].starts_with(**op))?;
            out.push(Tok::Op(op));
            i += op.len();
        }
        if out.len() > 512 {
            return None;
        }
    }
    Some(out)
}

struct Parser<'p, 'd> {
    d: &'p Decider<'d>,
    tokens: &'p [Tok],
    at: usize,
    host: bool,
    depth: usize,
}

impl Parser<'_, '_> {
    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.at)
    }

    fn eat(&mut self, op: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Op(o)) if *o == op) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn ternary(&mut self) -> Option<i128> {
        let c = self.binary(0)?;
        if self.eat("?") {
            let a = self.ternary()?;
            if !self.eat(":") {
                return None;
            }
            let b = self.ternary()?;
            return Some(if c != 0 { a } else { b });
        }
        Some(c)
    }

    /// Binary operators by precedence level, loosest first.
    fn binary(&mut self, level: usize) -> Option<i128> {
        const LEVELS: [&[&str]; 10] = [
            &["||"],
            &["&&"],
            &["|"],
            &["^"],
            &["&"],
            &["==", "!="],
            &["<", ">", "<=", ">="],
            &["<<", ">>"],
            &["+", "-"],
            &["*", "/", "%"],
        ];
        if level == LEVELS.len() {
            return self.unary();
        }
        // `a || b` with `a` true (or `a && b` with `a` false) is decided whatever `b` is.
        let mut lhs = self.binary(level + 1);
        loop {
            let Some(Tok::Op(op)) = self.peek().cloned() else {
                return lhs;
            };
            if !LEVELS[level].contains(&op) {
                return lhs;
            }
            self.at += 1;
            let rhs = self.binary(level + 1);
            lhs = match (op, lhs, rhs) {
                ("||", Some(a), _) if a != 0 => Some(1),
                ("||", _, Some(b)) if b != 0 => Some(1),
                ("&&", Some(0), _) | ("&&", _, Some(0)) => Some(0),
                (_, Some(a), Some(b)) => apply(op, a, b),
                _ => None,
            };
        }
    }

    fn unary(&mut self) -> Option<i128> {
        if self.depth > MAX_DEPTH {
            return None;
        }
        self.depth += 1;
        let v = self.unary_inner();
        self.depth -= 1;
        v
    }

    fn unary_inner(&mut self) -> Option<i128> {
        let tok = self.peek().cloned();
        self.at += 1;
        match tok? {
            Tok::Num(n) => Some(n),
            Tok::Op("!") => self.unary().map(|v| i128::from(v == 0)),
            Tok::Op("-") => self.unary().map(|v| -v),
            Tok::Op("+") => self.unary(),
            Tok::Op("~") => self.unary().map(|v| !v),
            Tok::Op("(") => {
                let v = self.ternary();
                if !self.eat(")") {
                    return None;
                }
                v
            }
            Tok::Ident(name) if name == "defined" => {
                let paren = self.eat("(");
                let Some(Tok::Ident(n)) = self.peek().cloned() else {
                    return None;
                };
                self.at += 1;
                if paren && !self.eat(")") {
                    return None;
                }
                self.d.defined(&n, self.host).map(i128::from)
            }
            Tok::Ident(name) => {
                // A function-like macro's use is not evaluated.
                if self.peek() == Some(&Tok::Op("(")) {
                    return None;
                }
                self.d.value(&name, self.host, self.depth)
            }
            Tok::Op(_) => None,
        }
    }
}

fn apply(op: &str, a: i128, b: i128) -> Option<i128> {
    Some(match op {
        "||" => i128::from(a != 0 || b != 0),
        "&&" => i128::from(a != 0 && b != 0),
        "|" => a | b,
        "^" => a ^ b,
        "&" => a & b,
        "==" => i128::from(a == b),
        "!=" => i128::from(a != b),
        "<" => i128::from(a < b),
        ">" => i128::from(a > b),
        "<=" => i128::from(a <= b),
        ">=" => i128::from(a >= b),
        "<<" => a.checked_shl(u32::try_from(b).ok()?)?,
        ">>" => a.checked_shr(u32::try_from(b).ok()?)?,
        "+" => a.checked_add(b)?,
        "-" => a.checked_sub(b)?,
        "*" => a.checked_mul(b)?,
        "/" => a.checked_div(b)?,
        "%" => a.checked_rem(b)?,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decider<'b>(build: &'b Build, text: &str) -> Decider<'b> {
        Decider::new(build, [text])
    }

    const FILES: &str = "#define TILE 128\n#ifdef WIDE\n#define QK 64\n#else\n#define QK 256\n#endif\n#define PAIR(a, b) a\n#define GUARD_H\n";

    #[test]
    fn without_the_builds_defines_only_the_host_pass_is_decided() {
        let build = Build::default();
        let d = decider(&build, FILES);
        assert_eq!(d.decide("#ifdef", "WIDE", true), None);
        assert_eq!(d.decide("#if", "TILE == 128", true), None);
        assert_eq!(d.decide("#ifdef", "__CUDA_ARCH__", true), Some(false));
        assert_eq!(d.decide("#if", "__CUDA_ARCH__ >= 800", true), Some(false));
        assert_eq!(d.decide("#if", "__CUDA_ARCH__ >= 800", false), None);
        assert_eq!(
            d.decide(
                "#if",
                "!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800",
                true
            ),
            Some(true)
        );
        // nvcc defines the list of architectures in every pass; its value is per target.
        assert_eq!(d.decide("#ifdef", "__CUDA_ARCH_LIST__", true), Some(true));
        assert_eq!(
            d.decide("#ifndef", "__CUDA_ARCH_LIST__", false),
            Some(false)
        );
        assert_eq!(d.decide("#if", "__CUDA_ARCH_LIST__ > 0", true), None);
    }

    #[test]
    fn with_the_builds_defines_names_nobody_defines_are_undefined() {
        let build = Build::from_defines(Some(&["ENABLE_FP8".to_owned(), "LEVEL=3".to_owned()]));
        let d = decider(&build, FILES);
        assert_eq!(d.decide("#ifdef", "WIDE", true), Some(false));
        assert_eq!(d.decide("#ifndef", "WIDE", true), Some(true));
        assert_eq!(d.decide("#ifdef", "ENABLE_FP8", true), Some(true));
        assert_eq!(d.decide("#if", "LEVEL", true), Some(true));
        assert_eq!(d.decide("#if", "TILE", true), Some(true));
        assert_eq!(d.decide("#if", "LEVEL > 2", true), Some(true));
        assert_eq!(
            d.decide("#if", "LEVEL > 2 && TILE == 128", true),
            Some(true)
        );
        assert_eq!(d.decide("#if", "defined(USE_ROCM)", true), Some(false));
        assert_eq!(d.decide("#if", "UNSET_FLAG", true), Some(false));
        // Defined twice in the files (alternatives), or by a toolkit header: not decided.
        assert_eq!(d.decide("#if", "QK == 256", true), None);
        assert_eq!(d.decide("#ifdef", "GUARD_H", true), None);
        assert_eq!(d.decide("#if", "CUDART_VERSION >= 12000", true), None);
        assert_eq!(d.decide("#ifdef", "__CUDACC_RTC__", true), None);
        // Short-circuits decide what the other side leaves open.
        assert_eq!(
            d.decide("#if", "defined(WIDE) && CUDART_VERSION", true),
            Some(false)
        );
        assert_eq!(d.decide("#if", "LEVEL || CUDART_VERSION", true), Some(true));
        // A function-like macro's use, a malformed condition: not decided.
        assert_eq!(d.decide("#if", "PAIR(1, 0)", true), None);
        assert_eq!(d.decide("#if", "(1", true), None);
        assert_eq!(d.decide("#if", "1 +", true), None);
        assert_eq!(
            d.decide("#if", "0x10 == 16 && 010 == 8 && 2u == 2", true),
            Some(true)
        );
        assert_eq!(d.decide("#if", "1 ? 2 : 0", true), Some(true));
        assert_eq!(d.decide("#if", "1 << 200", true), None);
        assert_eq!(d.decide("#if", "1 / 0", true), None);
    }
}
