//! `aeron_driver_context_set_*` / `_get_*` of `aeronmd.h`: settings of the Aeron directory, `cnc.dat`, log buffers and publications.
//! Setters store the value (validated when the driver starts); getters of a NULL context
//! return Aeron's default.

use std::ffi::c_int;

use crate::ffi::driver::context::{aeron_driver_context_t, get, set};
use crate::ffi::ffi_boundary;

/// Sets whether to warn when the Aeron directory already exists at start (default false)
/// (`AERON_DIR_WARN_IF_EXISTS`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_dir_warn_if_exists(
    context: *mut aeron_driver_context_t,
    value: bool,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_dir_warn_if_exists", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.dir_warn_if_exists = value) }
    })
}

/// Returns whether to warn when the Aeron directory already exists at start (default false);
/// Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_dir_warn_if_exists(
    context: *mut aeron_driver_context_t,
) -> bool {
    ffi_boundary!("aeron_driver_context_get_dir_warn_if_exists", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.dir_warn_if_exists) })
    })
}

/// Sets whether to delete an existing Aeron directory at start (default false)
/// (`AERON_DIR_DELETE_ON_START`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_dir_delete_on_start(
    context: *mut aeron_driver_context_t,
    value: bool,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_dir_delete_on_start", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.dir_delete_on_start = value) }
    })
}

/// Returns whether to delete an existing Aeron directory at start (default false); Aeron's
/// default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_dir_delete_on_start(
    context: *mut aeron_driver_context_t,
) -> bool {
    ffi_boundary!("aeron_driver_context_get_dir_delete_on_start", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.dir_delete_on_start) })
    })
}

/// Sets whether to delete the Aeron directory when the driver closes (default false)
/// (`AERON_DIR_DELETE_ON_SHUTDOWN`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_dir_delete_on_shutdown(
    context: *mut aeron_driver_context_t,
    value: bool,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_dir_delete_on_shutdown", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.dir_delete_on_shutdown = value) }
    })
}

/// Returns whether to delete the Aeron directory when the driver closes (default false);
/// Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_dir_delete_on_shutdown(
    context: *mut aeron_driver_context_t,
) -> bool {
    ffi_boundary!("aeron_driver_context_get_dir_delete_on_shutdown", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.dir_delete_on_shutdown) })
    })
}

/// Sets the to-driver command ring buffer length, trailer included (default 1 MiB + 768)
/// (`AERON_CONDUCTOR_BUFFER_LENGTH`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_to_conductor_buffer_length(
    context: *mut aeron_driver_context_t,
    value: usize,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_to_conductor_buffer_length", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.to_driver_buffer_length = value) }
    })
}

/// Returns the to-driver command ring buffer length, trailer included (default 1 MiB + 768);
/// Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_to_conductor_buffer_length(
    context: *mut aeron_driver_context_t,
) -> usize {
    ffi_boundary!("aeron_driver_context_get_to_conductor_buffer_length", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.to_driver_buffer_length) })
    })
}

/// Sets the to-clients broadcast buffer length, trailer included (default 1 MiB + 128)
/// (`AERON_CLIENTS_BUFFER_LENGTH`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_to_clients_buffer_length(
    context: *mut aeron_driver_context_t,
    value: usize,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_to_clients_buffer_length", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.to_clients_buffer_length = value) }
    })
}

/// Returns the to-clients broadcast buffer length, trailer included (default 1 MiB + 128);
/// Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_to_clients_buffer_length(
    context: *mut aeron_driver_context_t,
) -> usize {
    ffi_boundary!("aeron_driver_context_get_to_clients_buffer_length", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.to_clients_buffer_length) })
    })
}

/// Sets the counters values buffer length; metadata is 4 times it (default 1 MiB)
/// (`AERON_COUNTERS_BUFFER_LENGTH`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_counters_buffer_length(
    context: *mut aeron_driver_context_t,
    value: usize,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_counters_buffer_length", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.counters_values_buffer_length = value) }
    })
}

/// Returns the counters values buffer length; metadata is 4 times it (default 1 MiB); Aeron's
/// default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_counters_buffer_length(
    context: *mut aeron_driver_context_t,
) -> usize {
    ffi_boundary!("aeron_driver_context_get_counters_buffer_length", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.counters_values_buffer_length) })
    })
}

/// Sets the distinct error log length (default 1 MiB) (`AERON_ERROR_BUFFER_LENGTH`). Returns 0,
/// or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_error_buffer_length(
    context: *mut aeron_driver_context_t,
    value: usize,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_error_buffer_length", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.error_buffer_length = value) }
    })
}

/// Returns the distinct error log length (default 1 MiB); Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_error_buffer_length(
    context: *mut aeron_driver_context_t,
) -> usize {
    ffi_boundary!("aeron_driver_context_get_error_buffer_length", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.error_buffer_length) })
    })
}

/// Sets the `loss-report.dat` length (default 1 MiB) (`AERON_LOSS_REPORT_BUFFER_LENGTH`).
/// Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_loss_report_buffer_length(
    context: *mut aeron_driver_context_t,
    value: usize,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_loss_report_buffer_length", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.loss_report_buffer_length = value) }
    })
}

/// Returns the `loss-report.dat` length (default 1 MiB); Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_loss_report_buffer_length(
    context: *mut aeron_driver_context_t,
) -> usize {
    ffi_boundary!("aeron_driver_context_get_loss_report_buffer_length", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.loss_report_buffer_length) })
    })
}

