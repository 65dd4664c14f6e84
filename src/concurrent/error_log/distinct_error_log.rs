//! The writer of the distinct error log (`spec/error-log.md` §3): one record per distinct
//! error, repeated observations only bump the count and the last-seen time.

use std::sync::{Mutex, MutexGuard};

use super::descriptor::{
    ENCODED_ERROR_OFFSET, FIRST_OBSERVATION_TIMESTAMP_OFFSET, HEADER_LENGTH,
    LAST_OBSERVATION_TIMESTAMP_OFFSET, LENGTH_OFFSET, OBSERVATION_COUNT_OFFSET, RECORD_ALIGNMENT,
};
use crate::concurrent::AtomicBuffer;
use crate::util::bits::align;
use crate::util::error::{Error, Result};

/// One distinct error already in the buffer.
#[derive(Debug)]
struct Observation {
    error_code: i32,
    description: Box<str>,
    offset: usize,
}

#[derive(Debug)]
struct WriterState {
    next_offset: usize,
    /// Newest first, the order Aeron C searches in.
    observations: Vec<Observation>,
}

/// Records errors into an error log buffer; shared by all of a driver's agents (`&self`).
#[derive(Debug)]
pub struct DistinctErrorLog {
    buffer: AtomicBuffer,
    state: Mutex<WriterState>,
}

impl DistinctErrorLog {
    /// Wraps a zeroed buffer (the error log section of a new `cnc.dat`).
    pub fn new(buffer: AtomicBuffer) -> Result<Self> {
        if buffer.as_ptr() as usize % RECORD_ALIGNMENT != 0 {
            return Err(Error::invalid_argument("error log buffer must be 8-byte aligned"));
        }
        Ok(Self { buffer, state: Mutex::new(WriterState { next_offset: 0, observations: Vec::new() }) })
    }

    pub fn buffer(&self) -> &AtomicBuffer {
        &self.buffer
    }

    /// Number of distinct errors recorded.
    pub fn num_observations(&self) -> usize {
        self.lock().observations.len()
    }

    fn lock(&self) -> MutexGuard<'_, WriterState> {
        // A panic elsewhere while holding the lock leaves the state consistent (it only
        // changes after the buffer writes it describes), so poisoning is ignored.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Records one observation of the error (`error_code`, `description`) at
    /// `timestamp_ms` (epoch). An error counts as already recorded when an earlier one has
    /// the same code and `description` starts with the earlier description, which is how
    /// Aeron C compares (over the stored text's length). Fails with `ENOMEM` when a new
    /// distinct error no longer fits in the buffer.
    pub fn record(&self, timestamp_ms: i64, error_code: i32, description: &str) -> Result<()> {
        let offset = {
            let mut state = self.lock();
            let existing = state.observations.iter().find(|o| {
                o.error_code == error_code && description.as_bytes().starts_with(o.description.as_bytes())
            });
            match existing {
                Some(observation) => observation.offset,
                None => self.new_observation(&mut state, timestamp_ms, error_code, description)?,
            }
        };
        observe(&self.buffer, offset, timestamp_ms);
        Ok(())
    }

    fn new_observation(
        &self,
        state: &mut WriterState,
        timestamp_ms: i64,
        error_code: i32,
        description: &str,
    ) -> Result<usize> {
        let offset = state.next_offset;
        state.next_offset =
            append_record(&self.buffer, offset, timestamp_ms, error_code, description.as_bytes())?;
        state.observations.insert(0, Observation { error_code, description: description.into(), offset });
        Ok(offset)
    }
}

/// Writes the record of a new distinct error at `offset` with no observation yet: the text
/// and first timestamp, then its length (release), which makes it exist for readers.
/// Returns the offset of the next record. `ENOMEM` when it does not fit in `buffer`.
/// The caller serialises appends and owns the offsets (a writer's state).
pub fn append_record(
    buffer: &AtomicBuffer,
    offset: usize,
    timestamp_ms: i64,
    error_code: i32,
    description: &[u8],
) -> Result<usize> {
    let length = HEADER_LENGTH + description.len();
    let fits = offset.checked_add(length).is_some_and(|end| end <= buffer.capacity());
    if !fits || i32::try_from(length).is_err() || offset % RECORD_ALIGNMENT != 0 {
        return Err(Error::with_code(
            libc::ENOMEM,
            format!(
                "unrecordable error, error log full: ({error_code}) {}",
                String::from_utf8_lossy(description)
            ),
        ));
    }
    buffer.put_bytes(offset + ENCODED_ERROR_OFFSET, description);
    buffer.put_i64(offset + FIRST_OBSERVATION_TIMESTAMP_OFFSET, timestamp_ms);
    buffer.put_i32(offset + OBSERVATION_COUNT_OFFSET, 0);
    // Release: the text and first timestamp are visible before the length that makes
    // the record exist for readers.
    buffer.put_i32_release(offset + LENGTH_OFFSET, length as i32);
    Ok(align(offset + length, RECORD_ALIGNMENT))
}

