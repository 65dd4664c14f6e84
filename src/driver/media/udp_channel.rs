//! `UdpChannel`: a UDP channel URI as the driver uses it (`spec/channel-uri.md` §2, Aeron C
//! `aeron_udp_channel_finish_parse`): which addresses a publication sends to and receives
//! control frames on, which a subscription binds and sends status messages to, the
//! multicast interface and TTL, the control mode, socket buffer sizes, the receiver window,
//! and the *canonical form* that decides which publications and subscriptions share one
//! channel endpoint.
//!
//! Three shapes, as in Aeron:
//! * **multicast** `endpoint` (odd last byte required): data goes to the group, control
//!   frames to the group + 1 on the same port; both bind the `interface` (a name, address or
//!   `address/prefix`, default any multicast-capable interface).
//! * an explicit **`control`** address (multi-destination-cast with `control-mode=dynamic`,
//!   or a subscription telling such a publication where to send status messages): the
//!   local addresses are the control address, the remote one the `endpoint` (wildcard when
//!   absent).
//! * plain **unicast** (or `control-mode=manual` / `tags=` only, with no address at all):
//!   local = the `interface` (wildcard by default), remote = the `endpoint` (wildcard when
//!   absent).
//!
//! Canonical form: `UDP-<local>-<remote>`, local and remote as written in the URI where the
//! shape takes them from it, else the formatted socket address. An endpoint that cannot be
//! shared (no address, or port 0) gets a unique suffix: `#<channel tag>` when tagged, else
//! `-<n>` from a process-wide counter; destinations of multi-destination channels never do.
//!
//! `control-mode=response` marks a response channel: a response subscription (its
//! `control` names the responding publication's address) or a response publication (its
//! `control` is where it hears the response subscriptions); it takes the shape of its
//! addresses like any other channel. Resolution may block on DNS: only the conductor
//! parses channels.
#![forbid(unsafe_code)]

use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicI32, Ordering};

use super::interface_address::{find_multicast_interface, find_unicast_interface};
use super::name_resolver::{DefaultNameResolver, NameResolver, resolve_host_and_port_with};
use super::socket_address::{format_source_identity, wildcard_for};
use super::timestamps::ChannelTimestamps;
use crate::uri::keys::{CONTROL, ENDPOINT, INTERFACE};
use crate::uri::{ChannelUri, ControlMode, Media};
use crate::util::error::{AeronErrorCode, Error, Result};

/// Unique suffixes for canonical forms of channels that cannot be shared.
static UNIQUE_CANONICAL_FORM_VALUE: AtomicI32 = AtomicI32::new(0);

/// How destinations of a channel are managed (`control-mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UdpControlMode {
    None,
    /// Destinations added and removed by commands (MDC publication, MDS subscription).
    Manual,
    /// Receivers discovered from their status messages to the `control` address.
    Dynamic,
    /// A response channel (request/response pattern): a response publication sends only to
    /// the subscription that asked it for SETUP; a response subscription waits for the
    /// session id its request publication learns from RSP_SETUP.
    Response,
}

/// A parsed and resolved UDP channel.
#[derive(Debug, Clone)]
pub struct UdpChannel {
    /// The channel text as the client gave it.
    pub original_uri: String,
    pub uri: ChannelUri,
    pub control_mode: UdpControlMode,
    pub has_explicit_endpoint: bool,
    pub has_explicit_control: bool,
    pub is_multicast: bool,
    /// Publications send data here; subscriptions bind it (the group for multicast).
    pub remote_data: SocketAddr,
    /// Multicast: the group + 1, where subscriptions send control frames and publications
    /// receive them. Otherwise the same as `remote_data`.
    pub remote_control: SocketAddr,
    /// The local interface (multicast, unicast) or the control address (explicit control).
    pub local_data: SocketAddr,
    pub local_control: SocketAddr,
    /// Interface index of the local address (0 when not one interface, e.g. the wildcard).
    pub interface_index: u32,
    /// `ttl` of a multicast channel; 0 = not given (the driver's setting applies).
    pub multicast_ttl: u8,
    pub canonical_form: String,
    /// `tags=<channel tag>` if given.
    pub channel_tag: Option<i64>,
    /// `so-sndbuf` / `so-rcvbuf` of the channel; 0 = not given.
    pub socket_sndbuf_length: usize,
    pub socket_rcvbuf_length: usize,
    /// `rcv-wnd` of the channel, if given.
    pub receiver_window_length: Option<usize>,
    /// `media-rcv-ts-offset`, `channel-rcv-ts-offset`, `channel-snd-ts-offset`.
    pub timestamps: ChannelTimestamps,
}

