//! Settings of the network side of the driver that the base context does not carry:
//! flow control groups, receiver group tags, name resolution, wildcard port ranges and
//! socket batching. Every setting reads Aeron's environment variable with Aeron's default.
#![forbid(unsafe_code)]

use crate::driver::media::udp_transport::UdpIo;
use crate::util::config::{check_range, env, env_or, parse_bool, parse_duration_ns, parse_i64};
use crate::util::error::{Error, Result};

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

/// Network settings of the driver context (`DriverContext::network`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetworkConfig {
    /// `AERON_MIN_MULTICAST_FLOW_CONTROL_RECEIVER_TIMEOUT`: a receiver silent this long
    /// leaves min/tagged flow control.
    pub flow_control_receiver_timeout_ns: u64,
    /// `AERON_FLOW_CONTROL_GROUP_TAG`: default group tag of tagged flow control.
    pub flow_control_group_tag: i64,
    /// `AERON_FLOW_CONTROL_GROUP_MIN_SIZE`: receivers needed before a tagged group is live.
    pub flow_control_group_min_size: i32,
    /// `AERON_RECEIVER_GROUP_TAG`: the tag receivers send in status messages, if any.
    pub receiver_group_tag: Option<i64>,
    /// `AERON_RECEIVER_GROUP_CONSIDERATION`.
    pub receiver_group_consideration: InferableBoolean,
    /// `AERON_DRIVER_CONNECT`: whether channels connect their sockets by default.
    pub connect_enabled: bool,
    /// `AERON_DRIVER_RESOLVER_NAME`: this driver's name for the name resolver.
    pub resolver_name: Option<String>,
    /// `AERON_DRIVER_RESOLVER_INTERFACE`: `host:port` the name resolver listens on.
    pub resolver_interface: Option<String>,
    /// `AERON_DRIVER_RESOLVER_BOOTSTRAP_NEIGHBOR`: `host:port` of a neighbour to join.
    pub resolver_bootstrap_neighbor: Option<String>,
    /// `AERON_NAME_RESOLVER_INIT_ARGS`.
    pub name_resolver_init_args: Option<String>,
    /// `AERON_DRIVER_RERESOLUTION_CHECK_INTERVAL`.
    pub re_resolution_check_interval_ns: u64,
    /// `AERON_SENDER_WILDCARD_PORT_RANGE`.
    pub sender_wildcard_port_range: PortRange,
    /// `AERON_RECEIVER_WILDCARD_PORT_RANGE`.
    pub receiver_wildcard_port_range: PortRange,
    /// `AERON_RECEIVER_IO_VECTOR_CAPACITY` (1..=16): datagrams read per receive call.
    pub receiver_io_vector_capacity: u32,
    /// `AERON_SENDER_IO_VECTOR_CAPACITY` (1..=16).
    pub sender_io_vector_capacity: u32,
    /// `AERON_NETWORK_PUBLICATION_MAX_MESSAGES_PER_SEND` (1..=16).
    pub network_publication_max_messages_per_send: u32,
    /// `AERONRS_MAX_IMAGES_PER_ENDPOINT` (aeronrs only, ≥ 1, default 1024): the most images
    /// one receive channel endpoint has or is building at once. A SETUP beyond it is
    /// refused: unsolicited SETUPs (forged or not) cannot make the driver build images and
    /// log buffers without bound.
    pub max_images_per_endpoint: u32,
    /// `AERONRS_MAX_IMAGES_PER_SOURCE` (aeronrs only, ≥ 1, default 256): the same per source
    /// host (IP address) on one endpoint, so one host cannot take the whole endpoint's share.
    pub max_images_per_source: u32,
    /// `AERONRS_UDP_MMSG_ENABLED`, `AERONRS_UDP_GSO_ENABLED`, `AERONRS_UDP_GRO_ENABLED`
    /// (aeronrs only, default true): batched `recvmmsg` / `sendmmsg`, segmentation offload
    /// for runs of equal-sized datagrams, receive offload.
    pub udp_io: UdpIo,
}

const SECOND_NS: u64 = 1_000_000_000;
/// Aeron's limit on the socket batching settings.
pub const MAX_IO_VECTOR_CAPACITY: u32 = 16;

