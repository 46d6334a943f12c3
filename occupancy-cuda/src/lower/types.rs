//! C++ types lowered as values of the reading core ([`Expr::Type`]): a template's
//! arguments (`k<float, 64>`, `f<T>`), `sizeof` of a type the lowering cannot lay out
//! itself (a template's type parameter: [`Expr::SizeOf`]), and the unit's type aliases as
//! the core's names answer them ([`alias_type`]).
//!
//! A type is lowered as written: its name, its template arguments (each a type or a
//! value) and its declarator (`*`). The core resolves the name where it reads it: a
//! template parameter or a constant bound on the path, else the unit's alias, else the name
//! as written; so a template's body is lowered once and read per instantiation, as the
//! compiler instantiates it. Qualifiers (`const`, `volatile`) are dropped, as they are in
//! a kernel's instantiation as the check matches it with the object's symbols.

use occupancy_read::ir::{self, Block, Expr, IntTy, Segment, Stmt, TypeExpr};
use occupancy_read::names::seg;

use super::{Lower, Unit, int_type};
use crate::index::{At, Init};
use crate::syntax::{Field, Kind};

/// The deepest alias chain followed (`typedef A B; typedef B C;`).
const MAX_ALIASES: usize = 16;

impl Lower<'_> {
    /// A template argument: a value where it is one (`64`, `N * 2`, `true`, an object-like
    /// macro's expansion), else a type ([`Expr::Type`]; a single name, `T` or `Q4_0`, is
    /// one too: the core reads it as the binding or constant of that name where there is
    /// one).
    pub(super) fn template_arg(&mut self, a: At<'_>, d: usize) -> Expr {
        match a.kind() {
            Some(Kind::TypeDescriptor) => {
                let base = a.field(Field::Type);
                match (base, a.field(Field::Declarator)) {
                    (Some(t), None)
                        if matches!(t.kind(), Some(Kind::TypeIdentifier))
                            && self.invocation(t).is_some() =>
                    {
                        self.expr(t, d)
                    }
                    _ => Expr::Type(Box::new(self.type_expr(a, d))),
                }
            }
            _ => self.expr(a, d),
        }
    }

    /// A type alias declared in a body (`using scalar_t = float;`, `typedef __half T;`, as
    /// dispatch macros write one per case): a binding of the name to the type, which a
    /// reading takes per path, as a template's type parameter (`None`: not such an alias,
    /// a function pointer's say).
    pub(super) fn local_alias(&mut self, s: At<'_>, d: usize) -> Option<Stmt> {
        let (name, ty) = match s.kind() {
            Some(Kind::AliasDeclaration) => (s.field(Field::Name)?, s.field(Field::Type)?),
            Some(Kind::TypeDefinition) => {
                match crate::syntax::field_children(s.node, Field::Declarator).as_slice() {
                    [one] => (s.with(*one), s.field(Field::Type)?),
                    _ => return None,
                }
            }
            _ => return None,
        };
        if name.kind() != Some(Kind::TypeIdentifier) {
            return None;
        }
        let value = Expr::Type(Box::new(self.type_expr(ty, d)));
        self.type_params.insert(name.text().to_owned());
        let at = self.at(s);
        Some(Stmt::Let(Box::new(ir::Let {
            pat: ir::Pat::Bind(name.text().to_owned(), None),
            init: Some(value),
            otherwise: None,
            ty: None,
            at,
        })))
    }

    /// Whether the type node `t` is one of the function's template type parameters
    /// (`T`, `const T`), which a reading binds per instantiation.
    pub(super) fn names_type_parameter(&self, t: At<'_>) -> bool {
        let base = match t.kind() {
            Some(Kind::TypeDescriptor) if t.field(Field::Declarator).is_none() => {
                t.field(Field::Type)
            }
            _ => Some(t),
        };
        base.is_some_and(|b| {
            matches!(b.kind(), Some(Kind::TypeIdentifier | Kind::Identifier))
                && self.type_params.contains(b.text())
        })
    }

    /// The type node `t` as written: its name, template arguments and declarator.
    pub(super) fn type_expr(&mut self, t: At<'_>, d: usize) -> TypeExpr {
        let plain = |name: &str| TypeExpr {
            name: squeezed(name),
            args: Vec::new(),
            declarator: String::new(),
        };
        if d > super::MAX_DEPTH {
            return plain(t.text());
        }
        match t.kind() {
            Some(Kind::TypeDescriptor) => {
                let mut base = t
                    .field(Field::Type)
                    .map_or_else(|| plain(t.text()), |b| self.type_expr(b, d + 1));
                if let Some(decl) = t.field(Field::Declarator) {
                    base.declarator
                        .push_str(&decl.text().split_whitespace().collect::<String>());
                }
                base
            }
            Some(Kind::TemplateType) => TypeExpr {
                name: t
                    .field(Field::Name)
                    .map_or(String::new(), |n| squeezed(n.text())),
                args: t
                    .field(Field::Arguments)
                    .map(|list| list.children())
                    .unwrap_or_default()
                    .into_iter()
                    .map(|a| self.template_arg(a, d + 1))
                    .collect(),
                declarator: String::new(),
            },
            Some(Kind::StructSpecifier | Kind::ClassSpecifier) => match t.field(Field::Name) {
                Some(n) => plain(n.text()),
                None => plain(t.text()),
            },
            _ => plain(t.text()),
        }
    }
}

