//! What a network subscription takes from its UDP channel beyond the common subscription
//! parameters (`spec/channel-uri.md` §2, `spec/flow-congestion-loss.md` §2-3): receiver
//! window, congestion control, NAK delay, group semantics and group tag, untethered
//! timeouts.
#![forbid(unsafe_code)]

use crate::driver::conductor::params::{SubscriptionParams, invalid_param};
use crate::driver::congestion::{CongestionControlKind, congestion_control_for_channel};
use crate::driver::context::DriverContext;
use crate::driver::media::udp_channel::UdpChannel;
use crate::uri::InferableBoolean;
use crate::uri::keys::CONGESTION_CONTROL;
use crate::util::error::Result;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NetworkSubscriptionParams {
    pub common: SubscriptionParams,
    pub congestion_control: CongestionControlKind,
    /// `nak-delay` for unicast images; the driver's delay when absent.
    pub nak_delay_ns: Option<u64>,
    pub group: InferableBoolean,
    /// Sent in status messages when set (`gtag`, else `AERON_RECEIVER_GROUP_TAG`).
    pub group_tag: Option<i64>,
    /// `rcv-wnd`, else `AERON_RCV_INITIAL_WINDOW_LENGTH`.
    pub initial_window_length: usize,
    pub untethered_window_limit_timeout_ns: u64,
    pub untethered_resting_timeout_ns: u64,
    /// `control-mode=response`: a response subscription, waiting for its session id.
    pub is_response: bool,
}

impl NetworkSubscriptionParams {
    pub fn parse(ctx: &DriverContext, channel: &UdpChannel) -> Result<Self> {
        let uri = &channel.uri;
        let common = SubscriptionParams::parse(ctx, |key| uri.get(key))?;
        let invalid = |e: crate::util::error::Error| invalid_param(e.message().to_string());
        let congestion_control =
            congestion_control_for_channel(&ctx.congestion_control_supplier, uri.get(CONGESTION_CONTROL))
                .map_err(invalid)?;
        Ok(Self {
            common,
            congestion_control,
            nak_delay_ns: uri.nak_delay_ns().map_err(invalid)?,
            group: uri.group().map_err(invalid)?.unwrap_or(match ctx.network.receiver_group_consideration {
                crate::driver::network_config::InferableBoolean::ForceTrue => InferableBoolean::True,
                crate::driver::network_config::InferableBoolean::ForceFalse => InferableBoolean::False,
                crate::driver::network_config::InferableBoolean::Infer => InferableBoolean::Infer,
            }),
            group_tag: uri.group_tag().map_err(invalid)?.or(ctx.network.receiver_group_tag),
            initial_window_length: channel.receiver_window_length.unwrap_or(ctx.rcv_initial_window_length),
            untethered_window_limit_timeout_ns: uri
                .untethered_window_limit_timeout_ns()
                .map_err(invalid)?
                .unwrap_or(ctx.untethered_window_limit_timeout_ns),
            untethered_resting_timeout_ns: uri
                .untethered_resting_timeout_ns()
                .map_err(invalid)?
                .unwrap_or(ctx.untethered_resting_timeout_ns),
            is_response: channel.is_response(),
        })
    }

    /// Whether an image is treated as multicast (optimal multicast NAK back-off): the
    /// `group` setting, or with `infer` a multicast channel or the SETUP's GROUP flag
    /// (the sender has several receivers: multicast or multi-destination-cast).
    pub fn treat_as_multicast(&self, setup_flags: u8, is_multicast_channel: bool) -> bool {
        match self.group {
            InferableBoolean::True => true,
            InferableBoolean::False => false,
            InferableBoolean::Infer => {
                is_multicast_channel || setup_flags & crate::protocol::setup::SETUP_GROUP_FLAG != 0
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(uri: &str) -> Result<NetworkSubscriptionParams> {
        NetworkSubscriptionParams::parse(&DriverContext::default(), &UdpChannel::parse(uri).unwrap())
    }

    #[test]
    fn defaults_and_overrides() {
        let p = params("aeron:udp?endpoint=127.0.0.1:20121").unwrap();
        assert_eq!(p.congestion_control, CongestionControlKind::StaticWindow);
        assert_eq!((p.nak_delay_ns, p.group_tag, p.initial_window_length), (None, None, 128 * 1024));
        assert!(p.common.is_reliable && p.common.is_tether && p.common.is_rejoin);
        assert!(!p.treat_as_multicast(0, false));
        assert!(p.treat_as_multicast(0x40, false), "inferred from the SETUP GROUP flag");
        assert!(p.treat_as_multicast(0, true), "inferred from a multicast channel");
        let p = params(
            "aeron:udp?endpoint=127.0.0.1:20121|cc=cubic|nak-delay=1ms|gtag=7|rcv-wnd=64k|group=false|reliable=false",
        )
        .unwrap();
        assert_eq!(p.congestion_control, CongestionControlKind::Cubic);
        assert_eq!((p.nak_delay_ns, p.group_tag, p.initial_window_length), (Some(1_000_000), Some(7), 65536));
        assert!(!p.common.is_reliable);
        assert!(!p.treat_as_multicast(0x40, true));
        assert!(params("aeron:udp?endpoint=127.0.0.1:20121|cc=bbr").is_err());
    }
}
