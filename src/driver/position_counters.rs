//! The driver's per-stream and per-client counters (`spec/counters.md` §5-7): keys, labels
//! and the `Position` handle the conductor reads and writes them through.
#![forbid(unsafe_code)]

use crate::concurrent::AtomicBuffer;
use crate::concurrent::counters::CountersManager;
use crate::concurrent::counters::descriptor::{COUNTER_LENGTH, MAX_KEY_LENGTH, MAX_LABEL_LENGTH};
use crate::concurrent::counters::type_ids::{
    CLIENT_HEARTBEAT_TIMESTAMP_NAME, CLIENT_HEARTBEAT_TIMESTAMP_TYPE_ID,
    FLOW_CONTROL_RECEIVERS_COUNTER_TYPE_ID, FLOW_CONTROL_RECEIVERS_NAME, LOCAL_SOCKADDR_TYPE_ID,
    SUBSCRIBER_POSITION_NAME, SUBSCRIBER_POSITION_TYPE_ID,
};
use crate::util::error::Result;

/// Channel bytes that fit in a stream key after registration id, session, stream and length.
pub const STREAM_KEY_MAX_CHANNEL_LENGTH: usize = MAX_KEY_LENGTH - 20;

/// One counter's value slot: the driver's handle on a position or timestamp it publishes
/// or watches. Cloning shares the same slot.
#[derive(Debug, Clone)]
pub struct Position {
    values: AtomicBuffer,
    counter_id: i32,
    offset: usize,
}

impl Position {
    /// The value of `counter_id` in `values` (the counters values buffer). Ids come from the
    /// counters manager, which only hands out ids inside the buffer.
    pub fn new(values: &AtomicBuffer, counter_id: i32) -> Self {
        Self { values: values.clone(), counter_id, offset: counter_id as usize * COUNTER_LENGTH }
    }

    #[inline]
    pub fn counter_id(&self) -> i32 {
        self.counter_id
    }

    /// Acquire: pairs with the release store of whoever owns the value (a subscriber's
    /// position, a client's heartbeat), so what they did before it is visible.
    #[inline]
    pub fn get_acquire(&self) -> i64 {
        self.values.get_i64_acquire(self.offset)
    }

    /// Relaxed read of a value only this thread writes.
    #[inline]
    pub fn get(&self) -> i64 {
        self.values.get_i64(self.offset)
    }

    /// Release: readers that see the value also see the log state it describes (e.g. a
    /// publisher seeing a raised limit also sees the cleaned space behind it).
    #[inline]
    pub fn set_release(&self, value: i64) {
        self.values.put_i64_release(self.offset, value);
    }

    /// Atomic add, for statistics several agents may bump.
    #[inline]
    pub fn add(&self, delta: i64) {
        self.values.get_and_add_i64_release(self.offset, delta);
    }
}

/// The 112-byte stream key (types 1, 2, 3, 4, 5, 9, 10, 12, 13, 17): registration id,
/// session id, stream id, channel length, channel (first 92 bytes), zero padded. Aeron's C
/// driver copies the whole fixed-size key, so the padding is part of it.
pub fn stream_key(
    registration_id: i64,
    session_id: i32,
    stream_id: i32,
    channel: &str,
) -> [u8; MAX_KEY_LENGTH] {
    let mut key = [0u8; MAX_KEY_LENGTH];
    let channel = channel.as_bytes();
    let length = channel.len().min(STREAM_KEY_MAX_CHANNEL_LENGTH);
    key[0..8].copy_from_slice(&registration_id.to_le_bytes());
    key[8..12].copy_from_slice(&session_id.to_le_bytes());
    key[12..16].copy_from_slice(&stream_id.to_le_bytes());
    key[16..20].copy_from_slice(&(length as i32).to_le_bytes());
    key[20..20 + length].copy_from_slice(&channel[..length]);
    key
}

/// `"<name>: <registration id> <session id> <stream id> <channel>"` cut to 380 bytes, plus
/// `" <suffix>"` if any and the label is shorter than 360 bytes. Java's form (no trailing space when there is no suffix), so
/// AeronStat shows what it shows with Java's driver.
pub fn stream_label(
    name: &str,
    registration_id: i64,
    session_id: i32,
    stream_id: i32,
    channel: &str,
    suffix: Option<&str>,
) -> String {
    let mut label = truncate_label(format!("{name}: {registration_id} {session_id} {stream_id} {channel}"));
    // Java appends the suffix only when it surely fits.
    if let Some(suffix) = suffix {
        if label.len() < MAX_LABEL_LENGTH - 20 {
            label.push(' ');
            label.push_str(suffix);
        }
    }
    truncate_label(label)
}

