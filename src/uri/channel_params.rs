//! Typed, validated access to the parameters of a [`ChannelUri`] (`spec/channel-uri.md`
//! §2-3). Each accessor returns `Ok(None)` when the key is absent and an INVALID_CHANNEL
//! error naming the parameter when its value is malformed or out of range.
#![forbid(unsafe_code)]

use crate::protocol::header::{FRAME_ALIGNMENT, MAX_UDP_PAYLOAD_LENGTH};
use crate::uri::channel_uri::{ChannelUri, Media};
use crate::uri::endpoint::{HostPort, InterfaceAddress};
use crate::uri::flow_control_param::FlowControlParam;
use crate::uri::keys::*;
use crate::uri::value_parse::{
    invalid, parse_bool, parse_decimal_u64, parse_duration_ns, parse_i32, parse_i64, parse_size,
};
use crate::util::bits::is_power_of_two;
use crate::util::error::{AeronErrorCode, Error, Result};

pub const MIN_TERM_LENGTH: u32 = 64 * 1024;
pub const MAX_TERM_LENGTH: u32 = 1024 * 1024 * 1024;
pub const MAX_RESEND_LIMIT: u32 = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ControlMode {
    Manual,
    Dynamic,
    Response,
}

/// `group`: true, false, or infer from the channel and SETUP flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InferableBoolean {
    False,
    True,
    Infer,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CongestionControl {
    Static,
    Cubic,
}

/// `session-id`: an explicit id, or `tag:<n>` naming another publication's entity tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SessionIdParam {
    Id(i32),
    Tag(i64),
}

/// Where a receive/send timestamp goes: the reserved value field or a payload offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimestampOffset {
    Reserved,
    Offset(i32),
}

/// `tags=<channel tag>[,<entity tag>]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tags {
    pub channel_tag: Option<i64>,
    pub entity_tag: Option<i64>,
}

/// `init-term-id`, `term-id` and `term-offset`, which come as a set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct InitialPosition {
    pub initial_term_id: i32,
    pub term_id: i32,
    pub term_offset: i32,
}

impl InitialPosition {
    /// The stream position these describe in a log of `term_length` (a power of two).
    pub fn position(&self, term_length: u32) -> i64 {
        let term_count = i64::from(self.term_id.wrapping_sub(self.initial_term_id));
        (term_count << term_length.trailing_zeros()) + i64::from(self.term_offset)
    }
}

/// MTU rules: more than a header, at most the largest UDP payload, a multiple of 32.
pub fn check_mtu(key: &str, text: &str, mtu: u64) -> Result<u32> {
    if mtu <= FRAME_ALIGNMENT as u64 || mtu > MAX_UDP_PAYLOAD_LENGTH as u64 {
        return Err(invalid(
            key,
            text,
            format_args!("must be > {FRAME_ALIGNMENT} and <= {MAX_UDP_PAYLOAD_LENGTH}"),
        ));
    }
    if mtu % FRAME_ALIGNMENT as u64 != 0 {
        return Err(invalid(key, text, format_args!("must be a multiple of {FRAME_ALIGNMENT}")));
    }
    Ok(mtu as u32)
}

/// Term length rules: a power of two from 64 KiB to 1 GiB.
pub fn check_term_length(key: &str, text: &str, length: u64) -> Result<u32> {
    if !(u64::from(MIN_TERM_LENGTH)..=u64::from(MAX_TERM_LENGTH)).contains(&length) {
        return Err(invalid(key, text, format_args!("must be in {MIN_TERM_LENGTH}..={MAX_TERM_LENGTH}")));
    }
    if !is_power_of_two(length) {
        return Err(invalid(key, text, "must be a power of two"));
    }
    Ok(length as u32)
}

fn size_i32(key: &str, text: &str) -> Result<u32> {
    let size = parse_size(key, text)?;
    u32::try_from(size)
        .ok()
        .filter(|&s| s <= i32::MAX as u32)
        .ok_or_else(|| invalid(key, text, format_args!("must be <= {}", i32::MAX)))
}

fn timestamp_offset(key: &str, text: &str) -> Result<TimestampOffset> {
    if text == TIMESTAMP_OFFSET_RESERVED {
        return Ok(TimestampOffset::Reserved);
    }
    parse_i32(key, text)
        .ok()
        .filter(|&offset| offset >= 0)
        .map(TimestampOffset::Offset)
        .ok_or_else(|| invalid(key, text, "must be 'reserved' or a payload offset >= 0"))
}

