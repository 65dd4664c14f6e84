//! `aeron_context_*`: the settings and callbacks of a client before `aeron_init`, over
//! [`crate::client::Context`]. `aeron_context_init` starts from the defaults overridden by
//! the `AERON_*` environment variables; every setter returns 0 (-1 for a NULL context or a
//! bad value), every getter returns the current value (0, false or NULL for a NULL
//! context). The plain settings' setters and getters are generated from the client's
//! settings table (`context_settings.rs`); the directory and client name, kept here as C
//! strings too, and the callbacks (`context_callbacks.rs`) are written by hand.
//!
//! Threading: a context is configured from one thread before `aeron_init`; the client then
//! uses it exclusively (do not share a context between clients). Callbacks set here run on
//! the client conductor's thread (in invoker mode: the thread calling `aeron_main_do_work`)
//! with the `clientd` given alongside them.

use std::ffi::{CString, c_char, c_int, c_void};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::client::Context;
use crate::client::driver_termination::request_driver_termination;
use crate::ffi::c_str_arg;
use crate::ffi::context_callbacks::Callbacks;
use crate::ffi::handles::{self, Handle, borrow, into_raw, reclaim};
use crate::util::error::{Error, Result};

/// Client settings. Opaque; made by `aeron_context_init`, freed by `aeron_context_close`.
#[allow(non_camel_case_types)]
pub struct aeron_context_t {
    _private: [u8; 0],
}

/// What an `aeron_context_t` points to.
pub(crate) struct ContextHandle {
    pub ctx: Context,
    pub callbacks: Callbacks,
    dir: CString,
    client_name: CString,
}

impl Handle for aeron_context_t {
    type Target = ContextHandle;
}

/// Prints the error to stderr: the error handler a context has until one is set. Unlike
/// Aeron C's default it does not end the process.
unsafe extern "C" fn default_error_handler(_clientd: *mut c_void, errcode: c_int, message: *const c_char) {
    let text = if message.is_null() {
        std::borrow::Cow::Borrowed("")
    } else {
        // SAFETY: the client passes a NUL-terminated message valid during this call.
        unsafe { std::ffi::CStr::from_ptr(message) }.to_string_lossy()
    };
    eprintln!("ERROR: ({errcode}): {text}");
}

impl ContextHandle {
    fn new(ctx: Context) -> Result<Self> {
        let dir = path_c_string(ctx.aeron_dir())?;
        let client_name = c_string(ctx.client_name())?;
        let mut callbacks = Callbacks::default();
        callbacks.error.func = Some(default_error_handler);
        Ok(Self { ctx, callbacks, dir, client_name })
    }
}

fn c_string(text: &str) -> Result<CString> {
    CString::new(text).map_err(|_| Error::invalid_argument(format!("{text:?} contains a NUL byte")))
}

fn path_c_string(path: &Path) -> Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| Error::invalid_argument(format!("{} contains a NUL byte", path.display())))
}

/// The context behind `context` for changing it.
///
/// # Safety
/// `context` NULL or from `aeron_context_init`, not closed, used by one thread at a time.
pub(crate) unsafe fn context_mut<'a>(context: *mut aeron_context_t) -> Result<&'a mut ContextHandle> {
    // SAFETY: NULL or a live ContextHandle box, not shared while being configured (contract).
    unsafe { handles::borrow_mut(context, "context") }
}

/// The context behind `context` for reading it.
///
/// # Safety
/// As [`context_mut`].
pub(crate) unsafe fn context_ref<'a>(context: *mut aeron_context_t) -> Result<&'a ContextHandle> {
    // SAFETY: forwarded contract.
    unsafe { borrow(context, "context") }
}

/// Makes a context with the defaults overridden by the `AERON_*` environment variables and
/// stores it in `*context`. Returns 0, or -1 (a NULL argument, an unparsable variable).
///
/// # Safety
/// `context` must be valid for a pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_init(context: *mut *mut aeron_context_t) -> c_int {
    ffi_boundary!("aeron_context_init", {
        require_non_null!(context, "context");
        let handle = ContextHandle::new(Context::from_env()?)?;
        // SAFETY: context is non-null and writable (contract).
        unsafe { context.write(into_raw::<aeron_context_t>(handle)) };
        Ok(0)
    })
}

/// Frees the context (NULL is accepted). Close the client that used it first. Returns 0.
///
/// # Safety
/// `context` NULL or from `aeron_context_init`, closed once, no client using it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_close(context: *mut aeron_context_t) -> c_int {
    ffi_boundary!("aeron_context_close", {
        // SAFETY: NULL or a live context closed once (contract).
        drop(unsafe { reclaim(context) });
        Ok(0)
    })
}

