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
/// here all end up with the same file (`O_CREAT` without truncation). Pages are mapped on
/// first access; [`prefault_pages`] maps them ahead.
pub fn open_or_create_mapped(path: &Path, length: usize) -> Result<(AtomicBuffer, bool)> {
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
    Ok((map_file(&file, path, length)?, created))
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

/// How a mapping's pages are about to be used, for [`prefault_pages`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageAccess {
    /// Read only: the pages are mapped readable and stay clean, so prefaulting a file
    /// other processes wrote does not make the kernel write it back again.
    Read,
    /// Written: the pages are mapped writable and dirty, so the first store to each takes
    /// no fault (neither the allocation of a tmpfs page nor a file system's `page_mkwrite`).
    Write,
}

/// Maps the pages of `[offset, offset + length)` of a shared file mapping now, so that
/// the first access to each does not take a page fault later on a hot path. No byte
/// changes, whoever else maps the file meanwhile: `madvise(MADV_POPULATE_READ/WRITE)`
/// (Linux 5.14) only faults pages in, and where the kernel refuses it each page is touched
/// instead (`prefault_pages_by_touch`).
pub fn prefault_pages(buffer: &AtomicBuffer, offset: usize, length: usize, access: PageAccess) -> Result<()> {
    let Some((start, span)) = page_span(buffer, offset, length)? else { return Ok(()) };
    let advice = match access {
        PageAccess::Read => libc::MADV_POPULATE_READ,
        PageAccess::Write => libc::MADV_POPULATE_WRITE,
    };
    // SAFETY: [start, start + span) lies within the mapping `buffer` keeps alive (see
    // `page_span`); MADV_POPULATE_* only faults pages in as an access would and never
    // changes their contents.
    let rc = unsafe { libc::madvise(start as *mut libc::c_void, span, advice) };
    if rc == 0 {
        return Ok(());
    }
    let error = std::io::Error::last_os_error();
    match error.raw_os_error() {
        // An older kernel (EINVAL: unknown advice) or a mapping it will not populate
        // (EPERM, ENOSYS): touching the pages does the same, only slower.
        Some(libc::EINVAL | libc::EPERM | libc::ENOSYS) => {
            prefault_pages_by_touch(buffer, offset, length, access);
            Ok(())
        }
        _ => Err(Error::io(&error, format_args!("prefault {span} bytes of a mapping"))),
    }
}

/// [`prefault_pages`] without `madvise`: one access per page. A write touch is an atomic
/// add of 0 to the page's first 4-byte word: it faults the page in writable yet cannot
/// lose a store another process makes to that word at the same moment (a plain read then
/// write back could).
pub(crate) fn prefault_pages_by_touch(
    buffer: &AtomicBuffer,
    offset: usize,
    length: usize,
    access: PageAccess,
) {
    let page = crate::util::sys::page_size();
    let base = buffer.as_ptr() as usize;
    let end = offset.saturating_add(length).min(buffer.capacity());
    // The first page start at or after `offset` is the first whole page; the page holding
    // `offset` itself is touched at `offset` rounded down to 4 bytes.
    let mut at = offset & !3;
    while at + 4 <= end {
        match access {
            PageAccess::Read => {
                buffer.get_i32_acquire(at);
            }
            PageAccess::Write => {
                buffer.get_and_add_i32(at, 0);
            }
        }
        let next_page = ((base + at) & !(page - 1)) + page - base;
        at = next_page;
    }
}