fn tag(key: &str, text: &str, tag: &str) -> Result<i64> {
    parse_decimal_u64(tag)
        .and_then(|t| i64::try_from(t).ok())
        .ok_or_else(|| invalid(key, text, format_args!("tag '{tag}' is not an unsigned decimal")))
}

impl ChannelUri {
    fn typed<T>(&self, key: &str, parse: impl FnOnce(&str, &str) -> Result<T>) -> Result<Option<T>> {
        self.get(key).map(|text| parse(key, text)).transpose()
    }

    pub fn endpoint(&self) -> Result<Option<HostPort>> {
        self.typed(ENDPOINT, HostPort::parse)
    }

    pub fn interface(&self) -> Result<Option<InterfaceAddress>> {
        self.typed(INTERFACE, InterfaceAddress::parse)
    }

    pub fn control(&self) -> Result<Option<HostPort>> {
        self.typed(CONTROL, HostPort::parse)
    }

    pub fn control_mode(&self) -> Result<Option<ControlMode>> {
        self.typed(CONTROL_MODE, |key, text| match text {
            CONTROL_MODE_MANUAL => Ok(ControlMode::Manual),
            CONTROL_MODE_DYNAMIC => Ok(ControlMode::Dynamic),
            CONTROL_MODE_RESPONSE => Ok(ControlMode::Response),
            _ => Err(invalid(key, text, "must be manual, dynamic or response")),
        })
    }

    /// Multicast TTL; values above 255 clamp to 255 as in Aeron.
    pub fn ttl(&self) -> Result<Option<u8>> {
        self.typed(TTL, |key, text| {
            let ttl = parse_i64(key, text)?;
            if ttl < 0 {
                return Err(invalid(key, text, "must be >= 0"));
            }
            Ok(ttl.min(255) as u8)
        })
    }

    pub fn mtu(&self) -> Result<Option<u32>> {
        self.typed(MTU, |key, text| check_mtu(key, text, parse_size(key, text)?))
    }

    pub fn term_length(&self) -> Result<Option<u32>> {
        self.typed(TERM_LENGTH, |key, text| check_term_length(key, text, parse_size(key, text)?))
    }

    /// `init-term-id`, `term-id`, `term-offset`: all three or none; `term-id` not before
    /// `init-term-id`; the offset a multiple of 32 within the term length (the URI's
    /// `term-length`, else `default_term_length`).
    pub fn initial_position(&self, default_term_length: u32) -> Result<Option<InitialPosition>> {
        let initial_term_id = self.typed(INITIAL_TERM_ID, parse_i32)?;
        let term_id = self.typed(TERM_ID, parse_i32)?;
        let term_offset = self.typed(TERM_OFFSET, parse_i32)?;
        let (initial_term_id, term_id, term_offset) = match (initial_term_id, term_id, term_offset) {
            (None, None, None) => return Ok(None),
            (Some(i), Some(t), Some(o)) => (i, t, o),
            _ => {
                return Err(Error::invalid_argument(format!(
                    "{INITIAL_TERM_ID}, {TERM_ID} and {TERM_OFFSET} must be given together"
                )));
            }
        };
        // Aeron: term ids wrap, so the term count is a wrapping difference.
        if term_id.wrapping_sub(initial_term_id) < 0 {
            return Err(invalid(
                TERM_ID,
                &term_id.to_string(),
                format_args!("is before {INITIAL_TERM_ID}={initial_term_id}"),
            ));
        }
        let term_length = self.term_length()?.unwrap_or(default_term_length);
        let offset_text = term_offset.to_string();
        if term_offset < 0 || term_offset as u32 > term_length {
            return Err(invalid(TERM_OFFSET, &offset_text, format_args!("must be in 0..={term_length}")));
        }
        if term_offset as usize % FRAME_ALIGNMENT != 0 {
            return Err(invalid(
                TERM_OFFSET,
                &offset_text,
                format_args!("must be a multiple of {FRAME_ALIGNMENT}"),
            ));
        }
        Ok(Some(InitialPosition { initial_term_id, term_id, term_offset }))
    }

    pub fn session_id(&self) -> Result<Option<SessionIdParam>> {
        self.typed(SESSION_ID, |key, text| match text.strip_prefix(TAG_PREFIX) {
            Some(n) => tag(key, text, n).map(SessionIdParam::Tag),
            None => parse_i32(key, text).map(SessionIdParam::Id),
        })
    }

