//! `LogBuffers`: a `.logbuffer` file (or heap block) split into its three terms and the
//! metadata section (`spec/log-buffer.md` §1-2). The driver creates the file; clients map it.
#![forbid(unsafe_code)]

use std::path::Path;

use crate::concurrent::AtomicBuffer;
use crate::concurrent::mapped_file::{Allocation, create_mapped, create_new_mapped, map_existing};
use crate::logbuffer::descriptor::{
    LOG_META_DATA_LENGTH, PARTITION_COUNT, TERM_MIN_LENGTH, check_page_size, check_term_length,
    compute_log_length, page_size, set_page_size, set_term_length, term_length,
};
use crate::util::error::{Error, Result};

/// The views of one log: terms `0..3` and the metadata.
#[derive(Debug, Clone)]
pub struct LogBuffers {
    whole: AtomicBuffer,
    terms: [AtomicBuffer; PARTITION_COUNT],
    metadata: AtomicBuffer,
    term_length: usize,
    page_size: usize,
}

impl LogBuffers {
    /// Creates (truncating) the log file at `path` for `term_length` and `page_size`, zero
    /// filled (`Sparse`, or every page touched with `PreTouch`), and records the term length
    /// and page size in its metadata. The driver fills in the other fields.
    pub fn create(path: &Path, term_length: usize, page_size: usize, allocation: Allocation) -> Result<Self> {
        check_term_length(term_length)?;
        check_page_size(page_size)?;
        let length = compute_log_length(term_length, page_size);
        let whole = create_mapped(path, length, allocation)
            .map_err(|e| e.context(format_args!("create log buffer {}", path.display())))?;
        Self::initialise(whole, term_length, page_size)
    }

    /// As [`create`](Self::create), but fails (`EEXIST`) if `path` exists, as Aeron C's
    /// `aeron_raw_log_map` does.
    pub fn create_new(
        path: &Path,
        term_length: usize,
        page_size: usize,
        allocation: Allocation,
    ) -> Result<Self> {
        check_term_length(term_length)?;
        check_page_size(page_size)?;
        let length = compute_log_length(term_length, page_size);
        let whole = create_new_mapped(path, length, allocation)
            .map_err(|e| e.context(format_args!("create log buffer {}", path.display())))?;
        Self::initialise(whole, term_length, page_size)
    }

    /// Maps an existing log file, taking its layout from the metadata at its end.
    pub fn map_existing(path: &Path) -> Result<Self> {
        let whole =
            map_existing(path).map_err(|e| e.context(format_args!("map log buffer {}", path.display())))?;
        Self::from_buffer(whole).map_err(|e| e.context(format_args!("log buffer {}", path.display())))
    }

    /// A zeroed heap-backed log (tests, benchmarks, in-process use).
    pub fn alloc(term_length: usize, page_size: usize) -> Result<Self> {
        check_term_length(term_length)?;
        check_page_size(page_size)?;
        let whole = AtomicBuffer::alloc(compute_log_length(term_length, page_size));
        Self::initialise(whole, term_length, page_size)
    }

    /// Splits an existing log held in `whole` (e.g. a mapping), validating its length
    /// against the term length and page size stored in its metadata.
    pub fn from_buffer(whole: AtomicBuffer) -> Result<Self> {
        let length = whole.capacity();
        let min_length = PARTITION_COUNT * TERM_MIN_LENGTH + LOG_META_DATA_LENGTH;
        if length < min_length {
            return Err(Error::invalid_argument(format!(
                "log length {length} less than min length of {min_length}"
            )));
        }
        let metadata = whole.view(length - LOG_META_DATA_LENGTH, LOG_META_DATA_LENGTH)?;
        let stored_term_length = term_length(&metadata);
        let stored_page_size = page_size(&metadata);
        let term_length = usize::try_from(stored_term_length)
            .map_err(|_| Error::invalid_argument(format!("term length {stored_term_length} is negative")))?;
        let page_size = usize::try_from(stored_page_size)
            .map_err(|_| Error::invalid_argument(format!("page size {stored_page_size} is negative")))?;
        check_term_length(term_length)?;
        check_page_size(page_size)?;
        let expected = compute_log_length(term_length, page_size);
        if length != expected {
            return Err(Error::invalid_argument(format!(
                "log length {length} does not match term length {term_length} and page size {page_size}: \
                 expected {expected}"
            )));
        }
        Self::split(whole, metadata, term_length, page_size)
    }

    fn initialise(whole: AtomicBuffer, term_length: usize, page_size: usize) -> Result<Self> {
        let metadata = whole.view(whole.capacity() - LOG_META_DATA_LENGTH, LOG_META_DATA_LENGTH)?;
        set_term_length(&metadata, term_length as i32);
        set_page_size(&metadata, page_size as i32);
        Self::split(whole, metadata, term_length, page_size)
    }

    fn split(
        whole: AtomicBuffer,
        metadata: AtomicBuffer,
        term_length: usize,
        page_size: usize,
    ) -> Result<Self> {
        let terms = [
            whole.view(0, term_length)?,
            whole.view(term_length, term_length)?,
            whole.view(2 * term_length, term_length)?,
        ];
        Ok(Self { whole, terms, metadata, term_length, page_size })
    }

