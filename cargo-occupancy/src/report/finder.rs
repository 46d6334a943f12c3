//! The attribute finder: every `#[occupancy::check]` of a file, under each name a `use`
//! binds it to and inside `cfg_attr`, with the `cfg` conditions around it.

use proc_macro2::{Span, TokenStream};
use syn::visit::Visit;
use syn::{Attribute, Meta, Signature, UseTree};

use super::walk::{cfgs, predicate_text, split_top_level};

/// One attribute found in a file.
#[derive(Clone)]
pub(super) struct Found {
    pub(super) line: usize,
    pub(super) args: TokenStream,
    pub(super) sig: Signature,
    /// The function's body (`None` for a trait method without a default).
    pub(super) body: Option<syn::Block>,
    pub(super) attribute: Span,
    /// The `cfg` and `cfg_attr` predicates it is under (see [`Finder::conditions`]).
    pub(super) conditions: Vec<String>,
    /// Read for this launch call only (`occupancy_attr::Wrapper::launch_at`): one launch of
    /// a function `--all` found making several.
    pub(super) launch_at: Option<occupancy_attr::LaunchAt>,
    /// The crate function its launches go through (`occupancy_attr::Wrapper::launch_helper`).
    pub(super) launch_helper: Option<(String, usize)>,
}

/// Walks a file for the attribute, with the names it goes by.
pub(super) struct Finder {
    /// Single-segment names bound to `occupancy::check` by `use`.
    pub(super) aliases: Vec<String>,
    /// The conditions around the item being visited: those of the `mod` declarations that
    /// bring the file in, then `cfg(...) on <item>` for each enclosing item with `#[cfg]`.
    pub(super) conditions: Vec<String>,
    pub(super) found: Vec<Found>,
}

impl Finder {
    pub(super) fn new(file: &syn::File, conditions: Vec<String>) -> Finder {
        let mut collector = Collector::default();
        collector.visit_file(file);
        Finder {
            aliases: collector.aliases,
            conditions,
            found: Vec::new(),
        }
    }

    fn is_check(&self, path: &syn::Path) -> bool {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        match segments.as_slice() {
            [a, b] => a == "occupancy" && b == "check",
            [one] => self.aliases.contains(one),
            _ => false,
        }
    }

    fn consider(&mut self, attrs: &[Attribute], sig: &Signature, body: Option<&syn::Block>) {
        for attr in attrs {
            if self.is_check(attr.path()) {
                let conditions = self.conditions.clone();
                self.push(&attr.meta, attr.pound_token.span, sig, body, conditions);
            } else if attr.path().is_ident("cfg_attr")
                && let Meta::List(list) = &attr.meta
            {
                let conditions = self.conditions.clone();
                self.cfg_attr(list.tokens.clone(), sig, body, conditions);
            }
        }
    }

    /// The attribute inside `cfg_attr(predicate, attr, ...)`, in nested `cfg_attr` too.
    fn cfg_attr(
        &mut self,
        tokens: TokenStream,
        sig: &Signature,
        body: Option<&syn::Block>,
        mut conditions: Vec<String>,
    ) {
        let mut pieces = split_top_level(tokens).into_iter();
        let Some(predicate) = pieces.next() else {
            return;
        };
        conditions.push(format!("cfg_attr({})", predicate_text(predicate)));
        for piece in pieces {
            let Ok(meta) = syn::parse2::<Meta>(piece) else {
                continue;
            };
            if self.is_check(meta.path()) {
                let path = meta.path();
                let at = match (&path.leading_colon, path.segments.first()) {
                    (Some(colons), _) => colons.spans[0],
                    (None, Some(first)) => first.ident.span(),
                    (None, None) => Span::call_site(),
                };
                self.push(&meta, at, sig, body, conditions.clone());
            } else if let Meta::List(list) = &meta
                && list.path.is_ident("cfg_attr")
            {
                self.cfg_attr(list.tokens.clone(), sig, body, conditions.clone());
            }
        }
    }

    fn push(
        &mut self,
        meta: &Meta,
        attribute: Span,
        sig: &Signature,
        body: Option<&syn::Block>,
        conditions: Vec<String>,
    ) {
        let args = match meta {
            Meta::List(list) => list.tokens.clone(),
            Meta::Path(_) => TokenStream::new(),
            // `#[occupancy::check = ...]`: not an attribute macro call; the parse reports it
            // as malformed arguments.
            Meta::NameValue(nv) => quote::quote!(= #nv),
        };
        self.found.push(Found {
            line: attribute.start().line,
            args,
            sig: sig.clone(),
            body: body.cloned(),
            attribute,
            conditions,
            launch_at: None,
            launch_helper: None,
        });
    }

    /// Visits an item with its `#[cfg(...)]` conditions added while inside.
    fn within(&mut self, attrs: &[Attribute], what: &str, visit: impl FnOnce(&mut Finder)) {
        let depth = self.conditions.len();
        self.conditions.extend(cfgs(attrs, what));
        visit(self);
        self.conditions.truncate(depth);
    }
}

impl<'ast> Visit<'ast> for Finder {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.within(&f.attrs, &format!("fn {}", f.sig.ident), |this| {
            this.consider(&f.attrs, &f.sig, Some(&f.block));
            syn::visit::visit_item_fn(this, f);
        });
    }
    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.within(&f.attrs, &format!("fn {}", f.sig.ident), |this| {
            this.consider(&f.attrs, &f.sig, Some(&f.block));
            syn::visit::visit_impl_item_fn(this, f);
        });
    }
    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        self.within(&f.attrs, &format!("fn {}", f.sig.ident), |this| {
            if let Some(body) = &f.default {
                this.consider(&f.attrs, &f.sig, Some(body));
            }
            syn::visit::visit_trait_item_fn(this, f);
        });
    }
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        self.within(&m.attrs, &format!("mod {}", m.ident), |this| {
            syn::visit::visit_item_mod(this, m);
        });
    }
    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let what = match &*i.self_ty {
            syn::Type::Path(p) => p
                .path
                .segments
                .last()
                .map_or_else(|| "impl".to_owned(), |s| format!("impl {}", s.ident)),
            _ => "impl".to_owned(),
        };
        self.within(&i.attrs, &what, |this| syn::visit::visit_item_impl(this, i));
    }
    fn visit_item_trait(&mut self, t: &'ast syn::ItemTrait) {
        self.within(&t.attrs, &format!("trait {}", t.ident), |this| {
            syn::visit::visit_item_trait(this, t);
        });
    }
}

