//! Which flow-control strategy a publication gets (`spec/flow-congestion-loss.md` §1.1):
//! plain unicast channels use the driver's unicast supplier (the `fc` parameter is
//! ignored); multicast and multi-destination channels use `fc` (`max`, `min`, `tagged`,
//! optionally followed by `,options`) or else the driver's multicast supplier.
//!
//! Supplier names accepted for `AERON_UNICAST_FLOWCONTROL_SUPPLIER` /
//! `AERON_MULTICAST_FLOWCONTROL_SUPPLIER`: the C function names and the short names
//! `unicast_max`, `multicast_max`, `multicast_min`, `multicast_tagged` (and `unicast`,
//! `max`, `min`, `tagged`). Min and tagged are recognised but not built yet.
#![forbid(unsafe_code)]

use super::{FlowControl, UnicastFlowControl};
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

    /// The strategy named by an `fc` URI value: its first comma-separated token.
    pub fn from_fc_param(fc: &str) -> Result<Self> {
        let name = fc.split(',').next().unwrap_or("");
        match name {
            "" => Err(Error::invalid_argument(format!("no flow control strategy name specified: fc={fc}"))),
            "max" => Ok(Self::Max),
            "min" => Ok(Self::Min),
            "tagged" => Ok(Self::Tagged),
            other => {
                Err(Error::invalid_argument(format!("invalid flow control strategy name: {other} (fc={fc})")))
            }
        }
    }

    /// A strategy instance (per publication).
    pub fn build(self) -> Result<Box<dyn FlowControl>> {
        match self {
            Self::Unicast => Ok(Box::new(UnicastFlowControl::unicast())),
            Self::Max => Ok(Box::new(UnicastFlowControl::max_multicast())),
            Self::Min | Self::Tagged => {
                Err(Error::not_supported(format!("{self:?} multicast flow control is not supported yet")))
            }
        }
    }
}

/// The kind for a channel: `unicast_supplier` for plain unicast channels; otherwise the
/// `fc` parameter if given, else `multicast_supplier`.
pub fn flow_control_for_channel(
    is_multicast_or_multi_destination: bool,
    fc_param: Option<&str>,
    unicast_supplier: &str,
    multicast_supplier: &str,
) -> Result<FlowControlKind> {
    if !is_multicast_or_multi_destination {
        return FlowControlKind::from_supplier_name(unicast_supplier);
    }
    match fc_param {
        Some(fc) => FlowControlKind::from_fc_param(fc),
        None => FlowControlKind::from_supplier_name(multicast_supplier),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_rules() {
        let pick = |mdc, fc| flow_control_for_channel(mdc, fc, "unicast", "max");
        assert_eq!(pick(false, Some("min,g:/3")).unwrap(), FlowControlKind::Unicast);
        assert_eq!(pick(true, None).unwrap(), FlowControlKind::Max);
        assert_eq!(pick(true, Some("min,t:2s")).unwrap(), FlowControlKind::Min);
        assert_eq!(pick(true, Some("tagged,g:42/2")).unwrap(), FlowControlKind::Tagged);
        assert_eq!(pick(true, Some("max")).unwrap(), FlowControlKind::Max);
        assert!(pick(true, Some("")).unwrap_err().message().contains("no flow control strategy name"));
        assert!(
            pick(true, Some("maximum")).unwrap_err().message().contains("invalid flow control strategy name")
        );
    }

    #[test]
    fn supplier_names() {
        for (name, kind) in [
            ("aeron_unicast_flow_control_strategy_supplier", FlowControlKind::Unicast),
            ("unicast_max", FlowControlKind::Unicast),
            ("aeron_max_multicast_flow_control_strategy_supplier", FlowControlKind::Max),
            ("multicast_min", FlowControlKind::Min),
            ("aeron_tagged_flow_control_strategy_supplier", FlowControlKind::Tagged),
        ] {
            assert_eq!(FlowControlKind::from_supplier_name(name).unwrap(), kind);
        }
        assert!(FlowControlKind::from_supplier_name("fast").is_err());
        assert!(FlowControlKind::Unicast.build().unwrap().has_required_receivers());
        let err = FlowControlKind::Min.build().err().unwrap();
        assert!(err.message().contains("not supported yet"));
    }
}
