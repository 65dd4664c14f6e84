//! The writer of the distinct error log (`spec/error-log.md` §3): one record per distinct
//! error, repeated observations only bump the count and the last-seen time.
//!
//! What makes two errors the same is their code and a *stable key* of their description:
//! the text with every run of digits (decimal, or hexadecimal after `0x`) replaced by `#`.
//! Errors about a session id, an address, a position or a length thus count as one error
//! however the numbers vary, and the record keeps the first observation's full text, as a
//! distinct error log intends: a flood of one kind of bad packet from random sessions is
//! one entry, leaving the log's room for other errors. (Aeron compares the raw text, so
//! such a flood fills its log.)

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
    /// The stable key of the first observation's description.
    key: Box<str>,
    offset: usize,
}

/// `description` with every run of digits replaced by `#` (see the module comment).
pub fn stable_key(description: &str) -> String {
    let bytes = description.as_bytes();
    let mut key = String::with_capacity(description.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes[i] == b'0'
            && matches!(bytes.get(i + 1), Some(b'x' | b'X'))
            && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
        if hex || bytes[i].is_ascii_digit() {
            let digit = |b: &u8| if hex { b.is_ascii_hexdigit() } else { b.is_ascii_digit() };
            i += if hex { 2 } else { 0 };
            while bytes.get(i).is_some_and(digit) {
                i += 1;
            }
            key.push('#');
        } else {
            // Whole characters: `i` only ever stops on a character boundary, as digits are
            // ASCII.
            let c = description[i..].chars().next().unwrap_or(char::REPLACEMENT_CHARACTER);
            key.push(c);
            i += c.len_utf8();
        }
    }
    key
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
    /// the same code and the stable key of `description` starts with the earlier one's (a
    /// prefix, as Aeron C compares over the stored text's length). Fails with `ENOMEM` when
    /// a new distinct error no longer fits in the buffer.
    pub fn record(&self, timestamp_ms: i64, error_code: i32, description: &str) -> Result<()> {
        let key = stable_key(description);
        let offset = {
            let mut state = self.lock();
            let existing = state
                .observations
                .iter()
                .find(|o| o.error_code == error_code && key.as_bytes().starts_with(o.key.as_bytes()));
            match existing {
                Some(observation) => observation.offset,
                None => self.new_observation(&mut state, timestamp_ms, error_code, description, key)?,
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
        key: String,
    ) -> Result<usize> {
        let offset = state.next_offset;
        let record = description.as_bytes();
        // SAFETY: `state` is the log's writer state, held locked by the caller (the `&mut`),
        // and next_offset is where its unused space begins; this log is the buffer's only
        // writer (it owns the buffer).
        let next = unsafe { append_record(&self.buffer, offset, timestamp_ms, error_code, record) };
        state.next_offset = next?;
        state.observations.insert(0, Observation { error_code, key: key.into(), offset });
        Ok(offset)
    }
}

/// Writes the record of a new distinct error at `offset` with no observation yet: the text
/// and first timestamp, then its length (release), which makes it exist for readers.
/// Returns the offset of the next record. `ENOMEM` when it does not fit in `buffer`.
/// The caller serialises appends and owns the offsets (a writer's state).
///
/// # Safety
/// `[offset, buffer.capacity())` is unused space no one else writes or reads (other than
/// acquiring the zero length there) while this runs: the caller is the log's only writer,
/// and `offset` is its next free offset.
pub unsafe fn append_record(
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
    // SAFETY: the record's space lies past every published record and is this writer's alone
    // (contract); readers stop at its zero length until the release store below.
    unsafe { buffer.put_bytes(offset + ENCODED_ERROR_OFFSET, description) };
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
        assert_eq!(b.load_vec(24, 22), b"(22) Invalid argument\n");
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
    fn numbers_do_not_make_an_error_distinct() {
        assert_eq!(
            stable_key("SETUP from 10.0.3.2:40456 session_id=-12345 stream-id=1001"),
            "SETUP from #.#.#.#:# session_id=-# stream-id=#"
        );
        assert_eq!(stable_key("record length 0x40000000 at index 0"), "record length # at index #");
        assert_eq!(stable_key("0x without digits, αβγ 7"), "#x without digits, αβγ #");
        let log = DistinctErrorLog::new(AtomicBuffer::alloc(1 << 16)).unwrap();
        // Fewer under Miri, which runs this about a million times slower.
        let sessions: i64 = if cfg!(miri) { 50 } else { 1000 };
        for session in 0..sessions {
            let text = format!("exceeded session limit, stream-id=1001 session-id={}", session * 7919);
            log.record(session, 11, &text).unwrap();
        }
        assert_eq!(log.num_observations(), 1, "every session, one error");
        assert_eq!(i64::from(log.buffer().get_i32(4)), sessions);
        assert_eq!(log.buffer().get_i64(8), sessions - 1, "last observed");
        let length = log.buffer().get_i32(0) as usize;
        let mut first = vec![0u8; length - 24];
        log.buffer().load_bytes(24, &mut first);
        assert_eq!(first, b"exceeded session limit, stream-id=1001 session-id=0", "the first text is kept");
        log.record(sessions, 11, "another kind of error").unwrap();
        assert_eq!(log.num_observations(), 2, "and there is room for others");
    }

    #[test]
    fn full_log_rejects_new_errors_but_counts_known_ones() {
        let log = DistinctErrorLog::new(AtomicBuffer::alloc(64)).unwrap();
        log.record(1, 1, "abcdefghij").unwrap(); // 34 bytes, next at 40
        let err = log.record(2, 1, "this one is too long").unwrap_err();
        assert_eq!(err.code(), libc::ENOMEM);
        assert!(err.message().contains("unrecordable error"));
        log.record(3, 1, "abcdefghij").unwrap();
        assert_eq!(log.buffer().get_i32(4), 2);
        assert!(log.record(4, 2, "long").is_err()); // 40 + 28 = 68 > 64
        assert_eq!(log.num_observations(), 1);
        log.record(5, 2, "").unwrap(); // 40 + 24 = 64 fits exactly
        assert_eq!(log.num_observations(), 2);
    }

    #[test]
    fn agents_recording_concurrently_lose_no_observation() {
        let log = std::sync::Arc::new(DistinctErrorLog::new(AtomicBuffer::alloc(4096)).unwrap());
        // Miri explores interleavings at about a millionth of the speed: fewer rounds there.
        let per_thread: i64 = if cfg!(miri) { 100 } else { 2000 };
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let log = log.clone();
                std::thread::spawn(move || {
                    for i in 0..per_thread {
                        log.record(i, 11, ["alpha", "beta", "gamma"][((i + t) % 3) as usize]).unwrap();
                    }
                })
            })
            .collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
        assert_eq!(log.num_observations(), 3);
        let b = log.buffer();
        let counts: i32 = [0, 32, 64].iter().map(|&offset| b.get_i32(offset + 4)).sum();
        assert_eq!(i64::from(counts), 4 * per_thread);
    }
}
