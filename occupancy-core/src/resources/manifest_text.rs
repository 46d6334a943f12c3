//! A resource manifest read for a few of its kernels: the JSON text scanned once for where
//! each kernel entry is and the names it answers to, and an entry parsed only when a name
//! reaches it.
//!
//! The attribute macro names a few dozen kernels per crate; a manifest may describe
//! thousands (candle-kernels': 4,943 entries, 2.3 MB). Cargo builds proc macros at
//! opt-level 0, where parsing every entry with serde cost about 90,000 instructions each
//! (450 M for that manifest, plus 220 M to index its names: docs/PERFORMANCE.md section 2)
//! once per compilation. [`ManifestText::subset`] gives a [`Manifest`] of only the entries
//! the names asked for can reach, on which every lookup of those names gives what the whole
//! manifest gives (see there); [`ManifestText::full`] parses everything, for what needs the
//! whole list (a message listing the kernels a misspelt name could mean).
//!
//! What is checked: the scan follows the JSON grammar's nesting and strings, and every
//! entry a subset holds is parsed by serde as [`Manifest::from_json`] parses it. An entry
//! no name reaches is not parsed, so a field of the wrong type in it goes unreported here
//! (the build helper and `cargo occupancy` parse the whole file). A text the scan does not
//! follow (a name written with `\` escapes, a key twice, malformed JSON) is parsed whole
//! at once: the result, or the error, is then exactly [`Manifest::from_json`]'s.

use std::collections::HashMap;
use std::ops::Range;

use super::manifest::{Manifest, ManifestKernel, module_stem};
use super::{ResourceError, Result, short_name};

/// A manifest's text, with its entries found but not parsed (see the module docs).
#[derive(Debug)]
pub struct ManifestText {
    text: String,
    form: Form,
}

#[derive(Debug)]
enum Form {
    /// The scan followed the text.
    Scanned {
        /// Everything but the kernels, parsed.
        header: Manifest,
        entries: Vec<Entry>,
        /// Each unqualified name (symbol, demangled name, demangled name without return type
        /// and parameters) -> the entries answering to it, in manifest order.
        by_name: HashMap<String, Vec<usize>>,
    },
    /// Parsed whole: the scan did not follow the text.
    Parsed(Manifest),
}

/// One kernel entry of the text: where it is, and the strings it answers to.
#[derive(Debug)]
struct Entry {
    at: Range<usize>,
    name: Range<usize>,
    demangled: Option<Range<usize>>,
    /// [`ManifestKernel::qualifier`]'s file: the source, else the artifact.
    qualifier_file: Option<Range<usize>>,
}

impl ManifestText {
    /// Scans `text` (see the module docs).
    ///
    /// # Errors
    ///
    /// What [`Manifest::from_json`] gives for it: malformed JSON, another format, a field of
    /// the wrong type (in the header, or anywhere when the text is parsed whole).
    pub fn new(text: String) -> Result<ManifestText> {
        let form = match scan(&text) {
            Some((header, entries)) => {
                let header = Manifest::from_json(&header)?;
                let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
                for (i, e) in entries.iter().enumerate() {
                    for name in e.names(&text) {
                        let at = by_name.entry(name.to_owned()).or_default();
                        if at.last() != Some(&i) {
                            at.push(i);
                        }
                    }
                }
                Form::Scanned {
                    header,
                    entries,
                    by_name,
                }
            }
            None => Form::Parsed(Manifest::from_json(&text)?),
        };
        Ok(ManifestText { text, form })
    }

    /// The whole manifest, parsed as [`Manifest::from_json`] parses it.
    ///
    /// # Errors
    ///
    /// As [`Manifest::from_json`].
    pub fn full(&self) -> Result<Manifest> {
        match &self.form {
            Form::Parsed(m) => Ok(m.clone()),
            Form::Scanned { .. } => Manifest::from_json(&self.text),
        }
    }

