//! What nvcc 13.5 makes for a crate's build script, read back: a whole-program host object
//! (`tests/fixtures/nvcc-13.5/host.o`, `.nv_fatbin`) and a static library built as the `cc`
//! crate builds one from two CUDA files (`libhost.a`: relocatable objects with
//! `__nv_relfatbin`, compressed, and the device-link object); the kernels' resources per
//! architecture, their symbols and demangled names, and the launch-side names matched to
//! them (`resources::instantiation`). The fixtures are rebuilt by `make.sh` beside them; with
//! nvcc present the test also rebuilds them in a scratch folder and compares (see
//! `rebuilt_objects_give_the_same_kernels`).
#![cfg(feature = "resources")]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use occupancy_core::resources::host::{self, Section};
use occupancy_core::resources::instantiation::{
    CompiledName, Instantiation, TemplateArg, masked_symbol,
};
use occupancy_core::resources::{self, InputKind, KernelResources, SmTarget};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/nvcc-13.5")
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(dir().join(name)).unwrap()
}

/// (display name, arch) -> (registers, static smem, barriers).
fn table(kernels: &[KernelResources]) -> BTreeMap<(String, u32), (u32, u32, Option<u32>)> {
    kernels
        .iter()
        .map(|k| {
            (
                (k.display_name().to_string(), k.arch.sm),
                (k.registers_per_thread, k.static_smem_bytes, k.barriers),
            )
        })
        .collect()
}

#[test]
fn a_whole_program_object_gives_every_kernel_per_target() {
    let data = read("host.o");
    assert_eq!(resources::detect(&data), Some(InputKind::HostElf));
    let kernels = resources::read(&data).unwrap();
    assert_eq!(kernels.len(), 24, "12 kernels x sm_80, sm_90");
    let t = table(&kernels);
    // Registers as ptxas 13.5 decided them (`cuobjdump --dump-resource-usage` agrees).
    assert_eq!(
        t[&("(anonymous namespace)::tile_copy<256>".into(), 80)],
        (12, 1024, Some(1))
    );
    assert_eq!(
        t[&("(anonymous namespace)::tile_copy<64>".into(), 90)],
        (12, 256, Some(1))
    );
    assert_eq!(
        t[&(
            "ops::detail::axpy<__nv_bfloat16, 64, true, (unsigned int)4>".into(),
            80
        )],
        (11, 0, Some(0))
    );
    assert_eq!(t[&("fill_ones".into(), 90)], (10, 0, Some(0)));
    assert_eq!(t[&("c_linkage_kernel".into(), 80)], (8, 0, Some(0)));
    assert!(
        t.contains_key(&(
            "ops::gather<float, (Layout)1, (long)-3, (unsigned long)16, (char)65>".into(),
            90
        )),
        "{t:?}"
    );
    // The symbols: an anonymous namespace carries nvcc's hash; `static` without -rdc is plain.
    let symbols: Vec<&str> = kernels.iter().map(|k| k.name.as_str()).collect();
    assert!(symbols.contains(&"_Z9fill_onesPf"), "{symbols:?}");
    assert!(
        symbols.iter().any(|s| s.starts_with("_ZN")
            && s.contains("_GLOBAL__N__")
            && s.contains("_7_host_cu_")),
        "{symbols:?}"
    );
    let host = host::kernels(&data).unwrap();
    assert!(
        host.iter()
            .all(|k| k.member.is_none() && k.section == Section::Fatbin)
    );
}

