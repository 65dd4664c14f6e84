//! The media driver's configuration: every setting read from the same environment
//! variable as Aeron's C driver, with the same default, overridable in code before start
//! (the `aeron_driver_context_set_*` functions write these fields). `validate` applies
//! Aeron's start-up rules (`spec/driver.md` §8-9) with errors that name the setting.
#![forbid(unsafe_code)]

use std::path::PathBuf;

use crate::cnc::default_aeron_dir;
use crate::driver::agent_config::{AgentConfig, DriverAgent};
use crate::driver::media::media_plugin::MediaPluginSupplier;
use crate::driver::media::name_resolver::{BuiltInNameResolver, NameResolverSupplier};
use crate::driver::media::port_manager::{PortManager, PortManagerSupplier, WildcardPortManager};
use crate::driver::network_config::NetworkConfig;
use crate::driver::termination::{TerminationHook, TerminationValidatorFn};
use crate::util::config::env;
use crate::util::error::{Error, Result};
use crate::util::idle_strategy::IdleStrategy;
use crate::util::settings::{ParseSetting, Setting};

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

impl ParseSetting for ThreadingMode {
    fn parse_setting(_name: &str, value: &str) -> Result<Self> {
        Self::parse(value)
    }
}

impl ParseSetting for TerminationValidator {
    fn parse_setting(name: &str, value: &str) -> Result<Self> {
        match value {
            v if v.eq_ignore_ascii_case("allow") => Ok(Self::Allow),
            v if v.eq_ignore_ascii_case("deny") => Ok(Self::Deny),
            v => Err(Error::invalid_argument(format!("{name}={v:?} is not allow or deny"))),
        }
    }
}

