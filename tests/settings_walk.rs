//! No silent settings (issue 18): walks every setting the driver context declares
//! (`DriverContext::all_settings`, built from the settings tables) and, for each, sets a
//! non-default value through its environment variable, through a properties file and
//! through its C setter, reads it back (C getter or context field), shows an invalid value
//! is a clear error naming the variable, and names where its effect on a running driver is
//! shown: in this walk (one driver made through the C API with many rows set), in another
//! test (checked to exist), or in `EFFECT_NOT_YET_SHOWN`. A row in none of these fails the
//! walk, so a setting cannot be added without its entry here. One test: the environment and
//! the settings overrides are process-wide.

use std::collections::BTreeSet;
use std::ffi::{CStr, CString, c_char, c_int};

use aeronrs::cnc::CncFile;
use aeronrs::driver::DriverContext;
use aeronrs::ffi::driver::context::{
    AERON_THREADING_MODE_INVOKER, aeron_driver_context_close, aeron_driver_context_get_dir,
    aeron_driver_context_get_threading_mode, aeron_driver_context_init, aeron_driver_context_set_dir,
    aeron_driver_context_set_threading_mode, aeron_driver_context_t, aeron_threading_mode_t,
};
use aeronrs::ffi::driver::settings::{call_getter, call_setter};
use aeronrs::ffi::driver::settings_idle as idle;
use aeronrs::ffi::driver::settings_udp as udp;
use aeronrs::ffi::driver::{aeron_driver_close, aeron_driver_init, aeron_driver_t};
use aeronrs::util::config::set_override;
use aeronrs::util::properties;
use aeronrs::util::settings::Setting;

/// Rows whose value is not a plain number or flag: (variable, value, check on the context).
type FieldCheck = fn(&DriverContext) -> bool;
const FIELD_SAMPLES: &[(&str, &str, FieldCheck)] = &[
    ("AERON_DIR", "/tmp/aeronrs-walk-dir", |c| c.aeron_dir.to_str() == Some("/tmp/aeronrs-walk-dir")),
    ("AERON_THREADING_MODE", "SHARED", |c| c.threading_mode.name() == "SHARED"),
    ("AERON_CONDUCTOR_IDLE_STRATEGY", "yield", |c| format!("{:?}", c.conductor_idle_strategy) == "Yield"),
    ("AERON_SENDER_IDLE_STRATEGY", "yield", |c| format!("{:?}", c.sender_idle_strategy) == "Yield"),
    ("AERON_RECEIVER_IDLE_STRATEGY", "yield", |c| format!("{:?}", c.receiver_idle_strategy) == "Yield"),
    ("AERON_SHAREDNETWORK_IDLE_STRATEGY", "yield", |c| {
        format!("{:?}", c.shared_network_idle_strategy) == "Yield"
    }),
    ("AERON_SHARED_IDLE_STRATEGY", "yield", |c| format!("{:?}", c.shared_idle_strategy) == "Yield"),
    ("AERON_CONDUCTOR_IDLE_STRATEGY_INIT_ARGS", "1ms", |c| {
        c.idle_strategy_spec(aeronrs::driver::agent_config::DriverAgent::Conductor).init_args.as_deref()
            == Some("1ms")
    }),
    ("AERON_SENDER_IDLE_STRATEGY_INIT_ARGS", "1ms", |c| {
        c.idle_strategy_spec(aeronrs::driver::agent_config::DriverAgent::Sender).init_args.as_deref()
            == Some("1ms")
    }),
    ("AERON_RECEIVER_IDLE_STRATEGY_INIT_ARGS", "1ms", |c| {
        c.idle_strategy_spec(aeronrs::driver::agent_config::DriverAgent::Receiver).init_args.as_deref()
            == Some("1ms")
    }),
    ("AERON_SHAREDNETWORK_IDLE_STRATEGY_INIT_ARGS", "1ms", |c| {
        c.idle_strategy_spec(aeronrs::driver::agent_config::DriverAgent::SharedNetwork).init_args.as_deref()
            == Some("1ms")
    }),
    ("AERON_SHARED_IDLE_STRATEGY_INIT_ARGS", "1ms", |c| {
        c.idle_strategy_spec(aeronrs::driver::agent_config::DriverAgent::Shared).init_args.as_deref()
            == Some("1ms")
    }),
    ("AERON_CONGESTIONCONTROL_SUPPLIER", "cubic", |c| c.congestion_control_supplier == "cubic"),
    ("AERON_UNICAST_FLOWCONTROL_SUPPLIER", "unicast_max", |c| {
        c.unicast_flow_control_supplier == "unicast_max"
    }),
    ("AERON_MULTICAST_FLOWCONTROL_SUPPLIER", "min", |c| c.multicast_flow_control_supplier == "min"),
    ("AERON_DRIVER_TERMINATION_VALIDATOR", "allow", |c| c.validate_termination(b"")),
    ("AERON_UDP_CHANNEL_INCOMING_INTERCEPTORS", "loss", |c| {
        c.udp_channel_incoming_interceptors.as_deref() == Some("loss")
    }),
    ("AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_LOSS_ARGS", "rate=0.5", |c| {
        c.udp_channel_loss_args.as_deref() == Some("rate=0.5")
    }),
    ("AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_FIXED_LOSS_ARGS", "term-id=1", |c| {
        c.udp_channel_fixed_loss_args.as_deref() == Some("term-id=1")
    }),
    ("AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_MULTI_GAP_LOSS_ARGS", "term-id=1", |c| {
        c.udp_channel_multi_gap_loss_args.as_deref() == Some("term-id=1")
    }),
    ("AERON_CUBICCONGESTIONCONTROL_MEASURERTT", "true", |c| c.cubic_measure_rtt),
    ("AERON_CUBICCONGESTIONCONTROL_INITIALRTT", "200us", |c| c.cubic_initial_rtt_ns == 200_000),
    ("AERON_CUBICCONGESTIONCONTROL_TCPMODE", "true", |c| c.cubic_tcp_mode),
    ("AERON_NAME_RESOLVER_SUPPLIER", "csv_table", |c| format!("{:?}", c.builtin_name_resolver) == "CsvTable"),
    ("AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_MEDIA", "default", |c| c.media_plugin_supplier.is_none()),
    ("AERON_CONDUCTOR_UDP_CHANNEL_TRANSPORT_BINDINGS_MEDIA", "default", |c| {
        c.media_plugin_supplier.is_none()
    }),
    ("AERON_UDP_CHANNEL_OUTGOING_INTERCEPTORS", " ", |c| c.media_plugin_supplier.is_none()),
    ("AERON_RECEIVER_GROUP_TAG", "7", |c| c.network.receiver_group_tag == Some(7)),
    ("AERON_RECEIVER_GROUP_CONSIDERATION", "true", |c| {
        format!("{:?}", c.network.receiver_group_consideration) == "ForceTrue"
    }),
    ("AERON_DRIVER_RESOLVER_NAME", "walker", |c| c.network.resolver_name.as_deref() == Some("walker")),
    ("AERON_DRIVER_RESOLVER_INTERFACE", "127.0.0.1:0", |c| {
        c.network.resolver_interface.as_deref() == Some("127.0.0.1:0")
    }),
    ("AERON_DRIVER_RESOLVER_BOOTSTRAP_NEIGHBOR", "127.0.0.1:9", |c| {
        c.network.resolver_bootstrap_neighbor.as_deref() == Some("127.0.0.1:9")
    }),
    ("AERON_NAME_RESOLVER_INIT_ARGS", "a=b", |c| c.network.name_resolver_init_args.as_deref() == Some("a=b")),
    ("AERON_SENDER_WILDCARD_PORT_RANGE", "20000 20010", |c| {
        (c.network.sender_wildcard_port_range.low, c.network.sender_wildcard_port_range.high)
            == (20000, 20010)
    }),
    ("AERON_RECEIVER_WILDCARD_PORT_RANGE", "20000 20010", |c| {
        (c.network.receiver_wildcard_port_range.low, c.network.receiver_wildcard_port_range.high)
            == (20000, 20010)
    }),
    ("AERONRS_DRIVER_AGENT_TIME_SLICE", "250us", |c| c.agents.agent_time_slice_ns == 250_000),
];

