//! What concurrent and exclusive publications share: the mapped log, the driver's
//! publication-limit counter, stream constants and the back-pressure verdict
//! (`spec/log-buffer.md` §5-7).
#![forbid(unsafe_code)]

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::client::counter::counter_value_view;
use crate::concurrent::byte_copy::INLINE_COPY_MAX;
use crate::concurrent::{AtomicBuffer, AtomicI32Word, AtomicI64Word};
use crate::logbuffer::LogBuffers;
use crate::logbuffer::descriptor::{
    LOG_ACTIVE_TERM_COUNT_OFFSET, compute_max_message_length, compute_max_payload_length, initial_term_id,
    is_connected, max_possible_position, mtu_length, position_bits_to_shift,
};
use crate::protocol::header::{DATA_HEADER_LENGTH, FRAME_ALIGNMENT};
use crate::util::bits::align;
use crate::util::error::{Error, Result};

/// `offer`/`try_claim` results (Aeron `AERON_PUBLICATION_*`, `Publication.*`): a negative
/// value is one of these; a non-negative value is the new stream position.
pub const NOT_CONNECTED: i64 = -1;
pub const BACK_PRESSURED: i64 = -2;
pub const ADMIN_ACTION: i64 = -3;
pub const CLOSED: i64 = -4;
pub const MAX_POSITION_EXCEEDED: i64 = -5;
/// The C API's code for a rejected call; Rust callers get an `Err` instead.
pub const ERROR: i64 = -6;

/// Channel status when no status counter exists (IPC) or the publication is closed
/// (Aeron `AERON_COUNTER_CHANNEL_ENDPOINT_STATUS_NO_ID_ALLOCATED`).
pub const CHANNEL_STATUS_NO_ID_ALLOCATED: i64 = -1;
/// Channel status value of a working endpoint.
pub const CHANNEL_STATUS_ACTIVE: i64 = 1;

/// What the driver told us about a publication (ON_PUBLICATION_READY / ON_EXCLUSIVE_…).
#[derive(Debug, Clone)]
pub(crate) struct PublicationInfo {
    pub channel: String,
    pub stream_id: i32,
    pub session_id: i32,
    /// Registration id of this handle (the ADD command's correlation id).
    pub registration_id: i64,
    /// Registration id of the driver's publication (shared by all handles of a
    /// non-exclusive publication).
    pub original_registration_id: i64,
    pub position_limit_id: i32,
    pub channel_status_id: i32,
}

/// The mapped log and constants of one publication, shared by every thread using it.
pub(crate) struct PublicationCore {
    pub info: PublicationInfo,
    pub log: LogBuffers,
    position_limit: AtomicI64Word,
    /// The log's active term count, read by every offer.
    active_term_count: AtomicI32Word,
    channel_status: Option<AtomicBuffer>,
    pub initial_term_id: i32,
    pub position_bits_to_shift: u32,
    pub term_length: usize,
    pub max_possible_position: i64,
    pub max_payload_length: usize,
    pub max_message_length: usize,
    is_closed: AtomicBool,
}

impl PublicationCore {
    /// Maps `log_file` and binds the limit and status counters named by the driver,
    /// validating every value that came from shared memory.
    pub fn map(
        info: PublicationInfo,
        log_file: &Path,
        counters_values: &AtomicBuffer,
        pre_touch: bool,
    ) -> Result<Self> {
        let log = LogBuffers::map_existing(log_file)?;
        if pre_touch {
            pre_touch_terms(&log);
        }
        let position_limit = counter_value_view(counters_values, info.position_limit_id)
            .and_then(|view| AtomicI64Word::new(&view, 0))
            .map_err(|e| e.context("publication limit counter"))?;
        let channel_status = match info.channel_status_id {
            id if id < 0 => None,
            id => Some(
                counter_value_view(counters_values, id).map_err(|e| e.context("channel status counter"))?,
            ),
        };
        let metadata = log.metadata();
        let active_term_count = AtomicI32Word::new(metadata, LOG_ACTIVE_TERM_COUNT_OFFSET)
            .map_err(|e| e.context("log active term count"))?;
        let term_length = log.term_length();
        let mtu = mtu_length(metadata);
        let max_payload_length = usize::try_from(mtu)
            .ok()
            .filter(|&m| m > DATA_HEADER_LENGTH && m % FRAME_ALIGNMENT == 0)
            .map(compute_max_payload_length)
            .ok_or_else(|| {
                Error::invalid_argument(format!("log {} has invalid MTU {mtu}", log_file.display()))
            })?;
        Ok(Self {
            initial_term_id: initial_term_id(metadata),
            position_bits_to_shift: position_bits_to_shift(term_length),
            max_possible_position: max_possible_position(term_length),
            max_message_length: compute_max_message_length(term_length),
            max_payload_length,
            term_length,
            info,
            log,
            position_limit,
            active_term_count,
            channel_status,
            is_closed: AtomicBool::new(false),
        })
    }