crate::settings_table! {
    /// Media driver settings, one row each (`util::settings` has the row syntax). Durations
    /// are nanoseconds unless the name says otherwise.
    #[derive(Debug, Clone)]
    pub struct DriverContext {
        /// the Aeron directory (default `/dev/shm/aeron-<user>` where it exists)
        pub aeron_dir: PathBuf = default_aeron_dir(); path env "AERON_DIR", c(aeron, dir, custom);
        /// whether to warn when the Aeron directory already exists at start (default false)
        pub dir_warn_if_exists: bool = false; flag env "AERON_DIR_WARN_IF_EXISTS", c(aeron, dir_warn_if_exists, bool);
        /// whether to delete an existing Aeron directory at start (default false)
        pub dir_delete_on_start: bool = false; flag env "AERON_DIR_DELETE_ON_START", c(aeron, dir_delete_on_start, bool);
        /// whether to delete the Aeron directory when the driver closes (default false)
        pub dir_delete_on_shutdown: bool = false; flag env "AERON_DIR_DELETE_ON_SHUTDOWN", c(aeron, dir_delete_on_shutdown, bool);
        /// whether the driver prints its configuration at start (default false)
        pub print_configuration: bool = false; flag env "AERON_PRINT_CONFIGURATION", c(aeron, print_configuration, bool);
        /// how the conductor, sender and receiver map onto threads (default DEDICATED)
        pub threading_mode: ThreadingMode = ThreadingMode::Dedicated; parsed env "AERON_THREADING_MODE", c(aeron, threading_mode, custom);
        /// the conductor's idle strategy, with `AERON_CONDUCTOR_IDLE_STRATEGY_INIT_ARGS` (default backoff)
        pub conductor_idle_strategy: IdleStrategy = IdleStrategy::default(); custom env "AERON_CONDUCTOR_IDLE_STRATEGY", c(aeron, conductor_idle_strategy, custom);
        /// the sender's idle strategy
        pub sender_idle_strategy: IdleStrategy = IdleStrategy::default(); custom env "AERON_SENDER_IDLE_STRATEGY", c(aeron, sender_idle_strategy, custom);
        /// the receiver's idle strategy
        pub receiver_idle_strategy: IdleStrategy = IdleStrategy::default(); custom env "AERON_RECEIVER_IDLE_STRATEGY", c(aeron, receiver_idle_strategy, custom);
        /// the idle strategy of the sender and receiver sharing a thread (SHARED_NETWORK)
        pub shared_network_idle_strategy: IdleStrategy = IdleStrategy::default(); custom env "AERON_SHAREDNETWORK_IDLE_STRATEGY", c(aeron, sharednetwork_idle_strategy, custom);
        /// the idle strategy of all agents on one thread (SHARED)
        pub shared_idle_strategy: IdleStrategy = IdleStrategy::default(); custom env "AERON_SHARED_IDLE_STRATEGY", c(aeron, shared_idle_strategy, custom);
        /// Idle strategy names, CPU affinities, cycle thresholds, on-start hook.
        pub agents: AgentConfig = AgentConfig::default(); nested;
        /// the to-driver command ring buffer length, trailer included (default 1 MiB + 768)
        pub to_driver_buffer_length: usize = (MIB + 768) as usize; min_size env "AERON_CONDUCTOR_BUFFER_LENGTH", c(aeron, to_conductor_buffer_length, usize);
        /// the to-clients broadcast buffer length, trailer included (default 1 MiB + 128)
        pub to_clients_buffer_length: usize = (MIB + 128) as usize; min_size env "AERON_CLIENTS_BUFFER_LENGTH", c(aeron, to_clients_buffer_length, usize);
        /// the counters values buffer length; metadata is 4 times it (default 1 MiB)
        pub counters_values_buffer_length: usize = MIB as usize; min_size env "AERON_COUNTERS_BUFFER_LENGTH", c(aeron, counters_buffer_length, usize);
        /// the distinct error log length (default 1 MiB)
        pub error_buffer_length: usize = MIB as usize; min_size env "AERON_ERROR_BUFFER_LENGTH", c(aeron, error_buffer_length, usize);
        /// the `loss-report.dat` length (default 1 MiB)
        pub loss_report_buffer_length: usize = MIB as usize; min_size env "AERON_LOSS_REPORT_BUFFER_LENGTH", c(aeron, loss_report_buffer_length, usize);
        /// how long a client may go without a keepalive before it is timed out, in ns (default 10 s)
        pub client_liveness_timeout_ns: u64 = 10 * SECOND_NS; duration env "AERON_CLIENT_LIVENESS_TIMEOUT", c(aeron, client_liveness_timeout_ns, u64);
        /// the driver liveness timeout clients apply, in ms (default 10 000)
        pub driver_timeout_ms: u64 = 10_000; int env "AERON_DRIVER_TIMEOUT" in [1, i64::MAX as u64], c(aeron, driver_timeout_ms, u64);
        /// the interval of the conductor's timer checks, in ns (default 1 s)
        pub timer_interval_ns: u64 = SECOND_NS; duration env "AERON_TIMER_INTERVAL", c(aeron, timer_interval_ns, u64);
        /// how long a claimed but uncommitted frame may block a publication before it is unblocked, in ns (default 15 s)
        pub publication_unblock_timeout_ns: u64 = 15 * SECOND_NS; duration env "AERON_PUBLICATION_UNBLOCK_TIMEOUT", c(aeron, publication_unblock_timeout_ns, u64);
        /// how long a publication stays connected without status messages, in ns (default 5 s)
        pub publication_connection_timeout_ns: u64 = 5 * SECOND_NS; duration env "AERON_PUBLICATION_CONNECTION_TIMEOUT", c(aeron, publication_connection_timeout_ns, u64);
        /// how long a closed publication lingers for its subscribers to drain it, in ns (default 5 s)
        pub publication_linger_timeout_ns: u64 = 5 * SECOND_NS; duration env "AERON_PUBLICATION_LINGER_TIMEOUT", c(aeron, publication_linger_timeout_ns, u64);
        /// how long an image lives without data or heartbeats, in ns (default 10 s)
        pub image_liveness_timeout_ns: u64 = 10 * SECOND_NS; duration env "AERON_IMAGE_LIVENESS_TIMEOUT", c(aeron, image_liveness_timeout_ns, u64);
        /// how long an untethered subscriber may stay a window behind before it is left behind, in ns (default 5 s)
        pub untethered_window_limit_timeout_ns: u64 = 5 * SECOND_NS; duration env "AERON_UNTETHERED_WINDOW_LIMIT_TIMEOUT", c(aeron, untethered_window_limit_timeout_ns, u64);
        /// how long a left-behind untethered subscriber rests before rejoining, in ns (default 10 s)
        pub untethered_resting_timeout_ns: u64 = 10 * SECOND_NS; duration env "AERON_UNTETHERED_RESTING_TIMEOUT", c(aeron, untethered_resting_timeout_ns, u64);
        /// how long a freed counter id waits before reuse, in ns (default 1 s)
        pub counters_free_to_reuse_timeout_ns: u64 = SECOND_NS; duration env "AERON_COUNTERS_FREE_TO_REUSE_TIMEOUT", c(aeron, counters_free_to_reuse_timeout_ns, u64);
        /// the term length of network publications, a power of two in [64 KiB, 1 GiB] (default 16 MiB)
        pub term_buffer_length: usize = (16 * MIB) as usize; size env "AERON_TERM_BUFFER_LENGTH", c(aeron, term_buffer_length, usize);
        /// the term length of IPC publications (default 64 MiB)
        pub ipc_term_buffer_length: usize = (64 * MIB) as usize; size env "AERON_IPC_TERM_BUFFER_LENGTH", c(aeron, ipc_term_buffer_length, usize);
        /// whether log buffer files are created sparse instead of pre-touched (default false)
        pub term_buffer_sparse_file: bool = false; flag env "AERON_TERM_BUFFER_SPARSE_FILE", c(aeron, term_buffer_sparse_file, bool);
        /// the page size files are rounded to, a power of two (default 4096)
        pub file_page_size: usize = 4096; size env "AERON_FILE_PAGE_SIZE", c(aeron, file_page_size, usize);
        /// whether free space is checked before creating a log buffer (default true)
        pub perform_storage_checks: bool = true; flag env "AERON_PERFORM_STORAGE_CHECKS", c(aeron, perform_storage_checks, bool);
        /// the free space below which the driver warns, in bytes (default 160 MiB)
        pub low_file_store_warning_threshold: u64 = 160 * MIB; size env "AERON_LOW_FILE_STORE_WARNING_THRESHOLD", c(aeron, low_file_store_warning_threshold, u64);
        /// the MTU of network publications, a multiple of 32 (default 1408)
        pub mtu_length: usize = 1408; size env "AERON_MTU_LENGTH", c(aeron, mtu_length, usize);
        /// the MTU (largest fragment) of IPC publications (default 1408)
        pub ipc_mtu_length: usize = 1408; size env "AERON_IPC_MTU_LENGTH", c(aeron, ipc_mtu_length, usize);
        /// how far a network publication may run ahead of its sender; 0 for half a term (default 0)
        pub publication_term_window_length: usize = 0; size env "AERON_PUBLICATION_TERM_WINDOW_LENGTH", c(aeron, publication_term_window_length, usize);
        /// how far an IPC publication may run ahead of its slowest subscriber; 0 for half a term (default 0)
        pub ipc_publication_term_window_length: usize = 0; size env "AERON_IPC_PUBLICATION_TERM_WINDOW_LENGTH", c(aeron, ipc_publication_term_window_length, usize);
        /// SO_RCVBUF of UDP sockets; 0 keeps the OS default (default 128 KiB)
        pub socket_so_rcvbuf: usize = 128 * 1024; size env "AERON_SOCKET_SO_RCVBUF", c(aeron, socket_so_rcvbuf, usize);
        /// SO_SNDBUF of UDP sockets; 0 keeps the OS default (default 0)
        pub socket_so_sndbuf: usize = 0; size env "AERON_SOCKET_SO_SNDBUF", c(aeron, socket_so_sndbuf, usize);
        /// IP_MULTICAST_TTL of outgoing sockets; 0 keeps the OS default (default 0)
        pub socket_multicast_ttl: u8 = 0; int env "AERON_SOCKET_MULTICAST_TTL", c(aeron, socket_multicast_ttl, u8);
        /// Flow control groups, name resolution, wildcard ports, socket batching.
        pub network: NetworkConfig = NetworkConfig::default(); nested;
        /// the initial receiver window, at least the MTU (default 128 KiB)
        pub rcv_initial_window_length: usize = 128 * 1024; size env "AERON_RCV_INITIAL_WINDOW_LENGTH", c(aeron, rcv_initial_window_length, usize);
        /// the longest interval between a receiver's status messages, in ns (default 200 ms)
        pub status_message_timeout_ns: u64 = 200 * MS_NS; duration env "AERON_RCV_STATUS_MESSAGE_TIMEOUT", c(aeron, rcv_status_message_timeout_ns, u64);
        /// how many sends the sender makes per poll for status messages (default 6)
        pub send_to_status_poll_ratio: u32 = 6; int env "AERON_SEND_TO_STATUS_POLL_RATIO" in [1, i32::MAX as u32], c(aeron, send_to_status_poll_ratio, usize);
        /// whether spy subscriptions count as connected subscribers of network publications (default false)
        pub spies_simulate_connection: bool = false; flag env "AERON_SPIES_SIMULATE_CONNECTION", c(aeron, spies_simulate_connection, bool);
        /// whether streams are reliable (gaps are NAKed) by default (default true)
        pub reliable_stream: bool = true; flag env "AERON_RELIABLE_STREAM", c(aeron, reliable_stream, bool);
        /// whether subscriptions hold publications back by default (default true)
        pub tether_subscriptions: bool = true; flag env "AERON_TETHER_SUBSCRIPTIONS", c(aeron, tether_subscriptions, bool);
        /// whether a subscription rejoins a stream after its image went away (default true)
        pub rejoin_stream: bool = true; flag env "AERON_REJOIN_STREAM", c(aeron, rejoin_stream, bool);
        /// the congestion control by name: `default` (static window) or `cubic`
        pub congestion_control_supplier: String = "default".to_string(); text env "AERON_CONGESTIONCONTROL_SUPPLIER";
        /// the flow control of unicast publications by name (default `unicast`)
        pub unicast_flow_control_supplier: String = "unicast".to_string(); text env "AERON_UNICAST_FLOWCONTROL_SUPPLIER";
        /// the flow control of multicast publications by name: `max`, `min` or `tagged`
        pub multicast_flow_control_supplier: String = "max".to_string(); text env "AERON_MULTICAST_FLOWCONTROL_SUPPLIER";
        /// the unicast NAK delay, in ns (default 100 us)
        pub nak_unicast_delay_ns: u64 = 100_000; duration env "AERON_NAK_UNICAST_DELAY", c(aeron, nak_unicast_delay_ns, u64);
        /// the multiple of the unicast NAK delay before a NAK is repeated (default 100)
        pub nak_unicast_retry_delay_ratio: u64 = 100; int env "AERON_NAK_UNICAST_RETRY_DELAY_RATIO" in [1, i64::MAX as u64], c(aeron, nak_unicast_retry_delay_ratio, u64);
        /// the longest multicast NAK delay, in ns (default 10 ms)
        pub nak_multicast_max_backoff_ns: u64 = 10 * MS_NS; duration env "AERON_NAK_MULTICAST_MAX_BACKOFF", c(aeron, nak_multicast_max_backoff_ns, u64);
        /// the expected multicast group size that scales NAK delays (default 10)
        pub nak_multicast_group_size: u32 = 10; int env "AERON_NAK_MULTICAST_GROUP_SIZE" in [1, i32::MAX as u32], c(aeron, nak_multicast_group_size, usize);
        /// the delay before a unicast retransmission, in ns (default 0)
        pub retransmit_unicast_delay_ns: u64 = 0; duration env "AERON_RETRANSMIT_UNICAST_DELAY", c(aeron, retransmit_unicast_delay_ns, u64);
        /// how long a retransmitted range ignores further NAKs, in ns (default 10 ms)
        pub retransmit_unicast_linger_ns: u64 = 10 * MS_NS; duration env "AERON_RETRANSMIT_UNICAST_LINGER", c(aeron, retransmit_unicast_linger_ns, u64);
        /// the most retransmissions in flight per publication (default 16)
        pub max_resend: u32 = 16; int env "AERON_MAX_RESEND" in [1, 256], c(aeron, max_resend, u32);
        /// the low end of the session ids the driver never assigns (default -1)
        pub publication_reserved_session_id_low: i32 = -1; int env "AERON_PUBLICATION_RESERVED_SESSION_ID_LOW", c(aeron, publication_reserved_session_id_low, i32);
        /// the high end of the session ids the driver never assigns (default 1000)
        pub publication_reserved_session_id_high: i32 = 1000; int env "AERON_PUBLICATION_RESERVED_SESSION_ID_HIGH", c(aeron, publication_reserved_session_id_high, i32);
        /// the most publication sessions one stream may have (default INT32_MAX)
        pub stream_session_limit: i32 = i32::MAX; int env "AERON_DRIVER_STREAM_SESSION_LIMIT" in [1, i32::MAX], c(aeron, stream_session_limit, i32);
        /// whether experimental features are enabled (default false): response channels
        /// (UDP publications and subscriptions with `control-mode=response` or a
        /// `response-correlation-id`), as Aeron 1.48 gates them
        pub enable_experimental_features: bool = false; flag env "AERON_ENABLE_EXPERIMENTAL_FEATURES", c(aeron, enable_experimental_features, bool -> c_int);
        /// whether a client may terminate the driver with TERMINATE_DRIVER: `allow` or `deny` (default deny)
        pub termination_validator: TerminationValidator = TerminationValidator::Deny; parsed env "AERON_DRIVER_TERMINATION_VALIDATOR";
        /// how many resources the conductor frees per duty cycle (default 10)
        pub resource_free_limit: u32 = 10; int env "AERON_DRIVER_RESOURCE_FREE_LIMIT" in [1, i32::MAX as u32], c(aeron, resource_free_limit, u32);
        /// the built-in incoming interceptors by name (loss injection for tests)
        pub udp_channel_incoming_interceptors: Option<String> = None; opt_text env "AERON_UDP_CHANNEL_INCOMING_INTERCEPTORS";
        /// the conductor duty cycle time above which a cycle is counted as exceeding, in ns (default 1 s)
        pub conductor_cycle_threshold_ns: u64 = SECOND_NS; duration env "AERON_DRIVER_CONDUCTOR_CYCLE_THRESHOLD", c(aeron, conductor_cycle_threshold_ns, u64 -> i64, ret i64);
        /// Replaces `termination_validator` when set in code.
        pub termination_validator_fn: Option<TerminationValidatorFn> = None; code;
        /// Called when a TERMINATE_DRIVER command is accepted.
        pub termination_hook: Option<TerminationHook> = None; code;
        /// the loss interceptor's arguments (`rate=..|seed=..|recv-msg-mask=..`)
        pub udp_channel_loss_args: Option<String> = None; opt_text env "AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_LOSS_ARGS";
        /// the fixed-loss interceptor's arguments (`term-id=..|term-offset=..|length=..`)
        pub udp_channel_fixed_loss_args: Option<String> = None; opt_text env "AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_FIXED_LOSS_ARGS";
        /// the multi-gap-loss interceptor's arguments (`term-id=..|gap-radix=..|gap-length=..|total-gaps=..`)
        pub udp_channel_multi_gap_loss_args: Option<String> = None; opt_text env "AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_MULTI_GAP_LOSS_ARGS";
        /// whether cubic congestion control measures the RTT (default false)
        pub cubic_measure_rtt: bool = false; flag env "AERON_CUBICCONGESTIONCONTROL_MEASURERTT";
        /// cubic congestion control's initial RTT, in ns (default 100 us)
        pub cubic_initial_rtt_ns: u64 = 100_000; duration env "AERON_CUBICCONGESTIONCONTROL_INITIALRTT";
        /// whether cubic congestion control runs in TCP mode (default false)
        pub cubic_tcp_mode: bool = false; flag env "AERON_CUBICCONGESTIONCONTROL_TCPMODE";
        /// A name resolver supplied in code, in place of the built-in one.
        pub name_resolver_supplier: Option<NameResolverSupplier> = None; code;
        /// the built-in name resolver: `default`, `csv_table` or `driver`
        pub builtin_name_resolver: BuiltInNameResolver = BuiltInNameResolver::Default; parsed env "AERON_NAME_RESOLVER_SUPPLIER";
        /// Transports opened, sent on and received from by a plug-in (C transport bindings and
        /// interceptors), in place of the driver's own sockets; the variable names only `default`.
        pub media_plugin_supplier: Option<MediaPluginSupplier> = None; custom env "AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_MEDIA";
        /// Port managers supplied in code, in place of the wildcard port managers of
        /// `network.{sender,receiver}_wildcard_port_range`.
        pub sender_port_manager: Option<PortManagerSupplier> = None; code;
        pub receiver_port_manager: Option<PortManagerSupplier> = None; code;
    }
}

