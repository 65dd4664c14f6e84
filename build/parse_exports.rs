//! The parsing utility exports of `aeron_parse_util.h`, for `src/ffi/util/parse.rs` to include and
//! cbindgen to read.

use super::export_table;

/// The contract of the rows without a `# Safety` of their own.
const SAFETY: &str = "`name` and `str` must be NULL or NUL-terminated.";

pub fn generate() -> String {
    export_table::generate("build/parse_exports.rs", TABLE, SAFETY)
}

const TABLE: &str = r#"
aeron_parse_duration_ns(str: *const c_char, result: *mut u64) -> c_int
    parse_into(str, result, "duration", parse_duration_ns)
Parses a duration such as `"100"`, `"250us"`, `"5ms"` or `"10s"` into nanoseconds in
`*result`. Returns 0, or -1 (EINVAL) for NULL arguments, text that is not a duration,
or a value beyond 64 bits (`*result` is then left unchanged).
# Safety
`str` must be NULL or NUL-terminated; `result` NULL or valid for a write.

aeron_parse_size64(str: *const c_char, result: *mut u64) -> c_int
    parse_into(str, result, "size", parse_size)
Parses a size such as `"65536"`, `"64k"`, `"16m"` or `"1g"` (multiples of 1024) into
bytes in `*result`. Returns 0, or -1 (EINVAL) as `aeron_parse_duration_ns`.
# Safety
`str` must be NULL or NUL-terminated; `result` NULL or valid for a write.

aeron_address_split(address_str: *const c_char, parsed_address: *mut aeron_parsed_address_t) -> c_int
    require_non_null!(parsed_address, "parsed_address");
    let split = parse_util::split_address(optional_bytes(address_str).unwrap_or_default())?;
    let out = &mut *parsed_address;
    write_split(&split, &mut out.host, &mut out.port, None, &mut out.ip_version_hint);
    Ok(0)
Splits an endpoint text into `*parsed_address`: `host`, `host:port`, `[v6addr]:port`,
`[v6addr%scope]:port` (host without brackets and scope; ip_version_hint 6 when
bracketed, else 4). Returns 0, or -1 (EINVAL): NULL or empty text, unbalanced
brackets, an empty or too long port (7 characters at most), a host of 384 characters
or more.
# Safety
`address_str` must be NULL or NUL-terminated; `parsed_address` NULL or writable.

aeron_interface_split(
interface_str: *const c_char, parsed_interface: *mut aeron_parsed_interface_t) -> c_int
    require_non_null!(parsed_interface, "parsed_interface");
    let split =
        parse_util::split_interface(optional_bytes(interface_str).unwrap_or_default())?;
    let out = &mut *parsed_interface;
    write_split(&split, &mut out.host, &mut out.port, Some(&mut out.prefix), &mut out.ip_version_hint);
    Ok(0)
Splits an interface text (an address optionally followed by `/prefix`) into
`*parsed_interface`. Returns 0, or -1 (EINVAL) as `aeron_address_split`, and for a
prefix of more than 6 characters.
# Safety
`interface_str` must be NULL or NUL-terminated; `parsed_interface` NULL or writable.

aeron_config_prop_warning(name: *const c_char, str: *const c_char)
    let (name, text) = (optional_bytes(name), optional_bytes(str));
    warn(name, text.unwrap_or(b"(null)"));
    Ok(())
Prints Aeron's warning for a malformed setting, `WARNING: <name>=<str> is invalid,
using default`, to stderr.

aeron_config_parse_uint64(name: *const c_char, str: *const c_char, def: u64, min: u64, max: u64) -> u64
    let (name, text) = (optional_bytes(name), optional_bytes(str));
    Ok(parse_util::config_parse_u64(text, def, min, max, || warn(name, text.unwrap_or_default())))
The setting `name` (only for the warning) from `str` as C `strtoull` reads it (decimal,
`0x` hex, `0` octal; trailing text ignored), clamped to `[min, max]`; `def` when `str`
is NULL (unclamped), or, after a warning on stderr, when it has no digits.

aeron_config_parse_int32(name: *const c_char, str: *const c_char, def: i32, min: i32, max: i32) -> i32
    let (name, text) = (optional_bytes(name), optional_bytes(str));
    Ok(parse_util::config_parse_i32(text, def, min, max, || warn(name, text.unwrap_or_default())))
As `aeron_config_parse_uint64` for a signed 32-bit setting, but the whole text must be
the number and fit in 32 bits, else the warning and `def` (then clamped).

aeron_config_parse_int64(name: *const c_char, str: *const c_char, def: i64, min: i64, max: i64) -> i64
    let (name, text) = (optional_bytes(name), optional_bytes(str));
    Ok(parse_util::config_parse_i64(text, def, min, max, || warn(name, text.unwrap_or_default())))
As `aeron_config_parse_int32` for a signed 64-bit setting.
"#;
