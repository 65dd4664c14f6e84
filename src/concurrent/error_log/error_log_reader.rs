//! Reading an error log (`spec/error-log.md` §4): every distinct error with its count and
//! first/last observation times, optionally only those seen since a timestamp.

use std::borrow::Cow;

use super::descriptor::{
    ENCODED_ERROR_OFFSET, FIRST_OBSERVATION_TIMESTAMP_OFFSET, HEADER_LENGTH,
    LAST_OBSERVATION_TIMESTAMP_OFFSET, LENGTH_OFFSET, OBSERVATION_COUNT_OFFSET, RECORD_ALIGNMENT,
};
use crate::concurrent::AtomicBuffer;
use crate::util::bits::align;
use crate::util::error::{Error, Result};

/// One distinct error as read from the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorObservation<'a> {
    /// Offset of the record in the buffer.
    pub offset: usize,
    pub observation_count: i32,
    pub first_observation_timestamp: i64,
    pub last_observation_timestamp: i64,
    pub encoded_error: &'a [u8],
}

impl ErrorObservation<'_> {
    /// The error text (UTF-8 as both Aeron implementations write it).
    pub fn text(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(self.encoded_error)
    }
}

/// Whether any error has been logged (the first record's length is set).
pub fn error_log_exists(buffer: &AtomicBuffer) -> bool {
    buffer.capacity() >= HEADER_LENGTH
        && buffer.as_ptr() as usize % RECORD_ALIGNMENT == 0
        && buffer.get_i32_acquire(LENGTH_OFFSET) != 0
}

/// Calls `consumer` for each record whose last observation is at or after
/// `since_timestamp` (use `i64::MIN` or 0 for all); returns how many it was called for.
/// Fails on a record whose length cannot be right instead of reading past it.
pub fn read<F>(buffer: &AtomicBuffer, since_timestamp: i64, mut consumer: F) -> Result<usize>
where
    F: FnMut(&ErrorObservation<'_>),
{
    if buffer.as_ptr() as usize % RECORD_ALIGNMENT != 0 {
        return Err(Error::invalid_argument("error log buffer must be 8-byte aligned"));
    }
    let capacity = buffer.capacity();
    let mut entries = 0;
    let mut offset = 0;
    while offset + HEADER_LENGTH <= capacity {
        // Acquire: the text and first timestamp were written before the length.
        let record = match buffer.acquire_record_or_length(offset + LENGTH_OFFSET) {
            Ok(record) if record.len() >= HEADER_LENGTH => record,
            Err(0) => break,
            _ => {
                return Err(Error::out_of_bounds(format!(
                    "error log record at offset {offset} has invalid length {}",
                    buffer.get_i32(offset + LENGTH_OFFSET)
                )));
            }
        };
        let length = record.len();
        // Acquire: pairs with the writer's release of the timestamp after the count.
        let last = buffer.get_i64_acquire(offset + LAST_OBSERVATION_TIMESTAMP_OFFSET);
        if last >= since_timestamp {
            entries += 1;
            consumer(&ErrorObservation {
                offset,
                // Relaxed: a monotonic count that publishes nothing else.
                observation_count: buffer.get_i32(offset + OBSERVATION_COUNT_OFFSET),
                // Relaxed: written once, before the length this loop acquired.
                first_observation_timestamp: buffer.get_i64(offset + FIRST_OBSERVATION_TIMESTAMP_OFFSET),
                last_observation_timestamp: last,
                // The text never changes once its record is published.
                encoded_error: record
                    .sub_range(ENCODED_ERROR_OFFSET, length - HEADER_LENGTH)
                    .map_or(&[], |text| text.as_slice()),
            });
        }
        offset += align(length, RECORD_ALIGNMENT);
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concurrent::error_log::DistinctErrorLog;

    fn collect(buffer: &AtomicBuffer, since: i64) -> Vec<(usize, i32, i64, i64, String)> {
        let mut out = Vec::new();
        let n = read(buffer, since, |o| {
            out.push((
                o.offset,
                o.observation_count,
                o.first_observation_timestamp,
                o.last_observation_timestamp,
                o.text().into_owned(),
            ))
        })
        .unwrap();
        assert_eq!(n, out.len());
        out
    }

    #[test]
    fn reads_what_the_writer_recorded_with_since_filter() {
        let log = DistinctErrorLog::new(AtomicBuffer::alloc(4096)).unwrap();
        assert!(!error_log_exists(log.buffer()));
        log.record(1000, 11, "first error").unwrap();
        log.record(2000, 11, "second error").unwrap();
        log.record(3000, 11, "first error").unwrap();
        assert!(error_log_exists(log.buffer()));
        assert_eq!(
            collect(log.buffer(), 0),
            vec![
                (0, 2, 1000, 3000, "first error".to_string()),
                (40, 1, 2000, 2000, "second error".to_string()),
            ]
        );
        assert_eq!(collect(log.buffer(), 2500).len(), 1, "only the record last seen at 3000");
        assert_eq!(collect(log.buffer(), 2000).len(), 2, "the bound is inclusive");
        assert!(collect(log.buffer(), 3001).is_empty());
    }

    #[test]
    fn corrupt_lengths_are_errors() {
        let b = AtomicBuffer::alloc(64);
        b.put_i32(0, 10);
        assert!(read(&b, 0, |_| {}).is_err());
        b.put_i32(0, 65);
        assert!(read(&b, 0, |_| {}).is_err());
        b.put_i32(0, -1);
        assert!(read(&b, 0, |_| {}).is_err());
        b.put_i32(0, 64);
        assert_eq!(read(&b, 0, |o| assert_eq!(o.encoded_error.len(), 40)).unwrap(), 1);
        assert_eq!(read(&AtomicBuffer::alloc(10), 0, |_| {}).unwrap(), 0);
    }
}
