//! The names of one translation unit (a `.cu` file and the headers it includes), found once:
//! macros, integer constants (namespace-scope `constexpr` / `const`, enumerators), structs
//! with their `static constexpr` members (templates too), type aliases, functions (host and
//! `__global__`, templates too) and explicit instantiations.

use std::collections::{HashMap, HashSet};

use tree_sitter::Node;

use crate::macros::Macro;
use crate::preproc::Decider;
use crate::syntax::{Code, Field, Kind, child, field_children, kind, named_children};
use crate::value::is_toolkit_type;

/// The deepest nesting of namespaces, templates and `#if`s indexed.
const MAX_NESTING: usize = 64;

/// A node with the code it belongs to.
#[derive(Clone, Copy)]
pub(crate) struct At<'t> {
    pub(crate) node: Node<'t>,
    pub(crate) code: &'t Code,
}

impl<'t> At<'t> {
    pub(crate) fn text(&self) -> &'t str {
        self.code.text(self.node)
    }
    pub(crate) fn line(&self) -> u32 {
        self.code.line(self.node)
    }
    pub(crate) fn with(&self, node: Node<'t>) -> At<'t> {
        At {
            node,
            code: self.code,
        }
    }
    pub(crate) fn field(&self, field: Field) -> Option<At<'t>> {
        child(self.node, field).map(|n| self.with(n))
    }
    pub(crate) fn children(&self) -> Vec<At<'t>> {
        named_children(self.node)
            .into_iter()
            .filter(|n| Kind::of(*n) != Some(Kind::Comment))
            .map(|n| self.with(n))
            .collect()
    }
    /// The node's kind, if the reader tells it apart.
    pub(crate) fn kind(&self) -> Option<Kind> {
        Kind::of(self.node)
    }
}

/// A template parameter.
#[derive(Clone)]
pub(crate) struct TemplateParam<'t> {
    pub(crate) name: String,
    /// `typename T` / `class T` (else a non-type parameter such as `int N`).
    pub(crate) is_type: bool,
    /// The non-type parameter's type as written (`int`, `bool`).
    pub(crate) ty: String,
    pub(crate) default: Option<At<'t>>,
    /// A parameter pack (`class... Ts`, `int... Ns`).
    pub(crate) pack: bool,
}

/// A parameter of a function.
#[derive(Clone)]
pub(crate) struct Param<'t> {
    pub(crate) name: String,
    /// The type as written, without qualifiers and declarator (`T` of `const T* x`).
    pub(crate) ty: String,
    /// The type's node (`T`), for resolving it under the template arguments.
    pub(crate) ty_node: Option<At<'t>>,
    /// `*`s (and `[]`s, which decay to one) of the declarator: 1 for `const T* x`.
    pub(crate) pointers: u8,
    /// `const` qualifies the type itself (`const T* x`, `T const* x`; not `T* const x`).
    pub(crate) is_const: bool,
    pub(crate) default: Option<At<'t>>,
    /// A function parameter pack (`Ts... rest`): it takes every argument from its place on.
    pub(crate) pack: bool,
}

/// A function definition.
#[derive(Clone)]
pub(crate) struct Function<'t> {
    pub(crate) name: String,
    /// With its namespaces and class (`ns::Launcher::run`).
    pub(crate) qualified: String,
    pub(crate) template: Vec<TemplateParam<'t>>,
    pub(crate) params: Vec<Param<'t>>,
    pub(crate) is_kernel: bool,
    pub(crate) extern_c: bool,
    /// Defined inside an unnamed namespace.
    pub(crate) anonymous: bool,
    pub(crate) is_template: bool,
    pub(crate) body: At<'t>,
}

/// How an integer constant gets its value.
#[derive(Clone)]
pub(crate) enum Init<'t> {
    /// An initialiser expression, and the declared type as written.
    Expr(At<'t>, String),
    /// An enumerator with no initialiser: the previous one plus 1 (`None`: the first, 0).
    NextAfter(Option<String>),
}

/// A named integer constant: a namespace-scope or static-member `constexpr` / `const`, or
/// an enumerator.
#[derive(Clone)]
pub(crate) struct Constant<'t> {
    pub(crate) init: Init<'t>,
    /// The namespaces it is declared in, outermost first (empty: the global namespace; a
    /// struct's member: empty).
    pub(crate) scope: Vec<String>,
    /// Declared inside an unnamed namespace.
    pub(crate) anonymous: bool,
}

/// A struct or class (a traits struct) and what the reader uses of it.
#[derive(Clone)]
pub(crate) struct Struct<'t> {
    pub(crate) template: Vec<TemplateParam<'t>>,
    /// Static constant members and member enumerators, by name.
    pub(crate) members: HashMap<String, Constant<'t>>,
    /// Member type aliases (`using Traits = ...;`), by name: the type node.
    pub(crate) aliases: HashMap<String, At<'t>>,
    /// Base classes, as type nodes.
    pub(crate) bases: Vec<At<'t>>,
}

