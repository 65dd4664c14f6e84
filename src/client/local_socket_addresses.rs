//! The local socket addresses a UDP publication or subscription is bound to, read from the
//! driver's `snd-local-sockaddr` / `rcv-local-sockaddr` counters (type 14,
//! `spec/counters.md` §7.4; Aeron `aeron_publication_local_sockaddrs`,
//! `LocalSocketAddressStatus.findAddresses`): each such counter names its channel status
//! counter in its key and carries the address text after it. As in Aeron, nothing is
//! listed unless the channel status counter itself reads ACTIVE.
#![forbid(unsafe_code)]

use crate::concurrent::counters::CountersReader;
use crate::concurrent::counters::type_ids::LOCAL_SOCKADDR_TYPE_ID;

/// Channel status value of a working endpoint.
const CHANNEL_STATUS_ACTIVE: i64 = 1;

/// The addresses of the active local-sockaddr counters of status counter
/// `channel_status_id`, in counter id order; none for IPC (a negative id) or while the
/// channel is not ACTIVE.
pub fn local_socket_addresses(counters: &CountersReader, channel_status_id: i32) -> Vec<String> {
    let mut addresses = Vec::new();
    if channel_status_id < 0 || counters.counter_value(channel_status_id).ok() != Some(CHANNEL_STATUS_ACTIVE)
    {
        return addresses;
    }
    counters.for_each_counter(|record| {
        let key = record.key();
        let owner = i32::from_le_bytes([key[0], key[1], key[2], key[3]]);
        if record.type_id != LOCAL_SOCKADDR_TYPE_ID
            || owner != channel_status_id
            || record.value != CHANNEL_STATUS_ACTIVE
        {
            return;
        }
        // The length came from shared memory: keep it within the key.
        let length = usize::try_from(i32::from_le_bytes([key[4], key[5], key[6], key[7]]))
            .unwrap_or(0)
            .min(key.len() - 8);
        if length == 0 {
            return;
        }
        addresses.push(String::from_utf8_lossy(&key[8..8 + length]).into_owned());
    });
    addresses
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concurrent::AtomicBuffer;
    use crate::concurrent::counters::CountersManager;
    use crate::concurrent::counters::type_ids::SEND_CHANNEL_STATUS_TYPE_ID;

    fn key(status: i32, address: &str) -> Vec<u8> {
        let mut k = vec![0u8; 112];
        k[0..4].copy_from_slice(&status.to_le_bytes());
        k[4..8].copy_from_slice(&(address.len() as i32).to_le_bytes());
        k[8..8 + address.len()].copy_from_slice(address.as_bytes());
        k
    }

    #[test]
    fn finds_the_active_addresses_of_one_active_channel() {
        let (metadata, values) = (AtomicBuffer::alloc(8 * 512), AtomicBuffer::alloc(8 * 128));
        let mut m = CountersManager::new(metadata.clone(), values.clone(), 0).unwrap();
        let status = m.allocate(SEND_CHANNEL_STATUS_TYPE_ID, &[], "status", 0).unwrap();
        let other = m.allocate(SEND_CHANNEL_STATUS_TYPE_ID, &[], "other", 0).unwrap();
        let a = m.allocate(LOCAL_SOCKADDR_TYPE_ID, &key(status, "127.0.0.1:40123"), "x", 0).unwrap();
        let b = m.allocate(LOCAL_SOCKADDR_TYPE_ID, &key(other, "127.0.0.1:40124"), "x", 0).unwrap();
        let c = m.allocate(LOCAL_SOCKADDR_TYPE_ID, &key(status, "[::1]:5"), "x", 0).unwrap();
        let empty = m.allocate(LOCAL_SOCKADDR_TYPE_ID, &key(status, ""), "x", 0).unwrap();
        for id in [a, b, empty] {
            m.set_counter_value(id, CHANNEL_STATUS_ACTIVE).unwrap();
        }
        let reader = CountersReader::new(metadata, values).unwrap();
        assert!(local_socket_addresses(&reader, status).is_empty(), "the channel is not ACTIVE yet");
        m.set_counter_value(status, CHANNEL_STATUS_ACTIVE).unwrap();
        assert_eq!(
            local_socket_addresses(&reader, status),
            vec!["127.0.0.1:40123".to_string()],
            "c is not active, the empty one is skipped"
        );
        m.set_counter_value(c, CHANNEL_STATUS_ACTIVE).unwrap();
        assert_eq!(
            local_socket_addresses(&reader, status),
            vec!["127.0.0.1:40123".to_string(), "[::1]:5".to_string()]
        );
        assert!(local_socket_addresses(&reader, other).is_empty(), "other's status is not ACTIVE");
        assert!(local_socket_addresses(&reader, -1).is_empty());
    }
}
