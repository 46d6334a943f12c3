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
    for (i, rule) in rules.iter().enumerate() {
        match bind(&rule.matcher, &input, i + 1 == rules.len()) {
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

/// The tokens the first rule that matches `input` expands to: its transcriber with each
/// metavariable replaced by what it binds (a run of several tokens as one undelimited group,
/// as rustc keeps a fragment whole) and `$crate` by `crate`. `None` when no rule is read to
/// match, or the transcriber repeats (`$(..)*`) or uses a metavariable the rule does not
/// bind: then the expansion is not known, never guessed.
pub(super) fn expand(rules: &[Rule], input: &TokenStream) -> Option<TokenStream> {
    let input: Vec<TokenTree> = input.clone().into_iter().take(MAX_TOKENS).collect();
    for (i, rule) in rules.iter().enumerate() {
        match bind(&rule.matcher, &input, i + 1 == rules.len()) {
            Bound::Yes(bindings) => return substitute(&rule.transcriber, &bindings, 0),
            Bound::No => {}
            Bound::Unread => return None,
        }
    }
    None
}

/// `tokens` with the metavariables of `bindings` replaced (see [`expand`]).
fn substitute(
    tokens: &TokenStream,
    bindings: &[(String, Vec<TokenTree>)],
    depth: usize,
) -> Option<TokenStream> {
    if depth > 64 {
        return None;
    }
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::with_capacity(trees.len());
    let mut i = 0;
    while let Some(t) = trees.get(i) {
        match t {
            TokenTree::Punct(p) if p.as_char() == '$' => {
                let Some(TokenTree::Ident(name)) = trees.get(i + 1) else {
                    // `$(..)*`: a repetition.
                    return None;
                };
                if name == "crate" {
                    out.push(TokenTree::Ident(proc_macro2::Ident::new(
                        "crate",
                        name.span(),
                    )));
                } else {
                    let (_, bound) = bindings.iter().find(|(n, _)| name == n)?;
                    match bound.as_slice() {
                        [one] => out.push(one.clone()),
                        many => {
                            let mut g = proc_macro2::Group::new(
                                Delimiter::None,
                                many.iter().cloned().collect(),
                            );
                            g.set_span(name.span());
                            out.push(TokenTree::Group(g));
                        }
                    }
                }
                i += 2;
            }
            TokenTree::Group(g) => {
                let mut inner = proc_macro2::Group::new(
                    g.delimiter(),
                    substitute(&g.stream(), bindings, depth + 1)?,
                );
                inner.set_span(g.span());
                out.push(TokenTree::Group(inner));
                i += 1;
            }
            other => {
                out.push(other.clone());
                i += 1;
            }
        }
    }
    Some(out.into_iter().collect())
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

/// The fragments a part before a trailing part the matcher cannot read may bind (see
/// [`bind`]): none of them holds a comma outside a group or `<..>`, so that each is one
/// comma-separated part of the input.
const ONE_PART: &[&str] = &["tt", "literal", "ident", "path", "ty"];

/// The metavariables `matcher` binds in `input`. `last`: the macro's last rule, which
/// rustc takes when no rule before it matches (the crate builds): there, a part the matcher
/// cannot read (`$e:expr $(, $v:ident)?`, a repetition) ends the match, with what the parts
/// before it bind when each of those is read and matches its part of the input (the rest
/// stays unbound: a value using it is not read).
fn bind(matcher: &[TokenTree], input: &[TokenTree], last: bool) -> Bound {
    let (want, got) = (parts(matcher), parts(input));
    let mut bindings = Vec::new();
    let mut matched = want.len() == got.len();
    // Every part so far matched its own part of the input, each one part.
    let mut prefix = true;
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
            _ if last && prefix && i > 0 && got.len() > i => return Bound::Yes(bindings),
            _ => return Bound::Unread,
        };
        let Some(g) = got.get(i).filter(|_| matched || prefix) else {
            prefix = false;
            continue;
        };
        if g.len() < literal.len()
            || literal
                .iter()
                .zip(g.iter())
                .any(|(a, b)| a.to_string() != b.to_string())
        {
            (matched, prefix) = (false, false);
            continue;
        }
        let rest = &g[literal.len()..];
        match frag {
            None if rest.is_empty() => {}
            Some((name, frag)) if fits(&frag, rest) => {
                prefix &= ONE_PART.contains(&frag.as_str());
                bindings.push((name, rest.to_vec()));
            }
            _ => (matched, prefix) = (false, false),
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

    #[test]
    fn the_last_rule_binds_the_parts_before_one_it_cannot_read() {
        // candle's `bin_op!` style: an `expr` then an optional repetition ends the matcher.
        let rule = "($op:ident, $name:ident, $e:expr $(, $v:ident, $s:ident)?) => { impl Binary for $op { const NAME: &'static str = stringify!($name); const K: &'static str = concat!(\"b\", stringify!($name)); const E: &'static str = stringify!($v); } };";
        let binary = |c: &str, v: &str| (Some("Binary".to_owned()), c.to_owned(), v.to_owned());
        // With or without the repetition, a closure's commas included: what `$v` would
        // give is not read.
        for input in [
            "Add, add, |a, b| a + b, vec_add, scalar_add",
            "Sub, sub, |a, b| a - b",
        ] {
            assert_eq!(
                consts(rule, input),
                [
                    binary("NAME", input.split(", ").nth(1).unwrap()),
                    binary("K", &format!("b{}", input.split(", ").nth(1).unwrap()))
                ],
                "{input}"
            );
        }
        // Not the last rule: rustc may take the next one, nothing is read.
        let two = format!(
            "{rule} ($op:ident) => {{ impl Binary for $op {{ const NAME: &'static str = \"x\"; }} }};"
        );
        assert!(consts(&two, "Add, add, |a, b| a + b").is_empty());
        // A part before it that does not match its input part: no match.
        assert!(consts(rule, "Add, \"add\", |a, b| a + b").is_empty());
        // The first part unreadable: nothing to bind.
        assert!(
            consts(
                "($($x:tt)*) => { impl Binary for X { const K: &str = \"k\"; } };",
                "a b"
            )
            .is_empty()
        );
    }

    #[test]
    fn an_expansion_is_the_transcriber_with_what_each_metavariable_binds() {
        let rules = rules(
            &"($T:ty, $Fwd:tt) => { impl Kernel<$T> for Dev { fn go(&self) { self.get_func(\"m\", $Fwd); let x: $crate::Y = 1; } } };"
                .parse()
                .unwrap(),
        );
        let expanded = expand(&rules, &"Amp<f16>, \"go_f16\"".parse().unwrap()).unwrap();
        let file: syn::File = syn::parse2(expanded).unwrap();
        let text = quote::quote!(#file).to_string().replace(' ', "");
        assert!(text.contains("implKernel<Amp<f16>>forDev"), "{text}");
        assert!(text.contains("get_func(\"m\",\"go_f16\")"), "{text}");
        assert!(text.contains("crate::Y"), "{text}");
        // A repetition in the transcriber, or no rule matching: no expansion.
        let repeats = super::rules(
            &"($($x:tt),*) => { $(const A: u8 = $x;)* };"
                .parse()
                .unwrap(),
        );
        assert!(expand(&repeats, &"1, 2".parse().unwrap()).is_none());
        assert!(expand(&rules, &"Amp<f16>".parse().unwrap()).is_none());
    }

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
