//! `aeron_uri_string_builder_*` (Aeron C's `uri/aeron_uri_string_builder.h`) over
//! [`crate::uri::UriStringBuilder`]: build a channel URI key by key, or edit a parsed one.
//!
//! The application owns the `aeron_uri_string_builder_t` struct (e.g. on its stack); `init`
//! functions fill it and `close` frees what it holds. Parameters print in insertion order.
//! A builder is used by one thread at a time.

use std::collections::HashMap;
use std::ffi::{CString, c_char, c_int, c_void};

use crate::ffi::handles::{self, Handle};
use crate::ffi::util::strutil::write_c_string;
use crate::ffi::{c_str_arg, optional_c_str_arg};
use crate::uri::UriStringBuilder;
use crate::util::error::{Error, Result};

/// A URI builder. Allocate it yourself; set it up with `aeron_uri_string_builder_init_new`
/// or `_init_on_string`, free what it holds with `aeron_uri_string_builder_close`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug)]
pub struct aeron_uri_string_builder_t {
    /// The builder's state; managed by the functions only.
    pub internal: *mut c_void,
    pub closed: bool,
}

/// What `internal` points to: the builder and the C copies of values `get` handed out.
struct BuilderState {
    builder: UriStringBuilder,
    values: HashMap<String, CString>,
}

/// What the builder's `internal` pointer is, for the handle helpers.
struct BuilderInternal;

impl Handle for BuilderInternal {
    type Target = BuilderState;
}

/// Sets up `*builder` holding `state`.
///
/// # Safety
/// `builder` valid for a write.
unsafe fn init(builder: *mut aeron_uri_string_builder_t, state: UriStringBuilder) {
    let internal =
        handles::into_raw::<BuilderInternal>(BuilderState { builder: state, values: HashMap::new() });
    // SAFETY: writable (contract).
    unsafe { builder.write(aeron_uri_string_builder_t { internal: internal.cast(), closed: false }) };
}

/// The state of an initialised, open builder.
///
/// # Safety
/// `builder` NULL or initialised by an `init` function, used by this thread only.
unsafe fn state<'a>(builder: *mut aeron_uri_string_builder_t) -> Result<&'a mut BuilderState> {
    require_non_null!(builder, "builder");
    // SAFETY: initialised (contract).
    let b = unsafe { &*builder };
    if b.closed || b.internal.is_null() {
        return Err(Error::illegal_state("the URI builder is closed"));
    }
    // SAFETY: internal came from handles::into_raw in init (contract); one thread uses it
    // at a time.
    unsafe { handles::borrow_mut(b.internal.cast::<BuilderInternal>(), "builder") }
}

/// The body of the `put` functions: sets `key` with `put` and forgets the C copy of its
/// old value.
///
/// # Safety
/// `builder` NULL or initialised; `key` NULL or NUL-terminated.
unsafe fn put_with(
    builder: *mut aeron_uri_string_builder_t,
    key: *const c_char,
    put: impl FnOnce(&mut UriStringBuilder, &str) -> Result<()>,
) -> Result<c_int> {
    // SAFETY: forwarded contract.
    let state = unsafe { state(builder) }?;
    // SAFETY: NULL or NUL-terminated (contract).
    let key = unsafe { c_str_arg(key, "key") }?;
    put(&mut state.builder, key)?;
    state.values.remove(key);
    Ok(0)
}

/// Sets up an empty builder. Returns 0, or -1 for NULL.
///
/// # Safety
/// `builder` NULL or valid for a write (an earlier state is not freed: close it first).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_uri_string_builder_init_new(
    builder: *mut aeron_uri_string_builder_t,
) -> c_int {
    ffi_boundary!("aeron_uri_string_builder_init_new", {
        require_non_null!(builder, "builder");
        // SAFETY: writable (contract).
        unsafe { init(builder, UriStringBuilder::new()) };
        Ok(0)
    })
}

/// Sets up a builder holding the parts of `uri` (`[prefix:]aeron:media[?k=v|...]`).
/// Returns 0, or -1 (NULL, a malformed URI).
///
/// # Safety
/// `builder` NULL or valid for a write; `uri` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_uri_string_builder_init_on_string(
    builder: *mut aeron_uri_string_builder_t,
    uri: *const c_char,
) -> c_int {
    ffi_boundary!("aeron_uri_string_builder_init_on_string", {
        require_non_null!(builder, "builder");
        // SAFETY: NULL or NUL-terminated (contract).
        let parsed = UriStringBuilder::parse(unsafe { c_str_arg(uri, "uri") }?)?;
        // SAFETY: writable (contract).
        unsafe { init(builder, parsed) };
        Ok(0)
    })
}

