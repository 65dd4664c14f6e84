//! Asking a media driver to shut down through its CnC (Aeron
//! `aeron_context_request_driver_termination`, Java `CommonContext.requestDriverTermination`):
//! a TERMINATE_DRIVER command carrying a token the driver's termination validator judges.
#![forbid(unsafe_code)]

use std::path::Path;

use crate::client::driver_proxy::DriverProxy;
use crate::cnc::{CncFile, cnc_path};
use crate::concurrent::ring_buffer::{ManyToOneRingBuffer, RingBuffer};
use crate::util::error::{Error, Result};

/// Longest token accepted (Aeron C: `AERON_MAX_PATH`).
pub const MAX_TERMINATION_TOKEN_LENGTH: usize = 4096;

/// Writes TERMINATE_DRIVER with `token` into the to-driver buffer of the driver in
/// `aeron_dir`. Fails when the token is too long or the CnC is missing, uninitialised or of
/// another major version. The driver does not answer: whether it terminates is up to it.
pub fn request_driver_termination(aeron_dir: &Path, token: &[u8]) -> Result<()> {
    if token.len() > MAX_TERMINATION_TOKEN_LENGTH {
        return Err(Error::invalid_argument(format!(
            "termination token of {} bytes is longer than {MAX_TERMINATION_TOKEN_LENGTH}",
            token.len()
        )));
    }
    let cnc = CncFile::map_existing(&cnc_path(aeron_dir))?;
    let to_driver = ManyToOneRingBuffer::new(cnc.to_driver_buffer().clone())
        .map_err(|e| e.context("CnC to-driver ring buffer"))?;
    // Not a client: any fresh id from the shared counter identifies the sender.
    let sender_id = to_driver.next_correlation_id();
    DriverProxy::new(to_driver, sender_id).terminate_driver(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_cnc_and_long_token_fail() {
        let dir = tempfile::tempdir().unwrap();
        let err = request_driver_termination(dir.path(), b"").unwrap_err();
        assert_eq!(err.code(), libc::ENOENT, "{err}");
        let long = vec![0u8; MAX_TERMINATION_TOKEN_LENGTH + 1];
        assert_eq!(request_driver_termination(dir.path(), &long).unwrap_err().code(), libc::EINVAL);
    }
}