#[test]
fn a_cc_crate_style_archive_gives_each_kernel_once() {
    let data = read("libhost.a");
    assert_eq!(resources::detect(&data), Some(InputKind::Archive));
    let found = host::kernels(&data).unwrap();
    let per_member = |m: &str, s: Section| {
        found
            .iter()
            .filter(|k| k.member.as_deref() == Some(m) && k.section == s)
            .count()
    };
    // host.cu's 12 kernels and host_b.cu's 2, relocatable, for two targets; and all 14 again,
    // linked, in the device-link object.
    assert_eq!(per_member("host.o", Section::RelocatableFatbin), 24);
    assert_eq!(per_member("host_b.o", Section::RelocatableFatbin), 4);
    assert_eq!(per_member("host_dlink.o", Section::Fatbin), 28);
    assert_eq!(found.len(), 56);
    // The device link changes no resource: read() keeps one of each.
    let kernels = resources::read(&data).unwrap();
    assert_eq!(kernels.len(), 28);
    // Internal linkage in relocatable code: nvcc's prefix, demangled without it.
    let fill = kernels
        .iter()
        .find(|k| k.name.ends_with("__Z9fill_onesPf") && k.arch == SmTarget::new(80))
        .unwrap();
    assert!(fill.name.starts_with("__nv_static_"), "{}", fill.name);
    assert_eq!(fill.demangled.as_deref(), Some("fill_ones(float*)"));
    assert_eq!(masked_symbol(&fill.name), "_Z9fill_onesPf");
    // Two `scale_rows` in two anonymous namespaces: two kernels, one masked symbol.
    let scale: Vec<&KernelResources> = kernels
        .iter()
        .filter(|k| k.display_name() == "(anonymous namespace)::scale_rows" && k.arch.sm == 90)
        .collect();
    assert_eq!(scale.len(), 2);
    assert_ne!(scale[0].name, scale[1].name);
    assert_eq!(masked_symbol(&scale[0].name), masked_symbol(&scale[1].name));
    // host_b.cu's own instantiation.
    let t = table(&kernels);
    assert_eq!(
        t[&(
            "ops::detail::axpy<double, 512, false, (unsigned int)8>".into(),
            80
        )],
        (10, 0, Some(0))
    );
    // Static shared memory of a relocatable sm_90 cubin has no reserved 1 KiB prefix (the
    // device link adds it): the same 1024 B from both records.
    for k in found
        .iter()
        .filter(|k| k.kernel.display_name() == "(anonymous namespace)::tile_copy<256>")
    {
        assert_eq!(
            k.kernel.static_smem_bytes, 1024,
            "{:?} {}",
            k.section, k.kernel.arch
        );
    }
}

#[test]
fn relocatable_and_whole_program_builds_agree_by_masked_symbol() {
    let whole = resources::read(&read("host.o")).unwrap();
    let archive = host::kernels(&read("libhost.a")).unwrap();
    let rdc: BTreeMap<(String, SmTarget), u32> = archive
        .iter()
        .filter(|k| k.member.as_deref() == Some("host.o"))
        .map(|k| {
            (
                (masked_symbol(&k.kernel.name), k.kernel.arch),
                k.kernel.registers_per_thread,
            )
        })
        .collect();
    assert_eq!(rdc.len(), whole.len());
    for k in &whole {
        assert!(
            rdc.contains_key(&(masked_symbol(&k.name), k.arch)),
            "{} ({}) is not in the relocatable build",
            k.name,
            k.arch
        );
    }
}

fn int(v: i128) -> TemplateArg {
    TemplateArg::Int(v)
}
fn ty(t: &str) -> TemplateArg {
    TemplateArg::Type(t.into())
}

/// The display names of the sm_90 kernels `wanted` matches, and whether each is exact.
fn found(kernels: &[KernelResources], wanted: &Instantiation) -> Vec<(String, bool)> {
    let mut v: Vec<(String, bool)> = wanted
        .find(kernels.iter().filter(|k| k.arch.sm == 90))
        .into_iter()
        .map(|m| (m.kernel.display_name().to_string(), m.exact))
        .collect();
    v.sort();
    v
}