/// Everything one translation unit names.
#[derive(Default)]
pub(crate) struct Index<'t> {
    pub(crate) macros: HashMap<String, Vec<Macro>>,
    pub(crate) constants: HashMap<String, Vec<Constant<'t>>>,
    pub(crate) structs: HashMap<String, Vec<Struct<'t>>>,
    pub(crate) aliases: HashMap<String, At<'t>>,
    /// Struct, class and union definitions with a body, by name (`struct S {..};`) or by
    /// typedef name (`typedef struct {..} S;`): the specifier nodes, one per definition
    /// (`#if` alternatives are several), for `sizeof`.
    pub(crate) records: HashMap<String, Vec<At<'t>>>,
    pub(crate) functions: HashMap<String, Vec<Function<'t>>>,
    /// Every function in definition order.
    pub(crate) all_functions: Vec<Function<'t>>,
    /// Host functions defined in an `#if` branch only device passes compile (`#if
    /// __CUDA_ARCH__ >= 800` at file scope): not in the host program, so never called;
    /// kept to list their launches.
    pub(crate) not_in_host_code: Vec<Function<'t>>,
    /// Explicit instantiations: the `template_function` nodes (`k<float, 4>`).
    pub(crate) instantiations: Vec<At<'t>>,
    /// Identifiers that occur in function bodies and macro bodies (for the roots: a
    /// function no other names is called from outside, through FFI).
    pub(crate) referenced: HashMap<String, HashSet<String>>,
}

impl<'t> Index<'t> {
    /// Indexes the files of a translation unit.
    /// Indexes the files of a translation unit; a file-scope `#if` the `decider` decides
    /// contributes its branch the build compiles only.
    pub(crate) fn build(files: &[&'t Code], decider: &Decider<'_>) -> Index<'t> {
        let mut index = Index::default();
        for code in files {
            if let Some(root) = code.root() {
                let at = At { node: root, code };
                index.items(at, &Scope::default(), 0, decider);
            }
        }
        index
    }

    /// A function no other function of the unit names (or one with C linkage, called from
    /// Rust): where the interpreter starts.
    pub(crate) fn is_root(&self, f: &Function<'t>) -> bool {
        if f.extern_c {
            return true;
        }
        !self
            .referenced
            .iter()
            .any(|(by, names)| by != &f.qualified && names.contains(&f.name))
    }

