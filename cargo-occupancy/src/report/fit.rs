//! A launch's kernel names, as the code loads them, fitted to the resource manifest the
//! report reads: a name the code loads that is not in its module makes the load fail before
//! the launch (candle's `get_or_load_func("const_set_i16", &kernels::FILL)` where `fill.cu`
//! defines no `const_set_i16`), so that path makes no launch; a name several modules define
//! is the one of the module the load names (`&candle_kernels::QUANTIZED`).
//!
//! A name is dropped only where the manifest has the module the load names (or, without
//! one, the module of every other name of the family) and kernels of it: a manifest that
//! lacks the module altogether (a partial one a user gives) shrinks nothing, and the
//! attribute's error stays.

use occupancy_core::resources::manifest::{KernelName, Manifest};

/// What the names become.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Fit {
    /// Nothing to change (or nothing the manifest can tell).
    Same,
    /// The names to write in the key instead, and a note on what changed and why.
    Names(Vec<String>, String),
    /// No name of the family is in its module: every load fails, no launch is made; why.
    NoLaunch(String),
}

/// `kernels` (the names or globs of a launch's `kernel` key) against `manifest`; `module`:
/// the module the loads name ([`super::sites::Check::Attribute`]'s `module`), if any.
pub(super) fn fit(kernels: &[String], module: Option<&str>, manifest: &Manifest) -> Fit {
    let names = manifest.kernel_names();
    let matching = |written: &str| -> Vec<&KernelName<'_>> {
        names
            .iter()
            .filter(|k| {
                if occupancy_attr::is_glob(written) {
                    occupancy_attr::glob_match(written, k.display)
                } else {
                    k.display == written || k.qualified() == written
                }
            })
            .collect()
    };
    let has_module = |m: &str| names.iter().any(|k| k.qualifier == Some(m));
    // The loads' module: one the manifest lacks makes it partial, and nothing is dropped.
    let named = match module {
        Some(m) if !has_module(m) => return Fit::Same,
        other => other,
    };
    let mut kept: Vec<String> = Vec::new();
    let mut missing: Vec<&str> = Vec::new();
    let mut qualified: Vec<String> = Vec::new();
    // The modules of the names found.
    let mut found_in: Vec<Option<&str>> = Vec::new();
    for written in kernels {
        let found = matching(written);
        match found.as_slice() {
            [] => missing.push(written),
            // One name in several modules: the one of the module the loads name.
            [_, _, ..] if !occupancy_attr::is_glob(written) && !written.contains("::") => {
                match named.and_then(|m| found.iter().find(|k| k.qualifier == Some(m))) {
                    Some(k) => {
                        let q = k.qualified();
                        qualified.push(format!("`{written}` is `{q}`"));
                        found_in.push(k.qualifier);
                        kept.push(q);
                    }
                    None => return Fit::Same,
                }
            }
            _ => {
                found_in.extend(found.iter().map(|k| k.qualifier));
                kept.push(written.clone());
            }
        }
    }
    // The family's module: the loads', else the one module of every name found.
    found_in.sort();
    found_in.dedup();
    let family = named.or(match found_in.as_slice() {
        [Some(one)] => Some(*one),
        _ => None,
    });
    let Some(family) = family else {
        return Fit::Same;
    };
    // Every name found must be of that module, and a name alone (no other member found)
    // is dropped only on the module the loads name.
    if found_in.iter().any(|m| *m != Some(family)) || kept.is_empty() && named.is_none() {
        return Fit::Same;
    }
    let of_module = names.iter().filter(|k| k.qualifier == Some(family)).count();
    let list = |v: &[&str]| {
        v.iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let not_in = |v: &[&str]| {
        format!(
            "{} {} in the module `{family}` of the resource manifest ({of_module} kernels): \
             the load fails before the launch",
            list(v),
            if v.len() == 1 && !occupancy_attr::is_glob(v[0]) {
                "is not a kernel"
            } else {
                "names no kernel"
            }
        )
    };
    if kept.is_empty() {
        return Fit::NoLaunch(format!(
            "no launch is made: {}, on every path",
            not_in(&missing)
        ));
    }
    if missing.is_empty() && qualified.is_empty() {
        return Fit::Same;
    }
    let mut note = Vec::new();
    if !qualified.is_empty() {
        note.push(format!(
            "{}, the module the load names",
            qualified.join(", ")
        ));
    }
    if !missing.is_empty() {
        note.push(format!(
            "{}, so those paths make no launch",
            not_in(&missing)
        ));
    }
    if missing.is_empty() {
        return Fit::Names(kept, note.join("; "));
    }
    // The attribute checks that each path's kernel is one the key names: the names left out
    // stay in it, as alternatives of one pattern that the manifest's kernels match (the
    // paths loading the others launch nothing to check).
    let mut all: Vec<&str> = kernels.iter().map(String::as_str).collect();
    all.sort_unstable();
    if all.iter().any(|n| n.contains(['{', '}', ',', '*', '?'])) {
        return Fit::Same;
    }
    Fit::Names(vec![format!("{{{}}}", all.join(","))], note.join("; "))
}

