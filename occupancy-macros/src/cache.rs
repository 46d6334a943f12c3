//! The expansion cache: an attribute's expansion kept between compilations and replayed,
//! without reading anything, while nothing it was computed from has changed.
//!
//! `cargo check` after an edit elsewhere in a crate expands every `#[occupancy::check]` of
//! the crate again, and each expansion reads the crate's sources, the resource manifest and
//! the policy (PERFORMANCE.md, section 2). Replayed, an expansion costs a look at each file
//! it read and a lex of its generated part.
//!
//! **The key** ([`Cache::open`]): the macro's own build (its shared library's path, length
//! and time), every argument of the compiler process (crate name, `--cfg`s, edition, emit
//! kind), the variables the front end reads, the wrapper's file and the attribute's place in
//! it, and the attribute's and the item's tokens as text. A second attribute with a key
//! this process has seen (one file compiled as two modules: `#[path]` twice, `include!`)
//! is expanded afresh, not stored, and shares no confirmation (`tracked::first`). **The
//! record** kept with the entry:
//! every path the front end looked at while this compilation expanded (`occupancy_core::
//! file::recorded`: files read, with their length, time and digest; files and folders looked
//! for, found or not; links resolved) and the wrapper's own file, each checked before a
//! replay (`file::still`: a file whose time changed is read and compared by digest).
//!
//! **The entry**: the expansion with every part copied whole from the input (the function's
//! body, its signature) left as a reference to that input token tree, the rest as text, and
//! for each token of the text where its span comes from (an input token, by where it is in
//! the input: the attribute's or the item's tokens, then its index in each group on the
//! way; or the call site, found by the place where its span starts). Trees copied whole
//! side by side from one input stream (a signature, a body's statements) are one ref and
//! one placeholder token of the text. A token tree copied
//! whole (a doc comment's tokens, which share one place, included) is found by its place and
//! the compiler's printing of it. Replayed, the text is lexed by the compiler and each token
//! given the span of this compilation's input token: the same spans, hygiene included, as a
//! fresh expansion. An expansion that could not be replayed exactly is not stored: a token
//! whose span is neither an input token's nor the call site's, two unlike input tokens at
//! one place (as in a `macro_rules!` expansion), an invisible-delimiter group, or a text that
//! does not lex back to the same tokens; each stored entry is replayed once when stored and
//! compared with the expansion as the compiler prints both.
//!
//! **Cost** (bench/macro-cost, PERFORMANCE.md section 2): the macro is built at opt-level 0
//! in most users' builds, where each call into the compiler and each loop over bytes is
//! dear; so the key and the file digests use [`file::digest_seeded`] (not std's SipHash),
//! the part of the key that is the same for the whole compiler process is digested once,
//! places are looked up in a sorted list, streams are built from collected trees, a replay
//! lists only the input streams its refs go into (a function's body copied statement by
//! statement costs the body's top-level trees, not every token in it), and the entries'
//! folder is pruned once per process.
//!
//! **Where**: beside the compiler's `--out-dir` (`target/debug/occupancy-expansions/` for
//! `target/debug/deps`), one file per attribute, written through a rename; when a compiler
//! process first stores, the older half is removed if there are more than [`MAX_ENTRIES`]. No cache without an `--out-dir` (rust-analyzer's proc-macro
//! server), outside Linux (the macro's build is found through `/proc/self/maps`), with the
//! `nightly` feature (its diagnostics are not tokens), or with `OCCUPANCY_NO_CACHE` set.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use occupancy_core::file::{self, Seen};

use crate::tracked;
use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};

/// The most entries kept; past it, the older half is removed when one is stored.
pub(crate) const MAX_ENTRIES: usize = 2048;

/// The first line of an entry: the format and its version.
const MAGIC: &str = "occupancy-expansion 6";

/// The variable that turns the cache off.
const OFF_VAR: &str = "OCCUPANCY_NO_CACHE";

/// An attribute's place in the cache: its key and the entry's file.
pub(crate) struct Cache {
    key: u128,
    entry: PathBuf,
    wrapper_file: PathBuf,
    /// The attribute's and the item's tokens: [`Stream::Root`] 0 and 1.
    input: [TokenStream; 2],
}

impl Cache {
    /// The cache entry of the attribute `args` on `item`, expanded at the call site; `None`
    /// where no cache is kept (see the module's documentation). Starts the record of the
    /// paths the front end looks at.
    pub(crate) fn open(args: &TokenStream, item: &TokenStream) -> Option<Cache> {
        if cfg!(feature = "nightly")
            || !proc_macro::is_available()
            || std::env::var_os(OFF_VAR).is_some()
        {
            return None;
        }
        let compiler = compiler()?;
        let wrapper_file = proc_macro::Span::call_site().local_file()?;
        let wrapper_file = std::path::absolute(&wrapper_file).unwrap_or(wrapper_file);
        let call_site = Span::call_site();
        let mut key = KeyText::default();
        key.part(process_key()?.to_le_bytes());
        key.part(wrapper_file.as_os_str().as_encoded_bytes());
        let (line, column) = location(call_site);
        key.part(format!("{line}:{column}"));
        key.part(args.to_string());
        key.part(item.to_string());
        let key = key.finish();
        if !tracked::first(key) {
            return None;
        }
        file::start_recording();
        let input = [args.clone(), item.clone()];
        Some(Cache {
            key,
            entry: compiler.dir.join(format!("{key:032x}.exp")),
            wrapper_file,
            input,
        })
    }

    /// The attribute's key: the same for the same attribute on the same tokens at the same
    /// place of a file, in the same compiler process.
    pub(crate) fn key(&self) -> u128 {
        self.key
    }

    /// The stored expansion, replayed with this compilation's spans, if there is one and
    /// every path it was computed from shows what it showed then.
    pub(crate) fn replay(&self) -> Option<TokenStream> {
        let bytes = std::fs::read(&self.entry).ok()?;
        let entry = Entry::parse(std::str::from_utf8(&bytes).ok()?, self.key)?;
        let tracked = holds(entry.deps)?;
        if !tracked::may_replay(&tracked) {
            return None;
        }
        let mut input = Input::new(&self.input, &entry.streams);
        let replayed = rebuild_all(&lex(entry.text)?, entry.refs, &mut input)?;
        tracked::replayed(&tracked);
        Some(replayed)
    }

    /// Keeps `output`, the expansion just made, if it can be replayed exactly (checked by
    /// replaying it here).
    pub(crate) fn store(&self, output: &TokenStream, tracked: &tracked::Record) {
        // The wrapper's own file: rustc read it, the front end perhaps not.
        let _ = file::read(&self.wrapper_file, "source file", file::MAX_TEXT_BYTES);
        let Some(text) = self.entry_text(output, tracked) else {
            return;
        };
        let Some(dir) = self.entry.parent() else {
            return;
        };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let temporary = self
            .entry
            .with_extension(format!("tmp{}", std::process::id()));
        if std::fs::write(&temporary, text).is_ok() {
            let _ = std::fs::rename(&temporary, &self.entry);
        }
        let _ = std::fs::remove_file(&temporary);
        prune(dir);
    }

