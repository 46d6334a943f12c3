//! Limits on token trees, checked before anything recursive touches them.
//!
//! `syn` parses by recursive descent, and its syntax tree is dropped, cloned and printed
//! recursively: input nested deeply enough overflows the stack of the thread the proc
//! macro runs on, which kills rustc with SIGSEGV (a proc-macro stack overflow is not an
//! error the user can read). [`Limits::check`] walks a token stream with an explicit stack
//! (no recursion, constant stack whatever the input) and rejects, on the span of the
//! offending token:
//!
//! - groups (`(..)`, `[..]`, `{..}`) nested more than [`Limits::max_depth`] levels deep;
//! - more than [`Limits::max_tokens`] tokens (every token and group counts one);
//! - a chain of operators and groups whose estimated parser stack exceeds
//!   [`Limits::max_stack_bytes`]: a 100,000-term sum `1 + 1 + ...` is parsed in a loop, but
//!   its tree is 100,000 `Expr::Binary` deep, and cloning, printing or dropping it recurses;
//!   `- - - x`, `Option<Option<..>>`, `&&&T`, `|| || x` and `return return x` recurse in
//!   the parser itself.
//!
//! # The measurement
//!
//! Proc macros are compiled at opt-level 0 by default (also under `--release`: cargo's
//! `build-override` profile), and run on rustc's main thread, whose stack is 8 MiB. The
//! deepest input that `syn` 3.0.10 (debug build) parses, clones, prints and drops on a
//! thread with an 8 MiB stack, found by bisection (`8 MiB / depth` is the stack per level):
//!
//! | input, repeated N times | deepest N | stack per level |
//! | --- | --- | --- |
//! | `Option<` .. `u8` .. `>` (a type), `a::<` .. `>` | 190 | 44 KiB |
//! | `&` .. `u8` (a type), `*const ` .. `u8` | 294, 296 | 28 KiB |
//! | `[` .. `u8` .. `]`, `(` .. `u8` .. `,)` (types) | 312 | 27 KiB |
//! | `fn() -> ` .. `u8` (a type) | 258 | 32 KiB |
//! | `Box<dyn Fn() -> ` .. `u8` .. `>` (a type) | 104 | 79 KiB |
//! | `{` .. `1` .. `}` | 468 | 18 KiB |
//! | `[` .. `1` .. `]`, `(` .. `1` .. `)` | 692, 760 | 12, 11 KiB |
//! | `return ` / `break ` .. `1` | 1024, 912 | 9 KiB |
//! | `\|\| ` .. `1` (closures), `a = a = ..` | 632, 1296 | 13, 6.3 KiB |
//! | `- ` / `! ` .. `1`, `& ` .. `x` | 2528, 3744 | 3.2, 2.2 KiB |
//! | `1 + 1 + ..`, `1 as u32 as ..`, `a.b().b()..`, `f()()..`, `a??..`, `if a {} else if ..` (clone) | 2128-2240 | 3.9 KiB |
//! | the same, print / drop only | 7168-8576 / 65,024 | 1.0 KiB / 130 B |
//!
//! Under rustc, a debug proc macro that parses, clones and prints its input reaches 94% of
//! those depths (`(`: 720, `Option<`: 176, `- `: 2304, `1 + `: 2304): about 7.5 MiB is left
//! to a macro. `#[occupancy::check]` on a function whose body is 720 parentheses deep
//! already crashes in `syn::parse2::<ItemFn>`; `syn`'s token buffer alone recurses once per
//! group (12,416 groups on 8 MiB).
//!
//! The check charges each token the worst stack per level of the constructs it can open
//! ([`cost`]; a punctuation character after an operand is a binary or postfix operator,
//! before one a prefix; characters written joint are one operator only as far as they
//! spell one, so `n *****x` is one `*` and four prefixes), and sums the charges of the tokens before it in its expression
//! (since the last `;`, `,` outside `<..>`, `=>`, or block that ends a statement) at its
//! own level and at every enclosing level, plus [`GROUP`] per enclosing group: an upper
//! bound on what `syn` needs above it. [`STACK_BUDGET`] (3 MiB) leaves 60% of the macro's
//! 7.5 MiB to the rest of the expansion. It admits 64 nested groups, 69 nested generic
//! types, 105 nested references, a sum of 768 terms, a chain of 380 method calls (this
//! module's tests parse the deepest accepted input of each kind above on a 4 MiB thread),
//! and real code: of the 5,016 `.rs` files of this workspace and the 164 crates of its
//! dependency tree, none is over the budget, 13 are over 1 MiB, and the most is 2.8 MiB
//! (`typenum`'s generated `consts.rs`, types nested about 60 deep), then 2.4 MiB (`syn`'s
//! own nesting tests).