/// Plain rows whose sample cannot be derived from the default (default + 1 ms for a
/// duration, twice it for a size, + 1 for an integer): (variable, value, C value).
const PLAIN_SAMPLES: &[(&str, &str, &str)] = &[
    ("AERON_CONDUCTOR_BUFFER_LENGTH", "2097920", "2097920"),
    ("AERON_CLIENTS_BUFFER_LENGTH", "2097280", "2097280"),
    ("AERON_DRIVER_STREAM_SESSION_LIMIT", "1000", "1000"),
    ("AERON_DRIVER_ASYNC_EXECUTOR_THREADS", "0", "0"),
    ("AERON_SOCKET_SO_SNDBUF", "64k", "65536"),
    ("AERON_PUBLICATION_TERM_WINDOW_LENGTH", "64k", "65536"),
    ("AERON_IPC_PUBLICATION_TERM_WINDOW_LENGTH", "64k", "65536"),
];

/// Values refused with an error naming the variable, for rows whose reader has no "bogus".
const INVALID_SAMPLES: &[(&str, &str)] = &[
    ("AERON_NAME_RESOLVER_SUPPLIER", "mine"),
    ("AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_MEDIA", "ef_vi"),
    ("AERON_CONDUCTOR_UDP_CHANNEL_TRANSPORT_BINDINGS_MEDIA", "ef_vi"),
    ("AERON_UDP_CHANNEL_OUTGOING_INTERCEPTORS", "loss"),
    ("AERONRS_DRIVER_AGENT_TIME_SLICE", "10us"),
    ("AERON_MAX_RESEND", "257"),
];

/// Rows whose effect on a driver this walk shows (`driver_effects`).
const EFFECT_SHOWN_HERE: &[&str] = &[
    "AERON_DIR",
    "AERON_CONDUCTOR_BUFFER_LENGTH",
    "AERON_CLIENTS_BUFFER_LENGTH",
    "AERON_COUNTERS_BUFFER_LENGTH",
    "AERON_ERROR_BUFFER_LENGTH",
    "AERON_LOSS_REPORT_BUFFER_LENGTH",
    "AERON_CLIENT_LIVENESS_TIMEOUT",
    "AERON_DIR_DELETE_ON_SHUTDOWN",
    // An unknown resolver name is refused (INVALID_SAMPLES); the three built in are shown
    // working by driver_name_resolvers.rs and driver_re_resolution.rs.
    "AERON_NAME_RESOLVER_SUPPLIER",
    // Refused unless `default`/empty: the clear error is the effect (INVALID_SAMPLES).
    "AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_MEDIA",
    "AERON_CONDUCTOR_UDP_CHANNEL_TRANSPORT_BINDINGS_MEDIA",
    "AERON_UDP_CHANNEL_OUTGOING_INTERCEPTORS",
];

