//! The `fc` parameter: `max`, `min` or `tagged`, then comma-separated options `g:<tag>`,
//! `g:<tag>/<min size>`, `g:/<min size>` and `t:<timeout>`
//! (`spec/flow-congestion-loss.md` §1.3). Tag and size are decimal (Aeron C `strtoll(.., 10)`,
//! Java `parseLongAscii`), not the base-0 integers of other parameters.
//!
//! Stricter than Aeron C, which silently skips a tag that is not a number (`g:abc`) and
//! a trailing empty option (`min,`): every form that is not one of the above is refused.
#![forbid(unsafe_code)]

use crate::uri::keys::{FC_MAX, FC_MIN, FC_TAGGED, FLOW_CONTROL};
use crate::uri::value_parse::{invalid, parse_duration_ns};
use crate::util::error::Result;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FlowControlStrategy {
    Max,
    Min,
    Tagged,
}

/// A parsed `fc` value; options not given are `None` (the driver's defaults apply).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FlowControlParam {
    pub strategy: FlowControlStrategy,
    pub group_tag: Option<i64>,
    pub group_min_size: Option<i32>,
    pub receiver_timeout_ns: Option<u64>,
}

impl FlowControlParam {
    pub fn parse(value: &str) -> Result<Self> {
        let mut tokens = value.split(',');
        let strategy = match tokens.next().unwrap_or_default() {
            FC_MAX => FlowControlStrategy::Max,
            FC_MIN => FlowControlStrategy::Min,
            FC_TAGGED => FlowControlStrategy::Tagged,
            other => {
                return Err(invalid(
                    FLOW_CONTROL,
                    value,
                    format_args!("unknown strategy '{other}' (max, min or tagged)"),
                ));
            }
        };
        let mut param = Self { strategy, group_tag: None, group_min_size: None, receiver_timeout_ns: None };
        for option in tokens {
            if let Some(group) = option.strip_prefix("g:") {
                let (tag, min_size) = match group.split_once('/') {
                    Some((tag, min_size)) => (tag, Some(min_size)),
                    None => (group, None),
                };
                // `str::parse`: optional sign, then decimal digits only.
                if !tag.is_empty() {
                    param.group_tag = Some(tag.parse::<i64>().map_err(|_| {
                        invalid(
                            FLOW_CONTROL,
                            value,
                            format_args!("group tag '{tag}' is not a decimal 64-bit integer"),
                        )
                    })?);
                }
                if let Some(min_size) = min_size {
                    let size = min_size.parse::<i32>().ok().filter(|&n| n >= 0).ok_or_else(|| {
                        invalid(
                            FLOW_CONTROL,
                            value,
                            format_args!("group min size '{min_size}' is not a decimal 32-bit integer >= 0"),
                        )
                    })?;
                    param.group_min_size = Some(size);
                }
                if tag.is_empty() && min_size.is_none() {
                    return Err(invalid(FLOW_CONTROL, value, "empty group option 'g:'"));
                }
            } else if let Some(timeout) = option.strip_prefix("t:") {
                param.receiver_timeout_ns = Some(parse_duration_ns(FLOW_CONTROL, timeout).map_err(|_| {
                    invalid(FLOW_CONTROL, value, format_args!("timeout '{timeout}' is not a duration"))
                })?);
            } else {
                return Err(invalid(
                    FLOW_CONTROL,
                    value,
                    format_args!("unknown option '{option}' (g: or t:)"),
                ));
            }
        }
        Ok(param)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strategies_and_options() {
        let min = FlowControlParam::parse("min").unwrap();
        assert_eq!(min.strategy, FlowControlStrategy::Min);
        assert_eq!((min.group_tag, min.group_min_size, min.receiver_timeout_ns), (None, None, None));

        let p = FlowControlParam::parse("min,g:/3,t:2s").unwrap();
        assert_eq!(
            (p.group_tag, p.group_min_size, p.receiver_timeout_ns),
            (None, Some(3), Some(2_000_000_000))
        );

        let p = FlowControlParam::parse("tagged,g:42/2,t:1s").unwrap();
        assert_eq!(p.strategy, FlowControlStrategy::Tagged);
        assert_eq!((p.group_tag, p.group_min_size), (Some(42), Some(2)));

        let p = FlowControlParam::parse("tagged,g:-7").unwrap();
        assert_eq!((p.group_tag, p.group_min_size), (Some(-7), None));
        // Decimal, as Aeron reads them: a leading zero is not octal.
        let p = FlowControlParam::parse("tagged,g:010/010").unwrap();
        assert_eq!((p.group_tag, p.group_min_size), (Some(10), Some(10)));
        let p = FlowControlParam::parse("tagged,g:+5,g:/0,t:7").unwrap();
        assert_eq!((p.group_tag, p.group_min_size, p.receiver_timeout_ns), (Some(5), Some(0), Some(7)));
        let p = FlowControlParam::parse(&format!("tagged,g:{}/{}", i64::MIN, i32::MAX)).unwrap();
        assert_eq!((p.group_tag, p.group_min_size), (Some(i64::MIN), Some(i32::MAX)));
        assert_eq!(FlowControlParam::parse("max").unwrap().strategy, FlowControlStrategy::Max);
    }

    #[test]
    fn errors_name_fc() {
        for (value, why) in [
            ("fastest", "unknown strategy 'fastest'"),
            ("min,x:1", "unknown option 'x:1'"),
            ("min,g:", "empty group option"),
            ("min,g:abc", "group tag 'abc'"),
            ("min,g:1/-2", "group min size '-2'"),
            ("min,t:soon", "timeout 'soon'"),
            ("", "unknown strategy ''"),
            ("MIN", "unknown strategy 'MIN'"),
            ("min,", "unknown option ''"),
            ("min,,t:1s", "unknown option ''"),
            ("min, t:1s", "unknown option ' t:1s'"),
            ("min,G:1", "unknown option 'G:1'"),
            ("min,t:", "timeout ''"),
            ("min,t:1h", "timeout '1h'"),
            ("min,g:/", "group min size ''"),
            ("min,g:1/", "group min size ''"),
            ("min,g:1/2/3", "group min size '2/3'"),
            ("min,g:abc/2", "group tag 'abc'"),
            ("min,g:0x10", "group tag '0x10'"),
            ("min,g: 1", "group tag ' 1'"),
            ("min,g:1.5", "group tag '1.5'"),
            ("min,g:-", "group tag '-'"),
            ("min,g:9223372036854775808", "group tag '9223372036854775808'"),
            ("min,g:/2147483648", "group min size '2147483648'"),
            ("min,g:/0x2", "group min size '0x2'"),
        ] {
            let err = FlowControlParam::parse(value).unwrap_err();
            assert!(err.message().starts_with(&format!("invalid fc={value}: ")), "{err}");
            assert!(err.message().contains(why), "{value}: {err}");
        }
    }
}
