//! Java-style properties (`name=value`, `name: value`, `#`/`!` comments, `\` line
//! continuation) as Aeron's C `aeronmd` accepts them in `-Dname=value` arguments and
//! properties files. A property `aeron.dir` becomes the setting `AERON_DIR`: upper case,
//! dots to underscores. Values are applied as configuration overrides
//! (`config::set_override`), which every setting reads before the real environment.
#![forbid(unsafe_code)]

use crate::util::config::set_override;
use crate::util::error::{Error, Result};

/// The environment variable name of a property name.
pub fn env_name(property: &str) -> String {
    property.chars().map(|c| if c == '.' { '_' } else { c.to_ascii_uppercase() }).collect()
}

/// One `name=value` or `name: value` line (no continuation): `None` for blank and comment
/// lines.
pub fn parse_line(line: &str) -> Result<Option<(String, String)>> {
    let trimmed = line.trim_start_matches([' ', '\t']);
    if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with('!') {
        return Ok(None);
    }
    let Some(split) = trimmed.find(['=', ':']) else {
        return Err(Error::invalid_argument(format!("malformed property line: {line:?}")));
    };
    let name = trimmed[..split].trim_end_matches([' ', '\t']);
    if name.is_empty() {
        return Err(Error::invalid_argument(format!("property line without a name: {line:?}")));
    }
    let value = trimmed[split + 1..].trim_start_matches([' ', '\t']);
    Ok(Some((name.to_string(), value.to_string())))
}

/// Every property of a properties text, continuation lines joined.
pub fn parse(text: &str) -> Result<Vec<(String, String)>> {
    let mut properties = Vec::new();
    let mut pending = String::new();
    for (number, raw) in text.lines().enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let piece = if pending.is_empty() { line } else { line.trim_start_matches([' ', '\t']) };
        if let Some(start) = piece.strip_suffix('\\') {
            pending.push_str(start);
            continue;
        }
        pending.push_str(piece);
        let parsed =
            parse_line(&pending).map_err(|e| e.context(format_args!("properties line {}", number + 1)))?;
        properties.extend(parsed);
        pending.clear();
    }
    if !pending.is_empty() {
        properties.extend(parse_line(&pending)?);
    }
    Ok(properties)
}

/// Applies properties as settings; an empty value unsets the setting.
pub fn apply(properties: &[(String, String)]) {
    for (name, value) in properties {
        set_override(&env_name(name), value);
    }
}

/// Loads a properties file given as a path or `file://` URL (`http://` is not supported).
pub fn load(location: &str) -> Result<Vec<(String, String)>> {
    if location.starts_with("http://") {
        return Err(Error::not_supported(format!(
            "loading properties over HTTP is not supported: {location}"
        )));
    }
    let path = location.strip_prefix("file://").unwrap_or(location);
    let text =
        std::fs::read_to_string(path).map_err(|e| Error::io(&e, format_args!("load properties {path}")))?;
    parse(&text).map_err(|e| e.context(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_files_parse_like_aeron() {
        assert_eq!(env_name("aeron.dir.delete.on.start"), "AERON_DIR_DELETE_ON_START");
        assert_eq!(parse_line("aeron.dir=/tmp/x").unwrap(), Some(("aeron.dir".into(), "/tmp/x".into())));
        assert_eq!(parse_line("  a.b : c=d ").unwrap(), Some(("a.b".into(), "c=d ".into())));
        assert_eq!(parse_line("# comment").unwrap(), None);
        assert_eq!(parse_line("   ").unwrap(), None);
        assert_eq!(parse_line("x=").unwrap(), Some(("x".into(), String::new())));
        assert!(parse_line("novalue").is_err());
        assert!(parse_line("=v").is_err());
        let text = "! c\naeron.term.buffer.length=64k\naeron.dir = /tmp/a\\\n    bc\r\n\n";
        assert_eq!(
            parse(text).unwrap(),
            vec![("aeron.term.buffer.length".into(), "64k".into()), ("aeron.dir".into(), "/tmp/abc".into())]
        );
        assert!(load("http://example.com/x").is_err());
    }
}
