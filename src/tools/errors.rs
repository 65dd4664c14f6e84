//! `aeron-errors`: the distinct error log of a driver, printed as Aeron's `ErrorStat`
//! prints it (each record with its observation count and first/last times, then
//! `N distinct errors observed.`). Like Aeron C's `error_stat`, `-f` reads any file used
//! as a distinct error log instead, from byte offset `-o`.

use std::io::Write;
use std::path::PathBuf;

use super::cli::parse_non_negative;
use super::cli::{Arg, Args, DriverLocation, Invocation, LOCATION_HELP, driver_liveness, liveness_warning};
use crate::concurrent::error_log::format_error_report;
use crate::concurrent::mapped_file::map_existing;
use crate::util::clock::epoch_ms;
use crate::util::error::{Error, Result};
use crate::util::format::TimeZone;

pub const ERRORS_HELP: &str = "\
Usage: aeron-errors [options]
Prints the distinct errors recorded by the media driver (aeronrs, Aeron C or Java) in an
Aeron directory: how often each was seen, first and last time, and its text.

Options:
  -h, --help             Print this help and exit
";

pub const ERRORS_OPTIONS_HELP: &str = "\
  -f, --file <file>      Read this file as a distinct error log instead (overrides -d)
  -o, --offset <bytes>   Where the error log starts in that file (default: 0)
";

pub fn errors_help() -> String {
    format!("{ERRORS_HELP}{LOCATION_HELP}{ERRORS_OPTIONS_HELP}")
}

/// Everything `aeron-errors` was asked to do.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ErrorsOptions {
    pub location: DriverLocation,
    pub error_file: Option<PathBuf>,
    pub error_file_offset: u64,
}

pub fn parse_errors_args(
    args: impl IntoIterator<Item = String>,
    defaults: ErrorsOptions,
) -> Result<Invocation<ErrorsOptions>> {
    let mut options = defaults;
    let mut args = Args::new(args);
    while let Some(arg) = args.next_arg() {
        let (name, attached) = match arg {
            Arg::Option(name, attached) => (name, attached),
            Arg::Free(text) => return Err(Error::invalid_argument(format!("unexpected argument {text:?}"))),
        };
        if options.location.accept(&mut args, &name, attached.clone())? {
            continue;
        }
        match name.as_str() {
            "-h" | "--help" => return Ok(Invocation::Help),
            "-f" | "--file" => options.error_file = Some(PathBuf::from(args.value(&name, attached)?)),
            "-o" | "--offset" => {
                options.error_file_offset = parse_non_negative("file offset", &args.value(&name, attached)?)?
            }
            _ => return Err(Error::invalid_argument(format!("unknown option {name}"))),
        }
    }
    Ok(Invocation::Run(options))
}

/// Runs `aeron-errors`, writing the report to `out` and liveness warnings to `warnings`.
pub fn run_errors(options: &ErrorsOptions, out: &mut dyn Write, warnings: &mut dyn Write) -> Result<()> {
    let text = match &options.error_file {
        Some(file) => {
            let mapped = map_existing(file)
                .map_err(|e| e.context(format_args!("error log file {}", file.display())))?;
            let offset = usize::try_from(options.error_file_offset).unwrap_or(usize::MAX);
            let length = mapped.capacity().checked_sub(offset).ok_or_else(|| {
                Error::out_of_bounds(format!(
                    "offset {offset} is beyond the {} bytes of {}",
                    mapped.capacity(),
                    file.display()
                ))
            })?;
            format_error_report(&mapped.view(offset, length)?, TimeZone::Local)?
        }
        None => {
            let cnc = options.location.open_cnc()?;
            if let Some(warning) =
                liveness_warning(&options.location.aeron_dir, driver_liveness(&cnc, epoch_ms()))
            {
                writeln!(warnings, "{warning}")?;
            }
            format_error_report(cnc.error_log_buffer()?, TimeZone::Local)?
        }
    };
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concurrent::AtomicBuffer;
    use crate::concurrent::error_log::DistinctErrorLog;

    #[test]
    fn arguments() {
        let parse =
            |args: &[&str]| parse_errors_args(args.iter().map(|a| a.to_string()), ErrorsOptions::default());
        assert_eq!(parse(&["-h"]).unwrap(), Invocation::Help);
        let Invocation::Run(options) = parse(&["--file=/e.log", "-o", "64", "-t0"]).unwrap() else {
            panic!()
        };
        assert_eq!(options.error_file, Some(PathBuf::from("/e.log")));
        assert_eq!((options.error_file_offset, options.location.timeout_ms), (64, 0));
        assert!(parse(&["-o", "x"]).is_err());
        assert!(parse(&["stray"]).is_err());
    }

    #[test]
    fn an_error_log_file_at_an_offset() {
        let dir = tempfile::tempdir().unwrap();
        let log = DistinctErrorLog::new(AtomicBuffer::alloc(1024)).unwrap();
        log.record(1_795_962_628_103, 11, "boom").unwrap();
        let mut bytes = vec![0xFFu8; 64];
        bytes.extend_from_slice(&log.buffer().load_vec(0, 1024));
        let file = dir.path().join("errors.dat");
        std::fs::write(&file, &bytes).unwrap();
        let options =
            ErrorsOptions { error_file: Some(file.clone()), error_file_offset: 64, ..Default::default() };
        let (mut out, mut warnings) = (Vec::new(), Vec::new());
        run_errors(&options, &mut out, &mut warnings).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("***\n1 observations from "), "{text}");
        assert!(text.ends_with(" for:\n boom\n\n1 distinct errors observed.\n"), "{text}");
        assert!(warnings.is_empty());
        let beyond = ErrorsOptions { error_file: Some(file), error_file_offset: 5000, ..Default::default() };
        assert!(run_errors(&beyond, &mut Vec::new(), &mut Vec::new()).is_err());
    }
}
