//! Shared helpers for integration tests: locating and loading the golden vectors made by
//! real Aeron 1.48 (`../shared/vectors`).
#![allow(dead_code)]

use std::io::Read;
use std::path::PathBuf;

/// The vectors folder, or `None` (with a message) when this machine lacks it. With
/// `AERONRS_REQUIRE_VECTORS=1` (set by `.ci/run`) a missing folder fails the test instead.
pub fn vectors_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("AERONRS_VECTORS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/vectors"));
    if dir.join("README.md").is_file() {
        return Some(dir);
    }
    if std::env::var("AERONRS_REQUIRE_VECTORS").as_deref() == Ok("1") {
        panic!("golden vectors not found at {} and AERONRS_REQUIRE_VECTORS=1", dir.display());
    }
    eprintln!("SKIP: golden vectors not found at {}", dir.display());
    None
}

/// The bytes of vector `name`; a `.gz` file is returned decompressed.
pub fn read_vector(name: &str) -> Option<Vec<u8>> {
    let path = vectors_dir()?.join(name);
    let raw = std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    if name.ends_with(".gz") {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&raw[..]).read_to_end(&mut out).expect("gunzip vector");
        Some(out)
    } else {
        Some(raw)
    }
}

/// The text of a decoded vector file (`*.decoded.txt`, `*.frames.txt`, ...).
pub fn read_vector_text(name: &str) -> Option<String> {
    read_vector(name).map(|b| String::from_utf8(b).expect("vector text is UTF-8"))
}
