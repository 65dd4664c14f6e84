//! `aeron-stat`: the counters of a running driver (ours, Aeron C's or Java's), printed as
//! Aeron C's `aeron_stat` prints them: a header line (time, CnC version, driver pid,
//! heartbeat age), a rule, then `%3d : %20s - label` per allocated counter with the value
//! grouped in thousands. Watching clears the screen and reprints every update interval.
//! Java `AeronStat`'s `name=pattern` filters (type, identity, session, stream, channel)
//! and its `delay=`/`watch=` arguments are accepted too.

use std::io::Write;
use std::time::{Duration, Instant};

use super::cli::{Arg, Args, DriverLocation, Invocation, LOCATION_HELP, driver_liveness, liveness_warning};
use super::cli::{parse_bool, parse_non_negative};
use super::pattern::Pattern;
use crate::cnc::CncFile;
use crate::cnc::descriptor::{semantic_version_major, semantic_version_minor, semantic_version_patch};
use crate::concurrent::counters::type_ids::*;
use crate::concurrent::counters::{CounterRecord, CountersReader};
use crate::util::clock::epoch_ms;
use crate::util::error::{Error, Result};
use crate::util::format::{TimeZone, format_epoch_ms, format_number_grouped};

/// ANSI "erase display, cursor home", written before each refresh while watching.
pub const CLEAR_SCREEN: &str = "\x1b[2J\x1b[H";

pub const STAT_HELP: &str = "\
Usage: aeron-stat [options] [name=pattern]...
Prints the counters of the media driver (aeronrs, Aeron C or Java) in an Aeron directory,
refreshing every update interval until interrupted.

Options:
  -h, --help             Print this help and exit
";

pub const STAT_OPTIONS_HELP: &str = "\
  -u, --update <ms>      Update interval in milliseconds (default: 1000)
  -w, --watch <bool>     'false' prints the counters once and exits (default: true)
  -c, --count <n>        Print n times (one update interval apart), then exit
  --type, --identity, --session, --stream, --channel <pattern>   as the name=pattern filters

Filters (Java AeronStat), each a regular expression found in the field:
  type=<pattern>         counter type id
  identity=<pattern>     system counter id, or registration id of a stream counter
  session=<pattern>      session id of a stream counter (also sessionId=)
  stream=<pattern>       stream id of a stream counter (also streamId=)
  channel=<pattern>      channel of a stream or channel-status counter
  delay=<seconds>        update interval in seconds; watch=<bool> as -w
";

/// The full `--help` text.
pub fn stat_help() -> String {
    format!("{STAT_HELP}{LOCATION_HELP}{STAT_OPTIONS_HELP}")
}

/// Which counters to show (Java `AeronStat` semantics: a missing filter accepts all; a
/// filter on a field a counter type lacks does not exclude it).
#[derive(Debug, Clone, Default)]
pub struct CounterFilter {
    pub type_id: Option<Pattern>,
    pub identity: Option<Pattern>,
    pub session: Option<Pattern>,
    pub stream: Option<Pattern>,
    pub channel: Option<Pattern>,
}

/// Types whose key is a stream key (`spec/counters.md` §7.1).
fn has_stream_key(type_id: i32) -> bool {
    matches!(
        type_id,
        PUBLISHER_LIMIT_TYPE_ID
            ..=RECEIVER_POSITION_TYPE_ID
                | SENDER_LIMIT_TYPE_ID
                | PER_IMAGE_TYPE_ID
                | PUBLISHER_POSITION_TYPE_ID
                | SENDER_BPE_TYPE_ID
                | FLOW_CONTROL_RECEIVERS_COUNTER_TYPE_ID
    )
}

/// Types whose key is a channel endpoint status key (§7.2).
fn has_channel_key(type_id: i32) -> bool {
    matches!(
        type_id,
        SEND_CHANNEL_STATUS_TYPE_ID | RECEIVE_CHANNEL_STATUS_TYPE_ID | CHANNEL_NUM_DESTINATIONS_TYPE_ID
    )
}

fn key_i32(key: &[u8], at: usize) -> i32 {
    i32::from_le_bytes(key[at..at + 4].try_into().expect("4 bytes"))
}

fn key_i64(key: &[u8], at: usize) -> i64 {
    i64::from_le_bytes(key[at..at + 8].try_into().expect("8 bytes"))
}

/// A length-prefixed ASCII string in the key, cut to the key's end.
fn key_text(key: &[u8], at: usize) -> String {
    let length = usize::try_from(key_i32(key, at)).unwrap_or(0);
    let start = at + 4;
    let end = start.saturating_add(length).min(key.len());
    String::from_utf8_lossy(&key[start..end]).into_owned()
}