    /// Term `index` (0, 1 or 2). Panics on another index: partition indices come from
    /// `index_by_*`, which are always below 3.
    #[inline]
    pub fn term(&self, index: usize) -> &AtomicBuffer {
        &self.terms[index]
    }

    pub fn terms(&self) -> &[AtomicBuffer; PARTITION_COUNT] {
        &self.terms
    }

    /// The 4096-byte metadata section.
    #[inline]
    pub fn metadata(&self) -> &AtomicBuffer {
        &self.metadata
    }

    /// The whole file.
    pub fn buffer(&self) -> &AtomicBuffer {
        &self.whole
    }

    pub fn term_length(&self) -> usize {
        self.term_length
    }

    pub fn page_size(&self) -> usize {
        self.page_size
    }

    /// Reads a byte of each page, so the pages fault in now rather than on the hot path.
    pub fn touch_pages(&self) {
        for page in (0..self.whole.capacity()).step_by(crate::util::sys::page_size()) {
            std::hint::black_box(self.whole.get_u8(page));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(miri, ignore = "miri cannot map files")]
    fn create_and_map_share_layout() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("1.logbuffer");
        let created = LogBuffers::create(&path, 65536, 4096, Allocation::Sparse).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 200_704);
        created.term(1).put_i32_release(64, 77);
        let mapped = LogBuffers::map_existing(&path).unwrap();
        assert_eq!(mapped.term_length(), 65536);
        assert_eq!(mapped.page_size(), 4096);
        assert_eq!(mapped.term(1).get_i32_acquire(64), 77);
        assert_eq!(mapped.buffer().get_i32(65536 + 64), 77);
        assert_eq!(mapped.metadata().get_i32(276), 65536);
        assert_eq!(mapped.buffer().get_i32(196_608 + 276), 65536);
    }

    #[test]
    #[cfg_attr(miri, ignore = "miri cannot map files")]
    fn create_new_refuses_an_existing_log() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("3.logbuffer");
        let log = LogBuffers::create_new(&path, 65536, 4096, Allocation::Sparse).unwrap();
        assert_eq!(log.metadata().get_i32(276), 65536);
        let err = LogBuffers::create_new(&path, 65536, 4096, Allocation::Sparse).unwrap_err();
        assert_eq!(err.code(), libc::EEXIST);
    }

    #[test]
    #[cfg_attr(miri, ignore = "miri cannot map files")]
    fn large_page_puts_metadata_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("2.logbuffer");
        let log = LogBuffers::create(&path, 65536, 1 << 20, Allocation::PreTouch).unwrap();
        assert_eq!(log.buffer().capacity(), 1 << 20);
        assert_eq!(log.buffer().get_i32((1 << 20) - 4096 + 280), 1 << 20);
        assert!(LogBuffers::map_existing(&path).is_ok());
    }

    #[test]
    #[cfg_attr(miri, ignore = "miri cannot map files")]
    fn bad_files_are_clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        let short = dir.path().join("short.logbuffer");
        std::fs::write(&short, vec![0u8; 8192]).unwrap();
        let err = LogBuffers::map_existing(&short).unwrap_err();
        assert!(err.message().contains("less than min length"), "{err}");

        let bad_term = dir.path().join("bad-term.logbuffer");
        let mut bytes = vec![0u8; 200_704];
        bytes[196_608 + 276..196_608 + 280].copy_from_slice(&1000i32.to_le_bytes());
        bytes[196_608 + 280..196_608 + 284].copy_from_slice(&4096i32.to_le_bytes());
        std::fs::write(&bad_term, &bytes).unwrap();
        let err = LogBuffers::map_existing(&bad_term).unwrap_err();
        assert!(err.message().contains("term length less than min length"), "{err}");

        let bad_page = dir.path().join("bad-page.logbuffer");
        bytes[196_608 + 276..196_608 + 280].copy_from_slice(&65536i32.to_le_bytes());
        bytes[196_608 + 280..196_608 + 284].copy_from_slice(&3000i32.to_le_bytes());
        std::fs::write(&bad_page, &bytes).unwrap();
        let err = LogBuffers::map_existing(&bad_page).unwrap_err();
        assert!(err.message().contains("page size less than min size"), "{err}");

        let wrong_length = dir.path().join("wrong-length.logbuffer");
        let mut longer = vec![0u8; 200_704 + 4096];
        longer[200_704 + 276..200_704 + 280].copy_from_slice(&65536i32.to_le_bytes());
        longer[200_704 + 280..200_704 + 284].copy_from_slice(&4096i32.to_le_bytes());
        std::fs::write(&wrong_length, &longer).unwrap();
        let err = LogBuffers::map_existing(&wrong_length).unwrap_err();
        assert!(err.message().contains("expected 200704"), "{err}");

        assert!(LogBuffers::create(&dir.path().join("x"), 3 << 16, 4096, Allocation::Sparse).is_err());
        assert!(LogBuffers::alloc(65536, 1000).is_err());
    }
}
