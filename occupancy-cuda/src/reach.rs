//! Which roots of a unit can reach a launch at all, so that the interpreter follows only
//! those: a `__device__` helper no host function names (a traits member's
//! `vec_dot_*` function, say) is a root like an `extern "C"` launcher, and following its
//! loops makes no launch while it costs as much as the launchers.
//!
//! The interpreter reaches code only by name: a call's callee is the unit's function of
//! that (last-segment) name, a macro is expanded by name, a constant's or a traits
//! member's initialiser is evaluated where its name is read. So a name *may launch* when
//! the text of what it names writes a launch (`<<<`, a `cudaLaunch*` / `cuLaunch*` call)
//! or mentions a name that may launch; a macro that pastes tokens (`##`) may make any
//! name, so it may launch whenever anything of the unit does. A root that may not launch
//! records nothing when followed: skipping it loses no launch and no path. Comments and
//! strings count as text: the test errs on the side of following.

use std::collections::{HashMap, HashSet};

use crate::index::{Function, Index, Init, identifiers};

/// The calls that launch a kernel (or set up the one a path launches).
const LAUNCH_CALLS: &[&str] = &[
    "cudaLaunchKernelEx",
    "cudaLaunchKernelExC",
    "cudaLaunchKernel",
    "cudaLaunchCooperativeKernel",
    "cuLaunchKernelEx",
    "cuLaunchKernel",
    "cuLaunchCooperativeKernel",
];

/// One named thing of the unit and the words of its text.
struct Entity {
    name: String,
    words: HashSet<String>,
    /// Its text writes a launch itself.
    launches: bool,
    /// A macro that pastes tokens.
    pastes: bool,
}

/// The names of a unit from which a launch may be reached.
pub(crate) struct Reach {
    names: HashSet<String>,
}

impl Reach {
    /// Works out which names of `index` may reach a launch.
    pub(crate) fn of(index: &Index<'_>) -> Reach {
        let entities = entities(index);
        let mut users: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, e) in entities.iter().enumerate() {
            for w in &e.words {
                users.entry(w.as_str()).or_default().push(i);
            }
        }
        let any = entities.iter().any(|e| e.launches);
        let mut names = HashSet::new();
        let mut queue: Vec<&str> = Vec::new();
        for e in &entities {
            if (e.launches || (any && e.pastes)) && names.insert(e.name.clone()) {
                queue.push(&e.name);
            }
        }
        while let Some(name) = queue.pop() {
            for &i in users.get(name).map_or(&[][..], Vec::as_slice) {
                let user = &entities[i].name;
                if names.insert(user.clone()) {
                    queue.push(user);
                }
            }
        }
        Reach { names }
    }

    /// Whether following `f` may reach a launch.
    pub(crate) fn may_launch(&self, f: &Function<'_>) -> bool {
        self.names.contains(&f.name)
    }
}

/// Every host function, macro, constant, struct and alias of the unit, with its text's
/// words.
fn entities(index: &Index<'_>) -> Vec<Entity> {
    let mut out = Vec::new();
    let mut add = |name: &str, text: &str, pastes: bool| {
        let words = identifiers(text);
        let launches = text.contains("<<<") || LAUNCH_CALLS.iter().any(|c| words.contains(*c));
        out.push(Entity {
            name: name.to_owned(),
            words,
            launches,
            pastes,
        });
    };
    for f in index.all_functions.iter().filter(|f| !f.is_kernel) {
        let mut text = f.body.text().to_owned();
        let defaults = f.template.iter().filter_map(|t| t.default);
        for d in defaults.chain(f.params.iter().filter_map(|p| p.default)) {
            text.push(' ');
            text.push_str(d.text());
        }
        add(&f.name, &text, false);
    }
    for (name, ms) in &index.macros {
        for m in ms {
            add(name, &m.body, m.body.contains("##"));
        }
    }
    for (name, cs) in &index.constants {
        for c in cs {
            add(name, &init_text(&c.init), false);
        }
    }
    for (name, ss) in &index.structs {
        for s in ss {
            let mut text = String::new();
            for (member, c) in &s.members {
                text.push_str(member);
                text.push(' ');
                text.push_str(&init_text(&c.init));
                text.push(' ');
            }
            let nodes = s.aliases.values().chain(&s.bases);
            for at in nodes.chain(s.template.iter().filter_map(|t| t.default.as_ref())) {
                text.push_str(at.text());
                text.push(' ');
            }
            add(name, &text, false);
        }
    }
    for (name, at) in &index.aliases {
        add(name, at.text(), false);
    }
    out
}

/// The text a constant's value is computed from.
fn init_text(init: &Init<'_>) -> String {
    match init {
        Init::Expr(at, ty) => format!("{} {ty}", at.text()),
        Init::NextAfter(previous) => previous.clone().unwrap_or_default(),
    }
}
