//! Malformed inputs: every one is an `Err` with a message that says what is wrong, never a
//! panic, and never a large allocation (this test binary counts every allocation's size).
#![cfg(feature = "resources")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use occupancy_core::resources::{self, cubin, fatbin, ptx, ptxas};

/// The system allocator, recording the largest single request.
struct Counting;
static LARGEST: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to `System` unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.fetch_max(new_size, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// No allocation in this binary may exceed this (the fixtures are under 128 KiB).
const ALLOCATION_LIMIT: usize = 8 << 20;

fn fixture(rel: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(rel),
    )
    .unwrap()
}

fn assert_small_allocations() {
    let largest = LARGEST.load(Ordering::Relaxed);
    assert!(
        largest < ALLOCATION_LIMIT,
        "an allocation of {largest} bytes"
    );
    eprintln!("largest allocation so far: {largest} bytes");
}

fn err(r: resources::Result<impl std::fmt::Debug>) -> String {
    match r {
        Ok(v) => panic!("accepted malformed input: {v:?}"),
        Err(e) => e.to_string(),
    }
}

/// Section header `(offset of the header, name)` of a cubin, read by hand.
fn section_headers(data: &[u8]) -> Vec<(usize, String)> {
    let u16_at = |o: usize| u16::from_le_bytes([data[o], data[o + 1]]) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(data[o..o + 8].try_into().unwrap()) as usize;
    let (shoff, shentsize, shnum, shstrndx) =
        (u64_at(0x28), u16_at(0x3a), u16_at(0x3c), u16_at(0x3e));
    let strtab = u64_at(shoff + shstrndx * shentsize + 0x18);
    (0..shnum)
        .map(|i| {
            let h = shoff + i * shentsize;
            let name_off = u32::from_le_bytes(data[h..h + 4].try_into().unwrap()) as usize;
            let name = &data[strtab + name_off..];
            let end = name.iter().position(|&b| b == 0).unwrap();
            (h, String::from_utf8_lossy(&name[..end]).into_owned())
        })
        .collect()
}

#[test]
fn truncated_cubins_are_errors_at_every_length() {
    for rel in [
        "nvrtc-12.9/probe.sm_90.cubin",
        "nvrtc-13.5/probe.sm_100.cubin",
        "nvrtc-11.8/probe.sm_75.cubin",
    ] {
        let data = fixture(rel);
        assert!(cubin::parse(&data).is_ok());
        for len in (0..data.len()).step_by(61) {
            let e = err(cubin::parse(&data[..len]));
            assert!(e.starts_with("cubin: "), "{rel}[..{len}]: {e}");
        }
    }
    assert_eq!(
        err(cubin::parse(&[0x7f, b'E', b'L'])),
        "cubin: truncated: 3 bytes, an ELF64 header needs 64"
    );
    assert_small_allocations();
}

#[test]
fn wrong_machine_is_refused() {
    let mut data = fixture("nvrtc-12.9/probe.sm_80.cubin");
    data[18..20].copy_from_slice(&62u16.to_le_bytes()); // EM_X86_64
    let e = err(cubin::parse(&data));
    assert!(e.contains("ELF machine is 62, not EM_CUDA (190)"), "{e}");
    // resources::read treats it as a host ELF and looks for .nv_fatbin.
    let e = err(resources::read(&data));
    assert!(e.contains("no .nv_fatbin or __nv_relfatbin section"), "{e}");
}

#[test]
fn section_past_the_end_is_an_error() {
    let data = fixture("nvrtc-12.9/probe.sm_90.cubin");
    for target in [
        ".nv.info",
        ".nv.info.k_bounds",
        ".text.k_spill",
        ".nv.compat",
    ] {
        let Some((h, _)) = section_headers(&data)
            .into_iter()
            .find(|(_, n)| n == target)
        else {
            assert_eq!(target, ".nv.compat", "12.9 sm_90 has no .nv.compat");
            continue;
        };
        let mut bad = data.clone();
        bad[h + 0x18..h + 0x20].copy_from_slice(&(data.len() as u64 - 8).to_le_bytes()); // sh_offset
        let e = err(cubin::parse(&bad));
        assert!(
            e.contains(target) && e.contains("past the end"),
            "{target}: {e}"
        );
        let mut bad = data.clone();
        bad[h + 0x20..h + 0x28].copy_from_slice(&u64::MAX.to_le_bytes()); // sh_size
        let e = err(cubin::parse(&bad));
        assert!(e.contains("past the end"), "{target}: {e}");
    }
    assert_small_allocations();
}

#[test]
fn huge_counts_are_refused() {
    let data = fixture("nvrtc-13.5/probe.sm_90a.cubin");
    // e_shnum = 0xffff: the table would run far past the end.
    let mut bad = data.clone();
    bad[0x3c..0x3e].copy_from_slice(&0xffffu16.to_le_bytes());
    let e = err(cubin::parse(&bad));
    assert!(e.contains("section headers"), "{e}");
    // e_shoff near the end of the address space.
    let mut bad = data.clone();
    bad[0x28..0x30].copy_from_slice(&(u64::MAX - 16).to_le_bytes());
    assert!(err(cubin::parse(&bad)).contains("section headers"));
    // An SVAL record in .nv.info claiming 65535 payload bytes.
    let (h, _) = section_headers(&data)
        .into_iter()
        .find(|(_, n)| n == ".nv.info")
        .unwrap();
    let off = u64::from_le_bytes(data[h + 0x18..h + 0x20].try_into().unwrap()) as usize;
    let mut bad = data.clone();
    bad[off + 2..off + 4].copy_from_slice(&0xffffu16.to_le_bytes());
    let e = err(cubin::parse(&bad));
    assert!(
        e.contains(".nv.info: malformed attribute record at offset 0x0")
            && e.contains("claims 65535 payload bytes"),
        "{e}"
    );
    // An unknown record format.
    let mut bad = data.clone();
    bad[off] = 0x77;
    assert!(err(cubin::parse(&bad)).contains("unknown format byte 0x77"));
    assert_small_allocations();
}