use proc_macro2::{Delimiter, Spacing, Span, TokenStream, TokenTree, token_stream};
use syn::Error;

/// Limits on one token stream; see the module's documentation for the measurement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    /// The deepest nesting of groups (parentheses, brackets, braces, invisible groups).
    pub(crate) max_depth: usize,
    /// The most tokens, each group counting one besides its contents.
    pub(crate) max_tokens: usize,
    /// The most estimated parser stack (bytes) above any token: see [`cost`].
    pub(crate) max_stack_bytes: usize,
}

/// The stack one level of the most expensive construct a token may open is charged, in a
/// debug build of `syn` 3.0.10 (module documentation).
const KIB: usize = 1024;

/// An enclosing group: 27 KiB per bracket or parenthesis of a type, measured.
pub(crate) const GROUP: usize = 28 * KIB;

/// The estimated parser stack [`Limits`] allow: 3 MiB, 40% of the 7.5 MiB a proc macro has
/// on rustc's main thread.
pub(crate) const STACK_BUDGET: usize = 3 * 1024 * KIB;

/// The longest number literal (integer or float, digits, underscores and suffix) any limit
/// admits. `syn` reads a number's digits into a big integer one digit at a time, in time
/// that grows with the square of the digits' count: a 100,000-digit literal took 28 s,
/// 200,000 digits 114 s. `u128::MAX` has 39 digits; a float written with 1,024 is far past
/// what `f64` keeps.
pub(crate) const MAX_NUMBER_CHARS: usize = 1024;

impl Limits {
    /// The arguments of `#[occupancy::check(...)]`, each argument checked on its own.
    /// Real ones have a few dozen tokens and three levels (`block = (TILE / 4, 8)`).
    pub(crate) const ATTRIBUTE: Limits = Limits {
        max_depth: 32,
        max_tokens: 4_096,
        max_stack_bytes: STACK_BUDGET,
    };

    /// A launch wrapper: its signature and body. Real ones have a few hundred tokens and
    /// rarely more than 20 levels.
    pub(crate) const BODY: Limits = Limits {
        max_depth: 64,
        max_tokens: 100_000,
        max_stack_bytes: STACK_BUDGET,
    };

    /// One source file of the crate (constants, helpers): 2 M tokens is a 10 MB file.
    pub(crate) const SOURCE_FILE: Limits = Limits {
        max_depth: 64,
        max_tokens: 2_000_000,
        max_stack_bytes: STACK_BUDGET,
    };

