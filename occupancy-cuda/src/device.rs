//! What host code asks the device: `cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, dev)`,
//! `cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev)` and the fields of the
//! `cudaDeviceProp` that `cudaGetDeviceProperties(&prop, dev)` fills (`prop.warpSize`),
//! answered for one target from the engine's GPU tables ([`occupancy_core::arch`], each
//! value there with its source: the CUDA C++ Programming Guide's per-compute-capability
//! table, `cuda_occupancy.h`, the H200's driver). What the tables do not hold is an error
//! with the reason: the value is known only at run time. And what the policy says holds
//! such an answer: `[device_params]`, the parameters of launching functions declared to
//! hold a device attribute ([`DeviceParams`]), read once per target's value by both readers.

use occupancy_core::arch::Target;

use crate::index::Index;
use crate::value::IntType;

/// One question a program can ask the device, by the words of its name: the attribute
/// enumerator without its prefix (`cudaDevAttrWarpSize` and `CU_DEVICE_ATTRIBUTE_WARP_SIZE`
/// are both `warpsize`) or the `cudaDeviceProp` field (`warpSize` is `warpsize`),
/// lowercased and without underscores.
struct Question {
    /// The attribute's words (`cudaDevAttr...` / `CU_DEVICE_ATTRIBUTE_...`).
    attribute: &'static str,
    /// The `cudaDeviceProp` field's words, where one holds the same value.
    field: &'static str,
    /// The field's C++ type (`size_t` for sizes in `cudaDeviceProp`); attributes are `int`.
    field_type: IntType,
    /// The answer on a target, or why the tables cannot give it.
    answer: fn(&Target) -> Result<u32, String>,
}

/// The questions the GPU tables answer (the field names as the CUDA runtime's
/// `cudaDeviceProp` spells them, the attributes as `cudaDeviceAttr` does).
const QUESTIONS: &[Question] = &[
    Question {
        attribute: "warpsize",
        field: "warpsize",
        field_type: IntType::I32,
        answer: |t| Ok(t.arch.warp_size),
    },
    Question {
        attribute: "computecapabilitymajor",
        field: "major",
        field_type: IntType::I32,
        answer: |t| Ok(t.arch.cc.major.into()),
    },
    Question {
        attribute: "computecapabilityminor",
        field: "minor",
        field_type: IntType::I32,
        answer: |t| Ok(t.arch.cc.minor.into()),
    },
    Question {
        attribute: "maxsharedmemoryperblockoptin",
        field: "sharedmemperblockoptin",
        field_type: IntType::U64,
        answer: |t| Ok(t.arch.smem_per_block_optin_bytes),
    },
    Question {
        attribute: "maxsharedmemoryperblock",
        field: "sharedmemperblock",
        field_type: IntType::U64,
        answer: |t| Ok(t.arch.smem_per_block_default_bytes),
    },
    Question {
        attribute: "maxsharedmemorypermultiprocessor",
        field: "sharedmempermultiprocessor",
        field_type: IntType::U64,
        answer: |t| Ok(t.arch.smem_per_sm_bytes),
    },
    Question {
        attribute: "reservedsharedmemoryperblock",
        field: "reservedsharedmemperblock",
        field_type: IntType::U64,
        answer: |t| Ok(t.arch.reserved_smem_per_block_bytes),
    },
    Question {
        attribute: "maxthreadsperblock",
        field: "maxthreadsperblock",
        field_type: IntType::I32,
        answer: |t| Ok(t.arch.max_threads_per_block),
    },
    Question {
        attribute: "maxthreadspermultiprocessor",
        field: "maxthreadspermultiprocessor",
        field_type: IntType::I32,
        answer: |t| Ok(t.arch.max_threads_per_sm),
    },
    Question {
        attribute: "maxblockspermultiprocessor",
        field: "maxblockspermultiprocessor",
        field_type: IntType::I32,
        answer: |t| Ok(t.arch.max_blocks_per_sm),
    },
    Question {
        attribute: "maxregistersperblock",
        field: "regsperblock",
        field_type: IntType::I32,
        answer: |t| Ok(t.arch.max_regs_per_block),
    },
    Question {
        attribute: "maxregisterspermultiprocessor",
        field: "regspermultiprocessor",
        field_type: IntType::I32,
        answer: |t| Ok(t.arch.regs_per_sm),
    },
    Question {
        attribute: "multiprocessorcount",
        field: "multiprocessorcount",
        field_type: IntType::I32,
        answer: |t| {
            t.sm_count().ok_or_else(|| {
                format!(
                    "the number of SMs differs between GPUs of compute capability {} (`{t}` names no GPU: give one, such as H100, as the target)",
                    t.arch.cc
                )
            })
        },
    },
];