    /// The manifest of the entries that answer to one of `names` (each a name as
    /// [`Manifest::lookup`] takes it: `k`, `void k<4>(float*)`, `conv2d::k`) or whose
    /// names `matches` accepts (asked of each unqualified name and each `qualifier::name`
    /// of every entry; `None` when there are only names),
    /// and of every entry that shares a name with one of those, and so on: closed under
    /// sharing a name. Lookups, [`Manifest::kernel_names`]' selectors and glob matches of
    /// the kernels held are then those of the whole manifest: which kernels answer to a
    /// name, and whether a name selects a kernel alone, depend only on the entries sharing
    /// names with it. Lists of every kernel (what a misspelt name could mean) are not: use
    /// [`ManifestText::full`] for those. Entries stay in manifest order.
    ///
    /// # Errors
    ///
    /// A held entry serde does not parse (a field of the wrong type), as
    /// [`Manifest::from_json`] reports it.
    pub fn subset(
        &self,
        names: &[&str],
        matches: Option<&dyn Fn(&str) -> bool>,
    ) -> Result<Manifest> {
        let (header, entries, by_name) = match &self.form {
            Form::Parsed(m) => return Ok(m.clone()),
            Form::Scanned {
                header,
                entries,
                by_name,
            } => (header, entries, by_name),
        };
        let text = self.text.as_str();
        let mut held = vec![false; entries.len()];
        let mut queue: Vec<usize> = Vec::new();
        let mut hold = |i: usize, queue: &mut Vec<usize>| {
            if !held[i] {
                held[i] = true;
                queue.push(i);
            }
        };
        // The entries answering to `name` (as `ManifestKernel::answers_to` decides).
        let answering = |name: &str, out: &mut Vec<usize>| {
            out.extend(by_name.get(name).into_iter().flatten());
            if let Some((qualifier, rest)) = name.split_once("::") {
                out.extend(
                    by_name
                        .get(rest)
                        .into_iter()
                        .flatten()
                        .filter(|&&i| entries[i].qualifier(text) == Some(qualifier)),
                );
            }
        };
        let mut found = Vec::new();
        for name in names {
            answering(name, &mut found);
        }
        if let Some(matches) = matches {
            for (i, e) in entries.iter().enumerate() {
                let qualifier = e.qualifier(text);
                let mut names = e.names(text).into_iter();
                if names
                    .any(|n| matches(n) || qualifier.is_some_and(|q| matches(&format!("{q}::{n}"))))
                {
                    found.push(i);
                }
            }
        }
        for i in found.drain(..) {
            hold(i, &mut queue);
        }
        // Closed under sharing a name: every name an entry answers to, alone and after
        // its qualifier.
        while let Some(i) = queue.pop() {
            let e = &entries[i];
            let qualifier = e.qualifier(text);
            for n in e.names(text) {
                answering(n, &mut found);
                if let Some(q) = qualifier.filter(|q| !q.contains("::")) {
                    answering(&format!("{q}::{n}"), &mut found);
                }
            }
            for j in found.drain(..) {
                hold(j, &mut queue);
            }
        }
        let mut subset = header.clone();
        for (e, _) in entries.iter().zip(&held).filter(|(_, h)| **h) {
            let kernel: ManifestKernel = serde_json::from_str(&text[e.at.clone()])
                .map_err(|err| ResourceError::new(format!("resource manifest: {err}")))?;
            subset.kernels.push(kernel);
        }
        Ok(subset)
    }
}

impl Entry {
    /// The unqualified names it answers to ([`super::KernelResources::names`]).
    fn names<'t>(&self, text: &'t str) -> Vec<&'t str> {
        let mut names = vec![&text[self.name.clone()]];
        if let Some(d) = &self.demangled {
            let d = &text[d.clone()];
            names.push(d);
            names.extend(short_name(d));
        }
        names
    }

    fn qualifier<'t>(&self, text: &'t str) -> Option<&'t str> {
        self.qualifier_file.clone().map(|f| module_stem(&text[f]))
    }
}

/// The text's header as JSON of its own (every top-level field but `kernels`, which is
/// left empty) and its kernel entries; `None` when the text is not an object with a
/// `kernels` array of objects whose name fields are strings without escapes, or repeats a
/// key the scan reads.
fn scan(text: &str) -> Option<(String, Vec<Entry>)> {
    let mut s = Scanner {
        b: text.as_bytes(),
        i: 0,
    };
    let mut header: Vec<String> = Vec::new();
    let mut entries = None;
    s.object(|s, key| {
        if key == "kernels" {
            if entries.is_some() {
                return None;
            }
            entries = Some(s.kernels()?);
        } else {
            let at = s.value()?;
            header.push(format!("\"{key}\":{}", &text[at]));
        }
        Some(())
    })?;
    s.ws();
    if s.i != s.b.len() {
        return None;
    }
    header.push("\"kernels\":[]".to_owned());
    Some((format!("{{{}}}", header.join(",")), entries?))
}

/// A cursor over JSON text that finds values without building them.
struct Scanner<'t> {
    b: &'t [u8],
    i: usize,
}

