//! Publication and subscription parameters taken from a channel URI for IPC
//! (`spec/channel-uri.md` §3): defaults from the driver context, each given parameter
//! validated. A bad value is GENERIC_ERROR (an `EINVAL` failure), as Aeron C's driver
//! reports every parameter error; INVALID_CHANNEL is kept for what C calls an invalid
//! channel (URI syntax, the wrong media, a UDP channel with nothing to address, the
//! destination rules). The message names the parameter.
//!
//! The URI itself is parsed by `crate::uri`; these functions only see a look-up of its
//! parameters, so they work for any channel type.
#![forbid(unsafe_code)]

use crate::driver::context::{DriverContext, check_mtu, check_term_length};
use crate::util::config::{parse_duration_ns, parse_size};
use crate::util::error::{AeronErrorCode, Error, Result};

const FRAME_ALIGNMENT: u64 = 32;
/// Aeron: `FRAME_MAX_MESSAGE_LENGTH`.
const MAX_MESSAGE_LENGTH: u64 = 16 * 1024 * 1024;

/// A channel that is invalid as a whole (INVALID_CHANNEL).
pub fn invalid_channel(message: impl Into<String>) -> Error {
    Error::aeron(AeronErrorCode::InvalidChannel, message)
}

/// A parameter value or combination the driver refuses (`EINVAL`, so GENERIC_ERROR on the
/// wire, as from Aeron C's driver).
pub fn invalid_param(message: impl Into<String>) -> Error {
    Error::invalid_argument(message)
}

/// What an explicit `session-id=tag:<n>` refers to: an existing publication's identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaggedPublication {
    pub session_id: i32,
    pub mtu_length: usize,
    pub term_length: usize,
}

/// `init-term-id`, `term-id`, `term-offset`: where a new publication starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StartPosition {
    pub initial_term_id: i32,
    pub term_id: i32,
    pub term_offset: i32,
}

/// Everything a publication takes from its URI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicationParams {
    pub term_length: usize,
    pub has_term_length: bool,
    pub mtu_length: usize,
    pub has_mtu_length: bool,
    pub publication_window_length: usize,
    pub linger_timeout_ns: u64,
    pub untethered_window_limit_timeout_ns: u64,
    pub untethered_resting_timeout_ns: u64,
    pub session_id: Option<i32>,
    pub position: Option<StartPosition>,
    pub is_sparse: bool,
    pub signal_eos: bool,
    pub spies_simulate_connection: bool,
    pub entity_tag: i64,
    pub response_correlation_id: i64,
    /// `control-mode=response` on a UDP channel (a response publication). Always false for
    /// IPC, where `control-mode` means nothing (as in Aeron C's driver).
    pub is_response: bool,
    pub max_resend: u32,
}

/// What a publication shared by a second ADD was made with: the ADD may not ask otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SharedLogShape {
    pub session_id: i32,
    pub mtu_length: i32,
    pub term_length: i32,
    pub initial_term_id: i32,
    pub starting_term_id: i32,
    pub starting_term_offset: i32,
}

impl PublicationParams {
    /// A second ADD on a shared publication (IPC or network) must not contradict what it
    /// was made with (`spec/channel-uri.md` §2): each parameter it names must be the same.
    pub fn confirm_shared(&self, existing: &SharedLogShape) -> Result<()> {
        let clash = |name: &str, existing: i64, requested: i64| {
            invalid_param(format!(
                "existing publication has different '{name}': existing={existing} requested={requested}"
            ))
        };
        if let Some(session_id) = self.session_id {
            if session_id != existing.session_id {
                return Err(clash("session-id", existing.session_id.into(), session_id.into()));
            }
        }
        if self.has_mtu_length && self.mtu_length as i64 != i64::from(existing.mtu_length) {
            return Err(clash("mtu", existing.mtu_length.into(), self.mtu_length as i64));
        }
        if self.has_term_length && self.term_length as i64 != i64::from(existing.term_length) {
            return Err(clash("term-length", existing.term_length.into(), self.term_length as i64));
        }
        if let Some(start) = self.position {
            for (name, existing, requested) in [
                ("init-term-id", existing.initial_term_id, start.initial_term_id),
                ("term-id", existing.starting_term_id, start.term_id),
                ("term-offset", existing.starting_term_offset, start.term_offset),
            ] {
                if requested != existing {
                    return Err(clash(name, existing.into(), requested.into()));
                }
            }
        }
        Ok(())
    }
}

