//! The string constants a `macro_rules!` writes into the impls it makes, per invocation:
//! dfdx's `cuda_unary!(AbsKernelOp, f32, PTX, "abs_fwd_f32", "abs_bwd_f32")` expands to an
//! impl with `const FWD_FN_NAME: &'static str = $Fwd;`, so `K::FWD_FN_NAME` is
//! `abs_fwd_f32` for that `K` (and `concat!("u", $name)` of candle's `unary_op!`, with
//! `stringify!` of an identifier). A small matcher of the macro's rules, enough for rules whose
//! comma-separated parts are literal tokens followed by at most one metavariable. Rules are
//! tried in order as rustc does; at the first rule the matcher cannot read (a repetition
//! `$(..)*`, a fragment it does not know), or when none matches, the invocation gives nothing (never a guess).

use proc_macro2::{Delimiter, TokenStream, TokenTree};

/// The most rules of one macro read, and the most tokens of one rule or invocation.
const MAX_RULES: usize = 32;
const MAX_TOKENS: usize = 4096;

/// One rule: its matcher and its transcriber.
pub(super) struct Rule {
    matcher: Vec<TokenTree>,
    transcriber: TokenStream,
}

/// The rules of `macro_rules! name { (..) => { .. }; .. }`, from its body's tokens.
pub(super) fn rules(body: &TokenStream) -> Vec<Rule> {
    let trees: Vec<TokenTree> = body.clone().into_iter().take(MAX_TOKENS).collect();
    let mut out = Vec::new();
    let mut i = 0;
    // `(matcher) => {transcriber}` separated by `;`.
    while out.len() < MAX_RULES {
        let (Some(TokenTree::Group(m)), Some(TokenTree::Punct(eq)), Some(TokenTree::Punct(gt))) =
            (trees.get(i), trees.get(i + 1), trees.get(i + 2))
        else {
            break;
        };
        let Some(TokenTree::Group(t)) = trees.get(i + 3) else {
            break;
        };
        if eq.as_char() != '=' || gt.as_char() != '>' {
            break;
        }
        out.push(Rule {
            matcher: m.stream().into_iter().take(MAX_TOKENS).collect(),
            transcriber: t.stream(),
        });
        i += 4;
        if matches!(trees.get(i), Some(TokenTree::Punct(p)) if p.as_char() == ';') {
            i += 1;
        }
    }
    out
}

/// A string constant an expansion defines: the trait of the impl it is in (the last name of
/// its path), its name, its value.
pub(super) type StringConst = (Option<String>, String, String);

/// The string constants the first rule that matches `input` writes as
/// `const NAME: .. = $var;` with `$var` bound to a string literal.
pub(super) fn string_consts(rules: &[Rule], input: &TokenStream) -> Vec<StringConst> {
    let input: Vec<TokenTree> = input.clone().into_iter().take(MAX_TOKENS).collect();
    for rule in rules {
        match bind(&rule.matcher, &input) {
            Bound::Yes(bindings) => {
                let mut out = Vec::new();
                consts_in(&rule.transcriber, &bindings, None, &mut out, 0);
                return out;
            }
            Bound::No => {}
            Bound::Unread => return Vec::new(),
        }
    }
    Vec::new()
}

/// Whether a rule matches an invocation.
enum Bound {
    /// Yes, with these metavariables.
    Yes(Vec<(String, Vec<TokenTree>)>),
    /// No: rustc tries the next rule.
    No,
    /// Not a rule the matcher reads: whether rustc takes it is not known.
    Unread,
}