#[test]
fn launches_name_their_compiled_instantiations() {
    let kernels = resources::read(&read("libhost.a")).unwrap();
    let one = |name: &str, exact: bool| vec![(name.to_string(), exact)];
    // Types as a launch spells them, integers as values.
    let axpy = |args: Vec<TemplateArg>| Instantiation::new("ops::detail::axpy").with_args(args);
    assert_eq!(
        found(
            &kernels,
            &axpy(vec![ty("float"), int(128), TemplateArg::Bool(true), int(1)])
        ),
        one("ops::detail::axpy<float, 128, true, (unsigned int)1>", true)
    );
    assert_eq!(
        found(
            &kernels,
            &axpy(vec![ty("half"), int(256), TemplateArg::Bool(false), int(2)])
        ),
        one(
            "ops::detail::axpy<__half, 256, false, (unsigned int)2>",
            true
        )
    );
    assert_eq!(
        found(
            &kernels,
            &Instantiation::new("detail::axpy").with_args(vec![
                ty("nv_bfloat16"),
                int(64),
                TemplateArg::Bool(true),
                int(4)
            ])
        ),
        one(
            "ops::detail::axpy<__nv_bfloat16, 64, true, (unsigned int)4>",
            true
        )
    );
    assert_eq!(
        found(
            &kernels,
            &Instantiation::parse("axpy<uint32_t, 128, true, 1u>").unwrap()
        ),
        one(
            "ops::detail::axpy<unsigned int, 128, true, (unsigned int)1>",
            true
        )
    );
    // An enumerator, a negative int64_t, a size_t and a character, by value.
    assert_eq!(
        found(
            &kernels,
            &Instantiation::new("ops::gather").with_args(vec![
                ty("float"),
                int(1),
                int(-3),
                int(16),
                int(65)
            ])
        ),
        one(
            "ops::gather<float, (Layout)1, (long)-3, (unsigned long)16, (char)65>",
            true
        )
    );
    // A family: every instantiation of both files.
    assert_eq!(
        found(&kernels, &Instantiation::new("axpy")).len(),
        5,
        "4 in host.cu, 1 in host_b.cu"
    );
    // A default argument left out: the leading arguments match, not exactly.
    assert_eq!(
        found(&kernels, &Instantiation::parse("pack_sum<float>").unwrap()),
        one("pack_sum<float, 4>", false)
    );
    assert_eq!(
        found(
            &kernels,
            &Instantiation::parse("pack_sum<int64_t, 8>").unwrap()
        ),
        one("pack_sum<long, 8>", true)
    );
    assert_eq!(
        found(&kernels, &Instantiation::new("c_linkage_kernel")),
        one("c_linkage_kernel", true)
    );
    assert_eq!(
        found(&kernels, &Instantiation::parse("tile_copy<64>").unwrap()),
        one("(anonymous namespace)::tile_copy<64>", true)
    );
    // Internal linkage: the launch's own file decides between same-named kernels.
    assert_eq!(found(&kernels, &Instantiation::new("scale_rows")).len(), 2);
    for file in ["src/cuda/host.cu", "host_b.cu"] {
        let m = Instantiation::new("scale_rows")
            .in_file(file)
            .find(kernels.iter().filter(|k| k.arch.sm == 90));
        assert_eq!(m.len(), 1, "{file}");
        let token = Path::new(file)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .replace('.', "_");
        assert!(m[0].kernel.name.contains(&format!("_{token}_")), "{file}");
    }
    assert_eq!(
        found(
            &kernels,
            &Instantiation::new("fill_ones").in_file("host.cu")
        )
        .len(),
        1
    );
    assert!(
        found(
            &kernels,
            &Instantiation::new("fill_ones").in_file("host_b.cu")
        )
        .is_empty()
    );
    // What does not match.
    for wrong in [
        axpy(vec![ty("float"), int(256), TemplateArg::Bool(true), int(1)]),
        axpy(vec![
            ty("double"),
            int(128),
            TemplateArg::Bool(true),
            int(1),
        ]),
        axpy(vec![
            ty("float"),
            int(128),
            TemplateArg::Bool(false),
            int(1),
        ]),
        axpy(vec![
            ty("float"),
            int(128),
            TemplateArg::Bool(true),
            int(1),
            int(0),
        ]),
        Instantiation::new("other::axpy"),
        Instantiation::new("::axpy"),
        Instantiation::new("axpy_v2"),
        Instantiation::parse("pack_sum<double>").unwrap(),
    ] {
        assert!(found(&kernels, &wrong).is_empty(), "{wrong}");
    }
    assert_eq!(
        found(
            &kernels,
            &Instantiation::parse("::ops::detail::axpy<float, 128, true, 1>").unwrap()
        )
        .len(),
        1
    );
    // Names parsed once give the same answers.
    let names: Vec<CompiledName> = kernels.iter().map(CompiledName::of).collect();
    for wanted in [
        Instantiation::new("axpy"),
        Instantiation::parse("pack_sum<float>").unwrap(),
        Instantiation::new("scale_rows").in_file("host_b.cu"),
    ] {
        let by_find: Vec<Option<bool>> = kernels.iter().map(|k| wanted.matches(k)).collect();
        let by_name: Vec<Option<bool>> = names.iter().map(|n| wanted.matches_compiled(n)).collect();
        assert_eq!(by_find, by_name, "{wanted}");
        assert!(by_name.iter().any(Option::is_some), "{wanted}");
    }
}

