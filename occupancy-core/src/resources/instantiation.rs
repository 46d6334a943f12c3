//! A kernel instantiation as a C++ launch names it (`ops::gemm<float, 128, true>`, or
//! `ops::gemm` for every instantiation of the template), matched to the compiled kernels'
//! symbols.
//!
//! The launch reader gives the name as written (possibly namespace-qualified) and the template
//! arguments as it evaluated them: types as spelled (`float`, `const __half*`, `uint32_t`),
//! integers as values, `bool`s. The compiled side is the demangled symbol
//! ([`super::demangle`]), whose spelling differs: `(unsigned int)128` for `128u`, `(Mode)2` for
//! an enumerator, `float const*` for `const float *`, `__half` for `half`, `unsigned long` for
//! `uint64_t` and `size_t` (Linux's LP64 model, which nvcc's host compilers there use). Both
//! sides are parsed into one form before comparing: integers by value, types by structure with
//! `typedef`s of `<cstdint>` and `cuda_fp16.h` / `cuda_bf16.h` resolved, `const` placed one
//! way, spaces ignored; a type or kernel name matches when the compiled one has the namespaces
//! it names, in order (`gemm` and `ops::gemm` both match `ops::detail::gemm`; a leading `::`
//! anchors at the global namespace).
//!
//! Internal linkage (checked on nvcc 13.5 output): a kernel in an anonymous namespace is
//! mangled in the namespace `_GLOBAL__N__<h>_<n>_<file>_<t>`, where `<h>` is 8 hex digits that
//! change with the source file's directory, `<file>` is the file name with every character
//! other than a letter or digit replaced by `_` (`4_a_cu`, `16_quant_gemm_v2_cu`), and `<t>`
//! is 8 hex digits or the name of an external function of the file; the demangler prints it
//! `(anonymous namespace)`. With relocatable device code (`-rdc=true`, `--device-c`) a kernel
//! with internal linkage (anonymous namespace or `static`) also gets the prefix
//! `__nv_static_<len>__<h>_<n>_<file>_<t>_` before its symbol. Without `-rdc` a `static`
//! kernel's symbol is the plain mangled name. [`masked_symbol`] removes all of these
//! build-specific parts; matching ignores them, except that a kernel with internal linkage
//! must come from the launch's own file when both are known (an internal kernel can only be
//! launched from its translation unit).
//!
//! ```
//! use occupancy_core::resources::instantiation::{Instantiation, TemplateArg, masked_symbol};
//! use occupancy_core::resources::{KernelResources, Origin, SmTarget, demangle};
//!
//! let kernel = |symbol: &str| KernelResources {
//!     name: symbol.to_string(),
//!     demangled: demangle(symbol),
//!     arch: SmTarget::new(90),
//!     toolkit: None,
//!     origin: Origin::Cubin,
//!     registers_per_thread: 32,
//!     static_smem_bytes: 0,
//!     local_bytes: 0,
//!     cumulative_stack_bytes: None,
//!     spill_store_bytes: None,
//!     spill_load_bytes: None,
//!     barriers: Some(1),
//!     max_threads: None,
//!     required_threads: None,
//!     min_blocks_per_sm: None,
//!     max_registers: None,
//!     cluster_dims: None,
//!     max_cluster_rank: None,
//!     const_bank0_bytes: None,
//!     param_bytes: None,
//! };
//! // void ops::detail::tk<__half, 256, false, (unsigned int)0>(__half*, __half const*)
//! let compiled = [kernel("_ZN3ops6detail2tkI6__halfLi256ELb0ELj0EEEvPT_PKS3_")];
//! let launch = Instantiation::new("detail::tk").with_args(vec![
//!     TemplateArg::Type("half".into()),
//!     TemplateArg::Int(256),
//!     TemplateArg::Bool(false),
//!     TemplateArg::Int(0),
//! ]);
//! let found = launch.find(&compiled);
//! assert_eq!(found.len(), 1);
//! assert!(found[0].exact);
//! // The template's name alone: every instantiation.
//! assert_eq!(Instantiation::new("tk").find(&compiled).len(), 1);
//! assert_eq!(Instantiation::parse("ops::tk<__half, 128, false, 0u>").unwrap().find(&compiled).len(), 0);
//!
//! assert_eq!(
//!     masked_symbol("__nv_static_25__31f2b892_4_a_cu_2c654760__ZN36_GLOBAL__N__31f2b892_4_a_cu_2c65476011anon_kernelEPf"),
//!     "_ZN12_GLOBAL__N_111anon_kernelEPf"
//! );
//! ```

use std::fmt;
use std::path::{Path, PathBuf};

use super::{KernelResources, ResourceError, Result};

/// The prefix nvcc gives a kernel with internal linkage in relocatable device code.
pub const NV_STATIC_PREFIX: &str = "__nv_static_";
/// How an anonymous namespace's mangled name starts (after its length).
pub const ANONYMOUS_NAMESPACE_PREFIX: &str = "_GLOBAL__N_";
/// How the demangler prints an anonymous namespace.
pub const ANONYMOUS_NAMESPACE: &str = "(anonymous namespace)";