impl Default for NetworkConfig {
    fn default() -> Self {
        Self {
            flow_control_receiver_timeout_ns: 5 * SECOND_NS,
            flow_control_group_tag: -1,
            flow_control_group_min_size: 0,
            receiver_group_tag: None,
            receiver_group_consideration: InferableBoolean::Infer,
            connect_enabled: true,
            resolver_name: None,
            resolver_interface: None,
            resolver_bootstrap_neighbor: None,
            name_resolver_init_args: None,
            re_resolution_check_interval_ns: SECOND_NS,
            sender_wildcard_port_range: PortRange::default(),
            receiver_wildcard_port_range: PortRange::default(),
            receiver_io_vector_capacity: 2,
            sender_io_vector_capacity: 2,
            network_publication_max_messages_per_send: 2,
            max_images_per_endpoint: 1024,
            max_images_per_source: 256,
            udp_io: UdpIo::default(),
        }
    }
}

fn int_in(name: &str, default: i64, min: i64, max: i64) -> Result<i64> {
    env_or(name, default, parse_i64).and_then(|v| check_range(name, v, min, max))
}

fn batch(name: &str, default: u32) -> Result<u32> {
    Ok(int_in(name, default.into(), 1, MAX_IO_VECTOR_CAPACITY.into())? as u32)
}

fn port_range(name: &str) -> Result<PortRange> {
    env(name).map_or(Ok(PortRange::default()), |v| PortRange::parse(name, &v))
}

impl NetworkConfig {
    /// Defaults overridden by every variable that is set; malformed values are errors
    /// naming the variable.
    pub fn from_env() -> Result<Self> {
        let d = Self::default();
        Ok(Self {
            flow_control_receiver_timeout_ns: env_or(
                "AERON_MIN_MULTICAST_FLOW_CONTROL_RECEIVER_TIMEOUT",
                d.flow_control_receiver_timeout_ns,
                parse_duration_ns,
            )?,
            flow_control_group_tag: env_or(
                "AERON_FLOW_CONTROL_GROUP_TAG",
                d.flow_control_group_tag,
                parse_i64,
            )?,
            flow_control_group_min_size: int_in("AERON_FLOW_CONTROL_GROUP_MIN_SIZE", 0, 0, i32::MAX.into())?
                as i32,
            receiver_group_tag: env("AERON_RECEIVER_GROUP_TAG")
                .map(|v| parse_i64("AERON_RECEIVER_GROUP_TAG", &v))
                .transpose()?,
            receiver_group_consideration: env("AERON_RECEIVER_GROUP_CONSIDERATION")
                .map_or(d.receiver_group_consideration, |v| InferableBoolean::parse(&v)),
            connect_enabled: env_or("AERON_DRIVER_CONNECT", d.connect_enabled, parse_bool)?,
            resolver_name: env("AERON_DRIVER_RESOLVER_NAME"),
            resolver_interface: env("AERON_DRIVER_RESOLVER_INTERFACE"),
            resolver_bootstrap_neighbor: env("AERON_DRIVER_RESOLVER_BOOTSTRAP_NEIGHBOR"),
            name_resolver_init_args: env("AERON_NAME_RESOLVER_INIT_ARGS"),
            re_resolution_check_interval_ns: env_or(
                "AERON_DRIVER_RERESOLUTION_CHECK_INTERVAL",
                d.re_resolution_check_interval_ns,
                parse_duration_ns,
            )?,
            sender_wildcard_port_range: port_range("AERON_SENDER_WILDCARD_PORT_RANGE")?,
            receiver_wildcard_port_range: port_range("AERON_RECEIVER_WILDCARD_PORT_RANGE")?,
            receiver_io_vector_capacity: batch(
                "AERON_RECEIVER_IO_VECTOR_CAPACITY",
                d.receiver_io_vector_capacity,
            )?,
            sender_io_vector_capacity: batch("AERON_SENDER_IO_VECTOR_CAPACITY", d.sender_io_vector_capacity)?,
            network_publication_max_messages_per_send: batch(
                "AERON_NETWORK_PUBLICATION_MAX_MESSAGES_PER_SEND",
                d.network_publication_max_messages_per_send,
            )?,
            max_images_per_endpoint: int_in(
                "AERONRS_MAX_IMAGES_PER_ENDPOINT",
                d.max_images_per_endpoint.into(),
                1,
                u32::MAX.into(),
            )? as u32,
            max_images_per_source: int_in(
                "AERONRS_MAX_IMAGES_PER_SOURCE",
                d.max_images_per_source.into(),
                1,
                u32::MAX.into(),
            )? as u32,
            udp_io: UdpIo {
                mmsg: env_or("AERONRS_UDP_MMSG_ENABLED", d.udp_io.mmsg, parse_bool)?,
                gso: env_or("AERONRS_UDP_GSO_ENABLED", d.udp_io.gso, parse_bool)?,
                gro: env_or("AERONRS_UDP_GRO_ENABLED", d.udp_io.gro, parse_bool)?,
            },
        })
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
