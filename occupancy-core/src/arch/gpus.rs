//! Named GPUs: compute capability and SM count per part.
//!
//! SM counts matter for grid-level questions (waves, the minimum grid that fills the GPU,
//! cluster counts); per-SM occupancy depends on the compute capability alone. Each row gives
//! where its SM count was read, and how sure that is.

use super::{
    Arch, SM_50, SM_52, SM_53, SM_60, SM_61, SM_62, SM_70, SM_72, SM_75, SM_80, SM_86, SM_87,
    SM_89, SM_90, SM_100, SM_103, SM_110, SM_120, SM_121,
};

/// How sure a row of [`GPUS`] is of its SM count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Confidence {
    /// Measured on the part by this project (`CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT`).
    Measured,
    /// Read from a public `deviceQuery`, PyTorch or nvbench dump of the part.
    Confirmed,
    /// Inferred from test fixtures or framework tables naming the part, no dump found.
    Inferred,
    /// Derived from core counts or press material only; treat as an estimate.
    Unconfirmed,
}

/// A named GPU part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gpu {
    /// The part's name as NVIDIA's driver reports it (or the closest public name).
    pub name: &'static str,
    /// Other names users write for it; matched like [`name`](Self::name), ignoring case,
    /// spaces, dashes and the words NVIDIA, GeForce, Tesla and Quadro.
    pub aliases: &'static [&'static str],
    /// Its compute capability's limits.
    pub arch: &'static Arch,
    /// Streaming multiprocessors (SMs) on the part.
    pub sm_count: u32,
    /// How sure [`sm_count`](Self::sm_count) is.
    pub confidence: Confidence,
    /// Where the SM count was read.
    pub source: &'static str,
}

macro_rules! gpu {
    ($name:literal, [$($alias:literal),*], $arch:ident, $sms:literal, $conf:ident, $src:literal) => {
        Gpu {
            name: $name,
            aliases: &[$($alias),*],
            arch: &$arch,
            sm_count: $sms,
            confidence: Confidence::$conf,
            source: $src,
        }
    };
}

