//! Names in the crate's sources: what a path written in the wrapper, a helper or a constant
//! names (a constant, a function, a module, a type, a primitive), through `use` imports,
//! globs, `crate::` / `super::` / `self::` paths, `Self::` and associated items; and how the
//! wrapper can write a name read inside a helper for the compiler to confirm it (its path
//! from the crate root, when visible from the wrapper's module).
//!
//! The sources are read through `source.rs`'s index, on the first name to resolve: a
//! wrapper whose launch is all literals never parses the crate.

use std::path::PathBuf;

pub(crate) use occupancy_read::names::{
    ConstDef, CrateId, Def, FnDef, ModuleId, Names, Place, Vis, seg, unique,
};

use super::ir::{IntTy, Path};

use crate::source::{Crate, Items};

/// Where the wrapper is: what [`Crate::locate`] needs to find it in the crate's sources.
pub(crate) struct Wrapper {
    pub(crate) package_dir: PathBuf,
    pub(crate) file: PathBuf,
    pub(crate) name: String,
    /// The signature's tokens, to tell apart functions of one name (made text only if the
    /// wrapper is located).
    pub(crate) signature: proc_macro2::TokenStream,
}

/// The crate's sources for one expansion, and the wrapper's place in them.
pub(crate) struct Resolver {
    /// The crate's sources, read on the first name to resolve: a wrapper whose launch is
    /// all literals never parses the crate (the first wrapper of a compilation would
    /// otherwise parse every file: 47 ms for a 200-function `lib.rs` at opt-level 0).
    krate: Option<Crate>,
    /// The wrapper to locate, until it is.
    pending: Option<Wrapper>,
    lib_name: Option<String>,
    /// The wrapper's module and `Self`, once located (the module also for what a helper's
    /// names may be written as).
    wrapper: Option<(ModuleId, Option<String>)>,
    /// Why the wrapper's module is not known, once located.
    location_note: Option<String>,
    /// The wrapper's file, and whether it is the one function of its name and signature
    /// there, once located.
    located_exactly: Option<PathBuf>,
    /// Items declared in the wrapper's body (`const BLOCK: u32 = 256;` inside it).
    pub(crate) body_items: Items,
    /// Why the last lookup found nothing, when a file or an import on the way could not be
    /// read (for the message).
    failure: Option<String>,
}

impl Resolver {
    /// A resolver for `wrapper` (`None`: no crate sources, literals only), in the library
    /// crate `lib_name`, with the items declared in the wrapper's body.
    pub(crate) fn new(
        wrapper: Option<Wrapper>,
        lib_name: Option<String>,
        body_items: Items,
    ) -> Self {
        Resolver {
            krate: None,
            pending: wrapper,
            lib_name,
            wrapper: None,
            location_note: None,
            located_exactly: None,
            body_items,
            failure: None,
        }
    }

    /// The name of the package's library crate, for messages.
    pub(crate) fn lib_name(&self) -> Option<&str> {
        self.lib_name.as_deref()
    }

    /// Reads the crate's sources and finds the wrapper there, the first time only.
    fn locate(&mut self) {
        let Some(w) = self.pending.take() else {
            return;
        };
        let (krate, location, exact) = Crate::locate(
            &w.package_dir,
            &w.file,
            self.lib_name.clone(),
            &w.name,
            &w.signature.to_string(),
        );
        if location.is_none() {
            self.location_note = Some(format!(
                "{} is not in the crate's module tree",
                crate::source::shown(&w.file)
            ));
        }
        if exact {
            self.located_exactly = Some(w.file);
        }
        self.krate = Some(krate);
        self.wrapper = location;
    }

    /// The scope the wrapper's confirmations may be shared in ([`occupancy_spec::Spec`]'s
    /// `shared_scope`): its file and module, when the sources were read (a name needed
    /// them), the wrapper is the one function of its name and signature in its file, and
    /// it is a free function (not in an `impl`). Whether its body declares items is the
    /// caller's to judge.
    pub(crate) fn shared_scope(&self) -> Option<String> {
        let file = self.located_exactly.as_ref()?;
        match &self.wrapper {
            Some((module, None)) => Some(format!("{} {}", file.display(), module.text(None))),
            _ => None,
        }
    }