    /// The kernel (`__global__` function) named `name` (last segment).
    pub(crate) fn kernel(&self, name: &str) -> Option<&Function<'t>> {
        let simple = name.rsplit("::").next().unwrap_or(name);
        self.functions.get(simple)?.iter().find(|f| f.is_kernel)
    }

    /// Which template parameters of the kernel `name` are `bool`s, in order (a launch's
    /// value of one is written `true` or `false` in the kernel's instantiation, as the
    /// objects' symbols spell it); empty for a kernel the unit does not define.
    pub(crate) fn bool_template_params(&self, name: &str) -> Vec<bool> {
        self.kernel(name)
            .map(|k| k.template.iter().map(|t| t.ty.trim() == "bool").collect())
            .unwrap_or_default()
    }

    /// How many kernels are defined named `name` (last segment): more than one are
    /// overloads, which C++ chooses between by the arguments, or `#if` alternatives.
    pub(crate) fn kernel_definitions(&self, name: &str) -> usize {
        let simple = name.rsplit("::").next().unwrap_or(name);
        self.functions
            .get(simple)
            .map_or(0, |fs| fs.iter().filter(|f| f.is_kernel).count())
    }

    fn items(&mut self, at: At<'t>, scope: &Scope<'t>, depth: usize, decider: &Decider<'_>) {
        if depth > MAX_NESTING {
            return;
        }
        for child in at.children() {
            self.item(child, scope, depth + 1, decider);
        }
    }

    fn item(&mut self, at: At<'t>, scope: &Scope<'t>, depth: usize, decider: &Decider<'_>) {
        if depth > MAX_NESTING {
            return;
        }
        match at.kind() {
            Some(Kind::PreprocDef | Kind::PreprocFunctionDef) => self.define_node(at),
            Some(Kind::PreprocIf | Kind::PreprocIfdef) => {
                let branches = preproc_branches(at);
                match chosen(&branches, decider, false) {
                    Taken::Branch(body) => {
                        for child in body {
                            self.item(child, scope, depth + 1, decider);
                        }
                    }
                    Taken::None => {}
                    Taken::Each => match chosen(&branches, decider, true) {
                        // Decided for the host pass only (`#if __CUDA_ARCH__ >= 800`): the
                        // host functions of the other branches are never built into host
                        // code; their kernels are (device passes), so they stay.
                        Taken::Each => self.items(at, scope, depth, decider),
                        host => {
                            let host_body = match host {
                                Taken::Branch(body) => body,
                                _ => Vec::new(),
                            };
                            let mut device_only = scope.clone();
                            device_only.device_only = true;
                            for b in &branches {
                                let in_host = b.body.first().is_some_and(|f| {
                                    host_body.first().is_some_and(|h| h.node == f.node)
                                });
                                let scope = if in_host { scope } else { &device_only };
                                for child in &b.body {
                                    self.item(*child, scope, depth + 1, decider);
                                }
                            }
                        }
                    },
                }
            }
            Some(
                Kind::PreprocElse
                | Kind::PreprocElif
                | Kind::PreprocElifdef
                | Kind::DeclarationList,
            ) => self.items(at, scope, depth, decider),
            Some(Kind::NamespaceDefinition) => {
                let mut inner = scope.clone();
                match at.field(Field::Name) {
                    Some(name) => inner.path.push(name.text().to_owned()),
                    None => inner.anonymous = true,
                }
                if let Some(body) = at.field(Field::Body) {
                    self.items(body, &inner, depth, decider);
                }
            }
            Some(Kind::LinkageSpecification) => {
                let mut inner = scope.clone();
                inner.extern_c = at
                    .field(Field::Value)
                    .is_some_and(|v| v.text().contains('C'));
                if let Some(body) = at.field(Field::Body) {
                    if body.kind() == Some(Kind::DeclarationList) {
                        self.items(body, &inner, depth, decider);
                    } else {
                        self.item(body, &inner, depth + 1, decider);
                    }
                }
            }
            Some(Kind::TemplateDeclaration) => {
                let mut inner = scope.clone();
                inner.template = at
                    .field(Field::Parameters)
                    .map(template_params)
                    .unwrap_or_default();
                inner.is_template = true;
                for child in at.children() {
                    if child.kind() != Some(Kind::TemplateParameterList) {
                        self.item(child, &inner, depth + 1, decider);
                    }
                }
            }
            Some(Kind::FunctionDefinition) => self.function(at, scope),
            Some(Kind::TemplateInstantiation) => {
                if let Some(decl) = at.field(Field::Declarator)
                    && let Some(f) = find_kind(decl, Kind::TemplateFunction, 4)
                {
                    self.instantiations.push(f);
                }
            }
            Some(Kind::Declaration) => {
                // `struct S {..} s;`, `enum {..};` written as a declaration's type.
                if let Some(ty) = at.field(Field::Type) {
                    self.item(ty, scope, depth + 1, decider);
                }
                if let Some(f) = find_kind(at, Kind::TemplateFunction, 3)
                    && scope.is_template_instantiation(at)
                {
                    self.instantiations.push(f);
                }
                self.declaration(at, scope);
            }
            Some(Kind::StructSpecifier | Kind::ClassSpecifier) => {
                self.record(at, scope, depth, decider)
            }
            Some(Kind::UnionSpecifier) => {
                if let (Some(name), Some(_)) = (at.field(Field::Name), at.field(Field::Body)) {
                    self.add_record(name.text(), at);
                }
            }
            Some(Kind::EnumSpecifier) => {
                for (name, mut constant) in enumerators(at) {
                    constant.scope = scope.path.clone();
                    constant.anonymous = scope.anonymous;
                    self.constants.entry(name).or_default().push(constant);
                }
            }
            Some(Kind::AliasDeclaration) => {
                if let (Some(name), Some(ty)) = (at.field(Field::Name), at.field(Field::Type))
                    && (!is_toolkit_type(name.text()) || is_toolkit_type(ty.text()))
                {
                    self.aliases.insert(name.text().to_owned(), ty);
                }
            }
            Some(Kind::TypeDefinition) => {
                if let Some(ty) = at.field(Field::Type) {
                    self.item(ty, scope, depth + 1, decider);
                    let has_body = matches!(
                        ty.kind(),
                        Some(Kind::StructSpecifier | Kind::ClassSpecifier | Kind::UnionSpecifier)
                    ) && ty.field(Field::Body).is_some();
                    for d in field_children(at.node, Field::Declarator) {
                        let d = at.with(d);
                        let name = d.text().trim_start_matches('*').trim();
                        if is_toolkit_type(name) && !is_toolkit_type(ty.text()) {
                            continue;
                        }
                        if has_body && d.kind() == Some(Kind::TypeIdentifier) {
                            self.add_record(name, ty);
                        }
                        self.aliases.insert(name.to_owned(), ty);
                    }
                }
            }
            _ => {}
        }
    }

    fn add_record(&mut self, name: &str, at: At<'t>) {
        let name = name.rsplit("::").next().unwrap_or(name).to_owned();
        let list = self.records.entry(name).or_default();
        if !list.iter().any(|r| r.node == at.node) {
            list.push(at);
        }
    }

    /// A `#define` node, object-like or function-like.
    fn define_node(&mut self, at: At<'t>) {
        let Some(name) = at.field(Field::Name) else {
            return;
        };
        let params = (at.kind() == Some(Kind::PreprocFunctionDef)).then(|| {
            at.field(Field::Parameters)
                .map(|p| {
                    p.text()
                        .trim_matches(|c| c == '(' || c == ')')
                        .split(',')
                        // A parameter after a line continuation (`C, \<newline> D`).
                        .map(|s| s.trim_matches(|c: char| c.is_whitespace() || c == '\\'))
                        .map(str::to_owned)
                        .filter(|s| !s.is_empty())
                        .collect()
                })
                .unwrap_or_default()
        });
        let body = at.field(Field::Value).map_or("", |v| v.text());
        self.define(name.text(), params, body);
    }

    /// The `#define`s written inside a function's body (`#define LAUNCH(D) k<D><<<..>>>(..)`
    /// before a `switch` that uses it), as the file's own.
    fn local_defines(&mut self, at: At<'t>, depth: usize) {
        if depth > MAX_NESTING {
            return;
        }
        for child in at.children() {
            match child.kind() {
                Some(Kind::PreprocDef | Kind::PreprocFunctionDef) => self.define_node(child),
                _ => self.local_defines(child, depth + 1),
            }
        }
    }

    fn define(&mut self, name: &str, params: Option<Vec<String>>, body: &str) {
        let body = body.replace("\\\r\n", " ").replace("\\\n", " ");
        let body = strip_comments(&body);
        let words: HashSet<String> = identifiers(&body);
        self.referenced
            .entry(format!("#define {name}"))
            .or_default()
            .extend(words);
        let m = Macro {
            params,
            body: body.trim().to_owned(),
        };
        let list = self.macros.entry(name.to_owned()).or_default();
        if !list.contains(&m) {
            list.push(m);
        }
    }

    fn function(&mut self, at: At<'t>, scope: &Scope<'t>) {
        let Some(body) = at.field(Field::Body) else {
            return;
        };
        let Some(declarator) = at.field(Field::Declarator) else {
            return;
        };
        let Some(fd) = find_kind(declarator, Kind::FunctionDeclarator, 4) else {
            return;
        };
        let Some(name_node) = fd.field(Field::Declarator) else {
            return;
        };
        let written = match name_node.kind() {
            Some(Kind::TemplateFunction) => name_node.field(Field::Name).map_or("", |n| n.text()),
            _ => name_node.text(),
        };
        let name = written
            .rsplit("::")
            .next()
            .unwrap_or(written)
            .trim()
            .to_owned();
        if name.is_empty() {
            return;
        }
        let mut path = scope.path.clone();
        path.push(written.trim().to_owned());
        let qualified = path.join("::");
        let is_kernel = has_child_kind(at, Kind::Global) || at.text().starts_with("__global__");
        let params = fd
            .field(Field::Parameters)
            .map(|p| {
                p.children()
                    .into_iter()
                    .filter(|c| {
                        matches!(
                            c.kind(),
                            Some(
                                Kind::ParameterDeclaration
                                    | Kind::OptionalParameterDeclaration
                                    | Kind::VariadicParameterDeclaration
                            )
                        )
                    })
                    .map(|c| Param {
                        name: c
                            .field(Field::Declarator)
                            .and_then(|d| declared_name(d))
                            .unwrap_or_default(),
                        ty: c
                            .field(Field::Type)
                            .map_or_else(String::new, |t| t.text().to_owned()),
                        ty_node: c.field(Field::Type),
                        pointers: pointer_depth(c.field(Field::Declarator)),
                        is_const: has_const(c),
                        default: c.field(Field::DefaultValue),
                        pack: c.kind() == Some(Kind::VariadicParameterDeclaration),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let f = Function {
            name: name.clone(),
            qualified: qualified.clone(),
            template: scope.template.clone(),
            params,
            is_kernel,
            extern_c: scope.extern_c,
            anonymous: scope.anonymous,
            is_template: scope.is_template,
            body,
        };
        if scope.device_only && !is_kernel {
            self.not_in_host_code.push(f);
            return;
        }
        if !is_kernel {
            let words = body_identifiers(body);
            self.referenced.entry(qualified).or_default().extend(words);
        }
        // Walking every body's nodes for `#define`s costs more than reading its text once.
        if body.text().contains("define") {
            self.local_defines(body, 0);
        }
        self.functions.entry(name).or_default().push(f.clone());
        self.all_functions.push(f);
    }

    /// Namespace-scope `constexpr` / `const` integer variables.
    fn declaration(&mut self, at: At<'t>, scope: &Scope<'t>) {
        let text = at.text();
        let is_const = at.children().iter().any(|c| {
            c.kind() == Some(Kind::TypeQualifier) && matches!(c.text(), "const" | "constexpr")
        }) || text.starts_with("constexpr")
            || text.starts_with("static constexpr")
            || text.starts_with("const ");
        if !is_const {
            return;
        }
        let ty = at
            .field(Field::Type)
            .map_or_else(String::new, |t| t.text().to_owned());
        let _ = scope;
        for d in field_children(at.node, Field::Declarator) {
            let d = at.with(d);
            if d.kind() != Some(Kind::InitDeclarator) {
                continue;
            }
            let (Some(name), Some(value)) = (d.field(Field::Declarator), d.field(Field::Value))
            else {
                continue;
            };
            let Some(name) = declared_name(name) else {
                continue;
            };
            let value = match value.kind() {
                Some(Kind::InitializerList | Kind::ArgumentList) => {
                    match value.children().first() {
                        Some(v) => *v,
                        None => continue,
                    }
                }
                _ => value,
            };
            self.constants.entry(name).or_default().push(Constant {
                init: Init::Expr(value, ty.clone()),
                scope: scope.path.clone(),
                anonymous: scope.anonymous,
            });
        }
    }

    fn record(&mut self, at: At<'t>, scope: &Scope<'t>, depth: usize, decider: &Decider<'_>) {
        let Some(name) = at.field(Field::Name) else {
            // An anonymous struct: nothing to name its members by.
            return;
        };
        let name = match name.kind() {
            Some(Kind::TemplateType) => name.field(Field::Name).map_or("", |n| n.text()),
            _ => name.text(),
        };
        let name = name.rsplit("::").next().unwrap_or(name).to_owned();
        if at.field(Field::Body).is_some() && !scope.is_template {
            self.add_record(&name, at);
        }
        let mut s = Struct {
            template: if scope.is_template {
                scope.template.clone()
            } else {
                Vec::new()
            },
            members: HashMap::new(),
            aliases: HashMap::new(),
            bases: Vec::new(),
        };
        for child in at.children() {
            if child.kind() == Some(Kind::BaseClassClause) {
                for b in child.children() {
                    if matches!(
                        b.kind(),
                        Some(Kind::TypeIdentifier | Kind::TemplateType | Kind::QualifiedIdentifier)
                    ) {
                        s.bases.push(b);
                    }
                }
            }
        }
        let mut inner = scope.clone();
        inner.path.push(name.clone());
        inner.template = Vec::new();
        inner.is_template = false;
        inner.extern_c = false;
        if let Some(body) = at.field(Field::Body) {
            for member in body.children() {
                match member.kind() {
                    Some(Kind::FieldDeclaration) => {
                        if let Some(ty) = member.field(Field::Type)
                            && matches!(ty.kind(), Some(Kind::EnumSpecifier))
                        {
                            for (n, c) in enumerators(ty) {
                                s.members.insert(n, c);
                            }
                        }
                        let (Some(decl), Some(value)) = (
                            member.field(Field::Declarator),
                            member.field(Field::DefaultValue),
                        ) else {
                            continue;
                        };
                        let ty = member
                            .field(Field::Type)
                            .map_or_else(String::new, |t| t.text().to_owned());
                        if let Some(n) = declared_name(decl) {
                            let value = match value.kind() {
                                Some(Kind::InitializerList) => match value.children().first() {
                                    Some(v) => *v,
                                    None => continue,
                                },
                                _ => value,
                            };
                            s.members.insert(
                                n,
                                Constant {
                                    init: Init::Expr(value, ty),
                                    scope: Vec::new(),
                                    anonymous: false,
                                },
                            );
                        }
                    }
                    Some(Kind::EnumSpecifier) => {
                        for (n, c) in enumerators(member) {
                            s.members.insert(n, c);
                        }
                    }
                    Some(Kind::AliasDeclaration) => {
                        if let (Some(n), Some(ty)) =
                            (member.field(Field::Name), member.field(Field::Type))
                        {
                            s.aliases.insert(n.text().to_owned(), ty);
                        }
                    }
                    Some(Kind::TypeDefinition) => {
                        if let Some(ty) = member.field(Field::Type) {
                            for d in field_children(member.node, Field::Declarator) {
                                let n = member.with(d).text().trim().to_owned();
                                s.aliases.insert(n, ty);
                            }
                        }
                    }
                    Some(Kind::Declaration) => {
                        // `static constexpr int k = 4;` parsed as a declaration.
                        for d in field_children(member.node, Field::Declarator) {
                            let d = member.with(d);
                            if let (Some(n), Some(v)) =
                                (d.field(Field::Declarator), d.field(Field::Value))
                                && let Some(n) = declared_name(n)
                            {
                                let ty = member
                                    .field(Field::Type)
                                    .map_or_else(String::new, |t| t.text().to_owned());
                                s.members.insert(
                                    n,
                                    Constant {
                                        init: Init::Expr(v, ty),
                                        scope: Vec::new(),
                                        anonymous: false,
                                    },
                                );
                            }
                        }
                    }
                    Some(Kind::FunctionDefinition) => self.function(member, &inner),
                    Some(Kind::TemplateDeclaration) => {
                        self.item(member, &inner, depth + 1, decider)
                    }
                    _ => {}
                }
            }
        }
        self.structs.entry(name).or_default().push(s);
    }
}

/// One branch of an `#if` chain: its directive (`#ifdef`, `#elif`, `#else`), its
/// condition's text, and the nodes it holds.
pub(crate) struct Branch<'t> {
    pub(crate) directive: &'static str,
    pub(crate) condition: Option<At<'t>>,
    pub(crate) body: Vec<At<'t>>,
}

/// The branches of the `#if` / `#ifdef` chain at `head`, in order; without an `#else`,
/// a last empty one (directive `""`) stands for the configurations that take none.
pub(crate) fn preproc_branches(head: At<'_>) -> Vec<Branch<'_>> {
    let mut out = Vec::new();
    let mut node = Some(head);
    while let Some(n) = node {
        let condition = n.field(Field::Condition).or_else(|| n.field(Field::Name));
        let alternative = n.field(Field::Alternative);
        let body = n
            .children()
            .into_iter()
            .filter(|c| {
                Some(c.node) != condition.map(|x| x.node)
                    && Some(c.node) != alternative.map(|x| x.node)
            })
            .collect();
        let directive = match n.kind() {
            Some(Kind::PreprocElse) => "#else",
            _ => n.node.child(0).map_or("#if", kind),
        };
        out.push(Branch {
            directive,
            condition,
            body,
        });
        if alternative.is_none() && n.kind() != Some(Kind::PreprocElse) {
            out.push(Branch {
                directive: "",
                condition: None,
                body: Vec::new(),
            });
        }
        node = alternative;
    }
    out
}

/// What the build compiles of an `#if` chain.
pub(crate) enum Taken<'t> {
    /// This branch's nodes, the others not.
    Branch(Vec<At<'t>>),
    /// No branch (every condition false, no `#else`).
    None,
    /// Not decided: each branch is a configuration some build makes.
    Each,
}

/// The branch of `branches` the build compiles, where `decider` decides each condition
/// up to it.
pub(crate) fn chosen<'t>(branches: &[Branch<'t>], decider: &Decider<'_>, host: bool) -> Taken<'t> {
    for b in branches {
        let taken = match (b.directive, b.condition) {
            ("#else" | "", _) => Some(true),
            (directive, Some(c)) => decider.decide(directive, c.text(), host),
            (_, None) => None,
        };
        match taken {
            Some(true) => return Taken::Branch(b.body.clone()),
            Some(false) => {}
            None => return Taken::Each,
        }
    }
    Taken::None
}

/// Where an item is: its namespaces and classes, its template parameters, its linkage.
#[derive(Clone, Default)]
struct Scope<'t> {
    path: Vec<String>,
    /// Inside an unnamed namespace (which `path` does not name).
    anonymous: bool,
    template: Vec<TemplateParam<'t>>,
    is_template: bool,
    extern_c: bool,
    /// In an `#if` branch only device passes compile (`#if __CUDA_ARCH__ >= 800` at file
    /// scope): its host functions are not in the host code.
    device_only: bool,
}

impl Scope<'_> {
    /// `template void k<float>(float*);` written as a declaration (tree-sitter's grammar
    /// sometimes parses explicit instantiations so): its text starts with `template`.
    fn is_template_instantiation(&self, at: At<'_>) -> bool {
        let text = at.text().trim_start();
        text.starts_with("template ")
            && !text.starts_with("template <")
            && !text.starts_with("template<")
    }
}