/// Every named GPU the linter knows, grouped by compute capability.
///
/// Source column abbreviations: "deviceQuery" = public dumps of NVIDIA's deviceQuery
/// sample; "torch" = `torch.cuda.get_device_properties` dumps; "nvbench" = NVIDIA nvbench
/// device headers.
pub static GPUS: &[Gpu] = &[
    gpu!(
        "GeForce GTX 750 Ti",
        ["GTX 750 Ti"],
        SM_50,
        5,
        Confirmed,
        "deviceQuery dumps"
    ),
    gpu!(
        "Quadro K2200",
        ["K2200"],
        SM_50,
        5,
        Confirmed,
        "deviceQuery dump"
    ),
    gpu!(
        "GeForce GTX 960",
        ["GTX 960"],
        SM_52,
        8,
        Confirmed,
        "deviceQuery dump"
    ),
    gpu!(
        "Tesla M60",
        ["M60"],
        SM_52,
        16,
        Confirmed,
        "deviceQuery dump (one GPU of the board)"
    ),
    gpu!(
        "Jetson Nano",
        ["Tegra X1", "Nano"],
        SM_53,
        1,
        Confirmed,
        "deviceQuery \"NVIDIA Tegra X1\""
    ),
    gpu!(
        "Jetson TX1",
        ["TX1"],
        SM_53,
        2,
        Unconfirmed,
        "derived: 256 CUDA cores / 128 per SM"
    ),
    gpu!(
        "Tesla P100-PCIE-16GB",
        ["P100", "P100 PCIe", "Tesla P100"],
        SM_60,
        56,
        Confirmed,
        "deviceQuery dump"
    ),
    gpu!(
        "Tesla P100-PCIE-12GB",
        ["P100 12GB"],
        SM_60,
        56,
        Confirmed,
        "deviceQuery dump"
    ),
    gpu!(
        "Quadro GP100",
        ["GP100"],
        SM_60,
        56,
        Confirmed,
        "nvbench example output"
    ),
    gpu!(
        "GeForce GTX 1080 Ti",
        ["GTX 1080 Ti", "1080 Ti"],
        SM_61,
        28,
        Confirmed,
        "deviceQuery dumps"
    ),
    gpu!(
        "Quadro P400",
        ["P400"],
        SM_61,
        2,
        Confirmed,
        "deviceQuery dump"
    ),
    gpu!(
        "Jetson TX2",
        ["Tegra X2", "TX2"],
        SM_62,
        2,
        Confirmed,
        "deviceQuery \"NVIDIA Tegra X2\""
    ),
    gpu!(
        "Tesla V100-SXM2-16GB",
        ["V100", "V100 SXM2", "Tesla V100"],
        SM_70,
        80,
        Confirmed,
        "torch dumps"
    ),
    gpu!(
        "Quadro GV100",
        ["GV100"],
        SM_70,
        80,
        Confirmed,
        "nvbench example output"
    ),
    gpu!(
        "Jetson AGX Xavier",
        ["Xavier", "AGX Xavier"],
        SM_72,
        8,
        Confirmed,
        "deviceQuery \"Xavier\""
    ),
    gpu!("Tesla T4", ["T4"], SM_75, 40, Confirmed, "torch dumps"),
    gpu!(
        "GeForce RTX 2080 Ti",
        ["RTX 2080 Ti", "2080 Ti"],
        SM_75,
        68,
        Confirmed,
        "deviceQuery dumps"
    ),
    gpu!(
        "GeForce RTX 2080",
        ["RTX 2080"],
        SM_75,
        46,
        Confirmed,
        "runtime query output"
    ),
    gpu!(
        "GeForce GTX 1650",
        ["GTX 1650"],
        SM_75,
        14,
        Confirmed,
        "deviceQuery-style dump"
    ),
    gpu!(
        "A100-SXM4-80GB",
        ["A100", "A100 SXM", "A100 SXM4", "A100 80GB"],
        SM_80,
        108,
        Confirmed,
        "torch dump; deviceQuery table"
    ),
    gpu!("A10", [], SM_86, 72, Confirmed, "deviceQuery dumps"),
    gpu!("A10G", ["A10G AWS"], SM_86, 80, Confirmed, "torch dump"),
    gpu!(
        "GeForce RTX 3090",
        ["RTX 3090"],
        SM_86,
        82,
        Confirmed,
        "torch dumps; deviceQuery"
    ),
    gpu!(
        "GeForce RTX 3060",
        ["RTX 3060", "RTX 3060 12GB"],
        SM_86,
        28,
        Confirmed,
        "deviceQuery dumps"
    ),
    gpu!("A40", [], SM_86, 84, Confirmed, "deviceQuery dump"),
    gpu!(
        "RTX A6000",
        ["A6000"],
        SM_86,
        84,
        Confirmed,
        "deviceQuery dump"
    ),
    gpu!(
        "RTX A4000",
        ["A4000"],
        SM_86,
        48,
        Confirmed,
        "deviceQuery dump"
    ),
    gpu!(
        "GeForce RTX 3050 Laptop",
        ["RTX 3050 Laptop"],
        SM_86,
        16,
        Confirmed,
        "deviceQuery dump"
    ),
    gpu!(
        "Jetson AGX Orin",
        [
            "AGX Orin",
            "Orin",
            "Jetson AGX Orin 64GB",
            "Jetson AGX Orin 32GB"
        ],
        SM_87,
        16,
        Confirmed,
        "deviceQuery \"Orin\", 2048 cores"
    ),
    gpu!(
        "Jetson Orin NX",
        ["Orin NX", "Orin Nano", "Jetson Orin Nano"],
        SM_87,
        8,
        Confirmed,
        "deviceQuery \"Orin\", 1024 cores (module inferred from core count)"
    ),
    gpu!("L4", [], SM_89, 58, Confirmed, "deviceQuery dump"),
    gpu!(
        "L40S",
        ["L40S"],
        SM_89,
        142,
        Confirmed,
        "torch dump; deviceQuery"
    ),
    gpu!(
        "GeForce RTX 4090",
        ["RTX 4090"],
        SM_89,
        128,
        Confirmed,
        "torch dump"
    ),
    gpu!(
        "GeForce RTX 4070 Ti SUPER",
        ["RTX 4070 Ti SUPER", "4070 Ti SUPER"],
        SM_89,
        66,
        Confirmed,
        "runtime query note"
    ),
    gpu!(
        "GeForce RTX 4060 Laptop",
        ["RTX 4060 Laptop"],
        SM_89,
        24,
        Confirmed,
        "nvbench device header"
    ),
    gpu!(
        "RTX 3500 Ada Laptop",
        ["RTX 3500 Ada"],
        SM_89,
        40,
        Confirmed,
        "nvbench device header"
    ),
    gpu!(
        "H100 80GB HBM3",
        ["H100", "H100 SXM", "H100 SXM5", "H100 SXM5 80GB"],
        SM_90,
        132,
        Confirmed,
        "torch dumps; deviceQuery"
    ),
    gpu!(
        "H100 PCIe",
        ["H100 PCIe 80GB"],
        SM_90,
        114,
        Confirmed,
        "torch dump"
    ),
    gpu!(
        "H200",
        ["H200 SXM", "H200 SXM 141GB"],
        SM_90,
        132,
        Measured,
        "cuDeviceGetAttribute(MULTIPROCESSOR_COUNT) on an H200, driver 580.159.04"
    ),
    gpu!(
        "GH200 480GB",
        ["GH200"],
        SM_90,
        132,
        Confirmed,
        "deviceQuery dump"
    ),
    gpu!("GH200 120GB", [], SM_90, 132, Confirmed, "deviceQuery dump"),
    gpu!(
        "H20",
        [],
        SM_90,
        78,
        Unconfirmed,
        "a code comment only; no dump found"
    ),
    gpu!("B200", ["B200 SXM"], SM_100, 148, Confirmed, "torch dumps"),
    gpu!(
        "GB200",
        ["GB200 NVL"],
        SM_100,
        152,
        Inferred,
        "framework device tables and test fixtures naming GB200"
    ),
    gpu!(
        "B300",
        ["B300 SXM6", "GB300", "B300 SXM6 AC"],
        SM_103,
        160,
        Unconfirmed,
        "full Blackwell Ultra SM count per press reports; no driver dump"
    ),
    gpu!(
        "Jetson AGX Thor",
        ["Thor", "AGX Thor", "Jetson Thor", "T5000"],
        SM_110,
        20,
        Confirmed,
        "deviceQuery \"NVIDIA Thor\""
    ),
    gpu!(
        "GeForce RTX 5090",
        ["RTX 5090"],
        SM_120,
        170,
        Confirmed,
        "deviceQuery dumps"
    ),
    gpu!(
        "GeForce RTX 5060 Ti",
        ["RTX 5060 Ti", "5060 Ti"],
        SM_120,
        36,
        Confirmed,
        "nvbench; deviceQuery"
    ),
    gpu!(
        "RTX PRO 6000 Blackwell",
        ["RTX PRO 6000"],
        SM_120,
        188,
        Inferred,
        "framework device tables and test fixtures"
    ),
    gpu!(
        "GeForce RTX 5080",
        ["RTX 5080"],
        SM_120,
        84,
        Unconfirmed,
        "derived: 10752 CUDA cores / 128 per SM"
    ),
    gpu!(
        "DGX Spark",
        ["GB10"],
        SM_121,
        48,
        Confirmed,
        "deviceQuery \"NVIDIA GB10\""
    ),
];
