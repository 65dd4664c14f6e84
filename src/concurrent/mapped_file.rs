//! Creating and mapping the files that hold shared memory (`cnc.dat`, `.logbuffer`s, ring
//! buffer files, bus segments). The one place that calls `mmap`.

use std::fs::{File, OpenOptions};
use std::path::Path;

use super::atomic_buffer::AtomicBuffer;
use crate::util::error::{Error, Result};

/// How a newly created file's pages are backed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allocation {
    /// `set_len` only: pages are allocated on first touch (Aeron's `sparse=true`). A file
    /// system that fills up meanwhile turns that touch into a `SIGBUS`: what the user
    /// trades for the memory a sparse log does not take.
    Sparse,
    /// The space is allocated when the file is created (`fallocate`), so a full file
    /// system is a creation error, never a `SIGBUS` later.
    Reserved,
    /// Reserved, and every page is written once up front, so the hot path never
    /// page-faults.
    PreTouch,
}

/// Creates `path` (truncating any previous file) with exactly `length` zero bytes and
/// maps it shared, read-write.
pub fn create_mapped(path: &Path, length: usize, allocation: Allocation) -> Result<AtomicBuffer> {
    create_with(OpenOptions::new().create(true).truncate(true), path, length, allocation)
}

/// As [`create_mapped`], but fails (`EEXIST`) if `path` exists, as Aeron C's
/// `aeron_create_file` (`O_CREAT | O_EXCL`) does.
pub fn create_new_mapped(path: &Path, length: usize, allocation: Allocation) -> Result<AtomicBuffer> {
    create_with(OpenOptions::new().create_new(true), path, length, allocation)
}

fn create_with(
    options: &mut OpenOptions,
    path: &Path,
    length: usize,
    allocation: Allocation,
) -> Result<AtomicBuffer> {
    if length == 0 {
        return Err(Error::invalid_argument(format!("cannot map {}: length is 0", path.display())));
    }
    let file = options
        .read(true)
        .write(true)
        .open(path)
        .map_err(|e| Error::io(&e, format_args!("create {}", path.display())))?;
    file.set_len(length as u64)
        .map_err(|e| Error::io(&e, format_args!("set length of {}", path.display())))?;
    if allocation != Allocation::Sparse {
        crate::util::sys::reserve_file_space(&file, length as u64)
            .map_err(|e| Error::io(&e, format_args!("reserve {length} bytes for {}", path.display())))?;
    }
    let buffer = map_file(&file, path, length)?;
    if allocation == Allocation::PreTouch {
        let page = crate::util::sys::page_size();
        let mut i = 0;
        while i < length {
            buffer.put_u8(i, 0);
            i += page;
        }
    }
    Ok(buffer)
}

/// Maps an existing file shared, read-write, at its current length.
pub fn map_existing(path: &Path) -> Result<AtomicBuffer> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(|e| Error::io(&e, format_args!("open {}", path.display())))?;
    let length = file.metadata().map_err(|e| Error::io(&e, format_args!("stat {}", path.display())))?.len();
    let length = usize::try_from(length)
        .map_err(|_| Error::invalid_argument(format!("{} is too large to map", path.display())))?;
    if length == 0 {
        return Err(Error::invalid_argument(format!("cannot map {}: file is empty", path.display())));
    }
    map_file(&file, path, length)
}

/// Opens `path` if it exists, else creates it with `length` zero bytes; maps it shared.
/// The returned flag says whether this call created the file. Several processes racing
/// here all end up with the same file (`O_CREAT` without truncation).
pub fn open_or_create_mapped(path: &Path, length: usize) -> Result<(AtomicBuffer, bool)> {
    open_or_create_mapped_prefaulted(path, length, false)
}

/// [`open_or_create_mapped`], and with `prefault` every page is mapped up front
/// (`MAP_POPULATE`), so the first access to each page does not take a page fault on a hot
/// path (on tmpfs not even the first write; on a disk file the first write still does).
pub fn open_or_create_mapped_prefaulted(
    path: &Path,
    length: usize,
    prefault: bool,
) -> Result<(AtomicBuffer, bool)> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| Error::io(&e, format_args!("open {}", path.display())))?;
    let current = file.metadata().map_err(|e| Error::io(&e, format_args!("stat {}", path.display())))?.len();
    let created = current == 0;
    if created {
        file.set_len(length as u64)
            .map_err(|e| Error::io(&e, format_args!("set length of {}", path.display())))?;
    } else if current != length as u64 {
        return Err(Error::invalid_argument(format!(
            "{} has length {current}, expected {length}",
            path.display()
        )));
    }
    Ok((map_file_with(&file, path, length, prefault)?, created))
}

