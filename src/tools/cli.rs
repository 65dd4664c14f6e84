//! Command-line handling shared by the tools: options in both Aeron C's short form
//! (`-d dir`, `-ddir`) and a long form (`--dir dir`, `--dir=dir`), the Aeron directory
//! default, and opening a driver's `cnc.dat` with a clear error when none is there.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use crate::cnc::aeron_dir::AERON_DIR_ENV_VAR;
use crate::cnc::descriptor::DEFAULT_DRIVER_TIMEOUT_MS;
use crate::cnc::{CncFile, await_cnc, cnc_path, default_aeron_dir};
use crate::util::error::{Error, Result};

/// What a command line asks for: run with these options, or print the help.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invocation<T> {
    Run(T),
    Help,
}

/// `$AERON_DIR` if set and not empty, else Aeron's default (`/dev/shm/aeron-<user>`).
pub fn default_dir() -> PathBuf {
    std::env::var_os(AERON_DIR_ENV_VAR)
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(default_aeron_dir)
}

/// One command-line item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    /// An option as written (`-d`, `--dir`) and its value if attached (`-dX`, `--dir=X`).
    Option(String, Option<String>),
    /// Anything else (Java-style `name=value` filters).
    Free(String),
}

/// Walks the arguments (without the program name).
#[derive(Debug)]
pub struct Args {
    items: VecDeque<String>,
}

impl Args {
    pub fn new(args: impl IntoIterator<Item = String>) -> Self {
        Self { items: args.into_iter().collect() }
    }

    pub fn next_arg(&mut self) -> Option<Arg> {
        let arg = self.items.pop_front()?;
        if let Some(long) = arg.strip_prefix("--").filter(|l| !l.is_empty()) {
            return Some(match long.split_once('=') {
                Some((name, value)) => Arg::Option(format!("--{name}"), Some(value.to_string())),
                None => Arg::Option(arg.clone(), None),
            });
        }
        // Java's spellings of help are whole words, not `-h` with "elp" attached.
        if matches!(arg.as_str(), "-help" | "-?") {
            return Some(Arg::Option("-h".to_string(), None));
        }
        let mut chars = arg.chars();
        match (chars.next(), chars.next()) {
            (Some('-'), Some(short)) => {
                let rest: String = chars.collect();
                Some(Arg::Option(format!("-{short}"), (!rest.is_empty()).then_some(rest)))
            }
            _ => Some(Arg::Free(arg)),
        }
    }

    /// The value of option `name`: the attached one, else the next argument.
    pub fn value(&mut self, name: &str, attached: Option<String>) -> Result<String> {
        attached
            .or_else(|| self.items.pop_front())
            .ok_or_else(|| Error::invalid_argument(format!("option {name} needs a value")))
    }
}

/// A non-negative number of milliseconds (or a count) for option `name`.
pub fn parse_non_negative(name: &str, value: &str) -> Result<u64> {
    value.trim().parse::<u64>().map_err(|_| Error::invalid_argument(format!("invalid {name}: {value:?}")))
}

/// `true`/`false` (any case), as Aeron's `-w` takes it; anything but `false` is true in
/// Aeron C, but a typo is better reported.
pub fn parse_bool(name: &str, value: &str) -> Result<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "1" => Ok(true),
        "false" | "no" | "0" => Ok(false),
        _ => Err(Error::invalid_argument(format!("invalid {name}: {value:?} (true or false)"))),
    }
}

/// Where a tool looks for the driver and how long it waits for `cnc.dat` to appear.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriverLocation {
    pub aeron_dir: PathBuf,
    pub timeout_ms: u64,
}

impl Default for DriverLocation {
    fn default() -> Self {
        Self { aeron_dir: default_dir(), timeout_ms: 1000 }
    }
}

