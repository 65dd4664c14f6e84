//! Which flow-control strategy a publication gets (`spec/flow-congestion-loss.md` §1.1):
//! plain unicast channels use the driver's unicast supplier (the `fc` parameter is
//! ignored, even when malformed, as Aeron does); multicast and multi-destination channels
//! use `fc` (`max`, `min`, `tagged`, optionally followed by `,options`) or else the
//! driver's multicast supplier. A malformed `fc` is an INVALID_CHANNEL error.
//!
//! Supplier names accepted for `AERON_UNICAST_FLOWCONTROL_SUPPLIER` /
//! `AERON_MULTICAST_FLOWCONTROL_SUPPLIER`: the C function names and the short names
//! `unicast_max`, `multicast_max`, `multicast_min`, `multicast_tagged` (and `unicast`,
//! `max`, `min`, `tagged`).
//!
//! Min and tagged take their options from `fc`, else from the driver
//! ([`FlowControlDefaults`]), and keep an `fc-receivers` counter that the conductor
//! allocates (`position_counters::allocate_flow_control_receivers`) when
//! [`FlowControlSelection::needs_receivers_counter`] says so, and frees with the publication.
#![forbid(unsafe_code)]

use super::{FlowControl, MinMulticastFlowControl, UnicastFlowControl};
use crate::driver::network_config::NetworkConfig;
use crate::driver::position_counters::Position;
use crate::uri::{FlowControlParam, FlowControlStrategy};
use crate::util::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlowControlKind {
    Unicast,
    Max,
    Min,
    Tagged,
}

impl FlowControlKind {
    /// Parses a driver supplier name.
    pub fn from_supplier_name(name: &str) -> Result<Self> {
        match name.trim() {
            "aeron_unicast_flow_control_strategy_supplier" | "unicast_max" | "unicast" => Ok(Self::Unicast),
            "aeron_max_multicast_flow_control_strategy_supplier" | "multicast_max" | "max" => Ok(Self::Max),
            "aeron_min_flow_control_strategy_supplier" | "multicast_min" | "min" => Ok(Self::Min),
            "aeron_tagged_flow_control_strategy_supplier" | "multicast_tagged" | "tagged" => Ok(Self::Tagged),
            other => Err(Error::invalid_argument(format!("unknown flow control strategy supplier: {other}"))),
        }
    }

    /// The short supplier name of the strategy (what the C getters' selectors stand for).
    pub fn short_name(self) -> &'static str {
        match self {
            Self::Unicast => "unicast_max",
            Self::Max => "multicast_max",
            Self::Min => "multicast_min",
            Self::Tagged => "multicast_tagged",
        }
    }
}

/// The short name (`unicast_max`, `multicast_max`, `multicast_min` or `multicast_tagged`)
/// of a driver supplier name.
pub fn supplier_short_name(name: &str) -> Result<&'static str> {
    FlowControlKind::from_supplier_name(name).map(FlowControlKind::short_name)
}

impl From<FlowControlStrategy> for FlowControlKind {
    fn from(strategy: FlowControlStrategy) -> Self {
        match strategy {
            FlowControlStrategy::Max => Self::Max,
            FlowControlStrategy::Min => Self::Min,
            FlowControlStrategy::Tagged => Self::Tagged,
        }
    }
}

/// The driver's settings for what `fc` options leave out (`DriverContext::network`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowControlDefaults {
    /// `AERON_MIN_MULTICAST_FLOW_CONTROL_RECEIVER_TIMEOUT` (5 s).
    pub receiver_timeout_ns: u64,
    /// `AERON_FLOW_CONTROL_GROUP_TAG` (−1).
    pub group_tag: i64,
    /// `AERON_FLOW_CONTROL_GROUP_MIN_SIZE` (0).
    pub group_min_size: i32,
}

impl From<&NetworkConfig> for FlowControlDefaults {
    fn from(network: &NetworkConfig) -> Self {
        Self {
            receiver_timeout_ns: network.flow_control_receiver_timeout_ns,
            group_tag: network.flow_control_group_tag,
            group_min_size: network.flow_control_group_min_size,
        }
    }
}

/// A publication's strategy and the `fc` options its channel gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowControlSelection {
    pub kind: FlowControlKind,
    /// `None` when the strategy came from a driver supplier.
    pub param: Option<FlowControlParam>,
}

impl FlowControlSelection {
    /// Min and tagged keep an `fc-receivers` counter (type 17).
    pub fn needs_receivers_counter(&self) -> bool {
        matches!(self.kind, FlowControlKind::Min | FlowControlKind::Tagged)
    }

