//! Settings of the network side of the driver that the base context does not carry:
//! flow control groups, receiver group tags, name resolution, wildcard port ranges and
//! socket batching. Every setting reads Aeron's environment variable with Aeron's default.
#![forbid(unsafe_code)]

use crate::driver::media::udp_transport::UdpIo;
use crate::util::config::env;
use crate::util::error::{Error, Result};
use crate::util::settings::{ParseSetting, Setting, SettingsTable};

/// A boolean that may be left for the driver to infer (`AERON_RECEIVER_GROUP_CONSIDERATION`:
/// `true`, `infer`, anything else is false).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InferableBoolean {
    ForceFalse,
    ForceTrue,
    Infer,
}

impl InferableBoolean {
    pub fn parse(value: &str) -> Self {
        match value {
            "true" => Self::ForceTrue,
            "infer" => Self::Infer,
            _ => Self::ForceFalse,
        }
    }
}

/// An inclusive range of UDP ports for wildcard (port 0) endpoints; `0 0` means any port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PortRange {
    pub low: u16,
    pub high: u16,
}

impl PortRange {
    /// Parses `"<low> <high>"` (Aeron's format), requiring `low <= high`.
    pub fn parse(name: &str, value: &str) -> Result<Self> {
        let mut parts = value.split_whitespace();
        let port = |part: Option<&str>| -> Result<u16> {
            part.and_then(|p| p.parse().ok()).ok_or_else(|| {
                Error::invalid_argument(format!("{name}={value:?} is not '<low port> <high port>'"))
            })
        };
        let (low, high) = (port(parts.next())?, port(parts.next())?);
        if parts.next().is_some() || low > high {
            return Err(Error::invalid_argument(format!(
                "{name}={value:?}: expected '<low port> <high port>' with low <= high"
            )));
        }
        Ok(Self { low, high })
    }
}

impl ParseSetting for InferableBoolean {
    fn parse_setting(_name: &str, value: &str) -> Result<Self> {
        Ok(Self::parse(value))
    }
}

impl ParseSetting for PortRange {
    fn parse_setting(name: &str, value: &str) -> Result<Self> {
        Self::parse(name, value)
    }
}

const SECOND_NS: u64 = 1_000_000_000;
/// Aeron's limit on the socket batching settings.
pub const MAX_IO_VECTOR_CAPACITY: u32 = 16;

