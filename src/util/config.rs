//! Parsing of configuration values as Aeron reads them from environment variables and
//! URI parameters: durations with `ns`/`us`/`ms`/`s` suffixes (no suffix = ns), sizes with
//! `k`/`m`/`g` binary suffixes, booleans `true`/`1`/`on` and `false`/`0`/`off`.
//! Every failure names the setting so the user knows which variable to fix.
#![forbid(unsafe_code)]

use crate::util::error::{Error, Result};

/// Parses a duration into nanoseconds: `100`, `100ns`, `250us`, `5ms`, `10s`.
pub fn parse_duration_ns(name: &str, value: &str) -> Result<u64> {
    let v = value.trim();
    let lower = v.to_ascii_lowercase();
    let (digits, multiplier) = if let Some(d) = lower.strip_suffix("ns") {
        (d, 1u64)
    } else if let Some(d) = lower.strip_suffix("us") {
        (d, 1_000)
    } else if let Some(d) = lower.strip_suffix("ms") {
        (d, 1_000_000)
    } else if let Some(d) = lower.strip_suffix('s') {
        (d, 1_000_000_000)
    } else {
        (lower.as_str(), 1)
    };
    let number: u64 = digits.trim().parse().map_err(|_| {
        Error::invalid_argument(format!("{name}={value:?} is not a duration (e.g. 500ms, 10s)"))
    })?;
    number
        .checked_mul(multiplier)
        .ok_or_else(|| Error::invalid_argument(format!("{name}={value:?} overflows 64-bit nanoseconds")))
}

/// Parses a size in bytes: `65536`, `64k`, `16m`, `1g` (binary multiples).
pub fn parse_size(name: &str, value: &str) -> Result<u64> {
    let v = value.trim();
    let (digits, multiplier) = match v.chars().last() {
        Some('k' | 'K') => (&v[..v.len() - 1], 1u64 << 10),
        Some('m' | 'M') => (&v[..v.len() - 1], 1 << 20),
        Some('g' | 'G') => (&v[..v.len() - 1], 1 << 30),
        _ => (v, 1),
    };
    let number: u64 = digits.trim().parse().map_err(|_| {
        Error::invalid_argument(format!("{name}={value:?} is not a size (e.g. 65536, 64k, 16m)"))
    })?;
    number
        .checked_mul(multiplier)
        .ok_or_else(|| Error::invalid_argument(format!("{name}={value:?} overflows 64 bits")))
}

/// Parses a boolean the way Aeron does.
pub fn parse_bool(name: &str, value: &str) -> Result<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "on" | "yes" => Ok(true),
        "false" | "0" | "off" | "no" => Ok(false),
        _ => Err(Error::invalid_argument(format!(
            "{name}={value:?} is not a boolean (true/false, 1/0, on/off)"
        ))),
    }
}

/// Parses a signed integer.
pub fn parse_i64(name: &str, value: &str) -> Result<i64> {
    value.trim().parse().map_err(|_| Error::invalid_argument(format!("{name}={value:?} is not an integer")))
}

/// Parses an unsigned integer as C's `strtoull(value, &end, 0)` does: decimal, `0x` hex or
/// leading-`0` octal, the whole string (how the C client reads `AERON_DRIVER_TIMEOUT`).
pub fn parse_c_integer(name: &str, value: &str) -> Result<u64> {
    let v = value.trim();
    let parsed = if let Some(hex) = v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16)
    } else if v.len() > 1 && v.starts_with('0') {
        u64::from_str_radix(&v[1..], 8)
    } else {
        v.parse()
    };
    parsed.map_err(|_| Error::invalid_argument(format!("could not parse {name}={value:?} as an integer")))
}

/// Checks `value` lies in `[min, max]`, naming the setting otherwise.
pub fn check_range<T: PartialOrd + std::fmt::Display>(name: &str, value: T, min: T, max: T) -> Result<T> {
    if value < min || value > max {
        return Err(Error::invalid_argument(format!("{name}={value} is outside [{min}, {max}]")));
    }
    Ok(value)
}

/// Settings given other than through the environment (`aeronmd -D`, properties files),
/// consulted before it.
static OVERRIDES: std::sync::RwLock<Vec<(String, String)>> = std::sync::RwLock::new(Vec::new());

/// Sets `name` (an environment variable name) to `value` for this process's settings,
/// ahead of the environment; an empty value hides the environment's value.
pub fn set_override(name: &str, value: &str) {
    let mut overrides = OVERRIDES.write().unwrap_or_else(|e| e.into_inner());
    overrides.retain(|(n, _)| n != name);
    overrides.push((name.to_string(), value.to_string()));
}

