//! UDP settings of `aeronmd.h` that are more than one plain value: receiver group
//! consideration and tag, wildcard port ranges, and the name resolver's texts.

use std::ffi::{c_char, c_int};

use crate::driver::network_config::{InferableBoolean, PortRange};
use crate::ffi::driver::context::{aeron_driver_context_t, get, get_string, set};
use crate::ffi::{FailureValue, c_str_arg, ffi_boundary, require_non_null};
use crate::util::error::{Error, Result};

/// Whether receivers consider themselves part of a group: one of `AERON_FORCE_FALSE`,
/// `AERON_FORCE_TRUE`, `AERON_INFER`.
#[allow(non_camel_case_types)]
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct aeron_inferable_boolean_t(pub c_int);

pub const AERON_FORCE_FALSE: c_int = 0;
pub const AERON_FORCE_TRUE: c_int = 1;
/// Decide from the channel (multicast: yes).
pub const AERON_INFER: c_int = 2;

impl FailureValue for aeron_inferable_boolean_t {
    fn failure() -> Self {
        aeron_inferable_boolean_t(-1)
    }
}

/// Stores a port range's ends in `low_port` / `high_port`.
///
/// # Safety
/// Both pointers NULL or valid for writes.
unsafe fn store_range(range: PortRange, low_port: *mut u16, high_port: *mut u16) -> Result<c_int> {
    require_non_null!(low_port, "low_port");
    require_non_null!(high_port, "high_port");
    // SAFETY: both non-null and writable (contract).
    unsafe {
        low_port.write(range.low);
        high_port.write(range.high);
    }
    Ok(0)
}

/// An optional text argument: NULL clears the setting.
///
/// # Safety
/// `value` must be NULL or NUL-terminated.
unsafe fn optional_text(value: *const c_char) -> Result<Option<String>> {
    if value.is_null() {
        return Ok(None);
    }
    // SAFETY: non-null and NUL-terminated (contract).
    Ok(Some(unsafe { c_str_arg(value, "value") }?.to_string()))
}

// The exports, over the helpers above: generated from the table in build/driver_settings_udp_exports.rs.
include!(concat!(env!("OUT_DIR"), "/driver_settings_udp_ffi.rs"));