/// Rows whose effect another test shows: (variable or field, test file, test function); a
/// file ending `.c` is in `c-tests/`, the others in `tests/`.
const EFFECT_SHOWN_BY: &[(&str, &str, &str)] = &[
    ("AERON_DIR_DELETE_ON_START", "driver_liveness.rs", "delete_on_start_clears_an_existing_directory"),
    ("AERON_THREADING_MODE", "driver_affinity.rs", "embedded_driver_pins_each_agent_thread"),
    (
        "AERON_CONDUCTOR_CPU_AFFINITY",
        "driver_affinity.rs",
        "aeronmd_pins_its_agent_threads_from_the_environment",
    ),
    (
        "AERON_SENDER_CPU_AFFINITY",
        "driver_affinity.rs",
        "aeronmd_pins_its_agent_threads_from_the_environment",
    ),
    (
        "AERON_RECEIVER_CPU_AFFINITY",
        "driver_affinity.rs",
        "aeronmd_pins_its_agent_threads_from_the_environment",
    ),
    ("AERON_IPC_TERM_BUFFER_LENGTH", "driver_aeronmd.rs", "properties_file_defines_and_sigint"),
    ("AERON_TIMER_INTERVAL", "driver_aeronmd.rs", "properties_file_defines_and_sigint"),
    ("AERON_SHARED_IDLE_STRATEGY", "driver_aeronmd.rs", "properties_file_defines_and_sigint"),
    ("AERON_DRIVER_TERMINATION_VALIDATOR", "driver_liveness.rs", "terminate_driver_follows_the_validator"),
    ("termination_hook", "driver_liveness.rs", "terminate_driver_follows_the_validator"),
    (
        "AERON_PERFORM_STORAGE_CHECKS",
        "driver_storage.rs",
        "a_publication_log_that_does_not_fit_fails_alone_with_storage_checks_on",
    ),
    (
        "AERON_ENABLE_EXPERIMENTAL_FEATURES",
        "udp_response_channels.rs",
        "interop_with_java_aeron_all_for_response_channels_our_server_java_clients",
    ),
    (
        "AERON_UDP_CHANNEL_INCOMING_INTERCEPTORS",
        "udp_media.rs",
        "loopback_with_loss_drops_the_seeded_data_frames_only",
    ),
    (
        "AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_LOSS_ARGS",
        "udp_media.rs",
        "loopback_with_loss_drops_the_seeded_data_frames_only",
    ),
    (
        "AERON_CUBICCONGESTIONCONTROL_MEASURERTT",
        "udp_driver.rs",
        "cubic_congestion_control_measures_rtt_and_grows_the_window",
    ),
    (
        "AERON_CUBICCONGESTIONCONTROL_INITIALRTT",
        "udp_driver.rs",
        "cubic_congestion_control_measures_rtt_and_grows_the_window",
    ),
    (
        "AERON_CONGESTIONCONTROL_SUPPLIER",
        "udp_driver.rs",
        "cubic_congestion_control_measures_rtt_and_grows_the_window",
    ),
    (
        "AERON_NAME_RESOLVER_INIT_ARGS",
        "driver_name_resolution.rs",
        "a_supplied_resolver_resolves_channels_for_the_driver",
    ),
    (
        "AERON_DRIVER_RESOLVER_NAME",
        "driver_name_resolvers.rs",
        "two_driver_resolvers_find_each_other_through_a_bootstrap_neighbour",
    ),
    (
        "AERON_DRIVER_RESOLVER_INTERFACE",
        "driver_name_resolvers.rs",
        "two_driver_resolvers_find_each_other_through_a_bootstrap_neighbour",
    ),
    (
        "AERON_DRIVER_RESOLVER_BOOTSTRAP_NEIGHBOR",
        "driver_name_resolvers.rs",
        "two_driver_resolvers_find_each_other_through_a_bootstrap_neighbour",
    ),
    (
        "AERON_DRIVER_RERESOLUTION_CHECK_INTERVAL",
        "driver_re_resolution.rs",
        "a_publication_follows_a_name_whose_address_changed",
    ),
    (
        "AERON_DRIVER_ASYNC_EXECUTOR_THREADS",
        "driver_name_resolvers.rs",
        "a_blocking_resolution_runs_on_the_executor_and_the_conductor_goes_on",
    ),
    (
        "name_resolver_supplier",
        "driver_name_resolution.rs",
        "a_supplied_resolver_resolves_channels_for_the_driver",
    ),
    ("AERONRS_UDP_MMSG_ENABLED", "udp_driver.rs", "ten_percent_data_loss_is_recovered_in_order"),
    ("AERONRS_UDP_GSO_ENABLED", "udp_driver.rs", "ten_percent_data_loss_is_recovered_in_order"),
    ("AERONRS_UDP_GRO_ENABLED", "udp_driver.rs", "ten_percent_data_loss_is_recovered_in_order"),
    (
        "AERON_DRIVER_NAME_RESOLVER_THRESHOLD",
        "driver_name_resolution.rs",
        "resolving_localhost_is_timed_and_counted_over_the_threshold",
    ),
    (
        "AERON_SENDER_WILDCARD_PORT_RANGE",
        "udp_port_managers.rs",
        "wildcard_ports_come_from_the_configured_ranges",
    ),
    (
        "AERON_RECEIVER_WILDCARD_PORT_RANGE",
        "udp_port_managers.rs",
        "wildcard_ports_come_from_the_configured_ranges",
    ),
    (
        "receiver_port_manager",
        "udp_port_managers.rs",
        "a_supplied_port_manager_decides_and_hears_of_freed_ports",
    ),
    (
        "AERONRS_MAX_IMAGES_PER_SOURCE",
        "udp_hostile_setups.rs",
        "forged_setups_from_random_sessions_are_bounded_and_forgotten",
    ),
    (
        "AERON_IMAGE_LIVENESS_TIMEOUT",
        "udp_hostile_setups.rs",
        "forged_setups_from_random_sessions_are_bounded_and_forgotten",
    ),
    (
        "AERON_COUNTERS_FREE_TO_REUSE_TIMEOUT",
        "settings_effects.rs",
        "logs_windows_spies_counters_and_cycle_thresholds_follow_the_settings",
    ),
    (
        "AERON_TERM_BUFFER_LENGTH",
        "settings_effects.rs",
        "logs_windows_spies_counters_and_cycle_thresholds_follow_the_settings",
    ),
    (
        "AERON_MTU_LENGTH",
        "settings_effects.rs",
        "logs_windows_spies_counters_and_cycle_thresholds_follow_the_settings",
    ),
    (
        "AERON_FILE_PAGE_SIZE",
        "settings_effects.rs",
        "logs_windows_spies_counters_and_cycle_thresholds_follow_the_settings",
    ),
    (
        "AERON_TERM_BUFFER_SPARSE_FILE",
        "settings_effects.rs",
        "logs_windows_spies_counters_and_cycle_thresholds_follow_the_settings",
    ),
    (
        "AERON_SPIES_SIMULATE_CONNECTION",
        "settings_effects.rs",
        "logs_windows_spies_counters_and_cycle_thresholds_follow_the_settings",
    ),
    (
        "AERON_PUBLICATION_TERM_WINDOW_LENGTH",
        "settings_effects.rs",
        "logs_windows_spies_counters_and_cycle_thresholds_follow_the_settings",
    ),
    (
        "AERON_IPC_MTU_LENGTH",
        "settings_effects.rs",
        "logs_windows_spies_counters_and_cycle_thresholds_follow_the_settings",
    ),
    (
        "AERON_IPC_PUBLICATION_TERM_WINDOW_LENGTH",
        "settings_effects.rs",
        "logs_windows_spies_counters_and_cycle_thresholds_follow_the_settings",
    ),
    (
        "AERON_DRIVER_CONDUCTOR_CYCLE_THRESHOLD",
        "settings_effects.rs",
        "logs_windows_spies_counters_and_cycle_thresholds_follow_the_settings",
    ),
    (
        "AERON_DRIVER_SENDER_CYCLE_THRESHOLD",
        "settings_effects.rs",
        "logs_windows_spies_counters_and_cycle_thresholds_follow_the_settings",
    ),
    (
        "AERON_DRIVER_RECEIVER_CYCLE_THRESHOLD",
        "settings_effects.rs",
        "logs_windows_spies_counters_and_cycle_thresholds_follow_the_settings",
    ),
    (
        "AERON_PUBLICATION_RESERVED_SESSION_ID_LOW",
        "settings_effects.rs",
        "session_ids_stay_out_of_the_reserved_range",
    ),
    (
        "AERON_PUBLICATION_RESERVED_SESSION_ID_HIGH",
        "settings_effects.rs",
        "session_ids_stay_out_of_the_reserved_range",
    ),
    (
        "AERON_CONDUCTOR_IDLE_STRATEGY",
        "settings_effects.rs",
        "each_agent_thread_idles_with_its_configured_strategy_and_period",
    ),
    (
        "AERON_SENDER_IDLE_STRATEGY",
        "settings_effects.rs",
        "each_agent_thread_idles_with_its_configured_strategy_and_period",
    ),
    (
        "AERON_RECEIVER_IDLE_STRATEGY",
        "settings_effects.rs",
        "each_agent_thread_idles_with_its_configured_strategy_and_period",
    ),
    (
        "AERON_SHAREDNETWORK_IDLE_STRATEGY",
        "settings_effects.rs",
        "each_agent_thread_idles_with_its_configured_strategy_and_period",
    ),
    (
        "AERON_CONDUCTOR_IDLE_STRATEGY_INIT_ARGS",
        "settings_effects.rs",
        "each_agent_thread_idles_with_its_configured_strategy_and_period",
    ),
    (
        "AERON_SENDER_IDLE_STRATEGY_INIT_ARGS",
        "settings_effects.rs",
        "each_agent_thread_idles_with_its_configured_strategy_and_period",
    ),
    (
        "AERON_RECEIVER_IDLE_STRATEGY_INIT_ARGS",
        "settings_effects.rs",
        "each_agent_thread_idles_with_its_configured_strategy_and_period",
    ),
    (
        "AERON_SHAREDNETWORK_IDLE_STRATEGY_INIT_ARGS",
        "settings_effects.rs",
        "each_agent_thread_idles_with_its_configured_strategy_and_period",
    ),
    (
        "AERON_SHARED_IDLE_STRATEGY_INIT_ARGS",
        "settings_effects.rs",
        "each_agent_thread_idles_with_its_configured_strategy_and_period",
    ),
    (
        "AERON_DRIVER_TIMEOUT",
        "settings_effects.rs",
        "aeronmd_replaces_a_stale_driver_warns_and_prints_its_configuration",
    ),
    (
        "AERON_DIR_WARN_IF_EXISTS",
        "settings_effects.rs",
        "aeronmd_replaces_a_stale_driver_warns_and_prints_its_configuration",
    ),
    (
        "AERON_PRINT_CONFIGURATION",
        "settings_effects.rs",
        "aeronmd_replaces_a_stale_driver_warns_and_prints_its_configuration",
    ),
    (
        "AERON_LOW_FILE_STORE_WARNING_THRESHOLD",
        "settings_effects.rs",
        "aeronmd_replaces_a_stale_driver_warns_and_prints_its_configuration",
    ),
    (
        "AERON_RCV_INITIAL_WINDOW_LENGTH",
        "settings_effects_udp.rs",
        "status_messages_socket_buffers_and_image_limits_follow_the_receiver_settings",
    ),
    (
        "AERON_RECEIVER_GROUP_TAG",
        "settings_effects_udp.rs",
        "status_messages_socket_buffers_and_image_limits_follow_the_receiver_settings",
    ),
    (
        "AERON_RCV_STATUS_MESSAGE_TIMEOUT",
        "settings_effects_udp.rs",
        "status_messages_socket_buffers_and_image_limits_follow_the_receiver_settings",
    ),
    (
        "AERON_SOCKET_SO_RCVBUF",
        "settings_effects_udp.rs",
        "status_messages_socket_buffers_and_image_limits_follow_the_receiver_settings",
    ),
    (
        "AERON_SOCKET_SO_SNDBUF",
        "settings_effects_udp.rs",
        "status_messages_socket_buffers_and_image_limits_follow_the_receiver_settings",
    ),
    ("conductor_duty_cycle_tracker", "test_driver_plugins.c", "trackers_see_every_duty_cycle"),
    ("sender_duty_cycle_tracker", "test_driver_plugins.c", "trackers_see_every_duty_cycle"),
    ("receiver_duty_cycle_tracker", "test_driver_plugins.c", "trackers_see_every_duty_cycle"),
    ("name_resolver_time_tracker", "test_driver_plugins.c", "name_resolver_and_its_time_tracker"),
    ("sender_port_manager", "test_driver_plugins.c", "port_managers_choose_bind_addresses"),
    ("on_start", "test_driver_context.c", "invoker_driver"),
    ("termination_validator_fn", "test_driver_context.c", "invoker_driver"),
    (
        "idle_strategy_specs",
        "settings_effects.rs",
        "c_setters_choose_the_conductor_idle_strategy_and_its_period",
    ),
    (
        "AERON_DRIVER_STREAM_SESSION_LIMIT",
        "settings_effects_udp.rs",
        "status_messages_socket_buffers_and_image_limits_follow_the_receiver_settings",
    ),
    (
        "AERONRS_MAX_IMAGES_PER_ENDPOINT",
        "settings_effects_udp.rs",
        "status_messages_socket_buffers_and_image_limits_follow_the_receiver_settings",
    ),
    (
        "AERON_TETHER_SUBSCRIPTIONS",
        "settings_effects.rs",
        "untethered_subscribers_rest_and_rejoin_and_closed_publications_linger_as_set",
    ),
    (
        "AERON_UNTETHERED_WINDOW_LIMIT_TIMEOUT",
        "settings_effects.rs",
        "untethered_subscribers_rest_and_rejoin_and_closed_publications_linger_as_set",
    ),
    (
        "AERON_UNTETHERED_RESTING_TIMEOUT",
        "settings_effects.rs",
        "untethered_subscribers_rest_and_rejoin_and_closed_publications_linger_as_set",
    ),
    (
        "AERON_PUBLICATION_LINGER_TIMEOUT",
        "settings_effects.rs",
        "untethered_subscribers_rest_and_rejoin_and_closed_publications_linger_as_set",
    ),
    (
        "AERON_DRIVER_CONNECT",
        "settings_effects_udp.rs",
        "unconnected_send_sockets_and_the_connection_timeout_follow_the_settings",
    ),
    (
        "AERON_PUBLICATION_CONNECTION_TIMEOUT",
        "settings_effects_udp.rs",
        "unconnected_send_sockets_and_the_connection_timeout_follow_the_settings",
    ),
    (
        "AERON_NAK_UNICAST_DELAY",
        "settings_effects_udp.rs",
        "naks_follow_the_delay_and_ratio_and_unreliable_streams_pad_gaps",
    ),
    (
        "AERON_NAK_UNICAST_RETRY_DELAY_RATIO",
        "settings_effects_udp.rs",
        "naks_follow_the_delay_and_ratio_and_unreliable_streams_pad_gaps",
    ),
    (
        "AERON_RELIABLE_STREAM",
        "settings_effects_udp.rs",
        "naks_follow_the_delay_and_ratio_and_unreliable_streams_pad_gaps",
    ),
    ("AERON_RETRANSMIT_UNICAST_DELAY", "settings_effects_udp.rs", "retransmits_follow_the_delay_and_linger"),
    ("AERON_RETRANSMIT_UNICAST_LINGER", "settings_effects_udp.rs", "retransmits_follow_the_delay_and_linger"),
    (
        "AERON_UNICAST_FLOWCONTROL_SUPPLIER",
        "settings_effects_udp.rs",
        "flow_control_suppliers_group_size_and_receiver_timeout_follow_the_settings",
    ),
    (
        "AERON_MULTICAST_FLOWCONTROL_SUPPLIER",
        "settings_effects_udp.rs",
        "flow_control_suppliers_group_size_and_receiver_timeout_follow_the_settings",
    ),
    (
        "AERON_FLOW_CONTROL_GROUP_MIN_SIZE",
        "settings_effects_udp.rs",
        "flow_control_suppliers_group_size_and_receiver_timeout_follow_the_settings",
    ),
    (
        "AERON_MIN_MULTICAST_FLOW_CONTROL_RECEIVER_TIMEOUT",
        "settings_effects_udp.rs",
        "flow_control_suppliers_group_size_and_receiver_timeout_follow_the_settings",
    ),
    (
        "AERON_FLOW_CONTROL_GROUP_TAG",
        "settings_effects_udp.rs",
        "flow_control_suppliers_group_size_and_receiver_timeout_follow_the_settings",
    ),
    (
        "AERON_DRIVER_ASYNC_EXECUTOR_CPU_AFFINITY",
        "settings_effects.rs",
        "the_async_executor_thread_is_pinned_as_set",
    ),
    (
        "AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_FIXED_LOSS_ARGS",
        "settings_effects_udp.rs",
        "loss_interceptors_drop_the_frames_their_args_name",
    ),
    (
        "AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_MULTI_GAP_LOSS_ARGS",
        "settings_effects_udp.rs",
        "loss_interceptors_drop_the_frames_their_args_name",
    ),
    (
        "AERON_RECEIVER_GROUP_CONSIDERATION",
        "settings_effects_udp.rs",
        "group_consideration_gives_unicast_images_the_multicast_nak_delay",
    ),
    (
        "AERON_MAX_RESEND",
        "settings_effects_udp.rs",
        "max_resend_bounds_the_resends_of_a_multi_destination_publication",
    ),
    (
        "AERONRS_DRIVER_AGENT_TIME_SLICE",
        "settings_effects.rs",
        "agent_threads_ask_for_the_configured_time_slice",
    ),
    (
        "AERON_PUBLICATION_UNBLOCK_TIMEOUT",
        "settings_effects.rs",
        "a_dead_claim_is_unblocked_after_the_configured_timeout",
    ),
    ("AERON_REJOIN_STREAM", "settings_effects_udp.rs", "a_session_does_not_rejoin_a_stream_that_forbids_it"),
    (
        "AERON_RECEIVER_IO_VECTOR_CAPACITY",
        "settings_effects_udp.rs",
        "io_vector_capacities_and_the_multicast_ttl_reach_the_transports",
    ),
    (
        "AERON_SENDER_IO_VECTOR_CAPACITY",
        "settings_effects_udp.rs",
        "io_vector_capacities_and_the_multicast_ttl_reach_the_transports",
    ),
    (
        "AERON_SOCKET_MULTICAST_TTL",
        "settings_effects_udp.rs",
        "io_vector_capacities_and_the_multicast_ttl_reach_the_transports",
    ),
    (
        "AERON_CUBICCONGESTIONCONTROL_TCPMODE",
        "settings_effects_udp.rs",
        "cubic_tcp_mode_restores_the_window_at_once",
    ),
    (
        "AERON_DRIVER_RESOURCE_FREE_LIMIT",
        "settings_effects.rs",
        "ended_logs_are_freed_up_to_the_limit_per_duty_cycle",
    ),
    (
        "AERON_NETWORK_PUBLICATION_MAX_MESSAGES_PER_SEND",
        "settings_effects_udp.rs",
        "duty_cycles_send_and_poll_as_configured",
    ),
    ("AERON_SEND_TO_STATUS_POLL_RATIO", "settings_effects_udp.rs", "duty_cycles_send_and_poll_as_configured"),
    (
        "AERON_NAK_MULTICAST_MAX_BACKOFF",
        "settings_effects_udp.rs",
        "multicast_nak_back_off_follows_its_maximum",
    ),
    (
        "AERON_NAK_MULTICAST_GROUP_SIZE",
        "settings_effects_udp.rs",
        "multicast_nak_back_off_follows_the_group_size",
    ),
];

