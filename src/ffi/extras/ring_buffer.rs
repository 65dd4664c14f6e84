//! `aeronrs_ring_buffer_*`: Agrona/Aeron ring buffers for C callers, one-to-one or
//! many-to-one, in a memory-mapped file (shareable between processes) or in caller memory.
//! The bytes are laid out exactly as Aeron's (`capacity` data bytes + a 768-byte trailer), so
//! a buffer can be shared with Java (Agrona) or Aeron C code.
//!
//! Threading: a handle may be used from several threads at once, within the buffer's
//! contract. Many-to-one: any number of threads or processes may produce (`write`,
//! `try_claim`, `commit`, `abort`); one thread at a time may consume (`read`,
//! `controlled_read`, `unblock`, `set_consumer_heartbeat_time`). One-to-one: additionally
//! only one thread at a time may produce. The getters and `next_correlation_id` are safe
//! from any thread. Close a handle only once no other thread uses it.
//!
//! Errors follow Aeron's convention: `-1` (or `NULL`), with `aeron_errcode()` /
//! `aeron_errmsg()` saying why.

use std::ffi::{c_char, c_int, c_void};
use std::path::Path;

use crate::concurrent::AtomicBuffer;
use crate::concurrent::ring_buffer::descriptor::TRAILER_LENGTH;
use crate::concurrent::ring_buffer::{
    ControlledReadAction, ManyToOneRingBuffer, OneToOneRingBuffer, RingBuffer,
};
use crate::ffi::handles::{self, Handle};
use crate::ffi::{bytes_arg, c_str_arg, ffi_boundary, require_non_null, write_out};
use crate::util::error::{Error, Result};

/// An open ring buffer. Opaque; created by `aeronrs_ring_buffer_create`, `_open` or `_wrap`,
/// freed by `aeronrs_ring_buffer_close`.
#[allow(non_camel_case_types)]
pub struct aeronrs_ring_buffer_t {
    _private: [u8; 0],
}

/// Which ring buffer: `AERONRS_RING_BUFFER_ONE_TO_ONE` or `AERONRS_RING_BUFFER_MANY_TO_ONE`.
#[allow(non_camel_case_types)]
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct aeronrs_ring_buffer_kind_t(pub c_int);

/// One producer, one consumer (Agrona `OneToOneRingBuffer`); minimum capacity 16.
pub const AERONRS_RING_BUFFER_ONE_TO_ONE: c_int = 1;
/// Many producers, one consumer (Agrona `ManyToOneRingBuffer`, Aeron's to-driver buffer);
/// minimum capacity 8.
pub const AERONRS_RING_BUFFER_MANY_TO_ONE: c_int = 2;
/// Bytes that follow the data region; a buffer is `capacity + AERONRS_RING_BUFFER_TRAILER_LENGTH`.
pub const AERONRS_RING_BUFFER_TRAILER_LENGTH: usize = 768;
static_assertions::const_assert_eq!(AERONRS_RING_BUFFER_TRAILER_LENGTH, TRAILER_LENGTH);

/// What a controlled read handler returns: one of `AERONRS_RB_ABORT` .. `AERONRS_RB_CONTINUE`
/// (the values of Aeron's `aeron_rb_read_action_t`).
#[allow(non_camel_case_types)]
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct aeronrs_ring_buffer_action_t(pub c_int);

/// Not consumed: stop; the message is delivered again by the next read.
pub const AERONRS_RB_ABORT: c_int = 0;
/// Consumed: stop after this message.
pub const AERONRS_RB_BREAK: c_int = 1;
/// Consumed: hand the space read so far back to producers now, then continue.
pub const AERONRS_RB_COMMIT: c_int = 2;
/// Consumed: continue.
pub const AERONRS_RB_CONTINUE: c_int = 3;

/// Receives one message: `clientd` as given to the read call, the message type id, and the
/// payload (`length` bytes, valid only until the handler returns). Called on the reading
/// thread, synchronously, from inside `aeronrs_ring_buffer_read`.
#[allow(non_camel_case_types)]
pub type aeronrs_ring_buffer_handler_t =
    Option<unsafe extern "C" fn(clientd: *mut c_void, msg_type_id: i32, buffer: *const u8, length: usize)>;

