//! Parsing the attribute's tokens into [`Args`].
//!
//! The arguments are split at top-level commas first and each one is parsed on its own, so
//! that one malformed argument does not hide problems in the others: every error is
//! collected and reported at once, each on the token that caused it.

use occupancy_core::lint::{Level, MinOccupancy, closest};
use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use syn::parse::discouraged::Speculative;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Error, Expr, ExprLit, ExprUnary, Ident, Lit, LitStr, Result, Token, UnOp, bracketed};

use crate::ast::{Arg, Args, Candidates, Dims, LaunchPair, LevelArg, Percent, Value};
use crate::errors::Errors;
use crate::limits::Limits;

/// Every key the attribute accepts, for "did you mean" and the unknown-key message.
pub const KEYS: &[&str] = &[
    "block",
    "smem",
    "launches",
    "regs",
    "static_smem",
    "opt_in",
    "carveout",
    "barriers",
    "max_threads",
    "target",
    "min_occupancy",
    "class",
    "grid",
    "cluster",
    "non_portable",
    "allow",
    "warn",
    "deny",
    "kernel",
    "cubin",
    "fatbin",
];

/// Byte units accepted after a size, and their factors. `KB` is 1024 bytes, as the CUDA
/// documentation uses it for shared memory.
const UNITS: &[(&str, u64)] = &[("B", 1), ("KiB", 1024), ("KB", 1024)];

/// Parses the attribute's arguments: those that parsed, and every malformed, unknown or
/// duplicate argument as errors (so that the checks of `valid.rs` still run on the rest).
pub(crate) fn parse(tokens: TokenStream, errors: &mut Errors) -> Args {
    let mut args = Args::default();
    for segment in split_top_level_commas(tokens, errors) {
        // Before `syn` sees it: nesting or chains deep enough to overflow its stack are an
        // error on their token.
        let checked = Limits::ATTRIBUTE.check(&segment, "the attribute's argument");
        let parser = |input: ParseStream<'_>| parse_argument(input, &mut args);
        if let Err(e) = checked.and_then(|()| parser.parse2(segment.clone())) {
            errors.push(e);
            // Keys written in a segment that does not parse (`block = 256; regs = 32`) count
            // as written: the syntax error is the one to report, not a "missing" one too.
            let trees: Vec<TokenTree> = segment.into_iter().collect();
            for pair in trees.windows(2) {
                if let [TokenTree::Ident(key), TokenTree::Punct(eq)] = pair
                    && eq.as_char() == '='
                {
                    args.written.push(key.to_string());
                }
            }
        }
    }
    args
}

/// Splits at commas outside any group. Empty arguments (`a = 1,, b = 2`) are errors; one
/// trailing comma is allowed.
fn split_top_level_commas(tokens: TokenStream, errors: &mut Errors) -> Vec<TokenStream> {
    let mut segments = Vec::new();
    let mut current = Vec::new();
    for tree in tokens {
        match &tree {
            TokenTree::Punct(p) if p.as_char() == ',' => {
                if current.is_empty() {
                    errors.push(Error::new(p.span(), "expected an argument before `,`"));
                } else {
                    segments.push(current.drain(..).collect());
                }
            }
            _ => current.push(tree),
        }
    }
    if !current.is_empty() {
        segments.push(current.into_iter().collect());
    }
    segments
}

