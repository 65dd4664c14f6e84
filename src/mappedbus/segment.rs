//! One segment file of a bus: `<name>` is segment 0 (the whole bus in Mappedbus), `<name>.<n>`
//! segment n. Opening, validating and initialising a segment, and finding which exist.
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};

use super::layout::{DATA_OFFSET, LIMIT_OFFSET, SegmentLayout};
use crate::concurrent::AtomicBuffer;
use crate::concurrent::mapped_file;
use crate::util::error::{Error, Result};

/// A mapped segment file.
pub(crate) struct Segment {
    index: u64,
    path: PathBuf,
    buffer: AtomicBuffer,
    layout: SegmentLayout,
}

impl Segment {
    /// The file of segment `index` of the bus at `base`.
    pub fn path_of(base: &Path, index: u64) -> PathBuf {
        if index == 0 {
            base.to_path_buf()
        } else {
            let mut name = base.as_os_str().to_os_string();
            name.push(format!(".{index}"));
            PathBuf::from(name)
        }
    }

    /// Maps segment `index`, creating it when missing, and initialises its `limit` to the
    /// start of data by compare-and-swap from 0, so processes racing to create it agree.
    /// Pages are mapped at first access ([`Segment::prefault_from`] maps them ahead).
    pub fn open_or_create(base: &Path, index: u64, layout: SegmentLayout) -> Result<Self> {
        let path = Self::path_of(base, index);
        let (buffer, _created) = mapped_file::open_or_create_mapped(&path, layout.file_length())
            .map_err(|e| e.context(format_args!("open bus segment {index}")))?;
        let segment = Self { index, path, buffer, layout };
        // A fresh file is all zeros; if the CAS loses, another process initialised it (or it
        // held records already), and either way the value is validated next.
        segment.buffer.compare_and_set_i64(LIMIT_OFFSET, 0, DATA_OFFSET as i64);
        segment.limit()?;
        Ok(segment)
    }

    /// Maps segment `index`, which must exist with this layout's length.
    pub fn open_existing(base: &Path, index: u64, layout: SegmentLayout) -> Result<Self> {
        let path = Self::path_of(base, index);
        let buffer = mapped_file::map_existing(&path)
            .map_err(|e| e.context(format_args!("open bus segment {index}")))?;
        if buffer.capacity() != layout.file_length() {
            return Err(super::layout::not_a_bus_file(
                &path,
                format_args!("length {} (expected {})", buffer.capacity(), layout.file_length()),
            ));
        }
        let segment = Self { index, path, buffer, layout };
        segment.limit()?;
        Ok(segment)
    }

    #[inline]
    pub fn index(&self) -> u64 {
        self.index
    }

    #[inline]
    pub fn path(&self) -> &Path {
        &self.path
    }

    #[inline]
    pub fn buffer(&self) -> &AtomicBuffer {
        &self.buffer
    }

    /// The validated `limit`. Acquire: a reader that sees a record allocated also sees what
    /// was written to the segment before the allocation (the `limit` initialisation).
    pub fn limit(&self) -> Result<usize> {
        self.layout.validate_limit(self.buffer.get_i64_acquire(LIMIT_OFFSET), &self.path)
    }

    /// Writes the segment's dirty pages to the file (`msync`).
    pub fn flush(&self) -> Result<()> {
        mapped_file::flush(&self.buffer, 0, self.buffer.capacity())
            .map_err(|e| e.context(format_args!("flush {}", self.path.display())))
    }
}

/// The index of the segment records are appended to now: the newest, unless it is empty
/// while the one before it still has room (a segment prepared ahead of writers by
/// [`super::preparer`]), then that one. 0 when no segment exists.
pub(crate) fn current_index(base: &Path, layout: SegmentLayout) -> Result<u64> {
    let Some(&newest) = list_segments(base)?.last() else { return Ok(0) };
    let mut index = newest;
    while index > 0 {
        let is_empty = match Segment::open_existing(base, index, layout) {
            Ok(segment) => segment.limit()? == DATA_OFFSET,
            // Created a moment ago and not yet sized: as empty as it gets.
            Err(_) if index == newest => true,
            Err(e) => return Err(e),
        };
        let previous_has_room = match Segment::open_existing(base, index - 1, layout) {
            Ok(previous) => layout.has_room_at(previous.limit()?),
            Err(_) => false,
        };
        if !(is_empty && previous_has_room) {
            break;
        }
        index -= 1;
    }
    Ok(index)
}