fn truncate_label(mut label: String) -> String {
    if label.len() > MAX_LABEL_LENGTH {
        let mut end = MAX_LABEL_LENGTH;
        while !label.is_char_boundary(end) {
            end -= 1;
        }
        label.truncate(end);
    }
    label
}

/// A stream counter of any type (`snd-pos`, `rcv-hwm`, `rcv-cc-cubic-rtt`, ...): key and
/// label as [`stream_key`] and [`stream_label`], registration id set.
#[allow(clippy::too_many_arguments)] // the stream key's fields, as Aeron names them
pub fn allocate_stream_counter(
    manager: &mut CountersManager,
    type_id: i32,
    name: &str,
    registration_id: i64,
    session_id: i32,
    stream_id: i32,
    channel: &str,
    suffix: Option<&str>,
    now_ms: i64,
) -> Result<Position> {
    let key = stream_key(registration_id, session_id, stream_id, channel);
    let label = stream_label(name, registration_id, session_id, stream_id, channel, suffix);
    let counter_id = manager.allocate(type_id, &key, &label, now_ms)?;
    manager.set_counter_registration_id(counter_id, registration_id)?;
    Ok(Position::new(manager.reader().values_buffer(), counter_id))
}

/// `sub-pos` of one subscription on one image/publication, labelled `@<join position>`.
pub fn allocate_subscriber_position(
    manager: &mut CountersManager,
    subscription_registration_id: i64,
    session_id: i32,
    stream_id: i32,
    channel: &str,
    join_position: i64,
    now_ms: i64,
) -> Result<Position> {
    let suffix = format!("@{join_position}");
    allocate_stream_counter(
        manager,
        SUBSCRIBER_POSITION_TYPE_ID,
        SUBSCRIBER_POSITION_NAME,
        subscription_registration_id,
        session_id,
        stream_id,
        channel,
        Some(&suffix),
        now_ms,
    )
}

/// `fc-receivers` of a publication using min or tagged flow control: how many receivers
/// the strategy tracks (Aeron allocates it in the strategy's supplier; here the conductor
/// does, and frees it with the publication).
pub fn allocate_flow_control_receivers(
    manager: &mut CountersManager,
    registration_id: i64,
    session_id: i32,
    stream_id: i32,
    channel: &str,
    now_ms: i64,
) -> Result<Position> {
    allocate_stream_counter(
        manager,
        FLOW_CONTROL_RECEIVERS_COUNTER_TYPE_ID,
        FLOW_CONTROL_RECEIVERS_NAME,
        registration_id,
        session_id,
        stream_id,
        channel,
        None,
        now_ms,
    )
}

/// `client-heartbeat: id=<client id>`, key = the client id; registration and owner id are
/// the client id too.
pub fn allocate_client_heartbeat(
    manager: &mut CountersManager,
    client_id: i64,
    now_ms: i64,
) -> Result<Position> {
    let label = format!("{CLIENT_HEARTBEAT_TIMESTAMP_NAME}: id={client_id}");
    let counter_id =
        manager.allocate(CLIENT_HEARTBEAT_TIMESTAMP_TYPE_ID, &client_id.to_le_bytes(), &label, now_ms)?;
    manager.set_counter_registration_id(counter_id, client_id)?;
    manager.set_counter_owner_id(counter_id, client_id)?;
    Ok(Position::new(manager.reader().values_buffer(), counter_id))
}

/// Channel endpoint status value: open.
pub const CHANNEL_STATUS_ACTIVE: i64 = 1;
/// Channel endpoint status value: being closed.
pub const CHANNEL_STATUS_CLOSING: i64 = 2;
/// Channel bytes in a channel status key after the length (`spec/counters.md` §7.2).
pub const CHANNEL_KEY_MAX_CHANNEL_LENGTH: usize = MAX_KEY_LENGTH - 4;
/// Address bytes in a local socket address key (Aeron C caps them at 103 + NUL).
pub const LOCAL_SOCKADDR_MAX_LENGTH: usize = 103;