/// First pass: `use` bindings of `occupancy::check`.
#[derive(Default)]
struct Collector {
    aliases: Vec<String>,
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        uses(&item.tree, &[], &mut self.aliases);
    }
}

/// Adds to `out` the names `tree` binds to `occupancy::check` (`prefix`: the path so far).
pub(crate) fn uses(tree: &UseTree, prefix: &[String], out: &mut Vec<String>) {
    let is_check = |prefix: &[String], last: &str| {
        prefix.len() == 1 && prefix[0] == "occupancy" && last == "check"
    };
    match tree {
        UseTree::Path(p) => {
            let mut next = prefix.to_vec();
            next.push(p.ident.to_string());
            uses(&p.tree, &next, out);
        }
        UseTree::Name(n) if is_check(prefix, &n.ident.to_string()) => out.push("check".into()),
        UseTree::Rename(r) if is_check(prefix, &r.ident.to_string()) => {
            out.push(r.rename.to_string());
        }
        UseTree::Glob(_) if prefix.len() == 1 && prefix[0] == "occupancy" => {
            out.push("check".into());
        }
        UseTree::Group(g) => {
            for tree in &g.items {
                uses(tree, prefix, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finder(text: &str) -> Finder {
        let file = syn::parse_file(text).unwrap();
        let mut finder = Finder::new(&file, Vec::new());
        finder.visit_file(&file);
        finder
    }

    #[test]
    fn finds_every_spelling_and_place() {
        let f = finder(
            r#"
            use occupancy::{check, lint};
            use occupancy::check as occ;
            mod inner {
                #[occupancy::check(block = 64, regs = 32)]
                fn nested() {}
            }
            #[check(block = 256, regs = 32)]
            fn free() {}
            #[occ(block = 128, regs = 32)]
            fn renamed() {}
            #[::occupancy::check(block = 32, regs = 32)]
            fn rooted() {}
            struct S;
            impl S {
                #[occupancy::check(block = 512, regs = 32)]
                fn method(&self) {}
            }
            trait T {
                #[occupancy::check(block = 96, regs = 32)]
                fn provided(&self) {}
                fn required(&self);
            }
            #[other::check(block = 1)]
            fn not_ours() {}
            #[inline]
            fn plain() {}
            "#,
        );
        let names: Vec<(String, usize)> = f
            .found
            .iter()
            .map(|w| (w.sig.ident.to_string(), w.line))
            .collect();
        assert_eq!(
            names,
            [
                ("nested".to_owned(), 5),
                ("free".to_owned(), 8),
                ("renamed".to_owned(), 10),
                ("rooted".to_owned(), 12),
                ("method".to_owned(), 16),
                ("provided".to_owned(), 20),
            ]
        );
        // Without a `use`, a bare `#[check]` is someone else's.
        assert!(finder("#[check(block = 1)] fn f() {}").found.is_empty());
        assert_eq!(
            finder("use occupancy::*; #[check] fn f() {}").found.len(),
            1
        );
    }

    #[test]
    fn finds_the_attribute_inside_cfg_attr() {
        let f = finder(
            r#"
            use occupancy::check as occ;
            #[cfg_attr(not(feature = "x"), occupancy::check(block = 64, regs = 32))]
            fn one() {}
            #[cfg_attr(any(unix, windows), inline, ::occupancy::check(block = 64), derive(Debug))]
            fn two() {}
            #[cfg_attr(all(), cfg_attr(feature = "y",
                occ(block = 64)))]
            fn three() {}
            #[cfg_attr(feature = "z", other::check(block = 1), check(block = 1))]
            fn not_ours() {}
            #[cfg(feature = "w")]
            impl S {
                #[cfg_attr(debug_assertions, occupancy::check(block = 64))]
                fn four(&self) {}
            }
            "#,
        );
        let found: Vec<(String, usize, String)> = f
            .found
            .iter()
            .map(|w| (w.sig.ident.to_string(), w.line, w.conditions.join(" & ")))
            .collect();
        let expected = [
            ("one", 3, r#"cfg_attr(not(feature = "x"))"#),
            ("two", 5, "cfg_attr(any(unix, windows))"),
            ("three", 8, r#"cfg_attr(all()) & cfg_attr(feature = "y")"#),
            (
                "four",
                14,
                r#"cfg(feature = "w") on impl S & cfg_attr(debug_assertions)"#,
            ),
        ]
        .map(|(n, l, c)| (n.to_owned(), l, c.to_owned()));
        assert_eq!(found, expected);
    }
}
