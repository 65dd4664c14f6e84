//! Loss injection on the receive side of UDP transports, for tests: Aeron's incoming
//! interceptors `loss`, `fixed-loss` and `multi-gap-loss`, configured as in the C driver.
//!
//! `AERON_UDP_CHANNEL_INCOMING_INTERCEPTORS` lists interceptor names separated by commas
//! (at most 10, fewer than 4094 characters); each reads its arguments from its own
//! variable (`..._LOSS_ARGS`, `..._FIXED_LOSS_ARGS`, `..._MULTI_GAP_LOSS_ARGS`). An unknown
//! name is an error (the C driver looks it up as a symbol and fails). As in the C driver
//! the interceptor listed last sees a datagram first; a datagram any interceptor drops
//! never reaches the endpoint.
//!
//! Off by default: a transport poller holds `Option<IncomingInterceptorChain>`, so with no
//! interceptors configured the receive path pays one `None` check per datagram.
#![forbid(unsafe_code)]

pub(crate) mod args;
pub(crate) mod fixed_loss;
pub(crate) mod multi_gap_loss;
pub(crate) mod random_loss;
pub(crate) mod stream_offsets;

use fixed_loss::{FixedLoss, FixedLossParams};
use multi_gap_loss::{MultiGapLoss, MultiGapLossParams};
use random_loss::{RandomLoss, RandomLossParams, SharedRand48};

use crate::driver::context::DriverContext;
use crate::util::error::{Error, Result};
use crate::util::rand48::Rand48;

pub const INCOMING_INTERCEPTORS_ENV_VAR: &str = "AERON_UDP_CHANNEL_INCOMING_INTERCEPTORS";
const MAX_INTERCEPTORS_LENGTH: usize = 4094;
const MAX_INTERCEPTOR_NAMES: usize = 10;

/// The argument strings of the interceptors (unset = empty = defaults).
#[derive(Debug, Clone, Copy, Default)]
pub struct InterceptorArgs<'a> {
    pub loss: Option<&'a str>,
    pub fixed_loss: Option<&'a str>,
    pub multi_gap_loss: Option<&'a str>,
}

#[derive(Debug, Clone, PartialEq)]
enum InterceptorConfig {
    Loss(RandomLossParams),
    FixedLoss(FixedLossParams),
    MultiGapLoss(MultiGapLossParams),
}

/// The parsed interceptor configuration of a driver. Make one chain per data path
/// (sender, receiver) with [`IncomingInterceptors::new_chain`].
#[derive(Debug, Clone)]
pub struct IncomingInterceptors {
    /// In evaluation order: the reverse of the listed order.
    configs: Vec<InterceptorConfig>,
    /// One `erand48` sequence for every chain, as the C driver's static state.
    random: Option<SharedRand48>,
}

impl IncomingInterceptors {
    /// Parses an interceptor list; `None` when the list names no interceptor.
    pub fn parse(list: &str, args: &InterceptorArgs<'_>) -> Result<Option<Self>> {
        let var = INCOMING_INTERCEPTORS_ENV_VAR;
        if list.len() >= MAX_INTERCEPTORS_LENGTH {
            return Err(Error::invalid_argument(format!(
                "{var}: interceptors list too long, must have: {} < {MAX_INTERCEPTORS_LENGTH}",
                list.len()
            )));
        }
        let names: Vec<&str> = list.split(',').map(str::trim).filter(|n| !n.is_empty()).collect();
        if names.len() > MAX_INTERCEPTOR_NAMES {
            return Err(Error::invalid_argument(format!(
                "{var}: too many interceptors defined, limit {MAX_INTERCEPTOR_NAMES}: {list}"
            )));
        }
        let mut configs = Vec::with_capacity(names.len());
        let mut random = None;
        for name in names.iter().rev() {
            let config = match *name {
                "loss" => {
                    let params = RandomLossParams::parse(args.loss.unwrap_or(""))?;
                    random
                        .get_or_insert_with(|| SharedRand48::new(Rand48::from_aeron_loss_seed(params.seed)));
                    InterceptorConfig::Loss(params)
                }
                "fixed-loss" => {
                    InterceptorConfig::FixedLoss(FixedLossParams::parse(args.fixed_loss.unwrap_or(""))?)
                }
                "multi-gap-loss" => InterceptorConfig::MultiGapLoss(MultiGapLossParams::parse(
                    args.multi_gap_loss.unwrap_or(""),
                )?),
                other => {
                    return Err(Error::invalid_argument(format!(
                        "{var}: could not find interceptor bindings '{other}' (known: loss, fixed-loss, multi-gap-loss)"
                    )));
                }
            };
            configs.push(config);
        }
        Ok(if configs.is_empty() { None } else { Some(Self { configs, random }) })
    }

