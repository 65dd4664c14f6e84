//! `aeron-errors`: the distinct error log of the media driver in an Aeron directory (ours,
//! Aeron C's or Java's), as Aeron's `ErrorStat` prints it. See `--help`; the work is in
//! `aeronrs::tools::errors`.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use aeronrs::tools::Invocation;
use aeronrs::tools::errors::{ErrorsOptions, errors_help, parse_errors_args, run_errors};

fn main() -> ExitCode {
    if aeronrs::tools::wants_version(std::env::args().skip(1)) {
        println!("{}", aeronrs::tools::version_text("aeron-errors"));
        return ExitCode::SUCCESS;
    }
    let result =
        parse_errors_args(std::env::args().skip(1), ErrorsOptions::default()).and_then(|invocation| {
            match invocation {
                Invocation::Help => {
                    print!("{}", errors_help());
                    Ok(())
                }
                Invocation::Run(options) => {
                    run_errors(&options, &mut std::io::stdout().lock(), &mut std::io::stderr())
                }
            }
        });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("aeron-errors: {}\n(try aeron-errors --help)", e.message());
            ExitCode::FAILURE
        }
    }
}
