//! `ChannelUri`: the parsed form of `[aeron-spy:]aeron:<udp|ipc>[?key=value|...]`
//! (`spec/channel-uri.md` §1) and its canonical printing.
//!
//! Parameters keep their order; unknown keys are kept and printed unchanged. Where C and
//! Java differ, parsing follows the C client: empty values are rejected, a trailing `|` is
//! accepted, and a repeated key keeps its last value (C does so for the keys it stores in
//! dedicated fields, Java for all keys). Unlike C, `aeron:udp` without `?` parses (as Java
//! does); the driver's UDP rules then reject it for lacking an endpoint.
#![forbid(unsafe_code)]

use std::fmt;
use std::str::FromStr;

use crate::uri::keys::{AERON_SCHEME, IPC_MEDIA, MAX_URI_LENGTH, SPY_QUALIFIER, UDP_MEDIA};
use crate::util::error::{AeronErrorCode, Error, Result};

/// The transport of a channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Media {
    Udp,
    Ipc,
}

impl Media {
    pub fn as_str(self) -> &'static str {
        match self {
            Media::Udp => UDP_MEDIA,
            Media::Ipc => IPC_MEDIA,
        }
    }
}

/// A parsed channel URI.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ChannelUri {
    spy: bool,
    media: Media,
    params: Vec<(String, String)>,
}

fn invalid_uri(uri: impl fmt::Display, why: impl fmt::Display) -> Error {
    Error::aeron(AeronErrorCode::InvalidChannel, format!("invalid channel URI '{uri}': {why}"))
}

/// Splits `key=value|key=value...` and hands each pair to `on_param`, with the C parser's
/// rules: a parameter without `=`, an empty key or an empty value is an error; an empty
/// final parameter (trailing `|`) is ignored.
pub(crate) fn for_each_param(params: &str, mut on_param: impl FnMut(&str, &str) -> Result<()>) -> Result<()> {
    let bad = |why: fmt::Arguments<'_>| Error::aeron(AeronErrorCode::InvalidChannel, why.to_string());
    let mut pieces = params.split('|').peekable();
    while let Some(piece) = pieces.next() {
        if piece.is_empty() {
            if pieces.peek().is_none() {
                break;
            }
            return Err(bad(format_args!("empty parameter between '|' separators")));
        }
        let (key, value) =
            piece.split_once('=').ok_or_else(|| bad(format_args!("parameter '{piece}' has no '='")))?;
        if key.is_empty() {
            return Err(bad(format_args!("empty key in parameter '{piece}'")));
        }
        if value.is_empty() {
            return Err(bad(format_args!("empty value for key '{key}'")));
        }
        on_param(key, value)?;
    }
    Ok(())
}

impl ChannelUri {
    /// A URI of `media` without parameters.
    pub fn new(media: Media) -> Self {
        Self { spy: false, media, params: Vec::new() }
    }

    pub fn parse(uri: &str) -> Result<Self> {
        if uri.len() > MAX_URI_LENGTH {
            let start: String = uri.chars().take(64).collect();
            return Err(invalid_uri(
                format_args!("{start}..."),
                format_args!("length {} exceeds {MAX_URI_LENGTH}", uri.len()),
            ));
        }
        let (spy, rest) = match uri.strip_prefix(SPY_QUALIFIER).and_then(|r| r.strip_prefix(':')) {
            Some(rest) => (true, rest),
            None => (false, uri),
        };
        let rest = rest
            .strip_prefix(AERON_SCHEME)
            .and_then(|r| r.strip_prefix(':'))
            .ok_or_else(|| invalid_uri(uri, "must start with 'aeron:' or 'aeron-spy:aeron:'"))?;
        let (media_text, params) = match rest.split_once('?') {
            Some((media, params)) => (media, Some(params)),
            None => (rest, None),
        };
        let media = match media_text {
            UDP_MEDIA => Media::Udp,
            IPC_MEDIA => Media::Ipc,
            other => return Err(invalid_uri(uri, format_args!("unknown media '{other}' (udp or ipc)"))),
        };
        let mut parsed = Self { spy, media, params: Vec::new() };
        if let Some(params) = params {
            for_each_param(params, |key, value| {
                parsed.set(key, value);
                Ok(())
            })
            .map_err(|err| invalid_uri(uri, err.message()))?;
        }
        Ok(parsed)
    }

    /// `aeron-spy:` prefix: subscribe to local publications' outgoing data.
    pub fn is_spy(&self) -> bool {
        self.spy
    }

    pub fn set_spy(&mut self, spy: bool) {
        self.spy = spy;
    }

    pub fn media(&self) -> Media {
        self.media
    }

    pub fn set_media(&mut self, media: Media) {
        self.media = media;
    }

    /// The raw value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.params.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    pub fn contains(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Parameters in order.
    pub fn params(&self) -> impl Iterator<Item = (&str, &str)> {
        self.params.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// Sets `key` (keeping its position if present). Keys and values that could not be
    /// printed and parsed back (empty, or containing `|`, or `=` in a key) are rejected.
    pub fn put(&mut self, key: &str, value: &str) -> Result<()> {
        if key.is_empty() || key.contains(['|', '=']) {
            return Err(Error::invalid_argument(format!(
                "URI key '{key}' must be non-empty and contain neither '|' nor '='"
            )));
        }
        if value.is_empty() || value.contains('|') {
            return Err(Error::invalid_argument(format!(
                "URI value '{value}' for key '{key}' must be non-empty and not contain '|'"
            )));
        }
        self.set(key, value);
        Ok(())
    }

    fn set(&mut self, key: &str, value: &str) {
        match self.params.iter_mut().find(|(k, _)| k == key) {
            Some((_, existing)) => value.clone_into(existing),
            None => self.params.push((key.to_string(), value.to_string())),
        }
    }

    /// Removes `key`, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<String> {
        let index = self.params.iter().position(|(k, _)| k == key)?;
        Some(self.params.remove(index).1)
    }
}

