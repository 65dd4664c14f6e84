//! The ring buffer (all but the producing and consuming fast paths) exports of `aeronrs.h`, for
//! `src/ffi/extras/ring_buffer.rs` to include and cbindgen to read.

use super::export_table;

/// The contract of the rows without a `# Safety` of their own.
const SAFETY: &str = "`rb` must be NULL or an open handle.";

pub fn generate() -> String {
    export_table::generate("build/ring_buffer_exports.rs", TABLE, SAFETY)
}

const TABLE: &str = r#"
aeronrs_ring_buffer_create(
rb: *mut *mut aeronrs_ring_buffer_t, kind: aeronrs_ring_buffer_kind_t, path: *const c_char,
capacity: usize) -> c_int
    require_non_null!(rb, "rb");
    let path = Path::new(c_str_arg(path, "path")?);
    let handle = of_kind!(kind, R => R::create_mapped(path, capacity));
    write_out(rb, "rb", handles::into_raw(handle))
Creates (or truncates) the file `path` with `capacity + AERONRS_RING_BUFFER_TRAILER_LENGTH`
zero bytes, maps it shared and stores a new handle in `*rb`. `capacity` must be a power
of two (at least 16 one-to-one, 8 many-to-one). Returns 0, or -1 on error.
# Safety
`rb` must be valid for a pointer write; `path` a NUL-terminated string.

aeronrs_ring_buffer_open(
rb: *mut *mut aeronrs_ring_buffer_t, kind: aeronrs_ring_buffer_kind_t, path: *const c_char) -> c_int
    require_non_null!(rb, "rb");
    let path = Path::new(c_str_arg(path, "path")?);
    let handle = of_kind!(kind, R => R::open_mapped(path));
    write_out(rb, "rb", handles::into_raw(handle))
Maps the existing ring buffer file `path` shared (its length gives the capacity) and
stores a new handle in `*rb`. Returns 0, or -1 on error (missing file, bad length).
# Safety
`rb` must be valid for a pointer write; `path` a NUL-terminated string.

aeronrs_ring_buffer_wrap(
rb: *mut *mut aeronrs_ring_buffer_t, kind: aeronrs_ring_buffer_kind_t, memory: *mut c_void,
length: usize) -> c_int
    require_non_null!(rb, "rb");
    require_non_null!(memory, "memory");
    let buffer = AtomicBuffer::from_raw(memory.cast::<u8>(), length)?;
    let handle = of_kind!(kind, R => R::new(buffer));
    write_out(rb, "rb", handles::into_raw(handle))
Uses caller memory (`length` = capacity + trailer, 8-byte aligned) as a ring buffer and
stores a new handle in `*rb`. The memory is used as it is: zero it for a fresh buffer.
It stays owned by the caller and must outlive the handle. Returns 0, or -1 on error.
# Safety
`rb` must be valid for a pointer write; `memory` valid for reads and writes of `length`
bytes until `aeronrs_ring_buffer_close`, and touched by others only through ring buffer
operations.

aeronrs_ring_buffer_close(rb: *mut aeronrs_ring_buffer_t) -> c_int
    drop(handles::reclaim(rb));
    Ok(0)
Frees the handle (unmapping a file it mapped; caller memory is left alone). NULL is
accepted. Returns 0.
# Safety
`rb` must be NULL or an open handle, not used by any thread afterwards.

aeronrs_ring_buffer_producer_position(rb: *mut aeronrs_ring_buffer_t) -> i64
    Ok(with_ring!(handle(rb)?, r => r.producer_position()))
Bytes ever claimed by producers (tail position), or -1 if `rb` is NULL.

aeronrs_ring_buffer_consumer_position(rb: *mut aeronrs_ring_buffer_t) -> i64
    Ok(with_ring!(handle(rb)?, r => r.consumer_position()))
Bytes ever consumed (head position), or -1 if `rb` is NULL.

aeronrs_ring_buffer_size(rb: *mut aeronrs_ring_buffer_t) -> i64
    Ok(with_ring!(handle(rb)?, r => r.size()) as i64)
Bytes claimed but not yet consumed, or -1 if `rb` is NULL.

aeronrs_ring_buffer_capacity(rb: *mut aeronrs_ring_buffer_t) -> i64
    Ok(with_ring!(handle(rb)?, r => r.capacity()) as i64)
Data capacity in bytes, or -1 if `rb` is NULL.

aeronrs_ring_buffer_max_msg_length(rb: *mut aeronrs_ring_buffer_t) -> i64
    Ok(with_ring!(handle(rb)?, r => r.max_msg_length()) as i64)
Largest message payload accepted, or -1 if `rb` is NULL.

aeronrs_ring_buffer_next_correlation_id(rb: *mut aeronrs_ring_buffer_t) -> i64
    Ok(with_ring!(handle(rb)?, r => r.next_correlation_id()))
Takes the next id from the buffer's correlation counter (shared by every process using
the buffer), or -1 if `rb` is NULL.

aeronrs_ring_buffer_consumer_heartbeat_time(rb: *mut aeronrs_ring_buffer_t, time_ms: *mut i64) -> c_int
    let handle = handle(rb)?;
    write_out(time_ms, "time_ms", with_ring!(handle, r => r.consumer_heartbeat_time()))
Stores the consumer's last heartbeat (epoch ms; 0 = never, -1 = closed cleanly by an
Aeron driver) in `*time_ms`. Returns 0, or -1 on error.
# Safety
`rb` an open handle; `time_ms` valid for a write.

aeronrs_ring_buffer_set_consumer_heartbeat_time(rb: *mut aeronrs_ring_buffer_t, time_ms: i64) -> c_int
    with_ring!(handle(rb)?, r => r.set_consumer_heartbeat_time(time_ms));
    Ok(0)
Records a consumer heartbeat (epoch ms); consumer thread only. Returns 0, or -1 on error.

aeronrs_ring_buffer_unblock(rb: *mut aeronrs_ring_buffer_t) -> c_int
    Ok(c_int::from(with_ring!(handle(rb)?, r => r.unblock())))
Consumer thread only: frees the head of a many-to-one buffer from a producer that died
between claim and commit (call only after the head has not moved for longer than any
live producer could take; Aeron's driver waits 10 s). Returns 1 when something was
unblocked, 0 when not (always 0 for one-to-one), -1 on error.
"#;
