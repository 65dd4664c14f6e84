//! `UdpChannel`: a UDP channel URI as the driver uses it (`spec/channel-uri.md` §2, Aeron C
//! `aeron_udp_channel_parse`): the resolved endpoint, the local address to bind, socket
//! buffer sizes, the receiver window, and the *canonical form* that decides which
//! publications and subscriptions share one channel endpoint.
//!
//! Only plain unicast is supported: a multicast `endpoint`, a `control` address (multi
//! destination cast) and every `control-mode` are refused with an error that says so. A
//! channel needs an `endpoint`.
//!
//! Canonical form: `UDP-<local>-<remote>`, where local is the formatted bind address of the
//! `interface` (the wildcard when absent) and remote the `endpoint` text as written. An
//! endpoint with port 0 can never be shared, so its form gets a unique suffix: `#<channel
//! tag>` when the channel is tagged, else `-<n>` from a process-wide counter.
//!
//! Resolution may block on DNS: only the conductor parses channels.
#![forbid(unsafe_code)]

use std::net::SocketAddr;
use std::sync::atomic::{AtomicI32, Ordering};

use super::interface_address::find_unicast_interface;
use super::socket_address::{format_source_identity, reject_multicast, resolve_host_and_port};
use crate::uri::keys::{CONTROL, CONTROL_MODE, ENDPOINT, INTERFACE};
use crate::uri::{ChannelUri, Media};
use crate::util::error::{AeronErrorCode, Error, Result};

/// Unique suffixes for canonical forms of channels that cannot be shared.
static UNIQUE_CANONICAL_FORM_VALUE: AtomicI32 = AtomicI32::new(0);

/// A parsed and resolved unicast UDP channel.
#[derive(Debug, Clone)]
pub struct UdpChannel {
    /// The channel text as the client gave it.
    pub original_uri: String,
    pub uri: ChannelUri,
    /// The `endpoint` address: where publications send, what subscriptions bind.
    pub remote_data: SocketAddr,
    /// The address a publication's socket binds (`interface`, default wildcard port 0).
    pub local_data: SocketAddr,
    /// Interface index of `local_data` (0 when not one interface, e.g. the wildcard).
    pub interface_index: u32,
    pub canonical_form: String,
    /// `tags=<channel tag>` if given.
    pub channel_tag: Option<i64>,
    /// `so-sndbuf` / `so-rcvbuf` of the channel; 0 = not given.
    pub socket_sndbuf_length: usize,
    pub socket_rcvbuf_length: usize,
    /// `rcv-wnd` of the channel, if given.
    pub receiver_window_length: Option<usize>,
}

fn not_supported_yet(uri: &str, what: &str) -> Error {
    Error::not_supported(format!(
        "{what} is not supported yet by this driver (only unicast UDP): channel={uri}"
    ))
}

fn invalid_channel(uri: &str, error: &Error) -> Error {
    Error::aeron(AeronErrorCode::InvalidChannel, format!("{} channel={uri}", error.message()))
}

impl UdpChannel {
    /// Parses and resolves `channel` (an `aeron:udp?...` URI, or the UDP part of a spy).
    pub fn parse(channel: &str) -> Result<Self> {
        let mut uri = ChannelUri::parse(channel).map_err(|e| invalid_channel(channel, &e))?;
        // A spy names the channel it watches; the prefix is not part of that channel.
        uri.set_spy(false);
        if uri.media() != Media::Udp {
            return Err(Error::aeron(
                AeronErrorCode::InvalidChannel,
                format!("UDP channels must use UDP URIs: channel={channel}"),
            ));
        }
        if uri.contains(CONTROL_MODE) {
            return Err(not_supported_yet(
                channel,
                "control-mode (multi-destination-cast, response channels)",
            ));
        }
        if uri.contains(CONTROL) {
            return Err(not_supported_yet(channel, "an explicit control address (multi-destination-cast)"));
        }
        uri.validate_udp_channel().map_err(|e| invalid_channel(channel, &e))?;
        let endpoint_text = uri.get(ENDPOINT).ok_or_else(|| {
            not_supported_yet(channel, "a channel without an endpoint (tags referring to another channel)")
        })?;
        let remote_data =
            resolve_host_and_port(ENDPOINT, endpoint_text).map_err(|e| invalid_channel(channel, &e))?;
        reject_multicast(ENDPOINT, remote_data)?;
        let local = find_unicast_interface(&remote_data, uri.get(INTERFACE))?;
        let tags = uri.tags().map_err(|e| invalid_channel(channel, &e))?;
        let channel_tag = tags.and_then(|t| t.channel_tag);
        let size = |v: Option<u32>| v.map_or(0, |n| n as usize);
        let socket_sndbuf_length =
            size(uri.socket_sndbuf_length().map_err(|e| invalid_channel(channel, &e))?);
        let socket_rcvbuf_length =
            size(uri.socket_rcvbuf_length().map_err(|e| invalid_channel(channel, &e))?);
        let receiver_window_length =
            uri.receiver_window_length().map_err(|e| invalid_channel(channel, &e))?.map(|n| n as usize);
        let canonical_form =
            canonical_form(&local.address, endpoint_text, remote_data.port() == 0, channel_tag);
        Ok(Self {
            original_uri: channel.to_string(),
            uri,
            remote_data,
            local_data: local.address,
            interface_index: local.index,
            canonical_form,
            channel_tag,
            socket_sndbuf_length,
            socket_rcvbuf_length,
            receiver_window_length,
        })
    }