/// `error` with the channel named; its code stays (INVALID_CHANNEL from the URI syntax,
/// UNKNOWN_HOST from a failed lookup, `EINVAL` from a bad value), as Aeron C's are.
fn invalid_channel(uri: &str, error: &Error) -> Error {
    Error::with_code(error.code(), format!("{} channel={uri}", error.message()))
}

/// The multicast control address: the data group with its last address byte + 1 (wrapping
/// as a byte, as Aeron's arithmetic does), the same port. Aeron requires the data group's
/// last byte to be odd.
pub fn multicast_control_address(data: &SocketAddr) -> Result<SocketAddr> {
    let bump = |last: &mut u8| -> Result<()> {
        if *last & 1 == 0 {
            return Err(Error::invalid_argument(format!(
                "multicast data address must be odd: endpoint={}",
                format_source_identity(data)
            )));
        }
        *last = last.wrapping_add(1);
        Ok(())
    };
    let mut control = *data;
    match &mut control {
        SocketAddr::V4(v4) => {
            let mut octets = v4.ip().octets();
            bump(&mut octets[3])?;
            v4.set_ip(octets.into());
        }
        SocketAddr::V6(v6) => {
            let mut octets = v6.ip().octets();
            bump(&mut octets[15])?;
            v6.set_ip(octets.into());
        }
    }
    Ok(control)
}

impl UdpChannel {
    /// Parses and resolves `channel` (an `aeron:udp?...` URI, or the UDP part of a spy) for
    /// a publication or subscription, with the default name resolver.
    pub fn parse(channel: &str) -> Result<Self> {
        Self::parse_as(channel, false, &mut DefaultNameResolver)
    }

    /// As [`parse`](Self::parse), resolving `endpoint` and `control` through `resolver`.
    pub fn parse_with(channel: &str, resolver: &mut dyn NameResolver) -> Result<Self> {
        Self::parse_as(channel, false, resolver)
    }

    /// Parses the channel of a destination (ADD_DESTINATION, ADD_RCV_DESTINATION): never
    /// made unique, since destinations are compared by canonical form.
    pub fn parse_destination(channel: &str, resolver: &mut dyn NameResolver) -> Result<Self> {
        Self::parse_as(channel, true, resolver)
    }