/// The parameters of a `template <...>` list.
pub(crate) fn template_params<'t>(list: At<'t>) -> Vec<TemplateParam<'t>> {
    list.children()
        .into_iter()
        .filter_map(|p| {
            let kind = p.kind();
            let is_type = matches!(
                kind,
                Some(
                    Kind::TypeParameterDeclaration
                        | Kind::VariadicTypeParameterDeclaration
                        | Kind::OptionalTypeParameterDeclaration
                )
            );
            let (name, ty, default) = if is_type {
                let name = p
                    .children()
                    .into_iter()
                    .find(|c| c.kind() == Some(Kind::TypeIdentifier))
                    .map(|c| c.text().to_owned())
                    .or_else(|| p.field(Field::Name).map(|n| n.text().to_owned()))?;
                (name, String::new(), p.field(Field::DefaultType))
            } else {
                let name = p.field(Field::Declarator).and_then(declared_name)?;
                let ty = p
                    .field(Field::Type)
                    .map_or_else(String::new, |t| t.text().to_owned());
                (name, ty, p.field(Field::DefaultValue))
            };
            Some(TemplateParam {
                name,
                is_type,
                ty,
                default,
                pack: matches!(
                    kind,
                    Some(
                        Kind::VariadicParameterDeclaration | Kind::VariadicTypeParameterDeclaration
                    )
                ),
            })
        })
        .collect()
}

