//! `loss-report.dat`: one entry per image that has seen loss (`spec/driver.md` §10.1,
//! Aeron `aeron_loss_reporter`). The conductor creates an entry on an image's first
//! NAKed gap and records every later one; tools (`aeron-loss`, Aeron's `LossStat`) read
//! the file concurrently.
//!
//! Entry layout (entries start at multiples of 64):
//!
//! | offset | field |
//! |---|---|
//! | 0 | int64 observation count (0 = no entry here; published last, with release) |
//! | 8 | int64 total bytes lost |
//! | 16 | int64 first observation timestamp (epoch ms) |
//! | 24 | int64 last observation timestamp (epoch ms) |
//! | 32 | int32 session id |
//! | 36 | int32 stream id |
//! | 40 | int32 channel length `C`, then `C` bytes |
//! | 44 + align(C, 4) | int32 source length `S`, then `S` bytes |
#![forbid(unsafe_code)]

use std::path::Path;

use crate::concurrent::AtomicBuffer;
use crate::concurrent::mapped_file::{Allocation, create_mapped};
use crate::util::bits::align;
use crate::util::error::Result;

pub const LOSS_REPORT_FILE_NAME: &str = "loss-report.dat";
pub const OBSERVATION_COUNT_OFFSET: usize = 0;
pub const TOTAL_BYTES_LOST_OFFSET: usize = 8;
pub const FIRST_OBSERVATION_OFFSET: usize = 16;
pub const LAST_OBSERVATION_OFFSET: usize = 24;
pub const SESSION_ID_OFFSET: usize = 32;
pub const STREAM_ID_OFFSET: usize = 36;
pub const CHANNEL_OFFSET: usize = 40;
/// Entries are aligned to a cache line.
pub const ENTRY_ALIGNMENT: usize = 64;

/// Bytes an entry uses before alignment.
pub const fn entry_length(channel_length: usize, source_length: usize) -> usize {
    CHANNEL_OFFSET + align(4 + channel_length, 4) + 4 + source_length
}

/// Where an image's entry lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LossEntryOffset(pub usize);

/// The writer side, owned by the driver conductor.
#[derive(Debug)]
pub struct LossReport {
    buffer: AtomicBuffer,
    next_record_offset: usize,
}

impl LossReport {
    /// A report over `buffer` (a mapped, zeroed `loss-report.dat`).
    pub fn new(buffer: AtomicBuffer) -> Self {
        Self { buffer, next_record_offset: 0 }
    }

    /// Creates and maps `<aeron_dir>/loss-report.dat` of `length` bytes.
    pub fn create_in(aeron_dir: &Path, length: usize) -> Result<Self> {
        Ok(Self::new(create_mapped(&aeron_dir.join(LOSS_REPORT_FILE_NAME), length, Allocation::Reserved)?))
    }

    pub fn buffer(&self) -> &AtomicBuffer {
        &self.buffer
    }

    /// Appends the entry for an image's first loss; `None` when the file is full (the
    /// image then stops reporting, as in Aeron).
    pub fn create_entry(
        &mut self,
        initial_bytes_lost: i64,
        timestamp_ms: i64,
        session_id: i32,
        stream_id: i32,
        channel: &str,
        source: &str,
    ) -> Option<LossEntryOffset> {
        let required = entry_length(channel.len(), source.len());
        if required > self.buffer.capacity().saturating_sub(self.next_record_offset) {
            return None;
        }
        let at = self.next_record_offset;
        let b = &self.buffer;
        b.put_i64(at + TOTAL_BYTES_LOST_OFFSET, initial_bytes_lost);
        b.put_i64(at + FIRST_OBSERVATION_OFFSET, timestamp_ms);
        b.put_i64(at + LAST_OBSERVATION_OFFSET, timestamp_ms);
        b.put_i32(at + SESSION_ID_OFFSET, session_id);
        b.put_i32(at + STREAM_ID_OFFSET, stream_id);
        b.put_i32(at + CHANNEL_OFFSET, channel.len() as i32);
        b.store_bytes(at + CHANNEL_OFFSET + 4, channel.as_bytes());
        let source_at = at + CHANNEL_OFFSET + align(4 + channel.len(), 4);
        b.put_i32(source_at, source.len() as i32);
        b.store_bytes(source_at + 4, source.as_bytes());
        // Release: every field above is visible to a reader that sees the count.
        b.put_i64_release(at + OBSERVATION_COUNT_OFFSET, 1);
        self.next_record_offset += align(required, ENTRY_ALIGNMENT);
        Some(LossEntryOffset(at))
    }