impl<'t> Scanner<'t> {
    // The loops below index the bytes directly: in a proc macro this runs at opt-level 0,
    // where `b[i]` is a bounds check and a load but `b.get(i)` and iterators are calls.

    fn ws(&mut self) {
        let (b, mut i) = (self.b, self.i);
        let n = b.len();
        while i < n && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
            i += 1;
        }
        self.i = i;
    }

    /// Consumes `c` after whitespace.
    fn eat(&mut self, c: u8) -> Option<()> {
        self.ws();
        if self.i < self.b.len() && self.b[self.i] == c {
            self.i += 1;
            return Some(());
        }
        None
    }

    /// Whether the next byte after whitespace is `c` (consumed if so).
    fn next_is(&mut self, c: u8) -> bool {
        self.eat(c).is_some()
    }

    /// A string after whitespace: its content's range, and whether it holds escapes.
    fn string(&mut self) -> Option<(Range<usize>, bool)> {
        self.eat(b'"')?;
        let (b, start) = (self.b, self.i);
        let (n, mut i, mut escaped) = (b.len(), start, false);
        loop {
            if i >= n {
                return None;
            }
            let c = b[i];
            if c == b'"' {
                break;
            }
            if c == b'\\' {
                escaped = true;
                i += 1;
            }
            i += 1;
        }
        self.i = i + 1;
        Some((start..i, escaped))
    }

    /// A string without escapes (a key, a name): its content's range.
    fn plain_string(&mut self) -> Option<Range<usize>> {
        match self.string()? {
            (range, false) => Some(range),
            (_, true) => None,
        }
    }

    /// `{ "key": value, ... }`, `field(self, key)` consuming each value.
    fn object(&mut self, mut field: impl FnMut(&mut Self, &str) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        if self.next_is(b'}') {
            return Some(());
        }
        loop {
            let key = self.plain_string()?;
            let key = std::str::from_utf8(&self.b[key]).ok()?;
            self.eat(b':')?;
            field(self, key)?;
            if self.next_is(b'}') {
                return Some(());
            }
            self.eat(b',')?;
        }
    }

    /// Any value after whitespace, skipped: its range. Nesting is followed with a counter
    /// (no recursion, whatever the depth); scalars are read as far as the next delimiter
    /// (serde parses what is kept).
    fn value(&mut self) -> Option<Range<usize>> {
        self.ws();
        let start = self.i;
        let mut depth = 0usize;
        loop {
            match *self.b.get(self.i)? {
                b'"' => {
                    self.string()?;
                }
                b'{' | b'[' => {
                    depth += 1;
                    self.i += 1;
                }
                b'}' | b']' if depth > 0 => {
                    depth -= 1;
                    self.i += 1;
                }
                b'}' | b']' => return None,
                b',' | b':' | b' ' | b'\t' | b'\n' | b'\r' if depth > 0 => self.i += 1,
                b',' | b':' => return None,
                _ => {
                    let (b, mut i) = (self.b, self.i);
                    while i < b.len()
                        && !matches!(
                            b[i],
                            b',' | b':'
                                | b'{'
                                | b'}'
                                | b'['
                                | b']'
                                | b'"'
                                | b' '
                                | b'\t'
                                | b'\n'
                                | b'\r'
                        )
                    {
                        i += 1;
                    }
                    self.i = i;
                }
            }
            if depth == 0 {
                return (self.i > start).then_some(start..self.i);
            }
        }
    }

    /// `[ {entry}, ... ]`.
    fn kernels(&mut self) -> Option<Vec<Entry>> {
        let mut entries = Vec::new();
        self.eat(b'[')?;
        if self.next_is(b']') {
            return Some(entries);
        }
        loop {
            entries.push(self.entry()?);
            if self.next_is(b']') {
                return Some(entries);
            }
            self.eat(b',')?;
        }
    }

    /// One kernel entry: the fields names are matched against; the rest skipped.
    fn entry(&mut self) -> Option<Entry> {
        self.ws();
        let start = self.i;
        let (mut name, mut demangled, mut source, mut artifact) = (None, None, None, None);
        self.object(|s, key| {
            let slot = match key {
                "name" => &mut name,
                "demangled" => &mut demangled,
                "source" => &mut source,
                "artifact" => &mut artifact,
                _ => return s.value().map(drop),
            };
            if slot.is_some() {
                return None;
            }
            // `null` is an absent optional field.
            s.ws();
            *slot = Some(if s.b[s.i..].starts_with(b"null") {
                s.i += 4;
                None
            } else {
                Some(s.plain_string()?)
            });
            Some(())
        })?;
        Some(Entry {
            at: start..self.i,
            name: name.flatten()?,
            demangled: demangled.flatten(),
            qualifier_file: source.flatten().or(artifact.flatten()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One entry, as a manifest's JSON writes it.
    fn kernel(
        name: &str,
        demangled: Option<&str>,
        source: &str,
        arch: u32,
        regs: u32,
    ) -> ManifestKernel {
        let demangled = demangled.map_or(String::new(), |d| format!(r#""demangled": "{d}","#));
        serde_json::from_str(&format!(
            r#"{{"source": "{source}", "name": "{name}", {demangled} "arch": "sm_{arch}",
                "origin": "cubin", "registers_per_thread": {regs}, "static_smem_bytes": 0,
                "local_bytes": 0}}"#
        ))
        .unwrap()
    }

    /// Kernels sharing names across modules and through demangled names: `affine_f32` in
    /// two modules, a C++ kernel whose short name is also another module's symbol.
    fn sample() -> Manifest {
        let mut m = Manifest::new("test");
        m.kernels = vec![
            kernel("affine_f32", None, "src/affine.cu", 80, 20),
            kernel("affine_f32", None, "src/affine.cu", 90, 22),
            kernel("affine_f32", None, "src/other.cu", 80, 30),
            kernel("affine_f16", None, "src/affine.cu", 80, 18),
            kernel(
                "_Z4tileILi4EEvPf",
                Some("void tile<4>(float*)"),
                "src/tile.cu",
                80,
                40,
            ),
            kernel("tile<4>", None, "src/plain.cu", 80, 41),
            kernel("lonely", None, "src/lonely.cu", 80, 8),
        ];
        // In the order `to_json` writes, so that either JSON keeps it.
        m.sort();
        m
    }

    fn names(m: &Manifest) -> Vec<String> {
        m.kernels
            .iter()
            .map(|k| format!("{}:{}", k.qualifier().unwrap_or(""), k.resources.name))
            .collect()
    }

    #[test]
    fn a_subset_holds_every_entry_sharing_a_name_with_one_asked_for() {
        for json in [
            sample().to_json(),
            serde_json::to_string(&sample()).unwrap(),
        ] {
            let text = ManifestText::new(json).unwrap();
            assert!(matches!(text.form, Form::Scanned { .. }));
            let sub = text.subset(&["affine_f32"], None).unwrap();
            assert_eq!(
                names(&sub),
                ["affine:affine_f32", "affine:affine_f32", "other:affine_f32"]
            );
            // A qualified name reaches its module's kernel, which shares `affine_f32` with
            // the other module's.
            let sub = text.subset(&["other::affine_f32"], None).unwrap();
            assert_eq!(sub.kernels.len(), 3);
            // Through the demangled short name to the plain symbol of another module.
            let sub = text.subset(&["void tile<4>(float*)"], None).unwrap();
            assert_eq!(names(&sub), ["plain:tile<4>", "tile:_Z4tileILi4EEvPf"]);
            let sub = text
                .subset(&["missing"], Some(&|n: &str| n.starts_with("lone")))
                .unwrap();
            assert_eq!(names(&sub), ["lonely:lonely"]);
            let sub = text
                .subset(&[], Some(&|n: &str| n == "affine::affine_f16"))
                .unwrap();
            assert_eq!(names(&sub), ["affine:affine_f16"]);
            assert!(text.subset(&["missing"], None).unwrap().kernels.is_empty());
            assert_eq!(
                text.full().unwrap(),
                Manifest::from_json(&text.text).unwrap()
            );
        }
    }

    #[test]
    fn lookups_in_a_subset_are_the_whole_manifests() {
        let whole = sample();
        let text = ManifestText::new(whole.to_json()).unwrap();
        for name in [
            "affine_f32",
            "affine::affine_f32",
            "tile<4>",
            "plain::tile<4>",
            "lonely",
            "affine_f16",
        ] {
            let sub = text.subset(&[name], None).unwrap();
            for arch in ["sm_80", "sm_86", "sm_90"] {
                let (a, b) = (whole.lookup(name, arch), sub.lookup(name, arch));
                match (a, b) {
                    (Ok(a), Ok(b)) => assert_eq!(a, b, "{name} {arch}"),
                    (Err(a), Err(b)) => {
                        assert_eq!(
                            (&a.choices, a.kernel_found),
                            (&b.choices, b.kernel_found),
                            "{name} {arch}"
                        )
                    }
                    (a, b) => panic!("{name} {arch}: {a:?} against {b:?}"),
                }
            }
            let selectors = |m: &Manifest| {
                let mut s: Vec<String> = m.kernel_names().into_iter().map(|k| k.selector).collect();
                s.retain(|s| sub.kernel_names().iter().any(|k| k.selector == *s));
                s
            };
            assert_eq!(selectors(&whole), selectors(&sub), "{name}");
        }
    }

    #[test]
    fn texts_the_scan_does_not_follow_are_parsed_whole() {
        let json = sample().to_json();
        // A name with an escape; a key twice; a trailing comma (an error, as serde says).
        let escaped = json.replacen("\"lonely\"", "\"lon\\u0065ly\"", 1);
        let text = ManifestText::new(escaped).unwrap();
        assert!(matches!(text.form, Form::Parsed(_)));
        assert_eq!(text.subset(&["lonely"], None).unwrap().kernels.len(), 7);
        let twice = json.replacen(
            "\"name\": \"lonely\"",
            "\"name\": \"lonely\", \"name\": \"x\"",
            1,
        );
        assert_ne!(twice, json);
        let e = ManifestText::new(twice).unwrap_err();
        assert!(e.to_string().contains("duplicate field"), "{e}");
        let trailing = json.replacen("]\n}", "],\n}", 1);
        assert_ne!(trailing, json);
        assert!(ManifestText::new(trailing).is_err());
        for bad in [
            "",
            "{",
            "[]",
            "{\"format\": 1}",
            "{\"format\": 2, \"kernels\": []}",
            "{\"kernels\": [1]}",
        ] {
            let (ours, serde) = (ManifestText::new(bad.to_owned()), Manifest::from_json(bad));
            assert_eq!(ours.map(|t| t.full()).is_err(), serde.is_err(), "{bad:?}");
        }
        assert!(
            ManifestText::new("{\"format\": 2, \"kernels\": []}".into())
                .unwrap_err()
                .to_string()
                .contains("format 2 is not supported")
        );
    }

    #[test]
    fn an_entry_is_parsed_only_when_held() {
        let json = sample().to_json().replacen(
            "\"registers_per_thread\": 8",
            "\"registers_per_thread\": \"eight\"",
            1,
        );
        let text = ManifestText::new(json).unwrap();
        assert_eq!(text.subset(&["affine_f16"], None).unwrap().kernels.len(), 1);
        let e = text.subset(&["lonely"], None).unwrap_err();
        assert!(e.to_string().contains("invalid type"), "{e}");
        assert!(text.full().is_err());
    }

    /// Names of kernels of the corpus's manifests (candle-kernels': 4,943 entries, C++ names
    /// of mistral.rs' and dfdx's; three names each of 50 kernels a file), looked up on
    /// three targets in their subset and in the whole manifest: the same resources, or the
    /// same error.
    #[test]
    fn on_the_corpus_manifests_every_lookup_in_a_subset_is_the_whole_manifests() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/resources");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|f| f.unwrap().path())
            .collect();
        files.sort();
        assert!(files.len() >= 6, "{files:?}");
        let mut looked_up = 0;
        for file in files {
            let json = std::fs::read_to_string(&file).unwrap();
            let whole = Manifest::from_json(&json).unwrap();
            let text = ManifestText::new(json).unwrap();
            assert!(
                matches!(text.form, Form::Scanned { .. }),
                "{}",
                file.display()
            );
            let index = whole.name_index();
            let kernels = whole.kernel_names();
            // At most 50 kernels a file, spread over it (a debug build asks the whole
            // manifest for the listing of each error).
            for k in kernels.iter().step_by(kernels.len().div_ceil(50)) {
                for name in [k.selector.clone(), k.qualified(), k.symbol.to_owned()] {
                    let sub = text.subset(&[&name], None).unwrap();
                    for arch in ["sm_80", "sm_89", "sm_90"] {
                        let a = whole.lookup_indexed(&name, arch, &index);
                        let b = sub.lookup(&name, arch);
                        match (a, b) {
                            (Ok(a), Ok(b)) => assert_eq!(a, b),
                            (Err(a), Err(b)) => assert_eq!(
                                (&a.choices, &a.conflicting, a.kernel_found, &a.compiled_for),
                                (&b.choices, &b.conflicting, b.kernel_found, &b.compiled_for),
                                "{name} {arch} in {}",
                                file.display()
                            ),
                            (a, b) => {
                                panic!("{name} {arch} in {}: {a:?} against {b:?}", file.display())
                            }
                        }
                        looked_up += 1;
                    }
                }
            }
        }
        assert!(looked_up > 1_500, "{looked_up}");
    }
}
