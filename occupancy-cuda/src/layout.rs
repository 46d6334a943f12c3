//! C/C++ object layout, as nvcc's host compiler lays out plain structs on x86-64 Linux
//! (the LP64 data model and the System V ABI, which CUDA's device layout matches for the
//! types here): each member at the next multiple of its alignment, the struct's alignment
//! the largest of its members', its size rounded up to that alignment; a union's size is
//! its largest member's, rounded likewise.
//!
//! The built-in types' sizes and alignments: C++'s fundamental types on LP64, the
//! fixed-width integers of `<cstdint>`, and the CUDA types, from the CUDA C++ Programming
//! Guide's table of the built-in vector types' alignment requirements (`char3` is 3 bytes
//! aligned to 1, `float3` 12 aligned to 4, `float4` 16 aligned to 16, `double4` 32 aligned
//! to 16), and the `cuda_fp16.h` / `cuda_bf16.h` / `cuda_fp8.h` types (`__half` 2 aligned
//! to 2, `__half2` 4 aligned to 4, `__nv_fp8_e4m3` 1).

use crate::index::At;
use crate::syntax::{Kind, clip};

/// The size and alignment of a type, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Layout {
    pub(crate) size_bytes: u64,
    pub(crate) align_bytes: u64,
}

impl Layout {
    const fn of(size_bytes: u64, align_bytes: u64) -> Layout {
        Layout {
            size_bytes,
            align_bytes,
        }
    }

    /// `count` elements of this type in a row (an array member).
    pub(crate) fn array(self, count: u64) -> Option<Layout> {
        Some(Layout::of(
            self.size_bytes.checked_mul(count)?,
            self.align_bytes,
        ))
    }
}

/// The most bytes a laid-out type may take (larger is refused, never wrapped).
const MAX_SIZE_BYTES: u64 = 1 << 40;

/// Members laid out one after another (a struct) or over each other (a union).
#[derive(Clone)]
pub(crate) struct Record {
    union: bool,
    size_bytes: u64,
    align_bytes: u64,
}

impl Record {
    pub(crate) fn new(union: bool) -> Record {
        Record {
            union,
            size_bytes: 0,
            align_bytes: 1,
        }
    }

    /// Adds a member; `None` when the size leaves the bound.
    pub(crate) fn member(&mut self, m: Layout) -> Option<()> {
        let align = m.align_bytes.max(1);
        self.align_bytes = self.align_bytes.max(align);
        self.size_bytes = if self.union {
            self.size_bytes.max(m.size_bytes)
        } else {
            round_up(self.size_bytes, align)?.checked_add(m.size_bytes)?
        };
        (self.size_bytes <= MAX_SIZE_BYTES).then_some(())
    }

    /// The record's layout: its size rounded up to its alignment (an empty struct is 1
    /// byte in C++).
    pub(crate) fn finish(self) -> Option<Layout> {
        let size = round_up(self.size_bytes.max(1), self.align_bytes)?;
        Some(Layout::of(size, self.align_bytes))
    }
}

fn round_up(n: u64, align: u64) -> Option<u64> {
    n.checked_add(align - 1).map(|x| x / align * align)
}

