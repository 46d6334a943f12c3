//! What the interpreter knows of a C++ value: an integer of a C++ type (an
//! [`AbstractInt`] with the type's range and conversions), a `dim3`, a type, a kernel, a
//! `cudaLaunchConfig_t`, an array of `cudaLaunchAttribute`s, or unknown with the reason.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

use occupancy_core::abstract_int::AbstractInt;
use occupancy_read::ir::IntTy;

use crate::launch::TemplateArg;

/// A C++ integer type on the LP64 data model nvcc uses on Linux (`int` 32 bits, `long` and
/// `size_t` 64): what arithmetic results are converted to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum IntType {
    /// `int`, and everything promoted to it (`bool`, `char`, `short`, enumerators).
    I32,
    /// `unsigned int`.
    U32,
    /// `long`, `long long`, `int64_t`, `ptrdiff_t`.
    I64,
    /// `unsigned long`, `size_t`, `uint64_t`.
    U64,
}

impl IntType {
    /// The reading core's integer type of the same width and signedness.
    pub(crate) fn lowered(self) -> occupancy_read::ir::IntTy {
        use occupancy_read::ir::IntTy;
        match self {
            IntType::I32 => IntTy::I32,
            IntType::U32 => IntTy::U32,
            IntType::I64 => IntTy::I64,
            IntType::U64 => IntTy::U64,
        }
    }

    /// The type's values, as `within` bounds.
    pub(crate) fn range(self) -> (i128, i128) {
        match self {
            IntType::I32 => (i32::MIN.into(), i32::MAX.into()),
            IntType::U32 => (0, u32::MAX.into()),
            IntType::I64 => (i64::MIN.into(), i64::MAX.into()),
            IntType::U64 => (0, u64::MAX.into()),
        }
    }

    fn bits(self) -> u32 {
        match self {
            IntType::I32 | IntType::U32 => 32,
            IntType::I64 | IntType::U64 => 64,
        }
    }

    fn unsigned(self) -> bool {
        matches!(self, IntType::U32 | IntType::U64)
    }

    /// The usual arithmetic conversions of two promoted operands.
    pub(crate) fn common(a: IntType, b: IntType) -> IntType {
        match (a.bits().max(b.bits()), a.unsigned() || b.unsigned()) {
            (64, _) if (a == IntType::U64) || (b == IntType::U64) => IntType::U64,
            (64, _) => IntType::I64,
            (_, true) => IntType::U32,
            _ => IntType::I32,
        }
    }

    /// The integer type a type name denotes (after promotion), if it is one: the C++
    /// front end's reading of the name ([`crate::lower::int_type`]), `bool` an `int`.
    pub(crate) fn from_name(name: &str) -> Option<IntType> {
        if name
            .split_whitespace()
            .filter(|w| !matches!(*w, "const" | "constexpr" | "static" | "volatile" | "inline"))
            .eq(["bool"])
        {
            return Some(IntType::I32);
        }
        crate::lower::int_type(name).map(IntType::of)
    }

    /// The type a value of `ty` has after C++'s integer promotions (to `int` below it).
    pub(crate) fn of(ty: IntTy) -> IntType {
        match ty {
            IntTy::I8 | IntTy::U8 | IntTy::I16 | IntTy::U16 | IntTy::I32 => IntType::I32,
            IntTy::U32 => IntType::U32,
            IntTy::I64 | IntTy::I128 | IntTy::Isize => IntType::I64,
            IntTy::U64 | IntTy::U128 | IntTy::Usize => IntType::U64,
        }
    }

    /// `value` converted to this type: unsigned types wrap around (modulo 2^bits; an
    /// interval's negative part is dropped: a run-time value converted to a size is taken
    /// as a size), signed ones keep the values in range (an overflow is undefined
    /// behaviour: no launch makes it); `None` when no value is left.
    pub(crate) fn convert(self, value: &AbstractInt) -> Option<AbstractInt> {
        let (lo, hi) = self.range();
        if self.unsigned() {
            // A run-time value converted to a size: its negative part is not a size real
            // code computes (`static_cast<size_t>(cols)`); known negatives wrap as C++ says.
            if value.members().is_none() && value.bounds().0.is_none_or(|l| l < 0) {
                let nonneg = value.within(Some(0), None)?;
                return Some(nonneg.wrapping(self.bits()));
            }
            Some(value.wrapping(self.bits()))
        } else {
            value.within(Some(lo), Some(hi))
        }
    }
}

/// A type as the interpreter resolves it: a name and its template arguments
/// (`Flash_traits<float, 64>`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Ty {
    pub(crate) name: String,
    pub(crate) args: Vec<TyArg>,
}

/// A template argument of a [`Ty`] or a kernel.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum TyArg {
    Type(Ty),
    Value(i128),
}

