//! `aeron_randomised_int32` of `util/aeron_bitutil.h` (the rest of that header is inline).

use crate::ffi::ffi_boundary;
use crate::util::error::Error;
use crate::util::sys::random_i32;

/// A random 32-bit value from the kernel's pool (as Aeron reads `/dev/urandom`), e.g. for
/// session ids. Aeron exits when the pool cannot be read; this returns -1 and records the
/// error instead.
#[unsafe(no_mangle)]
pub extern "C" fn aeron_randomised_int32() -> i32 {
    ffi_boundary!("aeron_randomised_int32", { random_i32().map_err(|e| Error::io(&e, "getrandom")) })
}
