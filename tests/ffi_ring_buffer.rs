//! `aeronrs_ring_buffer_*` driven from Rust: error messages name the failing function,
//! a read from inside a read handler is refused, clientd passes through untouched.
use std::ffi::{CStr, CString, c_void};
use std::ptr;

use aeronrs::ffi::error::{aeron_errcode, aeron_errmsg};
use aeronrs::ffi::extras::ring_buffer::*;

fn errmsg() -> String {
    // SAFETY: aeron_errmsg never returns NULL; the text lives until the next error.
    unsafe { CStr::from_ptr(aeron_errmsg()) }.to_string_lossy().into_owned()
}

struct Reentrant {
    rb: *mut aeronrs_ring_buffer_t,
    inner_rc: i32,
    calls: u32,
}

unsafe extern "C" fn read_again(clientd: *mut c_void, _msg_type_id: i32, _buffer: *const u8, _length: usize) {
    // SAFETY: clientd is the &mut Reentrant passed to the outer read, alive for the call.
    let state = unsafe { &mut *clientd.cast::<Reentrant>() };
    state.calls += 1;
    // SAFETY: state.rb is an open handle.
    state.inner_rc = unsafe { aeronrs_ring_buffer_read(state.rb, Some(read_again), clientd, 1) };
}

#[test]
fn read_from_inside_a_handler_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = CString::new(dir.path().join("rb").to_str().unwrap()).unwrap();
    let mut rb = ptr::null_mut();
    let kind = aeronrs_ring_buffer_kind_t(AERONRS_RING_BUFFER_MANY_TO_ONE);
    // SAFETY: valid out-pointer and NUL-terminated path.
    let rc = unsafe { aeronrs_ring_buffer_create(&mut rb, kind, path.as_ptr(), 1024) };
    assert_eq!(rc, 0);
    // SAFETY: rb is open; msg valid for 3 bytes.
    assert_eq!(unsafe { aeronrs_ring_buffer_write(rb, 1, b"abc".as_ptr().cast(), 3) }, 1);
    let mut state = Reentrant { rb, inner_rc: 0, calls: 0 };
    let clientd = ptr::from_mut(&mut state).cast::<c_void>();
    // SAFETY: rb is open; read_again is callable with clientd.
    assert_eq!(unsafe { aeronrs_ring_buffer_read(rb, Some(read_again), clientd, 10) }, 1);
    assert_eq!((state.calls, state.inner_rc), (1, -1));
    assert_eq!(aeron_errcode(), libc::EPERM);
    let msg = errmsg();
    assert!(msg.contains("aeronrs_ring_buffer_read") && msg.contains("inside a read handler"), "{msg}");
    // SAFETY: rb is open and closed once.
    assert_eq!(unsafe { aeronrs_ring_buffer_close(rb) }, 0);
}

#[test]
fn errors_name_the_function_and_argument() {
    let mut rb = ptr::null_mut();
    let kind = aeronrs_ring_buffer_kind_t(AERONRS_RING_BUFFER_ONE_TO_ONE);
    // SAFETY: NULL path is rejected before use.
    let rc = unsafe { aeronrs_ring_buffer_create(&mut rb, kind, ptr::null(), 64) };
    assert_eq!(rc, -1);
    assert_eq!(aeron_errcode(), libc::EINVAL);
    assert_eq!(errmsg(), format!("({}) aeronrs_ring_buffer_create: path must not be NULL", libc::EINVAL));
    // SAFETY: NULL handle is rejected.
    assert_eq!(unsafe { aeronrs_ring_buffer_size(ptr::null_mut()) }, -1);
    assert_eq!(errmsg(), format!("({}) aeronrs_ring_buffer_size: rb must not be NULL", libc::EINVAL));
    assert!(rb.is_null());
}