    /// The entry's text for `output`; `None` where it cannot be replayed exactly.
    fn entry_text(&self, output: &TokenStream, tracked: &tracked::Record) -> Option<String> {
        let input = Flat::of(&self.input);
        let places = Places::of(&input.trees)?;
        let (mut streams, mut refs) = (Streams::default(), Vec::new());
        let skeleton = skeleton(output, &places, &input, &mut streams, &mut refs)?;
        let text = skeleton.to_string();
        let mut replay_input = Input::new(&self.input, &streams.list);
        let replayed = rebuild_all(&lex(&text)?, refs.clone(), &mut replay_input)?;
        // The same tokens: printed alike (the compiler prints, at its speed). Their spans are
        // right by construction: each ref was found from its token's place.
        if output.to_string() != replayed.to_string() {
            return None;
        }
        let mut deps = String::new();
        for (path, seen) in file::recorded() {
            deps.push_str(&dep_line(&path, &seen)?);
        }
        for (kind, facts) in [("inc", &tracked.included), ("omit", &tracked.omitted)] {
            for fact in facts {
                deps.push_str(&format!("{kind}\t{fact}\n"));
            }
        }
        Some(entry_file(self.key, &deps, &streams.list, &refs, &text))
    }
}

/// The text a key is the digest of: its parts, each with its length, so that no two lists
/// of parts give the same text.
#[derive(Default)]
struct KeyText(Vec<u8>);

impl KeyText {
    fn part(&mut self, bytes: impl AsRef<[u8]>) {
        let bytes = bytes.as_ref();
        self.0
            .extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        self.0.extend_from_slice(bytes);
    }

    /// A part that is not there (an unset variable), unlike any part that is.
    fn absent(&mut self) {
        self.0.extend_from_slice(&u64::MAX.to_le_bytes());
    }

    /// Two independent 64-bit digests of the text, as one 128-bit key.
    fn finish(&self) -> u128 {
        (u128::from(file::digest_seeded(&self.0, 1)) << 64)
            | u128::from(file::digest_seeded(&self.0, 2))
    }
}

/// The part of every key that is the same for the whole compiler process, digested once:
/// the compiler's arguments, the macro's build and the variables the front end reads.
fn process_key() -> Option<u128> {
    static KEY: OnceLock<Option<u128>> = OnceLock::new();
    *KEY.get_or_init(|| {
        let mut key = KeyText::default();
        key.part(&compiler()?.args);
        key.part(macro_build()?);
        for name in ["CARGO_MANIFEST_DIR", "CARGO_PKG_NAME", "CARGO_CRATE_NAME"]
            .iter()
            .chain(occupancy_attr::Env::VARS)
        {
            match std::env::var_os(name) {
                Some(value) => key.part(value.as_encoded_bytes()),
                None => key.absent(),
            }
        }
        Some(key.finish())
    })
}

/// The compiler process: its arguments (each ended by a NUL) and the cache's folder beside
/// its `--out-dir`.
struct Compiler {
    args: String,
    dir: PathBuf,
}

/// Whether this is a compiler process that writes files (it has an `--out-dir`): not
/// rust-analyzer's proc-macro server, not a unit test.
pub(crate) fn in_compiler() -> bool {
    proc_macro::is_available() && compiler().is_some()
}

/// This compiler process's arguments and cache folder, once per process; `None` without an
/// `--out-dir`.
fn compiler() -> Option<&'static Compiler> {
    static COMPILER: OnceLock<Option<Compiler>> = OnceLock::new();
    COMPILER
        .get_or_init(|| {
            let args: Vec<String> = std::env::args().collect();
            let out_dir = args
                .iter()
                .enumerate()
                .find_map(|(i, a)| match a.as_str() {
                    "--out-dir" => args.get(i + 1).map(PathBuf::from),
                    _ => a.strip_prefix("--out-dir=").map(PathBuf::from),
                })?;
            let base = out_dir.parent().unwrap_or(&out_dir).to_path_buf();
            Some(Compiler {
                args: args.iter().flat_map(|a| [a.as_str(), "\0"]).collect(),
                dir: base.join("occupancy-expansions"),
            })
        })
        .as_ref()
}

/// The macro's shared library, as the path, length and time of the file mapped where this
/// function's code is (`/proc/self/maps`); `None` outside Linux or where it is not found.
fn macro_build() -> Option<&'static str> {
    static BUILD: OnceLock<Option<String>> = OnceLock::new();
    BUILD
        .get_or_init(|| {
            if !cfg!(target_os = "linux") {
                return None;
            }
            let here = macro_build as *const () as usize;
            let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
            let path = maps.lines().find_map(|line| mapped_file(line, here))?;
            let metadata = std::fs::metadata(path).ok()?;
            let modified = metadata
                .modified()
                .ok()?
                .duration_since(std::time::UNIX_EPOCH)
                .ok()?;
            Some(format!("{path} {} {}", metadata.len(), modified.as_nanos()))
        })
        .as_deref()
}

/// The file of a `/proc/self/maps` line (`start-end perms offset dev inode path`) if its
/// range holds `address`.
fn mapped_file(line: &str, address: usize) -> Option<&str> {
    let (range, rest) = line.split_once(' ')?;
    let (start, end) = range.split_once('-')?;
    let (start, end) = (
        usize::from_str_radix(start, 16).ok()?,
        usize::from_str_radix(end, 16).ok()?,
    );
    if !(start..end).contains(&address) {
        return None;
    }
    // Four fields, then the path (which may hold spaces).
    let mut rest = rest;
    for _ in 0..4 {
        rest = rest.trim_start().split_once(' ')?.1;
    }
    let path = rest.trim_start();
    path.starts_with('/').then_some(path)
}

/// A span's place: its start's line and column. The end is looked up only where it tells
/// spans apart (it costs the compiler two more lookups): two spans that start at one place
/// are one token's, share a place as a doc comment's tokens do, or are a group's and its
/// opening delimiter's (`Group::span_open`); stable Rust makes no other span that starts at
/// a token and ends elsewhere (`Span::join` and `subspan` are unstable).
type Location = (usize, usize);

fn location(span: Span) -> Location {
    let start = span.start();
    (start.line, start.column)
}

/// The two spans end at one place.
fn same_end(a: Span, b: Span) -> bool {
    let (a, b) = (a.end(), b.end());
    (a.line, a.column) == (b.line, b.column)
}