#[test]
fn malformed_archives_and_objects_are_errors() {
    let archive = read("libhost.a");
    // Cut at every 997th length: an error or fewer kernels, never a panic.
    for len in (0..archive.len()).step_by(997) {
        let _ = resources::read(&archive[..len]);
        let _ = host::kernels(&archive[..len]);
    }
    assert!(host::kernels(&archive[..archive.len() / 2]).is_err());
    // A member size far past the end.
    let mut huge = archive.clone();
    let first = 8 + 60 + {
        // The symbol table member's size, then the next header.
        let size: usize = std::str::from_utf8(&archive[8 + 48..8 + 58])
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        size + size % 2
    };
    huge[first + 48..first + 58].copy_from_slice(b"9999999999");
    let e = host::kernels(&huge).unwrap_err();
    assert!(e.message().starts_with("archive"), "{e}");
    // The fatbin section of the object pointing past the end of the file.
    let object = read("host.o");
    let mut bad = object.clone();
    let at = section_header(&object, ".nv_fatbin");
    bad[at + 0x20..at + 0x28].copy_from_slice(&(u64::MAX / 2).to_le_bytes());
    let e = resources::read(&bad).unwrap_err();
    assert_eq!(
        e.message(),
        "host ELF: .nv_fatbin lies past the end of the file"
    );
    // A container claiming more entry bytes than the section has.
    let mut bad = object.clone();
    let fatbin = u64::from_le_bytes(object[at + 0x18..at + 0x20].try_into().unwrap()) as usize;
    bad[fatbin + 8..fatbin + 16].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let e = resources::read(&bad).unwrap_err();
    assert!(
        e.message().starts_with(
            "host ELF .nv_fatbin: fatbin: container at offset 0x0 claims 1099511627776 bytes"
        ),
        "{e}"
    );
    // The same object inside an archive: the member is named.
    let mut ar = b"!<arch>\n".to_vec();
    ar.extend_from_slice(
        format!(
            "{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
            "bad.o/",
            0,
            0,
            0,
            644,
            bad.len()
        )
        .as_bytes(),
    );
    ar.extend_from_slice(&bad);
    let e = resources::read(&ar).unwrap_err();
    assert!(
        e.message()
            .starts_with("archive member bad.o: host ELF .nv_fatbin: fatbin:"),
        "{e}"
    );
    // An object with no device code alone is an error; in an archive, it is skipped.
    let mut host_only = object.clone();
    let name_at = section_name_offset(&object, ".nv_fatbin");
    host_only[name_at..name_at + 10].copy_from_slice(b".xx_fatbin");
    assert!(
        resources::read(&host_only)
            .unwrap_err()
            .message()
            .starts_with("host ELF: no .nv_fatbin or __nv_relfatbin section")
    );
    let mut ar = b"!<arch>\n".to_vec();
    for (name, data) in [("host_only.o/", &host_only), ("host.o/", &object)] {
        ar.extend_from_slice(
            format!(
                "{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
                name,
                0,
                0,
                0,
                644,
                data.len()
            )
            .as_bytes(),
        );
        ar.extend_from_slice(data);
        if data.len() % 2 == 1 {
            ar.push(b'\n');
        }
    }
    assert_eq!(resources::read(&ar).unwrap().len(), 24);
}