/// Rows whose effect no test shows yet (read back and range-checked above all the same).
/// Shrink it: each entry is a setting we accept without proof that it does what Aeron's does.
const EFFECT_NOT_YET_SHOWN: &[&str] = &[];

/// The row's key in the effect lists: its variable, else its field.
fn key(row: &Setting) -> &'static str {
    row.env.unwrap_or(row.field)
}

/// A fresh C context from the environment and overrides as they are now.
fn c_context() -> Result<*mut aeron_driver_context_t, String> {
    let mut context = std::ptr::null_mut();
    // SAFETY: a valid out pointer.
    if unsafe { aeron_driver_context_init(&mut context) } == 0 { Ok(context) } else { Err(last_error()) }
}

/// The thread's last C API error message.
fn last_error() -> String {
    // SAFETY: aeron_errmsg returns a NUL-terminated string valid until the next call.
    unsafe { text(aeronrs::ffi::error::aeron_errmsg()) }.unwrap_or_default()
}

fn close(context: *mut aeron_driver_context_t) {
    // SAFETY: from aeron_driver_context_init, closed once.
    assert_eq!(unsafe { aeron_driver_context_close(context) }, 0);
}

/// The generated getter's text, flags as `true`/`false` whichever C type carries them.
fn c_get(context: *mut aeron_driver_context_t, row: &Setting) -> String {
    // SAFETY: NULL or live.
    let text = unsafe { call_getter(context, row.c_getter.unwrap()) }.expect("a generated getter");
    match (row.kind, text.as_str()) {
        ("flag", "1") => "true".into(),
        ("flag", "0") => "false".into(),
        _ => text,
    }
}

