//! `UriStringBuilder`: text-level construction of channel URIs, the Rust side of Aeron C's
//! `aeron_uri_string_builder_*` (init new / on string, put, put_int32/int64, get, sprint,
//! set_initial_position) so that `ffi/` can wrap it.
//!
//! Values are not validated beyond the separators (as in C); parse the result with
//! [`ChannelUri`](crate::uri::ChannelUri) for typed checks. Parameters print in insertion
//! order (C prints in hash-map order, which is unspecified).
#![forbid(unsafe_code)]

use std::fmt::Write as _;

use crate::uri::channel_params::check_term_length;
use crate::uri::channel_uri::for_each_param;
use crate::uri::keys::{AERON_SCHEME, INITIAL_TERM_ID, TERM_ID, TERM_LENGTH, TERM_OFFSET};
use crate::util::error::{Error, Result};

/// Pseudo-key of C's builder for the text before `aeron:` (e.g. `aeron-spy`).
pub const PREFIX_KEY: &str = "__prefix";
/// Pseudo-key of C's builder for the media (`udp`, `ipc`).
pub const MEDIA_KEY: &str = "__media";

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UriStringBuilder {
    prefix: Option<String>,
    media: Option<String>,
    params: Vec<(String, String)>,
}

impl UriStringBuilder {
    /// An empty builder (`aeron_uri_string_builder_init_new`).
    pub fn new() -> Self {
        Self::default()
    }

    /// A builder holding the parts of `uri` (`aeron_uri_string_builder_init_on_string`):
    /// `[prefix:]aeron:media[?params]`.
    pub fn parse(uri: &str) -> Result<Self> {
        let mut builder = Self::new();
        let rest = if uri.starts_with("aeron:") {
            uri
        } else {
            let (prefix, rest) = uri
                .split_once(':')
                .ok_or_else(|| Error::invalid_argument("uri must start with '[prefix:]aeron:[media]'"))?;
            builder.put(PREFIX_KEY, Some(prefix))?;
            rest
        };
        let rest = rest
            .strip_prefix(AERON_SCHEME)
            .and_then(|r| r.strip_prefix(':'))
            .ok_or_else(|| Error::invalid_argument(format!("uri '{uri}' has no 'aeron:'")))?;
        let (media, params) = match rest.split_once('?') {
            Some((media, params)) => (media, Some(params)),
            None => (rest, None),
        };
        builder.put(MEDIA_KEY, Some(media))?;
        if let Some(params) = params {
            for_each_param(params, |key, value| builder.put(key, Some(value)))?;
        }
        Ok(builder)
    }

    /// Sets `key` to `value`, or removes it when `value` is `None`
    /// (`aeron_uri_string_builder_put`). Neither may contain `?`, `|` or `=`.
    pub fn put(&mut self, key: &str, value: Option<&str>) -> Result<()> {
        if key.contains(['?', '|', '=']) {
            return Err(Error::invalid_argument(format!("key '{key}' cannot contain '?', '|' or '='")));
        }
        if let Some(value) = value.filter(|v| v.contains(['?', '|', '='])) {
            return Err(Error::invalid_argument(format!("value '{value}' cannot contain '?', '|' or '='")));
        }
        // The prefix ends at the first ':' when a URI is parsed back, so it cannot hold one.
        if let (PREFIX_KEY, Some(prefix)) = (key, value.filter(|v| v.contains(':'))) {
            return Err(Error::invalid_argument(format!("prefix '{prefix}' cannot contain ':'")));
        }
        let value = value.map(str::to_string);
        match key {
            PREFIX_KEY => self.prefix = value,
            MEDIA_KEY => self.media = value,
            _ => match (self.params.iter().position(|(k, _)| k == key), value) {
                (Some(index), Some(value)) => self.params[index].1 = value,
                (Some(index), None) => {
                    self.params.remove(index);
                }
                (None, Some(value)) => self.params.push((key.to_string(), value)),
                (None, None) => {}
            },
        }
        Ok(())
    }

    pub fn put_i32(&mut self, key: &str, value: i32) -> Result<()> {
        self.put(key, Some(&value.to_string()))
    }

    pub fn put_i64(&mut self, key: &str, value: i64) -> Result<()> {
        self.put(key, Some(&value.to_string()))
    }

