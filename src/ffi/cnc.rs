//! The `aeron_cnc_*` monitoring API of `aeronc.h`: map a driver's `cnc.dat` read-only in
//! spirit (nothing is written), and read its constants, heartbeat, counters, error log and
//! loss report, as `AeronStat`, `ErrorStat` and `LossStat` do. Also `aeron_is_driver_active`
//! and `aeron_default_path`.

use std::ffi::{CString, c_char, c_int, c_void};
use std::path::{Path, PathBuf};

use crate::cnc::{CncFile, await_cnc, cnc_path, default_aeron_dir, is_driver_active_logged};
use crate::concurrent::counters::CountersReader;
use crate::concurrent::mapped_file::map_existing;
use crate::driver::loss::loss_report::{LOSS_REPORT_FILE_NAME, read_loss_report};
use crate::ffi::counters_reader::{aeron_counters_reader_t, as_c_reader};
use crate::ffi::handles::{self, Handle};
use crate::ffi::util::error_log::read_error_log;
use crate::ffi::util::strutil::snprintf_c_string;
use crate::ffi::{c_str_arg, ffi_boundary, require_non_null, write_out};
use crate::util::error::{Error, Result};

/// A mapped `cnc.dat`. Opaque; created by `aeron_cnc_init`, freed by `aeron_cnc_close`.
#[allow(non_camel_case_types)]
pub struct aeron_cnc_t {
    _private: [u8; 0],
}

/// The header of `cnc.dat`. Upstream packs it to 4 bytes; the C declaration is
/// hand-written in `include/aeronrs_packed.h.in` (cbindgen cannot emit `pack(4)`).
#[allow(non_camel_case_types)]
#[repr(C, packed(4))]
#[derive(Clone, Copy)]
pub struct aeron_cnc_constants_t {
    pub cnc_version: i32,
    pub to_driver_buffer_length: i32,
    pub to_clients_buffer_length: i32,
    pub counter_metadata_buffer_length: i32,
    pub counter_values_buffer_length: i32,
    pub error_log_buffer_length: i32,
    pub client_liveness_timeout: i64,
    pub start_timestamp: i64,
    pub pid: i64,
}

static_assertions::const_assert_eq!(std::mem::size_of::<aeron_cnc_constants_t>(), 48);
static_assertions::const_assert_eq!(std::mem::align_of::<aeron_cnc_constants_t>(), 4);
static_assertions::const_assert_eq!(std::mem::offset_of!(aeron_cnc_constants_t, error_log_buffer_length), 20);
static_assertions::const_assert_eq!(std::mem::offset_of!(aeron_cnc_constants_t, client_liveness_timeout), 24);
static_assertions::const_assert_eq!(std::mem::offset_of!(aeron_cnc_constants_t, pid), 40);

/// Receives one distinct error of an error log: how often it was seen, when first and last
/// (epoch ms), its text (`error_length` bytes, not NUL-terminated, valid during the call),
/// and `clientd`.
#[allow(non_camel_case_types)]
pub type aeron_error_log_reader_func_t = Option<
    unsafe extern "C" fn(
        observation_count: i32,
        first_observation_timestamp: i64,
        last_observation_timestamp: i64,
        error: *const c_char,
        error_length: usize,
        clientd: *mut c_void,
    ),
>;

/// Receives one loss report entry: `clientd`, how many losses and bytes, when first and
/// last (epoch ms), the stream, and the channel and source texts (not NUL-terminated, valid
/// during the call).
#[allow(non_camel_case_types)]
pub type aeron_loss_reporter_read_entry_func_t = Option<
    unsafe extern "C" fn(
        clientd: *mut c_void,
        observation_count: i64,
        total_bytes_lost: i64,
        first_observation_timestamp: i64,
        last_observation_timestamp: i64,
        session_id: i32,
        stream_id: i32,
        channel: *const c_char,
        channel_length: i32,
        source: *const c_char,
        source_length: i32,
    ),
>;

/// Prints one line of diagnostics (`aeron_is_driver_active`).
#[allow(non_camel_case_types)]
pub type aeron_log_func_t = Option<unsafe extern "C" fn(message: *const c_char)>;

/// What an `aeron_cnc_t` points to.
pub(crate) struct CncHandle {
    cnc: CncFile,
    counters: CountersReader,
    aeron_dir: PathBuf,
    filename: CString,
}

impl Handle for aeron_cnc_t {
    type Target = CncHandle;
}