fn found(pattern: &Option<Pattern>, field: impl FnOnce() -> String) -> bool {
    pattern.as_ref().is_none_or(|p| p.is_found_in(&field()))
}

impl CounterFilter {
    pub fn is_empty(&self) -> bool {
        self.type_id.is_none()
            && self.identity.is_none()
            && self.session.is_none()
            && self.stream.is_none()
            && self.channel.is_none()
    }

    /// Whether `record` passes every filter that applies to its type.
    pub fn accepts(&self, record: &CounterRecord) -> bool {
        let type_id = record.type_id;
        let key = &record.key()[..];
        if !found(&self.type_id, || type_id.to_string()) {
            return false;
        }
        if type_id == SYSTEM_COUNTER_TYPE_ID {
            found(&self.identity, || key_i32(key, 0).to_string())
        } else if has_stream_key(type_id) {
            found(&self.identity, || key_i64(key, 0).to_string())
                && found(&self.session, || key_i32(key, 8).to_string())
                && found(&self.stream, || key_i32(key, 12).to_string())
                && found(&self.channel, || key_text(key, 16))
        } else if has_channel_key(type_id) {
            found(&self.channel, || key_text(key, 0))
        } else {
            true
        }
    }

    /// Sets the filter called `name` (`type`, `identity`, `session`/`sessionId`,
    /// `stream`/`streamId`, `channel`); `Ok(false)` for another name.
    pub fn set(&mut self, name: &str, pattern: &str) -> Result<bool> {
        let slot = match name {
            "type" => &mut self.type_id,
            "identity" => &mut self.identity,
            "session" | "sessionId" => &mut self.session,
            "stream" | "streamId" => &mut self.stream,
            "channel" => &mut self.channel,
            _ => return Ok(false),
        };
        *slot = Some(Pattern::new(pattern)?);
        Ok(true)
    }
}

/// Everything `aeron-stat` was asked to do.
#[derive(Debug, Clone)]
pub struct StatOptions {
    pub location: DriverLocation,
    pub update_interval_ms: u64,
    pub watch: bool,
    /// Print this many times and exit (`None`: until interrupted, or once without watch).
    pub count: Option<u64>,
    pub filter: CounterFilter,
}

impl Default for StatOptions {
    fn default() -> Self {
        Self {
            location: DriverLocation::default(),
            update_interval_ms: 1000,
            watch: true,
            count: None,
            filter: CounterFilter::default(),
        }
    }
}

/// Parses the arguments (without the program name) over `defaults`.
pub fn parse_stat_args(
    args: impl IntoIterator<Item = String>,
    defaults: StatOptions,
) -> Result<Invocation<StatOptions>> {
    let mut options = defaults;
    let mut args = Args::new(args);
    while let Some(arg) = args.next_arg() {
        match arg {
            Arg::Option(name, attached) => {
                if options.location.accept(&mut args, &name, attached.clone())? {
                    continue;
                }
                match name.as_str() {
                    "-h" | "--help" => return Ok(Invocation::Help),
                    "-u" | "--update" | "--update-interval" => {
                        options.update_interval_ms =
                            parse_non_negative("update interval", &args.value(&name, attached)?)?
                    }
                    "-w" | "--watch" => options.watch = parse_bool("watch", &args.value(&name, attached)?)?,
                    "-c" | "--count" => {
                        let count = parse_non_negative("count", &args.value(&name, attached)?)?;
                        if count == 0 {
                            return Err(Error::invalid_argument("count must be at least 1"));
                        }
                        options.count = Some(count);
                    }
                    long if long.starts_with("--") => {
                        let pattern = args.value(&name, attached)?;
                        if !options.filter.set(&long[2..], &pattern)? {
                            return Err(Error::invalid_argument(format!("unknown option {name}")));
                        }
                    }
                    _ => return Err(Error::invalid_argument(format!("unknown option {name}"))),
                }
            }
            Arg::Free(text) => {
                let Some((name, value)) = text.split_once('=') else {
                    return Err(Error::invalid_argument(format!(
                        "arguments must be options or name=pattern: {text:?}"
                    )));
                };
                match name {
                    "delay" => {
                        options.update_interval_ms = parse_non_negative("delay", value)?.saturating_mul(1000)
                    }
                    "watch" => options.watch = parse_bool("watch", value)?,
                    _ if options.filter.set(name, value)? => {}
                    _ => return Err(Error::invalid_argument(format!("unknown argument {text:?}"))),
                }
            }
        }
    }
    Ok(Invocation::Run(options))
}

