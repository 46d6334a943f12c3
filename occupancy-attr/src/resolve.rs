//! Evaluating the integer expressions of a launch: constants from anywhere in the crate,
//! `const fn`s and launch helpers of the crate, arithmetic with Rust's checked semantics,
//! casts with Rust's truncation, and the arms of `if` / `match` as run-time candidates.
//!
//! A small total interpreter over the integer subset (clippy's `consts.rs` is the model):
//! every step is checked, and what it cannot evaluate is [`Val::Unknown`] with the reason,
//! never a guess. Each value it reads from a name carries a [`Term`]: an expression that
//! names the same value in the wrapper's scope, so that the expansion can have the compiler
//! confirm it (`const _: () = assert!(TERM == value)`).
//!
//! Values that depend on a run-time choice (`if n < 1024 { 32 } else { 1024 }`) are kept
//! per arm ([`Branch`]): each arm of each choice is a [`Pick`], and values from the same
//! choice are combined arm by arm, values from different choices in every combination.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::rc::Rc;

use crate::cexpr::{self, ConfigExpr, Expr, GenericArg, IntTy, Method, Op, Path, Segment};
use crate::source::{ConstDef, Crate, CrateId, FnDef, Items, ModuleId, Returns, Vis};

/// The most combinations of run-time choices one value keeps.
pub(crate) const MAX_BRANCHES: usize = 64;

/// The deepest nesting of names the evaluator follows (a constant naming a constant naming
/// ...), and of helper calls.
const MAX_DEPTH: usize = 48;

/// Steps (expression nodes) one expansion may evaluate.
const MAX_STEPS: usize = 200_000;

/// One arm of one run-time choice: (choice, arm).
pub(crate) type Pick = (u32, u16);

/// A value known now.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Known {
    pub(crate) value: i128,
    pub(crate) ty: Option<IntTy>,
    /// How the compiler can confirm it; `None` when it comes from literals alone.
    pub(crate) term: Option<Term>,
}

/// An expression the compiler evaluates to confirm a value read from names.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Term {
    /// Valid in the wrapper's body (paths as written there, or from the crate root).
    pub(crate) expr: Expr,
    /// It names `Self` or a generic parameter: it can only be evaluated in the body (an
    /// inline `const { }`), not in an item.
    pub(crate) in_body: bool,
    /// The names read, with where each was found (`TILE` = 16 in src/consts.rs).
    pub(crate) names: Vec<String>,
}

/// A value: an integer, a tuple, a launch configuration, or unknown (with the reason).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Val {
    Int(Known),
    Tuple(Vec<Val>),
    Config(Box<ConfigVal>),
    Unknown(String),
}

/// A launch configuration: `grid_dim`, `block_dim` (tuples of three), `shared_mem_bytes`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ConfigVal {
    pub(crate) grid: Val,
    pub(crate) block: Val,
    pub(crate) smem: Val,
    /// What built it: `LaunchConfig { .. }`, cudarc's `for_num_elems`, a helper.
    pub(crate) origin: Vec<String>,
    /// Helpers called on the way, for the compiler to confirm that the function read is the
    /// one called: (the path as written at the wrapper, the path from the crate root).
    pub(crate) helpers: Vec<(Path, Path)>,
}

/// One possible value and the arms of the run-time choices that lead to it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Branch {
    pub(crate) picks: Vec<Pick>,
    pub(crate) val: Val,
}

/// Every possible value of an expression (one branch when no run-time choice is involved).
pub(crate) type Eval = Vec<Branch>;

pub(crate) fn unknown(why: impl Into<String>) -> Eval {
    vec![Branch {
        picks: Vec::new(),
        val: Val::Unknown(why.into()),
    }]
}

fn single(val: Val) -> Eval {
    vec![Branch {
        picks: Vec::new(),
        val,
    }]
}

/// How names are written back in terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Terms {
    /// No terms (a constant's definition: the name that led there is confirmed instead).
    Off,
    /// As written: the expression is in the wrapper (its attribute or body).
    AsWritten,
    /// From the crate root: the expression is in a helper the wrapper calls.
    FromRoot,
}

/// A `let` binding: evaluated when a launch first uses it, in the scope it was bound in,
/// and then kept (so that a run-time choice it holds is one choice, wherever it is used).
pub(crate) struct Deferred {
    expr: Expr,
    /// The bindings before it.
    locals: usize,
    opaque: usize,
    value: RefCell<Option<Eval>>,
}

/// A binding's value.
#[derive(Clone)]
pub(crate) enum Local {
    Value(Eval),
    Deferred(Rc<Deferred>),
}

/// Where an expression is evaluated.
#[derive(Clone)]
pub(crate) struct Scope {
    /// The module whose names it sees; `None` without the crate's sources.
    pub(crate) module: Option<ModuleId>,
    /// The type `Self` names (the impl the wrapper or helper is in).
    pub(crate) self_ty: Option<String>,
    /// Bindings, innermost last: `let`s, a helper's parameters and const generics.
    pub(crate) locals: Vec<(String, Local)>,
    /// Names that are bound but not read (patterns, closure parameters, the wrapper's
    /// parameters and generics), with what each is. They shadow every `let` of the same
    /// name: the reader does not track their order, and "unknown" is safe where a wrong
    /// "known" would not be.
    pub(crate) opaque: Vec<(String, String)>,
    pub(crate) terms: Terms,
    /// The wrapper's own scope: `module` and `self_ty` are the wrapper's, which the
    /// resolver finds in the crate's sources on the first name to resolve.
    at_wrapper: bool,
}

