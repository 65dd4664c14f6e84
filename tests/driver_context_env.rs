//! The environment variable names `aeronmd.h` defines (`include/aeronrs_driver_env.h.in`)
//! are the ones `DriverContext::from_env` reads: each variable set through the settings
//! overrides (what `aeron_properties_*` and the environment feed) shows up in its field.
//! One test, since the overrides are process-wide.

use std::collections::BTreeMap;

use aeronrs::driver::DriverContext;
use aeronrs::driver::agent_config::DriverAgent;
use aeronrs::driver::context::{TerminationValidator, ThreadingMode};
use aeronrs::driver::network_config::{InferableBoolean, PortRange};
use aeronrs::util::config::set_override;
use aeronrs::util::idle_strategy::IdleStrategy;

/// `#define NAME "value"` lines of the hand-written header part.
fn defines() -> BTreeMap<String, String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/include/aeronrs_driver_env.h.in");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("#define ")?;
            let (name, value) = rest.split_once(' ')?;
            Some((name.to_string(), value.trim().trim_matches('"').to_string()))
        })
        .collect()
}

type Check = fn(&DriverContext) -> bool;

/// Macro name, value to set, how the context must reflect it.
const READ: &[(&str, &str, Check)] = &[
    ("AERON_DIR_ENV_VAR", "/tmp/aeronrs-env-test", |c| c.aeron_dir.to_str() == Some("/tmp/aeronrs-env-test")),
    ("AERON_DIR_WARN_IF_EXISTS_ENV_VAR", "true", |c| c.dir_warn_if_exists),
    ("AERON_THREADING_MODE_ENV_VAR", "SHARED_NETWORK", |c| c.threading_mode == ThreadingMode::SharedNetwork),
    ("AERON_DIR_DELETE_ON_START_ENV_VAR", "true", |c| c.dir_delete_on_start),
    ("AERON_DIR_DELETE_ON_SHUTDOWN_ENV_VAR", "true", |c| c.dir_delete_on_shutdown),
    ("AERON_TO_CONDUCTOR_BUFFER_LENGTH_ENV_VAR", "2097920", |c| c.to_driver_buffer_length == 2_097_920),
    ("AERON_TO_CLIENTS_BUFFER_LENGTH_ENV_VAR", "2097280", |c| c.to_clients_buffer_length == 2_097_280),
    ("AERON_COUNTERS_VALUES_BUFFER_LENGTH_ENV_VAR", "2m", |c| c.counters_values_buffer_length == 2 << 20),
    ("AERON_ERROR_BUFFER_LENGTH_ENV_VAR", "2m", |c| c.error_buffer_length == 2 << 20),
    ("AERON_CLIENT_LIVENESS_TIMEOUT_ENV_VAR", "11s", |c| c.client_liveness_timeout_ns == 11_000_000_000),
    ("AERON_TERM_BUFFER_LENGTH_ENV_VAR", "128k", |c| c.term_buffer_length == 128 << 10),
    ("AERON_IPC_TERM_BUFFER_LENGTH_ENV_VAR", "256k", |c| c.ipc_term_buffer_length == 256 << 10),
    ("AERON_TERM_BUFFER_SPARSE_FILE_ENV_VAR", "true", |c| c.term_buffer_sparse_file),
    ("AERON_PERFORM_STORAGE_CHECKS_ENV_VAR", "false", |c| !c.perform_storage_checks),
    ("AERON_LOW_FILE_STORE_WARNING_THRESHOLD_ENV_VAR", "1m", |c| {
        c.low_file_store_warning_threshold == 1 << 20
    }),
    ("AERON_SPIES_SIMULATE_CONNECTION_ENV_VAR", "true", |c| c.spies_simulate_connection),
    ("AERON_FILE_PAGE_SIZE_ENV_VAR", "8k", |c| c.file_page_size == 8192),
    ("AERON_MTU_LENGTH_ENV_VAR", "4096", |c| c.mtu_length == 4096),
    ("AERON_IPC_MTU_LENGTH_ENV_VAR", "2048", |c| c.ipc_mtu_length == 2048),
    ("AERON_IPC_PUBLICATION_TERM_WINDOW_LENGTH_ENV_VAR", "64k", |c| {
        c.ipc_publication_term_window_length == 65536
    }),
    ("AERON_PUBLICATION_TERM_WINDOW_LENGTH_ENV_VAR", "32k", |c| c.publication_term_window_length == 32768),
    ("AERON_PUBLICATION_LINGER_TIMEOUT_ENV_VAR", "3s", |c| c.publication_linger_timeout_ns == 3_000_000_000),
    ("AERON_SOCKET_SO_RCVBUF_ENV_VAR", "64k", |c| c.socket_so_rcvbuf == 65536),
    ("AERON_SOCKET_SO_SNDBUF_ENV_VAR", "32k", |c| c.socket_so_sndbuf == 32768),
    ("AERON_SOCKET_MULTICAST_TTL_ENV_VAR", "7", |c| c.socket_multicast_ttl == 7),
    ("AERON_SEND_TO_STATUS_POLL_RATIO_ENV_VAR", "3", |c| c.send_to_status_poll_ratio == 3),
    ("AERON_RCV_STATUS_MESSAGE_TIMEOUT_ENV_VAR", "150ms", |c| c.status_message_timeout_ns == 150_000_000),
    ("AERON_MULTICAST_FLOWCONTROL_SUPPLIER_ENV_VAR", "multicast_min", |c| {
        c.multicast_flow_control_supplier == "multicast_min"
    }),
    ("AERON_UNICAST_FLOWCONTROL_SUPPLIER_ENV_VAR", "unicast_max", |c| {
        c.unicast_flow_control_supplier == "unicast_max"
    }),
    ("AERON_IMAGE_LIVENESS_TIMEOUT_ENV_VAR", "9s", |c| c.image_liveness_timeout_ns == 9_000_000_000),
    ("AERON_RCV_INITIAL_WINDOW_LENGTH_ENV_VAR", "256k", |c| c.rcv_initial_window_length == 256 << 10),
    ("AERON_CONGESTIONCONTROL_SUPPLIER_ENV_VAR", "cubic", |c| c.congestion_control_supplier == "cubic"),
    ("AERON_CUBICCONGESTIONCONTROL_MEASURERTT_ENV_VAR", "true", |c| c.cubic_measure_rtt),
    ("AERON_CUBICCONGESTIONCONTROL_INITIALRTT_ENV_VAR", "200us", |c| c.cubic_initial_rtt_ns == 200_000),
    ("AERON_CUBICCONGESTIONCONTROL_TCPMODE_ENV_VAR", "true", |c| c.cubic_tcp_mode),
    ("AERON_LOSS_REPORT_BUFFER_LENGTH_ENV_VAR", "2m", |c| c.loss_report_buffer_length == 2 << 20),
    ("AERON_PUBLICATION_UNBLOCK_TIMEOUT_ENV_VAR", "20s", |c| {
        c.publication_unblock_timeout_ns == 20_000_000_000
    }),
    ("AERON_PUBLICATION_CONNECTION_TIMEOUT_ENV_VAR", "4s", |c| {
        c.publication_connection_timeout_ns == 4_000_000_000
    }),
    ("AERON_TIMER_INTERVAL_ENV_VAR", "500ms", |c| c.timer_interval_ns == 500_000_000),
    ("AERON_SENDER_IDLE_STRATEGY_ENV_VAR", "yield", |c| {
        c.sender_idle_strategy == IdleStrategy::Yield
            && c.idle_strategy_spec(DriverAgent::Sender).name == "yield"
    }),
    ("AERON_CONDUCTOR_IDLE_STRATEGY_ENV_VAR", "sleep-ns", |c| {
        c.conductor_idle_strategy == IdleStrategy::Sleep(std::time::Duration::from_micros(20))
    }),
    ("AERON_RECEIVER_IDLE_STRATEGY_ENV_VAR", "spin", |c| c.receiver_idle_strategy == IdleStrategy::BusySpin),
    ("AERON_SHAREDNETWORK_IDLE_STRATEGY_ENV_VAR", "noop", |c| {
        c.shared_network_idle_strategy == IdleStrategy::Noop
    }),
    (
        "AERON_SHARED_IDLE_STRATEGY_ENV_VAR",
        "backoff",
        |c| matches!(&c.shared_idle_strategy, IdleStrategy::Backoff(b) if b.max_spins == 3),
    ),
    ("AERON_SENDER_IDLE_STRATEGY_INIT_ARGS_ENV_VAR", "ignored", |c| {
        c.idle_strategy_spec(DriverAgent::Sender).init_args.as_deref() == Some("ignored")
    }),
    ("AERON_CONDUCTOR_IDLE_STRATEGY_INIT_ARGS_ENV_VAR", "20us", |c| {
        c.idle_strategy_spec(DriverAgent::Conductor).init_args.as_deref() == Some("20us")
    }),
    ("AERON_RECEIVER_IDLE_STRATEGY_INIT_ARGS_ENV_VAR", "x", |c| {
        c.idle_strategy_spec(DriverAgent::Receiver).init_args.as_deref() == Some("x")
    }),
    ("AERON_SHAREDNETWORK_IDLE_STRATEGY_INIT_ARGS_ENV_VAR", "y", |c| {
        c.idle_strategy_spec(DriverAgent::SharedNetwork).init_args.as_deref() == Some("y")
    }),
    ("AERON_SHARED_IDLE_STRATEGY_ENV_INIT_ARGS_VAR", "3-4-1us-1ms", |c| {
        c.idle_strategy_spec(DriverAgent::Shared).init_args.as_deref() == Some("3-4-1us-1ms")
    }),
    ("AERON_COUNTERS_FREE_TO_REUSE_TIMEOUT_ENV_VAR", "2s", |c| {
        c.counters_free_to_reuse_timeout_ns == 2_000_000_000
    }),
    ("AERON_MIN_MULTICAST_FLOW_CONTROL_RECEIVER_TIMEOUT_ENV_VAR", "3s", |c| {
        c.network.flow_control_receiver_timeout_ns == 3_000_000_000
    }),
    ("AERON_FLOW_CONTROL_GROUP_TAG_ENV_VAR", "99", |c| c.network.flow_control_group_tag == 99),
    ("AERON_FLOW_CONTROL_GROUP_MIN_SIZE_ENV_VAR", "4", |c| c.network.flow_control_group_min_size == 4),
    ("AERON_RECEIVER_GROUP_TAG_ENV_VAR", "12", |c| c.network.receiver_group_tag == Some(12)),
    ("AERON_DRIVER_TERMINATION_VALIDATOR_ENV_VAR", "allow", |c| {
        c.termination_validator == TerminationValidator::Allow
    }),
    ("AERON_PRINT_CONFIGURATION_ON_START_ENV_VAR", "true", |c| c.print_configuration),
    ("AERON_RELIABLE_STREAM_ENV_VAR", "false", |c| !c.reliable_stream),
    ("AERON_TETHER_SUBSCRIPTIONS_ENV_VAR", "false", |c| !c.tether_subscriptions),
    ("AERON_UNTETHERED_WINDOW_LIMIT_TIMEOUT_ENV_VAR", "6s", |c| {
        c.untethered_window_limit_timeout_ns == 6_000_000_000
    }),
    ("AERON_UNTETHERED_RESTING_TIMEOUT_ENV_VAR", "7s", |c| c.untethered_resting_timeout_ns == 7_000_000_000),
    ("AERON_DRIVER_TIMEOUT_ENV_VAR", "12000", |c| c.driver_timeout_ms == 12_000),
    ("AERON_NAK_MULTICAST_GROUP_SIZE_ENV_VAR", "12", |c| c.nak_multicast_group_size == 12),
    ("AERON_NAK_MULTICAST_MAX_BACKOFF_ENV_VAR", "12ms", |c| c.nak_multicast_max_backoff_ns == 12_000_000),
    ("AERON_NAK_UNICAST_DELAY_ENV_VAR", "120us", |c| c.nak_unicast_delay_ns == 120_000),
    ("AERON_NAK_UNICAST_RETRY_DELAY_RATIO_ENV_VAR", "50", |c| c.nak_unicast_retry_delay_ratio == 50),
    ("AERON_MAX_RESEND_ENV_VAR", "8", |c| c.max_resend == 8),
    ("AERON_RETRANSMIT_UNICAST_DELAY_ENV_VAR", "1us", |c| c.retransmit_unicast_delay_ns == 1_000),
    ("AERON_RETRANSMIT_UNICAST_LINGER_ENV_VAR", "20ms", |c| c.retransmit_unicast_linger_ns == 20_000_000),
    ("AERON_RECEIVER_GROUP_CONSIDERATION_ENV_VAR", "true", |c| {
        c.network.receiver_group_consideration == InferableBoolean::ForceTrue
    }),
    ("AERON_REJOIN_STREAM_ENV_VAR", "false", |c| !c.rejoin_stream),
    ("AERON_DRIVER_CONNECT_ENV_VAR", "false", |c| !c.network.connect_enabled),
    ("AERON_UDP_CHANNEL_INCOMING_INTERCEPTORS_ENV_VAR", "loss", |c| {
        c.udp_channel_incoming_interceptors.as_deref() == Some("loss")
    }),
    ("AERON_PUBLICATION_RESERVED_SESSION_ID_LOW_ENV_VAR", "-10", |c| {
        c.publication_reserved_session_id_low == -10
    }),
    ("AERON_PUBLICATION_RESERVED_SESSION_ID_HIGH_ENV_VAR", "10", |c| {
        c.publication_reserved_session_id_high == 10
    }),
    ("AERON_DRIVER_RESOLVER_NAME_ENV_VAR", "node", |c| c.network.resolver_name.as_deref() == Some("node")),
    ("AERON_DRIVER_RESOLVER_INTERFACE_ENV_VAR", "127.0.0.1:1", |c| {
        c.network.resolver_interface.as_deref() == Some("127.0.0.1:1")
    }),
    ("AERON_DRIVER_RESOLVER_BOOTSTRAP_NEIGHBOR_ENV_VAR", "127.0.0.1:2", |c| {
        c.network.resolver_bootstrap_neighbor.as_deref() == Some("127.0.0.1:2")
    }),
    ("AERON_NAME_RESOLVER_SUPPLIER_ENV_VAR", "default", |c| c.name_resolver_supplier.is_none()),
    ("AERON_NAME_RESOLVER_INIT_ARGS_ENV_VAR", "a=b", |c| {
        c.network.name_resolver_init_args.as_deref() == Some("a=b")
    }),
    ("AERON_DRIVER_RERESOLUTION_CHECK_INTERVAL_ENV_VAR", "2s", |c| {
        c.network.re_resolution_check_interval_ns == 2_000_000_000
    }),
    ("AERON_DRIVER_SENDER_WILDCARD_PORT_RANGE_ENV_VAR", "1000 2000", |c| {
        c.network.sender_wildcard_port_range == PortRange { low: 1000, high: 2000 }
    }),
    ("AERON_DRIVER_RECEIVER_WILDCARD_PORT_RANGE_ENV_VAR", "3000 3000", |c| {
        c.network.receiver_wildcard_port_range == PortRange { low: 3000, high: 3000 }
    }),
    ("AERON_DRIVER_CONDUCTOR_CYCLE_THRESHOLD_ENV_VAR", "2ms", |c| {
        c.conductor_cycle_threshold_ns == 2_000_000
    }),
    ("AERON_DRIVER_SENDER_CYCLE_THRESHOLD_ENV_VAR", "3ms", |c| {
        c.agents.sender_cycle_threshold_ns == 3_000_000
    }),
    ("AERON_DRIVER_RECEIVER_CYCLE_THRESHOLD_ENV_VAR", "4ms", |c| {
        c.agents.receiver_cycle_threshold_ns == 4_000_000
    }),
    ("AERON_DRIVER_NAME_RESOLVER_THRESHOLD_ENV_VAR", "5ms", |c| {
        c.agents.name_resolver_threshold_ns == 5_000_000
    }),
    ("AERON_RECEIVER_IO_VECTOR_CAPACITY_ENV_VAR", "4", |c| c.network.receiver_io_vector_capacity == 4),
    ("AERON_SENDER_IO_VECTOR_CAPACITY_ENV_VAR", "5", |c| c.network.sender_io_vector_capacity == 5),
    ("AERON_NETWORK_PUBLICATION_MAX_MESSAGES_PER_SEND_ENV_VAR", "6", |c| {
        c.network.network_publication_max_messages_per_send == 6
    }),
    ("AERON_DRIVER_RESOURCE_FREE_LIMIT_ENV_VAR", "7", |c| c.resource_free_limit == 7),
    ("AERON_DRIVER_ASYNC_EXECUTOR_THREADS_ENV_VAR", "0", |c| c.agents.async_executor_threads == 0),
    ("AERON_DRIVER_ASYNC_EXECUTOR_CPU_AFFINITY_ENV_VAR", "1", |c| c.agents.async_executor_cpu_affinity == 1),
    ("AERON_CONDUCTOR_CPU_AFFINITY_ENV_VAR", "0", |c| c.agents.conductor_cpu_affinity == 0),
    ("AERON_RECEIVER_CPU_AFFINITY_ENV_VAR", "1", |c| c.agents.receiver_cpu_affinity == 1),
    ("AERON_SENDER_CPU_AFFINITY_ENV_VAR", "2", |c| c.agents.sender_cpu_affinity == 2),
    ("AERON_ENABLE_EXPERIMENTAL_FEATURES_ENV_VAR", "true", |c| c.enable_experimental_features),
    ("AERON_DRIVER_STREAM_SESSION_LIMIT_ENV_VAR", "9", |c| c.stream_session_limit == 9),
];

