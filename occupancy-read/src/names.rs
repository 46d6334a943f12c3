//! What the interpreter asks its front end about names: the definitions a path names at a
//! place (constants, functions, modules, types, builtins), as plain data lowered to the IR,
//! through the [`Names`] trait. The Rust front end answers from the crate's module tree
//! (`occupancy-attr/src/reader/names.rs` over `source.rs`).

use std::sync::Arc;

use crate::ir::{Block, Expr, IntTy, Pat, Path, Segment};

/// A function's body as the front end gives it: lowered when the interpreter first runs the
/// function (the Rust front end keeps the text and lowers it then).
pub trait FnBody: std::fmt::Debug + Send + Sync {
    /// The body, lowered (an empty block when it cannot be).
    fn get(&self) -> &Block;
}

/// The interpreter's questions about names; the front end answers them from its sources.
pub trait Names {
    /// The integer constants declared at the top of the wrapper's body, visible in all of it.
    fn body_consts(&self) -> &[ConstDef];

    /// The module and `Self` type of `place` (for the wrapper's place, where the wrapper is
    /// found in the sources; `(None, None)` when it is not).
    fn place(&mut self, place: &Place) -> (Option<ModuleId>, Option<String>);

    /// The file of `module`, for messages.
    fn place_of(&mut self, module: &ModuleId) -> String;

    /// What `path` names at `place` (not a local binding).
    ///
    /// # Errors
    ///
    /// Why it names nothing the reader can use: not found, ambiguous, not visible, the
    /// sources not available.
    fn resolve(&mut self, path: &Path, place: &Place) -> Result<Def, String>;

    /// What `path` names at `place` as the callee of a call given `arity` arguments: where
    /// a language overloads functions by their number (C++), the one that takes them; else
    /// [`Names::resolve`].
    ///
    /// # Errors
    ///
    /// As [`Names::resolve`].
    fn resolve_call(&mut self, path: &Path, place: &Place, arity: usize) -> Result<Def, String> {
        let _ = arity;
        self.resolve(path, place)
    }

    /// The package's library name, when the wrapper is in one of its binaries, examples,
    /// tests or benches (paths into the library start with it).
    fn lib_name(&self) -> Option<&str>;

    /// The size in bytes (an expression the interpreter computes: an array's count may be a
    /// constant) and the alignment of the type `ty` as a [`crate::value::Val::Type`] spells
    /// it, where the front end lays it out (C++: built-in types on LP64, the unit's plain
    /// structs); `None` where it does not (the default).
    fn type_layout(&mut self, ty: &str) -> Option<(Expr, u64)> {
        let _ = ty;
        None
    }

    /// The path from the crate root by which the wrapper names the constant `def` of
    /// `module` (`Self` type `self_ty`), for the compiler's confirmation.
    ///
    /// # Errors
    ///
    /// Why the wrapper cannot name it (not visible from there, in a generic `impl`).
    fn root_path(
        &mut self,
        module: &ModuleId,
        self_ty: Option<&str>,
        def: &ConstDef,
    ) -> Result<Path, String>;

    /// [`Names::root_path`] for the function `def`, called as `written`.
    ///
    /// # Errors
    ///
    /// As [`Names::root_path`].
    fn fn_root_path(
        &mut self,
        module: &ModuleId,
        self_ty: Option<&str>,
        def: &FnDef,
        written: &Path,
    ) -> Result<Path, String>;
}

/// Who may name an item, as written on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Vis {
    /// No `pub`: the module it is in, and that module's descendants.
    Private,
    /// `pub`: everyone (the package's library seen from its binaries, examples, tests).
    Pub,
    /// `pub`: the whole crate.
    Crate,
    /// `pub(super)`: the parent module and its descendants.
    Super,
    /// `pub(in crate::a)`, `pub(self)`: that module (a path from the crate root).
    In(Vec<String>),
}