    /// Why the wrapper's module is not known, if a name needed it and it is not.
    pub(crate) fn location_note(&self) -> Option<&str> {
        self.location_note.as_deref()
    }

    /// The wrapper's module, located on first use.
    pub(crate) fn wrapper_module(&mut self) -> Option<ModuleId> {
        self.locate();
        self.wrapper.as_ref().map(|(m, _)| m.clone())
    }

    /// The module stem of the one compiled-kernel file the wrapper's module embeds
    /// (`include_str!(concat!(env!("OUT_DIR"), "/conv2d.ptx"))`: `conv2d`), when it embeds
    /// exactly one: where a kernel's name is in several modules, the one of that file.
    pub(crate) fn embedded_module(&mut self) -> Option<String> {
        let module = self.wrapper_module()?;
        let (index, inline, _) = self.krate.as_mut()?.items(&module).ok()?;
        let mut stems = index.items.inline(&inline)?.artifacts.clone();
        stems.sort();
        stems.dedup();
        match stems.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    }

    /// The module and `Self` of `place` (the wrapper's, located on first use).
    pub(crate) fn place(&mut self, place: &Place) -> (Option<ModuleId>, Option<String>) {
        if place.at_wrapper {
            self.locate();
            return match &self.wrapper {
                Some((module, self_ty)) => (Some(module.clone()), self_ty.clone()),
                None => (None, None),
            };
        }
        (place.module.clone(), place.self_ty.clone())
    }

    /// The file of `module`, for messages.
    pub(crate) fn place_of(&mut self, module: &ModuleId) -> String {
        match self.krate.as_mut().map(|k| k.items(module)) {
            Some(Ok((_, _, file))) => crate::source::shown(&file),
            _ => module.text(None),
        }
    }

    /// Resolves a path of the crate (not a local).
    pub(crate) fn resolve(&mut self, path: &Path, place: &Place) -> Result<Def, String> {
        self.failure = None;
        let (module, self_ty) = self.place(place);
        let Some(module) = module else {
            return Err(format!(
                "`{}` is not a literal, and the crate's sources are not available here",
                path.text()
            ));
        };
        let names: Vec<String> = path.segments.iter().map(|s| s.ident.clone()).collect();
        let Some((last, prefix)) = names.split_last() else {
            return Err("an empty path".to_owned());
        };
        if prefix.is_empty() && !path.leading_colon {
            return self
                .lookup(&module, last, 0)
                .ok_or_else(|| self.not_found(last, &module));
        }
        // `Self::NAME`, `Type::NAME`, `u32::MAX`, `module::NAME`.
        let owner = if prefix == ["Self"] {
            match &self_ty {
                Some(ty) => Def::Type(module.clone(), ty.clone()),
                None => return Err("`Self` is not the type of an impl here".to_owned()),
            }
        } else {
            self.walk(&module, prefix, path.leading_colon, 0)?
        };
        match owner {
            Def::Module(m) => self
                .lookup(&m, last, 0)
                .ok_or_else(|| self.not_found(last, &m)),
            Def::Type(m, ty) => self.associated(&m, &ty, last, &module),
            Def::Primitive(ty) => match last.as_str() {
                // 2^128 - 1 is past the `i128` values the reader computes with (`max` caps it).
                "MAX" if ty == IntTy::U128 => {
                    Err("`u128::MAX` is past the values the reader computes with".to_owned())
                }
                "MAX" => Ok(Def::Builtin(ty.max(), ty)),
                "MIN" => Ok(Def::Builtin(ty.min(), ty)),
                "BITS" => Ok(Def::Builtin(i128::from(ty.bits()), IntTy::U32)),
                _ => Err(format!("`{}` is not a constant of {}", last, ty.name())),
            },
            Def::External(k) => Ok(Def::External(k)),
            _ => Err(format!(
                "`{}` does not name a module or type",
                prefix.join("::")
            )),
        }
    }

    fn not_found(&mut self, name: &str, module: &ModuleId) -> String {
        // A module or import on the way could not be read: that is why.
        if let Some(why) = self.failure.take() {
            return why;
        }
        // Defined, but in an item past the parser's limits.
        if let Some(Ok((index, _, file))) = self.krate.as_mut().map(|k| k.items(module))
            && let Some(why) = index.skipped(name)
        {
            return format!("{why} in {}", crate::source::shown(&file));
        }
        let place = self.place_of(module);
        format!(
            "`{name}` is not defined in {} ({place}) nor imported there",
            module.text(self.lib_name())
        )
    }