/// The handle behind `aeron_cnc`, or EINVAL for NULL.
///
/// # Safety
/// `aeron_cnc` must be NULL or from `aeron_cnc_init` and not closed.
unsafe fn handle<'a>(aeron_cnc: *mut aeron_cnc_t) -> Result<&'a CncHandle> {
    // SAFETY: NULL or from aeron_cnc_init, not closed (contract).
    unsafe { handles::borrow(aeron_cnc, "aeron_cnc") }
}

/// Maps `<base_path>/cnc.dat` and stores a new handle in `*aeron_cnc`, waiting up to
/// `timeout_ms` for a driver to create and initialise the file. Returns 0, or -1:
/// `AERON_CLIENT_ERROR_DRIVER_TIMEOUT` when it did not appear in time, EINVAL for NULL
/// arguments or an incompatible CnC version, the `errno` of a failed mapping.
///
/// # Safety
/// `aeron_cnc` must be NULL or valid for a pointer write; `base_path` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_cnc_init(
    aeron_cnc: *mut *mut aeron_cnc_t,
    base_path: *const c_char,
    timeout_ms: i64,
) -> c_int {
    ffi_boundary!("aeron_cnc_init", {
        require_non_null!(aeron_cnc, "aeron_cnc");
        // SAFETY: NULL or NUL-terminated (contract); NULL is rejected.
        let aeron_dir = PathBuf::from(unsafe { c_str_arg(base_path, "base_path") }?);
        let path = cnc_path(&aeron_dir);
        let filename = CString::new(path.to_string_lossy().into_owned())
            .map_err(|_| Error::invalid_argument("base_path contains NUL"))?;
        let cnc = await_cnc(&path, timeout_ms)?;
        let counters = cnc.counters_reader()?;
        let raw = handles::into_raw(CncHandle { cnc, counters, aeron_dir, filename });
        // SAFETY: aeron_cnc is non-null and writable (contract).
        unsafe { write_out(aeron_cnc, "aeron_cnc", raw) }
    })
}

/// Copies the CnC header (version, section lengths, client liveness timeout, start time,
/// driver pid) into `*constants`. Returns 0, or -1 (EINVAL) for NULL arguments.
///
/// # Safety
/// `aeron_cnc` NULL or open; `constants` NULL or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_cnc_constants(
    aeron_cnc: *mut aeron_cnc_t,
    constants: *mut aeron_cnc_constants_t,
) -> c_int {
    ffi_boundary!("aeron_cnc_constants", {
        // SAFETY: NULL or open (contract).
        let h = unsafe { handle(aeron_cnc) }?;
        require_non_null!(constants, "constants");
        let layout = h.cnc.layout();
        let value = aeron_cnc_constants_t {
            cnc_version: h.cnc.cnc_version(),
            to_driver_buffer_length: layout.to_driver_buffer_length as i32,
            to_clients_buffer_length: layout.to_clients_buffer_length as i32,
            counter_metadata_buffer_length: layout.counters_metadata_buffer_length as i32,
            counter_values_buffer_length: layout.counters_values_buffer_length as i32,
            error_log_buffer_length: layout.error_log_buffer_length as i32,
            client_liveness_timeout: h.cnc.client_liveness_timeout_ns(),
            start_timestamp: h.cnc.start_timestamp_ms(),
            pid: h.cnc.pid(),
        };
        // SAFETY: constants is non-null and writable (contract); write_unaligned because
        // the struct is packed.
        unsafe { constants.write_unaligned(value) };
        Ok(0)
    })
}

// The CnC handle's single-value queries, generated by build.rs from its table in
// `build/handle_query_exports.rs`.
include!(concat!(env!("OUT_DIR"), "/cnc_ffi.rs"));

/// Calls `callback` for each distinct error in the driver's error log last seen at or after
/// `since_timestamp` (epoch ms; 0 for all), on the calling thread. Returns how many; 0 on
/// error (NULL arguments, a corrupt log), with `aeron_errcode()` set.
///
/// # Safety
/// `aeron_cnc` NULL or open; `callback` safe to call with `clientd`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_cnc_error_log_read(
    aeron_cnc: *mut aeron_cnc_t,
    callback: aeron_error_log_reader_func_t,
    clientd: *mut c_void,
    since_timestamp: i64,
) -> usize {
    ffi_boundary!("aeron_cnc_error_log_read", {
        // SAFETY: NULL or open (contract).
        let h = unsafe { handle(aeron_cnc) }?;
        // SAFETY: the error log is inside the live mapping; callback per the contract.
        unsafe { read_error_log(h.cnc.error_log_buffer()?, callback, clientd, since_timestamp) }
    })
}