    pub fn linger_ns(&self) -> Result<Option<u64>> {
        self.typed(LINGER, parse_duration_ns)
    }

    pub fn reliable(&self) -> Result<Option<bool>> {
        self.typed(RELIABLE, parse_bool)
    }

    pub fn tags(&self) -> Result<Option<Tags>> {
        self.typed(TAGS, |key, text| {
            let (channel, entity) = match text.split_once(',') {
                Some((channel, entity)) => (channel, Some(entity)),
                None => (text, None),
            };
            let channel_tag = (!channel.is_empty()).then(|| tag(key, text, channel)).transpose()?;
            let entity_tag = entity.map(|e| tag(key, text, e)).transpose()?;
            if channel_tag.is_none() && entity_tag.is_none() {
                return Err(invalid(key, text, "no tag given"));
            }
            Ok(Tags { channel_tag, entity_tag })
        })
    }

    pub fn sparse(&self) -> Result<Option<bool>> {
        self.typed(SPARSE, parse_bool)
    }

    pub fn eos(&self) -> Result<Option<bool>> {
        self.typed(EOS, parse_bool)
    }

    pub fn tether(&self) -> Result<Option<bool>> {
        self.typed(TETHER, parse_bool)
    }

    pub fn group(&self) -> Result<Option<InferableBoolean>> {
        self.typed(GROUP, |key, text| match text {
            "true" => Ok(InferableBoolean::True),
            "false" => Ok(InferableBoolean::False),
            GROUP_INFER => Ok(InferableBoolean::Infer),
            _ => Err(invalid(key, text, "must be true, false or infer")),
        })
    }

    pub fn rejoin(&self) -> Result<Option<bool>> {
        self.typed(REJOIN, parse_bool)
    }

    pub fn spies_simulate_connection(&self) -> Result<Option<bool>> {
        self.typed(SPIES_SIMULATE_CONNECTION, parse_bool)
    }

    pub fn socket_sndbuf_length(&self) -> Result<Option<u32>> {
        self.typed(SOCKET_SNDBUF, size_i32)
    }

    pub fn socket_rcvbuf_length(&self) -> Result<Option<u32>> {
        self.typed(SOCKET_RCVBUF, size_i32)
    }

    pub fn receiver_window_length(&self) -> Result<Option<u32>> {
        self.typed(RECEIVER_WINDOW, |key, text| {
            let window = size_i32(key, text)?;
            if window == 0 {
                return Err(invalid(key, text, "must be > 0"));
            }
            Ok(window)
        })
    }

    pub fn congestion_control(&self) -> Result<Option<CongestionControl>> {
        self.typed(CONGESTION_CONTROL, |key, text| match text {
            CC_STATIC => Ok(CongestionControl::Static),
            CC_CUBIC => Ok(CongestionControl::Cubic),
            _ => Err(invalid(key, text, "must be static or cubic")),
        })
    }

    pub fn flow_control(&self) -> Result<Option<FlowControlParam>> {
        self.typed(FLOW_CONTROL, |_, text| FlowControlParam::parse(text))
    }

    /// `gtag`: the group tag this subscription's SMs carry.
    pub fn group_tag(&self) -> Result<Option<i64>> {
        self.typed(GROUP_TAG, parse_i64)
    }

    pub fn alias(&self) -> Option<&str> {
        self.get(ALIAS)
    }

    pub fn media_rcv_timestamp_offset(&self) -> Result<Option<TimestampOffset>> {
        self.typed(MEDIA_RCV_TIMESTAMP_OFFSET, timestamp_offset)
    }

    pub fn channel_rcv_timestamp_offset(&self) -> Result<Option<TimestampOffset>> {
        self.typed(CHANNEL_RCV_TIMESTAMP_OFFSET, timestamp_offset)
    }

    pub fn channel_snd_timestamp_offset(&self) -> Result<Option<TimestampOffset>> {
        self.typed(CHANNEL_SND_TIMESTAMP_OFFSET, timestamp_offset)
    }

    pub fn response_correlation_id(&self) -> Result<Option<i64>> {
        self.typed(RESPONSE_CORRELATION_ID, parse_i64)
    }

    pub fn response_endpoint(&self) -> Result<Option<HostPort>> {
        self.typed(RESPONSE_ENDPOINT, HostPort::parse)
    }

    pub fn nak_delay_ns(&self) -> Result<Option<u64>> {
        self.typed(NAK_DELAY, parse_duration_ns)
    }

