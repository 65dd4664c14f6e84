//! The file utility exports of `aeron_fileutil.h`, for `src/ffi/util/fileutil.rs` to include and
//! cbindgen to read.

use super::export_table;

/// The contract of the rows without a `# Safety` of their own.
const SAFETY: &str = "`path` must be NULL or NUL-terminated.";

pub fn generate() -> String {
    export_table::generate("build/fileutil_exports.rs", TABLE, SAFETY)
}

const TABLE: &str = r#"
aeron_map_existing_file(mapped_file: *mut aeron_mapped_file_t, path: *const c_char) -> c_int
    require_non_null!(mapped_file, "mapped_file");
    let path = c_str_arg(path, "path")?;
    let mapped = register(map_existing(Path::new(path))?)?;
    write_out(mapped_file, "mapped_file", mapped)
Maps the whole of the existing file `path` shared and read-write, filling in
`mapped_file` (`addr`, `length`). Returns 0, or -1: EINVAL for NULL arguments or an
empty file, the `errno` of a failed open/stat/mmap (ENOENT for a missing file).
Release the mapping with `aeron_unmap`.
# Safety
`mapped_file` must be NULL or valid for writes; `path` NULL or NUL-terminated.

aeron_unmap(mapped_file: *mut aeron_mapped_file_t) -> c_int
    require_non_null!(mapped_file, "mapped_file");
    let (addr, length) = ((*mapped_file).addr, (*mapped_file).length);
    unregister(addr, length)?;
    Ok(0)
Unmaps a file mapped by `aeron_map_existing_file`. A NULL `addr` is a no-op. Returns 0,
or -1: EINVAL for a NULL `mapped_file` or an address/length this library did not map.
The struct itself is left as it was.
# Safety
`mapped_file` must be NULL or valid for reads; no pointer into the mapping may be used
afterwards.

aeron_delete_directory(directory: *const c_char) -> c_int
    let directory = c_str_arg(directory, "directory")?;
    std::fs::remove_dir_all(directory).map_err(|e| Error::io(&e, format_args!("delete {directory}")))?;
    Ok(0)
Deletes the directory `directory` and everything in it. Returns 0, or -1 with the
`errno` (ENOENT if it does not exist; EINVAL for NULL).
# Safety
`directory` must be NULL or NUL-terminated.

aeron_is_directory(path: *const c_char) -> c_int
    let path = c_str_arg(path, "path")?;
    Ok(c_int::from(Path::new(path).is_dir()))
1 if `path` is a directory (following links), else 0 (also for NULL).

aeron_mkdir_recursive(pathname: *const c_char, permission: c_int) -> c_int
    let pathname = c_str_arg(pathname, "pathname")?;
    fileutil::mkdir_recursive(pathname, permission as u32)?;
    Ok(0)
Creates the directory `pathname` and any missing parents, with mode `permission`
(before the umask). Returns 0, or -1: EEXIST if it already exists, the `errno` of a
failed `mkdir`, EINVAL for NULL.
# Safety
`pathname` must be NULL or NUL-terminated.

aeron_map_new_file(
mapped_file: *mut aeron_mapped_file_t, path: *const c_char, fill_with_zeroes: bool) -> c_int
    require_non_null!(mapped_file, "mapped_file");
    let path = c_str_arg(path, "path")?;
    let length = (*mapped_file).length;
    let allocation = if fill_with_zeroes { Allocation::PreTouch } else { Allocation::Sparse };
    let mapped = register(create_new_mapped(Path::new(path), length, allocation)?)?;
    write_out(mapped_file, "mapped_file", mapped)
Creates the file `path` (it must not exist) of `mapped_file->length` bytes and maps it
shared read-write into `mapped_file->addr`: sparse, or with every page written up front
when `fill_with_zeroes`. Returns 0, or -1: EEXIST, the `errno` of a failed create or
map, EINVAL for NULL arguments or a length of 0. Release with `aeron_unmap`.
# Safety
`mapped_file` must be NULL or valid for reads and writes; `path` NULL or NUL-terminated.

aeron_delete_file(path: *const c_char) -> c_int
    let path = c_str_arg(path, "path")?;
    fileutil::remove(path)?;
    Ok(0)
Deletes the file (or empty directory) `path`, as C `remove`. Returns 0, or -1 with the
`errno` (ENOENT if it does not exist; EINVAL for NULL).

aeron_file_length(path: *const c_char) -> i64
    let path = c_str_arg(path, "path")?;
    fileutil::file_length(path)
The length in bytes of the file `path`, or -1 if it cannot be read (also for NULL).

aeron_usable_fs_space(path: *const c_char) -> u64
    let path = c_str_arg(path, "path")?;
    usable_disk_space(Path::new(path))
The bytes an unprivileged user may still write on the file system holding `path`, or 0
if it cannot be read (also for NULL).

aeron_ipc_publication_location(
dst: *mut c_char, length: usize, aeron_dir: *const c_char, correlation_id: i64) -> c_int
    log_location(dst, length, aeron_dir, "publications", correlation_id)
Writes the path of an IPC publication's log, `<aeron_dir>/publications/<id>.logbuffer`,
into `dst` (at most `length` bytes with the NUL, cut like `snprintf`); returns the
path's full length, or -1 (EINVAL) for NULL arguments.
# Safety
`dst` must be valid for writes of `length` bytes; `aeron_dir` NULL or NUL-terminated.

aeron_network_publication_location(
dst: *mut c_char, length: usize, aeron_dir: *const c_char, correlation_id: i64) -> c_int
    log_location(dst, length, aeron_dir, "publications", correlation_id)
As `aeron_ipc_publication_location` for a network publication (same folder).
# Safety
As `aeron_ipc_publication_location`.

