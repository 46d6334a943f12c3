//! `sizeof` and `alignof` of the unit's own types, lowered: a plain struct or union laid out
//! member by member as [`crate::layout`] says (each member at the next multiple of its
//! alignment, the size rounded up to the largest), its size an expression the core
//! computes, so that an array's count is the constant or macro as written (`uint8_t
//! qs[QK_K/4]`), its alignment known at lowering. The built-in types are
//! [`crate::layout::builtin`]'s, a pointer 8 bytes.
//!
//! A `#if` among the members takes the branch the build compiles (the unit's
//! [`Decider`](crate::preproc::Decider)); a type with several definitions left by the
//! build's `#if`s, a template's parameter, a base class, a bit-field, a virtual function or
//! an alignment attribute is not laid out (the why says which), as `interp/sizeof.rs` does
//! for the interpreter, which this replaces at stage 4 of docs/READING-CORE.md.

use occupancy_read::ir::{Expr, IntTy, Op};

use super::Lower;
use crate::index::{At, Taken, chosen, preproc_branches};
use crate::layout::{adds_data, builtin, record_refusal, takes_no_room};
use crate::syntax::{Field, Kind, clip};

/// The deepest nesting of types laid out (structs in structs, aliases, declarators), over
/// the depth of the expression whose `sizeof` it is (the depth counts both: an array's
/// count is lowered at the depth its type is laid out at).
const MAX_DEPTH: usize = super::MAX_DEPTH + 16;

/// A type's layout: its size in bytes (a `size_t` expression) and its alignment.
pub(super) struct Sized {
    pub(super) size_bytes: Expr,
    pub(super) align_bytes: u64,
}

type Laid = Result<Sized, String>;

fn bytes(n: u64) -> Expr {
    Expr::Int(n.into(), Some(IntTy::U64))
}

/// `x` rounded up to a multiple of `align`: `(x + align - 1) / align * align`.
fn round_up(x: Expr, align: u64) -> Expr {
    if align <= 1 {
        return x;
    }
    let bin = |op, a, b| Expr::Binary(op, Box::new(a), Box::new(b));
    let up = bin(Op::Add, x, bytes(align - 1));
    bin(Op::Mul, bin(Op::Div, up, bytes(align)), bytes(align))
}