/// (variable value, C value) for a row with generated C functions.
fn plain_sample(row: &Setting) -> (String, String) {
    let env = row.env.unwrap();
    if let Some(&(_, value, c)) = PLAIN_SAMPLES.iter().find(|s| s.0 == env) {
        return (value.into(), c.into());
    }
    let default = c_get(std::ptr::null_mut(), row);
    match row.kind {
        "flag" => {
            let flipped = if default == "true" { "false" } else { "true" };
            (flipped.into(), flipped.into())
        }
        "duration" => {
            let ns: u64 = default.parse().unwrap();
            (format!("{}us", ns / 1000 + 1000), (ns + 1_000_000).to_string())
        }
        "size" | "min_size" => {
            let bytes: u64 = default.parse().unwrap();
            let text = if bytes * 2 % 1024 == 0 {
                format!("{}k", bytes * 2 / 1024)
            } else {
                (bytes * 2).to_string()
            };
            (text, (bytes * 2).to_string())
        }
        "int" => {
            let value: i64 = default.parse::<i64>().unwrap() + 1;
            (value.to_string(), value.to_string())
        }
        kind => panic!("{env}: no sample for a {kind} row"),
    }
}

/// Sets `env` through the route, reads the context back through C and Rust.
fn read_back(row: &Setting, value: &str, expect_c: Option<&str>) -> Result<(), String> {
    let context = c_context()?;
    let got = expect_c.map(|_| c_get(context, row));
    close(context);
    if got.as_deref() != expect_c {
        return Err(format!("C getter {got:?}, expected {expect_c:?}"));
    }
    let ctx = DriverContext::from_env().map_err(|e| e.to_string())?;
    if let Some(&(_, _, check)) = FIELD_SAMPLES.iter().find(|s| s.0 == row.env.unwrap()) {
        if !check(&ctx) {
            return Err(format!("field does not show {value:?}"));
        }
    }
    Ok(())
}