/// An input token tree by where it is: its index in one of the streams an entry lists
/// ([`Stream`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct At {
    stream: u32,
    index: u32,
}

/// A stream of input tokens that an entry's refs point into: the attribute's tokens (root
/// 0), the item's (root 1), or the group at a tree of an earlier stream of the entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stream {
    Root(u32),
    Group(At),
}

/// Every token tree of the input, a group before its contents, depth first, with where it
/// is (its root, then its index in each stream on the way): the store's view, where every
/// tree's place is looked up.
struct Flat {
    trees: Vec<TokenTree>,
    paths: Vec<Vec<u32>>,
}

impl Flat {
    fn of(roots: &[TokenStream; 2]) -> Flat {
        let mut flat = Flat {
            trees: Vec::new(),
            paths: Vec::new(),
        };
        for (n, root) in (0..).zip(roots) {
            flat.add(root, &[n]);
        }
        flat
    }

    fn add(&mut self, stream: &TokenStream, parent: &[u32]) {
        for (n, tree) in (0..).zip(stream.clone()) {
            let inner = match &tree {
                TokenTree::Group(g) => Some(g.stream()),
                _ => None,
            };
            let mut path = parent.to_vec();
            path.push(n);
            self.trees.push(tree);
            self.paths.push(path.clone());
            if let Some(inner) = inner {
                self.add(&inner, &path);
            }
        }
    }
}

/// The streams an entry's refs point into, as a store numbers them: each once, a group
/// after the stream it is in.
#[derive(Default)]
struct Streams {
    list: Vec<Stream>,
    paths: Vec<Vec<u32>>,
}

impl Streams {
    /// The number of the stream at `path` (a root, or a group's path), added with the
    /// streams it is in if it is new.
    fn id(&mut self, path: &[u32]) -> Option<u32> {
        if let Some(i) = self.paths.iter().position(|p| p == path) {
            return u32::try_from(i).ok();
        }
        if path.len() > MAX_NESTING + 1 {
            return None;
        }
        let stream = match path {
            [] => return None,
            [root] => Stream::Root(*root),
            [up @ .., index] => Stream::Group(At {
                stream: self.id(up)?,
                index: *index,
            }),
        };
        self.paths.push(path.to_vec());
        self.list.push(stream);
        u32::try_from(self.list.len() - 1).ok()
    }

    /// Where the tree at `path` is.
    fn at(&mut self, path: &[u32]) -> Option<At> {
        let (&index, up) = path.split_last()?;
        Some(At {
            stream: self.id(up)?,
            index,
        })
    }
}

/// The input's token trees as a replay reaches them: a stream is listed (one call to the
/// compiler) only when a ref points into it, so a replay costs the streams its refs go
/// into, not every token of the item.
struct Input<'a> {
    roots: &'a [TokenStream; 2],
    streams: &'a [Stream],
    /// Each stream's trees, once listed.
    lists: Vec<Option<Vec<TokenTree>>>,
}

impl<'a> Input<'a> {
    fn new(roots: &'a [TokenStream; 2], streams: &'a [Stream]) -> Input<'a> {
        Input {
            roots,
            streams,
            lists: streams.iter().map(|_| None).collect(),
        }
    }

    /// The tree at `at`; `None` if there is none (an entry of another input).
    fn get(&mut self, at: At) -> Option<&TokenTree> {
        let s = usize::try_from(at.stream).ok()?;
        if self.lists.get(s)?.is_none() {
            let stream = match *self.streams.get(s)? {
                Stream::Root(root) => self.roots.get(usize::try_from(root).ok()?)?.clone(),
                // An earlier stream's tree only: no loop.
                Stream::Group(up) if up.stream < at.stream => match self.get(up)? {
                    TokenTree::Group(g) => g.stream(),
                    _ => return None,
                },
                Stream::Group(_) => return None,
            };
            self.lists[s] = Some(stream.into_iter().collect());
        }
        self.lists
            .get(s)?
            .as_ref()?
            .get(usize::try_from(at.index).ok()?)
    }
}

/// Where a span of the output comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ref {
    /// `Span::call_site()`.
    CallSite,
    /// The span of an input token tree.
    Input(At),
    /// An input token tree itself, whole (a group and all it holds, or one token).
    Whole(At),
    /// `count` (2 or more) input token trees side by side in one stream, whole, from
    /// `from` on: one placeholder token of the text ([`COPIED`]) stands for them (the
    /// statements of a body copied as they are).
    Copied { from: At, count: u32 },
}

/// The placeholder of [`Ref::Copied`] in an entry's text.
const COPIED: &str = "__occupancy_copied";

impl Ref {
    /// This ref and the input tree `next` copied after it, as one [`Ref::Copied`], if
    /// `next` is the tree after the last it copies, in the same stream.
    fn extended(self, next: At) -> Option<Ref> {
        let (from, count) = match self {
            Ref::Whole(from) => (from, 1),
            Ref::Copied { from, count } => (from, count),
            _ => return None,
        };
        (next.stream == from.stream && Some(next.index) == from.index.checked_add(count)).then_some(
            Ref::Copied {
                from,
                count: count + 1,
            },
        )
    }
}

impl std::fmt::Display for Ref {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ref::CallSite => f.write_str("c"),
            Ref::Input(t) => write!(f, "i{t}"),
            Ref::Whole(t) => write!(f, "w{t}"),
            Ref::Copied { from, count } => write!(f, "w{from}+{count}"),
        }
    }
}

impl std::fmt::Display for At {
    /// `2.15`: the stream's number, then the index.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.stream, self.index)
    }
}

/// `streams` as an entry's line: `r0 r1 1.6 2.3` (roots, then groups by where they are).
fn streams_text(streams: &[Stream]) -> String {
    let words: Vec<String> = streams
        .iter()
        .map(|s| match s {
            Stream::Root(n) => format!("r{n}"),
            Stream::Group(at) => at.to_string(),
        })
        .collect();
    words.join(" ")
}

/// The streams of an entry's line (see [`streams_text`]); `None` if it is not one, a group
/// is not in an earlier stream, or one is nested deeper than [`MAX_NESTING`] (a replay
/// lists a stream after the ones it is in, one call deeper each).
fn parse_streams(text: &str) -> Option<Vec<Stream>> {
    let bytes = text.as_bytes();
    let mut streams = Vec::new();
    // How deep each stream is: 0 for a root.
    let mut nesting: Vec<usize> = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if streams.len() == MAX_REFS {
            return None;
        }
        let (stream, depth) = if bytes[at] == b'r' {
            at += 1;
            (
                Stream::Root(u32::try_from(decimal(bytes, &mut at)?).ok()?),
                0,
            )
        } else {
            let up = position(bytes, &mut at)?;
            let depth = nesting.get(usize::try_from(up.stream).ok()?)? + 1;
            if depth > MAX_NESTING {
                return None;
            }
            (Stream::Group(up), depth)
        };
        streams.push(stream);
        nesting.push(depth);
        match bytes.get(at) {
            None => {}
            Some(b' ') if at + 1 < bytes.len() => at += 1,
            Some(_) => return None,
        }
    }
    Some(streams)
}