    /// The channel's `so-sndbuf`, else the driver's setting (0 = OS default).
    pub fn socket_sndbuf_or(&self, driver_default: usize) -> usize {
        if self.socket_sndbuf_length != 0 { self.socket_sndbuf_length } else { driver_default }
    }

    /// The channel's `so-rcvbuf`, else the driver's setting (0 = OS default).
    pub fn socket_rcvbuf_or(&self, driver_default: usize) -> usize {
        if self.socket_rcvbuf_length != 0 { self.socket_rcvbuf_length } else { driver_default }
    }
}

/// `UDP-<local>-<remote>[suffix]`.
fn canonical_form(
    local: &SocketAddr,
    remote_text: &str,
    make_unique: bool,
    channel_tag: Option<i64>,
) -> String {
    let suffix = match (make_unique, channel_tag) {
        (false, _) => String::new(),
        (true, Some(tag)) => format!("#{tag}"),
        (true, None) => format!("-{}", UNIQUE_CANONICAL_FORM_VALUE.fetch_add(1, Ordering::Relaxed)),
    };
    format!("UDP-{}-{remote_text}{suffix}", format_source_identity(local))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unicast_endpoint_and_defaults() {
        let c = UdpChannel::parse("aeron:udp?endpoint=127.0.0.1:20121").unwrap();
        assert_eq!(c.remote_data, "127.0.0.1:20121".parse().unwrap());
        assert_eq!(c.local_data, "0.0.0.0:0".parse().unwrap());
        assert_eq!(c.canonical_form, "UDP-0.0.0.0:0-127.0.0.1:20121");
        assert_eq!((c.socket_sndbuf_length, c.socket_rcvbuf_length, c.receiver_window_length), (0, 0, None));
        assert_eq!(c.socket_rcvbuf_or(131072), 131072);
        let same = UdpChannel::parse("aeron:udp?endpoint=127.0.0.1:20121|term-length=64k").unwrap();
        assert_eq!(same.canonical_form, c.canonical_form, "stream parameters do not change the endpoint");
    }

    #[test]
    fn interface_buffers_and_window() {
        let c = UdpChannel::parse(
            "aeron:udp?endpoint=localhost:20121|interface=127.0.0.1:20122|so-sndbuf=64k|so-rcvbuf=1m|rcv-wnd=8k",
        )
        .unwrap();
        assert_eq!(c.local_data, "127.0.0.1:20122".parse().unwrap());
        assert_eq!(c.canonical_form, "UDP-127.0.0.1:20122-localhost:20121");
        assert_eq!((c.socket_sndbuf_length, c.socket_rcvbuf_length), (65536, 1 << 20));
        assert_eq!(c.receiver_window_length, Some(8192));
        assert_eq!(c.socket_sndbuf_or(7), 65536);
    }

    #[test]
    fn ephemeral_endpoints_are_never_shared() {
        let a = UdpChannel::parse("aeron:udp?endpoint=127.0.0.1:0").unwrap();
        let b = UdpChannel::parse("aeron:udp?endpoint=127.0.0.1:0").unwrap();
        assert_ne!(a.canonical_form, b.canonical_form);
        let t = UdpChannel::parse("aeron:udp?endpoint=127.0.0.1:0|tags=77").unwrap();
        assert_eq!(t.canonical_form, "UDP-0.0.0.0:0-127.0.0.1:0#77");
        assert_eq!(t.channel_tag, Some(77));
    }

    #[test]
    fn refusals_say_why() {
        let refused = |uri: &str| UdpChannel::parse(uri).unwrap_err();
        let e = refused("aeron:udp?endpoint=224.0.1.1:40456");
        assert!(e.message().contains("multicast UDP channels are not supported yet"), "{e}");
        let e = refused("aeron:udp?control=127.0.0.1:5000|control-mode=dynamic");
        assert!(e.message().contains("control-mode"), "{e}");
        assert_eq!(e.aeron_code(), Some(AeronErrorCode::NotSupported));
        let e = refused("aeron:udp?endpoint=127.0.0.1:5001|control=127.0.0.1:5000");
        assert!(e.message().contains("explicit control address"), "{e}");
        let e = refused("aeron:udp?tags=5");
        assert!(e.message().contains("without an endpoint"), "{e}");
        let e = refused("aeron:udp?mtu=1408");
        assert_eq!(e.aeron_code(), Some(AeronErrorCode::InvalidChannel));
        let e = refused("aeron:udp?endpoint=bad:xx");
        assert!(e.message().contains("xx"), "{e}");
        assert_eq!(e.aeron_code(), Some(AeronErrorCode::InvalidChannel));
        assert!(refused("aeron:ipc").message().contains("UDP channels must use UDP URIs"));
        let spy = UdpChannel::parse("aeron-spy:aeron:udp?endpoint=127.0.0.1:20121").unwrap();
        assert_eq!(spy.canonical_form, "UDP-0.0.0.0:0-127.0.0.1:20121");
    }
}