/// Every setting name `env` was asked for: what `aeronmd` compares the set `AERON_*`
/// variables against, so a setting read anywhere is known even if no table lists it.
static NAMES_READ: std::sync::Mutex<std::collections::BTreeSet<String>> =
    std::sync::Mutex::new(std::collections::BTreeSet::new());

/// The setting names read so far in this process.
pub fn names_read() -> Vec<String> {
    NAMES_READ.lock().unwrap_or_else(|e| e.into_inner()).iter().cloned().collect()
}

/// The names given as overrides (`-D` defines, properties files), empty ones included.
pub fn override_names() -> Vec<String> {
    OVERRIDES.read().unwrap_or_else(|e| e.into_inner()).iter().map(|(n, _)| n.clone()).collect()
}

/// Reads a setting: an override if set, else the environment variable, treating empty as
/// unset. Settings are read at start-up only, never on a hot path.
pub fn env(name: &str) -> Option<String> {
    {
        let mut read = NAMES_READ.lock().unwrap_or_else(|e| e.into_inner());
        if !read.contains(name) {
            read.insert(name.to_string());
        }
    }
    let overridden = {
        let overrides = OVERRIDES.read().unwrap_or_else(|e| e.into_inner());
        overrides.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone())
    };
    overridden.or_else(|| std::env::var(name).ok()).filter(|v| !v.trim().is_empty())
}

/// Reads and parses `name` from the environment, or returns `default` when unset.
pub fn env_or<T>(name: &str, default: T, parse: impl FnOnce(&str, &str) -> Result<T>) -> Result<T> {
    match env(name) {
        Some(v) => parse(name, &v),
        None => Ok(default),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_with_suffixes() {
        assert_eq!(parse_duration_ns("X", "100").unwrap(), 100);
        assert_eq!(parse_duration_ns("X", "100ns").unwrap(), 100);
        assert_eq!(parse_duration_ns("X", "250us").unwrap(), 250_000);
        assert_eq!(parse_duration_ns("X", "5ms").unwrap(), 5_000_000);
        assert_eq!(parse_duration_ns("X", "10s").unwrap(), 10_000_000_000);
        assert_eq!(parse_duration_ns("X", "10S").unwrap(), 10_000_000_000);
        let err = parse_duration_ns("AERON_TIMER_INTERVAL", "fast").unwrap_err();
        assert!(err.message().contains("AERON_TIMER_INTERVAL"), "{err}");
        assert!(parse_duration_ns("X", "99999999999999999999s").is_err());
        assert!(parse_duration_ns("X", "-5ms").is_err());
    }

    #[test]
    fn sizes_with_suffixes() {
        assert_eq!(parse_size("X", "65536").unwrap(), 65536);
        assert_eq!(parse_size("X", "64k").unwrap(), 65536);
        assert_eq!(parse_size("X", "16m").unwrap(), 16 << 20);
        assert_eq!(parse_size("X", "1G").unwrap(), 1 << 30);
        let err = parse_size("AERON_TERM_BUFFER_LENGTH", "big").unwrap_err();
        assert!(err.message().contains("AERON_TERM_BUFFER_LENGTH"));
        assert!(parse_size("X", "").is_err());
        assert!(parse_size("X", "k").is_err());
    }

    #[test]
    fn booleans_and_ranges() {
        assert!(parse_bool("X", "on").unwrap());
        assert!(!parse_bool("X", "0").unwrap());
        assert!(parse_bool("AERON_X", "maybe").unwrap_err().message().contains("AERON_X"));
        assert_eq!(check_range("X", 5, 1, 10).unwrap(), 5);
        assert!(check_range("X", 11, 1, 10).is_err());
        assert_eq!(parse_i64("X", " -7 ").unwrap(), -7);
    }

    #[test]
    fn c_integers_parse_like_strtoull_base_0() {
        assert_eq!(parse_c_integer("X", "0x10").unwrap(), 16);
        assert_eq!(parse_c_integer("X", "010").unwrap(), 8);
        assert_eq!(parse_c_integer("X", "0").unwrap(), 0);
        assert_eq!(parse_c_integer("X", "1000").unwrap(), 1000);
        assert!(parse_c_integer("X", "-1").is_err());
        assert!(parse_c_integer("X", "1000ms").is_err());
    }
}
