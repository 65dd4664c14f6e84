//! Semantic versions packed into an `int32_t` as Aeron stores them in `cnc.dat` and counters:
//! `major << 16 | minor << 8 | patch` (`aeron_common.h`).

use crate::cnc::descriptor::{
    semantic_version_compose, semantic_version_major, semantic_version_minor, semantic_version_patch,
};

/// Packs a version into one int: `aeron_semantic_version_compose(0, 2, 0)` is 512, the CnC
/// version of Aeron 1.48.
#[unsafe(no_mangle)]
pub extern "C" fn aeron_semantic_version_compose(major: u8, minor: u8, patch: u8) -> i32 {
    semantic_version_compose(major, minor, patch)
}

/// The major part of a packed version.
#[unsafe(no_mangle)]
pub extern "C" fn aeron_semantic_version_major(version: i32) -> u8 {
    semantic_version_major(version)
}

/// The minor part of a packed version.
#[unsafe(no_mangle)]
pub extern "C" fn aeron_semantic_version_minor(version: i32) -> u8 {
    semantic_version_minor(version)
}

/// The patch part of a packed version.
#[unsafe(no_mangle)]
pub extern "C" fn aeron_semantic_version_patch(version: i32) -> u8 {
    semantic_version_patch(version)
}
