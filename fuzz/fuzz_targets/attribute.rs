//! The attribute's front end, `occupancy_attr::parse`, on arbitrary token text: the same
//! entry point the proc macro calls inside every `cargo build` (then what the macro does
//! with its answer: evaluate the lints, or read the spec for the constant-expression path,
//! or render the errors).
//!
//! The crate directory is `fuzz/seeds/attribute-crate` (a policy file, a resource manifest,
//! a cubin and a fatbin), and inputs whose string literals name a path outside it (absolute,
//! or with `..`) are skipped, so that the fuzzer never reads `/dev/zero` or other files.
#![no_main]

use std::path::PathBuf;
use std::str::FromStr;
use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use occupancy_attr::Env;
use proc_macro2::{Span, TokenStream, TokenTree};

thread_local! {
    // Tokens are not `Sync`: one signature per thread (libFuzzer runs one).
    static SIGNATURE: syn::Signature = syn::parse_str::<syn::ItemFn>("fn launch(n: u32) {}")
        .expect("a literal function")
        .sig;
}

static ENV: LazyLock<Env> = LazyLock::new(|| {
    Env::new(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("seeds/attribute-crate"))
});

/// Whether every string literal in `tokens` stays inside the crate directory.
fn paths_stay_inside(tokens: TokenStream) -> bool {
    tokens.into_iter().all(|tree| match tree {
        TokenTree::Group(g) => paths_stay_inside(g.stream()),
        TokenTree::Literal(lit) => match syn::parse_str::<syn::LitStr>(&lit.to_string()) {
            Ok(s) => {
                let value = s.value();
                !value.starts_with('/') && !value.contains("..")
            }
            Err(_) => true,
        },
        _ => true,
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(tokens) = TokenStream::from_str(text) else {
        return;
    };
    if !paths_stay_inside(tokens.clone()) {
        return;
    }
    let result = SIGNATURE.with(|sig| {
        occupancy_attr::parse(
            tokens,
            &occupancy_attr::Wrapper::signature(sig),
            Span::call_site(),
            &ENV,
        )
    });
    match result {
        Ok(spec) => {
            if let Some(source) = &spec.source {
                let _ = source.describe();
            }
            let _ = spec.const_inputs();
            for plan in &spec.plans {
                let _ = (plan.launch(), plan.grid_blocks());
            }
            for k in spec.kernel_indices() {
                for index in 0..spec.targets.len() {
                    let _ = (
                        spec.kernel(k, index),
                        spec.artifact(k, index),
                        spec.cluster(k, index),
                    );
                }
            }
            if let Some(evaluation) = spec.evaluate() {
                for d in &evaluation.diagnostics {
                    let _ = (
                        spec.level(d.finding.lint),
                        spec.span_of(d.finding.input, d.plan),
                    );
                    let _ = d.finding.to_string();
                }
            }
        }
        Err(errors) => {
            for e in errors.clone() {
                let _ = e.to_string();
            }
            let _ = errors.to_compile_error();
        }
    }
});