/// Everything an IPC subscription takes from its URI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubscriptionParams {
    pub session_id: Option<i32>,
    pub is_tether: bool,
    pub is_sparse: bool,
    pub is_reliable: bool,
    pub is_rejoin: bool,
}

/// int32 as C's `strtol` base 0 reads it: decimal, `0x` hex, optional sign.
fn parse_i64_value(name: &str, value: &str) -> Result<i64> {
    let v = value.trim();
    let (negative, digits) = match v.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, v.strip_prefix('+').unwrap_or(v)),
    };
    let parsed = if let Some(hex) = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        i64::from_str_radix(hex, 16)
    } else {
        digits.parse::<i64>()
    };
    let magnitude = parsed.map_err(|_| invalid_param(format!("could not parse {name}={value} in URI")))?;
    Ok(if negative { -magnitude } else { magnitude })
}

fn parse_i32_value(name: &str, value: &str) -> Result<i32> {
    let v = parse_i64_value(name, value)?;
    i32::try_from(v).map_err(|_| invalid_param(format!("{name}={value} does not fit in int32")))
}

fn bool_param(name: &str, value: Option<&str>, default: bool) -> Result<bool> {
    match value.map(str::trim) {
        None => Ok(default),
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        Some(v) => Err(invalid_param(format!("{name}={v} is not true or false"))),
    }
}

fn size_param(name: &str, value: &str) -> Result<u64> {
    parse_size(name, value).map_err(|e| invalid_param(e.message().to_string()))
}

fn duration_param(name: &str, value: Option<&str>, default: u64) -> Result<u64> {
    match value {
        None => Ok(default),
        Some(v) => parse_duration_ns(name, v).map_err(|e| invalid_param(e.message().to_string())),
    }
}

/// `min(term/2, configured)` with 0 meaning term/2 (`spec/log-buffer.md` §7).
pub fn producer_window_length(configured: usize, term_length: usize) -> usize {
    let half = term_length / 2;
    if configured != 0 && configured < half { configured } else { half }
}

