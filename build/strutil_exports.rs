//! The string utility exports of `aeron_strutil.h`, for `src/ffi/util/strutil.rs` to include and
//! cbindgen to read.

use super::export_table;

/// The contract of the rows without a `# Safety` of their own.
const SAFETY: &str = "`str` must be NULL or valid for writes of `count` bytes.";

pub fn generate() -> String {
    export_table::generate("build/strutil_exports.rs", TABLE, SAFETY)
}

const TABLE: &str = r#"
aeron_format_date(str: *mut c_char, count: usize, timestamp: i64)
    require_non_null!(str, "str");
    let text = format_date(&local_time(timestamp / 1000)?, timestamp % 1000);
    write_c_string(text.as_bytes(), str, count);
    Ok(())
Writes epoch-millisecond `timestamp` into `str` (at most `count` bytes including the NUL)
as local time, `YYYY-MM-DD HH:MM:SS.mmm+hhmm`. `AERON_FORMAT_DATE_MAX_LENGTH` bytes are
always enough. On a NULL `str` nothing is written and `aeron_errcode()` is EINVAL.

aeron_format_number_to_locale(value: c_longlong, buffer: *mut c_char, buffer_len: usize) -> *mut c_char
    require_non_null!(buffer, "buffer");
    if buffer_len == 0 {
        return Err(Error::invalid_argument("buffer_len must be at least 1"));
    }
    let text = format_number_grouped(value, &thousands_separator());
    write_c_string(text.as_bytes(), buffer, buffer_len);
    Ok(buffer)
Writes `value` into `buffer` with the locale's thousands separator (`,` unless the
locale has a one-character separator), e.g. `1,234,567`, cut to `buffer_len - 1` bytes
and NUL-terminated. `AERON_FORMAT_NUMBER_TO_LOCALE_STR_LEN` bytes are always enough.
Returns `buffer`, or NULL (EINVAL) when `buffer` is NULL or `buffer_len` is 0.
# Safety
`buffer` must be NULL or valid for writes of `buffer_len` bytes.

aeron_format_to_hex(str: *mut c_char, str_length: usize, data: *const u8, data_len: usize)
    require_non_null!(str, "str");
    if str_length == 0 {
        return Err(Error::invalid_argument("str_length must be at least 1"));
    }
    let whole_bytes = data_len.min((str_length - 1) / 2);
    let bytes = bytes_arg(data, whole_bytes, "data")?;
    write_c_string(to_hex(bytes).as_bytes(), str, str_length);
    Ok(())
Writes `data_len` bytes of `data` into `str` as lower-case hex (two digits a byte) and a
NUL, as many whole bytes as `str_length` holds: `AERON_FORMAT_HEX_LENGTH(data_len)` is
always enough. Nothing is written for a NULL `str` or a `str_length` of 0 (EINVAL).
# Safety
`str` must be NULL or valid for writes of `str_length` bytes; `data` NULL (with
`data_len` 0) or valid for reads of `data_len` bytes.
"#;