/// The enumerators of an `enum` (scoped or not), in order.
fn enumerators<'t>(at: At<'t>) -> Vec<(String, Constant<'t>)> {
    let mut out = Vec::new();
    let Some(body) = at.field(Field::Body) else {
        return out;
    };
    let mut prev: Option<String> = None;
    for e in body.children() {
        if e.kind() != Some(Kind::Enumerator) {
            continue;
        }
        let Some(name) = e.field(Field::Name) else {
            continue;
        };
        let name = name.text().to_owned();
        let init = match e.field(Field::Value) {
            Some(v) => Init::Expr(v, "int".to_owned()),
            None => Init::NextAfter(prev.clone()),
        };
        out.push((
            name.clone(),
            Constant {
                init,
                scope: Vec::new(),
                anonymous: false,
            },
        ));
        prev = Some(name);
    }
    out
}

/// Whether a declaration's own specifiers hold `const` (`const float* x`, `float const* x`),
/// the type's, not a pointer's (`float* const x`).
pub(crate) fn has_const(declaration: At<'_>) -> bool {
    declaration
        .children()
        .iter()
        .any(|c| c.kind() == Some(Kind::TypeQualifier) && c.text() == "const")
}

/// The type an expression written as a cast converts to (`(const float*)x`,
/// `reinterpret_cast<const half*>(x)`, `static_cast<float*>(p)`, in parentheses or not):
/// its `type_descriptor`; `None` for any other expression.
pub(crate) fn cast_descriptor(e: At<'_>) -> Option<At<'_>> {
    let e = match e.kind() {
        Some(Kind::ParenthesizedExpression) => *e.children().first()?,
        _ => e,
    };
    let descriptor = match e.kind() {
        Some(Kind::CastExpression) => e.field(Field::Type)?,
        _ => named_cast(e)?.0,
    };
    (descriptor.kind() == Some(Kind::TypeDescriptor)).then_some(descriptor)
}

/// A named cast (`static_cast<T>(x)`, `reinterpret_cast<T>(x)`, `const_cast<T>(x)`): the
/// type it converts to, as written between the angle brackets, and its operand; `None` for
/// any other expression.
pub(crate) fn named_cast(e: At<'_>) -> Option<(At<'_>, At<'_>)> {
    if e.kind() != Some(Kind::CallExpression) {
        return None;
    }
    let f = e.field(Field::Function)?;
    if f.kind() != Some(Kind::TemplateFunction)
        || !matches!(
            f.field(Field::Name)?.text(),
            "reinterpret_cast" | "static_cast" | "const_cast"
        )
    {
        return None;
    }
    let ty = match f.field(Field::Arguments)?.children().as_slice() {
        [only] => *only,
        _ => return None,
    };
    match e.field(Field::Arguments)?.children().as_slice() {
        [operand] => Some((ty, *operand)),
        _ => None,
    }
}

/// How many pointers a declarator adds to its type: `*x` 1, `**x` 2, `x[4]` 1 (an array
/// decays to a pointer where it is passed), `&x` 0.
pub(crate) fn pointer_depth(mut d: Option<At<'_>>) -> u8 {
    let mut n = 0u8;
    while let Some(at) = d {
        if matches!(
            at.kind(),
            Some(Kind::PointerDeclarator | Kind::AbstractPointerDeclarator | Kind::ArrayDeclarator)
        ) {
            n = n.saturating_add(1);
        }
        d = at.field(Field::Declarator);
    }
    n
}

/// The name a declarator declares (`x`, `*x`, `x[4]`, `&x`).
pub(crate) fn declared_name(d: At<'_>) -> Option<String> {
    match d.kind() {
        Some(Kind::Identifier | Kind::FieldIdentifier) => Some(d.text().to_owned()),
        Some(Kind::QualifiedIdentifier) => Some(d.text().rsplit("::").next()?.trim().to_owned()),
        _ => d
            .field(Field::Declarator)
            .and_then(declared_name)
            .or_else(|| {
                d.children()
                    .into_iter()
                    .find(|c| matches!(c.kind(), Some(Kind::Identifier | Kind::FieldIdentifier)))
                    .map(|c| c.text().to_owned())
            }),
    }
}

/// The first node of `kind` at or under `at`, at most `depth` levels down.
pub(crate) fn find_kind<'t>(at: At<'t>, kind: Kind, depth: usize) -> Option<At<'t>> {
    if at.kind() == Some(kind) {
        return Some(at);
    }
    if depth == 0 {
        return None;
    }
    at.children()
        .into_iter()
        .find_map(|c| find_kind(c, kind, depth - 1))
}

