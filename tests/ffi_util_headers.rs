//! The functions of Aeron's utility headers (`aeron_alloc.h`, `util/`, `concurrent/`,
//! `aeron_cnc_file_descriptor.h`) driven from Rust through their NULL and error paths:
//! each fails as Aeron's convention says (-1 / NULL / false / 0 with `aeron_errcode()`,
//! or the negative errno `aeron_tokenise` returns) instead of crashing, and the main path
//! leaves the C structs as Aeron's callers read them. c-tests/test_util_headers.c drives
//! the same functions from C.
use std::ffi::{CStr, CString, c_char, c_void};
use std::ptr;

use aeronrs::ffi::error::{aeron_err_clear, aeron_errcode, aeron_errmsg, aeron_error_code_str};
use aeronrs::ffi::extras::error::{aeronrs_err_append, aeronrs_err_set};
use aeronrs::ffi::util::alloc::*;
use aeronrs::ffi::util::clock::aeron_clock_gettime_realtime;
use aeronrs::ffi::util::cnc_descriptor::*;
use aeronrs::ffi::util::error_log::*;
use aeronrs::ffi::util::fileutil::*;
use aeronrs::ffi::util::parse::*;
use aeronrs::ffi::util::strutil::{aeron_format_to_hex, aeron_tokenise};
use aeronrs::ffi::util::thread::{aeron_thread_set_affinity, aeron_thread_set_name};

fn errmsg() -> String {
    // SAFETY: aeron_errmsg never returns NULL; the text lives until the next error.
    unsafe { CStr::from_ptr(aeron_errmsg()) }.to_string_lossy().into_owned()
}

fn c(text: &str) -> CString {
    CString::new(text).unwrap()
}

#[test]
fn allocation_null_and_bad_arguments() {
    // SAFETY: NULL out-pointers are allowed and rejected.
    assert_eq!(unsafe { aeron_alloc_no_err(ptr::null_mut(), 8) }, -1);
    let mut p = ptr::null_mut();
    let mut offset = 0usize;
    // SAFETY: valid out-pointers.
    assert_eq!(unsafe { aeron_alloc_aligned(&mut p, &mut offset, 64, 3) }, -1);
    assert_eq!(aeron_errcode(), libc::EINVAL);
    // SAFETY: NULL offset is rejected.
    assert_eq!(unsafe { aeron_alloc_aligned(&mut p, ptr::null_mut(), 64, 64) }, -1);
    // SAFETY: valid out-pointers; 2 is a power of two below the pointer size.
    assert_eq!(unsafe { aeron_alloc_aligned(&mut p, &mut offset, 64, 2) }, 0);
    assert_eq!(p as usize % 2, 0);
    // SAFETY: p is a live C allocation; reallocf takes it over.
    assert_eq!(unsafe { aeron_reallocf(&mut p, 0) }, 0, "size 0 frees");
    // SAFETY: NULL is rejected.
    assert_eq!(unsafe { aeron_reallocf(ptr::null_mut(), 8) }, -1);
    let mut q: *mut c_void = ptr::null_mut();
    // SAFETY: NULL *ptr is a fresh allocation.
    assert_eq!(unsafe { aeron_reallocf(&mut q, 16) }, 0);
    assert!(!q.is_null());
    // SAFETY: q is a live C allocation.
    unsafe { aeron_free(q) };
}

#[test]
fn errors_set_append_and_describe() {
    // SAFETY: NUL-terminated literals.
    unsafe { aeronrs_err_set(libc::ENOENT, c"open".as_ptr(), c"f.c".as_ptr(), 3, c"no cnc.dat".as_ptr()) };
    // SAFETY: as above.
    unsafe { aeronrs_err_append(c"main".as_ptr(), c"m.c".as_ptr(), 9, c"giving up".as_ptr()) };
    assert_eq!(aeron_errcode(), libc::ENOENT);
    assert_eq!(
        errmsg(),
        "(2) No such file or directory\n[open, f.c:3] no cnc.dat\n[main, m.c:9] giving up\n"
    );
    aeron_err_clear();
    assert_eq!((aeron_errcode(), errmsg().as_str()), (0, ""));
    // SAFETY: a static string.
    assert_eq!(unsafe { CStr::from_ptr(aeron_error_code_str(13)) }, c"image rejected");
}

