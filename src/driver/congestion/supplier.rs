//! Which congestion control an image gets (`spec/flow-congestion-loss.md` §2.1): the
//! driver supplier (`AERON_CONGESTIONCONTROL_SUPPLIER`) is `default` (the rule below),
//! `static` or `cubic` (or the C function names); the default rule reads the
//! subscription's `cc` parameter: absent or `static` → static window, `cubic` → CUBIC,
//! anything else is an error.
#![forbid(unsafe_code)]

use super::{
    CongestionControl, CubicCongestionControl, CubicIndicators, CubicSettings, StaticWindowCongestionControl,
};
use crate::util::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CongestionControlKind {
    StaticWindow,
    Cubic,
}

/// The driver-level supplier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Supplier {
    Default,
    Fixed(CongestionControlKind),
}

fn supplier_from_name(name: &str) -> Result<Supplier> {
    match name.trim() {
        "default" | "aeron_congestion_control_default_strategy_supplier" => Ok(Supplier::Default),
        "static" | "aeron_static_window_congestion_control_strategy_supplier" => {
            Ok(Supplier::Fixed(CongestionControlKind::StaticWindow))
        }
        "cubic" | "aeron_cubic_congestion_control_strategy_supplier" => {
            Ok(Supplier::Fixed(CongestionControlKind::Cubic))
        }
        other => Err(Error::invalid_argument(format!("unknown congestion control supplier: {other}"))),
    }
}

/// The short name (`default`, `static` or `cubic`) of a driver supplier name.
pub fn supplier_short_name(name: &str) -> Result<&'static str> {
    Ok(match supplier_from_name(name)? {
        Supplier::Default => "default",
        Supplier::Fixed(CongestionControlKind::StaticWindow) => "static",
        Supplier::Fixed(CongestionControlKind::Cubic) => "cubic",
    })
}

/// The kind for a subscription with `cc` parameter `cc_param` under driver supplier
/// `supplier_name`.
pub fn congestion_control_for_channel(
    supplier_name: &str,
    cc_param: Option<&str>,
) -> Result<CongestionControlKind> {
    match supplier_from_name(supplier_name)? {
        Supplier::Fixed(kind) => Ok(kind),
        Supplier::Default => match cc_param {
            None | Some("static") => Ok(CongestionControlKind::StaticWindow),
            Some("cubic") => Ok(CongestionControlKind::Cubic),
            Some(other) => {
                Err(Error::invalid_argument(format!("unsupported congestion control: cc={other}")))
            }
        },
    }
}

/// Everything a strategy needs about the image it serves.
#[derive(Debug, Clone)]
pub struct ImageWindowParams {
    /// The subscription's `rcv-wnd` or the driver's initial window.
    pub initial_window_length: usize,
    pub term_length: usize,
    pub sender_mtu_length: i32,
    pub now_ns: i64,
}

impl CongestionControlKind {
    /// A strategy instance for one image; `indicators` are the cubic counters (ignored by
    /// the static window).
    pub fn build(
        self,
        params: &ImageWindowParams,
        cubic: CubicSettings,
        indicators: Option<CubicIndicators>,
    ) -> Box<dyn CongestionControl> {
        match self {
            Self::StaticWindow => {
                Box::new(StaticWindowCongestionControl::new(params.initial_window_length, params.term_length))
            }
            Self::Cubic => Box::new(CubicCongestionControl::new(
                cubic,
                params.initial_window_length,
                params.term_length,
                params.sender_mtu_length,
                params.now_ns,
                indicators,
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_rules() {
        use CongestionControlKind::*;
        assert_eq!(congestion_control_for_channel("default", None).unwrap(), StaticWindow);
        assert_eq!(congestion_control_for_channel("default", Some("static")).unwrap(), StaticWindow);
        assert_eq!(congestion_control_for_channel("default", Some("cubic")).unwrap(), Cubic);
        assert_eq!(
            congestion_control_for_channel(
                "aeron_congestion_control_default_strategy_supplier",
                Some("cubic")
            )
            .unwrap(),
            Cubic
        );
        assert_eq!(congestion_control_for_channel("cubic", None).unwrap(), Cubic);
        assert_eq!(congestion_control_for_channel("static", Some("cubic")).unwrap(), StaticWindow);
        assert!(
            congestion_control_for_channel("default", Some("bbr")).unwrap_err().message().contains("cc=bbr")
        );
        assert!(congestion_control_for_channel("vegas", None).is_err());
    }

    #[test]
    fn builds_each_kind() {
        let params = ImageWindowParams {
            initial_window_length: 131072,
            term_length: 65536,
            sender_mtu_length: 1408,
            now_ns: 0,
        };
        let s = CongestionControlKind::StaticWindow.build(&params, CubicSettings::default(), None);
        assert_eq!(s.initial_window_length(), 32768);
        let c = CongestionControlKind::Cubic.build(&params, CubicSettings::default(), None);
        assert_eq!((c.initial_window_length(), c.max_window_length()), (14080, 32768));
    }

    #[test]
    fn short_names_of_suppliers() {
        assert_eq!(
            supplier_short_name("aeron_congestion_control_default_strategy_supplier").unwrap(),
            "default"
        );
        assert_eq!(supplier_short_name("static").unwrap(), "static");
        assert_eq!(supplier_short_name("aeron_cubic_congestion_control_strategy_supplier").unwrap(), "cubic");
        assert!(supplier_short_name("reno").is_err());
    }
}