/// Variables aeronmd.h names that configure C plug-ins aeronrs does not load by name (the
/// bindings and outgoing interceptors accept only `default` / nothing).
const NOT_READ: &[&str] = &[
    "AERON_AGENT_ON_START_FUNCTION_ENV_VAR",
    "AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_MEDIA_ENV_VAR",
    "AERON_CONDUCTOR_UDP_CHANNEL_TRANSPORT_BINDINGS_MEDIA_ENV_VAR",
    "AERON_UDP_CHANNEL_OUTGOING_INTERCEPTORS_ENV_VAR",
    "AERON_DRIVER_DYNAMIC_LIBRARIES_ENV_VAR",
];

#[test]
fn every_defined_variable_is_read_into_its_setting() {
    let defines = defines();
    let variables: Vec<&String> = defines.keys().filter(|name| name.ends_with("_VAR")).collect();
    assert!(variables.len() > 100, "{} variables", variables.len());
    for name in &variables {
        let covered = READ.iter().any(|(n, _, _)| n == name) || NOT_READ.contains(&name.as_str());
        assert!(covered, "{name} is neither read by the context nor listed as not read");
    }
    for (macro_name, value, _) in READ {
        let variable = defines.get(*macro_name).unwrap_or_else(|| panic!("{macro_name} is not defined"));
        set_override(variable, value);
    }
    let ctx = DriverContext::from_env().expect("every value above is valid");
    for (macro_name, value, check) in READ {
        assert!(check(&ctx), "{macro_name} ({}={value}) did not reach the context", defines[*macro_name]);
    }
    // Each flow control name define is a name the driver accepts.
    for name in
        ["AERON_UNICAST_MAX_FLOW_CONTROL_STRATEGY_NAME", "AERON_MULTICAST_MAX_FLOW_CONTROL_STRATEGY_NAME"]
    {
        aeronrs::driver::flow_control::supplier::FlowControlKind::from_supplier_name(&defines[name]).unwrap();
    }
}
