//! How named GPUs group their SMs for thread-block clusters: dies and virtual-GPC layouts.
//!
//! A cluster's blocks are co-scheduled on the SMs of one GPC (CUDA C++ Programming Guide,
//! "Thread Block Clusters"). On Hopper the unit is a *virtual* GPC: NVIDIA's resource
//! manager orders the enabled GPCs by TPC count into virtual GPCs 0..N-1 and makes TPCs
//! outside them "singleton TPC holders", virtual GPCs 8-23 of one TPC each (open-source
//! `NVIDIA/open-gpu-kernel-modules`, `src/common/sdk/nvidia/inc/ctrl/ctrl2080/ctrl2080gr.h`:
//! the `virtualGpcId` and `migratableTpcId` fields of `NV2080_CTRL_CMD_GR_GET_GLOBAL_SM_ORDER`,
//! and `NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_SINGLETON_GPCS`). The virtual GPCs' TPC
//! counts, sorted, are the part's *skyline*: the same on every chip of a part whatever TPCs
//! were floorswept, which is why the driver's cluster answers are a property of the part.
//!
//! [`crate::cluster`] turns these tables into `cuOccupancyMaxActiveClusters` answers.

use super::Gpu;

/// How sure a [`Skyline`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LayoutConfidence {
    /// Fitted to the part's own driver answers, and the only layout that fits them.
    Measured,
    /// Taken from a part with the same die and SM count; the part's partial evidence
    /// agrees but does not pin the layout down alone.
    Inferred,
}

/// The GPC structure of a die: limits that hold for every part cut from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Die {
    /// NVIDIA's name for the die, e.g. `"GH100"`.
    pub name: &'static str,
    /// GPCs on the full die: at most this many virtual GPCs hold more than one TPC.
    pub max_gpcs: u32,
    /// TPCs per GPC on the full die.
    pub max_tpcs_per_gpc: u32,
    /// SMs per TPC.
    pub sms_per_tpc: u32,
    /// Most singleton TPCs (virtual GPCs of one TPC): 16, the ids 8-23 the resource
    /// manager reserves for them (`ctrl2080gr.h`, `virtualGpcId`).
    pub max_singleton_tpcs: u32,
    /// Where the numbers were read.
    pub source: &'static str,
}

/// The Hopper die. NVIDIA H100 Tensor Core GPU Architecture whitepaper: the full GH100 has
/// 8 GPCs, 72 TPCs (9 per GPC), 2 SMs per TPC, 144 SMs; H100 SXM5 enables 132 SMs (66 TPCs),
/// H100 PCIe 114 SMs.
pub const GH100: Die = Die {
    name: "GH100",
    max_gpcs: 8,
    max_tpcs_per_gpc: 9,
    sms_per_tpc: 2,
    max_singleton_tpcs: 16,
    source: "NVIDIA H100 Tensor Core GPU Architecture whitepaper; ctrl2080gr.h (singletons)",
};

/// A part's virtual GPCs: the skyline plus the singleton TPCs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Skyline {
    /// TPCs per virtual GPC that holds more than one TPC, ascending.
    pub vgpc_tpcs: &'static [u32],
    /// TPCs outside the skyline, each a virtual GPC of its own.
    pub singleton_tpcs: u32,
    /// How sure the layout is.
    pub confidence: LayoutConfidence,
    /// Where it comes from.
    pub source: &'static str,
}

impl Skyline {
    /// Enabled TPCs: the skyline's plus the singletons.
    pub const fn tpc_count(&self) -> u32 {
        let mut total = self.singleton_tpcs;
        let mut i = 0;
        while i < self.vgpc_tpcs.len() {
            total += self.vgpc_tpcs[i];
            i += 1;
        }
        total
    }
}

/// What is known of one named GPU's cluster topology.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GpcLayout {
    /// The GPU, as [`Gpu::name`] spells it.
    pub gpu: &'static str,
    /// Its die.
    pub die: &'static Die,
    /// Its virtual GPCs, when known.
    pub skyline: Option<Skyline>,
}

impl GpcLayout {
    /// Enabled SMs the layout describes, when the skyline is known.
    pub const fn sm_count(&self) -> Option<u32> {
        match self.skyline {
            Some(s) => Some(s.tpc_count() * self.die.sms_per_tpc),
            None => None,
        }
    }
}

/// The skyline every GH100 part with 132 SMs (66 TPCs) is taken to have: virtual GPCs of
/// 4, 8, 8, 8, 8, 8, 9, 9 TPCs and 4 singleton TPCs.
const GH100_132_SMS: &[u32] = &[4, 8, 8, 8, 8, 8, 9, 9];

