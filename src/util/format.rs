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

/// The UTC calendar time of `epoch_seconds` (proleptic Gregorian), without the C library.
pub fn utc_time(epoch_seconds: i64) -> LocalTime {
    let days = epoch_seconds.div_euclid(86_400);
    let second_of_day = epoch_seconds.rem_euclid(86_400);
    // Civil date from days since 1970-01-01, counted in 400-year eras from 0000-03-01.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 { month_from_march + 3 } else { month_from_march - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    LocalTime {
        year: year as i32,
        month: month as u32,
        day: day as u32,
        hour: (second_of_day / 3600) as u32,
        minute: ((second_of_day / 60) % 60) as u32,
        second: (second_of_day % 60) as u32,
        utc_offset_s: 0,
    }
}

/// Which clock face a tool prints timestamps in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeZone {
    /// The process's local time zone (`TZ`), as Aeron's tools print; UTC if the C library
    /// cannot convert the timestamp.
    Local,
    Utc,
}

/// An epoch-millisecond timestamp as [`format_date`] renders it, in `zone`.
pub fn format_epoch_ms(epoch_ms: i64, zone: TimeZone) -> String {
    // Floor division, so a time before the epoch (a shut-down driver's heartbeat of -1)
    // is the second before with a positive millisecond part, as strftime-based tools show.
    let seconds = epoch_ms.div_euclid(1000);
    let time = match zone {
        TimeZone::Local => crate::util::sys::local_time(seconds).unwrap_or_else(|_| utc_time(seconds)),
        TimeZone::Utc => utc_time(seconds),
    };
    format_date(&time, epoch_ms.rem_euclid(1000))
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
    fn utc_dates_follow_the_calendar() {
        assert_eq!(format_epoch_ms(0, TimeZone::Utc), "1970-01-01 00:00:00.000+0000");
        assert_eq!(format_epoch_ms(-1, TimeZone::Utc), "1969-12-31 23:59:59.999+0000");
        assert_eq!(format_epoch_ms(1_740_566_400_123, TimeZone::Utc), "2025-02-26 10:40:00.123+0000");
        assert_eq!(format_epoch_ms(951_782_400_000, TimeZone::Utc), "2000-02-29 00:00:00.000+0000");
        assert_eq!(format_epoch_ms(1_795_962_627_767, TimeZone::Utc), "2026-11-29 14:30:27.767+0000");
        assert_eq!(utc_time(-1).year, 1969);
        assert_eq!((utc_time(-1).hour, utc_time(-1).minute, utc_time(-1).second), (23, 59, 59));
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
