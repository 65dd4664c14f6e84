//! Version functions of `aeronc.h`. They report the Aeron release whose API and
//! protocol this library implements (1.48.0); `aeronrs_version_text` reports our own.

use std::ffi::{c_char, c_int};

pub const AERON_API_VERSION_MAJOR: c_int = 1;
pub const AERON_API_VERSION_MINOR: c_int = 48;
pub const AERON_API_VERSION_PATCH: c_int = 0;

static VERSION_FULL: &[u8] =
    concat!("aeronrs version=1.48.0 aeronrs=", env!("CARGO_PKG_VERSION"), "\0").as_bytes();
static VERSION_TEXT: &[u8] = b"1.48.0\0";
static GITSHA: &[u8] = b"aeronrs\0";
static AERONRS_VERSION: &[u8] = concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes();

/// Full version string of the library.
#[unsafe(no_mangle)]
pub extern "C" fn aeron_version_full() -> *const c_char {
    VERSION_FULL.as_ptr().cast()
}

/// Version text, `"1.48.0"`.
#[unsafe(no_mangle)]
pub extern "C" fn aeron_version_text() -> *const c_char {
    VERSION_TEXT.as_ptr().cast()
}

#[unsafe(no_mangle)]
pub extern "C" fn aeron_version_major() -> c_int {
    AERON_API_VERSION_MAJOR
}

#[unsafe(no_mangle)]
pub extern "C" fn aeron_version_minor() -> c_int {
    AERON_API_VERSION_MINOR
}

#[unsafe(no_mangle)]
pub extern "C" fn aeron_version_patch() -> c_int {
    AERON_API_VERSION_PATCH
}

/// Source identifier in place of a git sha.
#[unsafe(no_mangle)]
pub extern "C" fn aeron_version_gitsha() -> *const c_char {
    GITSHA.as_ptr().cast()
}

/// The aeronrs crate version, e.g. `"0.1.0"` (matches `AERONRS_VERSION` in the header).
#[unsafe(no_mangle)]
pub extern "C" fn aeronrs_version_text() -> *const c_char {
    AERONRS_VERSION.as_ptr().cast()
}
