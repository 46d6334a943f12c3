//! Shared helpers for the front end's tests: the attribute of a function in a scratch
//! crate's sources, parsed as the proc macro parses it.
#![allow(dead_code)]

use std::path::Path;

use occupancy_attr::{Env, Spec, Wrapper, parse};

/// Parses the `#[..::check(..)]` attribute of the function `name` (at the top level of
/// `file`, or in an inline module) of the crate at `dir`, with that file as the wrapper's
/// source file. Errors as their messages.
pub fn spec_of(dir: &Path, file: &str, name: &str) -> Result<Spec, Vec<String>> {
    spec_of_launch(dir, file, name, None)
}

/// [`spec_of`], read for the launch call on line `launch_line` only (`Wrapper::launch_at`,
/// any column).
pub fn spec_of_launch(
    dir: &Path,
    file: &str,
    name: &str,
    launch_line: Option<usize>,
) -> Result<Spec, Vec<String>> {
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let syntax = syn::parse_file(&text).unwrap();
    let func = find(&syntax.items, name).unwrap_or_else(|| panic!("no fn {name}"));
    let attr = func
        .attrs
        .iter()
        .find(|a| a.path().segments.last().is_some_and(|s| s.ident == "check"))
        .expect("the attribute");
    let args = match &attr.meta {
        syn::Meta::List(list) => list.tokens.clone(),
        _ => proc_macro2::TokenStream::new(),
    };
    let env = Env::new(dir).with_source_file(&path);
    let wrapper = Wrapper {
        launch_at: launch_line.map(|line| occupancy_attr::LaunchAt { line, column: None }),
        ..Wrapper::new(&func.sig, &func.block)
    };
    parse(args, &wrapper, proc_macro2::Span::call_site(), &env)
        .map_err(|e| e.into_iter().map(|e| e.to_string()).collect())
}

/// The function `name` among `items`, inline modules included.
pub fn find<'a>(items: &'a [syn::Item], name: &str) -> Option<&'a syn::ItemFn> {
    items.iter().find_map(|item| match item {
        syn::Item::Fn(f) if f.sig.ident == name => Some(f),
        syn::Item::Mod(m) => m.content.as_ref().and_then(|(_, items)| find(items, name)),
        _ => None,
    })
}