/// The deepest group a stored entry's refs point into: as deep as the front end reads
/// (`occupancy_read::ir::MAX_DEPTH`); an expansion that needs a deeper one is not stored.
const MAX_NESTING: usize = 256;

/// `refs` as an entry's line: runs of one ref as `ref*count` (`c*32 i2.5*20 w1.12`).
fn refs_text(refs: &[Ref]) -> String {
    let mut text = String::new();
    let mut i = 0;
    while i < refs.len() {
        let run = refs[i..].iter().take_while(|&&r| r == refs[i]).count();
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(&refs[i].to_string());
        if run > 1 {
            text.push_str(&format!("*{run}"));
        }
        i += run;
    }
    text
}

/// The refs of an entry's line (see [`refs_text`]); `None` if it is not one. At most
/// [`MAX_REFS`] in all. Read a byte at a time with primitive indexing: `split`, `parse` and
/// `FromStr` cost about 1,800 instructions a run in a macro built at opt-level 0.
fn parse_refs(text: &str) -> Option<Vec<Ref>> {
    let bytes = text.as_bytes();
    let mut refs = Vec::new();
    let mut at = 0;
    loop {
        let kind = *bytes.get(at)?;
        at += 1;
        let r = match kind {
            b'c' => Ref::CallSite,
            b'i' => Ref::Input(position(bytes, &mut at)?),
            b'w' => {
                let from = position(bytes, &mut at)?;
                if bytes.get(at) == Some(&b'+') {
                    at += 1;
                    let count = decimal(bytes, &mut at).filter(|&n| n > 1)?;
                    Ref::Copied {
                        from,
                        count: u32::try_from(count).ok()?,
                    }
                } else {
                    Ref::Whole(from)
                }
            }
            _ => return None,
        };
        let count = match bytes.get(at) {
            Some(b'*') => {
                at += 1;
                // A run of one is written without a count.
                decimal(bytes, &mut at).filter(|&n| n > 1)?
            }
            _ => 1,
        };
        if count > MAX_REFS - refs.len() {
            return None;
        }
        refs.resize(refs.len() + count, r);
        match bytes.get(at) {
            None => return Some(refs),
            Some(b' ') => at += 1,
            Some(_) => return None,
        }
    }
}

/// The [`At`] at `bytes[*at..]` (`2.15`, each number below 2^32), `at` moved past it.
fn position(bytes: &[u8], at: &mut usize) -> Option<At> {
    let stream = u32::try_from(decimal(bytes, at)?).ok()?;
    if bytes.get(*at) != Some(&b'.') {
        return None;
    }
    *at += 1;
    let index = u32::try_from(decimal(bytes, at)?).ok()?;
    Some(At { stream, index })
}

/// The decimal number of one or more digits at `bytes[*at..]`, `at` moved past it; `None`
/// with no digit there or past `usize`.
fn decimal(bytes: &[u8], at: &mut usize) -> Option<usize> {
    let start = *at;
    let mut n: usize = 0;
    while *at < bytes.len() && bytes[*at] >= b'0' && bytes[*at] <= b'9' {
        n = n
            .checked_mul(10)?
            .checked_add(usize::from(bytes[*at] - b'0'))?;
        *at += 1;
    }
    (*at > start).then_some(n)
}

/// The most refs an entry may hold: more than any expansion the front end makes (its input
/// is at most `occupancy_attr`'s item size limit), so that a damaged count cannot exhaust
/// memory.
const MAX_REFS: usize = 1 << 20;

/// The input token trees by place, sorted.
struct Places {
    call_site: Location,
    /// Each input token tree's place and number, sorted (a doc comment's `#`, `[..]`, `doc`,
    /// `=` and text share one place).
    input: Vec<(Location, usize)>,
}

impl Places {
    /// The places of the token trees of `input` (as [`Flat`] lists them); `None` where the
    /// call site shares a place with an input token.
    fn of(input: &[TokenTree]) -> Option<Places> {
        let mut places: Vec<(Location, usize)> = input
            .iter()
            .enumerate()
            .map(|(n, tree)| (location(tree.span()), n))
            .collect();
        places.sort_unstable();
        let places = Places {
            call_site: location(Span::call_site()),
            input: places,
        };
        places.at(places.call_site).is_empty().then_some(places)
    }

    /// The numbers of the input trees at `at`.
    fn at(&self, at: Location) -> &[(Location, usize)] {
        let start = self.input.partition_point(|(l, _)| *l < at);
        let end = start + self.input[start..].partition_point(|(l, _)| *l == at);
        &self.input[start..end]
    }

    /// The input tree at `at` that `tree` is a copy of (same kind, delimiter and text),
    /// if any: printed by the compiler, which is quick, to compare. (A generated group that
    /// printed as the input group at its place, with tokens given other spans inside, would
    /// be taken for a copy; the expansion makes none: it gives new tokens the span of one
    /// input token, never an input group's with copies of that group's tokens.)
    fn copied(&self, tree: &TokenTree, at: Location, input: &[TokenTree]) -> Option<usize> {
        let candidates = self.at(at);
        let alike = |other: &TokenTree| match (tree, other) {
            (TokenTree::Group(a), TokenTree::Group(b)) => a.delimiter() == b.delimiter(),
            (TokenTree::Ident(_), TokenTree::Ident(_))
            | (TokenTree::Literal(_), TokenTree::Literal(_)) => true,
            (TokenTree::Punct(a), TokenTree::Punct(b)) => {
                a.as_char() == b.as_char() && a.spacing() == b.spacing()
            }
            _ => false,
        };
        if !candidates.iter().any(|&(_, n)| alike(&input[n])) {
            return None;
        }
        let text = tree.to_string();
        candidates.iter().map(|&(_, n)| n).find(|&n| {
            alike(&input[n])
                && input[n].to_string() == text
                && (!matches!(tree, TokenTree::Group(_)) || same_end(tree.span(), input[n].span()))
        })
    }

    /// The ref of a span at `at`: the call site, or the one input token there; `None` where
    /// no input token or several are there.
    ///
    /// A group's place is also that of its opening delimiter's span (`Group::span_open`),
    /// which ends elsewhere: a span at a group's place is that group's only if it ends where
    /// the group does (the end is looked up there alone).
    fn span_ref(
        &self,
        at: Location,
        span: Span,
        input: &Flat,
        streams: &mut Streams,
    ) -> Option<Ref> {
        if at == self.call_site {
            return Some(Ref::CallSite);
        }
        match self.at(at) {
            [(_, n)] => match &input.trees[*n] {
                TokenTree::Group(g) if !same_end(span, g.span()) => None,
                _ => Some(Ref::Input(streams.at(&input.paths[*n])?)),
            },
            _ => None,
        }
    }
}