/// `major.minor.patch` of a CnC version.
pub fn format_cnc_version(version: i32) -> String {
    format!(
        "{}.{}.{}",
        semantic_version_major(version),
        semantic_version_minor(version),
        semantic_version_patch(version)
    )
}

/// The two header lines.
pub fn format_header(now_ms: i64, cnc_version: i32, pid: i64, heartbeat_ms: i64, zone: TimeZone) -> String {
    format!(
        "{} - Aeron Stat (CnC v{}), pid {pid}, heartbeat age {}ms\n===========================\n",
        format_epoch_ms(now_ms, zone),
        format_cnc_version(cnc_version),
        now_ms.saturating_sub(heartbeat_ms)
    )
}

/// One counter line: id right-aligned in 3, value grouped and right-aligned in 20.
pub fn format_counter_line(record: &CounterRecord) -> String {
    format!("{:3} : {:>20} - {}\n", record.id, format_number_grouped(record.value, ","), record.label())
}

/// The header and every allocated counter `filter` accepts, read now.
pub fn format_stats(
    cnc: &CncFile,
    counters: &CountersReader,
    filter: &CounterFilter,
    now_ms: i64,
    zone: TimeZone,
) -> String {
    let mut text = format_header(now_ms, cnc.cnc_version(), cnc.pid(), cnc.driver_heartbeat_ms(), zone);
    counters.for_each_counter(|record| {
        if filter.accepts(record) {
            text.push_str(&format_counter_line(record));
        }
    });
    text
}

/// Sleeps `interval` in short slices, returning early once `stop` says so.
fn pause(interval: Duration, stop: &dyn Fn() -> bool) {
    let deadline = Instant::now() + interval;
    while !stop() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        std::thread::sleep(left.min(Duration::from_millis(50)));
    }
}

