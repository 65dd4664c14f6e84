//! `aeron-stat`: live counters of the media driver in an Aeron directory (ours, Aeron C's
//! or Java's), refreshing like Aeron's `aeron_stat`/`AeronStat`. See `--help`; the work is
//! in `aeronrs::tools::stat`.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use aeronrs::tools::Invocation;
use aeronrs::tools::stat::{StatOptions, parse_stat_args, run_stat, stat_help};
use aeronrs::util::sys;

fn main() -> ExitCode {
    if aeronrs::tools::wants_version(std::env::args().skip(1)) {
        println!("{}", aeronrs::tools::version_text("aeron-stat"));
        return ExitCode::SUCCESS;
    }
    let result = parse_stat_args(std::env::args().skip(1), StatOptions::default()).and_then(|invocation| {
        match invocation {
            Invocation::Help => {
                print!("{}", stat_help());
                Ok(())
            }
            Invocation::Run(options) => {
                sys::install_shutdown_signal_handlers()?;
                run_stat(
                    &options,
                    &mut std::io::stdout().lock(),
                    &mut std::io::stderr(),
                    &sys::shutdown_signalled,
                )
            }
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("aeron-stat: {}\n(try aeron-stat --help)", e.message());
            ExitCode::FAILURE
        }
    }
}