impl Scope {
    pub(crate) fn new(module: Option<ModuleId>, self_ty: Option<String>, terms: Terms) -> Scope {
        Scope {
            module,
            self_ty,
            locals: Vec::new(),
            opaque: Vec::new(),
            terms,
            at_wrapper: false,
        }
    }

    /// The wrapper's scope, its module and `Self` found by the resolver when first needed
    /// ([`Resolver::new`]'s `wrapper`).
    pub(crate) fn at_wrapper(terms: Terms) -> Scope {
        Scope {
            at_wrapper: true,
            ..Scope::new(None, None, terms)
        }
    }

    /// Binds `name` to `expr`, evaluated on first use.
    pub(crate) fn bind_deferred(&mut self, name: String, expr: Expr) {
        let deferred = Deferred {
            expr,
            locals: self.locals.len(),
            opaque: self.opaque.len(),
            value: RefCell::new(None),
        };
        self.locals.push((name, Local::Deferred(Rc::new(deferred))));
    }

    fn bind(&mut self, name: String, value: Eval) {
        self.locals.push((name, Local::Value(value)));
    }

    /// This scope as it was when `deferred` was bound.
    fn before(&self, deferred: &Deferred) -> Scope {
        let mut scope = self.clone();
        scope.locals.truncate(deferred.locals);
        scope.opaque.truncate(deferred.opaque);
        scope
    }
}

/// What a path names.
#[derive(Clone, Debug)]
enum Def {
    Const(ConstDef, ModuleId, Option<String>),
    Fn(FnDef, ModuleId, Option<String>),
    Module(ModuleId),
    Type(ModuleId, String),
    Primitive(IntTy),
    /// `u32::MAX`, `usize::BITS`.
    Builtin(i128, IntTy),
    External(String),
}

/// Where the wrapper is: what [`Crate::locate`] needs to find it in the crate's sources.
pub(crate) struct Wrapper {
    pub(crate) package_dir: PathBuf,
    pub(crate) file: PathBuf,
    pub(crate) name: String,
    /// The signature's tokens, to tell apart functions of one name (made text only if the
    /// wrapper is located).
    pub(crate) signature: proc_macro2::TokenStream,
}