    /// The interceptors a driver context configures, if any.
    pub fn from_context(ctx: &DriverContext) -> Result<Option<Self>> {
        let Some(list) = ctx.udp_channel_incoming_interceptors.as_deref() else { return Ok(None) };
        let args = InterceptorArgs {
            loss: ctx.udp_channel_loss_args.as_deref(),
            fixed_loss: ctx.udp_channel_fixed_loss_args.as_deref(),
            multi_gap_loss: ctx.udp_channel_multi_gap_loss_args.as_deref(),
        };
        Self::parse(list, &args)
    }

    /// A chain for one data path, with its own per-stream tables and the shared random
    /// sequence. Allocates; call when the agent is built, not per packet.
    pub fn new_chain(&self) -> IncomingInterceptorChain {
        let stages = self
            .configs
            .iter()
            .map(|config| match config {
                InterceptorConfig::Loss(params) => {
                    let generator =
                        self.random.clone().unwrap_or_else(|| SharedRand48::new(Rand48::from_state(0)));
                    Stage::Loss(RandomLoss::new(params, generator))
                }
                InterceptorConfig::FixedLoss(params) => Stage::FixedLoss(FixedLoss::new(params)),
                InterceptorConfig::MultiGapLoss(params) => Stage::MultiGapLoss(MultiGapLoss::new(params)),
            })
            .collect();
        IncomingInterceptorChain { stages }
    }
}

#[derive(Debug, Clone)]
enum Stage {
    Loss(RandomLoss),
    FixedLoss(FixedLoss),
    MultiGapLoss(MultiGapLoss),
}

/// The interceptors of one data path.
#[derive(Debug, Clone)]
pub struct IncomingInterceptorChain {
    stages: Vec<Stage>,
}

impl IncomingInterceptorChain {
    /// Whether some interceptor drops this datagram (it must then not be dispatched).
    #[inline]
    pub fn should_drop(&mut self, datagram: &[u8]) -> bool {
        self.stages.iter_mut().any(|stage| match stage {
            Stage::Loss(s) => s.should_drop(datagram),
            Stage::FixedLoss(s) => s.should_drop(datagram),
            Stage::MultiGapLoss(s) => s.should_drop(datagram),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lists_as_the_c_driver() {
        let args = InterceptorArgs {
            loss: Some("rate=0.1|seed=42|recv-msg-mask=0x2"),
            fixed_loss: Some("term-id=1|term-offset=0|length=1408"),
            multi_gap_loss: Some("term-id=1|gap-radix=4096|gap-length=1024|total-gaps=2"),
        };
        assert!(IncomingInterceptors::parse("", &args).unwrap().is_none());
        let all = IncomingInterceptors::parse("loss,fixed-loss,multi-gap-loss", &args).unwrap().unwrap();
        assert_eq!(all.configs.len(), 3);
        assert!(matches!(all.configs[0], InterceptorConfig::MultiGapLoss(_)));
        assert!(matches!(all.configs[2], InterceptorConfig::Loss(RandomLossParams { seed: 42, .. })));
        let err = IncomingInterceptors::parse("loss,nonesuch", &args).unwrap_err();
        assert!(err.message().contains("could not find interceptor bindings 'nonesuch'"), "{err}");
        let many = ["loss"; 11].join(",");
        assert!(IncomingInterceptors::parse(&many, &args).unwrap_err().message().contains("limit 10"));
        let long = "x".repeat(4094);
        assert!(IncomingInterceptors::parse(&long, &args).unwrap_err().message().contains("too long"));
        let bad = InterceptorArgs { loss: Some("rate=abc"), ..args };
        assert!(IncomingInterceptors::parse("loss", &bad).is_err());
    }

    #[test]
    fn context_without_interceptors_builds_none() {
        let ctx = DriverContext::default();
        assert!(IncomingInterceptors::from_context(&ctx).unwrap().is_none());
        let ctx = DriverContext {
            udp_channel_incoming_interceptors: Some("loss".to_string()),
            udp_channel_loss_args: Some("rate=1|recv-msg-mask=0x2".to_string()),
            ..DriverContext::default()
        };
        let mut chain = IncomingInterceptors::from_context(&ctx).unwrap().unwrap().new_chain();
        let mut data = [0u8; 32];
        data[6] = 1;
        assert!(chain.should_drop(&data));
        data[6] = 3;
        assert!(!chain.should_drop(&data));
    }

    #[test]
    fn chains_share_one_random_sequence() {
        let args = InterceptorArgs { loss: Some("rate=0.5|seed=42|recv-msg-mask=0x2"), ..Default::default() };
        let config = IncomingInterceptors::parse("loss", &args).unwrap().unwrap();
        let (mut receiver, mut sender) = (config.new_chain(), config.new_chain());
        let mut data = [0u8; 32];
        data[6] = 1;
        // Draws 0.804, 0.709, 0.314 (≤ 0.5) alternate between the two data paths.
        assert!(!receiver.should_drop(&data));
        assert!(!sender.should_drop(&data));
        assert!(receiver.should_drop(&data));
    }
}
