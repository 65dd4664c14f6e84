//! The `key=value|key=value` argument strings of the loss interceptors
//! (`AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_*_ARGS`), parsed as the C driver's URI parameter
//! parser splits them: `|` between parameters, the first `=` between key and value, a
//! trailing `|` allowed, an empty key or value refused. Keys an interceptor does not know
//! are ignored, as in the C driver.
#![forbid(unsafe_code)]

use crate::util::error::{Error, Result};

/// Calls `on_param(key, value)` for each parameter of `args` (named `variable` in errors).
pub fn for_each_param(
    variable: &str,
    args: &str,
    mut on_param: impl FnMut(&str, &str) -> Result<()>,
) -> Result<()> {
    for param in args.split('|') {
        if param.is_empty() {
            // A trailing `|` (or no arguments at all) leaves an empty piece: nothing to set.
            continue;
        }
        let (key, value) = param.split_once('=').ok_or_else(|| {
            Error::invalid_argument(format!("{variable}={args:?}: '{param}' is not key=value"))
        })?;
        if key.is_empty() {
            return Err(Error::invalid_argument(format!("{variable}={args:?}: empty key in '{param}'")));
        }
        if value.is_empty() {
            return Err(Error::invalid_argument(format!("{variable}={args:?}: empty value for '{key}'")));
        }
        on_param(key, value).map_err(|e| e.context(format_args!("{variable}={args:?}")))?;
    }
    Ok(())
}

fn bad_value(key: &str, value: &str, kind: &str) -> Error {
    Error::invalid_argument(format!("could not parse {key} from '{value}': expected {kind}"))
}

/// A hexadecimal number, with or without `0x` (C `strtoul(value, 16)`).
pub fn parse_hex_u64(key: &str, value: &str) -> Result<u64> {
    let digits = value.strip_prefix("0x").or_else(|| value.strip_prefix("0X")).unwrap_or(value);
    u64::from_str_radix(digits, 16).map_err(|_| bad_value(key, value, "a hexadecimal number"))
}

/// A decimal unsigned 64-bit number (C `strtoull(value, 10)`).
pub fn parse_u64(key: &str, value: &str) -> Result<u64> {
    value.parse().map_err(|_| bad_value(key, value, "a decimal unsigned integer"))
}

/// A decimal 32-bit signed number (C `strtol(value, 10)` stored in an `int32_t`).
pub fn parse_i32(key: &str, value: &str) -> Result<i32> {
    value.parse().map_err(|_| bad_value(key, value, "a decimal 32-bit integer"))
}

/// A decimal 32-bit unsigned number.
pub fn parse_u32(key: &str, value: &str) -> Result<u32> {
    value.parse().map_err(|_| bad_value(key, value, "a decimal 32-bit unsigned integer"))
}

/// A finite floating-point number (C `strtod`).
pub fn parse_f64(key: &str, value: &str) -> Result<f64> {
    value.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| bad_value(key, value, "a number"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(args: &str) -> Result<Vec<(String, String)>> {
        let mut out = Vec::new();
        for_each_param("X", args, |k, v| {
            out.push((k.to_string(), v.to_string()));
            Ok(())
        })?;
        Ok(out)
    }

    #[test]
    fn splits_params() {
        let params = collect("rate=0.1|seed=42|recv-msg-mask=0x2|").unwrap();
        assert_eq!(params.len(), 3);
        assert_eq!(params[2], ("recv-msg-mask".to_string(), "0x2".to_string()));
        assert_eq!(collect("a=b=c").unwrap(), vec![("a".to_string(), "b=c".to_string())]);
        assert!(collect("").unwrap().is_empty());
        assert!(collect("rate").unwrap_err().message().contains("not key=value"));
        assert!(collect("=1").unwrap_err().message().contains("empty key"));
        assert!(collect("rate=").unwrap_err().message().contains("empty value for 'rate'"));
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_hex_u64("m", "0x2").unwrap(), 2);
        assert_eq!(parse_hex_u64("m", "ff").unwrap(), 255);
        assert_eq!(parse_hex_u64("m", "0X1E").unwrap(), 30);
        assert!(parse_hex_u64("m", "0xg").is_err());
        assert_eq!(parse_u64("s", "18446744073709551615").unwrap(), u64::MAX);
        assert!(parse_u64("s", "-1").is_err());
        assert_eq!(parse_i32("t", "-2003285294").unwrap(), -2003285294);
        assert!(parse_i32("t", "3000000000").is_err());
        assert_eq!(parse_f64("r", "0.2").unwrap(), 0.2);
        let err = parse_f64("rate", "NaN").unwrap_err();
        assert_eq!(err.message(), "could not parse rate from 'NaN': expected a number");
    }
}
