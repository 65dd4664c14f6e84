//! The text rendering of a distinct error log shared by Aeron's `ErrorStat`, the C driver's
//! "existing errors saved" file and our `aeron-errors`: per record
//! `***\n<count> observations from <first> to <last> for:\n <text>\n`, then
//! `\n<n> distinct errors observed.\n`.
#![forbid(unsafe_code)]

use super::error_log_reader::{ErrorObservation, read};
use crate::concurrent::AtomicBuffer;
use crate::util::error::Result;
use crate::util::format::{TimeZone, format_epoch_ms};

/// One record as `ErrorStat` prints it, timestamps in `zone`.
pub fn format_observation(observation: &ErrorObservation<'_>, zone: TimeZone) -> String {
    format!(
        "***\n{} observations from {} to {} for:\n {}\n",
        observation.observation_count,
        format_epoch_ms(observation.first_observation_timestamp, zone),
        format_epoch_ms(observation.last_observation_timestamp, zone),
        observation.text()
    )
}

/// The closing line for `distinct` records (with the blank line before it).
pub fn format_total(distinct: usize) -> String {
    format!("\n{distinct} distinct errors observed.\n")
}

/// Every record of the error log in `buffer`, then the total: the whole `ErrorStat` text.
/// Fails on a corrupt record length instead of reading past it.
pub fn format_error_report(buffer: &AtomicBuffer, zone: TimeZone) -> Result<String> {
    let mut text = String::new();
    let distinct = read(buffer, 0, |observation| text.push_str(&format_observation(observation, zone)))?;
    text.push_str(&format_total(distinct));
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concurrent::error_log::DistinctErrorLog;

    #[test]
    fn records_then_the_total() {
        let log = DistinctErrorLog::new(AtomicBuffer::alloc(4096)).unwrap();
        assert_eq!(
            format_error_report(log.buffer(), TimeZone::Utc).unwrap(),
            "\n0 distinct errors observed.\n"
        );
        log.record(1_795_962_627_767, 11, "(22) Invalid argument\nfirst\n").unwrap();
        log.record(1_795_962_628_103, 11, "second").unwrap();
        log.record(1_795_962_628_443, 11, "(22) Invalid argument\nfirst\n").unwrap();
        assert_eq!(
            format_error_report(log.buffer(), TimeZone::Utc).unwrap(),
            "***\n2 observations from 2026-11-29 14:30:27.767+0000 to 2026-11-29 14:30:28.443+0000 for:\n \
             (22) Invalid argument\nfirst\n\n\
             ***\n1 observations from 2026-11-29 14:30:28.103+0000 to 2026-11-29 14:30:28.103+0000 for:\n \
             second\n\n2 distinct errors observed.\n"
        );
    }
}