impl PublicationParams {
    /// Parameters of an IPC publication on stream `stream_id`. `get` looks a URI parameter
    /// up; `find_tagged` resolves `session-id=tag:<n>` to an existing publication.
    pub fn for_ipc<'a>(
        ctx: &DriverContext,
        stream_id: i32,
        get: impl Fn(&str) -> Option<&'a str>,
        find_tagged: impl Fn(i64) -> Option<TaggedPublication>,
    ) -> Result<Self> {
        let defaults =
            (ctx.ipc_term_buffer_length, ctx.ipc_mtu_length, ctx.ipc_publication_term_window_length);
        Self::parse(ctx, defaults, stream_id, get, find_tagged)
    }

    /// Parameters of a network (UDP) publication: defaults `AERON_TERM_BUFFER_LENGTH`,
    /// `AERON_MTU_LENGTH`, `AERON_PUBLICATION_TERM_WINDOW_LENGTH`.
    pub fn for_network<'a>(
        ctx: &DriverContext,
        stream_id: i32,
        get: impl Fn(&str) -> Option<&'a str>,
        find_tagged: impl Fn(i64) -> Option<TaggedPublication>,
    ) -> Result<Self> {
        let defaults = (ctx.term_buffer_length, ctx.mtu_length, ctx.publication_term_window_length);
        Self::parse(ctx, defaults, stream_id, get, find_tagged)
    }

    /// `defaults`: term length, MTU and publication window setting of the channel type.
    fn parse<'a>(
        ctx: &DriverContext,
        defaults: (usize, usize, usize),
        stream_id: i32,
        get: impl Fn(&str) -> Option<&'a str>,
        find_tagged: impl Fn(i64) -> Option<TaggedPublication>,
    ) -> Result<Self> {
        let (default_term_length, default_mtu_length, default_window) = defaults;
        let mut p = Self {
            term_length: default_term_length,
            has_term_length: false,
            mtu_length: default_mtu_length,
            has_mtu_length: false,
            publication_window_length: 0,
            linger_timeout_ns: ctx.publication_linger_timeout_ns,
            untethered_window_limit_timeout_ns: ctx.untethered_window_limit_timeout_ns,
            untethered_resting_timeout_ns: ctx.untethered_resting_timeout_ns,
            session_id: None,
            position: None,
            is_sparse: ctx.term_buffer_sparse_file,
            signal_eos: true,
            spies_simulate_connection: ctx.spies_simulate_connection,
            entity_tag: -1,
            response_correlation_id: -1,
            is_response: false,
            max_resend: ctx.max_resend,
        };

        // Java 1.47+: an explicit stream-id must agree with the command's.
        if let Some(v) = get("stream-id") {
            let configured = parse_i32_value("stream-id", v)?;
            if configured != stream_id {
                return Err(invalid_param(format!(
                    "stream-id={configured} does not match provided streamId={stream_id}"
                )));
            }
        }
        if let Some(tags) = get("tags") {
            if let Some((_, entity)) = tags.split_once(',') {
                p.entity_tag = parse_i64_value("tags", entity)?;
            }
        }
        let mut tagged = false;
        if let Some(v) = get("session-id") {
            if let Some(tag) = v.strip_prefix("tag:") {
                let tag = parse_i64_value("session-id", tag)?;
                let found = find_tagged(tag)
                    .ok_or_else(|| invalid_param(format!("session-id={v} must reference a publication")))?;
                p.session_id = Some(found.session_id);
                p.mtu_length = found.mtu_length;
                p.term_length = found.term_length;
                tagged = true;
            } else {
                p.session_id = Some(parse_i32_value("session-id", v)?);
            }
        }
        p.linger_timeout_ns = duration_param("linger", get("linger"), p.linger_timeout_ns)?;
        if let Some(v) = get("term-length") {
            let length = size_param("term-length", v)?;
            let length =
                usize::try_from(length).map_err(|_| invalid_param(format!("term-length={v} too large")))?;
            check_term_length("term-length", length).map_err(|e| invalid_param(e.message().to_string()))?;
            if tagged && length != p.term_length {
                return Err(invalid_param(format!("term-length={v} does not match session-id tag value")));
            }
            p.term_length = length;
            p.has_term_length = true;
        }
        if let Some(v) = get("max-resend") {
            let resend = size_param("max-resend", v)?;
            if !(1..=256).contains(&resend) {
                return Err(invalid_param(format!("invalid max-resend={resend}, must be > 0 and <= 256")));
            }
            p.max_resend = resend as u32;
        }
        if let Some(v) = get("mtu") {
            let mtu = size_param("mtu", v)?;
            let mtu = usize::try_from(mtu).map_err(|_| invalid_param(format!("mtu={v} too large")))?;
            check_mtu("mtu", mtu).map_err(|e| invalid_param(e.message().to_string()))?;
            if tagged && mtu != p.mtu_length {
                return Err(invalid_param(format!("mtu={v} does not match session-id tag value")));
            }
            p.mtu_length = mtu;
            p.has_mtu_length = true;
        }
        let max_message = (p.term_length as u64 / 8).min(MAX_MESSAGE_LENGTH);
        if p.mtu_length as u64 > max_message {
            return Err(invalid_param(format!(
                "MTU greater than max message length for term length: mtu={} maxMessageLength={max_message} \
                 termLength={}",
                p.mtu_length, p.term_length
            )));
        }
        p.publication_window_length = producer_window_length(default_window, p.term_length);
        if let Some(v) = get("pub-wnd") {
            let window = size_param("pub-wnd", v)?;
            if window < p.mtu_length as u64 {
                return Err(invalid_param(format!(
                    "pub-wnd={window} cannot be less than the mtu={}",
                    p.mtu_length
                )));
            }
            if window > (p.term_length as u64 >> 1) {
                return Err(invalid_param(format!(
                    "pub-wnd={window} must not exceed half the term-length={}",
                    p.term_length
                )));
            }
            p.publication_window_length = window as usize;
        }
        p.position = start_position(&get, p.term_length)?;
        p.is_sparse = bool_param("sparse", get("sparse"), p.is_sparse)?;
        p.signal_eos = bool_param("eos", get("eos"), p.signal_eos)?;
        p.spies_simulate_connection = bool_param("ssc", get("ssc"), p.spies_simulate_connection)?;
        if let Some(v) = get("response-correlation-id") {
            p.response_correlation_id = parse_i64_value("response-correlation-id", v)?;
        }
        p.untethered_window_limit_timeout_ns = duration_param(
            "untethered-window-limit-timeout",
            get("untethered-window-limit-timeout"),
            p.untethered_window_limit_timeout_ns,
        )?;
        p.untethered_resting_timeout_ns = duration_param(
            "untethered-resting-timeout",
            get("untethered-resting-timeout"),
            p.untethered_resting_timeout_ns,
        )?;
        Ok(p)
    }
}