/// `output` with every token tree copied whole from the input as a [`Ref::Whole`] in `refs`
/// (a group emptied, a token kept as it is), and each other token's [`Ref`] pushed in
/// order; `None` where a span is not the call site's or one input token's, or a group that
/// is not a copy has invisible delimiters. A group is compared with the input group at its
/// place, if any, as printed by the compiler: a cost of its size per level of nesting.
fn skeleton(
    output: &TokenStream,
    places: &Places,
    input: &Flat,
    streams: &mut Streams,
    refs: &mut Vec<Ref>,
) -> Option<TokenStream> {
    let mut out = Vec::new();
    // The ref of the tree copied just before, at this level.
    let mut copied: Option<usize> = None;
    for tree in output.clone() {
        let at = location(tree.span());
        if let Some(n) = places.copied(&tree, at, &input.trees) {
            let here = streams.at(&input.paths[n])?;
            if let Some(last) = copied.and_then(|i| refs.get_mut(i))
                && let Some(run) = last.extended(here)
            {
                if let Ref::Whole(_) = last {
                    *out.last_mut()? = TokenTree::Ident(Ident::new(COPIED, Span::call_site()));
                }
                *last = run;
                continue;
            }
            copied = Some(refs.len());
            refs.push(Ref::Whole(here));
            out.push(match tree {
                TokenTree::Group(g) => {
                    TokenTree::Group(Group::new(g.delimiter(), TokenStream::new()))
                }
                leaf => leaf,
            });
            continue;
        }
        copied = None;
        refs.push(places.span_ref(at, tree.span(), input, streams)?);
        out.push(match tree {
            TokenTree::Group(g) if g.delimiter() != Delimiter::None => {
                let inner = skeleton(&g.stream(), places, input, streams, refs)?;
                TokenTree::Group(Group::new(g.delimiter(), inner))
            }
            TokenTree::Group(_) => return None,
            leaf => leaf,
        });
    }
    Some(out.into_iter().collect())
}

/// The lexed `skeleton` with its spans and whole input groups put back: the expansion.
fn rebuild_all(skeleton: &TokenStream, refs: Vec<Ref>, input: &mut Input) -> Option<TokenStream> {
    let mut refs = refs.into_iter();
    let out = rebuild(skeleton, &mut refs, input)?;
    refs.next().is_none().then_some(out)
}

fn rebuild(
    skeleton: &TokenStream,
    refs: &mut impl Iterator<Item = Ref>,
    input: &mut Input,
) -> Option<TokenStream> {
    // Trees collected, then made one stream: extending a stream tree by tree is a call to
    // the compiler each.
    let mut out = Vec::new();
    for mut tree in skeleton.clone() {
        let span = match refs.next()? {
            Ref::CallSite => Span::call_site(),
            Ref::Input(t) => input.get(t)?.span(),
            Ref::Copied { from, count } => {
                if !matches!(tree, TokenTree::Ident(_)) {
                    return None;
                }
                for k in 0..count {
                    let index = from.index.checked_add(k)?;
                    let whole = input.get(At { index, ..from })?;
                    out.push(whole.clone());
                }
                continue;
            }
            Ref::Whole(t) => {
                let whole = input.get(t)?;
                let alike = match (&tree, whole) {
                    (TokenTree::Group(g), TokenTree::Group(w)) => g.delimiter() == w.delimiter(),
                    (TokenTree::Ident(_), TokenTree::Ident(_))
                    | (TokenTree::Punct(_), TokenTree::Punct(_))
                    | (TokenTree::Literal(_), TokenTree::Literal(_)) => true,
                    _ => false,
                };
                if !alike {
                    return None;
                }
                out.push(whole.clone());
                continue;
            }
        };
        if let TokenTree::Group(g) = &tree {
            let inner = rebuild(&g.stream(), refs, input)?;
            let mut group = Group::new(g.delimiter(), inner);
            group.set_span(span);
            tree = TokenTree::Group(group);
        } else {
            tree.set_span(span);
        }
        out.push(tree);
    }
    Some(out.into_iter().collect())
}

/// The two streams hold the same tokens at the same places.
#[cfg(test)]
fn same(a: &TokenStream, b: &TokenStream) -> bool {
    let (a, b): (Vec<TokenTree>, Vec<TokenTree>) = (
        a.clone().into_iter().collect(),
        b.clone().into_iter().collect(),
    );
    a.len() == b.len() && a.iter().zip(&b).all(|(a, b)| same_tree(a, b))
}

#[cfg(test)]
fn same_tree(a: &TokenTree, b: &TokenTree) -> bool {
    if location(a.span()) != location(b.span()) {
        return false;
    }
    match (a, b) {
        (TokenTree::Group(a), TokenTree::Group(b)) => {
            a.delimiter() == b.delimiter() && same(&a.stream(), &b.stream())
        }
        (TokenTree::Ident(a), TokenTree::Ident(b)) => a == b,
        (TokenTree::Punct(a), TokenTree::Punct(b)) => {
            a.as_char() == b.as_char() && a.spacing() == b.spacing()
        }
        (TokenTree::Literal(a), TokenTree::Literal(b)) => a.to_string() == b.to_string(),
        _ => false,
    }
}

/// `text` lexed: by the compiler inside a proc macro, by proc-macro2 elsewhere (tests).
fn lex(text: &str) -> Option<TokenStream> {
    if proc_macro::is_available() {
        text.parse::<proc_macro::TokenStream>().ok().map(Into::into)
    } else {
        text.parse().ok()
    }
}

/// A path as an entry's text: `None` if it is not UTF-8 or holds a tab or a line break.
fn plain(p: &Path) -> Option<&str> {
    p.to_str().filter(|s| tracked::plain(s))
}

/// A recorded look at a path, as an entry's line; `None` for a path that is not UTF-8 or
/// holds a tab or a line break.
fn dep_line(path: &Path, seen: &Seen) -> Option<String> {
    let path = plain(path)?;
    Some(match seen {
        Seen::Read {
            bytes,
            modified_ns,
            digest,
        } => format!("dep R {bytes} {modified_ns} {digest:016x}\t{path}\n"),
        Seen::Resolves(to) => format!("dep L\t{}\t{path}\n", plain(to)?),
        Seen::Absent => format!("dep A\t{path}\n"),
        Seen::Dir => format!("dep D\t{path}\n"),
        Seen::File => format!("dep F\t{path}\n"),
        Seen::Other => format!("dep O\t{path}\n"),
    })
}