    /// `Ok` when `tokens` are within the limits; else an error on the first token past one,
    /// naming `what` ("the attribute", "the wrapper's body", a file's path).
    ///
    /// Iterative: the stack it uses does not depend on the input; its memory is one entry
    /// per open group.
    ///
    /// # Errors
    ///
    /// On the opening delimiter of the first group nested deeper than `max_depth`, the
    /// first token past `max_tokens`, the first token whose estimated stack exceeds
    /// `max_stack_bytes`, or the first number literal longer than [`MAX_NUMBER_CHARS`].
    pub(crate) fn check(&self, tokens: &TokenStream, what: &str) -> syn::Result<()> {
        let mut levels = vec![Level::new(tokens.clone().into_iter(), 0, 0)];
        let mut count = 0usize;
        while let Some(level) = levels.last_mut() {
            let Some(tree) = level.trees.next() else {
                levels.pop();
                continue;
            };
            count += 1;
            if count > self.max_tokens {
                return Err(Error::new(
                    tree.span(),
                    format!(
                        "{what} has more than {} tokens; the limit keeps the parser's time \
                         and memory bounded",
                        self.max_tokens
                    ),
                ));
            }
            if std::mem::take(&mut level.after_block) && !continues_expression(&tree) {
                level.end_expression();
            }
            let prev = level.prev.take();
            // `#[..]` and `#![..]` (doc comments too) are read in a loop: free.
            let attribute = std::mem::take(&mut level.attribute);
            let span = match &tree {
                TokenTree::Group(group) => {
                    // After an operand, a group is a call or an index (`f()()`, a chain);
                    // in operand position it costs only its nesting.
                    if level.operand && !(attribute && group.delimiter() == Delimiter::Bracket) {
                        level.run += OPERATOR;
                    }
                    level.operand = true;
                    let depth = level.depth + 1;
                    if depth > self.max_depth {
                        return Err(Error::new(
                            group.span_open(),
                            format!(
                                "{what} is nested more than {} levels deep; the limit keeps \
                                 the parser from overflowing its stack",
                                self.max_depth
                            ),
                        ));
                    }
                    level.after_block = group.delimiter() == Delimiter::Brace;
                    let base = level.base + level.run + GROUP;
                    levels.push(Level::new(group.stream().into_iter(), depth, base));
                    if base > self.max_stack_bytes {
                        return Err(self.too_complex(group.span_open(), what));
                    }
                    continue;
                }
                TokenTree::Punct(punct) => {
                    let ch = punct.as_char();
                    match ch {
                        ';' => level.end_expression(),
                        ',' if level.angle == 0 => level.end_expression(),
                        '>' if matches!(prev, Some(('=', Spacing::Joint, _))) => {
                            level.end_expression();
                        }
                        '#' => {
                            level.attribute = true;
                            level.prev = Some(('#', punct.spacing(), false));
                        }
                        '!' if attribute => level.attribute = true,
                        '\'' => level.prev = Some(('\'', punct.spacing(), false)),
                        _ => {
                            // The second character of `==`, `&&`, `..=`, `>>=`: of a real
                            // operator only (`n *****x` is `n * *(*(*(*x)))`, each `*` after
                            // the first a prefix, though written joint).
                            let rest_of_binary = matches!(prev, Some((_, Spacing::Joint, true)))
                                && (continues_operator(&level.joint, ch) || !is_prefix(ch));
                            if !rest_of_binary {
                                level.joint.clear();
                            }
                            level.joint.push(ch);
                            let binary = level.operand || rest_of_binary;
                            let mut closes = false;
                            level.run += match ch {
                                // Generic arguments after a name or comparison: charged
                                // as the former.
                                '<' => {
                                    level.angle += 1;
                                    cost(ch)
                                }
                                // `->`: the return type of `fn() -> fn() -> ..` nests,
                                // 32 KiB per level with the `-`.
                                '>' if matches!(prev, Some(('-', Spacing::Joint, _))) => ARROW,
                                // Closing `<..>`: charged at the `<`; a type follows.
                                '>' if level.angle > 0 => {
                                    level.angle -= 1;
                                    closes = true;
                                    0
                                }
                                _ if rest_of_binary => 0,
                                // Assignment is right-associative: parsed recursively.
                                '=' => cost(ch),
                                // After an operand: a binary or postfix operator (loop-parsed,
                                // one level of the tree each).
                                _ if level.operand => OPERATOR,
                                // Else a prefix: unary, reference, pointer, closure.
                                _ => cost(ch),
                            };
                            level.operand = closes || (level.operand && ch == '?');
                            level.prev = Some((ch, punct.spacing(), binary));
                        }
                    }
                    punct.span()
                }
                TokenTree::Ident(ident) => {
                    let name = ident.to_string();
                    level.run += keyword_cost(&name);
                    // A lifetime (`&'a &'a T`) or a keyword is not an operand.
                    level.operand = !matches!(prev, Some(('\'', ..)))
                        && !PREFIX_KEYWORDS.contains(&name.as_str());
                    ident.span()
                }
                TokenTree::Literal(literal) => {
                    level.operand = true;
                    let text = literal.to_string();
                    if text.len() > MAX_NUMBER_CHARS
                        && text.starts_with(|c: char| c.is_ascii_digit())
                    {
                        return Err(Error::new(
                            literal.span(),
                            format!(
                                "{what} has a number literal of {} characters; the limit \
                                 ({MAX_NUMBER_CHARS}) keeps the parser's time bounded",
                                text.len()
                            ),
                        ));
                    }
                    literal.span()
                }
            };
            if level.base + level.run > self.max_stack_bytes {
                return Err(self.too_complex(span, what));
            }
        }
        Ok(())
    }