/// As `aeronrs_ring_buffer_handler_t`, returning what to do with the message.
#[allow(non_camel_case_types)]
pub type aeronrs_ring_buffer_controlled_handler_t = Option<
    unsafe extern "C" fn(
        clientd: *mut c_void,
        msg_type_id: i32,
        buffer: *const u8,
        length: usize,
    ) -> aeronrs_ring_buffer_action_t,
>;

/// What an `aeronrs_ring_buffer_t` points to.
pub(crate) enum RingHandle {
    OneToOne(OneToOneRingBuffer),
    ManyToOne(ManyToOneRingBuffer),
}

/// Runs `$body` with `$rb` bound to the concrete ring buffer (static dispatch per kind).
macro_rules! with_ring {
    ($handle:expr, $rb:ident => $body:expr) => {
        match $handle {
            RingHandle::OneToOne($rb) => $body,
            RingHandle::ManyToOne($rb) => $body,
        }
    };
}

/// Makes the handle of the ring buffer type `$kind` names, with `$rb` bound to that type.
macro_rules! of_kind {
    ($kind:expr, $rb:ident => $make:expr) => {
        match $kind.0 {
            AERONRS_RING_BUFFER_ONE_TO_ONE => {
                type $rb = OneToOneRingBuffer;
                RingHandle::OneToOne($make?)
            }
            AERONRS_RING_BUFFER_MANY_TO_ONE => {
                type $rb = ManyToOneRingBuffer;
                RingHandle::ManyToOne($make?)
            }
            other => return Err(unknown_kind(other)),
        }
    };
}

impl Handle for aeronrs_ring_buffer_t {
    type Target = RingHandle;
}

/// The handle behind `rb`, or EINVAL for NULL.
///
/// # Safety
/// `rb` must be NULL or a handle from `aeronrs_ring_buffer_create`, `_open` or `_wrap`,
/// not yet closed.
unsafe fn handle<'a>(rb: *const aeronrs_ring_buffer_t) -> Result<&'a RingHandle> {
    // SAFETY: NULL or from aeronrs_ring_buffer_create, _open or _wrap, still open (contract).
    unsafe { handles::borrow(rb, "rb") }
}

fn unknown_kind(kind: c_int) -> Error {
    Error::invalid_argument(format!(
        "unknown ring buffer kind {kind} (expected AERONRS_RING_BUFFER_ONE_TO_ONE or _MANY_TO_ONE)"
    ))
}

/// Copies `length` bytes at `msg` in as one message of `msg_type_id` (>= 1).
/// Returns 1 when written, 0 when the buffer is full (try again later), -1 on error
/// (NULL argument, bad type id, `length` > max_msg_length).
///
/// # Safety
/// `rb` an open handle; `msg` valid for `length` bytes (may be NULL when `length` is 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_ring_buffer_write(
    rb: *mut aeronrs_ring_buffer_t,
    msg_type_id: i32,
    msg: *const c_void,
    length: usize,
) -> c_int {
    ffi_boundary!("aeronrs_ring_buffer_write", {
        // SAFETY: rb is NULL or open (contract).
        let handle = unsafe { handle(rb) }?;
        // SAFETY: msg is NULL or valid for length bytes (contract).
        let payload = unsafe { bytes_arg(msg.cast(), length, "msg") }?;
        let written = with_ring!(handle, r => r.write(msg_type_id, payload))?;
        Ok(c_int::from(written))
    })
}

/// Claims room for a `length`-byte message of `msg_type_id` to be written in place. On
/// success stores the claim's index in `*index` and, if `payload` is not NULL, a pointer to
/// the `length` bytes to fill in `*payload`; then call `aeronrs_ring_buffer_commit` or
/// `_abort` with the index (the consumer waits at the claim until then).
/// Returns 1 when claimed, 0 when full, -1 on error.
///
/// # Safety
/// `rb` an open handle; `index` valid for a write; `payload` NULL or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_ring_buffer_try_claim(
    rb: *mut aeronrs_ring_buffer_t,
    msg_type_id: i32,
    length: usize,
    index: *mut usize,
    payload: *mut *mut u8,
) -> c_int {
    ffi_boundary!("aeronrs_ring_buffer_try_claim", {
        // SAFETY: rb is NULL or open (contract).
        let handle = unsafe { handle(rb) }?;
        require_non_null!(index, "index");
        let Some(claimed) = with_ring!(handle, r => r.try_claim(msg_type_id, length))? else {
            return Ok(0);
        };
        // SAFETY: index is non-null and writable (contract).
        unsafe { index.write(claimed) };
        if !payload.is_null() {
            let base = with_ring!(handle, r => r.buffer().as_ptr());
            // SAFETY: claimed + length lies inside the data region (the claim guarantees it);
            // payload is non-null and writable (contract).
            unsafe { payload.write(base.add(claimed)) };
        }
        Ok(1)
    })
}