/// The trait `impl` at `trees[0]` implements: `impl<T> a::Trait<$T> for X` is `Trait`;
/// `None` for an inherent impl.
fn impl_trait(trees: &[TokenTree]) -> Option<String> {
    let mut i = 1;
    // The impl's own generics.
    if matches!(trees.get(i), Some(TokenTree::Punct(p)) if p.as_char() == '<') {
        let mut depth = 0;
        while let Some(t) = trees.get(i) {
            if let TokenTree::Punct(p) = t {
                match p.as_char() {
                    '<' => depth += 1,
                    '>' => depth -= 1,
                    _ => {}
                }
            }
            i += 1;
            if depth == 0 {
                break;
            }
        }
    }
    let mut last = None;
    for t in &trees[i.min(trees.len())..] {
        match t {
            TokenTree::Ident(x) if x == "for" => return last,
            TokenTree::Ident(x) => last = Some(x.to_string()),
            // `$crate::ops::Unary`.
            TokenTree::Punct(p) if p.as_char() == ':' || p.as_char() == '$' => {}
            TokenTree::Punct(p) if p.as_char() == '<' => {
                // The trait's arguments: the name before them is the trait's.
                return trees[i..]
                    .iter()
                    .any(|t| matches!(t, TokenTree::Ident(x) if x == "for"))
                    .then_some(last)
                    .flatten();
            }
            _ => return None,
        }
    }
    None
}

/// Splits at the commas outside groups and `<..>` (`Pair<f32, f64>` is one part; the `>`
/// of `->` and `=>` closes nothing).
fn parts(trees: &[TokenTree]) -> Vec<&[TokenTree]> {
    let mut out = Vec::new();
    let (mut start, mut depth) = (0, 0usize);
    for (i, t) in trees.iter().enumerate() {
        let TokenTree::Punct(p) = t else { continue };
        let arrow = i > 0
            && matches!(&trees[i - 1], TokenTree::Punct(q)
                if q.spacing() == proc_macro2::Spacing::Joint && matches!(q.as_char(), '-' | '='));
        match p.as_char() {
            '<' => depth += 1,
            '>' if !arrow => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(&trees[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&trees[start..]);
    out
}

/// The metavariables `matcher` binds in `input`.
fn bind(matcher: &[TokenTree], input: &[TokenTree]) -> Bound {
    let (want, got) = (parts(matcher), parts(input));
    let mut bindings = Vec::new();
    let mut matched = want.len() == got.len();
    for (i, w) in want.iter().enumerate() {
        // Literal tokens, then `$name:fragment` or nothing.
        let var = w
            .iter()
            .position(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == '$'));
        let literal = &w[..var.unwrap_or(w.len())];
        let frag = match var.map(|v| &w[v..]) {
            None => None,
            Some(
                [
                    _,
                    TokenTree::Ident(name),
                    TokenTree::Punct(colon),
                    TokenTree::Ident(frag),
                ],
            ) if colon.as_char() == ':' && KNOWN.contains(&frag.to_string().as_str()) => {
                Some((name.to_string(), frag.to_string()))
            }
            _ => return Bound::Unread,
        };
        let Some(g) = got.get(i).filter(|_| matched) else {
            continue;
        };
        if g.len() < literal.len()
            || literal
                .iter()
                .zip(g.iter())
                .any(|(a, b)| a.to_string() != b.to_string())
        {
            matched = false;
            continue;
        }
        let rest = &g[literal.len()..];
        match frag {
            None if rest.is_empty() => {}
            Some((name, frag)) if fits(&frag, rest) => bindings.push((name, rest.to_vec())),
            _ => matched = false,
        }
    }
    if matched {
        Bound::Yes(bindings)
    } else {
        Bound::No
    }
}

/// The fragments [`fits`] tells apart.
const KNOWN: &[&str] = &["tt", "literal", "ident", "path", "ty", "expr"];

/// Whether `tokens` can be a fragment of kind `frag`, read strictly (what this says no to
/// rustc may take, never the other way round for `tt`, `literal`, `ident` and `path`): a
/// `path` is names, `::` and generic arguments only, a `ty` has no call-like `name(..)` or
/// leading literal.
fn fits(frag: &str, tokens: &[TokenTree]) -> bool {
    match frag {
        "tt" => tokens.len() == 1,
        "literal" => matches!(tokens, [TokenTree::Literal(_)]),
        "ident" => matches!(tokens, [TokenTree::Ident(_)]),
        "path" => {
            matches!(
                tokens.first(),
                Some(TokenTree::Ident(_) | TokenTree::Punct(_))
            ) && tokens.iter().all(|t| match t {
                TokenTree::Ident(_) => true,
                TokenTree::Punct(p) => matches!(p.as_char(), ':' | '<' | '>' | ','),
                _ => false,
            })
        }
        "ty" => {
            !matches!(tokens.first(), None | Some(TokenTree::Literal(_)))
                && !tokens.windows(2).any(|w| {
                    matches!(&w[1], TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis)
                        && matches!(&w[0], TokenTree::Ident(_))
                })
        }
        _ => !tokens.is_empty(),
    }
}

/// `const NAME: .. = $var;` in `tokens` (and its groups) with `$var` bound to one string
/// literal.
fn consts_in(
    tokens: &TokenStream,
    bindings: &[(String, Vec<TokenTree>)],
    in_trait: Option<&str>,
    out: &mut Vec<StringConst>,
    depth: usize,
) {
    if depth > 8 {
        return;
    }
    let trees: Vec<TokenTree> = tokens.clone().into_iter().take(MAX_TOKENS).collect();
    // The trait of the last `impl` met: its body is the next brace group.
    let mut pending: Option<Option<String>> = None;
    for (i, t) in trees.iter().enumerate() {
        match t {
            TokenTree::Ident(kw) if kw == "impl" => pending = Some(impl_trait(&trees[i..])),
            TokenTree::Ident(kw) if kw == "const" => {
                let Some(TokenTree::Ident(name)) = trees.get(i + 1) else {
                    continue;
                };
                // The value: the tokens between the `=` and the `;`.
                let Some(eq) = trees[i..]
                    .iter()
                    .position(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == '='))
                else {
                    continue;
                };
                let value = &trees[i + eq + 1..];
                let end = value
                    .iter()
                    .position(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ';'))
                    .unwrap_or(value.len());
                if let Some(value) = string_value(&value[..end], bindings, 0) {
                    out.push((in_trait.map(str::to_owned), name.to_string(), value));
                }
            }
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace && pending.is_some() => {
                let tr = pending.take().flatten();
                consts_in(&g.stream(), bindings, tr.as_deref(), out, depth + 1)
            }
            TokenTree::Group(g) => consts_in(&g.stream(), bindings, in_trait, out, depth + 1),
            _ => {}
        }
    }
}

