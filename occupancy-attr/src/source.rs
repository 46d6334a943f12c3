//! The crate's sources, read once: files -> modules -> the items that matter for launch
//! configurations (integer `const`s, `const fn`s and helpers returning a `LaunchConfig`,
//! `impl` blocks with their associated constants, `use` imports, `mod` declarations), with
//! names resolved the way rustc resolves them for that subset.
//!
//! The model is rust-analyzer's `DefMap` at a much smaller scale: a module tree built
//! lazily from the crate root along the `mod` declarations, each module's items and
//! imports recorded as plain data ([`Items`]), and queries answered against it. A file is
//! parsed once per compilation: its [`FileIndex`] is plain data (no tokens, no spans), kept
//! in a process-wide memo keyed by the file's text, so that every wrapper of a crate reuses
//! it and nothing can go stale (the text is read again each time and compared).
//!
//! What it does not see: items made by macros (`macro_rules!`, derives), `#[cfg]` (an item
//! under `#[cfg]` counts; two definitions of one name are ambiguous and not used), `include!`,
//! and items inside function bodies other than the wrapper's. Whatever it resolves is
//! confirmed by the compiler in the expansion, so a name it resolves wrongly is a build
//! error, never a wrong lint.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use occupancy_core::file::{self, Seen};
pub(crate) use occupancy_read::names::{ConstDef, CrateId, FnDef, ModuleId, Returns, Vis};
use occupancy_read::names::{FnBody, Generic};

use crate::reader::ir::{self, Block, IntTy};

/// The largest source file read, bytes: far above any hand-written module (the largest
/// files of rustc's own sources are about 1 MB).
pub(crate) const MAX_SOURCE_BYTES: u64 = 8 << 20;

/// The most files one expansion loads while searching for a module.
const MAX_FILES: usize = 256;

/// A function's body: its text, lowered when the reader first runs the function (most
/// functions of a crate never are: a crate's launch wrappers are all indexed, and only
/// the helpers they call are run).
#[derive(Debug)]
pub(crate) struct Body {
    /// The body's text, braces included; `None` once lowered at indexing.
    text: Option<String>,
    lowered: std::sync::OnceLock<Block>,
}

impl Body {
    /// A body lowered now.
    fn lowered(block: &syn::Block) -> Body {
        Body {
            text: None,
            lowered: std::sync::OnceLock::from(ir::lower_fn_body(block)),
        }
    }

    /// A body to lower from `text` when first needed.
    fn deferred(text: String) -> Body {
        Body {
            text: Some(text),
            lowered: std::sync::OnceLock::new(),
        }
    }
}

impl FnBody for Body {
    /// The body, lowered. A text that does not lex or parse as a block, or is past the
    /// parser's limits, is an empty body, as `split.rs` keeps a body past the limits (it was
    /// lexed and parsed with its file, so neither happens but through a bug).
    fn get(&self) -> &Block {
        self.lowered.get_or_init(|| {
            let Some(text) = &self.text else {
                return Block::default();
            };
            let Ok(tokens) = text.parse::<proc_macro2::TokenStream>() else {
                return Block::default();
            };
            if crate::limits::Limits::SOURCE_FILE
                .check(&tokens, "a function's body")
                .is_err()
            {
                return Block::default();
            }
            syn::parse2::<syn::Block>(tokens)
                .map(|block| ir::lower_fn_body(&block))
                .unwrap_or_default()
        })
    }
}

/// An `impl` block: its type and associated items.
#[derive(Clone, Debug)]
pub(crate) struct ImplDef {
    /// The last identifier of the self type's path (`Gemm` for `impl<T> ops::Gemm<T>`).
    pub(crate) self_ty: String,
    /// Has generic parameters.
    pub(crate) generic: bool,
    pub(crate) consts: Vec<ConstDef>,
    pub(crate) fns: Vec<FnDef>,
    pub(crate) wrappers: Vec<WrapperDef>,
}

/// A `mod` item: inline (its items) or in a file.
#[derive(Clone, Debug)]
pub(crate) struct ModDef {
    pub(crate) name: String,
    pub(crate) vis: Vis,
    /// `#[path = "..."]`.
    pub(crate) path_attr: Option<String>,
    pub(crate) inline: Option<Items>,
}

/// One name a `use` binds (or a glob).
#[derive(Clone, Debug)]
pub(crate) struct UseDef {
    /// The name bound; `None` for a glob (`use a::*`).
    pub(crate) binding: Option<String>,
    /// The path imported, as written (`crate`, `self`, `super` included).
    pub(crate) path: Vec<String>,
    pub(crate) leading_colon: bool,
}

/// A function: where a wrapper is (or, for `report --all`, may be).
#[derive(Clone, Debug)]
pub(crate) struct WrapperDef {
    pub(crate) name: String,
    /// The signature's tokens as text (to tell apart functions of the same name), for a
    /// function with an attribute that may be the check; else empty.
    pub(crate) signature: String,
}