/// Offset of the section header named `name` in a 64-bit ELF, read by hand.
fn section_header(data: &[u8], name: &str) -> usize {
    let u16_at = |o: usize| u16::from_le_bytes([data[o], data[o + 1]]) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(data[o..o + 8].try_into().unwrap()) as usize;
    let (shoff, shentsize, shnum, shstrndx) =
        (u64_at(0x28), u16_at(0x3a), u16_at(0x3c), u16_at(0x3e));
    let strtab = u64_at(shoff + shstrndx * shentsize + 0x18);
    (0..shnum)
        .map(|i| shoff + i * shentsize)
        .find(|&h| {
            let off = u32::from_le_bytes(data[h..h + 4].try_into().unwrap()) as usize;
            data[strtab + off..].starts_with(name.as_bytes())
                && data[strtab + off + name.len()] == 0
        })
        .unwrap()
}

/// Offset of the section's name in the section-name string table.
fn section_name_offset(data: &[u8], name: &str) -> usize {
    let h = section_header(data, name);
    let u16_at = |o: usize| u16::from_le_bytes([data[o], data[o + 1]]) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(data[o..o + 8].try_into().unwrap()) as usize;
    let (shoff, shentsize, shstrndx) = (u64_at(0x28), u16_at(0x3a), u16_at(0x3e));
    let strtab = u64_at(shoff + shstrndx * shentsize + 0x18);
    strtab + u32::from_le_bytes(data[h..h + 4].try_into().unwrap()) as usize
}

/// The committed objects are what nvcc 13.5 makes of the sources beside them: `make.sh` run
/// in a scratch folder gives the same kernels (by masked symbol: the anonymous-namespace
/// hashes change with the folder) with the same resources. Needs nvcc; skips with a message
/// without it, unless `OCCUPANCY_REQUIRE_NVCC=1`.
#[cfg(feature = "build")]
#[test]
fn rebuilt_objects_give_the_same_kernels() {
    use occupancy_core::build::Nvcc;
    let nvcc = match Nvcc::find(None) {
        Ok(n) => n,
        Err(why) => {
            assert_ne!(
                std::env::var("OCCUPANCY_REQUIRE_NVCC").as_deref(),
                Ok("1"),
                "{why}"
            );
            eprintln!("skipped: {why}");
            return;
        }
    };
    let scratch =
        std::env::temp_dir().join(format!("occupancy-nvcc-objects-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    for f in ["host.cu", "host_b.cu", "make.sh"] {
        std::fs::copy(dir().join(f), scratch.join(f)).unwrap();
    }
    let out = std::process::Command::new("sh")
        .arg(scratch.join("make.sh"))
        .env("NVCC", &nvcc.path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // (masked symbol, arch) -> (registers, static smem, barriers, local bytes).
    type Resources = BTreeMap<(String, SmTarget), (u32, u32, Option<u32>, u32)>;
    let resources = |data: &[u8]| -> Resources {
        resources::read(data)
            .unwrap()
            .into_iter()
            .map(|k| {
                (
                    (masked_symbol(&k.name), k.arch),
                    (
                        k.registers_per_thread,
                        k.static_smem_bytes,
                        k.barriers,
                        k.local_bytes,
                    ),
                )
            })
            .collect()
    };
    for file in ["host.o", "libhost.a"] {
        let rebuilt = resources(&std::fs::read(scratch.join(file)).unwrap());
        let committed = resources(&read(file));
        // Two kernels of libhost.a share a masked symbol (scale_rows of two files): compare
        // the sets, which then hold each once.
        assert_eq!(
            rebuilt.keys().collect::<Vec<_>>(),
            committed.keys().collect::<Vec<_>>(),
            "{file}: kernels"
        );
        if nvcc.version.to_string() == "13.5" {
            assert_eq!(rebuilt, committed, "{file}: resources from nvcc 13.5");
        } else {
            eprintln!(
                "nvcc {}: {file} has the same kernels; resources not compared (the fixtures are nvcc 13.5's)",
                nvcc.version
            );
        }
    }
    std::fs::remove_dir_all(&scratch).unwrap();
}