/// The most template arguments, and the deepest nesting of template argument lists, a name
/// may have here; longer or deeper names are compared as text (bounds the work on any input).
const MAX_ARGS: usize = 256;
const MAX_DEPTH: usize = 32;

/// A template argument as a launch's reader evaluated it, or as the demangler printed it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TemplateArg {
    /// A type as spelled: `float`, `const __half *`, `uint32_t`, `Vec<float, 4>`.
    Type(String),
    /// An integer, enumerator or character value (`128`; `Mode::C` as 2; `'A'` as 65).
    Int(i128),
    /// `true` or `false`.
    Bool(bool),
}

impl fmt::Display for TemplateArg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TemplateArg::Type(t) => f.write_str(t),
            TemplateArg::Int(v) => write!(f, "{v}"),
            TemplateArg::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// A kernel as a launch names it: the name as written (`gemm`, `ops::gemm`, `::gemm`), the
/// template arguments as evaluated (`None`: every instantiation, a family), and the `.cu`
/// file of the launch (its translation unit), which decides between same-named kernels with
/// internal linkage in different files.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Instantiation {
    /// The kernel's name, possibly namespace-qualified.
    pub name: String,
    /// The template arguments, in order; `None` for the name alone. Arguments left to their
    /// defaults or deduced from the call may be omitted at the end.
    pub args: Option<Vec<TemplateArg>>,
    /// The file whose host code launches it.
    pub translation_unit: Option<PathBuf>,
}

impl Instantiation {
    /// The template (or plain kernel) `name`: every instantiation.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            args: None,
            translation_unit: None,
        }
    }

    /// With these template arguments.
    pub fn with_args(mut self, args: Vec<TemplateArg>) -> Self {
        self.args = Some(args);
        self
    }

    /// Launched from this file.
    pub fn in_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.translation_unit = Some(path.into());
        self
    }

    /// Parses `ns::name<arg, ...>` (a demangled short name, or what a person writes):
    /// integer literals with suffixes or casts (`128u`, `(int)128`, `-4`, `0x80`, `'A'`),
    /// `true` / `false`, and anything else as a type.
    pub fn parse(text: &str) -> Result<Self> {
        let text = text.trim();
        let bad = || {
            ResourceError::new(format!(
                "`{text}` is not a kernel name with template arguments"
            ))
        };
        match split_template(text) {
            Some((name, Some(args))) => {
                if name.is_empty() {
                    return Err(bad());
                }
                Ok(Self::new(name).with_args(args.iter().map(|a| arg_of(a)).collect()))
            }
            Some((name, None)) if !name.is_empty() && !name.contains(['<', '>', '(', ')']) => {
                Ok(Self::new(name))
            }
            _ => Err(bad()),
        }
    }

    /// The compiled kernels this launch may run, in the order given: see [`Instantiation`]
    /// and the module docs for what matches.
    pub fn find<'k>(
        &self,
        kernels: impl IntoIterator<Item = &'k KernelResources>,
    ) -> Vec<Match<'k>> {
        let wanted = Wanted::new(self);
        kernels
            .into_iter()
            .filter_map(|k| {
                let compiled = CompiledName::of(k);
                wanted
                    .matches(&compiled)
                    .map(|exact| Match { kernel: k, exact })
            })
            .collect()
    }

    /// The unqualified name (`gemm` for `ops::gemm`): a compiled kernel matches only if its
    /// [`CompiledName::name`] is this, so many kernels can be indexed by it.
    pub fn unqualified_name(&self) -> &str {
        split_scope(self.name.trim().trim_start_matches("::"))
            .pop()
            .unwrap_or_default()
    }

    /// Whether `kernel` may be this launch's: `Some(exact)` (see [`Match::exact`]) or `None`.
    pub fn matches(&self, kernel: &KernelResources) -> Option<bool> {
        Wanted::new(self).matches(&CompiledName::of(kernel))
    }

    /// [`Instantiation::matches`] on a name parsed once ([`CompiledName::of`]): for many
    /// launches against the thousands of instantiations a dispatch can compile.
    pub fn matches_compiled(&self, name: &CompiledName) -> Option<bool> {
        Wanted::new(self).matches(name)
    }
}

impl fmt::Display for Instantiation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        if let Some(args) = &self.args {
            f.write_str("<")?;
            for (i, a) in args.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{a}")?;
            }
            f.write_str(">")?;
        }
        Ok(())
    }
}

/// A compiled kernel an [`Instantiation`] matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Match<'k> {
    /// The kernel (one architecture's record).
    pub kernel: &'k KernelResources,
    /// Every template argument of the compiled instantiation was given (or neither has any);
    /// `false` for a family (no arguments given) and for a match on the leading arguments
    /// only (the rest defaulted or deduced).
    pub exact: bool,
}

/// A compiled kernel's name, parsed: namespaces, name, template arguments, linkage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompiledName {
    /// Enclosing namespaces, outermost first, anonymous ones left out (`["ops", "detail"]`).
    pub scope: Vec<String>,
    /// The unqualified name (`tk`).
    pub name: String,
    /// Template arguments as the demangler printed them, `None` for a kernel that is not a
    /// template instantiation.
    pub args: Option<Vec<TemplateArg>>,
    /// Internal linkage: an anonymous namespace, or nvcc's `__nv_static_` prefix.
    pub internal: bool,
    /// The source file as the symbol spells it (`a_cu` for `a.cu`), where it does.
    pub file_token: Option<String>,
}