/// The items of one module (a file, or an inline `mod { ... }`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Items {
    pub(crate) consts: Vec<ConstDef>,
    pub(crate) fns: Vec<FnDef>,
    pub(crate) impls: Vec<ImplDef>,
    pub(crate) mods: Vec<ModDef>,
    pub(crate) uses: Vec<UseDef>,
    /// Structs, enums, unions, type aliases, traits: names a path can go through to an
    /// associated constant.
    pub(crate) types: Vec<String>,
    pub(crate) wrappers: Vec<WrapperDef>,
    /// The module stems of the compiled kernels the module's constants and statics embed
    /// (`const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/conv2d.ptx"));` is
    /// `conv2d`, as the resource manifest qualifies that file's kernels).
    pub(crate) artifacts: Vec<String>,
}

/// A parsed file.
#[derive(Debug)]
pub(crate) struct FileIndex {
    pub(crate) items: Items,
    /// Items left out of the file as past the parser's limits (see `split.rs`): what
    /// (`const D`) and why.
    pub(crate) skipped: Vec<(String, String)>,
}

impl FileIndex {
    /// Why `name` is not among the items, when an item of that name was left out as past
    /// the parser's limits: `not read: `const D` is nested more than 64 levels deep; ...`.
    pub(crate) fn skipped(&self, name: &str) -> Option<String> {
        let (_, why) = self
            .skipped
            .iter()
            .find(|(what, _)| what.rsplit(' ').next() == Some(name))?;
        Some(format!("not read: {why}"))
    }
}

impl Items {
    /// From a list of `syn` items.
    pub(crate) fn from_syn(items: &[syn::Item]) -> Items {
        Items::from_lifted(items, &mut [])
    }

    /// From a list of `syn` items whose functions' bodies may have been lifted out
    /// (`split::lift_bodies`): `lifted[i]` is the text of body `i`, taken by the function
    /// whose body stands for it.
    fn from_lifted(items: &[syn::Item], lifted: &mut [Option<String>]) -> Items {
        let mut out = Items::default();
        for item in items {
            out.add(item, lifted);
        }
        out
    }

    fn add(&mut self, item: &syn::Item, lifted: &mut [Option<String>]) {
        match item {
            syn::Item::Const(c) => {
                self.artifacts.extend(embedded_artifact(&c.expr));
                self.consts
                    .push(const_def(&c.ident, &c.ty, &c.expr, vis(&c.vis)))
            }
            syn::Item::Static(s) => self.artifacts.extend(embedded_artifact(&s.expr)),
            syn::Item::Fn(f) => {
                self.wrappers.push(wrapper_def(&f.attrs, &f.sig));
                if let Some(def) = fn_def(&f.sig, &f.block, vis(&f.vis), lifted) {
                    self.fns.push(def);
                }
            }
            syn::Item::Impl(i) => {
                let Some(self_ty) = ir::type_name(&i.self_ty).or_else(|| path_last(&i.self_ty))
                else {
                    return;
                };
                let mut def = ImplDef {
                    self_ty,
                    generic: !i.generics.params.is_empty(),
                    consts: Vec::new(),
                    fns: Vec::new(),
                    wrappers: Vec::new(),
                };
                for item in &i.items {
                    match item {
                        syn::ImplItem::Const(c) => {
                            def.consts
                                .push(const_def(&c.ident, &c.ty, &c.expr, vis(&c.vis)))
                        }
                        syn::ImplItem::Fn(f) => {
                            def.wrappers.push(wrapper_def(&f.attrs, &f.sig));
                            if let Some(d) = fn_def(&f.sig, &f.block, vis(&f.vis), lifted) {
                                def.fns.push(d);
                            }
                        }
                        _ => {}
                    }
                }
                self.impls.push(def);
            }
            syn::Item::Mod(m) => self.mods.push(ModDef {
                name: m.ident.to_string(),
                vis: vis(&m.vis),
                path_attr: path_attr(&m.attrs),
                inline: m
                    .content
                    .as_ref()
                    .map(|(_, items)| Items::from_lifted(items, lifted)),
            }),
            syn::Item::Use(u) => {
                let mut prefix = Vec::new();
                uses(
                    &u.tree,
                    &mut prefix,
                    u.leading_colon.is_some(),
                    &mut self.uses,
                );
            }
            syn::Item::Struct(s) => self.types.push(s.ident.to_string()),
            syn::Item::Enum(e) => self.types.push(e.ident.to_string()),
            syn::Item::Union(u) => self.types.push(u.ident.to_string()),
            syn::Item::Type(t) => self.types.push(t.ident.to_string()),
            syn::Item::Trait(t) => self.types.push(t.ident.to_string()),
            _ => {}
        }
    }

    /// The inline module at `path` below these items.
    pub(crate) fn inline(&self, path: &[String]) -> Option<&Items> {
        let mut items = self;
        for name in path {
            items = items
                .mods
                .iter()
                .find(|m| m.name == *name)?
                .inline
                .as_ref()?;
        }
        Some(items)
    }
}