/// The indices of the segments of the bus at `base` that exist, ascending.
pub(crate) fn list_segments(base: &Path) -> Result<Vec<u64>> {
    let name = base.file_name().and_then(|n| n.to_str()).ok_or_else(|| {
        Error::invalid_argument(format!("bus path {} has no UTF-8 file name", base.display()))
    })?;
    let dir = match base.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let entries =
        std::fs::read_dir(&dir).map_err(|e| Error::io(&e, format_args!("list {}", dir.display())))?;
    let mut indices = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(&e, format_args!("list {}", dir.display())))?;
        let file_name = entry.file_name();
        let Some(file_name) = file_name.to_str() else { continue };
        if file_name == name {
            indices.push(0);
        } else if let Some(index) = file_name.strip_prefix(name).and_then(|rest| rest.strip_prefix('.')) {
            // Only the names writers make: decimal, no leading zero, not 0 itself.
            if !index.is_empty() && !index.starts_with('0') && index.bytes().all(|b| b.is_ascii_digit()) {
                if let Ok(index) = index.parse::<u64>() {
                    indices.push(index);
                }
            }
        }
    }
    indices.sort_unstable();
    Ok(indices)
}

/// fsync of the folder holding the bus, so newly created segment files survive power loss.
pub(crate) fn sync_directory(base: &Path) -> Result<()> {
    let dir = match base.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let handle =
        std::fs::File::open(&dir).map_err(|e| Error::io(&e, format_args!("open {}", dir.display())))?;
    handle.sync_all().map_err(|e| Error::io(&e, format_args!("fsync {}", dir.display())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mappedbus::layout::RecordMode;

    fn layout() -> SegmentLayout {
        SegmentLayout::new(1000, RecordMode::FixedSize { record_size: 12 }).unwrap()
    }

    #[test]
    fn segment_paths_follow_mappedbus_then_suffix() {
        let base = Path::new("/tmp/x/bus");
        assert_eq!(Segment::path_of(base, 0), PathBuf::from("/tmp/x/bus"));
        assert_eq!(Segment::path_of(base, 12), PathBuf::from("/tmp/x/bus.12"));
    }

    #[test]
    fn create_initialises_limit_once() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("bus");
        let a = Segment::open_or_create(&base, 0, layout()).unwrap();
        assert_eq!(a.limit().unwrap(), 8);
        a.buffer().put_i64(0, 48);
        let b = Segment::open_or_create(&base, 0, layout()).unwrap();
        assert_eq!(b.limit().unwrap(), 48, "a second opener keeps the existing limit");
        assert_eq!(std::fs::metadata(&base).unwrap().len(), 4096);
        b.flush().unwrap();
    }

    #[test]
    fn existing_files_of_the_wrong_shape_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("bus");
        std::fs::write(&base, vec![0u8; 100]).unwrap();
        let err = Segment::open_or_create(&base, 0, layout()).err().unwrap();
        assert!(err.message().contains("length 100"), "{err}");
        let err = Segment::open_existing(&base, 0, layout()).err().unwrap();
        assert!(err.message().contains("is not a mapped bus segment"), "{err}");
        let mut bytes = vec![0u8; 4096];
        bytes[..8].copy_from_slice(&(-5i64).to_le_bytes());
        std::fs::write(&base, &bytes).unwrap();
        let err = Segment::open_or_create(&base, 0, layout()).err().unwrap();
        assert!(err.message().contains("limit -5 is outside the file"), "{err}");
        assert_eq!(std::fs::read(&base).unwrap(), bytes, "a refused file is left untouched");
    }

    #[test]
    fn an_empty_newest_segment_is_current_only_once_the_one_before_is_full() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("bus");
        assert_eq!(current_index(&base, layout()).unwrap(), 0, "no segment yet");
        let first = Segment::open_or_create(&base, 0, layout()).unwrap();
        Segment::open_or_create(&base, 1, layout()).unwrap(); // prepared ahead
        assert_eq!(current_index(&base, layout()).unwrap(), 0, "segment 0 has room");
        first.buffer().put_i64(0, 1000);
        assert_eq!(current_index(&base, layout()).unwrap(), 1, "segment 0 is full");
        Segment::open_or_create(&base, 2, layout()).unwrap();
        assert_eq!(current_index(&base, layout()).unwrap(), 1);
        first.buffer().put_i64(0, 48);
        assert_eq!(current_index(&base, layout()).unwrap(), 0, "steps back over empty ones");
    }

    #[test]
    fn list_finds_only_segment_names() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("bus");
        for name in ["bus", "bus.1", "bus.10", "bus.2", "bus.01", "bus.x", "bus.", "other.3", "bus.3.tmp"] {
            std::fs::write(dir.path().join(name), b"").unwrap();
        }
        assert_eq!(list_segments(&base).unwrap(), vec![0, 1, 2, 10]);
        assert!(list_segments(&dir.path().join("missing/bus")).is_err());
        sync_directory(&base).unwrap();
    }
}