/// Sets the term length of network publications, a power of two in [64 KiB, 1 GiB] (default 16
/// MiB) (`AERON_TERM_BUFFER_LENGTH`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_term_buffer_length(
    context: *mut aeron_driver_context_t,
    value: usize,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_term_buffer_length", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.term_buffer_length = value) }
    })
}

/// Returns the term length of network publications, a power of two in [64 KiB, 1 GiB] (default
/// 16 MiB); Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_term_buffer_length(
    context: *mut aeron_driver_context_t,
) -> usize {
    ffi_boundary!("aeron_driver_context_get_term_buffer_length", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.term_buffer_length) })
    })
}

/// Sets the term length of IPC publications (default 64 MiB) (`AERON_IPC_TERM_BUFFER_LENGTH`).
/// Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_ipc_term_buffer_length(
    context: *mut aeron_driver_context_t,
    value: usize,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_ipc_term_buffer_length", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.ipc_term_buffer_length = value) }
    })
}

/// Returns the term length of IPC publications (default 64 MiB); Aeron's default for a NULL
/// `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_ipc_term_buffer_length(
    context: *mut aeron_driver_context_t,
) -> usize {
    ffi_boundary!("aeron_driver_context_get_ipc_term_buffer_length", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.ipc_term_buffer_length) })
    })
}

/// Sets whether log buffer files are created sparse instead of pre-touched (default false)
/// (`AERON_TERM_BUFFER_SPARSE_FILE`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_term_buffer_sparse_file(
    context: *mut aeron_driver_context_t,
    value: bool,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_term_buffer_sparse_file", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.term_buffer_sparse_file = value) }
    })
}

/// Returns whether log buffer files are created sparse instead of pre-touched (default false);
/// Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_term_buffer_sparse_file(
    context: *mut aeron_driver_context_t,
) -> bool {
    ffi_boundary!("aeron_driver_context_get_term_buffer_sparse_file", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.term_buffer_sparse_file) })
    })
}

/// Sets whether free space is checked before creating a log buffer (default true)
/// (`AERON_PERFORM_STORAGE_CHECKS`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_perform_storage_checks(
    context: *mut aeron_driver_context_t,
    value: bool,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_perform_storage_checks", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.perform_storage_checks = value) }
    })
}

/// Returns whether free space is checked before creating a log buffer (default true); Aeron's
/// default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_perform_storage_checks(
    context: *mut aeron_driver_context_t,
) -> bool {
    ffi_boundary!("aeron_driver_context_get_perform_storage_checks", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.perform_storage_checks) })
    })
}

/// Sets the free space below which the driver warns, in bytes (default 160 MiB)
/// (`AERON_LOW_FILE_STORE_WARNING_THRESHOLD`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_low_file_store_warning_threshold(
    context: *mut aeron_driver_context_t,
    value: u64,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_low_file_store_warning_threshold", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.low_file_store_warning_threshold = value) }
    })
}

/// Returns the free space below which the driver warns, in bytes (default 160 MiB); Aeron's
/// default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_low_file_store_warning_threshold(
    context: *mut aeron_driver_context_t,
) -> u64 {
    ffi_boundary!("aeron_driver_context_get_low_file_store_warning_threshold", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.low_file_store_warning_threshold) })
    })
}

/// Sets the page size files are rounded to, a power of two (default 4096)
/// (`AERON_FILE_PAGE_SIZE`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_file_page_size(
    context: *mut aeron_driver_context_t,
    value: usize,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_file_page_size", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.file_page_size = value) }
    })
}

/// Returns the page size files are rounded to, a power of two (default 4096); Aeron's default
/// for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_file_page_size(
    context: *mut aeron_driver_context_t,
) -> usize {
    ffi_boundary!("aeron_driver_context_get_file_page_size", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.file_page_size) })
    })
}

/// Sets whether the driver prints its configuration at start (default false)
/// (`AERON_PRINT_CONFIGURATION`). Returns 0, or -1 (EINVAL) if `context` is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_print_configuration(
    context: *mut aeron_driver_context_t,
    value: bool,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_print_configuration", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.print_configuration = value) }
    })
}

/// Returns whether the driver prints its configuration at start (default false); Aeron's
/// default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_print_configuration(
    context: *mut aeron_driver_context_t,
) -> bool {
    ffi_boundary!("aeron_driver_context_get_print_configuration", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.print_configuration) })
    })
}

/// Sets whether spy subscriptions count as connected subscribers of network publications
/// (default false) (`AERON_SPIES_SIMULATE_CONNECTION`). Returns 0, or -1 (EINVAL) if `context`
/// is NULL.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_set_spies_simulate_connection(
    context: *mut aeron_driver_context_t,
    value: bool,
) -> c_int {
    ffi_boundary!("aeron_driver_context_set_spies_simulate_connection", {
        // SAFETY: NULL or live (contract).
        unsafe { set(context, |c| c.spies_simulate_connection = value) }
    })
}

/// Returns whether spy subscriptions count as connected subscribers of network publications
/// (default false); Aeron's default for a NULL `context`.
///
/// # Safety
/// `context` must be NULL or a live driver context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aeron_driver_context_get_spies_simulate_connection(
    context: *mut aeron_driver_context_t,
) -> bool {
    ffi_boundary!("aeron_driver_context_get_spies_simulate_connection", {
        // SAFETY: NULL or live (contract).
        Ok(unsafe { get(context, |c| c.spies_simulate_connection) })
    })
}
