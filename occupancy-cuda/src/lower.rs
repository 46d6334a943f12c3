//! The C++ front end's lowering: a host function's body, as tree-sitter parses it, to the
//! reading core's IR ([`occupancy_read::ir`]), the way the Rust front end lowers syn's
//! (issue 25, stage 3 of docs/READING-CORE.md: built beside `interp.rs`, which still reads
//! every launch, and measured on real code by [`crate::lowering_census`]).
//!
//! What is lowered: blocks, declarations of integers (`int`, `unsigned`, `size_t`, the
//! `<cstdint>` types: each C++ type as the Rust integer type of its width and signedness on
//! LP64), of `dim3` (a tuple of three, missing dimensions 1; `dim3 grid(blocks)` too, which
//! tree-sitter parses as a function's declaration) and of anything else (`auto`, pointers:
//! an untyped `let`); assignments, compound assignments and `++`/`--`; `if`, `switch` (a
//! labelled block around a `match`, whose arms run on into the next case as C++ does until
//! a `break`), `for`, `while`, `do` (a `continue` runs the `for`'s update or the `do`'s
//! test first), `return`, `break`, `continue`; integer literals with C++'s types, strings
//! (their text not kept), names, `::` paths and template arguments, the arithmetic,
//! comparison and logical operators (a condition that is not a comparison is compared with
//! 0, as C++ converts it to `bool`), `~x` (as `x ^ -1`), `?:`, `sizeof` and `alignof` of
//! built-in types and of the unit's plain structs and unions (`layout.rs`: laid out member
//! by member, an array's count the constant as written), casts
//! to integer types (C casts, `static_cast`), `min`/`max` (`std::` or not), calls (a
//! device attribute query as the attribute's value: [`DEVICE_ATTRIBUTE`]; a field of a
//! `cudaDeviceProp` that `cudaGetDeviceProperties` filled as the target's:
//! [`DEVICE_PROPERTY`]), `&n` (`n` lent
//! mutably: unknown after the call it is given to), `rest...` of a function parameter pack
//! ([`ir::Expr::Spread`]), members,
//! lambdas without parameters called in place (a labelled block their `return` leaves), and
//! `<<<grid, block, smem, stream>>>` launches ([`ir::CustLaunch`]: an integer grid or
//! block is `(n, 1, 1)`; the kernel's template arguments, written or deduced), types where
//! a value may be (template arguments, `sizeof` of a template's type parameter: `types.rs`),
//! `cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, n)`
//! ([`ir::Expr::OptIn`]), and an element of a `static` local array of zeros read before
//! any assignment to one as zero (its first call's value).
//!
//! The unit's macros are expanded where they are invoked (`M(args);` and `M;` as
//! statements, also where the grammar could not parse a statement of invocations; `M(args)`
//! and `M` in an expression), their text parsed and lowered at the invocation's line: an
//! object-like macro in an expression is its value (`BLOCK` of `#define BLOCK 256` is
//! `256`), as the preprocessor makes it. At most [`MAX_EXPANDED_BYTES`] per function. An
//! `if` chain continued by invocations whose expansions begin with `else` (`if (false) {}
//! CALL_IF(4) CALL_IF(8) else { .. }`) is one chain (`Lower::macro_chain`).
//!
//! Everything else is [`Expr::Opaque`] (a statement: [`Expr::Havoc`] of the names it may
//! write), each listed in [`Lowered::not_lowered`] with its line: floating-point values,
//! the size of a struct not laid out (or of a type no template parameter names), pointers and subscripts, other
//! lambdas, `goto`, `try`. A `#if` inside a body is the branch the build compiles (the
//! unit's decider), or, undecided, each written branch under a condition no reading knows.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use occupancy_core::abstract_int::Comparison;
use occupancy_read::ir::{
    self, Arm, Block, CustLaunch, Expr, GenericArg, If, IntTy, Let, Loop, LoopKind, Match, Op, Pat,
    Segment, Stmt,
};

use crate::index::{At, Function, Index, Taken, chosen, preproc_branches};
use crate::macros::{Expander, Macro, paren_list};
use crate::preproc::Decider;
use crate::syntax::Code;
use crate::syntax::{Field, Kind};

/// The first segment of the path a device attribute query is lowered to
/// (`cudaDeviceGetAttribute::cudaDevAttrWarpSize`), which the unit's names answer per target.
pub(crate) const DEVICE_ATTRIBUTE: &str = "cudaDeviceGetAttribute";

/// The first segment of the path a field of a `cudaDeviceProp` that
/// `cudaGetDeviceProperties(&prop, dev)` filled is lowered to
/// (`cudaGetDeviceProperties::warpSize`), which the unit's names answer per target.
pub(crate) const DEVICE_PROPERTY: &str = "cudaGetDeviceProperties";

/// The name the null pointer constant (`NULL` where the files do not define it, `nullptr`)
/// is lowered to: no C++ name, so no name of the files meets it. The unit's names answer it
/// as a kernel pointer that designates no kernel, and a path that launches it makes no
/// launch (a launch of a null function pointer fails with `cudaErrorInvalidDeviceFunction`).
pub(crate) const NULL_KERNEL: &str = "(null)";

/// The deepest syntax lowered; deeper is opaque (as [`ir::MAX_DEPTH`] for the Rust side).
const MAX_DEPTH: usize = ir::MAX_DEPTH;

/// The most bytes the macro invocations of one function may expand to, together; past it an
/// invocation is opaque. Each expansion is also bounded by the expander
/// (`macros::MAX_EXPANSION_BYTES`); this bounds a body of many.
const MAX_EXPANDED_BYTES: usize = 1 << 20;

/// An invocation of a macro (its name and arguments) and what it expands to, or why not.
type Expansion = (String, Option<String>, Result<Rc<str>, String>);

/// A function's body lowered.
pub(crate) struct Lowered {
    /// The body.
    pub(crate) body: Block,
    /// Where each [`ir::At`] of the body is (the file as shown, and the line), by its index.
    pub(crate) places: Vec<(String, u32)>,
    /// What was not lowered: the line and what it is (a node kind or a construct).
    pub(crate) not_lowered: Vec<(u32, String)>,
    /// The `<<<...>>>` launches written inside what was not lowered.
    pub(crate) hidden_launches: usize,
    /// Each launch lowered ([`ir::CustLaunch::at`]) as written: its form, its kernel and
    /// the function it is written in, as the check lists a launch site.
    pub(crate) launches: Vec<(ir::At, LaunchWritten)>,
    /// What the build is told was not read, as the interpreter tells it: a macro invocation
    /// that cannot be expanded, a `<<<...>>>` launch with fewer than 2 arguments.
    pub(crate) notes: Vec<crate::ReadNote>,
}

/// A launch as written, what the check's [`crate::CudaLaunch`] names a site by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LaunchWritten {
    /// How it is written.
    pub(crate) form: crate::LaunchForm,
    /// Its kernel as written (the casts around a `cudaLaunchKernel`'s left out).
    pub(crate) kernel: String,
    /// The host function it is written in, qualified (`ns::run`).
    pub(crate) function: String,
    /// The candidates of its `// occupancy:` comments for run-time values
    /// ([`crate::choices::site_candidates`]), or the line of one that cannot be read and
    /// why.
    pub(crate) candidates: Result<occupancy_core::policy::LaunchCandidates, (u32, String)>,
    /// How a `<<<...>>>` launch writes its block and its dynamic shared memory, for the
    /// reason a value is known only at run time ([`crate::choices::written_origin`]; none
    /// for the runtime API's forms, as the interpreter gives none).
    pub(crate) origins: [Option<String>; 2],
    /// Why the reading core cannot read this launch whole, where it cannot (launch
    /// attributes it does not read yet): it is listed and not checked.
    pub(crate) unread: Option<String>,
    /// The thread-block cluster of a `cudaLaunchKernelEx`, blocks x, y, z, where its
    /// attributes give one in literals ([`cluster_of`]).
    pub(crate) cluster: Option<[u32; 3]>,
}

/// What a lowering reads of its translation unit: the index (macros, structs, aliases) and
/// the decider of the `#if`s inside what it lowers (`None`: each branch is a configuration
/// some build makes).
#[derive(Clone, Copy)]
pub(crate) struct Unit<'m> {
    pub(crate) index: &'m Index<'m>,
    pub(crate) decider: Option<&'m Decider<'m>>,
}

/// Lowers the body of `f` (its parameters of type `dim3` known as such), the unit's
/// macros (`index.macros`) expanded where they are invoked.
pub(crate) fn function(f: &Function<'_>, unit: Unit<'_>) -> Lowered {
    function_at(f, unit, 0)
}

/// [`function`], its [`ir::At`]s numbered from `base` (so that the bodies of a root and the
/// functions it calls index one table of places).
pub(crate) fn function_at(f: &Function<'_>, unit: Unit<'_>, base: u32) -> Lowered {
    let mut lower = Lower::new(unit);
    lower.base = base;
    lower.function = f.qualified.clone();
    lower.params = f.params.iter().map(|p| p.name.clone()).collect();
    lower.body_text = f.body.text().to_owned();
    lower.type_params.extend(
        f.template
            .iter()
            .filter(|t| t.is_type && !t.pack)
            .map(|t| t.name.clone()),
    );
    for p in &f.params {
        if let Some(ty) = p.ty_node {
            let ty = lower.type_expr(ty, 0);
            lower
                .declared
                .insert(p.name.clone(), (ty, p.pointers, p.is_const));
        }
    }
    lower.dim3.extend(
        f.params
            .iter()
            .filter(|p| p.pointers == 0 && is_dim3(&p.ty))
            .map(|p| p.name.clone()),
    );
    let body = lower.block(f.body, 0);
    Lowered {
        body,
        places: lower.places,
        not_lowered: lower.not_lowered,
        hidden_launches: lower.hidden_launches,
        launches: lower.launches,
        notes: lower.notes,
    }
}

/// Lowers the expression `e` (a constant's initialiser) with the unit's macros.
pub(crate) fn expression(e: At<'_>, unit: Unit<'_>) -> Expr {
    Lower::new(unit).expr(e, 0)
}

/// Lowers the type `t` (a template type parameter's default) as a value
/// ([`Expr::Type`]).
pub(crate) fn type_default(t: At<'_>, unit: Unit<'_>) -> Expr {
    Expr::Type(Box::new(Lower::new(unit).type_expr(t, 0)))
}