    fn parse_as(channel: &str, is_destination: bool, resolver: &mut dyn NameResolver) -> Result<Self> {
        let mut uri = ChannelUri::parse(channel).map_err(|e| invalid_channel(channel, &e))?;
        // A spy names the channel it watches; the prefix is not part of that channel.
        uri.set_spy(false);
        if uri.media() != Media::Udp {
            return Err(Error::aeron(
                AeronErrorCode::InvalidChannel,
                format!("UDP channels must use UDP URIs: channel={channel}"),
            ));
        }
        uri.validate_udp_channel().map_err(|e| invalid_channel(channel, &e))?;
        let control_mode = match uri.control_mode().map_err(|e| invalid_channel(channel, &e))? {
            None => UdpControlMode::None,
            Some(ControlMode::Manual) => UdpControlMode::Manual,
            Some(ControlMode::Dynamic) => UdpControlMode::Dynamic,
            Some(ControlMode::Response) => UdpControlMode::Response,
        };
        let control_text = uri.get(CONTROL);
        let endpoint_text = uri.get(ENDPOINT);
        let explicit_control = control_text
            .map(|text| resolve_host_and_port_with(resolver, CONTROL, text, false))
            .transpose()
            .map_err(|e| invalid_channel(channel, &e))?;
        let endpoint = match endpoint_text {
            Some(text) => resolve_host_and_port_with(resolver, ENDPOINT, text, false)
                .map_err(|e| invalid_channel(channel, &e))?,
            None => wildcard_for(&explicit_control.unwrap_or_else(|| SocketAddr::from(([0, 0, 0, 0], 0)))),
        };
        let requires_unique_suffix = !is_destination
            && ((endpoint_text.is_none() && control_text.is_none())
                || (endpoint_text.is_some() && endpoint.port() == 0)
                || explicit_control.is_some_and(|c| c.port() == 0));
        let tags = uri.tags().map_err(|e| invalid_channel(channel, &e))?;
        let channel_tag = tags.and_then(|t| t.channel_tag);
        let size = |v: Option<u32>| v.map_or(0, |n| n as usize);
        let socket_sndbuf_length =
            size(uri.socket_sndbuf_length().map_err(|e| invalid_channel(channel, &e))?);
        let socket_rcvbuf_length =
            size(uri.socket_rcvbuf_length().map_err(|e| invalid_channel(channel, &e))?);
        let receiver_window_length =
            uri.receiver_window_length().map_err(|e| invalid_channel(channel, &e))?.map(|n| n as usize);
        let timestamps = ChannelTimestamps::parse(&uri).map_err(|e| invalid_channel(channel, &e))?;
        // Aeron Transport Security is a separate product upstream; this driver has none, so
        // it refuses `ats=true` as Aeron's does when ATS is not enabled.
        if uri.ats().map_err(|e| invalid_channel(channel, &e))? == Some(true) {
            return Err(Error::invalid_argument(format!(
                "ATS is not enabled and thus ats=true not allowed: channel={channel}"
            )));
        }
        let interface_text = uri.get(INTERFACE);
        let shape = if endpoint.ip().is_multicast() {
            let remote_control = multicast_control_address(&endpoint)?;
            let local = find_multicast_interface(&endpoint, interface_text)?;
            let ttl = uri.ttl().map_err(|e| invalid_channel(channel, &e))?.unwrap_or(0);
            Shape {
                is_multicast: true,
                remote_data: endpoint,
                remote_control,
                local: local.address,
                interface_index: local.index,
                multicast_ttl: ttl,
                canonical_form: canonical_form(
                    &format_source_identity(&local.address),
                    &format_source_identity(&endpoint),
                    None,
                ),
            }
        } else if let Some(control) = explicit_control {
            let local = find_unicast_interface(&control, interface_text)?;
            let remote_text = endpoint_text.map_or_else(|| format_source_identity(&endpoint), str::to_string);
            let suffix = requires_unique_suffix.then_some(channel_tag);
            Shape {
                is_multicast: false,
                remote_data: endpoint,
                remote_control: endpoint,
                local: control,
                interface_index: local.index,
                multicast_ttl: 0,
                canonical_form: canonical_form(control_text.unwrap_or_default(), &remote_text, suffix),
            }
        } else {
            let local = find_unicast_interface(&endpoint, interface_text)?;
            let remote_text = endpoint_text.map_or_else(|| format_source_identity(&endpoint), str::to_string);
            let suffix = requires_unique_suffix.then_some(channel_tag);
            Shape {
                is_multicast: false,
                remote_data: endpoint,
                remote_control: endpoint,
                local: local.address,
                interface_index: local.index,
                multicast_ttl: 0,
                canonical_form: canonical_form(&format_source_identity(&local.address), &remote_text, suffix),
            }
        };
        let has_explicit_endpoint = endpoint_text.is_some();
        Ok(Self {
            original_uri: channel.to_string(),
            uri,
            control_mode,
            has_explicit_endpoint,
            has_explicit_control: explicit_control.is_some() && !shape.is_multicast,
            is_multicast: shape.is_multicast,
            remote_data: shape.remote_data,
            remote_control: shape.remote_control,
            local_data: shape.local,
            local_control: shape.local,
            interface_index: shape.interface_index,
            multicast_ttl: shape.multicast_ttl,
            canonical_form: shape.canonical_form,
            channel_tag,
            socket_sndbuf_length,
            socket_rcvbuf_length,
            receiver_window_length,
            timestamps,
        })
    }

    /// `control-mode` manual or dynamic: a publication with a destination set.
    pub fn is_multi_destination(&self) -> bool {
        matches!(self.control_mode, UdpControlMode::Manual | UdpControlMode::Dynamic)
    }

    /// `control-mode=response`.
    pub fn is_response(&self) -> bool {
        self.control_mode == UdpControlMode::Response
    }

