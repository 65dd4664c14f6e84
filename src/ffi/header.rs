//! `aeron_header_*`: the frame header handed to fragment handlers, and the handler types
//! shared by subscription and image polls.

use std::ffi::{c_int, c_void};

use crate::logbuffer::{ControlledPollAction, Header};
use crate::util::error::Result;

/// The header of the fragment being handled, with the stream's constants and the image it
/// came from. Opaque; valid only during the handler call that received it.
#[allow(non_camel_case_types)]
pub struct aeron_header_t {
    /// The reader's header of the fragment, borrowed for the handler call (no copy on the
    /// per-fragment path).
    header: *const Header,
    /// The image (`aeron_image_t *`) the fragment came from.
    pub(crate) context: *mut c_void,
}

impl aeron_header_t {
    /// A C header for the duration of one handler call with `header`.
    pub(crate) fn new(header: &Header, context: *mut c_void) -> Self {
        Self { header, context }
    }

    pub(crate) fn header(&self) -> &Header {
        // SAFETY: an aeron_header_t exists only on the stack of `deliver*` during the handler
        // call it is passed to, while the Header it borrows lives; C may not keep it (the
        // handler types document that the header is valid during the call only).
        unsafe { &*self.header }
    }
}

/// The 32-byte data frame header as it is in the log (`#pragma pack(4)` as upstream; the C
/// definition is in the header's hand-written part).
#[allow(non_camel_case_types)]
#[repr(C, packed(4))]
#[derive(Debug, Clone, Copy)]
pub struct aeron_header_values_frame_t {
    pub frame_length: i32,
    pub version: i8,
    pub flags: u8,
    pub r#type: i16,
    pub term_offset: i32,
    pub session_id: i32,
    pub stream_id: i32,
    pub term_id: i32,
    pub reserved_value: i64,
}

/// A frame header with the stream constants needed to compute positions (`#pragma
/// pack(4)`: 44 bytes).
#[allow(non_camel_case_types)]
#[repr(C, packed(4))]
#[derive(Debug, Clone, Copy)]
pub struct aeron_header_values_t {
    pub frame: aeron_header_values_frame_t,
    pub initial_term_id: i32,
    pub position_bits_to_shift: usize,
}

static_assertions::const_assert_eq!(std::mem::size_of::<aeron_header_values_frame_t>(), 32);
static_assertions::const_assert_eq!(std::mem::offset_of!(aeron_header_values_frame_t, reserved_value), 24);
static_assertions::const_assert_eq!(std::mem::size_of::<aeron_header_values_t>(), 44);
static_assertions::const_assert_eq!(std::mem::offset_of!(aeron_header_values_t, position_bits_to_shift), 36);

/// Receives one fragment: `length` bytes at `buffer` and its header, both valid only
/// during the call. Called on the polling thread.
#[allow(non_camel_case_types)]
pub type aeron_fragment_handler_t = Option<
    unsafe extern "C" fn(clientd: *mut c_void, buffer: *const u8, length: usize, header: *mut aeron_header_t),
>;

/// What a controlled fragment handler asks for: one of `AERON_ACTION_ABORT` ..
/// `AERON_ACTION_CONTINUE` (an unknown value counts as CONTINUE, as in Aeron C).
#[allow(non_camel_case_types)]
#[repr(transparent)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct aeron_controlled_fragment_handler_action_t(pub c_int);

/// Do not consume this fragment: stop; it is delivered again by the next poll.
pub const AERON_ACTION_ABORT: c_int = 1;
/// Consume this fragment and stop.
pub const AERON_ACTION_BREAK: c_int = 2;
/// Consume it, make the position durable now (flow control sees it), and go on.
pub const AERON_ACTION_COMMIT: c_int = 3;
/// Consume it and go on; the position is stored at the end of the poll.
pub const AERON_ACTION_CONTINUE: c_int = 4;

static_assertions::const_assert_eq!(AERON_ACTION_ABORT, ControlledPollAction::Abort as c_int);
static_assertions::const_assert_eq!(AERON_ACTION_BREAK, ControlledPollAction::Break as c_int);
static_assertions::const_assert_eq!(AERON_ACTION_COMMIT, ControlledPollAction::Commit as c_int);
static_assertions::const_assert_eq!(AERON_ACTION_CONTINUE, ControlledPollAction::Continue as c_int);

impl aeron_controlled_fragment_handler_action_t {
    /// The Rust action; unknown values continue.
    pub(crate) fn action(self) -> ControlledPollAction {
        ControlledPollAction::from_i32(self.0).unwrap_or(ControlledPollAction::Continue)
    }

    pub(crate) fn from_action(action: ControlledPollAction) -> Self {
        Self(action as c_int)
    }
}

/// A controlled handler that fails keeps the fragment.
impl crate::ffi::FailureValue for aeron_controlled_fragment_handler_action_t {
    fn failure() -> Self {
        Self(AERON_ACTION_ABORT)
    }
}

/// As `aeron_fragment_handler_t`, returning what to do with the fragment.
#[allow(non_camel_case_types)]
pub type aeron_controlled_fragment_handler_t = Option<
    unsafe extern "C" fn(
        clientd: *mut c_void,
        buffer: *const u8,
        length: usize,
        header: *mut aeron_header_t,
    ) -> aeron_controlled_fragment_handler_action_t,