/// The module stem of the compiled kernels `expr` embeds: `include_str!` or
/// `include_bytes!` of a path whose last string literal names a `.ptx`, `.cubin` or
/// `.fatbin` file (`concat!(env!("OUT_DIR"), "/conv2d.ptx")` is `conv2d`).
fn embedded_artifact(expr: &syn::Expr) -> Option<String> {
    let syn::Expr::Macro(m) = expr else {
        return None;
    };
    let name = m.mac.path.segments.last()?.ident.to_string();
    if name != "include_str" && name != "include_bytes" {
        return None;
    }
    // `include_str!(concat!(env!("OUT_DIR"), "/a.ptx"))` nests two groups; deeper is not
    // a path.
    fn last_string(tokens: proc_macro2::TokenStream, depth: u8, last: &mut Option<String>) {
        for t in tokens {
            match t {
                proc_macro2::TokenTree::Group(g) if depth < 4 => {
                    last_string(g.stream(), depth + 1, last)
                }
                proc_macro2::TokenTree::Literal(l) => {
                    if let Ok(syn::Lit::Str(s)) = syn::parse_str::<syn::Lit>(&l.to_string()) {
                        *last = Some(s.value());
                    }
                }
                _ => {}
            }
        }
    }
    let mut path = None;
    last_string(m.mac.tokens.clone(), 0, &mut path);
    let path = path?;
    [".ptx", ".cubin", ".fatbin"]
        .iter()
        .any(|ext| path.ends_with(ext))
        .then(|| occupancy_core::resources::manifest::module_stem(&path).to_owned())
}

fn const_def(ident: &syn::Ident, ty: &syn::Type, expr: &syn::Expr, vis: Vis) -> ConstDef {
    let ty_name = ir::type_name(ty);
    ConstDef {
        name: ident.to_string(),
        ty: ty_name.as_deref().and_then(IntTy::from_name),
        ty_text: quote::ToTokens::to_token_stream(ty)
            .to_string()
            .replace(' ', ""),
        expr: ir::lower(expr),
        vis,
    }
}

fn fn_def(
    sig: &syn::Signature,
    block: &syn::Block,
    vis: Vis,
    lifted: &mut [Option<String>],
) -> Option<FnDef> {
    let returns = match &sig.output {
        syn::ReturnType::Type(_, ty) => match ir::type_name(ty) {
            Some(name) if name == "LaunchConfig" => Returns::Config,
            Some(name) => match IntTy::from_name(&name) {
                Some(ty) => Returns::Int(ty),
                None if name == "bool" => Returns::Bool,
                // A string: a kernel's name (`format!("{root}_{dtype}")` in candle's
                // `kernel_name::<T>(root)`).
                None if name == "str" || name == "String" => Returns::Text,
                None => Returns::Value,
            },
            None if matches!(&**ty, syn::Type::Tuple(t) if !t.elems.is_empty()) => Returns::Value,
            None if matches!(&**ty, syn::Type::Never(_)) => Returns::Never,
            None => Returns::Other,
        },
        syn::ReturnType::Default => Returns::Other,
    };
    let is_const = sig.constness.is_some();
    // Only functions the reader can use: those returning a configuration, an integer, a
    // tuple, a struct, a string or a `bool`, and those that never return. The rest are not recorded (and their bodies not lowered).
    if returns == Returns::Other {
        return None;
    }
    Some(FnDef {
        pack: false,
        name: sig.ident.to_string(),
        vis,
        is_const,
        generics: sig
            .generics
            .params
            .iter()
            .map(|p| match p {
                syn::GenericParam::Const(c) => Generic::Const(c.ident.to_string()),
                // A type parameter is inferred or written as a type the reader does not
                // bind (`size_of::<T>()` of a generic helper is not read).
                _ => Generic::Unbound,
            })
            .collect(),
        generic_defaults: Vec::new(),
        params: sig
            .inputs
            .iter()
            .map(|arg| match arg {
                syn::FnArg::Typed(t) => (
                    ir::lower_pat(&t.pat),
                    ir::type_name(&t.ty).as_deref().and_then(IntTy::from_name),
                ),
                syn::FnArg::Receiver(_) => (ir::Pat::Bind("self".to_owned(), None), None),
            })
            .collect(),
        generic_over_types: sig
            .generics
            .params
            .iter()
            .any(|p| matches!(p, syn::GenericParam::Type(_)))
            || sig.inputs.iter().any(|arg| match arg {
                syn::FnArg::Typed(t) => holds_impl_trait(&t.ty),
                syn::FnArg::Receiver(_) => false,
            }),
        returns,
        body: Arc::new(
            match crate::split::lifted_index(block).and_then(|i| lifted.get_mut(i)?.take()) {
                Some(text) => Body::deferred(text),
                None => Body::lowered(block),
            },
        ),
    })
}

/// Whether `ty` holds an `impl Trait` (an anonymous type parameter of the function).
fn holds_impl_trait(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::ImplTrait(_) => true,
        syn::Type::Reference(r) => holds_impl_trait(&r.elem),
        syn::Type::Ptr(p) => holds_impl_trait(&p.elem),
        syn::Type::Slice(s) => holds_impl_trait(&s.elem),
        syn::Type::Array(a) => holds_impl_trait(&a.elem),
        syn::Type::Paren(p) => holds_impl_trait(&p.elem),
        syn::Type::Group(g) => holds_impl_trait(&g.elem),
        syn::Type::Tuple(t) => t.elems.iter().any(holds_impl_trait),
        syn::Type::Path(p) => p.path.segments.iter().any(|s| match &s.arguments {
            syn::PathArguments::AngleBracketed(a) => a.args.iter().any(|a| match a {
                syn::GenericArgument::Type(t) => holds_impl_trait(t),
                _ => false,
            }),
            _ => false,
        }),
        _ => false,
    }
}