/// The `kernel` key listing `kernels`.
pub(super) fn key(kernels: &[String]) -> String {
    match kernels {
        [one] => format!("kernel = {one:?}"),
        many => format!(
            "kernel = [{}]",
            many.iter()
                .map(|s| format!("{s:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A manifest of `(source, kernel)` pairs, each for sm_80.
    fn manifest(kernels: &[(Option<&str>, &str)]) -> Manifest {
        let entries: Vec<String> = kernels
            .iter()
            .map(|(source, name)| {
                let source = source.map_or(String::new(), |s| format!("\"source\":\"{s}\","));
                format!(
                    "{{{source}\"name\":\"{name}\",\"arch\":\"sm_80\",\"origin\":\"cubin\",\
                     \"registers_per_thread\":16,\"static_smem_bytes\":0,\"local_bytes\":0,\
                     \"spill_store_bytes\":0,\"spill_load_bytes\":0,\"barriers\":0}}"
                )
            })
            .collect();
        Manifest::from_json(&format!(
            "{{\"format\":1,\"sources\":[],\"kernels\":[{}]}}",
            entries.join(",")
        ))
        .unwrap()
    }

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_name_its_module_lacks_makes_no_launch_and_an_ambiguous_one_is_the_loads_module() {
        let m = manifest(&[
            (Some("src/fill.cu"), "fill_u8"),
            (Some("src/fill.cu"), "fill_f32"),
            (Some("src/copy.cu"), "copy_u8"),
            (Some("src/quant.cu"), "pack_q8"),
            (Some("src/moe.cu"), "pack_q8"),
            (None, "loose_a"),
        ]);
        // A family with members its module lacks: they stay in the key as alternatives of
        // one pattern, the note says their loads fail.
        let Fit::Names(kernels, note) = fit(
            &names(&["fill_f32", "fill_i16", "fill_u8"]),
            Some("fill"),
            &m,
        ) else {
            panic!("not fitted")
        };
        assert_eq!(kernels, ["{fill_f32,fill_i16,fill_u8}"]);
        assert!(
            note.starts_with("`fill_i16` is not a kernel in the module `fill`")
                && note.ends_with("so those paths make no launch"),
            "{note}"
        );
        // Without the loads' module: the module of the members found.
        assert!(matches!(
            fit(&names(&["fill_f32", "fill_i16"]), None, &m),
            Fit::Names(..)
        ));
        // One name its module lacks: no launch, whatever the path.
        let Fit::NoLaunch(why) = fit(&names(&["fill_i16"]), Some("fill"), &m) else {
            panic!("a launch")
        };
        assert!(why.starts_with("no launch is made: `fill_i16` is not a kernel"));
        // A glob that matches nothing of its module likewise.
        assert!(matches!(
            fit(&names(&["fill_{i16,i32}"]), Some("fill"), &m),
            Fit::NoLaunch(_)
        ));
        // A partial manifest shrinks nothing: a module it does not have, one name alone
        // without the loads' module, members found in two modules, members without one.
        for (kernels, module) in [
            (&["fill_f32", "fill_i16"][..], Some("cast")),
            (&["fill_i16"][..], None),
            (&["fill_f32", "copy_u8", "fill_i16"][..], None),
            (&["loose_a", "loose_b"][..], None),
            (&["absent_a", "absent_b"][..], None),
        ] {
            let got = fit(&names(kernels), module, &m);
            assert_eq!(got, Fit::Same, "{kernels:?} {module:?}");
        }
        // A name of several modules: the loads' module; without one, as written.
        let Fit::Names(kernels, note) = fit(&names(&["pack_q8"]), Some("quant"), &m) else {
            panic!("not qualified")
        };
        assert_eq!(kernels, ["quant::pack_q8"]);
        assert_eq!(
            note,
            "`pack_q8` is `quant::pack_q8`, the module the load names"
        );
        assert_eq!(fit(&names(&["pack_q8"]), None, &m), Fit::Same);
        assert_eq!(fit(&names(&["pack_q8"]), Some("fill"), &m), Fit::Same);
        assert_eq!(fit(&names(&["pack_q8"]), Some("absent"), &m), Fit::Same);
        // Every name there: nothing to change.
        assert_eq!(fit(&names(&["fill_u8"]), Some("fill"), &m), Fit::Same);
    }
}
