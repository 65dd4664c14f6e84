//! The libraries export exactly the documented C API: the functions declared in
//! `include/aeronrs.h` are the list in `include/aeronrs.symbols`, `libaeronrs.so` exports
//! exactly those (no Rust internals), and `libaeronrs.a` defines all of them and no other
//! `aeron`-prefixed symbol. Aeron's utility headers in `include/` (`aeron_agent.h`, `util/`,
//! `concurrent/`, ...) declare nothing else: every function they name is exported (declared
//! in `aeronrs.h`) or `static inline` in the header.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The documented list.
fn listed_symbols() -> BTreeSet<String> {
    let text = std::fs::read_to_string(manifest_dir().join("include/aeronrs.symbols")).unwrap();
    text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(String::from).collect()
}

/// Names of the functions the header declares: at the start of a declaration line, the
/// `aeron…` identifier directly followed by `(` (typedefs, macros and comments excluded).
fn header_functions() -> BTreeSet<String> {
    declared_functions(&manifest_dir().join("include/aeronrs.h"))
}

/// Every `.h` under `include/`, with its path relative to it.
fn installed_headers() -> Vec<(String, PathBuf)> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<(String, PathBuf)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, root, out);
            } else if path.extension().is_some_and(|e| e == "h") {
                out.push((path.strip_prefix(root).unwrap().display().to_string(), path));
            }
        }
    }
    let root = manifest_dir().join("include");
    let mut out = Vec::new();
    walk(&root, &root, &mut out);
    out.sort();
    out
}

/// The non-static functions a header declares (`static inline` definitions excluded).
fn declared_functions(header: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(header).unwrap();
    let mut names = BTreeSet::new();
    for line in text.lines() {
        let starts_declaration = line.starts_with(|c: char| c.is_ascii_lowercase())
            && !line.starts_with("typedef")
            && !line.starts_with("static");
        if !starts_declaration {
            continue;
        }
        let Some(open) = line.find('(') else { continue };
        let before = &line[..open];
        let start = before.rfind([' ', '*']).map_or(0, |i| i + 1);
        let name = &before[start..];
        if name.starts_with("aeron") {
            names.insert(name.to_string());
        }
    }
    names
}

/// The folder cargo put this crate's cdylib and staticlib in for this test run.
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().to_path_buf()
}

/// `(type, name)` of each symbol `nm` lists with `args`.
fn nm(args: &[&str], library: &Path) -> Vec<(String, String)> {
    assert!(library.is_file(), "{} was not built (cargo builds it alongside the tests)", library.display());
    let output = Command::new("nm")
        .args(args)
        .arg(library)
        .output()
        .unwrap_or_else(|e| panic!("running nm (binutils) failed: {e}"));
    assert!(output.status.success(), "nm failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            match fields.as_slice() {
                [_, kind, name] => Some((kind.to_string(), name.to_string())),
                _ => None,
            }
        })
        .collect()
}

#[test]
fn header_declares_exactly_the_listed_functions() {
    let header = header_functions();
    let listed = listed_symbols();
    assert!(listed.len() > 250, "the list holds the whole API ({} names)", listed.len());
    let missing: Vec<_> = header.difference(&listed).collect();
    let extra: Vec<_> = listed.difference(&header).collect();
    assert!(missing.is_empty(), "declared in aeronrs.h but not in aeronrs.symbols: {missing:?}");
    assert!(extra.is_empty(), "in aeronrs.symbols but not declared in aeronrs.h: {extra:?}");
}

#[test]
fn aeron_utility_headers_declare_only_exported_or_inline_functions() {
    let listed = listed_symbols();
    let headers = installed_headers();
    let names: Vec<&str> = headers.iter().map(|(name, _)| name.as_str()).collect();
    for upstream in [
        "aeron_agent.h",
        "aeron_alloc.h",
        "aeron_common.h",
        "aeron_cnc_file_descriptor.h",
        "concurrent/aeron_atomic.h",
        "concurrent/aeron_thread.h",
        "concurrent/aeron_distinct_error_log.h",
        "util/aeron_strutil.h",
        "util/aeron_parse_util.h",
        "util/aeron_error.h",
        "util/aeron_bitutil.h",
        "util/aeron_platform.h",
        "util/aeron_clock.h",
        "util/aeron_fileutil.h",
    ] {
        assert!(names.contains(&upstream), "include/{upstream} is missing: {names:?}");
    }
    for (name, path) in &headers {
        let unexported: Vec<_> =
            declared_functions(path).into_iter().filter(|f| !listed.contains(f)).collect();
        assert!(
            unexported.is_empty(),
            "include/{name} declares functions libaeronrs does not export: {unexported:?}"
        );
    }
    // The inline functions of those headers are the header's own: none is also exported.
    for (name, path) in &headers {
        let text = std::fs::read_to_string(path).unwrap();
        for line in text.lines().filter(|l| l.starts_with("static inline")) {
            let function = line[..line.find('(').unwrap()].rsplit([' ', '*']).next().unwrap();
            assert!(!listed.contains(function), "include/{name}: {function} is inline and exported");
        }
    }
}

#[test]
fn shared_library_exports_exactly_the_list() {
    let exported: BTreeSet<String> = nm(&["-D", "--defined-only"], &library_dir().join("libaeronrs.so"))
        .into_iter()
        .filter(|(kind, _)| kind.chars().all(|c| c.is_ascii_uppercase()))
        .map(|(_, name)| name)
        .collect();
    let listed = listed_symbols();
    let unlisted: Vec<_> = exported.difference(&listed).collect();
    let missing: Vec<_> = listed.difference(&exported).collect();
    assert!(unlisted.is_empty(), "libaeronrs.so exports symbols outside the documented API: {unlisted:?}");
    assert!(missing.is_empty(), "libaeronrs.so lacks documented functions: {missing:?}");
}

#[test]
fn static_library_defines_the_list_and_no_other_aeron_symbol() {
    let defined: BTreeSet<String> = nm(&["-g", "--defined-only"], &library_dir().join("libaeronrs.a"))
        .into_iter()
        .filter(|(kind, name)| kind == "T" && name.starts_with("aeron"))
        .map(|(_, name)| name)
        .collect();
    let listed = listed_symbols();
    let unlisted: Vec<_> = defined.difference(&listed).collect();
    let missing: Vec<_> = listed.difference(&defined).collect();
    assert!(unlisted.is_empty(), "libaeronrs.a defines undocumented aeron symbols: {unlisted:?}");
    assert!(missing.is_empty(), "libaeronrs.a lacks documented functions: {missing:?}");
}