impl fmt::Display for ChannelUri {
    /// Canonical form: `[aeron-spy:]aeron:<media>` then `?k=v|k=v` in parameter order, with
    /// no `?` when there are no parameters. Parsing it gives back an equal `ChannelUri`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.spy {
            write!(f, "{SPY_QUALIFIER}:")?;
        }
        write!(f, "{AERON_SCHEME}:{}", self.media.as_str())?;
        for (index, (key, value)) in self.params.iter().enumerate() {
            write!(f, "{}{key}={value}", if index == 0 { '?' } else { '|' })?;
        }
        Ok(())
    }
}

impl FromStr for ChannelUri {
    type Err = Error;

    fn from_str(uri: &str) -> Result<Self> {
        Self::parse(uri)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(uri: &str) -> ChannelUri {
        ChannelUri::parse(uri).unwrap_or_else(|e| panic!("{uri}: {e}"))
    }

    fn error(uri: &str) -> String {
        let err = ChannelUri::parse(uri).unwrap_err();
        assert_eq!(err.aeron_code(), Some(AeronErrorCode::InvalidChannel), "{uri}");
        err.message().to_string()
    }

    #[test]
    fn parses_media_prefix_and_params_in_order() {
        let uri = parse("aeron:udp?endpoint=127.0.0.1:20121|interface=127.0.0.1:20122|x-custom=1=2");
        assert_eq!(uri.media(), Media::Udp);
        assert!(!uri.is_spy());
        assert_eq!(uri.get("endpoint"), Some("127.0.0.1:20121"));
        assert_eq!(uri.get("x-custom"), Some("1=2"), "later '=' belongs to the value");
        let keys: Vec<_> = uri.params().map(|(k, _)| k).collect();
        assert_eq!(keys, ["endpoint", "interface", "x-custom"]);

        let spy = parse("aeron-spy:aeron:udp?endpoint=224.0.1.1:40456");
        assert!(spy.is_spy());
        assert_eq!(spy.to_string(), "aeron-spy:aeron:udp?endpoint=224.0.1.1:40456");

        assert_eq!(parse("aeron:ipc").params().count(), 0);
        assert_eq!(parse("aeron:ipc?").to_string(), "aeron:ipc");
        assert_eq!(parse("aeron:udp").to_string(), "aeron:udp");
    }

    #[test]
    fn c_parser_rules() {
        assert_eq!(parse("aeron:ipc?term-length=64k|").to_string(), "aeron:ipc?term-length=64k");
        let dup = parse("aeron:udp?endpoint=a:1|mtu=1408|endpoint=b:2");
        assert_eq!(dup.get("endpoint"), Some("b:2"));
        assert_eq!(dup.to_string(), "aeron:udp?endpoint=b:2|mtu=1408");
        assert!(error("aeron:ipc?alias=").contains("empty value for key 'alias'"));
        assert!(error("aeron:ipc?=x").contains("empty key"));
        assert!(error("aeron:ipc?mtu").contains("parameter 'mtu' has no '='"));
        assert!(error("aeron:ipc?a=1||b=2").contains("empty parameter between '|'"));
        assert_eq!(error("aeron:ipc?mtu"), "invalid channel URI 'aeron:ipc?mtu': parameter 'mtu' has no '='");
    }

    #[test]
    fn rejects_bad_scheme_media_and_length() {
        assert!(error("udp?endpoint=a:1").contains("must start with 'aeron:'"));
        assert!(error("aeron-spy:udp").contains("must start with"));
        assert!(error("aeron:tcp?endpoint=a:1").contains("unknown media 'tcp'"));
        assert!(error("aeron:UDP?endpoint=a:1").contains("unknown media 'UDP'"));
        let long = format!("aeron:ipc?alias={}", "x".repeat(MAX_URI_LENGTH));
        assert!(error(&long).contains("exceeds 4095"));
        let just_fits = format!("aeron:ipc?alias={}", "x".repeat(MAX_URI_LENGTH - 16));
        assert_eq!(parse(&just_fits).to_string(), just_fits);
    }

    #[test]
    fn put_and_remove_keep_order() {
        let mut uri = ChannelUri::new(Media::Ipc);
        uri.put("term-length", "64k").unwrap();
        uri.put("alias", "a").unwrap();
        uri.put("term-length", "128k").unwrap();
        assert_eq!(uri.to_string(), "aeron:ipc?term-length=128k|alias=a");
        assert_eq!(uri.remove("term-length").as_deref(), Some("128k"));
        assert_eq!(uri.remove("term-length"), None);
        assert!(uri.put("a|b", "x").is_err());
        assert!(uri.put("a", "x|y").is_err());
        assert!(uri.put("a", "").is_err());
        uri.set_spy(true);
        uri.set_media(Media::Udp);
        assert_eq!(uri.to_string(), "aeron-spy:aeron:udp?alias=a");
    }
}