#[test]
fn corrupted_cubins_never_panic() {
    // Deterministic byte flips all over the file: each parse is Ok or Err, never a panic.
    let data = fixture("nvrtc-12.9/probe.sm_100a.cubin");
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut errors = 0;
    for _ in 0..3000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let mut bad = data.clone();
        let at = (state % data.len() as u64) as usize;
        bad[at] ^= (state >> 32) as u8 | 1;
        if cubin::parse(&bad).is_err() {
            errors += 1;
        }
    }
    assert!(errors > 0);
    assert_small_allocations();
}

#[test]
fn fatbin_sizes_are_checked() {
    let data = fixture("fatbin/probe.plain.fatbin");
    let first_entry = 16;
    // An entry claiming more bytes than present.
    let mut bad = data.clone();
    bad[first_entry + 8..first_entry + 12].copy_from_slice(&0x7fff_ffffu32.to_le_bytes());
    let e = err(fatbin::parse(&bad));
    assert!(
        e.contains("entry at offset 0x10 claims 2147483647 payload bytes"),
        "{e}"
    );
    // A container claiming more bytes than present.
    let mut bad = data.clone();
    bad[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(err(fatbin::parse(&bad)).contains("claims 18446744073709551615 bytes of entries"));
    // Truncated at every length.
    for len in (0..data.len()).step_by(97) {
        let e = err(fatbin::parse(&data[..len]).and_then(|entries| fatbin::kernels(&entries)));
        assert!(!e.is_empty());
    }
    // Bad magic.
    let mut bad = data.clone();
    bad[0] ^= 0xff;
    assert!(err(fatbin::parse(&bad)).contains("bad container magic"));
    assert_small_allocations();
}

#[test]
fn compressed_entries_cannot_demand_huge_buffers() {
    for (rel, what) in [
        ("fatbin/probe.lz4.fatbin", "more than LZ4 can expand"),
        (
            "fatbin/probe.zstd.fatbin",
            "decompressed to 34592 bytes, the header says 134217728",
        ),
    ] {
        let data = fixture(rel);
        // Uncompressed size field (entry offset 56) of the first entry: 4 GiB, 257 MiB, then
        // 128 MiB.
        let mut bad = data.clone();
        for claim in [4u64 << 30, 257 << 20] {
            bad[16 + 56..16 + 64].copy_from_slice(&claim.to_le_bytes());
            let entries = fatbin::parse(&bad).unwrap();
            let e = err(entries[0].data());
            assert!(
                e.contains(&format!(
                    "claims {claim} decompressed bytes, over the 268435456 byte limit"
                )),
                "{rel}: {e}"
            );
        }
        bad[16 + 56..16 + 64].copy_from_slice(&(128u64 << 20).to_le_bytes());
        let entries = fatbin::parse(&bad).unwrap();
        let e = err(entries[0].data());
        assert!(e.contains(what), "{rel}: {e}");
        // A size that is plausible but wrong: decoding stops at the claim and says so.
        let mut bad = data.clone();
        let real = u64::from_le_bytes(data[16 + 56..16 + 64].try_into().unwrap());
        bad[16 + 56..16 + 64].copy_from_slice(&(real - 100).to_le_bytes());
        let entries = fatbin::parse(&bad).unwrap();
        assert!(!err(entries[0].data()).is_empty(), "{rel}");
        // Corrupt compressed bytes.
        let mut bad = data.clone();
        let header = u32::from_le_bytes(data[16 + 4..16 + 8].try_into().unwrap()) as usize;
        for b in &mut bad[16 + header + 8..16 + header + 64] {
            *b = 0xff;
        }
        let entries = fatbin::parse(&bad).unwrap();
        assert!(
            entries[0]
                .data()
                .and_then(|d| cubin::parse(&d).map(|_| ()))
                .is_err(),
            "{rel}"
        );
    }
    assert_small_allocations();
}

/// Eight zstd entries of 1 GiB each (33 KB apiece compressed) took `kernels` 29 s and 1 GB:
/// the headers' claims are summed first.
#[test]
fn a_fatbin_claiming_more_than_1_gib_in_all_is_refused_before_decompressing() {
    let data = fixture("fatbin/probe.zstd.fatbin");
    let entries = fatbin::parse(&data).unwrap();
    let mut many = Vec::new();
    for _ in 0..5 {
        let mut e = entries[0].clone();
        e.compression = fatbin::Compression::Zstd;
        e.uncompressed_bytes = 250 << 20;
        many.push(e);
    }
    let start = std::time::Instant::now();
    let e = err(fatbin::kernels(&many));
    assert_eq!(
        e,
        "the fatbin's PTX and cubin entries claim 1310720000 bytes in all, over the \
         1073741824 byte limit"
    );
    assert!(start.elapsed().as_millis() < 1000);
    // The fixture itself, far below: read.
    assert!(!fatbin::kernels(&entries).unwrap().is_empty());
}

#[test]
fn text_inputs_are_checked() {
    assert!(err(ptxas::parse("")).contains("no entry function"));
    assert!(err(ptx::parse(".entry k()\n.maxntid 1,2,3,4\n{\n}\n")).contains("1 to 3 numbers"));
    assert!(
        err(resources::read(b".version 8.8\n.target sm_90\n"))
            .contains("PTX records no register counts")
    );
    assert!(err(resources::read(&[0xff, 0xfe, 0x00])).contains("not a cubin"));
}