    /// A strategy instance for one publication. `receivers_counter` is the publication's
    /// `fc-receivers` counter (min and tagged only; the others ignore it).
    pub fn build(
        &self,
        defaults: &FlowControlDefaults,
        receivers_counter: Option<Position>,
    ) -> Box<dyn FlowControl> {
        let param = self.param.as_ref();
        let group_min_size = param.and_then(|p| p.group_min_size).unwrap_or(defaults.group_min_size);
        let timeout = param.and_then(|p| p.receiver_timeout_ns).unwrap_or(defaults.receiver_timeout_ns);
        // Durations saturate at i64::MAX when parsed; this keeps it so for any u64.
        let receiver_timeout_ns = i64::try_from(timeout).unwrap_or(i64::MAX);
        match self.kind {
            FlowControlKind::Unicast => Box::new(UnicastFlowControl::unicast()),
            FlowControlKind::Max => Box::new(UnicastFlowControl::max_multicast()),
            FlowControlKind::Min => {
                Box::new(MinMulticastFlowControl::min(group_min_size, receiver_timeout_ns, receivers_counter))
            }
            FlowControlKind::Tagged => Box::new(MinMulticastFlowControl::tagged(
                param.and_then(|p| p.group_tag).unwrap_or(defaults.group_tag),
                group_min_size,
                receiver_timeout_ns,
                receivers_counter,
            )),
        }
    }
}

