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

/// Sets whether receivers act as part of a group (`AERON_RECEIVER_GROUP_CONSIDERATION`:
/// `true`, `infer`, else false; default infer). Returns 0, or -1 (EINVAL) for a NULL
/// context or an unknown value.
///
/// # Safety
/// `context` must be NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_receiver_group_consideration(
    context: *mut aeron_driver_context_t,
    value: aeron_inferable_boolean_t,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_receiver_group_consideration", {
        let value = match value.0 {
            AERON_FORCE_FALSE => InferableBoolean::ForceFalse,
            AERON_FORCE_TRUE => InferableBoolean::ForceTrue,
            AERON_INFER => InferableBoolean::Infer,
            other => return Err(Error::invalid_argument(format!("unknown inferable boolean {other}"))),
        };
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.network.receiver_group_consideration = value) }
    })
}

/// Returns the receiver group consideration; `AERON_INFER` for a NULL context.
///
/// # Safety
/// `context` must be NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_receiver_group_consideration(
    context: *mut aeron_driver_context_t,
) -> aeron_inferable_boolean_t {
    ffi_boundary!("aeron_driver_context_get_receiver_group_consideration", {
        // SAFETY: NULL or live (contract).
        let value = unsafe { get(context, |c| c.network.receiver_group_consideration) };
        Ok(aeron_inferable_boolean_t(match value {
            InferableBoolean::ForceFalse => AERON_FORCE_FALSE,
            InferableBoolean::ForceTrue => AERON_FORCE_TRUE,
            InferableBoolean::Infer => AERON_INFER,
        }))
    })
}

/// Sets the group tag receivers send in status messages (`AERON_RECEIVER_GROUP_TAG`), or
/// none when `is_present` is false. Returns 0, or -1 (EINVAL) for a NULL context.
///
/// # Safety
/// `context` must be NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_receiver_group_tag(
    context: *mut aeron_driver_context_t,
    is_present: bool,
    value: i64,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_receiver_group_tag", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.network.receiver_group_tag = is_present.then_some(value)) }
    })
}

/// Whether a receiver group tag is set (false for a NULL context).
///
/// # Safety
/// `context` must be NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_receiver_group_tag_is_present(
    context: *mut aeron_driver_context_t,
) -> bool {
    ffi_boundary!("aeron_driver_context_get_receiver_group_tag_is_present", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.network.receiver_group_tag.is_some()) })
    })
}

/// The receiver group tag, or -1 when none is set (or for a NULL context).
///
/// # Safety
/// `context` must be NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_receiver_group_tag_value(
    context: *mut aeron_driver_context_t,
) -> i64 {
    ffi_boundary!("aeron_driver_context_get_receiver_group_tag_value", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.network.receiver_group_tag.unwrap_or(-1)) })
    })
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

/// Sets the ports the sender binds wildcard (port 0) endpoints from
/// (`AERON_SENDER_WILDCARD_PORT_RANGE` as `"low high"`; default 0 0 = any). Returns 0, or
/// -1 (EINVAL) for a NULL context.
///
/// # Safety
/// `context` must be NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_sender_wildcard_port_range(
    context: *mut aeron_driver_context_t,
    low_port: u16,
    high_port: u16,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_sender_wildcard_port_range", {
        let range = PortRange { low: low_port, high: high_port };
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.network.sender_wildcard_port_range = range) }
    })
}

/// Stores the sender wildcard port range in `*low_port` / `*high_port`. Returns 0, or -1
/// (EINVAL) for NULL arguments.
///
/// # Safety
/// `context` NULL or live; the out pointers NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_sender_wildcard_port_range(
    context: *mut aeron_driver_context_t,
    low_port: *mut u16,
    high_port: *mut u16,
) -> c_int {
    ffi_boundary!("aeron_driver_context_get_sender_wildcard_port_range", {
        require_non_null!(context, "context");
        // SAFETY: live (contract).
        let range = unsafe { get(context, |c| c.network.sender_wildcard_port_range) };
        // SAFETY: NULL or writable (contract).
        unsafe { store_range(range, low_port, high_port) }
    })
}

/// Sets the ports the receiver binds wildcard (port 0) endpoints from
/// (`AERON_RECEIVER_WILDCARD_PORT_RANGE`; default 0 0 = any). Returns 0, or -1 (EINVAL) for
/// a NULL context.
///
/// # Safety
/// `context` must be NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_receiver_wildcard_port_range(
    context: *mut aeron_driver_context_t,
    low_port: u16,
    high_port: u16,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_receiver_wildcard_port_range", {
        let range = PortRange { low: low_port, high: high_port };
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.network.receiver_wildcard_port_range = range) }
    })
}