/// The layout of a built-in type named `name` (qualifiers and `std::` dropped), or of a
/// pointer (`T*`: 8 bytes).
pub(crate) fn builtin(name: &str) -> Option<Layout> {
    let name = name.trim();
    if name.ends_with('*') || name.ends_with('&') {
        return Some(Layout::of(8, 8));
    }
    let words: Vec<&str> = name
        .split_whitespace()
        .filter(|w| !matches!(*w, "const" | "volatile" | "struct"))
        .collect();
    let base = words.join(" ");
    // `signed char` is its own type; `signed` elsewhere is the default.
    let base = match base.as_str() {
        "signed char" => base,
        "signed" => "int".to_owned(),
        _ => base.trim_start_matches("signed ").to_owned(),
    };
    let base = base.trim_start_matches("::").trim_start_matches("std::");
    let (size, align) = match base {
        "char" | "signed char" | "unsigned char" | "bool" | "int8_t" | "uint8_t" | "char1"
        | "uchar1" | "__nv_fp8_e4m3" | "__nv_fp8_e5m2" | "__nv_fp8_storage_t" => (1, 1),
        "short" | "short int" | "unsigned short" | "unsigned short int" | "int16_t"
        | "uint16_t" | "half" | "__half" | "__nv_bfloat16" | "nv_bfloat16" | "char2" | "uchar2"
        | "short1" | "ushort1" | "__nv_fp8x2_e4m3" | "__nv_fp8x2_e5m2" => (2, 2),
        "char3" | "uchar3" => (3, 1),
        "int" | "unsigned" | "unsigned int" | "int32_t" | "uint32_t" | "uint" | "float"
        | "wchar_t" | "half2" | "__half2" | "__nv_bfloat162" | "nv_bfloat162" | "char4"
        | "uchar4" | "short2" | "ushort2" | "int1" | "uint1" | "float1" => (4, 4),
        "short3" | "ushort3" => (6, 2),
        "long"
        | "long int"
        | "unsigned long"
        | "unsigned long int"
        | "long long"
        | "long long int"
        | "unsigned long long"
        | "unsigned long long int"
        | "int64_t"
        | "uint64_t"
        | "size_t"
        | "ptrdiff_t"
        | "intptr_t"
        | "uintptr_t"
        | "double"
        | "short4"
        | "ushort4"
        | "int2"
        | "uint2"
        | "float2"
        | "long1"
        | "ulong1"
        | "longlong1"
        | "ulonglong1"
        | "double1" => (8, 8),
        "int3" | "uint3" | "float3" | "dim3" => (12, 4),
        "int4" | "uint4" | "float4" | "long2" | "ulong2" | "longlong2" | "ulonglong2"
        | "double2" => (16, 16),
        "long3" | "ulong3" | "longlong3" | "ulonglong3" | "double3" => (24, 8),
        "long4" | "ulong4" | "longlong4" | "ulonglong4" | "double4" => (32, 16),
        _ => return None,
    };
    Some(Layout::of(size, align))
}

/// Why the struct, class or union `spec` (shown as `shown`) is not laid out by these rules:
/// a base class, an alignment or other attribute.
pub(crate) fn record_refusal(spec: At<'_>, shown: &str) -> Option<String> {
    let why = spec.children().into_iter().find_map(|c| match c.kind() {
        Some(Kind::BaseClassClause) => Some("a base class"),
        Some(
            Kind::AttributeSpecifier
            | Kind::AttributeDeclaration
            | Kind::AlignasQualifier
            | Kind::MsDeclspecModifier,
        ) => Some("an alignment or other attribute"),
        _ => None,
    });
    why.or_else(|| {
        spec.text()
            .contains("__align__")
            .then_some("an `__align__` attribute")
    })
    .map(|what| format!("`{shown}` has {what}; its layout is not computed"))
}

/// Whether the member declaration `m` adds data members (`false`: a static member); why it
/// is not laid out where it is not (a bit-field, a virtual function, an attribute).
pub(crate) fn adds_data(m: At<'_>) -> Result<bool, String> {
    for c in m.children() {
        match c.kind() {
            Some(Kind::StorageClassSpecifier) if c.text() == "static" => return Ok(false),
            Some(Kind::BitfieldClause) => {
                return Err(format!("`{}`: a bit-field", clip(m.text(), 40)));
            }
            Some(Kind::Virtual) => return Err("a virtual function".to_owned()),
            Some(
                Kind::AttributeSpecifier | Kind::AttributeDeclaration | Kind::AlignasQualifier,
            ) => {
                return Err(format!(
                    "`{}`: an attribute on a member",
                    clip(m.text(), 40)
                ));
            }
            _ => {}
        }
    }
    Ok(true)
}