/// A `snd-channel` / `rcv-channel` status counter (types 6, 7) of the endpoint registered as
/// `registration_id`: key = channel length + channel, label `"<name>: <channel> <bound>"`.
pub fn allocate_channel_status(
    manager: &mut CountersManager,
    type_id: i32,
    name: &str,
    registration_id: i64,
    channel: &str,
    bound_address: &str,
    now_ms: i64,
) -> Result<Position> {
    // Aeron appends the bound address once known; an endpoint with none (a
    // multi-destination subscription) keeps the label without it.
    let label = if bound_address.is_empty() {
        format!("{name}: {channel}")
    } else {
        format!("{name}: {channel} {bound_address}")
    };
    allocate_channel_keyed(manager, type_id, registration_id, channel, label, now_ms)
}

/// A channel-keyed counter without an address in its label (`mdc-num-dest`, type 18):
/// `"<name>: <channel>"`, keyed and registered as the channel status counters are.
pub fn allocate_channel_counter(
    manager: &mut CountersManager,
    type_id: i32,
    name: &str,
    registration_id: i64,
    channel: &str,
    now_ms: i64,
) -> Result<Position> {
    allocate_channel_keyed(manager, type_id, registration_id, channel, format!("{name}: {channel}"), now_ms)
}

fn allocate_channel_keyed(
    manager: &mut CountersManager,
    type_id: i32,
    registration_id: i64,
    channel: &str,
    label: String,
    now_ms: i64,
) -> Result<Position> {
    let mut key = [0u8; MAX_KEY_LENGTH];
    let length = channel.len().min(CHANNEL_KEY_MAX_CHANNEL_LENGTH);
    key[0..4].copy_from_slice(&(length as i32).to_le_bytes());
    key[4..4 + length].copy_from_slice(&channel.as_bytes()[..length]);
    let counter_id = manager.allocate(type_id, &key, &truncate_label(label), now_ms)?;
    manager.set_counter_registration_id(counter_id, registration_id)?;
    Ok(Position::new(manager.reader().values_buffer(), counter_id))
}

/// The `snd-local-sockaddr` / `rcv-local-sockaddr` counter (type 14) of an endpoint whose
/// status counter is `status_counter_id`: key = status id, address length, address text.
pub fn allocate_local_sockaddr(
    manager: &mut CountersManager,
    name: &str,
    registration_id: i64,
    status_counter_id: i32,
    address: &str,
    now_ms: i64,
) -> Result<Position> {
    let mut key = [0u8; MAX_KEY_LENGTH];
    let length = address.len().min(LOCAL_SOCKADDR_MAX_LENGTH);
    key[0..4].copy_from_slice(&status_counter_id.to_le_bytes());
    key[4..8].copy_from_slice(&(length as i32).to_le_bytes());
    key[8..8 + length].copy_from_slice(&address.as_bytes()[..length]);
    let label = truncate_label(format!("{name}: {status_counter_id} {address}"));
    let counter_id = manager.allocate(LOCAL_SOCKADDR_TYPE_ID, &key, &label, now_ms)?;
    manager.set_counter_registration_id(counter_id, registration_id)?;
    Ok(Position::new(manager.reader().values_buffer(), counter_id))
}