fn set_env(name: &str, value: Option<&str>) {
    // SAFETY: this file's only test sets variables; no other thread of it reads them meanwhile.
    unsafe {
        match value {
            Some(v) => std::env::set_var(name, v),
            None => std::env::remove_var(name),
        }
    }
}

/// Each row through the environment, a properties file and, where it has one, its C setter.
fn walk_row(row: &Setting, dir: &std::path::Path) -> Result<(), String> {
    let env = row.env.unwrap();
    let (value, c_value) = match FIELD_SAMPLES.iter().find(|s| s.0 == env) {
        Some(&(_, value, _)) => (value.to_string(), None),
        None if row.c_getter.is_some() => {
            let (v, c) = plain_sample(row);
            (v, Some(c))
        }
        None => return Err("add a sample to FIELD_SAMPLES".into()),
    };
    set_env(env, Some(&value));
    let by_env = read_back(row, &value, c_value.as_deref());
    set_env(env, None);
    by_env.map_err(|e| format!("environment: {e}"))?;

    let property = row.property().unwrap();
    let file = dir.join(format!("{property}.properties"));
    std::fs::write(&file, format!("# walk\n{property}={value}\n")).unwrap();
    properties::apply(&properties::load(file.to_str().unwrap()).map_err(|e| e.to_string())?);
    let by_file = read_back(row, &value, c_value.as_deref());
    set_override(env, "");
    by_file.map_err(|e| format!("properties file: {e}"))?;

    let bogus = INVALID_SAMPLES.iter().find(|s| s.0 == env).map(|s| s.1).unwrap_or("bogus");
    if !matches!(row.kind, "text" | "opt_text" | "path")
        && !env.ends_with("_INIT_ARGS")
        && env != "AERON_RECEIVER_GROUP_CONSIDERATION"
    {
        set_override(env, bogus);
        let refused = DriverContext::from_env().err().map(|e| e.to_string());
        set_override(env, "");
        match refused {
            Some(message) if message.contains(env) => {}
            other => return Err(format!("{bogus:?} was not refused naming the variable: {other:?}")),
        }
    }

    if let (Some(setter), Some(c_value)) = (row.c_setter, c_value) {
        let context = c_context()?;
        // SAFETY: a live context.
        let status = unsafe { call_setter(context, setter, &c_value) };
        let got = c_get(context, row);
        close(context);
        if status != Some(0) || got != c_value {
            return Err(format!("C setter: status {status:?}, getter {got:?}, expected {c_value:?}"));
        }
    }
    Ok(())
}

