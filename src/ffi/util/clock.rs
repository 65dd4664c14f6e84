//! Clocks (`aeronc.h`, `aeronmd.h`, `util/aeron_clock.h`) and sleeps
//! (`concurrent/aeron_thread.h`).

use std::ffi::{c_int, c_uint};
use std::time::Duration;

use crate::ffi::{ffi_boundary, require_non_null};
use crate::util::clock::{epoch_ms, nano_time};
use crate::util::error::Error;

/// A clock returning a time in one unit (`aeronc.h`): epoch ms for error logs.
#[allow(non_camel_case_types)]
pub type aeron_clock_func_t = Option<unsafe extern "C" fn() -> i64>;

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

/// Writes the wall-clock time (`CLOCK_REALTIME`: seconds and nanoseconds since the Unix
/// epoch) into `*time`. Returns 0, or -1 (EINVAL) for NULL.
///
/// # Safety
/// `time` must be NULL or valid for writes of a `struct timespec`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_clock_gettime_realtime(time: *mut libc::timespec) -> c_int {
    ffi_boundary!("aeron_clock_gettime_realtime", {
        require_non_null!(time, "time");
        let since_epoch = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_err(|_| Error::illegal_state("system clock is before 1970"))?;
        let now = libc::timespec {
            tv_sec: libc::time_t::try_from(since_epoch.as_secs()).unwrap_or(libc::time_t::MAX),
            tv_nsec: libc::c_long::from(since_epoch.subsec_nanos() as i32),
        };
        // SAFETY: time is non-null and writable (contract).
        unsafe { time.write(now) };
        Ok(0)
    })
}