/// Stores the receiver wildcard port range in `*low_port` / `*high_port`. Returns 0, or -1
/// (EINVAL) for NULL arguments.
///
/// # Safety
/// `context` NULL or live; the out pointers NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_receiver_wildcard_port_range(
    context: *mut aeron_driver_context_t,
    low_port: *mut u16,
    high_port: *mut u16,
) -> c_int {
    ffi_boundary!("aeron_driver_context_get_receiver_wildcard_port_range", {
        require_non_null!(context, "context");
        // SAFETY: live (contract).
        let range = unsafe { get(context, |c| c.network.receiver_wildcard_port_range) };
        // SAFETY: NULL or writable (contract).
        unsafe { store_range(range, low_port, high_port) }
    })
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

/// Sets this driver's name for the name resolver (`AERON_DRIVER_RESOLVER_NAME`; NULL
/// clears it). Returns 0, or -1 (EINVAL) for a NULL context.
///
/// # Safety
/// `context` NULL or live; `value` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_resolver_name(
    context: *mut aeron_driver_context_t,
    value: *const c_char,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_resolver_name", {
        // SAFETY: NULL or NUL-terminated (contract).
        let value = unsafe { optional_text(value) }?;
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.network.resolver_name = value) }
    })
}

/// Returns the resolver name, owned by the context; NULL when unset or for a NULL context.
///
/// # Safety
/// `context` must be NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_resolver_name(
    context: *mut aeron_driver_context_t,
) -> *const c_char {
    ffi_boundary!("aeron_driver_context_get_resolver_name", {
        // SAFETY: NULL or live (contract).
        unsafe { get_string(context, "resolver_name", std::ptr::null(), |c| c.network.resolver_name.clone()) }
    })
}

/// Sets the `host:port` the name resolver listens on (`AERON_DRIVER_RESOLVER_INTERFACE`;
/// NULL clears it). Returns 0, or -1 (EINVAL) for a NULL context.
///
/// # Safety
/// `context` NULL or live; `value` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_resolver_interface(
    context: *mut aeron_driver_context_t,
    value: *const c_char,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_resolver_interface", {
        // SAFETY: NULL or NUL-terminated (contract).
        let value = unsafe { optional_text(value) }?;
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.network.resolver_interface = value) }
    })
}

/// Returns the resolver interface, owned by the context; NULL when unset or for a NULL
/// context.
///
/// # Safety
/// `context` must be NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_resolver_interface(
    context: *mut aeron_driver_context_t,
) -> *const c_char {
    ffi_boundary!("aeron_driver_context_get_resolver_interface", {
        // SAFETY: NULL or live (contract).
        unsafe {
            get_string(context, "resolver_interface", std::ptr::null(), |c| {
                c.network.resolver_interface.clone()
            })
        }
    })
}

/// Sets the `host:port` of a neighbour the name resolver joins through
/// (`AERON_DRIVER_RESOLVER_BOOTSTRAP_NEIGHBOR`; NULL clears it). Returns 0, or -1 (EINVAL)
/// for a NULL context.
///
/// # Safety
/// `context` NULL or live; `value` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_resolver_bootstrap_neighbor(
    context: *mut aeron_driver_context_t,
    value: *const c_char,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_resolver_bootstrap_neighbor", {
        // SAFETY: NULL or NUL-terminated (contract).
        let value = unsafe { optional_text(value) }?;
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.network.resolver_bootstrap_neighbor = value) }
    })
}

/// Returns the bootstrap neighbour, owned by the context; NULL when unset or for a NULL
/// context.
///
/// # Safety
/// `context` must be NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_resolver_bootstrap_neighbor(
    context: *mut aeron_driver_context_t,
) -> *const c_char {
    ffi_boundary!("aeron_driver_context_get_resolver_bootstrap_neighbor", {
        // SAFETY: NULL or live (contract).
        unsafe {
            get_string(context, "resolver_bootstrap_neighbor", std::ptr::null(), |c| {
                c.network.resolver_bootstrap_neighbor.clone()
            })
        }
    })
}

/// Sets the name resolver's init args (`AERON_NAME_RESOLVER_INIT_ARGS`; NULL clears them).
/// Returns 0, or -1 (EINVAL) for a NULL context.
///
/// # Safety
/// `context` NULL or live; `value` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_name_resolver_init_args(
    context: *mut aeron_driver_context_t,
    value: *const c_char,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_name_resolver_init_args", {
        // SAFETY: NULL or NUL-terminated (contract).
        let value = unsafe { optional_text(value) }?;
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.network.name_resolver_init_args = value) }
    })
}

/// Returns the name resolver's init args, owned by the context; NULL when unset or for a
/// NULL context.
///
/// # Safety
/// `context` must be NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_name_resolver_init_args(
    context: *mut aeron_driver_context_t,
) -> *const c_char {
    ffi_boundary!("aeron_driver_context_get_name_resolver_init_args", {
        // SAFETY: NULL or live (contract).
        unsafe {
            get_string(context, "name_resolver_init_args", std::ptr::null(), |c| {
                c.network.name_resolver_init_args.clone()
            })
        }
    })
}