/// Every function is where a wrapper may be (`cargo occupancy report --all` reads
/// functions that carry no attribute yet); the signature's text, which tells apart
/// functions of one name, only for those with an attribute that may be the check (printing
/// every signature of a crate would cost the macro).
fn wrapper_def(attrs: &[syn::Attribute], sig: &syn::Signature) -> WrapperDef {
    WrapperDef {
        name: sig.ident.to_string(),
        signature: if is_check_candidate(attrs) {
            quote::ToTokens::to_token_stream(sig).to_string()
        } else {
            String::new()
        },
    }
}

/// An attribute that may be `#[occupancy::check]` under any name (`check`, an alias,
/// inside `cfg_attr`): any attribute but the common built-in ones.
fn is_check_candidate(attrs: &[syn::Attribute]) -> bool {
    const BUILTIN: &[&str] = &[
        "doc",
        "allow",
        "warn",
        "deny",
        "forbid",
        "expect",
        "inline",
        "must_use",
        "cfg",
        "deprecated",
        "track_caller",
        "cold",
        "no_mangle",
        "export_name",
        "link_section",
        "target_feature",
        "test",
    ];
    attrs.iter().any(|a| {
        !a.path()
            .get_ident()
            .is_some_and(|i| BUILTIN.contains(&i.to_string().as_str()))
    })
}

fn path_last(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

fn vis(v: &syn::Visibility) -> Vis {
    match v {
        syn::Visibility::Public(_) => Vis::Pub,
        syn::Visibility::Restricted(r) => {
            let path: Vec<String> = r
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            match path
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .as_slice()
            {
                ["crate"] => Vis::Crate,
                ["super"] => Vis::Super,
                ["self"] => Vis::Private,
                _ => Vis::In(path),
            }
        }
        _ => Vis::Private,
    }
}

fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

fn uses(tree: &syn::UseTree, prefix: &mut Vec<String>, leading: bool, out: &mut Vec<UseDef>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            uses(&p.tree, prefix, leading, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            // `use a::b::{self}` binds `b`.
            let (binding, path) = if name == "self" {
                (prefix.last().cloned(), prefix.clone())
            } else {
                let mut path = prefix.clone();
                path.push(name.clone());
                (Some(name), path)
            };
            if let Some(binding) = binding {
                out.push(UseDef {
                    binding: Some(binding),
                    path,
                    leading_colon: leading,
                });
            }
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix.clone();
            if r.ident != "self" {
                path.push(r.ident.to_string());
            }
            out.push(UseDef {
                binding: Some(r.rename.to_string()),
                path,
                leading_colon: leading,
            });
        }
        syn::UseTree::Glob(_) => out.push(UseDef {
            binding: None,
            path: prefix.clone(),
            leading_colon: leading,
        }),
        syn::UseTree::Group(g) => {
            for tree in &g.items {
                uses(tree, prefix, leading, out);
            }
        }
    }
}

/// Parses `text` into a [`FileIndex`], or says why it cannot.
/// Items past the parser's limits are left out (see `split.rs`): a name they define is then
/// not found, and the rest of the file is read.
pub(crate) fn index_text(text: &str, compiled: bool) -> Result<FileIndex, String> {
    let tokens = lex(text, compiled).map_err(|e| format!("does not lex: {e}"))?;
    // The functions' bodies are parsed when run (`Body`), the rest of the file now.
    let mut bodies = Vec::new();
    let tokens = crate::split::lift_bodies(tokens, 0, &mut bodies);
    // Each body kept as its tokens printed: what is read of them is their tokens, so a
    // text that lexes back to the same tokens is as good as the text written (and the
    // text written cannot be located inside a proc macro, where every span of a parsed
    // string is the macro's call site).
    let mut lifted: Vec<Option<String>> =
        bodies.iter().map(|body| Some(body.to_string())).collect();
    let file = crate::split::parse_file(tokens, "this file")
        .map_err(|e| format!("does not parse: {e}"))?;
    Ok(FileIndex {
        items: Items::from_lifted(&file.syntax.items, &mut lifted),
        skipped: file
            .skipped
            .into_iter()
            .filter(|s| s.body_of.is_none())
            .map(|s| (s.what, s.why))
            .collect(),
    })
}

/// `text`'s tokens. In a proc macro, proc-macro2 first lexes a text itself to make sure
/// the compiler's lexer will take it (which otherwise reports its errors as the crate's
/// compile errors, or panics), then has the compiler lex it: at opt-level 0, as cargo builds
/// proc macros, that first pass was 320 M instructions for candle-core's seven files
/// (docs/PERFORMANCE.md section 2). A file rustc is `compiled` (compiling: the wrapper's own
/// file, as the compiler names it) has already been lexed by rustc, so the compiler's lexer
/// takes it as it is; every other file (one a `#[cfg]` leaves out may not lex) goes
/// through proc-macro2's check. Outside a proc macro proc-macro2 lexes alone.
///
/// A compiled file can still hold what the compiler's lexer rejects (rustc reports it and
/// goes on expanding the items before it): that lexer then reports it a second time and
/// may panic (an unterminated block comment does). The panic is caught, and the text goes
/// through proc-macro2's check, which says why it does not lex.
fn lex(text: &str, compiled: bool) -> Result<proc_macro2::TokenStream, String> {
    if compiled && proc_macro::is_available() {
        let by_compiler = std::panic::catch_unwind(|| text.parse::<proc_macro::TokenStream>());
        if let Ok(Ok(tokens)) = by_compiler {
            return Ok(tokens.into());
        }
    }
    text.parse()
        .map_err(|e: proc_macro2::LexError| e.to_string())
}