fn parse_argument(input: ParseStream<'_>, args: &mut Args) -> Result<()> {
    let key: Ident = input
        .parse()
        .map_err(|e| Error::new(e.span(), "expected an argument such as `block = 256`"))?;
    let name = key.to_string();
    args.written.push(name.clone());
    if let Some(level) = Level::from_name(&name) {
        if !input.peek(syn::token::Paren) {
            return Err(Error::new(
                key.span(),
                format!("`{name}` takes a list of lints: `{name}(low_occupancy)`"),
            ));
        }
        let content;
        syn::parenthesized!(content in input);
        let lints = Punctuated::<Ident, Token![,]>::parse_terminated(&content)?;
        if lints.is_empty() {
            return Err(Error::new(
                key.span(),
                format!("`{name}(...)` needs at least one lint name, e.g. `{name}(low_occupancy)`"),
            ));
        }
        args.levels
            .extend(lints.into_iter().map(|lint| LevelArg { lint, level }));
        return end(input, &key);
    }
    if !KEYS.contains(&name.as_str()) {
        let message = match closest(&name, KEYS.iter().copied()) {
            Some(s) => {
                // A misspelled key counts as written: no "missing" error for it as well.
                args.written.push(s.to_owned());
                format!("unknown key `{name}`; did you mean `{s}`?")
            }
            None => format!("unknown key `{name}`; expected one of: {}", KEYS.join(", ")),
        };
        return Err(Error::new(key.span(), message));
    }
    if is_set(args, &name) {
        return Err(Error::new(key.span(), format!("duplicate key `{name}`")));
    }
    if !input.peek(Token![=]) {
        return Err(Error::new(
            key.span(),
            format!("expected `=` and a value after `{name}`"),
        ));
    }
    input.parse::<Token![=]>()?;
    if input.is_empty() {
        return Err(Error::new(
            key.span(),
            format!("missing value after `{name} =`"),
        ));
    }
    match name.as_str() {
        "block" => {
            let value = candidates(input, &name, |i| parse_dims(i, Shape::BLOCK))?;
            args.block = Some(arg(key.clone(), value));
        }
        "grid" => {
            let value = candidates(input, &name, |i| parse_dims(i, Shape::GRID))?;
            args.grid = Some(arg(key.clone(), value));
        }
        "cluster" => args.cluster = Some(arg(key.clone(), parse_dims(input, Shape::CLUSTER)?)),
        "non_portable" => args.non_portable = Some(arg(key.clone(), parse_bool(input, &name)?)),
        "class" => args.class = Some(arg(key.clone(), parse_string(input, &name)?)),
        "smem" => args.smem = Some(arg(key.clone(), candidates(input, &name, parse_bytes)?)),
        "launches" => {
            let value = candidates(input, &name, parse_launch_pair)?;
            if !value.list {
                return Err(Error::new(
                    key.span(),
                    "`launches` takes a list of (block, smem) pairs: `launches = [(32, 128), (1024, 4 KiB)]`",
                ));
            }
            args.launches = Some(arg(key.clone(), value.items));
        }
        "static_smem" => args.static_smem = Some(arg(key.clone(), parse_bytes(input)?)),
        "opt_in" => args.opt_in = Some(arg(key.clone(), parse_bytes(input)?)),
        "regs" => args.regs = Some(arg(key.clone(), parse_count(input)?)),
        "barriers" => args.barriers = Some(arg(key.clone(), parse_count(input)?)),
        "max_threads" => args.max_threads = Some(arg(key.clone(), parse_count(input)?)),
        "carveout" => args.carveout = Some(arg(key.clone(), parse_carveout(input)?)),
        "target" => args.target = Some(arg(key.clone(), parse_targets(input)?)),
        "min_occupancy" => {
            args.min_occupancy = Some(arg(key.clone(), parse_min_occupancy(input)?));
        }
        "kernel" => {
            let value = candidates(input, &name, |i| parse_string(i, "kernel"))?;
            args.kernel = Some(arg(key.clone(), value));
        }
        "cubin" => args.cubin = Some(arg(key.clone(), parse_string(input, &name)?)),
        "fatbin" => args.fatbin = Some(arg(key.clone(), parse_string(input, &name)?)),
        _ => {}
    }
    end(input, &key)
}

/// The most candidates one key takes.
pub(crate) const MAX_CANDIDATES: usize = 64;