fn has_child_kind(at: At<'_>, kind: Kind) -> bool {
    let mut cursor = at.node.walk();

    at.node
        .children(&mut cursor)
        .any(|c| Kind::of(c) == Some(kind))
}

/// The identifiers of a function body (iterative: any depth is safe).
fn body_identifiers(body: At<'_>) -> HashSet<String> {
    // Every identifier-like word of the text: a superset of the identifier nodes' texts
    // when the text is ASCII (and text the grammar could not parse, a macro's arguments,
    // still names functions).
    let mut out = identifiers(body.text());
    if body.text().is_ascii() {
        return out;
    }
    let mut stack = vec![body.node];
    while let Some(n) = stack.pop() {
        if matches!(
            Kind::of(n),
            Some(Kind::Identifier | Kind::TypeIdentifier | Kind::FieldIdentifier)
        ) {
            out.insert(body.code.text(n).to_owned());
        }
        let mut cursor = n.walk();
        stack.extend(n.children(&mut cursor));
    }
    out
}

/// Every identifier-like word of a text.
pub(crate) fn identifiers(text: &str) -> HashSet<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| {
            w.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        })
        .map(str::to_owned)
        .collect()
}

/// `text` without `//` and `/* */` comments (outside string literals).
pub(crate) fn strip_comments(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 2;
                out.push(' ');
            }
            q @ (b'"' | b'\'') => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != q {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i = (i + 1).min(bytes.len());
                out.push_str(&text[start..i]);
            }
            _ => {
                let ch = text[i..].chars().next().map_or(1, char::len_utf8);
                out.push_str(&text[i..i + ch]);
                i += ch;
            }
        }
    }
    out
}