    pub fn untethered_window_limit_timeout_ns(&self) -> Result<Option<u64>> {
        self.typed(UNTETHERED_WINDOW_LIMIT_TIMEOUT, parse_duration_ns)
    }

    pub fn untethered_resting_timeout_ns(&self) -> Result<Option<u64>> {
        self.typed(UNTETHERED_RESTING_TIMEOUT, parse_duration_ns)
    }

    pub fn max_resend(&self) -> Result<Option<u32>> {
        self.typed(MAX_RESEND, |key, text| {
            u32::try_from(parse_i64(key, text)?)
                .ok()
                .filter(|n| (1..=MAX_RESEND_LIMIT).contains(n))
                .ok_or_else(|| invalid(key, text, format_args!("must be in 1..={MAX_RESEND_LIMIT}")))
        })
    }

    pub fn stream_id(&self) -> Result<Option<i32>> {
        self.typed(STREAM_ID, parse_i32)
    }

    /// `pub-wnd`, which must be at least the MTU and at most half the term length in effect
    /// (`mtu`, `term_length`: the URI's values or the driver defaults).
    pub fn publication_window_length(&self, mtu: u32, term_length: u32) -> Result<Option<u32>> {
        self.typed(PUBLICATION_WINDOW, |key, text| {
            let window = size_i32(key, text)?;
            if window < mtu || window > term_length / 2 {
                return Err(invalid(
                    key,
                    text,
                    format_args!("must be in {mtu}..={} (mtu..=term-length/2)", term_length / 2),
                ));
            }
            Ok(window)
        })
    }

    pub fn ats(&self) -> Result<Option<bool>> {
        self.typed(ATS, parse_bool)
    }

    /// Every parameter of the spec whose value can be checked on its own; the first error.
    pub fn validate_known_params(&self) -> Result<()> {
        self.endpoint()?;
        self.interface()?;
        self.control()?;
        self.control_mode()?;
        self.ttl()?;
        self.mtu()?;
        self.term_length()?;
        self.initial_position(MAX_TERM_LENGTH)?;
        self.session_id()?;
        self.linger_ns()?;
        self.reliable()?;
        self.tags()?;
        self.sparse()?;
        self.eos()?;
        self.tether()?;
        self.group()?;
        self.rejoin()?;
        self.spies_simulate_connection()?;
        self.socket_sndbuf_length()?;
        self.socket_rcvbuf_length()?;
        self.receiver_window_length()?;
        self.congestion_control()?;
        self.flow_control()?;
        self.group_tag()?;
        self.media_rcv_timestamp_offset()?;
        self.channel_rcv_timestamp_offset()?;
        self.channel_snd_timestamp_offset()?;
        self.response_correlation_id()?;
        self.response_endpoint()?;
        self.nak_delay_ns()?;
        self.untethered_window_limit_timeout_ns()?;
        self.untethered_resting_timeout_ns()?;
        self.max_resend()?;
        self.stream_id()?;
        self.typed(PUBLICATION_WINDOW, size_i32)?;
        self.ats()?;
        Ok(())
    }

    /// The driver's rules for a UDP channel: an address to use (`endpoint`, `control`,
    /// `tags`, or `control-mode` manual/response) and `control` with dynamic control mode.
    pub fn validate_udp_channel(&self) -> Result<()> {
        if self.media() != Media::Udp {
            return Err(Error::aeron(
                AeronErrorCode::InvalidChannel,
                format!("'{self}' is not a UDP channel"),
            ));
        }
        let mode = self.control_mode()?;
        if mode == Some(ControlMode::Dynamic) && !self.contains(CONTROL) {
            return Err(Error::aeron(
                AeronErrorCode::InvalidChannel,
                format!("'{self}': {CONTROL_MODE}={CONTROL_MODE_DYNAMIC} requires {CONTROL}"),
            ));
        }
        let addressed = self.contains(ENDPOINT)
            || self.contains(CONTROL)
            || self.contains(TAGS)
            || matches!(mode, Some(ControlMode::Manual | ControlMode::Response));
        if !addressed {
            return Err(Error::aeron(
                AeronErrorCode::InvalidChannel,
                format!("'{self}' needs {ENDPOINT}, {CONTROL}, {TAGS} or {CONTROL_MODE}=manual/response"),
            ));
        }
        self.endpoint()?;
        self.control()?;
        self.interface()?;
        Ok(())
    }
}