/// `text` with its white space as C++ spells a type's name: runs of it one space
/// (`unsigned int`), none around `::`.
fn squeezed(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace(" ::", "::")
        .replace(":: ", "::")
}

/// What the unit's type alias `name` (`typedef`, `using`) stands for, followed through
/// other aliases: a built-in type or a struct by its name, else the aliased type as written
/// (white space squeezed); `None` where `name` is no alias of the unit. An alias of an
/// unnamed struct (`typedef struct { .. } S;`) is `S`.
pub(super) fn alias_type(unit: Unit<'_>, name: &str) -> Option<String> {
    let index = unit.index;
    let mut at = *index.aliases.get(name)?;
    let mut shown = name.to_owned();
    for _ in 0..MAX_ALIASES {
        match at.kind() {
            Some(Kind::StructSpecifier | Kind::ClassSpecifier | Kind::UnionSpecifier) => {
                return Some(at.field(Field::Name).map_or(shown, |n| n.text().to_owned()));
            }
            Some(Kind::TypeIdentifier) => {
                let next = at.text();
                match index.aliases.get(next) {
                    Some(further) if next != shown => {
                        shown = next.to_owned();
                        at = *further;
                    }
                    _ => return Some(next.to_owned()),
                }
            }
            _ => return Some(squeezed(at.text())),
        }
    }
    Some(shown)
}

/// The layout of the type `ty` (as the core spells a [`occupancy_read::value::Val::Type`]):
/// its size in bytes as an expression the core computes and its alignment; `None` where the
/// lowering does not lay it out (see `layout.rs`).
pub(super) fn type_layout(unit: Unit<'_>, ty: &str) -> Option<(Expr, u64)> {
    let mut lower = Lower::new(unit);
    let laid = lower.named(ty, 0).ok()?;
    Some((laid.size_bytes, laid.align_bytes))
}

/// A variable's declared type: the type, its pointers and whether `const` qualifies it.
pub(super) type Declared = (TypeExpr, u8, bool);