    /// Follows `prefix` (module and type names) from `module`.
    fn walk(
        &mut self,
        module: &ModuleId,
        prefix: &[String],
        leading: bool,
        depth: usize,
    ) -> Result<Def, String> {
        let mut current: Option<Def> = None;
        for (i, name) in prefix.iter().enumerate() {
            let next = match (&current, name.as_str()) {
                (None, _) if leading => Def::External(name.clone()),
                (None, "crate") => Def::Module(ModuleId {
                    krate: module.krate,
                    path: Vec::new(),
                }),
                (None, "self") => Def::Module(module.clone()),
                (None | Some(Def::Module(_)), "super") => {
                    let from = match &current {
                        Some(Def::Module(m)) => m.clone(),
                        _ => module.clone(),
                    };
                    Def::Module(from.parent().ok_or("`super` of the crate root")?)
                }
                (None, _) => match self.lookup(module, name, depth + 1) {
                    Some(def) => def,
                    None if self.lib_name() == Some(name.as_str()) => Def::Module(ModuleId {
                        krate: CrateId::PackageLib,
                        path: Vec::new(),
                    }),
                    None => match IntTy::from_name(name) {
                        Some(ty) => Def::Primitive(ty),
                        None => Def::External(name.clone()),
                    },
                },
                (Some(Def::Module(m)), _) => {
                    let m = m.clone();
                    self.lookup(&m, name, depth + 1)
                        .ok_or_else(|| self.not_found(name, &m))?
                }
                (Some(Def::External(k)), _) => Def::External(k.clone()),
                _ => {
                    return Err(format!(
                        "`{}` does not name a module",
                        prefix[..i].join("::")
                    ));
                }
            };
            current = Some(next);
        }
        current.ok_or_else(|| "an empty path".to_owned())
    }

    /// `name` in `module`: an item, a `use` binding, or an item reached through a glob.
    fn lookup(&mut self, module: &ModuleId, name: &str, depth: usize) -> Option<Def> {
        if depth > 16 {
            return None;
        }
        let (index, inline, _) = match self.krate.as_mut()?.items(module) {
            Ok(found) => found,
            Err(why) => {
                self.failure.get_or_insert(why);
                return None;
            }
        };
        let items = index.items.inline(&inline)?;
        if let Some(c) = unique(items.consts.iter().filter(|c| c.name == name)) {
            return Some(Def::Const(c.clone(), module.clone(), None));
        }
        if let Some(f) = unique(items.fns.iter().filter(|f| f.name == name)) {
            return Some(Def::Fn(f.clone(), module.clone(), None));
        }
        if items.types.iter().any(|t| t == name) {
            return Some(Def::Type(module.clone(), name.to_owned()));
        }
        if items.mods.iter().any(|m| m.name == name) {
            let mut path = module.path.clone();
            path.push(name.to_owned());
            return Some(Def::Module(ModuleId {
                krate: module.krate,
                path,
            }));
        }
        let uses = items.uses.clone();
        for u in uses.iter().filter(|u| u.binding.as_deref() == Some(name)) {
            match self.use_target(module, &u.path, u.leading_colon, depth + 1) {
                Ok(def) => return Some(def),
                Err(why) => {
                    self.failure.get_or_insert(why);
                }
            }
        }
        for u in uses.iter().filter(|u| u.binding.is_none()) {
            if let Ok(Def::Module(target)) = self.walk(module, &u.path, u.leading_colon, depth + 1)
                && target != *module
                && let Some(def) = self.lookup(&target, name, depth + 1)
            {
                return Some(def);
            }
        }
        None
    }

