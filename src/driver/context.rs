//! The media driver's configuration: every setting read from the same environment
//! variable as Aeron's C driver, with the same default, overridable in code before start
//! (the `aeron_driver_context_set_*` functions write these fields). `validate` applies
//! Aeron's start-up rules (`spec/driver.md` §8-9) with errors that name the setting.
#![forbid(unsafe_code)]

use std::path::PathBuf;

use crate::cnc::default_aeron_dir;
use crate::driver::agent_config::AgentConfig;
use crate::driver::media::media_plugin::MediaPluginSupplier;
use crate::driver::media::name_resolver::{BuiltInNameResolver, NameResolverSupplier};
use crate::driver::media::port_manager::{PortManager, PortManagerSupplier, WildcardPortManager};
use crate::driver::network_config::NetworkConfig;
use crate::driver::termination::{TerminationHook, TerminationValidatorFn};
use crate::util::config::{check_range, env, env_or, parse_bool, parse_duration_ns, parse_i64, parse_size};
use crate::util::error::{Error, Result};
use crate::util::idle_strategy::IdleStrategy;

/// How the conductor, sender and receiver agents map onto threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThreadingMode {
    /// Conductor, sender and receiver each on its own thread.
    Dedicated,
    /// Conductor on one thread; sender and receiver share another.
    SharedNetwork,
    /// All three agents on one thread.
    Shared,
    /// No threads: the embedding application calls `do_work`.
    Invoker,
}