#[test]
fn strings_and_parsing_null_paths() {
    let mut hex = [0 as c_char; 8];
    // SAFETY: NULL destination is rejected.
    unsafe { aeron_format_to_hex(ptr::null_mut(), 8, b"ab".as_ptr(), 2) };
    assert_eq!(aeron_errcode(), libc::EINVAL);
    // SAFETY: hex holds 8 bytes; NULL data with length 0 is empty.
    unsafe { aeron_format_to_hex(hex.as_mut_ptr(), hex.len(), ptr::null(), 0) };
    assert_eq!(hex[0], 0);
    let mut tokens = [ptr::null_mut::<c_char>(); 2];
    let mut input = *b"x y\0";
    assert_eq!(
        // SAFETY: input is a writable C string; tokens holds 2 pointers.
        unsafe { aeron_tokenise(input.as_mut_ptr().cast(), b' ' as c_char, 2, tokens.as_mut_ptr()) },
        2
    );
    let mut empty = *b"\0";
    assert_eq!(
        // SAFETY: as above.
        unsafe { aeron_tokenise(empty.as_mut_ptr().cast(), b' ' as c_char, 2, tokens.as_mut_ptr()) },
        0
    );
    let mut more = *b"a b\0";
    assert_eq!(
        // SAFETY: NULL tokens with tokens to store is refused.
        unsafe { aeron_tokenise(more.as_mut_ptr().cast(), b' ' as c_char, 2, ptr::null_mut()) },
        -libc::EINVAL
    );

    // SAFETY: NULL output struct is rejected.
    assert_eq!(unsafe { aeron_address_split(c"a:1".as_ptr(), ptr::null_mut()) }, -1);
    let mut address = std::mem::MaybeUninit::<aeron_parsed_address_t>::uninit();
    // SAFETY: NULL text is "no address value".
    assert_eq!(unsafe { aeron_address_split(ptr::null(), address.as_mut_ptr()) }, -1);
    assert!(errmsg().contains("no address value"), "{}", errmsg());
    // SAFETY: a valid out struct.
    assert_eq!(unsafe { aeron_address_split(c"[::1]:40123".as_ptr(), address.as_mut_ptr()) }, 0);
    // SAFETY: initialised by the successful split.
    let address = unsafe { address.assume_init() };
    // SAFETY: the split writes NUL-terminated fields.
    assert_eq!(unsafe { CStr::from_ptr(address.host.as_ptr()) }, c"::1");
    assert_eq!(address.ip_version_hint, 6);
    // SAFETY: NULL interface struct is rejected.
    assert_eq!(unsafe { aeron_interface_split(c"eth0".as_ptr(), ptr::null_mut()) }, -1);

    let mut line = [0 as c_char; 8];
    // SAFETY: NULL buffer is rejected.
    assert_eq!(unsafe { aeron_parse_get_line(line.as_mut_ptr(), 8, ptr::null()) }, -1);
    // SAFETY: a zero-length line buffer cannot hold a line.
    assert_eq!(unsafe { aeron_parse_get_line(line.as_mut_ptr(), 0, c"a\n".as_ptr()) }, -1);
    // SAFETY: NULL str gives the default without a warning.
    assert_eq!(unsafe { aeron_config_parse_int32(ptr::null(), ptr::null(), 5, 0, 9) }, 5);
    // SAFETY: NULL name is printed as (null).
    assert_eq!(unsafe { aeron_config_parse_uint64(ptr::null(), c"x".as_ptr(), 5, 0, 9) }, 5);
    // SAFETY: NUL-terminated literals.
    assert_eq!(unsafe { aeron_config_parse_uint32(c"X".as_ptr(), c"-1".as_ptr(), 5, 0, u32::MAX) }, 0);
}