fn c_string(text: &str) -> CString {
    CString::new(text).unwrap()
}

/// # Safety
/// `p` is NULL or NUL-terminated.
unsafe fn text(p: *const c_char) -> Option<String> {
    // SAFETY: as the contract.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

type SetText = unsafe extern "C" fn(*mut aeron_driver_context_t, *const c_char) -> c_int;
type GetText = unsafe extern "C" fn(*mut aeron_driver_context_t) -> *const c_char;

/// The C setters that are not generated: set and read back through C.
fn custom_c_setters() {
    let context = c_context().unwrap();
    let texts: &[(&str, SetText, GetText, &str)] = &[
        ("dir", aeron_driver_context_set_dir, aeron_driver_context_get_dir, "/tmp/aeronrs-walk-c"),
        (
            "conductor idle",
            idle::aeron_driver_context_set_conductor_idle_strategy,
            idle::aeron_driver_context_get_conductor_idle_strategy,
            "yield",
        ),
        (
            "sender idle",
            idle::aeron_driver_context_set_sender_idle_strategy,
            idle::aeron_driver_context_get_sender_idle_strategy,
            "yield",
        ),
        (
            "receiver idle",
            idle::aeron_driver_context_set_receiver_idle_strategy,
            idle::aeron_driver_context_get_receiver_idle_strategy,
            "yield",
        ),
        (
            "sharednetwork idle",
            idle::aeron_driver_context_set_sharednetwork_idle_strategy,
            idle::aeron_driver_context_get_sharednetwork_idle_strategy,
            "yield",
        ),
        (
            "shared idle",
            idle::aeron_driver_context_set_shared_idle_strategy,
            idle::aeron_driver_context_get_shared_idle_strategy,
            "yield",
        ),
        (
            "resolver name",
            udp::aeron_driver_context_set_resolver_name,
            udp::aeron_driver_context_get_resolver_name,
            "walker",
        ),
        (
            "resolver interface",
            udp::aeron_driver_context_set_resolver_interface,
            udp::aeron_driver_context_get_resolver_interface,
            "127.0.0.1:0",
        ),
        (
            "bootstrap neighbor",
            udp::aeron_driver_context_set_resolver_bootstrap_neighbor,
            udp::aeron_driver_context_get_resolver_bootstrap_neighbor,
            "127.0.0.1:9",
        ),
        (
            "name resolver init args",
            udp::aeron_driver_context_set_name_resolver_init_args,
            udp::aeron_driver_context_get_name_resolver_init_args,
            "a=b",
        ),
    ];
    for &(what, set, get, value) in texts {
        let value_c = c_string(value);
        // SAFETY: a live context and a NUL-terminated string.
        assert_eq!(unsafe { set(context, value_c.as_ptr()) }, 0, "{what}");
        // SAFETY: a live context; the string lives until the setting changes.
        assert_eq!(unsafe { text(get(context)) }.as_deref(), Some(value), "{what}");
        let bogus = c_string("no-such-idle-strategy");
        if what.ends_with("idle") {
            // SAFETY: as above.
            assert_eq!(unsafe { set(context, bogus.as_ptr()) }, -1, "{what}: an unknown name is refused");
        }
    }
    // SAFETY: a live context throughout.
    unsafe {
        assert_eq!(
            aeron_driver_context_set_threading_mode(
                context,
                aeron_threading_mode_t(AERON_THREADING_MODE_INVOKER)
            ),
            0
        );
        assert_eq!(aeron_driver_context_get_threading_mode(context).0, AERON_THREADING_MODE_INVOKER);
        assert_eq!(udp::aeron_driver_context_set_receiver_group_tag(context, true, 7), 0);
        assert!(udp::aeron_driver_context_get_receiver_group_tag_is_present(context));
        assert_eq!(udp::aeron_driver_context_get_receiver_group_tag_value(context), 7);
        assert_eq!(
            udp::aeron_driver_context_set_receiver_group_consideration(
                context,
                udp::aeron_inferable_boolean_t(udp::AERON_FORCE_TRUE)
            ),
            0
        );
        assert_eq!(
            udp::aeron_driver_context_get_receiver_group_consideration(context).0,
            udp::AERON_FORCE_TRUE
        );
        assert_eq!(udp::aeron_driver_context_set_sender_wildcard_port_range(context, 20000, 20010), 0);
        assert_eq!(udp::aeron_driver_context_set_receiver_wildcard_port_range(context, 20020, 20030), 0);
        let (mut low, mut high) = (0u16, 0u16);
        assert_eq!(udp::aeron_driver_context_get_sender_wildcard_port_range(context, &mut low, &mut high), 0);
        assert_eq!((low, high), (20000, 20010));
        assert_eq!(
            udp::aeron_driver_context_get_receiver_wildcard_port_range(context, &mut low, &mut high),
            0
        );
        assert_eq!((low, high), (20020, 20030));
        // Low above high is refused when the driver is made, naming the setting.
        assert_eq!(udp::aeron_driver_context_set_sender_wildcard_port_range(context, 20010, 20000), 0);
        let mut driver: *mut aeron_driver_t = std::ptr::null_mut();
        assert_eq!(aeron_driver_init(&mut driver, context), -1);
        assert!(last_error().contains("AERON_SENDER_WILDCARD_PORT_RANGE"), "{}", last_error());
    }
    close(context);
}

/// One driver made through the C API with the `EFFECT_SHOWN_HERE` rows set: its files show
/// each of them.
fn driver_effects(root: &std::path::Path) {
    let dir = root.join("aeron");
    let context = c_context().unwrap();
    let set = |setter: &str, value: &str| {
        // SAFETY: a live context.
        assert_eq!(unsafe { call_setter(context, setter, value) }, Some(0), "{setter}");
    };
    let dir_c = c_string(dir.to_str().unwrap());
    // SAFETY: a live context and a NUL-terminated string.
    assert_eq!(unsafe { aeron_driver_context_set_dir(context, dir_c.as_ptr()) }, 0);
    set("aeron_driver_context_set_to_conductor_buffer_length", "2097920");
    set("aeron_driver_context_set_to_clients_buffer_length", "2097280");
    set("aeron_driver_context_set_counters_buffer_length", "2097152");
    set("aeron_driver_context_set_error_buffer_length", "2097152");
    set("aeron_driver_context_set_loss_report_buffer_length", "2097152");
    set("aeron_driver_context_set_client_liveness_timeout_ns", "7000000000");
    set("aeron_driver_context_set_dir_delete_on_shutdown", "true");
    let mut driver: *mut aeron_driver_t = std::ptr::null_mut();
    // SAFETY: a valid out pointer and a live context.
    assert_eq!(unsafe { aeron_driver_init(&mut driver, context) }, 0, "{}", last_error());
    let cnc = CncFile::map_existing(&dir.join("cnc.dat")).unwrap();
    assert_eq!(cnc.to_driver_buffer().capacity(), 2_097_920, "AERON_CONDUCTOR_BUFFER_LENGTH");
    assert_eq!(cnc.to_clients_buffer().capacity(), 2_097_280, "AERON_CLIENTS_BUFFER_LENGTH");
    assert_eq!(cnc.counters_values_buffer().capacity(), 2 << 20, "AERON_COUNTERS_BUFFER_LENGTH");
    assert_eq!(cnc.counters_metadata_buffer().capacity(), 8 << 20, "metadata is 4 times the values");
    assert_eq!(cnc.error_log_buffer().unwrap().capacity(), 2 << 20, "AERON_ERROR_BUFFER_LENGTH");
    assert_eq!(cnc.client_liveness_timeout_ns(), 7_000_000_000, "AERON_CLIENT_LIVENESS_TIMEOUT");
    assert_eq!(
        std::fs::metadata(dir.join("loss-report.dat")).unwrap().len(),
        2 << 20,
        "AERON_LOSS_REPORT_BUFFER_LENGTH"
    );
    drop(cnc);
    // SAFETY: from aeron_driver_init, closed once.
    assert_eq!(unsafe { aeron_driver_close(driver) }, 0);
    assert!(!dir.exists(), "AERON_DIR_DELETE_ON_SHUTDOWN");
    close(context);
}

#[test]
fn every_setting_is_read_through_each_route_and_has_a_place_for_its_effect() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("AERON") {
            set_env(&name.to_string_lossy(), None);
        }
    }
    set_override("AERON_DIR", tmp.path().join("default").to_str().unwrap());
    let rows = DriverContext::all_settings();
    let mut failures = Vec::new();
    let mut seen = BTreeSet::new();
    for row in &rows {
        let key = key(row);
        assert!(seen.insert(key), "{key} is declared twice");
        if row.env.is_some() && row.env != Some("AERON_DIR") {
            if let Err(e) = walk_row(row, tmp.path()) {
                failures.push(format!("{}: {e}", row.path()));
            }
        }
        let places = [
            EFFECT_SHOWN_HERE.contains(&key),
            EFFECT_SHOWN_BY.iter().any(|e| e.0 == key),
            EFFECT_NOT_YET_SHOWN.contains(&key),
        ];
        match places.iter().filter(|&&p| p).count() {
            1 => {}
            0 => failures.push(format!(
                "{key}: add an effect check (EFFECT_SHOWN_HERE, EFFECT_SHOWN_BY or EFFECT_NOT_YET_SHOWN)"
            )),
            _ => failures.push(format!("{key}: listed in more than one effect list")),
        }
    }
    for (key, file, test) in EFFECT_SHOWN_BY {
        // A C test is a `static void name(void)` its `main` runs (`RUN(name);`).
        let (folder, definition) = match file.ends_with(".c") {
            true => ("c-tests", format!("static void {test}(void)")),
            false => ("tests", format!("fn {test}()")),
        };
        let path = format!("{}/{folder}/{file}", env!("CARGO_MANIFEST_DIR"));
        let source = std::fs::read_to_string(&path).unwrap();
        if !source.contains(&definition)
            || (folder == "c-tests" && !source.contains(&format!("RUN({test});")))
        {
            failures.push(format!("{key}: {folder}/{file} has no test {test}"));
        }
    }
    let listed: BTreeSet<&str> = EFFECT_SHOWN_HERE
        .iter()
        .chain(EFFECT_NOT_YET_SHOWN)
        .copied()
        .chain(EFFECT_SHOWN_BY.iter().map(|e| e.0))
        .collect();
    for stale in listed.difference(&seen) {
        failures.push(format!("{stale}: listed but no such setting"));
    }
    // Every variable the driver context read is a declared row (nothing read unlisted).
    for name in aeronrs::util::config::names_read() {
        if (name.starts_with("AERON_") || name.starts_with("AERONRS_")) && !seen.contains(name.as_str()) {
            failures.push(format!("{name} is read but not in the settings tables"));
        }
    }
    custom_c_setters();
    driver_effects(tmp.path());
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}