impl ThreadingMode {
    /// The mode's name as Aeron spells it (in settings and in counter labels).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Dedicated => "DEDICATED",
            Self::SharedNetwork => "SHARED_NETWORK",
            Self::Shared => "SHARED",
            Self::Invoker => "INVOKER",
        }
    }

    pub fn parse(value: &str) -> Result<Self> {
        match value.trim().to_ascii_uppercase().as_str() {
            "DEDICATED" => Ok(Self::Dedicated),
            "SHARED_NETWORK" => Ok(Self::SharedNetwork),
            "SHARED" => Ok(Self::Shared),
            "INVOKER" => Ok(Self::Invoker),
            _ => Err(Error::invalid_argument(format!(
                "AERON_THREADING_MODE={value:?} is not DEDICATED, SHARED_NETWORK, SHARED or INVOKER"
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Dedicated => "DEDICATED",
            Self::SharedNetwork => "SHARED_NETWORK",
            Self::Shared => "SHARED",
            Self::Invoker => "INVOKER",
        }
    }
}

/// Whether a client may terminate the driver with TERMINATE_DRIVER.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TerminationValidator {
    Deny,
    Allow,
}

const MIB: u64 = 1 << 20;
const SECOND_NS: u64 = 1_000_000_000;
const MS_NS: u64 = 1_000_000;

/// Media driver settings. Durations are nanoseconds unless the name says otherwise.
#[derive(Debug, Clone)]
pub struct DriverContext {
    pub aeron_dir: PathBuf,
    pub dir_warn_if_exists: bool,
    pub dir_delete_on_start: bool,
    pub dir_delete_on_shutdown: bool,
    pub print_configuration: bool,
    pub threading_mode: ThreadingMode,
    pub conductor_idle_strategy: IdleStrategy,
    pub sender_idle_strategy: IdleStrategy,
    pub receiver_idle_strategy: IdleStrategy,
    pub shared_network_idle_strategy: IdleStrategy,
    pub shared_idle_strategy: IdleStrategy,
    /// Idle strategy names, CPU affinities, cycle thresholds, on-start hook.
    pub agents: AgentConfig,
    /// To-driver ring buffer total length (capacity + 768-byte trailer).
    pub to_driver_buffer_length: usize,
    /// To-clients broadcast buffer total length (capacity + 128-byte trailer).
    pub to_clients_buffer_length: usize,
    pub counters_values_buffer_length: usize,
    pub error_buffer_length: usize,
    pub loss_report_buffer_length: usize,
    pub client_liveness_timeout_ns: u64,
    pub driver_timeout_ms: u64,
    pub timer_interval_ns: u64,
    pub publication_unblock_timeout_ns: u64,
    pub publication_connection_timeout_ns: u64,
    pub publication_linger_timeout_ns: u64,
    pub image_liveness_timeout_ns: u64,
    pub untethered_window_limit_timeout_ns: u64,
    pub untethered_resting_timeout_ns: u64,
    pub counters_free_to_reuse_timeout_ns: u64,
    pub term_buffer_length: usize,
    pub ipc_term_buffer_length: usize,
    pub term_buffer_sparse_file: bool,
    pub file_page_size: usize,
    pub perform_storage_checks: bool,
    pub low_file_store_warning_threshold: u64,
    pub mtu_length: usize,
    pub ipc_mtu_length: usize,
    pub publication_term_window_length: usize,
    pub ipc_publication_term_window_length: usize,
    pub socket_so_rcvbuf: usize,
    pub socket_so_sndbuf: usize,
    pub socket_multicast_ttl: u8,
    /// Flow control groups, name resolution, wildcard ports, socket batching.
    pub network: NetworkConfig,
    pub rcv_initial_window_length: usize,
    pub status_message_timeout_ns: u64,
    pub send_to_status_poll_ratio: u32,
    pub spies_simulate_connection: bool,
    pub reliable_stream: bool,
    pub tether_subscriptions: bool,
    pub rejoin_stream: bool,
    pub congestion_control_supplier: String,
    pub unicast_flow_control_supplier: String,
    pub multicast_flow_control_supplier: String,
    pub nak_unicast_delay_ns: u64,
    pub nak_unicast_retry_delay_ratio: u64,
    pub nak_multicast_max_backoff_ns: u64,
    pub nak_multicast_group_size: u32,
    pub retransmit_unicast_delay_ns: u64,
    pub retransmit_unicast_linger_ns: u64,
    pub max_resend: u32,
    pub publication_reserved_session_id_low: i32,
    pub publication_reserved_session_id_high: i32,
    /// `AERON_DRIVER_STREAM_SESSION_LIMIT`: most sessions (publications) per stream.
    pub stream_session_limit: i32,
    /// `AERON_ENABLE_EXPERIMENTAL_FEATURES`: allows what Aeron 1.48 gates behind it, response
    /// channels (UDP publications and subscriptions with `control-mode=response` or a
    /// `response-correlation-id`).
    pub enable_experimental_features: bool,
    pub termination_validator: TerminationValidator,
    pub resource_free_limit: u32,
    /// `AERON_UDP_CHANNEL_INCOMING_INTERCEPTORS` (loss injection for tests).
    pub udp_channel_incoming_interceptors: Option<String>,
    /// `AERON_DRIVER_CONDUCTOR_CYCLE_THRESHOLD`: a conductor duty cycle longer than this
    /// counts in system counter 27.
    pub conductor_cycle_threshold_ns: u64,
    /// Replaces `termination_validator` when set in code.
    pub termination_validator_fn: Option<TerminationValidatorFn>,
    /// Called when a TERMINATE_DRIVER command is accepted.
    pub termination_hook: Option<TerminationHook>,
    /// `AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_LOSS_ARGS` (`rate=..|seed=..|recv-msg-mask=..`).
    pub udp_channel_loss_args: Option<String>,
    /// `AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_FIXED_LOSS_ARGS` (`term-id=..|term-offset=..|length=..`).
    pub udp_channel_fixed_loss_args: Option<String>,
    /// `AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_MULTI_GAP_LOSS_ARGS`
    /// (`term-id=..|gap-radix=..|gap-length=..|total-gaps=..`).
    pub udp_channel_multi_gap_loss_args: Option<String>,
    /// `AERON_CUBICCONGESTIONCONTROL_MEASURERTT`.
    pub cubic_measure_rtt: bool,
    /// `AERON_CUBICCONGESTIONCONTROL_INITIALRTT`.
    pub cubic_initial_rtt_ns: u64,
    /// `AERON_CUBICCONGESTIONCONTROL_TCPMODE`.
    pub cubic_tcp_mode: bool,
    /// A name resolver supplied in code, in place of the built-in one.
    pub name_resolver_supplier: Option<NameResolverSupplier>,
    /// `AERON_NAME_RESOLVER_SUPPLIER`: `default`, `csv_table` or `driver`.
    pub builtin_name_resolver: BuiltInNameResolver,
    /// Transports opened, sent on and received from by a plug-in (C transport bindings and
    /// interceptors), in place of the driver's own sockets.
    pub media_plugin_supplier: Option<MediaPluginSupplier>,
    /// Port managers supplied in code, in place of the wildcard port managers of
    /// `network.{sender,receiver}_wildcard_port_range`.
    pub sender_port_manager: Option<PortManagerSupplier>,
    pub receiver_port_manager: Option<PortManagerSupplier>,
}

impl Default for DriverContext {
    /// Aeron's defaults, ignoring the environment.
    fn default() -> Self {
        Self {
            aeron_dir: default_aeron_dir(),
            dir_warn_if_exists: false,
            dir_delete_on_start: false,
            dir_delete_on_shutdown: false,
            print_configuration: false,
            threading_mode: ThreadingMode::Dedicated,
            conductor_idle_strategy: IdleStrategy::default(),
            sender_idle_strategy: IdleStrategy::default(),
            receiver_idle_strategy: IdleStrategy::default(),
            shared_network_idle_strategy: IdleStrategy::default(),
            shared_idle_strategy: IdleStrategy::default(),
            agents: AgentConfig::default(),
            to_driver_buffer_length: (MIB + 768) as usize,
            to_clients_buffer_length: (MIB + 128) as usize,
            counters_values_buffer_length: MIB as usize,
            error_buffer_length: MIB as usize,
            loss_report_buffer_length: MIB as usize,
            client_liveness_timeout_ns: 10 * SECOND_NS,
            driver_timeout_ms: 10_000,
            timer_interval_ns: SECOND_NS,
            publication_unblock_timeout_ns: 15 * SECOND_NS,
            publication_connection_timeout_ns: 5 * SECOND_NS,
            publication_linger_timeout_ns: 5 * SECOND_NS,
            image_liveness_timeout_ns: 10 * SECOND_NS,
            untethered_window_limit_timeout_ns: 5 * SECOND_NS,
            untethered_resting_timeout_ns: 10 * SECOND_NS,
            counters_free_to_reuse_timeout_ns: SECOND_NS,
            term_buffer_length: (16 * MIB) as usize,
            ipc_term_buffer_length: (64 * MIB) as usize,
            term_buffer_sparse_file: false,
            file_page_size: 4096,
            perform_storage_checks: true,
            low_file_store_warning_threshold: 160 * MIB,
            mtu_length: 1408,
            ipc_mtu_length: 1408,
            publication_term_window_length: 0,
            ipc_publication_term_window_length: 0,
            socket_so_rcvbuf: 128 * 1024,
            socket_so_sndbuf: 0,
            socket_multicast_ttl: 0,
            network: NetworkConfig::default(),
            rcv_initial_window_length: 128 * 1024,
            status_message_timeout_ns: 200 * MS_NS,
            send_to_status_poll_ratio: 6,
            spies_simulate_connection: false,
            reliable_stream: true,
            tether_subscriptions: true,
            rejoin_stream: true,
            congestion_control_supplier: "default".to_string(),
            unicast_flow_control_supplier: "unicast".to_string(),
            multicast_flow_control_supplier: "max".to_string(),
            nak_unicast_delay_ns: 100_000,
            nak_unicast_retry_delay_ratio: 100,
            nak_multicast_max_backoff_ns: 10 * MS_NS,
            nak_multicast_group_size: 10,
            retransmit_unicast_delay_ns: 0,
            retransmit_unicast_linger_ns: 10 * MS_NS,
            max_resend: 16,
            publication_reserved_session_id_low: -1,
            publication_reserved_session_id_high: 1000,
            stream_session_limit: i32::MAX,
            enable_experimental_features: false,
            termination_validator: TerminationValidator::Deny,
            resource_free_limit: 10,
            udp_channel_incoming_interceptors: None,
            conductor_cycle_threshold_ns: SECOND_NS,
            termination_validator_fn: None,
            termination_hook: None,
            udp_channel_loss_args: None,
            udp_channel_fixed_loss_args: None,
            udp_channel_multi_gap_loss_args: None,
            cubic_measure_rtt: false,
            cubic_initial_rtt_ns: 100_000,
            cubic_tcp_mode: false,
            name_resolver_supplier: None,
            builtin_name_resolver: BuiltInNameResolver::Default,
            media_plugin_supplier: None,
            sender_port_manager: None,
            receiver_port_manager: None,
        }
    }
}

fn size(name: &str, default: usize) -> Result<usize> {
    let v = env_or(name, default as u64, parse_size)?;
    usize::try_from(v).map_err(|_| Error::invalid_argument(format!("{name}={v} does not fit in memory")))
}

fn duration(name: &str, default: u64) -> Result<u64> {
    env_or(name, default, parse_duration_ns)
}

fn flag(name: &str, default: bool) -> Result<bool> {
    env_or(name, default, parse_bool)
}

fn idle(name: &str, default: &IdleStrategy) -> Result<IdleStrategy> {
    match env(name) {
        Some(v) => {
            let args = env(&format!("{name}_INIT_ARGS"));
            IdleStrategy::from_name(&v, args.as_deref()).map_err(|e| e.context(name))
        }
        None => Ok(default.clone()),
    }
}

impl DriverContext {
    /// Defaults overridden by every `AERON_*` variable that is set. A malformed value is an
    /// error naming the variable.
    pub fn from_env() -> Result<Self> {
        let d = Self::default();
        let min_size = |name: &str, default: usize| -> Result<usize> {
            // Aeron raises a too-small CnC buffer length to its default.
            Ok(size(name, default)?.max(default))
        };
        let ctx = Self {
            aeron_dir: env("AERON_DIR").map(PathBuf::from).unwrap_or(d.aeron_dir),
            dir_warn_if_exists: flag("AERON_DIR_WARN_IF_EXISTS", d.dir_warn_if_exists)?,
            dir_delete_on_start: flag("AERON_DIR_DELETE_ON_START", d.dir_delete_on_start)?,
            dir_delete_on_shutdown: flag("AERON_DIR_DELETE_ON_SHUTDOWN", d.dir_delete_on_shutdown)?,
            print_configuration: flag("AERON_PRINT_CONFIGURATION", d.print_configuration)?,
            threading_mode: match env("AERON_THREADING_MODE") {
                Some(v) => ThreadingMode::parse(&v)?,
                None => d.threading_mode,
            },
            conductor_idle_strategy: idle("AERON_CONDUCTOR_IDLE_STRATEGY", &d.conductor_idle_strategy)?,
            sender_idle_strategy: idle("AERON_SENDER_IDLE_STRATEGY", &d.sender_idle_strategy)?,
            receiver_idle_strategy: idle("AERON_RECEIVER_IDLE_STRATEGY", &d.receiver_idle_strategy)?,
            shared_network_idle_strategy: idle(
                "AERON_SHAREDNETWORK_IDLE_STRATEGY",
                &d.shared_network_idle_strategy,
            )?,
            shared_idle_strategy: idle("AERON_SHARED_IDLE_STRATEGY", &d.shared_idle_strategy)?,
            agents: AgentConfig::from_env()?,
            to_driver_buffer_length: min_size("AERON_CONDUCTOR_BUFFER_LENGTH", d.to_driver_buffer_length)?,
            to_clients_buffer_length: min_size("AERON_CLIENTS_BUFFER_LENGTH", d.to_clients_buffer_length)?,
            counters_values_buffer_length: min_size(
                "AERON_COUNTERS_BUFFER_LENGTH",
                d.counters_values_buffer_length,
            )?,
            error_buffer_length: min_size("AERON_ERROR_BUFFER_LENGTH", d.error_buffer_length)?,
            loss_report_buffer_length: min_size(
                "AERON_LOSS_REPORT_BUFFER_LENGTH",
                d.loss_report_buffer_length,
            )?,
            client_liveness_timeout_ns: duration(
                "AERON_CLIENT_LIVENESS_TIMEOUT",
                d.client_liveness_timeout_ns,
            )?,
            driver_timeout_ms: env_or("AERON_DRIVER_TIMEOUT", d.driver_timeout_ms as i64, parse_i64)
                .and_then(|v| check_range("AERON_DRIVER_TIMEOUT", v, 1, i64::MAX))?
                as u64,
            timer_interval_ns: duration("AERON_TIMER_INTERVAL", d.timer_interval_ns)?,
            publication_unblock_timeout_ns: duration(
                "AERON_PUBLICATION_UNBLOCK_TIMEOUT",
                d.publication_unblock_timeout_ns,
            )?,
            publication_connection_timeout_ns: duration(
                "AERON_PUBLICATION_CONNECTION_TIMEOUT",
                d.publication_connection_timeout_ns,
            )?,
            publication_linger_timeout_ns: duration(
                "AERON_PUBLICATION_LINGER_TIMEOUT",
                d.publication_linger_timeout_ns,
            )?,
            image_liveness_timeout_ns: duration("AERON_IMAGE_LIVENESS_TIMEOUT", d.image_liveness_timeout_ns)?,
            untethered_window_limit_timeout_ns: duration(
                "AERON_UNTETHERED_WINDOW_LIMIT_TIMEOUT",
                d.untethered_window_limit_timeout_ns,
            )?,
            untethered_resting_timeout_ns: duration(
                "AERON_UNTETHERED_RESTING_TIMEOUT",
                d.untethered_resting_timeout_ns,
            )?,
            counters_free_to_reuse_timeout_ns: duration(
                "AERON_COUNTERS_FREE_TO_REUSE_TIMEOUT",
                d.counters_free_to_reuse_timeout_ns,
            )?,
            term_buffer_length: size("AERON_TERM_BUFFER_LENGTH", d.term_buffer_length)?,
            ipc_term_buffer_length: size("AERON_IPC_TERM_BUFFER_LENGTH", d.ipc_term_buffer_length)?,
            term_buffer_sparse_file: flag("AERON_TERM_BUFFER_SPARSE_FILE", d.term_buffer_sparse_file)?,
            file_page_size: size("AERON_FILE_PAGE_SIZE", d.file_page_size)?,
            perform_storage_checks: flag("AERON_PERFORM_STORAGE_CHECKS", d.perform_storage_checks)?,
            low_file_store_warning_threshold: env_or(
                "AERON_LOW_FILE_STORE_WARNING_THRESHOLD",
                d.low_file_store_warning_threshold,
                parse_size,
            )?,
            mtu_length: size("AERON_MTU_LENGTH", d.mtu_length)?,
            ipc_mtu_length: size("AERON_IPC_MTU_LENGTH", d.ipc_mtu_length)?,
            publication_term_window_length: size(
                "AERON_PUBLICATION_TERM_WINDOW_LENGTH",
                d.publication_term_window_length,
            )?,
            ipc_publication_term_window_length: size(
                "AERON_IPC_PUBLICATION_TERM_WINDOW_LENGTH",
                d.ipc_publication_term_window_length,
            )?,
            socket_so_rcvbuf: size("AERON_SOCKET_SO_RCVBUF", d.socket_so_rcvbuf)?,
            socket_so_sndbuf: size("AERON_SOCKET_SO_SNDBUF", d.socket_so_sndbuf)?,
            socket_multicast_ttl: env_or(
                "AERON_SOCKET_MULTICAST_TTL",
                d.socket_multicast_ttl as i64,
                parse_i64,
            )
            .and_then(|v| check_range("AERON_SOCKET_MULTICAST_TTL", v, 0, 255))?
                as u8,
            network: NetworkConfig::from_env()?,
            rcv_initial_window_length: size("AERON_RCV_INITIAL_WINDOW_LENGTH", d.rcv_initial_window_length)?,
            status_message_timeout_ns: duration(
                "AERON_RCV_STATUS_MESSAGE_TIMEOUT",
                d.status_message_timeout_ns,
            )?,
            send_to_status_poll_ratio: env_or(
                "AERON_SEND_TO_STATUS_POLL_RATIO",
                d.send_to_status_poll_ratio as i64,
                parse_i64,
            )
            .and_then(|v| check_range("AERON_SEND_TO_STATUS_POLL_RATIO", v, 1, i32::MAX as i64))?
                as u32,
            spies_simulate_connection: flag("AERON_SPIES_SIMULATE_CONNECTION", d.spies_simulate_connection)?,
            reliable_stream: flag("AERON_RELIABLE_STREAM", d.reliable_stream)?,
            tether_subscriptions: flag("AERON_TETHER_SUBSCRIPTIONS", d.tether_subscriptions)?,
            rejoin_stream: flag("AERON_REJOIN_STREAM", d.rejoin_stream)?,
            congestion_control_supplier: env("AERON_CONGESTIONCONTROL_SUPPLIER")
                .unwrap_or(d.congestion_control_supplier),
            unicast_flow_control_supplier: env("AERON_UNICAST_FLOWCONTROL_SUPPLIER")
                .unwrap_or(d.unicast_flow_control_supplier),
            multicast_flow_control_supplier: env("AERON_MULTICAST_FLOWCONTROL_SUPPLIER")
                .unwrap_or(d.multicast_flow_control_supplier),
            nak_unicast_delay_ns: duration("AERON_NAK_UNICAST_DELAY", d.nak_unicast_delay_ns)?,
            nak_unicast_retry_delay_ratio: env_or(
                "AERON_NAK_UNICAST_RETRY_DELAY_RATIO",
                d.nak_unicast_retry_delay_ratio as i64,
                parse_i64,
            )
            .and_then(|v| check_range("AERON_NAK_UNICAST_RETRY_DELAY_RATIO", v, 1, i64::MAX))?
                as u64,
            nak_multicast_max_backoff_ns: duration(
                "AERON_NAK_MULTICAST_MAX_BACKOFF",
                d.nak_multicast_max_backoff_ns,
            )?,
            nak_multicast_group_size: env_or(
                "AERON_NAK_MULTICAST_GROUP_SIZE",
                d.nak_multicast_group_size as i64,
                parse_i64,
            )
            .and_then(|v| check_range("AERON_NAK_MULTICAST_GROUP_SIZE", v, 1, i32::MAX as i64))?
                as u32,
            retransmit_unicast_delay_ns: duration(
                "AERON_RETRANSMIT_UNICAST_DELAY",
                d.retransmit_unicast_delay_ns,
            )?,
            retransmit_unicast_linger_ns: duration(
                "AERON_RETRANSMIT_UNICAST_LINGER",
                d.retransmit_unicast_linger_ns,
            )?,
            max_resend: env_or("AERON_MAX_RESEND", d.max_resend as i64, parse_i64)
                .and_then(|v| check_range("AERON_MAX_RESEND", v, 1, 256))? as u32,
            publication_reserved_session_id_low: env_or(
                "AERON_PUBLICATION_RESERVED_SESSION_ID_LOW",
                d.publication_reserved_session_id_low as i64,
                parse_i64,
            )
            .and_then(|v| {
                check_range("AERON_PUBLICATION_RESERVED_SESSION_ID_LOW", v, i32::MIN as i64, i32::MAX as i64)
            })? as i32,
            publication_reserved_session_id_high: env_or(
                "AERON_PUBLICATION_RESERVED_SESSION_ID_HIGH",
                d.publication_reserved_session_id_high as i64,
                parse_i64,
            )
            .and_then(|v| {
                check_range("AERON_PUBLICATION_RESERVED_SESSION_ID_HIGH", v, i32::MIN as i64, i32::MAX as i64)
            })? as i32,
            stream_session_limit: env_or(
                "AERON_DRIVER_STREAM_SESSION_LIMIT",
                i64::from(d.stream_session_limit),
                parse_i64,
            )
            .and_then(|v| check_range("AERON_DRIVER_STREAM_SESSION_LIMIT", v, 1, i64::from(i32::MAX)))?
                as i32,
            enable_experimental_features: flag(
                "AERON_ENABLE_EXPERIMENTAL_FEATURES",
                d.enable_experimental_features,
            )?,
            termination_validator: match env("AERON_DRIVER_TERMINATION_VALIDATOR").as_deref() {
                Some(v) if v.eq_ignore_ascii_case("allow") => TerminationValidator::Allow,
                Some(v) if v.eq_ignore_ascii_case("deny") => TerminationValidator::Deny,
                Some(v) => {
                    return Err(Error::invalid_argument(format!(
                        "AERON_DRIVER_TERMINATION_VALIDATOR={v:?} is not allow or deny"
                    )));
                }
                None => d.termination_validator,
            },
            resource_free_limit: env_or(
                "AERON_DRIVER_RESOURCE_FREE_LIMIT",
                d.resource_free_limit as i64,
                parse_i64,
            )
            .and_then(|v| check_range("AERON_DRIVER_RESOURCE_FREE_LIMIT", v, 1, i32::MAX as i64))?
                as u32,
            udp_channel_incoming_interceptors: env("AERON_UDP_CHANNEL_INCOMING_INTERCEPTORS"),
            conductor_cycle_threshold_ns: duration(
                "AERON_DRIVER_CONDUCTOR_CYCLE_THRESHOLD",
                d.conductor_cycle_threshold_ns,
            )?,
            termination_validator_fn: None,
            termination_hook: None,
            udp_channel_loss_args: env("AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_LOSS_ARGS"),
            udp_channel_fixed_loss_args: env("AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_FIXED_LOSS_ARGS"),
            udp_channel_multi_gap_loss_args: env("AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_MULTI_GAP_LOSS_ARGS"),
            cubic_measure_rtt: flag("AERON_CUBICCONGESTIONCONTROL_MEASURERTT", d.cubic_measure_rtt)?,
            cubic_initial_rtt_ns: duration(
                "AERON_CUBICCONGESTIONCONTROL_INITIALRTT",
                d.cubic_initial_rtt_ns,
            )?,
            cubic_tcp_mode: flag("AERON_CUBICCONGESTIONCONTROL_TCPMODE", d.cubic_tcp_mode)?,
            media_plugin_supplier: {
                refuse_plugin_names()?;
                None
            },
            name_resolver_supplier: None,
            builtin_name_resolver: env("AERON_NAME_RESOLVER_SUPPLIER")
                .map_or(Ok(BuiltInNameResolver::Default), |name| BuiltInNameResolver::parse(&name))?,
            sender_port_manager: None,
            receiver_port_manager: None,
        };
        ctx.validate()?;
        Ok(ctx)
    }

    /// Aeron's start-up validation rules (`spec/driver.md` §9).
    pub fn validate(&self) -> Result<()> {
        let rule = |ok: bool, msg: String| if ok { Ok(()) } else { Err(Error::invalid_argument(msg)) };
        rule(
            self.publication_unblock_timeout_ns > self.client_liveness_timeout_ns,
            format!(
                "AERON_PUBLICATION_UNBLOCK_TIMEOUT ({} ns) must exceed AERON_CLIENT_LIVENESS_TIMEOUT ({} ns)",
                self.publication_unblock_timeout_ns, self.client_liveness_timeout_ns
            ),
        )?;
        rule(
            self.client_liveness_timeout_ns > self.timer_interval_ns,
            format!(
                "AERON_CLIENT_LIVENESS_TIMEOUT ({} ns) must exceed AERON_TIMER_INTERVAL ({} ns)",
                self.client_liveness_timeout_ns, self.timer_interval_ns
            ),
        )?;
        rule(
            self.untethered_window_limit_timeout_ns > self.timer_interval_ns,
            "AERON_UNTETHERED_WINDOW_LIMIT_TIMEOUT must exceed AERON_TIMER_INTERVAL".to_string(),
        )?;
        rule(
            self.untethered_resting_timeout_ns > self.timer_interval_ns,
            "AERON_UNTETHERED_RESTING_TIMEOUT must exceed AERON_TIMER_INTERVAL".to_string(),
        )?;
        check_term_length("AERON_TERM_BUFFER_LENGTH", self.term_buffer_length)?;
        check_term_length("AERON_IPC_TERM_BUFFER_LENGTH", self.ipc_term_buffer_length)?;
        rule(
            self.file_page_size.is_power_of_two() && (4096..=1 << 30).contains(&self.file_page_size),
            format!("AERON_FILE_PAGE_SIZE={} must be a power of two in [4096, 1 GiB]", self.file_page_size),
        )?;
        check_mtu("AERON_MTU_LENGTH", self.mtu_length)?;
        check_mtu("AERON_IPC_MTU_LENGTH", self.ipc_mtu_length)?;
        rule(
            self.rcv_initial_window_length >= self.mtu_length,
            format!(
                "AERON_RCV_INITIAL_WINDOW_LENGTH ({}) must be at least AERON_MTU_LENGTH ({})",
                self.rcv_initial_window_length, self.mtu_length
            ),
        )?;
        rule(
            self.publication_reserved_session_id_low <= self.publication_reserved_session_id_high,
            "AERON_PUBLICATION_RESERVED_SESSION_ID_LOW must not exceed ..._HIGH".to_string(),
        )?;
        let ring_capacity = self.to_driver_buffer_length.saturating_sub(768);
        rule(
            ring_capacity.is_power_of_two(),
            format!(
                "AERON_CONDUCTOR_BUFFER_LENGTH={} must be a power of two plus 768",
                self.to_driver_buffer_length
            ),
        )?;
        let broadcast_capacity = self.to_clients_buffer_length.saturating_sub(128);
        rule(
            broadcast_capacity.is_power_of_two(),
            format!(
                "AERON_CLIENTS_BUFFER_LENGTH={} must be a power of two plus 128",
                self.to_clients_buffer_length
            ),
        )?;
        rule(
            self.counters_values_buffer_length <= 500 * MIB as usize,
            format!("AERON_COUNTERS_BUFFER_LENGTH={} exceeds 500 MiB", self.counters_values_buffer_length),
        )?;
        Ok(())
    }

    /// Whether a TERMINATE_DRIVER carrying `token` may stop the driver.
    pub fn validate_termination(&self, token: &[u8]) -> bool {
        match &self.termination_validator_fn {
            Some(f) => f.validate(token),
            None => self.termination_validator == TerminationValidator::Allow,
        }
    }

    /// The sender's and the receiver's port managers: the supplied ones, else wildcard port
    /// managers over the configured ranges.
    pub fn make_port_managers(&self) -> (Box<dyn PortManager>, Box<dyn PortManager>) {
        let make = |supplied: &Option<PortManagerSupplier>, range, is_sender| match supplied {
            Some(supplier) => (supplier.0)(),
            None => Box::new(WildcardPortManager::new(range, is_sender)) as Box<dyn PortManager>,
        };
        (
            make(&self.sender_port_manager, self.network.sender_wildcard_port_range, true),
            make(&self.receiver_port_manager, self.network.receiver_wildcard_port_range, false),
        )
    }

    /// The client liveness timeout in whole milliseconds (at least 1), as clients are judged.
    pub fn client_liveness_timeout_ms(&self) -> i64 {
        ((self.client_liveness_timeout_ns / MS_NS) as i64).max(1)
    }
}

/// Aeron loads transport bindings and outgoing interceptors by name; the only names it has
/// built in are the default media and interceptors with no outgoing side, so anything else
/// is refused here (C bindings and interceptors are set in code).
fn refuse_plugin_names() -> Result<()> {
    for name in
        ["AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_MEDIA", "AERON_CONDUCTOR_UDP_CHANNEL_TRANSPORT_BINDINGS_MEDIA"]
    {
        if let Some(value) = env(name).filter(|v| v != "default") {
            return Err(Error::invalid_argument(format!(
                "{name}={value:?}: only the default media is built in (set C bindings with aeron_driver_context_set_udp_channel_transport_bindings)"
            )));
        }
    }
    const OUTGOING: &str = "AERON_UDP_CHANNEL_OUTGOING_INTERCEPTORS";
    if let Some(value) = env(OUTGOING).filter(|v| !v.trim().is_empty()) {
        return Err(Error::invalid_argument(format!(
            "{OUTGOING}={value:?}: no built-in interceptor has an outgoing side (loss, fixed-loss and multi-gap-loss are incoming; set C interceptors with aeron_driver_context_set_udp_channel_outgoing_interceptors)"
        )));
    }
    Ok(())
}

/// Term lengths are powers of two in [64 KiB, 1 GiB].
pub fn check_term_length(name: &str, length: usize) -> Result<()> {
    if !length.is_power_of_two() || !(64 * 1024..=1 << 30).contains(&length) {
        return Err(Error::invalid_argument(format!(
            "{name}={length} must be a power of two in [64 KiB, 1 GiB]"
        )));
    }
    Ok(())
}

/// MTUs are multiples of 32 in (32, 65504].
pub fn check_mtu(name: &str, mtu: usize) -> Result<()> {
    if mtu <= 32 || mtu > 65504 || mtu % 32 != 0 {
        return Err(Error::invalid_argument(format!("{name}={mtu} must be a multiple of 32 in (32, 65504]")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_aeron_and_validate() {
        let d = DriverContext::default();
        d.validate().unwrap();
        assert_eq!(d.to_driver_buffer_length, 1_049_344);
        assert_eq!(d.to_clients_buffer_length, 1_048_704);
        assert_eq!(d.ipc_term_buffer_length, 64 << 20);
        assert_eq!(d.term_buffer_length, 16 << 20);
        assert_eq!(d.mtu_length, 1408);
        assert_eq!(d.client_liveness_timeout_ms(), 10_000);
        assert_eq!(d.threading_mode, ThreadingMode::Dedicated);
        assert!(d.aeron_dir.to_string_lossy().contains("aeron-"));
    }

    #[test]
    fn validation_names_the_setting() {
        let mut d = DriverContext { ipc_term_buffer_length: 1000, ..DriverContext::default() };
        assert!(d.validate().unwrap_err().message().contains("AERON_IPC_TERM_BUFFER_LENGTH"));
        d.ipc_term_buffer_length = 65536;
        d.mtu_length = 1000;
        assert!(d.validate().unwrap_err().message().contains("AERON_MTU_LENGTH"));
        d.mtu_length = 1408;
        d.publication_unblock_timeout_ns = d.client_liveness_timeout_ns;
        assert!(d.validate().unwrap_err().message().contains("AERON_PUBLICATION_UNBLOCK_TIMEOUT"));
    }

    #[test]
    fn threading_mode_names() {
        for m in [
            ThreadingMode::Dedicated,
            ThreadingMode::SharedNetwork,
            ThreadingMode::Shared,
            ThreadingMode::Invoker,
        ] {
            assert_eq!(ThreadingMode::parse(m.name()).unwrap(), m);
        }
        assert!(ThreadingMode::parse("FAST").unwrap_err().message().contains("AERON_THREADING_MODE"));
    }
}