/// The string `tokens` make once expanded: a string literal, `$var` bound to one,
/// `stringify!($var)` (the tokens bound, as rustc prints an identifier or a literal), or
/// `concat!(..)` of those; `None` for anything else.
fn string_value(
    tokens: &[TokenTree],
    bindings: &[(String, Vec<TokenTree>)],
    depth: usize,
) -> Option<String> {
    let bound = |var: &proc_macro2::Ident| {
        bindings
            .iter()
            .find(|(n, _)| var == n)
            .map(|(_, v)| v.as_slice())
    };
    let literal = |lit: &proc_macro2::Literal| match syn::parse_str::<syn::Lit>(&lit.to_string()) {
        Ok(syn::Lit::Str(s)) => Some(s.value()),
        _ => None,
    };
    match tokens {
        [TokenTree::Literal(lit)] => literal(lit),
        [TokenTree::Punct(dollar), TokenTree::Ident(var)] if dollar.as_char() == '$' => {
            match bound(var)? {
                [TokenTree::Literal(lit)] => literal(lit),
                _ => None,
            }
        }
        [
            TokenTree::Ident(mac),
            TokenTree::Punct(bang),
            TokenTree::Group(g),
        ] if bang.as_char() == '!' && g.delimiter() == Delimiter::Parenthesis && depth < 4 => {
            let inner: Vec<TokenTree> = g.stream().into_iter().take(MAX_TOKENS).collect();
            if mac == "stringify" {
                // One identifier or one literal, as written (a longer run of tokens is
                // printed with spacing rustc chooses: not read).
                return match inner.as_slice() {
                    [TokenTree::Punct(dollar), TokenTree::Ident(var)]
                        if dollar.as_char() == '$' =>
                    {
                        match bound(var)? {
                            [TokenTree::Ident(i)] => Some(i.to_string()),
                            _ => None,
                        }
                    }
                    [TokenTree::Ident(i)] => Some(i.to_string()),
                    _ => None,
                };
            }
            if mac != "concat" {
                return None;
            }
            let mut out = String::new();
            for part in parts(&inner).into_iter().filter(|p| !p.is_empty()) {
                out.push_str(&string_value(part, bindings, depth + 1)?);
            }
            Some(out)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn consts(definition: &str, invocation: &str) -> Vec<StringConst> {
        let rules = rules(&definition.parse().unwrap());
        string_consts(&rules, &invocation.parse().unwrap())
    }

    const UNARY: &str = r#"
        ($Op:path, $T:ty, $Fwd:tt, $Bwd:tt) => {
            impl Kernel<$T> for $Op { const FWD: &'static str = $Fwd; const BWD: &'static str = $Bwd; }
        };
        (df(f(x)) $Op:path, $T:ty, $Fwd:tt, $Bwd:tt) => {
            impl Kernel<$T> for $Op { const USES_FX: bool = true; const FWD: &'static str = $Fwd; const BWD: &'static str = $Bwd; }
        };
    "#;

    #[test]
    fn each_invocation_gives_its_rules_constants() {
        let pairs = |v: &[(&str, &str)]| -> Vec<StringConst> {
            v.iter()
                .map(|(a, b)| (Some("Kernel".to_owned()), a.to_string(), b.to_string()))
                .collect()
        };
        assert_eq!(
            consts(UNARY, r#"AbsOp, f32, "abs_fwd_f32", "abs_bwd_f32""#),
            pairs(&[("FWD", "abs_fwd_f32"), ("BWD", "abs_bwd_f32")])
        );
        // The second rule (the first cannot take `df(f(x)) ReluOp` as a path).
        assert_eq!(
            consts(
                UNARY,
                r#"df(f(x)) ReluOp, f64, "relu_fwd_f64", "relu_bwd_f64""#
            ),
            pairs(&[("FWD", "relu_fwd_f64"), ("BWD", "relu_bwd_f64")])
        );
        // No rule matches: nothing.
        assert!(consts(UNARY, r#"AbsOp, f32, "abs_fwd_f32""#).is_empty());
        // A value that is not a string literal: not a string constant.
        assert!(
            consts(UNARY, r#"AbsOp, f32, NAME, "b""#)
                .iter()
                .all(|(_, c, _)| c != "FWD")
        );
        // `concat!` of literals, metavariables and `stringify!` of an identifier.
        let made = consts(
            "($op:ident, $name:literal, $id:ident) => { impl Unary for $op { const K: &str = concat!(\"u\", $name); const B: &str = concat!(\"b\", stringify!($id), \"_x\"); const S: &str = stringify!($id); } };",
            r#"Exp, "exp", expo"#,
        );
        let unary = |c: &str, v: &str| (Some("Unary".to_owned()), c.to_owned(), v.to_owned());
        assert_eq!(
            made,
            [
                unary("K", "uexp"),
                unary("B", "bexpo_x"),
                unary("S", "expo")
            ]
        );
        // A part that is not a string (an integer, a path): no constant.
        assert!(
            consts(
                "($n:literal) => { impl Unary for X { const K: &str = concat!(\"u\", $n, other::X); } };",
                r#""a""#
            )
            .is_empty()
        );
        // The trait is the impl's, through a path and its generics.
        let made = consts(
            "($n:tt) => { impl<T: X> crate::ops::Unary<f32> for Op<T> { const N: &str = $n; } };",
            r#""k""#,
        );
        assert_eq!(
            made,
            [(Some("Unary".to_owned()), "N".to_owned(), "k".to_owned())]
        );
    }
}