/// `cudaDevAttrMaxSharedMemoryPerBlockOptin` and `CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`
/// as [`Question::attribute`] words (`maxsharedmemoryperblockoptin`); `None` when `written` is
/// neither spelling.
fn attribute_words(written: &str) -> Option<String> {
    let name = written.trim().rsplit("::").next().unwrap_or("");
    let rest = name
        .strip_prefix("cudaDevAttr")
        .or_else(|| name.strip_prefix("CU_DEVICE_ATTRIBUTE_"))?;
    Some(words(rest))
}

fn words(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// The value of the device attribute `written` (`cudaDevAttrWarpSize`) on `target`, as the
/// `int` that `cudaDeviceGetAttribute` writes; or why it is known only at run time.
pub(crate) fn attribute(written: &str, target: &Target) -> Result<i128, String> {
    let Some(w) = attribute_words(written) else {
        return Err(format!(
            "`{}` is not a device attribute the reader knows: known only at run time",
            clip(written)
        ));
    };
    match QUESTIONS.iter().find(|q| q.attribute == w) {
        Some(q) => (q.answer)(target).map(i128::from),
        None => Err(format!(
            "`{}` is not in the GPU tables: known only at run time",
            clip(written)
        )),
    }
}

/// `__CUDA_ARCH_LIST__` of the build that runs on `target`: nvcc's list of the
/// architectures it compiles (`-arch=sm_86`: `860`), defined in host code too. A build
/// compiles for the GPU it runs on (candle's cudaforge detects one compute capability;
/// the build helper compiles each target apart), so the list is the target's
/// architecture alone.
pub(crate) fn arch_list(target: &Target) -> Vec<i128> {
    let cc = target.arch.cc;
    vec![i128::from(cc.major) * 100 + i128::from(cc.minor) * 10]
}

/// The value on `target` of a device attribute the policy says a parameter holds
/// (`[device_params.<function>]`: one of [`occupancy_core::policy::DEVICE_ATTRIBUTES`],
/// `warp_size`, `compute_capability_x100`, ...), from the GPU tables as above; or why it
/// is known only at run time.
pub(crate) fn declared(attribute: &str, target: &Target) -> Result<i128, String> {
    let cc = target.arch.cc;
    match attribute {
        "compute_capability_x100" => Ok(i128::from(cc.major) * 100 + i128::from(cc.minor) * 10),
        "compute_capability_x10" => Ok(i128::from(cc.major) * 10 + i128::from(cc.minor)),
        _ => {
            let w = words(attribute);
            match QUESTIONS.iter().find(|q| q.attribute == w) {
                Some(q) => (q.answer)(target).map(i128::from),
                None => Err(format!(
                    "`{}` is not in the GPU tables: known only at run time",
                    clip(attribute)
                )),
            }
        }
    }
}

/// The `cudaDeviceProp` field `field` (`warpSize`) on `target`, with its C++ type; or why
/// it is known only at run time.
pub(crate) fn property(field: &str, target: &Target) -> Result<(i128, IntType), String> {
    let w = words(field);
    match QUESTIONS.iter().find(|q| q.field == w) {
        Some(q) => (q.answer)(target).map(|v| (i128::from(v), q.field_type)),
        None => Err(format!(
            "`cudaDeviceProp::{}` is not in the GPU tables: known only at run time",
            clip(field)
        )),
    }
}

/// Whether a file's text names a device query, or `__CUDA_ARCH_LIST__` (a value of each
/// target's build, [`arch_list`]), so that its unit's roots run per target.
pub(crate) fn asks_device(text: &str) -> bool {
    [
        "DeviceGetAttribute",
        "GetDeviceProperties",
        "__CUDA_ARCH_LIST__",
    ]
    .iter()
    .any(|q| text.contains(q))
}

fn clip(s: &str) -> &str {
    let s = s.trim();
    match s.char_indices().nth(60) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// `[device_params.<function pattern>]`: parameter name to device attribute.
pub(crate) type DeviceParams =
    std::collections::BTreeMap<String, std::collections::BTreeMap<String, String>>;

/// The device attribute `device_params` declares parameter `param` of `function` (its
/// qualified name) holds (`warp_size`), if it declares one.
pub(crate) fn declared_attribute<'d>(
    device_params: &'d DeviceParams,
    function: &str,
    param: &str,
) -> Option<&'d str> {
    device_params
        .iter()
        .filter(|(pattern, _)| occupancy_core::policy::function_matches(pattern, function))
        .find_map(|(_, params)| params.get(param))
        .map(String::as_str)
}