aeron_publication_image_location(
dst: *mut c_char, length: usize, aeron_dir: *const c_char, correlation_id: i64) -> c_int
    log_location(dst, length, aeron_dir, "images", correlation_id)
As `aeron_ipc_publication_location` for a publication image:
`<aeron_dir>/images/<id>.logbuffer`.
# Safety
As `aeron_ipc_publication_location`.

aeron_temp_filename(filename: *mut c_char, length: usize) -> usize
    require_non_null!(filename, "filename");
    let path = unused_temp_path("/tmp/aeron-c.XXXXXXX").map_err(|e| Error::io(&e, "mkstemp"))?;
    Ok(write_c_string(path.as_bytes(), filename, length))
Writes a path no file has (`/tmp/aeron-c.XXXXXXX` made unique by `mkstemp`, the file
removed again) into `filename` (at most `length` bytes with the NUL); returns the
length written, 0 on failure.
# Safety
`filename` must be NULL or valid for writes of `length` bytes.

aeron_raw_log_map(
mapped_raw_log: *mut aeron_mapped_raw_log_t, path: *const c_char, use_sparse_files: bool,
term_length: u64, page_size: u64) -> c_int
    require_non_null!(mapped_raw_log, "mapped_raw_log");
    let path = c_str_arg(path, "path")?;
    let too_large = |what: &str, value: u64| Error::invalid_argument(format!("{what} {value} too large"));
    let term_length = usize::try_from(term_length).map_err(|_| too_large("term length", term_length))?;
    let page_size = usize::try_from(page_size).map_err(|_| too_large("page size", page_size))?;
    let allocation = if use_sparse_files { Allocation::Sparse } else { Allocation::PreTouch };
    let log = LogBuffers::create_new(Path::new(path), term_length, page_size, allocation)?;
    let raw = raw_log_views(&log)?;
    write_out(mapped_raw_log, "mapped_raw_log", raw)
Creates the log buffer file `path` (it must not exist) for three terms of
`term_length` and the metadata, its length rounded up to `page_size`, maps it, records
the term length and page size in its metadata and fills in `mapped_raw_log`. Sparse
when `use_sparse_files`, else every page written up front. Returns 0, or -1: EINVAL for
NULL arguments or a term length / page size Aeron does not allow, EEXIST, the `errno`
of a failed create or map. Release with `aeron_raw_log_close` or `aeron_raw_log_free`.
# Safety
`mapped_raw_log` must be NULL or valid for writes; `path` NULL or NUL-terminated.

aeron_raw_log_map_existing(
mapped_raw_log: *mut aeron_mapped_raw_log_t, path: *const c_char, pre_touch: bool) -> c_int
    require_non_null!(mapped_raw_log, "mapped_raw_log");
    let path = c_str_arg(path, "path")?;
    let log = LogBuffers::map_existing(Path::new(path))?;
    if pre_touch {
        log.touch_pages();
    }
    let raw = raw_log_views(&log)?;
    write_out(mapped_raw_log, "mapped_raw_log", raw)
Maps the existing log buffer file `path`, taking its term length and page size from its
metadata (which must be valid and match the file's length), into `mapped_raw_log`.
`pre_touch` faults every page in up front. Returns 0, or -1: EINVAL for NULL arguments or a
malformed log, the `errno` of a failed open or map.
# Safety
`mapped_raw_log` must be NULL or valid for writes; `path` NULL or NUL-terminated.

aeron_raw_log_close(mapped_raw_log: *mut aeron_mapped_raw_log_t, filename: *const c_char) -> c_int
    free_raw_log(mapped_raw_log, filename).map_err(|e| {
        let name = c_str_arg(filename, "filename").unwrap_or("NULL");
        e.context(format_args!("Failed to close raw log, filename: {name}"))
    })?;
    Ok(0)
As `aeron_raw_log_free`, but returns 0, or -1 with the error recorded.
# Safety
As `aeron_raw_log_free`.

aeron_raw_log_free(mapped_raw_log: *mut aeron_mapped_raw_log_t, filename: *const c_char) -> bool
    free_raw_log(mapped_raw_log, filename)?;
    Ok(true)
Unmaps a raw log from `aeron_raw_log_map*` (clearing `mapped_file.addr`) and, with a
`filename`, deletes that file (clearing `mapped_file.length`); a missing or already
empty file counts as deleted. Calling it again is harmless. Returns true, or false on
failure (NULL `mapped_raw_log`, a mapping this library did not make, a failed delete).
# Safety
`mapped_raw_log` must be NULL or valid for reads and writes; `filename` NULL or
NUL-terminated; no pointer into the mapping may be used afterwards.

aeron_file_resolve(
parent: *const c_char, child: *const c_char, buffer: *mut c_char, buffer_len: usize) -> c_int
    let parent = c_str_arg(parent, "parent")?;
    let child = c_str_arg(child, "child")?;
    require_non_null!(buffer, "buffer");
    let path = format!("{parent}/{child}");
    let length = snprintf_c_string(path.as_bytes(), buffer, buffer_len, "buffer")?;
    if path.len() >= buffer_len {
        return Err(Error::invalid_argument(format!(
            "Path name was truncated, required: {length}, supplied: {buffer_len}, result: {path}"
        )));
    }
    Ok(length)
Writes `<parent>/<child>` into `buffer` (at most `buffer_len` bytes with the NUL).
Returns its length, or -1: EINVAL for NULL arguments or a path that does not fit (the
buffer then holds it cut short).
# Safety
`parent` and `child` must be NULL or NUL-terminated; `buffer` NULL or valid for writes
of `buffer_len` bytes.
"#;