/// Sets the Aeron directory (`AERON_DIR`) the client finds the driver in. Returns 0, or -1
/// for NULL arguments or non-UTF-8 text.
///
/// # Safety
/// `context` NULL or live; `value` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_set_dir(context: *mut aeron_context_t, value: *const c_char) -> c_int {
    ffi_boundary!("aeron_context_set_dir", {
        // SAFETY: NULL or live (contract).
        let handle = unsafe { context_mut(context) }?;
        // SAFETY: NULL or NUL-terminated (contract).
        let dir = PathBuf::from(unsafe { c_str_arg(value, "value") }?);
        handle.dir = path_c_string(&dir)?;
        handle.ctx.set_aeron_dir(dir);
        Ok(0)
    })
}

/// The Aeron directory; valid until the next `aeron_context_set_dir` or close. NULL (and
/// EINVAL) for a NULL context.
///
/// # Safety
/// `context` NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_get_dir(context: *mut aeron_context_t) -> *const c_char {
    ffi_boundary!("aeron_context_get_dir", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { context_ref(context) }?.dir.as_ptr())
    })
}

/// Sets the client name shown in the heartbeat counter label (`AERON_CLIENT_NAME`, at most
/// 100 bytes). Returns 0, or -1 for NULL arguments or a name too long.
///
/// # Safety
/// `context` NULL or live; `value` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_set_client_name(
    context: *mut aeron_context_t,
    value: *const c_char,
) -> c_int {
    ffi_boundary!("aeron_context_set_client_name", {
        // SAFETY: NULL or live (contract).
        let handle = unsafe { context_mut(context) }?;
        // SAFETY: NULL or NUL-terminated (contract).
        let name = unsafe { c_str_arg(value, "value") }?;
        handle.ctx.set_client_name(name)?;
        handle.client_name = c_string(name)?;
        Ok(0)
    })
}

/// The client name ("" by default); valid until it is set again or the context closed.
///
/// # Safety
/// `context` NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_get_client_name(context: *mut aeron_context_t) -> *const c_char {
    ffi_boundary!("aeron_context_get_client_name", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { context_ref(context) }?.client_name.as_ptr())
    })
}

/// Asks the driver in `directory` to terminate, passing `token_buffer` (`token_length`
/// bytes, at most 4096; NULL allowed when 0) to its termination validator. Returns 1 once
/// the request is written (the driver does not answer; it decides), -1 on error (no
/// driver CnC in `directory`, token too long).
///
/// # Safety
/// `directory` NULL or NUL-terminated; `token_buffer` valid for `token_length` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_context_request_driver_termination(
    directory: *const c_char,
    token_buffer: *const u8,
    token_length: usize,
) -> c_int {
    ffi_boundary!("aeron_context_request_driver_termination", {
        // SAFETY: NULL or NUL-terminated (contract).
        let dir = PathBuf::from(unsafe { c_str_arg(directory, "directory") }?);
        let token: &[u8] = if token_length == 0 {
            &[]
        } else {
            require_non_null!(token_buffer, "token_buffer");
            // SAFETY: token_buffer is non-null and valid for token_length bytes (contract).
            unsafe { std::slice::from_raw_parts(token_buffer, token_length) }
        };
        request_driver_termination(&dir, token)?;
        Ok(1)
    })
}

#[cfg(test)]
mod tests {
    use crate::client::Context;

    /// The `#define NAME "value"` lines of a hand-written header part.
    fn defines(text: &str) -> Vec<(&str, &str)> {
        text.lines()
            .filter_map(|line| line.strip_prefix("#define "))
            .filter_map(|rest| rest.split_once(' '))
            .map(|(name, value)| (name, value.trim_matches('"')))
            .collect()
    }

    #[test]
    fn header_names_the_variables_the_client_reads() {
        let client_env = defines(include_str!("../../include/aeronrs_client_env.h.in"));
        let driver_env = defines(include_str!("../../include/aeronrs_driver_env.h.in"));
        let value = |name: &str| {
            client_env
                .iter()
                .chain(&driver_env)
                .find(|(n, _)| *n == name)
                .map(|(_, v)| *v)
                .unwrap_or_default()
        };
        let variables: Vec<&str> = Context::settings().iter().filter_map(|row| row.env).collect();
        assert_eq!(variables.len(), 6, "{variables:?}");
        for variable in variables {
            assert_eq!(value(&format!("{variable}_ENV_VAR")), variable);
        }
        assert_eq!(value("AERON_URI_STRING_BUILDER_PREFIX_KEY"), crate::uri::string_builder::PREFIX_KEY);
        assert_eq!(value("AERON_URI_STRING_BUILDER_MEDIA_KEY"), crate::uri::string_builder::MEDIA_KEY);
    }
}