/// Variables read for a row but not its own: idle strategy init args and the other names
/// of plug-in media and interceptors (all refused but `default`/empty).
pub const EXTRA_VARIABLES: &[(&str, &str)] = &[
    ("AERON_CONDUCTOR_IDLE_STRATEGY_INIT_ARGS", "conductor_idle_strategy"),
    ("AERON_SENDER_IDLE_STRATEGY_INIT_ARGS", "sender_idle_strategy"),
    ("AERON_RECEIVER_IDLE_STRATEGY_INIT_ARGS", "receiver_idle_strategy"),
    ("AERON_SHAREDNETWORK_IDLE_STRATEGY_INIT_ARGS", "shared_network_idle_strategy"),
    ("AERON_SHARED_IDLE_STRATEGY_INIT_ARGS", "shared_idle_strategy"),
    ("AERON_CONDUCTOR_UDP_CHANNEL_TRANSPORT_BINDINGS_MEDIA", "media_plugin_supplier"),
    ("AERON_UDP_CHANNEL_OUTGOING_INTERCEPTORS", "media_plugin_supplier"),
];

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
        let mut ctx = Self::load_rows(env)?;
        for agent in DriverAgent::ALL {
            let var = agent.idle_strategy_env_var();
            let strategy = idle(var, ctx.idle_strategy(agent))?;
            *ctx.idle_strategy_mut(agent) = strategy;
        }
        refuse_plugin_names()?;
        ctx.validate()?;
        Ok(ctx)
    }

    /// Every setting of the driver: the table's rows and the variables read for them.
    pub fn all_settings() -> Vec<Setting> {
        let mut rows = Self::settings();
        rows.extend(EXTRA_VARIABLES.iter().map(|&(env, field)| Setting {
            group: "",
            field,
            kind: "custom",
            env: Some(env),
            c_setter: None,
            c_getter: None,
            doc: "",
        }));
        rows
    }

    /// Aeron's start-up validation rules (`spec/driver.md` §9).
    pub fn validate(&self) -> Result<()> {
        self.check_row_ranges()?;
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
        for (name, range) in [
            ("AERON_SENDER_WILDCARD_PORT_RANGE", self.network.sender_wildcard_port_range),
            ("AERON_RECEIVER_WILDCARD_PORT_RANGE", self.network.receiver_wildcard_port_range),
        ] {
            rule(
                range.low <= range.high,
                format!("{name}: low port {} exceeds high port {}", range.low, range.high),
            )?;
        }
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