/// An integer `const` (or an associated constant).
#[derive(Clone, Debug)]
pub struct ConstDef {
    /// The constant's name.
    pub name: String,
    /// Its declared type when that is an integer type.
    pub ty: Option<IntTy>,
    /// The declared type as written, for messages.
    pub ty_text: String,
    /// Its value's expression, lowered.
    pub expr: Expr,
    /// Who may name it.
    pub vis: Vis,
}

/// What a function returns, as far as the reader cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Returns {
    /// `LaunchConfig` (a launch helper).
    Config,
    /// An integer type.
    Int(IntTy),
    /// A tuple or a named type without generic arguments (a struct of the crate): values
    /// chosen together.
    Value,
    /// A string (`String`, `str`): a kernel's name (candle's `kernel_name::<T>(root)`),
    /// read where the function makes one path: a name it chooses on several paths is not
    /// tied to the caller's conditions, so it would be paired with another path's block.
    Text,
    /// `bool`: a test of the caller's values (`fn small(n: u32) -> bool { n < 256 }`), whose
    /// comparisons of a parameter given the caller's name narrow that name on each way.
    Bool,
    /// `!`: it never returns (`fn fail(msg: &str) -> ! { panic!(..) }`), so a path that
    /// calls it makes no launch after.
    Never,
    /// Anything else (not read).
    Other,
}

/// A function the reader can run: one returning a `LaunchConfig`, an integer, a tuple, a
/// struct or a string.
#[derive(Clone, Debug)]
pub struct FnDef {
    /// The function's name.
    pub name: String,
    /// Who may name it.
    pub vis: Vis,
    /// A `const fn`.
    pub is_const: bool,
    /// Generic parameters in order.
    pub generics: Vec<Generic>,
    /// Each generic parameter's default argument, in the order of `generics` (C++'s
    /// `int NUM_THREADS = 128`, a constant expression of the unit); empty where none has one
    /// (a Rust function's const generics cannot). A call that writes the leading arguments
    /// only takes the defaults for the rest.
    pub generic_defaults: Vec<Option<Expr>>,
    /// Parameters in order: the pattern, and its integer type when it has one.
    pub params: Vec<(Pat, Option<IntTy>)>,
    /// The last parameter is a C++ function parameter pack (`Archs... rest`): it takes every
    /// argument from its place on, as a tuple, which `rest...` spreads again
    /// ([`crate::ir::Expr::Spread`]).
    pub pack: bool,
    /// Generic over types: a type parameter, or an `impl Trait` parameter. Its function item
    /// cannot be named without the types (`slice_ptr` of `fn slice_ptr<T: DeviceRepr>` is
    /// "type annotations needed" on its own).
    pub generic_over_types: bool,
    /// What it returns, as far as the reader cares.
    pub returns: Returns,
    /// The body, lowered by the front end the first time it is run.
    pub body: Arc<dyn FnBody>,
}

/// A generic (template) parameter of a function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Generic {
    /// A constant (`const N: u32`, C++'s `int N`), bound to the value a call gives.
    Const(String),
    /// A type (C++'s `typename T`), bound to the type a call writes ([`crate::value::Val::Type`]);
    /// one not written is deduced by the language, and the front end writes it where it can.
    Type(String),
    /// A lifetime, a Rust type parameter, a C++ pack: not bound.
    Unbound,
}

impl Generic {
    /// The name of a constant parameter.
    pub fn constant(&self) -> Option<&str> {
        match self {
            Generic::Const(name) => Some(name),
            _ => None,
        }
    }

    /// The name bound: a constant's or a type's.
    pub fn bound(&self) -> Option<&str> {
        match self {
            Generic::Const(name) | Generic::Type(name) => Some(name),
            Generic::Unbound => None,
        }
    }
}

/// Which crate a module belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CrateId {
    /// The crate being compiled.
    Local,
    /// The package's library, named from a binary, example, test or bench of the package.
    PackageLib,
}

/// A module: its crate and its path from that crate's root.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ModuleId {
    /// The crate the module belongs to.
    pub krate: CrateId,
    /// Its path from that crate's root (empty for the root).
    pub path: Vec<String>,
}

