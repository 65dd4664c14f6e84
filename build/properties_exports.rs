//! The properties exports of `aeron_properties_util.h`, for `src/ffi/util/properties.rs` to include
//! and cbindgen to read.

use super::export_table;

/// The contract of the rows without a `# Safety` of their own.
const SAFETY: &str = "`buffer` must be NULL or NUL-terminated.";

pub fn generate() -> String {
    export_table::generate("build/properties_exports.rs", TABLE, SAFETY)
}

const TABLE: &str = r#"
aeron_properties_buffer_load(buffer: *const c_char) -> c_int
    let text = c_str_arg(buffer, "buffer")?;
    properties::apply(&properties::parse(text)?);
    Ok(0)
Applies the properties in the text `buffer` (lines of `name=value` or `name: value`,
`#`/`!` comments, `\` continuations; an empty value unsets a setting). Returns 0, or -1
(EINVAL) for NULL or a malformed line (nothing is applied then).

aeron_properties_file_load(filename: *const c_char) -> c_int
    let location = c_str_arg(filename, "filename")?;
    if location.starts_with("http://") {
        return Err(Error::invalid_argument(format!("{location} is an HTTP URL, not a file")));
    }
    properties::apply(&properties::load(location)?);
    Ok(0)
Applies the properties of the file `filename` (a path, or a `file://` URL). Returns 0,
or -1: EINVAL for NULL or a malformed line, the `errno` of reading the file.
# Safety
`filename` must be NULL or NUL-terminated.

aeron_properties_http_load(url: *const c_char) -> c_int
    let url = c_str_arg(url, "url")?;
    Err(Error::not_supported(format!("loading properties over HTTP is not supported: {url}")))
Loading properties over HTTP is not supported by aeronrs: returns -1 with
`-AERON_ERROR_CODE_NOT_SUPPORTED` (EINVAL for NULL).
# Safety
`url` must be NULL or NUL-terminated.

aeron_properties_load(url_or_filename: *const c_char) -> c_int
    let location = c_str_arg(url_or_filename, "url_or_filename")?;
    properties::apply(&properties::load(location)?);
    Ok(0)
Applies properties from a `file://` URL or a file path (`http://` URLs are not
supported). Returns 0, or -1 as `aeron_properties_file_load`.
# Safety
`url_or_filename` must be NULL or NUL-terminated.
"#;