impl<'m> Lower<'m> {
    fn new(unit: Unit<'m>) -> Lower<'m> {
        Lower {
            unit,
            places: Vec::new(),
            base: 0,
            not_lowered: Vec::new(),
            hidden_launches: 0,
            dim3: HashSet::new(),
            targets: Vec::new(),
            switches: 0,
            lambdas: Vec::new(),
            lambda_count: 0,
            macros: &unit.index.macros,
            expanded_bytes: 0,
            last_expansion: None,
            type_params: HashSet::new(),
            declared: HashMap::new(),
            static_zeros: HashMap::new(),
            invoked: None,
            device_props: HashSet::new(),
            function: String::new(),
            params: HashSet::new(),
            body_text: String::new(),
            launches: Vec::new(),
            notes: Vec::new(),
        }
    }
}

/// The Rust integer type of a C++ integer type's name on LP64 (nvcc on Linux): `int` is
/// `i32`, `long` and `size_t` 64 bits, `char` signed (`None`: not an integer type, `bool`
/// included). Qualifiers and `std::` are ignored.
pub(crate) fn int_type(name: &str) -> Option<IntTy> {
    let words: Vec<&str> = name
        .split_whitespace()
        .filter(|w| {
            !matches!(
                *w,
                "const" | "constexpr" | "static" | "volatile" | "inline" | "register"
            )
        })
        .collect();
    let name = words.join(" ");
    Some(match name.trim_start_matches("std::") {
        "char" | "signed char" | "int8_t" => IntTy::I8,
        "unsigned char" | "uint8_t" => IntTy::U8,
        "short" | "short int" | "signed short" | "int16_t" => IntTy::I16,
        "unsigned short" | "unsigned short int" | "uint16_t" => IntTy::U16,
        "int" | "signed" | "signed int" | "int32_t" => IntTy::I32,
        "unsigned" | "unsigned int" | "uint32_t" | "uint" => IntTy::U32,
        "long" | "long int" | "long long" | "long long int" | "int64_t" | "ptrdiff_t"
        | "ssize_t" | "intptr_t" | "index_t" => IntTy::I64,
        "unsigned long"
        | "unsigned long int"
        | "unsigned long long"
        | "unsigned long long int"
        | "size_t"
        | "uint64_t"
        | "uintptr_t" => IntTy::U64,
        _ => return None,
    })
}

/// The `<<<...>>>` launches written under `at` (at most [`MAX_DEPTH`] deep).
pub(crate) fn chevrons_written(at: At<'_>) -> usize {
    let mut count = 0;
    let mut stack = vec![(at, 0)];
    while let Some((n, depth)) = stack.pop() {
        count += usize::from(n.kind() == Some(Kind::KernelCallSyntax));
        if depth < MAX_DEPTH {
            stack.extend(n.children().into_iter().map(|c| (c, depth + 1)));
        }
    }
    count
}

fn is_dim3(ty: &str) -> bool {
    ty.split_whitespace().any(|w| w == "dim3" || w == "::dim3")
}

/// Where a `break` or `continue` goes, innermost last.
#[derive(Clone)]
enum Target {
    /// A `for` loop: a `continue` runs its update first.
    For(Option<Expr>),
    /// A `while` loop.
    While,
    /// A `do` loop: a `continue` tests its condition first (`!condition`).
    Do(Expr),
    /// A `switch`: a `break` leaves the block of this label.
    Switch(u32),
}

struct Lower<'m> {
    /// The file and line of each [`ir::At`] given out, by its index (the table a C++
    /// location is found in, as the Rust front end's spans).
    places: Vec<(String, u32)>,
    /// The number of the first [`ir::At`] given out.
    base: u32,
    not_lowered: Vec<(u32, String)>,
    hidden_launches: usize,
    /// Names declared `dim3` (parameters and locals of the function; a name declared again
    /// with another type stays in, which can only make a launch's dimensions a tuple where
    /// they were a name).
    dim3: HashSet<String>,
    targets: Vec<Target>,
    switches: u32,
    /// The lambdas called in place being lowered, innermost last (a `return` leaves the
    /// innermost), and how many were.
    lambdas: Vec<u32>,
    lambda_count: u32,
    /// The unit's index and `#if` decider (its structs for `sizeof`).
    unit: Unit<'m>,
    /// The unit's macros, expanded where they are invoked.
    macros: &'m HashMap<String, Vec<Macro>>,
    /// The bytes the function's macro invocations expanded to so far
    /// ([`MAX_EXPANDED_BYTES`]).
    expanded_bytes: usize,
    /// The last invocation expanded and its expansion (an invocation after an `if` is
    /// expanded to see whether it continues the chain, [`Lower::else_case`], and, where it
    /// does not, again to be lowered: once).
    last_expansion: Option<Expansion>,
    /// The function's template type parameters (`T` of `template <typename T>`): types a
    /// reading binds per instantiation.
    type_params: HashSet<String>,
    /// The declared type of each parameter and local variable lowered so far (`const float*
    /// x`: `float`, 1 pointer, `const`), from which a call deduces its callee's template
    /// type arguments ([`Lower::deduce_call`]).
    declared: HashMap<String, types::Declared>,
    /// `static` local arrays initialised to zeros (`static bool raised[N] = {false};`)
    /// and not assigned so far, with their elements' value: on the function's first call
    /// an element reads as it, which is how the once-only guards of process-wide state
    /// read (`if (!raised[dev]) { cudaFuncSetAttribute(..); raised[dev] = true; }`: the
    /// attribute set on the first call stays set for every later one).
    static_zeros: HashMap<String, Expr>,
    /// The outermost macro invocation being expanded, as written in the function's file:
    /// its text and line (a launch written in its arguments is placed at its own line).
    invoked: Option<(String, u32)>,
    /// The `cudaDeviceProp`s `cudaGetDeviceProperties(&prop, dev)` filled: `prop.warpSize`
    /// is the target's answer ([`DEVICE_PROPERTY`]).
    device_props: HashSet<String>,
    /// The function lowered, qualified.
    function: String,
    /// Its parameters' names.
    params: HashSet<String>,
    /// Its body as written (what [`Lower::launch_ex`] looks for launch attributes in).
    body_text: String,
    /// See [`Lowered::launches`].
    launches: Vec<(ir::At, LaunchWritten)>,
    /// See [`Lowered::notes`].
    notes: Vec<crate::ReadNote>,
}

