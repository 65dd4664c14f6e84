//! A fixed-capacity table from (stream id, session id) to a term offset, for the fixed-loss
//! and multi-gap-loss interceptors, which remember per stream how far they have dropped.
//! Allocated once when the interceptor is created, so the receive path never allocates;
//! when full, new streams are not tracked (the interceptors then pass their frames, as the
//! C driver does when its map cannot grow).
#![forbid(unsafe_code)]

/// How many distinct streams one interceptor tracks.
pub const STREAM_OFFSETS_CAPACITY: usize = 64;

#[derive(Debug, Clone, Copy)]
struct Entry {
    stream_id: i32,
    session_id: i32,
    offset: i64,
}

#[derive(Debug, Clone)]
pub struct StreamOffsets {
    entries: Vec<Entry>,
}

impl Default for StreamOffsets {
    fn default() -> Self {
        Self::new()
    }
}

impl StreamOffsets {
    pub fn new() -> Self {
        Self { entries: Vec::with_capacity(STREAM_OFFSETS_CAPACITY) }
    }

    /// The tracked offset of the stream, inserting `initial` first if it is new.
    /// `None` when the stream is new and the table is full.
    pub fn get_or_insert(&mut self, stream_id: i32, session_id: i32, initial: i64) -> Option<i64> {
        if let Some(e) = self.entries.iter().find(|e| e.stream_id == stream_id && e.session_id == session_id)
        {
            return Some(e.offset);
        }
        if self.entries.len() == STREAM_OFFSETS_CAPACITY {
            return None;
        }
        // Within the capacity reserved in `new`: no reallocation.
        self.entries.push(Entry { stream_id, session_id, offset: initial });
        Some(initial)
    }

    /// Sets the offset of a stream already tracked.
    pub fn set(&mut self, stream_id: i32, session_id: i32, offset: i64) {
        if let Some(e) =
            self.entries.iter_mut().find(|e| e.stream_id == stream_id && e.session_id == session_id)
        {
            e.offset = offset;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracks_per_stream_and_session_up_to_capacity() {
        let mut t = StreamOffsets::new();
        assert_eq!(t.get_or_insert(1, 2, 100), Some(100));
        assert_eq!(t.get_or_insert(1, 2, 999), Some(100));
        t.set(1, 2, 200);
        assert_eq!(t.get_or_insert(1, 2, 0), Some(200));
        assert_eq!(t.get_or_insert(2, 1, 7), Some(7));
        for i in 0..(STREAM_OFFSETS_CAPACITY as i32 - 2) {
            assert!(t.get_or_insert(10, i, 0).is_some());
        }
        assert_eq!(t.get_or_insert(11, 0, 0), None);
        assert_eq!(t.entries.capacity(), STREAM_OFFSETS_CAPACITY);
    }
}
