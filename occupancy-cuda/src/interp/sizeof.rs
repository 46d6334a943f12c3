//! `sizeof` and `alignof` of the types the code names: the built-in types
//! ([`crate::layout::builtin`]), pointers, arrays, and the code's own plain structs and
//! unions laid out member by member ([`crate::layout::Record`]). A type with several
//! definitions (`#if` alternatives), or an array sized by a constant with several, has
//! one layout per alternative. What cannot be laid out (a template struct, a base class,
//! a bit-field, a virtual function, an alignment attribute, an enum) is unknown with the
//! reason.

use super::{Interp, Path};
use crate::index::{At, Taken, chosen, preproc_branches};
use crate::layout::{Layout, Record, builtin, takes_no_room};
use crate::syntax::{Field, Kind, clip};
use crate::value::{IntType, Ty, Val};

/// The most layouts (alternatives) one type has; more is unknown.
const MAX_LAYOUTS: usize = 8;
/// The deepest nesting of structs laid out.
const MAX_DEPTH: usize = 16;

type Layouts = Result<Vec<Layout>, String>;

impl<'t> Interp<'t, '_> {
    /// `sizeof(...)`: the type's size, each alternative's.
    pub(super) fn size_of<'a>(&mut self, e: At<'a>, p: &Path) -> Val
    where
        't: 'a,
    {
        self.layout_value(e, p, |l| l.size_bytes, "sizeof")
    }

    /// `alignof(T)`: the type's alignment.
    pub(super) fn align_of<'a>(&mut self, e: At<'a>, p: &Path) -> Val
    where
        't: 'a,
    {
        self.layout_value(e, p, |l| l.align_bytes, "alignof")
    }

    fn layout_value<'a>(&mut self, e: At<'a>, p: &Path, pick: fn(&Layout) -> u64, op: &str) -> Val
    where
        't: 'a,
    {
        let layouts = match (e.field(Field::Type), e.field(Field::Value)) {
            (Some(t), _) => self.layouts_of_node(t, p, 0),
            (None, Some(v)) => {
                let inner = if v.kind() == Some(Kind::ParenthesizedExpression) {
                    v.children().first().copied().unwrap_or(v)
                } else {
                    v
                };
                match p.env.get(inner.text()) {
                    Some(Val::Type(t)) => {
                        let t = t.clone();
                        self.layouts_of_ty(&t, p, 0)
                    }
                    Some(_) => Err(format!(
                        "`{}`: the size of an expression",
                        clip(e.text(), 40)
                    )),
                    None => match inner.kind() {
                        Some(Kind::Identifier | Kind::TypeIdentifier) => {
                            self.layouts_of_node(inner, p, 0)
                        }
                        _ => Err(format!(
                            "`{}`: the size of an expression",
                            clip(e.text(), 40)
                        )),
                    },
                }
            }
            _ => Err(op.to_owned()),
        };
        match layouts {
            Ok(ls) => {
                let mut values: Vec<i128> = ls.iter().map(|l| pick(l).into()).collect();
                values.sort_unstable();
                values.dedup();
                match occupancy_core::abstract_int::AbstractInt::one_of(values) {
                    Some(v) => Val::Int(v, IntType::U64),
                    None => Val::unknown(format!("`{}`: no layout", clip(e.text(), 40))),
                }
            }
            Err(why) => Val::unknown(format!("`{}`: {why}", clip(e.text(), 60))),
        }
    }

    /// The layouts of the type a type node names.
    fn layouts_of_node<'a>(&mut self, t: At<'a>, p: &Path, depth: usize) -> Layouts
    where
        't: 'a,
    {
        if depth > MAX_DEPTH {
            return Err("types nested too deeply".to_owned());
        }
        match t.kind() {
            Some(Kind::TypeDescriptor) => {
                let base = t.field(Field::Type);
                match t.field(Field::Declarator) {
                    None => match base {
                        Some(b) => self.layouts_of_node(b, p, depth + 1),
                        None => Err(format!("`{}` is not a type read", clip(t.text(), 40))),
                    },
                    Some(d) => self.declarator_layouts(base, d, p, depth),
                }
            }
            Some(Kind::PrimitiveType | Kind::SizedTypeSpecifier) => builtin(t.text())
                .map(|l| vec![l])
                .ok_or_else(|| format!("`{}` has no size the reader knows", t.text())),
            Some(Kind::StructSpecifier | Kind::ClassSpecifier | Kind::UnionSpecifier) => {
                if t.field(Field::Body).is_some() {
                    return self.layouts_of_record(t, depth + 1);
                }
                match t.field(Field::Name) {
                    Some(n) => self.layouts_of_name(n.text(), p, depth + 1),
                    None => Err(format!("`{}` is not a type read", clip(t.text(), 40))),
                }
            }
            Some(Kind::TypeIdentifier | Kind::Identifier) => {
                if let Some(Val::Type(ty)) = p.env.get(t.text()) {
                    let ty = ty.clone();
                    return self.layouts_of_ty(&ty, p, depth + 1);
                }
                let name = t.text();
                if builtin(name).is_some() || self.index.records.contains_key(name) {
                    return self.layouts_of_name(name, p, depth + 1);
                }
                // A template parameter of the struct being read, an alias.
                let ty = self.type_of(t, p);
                if ty.name != name || !ty.args.is_empty() {
                    return self.layouts_of_ty(&ty, p, depth + 1);
                }
                self.layouts_of_name(name, p, depth + 1)
            }
            Some(Kind::QualifiedIdentifier) => {
                let name = t.text();
                let last = name.rsplit("::").next().unwrap_or(name);
                if (name.starts_with("std::") || name.starts_with("::"))
                    && let Some(l) = builtin(name)
                {
                    return Ok(vec![l]);
                }
                self.layouts_of_name(last, p, depth + 1)
            }
            Some(Kind::TemplateType) => Err(format!(
                "`{}` is a template whose layout the reader does not compute",
                clip(t.text(), 40)
            )),
            Some(Kind::EnumSpecifier) => Err(format!(
                "`{}`: an enum's size is not read",
                clip(t.text(), 40)
            )),
            _ => Err(format!(
                "`{}` is not a type whose size the reader knows",
                clip(t.text(), 40)
            )),
        }
    }

    /// A type bound to a template parameter, or resolved from an alias.
    fn layouts_of_ty(&mut self, ty: &Ty, p: &Path, depth: usize) -> Layouts {
        if !ty.args.is_empty() {
            return Err(format!(
                "`{ty}` is a template whose layout the reader does not compute"
            ));
        }
        self.layouts_of_name(&ty.name, p, depth + 1)
    }

    /// The layouts of a type by name: built in, the unit's structs (each definition), its
    /// aliases.
    fn layouts_of_name(&mut self, name: &str, p: &Path, depth: usize) -> Layouts {
        if depth > MAX_DEPTH {
            return Err("types nested too deeply".to_owned());
        }
        let name = name.trim();
        if let Some(l) = builtin(name) {
            return Ok(vec![l]);
        }
        let simple = name.rsplit("::").next().unwrap_or(name);
        let index = self.index;
        if let Some(records) = index.records.get(simple) {
            let mut all = Vec::new();
            for r in records.clone() {
                for l in self.layouts_of_record(r, depth + 1)? {
                    if !all.contains(&l) {
                        all.push(l);
                    }
                }
            }
            return bounded(all, name);
        }
        if let Some(alias) = index.aliases.get(simple).copied() {
            let key = format!("layout {simple}");
            if self.evaluating.contains(&key) {
                return Err(format!("`{name}` is defined in terms of itself"));
            }
            self.evaluating.push(key);
            let r = self.layouts_of_node(alias, &Path::new(), depth + 1);
            self.evaluating.pop();
            return r;
        }
        if index.structs.contains_key(simple) {
            return Err(format!(
                "`{name}` is a template or declared without members here; its layout is not computed"
            ));
        }
        let _ = p;
        Err(format!(
            "`{name}` is not a type whose size the reader knows"
        ))
    }

    /// A declarator on a base type: `T*` (a pointer), `T[N]` (an array).
    fn declarator_layouts<'a>(
        &mut self,
        base: Option<At<'a>>,
        d: At<'a>,
        p: &Path,
        depth: usize,
    ) -> Layouts
    where
        't: 'a,
    {
        match d.kind() {
            Some(
                Kind::AbstractPointerDeclarator
                | Kind::PointerDeclarator
                | Kind::AbstractReferenceDeclarator,
            ) => Ok(vec![builtin("void*").unwrap_or(Layout {
                size_bytes: 8,
                align_bytes: 8,
            })]),
            Some(Kind::AbstractArrayDeclarator | Kind::ArrayDeclarator) => {
                let element = match d.field(Field::Declarator) {
                    Some(inner)
                        if !matches!(
                            inner.kind(),
                            Some(Kind::FieldIdentifier | Kind::Identifier)
                        ) =>
                    {
                        self.declarator_layouts(base, inner, p, depth + 1)?
                    }
                    _ => match base {
                        Some(b) => self.layouts_of_node(b, p, depth + 1)?,
                        None => return Err("an array of no type".to_owned()),
                    },
                };
                let Some(size) = d.field(Field::Size) else {
                    return Err(format!("`{}`: an array of no size", clip(d.text(), 40)));
                };
                let counts = self.counts(size);
                let counts = counts?;
                let mut all = Vec::new();
                for e in &element {
                    for &n in &counts {
                        let l = e
                            .array(n)
                            .ok_or_else(|| format!("`{}` is too large", clip(d.text(), 40)))?;
                        if !all.contains(&l) {
                            all.push(l);
                        }
                    }
                }
                bounded(all, d.text())
            }
            Some(Kind::FieldIdentifier | Kind::Identifier | Kind::TypeIdentifier) => match base {
                Some(b) => self.layouts_of_node(b, p, depth + 1),
                None => Err("no type".to_owned()),
            },
            Some(Kind::ParenthesizedDeclarator) => match d.children().first().copied() {
                Some(inner) => self.declarator_layouts(base, inner, p, depth + 1),
                None => Err("no declarator".to_owned()),
            },
            _ => Err(format!(
                "`{}`: a declarator the reader does not lay out",
                clip(d.text(), 40)
            )),
        }
    }

    /// An array's element count: a constant of the unit, each of its alternatives.
    fn counts<'a>(&mut self, size: At<'a>) -> Result<Vec<u64>, String>
    where
        't: 'a,
    {
        let v = self.eval(size, &Path::new());
        let Some((n, _)) = v.as_int() else {
            return Err(format!(
                "the array size `{}`: {}",
                clip(size.text(), 40),
                v.why()
            ));
        };
        match n.members() {
            Some(ms) if ms.len() <= MAX_LAYOUTS => ms
                .iter()
                .map(|&m| {
                    u64::try_from(m).map_err(|_| {
                        format!("the array size `{}` is negative", clip(size.text(), 40))
                    })
                })
                .collect(),
            _ => Err(format!(
                "the array size `{}` is not a constant ({n})",
                clip(size.text(), 40)
            )),
        }
    }

    /// A struct, class or union with a body, member by member; `#if` alternatives among
    /// the members give one layout each.
    fn layouts_of_record<'a>(&mut self, spec: At<'a>, depth: usize) -> Layouts
    where
        't: 'a,
    {
        if depth > MAX_DEPTH {
            return Err("structs nested too deeply".to_owned());
        }
        let shown = match spec.field(Field::Name) {
            Some(n) => n.text().to_owned(),
            None => clip(spec.text(), 30),
        };
        if let Some(why) = crate::layout::record_refusal(spec, &shown) {
            return Err(why);
        }
        let union = spec.kind() == Some(Kind::UnionSpecifier);
        let Some(body) = spec.field(Field::Body) else {
            return Err(format!("`{shown}` is declared without members here"));
        };
        let lists = self.member_lists(body, depth)?;
        let mut all = Vec::new();
        for members in lists {
            let mut records = vec![Record::new(union)];
            for alternatives in members {
                let mut next = Vec::new();
                for r in &records {
                    for m in &alternatives {
                        let mut r2 = r.clone();
                        r2.member(*m)
                            .ok_or_else(|| format!("`{shown}` is too large"))?;
                        next.push(r2);
                    }
                }
                if next.len() > MAX_LAYOUTS * MAX_LAYOUTS {
                    return Err(format!("`{shown}` has too many alternative layouts"));
                }
                records = next;
            }
            for r in records {
                let l = r
                    .finish()
                    .ok_or_else(|| format!("`{shown}` is too large"))?;
                if !all.contains(&l) {
                    all.push(l);
                }
            }
        }
        bounded(all, &shown)
    }

    /// The members of a body, in order, each with its alternative layouts; a `#if` among
    /// them gives one member list per branch.
    fn member_lists<'a>(
        &mut self,
        body: At<'a>,
        depth: usize,
    ) -> Result<Vec<Vec<Vec<Layout>>>, String>
    where
        't: 'a,
    {
        let mut lists: Vec<Vec<Vec<Layout>>> = vec![Vec::new()];
        for m in body.children() {
            match m.kind() {
                Some(Kind::FieldDeclaration) => {
                    let members = self.field(m, depth)?;
                    for list in &mut lists {
                        list.extend(members.iter().cloned());
                    }
                }
                Some(Kind::PreprocIf | Kind::PreprocIfdef) => {
                    let all = preproc_branches(m);
                    let branches: Vec<Vec<At<'a>>> = match self.decider {
                        Some(d) => match chosen(&all, d, true) {
                            Taken::Branch(body) => vec![body],
                            Taken::None => vec![Vec::new()],
                            Taken::Each => all.into_iter().map(|b| b.body).collect(),
                        },
                        None => all.into_iter().map(|b| b.body).collect(),
                    };
                    let mut next = Vec::new();
                    for branch in branches {
                        let mut branch_members: Vec<Vec<Vec<Layout>>> = vec![Vec::new()];
                        for c in branch {
                            if c.kind() == Some(Kind::FieldDeclaration) {
                                let ms = self.field(c, depth)?;
                                for b in &mut branch_members {
                                    b.extend(ms.iter().cloned());
                                }
                            } else if !takes_no_room(c) {
                                return Err(format!(
                                    "`{}` in a struct is not laid out",
                                    clip(c.text(), 40)
                                ));
                            }
                        }
                        for list in &lists {
                            for b in &branch_members {
                                let mut l = list.clone();
                                l.extend(b.iter().cloned());
                                next.push(l);
                            }
                        }
                    }
                    if next.len() > MAX_LAYOUTS {
                        return Err("too many `#if` alternatives in a struct".to_owned());
                    }
                    lists = next;
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
        Ok(lists)
    }

    /// The data members a member declaration adds (none for a static member or a
    /// member function), each with its alternative layouts.
    fn field<'a>(&mut self, m: At<'a>, depth: usize) -> Result<Vec<Vec<Layout>>, String>
    where
        't: 'a,
    {
        if !crate::layout::adds_data(m)? {
            return Ok(Vec::new());
        }
        let mut declarators = Vec::new();
        for d in crate::syntax::field_children(m.node, Field::Declarator) {
            declarators.push(m.with(d));
        }
        let ty = m.field(Field::Type);
        if declarators.is_empty() {
            // An anonymous struct or union member lays its members out in place.
            return match ty {
                Some(t)
                    if matches!(t.kind(), Some(Kind::StructSpecifier | Kind::UnionSpecifier))
                        && t.field(Field::Body).is_some() =>
                {
                    Ok(vec![self.layouts_of_record(t, depth + 1)?])
                }
                _ => Ok(Vec::new()),
            };
        }
        let mut out = Vec::new();
        for d in declarators {
            if d.kind() == Some(Kind::FunctionDeclarator) {
                continue;
            }
            out.push(self.declarator_layouts(ty, d, &Path::new(), depth + 1)?);
        }
        Ok(out)
    }
}

fn bounded(all: Vec<Layout>, name: &str) -> Layouts {
    if all.is_empty() {
        return Err(format!("`{}` has no layout", clip(name, 40)));
    }
    if all.len() > MAX_LAYOUTS {
        return Err(format!(
            "`{}` has {} layouts, one per build configuration its `#if` branches and constants of several values make: which one the build makes is not known",
            clip(name, 40),
            all.len()
        ));
    }
    Ok(all)
}
