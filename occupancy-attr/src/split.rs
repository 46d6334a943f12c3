//! A source file parsed within the limits item by item: an item the reader does not need
//! (a trait with 82 `+` bounds, a deeply nested type) must not make the rest of the file
//! unreadable.
//!
//! [`parse_file`] checks the whole file against [`Limits::SOURCE_FILE`] first: real files
//! pass, and are parsed as they are. A file that does not is split into its top-level items
//! on the token level (no recursion: the split only looks at the tokens of one level, and
//! each item's groups stay whole), and each item is checked on its own, at the depth it
//! sits (an item inside `impl` or `mod` braces has that much less room):
//!
//! - an item within the limits is kept;
//! - a function whose signature is within them but whose body is not keeps its signature
//!   with an empty body, and its name is recorded ([`Skipped::body_of`]): the attribute on
//!   it still works from its keys, as the macro reads a body past the limits;
//! - `mod`, `impl`, `trait` and `extern` blocks whose heads are within them are split again
//!   inside their braces (up to [`MAX_NESTING`] levels);
//! - anything else is left out, with a [`Skipped`] entry saying what and why.
//!
//! The items kept are then parsed by `syn` as one file. The split follows the grammar's
//! item boundaries: an item ends at a `;` or at a `{..}` group outside generic arguments
//! (`impl Foo<{ N }>` does not end at `{ N }`), except `const`, `static`, `use`, `type` and
//! `extern crate` items, which end at their `;` (`const X: u32 = { 4 };`). A file the split
//! gets wrong does not parse, and is reported as a file that does not parse.

use proc_macro2::{Delimiter, Group, Spacing, Span, TokenStream, TokenTree};

use crate::limits::{GROUP, Limits};

/// The deepest `mod` / `impl` / `trait` nesting split again (beyond it, an item past the
/// limits is left out whole).
pub(crate) const MAX_NESTING: usize = 8;

/// An item of a source file left out (or whose body was), and why.
#[derive(Clone, Debug)]
pub struct Skipped {
    /// What it is, as a person names it: `trait Many`, `fn helper`, `impl Gemm`.
    pub what: String,
    /// Where it starts (its first token); for a function's body, the body's `{` (which the
    /// empty body kept in its place keeps).
    pub span: Span,
    /// The limit it is past (the limits' own message).
    pub why: String,
    /// `Some(name)` when only the body of function `name` was left out: its signature is
    /// kept, with an empty body.
    pub body_of: Option<String>,
}

/// A source file as the readers see it: its items within the limits, parsed, and the items
/// left out.
pub struct SourceFile {
    /// The file, without the items left out.
    pub syntax: syn::File,
    /// What was left out, in file order.
    pub skipped: Vec<Skipped>,
}

/// Parses `tokens` (one file, `what` naming it in messages) item by item within
/// [`Limits::SOURCE_FILE`]: see the module's documentation.
///
/// # Errors
///
/// When the items kept do not parse.
pub(crate) fn parse_file(tokens: TokenStream, what: &str) -> syn::Result<SourceFile> {
    if Limits::SOURCE_FILE.check(&tokens, what).is_ok() {
        return Ok(SourceFile {
            syntax: syn::parse2(tokens)?,
            skipped: Vec::new(),
        });
    }
    let mut skipped = Vec::new();
    let kept = filter(tokens, 0, what, &mut skipped);
    Ok(SourceFile {
        syntax: syn::parse2(kept)?,
        skipped,
    })
}

/// The macro a lifted function body is replaced by (`{ __occupancy_lifted_body![7] }`): a
/// name no crate writes.
pub(crate) const LIFTED: &str = "__occupancy_lifted_body";