/// Counts one observation at `timestamp_ms` of the record at `offset` (from
/// [`append_record`]).
pub fn observe(buffer: &AtomicBuffer, offset: usize, timestamp_ms: i64) {
    // SeqCst add: several agents may observe the same error at once.
    buffer.get_and_add_i32(offset + OBSERVATION_COUNT_OFFSET, 1);
    // Release: readers that see this timestamp see the count that goes with it.
    buffer.put_i64_release(offset + LAST_OBSERVATION_TIMESTAMP_OFFSET, timestamp_ms);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_record_layout_is_byte_exact() {
        let log = DistinctErrorLog::new(AtomicBuffer::alloc(256)).unwrap();
        log.record(1_795_962_627_767, 11, "(22) Invalid argument\n").unwrap();
        let b = log.buffer();
        assert_eq!(b.get_i32(0), 24 + 22);
        assert_eq!(b.get_i32(4), 1);
        assert_eq!(b.get_i64(8), 1_795_962_627_767);
        assert_eq!(b.get_i64(16), 1_795_962_627_767);
        assert_eq!(b.published_slice(24, 22), b"(22) Invalid argument\n");
        assert_eq!(b.get_i64(48), 0, "alignment padding and the next record are untouched");
    }

    #[test]
    fn repeats_bump_count_and_last_timestamp_only() {
        let log = DistinctErrorLog::new(AtomicBuffer::alloc(1024)).unwrap();
        log.record(100, 11, "port invalid: xx").unwrap();
        log.record(250, 11, "term length less than min").unwrap();
        log.record(300, 11, "port invalid: xx").unwrap();
        let b = log.buffer();
        assert_eq!(log.num_observations(), 2);
        assert_eq!((b.get_i32(0), b.get_i32(4), b.get_i64(8), b.get_i64(16)), (40, 2, 300, 100));
        // Second record at align(40, 8) = 40.
        assert_eq!((b.get_i32(40), b.get_i32(44), b.get_i64(48), b.get_i64(56)), (49, 1, 250, 250));
        assert_eq!(b.get_i32(96), 0, "next record offset align(40 + 49, 8) = 96 is still free");
    }

    #[test]
    fn identity_is_code_plus_text_prefix_as_aeron_c() {
        let log = DistinctErrorLog::new(AtomicBuffer::alloc(1024)).unwrap();
        log.record(1, 11, "abc").unwrap();
        log.record(2, 12, "abc").unwrap();
        assert_eq!(log.num_observations(), 2, "a different code is a different error");
        log.record(3, 11, "abcdef").unwrap();
        assert_eq!(log.num_observations(), 2, "longer text starting with a stored one matches it");
        log.record(4, 11, "ab").unwrap();
        assert_eq!(log.num_observations(), 3, "shorter text does not match");
        assert_eq!(log.buffer().get_i32(4), 2);
    }

    #[test]
    fn full_log_rejects_new_errors_but_counts_known_ones() {
        let log = DistinctErrorLog::new(AtomicBuffer::alloc(64)).unwrap();
        log.record(1, 1, "0123456789").unwrap(); // 34 bytes, next at 40
        let err = log.record(2, 1, "this one is too long").unwrap_err();
        assert_eq!(err.code(), libc::ENOMEM);
        assert!(err.message().contains("unrecordable error"));
        log.record(3, 1, "0123456789").unwrap();
        assert_eq!(log.buffer().get_i32(4), 2);
        assert!(log.record(4, 2, "long").is_err()); // 40 + 28 = 68 > 64
        assert_eq!(log.num_observations(), 1);
        log.record(5, 2, "").unwrap(); // 40 + 24 = 64 fits exactly
        assert_eq!(log.num_observations(), 2);
    }

    #[test]
    fn agents_recording_concurrently_lose_no_observation() {
        let log = std::sync::Arc::new(DistinctErrorLog::new(AtomicBuffer::alloc(4096)).unwrap());
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let log = log.clone();
                std::thread::spawn(move || {
                    for i in 0..2000i64 {
                        log.record(i, 11, ["alpha", "beta", "gamma"][((i + t) % 3) as usize]).unwrap();
                    }
                })
            })
            .collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
        assert_eq!(log.num_observations(), 3);
        let b = log.buffer();
        let counts: i32 = [0, 32, 64].iter().map(|&offset| b.get_i32(offset + 4)).sum();
        assert_eq!(counts, 8000);
    }
}