impl Lower<'_> {
    /// Records the type the declaration `s` gives the variable `name` its declarator
    /// `declarator` declares (`auto` gives none).
    pub(super) fn declare(&mut self, s: At<'_>, declarator: At<'_>, name: &str) {
        let Some(ty) = s.field(Field::Type) else {
            return;
        };
        if ty.text().split_whitespace().any(|w| w == "auto") {
            self.declared.remove(name);
            return;
        }
        let ty = self.type_expr(ty, 0);
        let pointers = crate::index::pointer_depth(Some(declarator));
        self.declared
            .insert(name.to_owned(), (ty, pointers, crate::index::has_const(s)));
    }

    /// Records `name` of the declaration `s` as a `static` array of zeros
    /// ([`Lower::static_zeros`]) where it is one: `static bool raised[N] = {false};`,
    /// `static int done[N] = {0};`, `= {}`.
    pub(super) fn static_zero(
        &mut self,
        s: At<'_>,
        declarator: At<'_>,
        value: Option<At<'_>>,
        name: &str,
    ) {
        self.static_zeros.remove(name);
        let is_static = s
            .children()
            .iter()
            .any(|c| c.kind() == Some(Kind::StorageClassSpecifier) && c.text() == "static");
        let zeros = value.is_some_and(|v| {
            v.kind() == Some(Kind::InitializerList)
                && v.children().iter().all(|c| {
                    c.kind() == Some(Kind::False)
                        || (c.kind() == Some(Kind::NumberLiteral) && c.text() == "0")
                })
        });
        if !is_static || !zeros || declarator.kind() != Some(Kind::ArrayDeclarator) {
            return;
        }
        let ty = s.field(Field::Type).map_or("", |t| t.text());
        let zero = match super::int_type(ty) {
            Some(int) => Expr::Int(0, Some(int)),
            None if ty.trim() == "bool" => Expr::Bool(false),
            None => return,
        };
        self.static_zeros.insert(name.to_owned(), zero);
    }

    /// The template type arguments a call of `path` with `args` deduces after those
    /// written, appended to its last segment as written ones ([temp.deduct.call], the
    /// plain cases, as the compiler deduces them): a type parameter `T` from each parameter
    /// declared `T`, `const T*`, `T&` whose argument is a variable with its declared type
    /// (`const float* x`: `T = float`) or a cast to a type; every such argument must agree.
    /// Stops at the first parameter it cannot deduce (a non-type one, one no argument
    /// gives), which keeps its default or is not read. The callee: the unit's function of
    /// the name taking as many arguments, as the core's names choose it.
    pub(super) fn deduce_call(&mut self, path: &mut ir::Path, args: &[At<'_>], d: usize) {
        let Some(last) = path.segments.last() else {
            return;
        };
        let index = self.unit.index;
        let Some(callee) = index.functions.get(&last.ident).and_then(|fs| {
            let fs: Vec<_> = fs.iter().filter(|f| !f.is_kernel).collect();
            fs.iter()
                .find(|f| f.params.len() == args.len())
                .or(fs.first())
                .copied()
        }) else {
            return;
        };
        let written = last.args.len();
        let deduced = self.deduced(&callee.template, &callee.params, written, args, d);
        if let Some(last) = path.segments.last_mut() {
            last.args
                .extend(deduced.into_iter().map(|ty| ir::GenericArg {
                    text: ir::text(&ty),
                    value: Some(ty),
                }));
        }
    }

    /// The template arguments of a kernel launched without them (`k<<<g, b>>>(x, n)`):
    /// deduced from the launch's arguments, the rest their defaults; empty where the kernel
    /// is not one template of the unit, one not deduced ([`Expr::Opaque`]) where some has
    /// neither.
    pub(super) fn deduce_kernel(&mut self, name: &str, args: &[At<'_>], d: usize) -> Vec<Expr> {
        let index = self.unit.index;
        let Some(kernel) = index
            .kernel(name)
            .filter(|k| !k.template.is_empty() && index.kernel_definitions(name) == 1)
        else {
            return Vec::new();
        };
        let mut out = self.deduced(&kernel.template, &kernel.params, 0, args, d);
        for t in kernel.template.iter().skip(out.len()) {
            out.push(match (t.default, t.is_type) {
                (Some(def), true) => Expr::Type(Box::new(self.type_expr(def, d))),
                (Some(def), false) => self.expr(def, d),
                (None, _) => Expr::Opaque(format!(
                    "template parameter `{}` of `{name}` is not deduced from the launch's arguments",
                    t.name
                )),
            });
        }
        out
    }

    /// The type arguments of `template` after the `explicit` ones that `args` deduce for
    /// `params` (see [`Lower::deduce_call`]).
    fn deduced(
        &mut self,
        template: &[crate::index::TemplateParam<'_>],
        params: &[crate::index::Param<'_>],
        explicit: usize,
        args: &[At<'_>],
        d: usize,
    ) -> Vec<Expr> {
        let mut out = Vec::new();
        for t in template.iter().skip(explicit) {
            if !t.is_type || t.pack {
                break;
            }
            let mut found: Option<TypeExpr> = None;
            for (param, arg) in params.iter().zip(args) {
                if param.ty.trim() != t.name {
                    continue;
                }
                let Some((ty, pointers, is_const)) = self.argument_type(*arg, d) else {
                    continue;
                };
                if pointers != param.pointers || (pointers > 0 && is_const && !param.is_const) {
                    // `T*` against `float**` deduces `T = float*`, against `float` nothing,
                    // against `const float*` `T = const float`: not a type this reads.
                    return out;
                }
                match &found {
                    None => found = Some(ty),
                    Some(other) if *other == ty => {}
                    Some(_) => return out,
                }
            }
            match found {
                Some(ty) => out.push(Expr::Type(Box::new(ty))),
                None => break,
            }
        }
        out
    }

    /// The type of a call's argument where the lowering knows it: a variable's declared
    /// type, or a cast's (`reinterpret_cast<const half*>(x)`, `(const float*)x`).
    fn argument_type(&mut self, arg: At<'_>, d: usize) -> Option<Declared> {
        let inner = match arg.kind() {
            Some(Kind::ParenthesizedExpression) => *arg.children().first()?,
            _ => arg,
        };
        if inner.kind() == Some(Kind::Identifier) {
            return self.declared.get(inner.text()).cloned();
        }
        let descriptor = crate::index::cast_descriptor(arg)?;
        let base = descriptor.field(Field::Type)?;
        let pointers = crate::index::pointer_depth(descriptor.field(Field::Declarator));
        Some((
            self.type_expr(base, d),
            pointers,
            crate::index::has_const(descriptor),
        ))
    }
}

/// A root that runs the explicit instantiation `inst` of the host template `f`
/// (`template void run<float, 64>(const float*, int);`): a call of `f` with the
/// instantiation's template arguments and the root's parameters, `f`'s own.
pub(super) fn instantiation(
    f: &crate::index::Function<'_>,
    inst: At<'_>,
    unit: Unit<'_>,
) -> super::Lowered {
    let mut lower = Lower::new(unit);
    // The instantiation's template arguments as a call's (`run<float, 64>`), of `f` as
    // the unit names it.
    let args = lower.segment(inst, 0).map(|s| s.args).unwrap_or_default();
    let at = lower.at(inst);
    let call = Expr::Call(
        ir::Path {
            leading_colon: false,
            segments: vec![ir::Segment {
                ident: f.name.clone(),
                args,
            }],
        },
        f.params
            .iter()
            .map(|p| Expr::Path(super::local(&p.name), at))
            .collect(),
        at,
    );
    super::Lowered {
        body: ir::Block {
            stmts: Vec::new(),
            tail: Some(call),
        },
        places: lower.places,
        not_lowered: lower.not_lowered,
        hidden_launches: 0,
        launches: Vec::new(),
        notes: lower.notes,
    }
}

/// A constant's initialiser lowered, with its declared type as written: an enumerator with
/// none is the one before it plus 1 (the first, 0), an `int`.
pub(super) fn constant_init(init: &Init<'_>, unit: Unit<'_>) -> (String, Expr) {
    match init {
        Init::Expr(e, ty) => (ty.clone(), super::expression(*e, unit)),
        Init::NextAfter(before) => (
            "int".to_owned(),
            match before {
                Some(b) => Expr::Binary(
                    ir::Op::Add,
                    Box::new(Expr::Path(
                        ir::Path {
                            leading_colon: false,
                            segments: vec![seg(b)],
                        },
                        ir::At::NONE,
                    )),
                    Box::new(Expr::Int(1, Some(IntTy::I32))),
                ),
                None => Expr::Int(0, Some(IntTy::I32)),
            },
        ),
    }
}

/// A path's segment as the type it names, spelled as the core spells a type
/// (`AttentionTraits<64>`): the identifier, with its template arguments as written where
/// the core left them.
pub(super) fn type_text(s: &Segment) -> String {
    if s.args.is_empty() {
        return s.ident.clone();
    }
    let args: Vec<&str> = s.args.iter().map(|a| a.text.as_str()).collect();
    format!("{}<{}>", s.ident, args.join(", "))
}

/// A static constant member of a struct of the unit, named through the type `scope` as
/// the core spells it (`AttentionTraits<64>`, the type a `using` alias or a template's
/// argument binds, or `Traits` of no template): the member's initialiser and its declared
/// type, the initialiser in a block that first binds the struct's template parameters to
/// the type's arguments (or their defaults) and the members declared before it to their
/// own initialisers, as the compiler reads it inside the instantiated struct. `None`
/// where `scope` names no struct of the unit with such a member.
pub(super) fn struct_member(unit: Unit<'_>, scope: &str, member: &str) -> Option<(Expr, String)> {
    let (name, args) = split_type(scope);
    let short = name.rsplit("::").next().unwrap_or(name);
    let s = unit.index.structs.get(short)?.first()?;
    let own = s.members.get(member)?;
    let mut stmts = Vec::new();
    for (i, p) in s.template.iter().enumerate() {
        let value = match (args.get(i), p.default) {
            (Some(a), _) if p.is_type => type_named(a),
            (Some(a), _) => template_value(a),
            (None, Some(d)) if p.is_type => super::type_default(d, unit),
            (None, Some(d)) => super::expression(d, unit),
            (None, None) => return None,
        };
        let ty = if p.is_type { None } else { int_type(&p.ty) };
        stmts.push(bound(&p.name, value, ty));
    }
    let start = |init: &Init<'_>| match init {
        Init::Expr(e, _) => Some(e.node.start_byte()),
        Init::NextAfter(_) => None,
    };
    let own_start = start(&own.init);
    let mut before: Vec<(usize, &String, &Init<'_>)> = s
        .members
        .iter()
        .filter_map(|(n, c)| Some((start(&c.init)?, n, &c.init)))
        .filter(|(at, _, _)| own_start.is_some_and(|own| *at < own))
        .collect();
    before.sort_by_key(|(at, _, _)| *at);
    for (_, n, init) in before {
        let (ty, value) = constant_init(init, unit);
        stmts.push(bound(n, value, int_type(&ty)));
    }
    let (ty, value) = constant_init(&own.init, unit);
    Some((
        Expr::Block(Box::new(Block {
            stmts,
            tail: Some(value),
        })),
        ty,
    ))
}

/// `Name<a, b<c>>` as `Name` and its top-level arguments' texts (none without `<`).
fn split_type(ty: &str) -> (&str, Vec<&str>) {
    let Some((name, rest)) = ty.split_once('<') else {
        return (ty.trim(), Vec::new());
    };
    let inner = rest.trim_end().strip_suffix('>').unwrap_or(rest);
    let mut args = Vec::new();
    let (mut depth, mut from) = (0usize, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                args.push(inner[from..i].trim());
                from = i + 1;
            }
            _ => {}
        }
    }
    args.push(inner[from..].trim());
    (
        name.trim(),
        args.into_iter().filter(|a| !a.is_empty()).collect(),
    )
}

/// A non-type template argument as the core spells it in a type: an integer (`64`,
/// `true` as 1), else a name the core reads as a constant or a type (an enumerator).
fn template_value(text: &str) -> Expr {
    match text {
        "true" => Expr::Int(1, None),
        "false" => Expr::Int(0, None),
        _ => text
            .trim_end_matches(['u', 'U', 'l', 'L'])
            .parse::<i128>()
            .map_or_else(|_| type_named(text), |v| Expr::Int(v, None)),
    }
}

/// The type (or constant) named `text`, as written.
fn type_named(text: &str) -> Expr {
    Expr::Type(Box::new(TypeExpr {
        name: text.to_owned(),
        args: Vec::new(),
        declarator: String::new(),
    }))
}

/// `name` bound to `value` (of the integer type `ty`, where one is declared).
fn bound(name: &str, value: Expr, ty: Option<IntTy>) -> Stmt {
    Stmt::Let(Box::new(ir::Let {
        pat: ir::Pat::Bind(name.to_owned(), None),
        init: Some(value),
        otherwise: None,
        ty,
        at: ir::At::NONE,
    }))
}