impl Lower<'_> {
    fn at(&mut self, at: At<'_>) -> ir::At {
        let line = at.line();
        self.at_line(at, line)
    }

    fn at_line(&mut self, at: At<'_>, line: u32) -> ir::At {
        let index = u32::try_from(self.places.len())
            .ok()
            .and_then(|i| i.checked_add(self.base))
            .unwrap_or(u32::MAX);
        self.places.push((at.code.shown.clone(), line));
        ir::At(index)
    }

    /// Where a launch `e` of a macro's expansion is written: its own line where its text
    /// (white space aside, its first 80 characters) appears once in the text of the
    /// outermost invocation (a launch given in a macro's arguments, `DISPATCH(x, {
    /// k<<<g, b>>>(..); })`), else the invocation's.
    fn launch_at(&mut self, e: At<'_>) -> ir::At {
        let needle: String = e
            .text()
            .chars()
            .filter(|c| !c.is_whitespace())
            .take(80)
            .collect();
        let found = self.invoked.as_ref().and_then(|(text, line)| {
            // The invocation's text without white space, each character's offset kept.
            let (squeezed, offsets): (String, Vec<usize>) = text
                .char_indices()
                .filter(|(_, c)| !c.is_whitespace())
                .map(|(i, c)| (c, i))
                .unzip();
            let mut hits = squeezed.match_indices(needle.as_str());
            let (at, _) = hits.next()?;
            let offset = *offsets.get(squeezed.get(..at)?.chars().count())?;
            let lines = text.get(..offset)?.matches('\n').count();
            (hits.next().is_none() && !needle.is_empty())
                .then(|| line.saturating_add(u32::try_from(lines).unwrap_or(0)))
        });
        match found {
            Some(line) => self.at_line(e, line),
            None => self.at(e),
        }
    }

    /// A note for the build on what was not read at `at` (on `line`), as the interpreter
    /// gives it ([`Lowered::notes`]).
    fn note(&mut self, at: At<'_>, line: u32, message: String) {
        let note = crate::ReadNote {
            file: at.code.shown.clone(),
            line: Some(line),
            message,
        };
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    fn opaque(&mut self, at: At<'_>, what: &str) -> Expr {
        self.not_lowered.push((at.line(), what.to_owned()));
        self.hidden_launches += chevrons_written(at);
        Expr::Opaque(format!("`{}` ({what})", crate::syntax::clip(at.text(), 40)))
    }

    /// A statement not lowered: its effects on the names it may write are unknown.
    fn havoc(&mut self, at: At<'_>, what: &str) -> Stmt {
        self.not_lowered.push((at.line(), what.to_owned()));
        self.hidden_launches += chevrons_written(at);
        let mut names = Vec::new();
        written(at, &mut names, 0);
        Stmt::Expr(Expr::Havoc(
            names,
            format!("`{}` ({what})", crate::syntax::clip(at.text(), 40)),
        ))
    }

    fn block(&mut self, at: At<'_>, depth: usize) -> Block {
        let mut stmts = Vec::new();
        // A variable declared in the block is gone after it: the type of the one it hid
        // is back, for the calls that deduce template arguments from it.
        let outer = self.declared.clone();
        match at.kind() {
            Some(Kind::CompoundStatement) => {
                let children = at.children();
                let mut i = 0;
                while let Some(&s) = children.get(i) {
                    i += 1;
                    if s.kind() == Some(Kind::IfStatement) && depth < MAX_DEPTH {
                        let (chain, cases) = self.macro_chain(s, &children[i..], depth + 1);
                        stmts.push(Stmt::Expr(chain));
                        i += cases;
                        continue;
                    }
                    stmts.extend(self.stmt(s, depth + 1));
                }
            }
            _ => stmts.extend(self.stmt(at, depth + 1)),
        }
        self.declared = outer;
        Block { stmts, tail: None }
    }

    /// The `if` statement `s` with the `else if` cases of the unit's macros invoked after it
    /// in `rest` (`if (false) {}` `CALL_IF(8);` `CALL_IF(4);` `__e: { .. }`, as the files
    /// were prepared: [`crate::prepare::CHAIN_ELSE_LABEL`] in place of the `else` that closes
    /// the chain), each case's expansion the `else` of the one before it; and how many
    /// statements of `rest` it took.
    fn macro_chain(&mut self, s: At<'_>, rest: &[At<'_>], d: usize) -> (Expr, usize) {
        let mut chain = self.if_statement(s, d);
        let mut taken = 0;
        for &next in rest {
            // The invocations the statement is: one, or several the grammar could not
            // parse (an error).
            let cases: Vec<(String, Option<String>, u32)> = match next.kind() {
                Some(Kind::ExpressionStatement) => next
                    .children()
                    .first()
                    .and_then(|&e| self.invocation(e))
                    .map(|(name, args)| (name, args, next.line()))
                    .into_iter()
                    .collect(),
                None => self
                    .invoked_in(next)
                    .into_iter()
                    .map(|(name, args, line)| (name, Some(args), line))
                    .collect(),
                _ => Vec::new(),
            };
            if !cases.is_empty() {
                let mut elses = Vec::new();
                for (name, args, line) in &cases {
                    match self.else_case(name, args.as_deref(), (next, *line), d) {
                        Some(otherwise) => elses.push(otherwise),
                        None => break,
                    }
                }
                if elses.len() < cases.len() {
                    break;
                }
                for otherwise in elses {
                    chain = with_else(chain, otherwise);
                }
                taken += 1;
                continue;
            }
            let label = next
                .children()
                .first()
                .filter(|_| next.kind() == Some(Kind::LabeledStatement))
                .map(|l| l.text());
            if taken > 0 && label == Some(crate::prepare::CHAIN_ELSE_LABEL) {
                let body = next.children().into_iter().last();
                let otherwise = Block {
                    stmts: body.map(|b| self.stmt(b, d)).unwrap_or_default(),
                    tail: None,
                };
                chain = with_else(chain, Expr::Block(Box::new(otherwise)));
                taken += 1;
            }
            break;
        }
        (chain, taken)
    }

    /// The `else` an invocation `name(args)` at `e` (on `line`) expands to where its expansion begins
    /// with `else` (`else if (c) { .. }`, `else { .. }`): the statement after the word,
    /// lowered; `None` for any other invocation.
    fn else_case(
        &mut self,
        name: &str,
        args: Option<&str>,
        (e, line): (At<'_>, u32),
        d: usize,
    ) -> Option<Expr> {
        let expanded = self.expanded(name, args).ok()?;
        let rest = expanded.trim_start().strip_prefix("else")?;
        if !rest.starts_with(|c: char| c.is_whitespace() || c == '{') {
            return None;
        }
        let stmts = self.expand_statements(name, args, (e, line), d, true);
        Some(Expr::Block(Box::new(Block { stmts, tail: None })))
    }

    fn stmt(&mut self, s: At<'_>, depth: usize) -> Vec<Stmt> {
        if depth > MAX_DEPTH {
            return vec![self.havoc(s, "nested too deep")];
        }
        let d = depth + 1;
        let expr = |e: Expr| vec![Stmt::Expr(e)];
        match s.kind() {
            Some(Kind::CompoundStatement) => expr(Expr::Block(Box::new(self.block(s, d)))),
            Some(Kind::Declaration) => self.declaration(s, d),
            Some(Kind::ExpressionStatement) => match s.children().first() {
                Some(&e) => match self.invocation(e) {
                    Some((name, args)) => {
                        let line = e.line();
                        self.expand_statements(&name, args.as_deref(), (e, line), d, false)
                    }
                    None => expr(self.expr(e, d)),
                },
                None => Vec::new(),
            },
            Some(Kind::IfStatement) => expr(self.if_statement(s, d)),
            Some(Kind::SwitchStatement) => expr(self.switch(s, d)),
            Some(Kind::ForStatement) => expr(self.for_statement(s, d)),
            Some(Kind::WhileStatement) => {
                let condition = self.condition(s, d);
                self.targets.push(Target::While);
                let body = s.field(Field::Body).map(|b| self.block(b, d));
                self.targets.pop();
                expr(self.loop_of(s, LoopKind::While(condition), body.unwrap_or_default()))
            }
            Some(Kind::DoStatement) => expr(self.do_statement(s, d)),
            Some(Kind::ReturnStatement) => {
                let value = s.children().first().map(|&v| Box::new(self.expr(v, d)));
                expr(match self.lambdas.last() {
                    // Inside a lambda called in place: it leaves the lambda.
                    Some(label) => Expr::Break(Some(lambda_label(*label)), value),
                    None => Expr::Return(value),
                })
            }
            Some(Kind::BreakStatement) => expr(match self.targets.last() {
                Some(Target::Switch(label)) => Expr::Break(Some(switch_label(*label)), None),
                _ => Expr::Break(None, None),
            }),
            Some(Kind::ContinueStatement) => expr(self.continue_statement()),
            Some(Kind::Comment) => Vec::new(),
            Some(Kind::PreprocIf | Kind::PreprocIfdef) => self.preproc_if(s, d),
            Some(Kind::TypeDefinition | Kind::AliasDeclaration) => match self.local_alias(s, d) {
                Some(alias) => vec![alias],
                None => vec![Stmt::Item(None)],
            },
            Some(Kind::StaticAssertDeclaration) => vec![Stmt::Item(None)],
            Some(kind) => vec![self.havoc(s, &format!("{kind:?}"))],
            None => self.invocations(s, d),
        }
    }

    /// A `#if` chain in a body: the branch the build compiles (the unit's decider), its
    /// statements in place; where the build does not decide it, each written branch, one
    /// of them taken (a condition no reading knows), as the interpreter reads them (an `#if`
    /// without `#else` runs its body: the configuration that skips it launches nothing
    /// there).
    fn preproc_if(&mut self, s: At<'_>, d: usize) -> Vec<Stmt> {
        let branches = preproc_branches(s);
        let taken = match self.unit.decider {
            Some(decider) => chosen(&branches, decider, true),
            None => Taken::Each,
        };
        let statements = |lower: &mut Self, body: Vec<At<'_>>| -> Vec<Stmt> {
            body.into_iter().flat_map(|n| lower.stmt(n, d)).collect()
        };
        match taken {
            Taken::Branch(body) => statements(self, body),
            Taken::None => Vec::new(),
            Taken::Each => {
                let written: Vec<_> = branches
                    .into_iter()
                    .filter(|b| !b.directive.is_empty())
                    .collect();
                let mut chain: Option<Expr> = None;
                for b in written.into_iter().rev() {
                    let at = self.at(s);
                    let block = Block {
                        stmts: statements(self, b.body),
                        tail: None,
                    };
                    chain = Some(match chain {
                        None => Expr::Block(Box::new(block)),
                        Some(otherwise) => Expr::If(Box::new(If {
                            condition: Expr::Opaque(format!(
                                "`{}`: a build configuration",
                                crate::syntax::clip(b.condition.map_or("#else", |c| c.text()), 40)
                            )),
                            then: block,
                            otherwise: Some(otherwise),
                            at,
                        })),
                    });
                }
                chain.map(Stmt::Expr).into_iter().collect()
            }
        }
    }

    /// `M(args)` (a function-like macro of the unit) or `M` (an object-like one): its name and
    /// the text between its parentheses.
    fn invocation(&self, e: At<'_>) -> Option<(String, Option<String>)> {
        let like = |name: &str, function_like: bool| {
            self.macros
                .get(name)
                .is_some_and(|m| m.iter().any(|m| m.params.is_some() == function_like))
        };
        match e.kind() {
            // A name the most vexing parse reads as a type (`dim3 block(WARP_SIZE * BR)`) too.
            Some(Kind::Identifier | Kind::TypeIdentifier) if like(e.text(), false) => {
                Some((e.text().to_owned(), None))
            }
            Some(Kind::CallExpression) => {
                let function = e.field(Field::Function)?;
                if function.kind() != Some(Kind::Identifier) || !like(function.text(), true) {
                    return None;
                }
                let open = e
                    .field(Field::Arguments)
                    .map_or(function.node.end_byte(), |a| a.node.start_byte());
                let (args, _) = paren_list(&e.code.text, open)?;
                Some((function.text().to_owned(), Some(args.to_owned())))
            }
            _ => None,
        }
    }

    /// A statement the grammar could not parse (`CALL(float, uint8_t, 256);`, types among a
    /// macro's arguments): the invocations of the unit's macros it is, each expanded.
    fn invocations(&mut self, s: At<'_>, d: usize) -> Vec<Stmt> {
        let found = self.invoked_in(s);
        if found.is_empty() {
            return vec![self.havoc(s, crate::syntax::kind(s.node))];
        }
        let mut out = Vec::new();
        for (name, args, line) in found {
            out.extend(self.expand_statements(&name, Some(&args), (s, line), d, false));
        }
        out
    }

    /// The invocations of the unit's function-like macros a statement `s` the grammar could
    /// not parse is: each name, the text between its parentheses and its own line (`A(x);\n
    /// A(y);` the grammar reads as one).
    fn invoked_in(&self, s: At<'_>) -> Vec<(String, String, u32)> {
        let macros = self.macros;
        let is_macro = |name: &str| {
            macros
                .get(name)
                .is_some_and(|m| m.iter().any(|m| m.params.is_some()))
        };
        let text = s.text();
        crate::macros::invocations(text, is_macro)
            .unwrap_or_default()
            .into_iter()
            .map(|i| {
                let before = text.get(..i.range.start).unwrap_or_default();
                let lines = u32::try_from(before.matches('\n').count()).unwrap_or(0);
                (
                    i.name.to_owned(),
                    i.args.to_owned(),
                    s.line().saturating_add(lines),
                )
            })
            .collect()
    }

    /// The text `name(args)` expands to, or why it does not expand (the last one kept:
    /// [`Lower::last_expansion`]).
    fn expanded(&mut self, name: &str, args: Option<&str>) -> Result<Rc<str>, String> {
        if let Some((n, a, text)) = &self.last_expansion
            && n == name
            && a.as_deref() == args
        {
            return text.clone();
        }
        let text = Expander::new(self.macros)
            .invoke(name, args)
            .map(Rc::from)
            .map_err(|e| e.0);
        self.last_expansion = Some((name.to_owned(), args.map(str::to_owned), text.clone()));
        text
    }

    /// The expansion of `name(args)` invoked at `at` (on `line`), parsed inside `wrapper`'s
    /// `{}`.
    fn expansion(
        &mut self,
        name: &str,
        args: Option<&str>,
        (at, line): (At<'_>, u32),
        wrap: impl FnOnce(&str) -> String,
    ) -> Result<Code, String> {
        let text = match self.expanded(name, args) {
            Ok(text) => text,
            Err(why) => {
                self.note(at, line, format!("`{name}`: {why}"));
                return Err(why);
            }
        };
        self.expanded_bytes = self.expanded_bytes.saturating_add(text.len());
        if self.expanded_bytes > MAX_EXPANDED_BYTES {
            return Err(format!(
                "the function's macros expand to more than {} KiB",
                MAX_EXPANDED_BYTES >> 10
            ));
        }
        Ok(Code::parse(wrap(&text), at.code.shown.clone(), Some(line)))
    }

    /// The statements `name(args)` expands to, lowered (at the invocation's line); `after_else`:
    /// those after the `else` its expansion begins with (a case of an `if` chain,
    /// [`Lower::macro_chain`]).
    fn expand_statements(
        &mut self,
        name: &str,
        args: Option<&str>,
        (at, line): (At<'_>, u32),
        d: usize,
        after_else: bool,
    ) -> Vec<Stmt> {
        if d > MAX_DEPTH {
            return vec![self.havoc(at, "nested too deep")];
        }
        let code = match self.expansion(name, args, (at, line), |text| {
            let text = if after_else {
                text.trim_start().strip_prefix("else").unwrap_or(text)
            } else {
                text
            };
            format!("void __occupancy_expansion__() {{\n{text}\n;}}")
        }) {
            Ok(code) => code,
            Err(why) => return vec![self.havoc(at, &format!("a macro invocation: {why}"))],
        };
        let root = code.root().map(|node| At { node, code: &code });
        let outermost = self.invoked.is_none();
        if outermost {
            self.invoked = Some((at.text().to_owned(), line));
        }
        let stmts = match root.and_then(|r| crate::index::find_kind(r, Kind::CompoundStatement, 3))
        {
            Some(body) => self.block(body, d + 1).stmts,
            None => vec![self.havoc(at, "a macro invocation that does not parse")],
        };
        if outermost {
            self.invoked = None;
        }
        stmts
    }

    /// The expression `name(args)` expands to, lowered.
    fn expand_expr(&mut self, name: &str, args: Option<&str>, at: At<'_>, d: usize) -> Expr {
        if d > MAX_DEPTH {
            return self.opaque(at, "nested too deep");
        }
        let code = match self.expansion(name, args, (at, at.line()), |text| {
            format!("auto __occupancy_value__ = ({text});")
        }) {
            Ok(code) => code,
            Err(why) => return self.opaque(at, &format!("a macro invocation: {why}")),
        };
        let root = code.root().map(|node| At { node, code: &code });
        match root
            .and_then(|r| crate::index::find_kind(r, Kind::InitDeclarator, 3))
            .and_then(|decl| decl.field(Field::Value))
        {
            Some(value) => self.expr(value, d + 1),
            None => self.opaque(at, "a macro that does not expand to an expression"),
        }
    }

    fn loop_of(&mut self, s: At<'_>, kind: LoopKind, body: Block) -> Expr {
        let at = self.at(s);
        Expr::Loop(Box::new(Loop { kind, body, at }))
    }

    /// `continue`: a `for`'s update or a `do`'s test first.
    fn continue_statement(&mut self) -> Expr {
        // A `continue` in a `switch` continues the loop around it.
        let target = self
            .targets
            .iter()
            .rev()
            .find(|t| !matches!(t, Target::Switch(_)));
        let mut stmts = Vec::new();
        match target {
            Some(Target::For(Some(update))) => stmts.push(Stmt::Expr(update.clone())),
            Some(Target::Do(test)) => stmts.push(Stmt::Expr(break_unless(test.clone()))),
            _ => {}
        }
        stmts.push(Stmt::Expr(Expr::Continue(None)));
        Expr::Block(Box::new(Block { stmts, tail: None }))
    }

    /// The condition of an `if`, `while` or `switch` (a `condition_clause`), as a test.
    fn condition(&mut self, s: At<'_>, d: usize) -> Expr {
        let Some(clause) = s.field(Field::Condition) else {
            return self.opaque(s, "no condition");
        };
        let inner = match clause.kind() {
            Some(Kind::ConditionClause) => clause.field(Field::Value).or_else(|| {
                // `if (int v = f())`: a declaration in the condition.
                clause.children().into_iter().last()
            }),
            _ => Some(clause),
        };
        match inner {
            Some(e) if e.kind() == Some(Kind::Declaration) => {
                self.opaque(e, "a declaration in a condition")
            }
            Some(e) => truthy(self.expr(e, d)),
            None => self.opaque(clause, "no condition"),
        }
    }

    fn if_statement(&mut self, s: At<'_>, d: usize) -> Expr {
        let condition = self.condition(s, d);
        let then = s
            .field(Field::Consequence)
            .map(|c| self.block(c, d))
            .unwrap_or_default();
        let otherwise = s.field(Field::Alternative).map(|alt| {
            // `else_clause`: its one statement.
            let inner = match alt.kind() {
                Some(Kind::ElseClause) => alt.children().into_iter().next(),
                _ => Some(alt),
            };
            match inner {
                Some(i) if i.kind() == Some(Kind::IfStatement) => self.if_statement(i, d + 1),
                Some(i) => Expr::Block(Box::new(self.block(i, d + 1))),
                None => Expr::Block(Box::default()),
            }
        });
        let at = self.at(s);
        Expr::If(Box::new(If {
            condition,
            then,
            otherwise,
            at,
        }))
    }

    /// `switch (v) { case A: .. case B: ..; break; default: .. }`: a labelled block that
    /// finds the case `v` enters by (`let switch#0 = match v { A => 0, B => 1, _ => 2 }`,
    /// the default's place, or past the last case without one) and then runs each case's
    /// statements in order from there (`if switch#0 <= 1 { .. }`), C++ running on into the
    /// next case until a `break`, which leaves the block. Linear in the cases (a copy of
    /// the following cases per arm would be quadratic: 3,000 cases that run on, 4.5 M
    /// statements). `switch#0` is a name no C++ code can write.
    fn switch(&mut self, s: At<'_>, d: usize) -> Expr {
        let scrutinee = match s.field(Field::Condition).and_then(|c| {
            c.field(Field::Value)
                .or_else(|| c.children().into_iter().next())
        }) {
            Some(v) => self.expr(v, d),
            None => return self.opaque(s, "a switch without a value"),
        };
        let label = self.switches;
        self.switches += 1;
        let cases: Vec<At<'_>> = s
            .field(Field::Body)
            .map(|b| b.children())
            .unwrap_or_default();
        if cases.iter().any(|c| c.kind() != Some(Kind::CaseStatement)) {
            return self.opaque(s, "statements outside the cases of a switch");
        }
        let entry = format!("switch#{label}");
        let entry_path = |at| Expr::Path(local(&entry), at);
        let mut arms = Vec::new();
        let mut default = cases.len();
        let mut runs = Vec::new();
        self.targets.push(Target::Switch(label));
        for (i, case) in cases.iter().enumerate() {
            let value = case.field(Field::Value);
            let at = self.at(*case);
            let index = Expr::Int(i128::try_from(i).unwrap_or(i128::MAX), None);
            match value {
                Some(v) => {
                    let pat = match self.expr(v, d) {
                        Expr::Path(p, _) => Pat::Path(p),
                        lit @ (Expr::Int(..) | Expr::Neg(_) | Expr::Bool(_)) => Pat::Lit(lit),
                        _ => Pat::Opaque(Vec::new()),
                    };
                    arms.push(Arm {
                        pat,
                        guard: None,
                        body: index.clone(),
                        at,
                    });
                }
                None => default = i,
            }
            let mut stmts = Vec::new();
            for st in case
                .children()
                .into_iter()
                .filter(|c| Some(c.node) != value.map(|v| v.node))
            {
                stmts.extend(self.stmt(st, d + 1));
            }
            if !stmts.is_empty() {
                runs.push(Stmt::Expr(Expr::If(Box::new(If {
                    condition: Expr::Compare(
                        Comparison::Le,
                        Box::new(entry_path(ir::At::NONE)),
                        Box::new(index),
                    ),
                    then: Block { stmts, tail: None },
                    otherwise: None,
                    at,
                }))));
            }
        }
        self.targets.pop();
        arms.push(Arm {
            pat: Pat::Wild,
            guard: None,
            body: Expr::Int(i128::try_from(default).unwrap_or(i128::MAX), None),
            at: ir::At::NONE,
        });
        let at = self.at(s);
        let matched = Expr::Match(Box::new(Match {
            scrutinee,
            arms,
            at,
        }));
        let mut stmts = vec![Stmt::Let(Box::new(Let {
            pat: Pat::Bind(entry.clone(), None),
            init: Some(matched),
            otherwise: None,
            ty: None,
            at,
        }))];
        stmts.extend(runs);
        Expr::Labeled(
            switch_label(label),
            Box::new(Expr::Block(Box::new(Block { stmts, tail: None }))),
        )
    }

    /// `for (init; condition; update) body`: `{ init; while condition { body; update } }`.
    fn for_statement(&mut self, s: At<'_>, d: usize) -> Expr {
        let mut stmts = Vec::new();
        if let Some(init) = s.field(Field::Initializer) {
            match init.kind() {
                Some(Kind::Declaration) => stmts.extend(self.declaration(init, d)),
                _ => stmts.push(Stmt::Expr(self.expr(init, d))),
            }
        }
        let condition = match s.field(Field::Condition) {
            Some(c) => truthy(self.expr(c, d)),
            None => Expr::Bool(true),
        };
        // Lowered once: the end of the body and each `continue` run it.
        let update = s.field(Field::Update).map(|u| self.expr(u, d));
        self.targets.push(Target::For(update.clone()));
        let mut body = s
            .field(Field::Body)
            .map(|b| self.block(b, d))
            .unwrap_or_default();
        self.targets.pop();
        if let Some(u) = update {
            body.stmts.push(Stmt::Expr(u));
        }
        let kind = match condition {
            Expr::Bool(true) => LoopKind::Loop,
            c => LoopKind::While(c),
        };
        stmts.push(Stmt::Expr(self.loop_of(s, kind, body)));
        Expr::Block(Box::new(Block { stmts, tail: None }))
    }

    /// `do body while (condition);`: `loop { body; if !condition { break } }`.
    fn do_statement(&mut self, s: At<'_>, d: usize) -> Expr {
        let test = match s.field(Field::Condition) {
            Some(c) => truthy(self.expr(c, d)),
            None => self.opaque(s, "no condition"),
        };
        self.targets.push(Target::Do(test.clone()));
        let mut body = s
            .field(Field::Body)
            .map(|b| self.block(b, d))
            .unwrap_or_default();
        self.targets.pop();
        body.stmts.push(Stmt::Expr(break_unless(test)));
        self.loop_of(s, LoopKind::Loop, body)
    }

    /// `T a = x, b(y), c{z}, d;`: a `let` per declarator.
    fn declaration(&mut self, s: At<'_>, d: usize) -> Vec<Stmt> {
        let ty_text = s.field(Field::Type).map_or("", |t| t.text());
        let dim3 = is_dim3(ty_text);
        let int = int_type(ty_text);
        let mut out = Vec::new();
        for declarator in crate::syntax::field_children(s.node, Field::Declarator)
            .into_iter()
            .map(|n| s.with(n))
        {
            let (name_node, value) = match declarator.kind() {
                Some(Kind::InitDeclarator) => (
                    declarator.field(Field::Declarator),
                    declarator.field(Field::Value),
                ),
                _ => (Some(declarator), None),
            };
            let Some(name_node) = name_node else {
                out.push(self.havoc(declarator, "a declarator"));
                continue;
            };
            // `dim3 grid(blocks);`: tree-sitter's function declarator (the "most vexing
            // parse"), a variable constructed from names.
            let vexing = (name_node.kind() == Some(Kind::FunctionDeclarator))
                .then(|| crate::index::vexing_arguments(name_node))
                .flatten();
            if let Some(args) = vexing {
                let name = name_node
                    .field(Field::Declarator)
                    .filter(|n| n.kind() == Some(Kind::Identifier));
                let (Some(name), true) = (name, dim3 || int.is_some()) else {
                    out.push(self.havoc(declarator, "a function declared in a body"));
                    continue;
                };
                let args: Vec<Expr> = args
                    .into_iter()
                    .map(|(a, factor)| {
                        let a = self.expr(a, d);
                        match factor {
                            Some(f) => {
                                Expr::Binary(Op::Mul, Box::new(a), Box::new(self.expr(f, d)))
                            }
                            None => a,
                        }
                    })
                    .collect();
                let init = match (dim3, <[Expr; 1]>::try_from(args)) {
                    (false, Ok([only])) => only,
                    (false, Err(_)) => self.opaque(declarator, "a constructor call"),
                    (true, Ok(one_arg)) => self.padded(Vec::from(one_arg), declarator),
                    (true, Err(args)) => self.padded(args, declarator),
                };
                if dim3 {
                    self.dim3.insert(name.text().to_owned());
                }
                let at = self.at(declarator);
                out.push(Stmt::Let(Box::new(Let {
                    pat: Pat::Bind(name.text().to_owned(), None),
                    init: Some(init),
                    otherwise: None,
                    ty: int,
                    at,
                })));
                continue;
            }
            let plain = name_node.kind() == Some(Kind::Identifier);
            let name = crate::index::declared_name(name_node).unwrap_or_default();
            self.declare(s, name_node, &name);
            self.static_zero(s, name_node, value, &name);
            let init = match (value, plain && dim3) {
                (None, true) => Some(Expr::Tuple(vec![one(), one(), one()])),
                (Some(v), true) => Some(self.dim3_value(v, d)),
                (Some(v), false) if v.kind() == Some(Kind::ArgumentList) => {
                    // `int n(4);`, or an object constructed from arguments.
                    match v.children().as_slice() {
                        [only] if plain && int.is_some() => Some(self.expr(*only, d)),
                        _ => Some(self.opaque(v, "a constructor call")),
                    }
                }
                (Some(v), false) if v.kind() == Some(Kind::InitializerList) => {
                    match v.children().as_slice() {
                        [only] if plain && int.is_some() => Some(self.expr(*only, d)),
                        [] if plain && int.is_some() => Some(Expr::Int(0, int)),
                        // `cudaLaunchConfig_t config = {};`: value-initialised, its members
                        // assigned one by one after.
                        [] if plain && is_launch_config(ty_text) => {
                            Some(self.launch_config_zeroed(declarator))
                        }
                        // `{ .gridDim = dim3(n), .blockDim = 128, .dynamicSmemBytes = 0 }`:
                        // the members given, the rest value-initialised.
                        _ if plain && is_launch_config(ty_text) => {
                            Some(self.launch_config_designated(declarator, v, d))
                        }
                        _ => match plain.then(|| self.aggregate(ty_text, v, d)).flatten() {
                            Some(e) => Some(e),
                            None => Some(self.opaque(v, "an initializer list")),
                        },
                    }
                }
                (Some(v), false) => Some(self.expr(v, d)),
                // A struct declared without an initialiser (`cudaLaunchConfig_t config;`,
                // a plain struct of the unit): its members assigned one by one after.
                (None, false) if plain && self.is_struct(ty_text) => {
                    let at = self.at(declarator);
                    Some(Expr::Struct(Box::new(ir::StructLit {
                        name: ty_text.split_whitespace().collect::<Vec<_>>().join(" "),
                        fields: Vec::new(),
                        rest: None,
                        at,
                    })))
                }
                (None, false) => None,
            };
            if plain && dim3 {
                self.dim3.insert(name.clone());
            }
            let at = self.at(declarator);
            out.push(Stmt::Let(Box::new(Let {
                pat: Pat::Bind(name, None),
                init,
                otherwise: None,
                // A pointer, array or reference is bound, its value not an integer.
                ty: if plain { int } else { None },
                at,
            })));
        }
        out
    }

    /// A `cudaLaunchConfig_t` initialised by designators (`{ .gridDim = dim3(n),
    /// .blockDim = dim3(128), .dynamicSmemBytes = 65536 }`): [`Lower::launch_config_zeroed`]
    /// with the members given (a grid or block as a `dim3`, an integer as `dim3(n)`); an
    /// initialiser not all of single designators is not read.
    fn launch_config_designated(&mut self, declarator: At<'_>, list: At<'_>, d: usize) -> Expr {
        let Some(given) = layout::designated(list) else {
            return self.opaque(list, "an initializer list");
        };
        let Expr::Struct(mut config) = self.launch_config_zeroed(declarator) else {
            return self.opaque(list, "an initializer list");
        };
        for (member, value) in given {
            let lowered = match member.as_str() {
                "gridDim" | "blockDim" => self.dim3_value(value, d + 1),
                _ => self.expr(value, d + 1),
            };
            let at = self.at(value);
            match config
                .fields
                .iter_mut()
                .find(|(name, _, _)| *name == member)
            {
                Some(field) => *field = (member, lowered, at),
                None => config.fields.push((member, lowered, at)),
            }
        }
        Expr::Struct(config)
    }

    /// A `cudaLaunchConfig_t` value-initialised (`= {}`): its grid and block `dim3`s of 1s
    /// (`dim3`'s constructor), no dynamic shared memory and no attributes.
    fn launch_config_zeroed(&mut self, declarator: At<'_>) -> Expr {
        let at = self.at(declarator);
        let one = || Expr::Int(1, Some(IntTy::U32));
        let ones = || Expr::Tuple(vec![one(), one(), one()]);
        Expr::Struct(Box::new(ir::StructLit {
            name: "cudaLaunchConfig_t".to_owned(),
            fields: vec![
                ("gridDim".to_owned(), ones(), at),
                ("blockDim".to_owned(), ones(), at),
                (
                    "dynamicSmemBytes".to_owned(),
                    Expr::Int(0, Some(IntTy::U64)),
                    at,
                ),
                ("numAttrs".to_owned(), Expr::Int(0, Some(IntTy::U32)), at),
            ],
            rest: None,
            at,
        }))
    }

    /// Whether `ty` names a struct whose members a body assigns one by one: the runtime's
    /// `cudaLaunchConfig_t`, or a plain struct of the unit.
    fn is_struct(&self, ty: &str) -> bool {
        let words: Vec<&str> = ty
            .split_whitespace()
            .filter(|w| !matches!(*w, "const" | "struct" | "volatile"))
            .collect();
        match words.as_slice() {
            [one] => {
                let simple = one.rsplit("::").next().unwrap_or(one);
                is_launch_config(one) || self.unit.index.records.contains_key(simple)
            }
            _ => false,
        }
    }

    /// A `dim3`'s initialiser: `(x, y)`, `{x, y}`, `dim3(x)`, or another `dim3`.
    fn dim3_value(&mut self, v: At<'_>, d: usize) -> Expr {
        match v.kind() {
            Some(Kind::ArgumentList | Kind::InitializerList) => {
                let parts = v.children();
                self.dims(&parts, v, d)
            }
            _ => self.as_dims(v, d),
        }
    }

    /// Up to three dimensions, the missing ones 1.
    fn dims(&mut self, parts: &[At<'_>], at: At<'_>, d: usize) -> Expr {
        let items: Vec<Expr> = parts.iter().map(|p| self.expr(*p, d)).collect();
        self.padded(items, at)
    }

    /// `items` as three dimensions, the missing ones 1.
    fn padded(&mut self, mut items: Vec<Expr>, at: At<'_>) -> Expr {
        if items.len() > 3 {
            return self.opaque(at, "a dim3 of more than three values");
        }
        items.resize_with(3, one);
        Expr::Tuple(items)
    }

    /// A launch's grid or block: a `dim3` as it is, an integer `n` as `(n, 1, 1)`.
    fn as_dims(&mut self, e: At<'_>, d: usize) -> Expr {
        let lowered = self.expr(e, d);
        match &lowered {
            Expr::Tuple(_) => lowered,
            Expr::Path(p, _) if p.single().is_some_and(|n| self.dim3.contains(n)) => lowered,
            Expr::Opaque(_) => lowered,
            _ => Expr::Tuple(vec![lowered, one(), one()]),
        }
    }

    fn expr(&mut self, e: At<'_>, depth: usize) -> Expr {
        if depth > MAX_DEPTH {
            return self.opaque(e, "nested too deep");
        }
        let d = depth + 1;
        match e.kind() {
            Some(Kind::NumberLiteral) => {
                // The grammar reads a sign before the digits as part of the literal (`-1`):
                // the unary operator on the literal after it.
                let text = e.text();
                let (negative, digits) = match text.strip_prefix('-') {
                    Some(rest) => (true, rest.trim_start()),
                    None => (false, text.strip_prefix('+').unwrap_or(text).trim_start()),
                };
                match number(digits) {
                    Some((value, ty)) if negative => {
                        Expr::Neg(Box::new(Expr::Int(value, Some(ty))))
                    }
                    Some((value, ty)) => Expr::Int(value, Some(ty)),
                    None => self.opaque(e, "a floating-point or unreadable number"),
                }
            }
            Some(Kind::Identifier | Kind::TypeIdentifier) if self.invocation(e).is_some() => {
                // An object-like macro: its value, as the preprocessor makes it.
                self.expand_expr(e.text(), None, e, d)
            }
            Some(Kind::True) => Expr::Bool(true),
            Some(Kind::False) => Expr::Bool(false),
            // `NULL` is a macro of the files where they define one, else the null pointer
            // constant, as `nullptr`.
            Some(Kind::Null)
                if self
                    .macros
                    .get(e.text())
                    .is_some_and(|m| m.iter().any(|m| m.params.is_none())) =>
            {
                self.expand_expr(e.text(), None, e, d)
            }
            Some(Kind::Null) => Expr::Path(local(NULL_KERNEL), self.at(e)),
            Some(
                Kind::Identifier
                | Kind::QualifiedIdentifier
                | Kind::TemplateFunction
                | Kind::TypeIdentifier,
            ) => match self.path(e, d) {
                Some(p) => {
                    let at = self.at(e);
                    Expr::Path(p, at)
                }
                None => self.opaque(e, "a name"),
            },
            Some(Kind::ParenthesizedExpression) => match e.children().as_slice() {
                [inner] => self.expr(*inner, d),
                _ => self.opaque(e, "a parenthesized list"),
            },
            Some(Kind::BinaryExpression) => self.binary(e, d),
            // `a, b`: `a` for its effects, then `b` (a `for`'s update `i++, blk.x = 64`).
            Some(Kind::CommaExpression) => match (e.field(Field::Left), e.field(Field::Right)) {
                (Some(l), Some(r)) if d < MAX_DEPTH => Expr::Block(Box::new(Block {
                    stmts: vec![Stmt::Expr(self.expr(l, d + 1))],
                    tail: Some(self.expr(r, d + 1)),
                })),
                _ => self.opaque(e, "a comma expression"),
            },
            Some(Kind::UnaryExpression) => self.unary(e, d),
            // `&n`: `n` lent mutably (`init(&n)` may write it: unknown after, as Rust's
            // `&mut n`); a dereference is a place the core does not follow.
            Some(Kind::PointerExpression) if e.text().starts_with('&') => {
                match e.field(Field::Argument) {
                    Some(a) if a.kind() == Some(Kind::Identifier) => {
                        Expr::Ref(Box::new(self.expr(a, d)), true)
                    }
                    _ => self.opaque(e, "PointerExpression"),
                }
            }
            Some(Kind::UpdateExpression) => {
                let op = if e.text().contains("++") {
                    Op::Add
                } else {
                    Op::Sub
                };
                match e.field(Field::Argument) {
                    Some(a) => {
                        let target = self.expr(a, d);
                        Expr::Assign(Box::new(target), Some(op), Box::new(Expr::Int(1, None)))
                    }
                    None => self.opaque(e, "an update"),
                }
            }
            Some(Kind::AssignmentExpression) => self.assignment(e, d),
            Some(Kind::ConditionalExpression) => {
                let (Some(c), Some(a), Some(b)) = (
                    e.field(Field::Condition),
                    e.field(Field::Consequence),
                    e.field(Field::Alternative),
                ) else {
                    return self.opaque(e, "a conditional");
                };
                let condition = truthy(self.expr(c, d));
                let then = Block {
                    stmts: Vec::new(),
                    tail: Some(self.expr(a, d)),
                };
                let otherwise = Block {
                    stmts: Vec::new(),
                    tail: Some(self.expr(b, d)),
                };
                let at = self.at(e);
                Expr::If(Box::new(If {
                    condition,
                    then,
                    otherwise: Some(Expr::Block(Box::new(otherwise))),
                    at,
                }))
            }
            Some(Kind::CastExpression) => {
                let ty = e.field(Field::Type).map_or("", |t| t.text());
                match (int_type(ty), e.field(Field::Value)) {
                    (Some(ty), Some(v)) => Expr::Cast(Box::new(self.expr(v, d)), ty),
                    _ => self.opaque(e, "a cast to a type that is not an integer"),
                }
            }
            Some(Kind::CallExpression) => self.call(e, d),
            Some(Kind::FieldExpression) => self.member(e, d),
            Some(Kind::SizeofExpression | Kind::AlignofExpression) => self.size_or_align(e, d),
            Some(Kind::SubscriptExpression)
                if let Some(zero) = e
                    .field(Field::Argument)
                    .and_then(|a| self.static_zeros.get(a.text())) =>
            {
                zero.clone()
            }
            // `rest...` of a function parameter pack: spread where it is a call's argument.
            Some(Kind::ParameterPackExpansion) => match e.children().as_slice() {
                [pack] if pack.kind() == Some(Kind::Identifier) => {
                    Expr::Spread(Box::new(self.expr(*pack, d)))
                }
                _ => self.opaque(e, "ParameterPackExpansion"),
            },
            Some(Kind::StringLiteral | Kind::ConcatenatedString) => {
                // A message (`TORCH_CHECK(ok, "..")`): a string whose text no reading needs.
                let at = self.at(e);
                Expr::Str(String::new(), at)
            }
            Some(Kind::CharLiteral) => self.opaque(e, "a character"),
            Some(kind) => self.opaque(e, &format!("{kind:?}")),
            None => self.opaque(e, crate::syntax::kind(e.node)),
        }
    }

    /// A name as a path: `n`, `ns::K`, `f<T, 4>`.
    fn path(&mut self, e: At<'_>, d: usize) -> Option<ir::Path> {
        let mut segments = Vec::new();
        let mut leading_colon = false;
        let mut node = Some(e);
        let mut steps = 0;
        while let Some(n) = node {
            steps += 1;
            if steps > MAX_DEPTH {
                return None;
            }
            match n.kind() {
                Some(Kind::QualifiedIdentifier) => {
                    match n.field(Field::Scope) {
                        Some(scope) => match scope.kind() {
                            Some(Kind::TemplateType) => {
                                segments.push(self.segment(scope, d)?);
                            }
                            _ => segments.push(Segment {
                                ident: scope.text().to_owned(),
                                args: Vec::new(),
                            }),
                        },
                        None => leading_colon = true,
                    }
                    node = n.field(Field::Name);
                }
                Some(Kind::TemplateFunction) => {
                    segments.push(self.segment(n, d)?);
                    node = None;
                }
                Some(
                    Kind::Identifier
                    | Kind::NamespaceIdentifier
                    | Kind::TypeIdentifier
                    | Kind::FieldIdentifier,
                ) => {
                    segments.push(Segment {
                        ident: n.text().to_owned(),
                        args: Vec::new(),
                    });
                    node = None;
                }
                _ => return None,
            }
        }
        Some(ir::Path {
            leading_colon,
            segments,
        })
    }

    /// `f<T, 4>` (a template function or type) as a segment with its arguments.
    fn segment(&mut self, n: At<'_>, d: usize) -> Option<Segment> {
        let ident = n.field(Field::Name)?.text().to_owned();
        let args = n
            .field(Field::Arguments)
            .map(|list| list.children())
            .unwrap_or_default()
            .into_iter()
            .map(|a| {
                // A name alone is parsed as a type (`f<Q4_0>`): it may be a constant, an
                // enumerator, too, as a Rust generic argument's single identifier is.
                let value = Some(self.template_arg(a, d)).filter(|v| !matches!(v, Expr::Opaque(_)));
                GenericArg {
                    text: a.text().to_owned(),
                    value,
                }
            })
            .collect();
        Some(Segment { ident, args })
    }

    /// `base.member`: a `dim3`'s `x`, `y`, `z` as its tuple's fields, a field of a
    /// `cudaDeviceProp` that `cudaGetDeviceProperties` filled as the target's value
    /// ([`DEVICE_PROPERTY`]), else the named field.
    fn member(&mut self, e: At<'_>, d: usize) -> Expr {
        let (Some(base), Some(member)) = (e.field(Field::Argument), e.field(Field::Member)) else {
            return self.opaque(e, "a member");
        };
        if base.kind() == Some(Kind::Identifier)
            && self.device_props.contains(base.text())
            && !e.text().contains("->")
        {
            let segments = [DEVICE_PROPERTY, member.text()].map(|s| Segment {
                ident: s.to_owned(),
                args: Vec::new(),
            });
            let path = ir::Path {
                leading_colon: false,
                segments: segments.into(),
            };
            return Expr::Path(path, self.at(e));
        }
        let base_expr = self.expr(base, d);
        let is_dim3 = matches!(&base_expr, Expr::Path(p, _) if p.single().is_some_and(|n| self.dim3.contains(n)));
        let field = match (is_dim3, member.text()) {
            (true, "x") => ir::Field::Index(0),
            (true, "y") => ir::Field::Index(1),
            (true, "z") => ir::Field::Index(2),
            (_, name) => ir::Field::Named(name.to_owned()),
        };
        Expr::Field(Box::new(base_expr), field)
    }

    fn binary(&mut self, e: At<'_>, d: usize) -> Expr {
        let (Some(l), Some(r), Some(op)) = (
            e.field(Field::Left),
            e.field(Field::Right),
            e.field(Field::Operator),
        ) else {
            return self.opaque(e, "a binary operation");
        };
        let (a, b) = (self.expr(l, d), self.expr(r, d));
        let arith = |op| Expr::Binary(op, Box::new(a.clone()), Box::new(b.clone()));
        let compare = |op| Expr::Compare(op, Box::new(a.clone()), Box::new(b.clone()));
        match op.text() {
            "+" => arith(Op::Add),
            "-" => arith(Op::Sub),
            "*" => arith(Op::Mul),
            "/" => arith(Op::Div),
            "%" => arith(Op::Rem),
            "<<" => arith(Op::Shl),
            ">>" => arith(Op::Shr),
            "&" => arith(Op::BitAnd),
            "|" => arith(Op::BitOr),
            "^" => arith(Op::BitXor),
            "<" => compare(Comparison::Lt),
            "<=" => compare(Comparison::Le),
            ">" => compare(Comparison::Gt),
            ">=" => compare(Comparison::Ge),
            "==" => compare(Comparison::Eq),
            "!=" => compare(Comparison::Ne),
            "&&" => Expr::And(Box::new(truthy(a)), Box::new(truthy(b))),
            "||" => Expr::Or(Box::new(truthy(a)), Box::new(truthy(b))),
            other => self.opaque(e, &format!("the operator `{other}`")),
        }
    }

    /// `cudaDeviceGetAttribute(&v, attr, dev)` (or the driver's `cuDeviceGetAttribute`): `v`
    /// is the attribute's value on the reading's target, which the unit's names answer for
    /// the path `cudaDeviceGetAttribute::attr` ([`DEVICE_ATTRIBUTE`]); the call returns
    /// `cudaSuccess` (0).
    fn device_attribute(&mut self, simple: &str, args: &[At<'_>]) -> Option<Expr> {
        if !matches!(simple, "cudaDeviceGetAttribute" | "cuDeviceGetAttribute") {
            return None;
        }
        let [out, attribute, _] = args else {
            return None;
        };
        let place = lent_name(*out)?;
        let value = Expr::Path(
            ir::Path {
                leading_colon: false,
                segments: vec![
                    Segment {
                        ident: DEVICE_ATTRIBUTE.to_owned(),
                        args: Vec::new(),
                    },
                    Segment {
                        ident: attribute.text().trim().to_owned(),
                        args: Vec::new(),
                    },
                ],
            },
            self.at(*attribute),
        );
        Some(Expr::Block(Box::new(Block {
            stmts: vec![Stmt::Expr(Expr::Assign(
                Box::new(Expr::Path(
                    ir::Path {
                        leading_colon: false,
                        segments: vec![Segment {
                            ident: place.to_owned(),
                            args: Vec::new(),
                        }],
                    },
                    self.at(*out),
                )),
                None,
                Box::new(value),
            ))],
            tail: Some(Expr::Int(0, Some(IntTy::I32))),
        })))
    }

    fn unary(&mut self, e: At<'_>, d: usize) -> Expr {
        let (Some(arg), Some(op)) = (e.field(Field::Argument), e.field(Field::Operator)) else {
            return self.opaque(e, "a unary operation");
        };
        match op.text() {
            "-" => Expr::Neg(Box::new(self.expr(arg, d))),
            "+" => self.expr(arg, d),
            "!" => Expr::Not(Box::new(truthy(self.expr(arg, d)))),
            // `~x` is `x ^ -1` after the usual arithmetic conversions (an `unsigned`'s
            // `-1` is its largest value, a `bool` or `char` promoted to `int` first).
            "~" => Expr::Binary(
                Op::BitXor,
                Box::new(self.expr(arg, d)),
                Box::new(Expr::Int(-1, Some(IntTy::I32))),
            ),
            other => self.opaque(e, &format!("the operator `{other}`")),
        }
    }

    fn assignment(&mut self, e: At<'_>, d: usize) -> Expr {
        let (Some(l), Some(r), Some(op)) = (
            e.field(Field::Left),
            e.field(Field::Right),
            e.field(Field::Operator),
        ) else {
            return self.opaque(e, "an assignment");
        };
        let op = match op.text() {
            "=" => None,
            "+=" => Some(Op::Add),
            "-=" => Some(Op::Sub),
            "*=" => Some(Op::Mul),
            "/=" => Some(Op::Div),
            "%=" => Some(Op::Rem),
            "<<=" => Some(Op::Shl),
            ">>=" => Some(Op::Shr),
            "&=" => Some(Op::BitAnd),
            "|=" => Some(Op::BitOr),
            "^=" => Some(Op::BitXor),
            other => return self.opaque(e, &format!("the assignment `{other}`")),
        };
        // An element of a `static` array assigned: no longer its first call's value.
        if l.kind() == Some(Kind::SubscriptExpression)
            && let Some(array) = l.field(Field::Argument)
        {
            self.static_zeros.remove(array.text());
        }
        let target = self.expr(l, d);
        let value = match &target {
            Expr::Path(p, _)
                if op.is_none() && p.single().is_some_and(|n| self.dim3.contains(n)) =>
            {
                self.dim3_value(r, d)
            }
            // A launch configuration's `dim3` member given a number (`config.blockDim =
            // 256;`): converted to a `dim3` of it and 1s, as C++ does.
            Expr::Field(_, ir::Field::Named(member))
                if op.is_none() && matches!(member.as_str(), "gridDim" | "blockDim") =>
            {
                let value = self.expr(r, d);
                match value {
                    Expr::Int(..) | Expr::Binary(..) | Expr::Cast(..) | Expr::Neg(..) => {
                        Expr::Tuple(vec![value, one(), one()])
                    }
                    Expr::Path(ref p, _) if p.single().is_some_and(|n| !self.dim3.contains(n)) => {
                        Expr::Tuple(vec![value, one(), one()])
                    }
                    _ => value,
                }
            }
            _ => self.expr(r, d),
        };
        Expr::Assign(Box::new(target), op, Box::new(value))
    }

    /// A call: a launch (`k<<<..>>>(..)`), a cast (`static_cast<int>(x)`), `dim3(..)`,
    /// `min`/`max`, or a call of a function.
    fn call(&mut self, e: At<'_>, d: usize) -> Expr {
        let Some(function) = e.field(Field::Function) else {
            return self.opaque(e, "a call");
        };
        let args: Vec<At<'_>> = e
            .field(Field::Arguments)
            .map(|a| a.children())
            .unwrap_or_default();
        if let Some(config) = e
            .children()
            .into_iter()
            .find(|c| c.kind() == Some(Kind::KernelCallSyntax))
        {
            return self.chevron(e, function, config, d);
        }
        if let Some((name, args)) = self.invocation(e) {
            return self.expand_expr(&name, args.as_deref(), e, d);
        }
        if function.kind() == Some(Kind::LambdaExpression) && args.is_empty() {
            return self.lambda_in_place(function, d);
        }
        let name = function.text();
        let simple = name.rsplit("::").next().unwrap_or(name).trim();
        if let Some(asked) = self.device_attribute(simple, &args) {
            return asked;
        }
        if let ("cudaGetDeviceProperties", [out, _]) = (simple, args.as_slice())
            && let Some(name) = lent_name(*out)
        {
            self.device_props.insert(name.to_owned());
            return Expr::Int(0, Some(IntTy::I32));
        }
        if let ("cudaFuncSetAttribute", [kernel, attribute, bytes]) = (simple, args.as_slice())
            && attribute
                .text()
                .ends_with("cudaFuncAttributeMaxDynamicSharedMemorySize")
        {
            let kernel = self.kernel_operand(*kernel, d);
            let bytes = self.expr(*bytes, d);
            return Expr::OptIn(Box::new(ir::OptIn { kernel, bytes }));
        }
        if matches!(simple, "cudaLaunchKernel" | "cudaLaunchCooperativeKernel") {
            return self.runtime_launch(e, &args, d);
        }
        if matches!(simple, "cudaLaunchKernelEx" | "cudaLaunchKernelExC") {
            return self.launch_ex(e, &args, d);
        }
        if let Some((ty, v)) = crate::index::named_cast(e) {
            return match int_type(ty.text()) {
                Some(ty) => Expr::Cast(Box::new(self.expr(v, d)), ty),
                None => self.opaque(e, "a cast to a type that is not an integer"),
            };
        }
        if simple == "dim3" && matches!(function.kind(), Some(Kind::Identifier)) {
            return self.dims(&args, e, d);
        }
        if let ("min" | "max", [a, b]) = (simple, args.as_slice())
            && matches!(
                name,
                "min" | "max" | "std::min" | "std::max" | "::min" | "::max"
            )
        {
            let method = if simple == "min" {
                ir::Method::Min
            } else {
                ir::Method::Max
            };
            let (a, b) = (self.expr(*a, d), self.expr(*b, d));
            return Expr::Method(Box::new(a), method, vec![b]);
        }
        let arg_nodes = args;
        let args: Vec<Expr> = arg_nodes.iter().map(|a| self.expr(*a, d)).collect();
        match function.kind() {
            Some(Kind::FieldExpression) => {
                let (Some(base), Some(member)) = (
                    function.field(Field::Argument),
                    function.field(Field::Member),
                ) else {
                    return self.opaque(e, "a method call");
                };
                let receiver = self.expr(base, d);
                let at = self.at(e);
                Expr::MethodCall(Box::new(receiver), member.text().to_owned(), args, at)
            }
            _ => match self.path(function, d) {
                Some(mut path) => {
                    self.deduce_call(&mut path, &arg_nodes, d);
                    let at = self.at(e);
                    Expr::Call(path, args, at)
                }
                None => self.opaque(e, "a call of an expression"),
            },
        }
    }

    /// A kernel given to a runtime API call, without the casts around it (`(const void*)k`,
    /// `reinterpret_cast<const void*>(k)`).
    fn kernel_operand(&mut self, k: At<'_>, d: usize) -> Expr {
        self.expr(uncast(k), d)
    }

    /// `[&] { .. }()`: a lambda without parameters called where it is written (what
    /// `BOOL_SWITCH`-style macros expand to): its body as a labelled block, whose `return`
    /// breaks out of it with the value. The outer loops' `break` and `continue` do not reach
    /// into it (C++ does not allow them there).
    fn lambda_in_place(&mut self, lambda: At<'_>, d: usize) -> Expr {
        let params = lambda
            .field(Field::Declarator)
            .and_then(|decl| decl.field(Field::Parameters))
            .map_or(0, |p| p.children().len());
        let Some(body) = lambda.field(Field::Body).filter(|_| params == 0) else {
            return self.opaque(lambda, "a lambda with parameters called in place");
        };
        let label = self.lambda_count;
        self.lambda_count += 1;
        self.lambdas.push(label);
        let outer_targets = std::mem::take(&mut self.targets);
        let block = self.block(body, d);
        self.targets = outer_targets;
        self.lambdas.pop();
        Expr::Labeled(lambda_label(label), Box::new(Expr::Block(Box::new(block))))
    }

    /// `kernel<<<grid, block, smem, stream>>>(args)`.
    fn chevron(&mut self, e: At<'_>, function: At<'_>, config: At<'_>, d: usize) -> Expr {
        let items = config.children();
        let (Some(&grid_node), Some(&block_node)) = (items.first(), items.get(1)) else {
            let what = "a <<<...>>> launch with fewer than 2 arguments";
            self.note(e, e.line(), what.to_owned());
            return self.opaque(e, what);
        };
        let args = e
            .field(Field::Arguments)
            .map(|a| a.children())
            .unwrap_or_default();
        self.launch(
            e,
            (
                function,
                (crate::LaunchForm::TripleChevron, function.text()),
            ),
            [grid_node, block_node],
            items.get(2).copied(),
            &args,
            d,
        )
    }

    /// `cudaLaunchKernel(kernel, grid, block, args, smem, stream)` (and
    /// `cudaLaunchCooperativeKernel`): a launch of the kernel its first argument names or
    /// holds, casts around it left out; its template arguments are those written (the
    /// kernel's arguments are behind `void**`, so none is deduced).
    fn runtime_launch(&mut self, e: At<'_>, args: &[At<'_>], d: usize) -> Expr {
        let [kernel, grid, block, ..] = args else {
            return self.opaque(e, "a `cudaLaunchKernel` with fewer than 3 arguments");
        };
        let kernel = uncast(*kernel);
        let site = (crate::LaunchForm::LaunchKernel, kernel.text());
        self.launch(
            e,
            (kernel, site),
            [*grid, *block],
            args.get(4).copied(),
            &[],
            d,
        )
    }

    /// `cudaLaunchKernelEx(&config, kernel, args...)`: a launch of the kernel its second
    /// argument names or holds with the grid, block and dynamic shared memory of the
    /// `cudaLaunchConfig_t` its first points to (`config.gridDim`, `config.blockDim`,
    /// `config.dynamicSmemBytes`, as the body assigns them). Its cluster is read where the
    /// body gives `config.attrs` one in literals ([`cluster_of`]); where it gives one
    /// otherwise, the launch is not checked ([`LaunchWritten::unread`]).
    fn launch_ex(&mut self, e: At<'_>, args: &[At<'_>], d: usize) -> Expr {
        let [config, kernel, ..] = args else {
            return self.opaque(e, "a `cudaLaunchKernelEx` with fewer than 2 arguments");
        };
        let mut config = uncast(*config);
        if config.kind() == Some(Kind::PointerExpression) && config.text().starts_with('&') {
            config = config.field(Field::Argument).unwrap_or(config);
        }
        if config.kind() != Some(Kind::Identifier) {
            return self.opaque(e, "a `cudaLaunchKernelEx` of a configuration not named");
        }
        let name = config.text().to_owned();
        let config_at = self.at(config);
        let member = |field: &str| {
            Expr::Field(
                Box::new(Expr::Path(local(&name), config_at)),
                ir::Field::Named(field.to_owned()),
            )
        };
        // A cluster among the launch's attributes (`config.attrs = attrs;` with
        // `cudaLaunchAttributeClusterDimension`, as the interpreter tells one), which the
        // core does not read yet: the launch is listed and not checked (no candidate can
        // stand for it), never checked as a launch without its cluster. Other attributes
        // (programmatic stream serialization, say) do not change its occupancy.
        let clustered = self.body_text.contains(&format!("{name}.attrs"))
            && self.body_text.contains("ClusterDimension");
        let cluster = clustered
            .then(|| cluster_of(&self.body_text, &name))
            .flatten();
        let unread = (clustered && cluster.is_none()).then(|| {
            format!(
                "`{name}.attrs`: the launch's cluster dimensions are not literals the reading core reads"
            )
        });
        let (grid, block, smem) = (
            member("gridDim"),
            member("blockDim"),
            member("dynamicSmemBytes"),
        );
        let site = (crate::LaunchForm::LaunchKernelEx, kernel.text());
        let kernel = uncast(*kernel);
        let first = self.launches.len();
        let launch = self.launch_parts(
            e,
            (kernel, site),
            [grid, block, smem],
            [Some(config); 3],
            &[],
            d,
        );
        if let Some(written) = self.launches.get_mut(first) {
            written.1.unread = unread;
            written.1.cluster = cluster;
        }
        launch
    }

    /// A launch at `e` of the kernel `function` names (`k`, `k<T, 64>`, `ns::k`, a name
    /// bound to a kernel), with its grid, block and dynamic shared memory (0 where not
    /// given); `args`: the kernel's arguments, from which its template arguments are
    /// deduced where none is written.
    fn launch(
        &mut self,
        e: At<'_>,
        (function, site): (At<'_>, (crate::LaunchForm, &str)),
        [grid_node, block_node]: [At<'_>; 2],
        smem_node: Option<At<'_>>,
        args: &[At<'_>],
        d: usize,
    ) -> Expr {
        let grid = self.as_dims(grid_node, d);
        let block = self.as_dims(block_node, d);
        let smem = match smem_node {
            Some(s) => self.expr(s, d),
            None => Expr::Int(0, Some(IntTy::U64)),
        };
        self.launch_parts(
            e,
            (function, site),
            [grid, block, smem],
            [Some(grid_node), Some(block_node), smem_node],
            args,
            d,
        )
    }

    /// [`Lower::launch`] of a grid, block and shared memory lowered already, written at
    /// `written` (`None`: not written).
    fn launch_parts(
        &mut self,
        e: At<'_>,
        (function, (form, kernel_written)): (At<'_>, (crate::LaunchForm, &str)),
        [grid, block, smem]: [Expr; 3],
        written: [Option<At<'_>>; 3],
        args: &[At<'_>],
        d: usize,
    ) -> Expr {
        let kernel_at = self.at(function);
        let [grid_at, block_at, smem_at] = written.map(|w| match w {
            Some(w) => self.at(w),
            None => ir::At::NONE,
        });
        let at = self.launch_at(e);
        let origin = |w: Option<At<'_>>| {
            let text = w.map_or("", |w| w.text());
            let is_param = self.params.contains(text.trim());
            crate::choices::written_origin(text, is_param, &self.function)
        };
        let origins = match form {
            crate::LaunchForm::TripleChevron => [origin(written[1]), origin(written[2])],
            _ => [None, None],
        };
        self.launches.push((
            at,
            LaunchWritten {
                form,
                kernel: kernel_written.to_owned(),
                function: self.function.clone(),
                candidates: crate::choices::site_candidates(e, &mut HashMap::new()),
                origins,
                unread: None,
                cluster: None,
            },
        ));
        // `k<T, 64>`, `ns::k<T>`: the template's arguments.
        let mut named = Some(function);
        let mut steps = 0;
        while let Some(n) = named.filter(|n| n.kind() == Some(Kind::QualifiedIdentifier)) {
            steps += 1;
            named = n.field(Field::Name).filter(|_| steps < MAX_DEPTH);
        }
        let template_args = match named {
            Some(n) if n.kind() == Some(Kind::TemplateFunction) => n
                .field(Field::Arguments)
                .map(|list| list.children())
                .unwrap_or_default()
                .into_iter()
                .map(|a| self.template_arg(a, d))
                .collect(),
            // A template kernel launched without its arguments: deduced from the launch's.
            Some(n) => self.deduce_kernel(n.text(), args, d),
            None => Vec::new(),
        };
        Expr::CustLaunch(Box::new(CustLaunch {
            kernel: Some((function.text().to_owned(), kernel_at)),
            template_args,
            grid,
            block,
            smem,
            at,
            grid_at,
            block_at,
            smem_at,
        }))
    }
}

/// The name `&name` lends (`&prop` of `cudaGetDeviceProperties(&prop, 0)`).
fn lent_name(out: At<'_>) -> Option<&str> {
    out.text()
        .strip_prefix('&')
        .map(str::trim)
        .filter(|n| n.chars().all(|c| c == '_' || c.is_ascii_alphanumeric()))
}

/// `chain` (an `if`, perhaps with `else if`s) with `otherwise` as the `else` of its last
/// `if` that has none; a chain that ends in an `else` already is kept as it is.
fn with_else(chain: Expr, otherwise: Expr) -> Expr {
    let Expr::If(mut i) = chain else {
        return chain;
    };
    i.otherwise = match i.otherwise.take() {
        None => Some(otherwise),
        Some(inner @ Expr::If(_)) => Some(with_else(inner, otherwise)),
        // A case's expansion, `{ if .. else if .. }`: its last `if` takes it.
        Some(Expr::Block(mut b)) if b.tail.is_none() => {
            match b.stmts.pop() {
                Some(Stmt::Expr(inner @ Expr::If(_))) => {
                    b.stmts.push(Stmt::Expr(with_else(inner, otherwise)));
                }
                last => b.stmts.extend(last),
            }
            Some(Expr::Block(b))
        }
        Some(done) => Some(done),
    };
    Expr::If(i)
}

/// `k` without the casts and parentheses around it (`(const void*)k`,
/// `reinterpret_cast<void*>(k)`).
fn uncast(k: At<'_>) -> At<'_> {
    let mut k = k;
    for _ in 0..MAX_DEPTH {
        let inner = match k.kind() {
            Some(Kind::ParenthesizedExpression) => k.children().first().copied(),
            Some(Kind::CastExpression) => k.field(Field::Value),
            Some(Kind::CallExpression) => crate::index::named_cast(k).map(|(_, operand)| operand),
            _ => None,
        };
        match inner {
            Some(i) => k = i,
            None => break,
        }
    }
    k
}

/// `if !test { break }`.
fn break_unless(test: Expr) -> Expr {
    Expr::If(Box::new(If {
        condition: Expr::Not(Box::new(test)),
        then: Block {
            stmts: vec![Stmt::Expr(Expr::Break(None, None))],
            tail: None,
        },
        otherwise: None,
        at: ir::At::NONE,
    }))
}

/// A path of one name.
/// Whether `ty` is the runtime's `cudaLaunchConfig_t` (`const`, `struct` and a namespace
/// aside).
fn is_launch_config(ty: &str) -> bool {
    ty.split_whitespace()
        .filter(|w| !matches!(*w, "const" | "struct" | "volatile"))
        .any(|w| w.rsplit("::").next() == Some("cudaLaunchConfig_t"))
}

fn local(name: &str) -> ir::Path {
    ir::Path {
        leading_colon: false,
        segments: vec![occupancy_read::names::seg(name)],
    }
}

fn lambda_label(label: u32) -> String {
    format!("'lambda{label}")
}

fn switch_label(label: u32) -> String {
    format!("'switch{label}")
}

fn one() -> Expr {
    Expr::Int(1, None)
}

/// `e` as a test: a comparison or a logical operation as it is, anything else compared with
/// 0 (C++'s conversion to `bool`).
fn truthy(e: Expr) -> Expr {
    match e {
        Expr::Compare(..) | Expr::And(..) | Expr::Or(..) | Expr::Not(_) | Expr::Bool(_) => e,
        Expr::Opaque(_) => e,
        other => Expr::Compare(
            Comparison::Ne,
            Box::new(other),
            Box::new(Expr::Int(0, None)),
        ),
    }
}

/// An integer literal's value and C++ type: decimal, `0x`, `0b`, octal, `'` separators,
/// the suffixes `u`, `l`, `ll`, `z` in any case, `u` before or after; the type the first of C++'s
/// list for the literal that holds the value (`int`, then `long` for a decimal; `int`,
/// `unsigned`, `long`, `unsigned long` for the others). `None` for a floating-point or
/// unreadable literal, and one past `unsigned long`.
pub(crate) fn number(text: &str) -> Option<(i128, IntTy)> {
    let text: String = text.chars().filter(|&c| c != '\'').collect();
    let lower = text.to_ascii_lowercase();
    let (radix, digits) = if let Some(hex) = lower.strip_prefix("0x") {
        (16, hex)
    } else if let Some(bin) = lower.strip_prefix("0b") {
        (2, bin)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..])
    } else {
        (10, lower.as_str())
    };
    let end = digits
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(digits.len());
    let (digits, suffix) = digits.split_at(end);
    if digits.is_empty() && radix != 8 {
        return None;
    }
    let value = if digits.is_empty() {
        0
    } else {
        i128::from_str_radix(digits, radix).ok()?
    };
    // C++'s suffixes: `u`, `l` or `ll` (not `lL`), in either order, or `z` (C++23).
    let original_suffix = &text[text.len() - suffix.len()..];
    if !matches!(
        suffix,
        "" | "u" | "l" | "ul" | "lu" | "ll" | "ull" | "llu" | "z" | "uz" | "zu"
    ) || (suffix.contains("ll")
        && !original_suffix.contains("ll")
        && !original_suffix.contains("LL"))
    {
        return None;
    }
    let unsigned = suffix.contains('u');
    // `z` is the signed type of `size_t`'s width (C++23), `uz` `size_t`.
    let long = suffix.contains('l') || suffix.contains('z');
    let fits = |ty: IntTy| value <= ty.max();
    let candidates: &[IntTy] = match (unsigned, long, radix == 10) {
        (true, true, _) => &[IntTy::U64],
        (true, false, _) => &[IntTy::U32, IntTy::U64],
        (false, true, true) => &[IntTy::I64],
        (false, true, false) => &[IntTy::I64, IntTy::U64],
        (false, false, true) => &[IntTy::I32, IntTy::I64],
        (false, false, false) => &[IntTy::I32, IntTy::U32, IntTy::I64, IntTy::U64],
    };
    candidates
        .iter()
        .copied()
        .find(|&t| fits(t))
        .map(|t| (value, t))
}

/// The names a statement not lowered may write: those assigned, incremented or declared in
/// it, and those whose address it takes (`init(&n)`).
fn written(at: At<'_>, out: &mut Vec<String>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let target = match at.kind() {
        Some(Kind::AssignmentExpression) => at.field(Field::Left),
        Some(Kind::UpdateExpression) => at.field(Field::Argument),
        Some(Kind::PointerExpression) if at.text().starts_with('&') => at.field(Field::Argument),
        Some(Kind::InitDeclarator) => at.field(Field::Declarator),
        _ => None,
    };
    if let Some(t) = target
        && let Some(name) = crate::index::declared_name(t)
            .or_else(|| (t.kind() == Some(Kind::Identifier)).then(|| t.text().to_owned()))
        && !out.contains(&name)
    {
        out.push(name);
    }
    for c in at.children() {
        written(c, out, depth + 1);
    }
}

mod core;

mod layout;
mod record;
mod types;
pub(crate) use core::{CoreRead, Made, SiteKey, squeezed, unit_sites, with_targets};

/// The cluster a function's body `text` gives the `cudaLaunchConfig_t` named `config`:
/// `config.attrs = attrs;`, `config.numAttrs = n;`, and of the `attrs[i]` (`i < n`) whose
/// `.id` is `cudaLaunchAttributeClusterDimension`, `.val.clusterDim.x` (`.y`, `.z`) each
/// assigned once, a literal (white space aside). `None` where any of that is otherwise
/// (a value computed, assigned twice, an attribute given twice): the launch is then not
/// checked, never checked without its cluster.
fn cluster_of(text: &str, config: &str) -> Option<[u32; 3]> {
    let text: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    // The one value assigned to `place`, up to its `;`.
    let assigned = |place: &str| -> Option<&str> {
        let pattern = format!("{place}=");
        let mut found = text.match_indices(&pattern).filter(|(i, _)| {
            // A whole name: not `xconfig.attrs=`, nor `==`.
            let before = text[..*i].chars().next_back();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
                && !text[i + pattern.len()..].starts_with('=')
        });
        let (i, _) = found.next()?;
        if found.next().is_some() {
            return None;
        }
        let rest = &text[i + pattern.len()..];
        rest.split(';').next()
    };
    let attrs = assigned(&format!("{config}.attrs"))?;
    if !attrs.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let count: usize = assigned(&format!("{config}.numAttrs"))?.parse().ok()?;
    let mut cluster = None;
    for i in 0..count.min(16) {
        let id = assigned(&format!("{attrs}[{i}].id"))?;
        if !id.ends_with("cudaLaunchAttributeClusterDimension") {
            continue;
        }
        if cluster.is_some() {
            return None;
        }
        let axis = |a: &str| -> Option<u32> {
            let v = assigned(&format!("{attrs}[{i}].val.clusterDim.{a}"))?;
            v.trim_end_matches(['u', 'U']).parse().ok()
        };
        cluster = Some([axis("x")?, axis("y")?, axis("z")?]);
    }
    cluster
}

#[cfg(test)]
mod tests;