/// `tokens` (one file, or the inside of a `mod` or `impl` block `depth` levels down) with
/// the body of every function replaced by `{ __occupancy_lifted_body![i] }`, `i` the index
/// of the body in `bodies`, where it is pushed: the bodies are parsed only when needed
/// (`source.rs`), the rest of the file is parsed now. The items are found by [`split`], as
/// the limits' split finds them; what it does not take for a function keeps its body.
pub(crate) fn lift_bodies(
    tokens: TokenStream,
    depth: usize,
    bodies: &mut Vec<Group>,
) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = TokenStream::new();
    for range in split(&trees) {
        let item = &trees[range];
        let (kind, _) = describe(item);
        let lifted = match item.split_last() {
            Some((TokenTree::Group(body), head)) if body.delimiter() == Delimiter::Brace => {
                match kind {
                    "fn" => {
                        let index = proc_macro2::Literal::usize_unsuffixed(bodies.len());
                        let call = TokenStream::from_iter([
                            TokenTree::Ident(proc_macro2::Ident::new(LIFTED, body.span())),
                            TokenTree::Punct(proc_macro2::Punct::new('!', Spacing::Alone)),
                            TokenTree::Group(Group::new(
                                Delimiter::Bracket,
                                TokenStream::from_iter([TokenTree::Literal(index)]),
                            )),
                        ]);
                        bodies.push(body.clone());
                        Some((head, Group::new(Delimiter::Brace, call)))
                    }
                    "mod" | "impl" if depth < MAX_NESTING => {
                        let inner = lift_bodies(body.stream(), depth + 1, bodies);
                        Some((head, Group::new(Delimiter::Brace, inner)))
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        match lifted {
            Some((head, mut group)) => {
                if let Some(TokenTree::Group(body)) = item.last() {
                    group.set_span(body.span());
                }
                out.extend(head.iter().cloned());
                out.extend([TokenTree::Group(group)]);
            }
            None => out.extend(item.iter().cloned()),
        }
    }
    out
}

/// The index `block` stands for when it is a body [`lift_bodies`] lifted.
pub(crate) fn lifted_index(block: &syn::Block) -> Option<usize> {
    let mac = match block.stmts.as_slice() {
        [syn::Stmt::Macro(m)] => &m.mac,
        [syn::Stmt::Expr(syn::Expr::Macro(m), None)] => &m.mac,
        _ => return None,
    };
    if !mac.path.is_ident(LIFTED) {
        return None;
    }
    syn::parse2::<syn::LitInt>(mac.tokens.clone())
        .ok()?
        .base10_parse()
        .ok()
}

/// The limits for an item `depth` groups deep: what the enclosing groups leave.
fn limits_at(depth: usize) -> Limits {
    let limits = Limits::SOURCE_FILE;
    Limits {
        max_depth: limits.max_depth.saturating_sub(depth),
        max_tokens: limits.max_tokens,
        max_stack_bytes: limits.max_stack_bytes.saturating_sub(depth * GROUP),
    }
}

/// The items of `tokens` (`depth` groups deep) within the limits, recording the rest.
fn filter(
    tokens: TokenStream,
    depth: usize,
    what: &str,
    skipped: &mut Vec<Skipped>,
) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let limits = limits_at(depth);
    let mut out = TokenStream::new();
    for range in split(&trees) {
        let item = &trees[range];
        let stream: TokenStream = item.iter().cloned().collect();
        if limits.check(&stream, what).is_ok() {
            out.extend(stream);
            continue;
        }
        let (kind, name) = describe(item);
        let span = item.first().map_or_else(Span::call_site, TokenTree::span);
        let thing = match &name {
            Some(name) => format!("{kind} {name}"),
            None => kind.to_owned(),
        };
        // The limits' message, about this item.
        let why = limits
            .check(&stream, &format!("`{thing}`"))
            .err()
            .map_or_else(String::new, |e| e.to_string());
        // A head within the limits, and a body in braces to drop or split.
        if let Some((TokenTree::Group(body), head)) = item.split_last()
            && body.delimiter() == Delimiter::Brace
        {
            let head: TokenStream = head.iter().cloned().collect();
            if limits.check(&head, what).is_ok() {
                if kind == "fn" {
                    let mut empty = Group::new(Delimiter::Brace, TokenStream::new());
                    empty.set_span(body.span());
                    out.extend(head);
                    out.extend([TokenTree::Group(empty)]);
                    skipped.push(Skipped {
                        what: thing,
                        span: body.span_open(),
                        why,
                        body_of: name,
                    });
                    continue;
                }
                if matches!(kind, "mod" | "impl" | "trait" | "extern") && depth < MAX_NESTING {
                    let inner = filter(body.stream(), depth + 1, what, skipped);
                    let mut group = Group::new(Delimiter::Brace, inner);
                    group.set_span(body.span());
                    out.extend(head);
                    out.extend([TokenTree::Group(group)]);
                    continue;
                }
            }
        }
        skipped.push(Skipped {
            what: thing,
            span,
            why,
            body_of: None,
        });
    }
    out
}

/// The ranges of `trees` that are one item each (outer attributes included; an inner
/// attribute `#![..]` is an item of its own).
fn split(trees: &[TokenTree]) -> Vec<std::ops::Range<usize>> {
    let mut items = Vec::new();
    let mut i = 0;
    while i < trees.len() {
        let start = i;
        // `#![..]`: on its own.
        if is_punct(trees.get(i), '#')
            && is_punct(trees.get(i + 1), '!')
            && is_bracket(trees.get(i + 2))
        {
            items.push(start..i + 3);
            i += 3;
            continue;
        }
        // Outer attributes.
        while is_punct(trees.get(i), '#') && is_bracket(trees.get(i + 1)) {
            i += 2;
        }
        let ends_at_semicolon = value_item(&trees[i..]);
        let mut angle = 0usize;
        let mut prev: Option<(char, Spacing)> = None;
        while i < trees.len() {
            let tree = &trees[i];
            i += 1;
            match tree {
                TokenTree::Punct(p) => {
                    let ch = p.as_char();
                    match ch {
                        ';' if angle == 0 => break,
                        '<' => angle += 1,
                        // `->` and `=>` are not closing angles.
                        '>' if !matches!(prev, Some(('-' | '=', Spacing::Joint))) => {
                            angle = angle.saturating_sub(1);
                        }
                        _ => {}
                    }
                    prev = Some((ch, p.spacing()));
                    continue;
                }
                TokenTree::Group(g)
                    if g.delimiter() == Delimiter::Brace && angle == 0 && !ends_at_semicolon =>
                {
                    break;
                }
                _ => {}
            }
            prev = None;
        }
        items.push(start..i);
    }
    items
}

/// Whether the item starting at `trees` (after its attributes) ends only at its `;`:
/// `const` (not `const fn`), `static`, `use`, `type`, `extern crate`.
fn value_item(trees: &[TokenTree]) -> bool {
    let words: Vec<String> = trees
        .iter()
        .take(8)
        .map(|t| match t {
            TokenTree::Ident(i) => i.to_string(),
            TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => "()".to_owned(),
            TokenTree::Literal(_) => "\"\"".to_owned(),
            _ => String::new(),
        })
        .collect();
    // Past the visibility (`pub`, `pub(crate)`).
    let mut at = 0;
    if words.first().is_some_and(|w| w == "pub") {
        at = 1;
        if words.get(1).is_some_and(|w| w == "()") {
            at = 2;
        }
    }
    match words.get(at).map(String::as_str) {
        Some("static" | "use" | "type") => true,
        Some("extern") => words.get(at + 1).is_some_and(|w| w == "crate"),
        // `const fn`, `const unsafe fn`, `const async fn`, `const extern "C" fn`.
        Some("const") => !matches!(
            words.get(at + 1).map(String::as_str),
            Some("fn" | "unsafe" | "async" | "extern")
        ),
        _ => false,
    }
}

/// What an item is (`fn`, `trait`, `impl`, ...) and its name, for messages: the first
/// item keyword outside its attributes, and the identifier after it (the self type's for an
/// `impl`).
fn describe(item: &[TokenTree]) -> (&'static str, Option<String>) {
    const KINDS: &[&str] = &[
        "fn",
        "struct",
        "enum",
        "union",
        "trait",
        "impl",
        "mod",
        "const",
        "static",
        "type",
        "use",
        "extern",
        "macro_rules",
    ];
    let mut i = 0;
    while is_punct(item.get(i), '#') {
        i += if is_punct(item.get(i + 1), '!') { 3 } else { 2 };
    }
    let idents: Vec<(usize, String)> = item
        .iter()
        .enumerate()
        .skip(i)
        .filter_map(|(at, t)| match t {
            TokenTree::Ident(ident) => Some((at, ident.to_string())),
            _ => None,
        })
        .collect();
    // `const fn` is a fn; `extern "C" fn` too.
    let kind = idents
        .iter()
        .position(|(_, w)| w == "fn")
        .filter(|&p| {
            idents[..p].iter().all(|(_, w)| {
                matches!(
                    w.as_str(),
                    "pub"
                        | "crate"
                        | "const"
                        | "unsafe"
                        | "async"
                        | "extern"
                        | "default"
                        | "in"
                        | "self"
                        | "super"
                )
            })
        })
        .map(|p| ("fn", p))
        .or_else(|| {
            idents
                .iter()
                .enumerate()
                .find_map(|(p, (_, w))| KINDS.iter().find(|k| **k == w.as_str()).map(|k| (*k, p)))
        });
    let Some((kind, p)) = kind else {
        return ("item", None);
    };
    let name = match kind {
        "impl" => impl_type(&item[idents[p].0 + 1..]),
        "use" | "extern" => None,
        _ => idents.get(p + 1).map(|(_, w)| w.clone()),
    };
    (kind, name)
}

/// The self type's name of an `impl` (the tokens after `impl`): the last path segment
/// outside generic arguments, after `for` when there is one (`impl<T> ops::Add for
/// ops::Gemm<T>`: `Gemm`).
fn impl_type(rest: &[TokenTree]) -> Option<String> {
    let mut angle = 0usize;
    let mut last = None;
    for tree in rest {
        match tree {
            TokenTree::Punct(p) if p.as_char() == '<' => angle += 1,
            TokenTree::Punct(p) if p.as_char() == '>' => angle = angle.saturating_sub(1),
            TokenTree::Ident(i) if angle == 0 && i == "for" => last = None,
            TokenTree::Ident(i) if angle == 0 && i == "where" => break,
            TokenTree::Ident(i) if angle == 0 && i != "dyn" && i != "unsafe" => {
                last = Some(i.to_string());
            }
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => break,
            _ => {}
        }
    }
    last
}

fn is_punct(tree: Option<&TokenTree>, ch: char) -> bool {
    matches!(tree, Some(TokenTree::Punct(p)) if p.as_char() == ch)
}

fn is_bracket(tree: Option<&TokenTree>) -> bool {
    matches!(tree, Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(text: &str) -> Vec<String> {
        let trees: Vec<TokenTree> = text.parse::<TokenStream>().unwrap().into_iter().collect();
        split(&trees)
            .into_iter()
            .map(|r| {
                let s: TokenStream = trees[r].iter().cloned().collect();
                s.to_string()
            })
            .collect()
    }

    #[test]
    fn splits_at_item_boundaries() {
        let split = items(
            r#"
            #![allow(dead_code)]
            use a::{b, c};
            /// Docs.
            #[inline]
            pub(crate) const fn f<const N: usize>() -> usize { N }
            const X: u32 = { 4 } + 1;
            static S: [u8; 2] = [1, 2];
            pub struct T { a: u32 }
            struct U(u32);
            impl<const N: usize> Foo<{ N }> for T where T: Fn(u8) -> u8 { fn g() {} }
            mod m;
            mod n { const Y: u8 = 1; }
            macro_rules! mac { () => {} }
            mac!(x);
            extern crate alloc;
            type A = Vec<Vec<u8>>;
            enum E { A, B }
            "#,
        );
        assert_eq!(
            split,
            [
                "#! [allow (dead_code)]",
                "use a :: { b , c } ;",
                "# [doc = \" Docs.\"] # [inline] pub (crate) const fn f < const N : usize > () -> usize { N }",
                "const X : u32 = { 4 } + 1 ;",
                "static S : [u8 ; 2] = [1 , 2] ;",
                "pub struct T { a : u32 }",
                "struct U (u32) ;",
                "impl < const N : usize > Foo < { N } > for T where T : Fn (u8) -> u8 { fn g () { } }",
                "mod m ;",
                "mod n { const Y : u8 = 1 ; }",
                "macro_rules ! mac { () => { } }",
                "mac ! (x) ;",
                "extern crate alloc ;",
                "type A = Vec < Vec < u8 >>;",
                "enum E { A , B }",
            ]
        );
    }

    #[test]
    fn names_what_it_skips() {
        let trees =
            |t: &str| -> Vec<TokenTree> { t.parse::<TokenStream>().unwrap().into_iter().collect() };
        assert_eq!(
            describe(&trees("pub trait Many: A + B {}")),
            ("trait", Some("Many".to_owned()))
        );
        assert_eq!(
            describe(&trees("#[inline] pub(crate) const unsafe fn g() {}")),
            ("fn", Some("g".to_owned()))
        );
        assert_eq!(
            describe(&trees("impl<T> ops::Add for Gemm<T> {}")),
            ("impl", Some("Gemm".to_owned()))
        );
        assert_eq!(
            describe(&trees("impl<T: Copy> ops::Gemm<T> where T: Send {}")),
            ("impl", Some("Gemm".to_owned()))
        );
        assert_eq!(
            describe(&trees("const X: u8 = 1;")),
            ("const", Some("X".to_owned()))
        );
        assert_eq!(describe(&trees("use a::b;")), ("use", None));
    }

    /// A trait with many bounds, a deeply nested type and a function whose body is past the
    /// limits: left out (the function keeps its signature), and the rest of the file parses.
    #[test]
    fn items_past_the_limits_are_left_out() {
        let bounds = (0..82)
            .map(|i| format!("std::ops::Add<Output = T{i}>"))
            .collect::<Vec<_>>()
            .join(" + ");
        let deep = format!("{}u8{}", "(".repeat(70), ",)".repeat(70));
        let body = format!("{}1{}", "(".repeat(100), ")".repeat(100));
        let text = format!(
            "pub const BLOCK: u32 = 256;\n\
             pub trait Many: {bounds} {{}}\n\
             type Deep = {deep};\n\
             pub fn helper() -> u32 {{ {body} }}\n\
             mod inner {{\n    pub const TILE: u32 = 16;\n    pub struct S(Box<{deep}>);\n}}\n\
             pub const SMEM: u32 = 4096;\n"
        );
        assert!(
            Limits::SOURCE_FILE
                .check(&text.parse().unwrap(), "f")
                .is_err()
        );
        let file = parse_file(text.parse().unwrap(), "src/lib.rs").unwrap();
        let kept: Vec<String> = file
            .syntax
            .items
            .iter()
            .map(|i| quote::ToTokens::to_token_stream(i).to_string())
            .collect();
        assert_eq!(
            kept,
            [
                "pub const BLOCK : u32 = 256 ;",
                "pub fn helper () -> u32 { }",
                "mod inner { pub const TILE : u32 = 16 ; }",
                "pub const SMEM : u32 = 4096 ;",
            ]
        );
        let skipped: Vec<(&str, usize, Option<&str>)> = file
            .skipped
            .iter()
            .map(|s| (s.what.as_str(), s.span.start().line, s.body_of.as_deref()))
            .collect();
        assert_eq!(
            skipped,
            [
                ("trait Many", 2, None),
                ("type Deep", 3, None),
                ("fn helper", 4, Some("helper")),
                ("struct S", 7, None),
            ]
        );
        assert!(
            file.skipped[0]
                .why
                .contains("chains too many operators and groups"),
            "{:?}",
            file.skipped[0]
        );
        assert!(
            file.skipped[1]
                .why
                .contains("nested more than 64 levels deep"),
            "{:?}",
            file.skipped[1]
        );
    }
}