#[test]
fn threads_named_and_pinned_only_where_allowed() {
    std::thread::spawn(|| {
        // SAFETY: NULL is a no-op; the literal is NUL-terminated.
        unsafe { aeron_thread_set_name(ptr::null()) };
        // SAFETY: as above.
        unsafe { aeron_thread_set_name(c"ffi-name".as_ptr()) };
        assert_eq!(std::fs::read_to_string("/proc/thread-self/comm").unwrap().trim_end(), "ffi-name");
        // SAFETY: NULL role name is allowed.
        assert_eq!(unsafe { aeron_thread_set_affinity(ptr::null(), 255) }, -1);
        assert!(errmsg().contains("role_name=NULL"), "{}", errmsg());
    })
    .join()
    .unwrap();
    // SAFETY: NULL is rejected.
    assert_eq!(unsafe { aeron_clock_gettime_realtime(ptr::null_mut()) }, -1);
}

unsafe extern "C" fn fixed_clock() -> i64 {
    77
}

#[test]
fn distinct_error_log_through_the_c_struct() {
    let mut storage = vec![0u64; 64];
    let buffer = storage.as_mut_ptr().cast::<u8>();
    let mut log = std::mem::MaybeUninit::<aeron_distinct_error_log_t>::uninit();
    // SAFETY: NULL log and NULL clock are rejected.
    assert_eq!(unsafe { aeron_distinct_error_log_init(ptr::null_mut(), buffer, 512, Some(fixed_clock)) }, -1);
    // SAFETY: as above.
    assert_eq!(unsafe { aeron_distinct_error_log_init(log.as_mut_ptr(), buffer, 512, None) }, -1);
    assert_eq!(
        // SAFETY: a misaligned buffer is rejected before anything is written.
        unsafe { aeron_distinct_error_log_init(log.as_mut_ptr(), buffer.add(4), 508, Some(fixed_clock)) },
        -1
    );
    // SAFETY: writable struct, buffer of 512 bytes alive for the test.
    assert_eq!(unsafe { aeron_distinct_error_log_init(log.as_mut_ptr(), buffer, 512, Some(fixed_clock)) }, 0);
    let log = log.as_mut_ptr();
    // SAFETY: initialised log; NUL-terminated texts.
    assert_eq!(unsafe { aeron_distinct_error_log_record(log, 3, c"abc".as_ptr()) }, 0);
    // SAFETY: as above; a longer text starting with a recorded one is the same error.
    assert_eq!(unsafe { aeron_distinct_error_log_record(log, 3, c"abcdef".as_ptr()) }, 0);
    // SAFETY: NULL description is rejected.
    assert_eq!(unsafe { aeron_distinct_error_log_record(log, 3, ptr::null()) }, -1);
    // SAFETY: initialised log.
    assert_eq!(unsafe { aeron_distinct_error_log_num_observations(log) }, 1);
    assert_eq!(storage[0] & 0xffff_ffff, 24 + 3, "record length");
    assert_eq!(storage[0] >> 32, 2, "observation count");
    assert_eq!((storage[1], storage[2]), (77, 77), "last and first observation");
    // SAFETY: NULL is rejected; the buffer holds 512 readable bytes.
    assert!(unsafe { !aeron_error_log_exists(ptr::null(), 512) });
    // SAFETY: as above.
    assert!(unsafe { aeron_error_log_exists(buffer, 512) });
    // SAFETY: a live log closed once; NULL is a no-op.
    unsafe { aeron_distinct_error_log_close(log) };
    // SAFETY: as above.
    unsafe { aeron_distinct_error_log_close(ptr::null_mut()) };
    // SAFETY: NULL is rejected.
    assert_eq!(unsafe { aeron_distinct_error_log_num_observations(ptr::null_mut()) }, 0);
}

