//! `aeron-driver-tool`: what a driver's `cnc.dat` says about the driver, as Aeron's
//! `driver_tool` (C) and `DriverTool` (Java) print it: the CnC file, its version and the
//! driver's pid, then the time now with the driver's start and last heartbeat; `-P` prints
//! the pid alone; `-T` asks the driver to terminate (TERMINATE_DRIVER with an empty token,
//! which the driver's termination validator judges). Java's spellings `pid` and
//! `terminate` are accepted too. Beyond Aeron, a last line gives the heartbeat's age.

use std::io::Write;

use super::cli::{Arg, Args, DriverLocation, Invocation, LOCATION_HELP};
use crate::client::driver_termination::request_driver_termination;
use crate::cnc::cnc_path;
use crate::util::clock::epoch_ms;
use crate::util::error::{Error, Result};
use crate::util::format::{TimeZone, format_epoch_ms};

pub const DRIVER_TOOL_HELP: &str = "\
Usage: aeron-driver-tool [options] [pid | terminate]
Shows the media driver (aeronrs, Aeron C or Java) of an Aeron directory: its CnC file and
version, pid, start time and last heartbeat; or prints only the pid; or asks it to stop.

Options:
  -h, --help             Print this help and exit
  -P, pid                Print the driver's pid only
  -T, terminate          Ask the driver to terminate (its termination validator decides)
";

pub fn driver_tool_help() -> String {
    format!("{DRIVER_TOOL_HELP}{LOCATION_HELP}")
}

/// What `aeron-driver-tool` is asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DriverToolAction {
    #[default]
    Describe,
    PidOnly,
    Terminate,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DriverToolOptions {
    pub location: DriverLocation,
    pub action: DriverToolAction,
}

pub fn parse_driver_tool_args(
    args: impl IntoIterator<Item = String>,
    defaults: DriverToolOptions,
) -> Result<Invocation<DriverToolOptions>> {
    let mut options = defaults;
    let mut args = Args::new(args);
    while let Some(arg) = args.next_arg() {
        match arg {
            Arg::Free(word) if word == "pid" => options.action = DriverToolAction::PidOnly,
            Arg::Free(word) if word == "terminate" => options.action = DriverToolAction::Terminate,
            Arg::Free(text) => return Err(Error::invalid_argument(format!("unexpected argument {text:?}"))),
            Arg::Option(name, attached) => {
                if options.location.accept(&mut args, &name, attached)? {
                    continue;
                }
                match name.as_str() {
                    "-h" | "--help" => return Ok(Invocation::Help),
                    "-P" | "--pid" => options.action = DriverToolAction::PidOnly,
                    "-T" | "--terminate" => options.action = DriverToolAction::Terminate,
                    other => return Err(Error::invalid_argument(format!("unknown option {other}"))),
                }
            }
        }
    }
    Ok(Invocation::Run(options))
}

/// Runs the tool, writing to `out`.
pub fn run_driver_tool(options: &DriverToolOptions, out: &mut impl Write) -> Result<()> {
    let cnc = options.location.open_cnc()?;
    let io = |e: std::io::Error| Error::io(&e, "write");
    match options.action {
        DriverToolAction::PidOnly => writeln!(out, "{}", cnc.pid()).map_err(io),
        DriverToolAction::Terminate => request_driver_termination(&options.location.aeron_dir, &[]),
        DriverToolAction::Describe => {
            let now = epoch_ms();
            let heartbeat = cnc.driver_heartbeat_ms();
            let date = |ms: i64| format_epoch_ms(ms, TimeZone::Local);
            writeln!(out, "Command 'n Control cnc_file: {}", cnc_path(&options.location.aeron_dir).display())
                .map_err(io)?;
            writeln!(out, "Version: {}, PID: {}", cnc.cnc_version(), cnc.pid()).map_err(io)?;
            writeln!(
                out,
                "{} (start: {}, activity: {})",
                date(now),
                date(cnc.start_timestamp_ms()),
                date(heartbeat)
            )
            .map_err(io)?;
            match heartbeat {
                -1 => writeln!(out, "Heartbeat: the driver has shut down").map_err(io),
                _ => writeln!(out, "Heartbeat age: {} ms", now.saturating_sub(heartbeat)).map_err(io),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Invocation<DriverToolOptions>> {
        parse_driver_tool_args(args.iter().map(|s| s.to_string()), DriverToolOptions::default())
    }

    fn action(args: &[&str]) -> DriverToolAction {
        match parse(args).unwrap() {
            Invocation::Run(options) => options.action,
            Invocation::Help => panic!("help"),
        }
    }

    #[test]
    fn c_and_java_spellings() {
        assert_eq!(action(&[]), DriverToolAction::Describe);
        assert_eq!(action(&["-P"]), DriverToolAction::PidOnly);
        assert_eq!(action(&["pid"]), DriverToolAction::PidOnly);
        assert_eq!(action(&["-T", "-d", "/tmp/x"]), DriverToolAction::Terminate);
        assert_eq!(action(&["terminate"]), DriverToolAction::Terminate);
        assert_eq!(parse(&["-h"]).unwrap(), Invocation::Help);
        assert_eq!(parse(&["-help"]).unwrap(), Invocation::Help);
        match parse(&["-d", "/tmp/aeron", "-t", "250"]).unwrap() {
            Invocation::Run(o) => {
                assert_eq!((o.location.aeron_dir.to_str(), o.location.timeout_ms), (Some("/tmp/aeron"), 250))
            }
            Invocation::Help => panic!("help"),
        }
        assert!(parse(&["-X"]).unwrap_err().message().contains("unknown option -X"));
        assert!(parse(&["kill"]).unwrap_err().message().contains("unexpected argument"));
    }

    #[test]
    fn no_driver_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let options = DriverToolOptions {
            location: DriverLocation { aeron_dir: dir.path().join("none"), timeout_ms: 0 },
            action: DriverToolAction::Describe,
        };
        let error = run_driver_tool(&options, &mut Vec::new()).unwrap_err();
        assert!(error.message().contains("no Aeron media driver found in"), "{error}");
    }
}