/// Every file indexed in this process, by path: the text it was indexed from, and the
/// index (or why there is none).
type Indexed = HashMap<PathBuf, (String, Result<Arc<FileIndex>, String>)>;

static INDEXED: Mutex<Option<Indexed>> = Mutex::new(None);

/// The index of the file at `path` (absolute), parsing it only if its text changed since
/// the last time this process indexed it; `compiled`: rustc is compiling it (see [`lex`]).
pub(crate) fn index_file(path: &Path, compiled: bool) -> Result<Arc<FileIndex>, String> {
    let text = read_text(path)?;
    let mut memo = INDEXED.lock().unwrap_or_else(|e| e.into_inner());
    let memo = memo.get_or_insert_with(HashMap::new);
    if let Some((known, index)) = memo.get(path)
        && *known == text
    {
        return index.clone();
    }
    let index = index_text(&text, compiled).map(Arc::new);
    memo.insert(path.to_path_buf(), (text, index.clone()));
    index
}

/// A source file's text: a regular file of at most [`MAX_SOURCE_BYTES`], read with the
/// project's one file reader ([`occupancy_core::file::read_text`]: a device or a FIFO is
/// refused before it is opened). Not subject to the attribute's containment rule
/// (`occupancy-spec`'s `read.rs`): the files read are the crate's module tree, which rustc
/// compiles.
fn read_text(path: &Path) -> Result<String, String> {
    occupancy_core::file::read_text(path, "source file", MAX_SOURCE_BYTES)
        .map_err(|e| e.reason.to_string())
}

/// Where a module's items are: the file, the inline modules inside it, and the folder its
/// `mod name;` files are looked for in.
#[derive(Clone, Debug)]
struct Place {
    file: PathBuf,
    index: Arc<FileIndex>,
    inline: Vec<String>,
    children_dir: PathBuf,
}

/// The crate's sources for one expansion: the roots, and the modules loaded so far.
pub(crate) struct Crate {
    local_root: Option<PathBuf>,
    lib_root: Option<PathBuf>,
    /// The package library's crate name (`occupancy_examples`), when it is not the crate
    /// being compiled.
    pub(crate) lib_name: Option<String>,
    places: HashMap<ModuleId, Result<Place, String>>,
    files_loaded: usize,
    /// The wrapper's file is read as a crate root of its own: where it is in the crate's
    /// module tree is not known, so its items are named from the wrapper's module (`self::`,
    /// `super::`), never from `crate::`.
    pub(crate) detached: bool,
    /// The wrapper's file: compiled in this build, so of a module declared more than once
    /// (under `#[cfg]`s), the declaration whose file it is is the one in force.
    compiled_file: PathBuf,
}

impl Crate {
    /// The crate whose root is found from `file` (the wrapper's file) in the package at
    /// `package_dir`; `lib_name`: the package's library crate name, if it has one other
    /// than the crate being compiled.
    pub(crate) fn for_file(package_dir: &Path, file: &Path, lib_name: Option<String>) -> Crate {
        let lib = package_dir.join("src/lib.rs");
        let local_root = crate_root(package_dir, file);
        let lib_root =
            (is_file(&lib) && local_root.as_deref() != Some(lib.as_path())).then_some(lib);
        Crate {
            local_root,
            lib_name: lib_name.filter(|_| lib_root.is_some()),
            lib_root,
            places: HashMap::new(),
            files_loaded: 0,
            compiled_file: file.to_path_buf(),
            detached: false,
        }
    }

    /// The crate for the wrapper `name` (with `signature`, to tell apart functions of one
    /// name) in `file`, and where the wrapper is: its module and the type of the `impl` it
    /// is in. A file outside the module tree (a custom layout the reader does not follow) is
    /// read as a crate root of its own: its own constants still resolve. The flag: the
    /// wrapper was found, and it is the only function of its name (and signature, where
    /// there are several) in its file.
    pub(crate) fn locate(
        package_dir: &Path,
        file: &Path,
        lib_name: Option<String>,
        name: &str,
        signature: &str,
    ) -> (Crate, Option<(ModuleId, Option<String>)>, bool) {
        let mut krate = Crate::for_file(package_dir, file, lib_name.clone());
        let module = match krate.module_of_file(file) {
            Some(m) => m,
            None => {
                krate = Crate {
                    local_root: Some(file.to_path_buf()),
                    detached: true,
                    ..Crate::for_file(package_dir, file, lib_name)
                };
                ModuleId {
                    krate: CrateId::Local,
                    path: Vec::new(),
                }
            }
        };
        let Ok((index, inline, _)) = krate.items(&module) else {
            return (krate, None, false);
        };
        let Some(items) = index.items.inline(&inline) else {
            return (krate, None, false);
        };
        let mut found = Vec::new();
        find_wrapper(items, name, &mut Vec::new(), &mut found);
        if found.len() > 1 {
            let exact: Vec<_> = found
                .iter()
                .filter(|(_, _, sig)| sig == signature)
                .cloned()
                .collect();
            if !exact.is_empty() {
                found = exact;
            }
        }
        let exact = found.len() == 1;
        let location = match found.into_iter().next() {
            Some((inline, self_ty, _)) => {
                let mut path = module.path.clone();
                path.extend(inline);
                (
                    ModuleId {
                        krate: module.krate,
                        path,
                    },
                    self_ty,
                )
            }
            // Not found as written (made by a macro?): the file's module, no `Self`.
            None => (module, None),
        };
        (krate, Some(location), exact)
    }