/// One value, or a list of candidates `[a, b, ...]` (each parsed by `one`).
fn candidates<T>(
    input: ParseStream<'_>,
    key: &str,
    one: impl Fn(ParseStream<'_>) -> Result<T>,
) -> Result<Candidates<T>> {
    if !input.peek(syn::token::Bracket) {
        return Ok(Candidates {
            items: vec![one(input)?],
            list: false,
        });
    }
    let content;
    let brackets = bracketed!(content in input);
    let mut items = Vec::new();
    while !content.is_empty() {
        items.push(one(&content)?);
        if content.is_empty() {
            break;
        }
        content.parse::<Token![,]>()?;
    }
    if items.is_empty() {
        return Err(Error::new(
            brackets.span.join(),
            format!("the list of `{key}` candidates is empty: give at least one value"),
        ));
    }
    if items.len() > MAX_CANDIDATES {
        return Err(Error::new(
            brackets.span.join(),
            format!(
                "{} `{key}` candidates: at most {MAX_CANDIDATES}",
                items.len()
            ),
        ));
    }
    Ok(Candidates { items, list: true })
}

/// One `(block, smem)` pair of `launches`: `(32, 128)`, `((16, 16), 4 KiB)`, `(BLOCK, SMEM)`.
fn parse_launch_pair(input: ParseStream<'_>) -> Result<LaunchPair> {
    if !input.peek(syn::token::Paren) {
        return Err(
            input.error("expected a (block, smem) pair such as `(32, 128)` or `((16, 16), 4 KiB)`")
        );
    }
    let content;
    let parens = syn::parenthesized!(content in input);
    let block = parse_dims(&content, Shape::BLOCK)?;
    if !content.peek(Token![,]) {
        return Err(Error::new(
            parens.span.join(),
            "a `launches` pair is (block, smem): `(32, 128)` or `((16, 16), 4 KiB)`",
        ));
    }
    content.parse::<Token![,]>()?;
    let smem = parse_bytes(&content)?;
    if !content.is_empty() {
        return Err(
            content.error("a `launches` pair is (block, smem): `(32, 128)` or `((16, 16), 4 KiB)`")
        );
    }
    Ok(LaunchPair { block, smem })
}

fn arg<T>(key: Ident, value: T) -> Arg<T> {
    Arg { key, value }
}

fn is_set(args: &Args, name: &str) -> bool {
    match name {
        "block" => args.block.is_some(),
        "smem" => args.smem.is_some(),
        "launches" => args.launches.is_some(),
        "static_smem" => args.static_smem.is_some(),
        "opt_in" => args.opt_in.is_some(),
        "regs" => args.regs.is_some(),
        "barriers" => args.barriers.is_some(),
        "max_threads" => args.max_threads.is_some(),
        "carveout" => args.carveout.is_some(),
        "target" => args.target.is_some(),
        "min_occupancy" => args.min_occupancy.is_some(),
        "class" => args.class.is_some(),
        "grid" => args.grid.is_some(),
        "cluster" => args.cluster.is_some(),
        "non_portable" => args.non_portable.is_some(),
        "kernel" => args.kernel.is_some(),
        "cubin" => args.cubin.is_some(),
        "fatbin" => args.fatbin.is_some(),
        _ => false,
    }
}

/// The argument must end here.
fn end(input: ParseStream<'_>, key: &Ident) -> Result<()> {
    if input.is_empty() {
        Ok(())
    } else {
        Err(input.error(format!(
            "unexpected token after the value of `{key}`; arguments are separated by commas"
        )))
    }
}

/// What a one-to-three-dimensional value is called in messages, with examples.
#[derive(Clone, Copy)]
struct Shape {
    /// `block`, `grid`, `cluster`.
    name: &'static str,
    /// How to write it: `256, (16, 16) or (8, 8, 4)`.
    examples: &'static str,
}

impl Shape {
    const BLOCK: Shape = Shape {
        name: "block",
        examples: "256, (16, 16) or (8, 8, 4)",
    };
    const GRID: Shape = Shape {
        name: "grid",
        examples: "1024, (64, 64) or (64, 64, 2)",
    };
    const CLUSTER: Shape = Shape {
        name: "cluster",
        examples: "2, (2, 1) or (2, 1, 1)",
    };
}

/// `256`, `(16, 16)`, `(8, 8, 4)`, or a constant expression; every literal at least 1.
fn parse_dims(input: ParseStream<'_>, shape: Shape) -> Result<Dims> {
    let is_group = input.cursor().group(Delimiter::Parenthesis).is_some();
    if is_group {
        let fork = input.fork();
        let content;
        let paren = syn::parenthesized!(content in fork);
        let dims = Punctuated::<Value, Token![,]>::parse_terminated_with(&content, parse_count)?;
        if fork.is_empty() || fork.peek(Token![,]) {
            input.advance_to(&fork);
            if dims.is_empty() || dims.len() > 3 {
                return Err(Error::new(
                    paren.span.join(),
                    format!(
                        "a {} has 1 to 3 dimensions, found {}: write {}",
                        shape.name,
                        dims.len(),
                        shape.examples
                    ),
                ));
            }
            let dims: Vec<Value> = dims.into_iter().collect();
            check_dims(&dims, shape)?;
            return Ok(Dims { dims });
        }
    }
    let value = parse_count(input)?;
    check_dims(std::slice::from_ref(&value), shape)?;
    Ok(Dims { dims: vec![value] })
}

fn check_dims(dims: &[Value], shape: Shape) -> Result<()> {
    let mut errors = Errors::default();
    for dim in dims {
        if let Value::Lit { value: 0, span } = dim {
            errors.push(Error::new(
                *span,
                format!("a {} dimension must be at least 1", shape.name),
            ));
        }
    }
    errors.finish(())
}

/// A whole number without unit (registers, barriers, threads), or a constant expression.
fn parse_count(input: ParseStream<'_>) -> Result<Value> {
    if input.peek(syn::LitInt) || input.peek(syn::LitFloat) {
        let fork = input.fork();
        let lit: Lit = fork.parse()?;
        if fork.is_empty() || fork.peek(Token![,]) {
            input.advance_to(&fork);
            return match lit {
                Lit::Int(int) => {
                    if !int.suffix().is_empty() && !is_integer_suffix(int.suffix()) {
                        return Err(Error::new(
                            int.span(),
                            format!(
                                "unexpected suffix `{}`: expected a plain number",
                                int.suffix()
                            ),
                        ));
                    }
                    let value = parse_u32(int.base10_digits(), None, int.span())?;
                    Ok(Value::Lit {
                        value,
                        span: int.span(),
                    })
                }
                other => Err(Error::new(other.span(), "expected a whole number")),
            };
        }
    }
    parse_const_expr(input, "a whole number or a constant")
}

/// A size in bytes: `8192`, `8 KiB`, `48 KB` (1024 bytes), `8KiB`, `1.5 KiB`, `512 B`, or a
/// constant expression (bytes).
fn parse_bytes(input: ParseStream<'_>) -> Result<Value> {
    if input.peek(syn::LitInt) || input.peek(syn::LitFloat) {
        let fork = input.fork();
        let lit: Lit = fork.parse()?;
        let (digits, suffix, lit_span) = match &lit {
            Lit::Int(i) => (
                i.base10_digits().to_owned(),
                i.suffix().to_owned(),
                i.span(),
            ),
            Lit::Float(f) => (
                f.base10_digits().to_owned(),
                f.suffix().to_owned(),
                f.span(),
            ),
            _ => unreachable_literal(lit.span())?,
        };
        let mut unit: Option<(String, Span)> = None;
        let mut span = lit_span;
        if !suffix.is_empty() && !is_integer_suffix(&suffix) {
            unit = Some((suffix, lit_span));
        } else if fork.peek(Ident) {
            let ident: Ident = fork.parse()?;
            span = lit_span.join(ident.span()).unwrap_or(lit_span);
            unit = Some((ident.to_string(), ident.span()));
        }
        if fork.is_empty() || fork.peek(Token![,]) {
            input.advance_to(&fork);
            let unit = match &unit {
                None => None,
                Some((name, unit_span)) => Some((name.as_str(), unit_factor(name, *unit_span)?)),
            };
            let value = parse_u32(&digits, unit, span)?;
            return Ok(Value::Lit { value, span });
        }
    }
    parse_const_expr(input, "a size in bytes (`8192`, `8 KiB`) or a constant")
}

fn unreachable_literal(span: Span) -> Result<(String, String, Span)> {
    Err(Error::new(span, "expected a number"))
}

fn unit_factor(name: &str, span: Span) -> Result<u64> {
    if let Some((_, factor)) = UNITS.iter().find(|(unit, _)| *unit == name) {
        return Ok(*factor);
    }
    let lower = name.to_ascii_lowercase();
    let suggestion = UNITS
        .iter()
        .find(|(unit, _)| unit.to_ascii_lowercase() == lower)
        .map(|(unit, _)| *unit)
        .or_else(|| closest(name, UNITS.iter().map(|(unit, _)| *unit)));
    let message = match suggestion {
        Some(s) => format!("unknown unit `{name}`; did you mean `{s}`?"),
        None => format!("unknown unit `{name}`; expected `B`, `KiB` or `KB` (1024 bytes)"),
    };
    Err(Error::new(span, message))
}

fn is_integer_suffix(suffix: &str) -> bool {
    matches!(
        suffix,
        "u8" | "u16"
            | "u32"
            | "u64"
            | "u128"
            | "usize"
            | "i8"
            | "i16"
            | "i32"
            | "i64"
            | "i128"
            | "isize"
    )
}

/// `digits` (a decimal, maybe with a fraction) times the unit's factor (bytes per unit), as
/// a whole `u32`.
fn parse_u32(digits: &str, unit: Option<(&str, u64)>, span: Span) -> Result<u32> {
    if digits.starts_with('-') {
        return Err(Error::new(span, "must not be negative"));
    }
    let (whole, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let frac = frac.trim_end_matches('0');
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !all_digits(whole) || !all_digits(frac) || frac.len() > 9 {
        return Err(Error::new(
            span,
            format!("`{digits}` is not a plain decimal number"),
        ));
    }
    let factor = unit.map_or(1, |(_, factor)| factor);
    let too_large = || match unit {
        None => Error::new(
            span,
            format!("`{digits}` is too large: the most is {}", u32::MAX),
        ),
        Some((name, _)) => Error::new(
            span,
            format!(
                "`{digits} {name}` is too large: the most is {} bytes",
                u32::MAX
            ),
        ),
    };
    let whole: u128 = whole.parse().map_err(|_| too_large())?;
    let frac_value: u128 = if frac.is_empty() {
        0
    } else {
        frac.parse().map_err(|_| too_large())?
    };
    // At most 9 fraction digits, so `scale` fits; `whole` can be up to 39 digits, so the
    // products are checked (a 38-digit size must be an error, not an overflow panic).
    let scale = 10u128.pow(frac.len() as u32);
    let scaled = whole
        .checked_mul(scale)
        .and_then(|v| v.checked_add(frac_value))
        .and_then(|v| v.checked_mul(u128::from(factor)))
        .ok_or_else(too_large)?;
    if !scaled.is_multiple_of(scale) {
        return Err(Error::new(
            span,
            format!("`{digits}` is not a whole number of bytes or units"),
        ));
    }
    u32::try_from(scaled / scale).map_err(|_| too_large())
}

/// A constant expression; literals of the wrong kind and negative literals are rejected
/// here, everything else is left to the compiler (the expression must be a `u32`).
fn parse_const_expr(input: ParseStream<'_>, what: &str) -> Result<Value> {
    let expr: Expr = input
        .parse()
        .map_err(|e| Error::new(e.span(), format!("expected {what}")))?;
    match &expr {
        Expr::Lit(ExprLit { lit, .. }) => match lit {
            Lit::Int(_) | Lit::Float(_) => {}
            Lit::Str(_) => {
                return Err(Error::new(
                    lit.span(),
                    format!("expected {what}, found a string"),
                ));
            }
            _ => return Err(Error::new(lit.span(), format!("expected {what}"))),
        },
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_), ..
        }) => {
            return Err(Error::new_spanned(&expr, "must not be negative"));
        }
        Expr::Array(_) | Expr::Tuple(_) | Expr::Closure(_) | Expr::Range(_) => {
            return Err(Error::new_spanned(&expr, format!("expected {what}")));
        }
        _ => {}
    }
    Ok(Value::Const(quote::ToTokens::into_token_stream(expr)))
}