/// Where [`GH100_132_SMS`] comes from on the H200.
const H200_SOURCE: &str = "fitted to 3,240 cuOccupancyMaxActiveClusters answers of an H200 \
    (driver 580.159.04): the only grouping of its 66 TPCs into groups of 1..9 that \
    reproduces all of them (scripts/cluster_model_search.py)";

/// Where [`GH100_132_SMS`] comes from on the other 132-SM GH100 parts.
const H100_SOURCE: &str = "same die and SM count as the H200; agrees with an H100 SXM's \
    30 / 15 / 7 clusters of 4 / 8 / 16 at 1 block per SM (field case 28), cuBLAS's \
    15-cluster grid of clusters of 8 on H100 SXM5 (NVIDIA/cutlass issue 1921) and 15 \
    clusters of 8 covering 120 of 132 SMs (accel-sim/gpu-app-collection PR 87)";

/// Every GPU whose die or virtual-GPC layout is known. Keyed by [`Gpu::name`].
pub static GPC_LAYOUTS: &[GpcLayout] = &[
    GpcLayout {
        gpu: "H200",
        die: &GH100,
        skyline: Some(Skyline {
            vgpc_tpcs: GH100_132_SMS,
            singleton_tpcs: 4,
            confidence: LayoutConfidence::Measured,
            source: H200_SOURCE,
        }),
    },
    GpcLayout {
        gpu: "H100 80GB HBM3",
        die: &GH100,
        skyline: Some(Skyline {
            vgpc_tpcs: GH100_132_SMS,
            singleton_tpcs: 4,
            confidence: LayoutConfidence::Inferred,
            source: H100_SOURCE,
        }),
    },
    GpcLayout {
        gpu: "GH200 480GB",
        die: &GH100,
        skyline: Some(Skyline {
            vgpc_tpcs: GH100_132_SMS,
            singleton_tpcs: 4,
            confidence: LayoutConfidence::Inferred,
            source: "same die and SM count as the H200; no cluster answer recorded",
        }),
    },
    GpcLayout {
        gpu: "GH200 120GB",
        die: &GH100,
        skyline: Some(Skyline {
            vgpc_tpcs: GH100_132_SMS,
            singleton_tpcs: 4,
            confidence: LayoutConfidence::Inferred,
            source: "same die and SM count as the H200; no cluster answer recorded",
        }),
    },
    GpcLayout {
        gpu: "H100 PCIe",
        die: &GH100,
        skyline: None,
    },
    GpcLayout {
        gpu: "H20",
        die: &GH100,
        skyline: None,
    },
];

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The layout row for a named GPU, if [`GPC_LAYOUTS`] has one.
pub const fn gpc_layout(gpu: &Gpu) -> Option<&'static GpcLayout> {
    let mut i = 0;
    while i < GPC_LAYOUTS.len() {
        if str_eq(GPC_LAYOUTS[i].gpu, gpu.name) {
            return Some(&GPC_LAYOUTS[i]);
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::GPUS;

    #[test]
    fn every_layout_names_a_known_gpu_of_its_die() {
        for layout in GPC_LAYOUTS {
            let gpu = GPUS
                .iter()
                .find(|g| g.name == layout.gpu)
                .unwrap_or_else(|| panic!("{} is not in GPUS", layout.gpu));
            assert_eq!(gpc_layout(gpu), Some(layout));
            let die = layout.die;
            assert!(gpu.sm_count <= die.max_gpcs * die.max_tpcs_per_gpc * die.sms_per_tpc);
            if let (Some(sms), Some(sky)) = (layout.sm_count(), layout.skyline) {
                assert_eq!(sms, gpu.sm_count, "{}", layout.gpu);
                assert!(sky.vgpc_tpcs.len() as u32 <= die.max_gpcs);
                assert!(
                    sky.vgpc_tpcs.is_sorted(),
                    "{}: skyline not ascending",
                    layout.gpu
                );
                assert!(sky.vgpc_tpcs.iter().all(|&t| t <= die.max_tpcs_per_gpc));
                assert!(sky.singleton_tpcs <= die.max_singleton_tpcs);
            }
        }
    }

    #[test]
    fn the_h200_skyline_holds_its_132_sms() {
        let h200 = GPUS.iter().find(|g| g.name == "H200").unwrap();
        let layout = gpc_layout(h200).unwrap();
        assert_eq!(layout.sm_count(), Some(132));
        assert_eq!(layout.skyline.unwrap().tpc_count(), 66);
        let b200 = GPUS.iter().find(|g| g.name == "B200").unwrap();
        assert_eq!(gpc_layout(b200), None);
    }
}
