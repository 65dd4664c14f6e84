//! The `fc` parameter: `max`, `min` or `tagged`, then comma-separated options `g:<tag>`,
//! `g:<tag>/<min size>`, `g:/<min size>` and `t:<timeout>`
//! (`spec/flow-congestion-loss.md` §1.3).
#![forbid(unsafe_code)]

use crate::uri::keys::{FC_MAX, FC_MIN, FC_TAGGED, FLOW_CONTROL};
use crate::uri::value_parse::{invalid, parse_duration_ns, parse_i32, parse_i64};
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
                if !tag.is_empty() {
                    param.group_tag = Some(parse_i64(FLOW_CONTROL, tag).map_err(|_| {
                        invalid(FLOW_CONTROL, value, format_args!("group tag '{tag}' is not an integer"))
                    })?);
                }
                if let Some(min_size) = min_size {
                    let size =
                        parse_i32(FLOW_CONTROL, min_size).ok().filter(|&n| n >= 0).ok_or_else(|| {
                            invalid(
                                FLOW_CONTROL,
                                value,
                                format_args!("group min size '{min_size}' is not >= 0"),
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
        ] {
            let err = FlowControlParam::parse(value).unwrap_err();
            assert!(err.message().starts_with(&format!("invalid fc={value}: ")), "{err}");
            assert!(err.message().contains(why), "{value}: {err}");
        }
    }
}