/// Publishes the claim at `index`. Returns 0, or -1 if `index` is not an outstanding claim
/// (never claimed, already committed or aborted).
///
/// # Safety
/// `rb` must be NULL or an open handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_ring_buffer_commit(rb: *mut aeronrs_ring_buffer_t, index: usize) -> c_int {
    ffi_boundary!("aeronrs_ring_buffer_commit", {
        // SAFETY: rb is NULL or open (contract).
        let handle = unsafe { handle(rb) }?;
        with_ring!(handle, r => r.commit(index))?;
        Ok(0)
    })
}

/// Turns the claim at `index` into padding the consumer skips. Returns 0, or -1 as commit.
///
/// # Safety
/// `rb` must be NULL or an open handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_ring_buffer_abort(rb: *mut aeronrs_ring_buffer_t, index: usize) -> c_int {
    ffi_boundary!("aeronrs_ring_buffer_abort", {
        // SAFETY: rb is NULL or open (contract).
        let handle = unsafe { handle(rb) }?;
        with_ring!(handle, r => r.abort(index))?;
        Ok(0)
    })
}

/// Delivers up to `message_count_limit` messages to `handler` (consumer thread only).
/// Returns the number delivered, or -1 on error (NULL argument, corrupt buffer, or a read
/// from inside a handler).
///
/// # Safety
/// `rb` an open handle; `handler` a function safe to call with `clientd`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_ring_buffer_read(
    rb: *mut aeronrs_ring_buffer_t,
    handler: aeronrs_ring_buffer_handler_t,
    clientd: *mut c_void,
    message_count_limit: usize,
) -> c_int {
    ffi_boundary!("aeronrs_ring_buffer_read", {
        // SAFETY: rb is NULL or open (contract).
        let handle = unsafe { handle(rb) }?;
        let handler = handler.ok_or_else(|| Error::invalid_argument("handler must not be NULL"))?;
        let deliver = |msg_type_id: i32, payload: &[u8]| {
            // SAFETY: the handler is callable with clientd (contract); payload is valid for
            // its length until the handler returns.
            unsafe { handler(clientd, msg_type_id, payload.as_ptr(), payload.len()) }
        };
        let count = with_ring!(handle, r => r.read(deliver, message_count_limit))?;
        Ok(count as c_int)
    })
}

/// As `aeronrs_ring_buffer_read`, with `handler` returning an `AERONRS_RB_*` action per
/// message. Returns the number of messages consumed, or -1 on error; a handler returning
/// anything else is an error (EINVAL), and that message is left unconsumed as with ABORT.
///
/// # Safety
/// `rb` an open handle; `handler` a function safe to call with `clientd`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeronrs_ring_buffer_controlled_read(
    rb: *mut aeronrs_ring_buffer_t,
    handler: aeronrs_ring_buffer_controlled_handler_t,
    clientd: *mut c_void,
    message_count_limit: usize,
) -> c_int {
    ffi_boundary!("aeronrs_ring_buffer_controlled_read", {
        // SAFETY: rb is NULL or open (contract).
        let handle = unsafe { handle(rb) }?;
        let handler = handler.ok_or_else(|| Error::invalid_argument("handler must not be NULL"))?;
        let mut invalid_action = None;
        let deliver = |msg_type_id: i32, payload: &[u8]| {
            // SAFETY: as in aeronrs_ring_buffer_read.
            let action = unsafe { handler(clientd, msg_type_id, payload.as_ptr(), payload.len()) };
            ControlledReadAction::from_i32(action.0).unwrap_or_else(|| {
                invalid_action = Some(action.0);
                ControlledReadAction::Abort
            })
        };
        let count = with_ring!(handle, r => r.controlled_read(deliver, message_count_limit))?;
        if let Some(action) = invalid_action {
            return Err(Error::invalid_argument(format!(
                "controlled read handler returned invalid action {action}"
            )));
        }
        Ok(count as c_int)
    })
}

// The exports, over the helpers above: generated from the table in build/ring_buffer_exports.rs.
include!(concat!(env!("OUT_DIR"), "/ring_buffer_ffi.rs"));