crate::settings_table! {
    /// Network settings of the driver context (`DriverContext::network`), one row each.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct NetworkConfig {
        /// how long a silent receiver stays in min/tagged flow control, in ns (default 5 s)
        pub flow_control_receiver_timeout_ns: u64 = 5 * SECOND_NS; duration env "AERON_MIN_MULTICAST_FLOW_CONTROL_RECEIVER_TIMEOUT", c(aeron, flow_control_receiver_timeout_ns, u64);
        /// the default group tag of tagged flow control (default -1)
        pub flow_control_group_tag: i64 = -1; int env "AERON_FLOW_CONTROL_GROUP_TAG", c(aeron, flow_control_group_tag, i64);
        /// the receivers a tagged flow control group needs before it is live (default 0)
        pub flow_control_group_min_size: i32 = 0; int env "AERON_FLOW_CONTROL_GROUP_MIN_SIZE" in [0, i32::MAX], c(aeron, flow_control_group_min_size, i32);
        /// the tag receivers send in status messages, if any (default none)
        pub receiver_group_tag: Option<i64> = None; parsed env "AERON_RECEIVER_GROUP_TAG", c(aeron, receiver_group_tag, custom);
        /// whether receivers consider themselves a group: `true`, `infer`, else false (default infer)
        pub receiver_group_consideration: InferableBoolean = InferableBoolean::Infer; parsed env "AERON_RECEIVER_GROUP_CONSIDERATION", c(aeron, receiver_group_consideration, custom);
        /// whether UDP channels connect their sockets by default (default true)
        pub connect_enabled: bool = true; flag env "AERON_DRIVER_CONNECT", c(aeron, connect_enabled, bool -> c_int);
        /// this driver's name for the name resolver
        pub resolver_name: Option<String> = None; opt_text env "AERON_DRIVER_RESOLVER_NAME", c(aeron, resolver_name, custom);
        /// `host:port` the name resolver listens on
        pub resolver_interface: Option<String> = None; opt_text env "AERON_DRIVER_RESOLVER_INTERFACE", c(aeron, resolver_interface, custom);
        /// `host:port` of a name resolver neighbour to join
        pub resolver_bootstrap_neighbor: Option<String> = None; opt_text env "AERON_DRIVER_RESOLVER_BOOTSTRAP_NEIGHBOR", c(aeron, resolver_bootstrap_neighbor, custom);
        /// the arguments the name resolver is made with
        pub name_resolver_init_args: Option<String> = None; opt_text env "AERON_NAME_RESOLVER_INIT_ARGS", c(aeron, name_resolver_init_args, custom);
        /// how often endpoint names are resolved again, in ns (default 1 s)
        pub re_resolution_check_interval_ns: u64 = SECOND_NS; duration env "AERON_DRIVER_RERESOLUTION_CHECK_INTERVAL", c(aeron, re_resolution_check_interval_ns, u64);
        /// the ports wildcard (port 0) send endpoints bind in, `<low> <high>` (default any)
        pub sender_wildcard_port_range: PortRange = PortRange::default(); parsed env "AERON_SENDER_WILDCARD_PORT_RANGE", c(aeron, sender_wildcard_port_range, custom);
        /// the ports wildcard (port 0) receive endpoints bind in, `<low> <high>` (default any)
        pub receiver_wildcard_port_range: PortRange = PortRange::default(); parsed env "AERON_RECEIVER_WILDCARD_PORT_RANGE", c(aeron, receiver_wildcard_port_range, custom);
        /// datagrams the receiver reads per system call, 1 to 16 (default 2)
        pub receiver_io_vector_capacity: u32 = 2; int env "AERON_RECEIVER_IO_VECTOR_CAPACITY" in [1, MAX_IO_VECTOR_CAPACITY], c(aeron, receiver_io_vector_capacity, u32);
        /// datagrams the sender writes per system call, 1 to 16 (default 2)
        pub sender_io_vector_capacity: u32 = 2; int env "AERON_SENDER_IO_VECTOR_CAPACITY" in [1, MAX_IO_VECTOR_CAPACITY], c(aeron, sender_io_vector_capacity, u32);
        /// frames a network publication sends per duty cycle, 1 to 16 (default 2)
        pub network_publication_max_messages_per_send: u32 = 2; int env "AERON_NETWORK_PUBLICATION_MAX_MESSAGES_PER_SEND" in [1, MAX_IO_VECTOR_CAPACITY], c(aeron, network_publication_max_messages_per_send, u32);
        /// the most images one receive channel endpoint has or is building at once, at least 1
        /// (default 1024; aeronrs only): a SETUP beyond it is refused, so unsolicited SETUPs
        /// (forged or not) cannot make the driver build images and log buffers without bound
        pub max_images_per_endpoint: u32 = 1024; int env "AERONRS_MAX_IMAGES_PER_ENDPOINT" in [1, u32::MAX], c(aeronrs, max_images_per_endpoint, u32, checked);
        /// the most images one source host (IP address) has at once on one receive channel
        /// endpoint, at least 1 (default 256; aeronrs only), so one host cannot take the whole
        /// endpoint's share
        pub max_images_per_source: u32 = 256; int env "AERONRS_MAX_IMAGES_PER_SOURCE" in [1, u32::MAX], c(aeronrs, max_images_per_source, u32, checked);
        /// whether the driver's own sockets use `recvmmsg` / `sendmmsg`, several datagrams per system call, falling back to plain calls where the kernel refuses (default true; aeronrs only)
        pub udp_mmsg_enabled: bool = true; flag env "AERONRS_UDP_MMSG_ENABLED", c(aeronrs, udp_mmsg_enabled, bool);
        /// whether the driver's own sockets use UDP segmentation offload (`UDP_SEGMENT`) for runs of equal-sized datagrams to one destination, falling back where the kernel refuses (default true; aeronrs only)
        pub udp_gso_enabled: bool = true; flag env "AERONRS_UDP_GSO_ENABLED", c(aeronrs, udp_gso_enabled, bool);
        /// whether the driver's own sockets use UDP receive offload (`UDP_GRO`), splitting merged datagrams before dispatch, falling back where the kernel refuses (default true; aeronrs only)
        pub udp_gro_enabled: bool = true; flag env "AERONRS_UDP_GRO_ENABLED", c(aeronrs, udp_gro_enabled, bool);
    }
}

impl SettingsTable for NetworkConfig {
    /// Defaults overridden by every variable that is set; malformed values are errors
    /// naming the variable.
    fn from_env() -> Result<Self> {
        let config = Self::load_rows(env)?;
        config.check_row_ranges()?;
        Ok(config)
    }

    fn settings() -> Vec<Setting> {
        Self::settings()
    }

    fn check_ranges(&self) -> Result<()> {
        self.check_row_ranges()
    }
}

impl NetworkConfig {
    /// The socket batching and offload switches, as the transports take them.
    pub fn udp_io(&self) -> UdpIo {
        UdpIo { mmsg: self.udp_mmsg_enabled, gso: self.udp_gso_enabled, gro: self.udp_gro_enabled }
    }

    pub fn set_udp_io(&mut self, io: UdpIo) {
        (self.udp_mmsg_enabled, self.udp_gso_enabled, self.udp_gro_enabled) = (io.mmsg, io.gso, io.gro);
    }

    /// As [`SettingsTable::from_env`].
    pub fn from_env() -> Result<Self> {
        <Self as SettingsTable>::from_env()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_ranges_parse_like_aeron() {
        assert_eq!(PortRange::parse("X", "20000 20010").unwrap(), PortRange { low: 20000, high: 20010 });
        assert_eq!(PortRange::parse("X", " 5  5 ").unwrap(), PortRange { low: 5, high: 5 });
        assert!(PortRange::parse("X", "20010 20000").is_err());
        assert!(PortRange::parse("X", "1").is_err());
        assert!(PortRange::parse("X", "1 70000").is_err());
        assert!(PortRange::parse("X", "1 2 3").unwrap_err().message().contains("X="));
    }

    #[test]
    fn inferable_booleans() {
        assert_eq!(InferableBoolean::parse("true"), InferableBoolean::ForceTrue);
        assert_eq!(InferableBoolean::parse("infer"), InferableBoolean::Infer);
        assert_eq!(InferableBoolean::parse("no"), InferableBoolean::ForceFalse);
        assert_eq!(NetworkConfig::default().receiver_group_consideration, InferableBoolean::Infer);
    }
}
