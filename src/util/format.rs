//! Human-readable renderings used by Aeron's tools (`AeronStat`, `ErrorStat`, `LossStat`):
//! timestamps as local date and time with milliseconds and UTC offset, and integers with
//! thousands separators.
#![forbid(unsafe_code)]

/// A broken-down local time, as `localtime_r` gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalTime {
    pub year: i32,
    /// 1..=12.
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    /// Seconds east of UTC.
    pub utc_offset_s: i64,
}

/// `YYYY-MM-DD HH:MM:SS.mmm+hhmm`: `time` is the local time of the whole seconds of an epoch
/// millisecond timestamp and `millis` its remainder (Aeron truncates toward zero, so a
/// negative timestamp shows a negative remainder).
pub fn format_date(time: &LocalTime, millis: i64) -> String {
    let sign = if time.utc_offset_s < 0 { '-' } else { '+' };
    let offset_minutes = time.utc_offset_s.unsigned_abs() / 60;
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:03}{}{:02}{:02}",
        time.year,
        time.month,
        time.day,
        time.hour,
        time.minute,
        time.second,
        millis,
        sign,
        offset_minutes / 60,
        offset_minutes % 60
    )
}

/// `value` with `separator` between each group of three digits: `-1,234,567`.
pub fn format_number_grouped(value: i64, separator: &str) -> String {
    let digits = value.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 * separator.len() + 1);
    if value < 0 {
        out.push('-');
    }
    let lead = match digits.len() % 3 {
        0 => 3,
        n => n,
    };
    out.push_str(&digits[..lead]);
    let mut at = lead;
    while at < digits.len() {
        out.push_str(separator);
        out.push_str(&digits[at..at + 3]);
        at += 3;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_has_millis_and_offset() {
        let t =
            LocalTime { year: 2026, month: 11, day: 29, hour: 7, minute: 5, second: 9, utc_offset_s: 3600 };
        assert_eq!(format_date(&t, 42), "2026-11-29 07:05:09.042+0100");
        let west = LocalTime { utc_offset_s: -(5 * 3600 + 30 * 60), ..t };
        assert_eq!(format_date(&west, 999), "2026-11-29 07:05:09.999-0530");
        let utc = LocalTime { utc_offset_s: 0, ..t };
        assert_eq!(format_date(&utc, 0), "2026-11-29 07:05:09.000+0000");
    }

    #[test]
    fn numbers_are_grouped_in_threes() {
        assert_eq!(format_number_grouped(0, ","), "0");
        assert_eq!(format_number_grouped(999, ","), "999");
        assert_eq!(format_number_grouped(1000, ","), "1,000");
        assert_eq!(format_number_grouped(-1234, ","), "-1,234");
        assert_eq!(format_number_grouped(-999, ","), "-999");
        assert_eq!(format_number_grouped(1_234_567, "."), "1.234.567");
        assert_eq!(format_number_grouped(i64::MIN, ","), "-9,223,372,036,854,775,808");
        assert_eq!(format_number_grouped(i64::MAX, ","), "9,223,372,036,854,775,807");
    }
}