impl DriverLocation {
    /// Takes `-d/--dir` and `-t/--timeout`; `Ok(false)` when `name` is neither.
    pub fn accept(&mut self, args: &mut Args, name: &str, attached: Option<String>) -> Result<bool> {
        match name {
            "-d" | "--dir" => self.aeron_dir = PathBuf::from(args.value(name, attached)?),
            "-t" | "--timeout" => {
                self.timeout_ms = parse_non_negative("timeout", &args.value(name, attached)?)?
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Maps the driver's `cnc.dat`, waiting up to the timeout for it to be created and
    /// initialised. The error says which directory held no usable driver and why.
    pub fn open_cnc(&self) -> Result<CncFile> {
        let timeout_ms = i64::try_from(self.timeout_ms).unwrap_or(i64::MAX);
        await_cnc(&cnc_path(&self.aeron_dir), timeout_ms).map_err(|e| {
            Error::with_code(
                e.code(),
                format!("no Aeron media driver found in {}: {}", self.aeron_dir.display(), e.message()),
            )
        })
    }
}

/// The help text lines for `-d` and `-t`.
pub const LOCATION_HELP: &str = "\
  -d, --dir <dir>        Aeron directory of the driver (default: $AERON_DIR, else /dev/shm/aeron-<user>)
  -t, --timeout <ms>     How long to wait for the driver's cnc.dat to be ready (default: 1000)
";

/// How alive the driver behind a `cnc.dat` looks from its heartbeat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriverLiveness {
    /// Heartbeat at most the driver timeout (10 s) old.
    Alive,
    /// Heartbeat older than that: the driver died or hangs; the file shows its last state.
    Stale { age_ms: i64 },
    /// The driver shut down cleanly (heartbeat −1).
    ShutDown,
}

/// Judges the heartbeat of `cnc` at `now_ms` against Aeron's default driver timeout.
pub fn driver_liveness(cnc: &CncFile, now_ms: i64) -> DriverLiveness {
    match cnc.driver_heartbeat_ms() {
        -1 => DriverLiveness::ShutDown,
        heartbeat => match now_ms.saturating_sub(heartbeat) {
            age_ms if heartbeat > 0 && age_ms <= DEFAULT_DRIVER_TIMEOUT_MS => DriverLiveness::Alive,
            age_ms => DriverLiveness::Stale { age_ms },
        },
    }
}

/// The stderr warning for a driver that is not alive (`None` when it is): upstream's tools
/// read such a file all the same, which is what a post-mortem needs, so ours do too.
pub fn liveness_warning(aeron_dir: &Path, liveness: DriverLiveness) -> Option<String> {
    match liveness {
        DriverLiveness::Alive => None,
        DriverLiveness::Stale { age_ms } => Some(format!(
            "WARNING: the driver heartbeat in {} is {age_ms} ms old (timeout {DEFAULT_DRIVER_TIMEOUT_MS} ms): \
             the driver is not running; showing what it last wrote",
            aeron_dir.display()
        )),
        DriverLiveness::ShutDown => Some(format!(
            "WARNING: the driver in {} has shut down; showing what it last wrote",
            aeron_dir.display()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(args: &[&str]) -> Vec<Arg> {
        let mut a = Args::new(args.iter().map(|s| s.to_string()));
        std::iter::from_fn(|| a.next_arg()).collect()
    }

    fn opt(name: &str, value: Option<&str>) -> Arg {
        Arg::Option(name.to_string(), value.map(str::to_string))
    }

    #[test]
    fn short_long_attached_and_free_arguments() {
        assert_eq!(
            all(&["-d", "/x", "-u500", "--dir=/y", "--watch", "type=1", "-", "-help", "-?"]),
            vec![
                opt("-d", None),
                Arg::Free("/x".into()),
                opt("-u", Some("500")),
                opt("--dir", Some("/y")),
                opt("--watch", None),
                Arg::Free("type=1".into()),
                Arg::Free("-".into()),
                opt("-h", None),
                opt("-h", None),
            ]
        );
    }

    #[test]
    fn location_options_and_values() {
        let mut location = DriverLocation { aeron_dir: PathBuf::from("/default"), timeout_ms: 1000 };
        let mut args = Args::new(["/a".to_string(), "250".to_string()]);
        assert!(location.accept(&mut args, "-d", None).unwrap());
        assert!(location.accept(&mut args, "--timeout", None).unwrap());
        assert_eq!(location, DriverLocation { aeron_dir: PathBuf::from("/a"), timeout_ms: 250 });
        assert!(!location.accept(&mut args, "-x", None).unwrap());
        assert!(location.accept(&mut args, "-t", None).is_err(), "no value left");
        assert!(location.accept(&mut args, "-t", Some("-5".into())).is_err());
        assert!(parse_bool("watch", "FALSE").is_ok_and(|w| !w));
        assert!(parse_bool("watch", "flase").is_err());
    }

    #[test]
    fn a_directory_without_a_driver_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let location = DriverLocation { aeron_dir: dir.path().join("none"), timeout_ms: 0 };
        let message = location.open_cnc().unwrap_err().message().to_string();
        assert!(
            message.starts_with(&format!("no Aeron media driver found in {}", location.aeron_dir.display()))
        );
        assert!(message.contains("cnc.dat"), "{message}");
    }

    #[test]
    fn liveness_from_the_driver_heartbeat() {
        use crate::cnc::CncConfig;
        use crate::concurrent::AtomicBuffer;
        let config = CncConfig::default();
        let cnc =
            CncFile::create_in_buffer(AtomicBuffer::alloc(config.file_length().unwrap()), &config).unwrap();
        let now = 1_795_962_602_375;
        cnc.signal_ready(now).unwrap();
        assert_eq!(driver_liveness(&cnc, now + DEFAULT_DRIVER_TIMEOUT_MS), DriverLiveness::Alive);
        assert_eq!(liveness_warning(Path::new("/d"), DriverLiveness::Alive), None);
        let late = now + DEFAULT_DRIVER_TIMEOUT_MS + 1;
        assert_eq!(
            driver_liveness(&cnc, late),
            DriverLiveness::Stale { age_ms: DEFAULT_DRIVER_TIMEOUT_MS + 1 }
        );
        let warning = liveness_warning(Path::new("/d"), driver_liveness(&cnc, late)).unwrap();
        assert!(warning.starts_with("WARNING: the driver heartbeat in /d is 10001 ms old"), "{warning}");
        cnc.signal_driver_shutdown();
        assert_eq!(driver_liveness(&cnc, now), DriverLiveness::ShutDown);
        cnc.update_driver_heartbeat(0);
        assert_eq!(driver_liveness(&cnc, now), DriverLiveness::Stale { age_ms: now }, "never started");
    }
}
