//! Error frames receivers send about this client's publications: the packed
//! `aeron_publication_error_values_t` (the driver's ON_PUBLICATION_ERROR body, as Aeron's C
//! client hands it over), the handler type, and copies of a frame that outlive the handler
//! call.

use std::ffi::{c_int, c_void};

use crate::client::PublicationErrorFrame;
use crate::command::ControlMessage;
use crate::util::error::Error;

/// An error frame a receiver sent about a publication (`#pragma pack(4)` as upstream; the
/// C definition is in the header's hand-written part). `error_message` holds
/// `error_message_length` bytes, not NUL-terminated.
#[allow(non_camel_case_types)]
#[repr(C, packed(4))]
pub struct aeron_publication_error_values_t {
    pub registration_id: i64,
    pub destination_registration_id: i64,
    pub session_id: i32,
    pub stream_id: i32,
    pub receiver_id: i64,
    pub group_tag: i64,
    pub address_type: i16,
    pub source_port: u16,
    pub source_address: [u8; 16],
    pub error_code: i32,
    pub error_message_length: i32,
    pub error_message: [u8; 1],
}

static_assertions::const_assert_eq!(std::mem::size_of::<aeron_publication_error_values_t>(), 72);
static_assertions::const_assert_eq!(std::mem::offset_of!(aeron_publication_error_values_t, address_type), 40);
static_assertions::const_assert_eq!(std::mem::offset_of!(aeron_publication_error_values_t, error_code), 60);
static_assertions::const_assert_eq!(
    std::mem::offset_of!(aeron_publication_error_values_t, error_message),
    68
);

/// Receives an error frame; `error_frame` is valid during the call only (copy it with
/// `aeron_publication_error_values_copy`). Runs on the conductor thread.
#[allow(non_camel_case_types)]
pub type aeron_publication_error_frame_handler_t =
    Option<unsafe extern "C" fn(clientd: *mut c_void, error_frame: *mut aeron_publication_error_values_t)>;

/// Calls `f` with `frame` laid out as `aeron_publication_error_values_t` (message after the
/// fixed part), in storage aligned for its fields and valid during the call.
pub(crate) fn with_error_values(
    frame: &PublicationErrorFrame,
    f: impl FnOnce(*mut aeron_publication_error_values_t),
) {
    let response = frame.to_response();
    let length = response.encoded_length().max(std::mem::size_of::<aeron_publication_error_values_t>());
    // u64 words: 8-byte alignment, more than the struct's packed(4) needs.
    let mut words = vec![0u64; length.div_ceil(8)];
    let bytes: &mut [u8] = bytemuck_bytes(&mut words);
    if response.encode(bytes).is_ok() {
        f(words.as_mut_ptr().cast());
    }
}

/// The bytes of `words`.
fn bytemuck_bytes(words: &mut [u64]) -> &mut [u8] {
    let length = std::mem::size_of_val(words);
    // SAFETY: u64 has no padding or invalid bit patterns; the slice covers exactly the
    // words' memory, borrowed mutably for the same lifetime.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), length) }
}

/// Copies `*src` (with its message) into a new allocation stored in `*dst`; free it with
/// `aeron_publication_error_values_delete`. Returns 0, or -1 for NULL arguments or a
/// negative message length.
///
/// # Safety
/// `dst` valid for a pointer write; `src` NULL or a complete error frame.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_publication_error_values_copy(
    dst: *mut *mut aeron_publication_error_values_t,
    src: *mut aeron_publication_error_values_t,
) -> c_int {
    ffi_boundary!("aeron_publication_error_values_copy", {
        require_non_null!(dst, "dst");
        require_non_null!(src, "src");
        // SAFETY: src is a complete error frame (contract); the field is read unaligned
        // as the struct is packed.
        let message_length = unsafe { std::ptr::addr_of!((*src).error_message_length).read_unaligned() };
        let message_length = usize::try_from(message_length)
            .map_err(|_| Error::invalid_argument(format!("error_message_length {message_length} < 0")))?;
        let size = std::mem::size_of::<aeron_publication_error_values_t>() + message_length;
        // SAFETY: plain allocation; checked for NULL below.
        let copy = unsafe { libc::calloc(1, size) }.cast::<u8>();
        if copy.is_null() {
            return Err(Error::with_code(libc::ENOMEM, format!("could not allocate {size} bytes")));
        }
        let used = std::mem::offset_of!(aeron_publication_error_values_t, error_message) + message_length;
        // SAFETY: src holds `used` bytes (contract); copy has `size` >= used bytes; they
        // do not overlap (fresh allocation).
        unsafe { std::ptr::copy_nonoverlapping(src.cast::<u8>(), copy, used) };
        // SAFETY: dst is non-null and writable (contract).
        unsafe { dst.write(copy.cast()) };
        Ok(0)
    })
}

/// Frees a copy made by `aeron_publication_error_values_copy` (NULL is accepted); not for
/// the frame a handler receives.
///
/// # Safety
/// `to_delete` NULL or from `aeron_publication_error_values_copy`, freed once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_publication_error_values_delete(
    to_delete: *mut aeron_publication_error_values_t,
) {
    ffi_boundary!("aeron_publication_error_values_delete", {
        // SAFETY: NULL or from calloc in aeron_publication_error_values_copy, freed once.
        unsafe { libc::free(to_delete.cast()) };
        Ok(())
    })
}