    /// The value of `key` (including the `__prefix` and `__media` pseudo-keys).
    pub fn get(&self, key: &str) -> Option<&str> {
        match key {
            PREFIX_KEY => self.prefix.as_deref(),
            MEDIA_KEY => self.media.as_deref(),
            _ => self.params.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str()),
        }
    }

    /// Puts `term-length`, `init-term-id`, `term-id` and `term-offset` so a publication
    /// starts at `position` (`aeron_uri_string_builder_set_initial_position`).
    pub fn set_initial_position(
        &mut self,
        position: i64,
        initial_term_id: i32,
        term_length: i32,
    ) -> Result<()> {
        if position < 0 || position & 31 != 0 {
            return Err(Error::invalid_argument(format!(
                "position not multiple of FRAME_ALIGNMENT: {position}"
            )));
        }
        let term_length = u64::try_from(term_length)
            .map_err(|_| Error::invalid_argument(format!("term length {term_length} is negative")))
            .and_then(|length| check_term_length(TERM_LENGTH, &length.to_string(), length))
            .map_err(|err| Error::invalid_argument(err.message()))?;
        let shift = term_length.trailing_zeros();
        // Aeron: term ids wrap around, so the term count is added modulo 2^32.
        let term_id = ((position >> shift) as i32).wrapping_add(initial_term_id);
        let term_offset = (position & i64::from(term_length - 1)) as i32;
        self.put_i32(TERM_LENGTH, term_length as i32)?;
        self.put_i32(INITIAL_TERM_ID, initial_term_id)?;
        self.put_i32(TERM_ID, term_id)?;
        self.put_i32(TERM_OFFSET, term_offset)
    }

    /// The URI text (`aeron_uri_string_builder_sprint`); a media is required.
    pub fn build(&self) -> Result<String> {
        let media =
            self.media.as_deref().ok_or_else(|| Error::invalid_argument("No media defined in the uri"))?;
        let mut uri = String::new();
        if let Some(prefix) = &self.prefix {
            let _ = write!(uri, "{prefix}:");
        }
        let _ = write!(uri, "{AERON_SCHEME}:{media}");
        for (index, (key, value)) in self.params.iter().enumerate() {
            let _ = write!(uri, "{}{key}={value}", if index == 0 { '?' } else { '|' });
        }
        Ok(uri)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_from_parts() {
        let mut builder = UriStringBuilder::new();
        assert!(builder.build().is_err(), "media required");
        builder.put(MEDIA_KEY, Some("udp")).unwrap();
        builder.put("endpoint", Some("localhost:40123")).unwrap();
        builder.put_i32("mtu", 8192).unwrap();
        builder.put_i64("gtag", -5).unwrap();
        assert_eq!(builder.build().unwrap(), "aeron:udp?endpoint=localhost:40123|mtu=8192|gtag=-5");
        builder.put("mtu", None).unwrap();
        builder.put(PREFIX_KEY, Some("aeron-spy")).unwrap();
        assert_eq!(builder.build().unwrap(), "aeron-spy:aeron:udp?endpoint=localhost:40123|gtag=-5");
        assert_eq!(builder.get("gtag"), Some("-5"));
        assert_eq!(builder.get(MEDIA_KEY), Some("udp"));
        assert_eq!(builder.get("mtu"), None);
    }

    #[test]
    fn prefix_with_colon_is_rejected_so_built_uris_parse_back() {
        assert!(UriStringBuilder::parse("aeron:udp?__prefix=a:b").is_err());
        let mut builder = UriStringBuilder::parse("aeron:ipc").unwrap();
        assert!(builder.put(PREFIX_KEY, Some("x:y")).is_err());
        builder.put(PREFIX_KEY, Some("aeron-spy")).unwrap();
        let built = builder.build().unwrap();
        assert_eq!(UriStringBuilder::parse(&built).unwrap().build().unwrap(), built);
    }

    #[test]
    fn parses_existing_uris() {
        let builder = UriStringBuilder::parse("aeron-spy:aeron:udp?endpoint=127.0.0.1:0|tags=1,2|").unwrap();
        assert_eq!(builder.get(PREFIX_KEY), Some("aeron-spy"));
        assert_eq!(builder.get("tags"), Some("1,2"));
        assert_eq!(builder.build().unwrap(), "aeron-spy:aeron:udp?endpoint=127.0.0.1:0|tags=1,2");
        assert_eq!(UriStringBuilder::parse("aeron:ipc").unwrap().build().unwrap(), "aeron:ipc");
        assert!(UriStringBuilder::parse("asdf").is_err());
        assert!(UriStringBuilder::parse("asdf:asdf").is_err());
        assert!(UriStringBuilder::parse("aeron:udp?x=a=b").is_err(), "'=' is not allowed in a value");
    }

    #[test]
    fn rejects_separators() {
        let mut builder = UriStringBuilder::new();
        for (key, value) in
            [("a|b", "v"), ("a=b", "v"), ("a?b", "v"), ("k", "x|y"), ("k", "x=y"), ("k", "x?y")]
        {
            let err = builder.put(key, Some(value)).unwrap_err();
            assert_eq!(err.code(), libc::EINVAL);
        }
    }

    #[test]
    fn initial_position_puts_term_fields() {
        let mut builder = UriStringBuilder::new();
        builder.put(MEDIA_KEY, Some("udp")).unwrap();
        let term_length = 128 * 1024;
        builder.set_initial_position(i64::from(term_length) * 3 + 64, 777, term_length).unwrap();
        assert_eq!(
            builder.build().unwrap(),
            "aeron:udp?term-length=131072|init-term-id=777|term-id=780|term-offset=64"
        );
        builder.set_initial_position(0, i32::MAX, 65536).unwrap();
        assert_eq!(builder.get("term-id"), Some(i32::MAX.to_string().as_str()));
        builder.set_initial_position(65536, i32::MAX, 65536).unwrap();
        assert_eq!(builder.get("term-id"), Some(i32::MIN.to_string().as_str()), "term ids wrap");

        assert!(
            builder.set_initial_position(33, 0, 65536).unwrap_err().message().contains("FRAME_ALIGNMENT")
        );
        assert!(builder.set_initial_position(-32, 0, 65536).is_err());
        assert!(builder.set_initial_position(0, 0, 1000).unwrap_err().message().contains("term-length"));
        assert!(builder.set_initial_position(0, 0, -65536).is_err());
    }
}