    /// Multicast or multi-destination: several receivers per stream (NAK back-off,
    /// retransmit pool, one-to-many flow control, the SETUP GROUP flag).
    pub fn has_group_semantics(&self) -> bool {
        self.is_multicast || self.is_multi_destination()
    }

    /// Neither side has an address nor a port: a channel that only names a tag.
    pub fn is_wildcard(&self) -> bool {
        let wild = |a: &SocketAddr| a.ip().is_unspecified() && a.port() == 0;
        wild(&self.remote_data) && wild(&self.local_data)
    }

    /// The channel's `so-sndbuf`, else the driver's setting (0 = OS default).
    pub fn socket_sndbuf_or(&self, driver_default: usize) -> usize {
        if self.socket_sndbuf_length != 0 { self.socket_sndbuf_length } else { driver_default }
    }

    /// The channel's `so-rcvbuf`, else the driver's setting (0 = OS default).
    pub fn socket_rcvbuf_or(&self, driver_default: usize) -> usize {
        if self.socket_rcvbuf_length != 0 { self.socket_rcvbuf_length } else { driver_default }
    }

    /// Whether this channel refers by `tags=` to the endpoint opened for `endpoint_channel`
    /// (Aeron C `aeron_udp_channel_matches_tag`): both carry the same channel tag, this one
    /// gives no control mode or the same one, and it names no addresses or the endpoint's
    /// (`local`/`remote` override the endpoint channel's own where the endpoint resolved
    /// them later, e.g. a bound port). A tag match with other addresses or another control
    /// mode is an error, as in Aeron.
    pub fn matches_tag(
        &self,
        endpoint_channel: &UdpChannel,
        local: Option<SocketAddr>,
        remote: Option<SocketAddr>,
    ) -> Result<bool> {
        let (Some(tag), Some(endpoint_tag)) = (self.channel_tag, endpoint_channel.channel_tag) else {
            return Ok(false);
        };
        if tag != endpoint_tag {
            return Ok(false);
        }
        if self.control_mode != UdpControlMode::None && self.control_mode != endpoint_channel.control_mode {
            return Err(Error::invalid_argument(format!(
                "matching tag {tag} has mismatched control-mode: {} <> {}",
                self.original_uri, endpoint_channel.original_uri
            )));
        }
        let same = |a: &SocketAddr, b: &SocketAddr| same_address(a, b);
        let addresses_match = self.is_wildcard()
            || (same(&self.remote_data, &remote.unwrap_or(endpoint_channel.remote_data))
                && same(&self.local_data, &local.unwrap_or(endpoint_channel.local_data)));
        if !addresses_match {
            return Err(Error::invalid_argument(format!(
                "matching tag {tag} has mismatched endpoint or control: {} <> {}",
                self.original_uri, endpoint_channel.original_uri
            )));
        }
        Ok(true)
    }
}

/// Address and port equality, ignoring IPv6 flow info and scope (as Aeron compares them).
pub fn same_address(a: &SocketAddr, b: &SocketAddr) -> bool {
    a.port() == b.port()
        && match (a.ip(), b.ip()) {
            (IpAddr::V4(x), IpAddr::V4(y)) => x == y,
            (IpAddr::V6(x), IpAddr::V6(y)) => x == y,
            _ => false,
        }
}

/// The addresses one of the three shapes gives a channel.
struct Shape {
    is_multicast: bool,
    remote_data: SocketAddr,
    remote_control: SocketAddr,
    local: SocketAddr,
    interface_index: u32,
    multicast_ttl: u8,
    canonical_form: String,
}

/// `UDP-<local>-<remote>[suffix]`; `unique` is `Some(channel tag)` when a suffix is needed.
fn canonical_form(local: &str, remote: &str, unique: Option<Option<i64>>) -> String {
    let suffix = match unique {
        None => String::new(),
        Some(Some(tag)) => format!("#{tag}"),
        Some(None) => format!("-{}", UNIQUE_CANONICAL_FORM_VALUE.fetch_add(1, Ordering::Relaxed)),
    };
    format!("UDP-{local}-{remote}{suffix}")
}

#[cfg(test)]
#[path = "udp_channel_tests.rs"]
mod tests;
