//! Layer 1: clocks, bit math, the error type, OS calls std lacks.

pub mod bits;
pub mod clock;
pub mod error;
pub mod sys;