>;

/// Receives a block of whole frames (headers included), `length` bytes from one term of
/// one session, valid during the call.
#[allow(non_camel_case_types)]
pub type aeron_block_handler_t = Option<
    unsafe extern "C" fn(
        clientd: *mut c_void,
        buffer: *const u8,
        length: usize,
        session_id: i32,
        term_id: i32,
    ),
>;

/// A plain fragment handler, as a poll calls it.
pub(crate) type FragmentHandlerFn = unsafe extern "C" fn(*mut c_void, *const u8, usize, *mut aeron_header_t);
/// A controlled fragment handler, as a poll calls it.
pub(crate) type ControlledFragmentHandlerFn =
    unsafe extern "C" fn(
        *mut c_void,
        *const u8,
        usize,
        *mut aeron_header_t,
    ) -> aeron_controlled_fragment_handler_action_t;

/// Evaluates `$poll` with `$handler` rebound to a constant when it is one of this library's
/// own plain assembler handlers (what Aeron's samples pass to a poll), so each fragment's
/// call to it is direct — the compiler may inline it — instead of through the pointer: one
/// indirect call per fragment less. Any other handler is called through its pointer. (A
/// handler whose address differs from ours, as in a non-PIE executable's PLT, just takes
/// the pointer path.)
macro_rules! with_known_fragment_handler {
    ($handler:ident, $poll:expr) => {{
        use crate::ffi::fragment_assembler::{
            aeron_fragment_assembler_handler, aeron_image_fragment_assembler_handler,
            local_assembler_handler, local_image_assembler_handler,
        };
        use crate::ffi::header::FragmentHandlerFn;
        let given: FragmentHandlerFn = $handler;
        if std::ptr::fn_addr_eq(given, aeron_image_fragment_assembler_handler as FragmentHandlerFn) {
            let $handler: FragmentHandlerFn = local_image_assembler_handler;
            $poll
        } else if std::ptr::fn_addr_eq(given, aeron_fragment_assembler_handler as FragmentHandlerFn) {
            let $handler: FragmentHandlerFn = local_assembler_handler;
            $poll
        } else {
            $poll
        }
    }};
}
pub(crate) use with_known_fragment_handler;

/// Calls a C fragment handler for one fragment of `image`.
#[inline]
pub(crate) fn deliver(
    handler: FragmentHandlerFn,
    clientd: *mut c_void,
    payload: &[u8],
    header: &Header,
    image: *mut c_void,
) {
    let mut c_header = aeron_header_t::new(header, image);
    // SAFETY: the application's handler (poll contract); payload and header outlive the call.
    unsafe { handler(clientd, payload.as_ptr(), payload.len(), &mut c_header) }
}

/// Calls a C controlled fragment handler for one fragment of `image`.
#[inline]
pub(crate) fn deliver_controlled(
    handler: ControlledFragmentHandlerFn,
    clientd: *mut c_void,
    payload: &[u8],
    header: &Header,
    image: *mut c_void,
) -> ControlledPollAction {
    let mut c_header = aeron_header_t::new(header, image);
    // SAFETY: the application's handler (poll contract); payload and header outlive the call.
    unsafe { handler(clientd, payload.as_ptr(), payload.len(), &mut c_header) }.action()
}

/// The header behind `header`.
///
/// # Safety
/// `header` NULL or the header a fragment handler is being called with.
pub(crate) unsafe fn header_ref<'a>(header: *mut aeron_header_t) -> Result<&'a aeron_header_t> {
    require_non_null!(header, "header");
    // SAFETY: a live header of the running handler call (contract).
    Ok(unsafe { &*header })
}

/// Copies the header's fields and stream constants into `*values`. Returns 0, or -1 for
/// NULL arguments.
///
/// # Safety
/// `header` NULL or the header of the running handler call; `values` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_header_values(
    header: *mut aeron_header_t,
    values: *mut aeron_header_values_t,
) -> c_int {
    ffi_boundary!("aeron_header_values", {
        // SAFETY: forwarded contract.
        let h = &unsafe { header_ref(header) }?.header();
        require_non_null!(values, "values");
        let value = aeron_header_values_t {
            frame: aeron_header_values_frame_t {
                frame_length: h.frame_length(),
                version: i8::from_ne_bytes([h.version()]),
                flags: h.flags(),
                r#type: i16::from_ne_bytes(h.frame_type().to_ne_bytes()),
                term_offset: h.term_offset(),
                session_id: h.session_id(),
                stream_id: h.stream_id(),
                term_id: h.term_id(),
                reserved_value: h.reserved_value(),
            },
            initial_term_id: h.initial_term_id(),
            position_bits_to_shift: h.position_bits_to_shift() as usize,
        };
        // SAFETY: non-null and writable (contract); the packed struct is written whole.
        unsafe { values.write_unaligned(value) };
        Ok(0)
    })
}

// The header's single-value queries, generated by build.rs from its table in
// `build/handle_query_exports.rs`.
include!(concat!(env!("OUT_DIR"), "/header_ffi.rs"));