/// Frees what the builder holds; closing again is harmless. Returns 0 (-1 for NULL).
///
/// # Safety
/// `builder` NULL or initialised.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_uri_string_builder_close(builder: *mut aeron_uri_string_builder_t) -> c_int {
    ffi_boundary!("aeron_uri_string_builder_close", {
        require_non_null!(builder, "builder");
        // SAFETY: initialised and used by this thread only (contract).
        let b = unsafe { &mut *builder };
        if !b.closed && !b.internal.is_null() {
            // SAFETY: from handles::into_raw in init, freed once (closed is set next).
            drop(unsafe { handles::reclaim(b.internal.cast::<BuilderInternal>()) });
        }
        b.internal = std::ptr::null_mut();
        b.closed = true;
        Ok(0)
    })
}

/// Sets `key` to `value`, or removes it when `value` is NULL. Neither may contain `?`,
/// `|` or `=`. Returns 0, or -1.
///
/// # Safety
/// `builder` NULL or initialised; `key` and `value` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_uri_string_builder_put(
    builder: *mut aeron_uri_string_builder_t,
    key: *const c_char,
    value: *const c_char,
) -> c_int {
    ffi_boundary!("aeron_uri_string_builder_put", {
        let put = |b: &mut UriStringBuilder, key: &str| {
            // SAFETY: NULL or NUL-terminated (contract).
            b.put(key, unsafe { optional_c_str_arg(value, "value") }?)
        };
        // SAFETY: forwarded contract.
        unsafe { put_with(builder, key, put) }
    })
}

/// Sets `key` to the decimal `value`. Returns 0, or -1.
///
/// # Safety
/// As `aeron_uri_string_builder_put`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_uri_string_builder_put_int32(
    builder: *mut aeron_uri_string_builder_t,
    key: *const c_char,
    value: i32,
) -> c_int {
    ffi_boundary!("aeron_uri_string_builder_put_int32", {
        // SAFETY: forwarded contract.
        unsafe { put_with(builder, key, |b, key| b.put_i32(key, value)) }
    })
}

/// Sets `key` to the decimal `value`. Returns 0, or -1.
///
/// # Safety
/// As `aeron_uri_string_builder_put`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_uri_string_builder_put_int64(
    builder: *mut aeron_uri_string_builder_t,
    key: *const c_char,
    value: i64,
) -> c_int {
    ffi_boundary!("aeron_uri_string_builder_put_int64", {
        // SAFETY: forwarded contract.
        unsafe { put_with(builder, key, |b, key| b.put_i64(key, value)) }
    })
}

/// The value of `key` (including `__prefix` and `__media`), or NULL if unset. Valid until
/// the key is changed or the builder closed.
///
/// # Safety
/// `builder` NULL or initialised; `key` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_uri_string_builder_get(
    builder: *mut aeron_uri_string_builder_t,
    key: *const c_char,
) -> *const c_char {
    ffi_boundary!("aeron_uri_string_builder_get", {
        // SAFETY: forwarded contract.
        let state = unsafe { state(builder) }?;
        // SAFETY: NULL or NUL-terminated (contract).
        let key = unsafe { c_str_arg(key, "key") }?;
        let Some(value) = state.builder.get(key) else {
            return Ok(std::ptr::null());
        };
        let c_value =
            CString::new(value).map_err(|_| Error::invalid_argument("value contains a NUL byte"))?;
        Ok(state.values.entry(key.to_string()).or_insert(c_value).as_ptr())
    })
}

/// Writes the URI, NUL-terminated, into `buffer` (`buffer_len` bytes). Returns 0, or -1
/// (no media set, or the buffer too small: then it holds a truncated copy).
///
/// # Safety
/// `builder` NULL or initialised; `buffer` NULL or valid for `buffer_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_uri_string_builder_sprint(
    builder: *mut aeron_uri_string_builder_t,
    buffer: *mut c_char,
    buffer_len: usize,
) -> c_int {
    ffi_boundary!("aeron_uri_string_builder_sprint", {
        // SAFETY: forwarded contract.
        let state = unsafe { state(builder) }?;
        require_non_null!(buffer, "buffer");
        let uri = state.builder.build()?;
        // SAFETY: buffer valid for buffer_len bytes (contract).
        unsafe { write_c_string(uri.as_bytes(), buffer, buffer_len) };
        if uri.len() >= buffer_len {
            return Err(Error::invalid_argument(format!(
                "buffer of {buffer_len} bytes is too small for the {} byte URI and its NUL",
                uri.len()
            )));
        }
        Ok(0)
    })
}

/// Puts `term-length`, `init-term-id`, `term-id` and `term-offset` so that a publication
/// made with the URI starts at `position`. Returns 0, or -1 (position not frame aligned or
/// negative, bad term length).
///
/// # Safety
/// `builder` NULL or initialised.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_uri_string_builder_set_initial_position(
    builder: *mut aeron_uri_string_builder_t,
    position: i64,
    initial_term_id: i32,
    term_length: i32,
) -> c_int {
    ffi_boundary!("aeron_uri_string_builder_set_initial_position", {
        // SAFETY: forwarded contract.
        let state = unsafe { state(builder) }?;
        state.builder.set_initial_position(position, initial_term_id, term_length)?;
        state.values.clear();
        Ok(0)
    })
}