/// Members that take no room: member functions, types, access labels, comments, `#pragma`,
/// static members parsed as declarations (`static constexpr int k = 4;`).
pub(crate) fn takes_no_room(m: At<'_>) -> bool {
    if m.kind() == Some(Kind::Declaration) {
        return m.text().split_whitespace().any(|w| w == "static");
    }
    matches!(
        m.kind(),
        Some(
            Kind::FunctionDefinition
                | Kind::TemplateDeclaration
                | Kind::TypeDefinition
                | Kind::AliasDeclaration
                | Kind::AccessSpecifier
                | Kind::Comment
                | Kind::FriendDeclaration
                | Kind::UsingDeclaration
                | Kind::StaticAssertDeclaration
                | Kind::PreprocCall
                | Kind::PreprocDef
                | Kind::PreprocFunctionDef
        )
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(union: bool, members: &[(u64, u64)]) -> Option<Layout> {
        let mut r = Record::new(union);
        for &(s, a) in members {
            r.member(Layout::of(s, a))?;
        }
        r.finish()
    }

    #[test]
    fn members_are_padded_to_their_alignment_and_the_size_to_the_structs() {
        // { char c; int i; }: 1 + 3 padding + 4.
        assert_eq!(record(false, &[(1, 1), (4, 4)]), Some(Layout::of(8, 4)));
        // { double d; char c; }: 9 rounded to 16.
        assert_eq!(record(false, &[(8, 8), (1, 1)]), Some(Layout::of(16, 8)));
        // { __half d; int8_t qs[32]; }: ggml's block_q8_0, 34 bytes.
        assert_eq!(record(false, &[(2, 2), (32, 1)]), Some(Layout::of(34, 2)));
        // { uint8_t s[16]; uint8_t q[64]; __half2 dm; }: block_q2_K, 84 bytes.
        assert_eq!(
            record(false, &[(16, 1), (64, 1), (4, 4)]),
            Some(Layout::of(84, 4))
        );
        // { char c; float4 v; }: the vector's 16-byte alignment.
        assert_eq!(record(false, &[(1, 1), (16, 16)]), Some(Layout::of(32, 16)));
        assert_eq!(record(false, &[]), Some(Layout::of(1, 1)));
    }

    #[test]
    fn a_union_is_its_largest_member_rounded_to_its_alignment() {
        assert_eq!(
            record(true, &[(1, 1), (6, 2), (4, 4)]),
            Some(Layout::of(8, 4))
        );
        assert_eq!(record(true, &[(3, 1)]), Some(Layout::of(3, 1)));
    }

    #[test]
    fn sizes_leave_no_room_for_overflow() {
        assert_eq!(
            Layout::of(1 << 39, 1).array(4),
            Some(Layout::of(1 << 41, 1))
        );
        assert_eq!(record(false, &[(1 << 39, 1), (1 << 39, 1), (1, 1)]), None);
        assert_eq!(Layout::of(u64::MAX, 1).array(2), None);
    }

    #[test]
    fn vector_and_half_types_have_the_guides_alignments() {
        assert_eq!(builtin("float"), Some(Layout::of(4, 4)));
        assert_eq!(builtin("float3"), Some(Layout::of(12, 4)));
        assert_eq!(builtin("const float4"), Some(Layout::of(16, 16)));
        assert_eq!(builtin("float2"), Some(Layout::of(8, 8)));
        assert_eq!(builtin("double4"), Some(Layout::of(32, 16)));
        assert_eq!(builtin("longlong2"), Some(Layout::of(16, 16)));
        assert_eq!(builtin("char3"), Some(Layout::of(3, 1)));
        assert_eq!(builtin("short3"), Some(Layout::of(6, 2)));
        assert_eq!(builtin("__half"), Some(Layout::of(2, 2)));
        assert_eq!(builtin("half2"), Some(Layout::of(4, 4)));
        assert_eq!(builtin("__nv_bfloat162"), Some(Layout::of(4, 4)));
        assert_eq!(builtin("std::size_t"), Some(Layout::of(8, 8)));
        assert_eq!(builtin("unsigned long long"), Some(Layout::of(8, 8)));
        assert_eq!(builtin("float *"), Some(Layout::of(8, 8)));
        assert_eq!(builtin("block_q8_0"), None);
        assert_eq!(builtin("long double"), None);
    }
}