    /// The module of `file` in the crate being compiled.
    pub(crate) fn module_of_file(&mut self, file: &Path) -> Option<ModuleId> {
        let root = self.local_root.clone()?;
        let root_id = ModuleId {
            krate: CrateId::Local,
            path: Vec::new(),
        };
        if same_file(&root, file) {
            return Some(root_id);
        }
        // The path the module tree would give, guessed from the folders: `src/a/b.rs` or
        // `src/a/b/mod.rs` is `a::b`.
        let dir = root.parent()?;
        let relative = file.strip_prefix(dir).ok()?;
        let mut guess: Vec<String> = relative
            .with_extension("")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if guess.last().is_some_and(|l| l == "mod") {
            guess.pop();
        }
        let id = ModuleId {
            krate: CrateId::Local,
            path: guess,
        };
        if let Ok(place) = self.place(&id)
            && place.inline.is_empty()
            && same_file(&place.file, file)
        {
            return Some(id);
        }
        // `#[path]` or an unusual layout: search the tree breadth-first, up to a bound.
        let mut queue = vec![root_id];
        while let Some(id) = queue.pop() {
            let Ok(place) = self.place(&id) else { continue };
            if place.inline.is_empty() && same_file(&place.file, file) {
                return Some(id);
            }
            if self.files_loaded >= MAX_FILES {
                return None;
            }
            let items = place.index.items.inline(&place.inline)?;
            for m in &items.mods {
                let mut path = id.path.clone();
                path.push(m.name.clone());
                queue.insert(
                    0,
                    ModuleId {
                        krate: id.krate,
                        path,
                    },
                );
            }
        }
        None
    }

    /// The items of module `id`, or why they cannot be read.
    pub(crate) fn items(
        &mut self,
        id: &ModuleId,
    ) -> Result<(Arc<FileIndex>, Vec<String>, PathBuf), String> {
        let place = self.place(id)?;
        Ok((place.index, place.inline, place.file))
    }

    fn place(&mut self, id: &ModuleId) -> Result<Place, String> {
        if let Some(place) = self.places.get(id) {
            return place.clone();
        }
        let place = self.load_place(id);
        self.places.insert(id.clone(), place.clone());
        place
    }

    fn load_place(&mut self, id: &ModuleId) -> Result<Place, String> {
        let Some(parent) = id.parent() else {
            let root = match id.krate {
                CrateId::Local => self.local_root.clone(),
                CrateId::PackageLib => self.lib_root.clone(),
            }
            .ok_or_else(|| "the crate's root file was not found".to_owned())?;
            let index = self.load(&root)?;
            let children_dir = root.parent().map(Path::to_path_buf).unwrap_or_default();
            return Ok(Place {
                file: root,
                index,
                inline: Vec::new(),
                children_dir,
            });
        };
        let parent_place = self.place(&parent)?;
        let name = id.path.last().cloned().unwrap_or_default();
        let items = parent_place
            .index
            .items
            .inline(&parent_place.inline)
            .ok_or_else(|| "an inline module could not be found again".to_owned())?;
        let decls: Vec<&ModDef> = items.mods.iter().filter(|m| m.name == name).collect();
        let decl = match decls.as_slice() {
            [one] => *one,
            [] => {
                return Err(format!(
                    "no module `{name}` in {}",
                    parent.text(self.lib_name.as_deref())
                ));
            }
            _ => {
                // `#[cfg(feature = "cuda")] pub mod cuda;` beside `#[cfg(not(feature =
                // "cuda"))] mod cuda { .. }`: the wrapper's own file is compiled, so the
                // declaration of that file is the one in force. Any other is not known.
                let compiled: Vec<&ModDef> = decls
                    .iter()
                    .copied()
                    .filter(|d| {
                        d.inline.is_none()
                            && decl_file(d, &name, &parent_place)
                                .is_ok_and(|f| same_file(&f, &self.compiled_file))
                    })
                    .collect();
                match compiled.as_slice() {
                    [one] => *one,
                    _ => {
                        return Err(format!(
                            "`{name}` is declared more than once in {} (under #[cfg]?)",
                            parent.text(self.lib_name.as_deref())
                        ));
                    }
                }
            }
        };
        if decl.inline.is_some() {
            let mut inline = parent_place.inline.clone();
            inline.push(name.clone());
            return Ok(Place {
                file: parent_place.file.clone(),
                index: parent_place.index.clone(),
                inline,
                children_dir: parent_place.children_dir.join(&name),
            });
        }
        let file = decl_file(decl, &name, &parent_place)?;
        let index = self.load(&file)?;
        let is_mod_rs = file.file_name().is_some_and(|n| n == "mod.rs") || decl.path_attr.is_some();
        let children_dir = if is_mod_rs {
            file.parent().map(Path::to_path_buf).unwrap_or_default()
        } else {
            parent_place.children_dir.join(&name)
        };
        Ok(Place {
            file,
            index,
            inline: Vec::new(),
            children_dir,
        })
    }