    fn too_complex(&self, span: Span, what: &str) -> Error {
        Error::new(
            span,
            format!(
                "{what}: this expression or type chains too many operators and groups to \
                 parse safely (over {} MiB of estimated parser stack); split it, e.g. into \
                 `const` items",
                self.max_stack_bytes / (1024 * KIB)
            ),
        )
    }
}

/// One open group during [`Limits::check`].
struct Level {
    trees: token_stream::IntoIter,
    /// Groups around it.
    depth: usize,
    /// The stack charged to the enclosing levels and groups.
    base: usize,
    /// The stack charged to the tokens of the current expression at this level.
    run: usize,
    /// `<` not closed by a `>` in the current expression: a `,` inside `<..>` does not end
    /// it (`Result<A, Result<A, ..>>` nests).
    angle: usize,
    /// The previous token was a brace group: whether it ended a statement or item depends
    /// on the next token.
    after_block: bool,
    /// The previous token, when a punctuation character (for `=>`, `->`, `'a`), and
    /// whether it was (part of) a binary operator.
    prev: Option<(char, Spacing, bool)>,
    /// The previous token ended an operand: a punctuation character after it is a binary
    /// or postfix operator, a group after it a call or an index.
    operand: bool,
    /// The previous token was the `#` or `#!` of an attribute.
    attribute: bool,
    /// The characters of the binary operator being read (`>>` of `>>=`).
    joint: String,
}

/// Rust's operators of more than one character.
const MULTI_CHAR_OPERATORS: &[&str] = &[
    "==", "!=", "<=", ">=", "&&", "||", "+=", "-=", "*=", "/=", "%=", "^=", "&=", "|=", "<<", ">>",
    "<<=", ">>=", "..", "...", "..=", "->", "=>", "::",
];

/// Whether `ch` can begin a prefix operator (unary `*`, `!`, `-`, a reference, a closure's
/// `|`): after an operator it does not continue, it opens a level.
fn is_prefix(ch: char) -> bool {
    matches!(ch, '*' | '&' | '|' | '!' | '-')
}

/// Whether `ch` after the characters `so_far` of an operator continues it (`=` after `>>`).
fn continues_operator(so_far: &str, ch: char) -> bool {
    let mut op = String::with_capacity(so_far.len() + 1);
    op.push_str(so_far);
    op.push(ch);
    MULTI_CHAR_OPERATORS
        .iter()
        .any(|o| o.starts_with(op.as_str()))
}

impl Level {
    fn new(trees: token_stream::IntoIter, depth: usize, base: usize) -> Level {
        Level {
            trees,
            depth,
            base,
            run: 0,
            angle: 0,
            after_block: false,
            prev: None,
            operand: false,
            attribute: false,
            joint: String::new(),
        }
    }

    fn end_expression(&mut self) {
        self.run = 0;
        self.angle = 0;
        self.operand = false;
    }
}

/// A chain link: a binary operator, `.`, `?`, `as`, `else`, a group after an expression
/// (`f()()`): 3.9 KiB per level to clone a chain of them.
const OPERATOR: usize = 4 * KIB;

/// The `>` of `->`, with the `-` ([`OPERATOR`]) the 32 KiB per level of `fn() -> ..`.
const ARROW: usize = 28 * KIB;

/// The stack charged to a punctuation character: the worst it can open, measured.
fn cost(ch: char) -> usize {
    match ch {
        // Generic arguments (types) nest: 44 KiB per `Option<` or `::<`.
        '<' => 44 * KIB,
        // References and raw pointers in types: 28 KiB per level.
        '&' | '*' => 29 * KIB,
        // `||` closures (13 KiB per level), `a = a = ..` (right-associative, 6.3 KiB).
        '|' | '=' => 7 * KIB,
        // Paths (`a::b`: a flat list), attributes (a loop), lifetimes, macro variables and
        // the separators end or do not extend a chain.
        ':' | '#' | '\'' | '$' | ';' | ',' => 0,
        _ => OPERATOR,
    }
}

