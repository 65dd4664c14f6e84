//! `aeron_buffer_claim_t` and its commit/abort: a frame claimed by `try_claim` of either
//! kind of publication, written in place by the application through raw pointers and then
//! published (or turned into padding) through the Rust [`BufferClaim`] over that frame.

use std::ffi::c_int;

use crate::concurrent::AtomicBuffer;
use crate::logbuffer::BufferClaim;
use crate::protocol::header::DATA_HEADER_LENGTH;
use crate::util::error::{Error, Result};

/// A frame claimed by `try_claim`: write `length` bytes at `data`, then commit or abort it
/// promptly (readers wait at the claim until then).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aeron_buffer_claim_t {
    /// The frame's 32-byte header in the log buffer.
    pub frame_header: *mut u8,
    /// The payload, `frame_header + 32`.
    pub data: *mut u8,
    pub length: usize,
}

/// Fills `*buffer_claim` from a claim.
///
/// # Safety
/// `buffer_claim` valid for a write.
pub(crate) unsafe fn store_claim(claim: BufferClaim<'_>, buffer_claim: *mut aeron_buffer_claim_t) {
    let frame_header = claim.frame_ptr();
    let value = aeron_buffer_claim_t {
        frame_header,
        data: frame_header.wrapping_add(DATA_HEADER_LENGTH),
        length: claim.length(),
    };
    // SAFETY: writable (contract).
    unsafe { buffer_claim.write(value) };
}

/// The claim described by `buffer_claim` over its frame in the log.
///
/// # Safety
/// `buffer_claim` NULL or filled by a successful `try_claim` and not yet committed/aborted.
unsafe fn claimed_frame(buffer_claim: *mut aeron_buffer_claim_t) -> Result<(AtomicBuffer, usize)> {
    require_non_null!(buffer_claim, "buffer_claim");
    // SAFETY: non-null and filled by try_claim (contract).
    let claim = unsafe { buffer_claim.read() };
    require_non_null!(claim.frame_header, "buffer_claim->frame_header");
    let length = claim.length.checked_add(DATA_HEADER_LENGTH).ok_or_else(|| {
        Error::invalid_argument(format!("buffer_claim->length {} is not a claim length", claim.length))
    })?;
    // SAFETY: the frame lies in a log mapping the publication keeps (it lingers after close)
    // and writers only touch it through the claim protocol.
    let frame = unsafe { AtomicBuffer::from_raw(claim.frame_header, length) }?;
    Ok((frame, claim.length))
}

/// Publishes the claimed frame to subscribers. Returns 0, or -1 for a NULL or empty claim.
///
/// # Safety
/// `buffer_claim` NULL or filled by a successful `try_claim` of a publication that is still
/// open or lingering, committed or aborted once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_buffer_claim_commit(buffer_claim: *mut aeron_buffer_claim_t) -> c_int {
    ffi_boundary!("aeron_buffer_claim_commit", {
        // SAFETY: forwarded contract.
        let (frame, length) = unsafe { claimed_frame(buffer_claim) }?;
        // SAFETY: the frame is the caller's claim (try_claim filled it and it is not yet
        // committed or aborted, by contract), so no one else touches it until this publishes it.
        let claimed = unsafe { frame.claim_unchecked(0, frame.capacity()) };
        BufferClaim::new(&frame, 0, length, claimed).commit();
        Ok(0)
    })
}

/// Turns the claimed frame into padding, which subscribers skip. Returns 0, or -1 for a
/// NULL or empty claim.
///
/// # Safety
/// As `aeron_buffer_claim_commit`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_buffer_claim_abort(buffer_claim: *mut aeron_buffer_claim_t) -> c_int {
    ffi_boundary!("aeron_buffer_claim_abort", {
        // SAFETY: forwarded contract.
        let (frame, length) = unsafe { claimed_frame(buffer_claim) }?;
        // SAFETY: the frame is the caller's claim (try_claim filled it and it is not yet
        // committed or aborted, by contract), so no one else touches it until this publishes it.
        let claimed = unsafe { frame.claim_unchecked(0, frame.capacity()) };
        BufferClaim::new(&frame, 0, length, claimed).abort();
        Ok(0)
    })
}