/// `dim3 block(TILE, TILE);` in a function body: tree-sitter reads it as the declaration of
/// a function `block` taking parameters of types `TILE` (C++'s "most vexing parse", which
/// the compiler resolves by what `TILE` is: a constant, so a variable constructed from it).
/// The arguments when every parameter is a bare name (`TILE`, `Traits::kN`), else `None`: a
/// declaration with a parameter name or a builtin type (`int`) is a function's.
///
/// A parameter `WARP * ROWS` (a pointer declarator named `ROWS` of type `WARP`) is the
/// product of the two names (`dim3 block(WARP_SIZE * BR);`): `(WARP, Some(ROWS))`.
pub(crate) fn vexing_arguments(declarator: At<'_>) -> Option<Vec<(At<'_>, Option<At<'_>>)>> {
    let parameters = declarator.field(Field::Parameters)?;
    let mut args = Vec::new();
    for param in parameters.children() {
        if param.kind() != Some(Kind::ParameterDeclaration) {
            return None;
        }
        let ty = param.field(Field::Type)?;
        if !matches!(
            ty.kind(),
            Some(Kind::TypeIdentifier | Kind::QualifiedIdentifier)
        ) {
            return None;
        }
        let factor = match param.field(Field::Declarator) {
            None if param.children().len() == 1 => None,
            Some(d)
                if d.kind() == Some(Kind::PointerDeclarator)
                    && param.children().len() == 2
                    && d.field(Field::Declarator)
                        .is_some_and(|n| n.kind() == Some(Kind::Identifier)) =>
            {
                d.field(Field::Declarator)
            }
            _ => return None,
        };
        args.push((ty, factor));
    }
    Some(args)
}