    /// What `use path;` in `module` imports.
    fn use_target(
        &mut self,
        module: &ModuleId,
        path: &[String],
        leading: bool,
        depth: usize,
    ) -> Result<Def, String> {
        let Some((last, prefix)) = path.split_last() else {
            return Err("an empty `use`".to_owned());
        };
        if prefix.is_empty() {
            return match last.as_str() {
                "crate" | "self" | "super" => self.walk(module, path, leading, depth),
                _ if leading => Ok(Def::External(last.clone())),
                _ => Ok(Def::External(last.clone())),
            };
        }
        match self.walk(module, prefix, leading, depth)? {
            Def::Module(m) => self
                .lookup(&m, last, depth + 1)
                .ok_or_else(|| self.not_found(last, &m)),
            Def::Type(m, ty) => self.associated(&m, &ty, last, module),
            Def::External(k) => Ok(Def::External(k)),
            _ => Err(format!("`use {}` is not read", path.join("::"))),
        }
    }

    /// The associated constant or function `name` of type `ty` defined in `module`: from the
    /// impls in that module and in the wrapper's module.
    fn associated(
        &mut self,
        module: &ModuleId,
        ty: &str,
        name: &str,
        from: &ModuleId,
    ) -> Result<Def, String> {
        let mut found: Vec<Def> = Vec::new();
        let mut places = vec![module.clone()];
        if from != module {
            places.push(from.clone());
        }
        if let Some(w) = self.wrapper_module()
            && !places.contains(&w)
        {
            places.push(w);
        }
        for place in places {
            let Some(krate) = self.krate.as_mut() else {
                break;
            };
            let Ok((index, inline, _)) = krate.items(&place) else {
                continue;
            };
            let Some(items) = index.items.inline(&inline) else {
                continue;
            };
            for imp in items.impls.iter().filter(|i| i.self_ty == ty) {
                for c in imp.consts.iter().filter(|c| c.name == name) {
                    found.push(Def::Const(c.clone(), place.clone(), Some(ty.to_owned())));
                }
                for f in imp.fns.iter().filter(|f| f.name == name) {
                    found.push(Def::Fn(f.clone(), place.clone(), Some(ty.to_owned())));
                }
            }
        }
        match found.len() {
            1 => Ok(found.remove(0)),
            0 => Err(format!(
                "no associated constant `{ty}::{name}` in the impls of `{ty}` in {}",
                module.text(self.lib_name())
            )),
            _ => Err(format!(
                "`{ty}::{name}` is defined in more than one impl (traits, or under #[cfg])"
            )),
        }
    }

    /// The path from the crate root of a constant used inside a helper, if the wrapper can
    /// name it there.
    pub(crate) fn root_path(
        &mut self,
        module: &ModuleId,
        self_ty: Option<&str>,
        def: &ConstDef,
    ) -> Result<Path, String> {
        self.nameable(module, &def.vis, &def.name)?;
        if let Some(ty) = self_ty {
            let generic = self.impl_is_generic(module, ty);
            if generic {
                return Err(format!(
                    "`{ty}::{}` is in a generic impl: the wrapper cannot name it without type arguments",
                    def.name
                ));
            }
        }
        Ok(self.module_path(module, self_ty, &def.name))
    }

    pub(crate) fn fn_root_path(
        &mut self,
        module: &ModuleId,
        self_ty: Option<&str>,
        def: &FnDef,
        written: &Path,
    ) -> Result<Path, String> {
        self.nameable(module, &def.vis, &def.name)?;
        if let Some(ty) = self_ty
            && self.impl_is_generic(module, ty)
        {
            return Err(format!("`{ty}::{}` is in a generic impl", def.name));
        }
        let mut path = self.module_path(module, self_ty, &def.name);
        if let (Some(last), Some(written_last)) =
            (path.segments.last_mut(), written.segments.last())
        {
            last.args = written_last.args.clone();
        }
        Ok(path)
    }

    pub(crate) fn impl_is_generic(&mut self, module: &ModuleId, ty: &str) -> bool {
        let Some(krate) = self.krate.as_mut() else {
            return true;
        };
        match krate.items(module) {
            Ok((index, inline, _)) => index
                .items
                .inline(&inline)
                .is_none_or(|items| items.impls.iter().any(|i| i.self_ty == ty && i.generic)),
            Err(_) => true,
        }
    }