    /// Records a later loss of the image whose entry is at `entry`.
    pub fn record_observation(&self, entry: LossEntryOffset, bytes_lost: i64, timestamp_ms: i64) {
        let at = entry.0;
        // Release for the timestamp; the totals are atomic adds, so readers never see a
        // torn value even while the conductor records.
        self.buffer.put_i64_release(at + LAST_OBSERVATION_OFFSET, timestamp_ms);
        self.buffer.get_and_add_i64(at + TOTAL_BYTES_LOST_OFFSET, bytes_lost);
        self.buffer.get_and_add_i64(at + OBSERVATION_COUNT_OFFSET, 1);
    }
}

/// One entry as a reader sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LossEntry {
    pub observation_count: i64,
    pub total_bytes_lost: i64,
    pub first_observation_ms: i64,
    pub last_observation_ms: i64,
    pub session_id: i32,
    pub stream_id: i32,
    pub channel: String,
    pub source: String,
}

fn read_text(buffer: &AtomicBuffer, at: usize) -> Option<(String, usize)> {
    buffer.check_bounds(at, 4).ok()?;
    let length = usize::try_from(buffer.get_i32(at)).ok()?;
    buffer.check_bounds(at + 4, length).ok()?;
    let mut bytes = vec![0u8; length];
    buffer.load_bytes(at + 4, &mut bytes);
    Some((String::from_utf8_lossy(&bytes).into_owned(), length))
}

/// Calls `on_entry` for each complete entry of a loss report; returns how many. Lengths
/// read from the file are bounds-checked: a malformed entry ends the reading.
pub fn read_loss_report(buffer: &AtomicBuffer, mut on_entry: impl FnMut(LossEntry)) -> usize {
    let mut at = 0;
    let mut count = 0;
    while buffer.check_bounds(at, CHANNEL_OFFSET + 4).is_ok() {
        // Acquire: pairs with the writer's release of the count; the fields are complete.
        let observation_count = buffer.get_i64_acquire(at + OBSERVATION_COUNT_OFFSET);
        if observation_count <= 0 {
            break;
        }
        let Some((channel, channel_length)) = read_text(buffer, at + CHANNEL_OFFSET) else { break };
        let Some((source, source_length)) =
            read_text(buffer, at + CHANNEL_OFFSET + align(4 + channel_length, 4))
        else {
            break;
        };
        on_entry(LossEntry {
            observation_count,
            total_bytes_lost: buffer.get_i64_volatile(at + TOTAL_BYTES_LOST_OFFSET),
            first_observation_ms: buffer.get_i64(at + FIRST_OBSERVATION_OFFSET),
            last_observation_ms: buffer.get_i64_acquire(at + LAST_OBSERVATION_OFFSET),
            session_id: buffer.get_i32(at + SESSION_ID_OFFSET),
            stream_id: buffer.get_i32(at + STREAM_ID_OFFSET),
            channel,
            source,
        });
        count += 1;
        at += align(entry_length(channel_length, source_length), ENTRY_ALIGNMENT);
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_64_byte_aligned_and_published_by_count() {
        let mut report = LossReport::new(AtomicBuffer::alloc(4096));
        let channel = "aeron:udp?endpoint=127.0.0.1:20121";
        assert_eq!(entry_length(channel.len(), 15), 99);
        let first = report.create_entry(1056, 100, 7, 1002, channel, "127.0.0.1:20122").unwrap();
        let second = report.create_entry(32, 200, 8, 1003, "aeron:udp?endpoint=[::1]:1", "[::1]:2").unwrap();
        assert_eq!((first, second), (LossEntryOffset(0), LossEntryOffset(128)));
        report.record_observation(first, 2112, 150);
        let mut entries = Vec::new();
        assert_eq!(read_loss_report(report.buffer(), |e| entries.push(e)), 2);
        assert_eq!(entries[0].observation_count, 2);
        assert_eq!(entries[0].total_bytes_lost, 3168);
        assert_eq!((entries[0].first_observation_ms, entries[0].last_observation_ms), (100, 150));
        assert_eq!(entries[1].source, "[::1]:2");
        assert_eq!(entries[1].stream_id, 1003);
    }

    #[test]
    fn a_full_report_refuses_new_entries() {
        let mut report = LossReport::new(AtomicBuffer::alloc(128));
        assert!(
            report
                .create_entry(1, 1, 1, 1, "aeron:udp?endpoint=127.0.0.1:20121", "127.0.0.1:20122")
                .is_some()
        );
        // 99 bytes used, aligned to 128: nothing left.
        assert!(report.create_entry(1, 1, 1, 1, "x", "y").is_none());
    }

    #[test]
    fn malformed_lengths_end_reading() {
        let buffer = AtomicBuffer::alloc(256);
        buffer.put_i64(0, 1);
        buffer.put_i32(CHANNEL_OFFSET, 10_000);
        assert_eq!(read_loss_report(&buffer, |_| panic!("no entry")), 0);
        buffer.put_i32(CHANNEL_OFFSET, -1);
        assert_eq!(read_loss_report(&buffer, |_| panic!("no entry")), 0);
    }
}