    fn load(&mut self, file: &Path) -> Result<Arc<FileIndex>, String> {
        self.files_loaded += 1;
        let compiled = same_file(file, &self.compiled_file);
        index_file(file, compiled).map_err(|why| format!("{} {why}", shown(file)))
    }
}

/// The file `mod name;` (`decl`, in the module at `parent`) loads: `#[path]`'s, else
/// `name.rs` or `name/mod.rs` in the parent's folder for child modules; or why none is
/// found.
fn decl_file(decl: &ModDef, name: &str, parent: &Place) -> Result<PathBuf, String> {
    let candidates: Vec<PathBuf> = match &decl.path_attr {
        Some(p) => {
            let base = parent
                .file
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default();
            vec![base.join(p)]
        }
        None => vec![
            parent.children_dir.join(format!("{name}.rs")),
            parent.children_dir.join(name).join("mod.rs"),
        ],
    };
    candidates
        .iter()
        .find(|c| is_file(c))
        .cloned()
        .ok_or_else(|| {
            format!(
                "the file of `mod {name};` was not found ({})",
                candidates
                    .iter()
                    .map(|c| c.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" or ")
            )
        })
}

/// Every function named `name` that may carry the attribute: (its inline module path, the
/// type of its impl, its signature).
fn find_wrapper(
    items: &Items,
    name: &str,
    inline: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>, String)>,
) {
    if inline.len() > 32 {
        return;
    }
    for w in items.wrappers.iter().filter(|w| w.name == name) {
        out.push((inline.clone(), None, w.signature.clone()));
    }
    for imp in &items.impls {
        for w in imp.wrappers.iter().filter(|w| w.name == name) {
            out.push((
                inline.clone(),
                Some(imp.self_ty.clone()),
                w.signature.clone(),
            ));
        }
    }
    for m in &items.mods {
        if let Some(inner) = &m.inline {
            inline.push(m.name.clone());
            find_wrapper(inner, name, inline, out);
            inline.pop();
        }
    }
}

/// The root file of the crate that compiles `file`, in the package at `dir`: by cargo's
/// layout (`src/lib.rs` or `src/main.rs`, `src/bin/<name>.rs`, `examples/<name>.rs`,
/// `tests/<name>.rs`, `benches/<name>.rs`, or `<name>/main.rs` in those folders); else
/// `file` itself.
fn crate_root(dir: &Path, file: &Path) -> Option<PathBuf> {
    for kind in ["src/bin", "examples", "tests", "benches"] {
        let base = dir.join(kind);
        if let Ok(relative) = file.strip_prefix(&base) {
            let first = relative.components().next()?;
            let first = base.join(first);
            return Some(if file::probe(&first) == Seen::Dir {
                first.join("main.rs")
            } else {
                first
            });
        }
    }
    if file.starts_with(dir.join("src")) {
        for root in ["src/lib.rs", "src/main.rs"] {
            let root = dir.join(root);
            if is_file(&root) {
                return Some(root);
            }
        }
    }
    Some(file.to_path_buf())
}

fn same_file(a: &Path, b: &Path) -> bool {
    a == b || matches!((file::canonicalize(a), file::canonicalize(b)), (Ok(a), Ok(b)) if a == b)
}

/// Whether `path` is a regular file (links followed), as the expansion cache records it.
fn is_file(path: &Path) -> bool {
    file::probe(path) == Seen::File
}