impl Ty {
    pub(crate) fn named(name: impl Into<String>) -> Ty {
        Ty {
            name: name.into(),
            args: Vec::new(),
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        if !self.args.is_empty() {
            let args: Vec<String> = self.args.iter().map(ToString::to_string).collect();
            write!(f, "<{}>", args.join(", "))?;
        }
        Ok(())
    }
}

impl fmt::Display for TyArg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TyArg::Type(t) => t.fmt(f),
            TyArg::Value(v) => write!(f, "{v}"),
        }
    }
}

impl TyArg {
    pub(crate) fn to_template_arg(&self) -> TemplateArg {
        match self {
            TyArg::Type(t) => TemplateArg::Type(t.to_string()),
            TyArg::Value(v) => TemplateArg::Value(*v),
        }
    }
}

/// A `__global__` function named as a value: its name and template arguments (`None`:
/// some could not be resolved, with the reason).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct KernelRef {
    pub(crate) name: String,
    pub(crate) args: Result<Vec<TyArg>, String>,
}

/// One `cudaLaunchAttribute` of an array.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Attr {
    /// The `id` as written (`cudaLaunchAttributeClusterDimension`).
    pub(crate) id: Option<String>,
    /// `val.clusterDim.{x, y, z}`.
    pub(crate) cluster: [Option<AbstractInt>; 3],
}

/// A `cudaLaunchConfig_t`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Config {
    pub(crate) grid: Box<Val>,
    pub(crate) block: Box<Val>,
    pub(crate) smem: Box<Val>,
    /// The attributes array (`config.attrs = attrs`): the variable named, read at launch.
    pub(crate) attrs: Option<String>,
    pub(crate) num_attrs: Box<Val>,
}

impl Default for Config {
    /// `cudaLaunchConfig_t config = {}`: every member zero.
    fn default() -> Config {
        let zero = || Box::new(Val::int(0, IntType::U32));
        Config {
            grid: Box::new(Val::Dim3(dim3_zero())),
            block: Box::new(Val::Dim3(dim3_zero())),
            smem: zero(),
            attrs: None,
            num_attrs: zero(),
        }
    }
}

fn dim3_zero() -> [AbstractInt; 3] {
    [
        AbstractInt::known(0),
        AbstractInt::known(0),
        AbstractInt::known(0),
    ]
}

/// A value on one path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Val {
    Int(AbstractInt, IntType),
    Dim3([AbstractInt; 3]),
    Type(Ty),
    /// One kernel, or one of several (a function pointer chosen among kernels).
    Kernels(Vec<KernelRef>),
    Config(Config),
    Attrs(Vec<Attr>),
    /// The `cudaDeviceProp` that `cudaGetDeviceProperties` filled on this path: its
    /// fields are the path's target's values.
    Device,
    /// A parameter pack's values, in order: the arguments a function parameter pack
    /// (`Ts... rest`) took, or one element per type of a template parameter pack.
    Pack(Vec<Val>),
    /// A plain struct's data members by name, in declaration order, as a brace
    /// initialiser gave them (`const args_t args = {x, 5, use_sk};`); members it does not
    /// name are absent (not read).
    Fields(Vec<(String, Val)>),
    /// Not known, and why (shared: an unknown value is copied with every path that holds
    /// it).
    Unknown(Rc<str>),
}

impl Val {
    /// Feeds `h` what tells values apart cheaply: the kind, and integers, types and
    /// kernels where the value holds them (launch configurations, attributes and the
    /// reasons of unknown values are left out). Equal values feed the same, so a
    /// [`crate::vars::Vars::digest`] of it is a path's state key.
    pub(crate) fn fingerprint(&self, h: &mut impl Hasher) {
        std::mem::discriminant(self).hash(h);
        match self {
            Val::Int(v, t) => {
                v.hash(h);
                t.hash(h);
            }
            Val::Dim3(d) => d.hash(h),
            Val::Type(t) => t.hash(h),
            Val::Kernels(k) => k.hash(h),
            Val::Pack(vs) => {
                vs.len().hash(h);
                vs.iter().for_each(|v| v.fingerprint(h));
            }
            Val::Fields(fs) => {
                fs.len().hash(h);
                fs.iter().for_each(|(n, v)| {
                    n.hash(h);
                    v.fingerprint(h);
                });
            }
            Val::Config(_) | Val::Attrs(_) | Val::Device | Val::Unknown(_) => {}
        }
    }

    pub(crate) fn int(v: i128, ty: IntType) -> Val {
        Val::Int(AbstractInt::known(v), ty)
    }

    pub(crate) fn unknown(why: impl Into<Rc<str>>) -> Val {
        Val::Unknown(why.into())
    }

    /// The integer, when this is one (a `dim3` is not).
    pub(crate) fn as_int(&self) -> Option<(&AbstractInt, IntType)> {
        match self {
            Val::Int(v, t) => Some((v, *t)),
            _ => None,
        }
    }

