//! The name helpers of a crate's dependencies (`candle::cuda_backend::kernel_name`, which
//! candle-nn calls to name its kernels), read where `cargo metadata` resolves the
//! dependency to sources on this machine: only the file of the module the path names, only
//! that function, and the string methods its body calls (`DType::as_str`), from the files of
//! the dependency that define a method of that name. Nothing else of a dependency is read.

use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// The most bytes of one dependency file read, and the most files of a dependency searched
/// for a string method.
const MAX_FILE_BYTES: u64 = 4 << 20;
const MAX_FILES: usize = 4096;

/// A crate's dependencies, resolved on first use.
pub(super) struct Dependencies {
    crate_dir: PathBuf,
    /// The name each dependency goes by in the crate's code -> its library's root file.
    libraries: OnceCell<BTreeMap<String, PathBuf>>,
}

impl Dependencies {
    /// The dependencies of the package in `crate_dir` (nothing is run yet).
    pub(super) fn new(crate_dir: &Path) -> Self {
        Dependencies {
            crate_dir: crate_dir.to_path_buf(),
            libraries: OnceCell::new(),
        }
    }

    /// The function `path` names (`["candle", "cuda_backend", "kernel_name"]`: the
    /// dependency as the crate calls it, its modules, the function), with the impls of the
    /// string methods its body calls, as one file of items; `None` when the dependency is not
    /// resolved or the module's file does not define that function at its top level.
    pub(super) fn helper(&self, path: &[String]) -> Option<syn::File> {
        let [dependency, modules @ .., name] = path else {
            return None;
        };
        let root = self
            .libraries
            .get_or_init(|| libraries(&self.crate_dir))
            .get(dependency)?;
        let file = module_file(root, modules)?;
        let function = parse(&file)?
            .items
            .into_iter()
            .find_map(|item| match item {
                syn::Item::Fn(f) if f.sig.ident == name => Some(f),
                _ => None,
            })?;
        let mut items = vec![syn::Item::Fn(function.clone())];
        let mut methods = Methods(Vec::new());
        methods.visit_item_fn(&function);
        for method in methods.0 {
            items.extend(string_methods(root.parent()?, &method));
        }
        let mut file: syn::File = syn::parse_quote!();
        file.items = items;
        Some(file)
    }
}

/// `cargo metadata` of the package in `crate_dir`, offline: each dependency's name in the
/// code (a rename's, `-` as `_`) -> its library's root file. Empty when it cannot run.
fn libraries(crate_dir: &Path) -> BTreeMap<String, PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--offline",
            "--manifest-path",
        ])
        .arg(crate_dir.join("Cargo.toml"))
        .stderr(std::process::Stdio::null())
        .output();
    let Some(output) = output.ok().filter(|o| o.status.success()) else {
        return BTreeMap::new();
    };
    let Ok(json) = serde_json::from_slice::<serde_json::Value>(&output.stdout) else {
        return BTreeMap::new();
    };
    let manifest = crate_dir.join("Cargo.toml");
    let packages = json["packages"].as_array().cloned().unwrap_or_default();
    let Some(root) = packages
        .iter()
        .find(|p| p["manifest_path"].as_str().map(Path::new) == Some(manifest.as_path()))
        .and_then(|p| p["id"].as_str())
    else {
        return BTreeMap::new();
    };
    let lib_of = |id: &str| {
        let package = packages.iter().find(|p| p["id"].as_str() == Some(id))?;
        package["targets"].as_array()?.iter().find_map(|t| {
            let kinds = t["kind"].as_array()?;
            let lib = kinds.iter().any(|k| k.as_str() == Some("lib"));
            t["src_path"].as_str().filter(|_| lib).map(PathBuf::from)
        })
    };
    let mut out = BTreeMap::new();
    let nodes = json["resolve"]["nodes"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if let Some(node) = nodes.iter().find(|n| n["id"].as_str() == Some(root)) {
        for dep in node["deps"].as_array().into_iter().flatten() {
            if let (Some(name), Some(lib)) =
                (dep["name"].as_str(), dep["pkg"].as_str().and_then(lib_of))
            {
                out.insert(name.to_owned(), lib);
            }
        }
    }
    out
}