/// Frees a counter the conductor allocated. Freeing can only fail for a counter that is
/// not allocated, which would mean it was freed already; there is nothing more to undo.
pub fn free_counter(manager: &mut CountersManager, counter_id: i32, now_ms: i64) {
    let _ = manager.free(counter_id, now_ms);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_key_layout() {
        let key = stream_key(7, -3, 1001, "aeron:ipc");
        assert_eq!(&key[0..8], &7i64.to_le_bytes());
        assert_eq!(&key[8..12], &(-3i32).to_le_bytes());
        assert_eq!(&key[12..16], &1001i32.to_le_bytes());
        assert_eq!(&key[16..20], &9i32.to_le_bytes());
        assert_eq!(&key[20..29], b"aeron:ipc");
        assert!(key[29..].iter().all(|&b| b == 0));
        let long = "aeron:ipc?alias=".to_string() + &"x".repeat(200);
        let key = stream_key(1, 2, 3, &long);
        assert_eq!(&key[16..20], &92i32.to_le_bytes());
        assert_eq!(&key[20..112], &long.as_bytes()[..92]);
    }

    #[test]
    fn channel_status_and_local_sockaddr_layouts() {
        use crate::concurrent::AtomicBuffer;
        let mut m =
            CountersManager::new(AtomicBuffer::alloc(8 * 512), AtomicBuffer::alloc(8 * 128), 0).unwrap();
        let channel = "aeron:udp?endpoint=127.0.0.1:20121";
        let status =
            allocate_channel_status(&mut m, 7, "rcv-channel", 4, channel, "127.0.0.1:20121", 1).unwrap();
        let r = m.reader();
        assert_eq!(
            r.counter_label(status.counter_id()).unwrap(),
            format!("rcv-channel: {channel} 127.0.0.1:20121")
        );
        let key = r.counter_key(status.counter_id()).unwrap();
        assert_eq!(&key[0..4], &(channel.len() as i32).to_le_bytes());
        assert_eq!(&key[4..4 + channel.len()], channel.as_bytes());
        assert_eq!(r.counter_registration_id(status.counter_id()).unwrap(), 4);
        let addr = allocate_local_sockaddr(
            &mut m,
            "rcv-local-sockaddr",
            4,
            status.counter_id(),
            "127.0.0.1:20121",
            1,
        )
        .unwrap();
        let r = m.reader();
        assert_eq!(r.counter_type_id(addr.counter_id()).unwrap(), 14);
        assert_eq!(r.counter_label(addr.counter_id()).unwrap(), "rcv-local-sockaddr: 0 127.0.0.1:20121");
        let key = r.counter_key(addr.counter_id()).unwrap();
        assert_eq!(&key[0..8], &[0, 0, 0, 0, 15, 0, 0, 0]);
        assert_eq!(&key[8..23], b"127.0.0.1:20121");
    }

    #[test]
    fn flow_control_receivers_counter() {
        let mut m =
            CountersManager::new(AtomicBuffer::alloc(8 * 512), AtomicBuffer::alloc(8 * 128), 0).unwrap();
        let channel = "aeron:udp?endpoint=224.0.1.1:40456|fc=tagged,g:42/2";
        let p = allocate_flow_control_receivers(&mut m, 12, -7, 1001, channel, 5).unwrap();
        let r = m.reader();
        let id = p.counter_id();
        assert_eq!(r.counter_type_id(id).unwrap(), 17);
        assert_eq!(r.counter_label(id).unwrap(), format!("fc-receivers: 12 -7 1001 {channel}"));
        assert_eq!(r.counter_registration_id(id).unwrap(), 12);
        // Stream key (spec/counters.md §7.1): registration id, session, stream, channel.
        let key = r.counter_key(id).unwrap();
        assert_eq!(&key[0..8], &12i64.to_le_bytes());
        assert_eq!(&key[8..12], &(-7i32).to_le_bytes());
        assert_eq!(&key[12..16], &1001i32.to_le_bytes());
        assert_eq!(&key[16..20], &(channel.len() as i32).to_le_bytes());
        assert_eq!(&key[20..20 + channel.len()], channel.as_bytes());
        assert!(key[20 + channel.len()..].iter().all(|&b| b == 0));
        assert_eq!(p.get(), 0);
        p.set_release(3);
        assert_eq!(r.counter_value(id).unwrap(), 3);
    }

    #[test]
    fn stream_labels() {
        assert_eq!(stream_label("pub-lmt", 5, 77, 10, "aeron:ipc", None), "pub-lmt: 5 77 10 aeron:ipc");
        assert_eq!(
            stream_label("sub-pos", 6, 77, 10, "aeron:ipc", Some("@0")),
            "sub-pos: 6 77 10 aeron:ipc @0"
        );
        let long = "x".repeat(500);
        assert_eq!(stream_label("pub-lmt", 5, 77, 10, &long, None).len(), MAX_LABEL_LENGTH);
        assert_eq!(stream_label("sub-pos", 5, 77, 10, &long, Some("@0")).len(), MAX_LABEL_LENGTH);
        let label = stream_label("sub-pos", 5, 77, 10, &"y".repeat(300), Some("@64"));
        assert!(label.ends_with("y @64"), "{label}");
    }
}