/// Maps `loss-report.dat` next to `cnc.dat` and calls `entry_func` for each entry, on the
/// calling thread. Returns the number of entries, or -1: EINVAL for NULL arguments, the
/// `errno` of a failed mapping (ENOENT when there is no loss report).
///
/// # Safety
/// `aeron_cnc` NULL or open; `entry_func` safe to call with `clientd`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_cnc_loss_reporter_read(
    aeron_cnc: *mut aeron_cnc_t,
    entry_func: aeron_loss_reporter_read_entry_func_t,
    clientd: *mut c_void,
) -> c_int {
    ffi_boundary!("aeron_cnc_loss_reporter_read", {
        // SAFETY: NULL or open (contract).
        let h = unsafe { handle(aeron_cnc) }?;
        let entry_func = entry_func.ok_or_else(|| Error::invalid_argument("entry_func must not be NULL"))?;
        let report = map_existing(&h.aeron_dir.join(LOSS_REPORT_FILE_NAME))
            .map_err(|e| e.context("Failed to map loss report"))?;
        let count = read_loss_report(&report, |entry| {
            // SAFETY: caller-supplied callback (contract); the texts live until it returns.
            unsafe {
                entry_func(
                    clientd,
                    entry.observation_count,
                    entry.total_bytes_lost,
                    entry.first_observation_ms,
                    entry.last_observation_ms,
                    entry.session_id,
                    entry.stream_id,
                    entry.channel.as_ptr().cast(),
                    entry.channel.len() as i32,
                    entry.source.as_ptr().cast(),
                    entry.source.len() as i32,
                )
            }
        });
        Ok(count as c_int)
    })
}

/// Unmaps `cnc.dat` and frees the handle (and its counters reader). NULL is accepted.
///
/// # Safety
/// `aeron_cnc` must be NULL or open; nothing obtained from it is used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_cnc_close(aeron_cnc: *mut aeron_cnc_t) {
    ffi_boundary!("aeron_cnc_close", {
        // SAFETY: NULL or from aeron_cnc_init, closed once (contract).
        drop(unsafe { handles::reclaim(aeron_cnc) });
        Ok(())
    })
}

/// Sends `message` to `log_func` if there is one.
///
/// # Safety
/// `log_func` must be NULL or safe to call with a NUL-terminated string.
unsafe fn log(log_func: aeron_log_func_t, message: String) {
    if let (Some(log_func), Ok(text)) = (log_func, CString::new(message)) {
        // SAFETY: caller-supplied logger (contract); text lives for the call.
        unsafe { log_func(text.as_ptr()) };
    }
}

/// Whether a media driver is alive in `dirname`: its `cnc.dat` has a compatible version
/// and a driver heartbeat at most `timeout_ms` old (waiting up to `timeout_ms` for a new
/// file's version). Describes what it finds to `log_func` (may be NULL). False for a NULL
/// `dirname` (EINVAL) or a missing directory.
///
/// # Safety
/// `dirname` NULL or NUL-terminated; `log_func` NULL or safe to call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_is_driver_active(
    dirname: *const c_char,
    timeout_ms: i64,
    log_func: aeron_log_func_t,
) -> bool {
    ffi_boundary!("aeron_is_driver_active", {
        // SAFETY: NULL or NUL-terminated (contract); NULL is rejected.
        let dir = Path::new(unsafe { c_str_arg(dirname, "dirname") }?);
        // SAFETY: logger per the contract.
        is_driver_active_logged(dir, timeout_ms, |message| unsafe { log(log_func, message) })
    })
}

/// Writes the default Aeron directory (`/dev/shm/aeron-<user>` on Linux) into `path`,
/// truncated to `path_length - 1` bytes and NUL-terminated like `snprintf`. Returns the
/// full length (excluding the NUL: a value `>= path_length` means it was truncated), or -1
/// (EINVAL) for a NULL `path` with a non-zero length.
///
/// # Safety
/// `path` must be NULL (with `path_length` 0) or valid for writes of `path_length` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_default_path(path: *mut c_char, path_length: usize) -> c_int {
    ffi_boundary!("aeron_default_path", {
        let dir = default_aeron_dir().to_string_lossy().into_owned();
        // SAFETY: path is NULL or valid for path_length bytes (contract).
        unsafe { snprintf_c_string(dir.as_bytes(), path, path_length, "path") }
    })
}