/// The strategy for a channel: `unicast_supplier` for plain unicast channels; otherwise
/// the `fc` parameter if given (parsed, INVALID_CHANNEL when malformed), else
/// `multicast_supplier`.
pub fn flow_control_for_channel(
    is_multicast_or_multi_destination: bool,
    fc_param: Option<&str>,
    unicast_supplier: &str,
    multicast_supplier: &str,
) -> Result<FlowControlSelection> {
    if !is_multicast_or_multi_destination {
        let kind = FlowControlKind::from_supplier_name(unicast_supplier)?;
        return Ok(FlowControlSelection { kind, param: None });
    }
    match fc_param {
        Some(fc) => {
            let param = FlowControlParam::parse(fc)?;
            Ok(FlowControlSelection { kind: param.strategy.into(), param: Some(param) })
        }
        None => {
            let kind = FlowControlKind::from_supplier_name(multicast_supplier)?;
            Ok(FlowControlSelection { kind, param: None })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::flow_control::ReceiverStatus;

    fn pick(multicast: bool, fc: Option<&str>) -> Result<FlowControlSelection> {
        flow_control_for_channel(multicast, fc, "unicast", "max")
    }

    fn kind(multicast: bool, fc: Option<&str>) -> FlowControlKind {
        pick(multicast, fc).unwrap().kind
    }

    #[test]
    fn selection_rules() {
        // Unicast channels ignore fc, even a malformed one.
        assert_eq!(pick(false, Some("min,g:/3")).unwrap().param, None);
        assert_eq!(kind(false, Some("min,g:/3")), FlowControlKind::Unicast);
        assert_eq!(kind(false, Some("fastest")), FlowControlKind::Unicast);
        assert_eq!(kind(true, None), FlowControlKind::Max);
        assert_eq!(kind(true, Some("min,t:2s")), FlowControlKind::Min);
        assert_eq!(kind(true, Some("tagged,g:42/2")), FlowControlKind::Tagged);
        assert_eq!(kind(true, Some("max")), FlowControlKind::Max);
        let tagged = pick(true, Some("tagged,g:42/2")).unwrap();
        assert_eq!(tagged.param.map(|p| (p.group_tag, p.group_min_size)), Some((Some(42), Some(2))));
        assert!(tagged.needs_receivers_counter());
        assert!(!pick(true, Some("max")).unwrap().needs_receivers_counter());
        assert!(!pick(false, None).unwrap().needs_receivers_counter());
        // The multicast supplier may be min or tagged too.
        let selection = flow_control_for_channel(true, None, "unicast", "multicast_tagged").unwrap();
        assert_eq!((selection.kind, selection.param), (FlowControlKind::Tagged, None));
        assert!(flow_control_for_channel(true, None, "unicast", "fastest").is_err());
    }

    #[test]
    fn a_malformed_fc_is_a_generic_error_as_in_aeron_c() {
        for (fc, why) in [
            ("", "unknown strategy ''"),
            ("maximum", "unknown strategy 'maximum'"),
            ("min,x:1", "unknown option 'x:1'"),
            ("tagged,g:abc", "group tag 'abc'"),
            ("tagged,g:0x10", "group tag '0x10'"),
            ("min,g:/x", "group min size 'x'"),
            ("min,t:soon", "timeout 'soon'"),
        ] {
            let err = pick(true, Some(fc)).unwrap_err();
            assert_eq!((err.code(), err.aeron_code()), (libc::EINVAL, None), "{fc}");
            assert!(err.message().contains(why), "{fc}: {err}");
        }
    }

    #[test]
    fn supplier_names() {
        for (name, kind) in [
            ("aeron_unicast_flow_control_strategy_supplier", FlowControlKind::Unicast),
            ("unicast_max", FlowControlKind::Unicast),
            ("aeron_max_multicast_flow_control_strategy_supplier", FlowControlKind::Max),
            ("multicast_min", FlowControlKind::Min),
            ("aeron_min_flow_control_strategy_supplier", FlowControlKind::Min),
            ("aeron_tagged_flow_control_strategy_supplier", FlowControlKind::Tagged),
            (" tagged ", FlowControlKind::Tagged),
        ] {
            assert_eq!(FlowControlKind::from_supplier_name(name).unwrap(), kind);
        }
        assert!(FlowControlKind::from_supplier_name("fast").is_err());
        for kind in
            [FlowControlKind::Unicast, FlowControlKind::Max, FlowControlKind::Min, FlowControlKind::Tagged]
        {
            assert_eq!(FlowControlKind::from_supplier_name(kind.short_name()).unwrap(), kind);
        }
        assert_eq!(supplier_short_name("aeron_min_flow_control_strategy_supplier").unwrap(), "multicast_min");
    }

    fn defaults() -> FlowControlDefaults {
        FlowControlDefaults::from(&NetworkConfig::default())
    }

    /// An SM at position 0, window 4096, from `receiver_id` with `group_tag`.
    fn sm(receiver_id: i64, group_tag: Option<i64>) -> ReceiverStatus {
        ReceiverStatus {
            flags: 0,
            consumption_term_id: 0,
            consumption_term_offset: 0,
            receiver_window: 4096,
            receiver_id,
            group_tag,
            has_malformed_group_tag: false,
        }
    }

    #[test]
    fn driver_defaults() {
        assert_eq!(
            defaults(),
            FlowControlDefaults { receiver_timeout_ns: 5_000_000_000, group_tag: -1, group_min_size: 0 }
        );
        // Tagged from the supplier: the driver's tag −1 and timeout 5 s.
        let selection = FlowControlSelection { kind: FlowControlKind::Tagged, param: None };
        let mut fc = selection.build(&defaults(), None);
        assert!(fc.has_required_receivers());
        assert_eq!(fc.on_status_message(&sm(1, Some(42)), 0, 0, 16, 0), 4096);
        assert_eq!(fc.on_status_message(&sm(2, Some(-1)), 0, 0, 16, 0), 4096);
        assert_eq!(fc.on_idle(5_000_000_000, 4096, 0, false), 4096);
        // Only the receiver with tag −1 was tracked; it times out after 5 s.
        assert_eq!(fc.on_idle(5_000_000_001, 4096, 0, false), 4096);
        assert!(fc.has_required_receivers());
        let mut fc = selection.build(&FlowControlDefaults { group_min_size: 1, ..defaults() }, None);
        assert!(!fc.has_required_receivers());
        fc.on_status_message(&sm(2, Some(-1)), 0, 0, 16, 0);
        assert!(fc.has_required_receivers());
        fc.on_idle(5_000_000_001, 4096, 0, false);
        assert!(!fc.has_required_receivers());
    }

    #[test]
    fn fc_options_override_the_defaults() {
        let selection = pick(true, Some("tagged,g:42/2,t:1s")).unwrap();
        let mut fc = selection.build(&defaults(), None);
        assert!(!fc.has_required_receivers(), "group of 2");
        fc.on_status_message(&sm(1, Some(42)), 0, 0, 16, 0);
        fc.on_status_message(&sm(2, Some(-1)), 0, 0, 16, 0);
        assert!(!fc.has_required_receivers(), "the default tag no longer counts");
        fc.on_status_message(&sm(3, Some(42)), 0, 0, 16, 0);
        assert!(fc.has_required_receivers());
        fc.on_idle(1_000_000_001, 4096, 0, false);
        assert!(!fc.has_required_receivers(), "1 s receiver timeout");
        // Min takes g:/<size> and t: but has no tag.
        let mut fc = pick(true, Some("min,g:/2")).unwrap().build(&defaults(), None);
        fc.on_status_message(&sm(1, None), 0, 0, 16, 0);
        assert!(!fc.has_required_receivers());
        fc.on_status_message(&sm(2, Some(9)), 0, 0, 16, 0);
        assert!(fc.has_required_receivers());
    }

    #[test]
    fn unicast_and_max_ignore_counters_and_options() {
        let values = crate::concurrent::AtomicBuffer::alloc(2 * 128);
        values.put_i64(0, 7);
        let counter = Some(Position::new(&values, 0));
        let fc = pick(true, Some("max,g:1/5")).unwrap().build(&defaults(), counter);
        assert!(fc.has_required_receivers());
        assert_eq!(values.get_i64(0), 7);
        let fc = pick(false, None).unwrap().build(&defaults(), None);
        assert!(fc.has_required_receivers());
        // Min and tagged write the count at once.
        let counter = Some(Position::new(&values, 0));
        pick(true, Some("min")).unwrap().build(&defaults(), counter);
        assert_eq!(values.get_i64(0), 0);
    }
}