impl CompiledName {
    /// Parses a kernel record's name: its demangled name when it has one, else its symbol
    /// (an `extern "C"` kernel, or a symbol the demangler does not read).
    pub fn of(kernel: &KernelResources) -> Self {
        let (inner, prefix_token) = strip_nv_static(&kernel.name);
        let file_token = prefix_token
            .and_then(file_token_of)
            .or_else(|| {
                inner
                    .find(ANONYMOUS_NAMESPACE_PREFIX)
                    .and_then(|at| file_token_of(&inner[at + ANONYMOUS_NAMESPACE_PREFIX.len()..]))
            })
            .map(str::to_string);
        let internal = prefix_token.is_some() || inner.contains(ANONYMOUS_NAMESPACE_PREFIX);
        let demangled = kernel
            .demangled
            .clone()
            .or_else(|| super::demangle(&kernel.name));
        let text = demangled.as_deref().map(without_signature).unwrap_or(inner);
        let (qualified, args) = match split_template(text) {
            Some((name, args)) => (name, args.map(|a| a.iter().map(|s| arg_of(s)).collect())),
            None => (text, None),
        };
        let mut scope: Vec<String> = split_scope(qualified)
            .into_iter()
            .filter(|c| *c != ANONYMOUS_NAMESPACE && !c.is_empty())
            .map(str::to_string)
            .collect();
        let name = scope.pop().unwrap_or_default();
        Self {
            scope,
            name,
            args,
            internal,
            file_token,
        }
    }
}

