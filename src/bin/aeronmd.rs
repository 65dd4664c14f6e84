//! `aeronmd`: the standalone media driver, configured like Aeron's C `aeronmd`: `AERON_*`
//! environment variables, `-Dname=value` / `-D name=value` defines (`aeron.dir=/x` sets
//! `AERON_DIR`), and properties files (path or `file://`) as further arguments. SIGINT,
//! SIGTERM or an accepted TERMINATE_DRIVER shut it down cleanly (heartbeat -1, directory
//! deleted when `AERON_DIR_DELETE_ON_SHUTDOWN` is set). The exit status is Aeron's: 0 after
//! TERMINATE_DRIVER, 2 (the signal's number) after SIGINT, 1 on an error. Aeron's aeronmd
//! does not catch SIGTERM; ours shuts down cleanly on it and exits 0, as a service manager
//! stopping it expects. Aeron's aeronmd ignores `AERON_*` variables it does not know; ours
//! warns once for each on stderr (a misspelt setting would otherwise be silently ignored).
#![forbid(unsafe_code)]

use std::collections::BTreeSet;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use aeronrs::driver::termination::TerminationHook;
use aeronrs::driver::{DriverContext, MediaDriver, ThreadingMode};
use aeronrs::util::error::{Error, Result};
use aeronrs::util::{config, properties, sys};

fn usage(program: &str) -> String {
    format!("Usage: {program} [-v] [-Dname=value]... [properties file]...")
}

/// Applies the command line; `Ok(false)` when the program should just exit (`-v`).
fn apply_arguments(args: &[String]) -> Result<bool> {
    let program = args.first().map(String::as_str).unwrap_or("aeronmd");
    let mut files = Vec::new();
    let mut i = 1;
    while i < args.len() {
        let arg = &args[i];
        if arg == "-v" {
            println!(
                "{program} <aeronrs {} speaking Aeron 1.48.0> major 1 minor 48 patch 0",
                env!("CARGO_PKG_VERSION")
            );
            return Ok(false);
        } else if let Some(define) = arg.strip_prefix("-D") {
            let define = if define.is_empty() {
                i += 1;
                args.get(i).ok_or_else(|| Error::invalid_argument(usage(program)))?.as_str()
            } else {
                define
            };
            let parsed = properties::parse_line(define)
                .map_err(|_| Error::invalid_argument(format!("malformed define: {define}")))?
                .ok_or_else(|| Error::invalid_argument(format!("malformed define: {define}")))?;
            properties::apply(&[parsed]);
        } else if arg.starts_with('-') {
            return Err(Error::invalid_argument(usage(program)));
        } else {
            files.push(arg.clone());
        }
        i += 1;
    }
    for file in files {
        properties::apply(&properties::load(&file)?);
    }
    Ok(true)
}

/// Runs the driver until it is told to stop; the exit status to return (see the file note).
fn run(args: &[String]) -> Result<u8> {
    if !apply_arguments(args)? {
        return Ok(0);
    }
    sys::install_shutdown_signal_handlers()?;
    let terminated = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&terminated);
    let mut ctx = DriverContext::from_env()?;
    // Release pairs with the Acquire in the main loop.
    ctx.termination_hook = Some(TerminationHook::new(move || flag.store(true, Ordering::Release)));
    let invoker = ctx.threading_mode == ThreadingMode::Invoker;
    let mut driver = MediaDriver::launch(ctx)?;
    for name in unknown_variables() {
        eprintln!("aeronmd: WARNING: {name} is not a setting of this driver or its clients; ignored");
    }
    println!("aeronmd: driver started in {}", driver.aeron_dir().display());
    while !sys::shutdown_signalled() && !terminated.load(Ordering::Acquire) {
        if invoker {
            let work = driver.do_work()?;
            driver.idle(work);
        } else {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    println!("Shutting down driver...");
    driver.close()?;
    Ok(if sys::shutdown_signal() == Some(libc::SIGINT) { libc::SIGINT as u8 } else { 0 })
}

/// The `AERON_*`/`AERONRS_*` names set in the environment or as properties that neither
/// the driver's settings nor the client's read. On stderr rather than the driver's error
/// log: it is a start-up message for whoever started `aeronmd`, and the error log keeps
/// errors of the running driver. Names read so far count as known (`config::names_read`),
/// so a setting read by code that no table lists yet is not reported.
fn unknown_variables() -> Vec<String> {
    let known: BTreeSet<String> = config::names_read()
        .into_iter()
        .chain(DriverContext::all_settings().into_iter().filter_map(|s| s.env.map(str::to_string)))
        .chain(aeronrs::client::Context::settings().into_iter().filter_map(|s| s.env.map(str::to_string)))
        .collect();
    let given =
        std::env::vars_os().filter_map(|(name, _)| name.into_string().ok()).chain(config::override_names());
    let unknown: BTreeSet<String> = given
        .filter(|n| (n.starts_with("AERON_") || n.starts_with("AERONRS_")) && !known.contains(n))
        .collect();
    unknown.into_iter().collect()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if aeronrs::tools::wants_version(args.iter().skip(1).cloned()) {
        println!("{}", aeronrs::tools::version_text("aeronmd"));
        return ExitCode::SUCCESS;
    }
    match run(&args) {
        Ok(status) => ExitCode::from(status),
        Err(e) => {
            eprintln!("ERROR: {e}");
            ExitCode::FAILURE
        }
    }
}