fn start_position<'a>(
    get: &impl Fn(&str) -> Option<&'a str>,
    term_length: usize,
) -> Result<Option<StartPosition>> {
    let initial = get("init-term-id");
    let term_id = get("term-id");
    let offset = get("term-offset");
    let count = [initial, term_id, offset].iter().filter(|v| v.is_some()).count();
    if count == 0 {
        return Ok(None);
    }
    let (Some(initial), Some(term_id), Some(offset)) = (initial, term_id, offset) else {
        return Err(invalid_param("params: init-term-id term-id term-offset must be used as a complete set"));
    };
    let initial_term_id = parse_i32_value("init-term-id", initial)?;
    let term_id = parse_i32_value("term-id", term_id)?;
    let term_offset = parse_i64_value("term-offset", offset)?;
    if term_id.wrapping_sub(initial_term_id) < 0 {
        return Err(invalid_param(format!(
            "difference greater than 2^31 - 1: init-term-id={initial_term_id} when term-id={term_id}"
        )));
    }
    if term_offset < 0 || term_offset as u64 > term_length as u64 {
        return Err(invalid_param(format!("term-offset={term_offset} > term-length={term_length}")));
    }
    if term_offset as u64 % FRAME_ALIGNMENT != 0 {
        return Err(invalid_param(format!(
            "term-offset={term_offset} must be a multiple of FRAME_ALIGNMENT"
        )));
    }
    Ok(Some(StartPosition { initial_term_id, term_id, term_offset: term_offset as i32 }))
}