/// The evaluator for one expansion: the crate's sources, and guards on depth and work.
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
    /// Items declared in the wrapper's body (`const BLOCK: u32 = 256;` inside it).
    body_items: Items,
    stack: Vec<String>,
    steps: usize,
    next_choice: u32,
    /// Constants evaluated so far, by their path from the crate root.
    cache: HashMap<String, Result<Known, String>>,
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
            body_items,
            stack: Vec::new(),
            steps: 0,
            next_choice: 0,
            cache: HashMap::new(),
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
        let (krate, location) = Crate::locate(
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
        self.krate = Some(krate);
        self.wrapper = location;
    }

    /// Why the wrapper's module is not known, if a name needed it and it is not.
    pub(crate) fn location_note(&self) -> Option<&str> {
        self.location_note.as_deref()
    }

    /// The wrapper's module, located on first use.
    fn wrapper_module(&mut self) -> Option<ModuleId> {
        self.locate();
        self.wrapper.as_ref().map(|(m, _)| m.clone())
    }

    /// The module and `Self` of `scope` (the wrapper's, located on first use).
    fn place(&mut self, scope: &Scope) -> (Option<ModuleId>, Option<String>) {
        if scope.at_wrapper {
            self.locate();
            return match &self.wrapper {
                Some((module, self_ty)) => (Some(module.clone()), self_ty.clone()),
                None => (None, None),
            };
        }
        (scope.module.clone(), scope.self_ty.clone())
    }

    /// Evaluates `expr` in `scope`; integers that have no type of their own take `expected`.
    pub(crate) fn eval(&mut self, expr: &Expr, scope: &Scope, expected: Option<IntTy>) -> Eval {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return unknown(format!("the evaluation took more than {MAX_STEPS} steps"));
        }
        if self.stack.len() > MAX_DEPTH {
            return unknown(format!("names nest more than {MAX_DEPTH} deep"));
        }
        match expr {
            Expr::Int(value, ty) => single(int(*value, ty.or(expected), None, expr)),
            Expr::Path(path) => self.path(path, scope, expected),
            Expr::Neg(e) => {
                let e = self.eval(e, scope, expected);
                map(e, |v| unary(v, "-", |x| x.checked_neg(), Expr::Neg))
            }
            Expr::Not(e) => {
                let e = self.eval(e, scope, expected);
                map(e, |v| match v {
                    Val::Int(k) => match k.ty {
                        Some(ty) => unary(Val::Int(k), "!", |x| Some(ty.wrap(!x)), Expr::Not),
                        None => Val::Unknown("`!` on an integer of unknown type".to_owned()),
                    },
                    other => other,
                })
            }
            Expr::Binary(op, l, r) => {
                let l = self.eval(l, scope, expected);
                let rhs_expected = if matches!(op, Op::Shl | Op::Shr) {
                    None
                } else {
                    expected
                };
                let r = self.eval(r, scope, rhs_expected);
                combine(l, r, |a, b| binary(*op, a, b, expected))
            }
            Expr::Cast(e, ty) => {
                let e = self.eval(e, scope, None);
                map(e, |v| cast(v, *ty))
            }
            Expr::Method(receiver, method, args) => {
                let mut acc = map(self.eval(receiver, scope, expected), |v| {
                    Val::Tuple(vec![v])
                });
                for arg in args {
                    let arg_expected = if *method == Method::Pow {
                        Some(IntTy::U32)
                    } else {
                        expected
                    };
                    let a = self.eval(arg, scope, arg_expected);
                    acc = combine(acc, a, |t, a| match t {
                        Val::Tuple(mut v) => {
                            v.push(a);
                            Val::Tuple(v)
                        }
                        other => other,
                    });
                }
                map(acc, |t| match t {
                    Val::Tuple(v) => method_call(*method, v),
                    other => other,
                })
            }
            Expr::Call(path, args) => self.call(path, args, scope),
            Expr::Tuple(elems) => {
                let mut acc = single(Val::Tuple(Vec::new()));
                for e in elems {
                    let v = self.eval(e, scope, expected);
                    acc = combine(acc, v, |t, v| match t {
                        Val::Tuple(mut items) => {
                            items.push(v);
                            Val::Tuple(items)
                        }
                        other => other,
                    });
                }
                acc
            }
            Expr::Field(base, index) => {
                let base = self.eval(base, scope, expected);
                map(base, |v| match v {
                    Val::Tuple(mut items) if (*index as usize) < items.len() => {
                        items.swap_remove(*index as usize)
                    }
                    Val::Unknown(why) => Val::Unknown(why),
                    _ => Val::Unknown(format!("no field `.{index}` here")),
                })
            }
            Expr::Choice(arms) => {
                let choice = self.next_choice;
                self.next_choice += 1;
                let mut out = Vec::new();
                for (i, arm) in arms.iter().enumerate() {
                    for mut branch in self.eval(arm, scope, expected) {
                        branch.picks.push((choice, i as u16));
                        out.push(branch);
                    }
                    if out.len() > MAX_BRANCHES {
                        return unknown(format!(
                            "more than {MAX_BRANCHES} combinations of run-time choices"
                        ));
                    }
                }
                out
            }
            Expr::Block(lets, tail) => {
                let mut inner = scope.clone();
                for (name, value) in lets {
                    let v = self.eval(value, &inner, None);
                    inner.bind(name.clone(), v);
                }
                self.eval(tail, &inner, expected)
            }
            Expr::Config(config) => self.config(config, scope),
            Expr::Opaque(why) => unknown(why.clone()),
        }
    }

    fn config(&mut self, c: &ConfigExpr, scope: &Scope) -> Eval {
        let rest = c.rest.as_ref().map(|r| self.eval(r, scope, None));
        let field = |this: &mut Self,
                     value: &Option<Box<Expr>>,
                     pick: fn(&ConfigVal) -> Val,
                     name: &str| {
            match (value, &rest) {
                (Some(e), _) => this.eval(e, scope, Some(IntTy::U32)),
                (None, Some(rest)) => rest
                    .iter()
                    .map(|b| Branch {
                        picks: b.picks.clone(),
                        val: match &b.val {
                            Val::Config(c) => pick(c),
                            Val::Unknown(why) => Val::Unknown(why.clone()),
                            _ => Val::Unknown("`..base` that is not a LaunchConfig".to_owned()),
                        },
                    })
                    .collect(),
                (None, None) => unknown(format!("`{name}` is not given")),
            }
        };
        let grid = field(self, &c.grid, |c| c.grid.clone(), "grid_dim");
        let block = field(self, &c.block, |c| c.block.clone(), "block_dim");
        let smem = field(self, &c.smem, |c| c.smem.clone(), "shared_mem_bytes");
        let gb = combine(grid, block, |g, b| Val::Tuple(vec![g, b]));
        combine(gb, smem, |gb, s| match gb {
            Val::Tuple(mut v) if v.len() == 2 => {
                let block = v.pop().unwrap_or(Val::Unknown(String::new()));
                let grid = v.pop().unwrap_or(Val::Unknown(String::new()));
                Val::Config(Box::new(ConfigVal {
                    grid,
                    block,
                    smem: s,
                    origin: vec!["a `LaunchConfig { .. }` literal".to_owned()],
                    helpers: Vec::new(),
                }))
            }
            other => other,
        })
    }

    fn path(&mut self, path: &Path, scope: &Scope, expected: Option<IntTy>) -> Eval {
        if let Some(name) = path.single() {
            if let Some((_, what)) = scope.opaque.iter().rev().find(|(n, _)| n == name) {
                return unknown(format!("`{name}` is {what}"));
            }
            match scope.locals.iter().rev().find(|(n, _)| n == name) {
                Some((_, Local::Value(eval))) => return eval.clone(),
                Some((_, Local::Deferred(d))) => {
                    if let Some(eval) = d.value.borrow().as_ref() {
                        return eval.clone();
                    }
                    let eval = self.eval(&d.expr, &scope.before(d), expected);
                    *d.value.borrow_mut() = Some(eval.clone());
                    return eval;
                }
                None => {}
            }
        }
        // A constant declared in the wrapper's body.
        if let Some(name) = path.single()
            && scope.terms == Terms::AsWritten
            && let Some(def) = unique(self.body_items.consts.iter().filter(|c| c.name == name))
        {
            let def = def.clone();
            let (module, _) = self.place(scope);
            let known = self.const_value(&def, module, None, &format!("body::{name}"));
            return single(self.named(known, path, scope, "the wrapper's body"));
        }
        let def = match self.resolve(path, scope) {
            Ok(def) => def,
            Err(why) => return unknown(why),
        };
        match def {
            Def::Const(def, module, self_ty) => {
                let key = format!(
                    "{}::{}{}",
                    module.text(self.lib_name()),
                    self_ty
                        .as_deref()
                        .map_or(String::new(), |t| format!("{t}::")),
                    def.name
                );
                let place = self.place_of(&module);
                let known = self.const_value(&def, Some(module.clone()), self_ty.clone(), &key);
                let known = match (scope.terms, known) {
                    (Terms::FromRoot, Ok(k)) => {
                        match self.root_path(&module, self_ty.as_deref(), &def) {
                            Ok(root) => Ok(Known {
                                term: Some(Term {
                                    expr: Expr::Path(root),
                                    in_body: false,
                                    names: vec![format!("`{}` = {} in {place}", def.name, k.value)],
                                }),
                                ..k
                            }),
                            Err(why) => Err(why),
                        }
                    }
                    (_, known) => known,
                };
                if scope.terms == Terms::FromRoot {
                    return single(match known {
                        Ok(k) => Val::Int(k),
                        Err(why) => Val::Unknown(why),
                    });
                }
                single(self.named(known, path, scope, &place))
            }
            Def::Builtin(value, ty) => {
                // A fact of the language: `u32::MAX` names the same everywhere, unless a
                // crate item shadows `u32` (then the lookup found that item instead).
                let term = match scope.terms {
                    Terms::Off => None,
                    _ => Some(Term {
                        expr: Expr::Path(path.clone()),
                        in_body: false,
                        names: Vec::new(),
                    }),
                };
                single(Val::Int(Known {
                    value,
                    ty: Some(ty),
                    term,
                }))
            }
            Def::Primitive(_) | Def::Fn(..) | Def::Module(_) | Def::Type(..) => {
                unknown(format!("`{}` is not a constant", path.text()))
            }
            Def::External(krate) => unknown(format!(
                "`{}` is from the crate `{krate}`, whose sources are not read",
                path.text()
            )),
        }
    }

    /// A constant's value as a [`Val`], with the name as written as its term.
    fn named(&self, known: Result<Known, String>, path: &Path, scope: &Scope, place: &str) -> Val {
        match known {
            Ok(k) => {
                let term = match scope.terms {
                    Terms::Off => None,
                    _ => Some(Term {
                        expr: Expr::Path(path.clone()),
                        in_body: path.segments.first().is_some_and(|s| s.ident == "Self"),
                        names: vec![format!("`{}` = {} in {place}", path.text(), k.value)],
                    }),
                };
                Val::Int(Known { term, ..k })
            }
            Err(why) => Val::Unknown(why),
        }
    }

    fn place_of(&mut self, module: &ModuleId) -> String {
        match self.krate.as_mut().map(|k| k.items(module)) {
            Some(Ok((_, _, file))) => crate::source::shown(&file),
            _ => module.text(None),
        }
    }

    /// The value of a constant's definition, evaluated once per expansion.
    fn const_value(
        &mut self,
        def: &ConstDef,
        module: Option<ModuleId>,
        self_ty: Option<String>,
        key: &str,
    ) -> Result<Known, String> {
        if let Some(known) = self.cache.get(key) {
            return known.clone();
        }
        if self.stack.iter().any(|k| k == key) {
            return Err(format!("`{}` is defined in terms of itself", def.name));
        }
        // A definition under `#[cfg]` is used (a second one of the name would have made it
        // ambiguous); that its value may depend on the configuration is the compiler's
        // confirmation's to catch.
        let Some(ty) = def.ty else {
            return Err(format!(
                "`{}` is a `{}`, not an integer",
                def.name, def.ty_text
            ));
        };
        self.stack.push(key.to_owned());
        let scope = Scope::new(module, self_ty, Terms::Off);
        let eval = self.eval(&def.expr, &scope, Some(ty));
        self.stack.pop();
        let known = match eval.as_slice() {
            [
                Branch {
                    picks,
                    val: Val::Int(k),
                },
            ] if picks.is_empty() => {
                if k.value < ty.min() || k.value > ty.max() {
                    Err(format!(
                        "`{}` = {} does not fit its type {}",
                        def.name,
                        k.value,
                        ty.name()
                    ))
                } else {
                    Ok(Known {
                        value: k.value,
                        ty: Some(ty),
                        term: None,
                    })
                }
            }
            [
                Branch {
                    val: Val::Unknown(why),
                    ..
                },
            ] => Err(format!("`{}` could not be read: {why}", def.name)),
            _ => Err(format!("`{}` is not a single integer", def.name)),
        };
        self.cache.insert(key.to_owned(), known.clone());
        known
    }

    fn call(&mut self, path: &Path, args: &[Expr], scope: &Scope) -> Eval {
        let idents = path.idents();
        // cudarc's helper (0.5.1 to 0.19.x: 1024 threads, n.div_ceil(1024) blocks, 0 B).
        if idents.ends_with(&["LaunchConfig", "for_num_elems"]) && args.len() == 1 {
            let n = self.eval(&args[0], scope, Some(IntTy::U32));
            return map(n, |n| {
                let block = Val::Int(Known {
                    value: 1024,
                    ty: Some(IntTy::U32),
                    term: None,
                });
                let one = || {
                    Val::Int(Known {
                        value: 1,
                        ty: Some(IntTy::U32),
                        term: None,
                    })
                };
                let grid_x = method_call(Method::DivCeil, vec![n, block.clone()]);
                Val::Config(Box::new(ConfigVal {
                    grid: Val::Tuple(vec![grid_x, one(), one()]),
                    block: Val::Tuple(vec![block, one(), one()]),
                    smem: Val::Int(Known {
                        value: 0,
                        ty: Some(IntTy::U32),
                        term: None,
                    }),
                    origin: vec![
                        "cudarc's `LaunchConfig::for_num_elems` (1024 threads, 0 B)".to_owned(),
                    ],
                    helpers: Vec::new(),
                }))
            });
        }
        if matches!(idents.last(), Some(&("size_of" | "align_of"))) && args.is_empty() {
            let ty = path
                .segments
                .last()
                .and_then(|s| s.args.first())
                .map(|a| a.text.replace(' ', ""));
            let user_fn = self
                .resolve(path, scope)
                .ok()
                .filter(|d| matches!(d, Def::Fn(..)));
            if user_fn.is_none() && ty.as_deref().and_then(primitive_size).is_none() {
                return unknown(format!(
                    "`{}()` is the size of a type other than a primitive, which the reader does \
                     not compute",
                    path.text()
                ));
            }
            if user_fn.is_none()
                && let Some(size) = ty.as_deref().and_then(primitive_size)
            {
                let term = match scope.terms {
                    Terms::Off => None,
                    Terms::AsWritten => Some(Term {
                        expr: Expr::Call(path.clone(), Vec::new()),
                        in_body: false,
                        names: Vec::new(),
                    }),
                    Terms::FromRoot => Some(Term {
                        expr: Expr::Call(core_mem(path), Vec::new()),
                        in_body: false,
                        names: Vec::new(),
                    }),
                };
                return single(Val::Int(Known {
                    value: size,
                    ty: Some(IntTy::Usize),
                    term,
                }));
            }
        }
        let def = match self.resolve(path, scope) {
            Ok(Def::Fn(def, module, self_ty)) => (def, module, self_ty),
            Ok(Def::External(krate)) => {
                return unknown(format!(
                    "`{}` is a function of the crate `{krate}`, whose sources are not read",
                    path.text()
                ));
            }
            Ok(_) => return unknown(format!("`{}` is not a function", path.text())),
            Err(why) => return unknown(why),
        };
        let (def, module, self_ty) = def;
        if def.params.len() != args.len() {
            return unknown(format!(
                "`{}` takes {} arguments, given {}",
                def.name,
                def.params.len(),
                args.len()
            ));
        }
        let key = format!("{}::{}", module.text(self.lib_name()), def.name);
        if self.stack.contains(&key) {
            return unknown(format!("`{}` calls itself", def.name));
        }
        // Const generics (from the turbofish) and arguments, evaluated in the caller's
        // scope, bound in the callee's.
        let turbofish: &[GenericArg] = path.segments.last().map_or(&[], |s| &s.args);
        let explicit = turbofish.len() == def.generics.len();
        let mut inner = Scope::new(Some(module.clone()), self_ty.clone(), Terms::Off);
        for (i, param) in def.generics.iter().enumerate() {
            let Some(name) = param else { continue };
            let value = match (explicit, turbofish.get(i).and_then(|a| a.value.as_ref())) {
                (true, Some(e)) => self.eval(e, scope, None),
                _ => unknown(format!(
                    "the const generic `{name}` of `{}` is inferred",
                    def.name
                )),
            };
            inner.bind(name.clone(), value);
        }
        let arg_values: Vec<Eval> = args.iter().map(|a| self.eval(a, scope, None)).collect();
        for (param, value) in def.params.iter().zip(&arg_values) {
            if let Some(name) = param {
                inner.bind(name.clone(), value.clone());
            }
        }
        match def.returns {
            Returns::Int(ty) if def.is_const => {
                self.stack.push(key);
                let result = self.eval(&def.body, &inner, Some(ty));
                self.stack.pop();
                if scope.terms == Terms::Off {
                    return map(result, |v| match v {
                        Val::Int(k) => Val::Int(Known {
                            ty: Some(ty),
                            term: None,
                            ..k
                        }),
                        other => other,
                    });
                }
                // A `const fn` call is a constant expression itself: the call, with each
                // argument's term (or value), confirms the result.
                let callee = match scope.terms {
                    Terms::FromRoot => {
                        match self.fn_root_path(&module, self_ty.as_deref(), &def, path) {
                            Ok(p) => p,
                            Err(why) => return unknown(why),
                        }
                    }
                    _ => path.clone(),
                };
                let place = module.text(self.lib_name());
                result
                    .into_iter()
                    .map(|branch| {
                        const_fn_branch(branch, &arg_values, &callee, &def.name, &place, ty)
                    })
                    .collect()
            }
            Returns::Config => {
                if scope.terms == Terms::Off {
                    return unknown(format!("`{}` builds a LaunchConfig", def.name));
                }
                inner.terms = Terms::FromRoot;
                let root = self.fn_root_path(&module, self_ty.as_deref(), &def, path);
                self.stack.push(key);
                let result = self.eval(&def.body, &inner, None);
                self.stack.pop();
                let place = module.text(self.lib_name());
                map(result, |v| match v {
                    Val::Config(mut c) => match &root {
                        Ok(root) => {
                            c.origin
                                .push(format!("the helper `{}` in {place}", def.name));
                            c.helpers.push((path.clone(), root.clone()));
                            Val::Config(c)
                        }
                        Err(why) => Val::Unknown(why.clone()),
                    },
                    Val::Unknown(why) => {
                        Val::Unknown(format!("in the helper `{}`: {why}", def.name))
                    }
                    _ => Val::Unknown(format!("`{}` does not end in a LaunchConfig", def.name)),
                })
            }
            _ => unknown(format!(
                "`{}` is not a `const fn` returning an integer",
                def.name
            )),
        }
    }

    /// Resolves a path of the crate (not a local).
    fn resolve(&mut self, path: &Path, scope: &Scope) -> Result<Def, String> {
        self.failure = None;
        let (module, self_ty) = self.place(scope);
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
    fn root_path(
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

    fn fn_root_path(
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

    fn impl_is_generic(&mut self, module: &ModuleId, ty: &str) -> bool {
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

    fn module_path(&self, module: &ModuleId, self_ty: Option<&str>, name: &str) -> Path {
        let mut segments = Vec::new();
        let leading_colon = module.krate == CrateId::PackageLib;
        match module.krate {
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
    fn nameable(&mut self, module: &ModuleId, vis: &Vis, name: &str) -> Result<(), String> {
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

/// One branch of a `const fn`'s result, with the call (each argument's term or value, in
/// the same picks) as its term.
fn const_fn_branch(
    branch: Branch,
    args: &[Eval],
    callee: &Path,
    name: &str,
    place: &str,
    ty: IntTy,
) -> Branch {
    let Val::Int(k) = &branch.val else {
        return branch;
    };
    let mut terms = Vec::new();
    let mut parts = Vec::new();
    for value in args {
        match value
            .iter()
            .find(|b| compatible(&b.picks, &branch.picks))
            .map(|b| &b.val)
        {
            Some(Val::Int(a)) => {
                terms.push(written(a));
                parts.push(a);
            }
            _ => {
                return Branch {
                    picks: branch.picks.clone(),
                    val: Val::Unknown(format!("an argument of `{name}` is not an integer")),
                };
            }
        }
    }
    let mut names: Vec<String> = parts
        .iter()
        .filter_map(|a| a.term.as_ref())
        .flat_map(|t| t.names.clone())
        .collect();
    names.push(format!("`{name}(..)` = {} in {place}", k.value));
    let in_body = callee.segments.first().is_some_and(|s| s.ident == "Self")
        || parts
            .iter()
            .any(|a| a.term.as_ref().is_some_and(|t| t.in_body));
    Branch {
        picks: branch.picks.clone(),
        val: Val::Int(Known {
            value: k.value,
            ty: Some(ty),
            term: Some(Term {
                expr: Expr::Call(callee.clone(), terms),
                in_body,
                names,
            }),
        }),
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

fn seg(name: &str) -> Segment {
    Segment {
        ident: name.to_owned(),
        args: Vec::new(),
    }
}

/// `::core::mem::size_of::<T>` for a call written `size_of::<T>` in a helper.
fn core_mem(path: &Path) -> Path {
    let last = path
        .segments
        .last()
        .cloned()
        .unwrap_or_else(|| seg("size_of"));
    Path {
        leading_colon: true,
        segments: vec![seg("core"), seg("mem"), last],
    }
}

fn unique<'a, T>(mut items: impl Iterator<Item = &'a T>) -> Option<&'a T> {
    let first = items.next()?;
    items.next().is_none().then_some(first)
}

/// Sizes of the primitive types, bytes (`usize` and `isize` as on the 64-bit hosts CUDA
/// runs on; the compiler's confirmation would catch another).
fn primitive_size(ty: &str) -> Option<i128> {
    Some(match ty {
        "u8" | "i8" | "bool" => 1,
        "u16" | "i16" | "f16" => 2,
        "u32" | "i32" | "f32" | "char" => 4,
        "u64" | "i64" | "f64" | "usize" | "isize" => 8,
        "u128" | "i128" | "f128" => 16,
        _ => return None,
    })
}

/// Whether two sets of picks can hold together (no choice with two different arms).
pub(crate) fn compatible(a: &[Pick], b: &[Pick]) -> bool {
    a.iter()
        .all(|(c, arm)| b.iter().all(|(c2, arm2)| c != c2 || arm == arm2))
}

fn merged(a: &[Pick], b: &[Pick]) -> Vec<Pick> {
    let mut out = a.to_vec();
    for p in b {
        if !out.contains(p) {
            out.push(*p);
        }
    }
    out
}

pub(crate) fn map(eval: Eval, mut f: impl FnMut(Val) -> Val) -> Eval {
    eval.into_iter()
        .map(|b| Branch {
            picks: b.picks,
            val: f(b.val),
        })
        .collect()
}

/// Every compatible pair of branches of `a` and `b`, combined by `f`.
pub(crate) fn combine(a: Eval, b: Eval, mut f: impl FnMut(Val, Val) -> Val) -> Eval {
    let mut out = Vec::new();
    for x in &a {
        for y in &b {
            if compatible(&x.picks, &y.picks) {
                out.push(Branch {
                    picks: merged(&x.picks, &y.picks),
                    val: f(x.val.clone(), y.val.clone()),
                });
                if out.len() > MAX_BRANCHES {
                    return unknown(format!(
                        "more than {MAX_BRANCHES} combinations of run-time choices"
                    ));
                }
            }
        }
    }
    out
}

/// The expression that writes a known value back: its term, else the literal.
pub(crate) fn written(k: &Known) -> Expr {
    match &k.term {
        Some(t) => t.expr.clone(),
        None => Expr::Int(k.value, k.ty),
    }
}

fn term_of(parts: &[&Known], expr: Expr) -> Option<Term> {
    if parts.iter().all(|k| k.term.is_none()) {
        return None;
    }
    let mut names = Vec::new();
    for k in parts {
        if let Some(t) = &k.term {
            for n in &t.names {
                if !names.contains(n) {
                    names.push(n.clone());
                }
            }
        }
    }
    Some(Term {
        expr,
        in_body: parts
            .iter()
            .any(|k| k.term.as_ref().is_some_and(|t| t.in_body)),
        names,
    })
}

fn int(value: i128, ty: Option<IntTy>, term: Option<Term>, expr: &Expr) -> Val {
    if let Some(ty) = ty
        && (value < ty.min() || value > ty.max())
    {
        let shown = cexpr::tokens(expr, proc_macro2::Span::call_site())
            .map_or_else(|| value.to_string(), |t| t.to_string());
        return Val::Unknown(format!("`{shown}` does not fit {}", ty.name()));
    }
    Val::Int(Known { value, ty, term })
}

fn unary(
    v: Val,
    symbol: &str,
    f: impl Fn(i128) -> Option<i128>,
    wrap: fn(Box<Expr>) -> Expr,
) -> Val {
    match v {
        Val::Int(k) => match f(k.value) {
            Some(value) => {
                let expr = wrap(Box::new(written(&k)));
                let term = term_of(&[&k], expr.clone());
                int(value, k.ty, term, &expr)
            }
            None => Val::Unknown(format!("`{symbol}{}` overflows", k.value)),
        },
        Val::Unknown(why) => Val::Unknown(why),
        _ => Val::Unknown(format!("`{symbol}` on a tuple")),
    }
}

fn binary(op: Op, a: Val, b: Val, expected: Option<IntTy>) -> Val {
    let (l, r) = match (a, b) {
        (Val::Int(l), Val::Int(r)) => (l, r),
        (Val::Unknown(why), _) | (_, Val::Unknown(why)) => return Val::Unknown(why),
        _ => return Val::Unknown(format!("`{}` on a tuple", op.symbol())),
    };
    let shift = matches!(op, Op::Shl | Op::Shr);
    let ty = if shift {
        l.ty.or(expected)
    } else {
        l.ty.or(r.ty).or(expected)
    };
    if !shift
        && let (Some(a), Some(b)) = (l.ty, r.ty)
        && a != b
    {
        return Val::Unknown(format!(
            "`{}` between a {} and a {} (mismatched types)",
            op.symbol(),
            a.name(),
            b.name()
        ));
    }
    let expr = Expr::Binary(op, Box::new(written(&l)), Box::new(written(&r)));
    let overflow = || {
        let shown = cexpr::tokens(
            &Expr::Binary(
                op,
                Box::new(Expr::Int(l.value, None)),
                Box::new(Expr::Int(r.value, None)),
            ),
            proc_macro2::Span::call_site(),
        )
        .map_or_else(String::new, |t| t.to_string().replace(['(', ')'], ""));
        Val::Unknown(format!(
            "`{shown}` overflows{}",
            ty.map_or(String::new(), |t| format!(" {}", t.name()))
        ))
    };
    let (x, y) = (l.value, r.value);
    let value = match op {
        Op::Add => x.checked_add(y),
        Op::Sub => x.checked_sub(y),
        Op::Mul => x.checked_mul(y),
        Op::Div if y == 0 => return Val::Unknown("division by zero".to_owned()),
        Op::Rem if y == 0 => return Val::Unknown("remainder by zero".to_owned()),
        Op::Div => x.checked_div(y),
        Op::Rem => x.checked_rem(y),
        Op::Shl | Op::Shr => {
            let bits = ty.map_or(128, IntTy::bits);
            if y < 0 || y >= i128::from(bits) {
                return overflow();
            }
            if op == Op::Shr {
                Some(x >> y)
            } else {
                // Rust's `<<` drops the bits shifted out (no overflow check on them).
                Some(ty.map_or(x.checked_shl(y as u32).unwrap_or(0), |t| t.wrap(x << y)))
            }
        }
        Op::BitAnd => Some(x & y),
        Op::BitOr => Some(x | y),
        Op::BitXor => Some(x ^ y),
    };
    let Some(value) = value else {
        return overflow();
    };
    if let Some(t) = ty
        && (value < t.min() || value > t.max())
    {
        return overflow();
    }
    let term = term_of(&[&l, &r], expr.clone());
    int(value, ty, term, &expr)
}

fn cast(v: Val, ty: IntTy) -> Val {
    match v {
        Val::Int(k) => {
            let expr = Expr::Cast(Box::new(written(&k)), ty);
            let term = term_of(&[&k], expr.clone());
            Val::Int(Known {
                value: ty.wrap(k.value),
                ty: Some(ty),
                term,
            })
        }
        other => other,
    }
}

fn method_call(method: Method, mut v: Vec<Val>) -> Val {
    if let Some(pos) = v.iter().position(|x| matches!(x, Val::Unknown(_)))
        && let Val::Unknown(why) = v.swap_remove(pos)
    {
        return Val::Unknown(why);
    }
    let ints: Vec<Known> = v
        .into_iter()
        .filter_map(|x| match x {
            Val::Int(k) => Some(k),
            _ => None,
        })
        .collect();
    if ints.len() != method.arity() + 1 {
        return Val::Unknown(format!("`.{}` on a tuple", method.name()));
    }
    let receiver = &ints[0];
    let ty = receiver
        .ty
        .or_else(|| ints.iter().skip(1).find_map(|k| k.ty));
    let x = receiver.value;
    let arg = |i: usize| ints[i].value;
    let value = match method {
        Method::DivCeil => {
            let d = arg(1);
            if d == 0 {
                return Val::Unknown("`div_ceil` by zero".to_owned());
            }
            if x < 0 || d < 0 {
                return Val::Unknown("`div_ceil` of a negative number".to_owned());
            }
            Some(x / d + i128::from(x % d != 0))
        }
        Method::Min => Some(x.min(arg(1))),
        Method::Max => Some(x.max(arg(1))),
        Method::Clamp => {
            if arg(1) > arg(2) {
                return Val::Unknown("`clamp` with min > max (a panic)".to_owned());
            }
            Some(x.clamp(arg(1), arg(2)))
        }
        Method::NextPowerOfTwo => {
            if x < 0 {
                return Val::Unknown("`next_power_of_two` of a negative number".to_owned());
            }
            u128::try_from(x)
                .ok()
                .and_then(u128::checked_next_power_of_two)
                .and_then(|p| i128::try_from(p).ok())
        }
        Method::Pow => u32::try_from(arg(1)).ok().and_then(|e| x.checked_pow(e)),
    };
    let expr = Expr::Method(
        Box::new(written(receiver)),
        method,
        ints.iter().skip(1).map(written).collect(),
    );
    let Some(value) = value else {
        return Val::Unknown(format!("`.{}` overflows", method.name()));
    };
    let parts: Vec<&Known> = ints.iter().collect();
    let term = term_of(&parts, expr.clone());
    int(value, ty, term, &expr)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval_text(text: &str) -> Eval {
        let expr = cexpr::lower(&syn::parse_str(text).unwrap());
        let mut r = Resolver::new(None, None, Items::default());
        r.eval(
            &expr,
            &Scope::new(None, None, Terms::AsWritten),
            Some(IntTy::U32),
        )
    }

    fn values(eval: &Eval) -> Vec<Result<i128, String>> {
        eval.iter()
            .map(|b| match &b.val {
                Val::Int(k) => Ok(k.value),
                Val::Unknown(why) => Err(why.clone()),
                other => Err(format!("{other:?}")),
            })
            .collect()
    }

    #[test]
    fn arithmetic_with_rust_semantics() {
        assert_eq!(values(&eval_text("2 * 128 + 1")), [Ok(257)]);
        assert_eq!(values(&eval_text("1000u32.div_ceil(256)")), [Ok(4)]);
        assert_eq!(values(&eval_text("(300u32 as u8) as u32")), [Ok(44)]);
        assert_eq!(
            values(&eval_text("700u32.next_power_of_two().min(1024)")),
            [Ok(1024)]
        );
        assert_eq!(values(&eval_text("2u32.pow(10)")), [Ok(1024)]);
        assert_eq!(
            values(&eval_text("4000000000u32 * 2")),
            [Err("`4000000000 * 2` overflows u32".to_owned())]
        );
        assert_eq!(
            values(&eval_text("3u32 - 4")),
            [Err("`3 - 4` overflows u32".to_owned())]
        );
        assert_eq!(
            values(&eval_text("5 / 0")),
            [Err("division by zero".to_owned())]
        );
        assert_eq!(
            values(&eval_text("1u8 + 1u16")),
            [Err(
                "`+` between a u8 and a u16 (mismatched types)".to_owned()
            )]
        );
    }

    #[test]
    fn choices_keep_their_arms_together() {
        // The same choice on both sides: two values, not four.
        let e = eval_text("{ let b = if n < 1024 { 32 } else { 1024 }; b * 4 + b }");
        assert_eq!(values(&e), [Ok(160), Ok(5120)]);
        // Two choices: every combination.
        let e = eval_text("(if a { 1 } else { 2 }) + (if b { 10 } else { 20 })");
        assert_eq!(values(&e), [Ok(11), Ok(21), Ok(12), Ok(22)]);
        let e = eval_text("match d { A => 256, B => 128, _ => 64 }");
        assert_eq!(values(&e), [Ok(256), Ok(128), Ok(64)]);
    }

    #[test]
    fn literals_need_no_confirmation_names_do() {
        let e = eval_text("64 * 4");
        let Val::Int(k) = &e[0].val else { panic!() };
        assert!(k.term.is_none());
        // Without the crate's sources a name is unknown, with the reason.
        assert_eq!(
            values(&eval_text("TILE * 4")),
            [Err(
                "`TILE` is not a literal, and the crate's sources are not available here"
                    .to_owned()
            )]
        );
    }

    #[test]
    fn cudarc_for_num_elems() {
        let e = eval_text("LaunchConfig::for_num_elems(10_000)");
        let Val::Config(c) = &e[0].val else {
            panic!("{e:?}")
        };
        let Val::Tuple(block) = &c.block else {
            panic!()
        };
        assert_eq!(
            block[0],
            Val::Int(Known {
                value: 1024,
                ty: Some(IntTy::U32),
                term: None
            })
        );
        let Val::Tuple(grid) = &c.grid else { panic!() };
        assert!(matches!(&grid[0], Val::Int(Known { value: 10, .. })));
    }
}
