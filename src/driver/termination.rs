//! TERMINATE_DRIVER (`spec/control-protocol.md` §5.11): a validator decides whether a
//! client's token may stop the driver; if so the termination hook runs. Both can be set
//! in code (the C API's `aeron_driver_context_set_driver_termination_validator` / `_hook`
//! wrap these); otherwise `AERON_DRIVER_TERMINATION_VALIDATOR` (`allow`/`deny`) decides.
#![forbid(unsafe_code)]

use std::fmt;
use std::sync::Arc;

/// The signature of a termination validator: token in, verdict out.
pub type ValidateToken = dyn Fn(&[u8]) -> bool + Send + Sync;

/// Decides on a TERMINATE_DRIVER token.
#[derive(Clone)]
pub struct TerminationValidatorFn(pub Arc<ValidateToken>);

/// Runs when a validated TERMINATE_DRIVER arrives (on the conductor's thread).
#[derive(Clone)]
pub struct TerminationHook(pub Arc<dyn Fn() + Send + Sync>);

impl TerminationValidatorFn {
    pub fn new(f: impl Fn(&[u8]) -> bool + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }

    pub fn validate(&self, token: &[u8]) -> bool {
        (self.0)(token)
    }
}

impl TerminationHook {
    pub fn new(f: impl Fn() + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }

    pub fn run(&self) {
        (self.0)()
    }
}

impl fmt::Debug for TerminationValidatorFn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TerminationValidatorFn")
    }
}

impl fmt::Debug for TerminationHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TerminationHook")
    }
}