impl SubscriptionParams {
    /// Parameters of a subscription; defaults from the context.
    pub fn parse<'a>(ctx: &DriverContext, get: impl Fn(&str) -> Option<&'a str>) -> Result<Self> {
        let session_id = match get("session-id") {
            Some(v) => Some(parse_i32_value("session-id", v)?),
            None => None,
        };
        Ok(Self {
            session_id,
            is_tether: bool_param("tether", get("tether"), ctx.tether_subscriptions)?,
            is_sparse: bool_param("sparse", get("sparse"), ctx.term_buffer_sparse_file)?,
            is_reliable: bool_param("reliable", get("reliable"), ctx.reliable_stream)?,
            is_rejoin: bool_param("rejoin", get("rejoin"), ctx.rejoin_stream)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<&'a str> + 'a {
        move |k| pairs.iter().find(|(key, _)| *key == k).map(|(_, v)| *v)
    }

    fn ctx() -> DriverContext {
        DriverContext::default()
    }

    fn publication(pairs: &[(&str, &str)]) -> Result<PublicationParams> {
        PublicationParams::for_ipc(&ctx(), 10, lookup(pairs), |_| None)
    }

    #[test]
    fn a_second_add_may_repeat_but_not_contradict_the_shared_publication() {
        let shape = SharedLogShape {
            session_id: 7,
            mtu_length: 1408,
            term_length: 65536,
            initial_term_id: 3,
            starting_term_id: 5,
            starting_term_offset: 64,
        };
        let same = publication(&[
            ("session-id", "7"),
            ("mtu", "1408"),
            ("term-length", "64k"),
            ("init-term-id", "3"),
            ("term-id", "5"),
            ("term-offset", "64"),
        ])
        .unwrap();
        assert!(same.confirm_shared(&shape).is_ok());
        assert!(publication(&[]).unwrap().confirm_shared(&shape).is_ok());
        for (pairs, expected) in [
            (&[("session-id", "8")][..], "different 'session-id': existing=7 requested=8"),
            (&[("mtu", "4096")][..], "different 'mtu': existing=1408 requested=4096"),
            (&[("term-length", "128k")][..], "different 'term-length': existing=65536 requested=131072"),
            (
                &[("init-term-id", "4"), ("term-id", "5"), ("term-offset", "64")][..],
                "different 'init-term-id': existing=3 requested=4",
            ),
            (
                &[("init-term-id", "3"), ("term-id", "6"), ("term-offset", "64")][..],
                "different 'term-id': existing=5 requested=6",
            ),
            (
                &[("init-term-id", "3"), ("term-id", "5"), ("term-offset", "96")][..],
                "different 'term-offset': existing=64 requested=96",
            ),
        ] {
            let error = publication(pairs).unwrap().confirm_shared(&shape).unwrap_err();
            assert!(error.to_string().contains(expected), "{pairs:?}: {error}");
        }
    }

    #[test]
    fn defaults_come_from_the_context() {
        let p = publication(&[]).unwrap();
        assert_eq!(p.term_length, 64 << 20);
        assert_eq!(p.mtu_length, 1408);
        assert_eq!(p.publication_window_length, 32 << 20);
        assert_eq!(p.linger_timeout_ns, 5_000_000_000);
        assert_eq!((p.session_id, p.position, p.is_sparse, p.signal_eos), (None, None, false, true));
        assert_eq!((p.entity_tag, p.response_correlation_id), (-1, -1));
    }

    #[test]
    fn explicit_values_are_honoured() {
        let p = publication(&[
            ("term-length", "128k"),
            ("mtu", "4096"),
            ("pub-wnd", "32k"),
            ("session-id", "-77"),
            ("linger", "20ms"),
            ("sparse", "true"),
            ("eos", "false"),
            ("init-term-id", "5"),
            ("term-id", "7"),
            ("term-offset", "1024"),
            ("tags", "3,99"),
        ])
        .unwrap();
        assert_eq!((p.term_length, p.mtu_length, p.publication_window_length), (131072, 4096, 32768));
        assert_eq!(p.session_id, Some(-77));
        assert_eq!(p.linger_timeout_ns, 20_000_000);
        assert!(p.is_sparse && !p.signal_eos);
        assert_eq!(p.position, Some(StartPosition { initial_term_id: 5, term_id: 7, term_offset: 1024 }));
        assert_eq!(p.entity_tag, 99);
    }

    #[test]
    fn bad_values_are_invalid_param() {
        for pairs in [
            vec![("term-length", "1000")],
            vec![("term-length", "2g")],
            vec![("mtu", "1000")],
            vec![("pub-wnd", "64")],
            vec![("term-length", "64k"), ("pub-wnd", "64k")],
            vec![("init-term-id", "1")],
            vec![("init-term-id", "5"), ("term-id", "4"), ("term-offset", "0")],
            vec![("init-term-id", "5"), ("term-id", "5"), ("term-offset", "33")],
            vec![("session-id", "abc")],
            vec![("session-id", "tag:5")],
            vec![("sparse", "yes")],
            vec![("stream-id", "11")],
            vec![("linger", "soon")],
        ] {
            let err = publication(&pairs).unwrap_err();
            assert_eq!((err.code(), err.aeron_code()), (libc::EINVAL, None), "{pairs:?}: {err}");
            assert_eq!(
                crate::driver::conductor::Conductor::error_code_of(&err),
                AeronErrorCode::GenericError,
                "{pairs:?}"
            );
        }
    }

    #[test]
    fn tagged_session_takes_the_tagged_publication_identity() {
        let found = TaggedPublication { session_id: 42, mtu_length: 4096, term_length: 65536 };
        let p = PublicationParams::for_ipc(&ctx(), 10, lookup(&[("session-id", "tag:9")]), |t| {
            (t == 9).then_some(found)
        })
        .unwrap();
        assert_eq!((p.session_id, p.mtu_length, p.term_length), (Some(42), 4096, 65536));
    }

    #[test]
    fn subscription_params() {
        let s = SubscriptionParams::parse(&ctx(), lookup(&[("tether", "false"), ("session-id", "0x10")]))
            .unwrap();
        assert_eq!(s.session_id, Some(16));
        assert!(!s.is_tether);
        assert!(SubscriptionParams::parse(&ctx(), lookup(&[("tether", "maybe")])).is_err());
    }
}
