//! `aeron-driver-tool`: the media driver of an Aeron directory (ours, Aeron C's or Java's)
//! as Aeron's `DriverTool` shows it: pid, start time, last heartbeat, CnC version; or the
//! pid alone; or a request to terminate. See `--help`; the work is in
//! `aeronrs::tools::driver_tool`.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use aeronrs::tools::driver_tool::{
    DriverToolOptions, driver_tool_help, parse_driver_tool_args, run_driver_tool,
};
use aeronrs::tools::{Invocation, version_text, wants_version};

fn main() -> ExitCode {
    if wants_version(std::env::args().skip(1)) {
        println!("{}", version_text("aeron-driver-tool"));
        return ExitCode::SUCCESS;
    }
    let result = parse_driver_tool_args(std::env::args().skip(1), DriverToolOptions::default()).and_then(
        |invocation| match invocation {
            Invocation::Help => {
                print!("{}", driver_tool_help());
                Ok(())
            }
            Invocation::Run(options) => run_driver_tool(&options, &mut std::io::stdout().lock()),
        },
    );
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("aeron-driver-tool: {}\n(try aeron-driver-tool --help)", e.message());
            ExitCode::FAILURE
        }
    }
}