/// Which namespace's declarations of a constant a name means, read from the namespaces
/// `from` (innermost last; `inside_anonymous`: from inside an unnamed namespace there),
/// written with `qualifier` (`cfg::TILE`): the innermost enclosing namespace that declares
/// it (or, qualified, the namespace the qualifier names from there), else the one
/// namespace that does; with whether it is the unnamed namespace's. C++'s lookup, as both
/// readers take it.
///
/// # Errors
///
/// Why no one declaration is meant: declared in several namespaces none of which encloses
/// the code read, in an unnamed namespace and outside it, or not where it is read.
pub(crate) fn constant_scope(
    constants: &[Constant<'_>],
    qualifier: Option<&[String]>,
    from: &[String],
    inside_anonymous: bool,
) -> Result<(Vec<String>, bool), String> {
    // Which of a namespace's constants a name there means: an unnamed namespace's
    // hide the namespace's own from code inside it; from outside both are visible,
    // which C++ rejects as ambiguous.
    let pick = |scope: &[String]| -> Option<Result<bool, String>> {
        let here: Vec<&Constant<'_>> = constants.iter().filter(|c| c.scope == scope).collect();
        let anonymous = here.iter().any(|c| c.anonymous);
        let named = here.iter().any(|c| !c.anonymous);
        match (anonymous, named) {
            (false, false) => None,
            (true, true) if inside_anonymous => Some(Ok(true)),
            (true, true) => Some(Err(
                "declared both in an unnamed namespace and outside it: which one is meant is not read".to_owned(),
            )),
            (anonymous, _) => Some(Ok(anonymous)),
        }
    };
    let qualifier = qualifier.filter(|q| {
        constants
            .iter()
            .any(|c| c.scope.len() >= q.len() && c.scope.ends_with(q))
    });
    // The innermost enclosing namespace (or, qualified, the namespace it names from
    // there) that declares it.
    for k in (0..=from.len()).rev() {
        let mut scope = from[..k].to_vec();
        if let Some(q) = qualifier {
            scope.extend(q.iter().cloned());
        }
        if let Some(anonymous) = pick(&scope) {
            return anonymous.map(|a| (scope, a));
        }
    }
    let mut scopes: Vec<&Vec<String>> = constants
        .iter()
        .filter(|c| qualifier.is_none_or(|q| c.scope.ends_with(q)))
        .map(|c| &c.scope)
        .collect();
    scopes.sort();
    scopes.dedup();
    match scopes.as_slice() {
        [one] => match pick(one) {
            Some(anonymous) => anonymous.map(|a| ((*one).clone(), a)),
            None => Err("not declared where it is read".to_owned()),
        },
        _ => Err(format!(
            "declared in {} namespaces ({}), none enclosing the code read: which one is meant is not read",
            scopes.len(),
            scopes
                .iter()
                .map(|s| if s.is_empty() {
                    "::".to_owned()
                } else {
                    s.join("::")
                })
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}
