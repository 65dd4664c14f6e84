//! `aeron_context_set_*` / `_get_*` of `aeronc.h` for every plain client setting: generated
//! by `build.rs` from the rows of the client's settings table (`settings_table!` in
//! `src/client/context.rs`) that carry a `c(..)` part, so a setting is declared once.
//! Setters store the value (the row's range is checked by `aeron_init`); getters return
//! it. The directory and the client name, which the context keeps as C strings too, are in
//! `context.rs`; the callbacks in `context_callbacks.rs`.

use std::ffi::c_int;

use crate::client::Context;
use crate::ffi::context::{aeron_context_t, context_mut, context_ref};
use crate::util::error::Result;

/// Stores `value` in the field `field` picks. Returns 0, or EINVAL for a NULL context.
///
/// # Safety
/// As [`context_mut`].
unsafe fn set_row<T>(
    context: *mut aeron_context_t,
    value: T,
    field: impl FnOnce(&mut Context) -> &mut T,
) -> Result<c_int> {
    // SAFETY: as this function's contract.
    *field(&mut unsafe { context_mut(context) }?.ctx) = value;
    Ok(0)
}

/// Reads the field `field` picks, or EINVAL for a NULL context.
///
/// # Safety
/// As [`context_ref`].
unsafe fn get_row<T>(context: *mut aeron_context_t, field: impl FnOnce(&Context) -> T) -> Result<T> {
    // SAFETY: as this function's contract.
    Ok(field(&unsafe { context_ref(context) }?.ctx))
}

include!(concat!(env!("OUT_DIR"), "/context_settings_ffi.rs"));
