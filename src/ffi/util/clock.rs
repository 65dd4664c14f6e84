//! Clocks (`aeronc.h`, `aeronmd.h`) and sleeps (`concurrent/aeron_thread.h`).

use std::ffi::c_uint;
use std::time::Duration;

use crate::ffi::ffi_boundary;
use crate::util::clock::{epoch_ms, nano_time};

/// Monotonic time in nanoseconds from an arbitrary origin: use differences only.
#[unsafe(no_mangle)]
pub extern "C" fn aeron_nano_clock() -> i64 {
    nano_time()
}

/// Wall-clock time in milliseconds since the Unix epoch.
#[unsafe(no_mangle)]
pub extern "C" fn aeron_epoch_clock() -> i64 {
    epoch_ms()
}

/// Suspends the calling thread for at least `nanoseconds`.
#[unsafe(no_mangle)]
pub extern "C" fn aeron_nano_sleep(nanoseconds: u64) {
    ffi_boundary!("aeron_nano_sleep", {
        std::thread::sleep(Duration::from_nanos(nanoseconds));
        Ok(())
    })
}

/// Suspends the calling thread for at least `microseconds`.
#[unsafe(no_mangle)]
pub extern "C" fn aeron_micro_sleep(microseconds: c_uint) {
    ffi_boundary!("aeron_micro_sleep", {
        std::thread::sleep(Duration::from_micros(u64::from(microseconds)));
        Ok(())
    })
}
