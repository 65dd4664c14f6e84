//! `aeron-loss`: the loss report of the media driver in an Aeron directory (ours, Aeron
//! C's or Java's), as Aeron's `LossStat` prints it. See `--help`; the work is in
//! `aeronrs::tools::loss`.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use aeronrs::tools::Invocation;
use aeronrs::tools::cli::DriverLocation;
use aeronrs::tools::loss::{loss_help, parse_loss_args, run_loss};

fn main() -> ExitCode {
    if aeronrs::tools::wants_version(std::env::args().skip(1)) {
        println!("{}", aeronrs::tools::version_text("aeron-loss"));
        return ExitCode::SUCCESS;
    }
    let result =
        parse_loss_args(std::env::args().skip(1), DriverLocation::default()).and_then(|invocation| {
            match invocation {
                Invocation::Help => {
                    print!("{}", loss_help());
                    Ok(())
                }
                Invocation::Run(location) => {
                    run_loss(&location, &mut std::io::stdout().lock(), &mut std::io::stderr())
                }
            }
        });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("aeron-loss: {}\n(try aeron-loss --help)", e.message());
            ExitCode::FAILURE
        }
    }
}
