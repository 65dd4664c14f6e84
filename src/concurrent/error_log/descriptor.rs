//! Layout of a distinct error log record (`spec/error-log.md` §2).

/// int32 record length: header + encoded error, unaligned; stored last, with release.
pub const LENGTH_OFFSET: usize = 0;
/// int32 observation count, bumped atomically per observation.
pub const OBSERVATION_COUNT_OFFSET: usize = 4;
/// int64 epoch ms of the latest observation, stored with release after the count.
pub const LAST_OBSERVATION_TIMESTAMP_OFFSET: usize = 8;
/// int64 epoch ms of the first observation, written before the record is published.
pub const FIRST_OBSERVATION_TIMESTAMP_OFFSET: usize = 16;
/// The error text (UTF-8, no terminator) follows the header.
pub const ENCODED_ERROR_OFFSET: usize = 24;
pub const HEADER_LENGTH: usize = 24;
/// Records start on 8-byte boundaries.
pub const RECORD_ALIGNMENT: usize = 8;

/// Driver default error log length (`AERON_ERROR_BUFFER_LENGTH`).
pub const DEFAULT_ERROR_BUFFER_LENGTH: usize = 1024 * 1024;

static_assertions::const_assert_eq!(FIRST_OBSERVATION_TIMESTAMP_OFFSET + 8, HEADER_LENGTH);
static_assertions::const_assert_eq!(ENCODED_ERROR_OFFSET, HEADER_LENGTH);
static_assertions::const_assert_eq!(LAST_OBSERVATION_TIMESTAMP_OFFSET % 8, 0);
