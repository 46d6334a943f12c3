//! The engine against NVIDIA's `cuda_occupancy.h` (CUDA 13.5) on a million random
//! configurations over every architecture both know, when the header is available
//! (`CUDA_OCCUPANCY_H`, see `bench/build.rs`). With `OCCUPANCY_REQUIRE_HEADER=1` (as in CI)
//! a missing header fails the test instead of skipping it.

#[cfg(cuda_occupancy_header)]
#[test]
fn a_million_random_configurations_agree_with_the_header() {
    use occupancy_bench::header::Header;
    use occupancy_core::analysis::PTXAS_MAX_REGISTERS;
    use occupancy_core::arch::ARCHS;
    use occupancy_core::occupancy::{BlockDim, Carveout, Kernel, Launch, occupancy};

    // A small deterministic generator (xorshift64*): the test needs coverage, not quality.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = |bound: u32| {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        ((state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) % bound as u64) as u32
    };
    let (mut checked, mut wrong) = (0u32, Vec::new());
    for _ in 0..1_000_000 {
        let arch = &ARCHS[next(ARCHS.len() as u32) as usize];
        let static_smem = [0, next(49153), next(4096)][next(3) as usize];
        let default_dynamic =
            arch.smem_per_block_default_bytes - static_smem.min(arch.smem_per_block_default_bytes);
        let opt_in = match next(3) {
            0 => None,
            _ => Some(
                default_dynamic
                    + 1
                    + next(
                        arch.smem_per_block_optin_bytes
                            .saturating_sub(static_smem + default_dynamic)
                            .max(1),
                    ),
            ),
        }
        .filter(|o| static_smem + o <= arch.smem_per_block_optin_bytes);
        let kernel = Kernel {
            registers_per_thread: next(257),
            static_smem_bytes: static_smem,
            barriers: [1, 1, 2, 4, 8, 16, 0][next(7) as usize],
            max_threads_per_block: Some([1024, 1024, 256, 384, 640][next(5) as usize]),
            max_dynamic_smem_bytes: opt_in,
            carveout: match next(4) {
                0 => Carveout::Default,
                _ => Carveout::Percent(next(101) as u8),
            },
        };
        let block = 1 + next(1024);
        let dynamic = match next(3) {
            0 => 0,
            1 => next(8192),
            _ => next(opt_in.unwrap_or(default_dynamic) + 2048),
        };
        let mut header = Header::new(arch, &kernel).blocks_per_sm(block, dynamic);
        // The header checks 256 registers per thread from cc 7.0
        // (`cudaOccRegAllocationMaxPerThread`), a count no kernel has (ptxas allocates at
        // most 255): the engine refuses it, as the Programming Guide's 255 says, and agrees
        // with the header on every count a kernel can have.
        if kernel.registers_per_thread > PTXAS_MAX_REGISTERS {
            header = header.map(|_| 0);
        }
        let engine = occupancy(
            arch,
            &kernel,
            &Launch::new(BlockDim::linear(block)).with_dynamic_smem(dynamic),
        )
        .map(|o| o.blocks_per_sm)
        .ok();
        checked += 1;
        if header != engine {
            wrong.push(format!(
                "{} {kernel:?} block {block} dyn {dynamic}: header {header:?} engine {engine:?}",
                arch.sm
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {checked} disagree: {:#?}",
        wrong.len(),
        &wrong[..wrong.len().min(10)]
    );
}

#[cfg(not(cuda_occupancy_header))]
#[test]
fn a_million_random_configurations_agree_with_the_header() {
    let required = std::env::var("OCCUPANCY_REQUIRE_HEADER").is_ok_and(|v| v == "1");
    assert!(
        !required,
        "OCCUPANCY_REQUIRE_HEADER=1 but the bench crate was built without CUDA_OCCUPANCY_H"
    );
    eprintln!(
        "skipped: set CUDA_OCCUPANCY_H to the folder of cuda_occupancy.h to run the header oracle"
    );
}
