//! The workspace's structure holds: no crate's modules form a circle.
//!
//! Crates cannot import each other in a circle (cargo refuses), but modules of one crate can.
//! Here every `crate::…` and `super::…` path in a crate's sources (comments, the
//! `#[cfg(test)]` tail of a file and a file of tests, `tests.rs`, left out) is an edge from
//! the module that writes it to the module it names; an edge between two modules counts
//! between the two sibling subtrees that hold them (so `a::x` naming `b::y` is `a` → `b`), and
//! a module naming its own ancestor or descendant is no edge. Any strongly connected set of two
//! or more subtrees is a circle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

/// The crates of the workspace that have a `src/`.
fn crates() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("Cargo.toml").is_file() && p.join("src").is_dir())
        .collect();
    out.sort();
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A file's module path within its crate, and whether the file is a directory's module.
fn module_of(src: &Path, file: &Path) -> (Module, bool) {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Module = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let is_dir = matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    );
    if is_dir {
        parts.pop();
    }
    (parts, is_dir)
}

/// The code of a file: comments dropped, the `#[cfg(test)]` tail cut.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap();
    text.lines()
        .map(|l| l.split("//").next().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `crate::a::b` / `super::super::a` path in `code`, as its segments.
fn paths(code: &str) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    for start in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(at) = code[from..].find(start) {
            let at = from + at;
            from = at + start.len();
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
                continue;
            }
            if start == "super::" && at >= 2 && &code[at - 2..at] == "::" {
                continue; // the tail of a `super::super::` already read
            }
            let rest = &code[at..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            out.push(
                rest[..end]
                    .split("::")
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect(),
            );
        }
    }
    out
}

/// The crate's module graph between sibling subtrees.
fn graph(krate: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let src = krate.join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    // A module's tests in a file of their own (`mod tests;` under `#[cfg(test)]`) are its
    // `#[cfg(test)]` tail moved out: left out as that tail is.
    files.retain(|f| f.file_name().is_none_or(|n| n != "tests.rs"));
    let modules: BTreeMap<Module, (PathBuf, bool)> = files
        .iter()
        .map(|f| {
            let (m, is_dir) = module_of(&src, f);
            (m, (f.clone(), is_dir))
        })
        .collect();
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (module, (file, is_dir)) in &modules {
        for path in paths(&code(&std::fs::read_to_string(file).unwrap())) {
            let (mut base, rest): (Module, &[String]) = if path[0] == "crate" {
                (Vec::new(), &path[1..])
            } else {
                let supers = path.iter().take_while(|s| *s == "super").count();
                let mut base = module.clone();
                if !is_dir {
                    base.pop();
                }
                base.truncate(base.len().saturating_sub(supers - 1));
                (base, &path[supers..])
            };
            for segment in rest {
                let mut next = base.clone();
                next.push(segment.clone());
                if !modules.contains_key(&next) {
                    break;
                }
                base = next;
            }
            let related = base.starts_with(module) || module.starts_with(&base);
            if !related {
                let common = module.iter().zip(&base).take_while(|(a, b)| a == b).count();
                edges
                    .entry(module[..=common].to_vec())
                    .or_default()
                    .insert(base[..=common].to_vec());
            }
        }
    }
    edges
}

/// The strongly connected sets of two or more nodes (Tarjan).
fn circles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct State<'a> {
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'a Module, usize>,
        low: BTreeMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        out: Vec<Vec<Module>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a Module) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        for w in s.edges.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.stack.contains(&w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut set = Vec::new();
            while let Some(w) = s.stack.pop() {
                set.push(w.clone());
                if w == v {
                    break;
                }
            }
            if set.len() > 1 {
                s.out.push(set);
            }
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn no_crate_has_a_circle_of_modules() {
    let mut found = Vec::new();
    for krate in crates() {
        for set in circles(&graph(&krate)) {
            let names: Vec<String> = set.iter().map(|m| m.join("::")).collect();
            found.push(format!("{}: {}", krate.display(), names.join(" <-> ")));
        }
    }
    assert!(found.is_empty(), "module circles:\n{}", found.join("\n"));
}

/// The check finds a circle where there is one: two sibling modules naming each other.
#[test]
fn a_circle_is_found() {
    let dir = std::env::temp_dir().join(format!("sv-structure-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("a")).unwrap();
    std::fs::write(src.join("lib.rs"), "mod a;\nmod b;\n").unwrap();
    std::fs::write(src.join("a/mod.rs"), "mod x;\n").unwrap();
    std::fs::write(src.join("a/x.rs"), "use crate::b::f;\n").unwrap();
    std::fs::write(
        src.join("b.rs"),
        "pub fn f() { super::a::g() } // crate::c\n",
    )
    .unwrap();
    let found = circles(&graph(&dir));
    assert_eq!(found.len(), 1, "{found:?}");
    let mut set: Vec<String> = found[0].iter().map(|m| m.join("::")).collect();
    set.sort();
    assert_eq!(set, ["a", "b"]);
    // Without `b`'s edge back, no circle; a test module's paths do not count.
    std::fs::write(
        src.join("b.rs"),
        "pub fn f() {}\n#[cfg(test)]\nmod tests { use super::super::a; }\n",
    )
    .unwrap();
    assert!(circles(&graph(&dir)).is_empty());
    // Nor do those of a file of tests.
    std::fs::create_dir_all(src.join("b")).unwrap();
    std::fs::write(
        src.join("b.rs"),
        "pub fn f() {}\n#[cfg(test)]\nmod tests;\n",
    )
    .unwrap();
    std::fs::write(src.join("b/tests.rs"), "use crate::a::x;\n").unwrap();
    assert!(circles(&graph(&dir)).is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}