impl ModuleId {
    /// The parent module (`None` for a crate root).
    pub fn parent(&self) -> Option<ModuleId> {
        let mut path = self.path.clone();
        path.pop()?;
        Some(ModuleId {
            krate: self.krate,
            path,
        })
    }

    /// `crate::a::b`, or `occupancy_examples::a` for the package's library.
    pub fn text(&self, lib_name: Option<&str>) -> String {
        let root = match self.krate {
            CrateId::Local => "crate",
            CrateId::PackageLib => lib_name.unwrap_or("crate"),
        };
        std::iter::once(root)
            .chain(self.path.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join("::")
    }

    /// Whether `self` is `other` or inside it.
    pub fn within(&self, other: &ModuleId) -> bool {
        self.krate == other.krate && self.path.starts_with(&other.path)
    }
}

/// Where a path is resolved: a module and the type `Self` names there, or the wrapper's
/// (found in the crate's sources when first needed).
#[derive(Clone, Debug, PartialEq)]
pub struct Place {
    /// The module (`None` for the wrapper's until it is located).
    pub module: Option<ModuleId>,
    /// The type `Self` names there (in an `impl`).
    pub self_ty: Option<String>,
    /// The wrapper's own place (its module is found on first use).
    pub at_wrapper: bool,
}

impl Place {
    /// The wrapper's place.
    pub fn wrapper() -> Place {
        Place {
            module: None,
            self_ty: None,
            at_wrapper: true,
        }
    }

    /// A module of the crate, with the type `Self` names there.
    pub fn module(module: ModuleId, self_ty: Option<String>) -> Place {
        Place {
            module: Some(module),
            self_ty,
            at_wrapper: false,
        }
    }
}

/// What a path names.
#[derive(Clone, Debug)]
pub enum Def {
    /// An integer constant: its definition, module and `Self` type.
    Const(ConstDef, ModuleId, Option<String>),
    /// A function: its definition, module and `Self` type.
    Fn(FnDef, ModuleId, Option<String>),
    /// A module.
    Module(ModuleId),
    /// A type of a module (a struct, an enum).
    Type(ModuleId, String),
    /// An integer type (`u32`).
    Primitive(IntTy),
    /// `u32::MAX`, `usize::BITS`.
    Builtin(i128, IntTy),
    /// An item of another crate (its name), whose sources are not read.
    External(String),
    /// A kernel (a C++ `__global__` function) named as a value, a function designator
    /// (`auto k = softmax<float, 128>;`): its name as written, without template arguments.
    Kernel(String),
}

/// A path segment without generic arguments.
pub fn seg(name: &str) -> Segment {
    Segment {
        ident: name.to_owned(),
        args: Vec::new(),
    }
}

/// `::core::mem::size_of::<T>` for a call written `size_of::<T>` in a helper.
pub fn core_mem(path: &Path) -> Path {
    let last = path
        .segments
        .last()
        .cloned()
        .unwrap_or_else(|| seg("size_of"));
    Path {
        leading_colon: true,
        segments: vec![seg("core"), seg("mem"), last],
    }
}

/// The only item of `items`, if there is exactly one.
pub fn unique<'a, T>(mut items: impl Iterator<Item = &'a T>) -> Option<&'a T> {
    let first = items.next()?;
    items.next().is_none().then_some(first)
}

/// Sizes of the primitive types, bytes (`usize` and `isize` as on the 64-bit hosts CUDA
/// runs on; the compiler's confirmation would catch another).
pub fn primitive_size(ty: &str) -> Option<i128> {
    Some(match ty {
        "u8" | "i8" | "bool" => 1,
        "u16" | "i16" | "f16" => 2,
        "u32" | "i32" | "f32" | "char" => 4,
        "u64" | "i64" | "f64" | "usize" | "isize" => 8,
        "u128" | "i128" | "f128" => 16,
        _ => return None,
    })
}