/// Unmaps the pages of `[offset, offset + length)` of a shared file mapping from this
/// process (`madvise(MADV_DONTNEED)`), keeping the mapping itself: the data stays in the
/// file (dirty pages are still written back), and a later access faults the page in
/// again. Releasing a large mapping in steps before dropping it keeps each step short,
/// where one `munmap` of a fully mapped segment holds the process's mapping lock for the
/// whole teardown and stalls every page fault meanwhile.
pub fn release_pages(buffer: &AtomicBuffer, offset: usize, length: usize) -> Result<()> {
    let Some((start, span)) = page_span(buffer, offset, length)? else { return Ok(()) };
    // On a shared file mapping (bus segments and the other files here are never private
    // or anonymous ones) MADV_DONTNEED drops page table entries only: the contents stay in
    // the page cache (dirty ones still written back) and are read back on next access.
    // SAFETY: [start, start + span) lies within the mapping `buffer` keeps alive, and no
    // byte any party sees changes (above).
    let rc = unsafe { libc::madvise(start as *mut libc::c_void, span, libc::MADV_DONTNEED) };
    if rc != 0 {
        return Err(Error::io(
            &std::io::Error::last_os_error(),
            format_args!("release {span} bytes of a mapping"),
        ));
    }
    Ok(())
}

/// Writes the file's data at `path` to its device (`fdatasync`), whether or not this
/// process still maps it: dirty pages of a shared mapping stay dirty in the page cache
/// after the mapping is gone, and this writes them.
pub fn sync_file_data(path: &Path) -> Result<()> {
    let file = File::open(path).map_err(|e| Error::io(&e, format_args!("open {}", path.display())))?;
    file.sync_data().map_err(|e| Error::io(&e, format_args!("fdatasync {}", path.display())))
}