/// The look an entry's line records.
fn parse_dep(line: &str) -> Option<(PathBuf, Seen)> {
    let (kind, rest) = line.split_once('\t')?;
    let seen = match kind.split(' ').collect::<Vec<_>>().as_slice() {
        ["R", bytes, modified_ns, digest] => Seen::Read {
            bytes: bytes.parse().ok()?,
            modified_ns: modified_ns.parse().ok()?,
            digest: u64::from_str_radix(digest, 16).ok()?,
        },
        ["L"] => {
            let (to, path) = rest.split_once('\t')?;
            return Some((path.into(), Seen::Resolves(to.into())));
        }
        ["A"] => Seen::Absent,
        ["D"] => Seen::Dir,
        ["F"] => Seen::File,
        ["O"] => Seen::Other,
        _ => return None,
    };
    Some((rest.into(), seen))
}

/// [`file::still`], once per path and record in this process: the paths a crate's
/// attributes look at are mostly the same few. Kept in a list compared with `==` (a hash map
/// costs more in a proc macro built at opt-level 0), of at most [`MAX_CHECKED`].
fn still(dep: &(PathBuf, Seen)) -> bool {
    static CHECKED: Mutex<Vec<((PathBuf, Seen), bool)>> = Mutex::new(Vec::new());
    let mut checked = CHECKED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, known)) = checked.iter().find(|(d, _)| d == dep) {
        return *known;
    }
    let now = file::still(&dep.0, &dep.1);
    if checked.len() < MAX_CHECKED {
        checked.push((dep.clone(), now));
    }
    now
}

/// The most looks [`still`] keeps.
const MAX_CHECKED: usize = 256;

/// An entry's file: the format, the key, the sum (the digest of what follows its line), the
/// sizes of the deps and refs blocks in bytes, the deps block (`deps` lines of
/// [`dep_line`], `inc`/`omit` lines of `tracked.rs`'s facts), the refs block (a `streams`
/// line, [`streams_text`], and a `refs` line, [`refs_text`]), then the text to the end. The sizes let a replay slice the blocks without a
/// search, and compare a deps block with one already judged by a comparison of bytes.
fn entry_file(key: u128, deps: &str, streams: &[Stream], refs: &[Ref], text: &str) -> String {
    let refs = format!(
        "streams {}\nrefs {}\n",
        streams_text(streams),
        refs_text(refs)
    );
    let rest = format!("sizes {} {}\n{deps}{refs}{text}", deps.len(), refs.len());
    let sum = file::digest(rest.as_bytes());
    format!("{MAGIC}\nkey {key:032x}\nsum {sum:016x}\n{rest}")
}

/// A stored entry, parsed.
struct Entry<'a> {
    /// The deps block, judged by [`holds`].
    deps: &'a str,
    streams: Vec<Stream>,
    refs: Vec<Ref>,
    text: &'a str,
}

impl<'a> Entry<'a> {
    /// The entry in `file` (as [`entry_file`] writes it) if it is whole (its sum matches)
    /// and for `key`.
    fn parse(file: &'a str, key: u128) -> Option<Entry<'a>> {
        let (magic, rest) = file.split_once('\n')?;
        let (key_line, rest) = rest.split_once('\n')?;
        let (sum, rest) = rest.split_once('\n')?;
        if magic != MAGIC || u128::from_str_radix(key_line.strip_prefix("key ")?, 16).ok()? != key {
            return None;
        }
        if u64::from_str_radix(sum.strip_prefix("sum ")?, 16).ok()? != file::digest(rest.as_bytes())
        {
            return None;
        }
        let (sizes, rest) = rest.split_once('\n')?;
        let (deps_len, refs_len) = sizes.strip_prefix("sizes ")?.split_once(' ')?;
        let deps_len: usize = deps_len.parse().ok()?;
        let refs_end = deps_len.checked_add(refs_len.parse().ok()?)?;
        let (streams, refs) = rest.get(deps_len..refs_end)?.split_once('\n')?;
        Some(Entry {
            deps: rest.get(..deps_len)?,
            streams: parse_streams(streams.strip_prefix("streams ")?)?,
            refs: parse_refs(refs.strip_prefix("refs ")?.strip_suffix('\n')?)?,
            text: rest.get(refs_end..)?,
        })
    }
}

/// The facts of an entry's deps block (`tracked.rs`) if every path it records shows what it
/// showed then; `None` if one does not or the block is malformed. Judged once per block text
/// in this process (a crate's entries mostly hold the same block: every path read before
/// them in the compilation), at most [`MAX_JUDGED`] blocks kept.
fn holds(deps: &str) -> Option<tracked::Record> {
    type Judged = Vec<(String, Option<tracked::Record>)>;
    static JUDGED: Mutex<Judged> = Mutex::new(Vec::new());
    let mut judged = JUDGED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, record)) = judged.iter().find(|(block, _)| block == deps) {
        return record.clone();
    }
    let record = judge(deps);
    if judged.len() < MAX_JUDGED {
        judged.push((deps.to_string(), record.clone()));
    }
    record
}

/// The most deps blocks [`holds`] keeps.
const MAX_JUDGED: usize = 64;

/// [`holds`], without the memory.
fn judge(deps: &str) -> Option<tracked::Record> {
    let mut record = tracked::Record::default();
    for line in deps.lines() {
        if let Some(dep) = line.strip_prefix("dep ") {
            if !still(&parse_dep(dep)?) {
                return None;
            }
        } else if let Some(fact) = line.strip_prefix("inc\t") {
            record.included.push(fact.into());
        } else if let Some(fact) = line.strip_prefix("omit\t") {
            record.omitted.push(fact.into());
        } else {
            return None;
        }
    }
    Some(record)
}