/// Flushes a mapped range to the file (`msync`), for durability across power loss.
pub fn flush(buffer: &AtomicBuffer, offset: usize, length: usize) -> Result<()> {
    buffer.check_bounds(offset, length)?;
    let page = crate::util::sys::page_size();
    let start = buffer.as_ptr() as usize + offset;
    let aligned_start = start & !(page - 1);
    let span = length + (start - aligned_start);
    // SAFETY: [aligned_start, aligned_start + span) lies within the mapping that `buffer`
    // keeps alive (bounds checked above; mappings start page-aligned so rounding the start
    // down stays inside it); msync reads no Rust-visible memory.
    let rc = unsafe { libc::msync(aligned_start as *mut libc::c_void, span, libc::MS_SYNC) };
    if rc != 0 {
        return Err(Error::io(&std::io::Error::last_os_error(), "msync"));
    }
    Ok(())
}

/// `msync(MS_SYNC | MS_INVALIDATE)` of `length` bytes from `addr` (page-aligned), as Aeron
/// C's `aeron_msync`: whatever is mapped there, flushed to its file. It only asks the kernel
/// to write pages back, so any range is safe to pass; one that is not mapped is `ENOMEM`.
pub fn sync_range(addr: *mut u8, length: usize) -> Result<()> {
    // SAFETY: msync neither reads nor writes memory visible to Rust; it fails with ENOMEM
    // or EINVAL for ranges that are not mapped or not page-aligned.
    let rc = unsafe { libc::msync(addr.cast(), length, libc::MS_SYNC | libc::MS_INVALIDATE) };
    if rc != 0 {
        return Err(Error::io(&std::io::Error::last_os_error(), "msync"));
    }
    Ok(())
}

fn map_file(file: &File, path: &Path, length: usize) -> Result<AtomicBuffer> {
    map_file_with(file, path, length, false)
}

fn map_file_with(file: &File, path: &Path, length: usize, prefault: bool) -> Result<AtomicBuffer> {
    let mut options = memmap2::MmapOptions::new();
    options.len(length);
    if prefault {
        options.populate();
    }
    // SAFETY: the mapping is shared with other processes by design; every access to it goes
    // through AtomicBuffer's atomics or protocol-guarded copies, and the file is never
    // truncated by aeronrs while mapped.
    let map = unsafe { options.map_mut(file) }
        .map_err(|e| Error::io(&e, format_args!("mmap {}", path.display())))?;
    Ok(AtomicBuffer::from_mmap(map))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_then_map_existing_shares_memory() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shared.dat");
        let a = create_mapped(&path, 8192, Allocation::PreTouch).unwrap();
        a.put_i64_release(4096, 77);
        let b = map_existing(&path).unwrap();
        assert_eq!(b.capacity(), 8192);
        assert_eq!(b.get_i64_acquire(4096), 77);
        flush(&a, 4000, 200).unwrap();
    }

    #[test]
    fn open_or_create_reports_creation_and_checks_length() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bus");
        let (_, created) = open_or_create_mapped(&path, 4096).unwrap();
        assert!(created);
        let (_, created) = open_or_create_mapped(&path, 4096).unwrap();
        assert!(!created);
        assert!(open_or_create_mapped(&path, 8192).is_err());
        let (prefaulted, created) = open_or_create_mapped_prefaulted(&path, 4096, true).unwrap();
        assert!(!created);
        assert_eq!(prefaulted.capacity(), 4096);
    }

    #[test]
    fn create_new_refuses_an_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("once.dat");
        let a = create_new_mapped(&path, 4096, Allocation::Sparse).unwrap();
        assert_eq!(create_new_mapped(&path, 4096, Allocation::Sparse).unwrap_err().code(), libc::EEXIST);
        sync_range(a.as_ptr(), a.capacity()).unwrap();
        assert_eq!(sync_range(a.as_ptr().wrapping_add(1), 16).unwrap_err().code(), libc::EINVAL);
    }

    #[test]
    fn missing_or_empty_files_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let err = map_existing(&dir.path().join("nope")).unwrap_err();
        assert_eq!(err.code(), libc::ENOENT);
        std::fs::write(dir.path().join("empty"), b"").unwrap();
        assert!(map_existing(&dir.path().join("empty")).is_err());
        assert!(create_mapped(&dir.path().join("zero"), 0, Allocation::Sparse).is_err());
    }
}