/// The file name of `path` as nvcc spells it in internal-linkage symbols: every character
/// other than an ASCII letter or digit replaced by `_` (`quant-gemm_v2.cu` -> `quant_gemm_v2_cu`).
pub fn file_token(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// `symbol` without nvcc's `__nv_static_<len>_<tu>_` prefix, and the `<tu>` part; the symbol
/// unchanged and `None` when it has no such prefix.
pub fn strip_nv_static(symbol: &str) -> (&str, Option<&str>) {
    let Some(rest) = symbol.strip_prefix(NV_STATIC_PREFIX) else {
        return (symbol, None);
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let Ok(len) = rest[..digits].parse::<usize>() else {
        return (symbol, None);
    };
    let after = &rest[digits..];
    let Some(tu) = after
        .strip_prefix('_')
        .and_then(|a| a.get(..len))
        .filter(|_| after.len() > len + 1)
    else {
        return (symbol, None);
    };
    match after[1 + len..].strip_prefix('_') {
        Some(inner) if !inner.is_empty() => (inner, Some(tu)),
        _ => (symbol, None),
    }
}

/// `_<8 hex>_<n>_<file>_...` -> `<file>` (its first `n` characters).
fn file_token_of(s: &str) -> Option<&str> {
    let rest = s.strip_prefix('_')?;
    let hex = rest.get(..8)?;
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let rest = rest[8..].strip_prefix('_')?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let len: usize = rest[..digits].parse().ok()?;
    rest[digits..].strip_prefix('_')?.get(..len)
}

/// `symbol` with its build-specific parts removed, so that the same kernel built in another
/// directory or another way has the same masked symbol: nvcc's `__nv_static_..._` prefix
/// dropped, and every anonymous namespace (`36_GLOBAL__N__31f2b892_4_a_cu_2c654760`) replaced
/// by the standard `12_GLOBAL__N_1`, which demangles to `(anonymous namespace)` too.
pub fn masked_symbol(symbol: &str) -> String {
    let (inner, _) = strip_nv_static(symbol);
    let mut out = String::with_capacity(inner.len());
    let mut rest = inner;
    while let Some(at) = rest.find(ANONYMOUS_NAMESPACE_PREFIX) {
        let before = &rest[..at];
        let digits = before.bytes().rev().take_while(u8::is_ascii_digit).count();
        let len = before[before.len() - digits..].parse::<usize>().ok();
        // The namespace's source name ends `n` bytes on, on a character boundary.
        let after = len
            .filter(|&n| n >= ANONYMOUS_NAMESPACE_PREFIX.len())
            .and_then(|n| rest.get(at.checked_add(n)?..));
        match after {
            Some(after) => {
                out.push_str(&before[..before.len() - digits]);
                out.push_str("12_GLOBAL__N_1");
                rest = after;
            }
            None => {
                out.push_str(&rest[..at + ANONYMOUS_NAMESPACE_PREFIX.len()]);
                rest = &rest[at + ANONYMOUS_NAMESPACE_PREFIX.len()..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// `void ns::k<(int)3>(float*, void (*)(int))` -> `ns::k<(int)3>`: without the trailing
/// parameter list (found by matching parentheses from the end) and the `void ` return type
/// that a template instantiation's demangled name starts with.
fn without_signature(demangled: &str) -> &str {
    let text = demangled.trim_end();
    let mut head = text;
    if text.ends_with(')') {
        let mut depth = 0i32;
        for (i, c) in text.char_indices().rev() {
            match c {
                ')' => depth += 1,
                '(' => {
                    depth -= 1;
                    if depth == 0 {
                        head = text[..i].trim_end();
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    head.strip_prefix("void ").unwrap_or(head).trim()
}

/// `a::b<x, y<z>>` -> (`a::b`, Some([`x`, `y<z>`])); `a::b` -> (`a::b`, None). `None` when the
/// brackets do not balance or nest too deep.
fn split_template(text: &str) -> Option<(&str, Option<Vec<&str>>)> {
    let text = text.trim();
    if !text.ends_with('>') {
        return Some((text, None));
    }
    // The '<' matching the final '>'.
    let mut depth = 0usize;
    let mut open = None;
    for (i, c) in text.char_indices().rev() {
        match c {
            '>' => depth += 1,
            '<' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    open = Some(i);
                    break;
                }
            }
            _ => {}
        }
        if depth > MAX_DEPTH {
            return None;
        }
    }
    let open = open?;
    let inner = &text[open + 1..text.len() - 1];
    let args = split_top(inner, ',')?;
    if args.len() > MAX_ARGS {
        return None;
    }
    Some((
        text[..open].trim(),
        Some(
            args.into_iter()
                .map(str::trim)
                .filter(|a| !a.is_empty())
                .collect(),
        ),
    ))
}

/// Splits at `sep` outside `<>`, `()` and `[]`; `None` when they do not balance.
fn split_top(text: &str, sep: char) -> Option<Vec<&str>> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => {
                depth -= 1;
                if depth < 0 {
                    return None;
                }
            }
            c if c == sep && depth == 0 => {
                out.push(&text[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    (depth == 0).then(|| {
        out.push(&text[start..]);
        out
    })
}

/// `a::(anonymous namespace)::b<x::y>` -> [`a`, `(anonymous namespace)`, `b<x::y>`].
fn split_scope(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'<' | b'(' | b'[' => depth += 1,
            b'>' | b')' | b']' => depth -= 1,
            b':' if depth == 0 && bytes.get(i + 1) == Some(&b':') => {
                out.push(text[start..i].trim());
                i += 2;
                start = i;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(text[start..].trim());
    out
}

/// One template argument's text: an integer (with a cast or suffix), a boolean, or a type.
fn arg_of(text: &str) -> TemplateArg {
    let t = text.trim();
    match t {
        "true" => return TemplateArg::Bool(true),
        "false" => return TemplateArg::Bool(false),
        _ => {}
    }
    match int_of(t) {
        Some(v) => TemplateArg::Int(v),
        None => TemplateArg::Type(t.to_string()),
    }
}

/// `128`, `-4`, `128u`, `3ull`, `0x80`, `(unsigned int)3`, `(Mode)2`, `(char)65`, `'A'`.
fn int_of(text: &str) -> Option<i128> {
    let mut t = text.trim();
    // A leading cast: `(type)value`.
    if let Some(rest) = t.strip_prefix('(') {
        let close = rest.find(')')?;
        t = rest[close + 1..].trim();
    }
    if let Some(c) = t.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        let mut chars = c.chars();
        return match (chars.next(), chars.next()) {
            (Some(ch), None) => Some(i128::from(u32::from(ch))),
            _ => None,
        };
    }
    let (negative, t) = match t.strip_prefix('-') {
        Some(r) => (true, r.trim_start()),
        None => (false, t),
    };
    let t = t.trim_end_matches(['u', 'U', 'l', 'L']);
    let value = if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i128::from_str_radix(hex, 16).ok()?
    } else if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
        t.parse::<i128>().ok()?
    } else {
        return None;
    };
    Some(if negative { -value } else { value })
}

/// A launch's name and arguments, parsed once for matching against many kernels.
struct Wanted {
    anchored: bool,
    scope: Vec<String>,
    name: String,
    args: Option<Vec<Arg>>,
    file_token: Option<String>,
}

impl Wanted {
    fn new(i: &Instantiation) -> Self {
        let text = i.name.trim();
        let anchored = text.starts_with("::");
        let mut scope: Vec<String> = split_scope(text.trim_start_matches("::"))
            .into_iter()
            .map(str::to_string)
            .collect();
        scope.pop();
        let name = i.unqualified_name().to_owned();
        Self {
            anchored,
            scope,
            name,
            args: i.args.as_ref().map(|a| a.iter().map(Arg::of).collect()),
            file_token: i.translation_unit.as_deref().map(file_token),
        }
    }

    /// `Some(exact)` when `c` may be this launch's kernel.
    fn matches(&self, c: &CompiledName) -> Option<bool> {
        if c.name != self.name || !scope_matches(&self.scope, &c.scope, self.anchored) {
            return None;
        }
        if c.internal
            && let (Some(want), Some(have)) = (&self.file_token, &c.file_token)
            && want != have
        {
            return None;
        }
        match (&self.args, &c.args) {
            (None, compiled) => Some(compiled.is_none()),
            (Some(w), None) => w.is_empty().then_some(true),
            (Some(w), Some(compiled)) => {
                if w.len() > compiled.len() {
                    return None;
                }
                let compiled: Vec<Arg> = compiled.iter().map(Arg::of).collect();
                w.iter()
                    .zip(&compiled)
                    .all(|(a, b)| a.matches(b))
                    .then_some(w.len() == compiled.len())
            }
        }
    }
}

/// Whether the namespaces a name was written with (`want`) are among the compiled ones
/// (`have`), in order; `anchored`: starting at the global namespace.
fn scope_matches(want: &[String], have: &[String], anchored: bool) -> bool {
    if anchored {
        match (want.first(), have.first()) {
            (None, None) => return true,
            (None, Some(_)) | (Some(_), None) => return false,
            (Some(a), Some(b)) if a != b => return false,
            _ => {}
        }
    }
    let mut have = have.iter();
    want.iter().all(|w| have.any(|h| h == w))
}

/// A template argument in the one form both sides are compared in.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Arg {
    Int(i128),
    Bool(bool),
    Type(Ty),
}

impl Arg {
    fn of(a: &TemplateArg) -> Self {
        match a {
            TemplateArg::Int(v) => Arg::Int(*v),
            TemplateArg::Bool(b) => Arg::Bool(*b),
            TemplateArg::Type(t) => Arg::Type(Ty::parse(t, 0)),
        }
    }

    /// `self` as the launch gave it against `other` as compiled.
    fn matches(&self, other: &Arg) -> bool {
        match (self, other) {
            (Arg::Int(a), Arg::Int(b)) => a == b,
            (Arg::Bool(a), Arg::Bool(b)) => a == b,
            // `true` as an integer argument (a bool non-type parameter given as 1).
            (Arg::Int(a), Arg::Bool(b)) | (Arg::Bool(b), Arg::Int(a)) => *a == i128::from(*b),
            (Arg::Type(a), Arg::Type(b)) => a.matches(b),
            _ => false,
        }
    }
}

/// A type: a named or built-in base with cv-qualifiers, then pointer / reference operators
/// each with their own; or text that did not parse, compared with spaces removed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ty {
    Parsed {
        base: Base,
        base_cv: Cv,
        ops: Vec<(&'static str, Cv)>,
    },
    Text(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Base {
    /// A built-in type in canonical spelling (`unsigned int`, `long long`, `float`).
    Builtin(String),
    /// A named type: its namespaces and name, and its own template arguments.
    Named {
        path: Vec<String>,
        args: Option<Vec<Arg>>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Cv {
    is_const: bool,
    is_volatile: bool,
}

/// `typedef`s and aliases a launch may spell, and what they are on Linux x86-64 / aarch64
/// (LP64) with CUDA's headers: `<cstdint>`, `<cstddef>`, `cuda_fp16.h` (`half` is `__half`),
/// `cuda_bf16.h` (`nv_bfloat16` is `__nv_bfloat16`).
const ALIASES: &[(&str, &str)] = &[
    ("half", "__half"),
    ("half2", "__half2"),
    ("nv_bfloat16", "__nv_bfloat16"),
    ("nv_bfloat162", "__nv_bfloat162"),
    ("int8_t", "signed char"),
    ("uint8_t", "unsigned char"),
    ("int16_t", "short"),
    ("uint16_t", "unsigned short"),
    ("int32_t", "int"),
    ("uint32_t", "unsigned int"),
    ("int64_t", "long"),
    ("uint64_t", "unsigned long"),
    ("size_t", "unsigned long"),
    ("ssize_t", "long"),
    ("ptrdiff_t", "long"),
    ("intptr_t", "long"),
    ("uintptr_t", "unsigned long"),
];

const BUILTIN_WORDS: &[&str] = &[
    "signed", "unsigned", "short", "long", "int", "char", "bool", "float", "double", "void",
    "wchar_t", "char8_t", "char16_t", "char32_t", "__int128",
];

impl Ty {
    fn text(t: &str) -> Self {
        Ty::Text(t.chars().filter(|c| !c.is_whitespace()).collect())
    }

    fn parse(text: &str, depth: usize) -> Self {
        Self::try_parse(text, depth).unwrap_or_else(|| Self::text(text))
    }

    fn try_parse(text: &str, depth: usize) -> Option<Self> {
        if depth > MAX_DEPTH {
            return None;
        }
        let text = text.replace("(anonymous namespace)::", "");
        let text = text.trim();
        // Split off the trailing pointer / reference operators and their qualifiers: every
        // '*' or '&' outside brackets.
        let mut cut = None;
        let mut d = 0i32;
        for (i, c) in text.char_indices() {
            match c {
                '<' => d += 1,
                '>' => d -= 1,
                // Function and array types: compared as text.
                '(' | '[' | ')' | ']' if d == 0 => return None,
                '*' | '&' if d == 0 && cut.is_none() => cut = Some(i),
                _ => {}
            }
        }
        if d != 0 {
            return None;
        }
        let (head, tail) = text.split_at(cut.unwrap_or(text.len()));
        let mut ops = Vec::new();
        let mut rest = tail.trim();
        while !rest.is_empty() {
            let (op, after) = if let Some(r) = rest.strip_prefix("&&") {
                ("&&", r)
            } else if let Some(r) = rest.strip_prefix('&') {
                ("&", r)
            } else if let Some(r) = rest.strip_prefix('*') {
                ("*", r)
            } else {
                return None;
            };
            let mut cv = Cv::default();
            let mut after = after.trim_start();
            loop {
                if let Some(r) = after.strip_prefix("const").filter(|r| !starts_ident(r)) {
                    cv.is_const = true;
                    after = r.trim_start();
                } else if let Some(r) = after.strip_prefix("volatile").filter(|r| !starts_ident(r))
                {
                    cv.is_volatile = true;
                    after = r.trim_start();
                } else if let Some(r) = after
                    .strip_prefix("__restrict__")
                    .filter(|r| !starts_ident(r))
                {
                    after = r.trim_start();
                } else {
                    break;
                }
            }
            ops.push((op, cv));
            rest = after;
        }
        // The head: cv words, built-in words, elaborated keywords, and at most one name.
        let mut cv = Cv::default();
        let mut builtins: Vec<&str> = Vec::new();
        let mut named: Option<&str> = None;
        for word in split_words(head)? {
            match word {
                "const" => cv.is_const = true,
                "volatile" => cv.is_volatile = true,
                "struct" | "class" | "union" | "enum" | "typename" => {}
                w if BUILTIN_WORDS.contains(&w) => builtins.push(w),
                w => {
                    if named.replace(w).is_some() {
                        return None;
                    }
                }
            }
        }
        let base = match (named, builtins.is_empty()) {
            (Some(n), true) => Self::named(n, depth)?,
            (None, false) => Base::Builtin(canonical_builtin(&builtins)?),
            _ => return None,
        };
        Some(Ty::Parsed {
            base,
            base_cv: cv,
            ops,
        })
    }

    fn named(text: &str, depth: usize) -> Option<Base> {
        let (qualified, args) = split_template(text)?;
        let mut path: Vec<String> = split_scope(qualified.trim_start_matches("::"))
            .into_iter()
            .filter(|c| *c != ANONYMOUS_NAMESPACE)
            .map(str::to_string)
            .collect();
        if path
            .iter()
            .any(|c| c.is_empty() || !c.chars().all(is_ident_char))
        {
            return None;
        }
        if args.is_none() {
            let last = path.last()?;
            let plain = path.len() == 1 || (path.len() == 2 && path[0] == "std");
            if plain && let Some((_, to)) = ALIASES.iter().find(|(from, _)| from == last) {
                return Some(if to.starts_with("__") {
                    Base::Named {
                        path: vec![to.to_string()],
                        args: None,
                    }
                } else {
                    Base::Builtin(to.to_string())
                });
            }
            if path.len() == 2 && path[0] == "std" {
                path.remove(0);
            }
        }
        let args = args.map(|a| {
            a.iter()
                .map(|s| match arg_of(s) {
                    TemplateArg::Type(t) => Arg::Type(Ty::parse(&t, depth + 1)),
                    TemplateArg::Int(v) => Arg::Int(v),
                    TemplateArg::Bool(b) => Arg::Bool(b),
                })
                .collect()
        });
        Some(Base::Named { path, args })
    }

    /// `self` as a launch spelled it against `other` as compiled: the same structure, a
    /// named type's namespaces among the compiled one's.
    fn matches(&self, other: &Ty) -> bool {
        match (self, other) {
            (
                Ty::Parsed {
                    base: a,
                    base_cv: acv,
                    ops: aops,
                },
                Ty::Parsed {
                    base: b,
                    base_cv: bcv,
                    ops: bops,
                },
            ) => acv == bcv && aops == bops && a.matches(b),
            (Ty::Text(a), Ty::Text(b)) => a == b,
            _ => false,
        }
    }
}

impl Base {
    fn matches(&self, other: &Base) -> bool {
        match (self, other) {
            (Base::Builtin(a), Base::Builtin(b)) => a == b,
            (Base::Named { path: a, args: aa }, Base::Named { path: b, args: ba }) => {
                let (Some((an, ascope)), Some((bn, bscope))) = (a.split_last(), b.split_last())
                else {
                    return false;
                };
                an == bn
                    && scope_matches(ascope, bscope, false)
                    && match (aa, ba) {
                        (None, None) => true,
                        (Some(x), Some(y)) => {
                            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.matches(q))
                        }
                        _ => false,
                    }
            }
            _ => false,
        }
    }
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn starts_ident(s: &str) -> bool {
    s.chars().next().is_some_and(is_ident_char)
}

/// The words of a type's head: identifiers, each possibly qualified and with its template
/// argument list attached (`ns::Vec<float, 4>`); `None` for other characters.
fn split_words(head: &str) -> Option<Vec<&str>> {
    let mut out = Vec::new();
    let bytes = head.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let mut depth = 0i32;
        while i < bytes.len() {
            let b = bytes[i];
            match b {
                b'<' | b'(' => depth += 1,
                b'>' | b')' => depth -= 1,
                b' ' | b'\t' | b'\n' if depth == 0 => {
                    // `ns :: T` or `Vec <float>`: a space before '::' or '<' joins.
                    let next = head[i..].trim_start();
                    if next.starts_with("::") || next.starts_with('<') {
                        i += head[i..].len() - next.len();
                        continue;
                    }
                    // A space after '::' joins too.
                    if head[start..i].ends_with("::") {
                        i += 1;
                        continue;
                    }
                    break;
                }
                _ => {
                    if depth == 0 && !(is_ident_char(b as char) || b == b':') {
                        return None;
                    }
                }
            }
            i += 1;
        }
        out.push(&head[start..i]);
    }
    Some(out)
}

/// Canonical spelling of a built-in type's words in any order (`long unsigned int` ->
/// `unsigned long`); `None` for a combination that is not a type.
fn canonical_builtin(words: &[&str]) -> Option<String> {
    let count = |w: &str| words.iter().filter(|x| **x == w).count();
    let (signed, unsigned, short, long, int) = (
        count("signed"),
        count("unsigned"),
        count("short"),
        count("long"),
        count("int"),
    );
    let others: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| !matches!(*w, "signed" | "unsigned" | "short" | "long" | "int"))
        .collect();
    if signed + unsigned > 1 || int > 1 || others.len() > 1 || long > 2 || (short > 0 && long > 0) {
        return None;
    }
    let sign = if unsigned == 1 { "unsigned " } else { "" };
    Some(match others.first().copied() {
        Some("char") if short + long + int == 0 => {
            if signed == 1 {
                "signed char".into()
            } else {
                format!("{sign}char")
            }
        }
        Some("double") if long == 1 && signed + unsigned + short + int == 0 => "long double".into(),
        Some(o) if signed + unsigned + short + long + int == 0 => o.to_string(),
        Some(_) => return None,
        None if short == 1 => format!("{sign}short"),
        None if long == 2 => format!("{sign}long long"),
        None if long == 1 => format!("{sign}long"),
        None => format!("{sign}int"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(a: &str, b: &str) -> bool {
        Ty::parse(a, 0).matches(&Ty::parse(b, 0))
    }

    #[test]
    fn unqualified_names_index_what_matches() {
        for (written, name) in [
            ("gemm", "gemm"),
            ("ops::detail::gemm", "gemm"),
            ("::gemm", "gemm"),
            (" ops :: gemm ", "gemm"),
        ] {
            assert_eq!(Instantiation::new(written).unqualified_name(), name);
        }
        // What a compiled kernel must be named for any match, namespaces aside.
        let k = CompiledName {
            scope: vec!["ops".into()],
            name: "gemm".into(),
            args: None,
            internal: false,
            file_token: None,
        };
        assert!(
            Instantiation::new("ops::gemm")
                .matches_compiled(&k)
                .is_some()
        );
        assert!(
            Instantiation::new("ops::gemv")
                .matches_compiled(&k)
                .is_none()
        );
    }

    #[test]
    fn type_spellings_compare_by_meaning() {
        for (written, demangled) in [
            ("const float*", "float const*"),
            ("const float * const", "float const* const"),
            ("half", "__half"),
            ("__half", "__half"),
            ("nv_bfloat16", "__nv_bfloat16"),
            ("unsigned", "unsigned int"),
            ("uint32_t", "unsigned int"),
            ("std::uint64_t", "unsigned long"),
            ("size_t", "unsigned long"),
            ("int64_t", "long"),
            ("long int", "long"),
            ("long long int", "long long"),
            ("unsigned long long", "unsigned long long"),
            ("uint8_t", "unsigned char"),
            ("int8_t", "signed char"),
            ("short int", "short"),
            ("Vec<float,4>", "Vec<float, 4>"),
            ("Vec<half, 4u>", "Vec<__half, (unsigned int)4>"),
            ("Tile", "ops::Tile"),
            ("detail::Tile", "ops::detail::Tile"),
            ("Tile", "(anonymous namespace)::Tile"),
            ("struct Tile", "Tile"),
            ("float &", "float&"),
        ] {
            assert!(same(written, demangled), "{written} vs {demangled}");
        }
        for (written, demangled) in [
            ("float", "double"),
            ("float*", "float"),
            ("const float*", "float*"),
            ("float* const", "float const*"),
            ("int", "unsigned int"),
            ("char", "signed char"),
            ("long", "long long"),
            ("int64_t", "long long"),
            ("other::Tile", "ops::Tile"),
            ("Vec<float, 4>", "Vec<float, 8>"),
            ("Vec<float>", "Vec<float, 4>"),
        ] {
            assert!(!same(written, demangled), "{written} vs {demangled}");
        }
    }

    #[test]
    fn integers_read_with_casts_and_suffixes() {
        for (text, value) in [
            ("128", 128),
            ("-4", -4),
            ("128u", 128),
            ("3ull", 3),
            ("(unsigned int)3", 3),
            ("(long)-9223372036854775807", -9_223_372_036_854_775_807),
            (
                "(unsigned long)18446744073709551615",
                18_446_744_073_709_551_615,
            ),
            ("(Mode)2", 2),
            ("(char)65", 65),
            ("'A'", 65),
            ("0x80", 128),
        ] {
            assert_eq!(int_of(text), Some(value), "{text}");
        }
        for text in ["float", "(int)", "x1", "1.5", "''"] {
            assert_eq!(int_of(text), None, "{text}");
        }
    }

    #[test]
    fn demangled_names_split_into_scope_name_and_arguments() {
        assert_eq!(
            without_signature("void ops::k<(int)3>(float*, void (*)(int))"),
            "ops::k<(int)3>"
        );
        assert_eq!(
            without_signature("(anonymous namespace)::anon_kernel(float*)"),
            "(anonymous namespace)::anon_kernel"
        );
        assert_eq!(without_signature("plain_c_kernel"), "plain_c_kernel");
        let (name, args) = split_template("qk::pack<float, >").unwrap();
        assert_eq!((name, args), ("qk::pack", Some(vec!["float"])));
        let (name, args) = split_template("a::b<Vec<float, 4>, (unsigned int)3>").unwrap();
        assert_eq!(
            (name, args),
            ("a::b", Some(vec!["Vec<float, 4>", "(unsigned int)3"]))
        );
        assert_eq!(split_template("a<b>>"), None);
        assert_eq!(
            split_scope("a::(anonymous namespace)::b<x::y>"),
            ["a", "(anonymous namespace)", "b<x::y>"]
        );
    }

    #[test]
    fn nv_static_prefixes_and_anonymous_namespaces_are_masked() {
        let rdc = "__nv_static_25__31f2b892_4_a_cu_2c654760__Z13static_kernelPf";
        assert_eq!(
            strip_nv_static(rdc),
            ("_Z13static_kernelPf", Some("_31f2b892_4_a_cu_2c654760"))
        );
        assert_eq!(file_token_of("_31f2b892_4_a_cu_2c654760"), Some("a_cu"));
        assert_eq!(
            file_token_of("_3d829561_16_quant_gemm_v2_cu_2c654760"),
            Some("quant_gemm_v2_cu")
        );
        assert_eq!(masked_symbol(rdc), "_Z13static_kernelPf");
        // Two builds in two directories: one masked symbol.
        let here = "_ZN36_GLOBAL__N__31f2b892_4_a_cu_2c65476011anon_kernelEPf";
        let there = "_ZN36_GLOBAL__N__d1912d32_4_a_cu_2c65476011anon_kernelEPf";
        assert_eq!(masked_symbol(here), masked_symbol(there));
        assert_eq!(
            super::super::demangle(&masked_symbol(here)).as_deref(),
            Some("(anonymous namespace)::anon_kernel(float*)")
        );
        // A length that ends inside a multi-byte character (fuzz/host): unchanged.
        assert_eq!(masked_symbol("3_GLOBAL__N_\u{e9}"), "3_GLOBAL__N_\u{e9}");
        assert_eq!(masked_symbol("12_GLOBAL__N_\u{e9}"), "12_GLOBAL__N_\u{e9}");
        // Not nvcc's prefix: unchanged.
        for s in ["__nv_static_x", "__nv_static_99_short", "_Z1kv", "k"] {
            assert_eq!(strip_nv_static(s), (s, None));
            assert_eq!(masked_symbol(s), s);
        }
        assert_eq!(
            file_token(Path::new("src/cuda/quant-gemm_v2.cu")),
            "quant_gemm_v2_cu"
        );
    }

    #[test]
    fn names_match_by_namespaces_in_order() {
        let have = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let ops = have(&["ops", "detail"]);
        assert!(scope_matches(&[], &ops, false));
        assert!(scope_matches(&have(&["ops"]), &ops, false));
        assert!(scope_matches(&have(&["detail"]), &ops, false));
        assert!(scope_matches(&have(&["ops", "detail"]), &ops, false));
        assert!(!scope_matches(&have(&["detail", "ops"]), &ops, false));
        assert!(!scope_matches(&have(&["other"]), &ops, false));
        assert!(scope_matches(&have(&["ops"]), &ops, true));
        assert!(!scope_matches(&have(&["detail"]), &ops, true));
        assert!(!scope_matches(&[], &ops, true));
        assert!(scope_matches(&[], &[], true));
    }

    #[test]
    fn parse_reads_what_a_person_writes() {
        let i = Instantiation::parse("ops::tk<const float*, 128u, true, (int)-3>").unwrap();
        assert_eq!(i.name, "ops::tk");
        assert_eq!(
            i.args.unwrap(),
            [
                TemplateArg::Type("const float*".into()),
                TemplateArg::Int(128),
                TemplateArg::Bool(true),
                TemplateArg::Int(-3)
            ]
        );
        assert_eq!(Instantiation::parse("gemm").unwrap().args, None);
        for bad in ["", "a<b", "<int>", "f(x)"] {
            assert!(Instantiation::parse(bad).is_err(), "{bad}");
        }
        // Bounded on deep nesting.
        let deep = format!("k<{}int{}>", "V<".repeat(1000), ">".repeat(1000));
        let _ = Instantiation::parse(&deep);
        let _ = Ty::parse(&deep, 0);
    }
}