#[test]
fn files_and_raw_logs_null_and_error_paths() {
    let dir = tempfile::tempdir().unwrap();
    let base = c(dir.path().to_str().unwrap());
    // SAFETY: NULL paths are rejected or reported as absent.
    unsafe {
        assert_eq!(aeron_is_directory(ptr::null()), -1);
        assert_eq!(aeron_file_length(ptr::null()), -1);
        assert_eq!(aeron_usable_fs_space(ptr::null()), 0);
        assert_eq!(aeron_mkdir_recursive(ptr::null(), 0o700), -1);
        assert_eq!(aeron_delete_file(ptr::null()), -1);
        assert_eq!(aeron_map_new_file(ptr::null_mut(), base.as_ptr(), false), -1);
        assert_eq!(aeron_raw_log_map(ptr::null_mut(), base.as_ptr(), true, 65536, 4096), -1);
        assert_eq!(aeron_raw_log_map_existing(ptr::null_mut(), base.as_ptr(), false), -1);
        assert!(!aeron_raw_log_free(ptr::null_mut(), ptr::null()));
        assert_eq!(aeron_raw_log_close(ptr::null_mut(), ptr::null()), -1);
        assert_eq!(aeron_temp_filename(ptr::null_mut(), 10), 0);
        assert_eq!(aeron_file_resolve(ptr::null(), c"x".as_ptr(), ptr::null_mut(), 0), -1);
        assert_eq!(
            aeron_ipc_publication_location(ptr::null_mut(), 0, base.as_ptr(), 1),
            (dir.path().to_str().unwrap().len() + "/publications/1.logbuffer".len()) as i32,
            "length 0: nothing written, the full length returned as snprintf does"
        );
    }
    assert_eq!(aeron_msync(ptr::null_mut(), 4096), 0, "NULL is a no-op");
    let mut mapped = aeron_mapped_file_t { addr: ptr::null_mut(), length: 0 };
    let file = c(dir.path().join("zero").to_str().unwrap());
    // SAFETY: a valid struct and path; a length of 0 cannot be mapped.
    assert_eq!(unsafe { aeron_map_new_file(&mut mapped, file.as_ptr(), false) }, -1);
    assert_eq!(aeron_errcode(), libc::EINVAL);
    let mut foreign = aeron_mapped_file_t { addr: storage_address(), length: 64 };
    // SAFETY: a valid struct; its address was not mapped here.
    assert_eq!(unsafe { aeron_unmap(&mut foreign) }, -1);
    assert!(errmsg().contains("was not mapped by this library"), "{}", errmsg());

    let log_path = c(dir.path().join("2.logbuffer").to_str().unwrap());
    std::fs::write(dir.path().join("2.logbuffer"), vec![0u8; 8192]).unwrap();
    let mut raw = std::mem::MaybeUninit::<aeron_mapped_raw_log_t>::uninit();
    // SAFETY: a writable struct and a NUL-terminated path to a file too short for a log.
    assert_eq!(unsafe { aeron_raw_log_map_existing(raw.as_mut_ptr(), log_path.as_ptr(), true) }, -1);
    assert!(errmsg().contains("less than min length"), "{}", errmsg());
}

fn storage_address() -> *mut c_void {
    static WORDS: [u64; 8] = [0; 8];
    WORDS.as_ptr().cast_mut().cast()
}

#[test]
fn cnc_loading_null_paths() {
    let mut mapped = aeron_mapped_file_t { addr: ptr::null_mut(), length: 0 };
    let mut metadata = ptr::null_mut();
    // SAFETY: NULL arguments are rejected.
    unsafe {
        assert_eq!(
            aeron_cnc_map_file_and_load_metadata(c"/tmp".as_ptr(), &mut mapped, ptr::null_mut()),
            aeron_cnc_load_result_t::AERON_CNC_LOAD_FAILED
        );
        assert_eq!(
            aeron_cnc_map_file_and_load_metadata(ptr::null(), &mut mapped, &mut metadata),
            aeron_cnc_load_result_t::AERON_CNC_LOAD_FAILED
        );
        assert_eq!(aeron_cnc_version_volatile(ptr::null_mut()), -1);
        assert_eq!(aeron_cnc_resolve_filename(ptr::null(), ptr::null_mut(), 0), -1);
    }
    let dir = tempfile::tempdir().unwrap();
    let missing = c(dir.path().join("none").to_str().unwrap());
    // SAFETY: valid out-pointers and a NUL-terminated path.
    let result =
        unsafe { aeron_cnc_map_file_and_load_metadata(missing.as_ptr(), &mut mapped, &mut metadata) };
    assert_eq!(result, aeron_cnc_load_result_t::AERON_CNC_LOAD_AWAIT_FILE);
    let mut name = [0 as c_char; 8];
    // SAFETY: name holds 8 bytes; the path does not fit.
    assert_eq!(unsafe { aeron_cnc_resolve_filename(missing.as_ptr(), name.as_mut_ptr(), name.len()) }, -1);
    assert_eq!(aeron_errcode(), libc::EINVAL);
}
