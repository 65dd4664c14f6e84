//! The `aeronrs_mapped_bus_*` exports driven from Rust: NULL and bad arguments give -1 with
//! the thread's error set, a round trip works, and records come back through the C structs.

use std::ffi::{CStr, CString};
use std::ptr;

use aeronrs::ffi::error::{aeron_errcode, aeron_errmsg};
use aeronrs::ffi::extras::mapped_bus::*;

fn errmsg() -> String {
    // SAFETY: aeron_errmsg never returns NULL and the text lives until the next error.
    unsafe { CStr::from_ptr(aeron_errmsg()) }.to_string_lossy().into_owned()
}

fn fixed_config() -> aeronrs_mapped_bus_config_t {
    let mut config = aeronrs_mapped_bus_config_t {
        segment_length: 0,
        record_mode: -1,
        record_size: 0,
        rollback_timeout_ns: 0,
        prefault: false,
    };
    // SAFETY: a valid, writable config.
    assert_eq!(unsafe { aeronrs_mapped_bus_config_init(&mut config) }, 0);
    config.record_mode = AERONRS_MAPPED_BUS_RECORD_MODE_FIXED_SIZE;
    config.segment_length = 4096;
    config.record_size = 16;
    config
}

#[test]
fn null_and_bad_arguments_fail_with_the_error_set() {
    let config = fixed_config();
    let path = CString::new("/nonexistent-dir/bus").unwrap();
    let mut writer: *mut aeronrs_mapped_bus_writer_t = ptr::null_mut();
    let mut reader: *mut aeronrs_mapped_bus_reader_t = ptr::null_mut();
    // SAFETY: every pointer is NULL or valid; the calls must reject the NULLs.
    unsafe {
        assert_eq!(aeronrs_mapped_bus_config_init(ptr::null_mut()), -1);
        assert_eq!(aeron_errcode(), libc::EINVAL);
        assert!(errmsg().contains("config must not be NULL"), "{}", errmsg());
        assert_eq!(aeronrs_mapped_bus_writer_open(ptr::null_mut(), path.as_ptr(), &config), -1);
        assert!(errmsg().contains("writer must not be NULL"));
        assert_eq!(aeronrs_mapped_bus_writer_open(&mut writer, ptr::null(), &config), -1);
        assert_eq!(aeronrs_mapped_bus_writer_open(&mut writer, path.as_ptr(), ptr::null()), -1);
        assert_eq!(aeronrs_mapped_bus_writer_open(&mut writer, path.as_ptr(), &config), -1);
        assert_eq!(aeron_errcode(), libc::ENOENT);
        assert!(writer.is_null());
        let mut negative = config;
        negative.rollback_timeout_ns = -1;
        assert_eq!(aeronrs_mapped_bus_reader_open(&mut reader, path.as_ptr(), &negative, 0, ptr::null()), -1);
        assert!(errmsg().contains("rollback_timeout_ns -1 is negative"), "{}", errmsg());
        assert_eq!(aeronrs_mapped_bus_writer_write(ptr::null_mut(), ptr::null(), 0, ptr::null_mut()), -1);
        assert!(errmsg().contains("writer must not be NULL"));
        assert_eq!(aeronrs_mapped_bus_writer_flush(ptr::null_mut()), -1);
        assert_eq!(aeronrs_mapped_bus_reader_poll(ptr::null_mut(), ptr::null_mut()), -1);
        assert_eq!(aeronrs_mapped_bus_reader_position(ptr::null_mut(), ptr::null_mut()), -1);
        assert!(!aeronrs_mapped_bus_reader_has_recovered(ptr::null_mut()));
        assert_eq!(aeronrs_mapped_bus_writer_close(ptr::null_mut()), 0);
        assert_eq!(aeronrs_mapped_bus_reader_close(ptr::null_mut()), 0);
    }
}

#[test]
fn round_trip_through_the_c_structs() {
    let dir = tempfile::tempdir().unwrap();
    let path = CString::new(dir.path().join("bus").to_str().unwrap()).unwrap();
    let config = fixed_config();
    let mut writer: *mut aeronrs_mapped_bus_writer_t = ptr::null_mut();
    let mut reader: *mut aeronrs_mapped_bus_reader_t = ptr::null_mut();
    let mut position = aeronrs_mapped_bus_position_t::default();
    // SAFETY: handles come from the open calls and are closed once; buffers outlive calls.
    unsafe {
        assert_eq!(aeronrs_mapped_bus_writer_open(&mut writer, path.as_ptr(), &config), 0);
        assert_eq!(
            aeronrs_mapped_bus_reader_open(
                &mut reader,
                path.as_ptr(),
                &config,
                AERONRS_MAPPED_BUS_START_LIVE,
                ptr::null()
            ),
            0
        );
        let body = [5u8; 16];
        assert_eq!(aeronrs_mapped_bus_writer_write_typed(writer, 77, body.as_ptr(), 16, &mut position), 0);
        assert_eq!((position.segment, position.offset), (0, 8));
        assert_eq!(aeronrs_mapped_bus_writer_write(writer, b"abc".as_ptr(), 3, ptr::null_mut()), 0);
        assert_eq!(aeronrs_mapped_bus_writer_write(writer, ptr::null(), 3, ptr::null_mut()), -1);
        assert!(errmsg().contains("payload must not be NULL when its length is 3"), "{}", errmsg());
        assert_eq!(aeronrs_mapped_bus_writer_flush(writer), 0);

        let mut record = std::mem::zeroed::<aeronrs_mapped_bus_record_t>();
        assert_eq!(aeronrs_mapped_bus_reader_poll(reader, ptr::null_mut()), -1);
        assert_eq!(aeronrs_mapped_bus_reader_poll(reader, &mut record), 1);
        assert_eq!((record.metadata, record.body_length), (77, 16));
        assert_eq!(std::slice::from_raw_parts(record.body, record.body_length), &body);
        assert_eq!(aeronrs_mapped_bus_reader_poll(reader, &mut record), 1);
        assert_eq!((record.position.offset, record.metadata), (32, 3));
        assert_eq!(std::slice::from_raw_parts(record.body, 3), b"abc");
        assert_eq!(aeronrs_mapped_bus_reader_poll(reader, &mut record), 0);
        assert!(aeronrs_mapped_bus_reader_has_recovered(reader));
        assert_eq!(aeronrs_mapped_bus_reader_position(reader, &mut position), 0);
        assert_eq!(position.offset, 56);

        let start = aeronrs_mapped_bus_position_t { segment: 0, offset: 32 };
        let mut from_saved: *mut aeronrs_mapped_bus_reader_t = ptr::null_mut();
        assert_eq!(
            aeronrs_mapped_bus_reader_open(
                &mut from_saved,
                path.as_ptr(),
                &config,
                AERONRS_MAPPED_BUS_START_AT_POSITION,
                &start
            ),
            0
        );
        assert_eq!(aeronrs_mapped_bus_reader_poll(from_saved, &mut record), 1);
        assert_eq!(record.position.offset, 32);
        assert!(!aeronrs_mapped_bus_reader_has_recovered(ptr::null_mut()));

        assert_eq!(aeronrs_mapped_bus_reader_close(from_saved), 0);
        assert_eq!(aeronrs_mapped_bus_reader_close(reader), 0);
        assert_eq!(aeronrs_mapped_bus_writer_close(writer), 0);
    }
}
