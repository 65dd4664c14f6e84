//! Most integration tests, one module per file, in one test binary: one link and one copy
//! of the shared support code instead of one per file, and one pool of test threads. The
//! files that change process-wide state (environment variables and setting overrides, the
//! global allocator, threads found by name, network namespaces numbered per process) stay
//! binaries of their own (`[[test]]` entries in Cargo.toml).
//!
//! Each file still declares the support modules it uses (tests/support, client_support, ...),
//! as when it was a binary of its own: a support module names re-executed child tests from its
//! own module path, which places it inside the file that uses it.
#![allow(clippy::duplicate_mod)]

#[path = "broadcast_concurrent.rs"]
mod broadcast_concurrent;
#[path = "client_bad_input.rs"]
mod client_bad_input;
#[path = "client_c_api_support.rs"]
mod client_c_api_support;
#[path = "client_destinations.rs"]
mod client_destinations;
#[path = "client_faults.rs"]
mod client_faults;
#[path = "client_interop.rs"]
mod client_interop;
#[path = "client_ipc.rs"]
mod client_ipc;
#[path = "client_liveness.rs"]
mod client_liveness;
#[path = "client_resources.rs"]
mod client_resources;
#[path = "command_codec.rs"]
mod command_codec;
#[path = "command_vectors.rs"]
mod command_vectors;
#[path = "counters_concurrent.rs"]
mod counters_concurrent;
#[path = "driver_aeronmd.rs"]
mod driver_aeronmd;
#[path = "driver_affinity.rs"]
mod driver_affinity;
#[path = "driver_hostile_commands.rs"]
mod driver_hostile_commands;
#[path = "driver_ipc_commands.rs"]
mod driver_ipc_commands;
#[path = "driver_java_interop.rs"]
mod driver_java_interop;
#[path = "driver_liveness.rs"]
mod driver_liveness;
#[path = "driver_name_resolution.rs"]
mod driver_name_resolution;
#[path = "driver_name_resolvers.rs"]
mod driver_name_resolvers;
#[path = "driver_re_resolution.rs"]
mod driver_re_resolution;
#[path = "driver_storage.rs"]
mod driver_storage;
#[path = "driver_tether.rs"]
mod driver_tether;
#[path = "ffi_destinations.rs"]
mod ffi_destinations;
#[path = "ffi_exported_symbols.rs"]
mod ffi_exported_symbols;
#[path = "ffi_fast_paths.rs"]
mod ffi_fast_paths;
#[path = "ffi_mapped_bus.rs"]
mod ffi_mapped_bus;
#[path = "ffi_poll_batch.rs"]
mod ffi_poll_batch;
#[path = "ffi_poll_batch_idle.rs"]
mod ffi_poll_batch_idle;
#[path = "ffi_ring_buffer.rs"]
mod ffi_ring_buffer;
#[path = "ffi_util_headers.rs"]
mod ffi_util_headers;
#[path = "logbuffer_concurrent.rs"]
mod logbuffer_concurrent;
#[path = "logbuffer_terms.rs"]
mod logbuffer_terms;
#[path = "mapped_bus_basic.rs"]
mod mapped_bus_basic;
#[path = "mapped_bus_crash.rs"]
mod mapped_bus_crash;
#[path = "mapped_bus_layout.rs"]
mod mapped_bus_layout;
#[path = "mapped_bus_rollover.rs"]
mod mapped_bus_rollover;
#[path = "mapped_bus_segments.rs"]
mod mapped_bus_segments;
#[path = "mapped_bus_stress.rs"]
mod mapped_bus_stress;
#[path = "protocol_golden.rs"]
mod protocol_golden;
#[path = "protocol_props.rs"]
mod protocol_props;
#[path = "protocol_vectors.rs"]
mod protocol_vectors;
#[path = "ring_buffer_stress.rs"]
mod ring_buffer_stress;
#[path = "ring_buffer_vectors.rs"]
mod ring_buffer_vectors;
#[path = "tools.rs"]
mod tools;
#[path = "udp_client.rs"]
mod udp_client;
#[path = "udp_driver.rs"]
mod udp_driver;
#[path = "udp_hostile_setups.rs"]
mod udp_hostile_setups;
#[path = "udp_image_reject.rs"]
mod udp_image_reject;
#[path = "udp_java_interop.rs"]
mod udp_java_interop;
#[path = "udp_local_addresses.rs"]
mod udp_local_addresses;
#[path = "udp_loss_vectors.rs"]
mod udp_loss_vectors;
#[path = "udp_media.rs"]
mod udp_media;
#[path = "udp_one_to_many.rs"]
mod udp_one_to_many;
#[path = "udp_port_managers.rs"]
mod udp_port_managers;
#[path = "udp_processes.rs"]
mod udp_processes;
#[path = "udp_relay_drop.rs"]
mod udp_relay_drop;
#[path = "udp_response_channels.rs"]
mod udp_response_channels;
#[path = "udp_session_vectors.rs"]
mod udp_session_vectors;
#[path = "udp_timestamps.rs"]
mod udp_timestamps;
#[path = "uri_params.rs"]
mod uri_params;
#[path = "uri_props.rs"]
mod uri_props;
#[path = "vectors_cnc.rs"]
mod vectors_cnc;
#[path = "vectors_logbuffer.rs"]
mod vectors_logbuffer;
#[path = "vectors_present.rs"]
mod vectors_present;

/// With `autotests = false` a new file in tests/ would silently not run: every one must be a
/// module here or a `[[test]]` of its own.
#[test]
fn every_test_file_is_a_module_here_or_a_test_target() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let suite = std::fs::read_to_string(root.join("tests/suite.rs")).unwrap();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(root.join("tests")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(stem) = name.strip_suffix(".rs") else { continue };
        let module = format!("#[path = \"{name}\"]\nmod {stem};");
        let target = format!("[[test]]\nname = \"{stem}\"");
        if stem != "suite" && !suite.contains(&module) && !manifest.contains(&target) {
            missing.push(name);
        }
    }
    assert!(missing.is_empty(), "tests/ files that no test binary runs: {missing:?}");
}
