//! `aeronmd`: the standalone media driver, configured like Aeron's C `aeronmd`: `AERON_*`
//! environment variables, `-Dname=value` / `-D name=value` defines (`aeron.dir=/x` sets
//! `AERON_DIR`), and properties files (path or `file://`) as further arguments. SIGINT,
//! SIGTERM or an accepted TERMINATE_DRIVER shut it down cleanly (heartbeat -1, directory
//! deleted when `AERON_DIR_DELETE_ON_SHUTDOWN` is set).
#![forbid(unsafe_code)]

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use aeronrs::driver::termination::TerminationHook;
use aeronrs::driver::{DriverContext, MediaDriver, ThreadingMode};
use aeronrs::util::error::{Error, Result};
use aeronrs::util::{properties, sys};

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

fn run(args: &[String]) -> Result<()> {
    if !apply_arguments(args)? {
        return Ok(());
    }
    sys::install_shutdown_signal_handlers()?;
    let terminated = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&terminated);
    let mut ctx = DriverContext::from_env()?;
    // Release pairs with the Acquire in the main loop.
    ctx.termination_hook = Some(TerminationHook::new(move || flag.store(true, Ordering::Release)));
    let invoker = ctx.threading_mode == ThreadingMode::Invoker;
    let mut driver = MediaDriver::launch(ctx)?;
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
    driver.close()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if aeronrs::tools::wants_version(args.iter().skip(1).cloned()) {
        println!("{}", aeronrs::tools::version_text("aeronmd"));
        return ExitCode::SUCCESS;
    }
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ERROR: {e}");
            ExitCode::FAILURE
        }
    }
}
