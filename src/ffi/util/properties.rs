//! `aeron_properties_*` (`aeronc.h`, `aeronmd.h`): load Java-style properties
//! (`aeron.dir=/tmp/x`) as settings, named as environment variables (`AERON_DIR`). They
//! override the process environment for every aeronrs context created afterwards; the
//! process environment itself (`getenv`) is left unchanged.

use std::ffi::{c_char, c_int};

use crate::ffi::{c_str_arg, ffi_boundary};
use crate::util::error::Error;
use crate::util::properties;

// The exports, over the helpers above: generated from the table in build/properties_exports.rs.
include!(concat!(env!("OUT_DIR"), "/properties_ffi.rs"));