/// Runs `aeron-stat`: opens the driver's CnC, then prints (clearing the screen first when
/// watching) once, `count` times, or until `stop`. Warnings about a driver that is not
/// alive go to `warnings`, once per change.
pub fn run_stat(
    options: &StatOptions,
    out: &mut dyn Write,
    warnings: &mut dyn Write,
    stop: &dyn Fn() -> bool,
) -> Result<()> {
    let cnc = options.location.open_cnc()?;
    let counters = cnc.counters_reader()?;
    let rounds = match (options.watch, options.count) {
        (_, Some(count)) => count,
        (false, None) => 1,
        (true, None) => u64::MAX,
    };
    let clear = options.watch && rounds > 1;
    let mut warned = false;
    for round in 0..rounds {
        let now_ms = epoch_ms();
        match liveness_warning(&options.location.aeron_dir, driver_liveness(&cnc, now_ms)) {
            Some(warning) if !warned => {
                writeln!(warnings, "{warning}")?;
                warned = true;
            }
            Some(_) => {}
            None => warned = false,
        }
        let text = format_stats(&cnc, &counters, &options.filter, now_ms, TimeZone::Local);
        if clear {
            out.write_all(CLEAR_SCREEN.as_bytes())?;
        }
        out.write_all(text.as_bytes())?;
        out.flush()?;
        if round + 1 == rounds || stop() {
            break;
        }
        pause(Duration::from_millis(options.update_interval_ms), stop);
        if stop() {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concurrent::AtomicBuffer;
    use crate::concurrent::counters::CountersManager;

    fn stream_key(registration_id: i64, session_id: i32, stream_id: i32, channel: &str) -> Vec<u8> {
        let mut key = registration_id.to_le_bytes().to_vec();
        key.extend_from_slice(&session_id.to_le_bytes());
        key.extend_from_slice(&stream_id.to_le_bytes());
        key.extend_from_slice(&(channel.len() as i32).to_le_bytes());
        key.extend_from_slice(channel.as_bytes());
        key
    }

    fn channel_key(channel: &str) -> Vec<u8> {
        let mut key = (channel.len() as i32).to_le_bytes().to_vec();
        key.extend_from_slice(channel.as_bytes());
        key
    }

    /// System counter 0, an IPC pub-lmt, a UDP sub-pos, a rcv-channel and a heartbeat.
    fn counters() -> CountersManager {
        let mut m =
            CountersManager::new(AtomicBuffer::alloc(64 * 512), AtomicBuffer::alloc(64 * 128), 0).unwrap();
        let udp = "aeron:udp?endpoint=127.0.0.1:20121";
        m.allocate(SYSTEM_COUNTER_TYPE_ID, &0i32.to_le_bytes(), "Bytes sent", 0).unwrap();
        m.allocate(PUBLISHER_LIMIT_TYPE_ID, &stream_key(6, 1698638129, 1001, "aeron:ipc"), "pub-lmt: 6", 0)
            .unwrap();
        m.allocate(SUBSCRIBER_POSITION_TYPE_ID, &stream_key(4, -7, 1002, udp), "sub-pos: 4", 0).unwrap();
        m.allocate(RECEIVE_CHANNEL_STATUS_TYPE_ID, &channel_key(udp), "rcv-channel", 0).unwrap();
        m.allocate(CLIENT_HEARTBEAT_TIMESTAMP_TYPE_ID, &1i64.to_le_bytes(), "client-heartbeat: id=1", 0)
            .unwrap();
        m.set_counter_value(1, 32768).unwrap();
        m.set_counter_value(4, 1_795_962_607_867).unwrap();
        m
    }

    fn shown(filters: &[(&str, &str)]) -> Vec<i32> {
        let mut filter = CounterFilter::default();
        for (name, pattern) in filters {
            assert!(filter.set(name, pattern).unwrap(), "{name}");
        }
        counters().reader().counters().iter().filter(|r| filter.accepts(r)).map(|r| r.id).collect()
    }

    #[test]
    fn filters_apply_to_the_fields_each_type_has() {
        assert_eq!(shown(&[]), vec![0, 1, 2, 3, 4]);
        assert_eq!(shown(&[("type", "^[1-5]$")]), vec![1, 2]);
        assert_eq!(shown(&[("identity", "^6$")]), vec![1, 3, 4], "only system and stream counters have one");
        assert_eq!(shown(&[("identity", "^0$")]), vec![0, 3, 4]);
        assert_eq!(shown(&[("sessionId", "^-7$")]), vec![0, 2, 3, 4]);
        assert_eq!(shown(&[("stream", "1001")]), vec![0, 1, 3, 4]);
        assert_eq!(shown(&[("channel", "udp")]), vec![0, 2, 3, 4]);
        assert_eq!(shown(&[("channel", "ipc")]), vec![0, 1, 4]);
        assert_eq!(shown(&[("type", "^4$"), ("channel", "udp")]), vec![2]);
    }

    #[test]
    fn lines_are_formatted_like_aeron_stat() {
        let records = counters().reader().counters();
        assert_eq!(format_counter_line(&records[0]), "  0 :                    0 - Bytes sent\n");
        assert_eq!(format_counter_line(&records[1]), "  1 :               32,768 - pub-lmt: 6\n");
        assert_eq!(format_counter_line(&records[4]), "  4 :    1,795,962,607,867 - client-heartbeat: id=1\n");
        assert_eq!(
            format_header(1_795_962_603_235, 512, 24528, 1_795_962_602_375, TimeZone::Utc),
            "2026-11-29 14:30:03.235+0000 - Aeron Stat (CnC v0.2.0), pid 24528, heartbeat age 860ms\n\
             ===========================\n"
        );
    }

    fn parse(args: &[&str]) -> Result<Invocation<StatOptions>> {
        parse_stat_args(args.iter().map(|a| a.to_string()), StatOptions::default())
    }

    #[test]
    fn options_in_c_long_and_java_forms() {
        assert!(matches!(parse(&["--help"]), Ok(Invocation::Help)));
        assert!(matches!(parse(&["-u", "5", "-h"]), Ok(Invocation::Help)));
        let Ok(Invocation::Run(o)) = parse(&["-d", "/x", "-u250", "-w", "false", "--count=3", "type=[1-9]"])
        else {
            panic!()
        };
        assert_eq!(o.location.aeron_dir, std::path::PathBuf::from("/x"));
        assert_eq!((o.update_interval_ms, o.watch, o.count), (250, false, Some(3)));
        assert_eq!(o.filter.type_id.as_ref().map(Pattern::as_str), Some("[1-9]"));
        let Ok(Invocation::Run(o)) = parse(&["delay=2", "watch=false", "--channel", "ipc", "streamId=10"])
        else {
            panic!()
        };
        assert_eq!((o.update_interval_ms, o.watch), (2000, false));
        assert!(o.filter.channel.is_some() && o.filter.stream.is_some() && o.filter.session.is_none());
        for bad in [
            &["-x"][..],
            &["-u", "soon"],
            &["--count", "0"],
            &["colour=red"],
            &["loose"],
            &["type=(x)"],
            &["-w"],
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }
}