/// The page-aligned address and length covering `[offset, offset + length)` of `buffer`,
/// which must be a file mapping (so rounding the start down to a page stays inside it) and
/// hold the range; `None` when the range is empty.
fn page_span(buffer: &AtomicBuffer, offset: usize, length: usize) -> Result<Option<(usize, usize)>> {
    if !buffer.is_file_mapping() {
        return Err(Error::invalid_argument("page-level calls need a shared file mapping"));
    }
    buffer.check_bounds(offset, length)?;
    if length == 0 {
        return Ok(None);
    }
    let page = crate::util::sys::page_size();
    let start = buffer.as_ptr() as usize + offset;
    let aligned_start = start & !(page - 1);
    Ok(Some((aligned_start, length + (start - aligned_start))))
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
    // SAFETY: the mapping is shared with other processes by design; every access to it goes
    // through AtomicBuffer's atomics or protocol-guarded copies, and the file is never
    // truncated by aeronrs while mapped.
    let map = unsafe { memmap2::MmapOptions::new().len(length).map_mut(file) }
        .map_err(|e| Error::io(&e, format_args!("mmap {}", path.display())))?;
    Ok(AtomicBuffer::from_mmap(map))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(miri, ignore = "miri cannot map files")]
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
    #[cfg_attr(miri, ignore = "miri cannot map files")]
    fn open_or_create_reports_creation_and_checks_length() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bus");
        let (_, created) = open_or_create_mapped(&path, 4096).unwrap();
        assert!(created);
        let (_, created) = open_or_create_mapped(&path, 4096).unwrap();
        assert!(!created);
        assert!(open_or_create_mapped(&path, 8192).is_err());
    }

    #[test]
    #[cfg_attr(miri, ignore = "miri cannot map files")]
    fn create_new_refuses_an_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("once.dat");
        let a = create_new_mapped(&path, 4096, Allocation::Sparse).unwrap();
        assert_eq!(create_new_mapped(&path, 4096, Allocation::Sparse).unwrap_err().code(), libc::EEXIST);
        sync_range(a.as_ptr(), a.capacity()).unwrap();
        assert_eq!(sync_range(a.as_ptr().wrapping_add(1), 16).unwrap_err().code(), libc::EINVAL);
    }

    #[test]
    #[cfg_attr(miri, ignore = "miri cannot map files")]
    fn missing_or_empty_files_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let err = map_existing(&dir.path().join("nope")).unwrap_err();
        assert_eq!(err.code(), libc::ENOENT);
        std::fs::write(dir.path().join("empty"), b"").unwrap();
        assert!(map_existing(&dir.path().join("empty")).is_err());
        assert!(create_mapped(&dir.path().join("zero"), 0, Allocation::Sparse).is_err());
    }

    /// A file of `pages` pages whose every byte is its offset's low byte, mapped twice (as
    /// a writer and a reader in other processes would).
    fn patterned(dir: &Path, pages: usize) -> (AtomicBuffer, AtomicBuffer, Vec<u8>) {
        let path = dir.join("pattern");
        let length = pages * crate::util::sys::page_size();
        let bytes: Vec<u8> = (0..length).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        (map_existing(&path).unwrap(), map_existing(&path).unwrap(), bytes)
    }

    fn contents(buffer: &AtomicBuffer) -> Vec<u8> {
        let mut out = vec![0u8; buffer.capacity()];
        buffer.load_bytes(0, &mut out);
        out
    }

    #[test]
    #[cfg_attr(miri, ignore = "miri cannot map files")]
    fn prefault_changes_no_byte_another_mapping_sees() {
        let dir = tempfile::tempdir().unwrap();
        let (ours, theirs, bytes) = patterned(dir.path(), 64);
        let length = bytes.len();
        for access in [PageAccess::Read, PageAccess::Write] {
            prefault_pages(&ours, 0, length, access).unwrap();
            prefault_pages(&ours, 4097, 3 * 4096, access).unwrap(); // unaligned range
            prefault_pages_by_touch(&ours, 0, length, access);
            prefault_pages_by_touch(&ours, 4097, 3 * 4096, access);
            assert!(contents(&theirs) == bytes, "{access:?} prefault changed bytes");
        }
        assert!(prefault_pages(&ours, length - 4, 8, PageAccess::Write).is_err(), "past the end");
        let heap = AtomicBuffer::alloc(8192);
        assert!(prefault_pages(&heap, 0, 8192, PageAccess::Write).is_err(), "not a file mapping");
        assert!(release_pages(&heap, 0, 8192).is_err(), "not a file mapping");
        drop(ours);
        assert!(std::fs::read(dir.path().join("pattern")).unwrap() == bytes);
    }

    #[test]
    #[cfg_attr(miri, ignore = "miri cannot map files")]
    fn a_touch_racing_a_store_to_the_same_word_never_loses_it() {
        let dir = tempfile::tempdir().unwrap();
        let (ours, theirs, _) = patterned(dir.path(), 4);
        let page = crate::util::sys::page_size();
        let stores = std::thread::spawn(move || {
            for value in 1..=200_000i32 {
                for p in 0..4 {
                    theirs.put_i32_release(p * page, value);
                }
            }
            theirs
        });
        while !stores.is_finished() {
            prefault_pages_by_touch(&ours, 0, ours.capacity(), PageAccess::Write);
        }
        let theirs = stores.join().unwrap();
        for p in 0..4 {
            assert_eq!(theirs.get_i32_acquire(p * page), 200_000, "page {p} lost a store");
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "miri cannot map files")]
    fn released_pages_keep_their_bytes_and_sync_by_path_needs_no_mapping() {
        let dir = tempfile::tempdir().unwrap();
        let (ours, theirs, mut bytes) = patterned(dir.path(), 16);
        ours.put_i64(8192, 0x0102_0304_0506_0708);
        bytes[8192..8200].copy_from_slice(&0x0102_0304_0506_0708i64.to_le_bytes());
        release_pages(&ours, 0, ours.capacity()).unwrap();
        assert!(contents(&theirs) == bytes, "the other mapping sees the store");
        assert!(contents(&ours) == bytes, "faulted back in with the store");
        release_pages(&ours, 4096, 4096).unwrap();
        drop(ours);
        drop(theirs);
        sync_file_data(&dir.path().join("pattern")).unwrap();
        assert!(std::fs::read(dir.path().join("pattern")).unwrap() == bytes);
        assert_eq!(sync_file_data(&dir.path().join("missing")).unwrap_err().code(), libc::ENOENT);
    }
}