/// The file of the module `modules` below the library root file `root` (`src/lib.rs`):
/// `src/a/b.rs` or `src/a/b/mod.rs` for `a::b`; the root itself for none.
fn module_file(root: &Path, modules: &[String]) -> Option<PathBuf> {
    let mut dir = root.parent()?.to_path_buf();
    let mut file = root.to_path_buf();
    for m in modules {
        let flat = dir.join(format!("{m}.rs"));
        let nested = dir.join(m).join("mod.rs");
        file = if flat.is_file() {
            flat
        } else if nested.is_file() {
            nested
        } else {
            return None;
        };
        dir = dir.join(m);
    }
    Some(file)
}

/// `file` parsed, when it is a readable source of at most [`MAX_FILE_BYTES`].
fn parse(file: &Path) -> Option<syn::File> {
    if std::fs::metadata(file).ok()?.len() > MAX_FILE_BYTES {
        return None;
    }
    let text = std::fs::read_to_string(file).ok()?;
    let shown = file.to_string_lossy();
    occupancy_attr::parse_source_file(&text, &shown)
        .ok()
        .map(|s| s.syntax)
}

/// The methods called without arguments in a body (`T::DTYPE.as_str()`: `as_str`).
struct Methods(Vec<String>);

impl<'ast> Visit<'ast> for Methods {
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let name = m.method.to_string();
        if m.args.is_empty() && !self.0.contains(&name) {
            self.0.push(name);
        }
        syn::visit::visit_expr_method_call(self, m);
    }
}

/// The impls, at the top level of the `.rs` files under `src` whose text defines
/// `fn {method}`, reduced to their methods of that name.
fn string_methods(src: &Path, method: &str) -> Vec<syn::Item> {
    let needle = format!("fn {method}(");
    let mut out = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    let mut seen = 0;
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        entries.sort();
        for path in entries {
            seen += 1;
            if seen > MAX_FILES {
                return out;
            }
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs")
                || std::fs::metadata(&path).map_or(true, |m| m.len() > MAX_FILE_BYTES)
                || !std::fs::read_to_string(&path).is_ok_and(|t| t.contains(&needle))
            {
                continue;
            }
            for item in parse(&path).map(|f| f.items).unwrap_or_default() {
                let syn::Item::Impl(mut imp) = item else {
                    continue;
                };
                imp.items
                    .retain(|i| matches!(i, syn::ImplItem::Fn(f) if f.sig.ident == method));
                if !imp.items.is_empty() {
                    out.push(syn::Item::Impl(imp));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_only_the_named_function_and_the_string_methods_it_calls() {
        let dir = std::env::temp_dir().join(format!("occupancy-deps-{}", std::process::id()));
        let src = dir.join("src");
        std::fs::create_dir_all(src.join("backend")).unwrap();
        let write = |path: &str, text: &str| std::fs::write(src.join(path), text).unwrap();
        write(
            "lib.rs",
            "pub mod backend;\npub mod dtype;\npub fn top() -> u32 { 1 }\n",
        );
        write(
            "backend/mod.rs",
            "pub fn kernel_name<T: WithDType>(root: &str) -> String {\n\
             let dtype = T::DTYPE.as_str();\n format!(\"{root}_{dtype}\")\n}\n\
             pub fn unrelated() -> u32 { 2 }\n\
             mod inner { pub fn nested() -> String { String::new() } }\n",
        );
        write(
            "dtype.rs",
            "impl DType {\n pub fn as_str(&self) -> &'static str { match self { Self::F32 => \"f32\" } }\n\
             pub fn size(&self) -> usize { 4 }\n}\n\
             impl Other { pub fn size(&self) -> usize { 8 } }\n",
        );
        let deps = Dependencies {
            crate_dir: dir.clone(),
            libraries: OnceCell::from(BTreeMap::from([(
                "basecrate".to_owned(),
                src.join("lib.rs"),
            )])),
        };
        let path = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let file = deps
            .helper(&path(&["basecrate", "backend", "kernel_name"]))
            .unwrap();
        let text = quote::quote!(#file).to_string();
        // The function, and of the impls only `as_str`.
        assert!(text.contains("fn kernel_name"), "{text}");
        assert!(text.contains("fn as_str"), "{text}");
        assert!(
            !text.contains("fn size") && !text.contains("unrelated"),
            "{text}"
        );
        // A function of the root module; none in a nested module, nor an unknown module,
        // dependency or function.
        assert!(deps.helper(&path(&["basecrate", "top"])).is_some());
        for missing in [
            &["basecrate", "backend", "nested"][..],
            &["basecrate", "nowhere", "kernel_name"],
            &["other", "backend", "kernel_name"],
            &["basecrate", "backend", "absent"],
            &["basecrate"],
        ] {
            assert!(deps.helper(&path(missing)).is_none(), "{missing:?}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
