//! The body reader (`occupancy-attr/src/reader/`: the interpreter over the body, the
//! helpers it calls and the constants it names, paths, run-time sets, loops, the
//! attribute's candidates bound to run-time values) on arbitrary source text: the input is
//! a crate's `src/lib.rs`, optionally followed by a line `//--consts.rs--` and the text of
//! its `src/consts.rs` (brought in by `mod consts;` in the first part). Every function with
//! an `#[..check(..)]` attribute is given to `occupancy_attr::parse` as the proc macro gives
//! it (signature, body, the file), then evaluated and rendered as the macro and `report` do:
//! each plan with its kernel, notes and range, the diagnostics grouped as the macro groups them
//! (`Grouping::OnePerPlace`: over ranges, and over plans reported at one token).
//!
//! The files live in a scratch crate under the system's temporary folder, one per process,
//! rewritten for each input; the policy is the built-in one (no `occupancy.toml`), no
//! manifest (`kernel = ...` is an error), so nothing outside that folder is read.
#![no_main]

use std::path::PathBuf;
use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use occupancy_attr::{Env, Grouping, Wrapper};
use proc_macro2::{Span, TokenStream};

static CRATE: LazyLock<PathBuf> = LazyLock::new(|| {
    let dir = std::env::temp_dir().join(format!("occupancy-fuzz-body-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("src")).expect("a scratch crate");
    dir
});

const SPLIT: &str = "\n//--consts.rs--\n";

fn functions<'a>(items: &'a [syn::Item], out: &mut Vec<&'a syn::ItemFn>, depth: usize) {
    if depth > 16 {
        return;
    }
    for item in items {
        match item {
            syn::Item::Fn(f) => out.push(f),
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    functions(items, out, depth + 1);
                }
            }
            _ => {}
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (lib, consts) = text.split_once(SPLIT).unwrap_or((text, ""));
    let dir = &*CRATE;
    let lib_path = dir.join("src/lib.rs");
    if std::fs::write(&lib_path, lib).is_err() || std::fs::write(dir.join("src/consts.rs"), consts).is_err() {
        return;
    }
    // The file as `report` parses it: item by item within the limits (syn recurses).
    let Ok(source) = occupancy_attr::parse_source_file(lib, "lib.rs") else {
        return;
    };
    let file = source.syntax;
    let mut fns = Vec::new();
    functions(&file.items, &mut fns, 0);
    let env = Env::new(dir).with_source_file(&lib_path);
    for f in fns {
        let Some(attr) = f
            .attrs
            .iter()
            .find(|a| a.path().segments.last().is_some_and(|s| s.ident == "check"))
        else {
            continue;
        };
        let args = match &attr.meta {
            syn::Meta::List(list) => list.tokens.clone(),
            _ => TokenStream::new(),
        };
        let wrapper = Wrapper::new(&f.sig, &f.block);
        match occupancy_attr::parse(args, &wrapper, Span::call_site(), &env) {
            Ok(spec) => {
                for c in &spec.confirmations {
                    let _ = (c.expr.to_string(), &c.text, &c.what);
                }
                for h in &spec.helpers {
                    let _ = (h.written.to_string(), h.read.to_string());
                }
                let _ = spec.const_inputs();
                for (i, plan) in spec.plans.iter().enumerate() {
                    let _ = (plan.label.as_deref(), plan.origin.as_deref(), plan.kernel.as_deref());
                    let _ = (plan.notes.join("\n"), plan.range, spec.plan_kernels(i));
                }
                if let Some(evaluation) = spec.evaluate_grouped(Grouping::OnePerPlace) {
                    for d in &evaluation.diagnostics {
                        let _ = (spec.level(d.finding.lint), spec.span_of(d.finding.input, d.plan));
                        let _ = d.finding.to_string();
                    }
                }
            }
            Err(errors) => {
                let _ = errors.to_compile_error();
            }
        }
    }
});