/// `50%` or `0.5`; whole percent.
fn parse_carveout(input: ParseStream<'_>) -> Result<Percent> {
    let (floor, span) =
        parse_fraction(input, "a percentage such as `50%`", "carveout").map_err(|e| {
            Error::new(
                e.span(),
                e.to_string()
                    .replace("`carveout`: occupancy floor", "carveout"),
            )
        })?;
    let bp = floor.basis_points();
    if !bp.is_multiple_of(100) {
        return Err(Error::new(
            span,
            format!("the carveout is a whole percentage (0% to 100%), found {floor}"),
        ));
    }
    Ok(Percent {
        value: (bp / 100) as u8,
    })
}

fn parse_min_occupancy(input: ParseStream<'_>) -> Result<(MinOccupancy, Span)> {
    parse_fraction(
        input,
        "a percentage such as `50%` or a fraction such as `0.5`",
        "min_occupancy",
    )
}

/// `50%`, `37.5%`, `0.5`: a fraction of 1 with at most 4 decimals.
fn parse_fraction(input: ParseStream<'_>, what: &str, key: &str) -> Result<(MinOccupancy, Span)> {
    let lit: Lit = input
        .parse()
        .map_err(|e| Error::new(e.span(), format!("expected {what}")))?;
    let (digits, suffix, span) = match &lit {
        Lit::Int(i) => (i.base10_digits(), i.suffix(), i.span()),
        Lit::Float(f) => (f.base10_digits(), f.suffix(), f.span()),
        other => return Err(Error::new(other.span(), format!("expected {what}"))),
    };
    if !suffix.is_empty() {
        return Err(Error::new(
            span,
            format!("unexpected suffix `{suffix}`: expected {what}"),
        ));
    }
    if input.peek(Token![%]) {
        let percent: Token![%] = input.parse()?;
        let span = span.join(percent.span).unwrap_or(span);
        return MinOccupancy::from_percent_str(digits)
            .map(|floor| (floor, span))
            .map_err(|e| Error::new(span, format!("`{key}`: {e}")));
    }
    if matches!(lit, Lit::Int(_)) {
        return Err(Error::new(
            span,
            match digits.parse::<u32>() {
                Ok(v) if v <= 100 => format!(
                    "`{digits}` is ambiguous: write `{digits}%` or `{}`",
                    f64::from(v) / 100.0
                ),
                _ => format!(
                    "`{digits}` is ambiguous: write a percentage such as `50%` or a fraction such as `0.5`"
                ),
            },
        ));
    }
    MinOccupancy::from_fraction_str(digits)
        .map(|floor| (floor, span))
        .map_err(|e| Error::new(span, format!("`{key}`: {e}")))
}

