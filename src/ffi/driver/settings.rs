//! `aeron_driver_context_set_*` / `_get_*` of `aeronmd.h` for every plain setting: generated
//! by `build.rs` from the rows of the settings tables (`settings_table!` in
//! `src/driver/{context,network_config,agent_config}.rs`) that carry a `c(..)` part, so a
//! setting is declared once. Setters store the value (checked against the row's range when
//! the driver starts); getters of a NULL context return Aeron's default. Settings that need
//! more than a value (strings, ranges, idle strategies, callbacks) are in the other
//! `settings_*` files and `context.rs`.

use std::ffi::c_int;

use crate::driver::context::DriverContext;
use crate::ffi::driver::context::{aeron_driver_context_t, get, try_set};
use crate::ffi::ffi_boundary;
use crate::util::error::{Error, Result};
use crate::util::settings::check_range;

/// A setting's value as a C setter takes it (`Self` from `C`).
trait FromC<C>: Sized {
    fn from_c(setting: &str, value: C) -> Result<Self>;
}

impl<T> FromC<T> for T {
    fn from_c(_setting: &str, value: T) -> Result<Self> {
        Ok(value)
    }
}

/// aeronmd.h passes some 32-bit settings as `size_t`.
impl FromC<usize> for u32 {
    fn from_c(setting: &str, value: usize) -> Result<Self> {
        u32::try_from(value).map_err(|_| Error::invalid_argument(format!("{setting}: {value} is too large")))
    }
}

/// A setting's value as a C getter returns it.
trait ToC<C> {
    fn to_c(self) -> C;
}

impl<T> ToC<T> for T {
    fn to_c(self) -> T {
        self
    }
}

impl ToC<usize> for u32 {
    fn to_c(self) -> usize {
        self as usize
    }
}

/// aeronmd.h returns some flags as `int`.
impl ToC<c_int> for bool {
    fn to_c(self) -> c_int {
        c_int::from(self)
    }
}

/// aeronmd.h returns the duty cycle thresholds as `int64_t`; they are at most an hour.
impl ToC<i64> for u64 {
    fn to_c(self) -> i64 {
        self as i64
    }
}

/// Stores `value` in the field `field` picks. Returns 0, or EINVAL for a NULL context or a
/// value the field's type cannot hold.
///
/// # Safety
/// As `context::handle`.
unsafe fn set_row<C, T: FromC<C>>(
    context: *mut aeron_driver_context_t,
    setting: &str,
    value: C,
    field: impl FnOnce(&mut DriverContext) -> &mut T,
) -> Result<c_int> {
    let value = T::from_c(setting, value)?;
    // SAFETY: as this function's contract.
    unsafe {
        try_set(context, |c| {
            *field(c) = value;
            Ok(())
        })
    }
}

/// As [`set_row`], refusing a value outside `[min, max]` at once.
///
/// # Safety
/// As `context::handle`.
unsafe fn set_row_in<C, T: FromC<C> + PartialOrd + std::fmt::Display>(
    context: *mut aeron_driver_context_t,
    setting: &str,
    value: C,
    min: T,
    max: T,
    field: impl FnOnce(&mut DriverContext) -> &mut T,
) -> Result<c_int> {
    let value = check_range(setting, T::from_c(setting, value)?, min, max)?;
    // SAFETY: as this function's contract.
    unsafe { set_row(context, setting, value, field) }
}

include!(concat!(env!("OUT_DIR"), "/driver_settings_ffi.rs"));