/// Keywords after which an operand or a type follows: what follows them is not a
/// binary operator (`&mut &mut T`, `*const *const T`, `dyn Fn() -> ..`).
const PREFIX_KEYWORDS: &[&str] = &[
    "return", "break", "yield", "become", "box", "as", "else", "mut", "const", "dyn", "impl",
    "move", "ref", "static", "in", "if", "match", "while", "for", "let", "unsafe", "async", "fn",
    "loop", "where", "pub", "type", "struct", "enum", "union", "trait", "use", "mod", "extern",
    "await",
];

/// The stack charged to an identifier: keywords that take an expression after them nest
/// (`return return x`: 9 KiB per level), `as` and `else` chain.
fn keyword_cost(ident: &str) -> usize {
    match ident {
        "return" | "break" | "yield" | "become" | "box" => 10 * KIB,
        "as" | "else" => OPERATOR,
        _ => 0,
    }
}

/// After a block `{..}`: whether `tree` continues the expression the block is part of
/// (`{..} + 1`, `{..}.f()`, `if .. {..} else`, `{..} as u32`) rather than starting the next
/// statement, item or match arm.
fn continues_expression(tree: &TokenTree) -> bool {
    match tree {
        TokenTree::Punct(p) => !matches!(p.as_char(), '#' | '\'' | '$'),
        TokenTree::Ident(i) => i == "else" || i == "as",
        TokenTree::Group(_) | TokenTree::Literal(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> TokenStream {
        text.parse().unwrap()
    }

    fn error(limits: Limits, text: &str) -> Option<String> {
        limits
            .check(&tokens(text), "the input")
            .err()
            .map(|e| e.to_string())
    }

    fn nested(open: &str, inner: &str, close: &str, n: usize) -> String {
        format!("{}{inner}{}", open.repeat(n), close.repeat(n))
    }

    /// A run of operator characters written joint is one operator only as far as it spells
    /// one: `n *****x` charges each `*` after the first as the prefix it is (a fuzz input of
    /// 700 `*` and 648 `|` in such runs passed the check and overflowed the 8 MiB stack of
    /// a debug build of the macro, where each was charged once per run).
    #[test]
    fn joint_runs_of_operators_are_charged_per_prefix() {
        let limits = Limits::SOURCE_FILE;
        let run = |op: &str, n: usize| format!("fn f() {{ n{} x }}", op.repeat(n));
        assert!(error(limits, &run("*", 700)).is_some());
        assert!(error(limits, &run("|", 700)).is_some());
        assert!(error(limits, &run("*||", 200)).is_some());
        // Real operators of two and three characters cost one operator each.
        for op in ["<<= 1", ">>= 2", "..= 3", "&& y", "|| y", "== y", "*= *y"] {
            let text = format!("fn f() {{ {} }}", vec![format!("x {op}"); 600].join("; "));
            assert!(error(limits, &text).is_none(), "{op}");
        }
    }

    #[test]
    fn real_attributes_and_bodies_pass() {
        for text in [
            "block = (16, 16), regs = 96, target = [\"sm_80\", \"H100\"], min_occupancy = 37.5%",
            "block = (TILE / 4, TILE / 4), smem = 2 * TILE * TILE * core::mem::size_of::<f32>() as u32",
            "let cfg = LaunchConfig { grid_dim: (n.div_ceil(TILE), m.div_ceil(TILE), 1), \
             block_dim: (TILE / 4, TILE / 4, 1), shared_mem_bytes: SMEM_BYTES }; \
             unsafe { stream.launch_builder(f).arg(&g.m).arg(&g.n).launch(cfg) }?; Ok(())",
        ] {
            assert_eq!(error(Limits::ATTRIBUTE, text), None, "{text}");
        }
    }

    #[test]
    fn number_literals_past_1024_characters_are_refused_and_strings_are_not() {
        let longest = "9".repeat(MAX_NUMBER_CHARS);
        for limits in [Limits::ATTRIBUTE, Limits::BODY, Limits::SOURCE_FILE] {
            assert_eq!(error(limits, &format!("block = {longest}")), None);
            assert_eq!(
                error(limits, &format!("let s = \"{}\";", "9".repeat(100_000))),
                None
            );
            for long in [
                format!("{longest}9"),
                format!("0x{}", "f".repeat(MAX_NUMBER_CHARS)),
                format!("1.{}e3f64", "0".repeat(MAX_NUMBER_CHARS)),
                "9".repeat(200_000),
            ] {
                let start = std::time::Instant::now();
                assert_eq!(
                    error(limits, &format!("block = -{long}")),
                    Some(format!(
                        "the input has a number literal of {} characters; the limit (1024) \
                         keeps the parser's time bounded",
                        long.len()
                    ))
                );
                // Refused before syn reads it (200,000 digits took syn 114 s).
                assert!(start.elapsed().as_secs() < 5);
            }
        }
        // What is admitted parses fast.
        let start = std::time::Instant::now();
        let _: syn::Expr = syn::parse_str(&longest).unwrap();
        assert!(start.elapsed().as_secs() < 5);
    }

    #[test]
    fn depth_is_an_error_on_the_first_group_too_deep() {
        let limits = Limits::ATTRIBUTE;
        assert_eq!(error(limits, &nested("(", "256", ")", 32)), None);
        let message = "the input is nested more than 32 levels deep; the limit keeps the parser \
                       from overflowing its stack";
        for n in [33, 1_000, 100_000] {
            for (open, close) in [("(", ")"), ("[", "]"), ("{", "}")] {
                assert_eq!(
                    error(limits, &nested(open, "256", close, n)).as_deref(),
                    Some(message),
                    "{n} {open}"
                );
            }
        }
        // The span is the 33rd opening parenthesis (column 32 of one line).
        let e = limits
            .check(&tokens(&nested("(", "1", ")", 1_000)), "x")
            .unwrap_err();
        assert_eq!(e.span().start().column, 32);
    }

    #[test]
    fn token_count() {
        let limits = Limits {
            max_tokens: 10,
            ..Limits::BODY
        };
        assert_eq!(error(limits, "a, b, c, d, e"), None); // 9 tokens
        assert_eq!(
            error(limits, "(a, b, c, d, e)").as_deref(),
            None,
            "10 tokens: the group and its 9"
        );
        assert_eq!(
            error(limits, "a, b, c, d, e, f").as_deref(),
            Some(
                "the input has more than 10 tokens; the limit keeps the parser's time and \
                 memory bounded"
            )
        );
    }

    #[test]
    fn long_chains_are_errors_on_the_token() {
        let too_complex = "the input: this expression or type chains too many operators and groups \
                           to parse safely (over 3 MiB of estimated parser stack); split it, e.g. \
                           into `const` items";
        for (what, text) in [
            ("100,000-term sum", format!("1{}", " + 1".repeat(99_999))),
            ("unary chain", format!("{}x", "- ".repeat(100_000))),
            ("generic type", nested("Option<", "u8", ">", 100)),
            ("nested Result", nested("Result<u8, ", "u8", ">", 100)),
            ("references", format!("{}u8", "&".repeat(200))),
            ("closures", format!("{}1", "|| ".repeat(300))),
            ("returns", format!("{}1", "return ".repeat(400))),
            ("casts", format!("1{}", " as u32".repeat(1_000))),
            ("method calls", format!("a{}", ".b()".repeat(1_000))),
            (
                "else if",
                format!("if a {{}}{}", " else if a {}".repeat(1_000)),
            ),
            ("blocks in a sum", format!("1{}", " + {1}".repeat(1_000))),
        ] {
            let found = error(Limits::BODY, &text);
            assert_eq!(found.as_deref(), Some(too_complex), "{what}");
        }
        // The error is on the token that crossed the budget: the 769th `+` of the sum.
        let sum = format!("1{}", " + 1".repeat(99_999));
        let e = Limits::BODY.check(&tokens(&sum), "x").unwrap_err();
        assert_eq!(e.span().start().column, 1 + 4 * 768 + 1);
    }

    #[test]
    fn statements_items_and_arms_end_a_chain() {
        let limits = Limits::SOURCE_FILE;
        for (what, text) in [
            ("statements", "let x = a + b * c - d;".repeat(10_000)),
            (
                "items",
                "#[inline] pub fn f(a: &u32) -> u32 { *a + 1 }".repeat(10_000),
            ),
            (
                "match arms",
                format!("match x {{ {} }}", "A => {} ".repeat(10_000)),
            ),
            (
                "block statements",
                format!("{{ {} }}", "if a < b { c() } ".repeat(10_000)),
            ),
            ("list elements", format!("[{}]", "- x, ".repeat(10_000))),
            (
                "generic lists",
                "HashMap<String, Vec<u32>>, ".repeat(10_000),
            ),
        ] {
            assert_eq!(error(limits, &text), None, "{what}");
        }
    }

    /// The deepest input of each measured kind that [`Limits::BODY`] accepts parses, clones,
    /// prints and drops on a 4 MiB stack (half of rustc's main thread) whatever the build's
    /// optimisation: the estimate is an upper bound.
    #[test]
    fn the_deepest_accepted_input_fits_the_stack() {
        type Make = fn(usize) -> String;
        let kinds: &[(&str, bool, Make)] = &[
            ("parentheses", false, |n| nested("(", "1", ")", n)),
            ("blocks", false, |n| nested("{", "1", "}", n)),
            ("array types", true, |n| nested("[", "u8", "; 1]", n)),
            ("tuple types", true, |n| nested("(", "u8", ",)", n)),
            ("generic types", true, |n| nested("Option<", "u8", ">", n)),
            ("turbofish", true, |n| nested("a::<", "u8", ">", n)),
            ("reference types", true, |n| format!("{}u8", "&".repeat(n))),
            ("pointer types", true, |n| {
                format!("{}u8", "*const ".repeat(n))
            }),
            ("fn types", true, |n| format!("{}u8", "fn() -> ".repeat(n))),
            ("dyn types", true, |n| {
                nested("Box<dyn Fn() -> ", "u8", ">", n)
            }),
            ("negations", false, |n| format!("{}1", "- ".repeat(n))),
            ("nots", false, |n| format!("{}1", "! ".repeat(n))),
            ("references", false, |n| format!("{}x", "& ".repeat(n))),
            ("returns", false, |n| format!("{}1", "return ".repeat(n))),
            ("closures", false, |n| format!("{}1", "|| ".repeat(n))),
            ("assignments", false, |n| format!("a{}", " = a".repeat(n))),
            ("sums", false, |n| format!("1{}", " + 1".repeat(n))),
            ("casts", false, |n| format!("1{}", " as u32".repeat(n))),
            ("method calls", false, |n| format!("a{}", ".b()".repeat(n))),
            ("calls", false, |n| format!("f{}", "()".repeat(n))),
            ("else if", false, |n| {
                format!("if a {{}}{}", " else if a {}".repeat(n))
            }),
        ];
        for &(what, is_type, make) in kinds {
            // The largest accepted n, by bisection (acceptance is monotonic in n).
            let accepted = |n: usize| Limits::BODY.check(&tokens(&make(n)), what).is_ok();
            let (mut lo, mut hi) = (1, 2);
            while accepted(hi) {
                (lo, hi) = (hi, hi * 2);
            }
            while hi - lo > 1 {
                let mid = (lo + hi) / 2;
                if accepted(mid) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            let text = make(lo);
            let parsed = std::thread::Builder::new()
                .stack_size(4 << 20)
                .spawn(move || {
                    let tokens = tokens(&text);
                    if is_type {
                        let ty: syn::Type = syn::parse2(tokens).map_err(|e| e.to_string())?;
                        drop(quote::ToTokens::to_token_stream(&ty.clone()));
                    } else {
                        let expr: syn::Expr = syn::parse2(tokens).map_err(|e| e.to_string())?;
                        drop(quote::ToTokens::to_token_stream(&expr.clone()));
                    }
                    Ok::<(), String>(())
                })
                .unwrap()
                .join()
                .unwrap();
            assert_eq!(parsed, Ok(()), "{what} at {lo}");
        }
    }
}