/// `"sm_90"` or `["sm_80", "H100"]`.
fn parse_targets(input: ParseStream<'_>) -> Result<Vec<LitStr>> {
    if input.peek(LitStr) {
        return Ok(vec![input.parse()?]);
    }
    if input.peek(syn::token::Bracket) {
        let content;
        let brackets = bracketed!(content in input);
        let list = Punctuated::<LitStr, Token![,]>::parse_terminated(&content)
            .map_err(|e| Error::new(e.span(), "expected a string such as \"sm_90\" or \"H100\""))?;
        if list.is_empty() {
            return Err(Error::new(
                brackets.span.join(),
                "the target list is empty: name at least one, e.g. [\"sm_90\"]",
            ));
        }
        return Ok(list.into_iter().collect());
    }
    Err(input.error(
        "expected a target string such as \"sm_90\" or a list such as [\"sm_80\", \"H100\"]",
    ))
}

/// `true` or `false`.
fn parse_bool(input: ParseStream<'_>, key: &str) -> Result<syn::LitBool> {
    input
        .parse()
        .map_err(|e| Error::new(e.span(), format!("`{key}` takes `true` or `false`")))
}

fn parse_string(input: ParseStream<'_>, key: &str) -> Result<LitStr> {
    input
        .parse()
        .map_err(|e| Error::new(e.span(), format!("`{key}` takes a string literal")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn parse_ok(tokens: TokenStream) -> Result<Args> {
        let mut errors = Errors::default();
        let args = parse(tokens, &mut errors);
        errors.finish(args)
    }

    fn errors(tokens: TokenStream) -> Vec<String> {
        match parse_ok(tokens) {
            Ok(_) => vec![],
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    fn lit(v: &Value) -> Option<u32> {
        v.literal()
    }

    #[test]
    fn parses_every_key() {
        let args = parse_ok(quote! {
            block = (16, 8, 2), smem = 8 KiB, regs = 40, static_smem = 48 KB, opt_in = 100KiB,
            carveout = 50%, barriers = 4, max_threads = 256, target = ["sm_80", "H100"],
            min_occupancy = 37.5%, allow(partial_warp), deny(low_occupancy),
        })
        .unwrap();
        let dims: Vec<_> = args.block.unwrap().value.items[0]
            .dims
            .iter()
            .map(lit)
            .collect();
        assert_eq!(dims, [Some(16), Some(8), Some(2)]);
        assert_eq!(lit(&args.smem.unwrap().value.items[0]), Some(8192));
        assert_eq!(lit(&args.regs.unwrap().value), Some(40));
        assert_eq!(lit(&args.static_smem.unwrap().value), Some(49152));
        assert_eq!(lit(&args.opt_in.unwrap().value), Some(102400));
        assert_eq!(args.carveout.unwrap().value.value, 50);
        assert_eq!(lit(&args.barriers.unwrap().value), Some(4));
        assert_eq!(lit(&args.max_threads.unwrap().value), Some(256));
        assert_eq!(args.target.unwrap().value.len(), 2);
        assert_eq!(args.min_occupancy.unwrap().value.0.basis_points(), 3750);
        assert_eq!(args.levels.len(), 2);
        assert_eq!(args.levels[1].level, Level::Deny);
    }

    #[test]
    fn sizes_and_fractions() {
        let smem =
            |tokens: TokenStream| lit(&parse_ok(tokens).unwrap().smem.unwrap().value.items[0]);
        assert_eq!(smem(quote!(smem = 1.5 KiB)), Some(1536));
        assert_eq!(smem(quote!(smem = 512 B)), Some(512));
        assert_eq!(smem(quote!(smem = 0x100)), Some(256));
        assert_eq!(smem(quote!(smem = 4096u32)), Some(4096));
        assert_eq!(smem(quote!(smem = 2 * TILE)), None);
        assert_eq!(smem(quote!(smem = SMEM)), None);
        let floor = |tokens: TokenStream| parse_ok(tokens).unwrap().min_occupancy.unwrap().value.0;
        assert_eq!(floor(quote!(min_occupancy = 0.25)).basis_points(), 2500);
        assert_eq!(floor(quote!(min_occupancy = 50%)).basis_points(), 5000);
        let block = parse_ok(quote!(block = BLOCK))
            .unwrap()
            .block
            .unwrap()
            .value
            .items
            .remove(0);
        assert_eq!(block.dims.len(), 1);
        assert!(lit(&block.dims[0]).is_none());
        let block = parse_ok(quote!(block = (TILE, 4)))
            .unwrap()
            .block
            .unwrap()
            .value
            .items
            .remove(0);
        assert_eq!(block.dims.len(), 2);
    }

    /// fuzz target `attribute`: a 38-digit size times its unit overflowed a u128 (a panic
    /// in every debug build of a user's crate, where proc macros run with overflow checks).
    #[test]
    fn huge_sizes_are_errors_not_overflows() {
        let big = "9".repeat(38);
        for (args, digits) in [
            (format!("smem = {big} KiB"), big.clone()),
            (format!("smem = {big}.5 KiB"), format!("{big}.5")),
            (
                format!("opt_in = {big}.123456789 KiB"),
                format!("{big}.123456789"),
            ),
        ] {
            assert_eq!(
                errors(args.parse().unwrap()),
                [format!(
                    "`{digits} KiB` is too large: the most is 4294967295 bytes"
                )],
                "{args}"
            );
        }
        // A size whose digits fit a u32 but whose bytes do not names the unit.
        assert_eq!(
            errors(quote!(opt_in = 4194304 KiB)),
            ["`4194304 KiB` is too large: the most is 4294967295 bytes"]
        );
        // The largest that fits still parses: 4 GiB - 1 KiB, and u32::MAX bytes.
        let smem = |args: &str| {
            lit(&parse_ok(args.parse().unwrap())
                .unwrap()
                .smem
                .unwrap()
                .value
                .items[0])
        };
        assert_eq!(smem("smem = 4194303 KiB"), Some(4_294_966_272));
        assert_eq!(smem("smem = 4294967295"), Some(u32::MAX));
    }

    #[test]
    fn candidates_and_kernel_families() {
        let args = parse_ok(quote! {
            block = [32, (16, 16), 1024], smem = [4 KiB, 64 KiB], grid = [(64, 64), 132],
            kernel = ["affine_f32", "affine_f16"],
        })
        .unwrap();
        let block = args.block.unwrap().value;
        assert!(block.list);
        let dims: Vec<Vec<Option<u32>>> = block
            .items
            .iter()
            .map(|d| d.dims.iter().map(lit).collect())
            .collect();
        assert_eq!(
            dims,
            [vec![Some(32)], vec![Some(16), Some(16)], vec![Some(1024)]]
        );
        let smem: Vec<_> = args.smem.unwrap().value.items.iter().map(lit).collect();
        assert_eq!(smem, [Some(4096), Some(65536)]);
        assert_eq!(args.grid.unwrap().value.items.len(), 2);
        let kernels: Vec<String> = args
            .kernel
            .unwrap()
            .value
            .items
            .iter()
            .map(LitStr::value)
            .collect();
        assert_eq!(kernels, ["affine_f32", "affine_f16"]);
        let single = parse_ok(quote!(block = 256, kernel = "affine_*")).unwrap();
        assert!(!single.block.unwrap().value.list);
        assert_eq!(
            errors(quote!(block = [])),
            ["the list of `block` candidates is empty: give at least one value"]
        );
        let many = format!("smem = [{}]", vec!["1"; 65].join(", "));
        assert_eq!(
            errors(many.parse().unwrap()),
            ["65 `smem` candidates: at most 64"]
        );
    }

    #[test]
    fn every_error_at_once() {
        let found = errors(quote! {
            blok = 256, regs = 40, regs = 41, smem = 8 kb, target = sm_90, carveout = 12.5%,
            min_occupancy = 50, barriers = "4", block = (0, 4), opt_in = 1.3 KiB,
            max_threads = 99999999999, deny(), static_smem = -4,
        });
        assert_eq!(
            found,
            [
                "unknown key `blok`; did you mean `block`?",
                "duplicate key `regs`",
                "unknown unit `kb`; did you mean `KB`?",
                "expected a target string such as \"sm_90\" or a list such as [\"sm_80\", \"H100\"]",
                "the carveout is a whole percentage (0% to 100%), found 12.5%",
                "`50` is ambiguous: write `50%` or `0.5`",
                "expected a whole number or a constant, found a string",
                "a block dimension must be at least 1",
                "`1.3` is not a whole number of bytes or units",
                "`99999999999` is too large: the most is 4294967295",
                "`deny(...)` needs at least one lint name, e.g. `deny(low_occupancy)`",
                "must not be negative",
            ]
        );
    }

    #[test]
    fn malformed_structure() {
        assert_eq!(
            errors(quote!(block)),
            ["expected `=` and a value after `block`"]
        );
        assert_eq!(errors(quote!(block =)), ["missing value after `block =`"]);
        assert_eq!(
            errors(quote!(block = 256 regs = 4)),
            ["unexpected token after the value of `block`; arguments are separated by commas"]
        );
        assert_eq!(
            errors(quote!(, block = 256)),
            ["expected an argument before `,`"]
        );
        assert_eq!(
            errors(quote!(block = (1, 2, 3, 4))),
            ["a block has 1 to 3 dimensions, found 4: write 256, (16, 16) or (8, 8, 4)"]
        );
        assert_eq!(
            errors(quote!(target = [])),
            ["the target list is empty: name at least one, e.g. [\"sm_90\"]"]
        );
        assert_eq!(
            errors(quote!(42)),
            ["expected an argument such as `block = 256`"]
        );
        assert_eq!(
            errors(quote!(kernel = 3)),
            ["`kernel` takes a string literal"]
        );
        assert!(errors(quote!(block = 256,)).is_empty());
    }
}