/// Whether a declaration of `device_params` names a parameter of one of `index`'s
/// functions: then the unit's roots run per target, as for a device query.
pub(crate) fn declares_device_params(index: &Index<'_>, device_params: &DeviceParams) -> bool {
    index.all_functions.iter().any(|f| {
        device_params.iter().any(|(pattern, params)| {
            occupancy_core::policy::function_matches(pattern, &f.qualified)
                && f.params.iter().any(|p| params.contains_key(&p.name))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(name: &str) -> Target {
        Target::parse(name).unwrap()
    }

    #[test]
    fn attributes_and_fields_are_the_targets_values() {
        let (a100, h100) = (target("sm_80"), target("sm_90"));
        assert_eq!(attribute("cudaDevAttrWarpSize", &a100), Ok(32));
        assert_eq!(
            attribute(
                "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN",
                &a100
            ),
            Ok(166_912)
        );
        assert_eq!(
            attribute("cudaDevAttrMaxSharedMemoryPerBlockOptin", &h100),
            Ok(232_448)
        );
        assert_eq!(property("major", &h100), Ok((9, IntType::I32)));
        assert_eq!(
            property("sharedMemPerBlockOptin", &target("sm_86")),
            Ok((101_376, IntType::U64))
        );
        assert_eq!(
            attribute("cudaDevAttrMultiProcessorCount", &target("H100")),
            Ok(132)
        );
    }

    #[test]
    fn every_attribute_a_policy_may_declare_is_answered() {
        let (a100, rtx, h100) = (target("sm_80"), target("sm_86"), target("H100"));
        for name in occupancy_core::policy::DEVICE_ATTRIBUTES {
            let on_h100 = declared(name, &h100);
            assert!(on_h100.is_ok(), "{name}: {on_h100:?}");
        }
        assert_eq!(declared("compute_capability_x100", &rtx), Ok(860));
        assert_eq!(declared("compute_capability_x10", &h100), Ok(90));
        assert_eq!(declared("warp_size", &a100), Ok(32));
        assert_eq!(
            declared("max_shared_memory_per_block_optin", &rtx),
            Ok(101_376)
        );
        assert_eq!(declared("multiprocessor_count", &h100), Ok(132));
        let sms = declared("multiprocessor_count", &a100).unwrap_err();
        assert!(sms.contains("number of SMs"), "{sms}");
    }

    #[test]
    fn what_the_tables_do_not_hold_is_run_time() {
        let a100 = target("sm_80");
        let sms = attribute("cudaDevAttrMultiProcessorCount", &a100).unwrap_err();
        assert!(sms.contains("number of SMs"), "{sms}");
        let clock = attribute("cudaDevAttrClockRate", &a100).unwrap_err();
        assert!(clock.contains("not in the GPU tables"), "{clock}");
        assert!(property("totalGlobalMem", &a100).is_err());
        assert!(attribute("attr", &a100).is_err());
    }
}