/// Removes the older half of the entries of `dir` when it holds more than [`MAX_ENTRIES`];
/// looks once per compiler process (a compilation adds at most its attributes' entries).
fn prune(dir: &Path) {
    static LOOKED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if LOOKED.swap(true, std::sync::atomic::Ordering::Relaxed) {
        return;
    }
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<(std::time::SystemTime, PathBuf)> = read
        .filter_map(|e| {
            let e = e.ok()?;
            let time = e.metadata().ok()?.modified().ok()?;
            Some((time, e.path()))
        })
        .collect();
    if entries.len() <= MAX_ENTRIES {
        return;
    }
    entries.sort();
    for (_, path) in &entries[..entries.len() / 2] {
        let _ = std::fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` lexed after a space: outside a proc macro, the call site is at line 1, column 0,
    /// where no token of an attribute's input can start.
    fn tokens(text: &str) -> TokenStream {
        format!(" {text}").parse().unwrap()
    }

    /// Where the tree at `path` (its root, then its indices) is among `streams`, which
    /// must hold the stream it is in.
    fn at(streams: &Streams, path: &[u32]) -> At {
        let (&index, up) = path.split_last().unwrap();
        let stream = streams.paths.iter().position(|p| p == up).unwrap();
        At {
            stream: u32::try_from(stream).unwrap(),
            index,
        }
    }

    #[test]
    fn an_expansion_made_of_input_and_generated_tokens_is_replayed_with_the_input_spans() {
        // Below the item, as an attribute's tokens are elsewhere in the file than the item's
        // (each text lexed here starts at line 1).
        let args = tokens("\n\n\n\n\nblock = 256, regs = 32");
        let item = tokens("fn launch(n: u32) -> u32 {\n    let b = (n + 255) / 256;\n    b\n}");
        let roots = [args.clone(), item.clone()];
        let input = Flat::of(&roots);
        // The output: the signature and the body's statements copied, a generated block
        // with a token spanned at an input token (`512` at the `256` of the attribute) and
        // call-site ones.
        let trees: Vec<TokenTree> = item.clone().into_iter().collect();
        let TokenTree::Group(body) = trees.last().unwrap() else {
            panic!()
        };
        let mut head: TokenStream = trees[..trees.len() - 1].iter().cloned().collect();
        let mut lit = proc_macro2::Literal::u32_unsuffixed(512);
        lit.set_span(input.trees[2].span());
        let generated: TokenStream = quote::quote!({ let _ = #lit; });
        let mut inner = generated;
        inner.extend(body.stream());
        let mut group = Group::new(Delimiter::Brace, inner);
        group.set_span(body.span());
        head.extend([TokenTree::Group(group)]);
        let output = head;

        let places = Places::of(&input.trees).unwrap();
        let (mut streams, mut refs) = (Streams::default(), Vec::new());
        let skeleton = skeleton(&output, &places, &input, &mut streams, &mut refs).unwrap();
        // The streams the refs point into, in the order the refs reach them: the item's,
        // the attribute's (`256`, the span of the generated `512`), the item's body.
        assert_eq!(
            streams.list,
            [
                Stream::Root(1),
                Stream::Root(0),
                Stream::Group(At {
                    stream: 0,
                    index: 6
                })
            ]
        );
        // The signature (`fn launch (n: u32) -> u32`: the item's first 6 trees) and the
        // body's 8 statements' trees are copied whole: one placeholder each in the text.
        // The body's braces are the body's, with new contents; `512` has the span of the
        // attribute's `256`.
        let (item, body, attribute) = (0, 2, 1);
        let call = Ref::CallSite;
        assert_eq!(
            refs,
            [
                Ref::Copied {
                    from: At {
                        stream: item,
                        index: 0
                    },
                    count: 6
                },
                Ref::Input(At {
                    stream: item,
                    index: 6
                }),
                call,
                call,
                call,
                call,
                Ref::Input(At {
                    stream: attribute,
                    index: 2
                }),
                call,
                Ref::Copied {
                    from: At {
                        stream: body,
                        index: 0
                    },
                    count: 8
                },
            ]
        );
        assert_eq!(
            skeleton.to_string(),
            "__occupancy_copied { { let _ = 512 ; } __occupancy_copied }"
        );
        let mut lazy = Input::new(&roots, &streams.list);
        let replayed = rebuild_all(&lex(&skeleton.to_string()).unwrap(), refs, &mut lazy).unwrap();
        // Each stream listed once, and only those: not `(n: u32)` nor `(n + 255)`, which
        // are copied whole.
        let lengths: Vec<usize> = lazy
            .lists
            .iter()
            .map(|l| l.as_ref().unwrap().len())
            .collect();
        assert_eq!(lengths, [7, 7, 8]);
        assert!(same(&output, &replayed));
        assert_eq!(replayed.to_string(), output.to_string());
    }

    #[test]
    fn a_doc_comment_copied_from_the_item_is_replayed() {
        // `#`, `[doc = ".."]`, `doc`, `=` and the text share the doc comment's place.
        let item = tokens("/// Launches.\n/// Twice.\nfn launch() {}");
        let roots = [TokenStream::new(), item.clone()];
        let input = Flat::of(&roots);
        let places = Places::of(&input.trees).unwrap();
        let first = input.trees[0].span();
        let mut streams = Streams::default();
        assert_eq!(
            places.span_ref(location(first), first, &input, &mut streams),
            None
        );
        let mut refs = Vec::new();
        let text = skeleton(&item, &places, &input, &mut streams, &mut refs)
            .unwrap()
            .to_string();
        // The item's 8 trees (`#`, `[doc = ..]` twice, `fn`, `launch`, `()`, `{}`).
        let from = at(&streams, &[1, 0]);
        assert_eq!(refs, [Ref::Copied { from, count: 8 }]);
        assert_eq!(text, COPIED);
        let mut lazy = Input::new(&roots, &streams.list);
        let replayed = rebuild_all(&lex(&text).unwrap(), refs, &mut lazy).unwrap();
        assert!(same(&item, &replayed));
        // A generated token at the doc comment's place is not one of its tokens: refused.
        let mut generated = proc_macro2::Ident::new("other", Span::call_site());
        generated.set_span(first);
        let output: TokenStream = [TokenTree::Ident(generated)].into_iter().collect();
        assert!(skeleton(&output, &places, &input, &mut streams, &mut Vec::new()).is_none());
    }

    #[test]
    fn a_span_that_is_no_input_tokens_is_not_stored() {
        let input = Flat::of(&[TokenStream::new(), tokens("a b")]);
        let places = Places::of(&input.trees).unwrap();
        let mut streams = Streams::default();
        // A token lexed elsewhere: its place is none of the input's.
        let other = tokens("\n\n   c");
        assert!(skeleton(&other, &places, &input, &mut streams, &mut Vec::new()).is_none());
        // Two input tokens at one place: the place names neither.
        let mut twice = Flat {
            trees: input.trees.clone(),
            paths: input.paths.clone(),
        };
        twice.trees.push(input.trees[0].clone());
        twice.paths.push(vec![1, 2]);
        let places = Places::of(&twice.trees).unwrap();
        let span = |n: usize| input.trees[n].span();
        assert_eq!(
            places.span_ref(location(span(0)), span(0), &twice, &mut streams),
            None
        );
        let one = places.span_ref(location(span(1)), span(1), &twice, &mut streams);
        assert_eq!(one, Some(Ref::Input(at(&streams, &[1, 1]))));
    }

    #[test]
    fn a_token_at_a_groups_opening_delimiter_is_not_given_the_groups_span() {
        // An error on a group's `(` alone (`Group::span_open`, as syn gives for "nested too
        // deep"): it starts where the group does but ends after one character.
        let input = Flat::of(&[TokenStream::new(), tokens("f((1))")]);
        let mut streams = Streams::default();
        let places = Places::of(&input.trees).unwrap();
        let TokenTree::Group(outer) = &input.trees[1] else {
            panic!("{:?}", input.trees)
        };
        let mut error = proc_macro2::Ident::new("compile_error", Span::call_site());
        error.set_span(outer.span_open());
        let output: TokenStream = [TokenTree::Ident(error)].into_iter().collect();
        assert!(skeleton(&output, &places, &input, &mut streams, &mut Vec::new()).is_none());
        // The group's own span is the group's.
        let mut at_group = proc_macro2::Ident::new("x", Span::call_site());
        at_group.set_span(outer.span());
        let output: TokenStream = [TokenTree::Ident(at_group)].into_iter().collect();
        let mut refs = Vec::new();
        assert!(skeleton(&output, &places, &input, &mut streams, &mut refs).is_some());
        assert_eq!(refs, [Ref::Input(at(&streams, &[1, 1]))]);
    }

    #[test]
    fn entries_round_trip_and_a_damaged_one_is_refused() {
        let deps = [
            (
                PathBuf::from("/c/src/lib.rs"),
                Seen::Read {
                    bytes: 12,
                    modified_ns: 1_700_000_000_123_456_789,
                    digest: 0xfeed,
                },
            ),
            (PathBuf::from("/c/occupancy.toml"), Seen::Absent),
            (PathBuf::from("/c/src/a b"), Seen::Dir),
            (PathBuf::from("/c/link"), Seen::Resolves("/d/real".into())),
        ];
        let mut lines = String::new();
        for (p, s) in &deps {
            let line = dep_line(p, s).unwrap();
            let parsed = parse_dep(line.strip_prefix("dep ").unwrap().trim_end()).unwrap();
            assert_eq!(&parsed, &(p.clone(), s.clone()));
            lines.push_str(&line);
        }
        lines.push_str("inc\tfile\t/c/m.json\nomit\tvar\tOCCUPANCY_POLICY\n");
        // The item, the attribute, and the group at the attribute's eighth tree.
        let streams = [
            Stream::Root(1),
            Stream::Root(0),
            Stream::Group(At {
                stream: 1,
                index: 7,
            }),
        ];
        assert_eq!(streams_text(&streams), "r1 r0 1.7");
        assert_eq!(parse_streams("r1 r0 1.7").unwrap(), streams);
        assert_eq!(parse_streams("").unwrap(), []);
        // A chain of groups as deep as the front end reads, and one deeper.
        let chain = |n: usize| {
            let groups: Vec<String> = (0..n).map(|i| format!("{i}.0")).collect();
            format!("r1 {}", groups.join(" "))
        };
        assert_eq!(
            parse_streams(&chain(MAX_NESTING)).unwrap().len(),
            MAX_NESTING + 1
        );
        assert_eq!(parse_streams(&chain(MAX_NESTING + 1)), None);
        for malformed in ["r1 ", " r1", "r", "r0 0", "r0 1.2", "r0 0.", "r0  r1", "x1"] {
            assert_eq!(parse_streams(malformed), None, "{malformed:?}");
        }
        let one_3 = At {
            stream: 0,
            index: 3,
        };
        let two_2 = At {
            stream: 2,
            index: 2,
        };
        let text = entry_file(
            9,
            &lines,
            &streams,
            &[Ref::CallSite, Ref::Input(one_3), Ref::Whole(two_2)],
            "fn f () {}",
        );
        let entry = Entry::parse(&text, 9).unwrap();
        assert_eq!(entry.deps, lines);
        // The paths are not there: the block does not hold.
        assert_eq!(judge(entry.deps), None);
        let facts = "inc\tfile\t/c/m.json\nomit\tvar\tOCCUPANCY_POLICY\n";
        assert_eq!(
            judge(facts),
            Some(tracked::Record {
                included: vec!["file\t/c/m.json".into()],
                omitted: vec!["var\tOCCUPANCY_POLICY".into()],
            })
        );
        assert_eq!(judge("dep X\t/c\n"), None, "malformed");
        assert_eq!(entry.streams, streams);
        assert_eq!(
            entry.refs,
            [Ref::CallSite, Ref::Input(one_3), Ref::Whole(two_2)]
        );
        let refs = [
            Ref::CallSite,
            Ref::CallSite,
            Ref::Input(one_3),
            Ref::Whole(two_2),
            Ref::Whole(two_2),
        ];
        assert_eq!(refs_text(&refs), "c*2 i0.3 w2.2*2");
        let copied = [
            Ref::Copied {
                from: two_2,
                count: 40,
            },
            Ref::Whole(two_2),
        ];
        assert_eq!(refs_text(&copied), "w2.2+40 w2.2");
        assert_eq!(parse_refs("w2.2+40 w2.2").unwrap(), copied);
        assert_eq!(parse_refs(&refs_text(&refs)).unwrap(), refs);
        assert_eq!(
            parse_refs("c*1"),
            None,
            "a run of one is written without a count"
        );
        assert_eq!(parse_refs("c*99999999999"), None, "past the limit");
        for malformed in [
            "",
            "c ",
            " c",
            "i",
            "i3",
            "i1.",
            "w1..2",
            "i1.2.",
            "i1.2.3",
            "w1.2+1",
            "w1.2+",
            "i1.2+3",
            "w1.2+99999999999",
            "i1.99999999999",
            "w*3",
            "c3",
            "i1.3*",
            "x1",
            "c  c",
            "i99999999999999999999999",
        ] {
            assert_eq!(parse_refs(malformed), None, "{malformed:?}");
        }
        assert_eq!(entry.text, "fn f () {}");
        assert!(Entry::parse(&text, 8).is_none(), "another key");
        let damaged = text.replace("i0.3", "i0.4");
        assert_ne!(damaged, text);
        assert!(
            Entry::parse(&damaged, 9).is_none(),
            "the sum no longer matches"
        );
        assert!(
            Entry::parse(&text[..text.len() - 3], 9).is_none(),
            "cut short"
        );
        assert_eq!(dep_line(Path::new("/c/a\tb"), &Seen::File), None);
    }

    #[test]
    fn the_mapped_file_of_an_address() {
        let line = "7f01a000-7f01b000 r-xp 00001000 fd:01 123 /t/debug/deps/lib occ.so";
        assert_eq!(
            mapped_file(line, 0x7f01a800),
            Some("/t/debug/deps/lib occ.so")
        );
        assert_eq!(mapped_file(line, 0x7f01b000), None);
        assert_eq!(mapped_file("7f-80 rw-p 0 00:00 0 ", 0x7f), None);
    }
}