/// The last components of `path`, for messages (`src/consts.rs`).
pub(crate) fn shown(path: &Path) -> String {
    let parts: Vec<String> = path
        .components()
        .rev()
        .take(2)
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.into_iter().rev().collect::<Vec<_>>().join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lifted_body_lowers_as_the_body_parsed_with_its_file() {
        // Functions at the top, in an inline module, in an impl; one body with a nested
        // fn and a closure, one with a string holding a brace.
        let text = r#"
            fn top(n: u32) -> u32 { let b = if n > 4 { 256 } else { 128 }; b * 2 }
            mod inner {
                pub fn helper(x: usize) -> usize { fn nested() -> usize { 3 } x.max(nested()) }
                impl Gemm { fn block(&self) -> u32 { let s = "{"; let f = |v: u32| v + 1; f(31) } }
            }
        "#;
        let index = index_text(text, false).unwrap();
        let parsed: syn::File = syn::parse_str(text).unwrap();
        let mut direct = Vec::new();
        for item in &parsed.items {
            match item {
                syn::Item::Fn(f) => direct.push(ir::lower_fn_body(&f.block)),
                syn::Item::Mod(m) => {
                    for item in &m.content.as_ref().unwrap().1 {
                        match item {
                            syn::Item::Fn(f) => direct.push(ir::lower_fn_body(&f.block)),
                            syn::Item::Impl(i) => {
                                for item in &i.items {
                                    if let syn::ImplItem::Fn(f) = item {
                                        direct.push(ir::lower_fn_body(&f.block));
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        let inner = index.items.mods[0].inline.as_ref().unwrap();
        let lifted: Vec<&Block> = index
            .items
            .fns
            .iter()
            .chain(&inner.fns)
            .chain(&inner.impls[0].fns)
            .map(|f| f.body.get())
            .collect();
        assert_eq!(lifted.len(), 3);
        for (lifted, direct) in lifted.iter().zip(&direct) {
            assert_eq!(*lifted, direct);
            assert_ne!(**lifted, Block::default());
        }
    }

    #[test]
    fn records_the_compiled_files_a_module_embeds() {
        let index = index_text(
            r#"
            const PTX_SRC: &str = include_str!(concat!(env!("OUT_DIR"), "/conv2d.ptx"));
            static CUBIN: &[u8] = include_bytes!("../kernels/pool.sm_90a.cubin");
            const FAT: &[u8] = std::include_bytes!("k.fatbin");
            const TEXT: &str = include_str!("notes.md");
            const NAME: &str = "conv2d.ptx";
            mod inner { const P: &str = include_str!("inner.ptx"); }
            "#,
            false,
        )
        .unwrap();
        assert_eq!(index.items.artifacts, ["conv2d", "pool", "k"]);
        assert_eq!(
            index.items.inline(&["inner".to_owned()]).unwrap().artifacts,
            ["inner"]
        );
    }

    #[test]
    fn indexes_the_items_that_matter() {
        let index = index_text(
            r#"
            use crate::consts::{TILE, WARP as W};
            use super::*;
            pub const BLOCK: u32 = 2 * 128;
            const BIG: usize = 1 << 20;
            #[cfg(feature = "x")] const SMEM: u32 = 4096;
            pub(crate) const fn smem_bytes(t: u32) -> u32 { t * t * 4 }
            fn launch_cfg<const N: u32>(n: u32) -> LaunchConfig {
                LaunchConfig { grid_dim: (n.div_ceil(N), 1, 1), block_dim: (N, 1, 1), shared_mem_bytes: 0 }
            }
            fn block_for(n: u32) -> u32 { if n < 1024 { 32 } else { 1024 } }
            fn tiling(wide: bool) -> (u32, u32) { if wide { (256, 8) } else { (64, 2) } }
            fn log(message: &str) {}
            fn name() -> String { String::new() }
            struct Softmax;
            impl Softmax { const BLOCK: u32 = 256; #[occupancy::check(kernel = "s")] fn launch(&self) {} }
            mod inner { pub const X: u8 = 3; }
            mod outer;
            "#,
            false,
        )
        .unwrap();
        let items = &index.items;
        let consts: Vec<(&str, Option<IntTy>, &Vis)> = items
            .consts
            .iter()
            .map(|c| (c.name.as_str(), c.ty, &c.vis))
            .collect();
        assert_eq!(
            consts,
            [
                ("BLOCK", Some(IntTy::U32), &Vis::Pub),
                ("BIG", Some(IntTy::Usize), &Vis::Private),
                ("SMEM", Some(IntTy::U32), &Vis::Private)
            ]
        );
        let fns: Vec<(&str, Returns)> = items
            .fns
            .iter()
            .map(|f| (f.name.as_str(), f.returns))
            .collect();
        assert_eq!(
            fns,
            [
                ("smem_bytes", Returns::Int(IntTy::U32)),
                ("launch_cfg", Returns::Config),
                ("block_for", Returns::Int(IntTy::U32)),
                ("tiling", Returns::Value),
                // A string: a kernel's name (candle's `kernel_name::<T>(root)`).
                ("name", Returns::Text)
            ]
        );
        assert_eq!(items.fns[1].generics, [Generic::Const("N".to_owned())]);
        assert_eq!(items.impls[0].self_ty, "Softmax");
        assert_eq!(items.impls[0].consts[0].name, "BLOCK");
        assert_eq!(items.impls[0].wrappers[0].name, "launch");
        let uses: Vec<(Option<&str>, String)> = items
            .uses
            .iter()
            .map(|u| (u.binding.as_deref(), u.path.join("::")))
            .collect();
        assert_eq!(
            uses,
            [
                (Some("TILE"), "crate::consts::TILE".to_owned()),
                (Some("W"), "crate::consts::WARP".to_owned()),
                (None, "super".to_owned())
            ]
        );
        assert!(items.mods[0].inline.is_some());
        assert!(items.mods[1].inline.is_none());
        assert_eq!(
            items.inline(&["inner".to_owned()]).unwrap().consts[0].name,
            "X"
        );
    }

    /// A file is parsed once per compilation: the same text gives the same index (the
    /// memo), a changed text a new one.
    #[test]
    fn each_file_is_parsed_once_per_text() {
        let dir = std::env::temp_dir().join(format!("occupancy-memo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("consts.rs");
        std::fs::write(&file, "pub const A: u32 = 1;").unwrap();
        let first = index_file(&file, false).unwrap();
        let again = index_file(&file, false).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        std::fs::write(&file, "pub const A: u32 = 2;").unwrap();
        let changed = index_file(&file, false).unwrap();
        assert!(!Arc::ptr_eq(&first, &changed));
        assert_eq!(changed.items.consts[0].expr, ir::Expr::Int(2, None));
        // Not a regular file: said so.
        assert_eq!(
            index_file(&dir, false).unwrap_err(),
            "it is a directory, not a regular file"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn unparsable_text_says_why() {
        assert!(
            index_text("fn f() -> {}", false)
                .unwrap_err()
                .starts_with("does not parse")
        );
        assert!(
            index_text("fn f(", false)
                .unwrap_err()
                .starts_with("does not lex")
        );
    }
}