impl Lower<'_> {
    /// `sizeof(T)` or `alignof(T)` (a `size_t`): a built-in type's or one of the unit's
    /// structs; else opaque with the reason. `sizeof(__half2)` parses as the size of a
    /// parenthesised name.
    pub(super) fn size_or_align(&mut self, e: At<'_>, d: usize) -> Expr {
        let named = e.field(Field::Value).and_then(|v| match v.kind() {
            Some(Kind::ParenthesizedExpression) => match v.children().as_slice() {
                [n] if matches!(n.kind(), Some(Kind::Identifier | Kind::QualifiedIdentifier)) => {
                    Some(*n)
                }
                _ => None,
            },
            _ => None,
        });
        let operand = e.field(Field::Type).or(named);
        let layout = match operand {
            Some(t) => self.sized(t, d),
            None => Err("the size of an expression".to_owned()),
        };
        let align = e.kind() != Some(Kind::SizeofExpression);
        match layout {
            Ok(l) if !align => l.size_bytes,
            Ok(l) => Expr::Int(l.align_bytes.into(), Some(IntTy::U64)),
            // A type the reading binds (a template's type parameter): laid out there.
            Err(_) if operand.is_some_and(|t| self.names_type_parameter(t)) => {
                let t = operand.unwrap_or(e);
                Expr::SizeOf(Box::new(Expr::Type(Box::new(self.type_expr(t, d)))), align)
            }
            Err(why) => {
                let what = "the size of a type not laid out";
                self.opaque(e, what);
                Expr::Opaque(format!("`{}` ({what}: {why})", clip(e.text(), 40)))
            }
        }
    }

    /// The layout of the type a `sizeof`/`alignof` names: its type node, or the name
    /// `sizeof(T)` parses as an expression.
    pub(super) fn sized(&mut self, t: At<'_>, depth: usize) -> Laid {
        if depth > MAX_DEPTH {
            return Err("types nested too deeply".to_owned());
        }
        let d = depth + 1;
        match t.kind() {
            Some(Kind::TypeDescriptor) => match t.field(Field::Declarator) {
                Some(decl) => self.declared(t.field(Field::Type), decl, d),
                None => match t.field(Field::Type) {
                    Some(b) => self.sized(b, d),
                    None => Err(format!("`{}` is not a type read", clip(t.text(), 40))),
                },
            },
            Some(Kind::PrimitiveType | Kind::SizedTypeSpecifier) => self.named(t.text(), d),
            Some(Kind::StructSpecifier | Kind::ClassSpecifier | Kind::UnionSpecifier) => {
                if t.field(Field::Body).is_some() {
                    return self.record(t, d);
                }
                match t.field(Field::Name) {
                    Some(n) => self.named(n.text(), d),
                    None => Err(format!("`{}` is not a type read", clip(t.text(), 40))),
                }
            }
            Some(Kind::TypeIdentifier | Kind::Identifier | Kind::QualifiedIdentifier) => {
                self.named(t.text(), d)
            }
            Some(Kind::ParenthesizedExpression) => match t.children().as_slice() {
                [inner] => self.sized(*inner, d),
                _ => Err(format!(
                    "`{}`: the size of an expression",
                    clip(t.text(), 40)
                )),
            },
            _ => Err(format!(
                "`{}` is not a type whose size the reader knows",
                clip(t.text(), 40)
            )),
        }
    }

    /// A type by name: built in, one of the unit's structs (one definition in this build),
    /// or an alias of one.
    pub(super) fn named(&mut self, name: &str, depth: usize) -> Laid {
        let name = name.trim();
        if let Some(l) = builtin(name) {
            return Ok(Sized {
                size_bytes: bytes(l.size_bytes),
                align_bytes: l.align_bytes,
            });
        }
        let simple = name.rsplit("::").next().unwrap_or(name);
        let index = self.unit.index;
        if let Some(records) = index.records.get(simple) {
            return match records.as_slice() {
                [one] => self.record(*one, depth + 1),
                _ => Err(format!(
                    "`{name}` has {} definitions the build's `#if`s leave",
                    records.len()
                )),
            };
        }
        if let Some(alias) = index.aliases.get(simple).copied() {
            return self.sized(alias, depth + 1);
        }
        Err(format!(
            "`{name}` is not a type whose size the reader knows (a template's parameter, or declared without members)"
        ))
    }

    /// A declarator on a base type: `T*` (a pointer), `T[N]` (an array of `N`).
    fn declared(&mut self, base: Option<At<'_>>, decl: At<'_>, depth: usize) -> Laid {
        if depth > MAX_DEPTH {
            return Err("types nested too deeply".to_owned());
        }
        let d = depth + 1;
        match decl.kind() {
            Some(
                Kind::AbstractPointerDeclarator
                | Kind::PointerDeclarator
                | Kind::AbstractReferenceDeclarator,
            ) => Ok(Sized {
                size_bytes: bytes(8),
                align_bytes: 8,
            }),
            Some(Kind::AbstractArrayDeclarator | Kind::ArrayDeclarator) => {
                let element = match decl.field(Field::Declarator) {
                    Some(inner)
                        if !matches!(
                            inner.kind(),
                            Some(Kind::FieldIdentifier | Kind::Identifier)
                        ) =>
                    {
                        self.declared(base, inner, d)?
                    }
                    _ => match base {
                        Some(b) => self.sized(b, d)?,
                        None => return Err("an array of no type".to_owned()),
                    },
                };
                let Some(count) = decl.field(Field::Size) else {
                    return Err(format!("`{}`: an array of no size", clip(decl.text(), 40)));
                };
                let count = Expr::Cast(Box::new(self.expr(count, d)), IntTy::U64);
                Ok(Sized {
                    size_bytes: Expr::Binary(
                        Op::Mul,
                        Box::new(element.size_bytes),
                        Box::new(count),
                    ),
                    align_bytes: element.align_bytes,
                })
            }
            Some(Kind::FieldIdentifier | Kind::Identifier | Kind::TypeIdentifier) => match base {
                Some(b) => self.sized(b, d),
                None => Err("no type".to_owned()),
            },
            Some(Kind::ParenthesizedDeclarator) => match decl.children().first().copied() {
                Some(inner) => self.declared(base, inner, d),
                None => Err("no declarator".to_owned()),
            },
            _ => Err(format!(
                "`{}`: a declarator the reader does not lay out",
                clip(decl.text(), 40)
            )),
        }
    }

    /// A struct, class or union with a body, member by member.
    fn record(&mut self, spec: At<'_>, depth: usize) -> Laid {
        if depth > MAX_DEPTH {
            return Err("structs nested too deeply".to_owned());
        }
        let shown = spec
            .field(Field::Name)
            .map_or_else(|| clip(spec.text(), 30), |n| n.text().to_owned());
        if let Some(why) = record_refusal(spec, &shown) {
            return Err(why);
        }
        let Some(body) = spec.field(Field::Body) else {
            return Err(format!("`{shown}` is declared without members here"));
        };
        let mut members = Vec::new();
        self.members(body, depth, &mut members)?;
        let union = spec.kind() == Some(Kind::UnionSpecifier);
        let mut size = bytes(0);
        let mut align = 1;
        for m in members {
            align = align.max(m.align_bytes);
            size = if union {
                Expr::Method(
                    Box::new(size),
                    occupancy_read::ir::Method::Max,
                    vec![m.size_bytes],
                )
            } else {
                let at = round_up(size, m.align_bytes);
                Expr::Binary(Op::Add, Box::new(at), Box::new(m.size_bytes))
            };
        }
        // An empty struct takes one byte in C++.
        let size = Expr::Method(
            Box::new(round_up(size, align)),
            occupancy_read::ir::Method::Max,
            vec![bytes(1)],
        );
        Ok(Sized {
            size_bytes: size,
            align_bytes: align,
        })
    }

    /// `T name = { a, b, .. }` of a plain struct `T` of the unit (one definition in this
    /// build, no base class, no `#if` among its members): a struct of the members given,
    /// in order (aggregate initialisation; the members not given are left out, not known).
    /// `None` where it is not one.
    pub(super) fn aggregate(&mut self, ty: &str, list: At<'_>, d: usize) -> Option<Expr> {
        let simple = ty.trim().rsplit("::").next().unwrap_or(ty).trim();
        let [spec] = self.unit.index.records.get(simple)?.as_slice() else {
            return None;
        };
        let spec = *spec;
        if record_refusal(spec, simple).is_some() {
            return None;
        }
        // The data members in order, each with whether it is a scalar (an integer, a
        // `bool`, a pointer: 0 where the list does not give it, as C++ value-initialises
        // it; another type's value is left unread).
        let mut members: Vec<(String, bool)> = Vec::new();
        for m in spec.field(Field::Body)?.children() {
            match m.kind() {
                Some(Kind::FieldDeclaration) if adds_data(m).ok()? => {
                    let declarators = crate::syntax::field_children(m.node, Field::Declarator);
                    if declarators.is_empty() {
                        return None;
                    }
                    let integer = m
                        .field(Field::Type)
                        .is_some_and(|t| super::int_type(t.text()).is_some() || t.text() == "bool");
                    for decl in declarators {
                        let decl = m.with(decl);
                        let pointer = crate::index::pointer_depth(Some(decl)) > 0;
                        let array = decl.kind() == Some(Kind::ArrayDeclarator);
                        let scalar = (integer || pointer) && !array;
                        members.push((crate::index::declared_name(decl)?, scalar));
                    }
                }
                Some(Kind::FieldDeclaration) => {}
                _ if takes_no_room(m) => {}
                _ => return None,
            }
        }
        // The values given: in order, or each by a designator (`.rows = 9`).
        let values = list.children();
        let given: Vec<(String, At<'_>)> = match designated(list) {
            Some(pairs) if !pairs.is_empty() => pairs,
            _ if values.len() <= members.len()
                && !values.iter().any(|v| {
                    matches!(
                        v.kind(),
                        Some(Kind::InitializerPair | Kind::InitializerList)
                    )
                }) =>
            {
                members
                    .iter()
                    .map(|(n, _)| n.clone())
                    .zip(values.iter().copied())
                    .collect()
            }
            _ => return None,
        };
        if given
            .iter()
            .any(|(n, _)| !members.iter().any(|(m, _)| m == n))
        {
            return None;
        }
        let at = self.at(list);
        let mut fields = Vec::new();
        for (name, scalar) in &members {
            match given.iter().find(|(n, _)| n == name) {
                Some((_, v)) => fields.push((name.clone(), self.expr(*v, d + 1), self.at(*v))),
                None if *scalar => fields.push((name.clone(), Expr::Int(0, None), at)),
                None => {}
            }
        }
        Some(Expr::Struct(Box::new(occupancy_read::ir::StructLit {
            name: simple.to_owned(),
            fields,
            rest: None,
            at: self.at(list),
        })))
    }

    /// The data members of a body (or of a `#if` branch of one), in order.
    fn members(&mut self, body: At<'_>, depth: usize, out: &mut Vec<Sized>) -> Result<(), String> {
        for m in body.children() {
            match m.kind() {
                Some(Kind::FieldDeclaration) => self.field(m, depth, out)?,
                Some(Kind::PreprocIf | Kind::PreprocIfdef) => {
                    let taken = match self.unit.decider {
                        Some(decider) => chosen(&preproc_branches(m), decider, true),
                        None => Taken::Each,
                    };
                    match taken {
                        Taken::Branch(nodes) => {
                            for n in nodes {
                                match n.kind() {
                                    Some(Kind::FieldDeclaration) => self.field(n, depth, out)?,
                                    _ if takes_no_room(n) => {}
                                    _ => {
                                        return Err(format!(
                                            "`{}` in a struct is not laid out",
                                            clip(n.text(), 40)
                                        ));
                                    }
                                }
                            }
                        }
                        Taken::None => {}
                        Taken::Each => {
                            return Err(
                                "a `#if` among the members the build does not decide".to_owned()
                            );
                        }
                    }
                }
                Some(Kind::FunctionDefinition)
                    if m.children().iter().any(|c| c.kind() == Some(Kind::Virtual)) =>
                {
                    return Err("a virtual function".to_owned());
                }
                _ if takes_no_room(m) => {}
                _ => {
                    return Err(format!(
                        "`{}` in a struct is not laid out",
                        clip(m.text(), 40)
                    ));
                }
            }
        }
        Ok(())
    }

    /// The data members one member declaration adds (none for a static member or a member
    /// function; an anonymous struct or union's members in place, as one member).
    fn field(&mut self, m: At<'_>, depth: usize, out: &mut Vec<Sized>) -> Result<(), String> {
        if !adds_data(m)? {
            return Ok(());
        }
        let ty = m.field(Field::Type);
        let declarators = crate::syntax::field_children(m.node, Field::Declarator);
        if declarators.is_empty() {
            if let Some(t) = ty
                && matches!(t.kind(), Some(Kind::StructSpecifier | Kind::UnionSpecifier))
                && t.field(Field::Body).is_some()
            {
                out.push(self.record(t, depth + 1)?);
            }
            return Ok(());
        }
        for decl in declarators {
            let decl = m.with(decl);
            if decl.kind() != Some(Kind::FunctionDeclarator) {
                out.push(self.declared(ty, decl, depth + 1)?);
            }
        }
        Ok(())
    }
}

/// The members an initialiser list gives each by one field designator (`{ .rows = 9, .x
/// = x }`): each member's name and value, in the order written; `None` where some value
/// is not so given (positional, nested designators).
pub(super) fn designated(list: At<'_>) -> Option<Vec<(String, At<'_>)>> {
    list.children()
        .into_iter()
        .map(|v| {
            if v.kind() != Some(Kind::InitializerPair)
                || crate::syntax::field_children(v.node, Field::Designator).len() != 1
            {
                return None;
            }
            let name = v.field(Field::Designator)?.text().strip_prefix('.')?.trim();
            Some((name.to_owned(), v.field(Field::Value)?))
        })
        .collect()
}