    /// The position up to which the driver lets this publication write.
    #[inline]
    pub fn position_limit(&self) -> i64 {
        // Acquire: pairs with the driver's release store of the limit.
        self.position_limit.get().load(Ordering::Acquire)
    }

    /// The log's active term count.
    #[inline]
    pub fn active_term_count(&self) -> i32 {
        // Acquire: a publisher that rotated stored the new count with release after
        // resetting that partition's tail, so a tail read after this belongs to this count.
        self.active_term_count.get().load(Ordering::Acquire)
    }

    /// Whether a message of `length` bytes may take a publication's offer fast path: the
    /// publication is open and the message is one frame short enough to copy inline.
    #[inline(always)]
    pub fn takes_fast_offer(&self, length: usize) -> bool {
        length <= INLINE_COPY_MAX && length <= self.max_payload_length && !self.is_closed()
    }

    #[inline]
    pub fn is_closed(&self) -> bool {
        // Acquire: pairs with the Release in close(), so a closed publication stays closed
        // for every later call on any thread.
        self.is_closed.load(Ordering::Acquire)
    }

    /// Stops all further appends; the mapping stays valid for whoever still holds it.
    /// True for the one call that closed it.
    pub fn close(&self) -> bool {
        // AcqRel: the swap both publishes the close and tells exactly one caller it won.
        !self.is_closed.swap(true, Ordering::AcqRel)
    }

    /// Whether at least one subscriber (IPC) or receiver (network) is connected.
    pub fn is_connected(&self) -> bool {
        !self.is_closed() && is_connected(self.log.metadata())
    }

    /// The status counter value of the channel's send endpoint; see the constants above.
    pub fn channel_status(&self) -> i64 {
        match &self.channel_status {
            _ if self.is_closed() => CHANNEL_STATUS_NO_ID_ALLOCATED,
            // IPC has no endpoint: it is always usable.
            None => CHANNEL_STATUS_ACTIVE,
            Some(counter) => counter.get_i64_acquire(0),
        }
    }

    /// Rejects a message longer than a term can take.
    #[inline]
    pub fn check_message_length(&self, length: usize) -> Result<()> {
        if length > self.max_message_length {
            return Err(Error::invalid_argument(format!(
                "message length {length} exceeds max message length {} of {} stream {}",
                self.max_message_length, self.info.channel, self.info.stream_id
            )));
        }
        Ok(())
    }

    /// Rejects a `try_claim` longer than one frame can take.
    #[inline]
    pub fn check_payload_length(&self, length: usize) -> Result<()> {
        if length > self.max_payload_length {
            return Err(Error::invalid_argument(format!(
                "claim length {length} exceeds max payload length {} of {} stream {}",
                self.max_payload_length, self.info.channel, self.info.stream_id
            )));
        }
        Ok(())
    }

    /// Why a publication at `position` cannot write a message of `length` bytes.
    #[inline]
    pub fn back_pressure_status(&self, position: i64, length: usize) -> i64 {
        let framed = align(length + DATA_HEADER_LENGTH, FRAME_ALIGNMENT) as i64;
        if position + framed >= self.max_possible_position {
            MAX_POSITION_EXCEEDED
        } else if is_connected(self.log.metadata()) {
            BACK_PRESSURED
        } else {
            NOT_CONNECTED
        }
    }
}

/// Touches every page of the terms for writing so the first appends do not page-fault.
pub(crate) fn pre_touch_terms(log: &LogBuffers) {
    const PAGE: usize = 4096;
    for term in log.terms() {
        let mut offset = 0;
        while offset < term.capacity() {
            // A CAS of 0 to 0 faults the page in as writable yet can never change a value,
            // so it is harmless next to concurrent publishers (Java's preTouch does the same).
            term.compare_and_set_i32(offset, 0, 0);
            offset += PAGE;
        }
    }
}