    /// Why this value is not known, for messages.
    pub(crate) fn why(&self) -> String {
        match self {
            Val::Unknown(why) => why.to_string(),
            Val::Int(v, _) => format!("a run-time value ({v})"),
            other => format!("not an integer ({})", other.kind()),
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Val::Int(..) => "an integer",
            Val::Dim3(_) => "a dim3",
            Val::Type(_) => "a type",
            Val::Kernels(_) => "a kernel",
            Val::Config(_) => "a cudaLaunchConfig_t",
            Val::Attrs(_) => "launch attributes",
            Val::Device => "a cudaDeviceProp",
            Val::Pack(_) => "a parameter pack",
            Val::Fields(_) => "a struct",
            Val::Unknown(_) => "unknown",
        }
    }

    /// As a `dim3` (an integer `n` converts to `dim3(n, 1, 1)`, as C++ does).
    pub(crate) fn to_dim3(&self) -> Result<[AbstractInt; 3], String> {
        match self {
            Val::Dim3(d) => Ok(d.clone()),
            Val::Int(v, _) => Ok([v.clone(), AbstractInt::known(1), AbstractInt::known(1)]),
            other => Err(other.why()),
        }
    }

    /// Where two paths' values differ, what is known of both: integers unite, anything
    /// else becomes unknown.
    pub(crate) fn join(&self, other: &Val) -> Val {
        if self == other {
            return self.clone();
        }
        match (self, other) {
            (Val::Int(a, t), Val::Int(b, u)) => Val::Int(a.union(b), IntType::common(*t, *u)),
            (Val::Dim3(a), Val::Dim3(b)) => {
                Val::Dim3([a[0].union(&b[0]), a[1].union(&b[1]), a[2].union(&b[2])])
            }
            // A null function pointer (`return NULL;` after a chain of `if (..) return k;`)
            // launches nothing: the kernels are those of the other paths.
            (Val::Kernels(a), Val::Int(x, _)) | (Val::Int(x, _), Val::Kernels(a))
                if x.known_value() == Some(0) =>
            {
                Val::Kernels(a.clone())
            }
            (Val::Kernels(a), Val::Kernels(b)) => {
                let mut all = a.clone();
                for k in b {
                    if !all.contains(k) {
                        all.push(k.clone());
                    }
                }
                Val::Kernels(all)
            }
            (Val::Pack(a), Val::Pack(b)) if a.len() == b.len() => {
                Val::Pack(a.iter().zip(b).map(|(x, y)| x.join(y)).collect())
            }
            (Val::Fields(a), Val::Fields(b))
                if a.iter().map(|(n, _)| n).eq(b.iter().map(|(n, _)| n)) =>
            {
                Val::Fields(
                    a.iter()
                        .zip(b)
                        .map(|((n, x), (_, y))| (n.clone(), x.join(y)))
                        .collect(),
                )
            }
            (Val::Unknown(why), _) | (_, Val::Unknown(why)) => Val::Unknown(why.clone()),
            _ => Val::unknown("differs between the paths that lead here"),
        }
    }
}

/// A type the CUDA toolkit's headers define (`__nv_bfloat16`, `__half`, ...). nvcc rejects
/// a typedef that gives one of these names to another type, so such a typedef in the files
/// (`typedef __hip_bfloat16 __nv_bfloat16;` under `#ifdef USE_ROCM`) is in a branch the
/// CUDA build does not compile.
pub(crate) fn is_toolkit_type(name: &str) -> bool {
    matches!(
        name.trim().trim_start_matches("::"),
        "__half"
            | "__half2"
            | "half"
            | "half2"
            | "__nv_bfloat16"
            | "__nv_bfloat162"
            | "nv_bfloat16"
            | "nv_bfloat162"
            | "__nv_fp8_e4m3"
            | "__nv_fp8_e5m2"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usual_arithmetic_conversions() {
        assert_eq!(IntType::common(IntType::I32, IntType::U32), IntType::U32);
        assert_eq!(IntType::common(IntType::I32, IntType::U64), IntType::U64);
        assert_eq!(IntType::common(IntType::U32, IntType::I64), IntType::I64);
        assert_eq!(IntType::from_name("const unsigned int"), Some(IntType::U32));
        assert_eq!(IntType::from_name("std::size_t"), Some(IntType::U64));
        assert_eq!(IntType::from_name("float"), None);
    }

    #[test]
    fn conversions_wrap_unsigned_and_drop_signed_overflow() {
        let big = AbstractInt::known(1 << 32);
        assert_eq!(IntType::U32.convert(&big), Some(AbstractInt::known(0)));
        assert_eq!(IntType::I32.convert(&big), None);
        let minus_one = AbstractInt::known(-1);
        assert_eq!(
            IntType::U32.convert(&minus_one),
            Some(AbstractInt::known(u32::MAX.into()))
        );
    }
}
