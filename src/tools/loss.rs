//! `aeron-loss`: the driver's loss report (`loss-report.dat` beside `cnc.dat`), printed as
//! Aeron's `LossStat` prints it: a header, one comma-separated row per image that saw
//! loss, then `N entries read`.

use std::io::Write;

use super::cli::{Arg, Args, DriverLocation, Invocation, LOCATION_HELP, driver_liveness, liveness_warning};
use crate::concurrent::AtomicBuffer;
use crate::concurrent::mapped_file::map_existing;
use crate::driver::loss::loss_report::{LOSS_REPORT_FILE_NAME, LossEntry, read_loss_report};
use crate::util::clock::epoch_ms;
use crate::util::error::{Error, Result};
use crate::util::format::{TimeZone, format_epoch_ms};

pub const LOSS_HELP: &str = "\
Usage: aeron-loss [options]
Prints the loss report of the media driver (aeronrs, Aeron C or Java) in an Aeron
directory: per image that saw loss, how often, how many bytes, when, and its stream.

Options:
  -h, --help             Print this help and exit
";

pub fn loss_help() -> String {
    format!("{LOSS_HELP}{LOCATION_HELP}")
}

/// The first line, spaced exactly as `LossStat` prints it.
pub const LOSS_HEADER: &str = "OBSERVATION_COUNT, TOTAL_BYTES_LOST, FIRST_OBSERVATION,LAST_OBSERVATION, SESSION_ID, STREAM_ID, CHANNEL, SOURCE";

pub fn parse_loss_args(
    args: impl IntoIterator<Item = String>,
    defaults: DriverLocation,
) -> Result<Invocation<DriverLocation>> {
    let mut location = defaults;
    let mut args = Args::new(args);
    while let Some(arg) = args.next_arg() {
        match arg {
            Arg::Option(name, attached) => {
                if location.accept(&mut args, &name, attached)? {
                    continue;
                }
                if name == "-h" || name == "--help" {
                    return Ok(Invocation::Help);
                }
                return Err(Error::invalid_argument(format!("unknown option {name}")));
            }
            Arg::Free(text) => return Err(Error::invalid_argument(format!("unexpected argument {text:?}"))),
        }
    }
    Ok(Invocation::Run(location))
}

/// One row: count, bytes, first, last, session, stream, channel, source.
pub fn format_loss_entry(entry: &LossEntry, zone: TimeZone) -> String {
    format!(
        "{},{},{},{},{},{},{},{}\n",
        entry.observation_count,
        entry.total_bytes_lost,
        format_epoch_ms(entry.first_observation_ms, zone),
        format_epoch_ms(entry.last_observation_ms, zone),
        entry.session_id,
        entry.stream_id,
        entry.channel,
        entry.source
    )
}

/// The whole `LossStat` text for the report in `buffer`.
pub fn format_loss_report(buffer: &AtomicBuffer, zone: TimeZone) -> String {
    let mut text = format!("{LOSS_HEADER}\n");
    let entries = read_loss_report(buffer, |entry| text.push_str(&format_loss_entry(&entry, zone)));
    text.push_str(&format!("{entries} entries read\n"));
    text
}

/// Runs `aeron-loss`: needs a driver's `cnc.dat` (as `LossStat` does) and its loss report.
pub fn run_loss(location: &DriverLocation, out: &mut dyn Write, warnings: &mut dyn Write) -> Result<()> {
    let cnc = location.open_cnc()?;
    if let Some(warning) = liveness_warning(&location.aeron_dir, driver_liveness(&cnc, epoch_ms())) {
        writeln!(warnings, "{warning}")?;
    }
    let path = location.aeron_dir.join(LOSS_REPORT_FILE_NAME);
    let report = map_existing(&path).map_err(|e| {
        Error::with_code(e.code(), format!("no loss report at {}: {}", path.display(), e.message()))
    })?;
    out.write_all(format_loss_report(&report, TimeZone::Local).as_bytes())?;
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::loss::LossReport;

    #[test]
    fn header_rows_and_count() {
        let mut report = LossReport::new(AtomicBuffer::alloc(4096));
        assert_eq!(
            format_loss_report(report.buffer(), TimeZone::Utc),
            format!("{LOSS_HEADER}\n0 entries read\n")
        );
        let entry = report
            .create_entry(
                1056,
                1_795_962_617_371,
                1_606_141_585,
                1002,
                "aeron:udp?endpoint=127.0.0.1:20121",
                "127.0.0.1:20122",
            )
            .unwrap();
        report.record_observation(entry, 2112, 1_795_962_617_415);
        assert_eq!(
            format_loss_report(report.buffer(), TimeZone::Utc),
            format!(
                "{LOSS_HEADER}\n2,3168,2026-11-29 14:30:17.371+0000,2026-11-29 14:30:17.415+0000,1606141585,1002,\
                 aeron:udp?endpoint=127.0.0.1:20121,127.0.0.1:20122\n1 entries read\n"
            )
        );
    }

    #[test]
    fn arguments() {
        let location = DriverLocation { aeron_dir: "/d".into(), timeout_ms: 1000 };
        let parse = |args: &[&str]| parse_loss_args(args.iter().map(|a| a.to_string()), location.clone());
        assert_eq!(parse(&["--help"]).unwrap(), Invocation::Help);
        assert_eq!(
            parse(&["-d/x", "-t", "5"]).unwrap(),
            Invocation::Run(DriverLocation { aeron_dir: "/x".into(), timeout_ms: 5 })
        );
        assert!(parse(&["-z"]).is_err());
        assert!(parse(&["extra"]).is_err());
    }
}
