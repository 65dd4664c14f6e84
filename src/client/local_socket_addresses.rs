//! The local socket addresses a UDP publication or subscription is bound to, read from the
//! driver's `snd-local-sockaddr` / `rcv-local-sockaddr` counters (type 14,
//! `spec/counters.md` §7.4; Aeron `aeron_publication_local_sockaddrs`,
//! `LocalSocketAddressStatus.findAddresses`): each such counter names its channel status
//! counter in its key and carries the address text after it. As in Aeron, nothing is
//! listed unless the channel status counter itself reads ACTIVE.
#![forbid(unsafe_code)]

use crate::concurrent::counters::CountersReader;
use crate::concurrent::counters::type_ids::LOCAL_SOCKADDR_TYPE_ID;
use crate::uri::keys::{CONTROL, CONTROL_MODE, ENDPOINT, INTERFACE, TAGS, TTL};
use crate::uri::{ChannelUri, Media};

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

/// Whether the channel is UDP with an endpoint whose port is the wildcard `0`.
pub fn has_wildcard_endpoint_port(uri: &ChannelUri) -> bool {
    uri.media() == Media::Udp
        && uri
            .get(ENDPOINT)
            .is_some_and(|endpoint| endpoint.rsplit_once(':').is_some_and(|(_, port)| port == "0"))
}

/// The parts of `uri` as Aeron's C client prints a parsed URI (`aeron_uri_sprint`): the
/// `aeron:<media>` scheme (no spy prefix), then for UDP `endpoint`, `interface`,
/// `control`, `control-mode`, `tags`, `ttl` in that order, for IPC `tags`, then every other
/// parameter in the order given, the first after `?` and the rest after `|`.
pub fn c_print_order(uri: &ChannelUri) -> Vec<String> {
    let leading: &[&str] = match uri.media() {
        Media::Udp => &[ENDPOINT, INTERFACE, CONTROL, CONTROL_MODE, TAGS, TTL],
        Media::Ipc => &[TAGS],
    };
    let named = leading.iter().filter_map(|key| uri.get(key).map(|value| (*key, value)));
    let others = uri.params().filter(|(key, _)| !leading.contains(key));
    let mut parts = vec![format!("aeron:{}", uri.media().as_str())];
    for (index, (key, value)) in named.chain(others).enumerate() {
        parts.push(format!("{}{key}={value}", if index == 0 { '?' } else { '|' }));
    }
    parts
}

/// `channel` as Aeron's C client prints it (see [`c_print_order`]), with a wildcard UDP
/// endpoint port (`endpoint=host:0`) replaced by the first of the bound `addresses`; `None`
/// while such a port is not resolved yet (no address bound).
pub fn resolved_channel_parts(
    channel: &str,
    addresses: impl FnOnce() -> Vec<String>,
) -> crate::util::error::Result<Option<Vec<String>>> {
    let mut parsed = ChannelUri::parse(channel)?;
    if has_wildcard_endpoint_port(&parsed) {
        let Some(address) = addresses().into_iter().next() else { return Ok(None) };
        parsed.put(ENDPOINT, &address)?;
    }
    Ok(Some(c_print_order(&parsed)))
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

    #[test]
    fn prints_in_the_c_clients_order() {
        let uri = ChannelUri::parse(
            "aeron-spy:aeron:udp?ttl=3|mtu=1408|endpoint=127.0.0.1:0|tags=1,2|term-length=65536",
        )
        .unwrap();
        assert_eq!(
            c_print_order(&uri).concat(),
            "aeron:udp?endpoint=127.0.0.1:0|tags=1,2|ttl=3|mtu=1408|term-length=65536"
        );
        let ipc = ChannelUri::parse("aeron:ipc?term-length=65536|tags=4").unwrap();
        assert_eq!(c_print_order(&ipc).concat(), "aeron:ipc?tags=4|term-length=65536");
        assert_eq!(c_print_order(&ChannelUri::parse("aeron:ipc").unwrap()).concat(), "aeron:ipc");
    }

    #[test]
    fn resolves_a_wildcard_port_from_the_first_bound_address() {
        let bound = || vec!["127.0.0.1:40123".to_string(), "127.0.0.1:40124".to_string()];
        let parts = resolved_channel_parts("aeron:udp?mtu=1408|endpoint=127.0.0.1:0", bound).unwrap();
        assert_eq!(parts.unwrap().concat(), "aeron:udp?endpoint=127.0.0.1:40123|mtu=1408");
        assert_eq!(resolved_channel_parts("aeron:udp?endpoint=127.0.0.1:0", Vec::new).unwrap(), None);
        let fixed = resolved_channel_parts("aeron:udp?endpoint=127.0.0.1:5", || unreachable!()).unwrap();
        assert_eq!(fixed.unwrap().concat(), "aeron:udp?endpoint=127.0.0.1:5");
        assert!(resolved_channel_parts("not a uri", Vec::new).is_err());
    }

    #[test]
    fn finds_wildcard_ports_of_udp_endpoints_only() {
        let wildcard = |text: &str| has_wildcard_endpoint_port(&ChannelUri::parse(text).unwrap());
        assert!(wildcard("aeron:udp?endpoint=127.0.0.1:0"));
        assert!(wildcard("aeron:udp?endpoint=[::1]:0"));
        assert!(!wildcard("aeron:udp?endpoint=127.0.0.1:10"));
        assert!(!wildcard("aeron:udp?endpoint=127.0.0.1:20"));
        assert!(!wildcard("aeron:udp?control=127.0.0.1:0|control-mode=dynamic"));
        assert!(!wildcard("aeron:ipc?endpoint=127.0.0.1:0"));
    }
}