    pub(crate) fn module_path(&self, module: &ModuleId, self_ty: Option<&str>, name: &str) -> Path {
        let mut segments = Vec::new();
        let leading_colon = module.krate == CrateId::PackageLib;
        match module.krate {
            // The wrapper's file read as a crate root of its own: named from the wrapper's
            // module, where the expansion is, up to the file's top.
            CrateId::Local if self.krate.as_ref().is_some_and(|k| k.detached) => {
                match self.wrapper.as_ref().map_or(0, |(m, _)| m.path.len()) {
                    0 => segments.push(seg("self")),
                    depth => segments.extend((0..depth).map(|_| seg("super"))),
                }
            }
            CrateId::Local => segments.push(seg("crate")),
            CrateId::PackageLib => segments.push(seg(self.lib_name().unwrap_or("crate"))),
        }
        segments.extend(module.path.iter().map(|m| seg(m)));
        if let Some(ty) = self_ty {
            segments.push(seg(ty));
        }
        segments.push(seg(name));
        Path {
            leading_colon,
            segments,
        }
    }

    /// Whether the wrapper's module can name an item declared with `vis` in `module` by its
    /// path from the crate root (every module on the way visible too).
    pub(crate) fn nameable(
        &mut self,
        module: &ModuleId,
        vis: &Vis,
        name: &str,
    ) -> Result<(), String> {
        let Some(from) = self.wrapper_module() else {
            return Err("the wrapper's module is not known".to_owned());
        };
        let private = || {
            format!(
                "`{name}` in {} is private there: the wrapper cannot name it for the compiler to \
                 confirm its value (make it `pub(crate)`, or give the value in the attribute)",
                module.text(None)
            )
        };
        if !visible(vis, module, &from) {
            return Err(private());
        }
        // Each module on the path: declared in its parent with some visibility.
        for depth in 1..=module.path.len() {
            let parent = ModuleId {
                krate: module.krate,
                path: module.path[..depth - 1].to_vec(),
            };
            let child = &module.path[depth - 1];
            let Some(krate) = self.krate.as_mut() else {
                return Err(private());
            };
            let Ok((index, inline, _)) = krate.items(&parent) else {
                return Err(private());
            };
            let vis = index
                .items
                .inline(&inline)
                .and_then(|items| items.mods.iter().find(|m| m.name == *child))
                .map(|m| m.vis.clone())
                .unwrap_or(Vis::Private);
            if !visible(&vis, &parent, &from) {
                return Err(format!(
                    "the module {} is private: the wrapper cannot name `{name}` in it for the \
                     compiler to confirm its value",
                    ModuleId {
                        krate: module.krate,
                        path: module.path[..depth].to_vec()
                    }
                    .text(None)
                ));
            }
        }
        Ok(())
    }
}

/// Whether `vis` on an item declared in `declared_in` lets `from` see it.
fn visible(vis: &Vis, declared_in: &ModuleId, from: &ModuleId) -> bool {
    if declared_in.krate != from.krate {
        return *vis == Vis::Pub;
    }
    match vis {
        Vis::Pub | Vis::Crate => true,
        Vis::Private => from.within(declared_in),
        Vis::Super => declared_in.parent().is_none_or(|p| from.within(&p)),
        Vis::In(path) => {
            let path: Vec<String> = path.iter().filter(|s| *s != "crate").cloned().collect();
            from.within(&ModuleId {
                krate: declared_in.krate,
                path,
            })
        }
    }
}

/// The interpreter's questions, answered from the crate's module tree.
impl Names for Resolver {
    fn body_consts(&self) -> &[ConstDef] {
        &self.body_items.consts
    }

    fn place(&mut self, place: &Place) -> (Option<ModuleId>, Option<String>) {
        Resolver::place(self, place)
    }

    fn place_of(&mut self, module: &ModuleId) -> String {
        Resolver::place_of(self, module)
    }

    fn resolve(&mut self, path: &Path, place: &Place) -> Result<Def, String> {
        Resolver::resolve(self, path, place)
    }

    fn lib_name(&self) -> Option<&str> {
        Resolver::lib_name(self)
    }

    fn root_path(
        &mut self,
        module: &ModuleId,
        self_ty: Option<&str>,
        def: &ConstDef,
    ) -> Result<Path, String> {
        Resolver::root_path(self, module, self_ty, def)
    }

    fn fn_root_path(
        &mut self,
        module: &ModuleId,
        self_ty: Option<&str>,
        def: &FnDef,
        written: &Path,
    ) -> Result<Path, String> {
        Resolver::fn_root_path(self, module, self_ty, def, written)
    }
}
