//! Connecting to a media driver through its `cnc.dat` (`spec/cnc.md` §5): wait for the
//! file and the driver's readiness signal, check the CnC version, and refuse a CnC whose
//! driver stopped heartbeating — all within the driver timeout.
#![forbid(unsafe_code)]

use std::path::Path;
use std::time::{Duration, Instant};

use crate::client::context::Context;
use crate::cnc::{CncFile, is_retryable};
use crate::concurrent::AtomicBuffer;
use crate::concurrent::ring_buffer::ManyToOneRingBuffer;
use crate::util::clock::epoch_ms;
use crate::util::error::{Error, Result};

/// A driver's CnC, mapped and checked: everything the client conductor needs from it.
/// Each part is a view sharing the one mapping, which lives as long as any of them.
pub(crate) struct DriverConnection {
    pub to_driver: ManyToOneRingBuffer,
    pub to_clients: AtomicBuffer,
    pub counters_metadata: AtomicBuffer,
    pub counters_values: AtomicBuffer,
    /// The driver's client liveness timeout: the conductor's inter-service timeout.
    pub client_liveness_timeout_ns: i64,
}

/// Why one connect attempt did not succeed yet.
enum Attempt {
    /// Worth retrying after this pause; the message says what was missing.
    Retry(Duration, String),
    Failed(Error),
}

/// Connects to the driver of `ctx.aeron_dir()`, giving up after the driver timeout with an
/// `ETIMEDOUT` error saying what was missing (no file, not initialised, no heartbeat).
pub(crate) fn connect(ctx: &Context) -> Result<DriverConnection> {
    let path = ctx.cnc_file();
    let timeout = ctx.driver_timeout();
    let deadline = Instant::now() + timeout;
    loop {
        match attempt(&path, timeout) {
            Ok(connection) => return Ok(connection),
            Err(Attempt::Failed(e)) => return Err(e),
            Err(Attempt::Retry(pause, reason)) => {
                if Instant::now() >= deadline {
                    return Err(Error::with_code(
                        libc::ETIMEDOUT,
                        format!(
                            "{reason} (is a media driver running in {}? driver timeout {} ms)",
                            ctx.aeron_dir().display(),
                            timeout.as_millis()
                        ),
                    ));
                }
                std::thread::sleep(pause);
            }
        }
    }
}

fn attempt(path: &Path, driver_timeout: Duration) -> std::result::Result<DriverConnection, Attempt> {
    // As Aeron C: poll for the file every 16 ms, for its initialisation every 1 ms, and
    // back off 100 ms from a CnC whose driver stopped heartbeating.
    const FILE_WAIT: Duration = Duration::from_millis(16);
    const INIT_WAIT: Duration = Duration::from_millis(1);
    const STALE_WAIT: Duration = Duration::from_millis(100);

    let cnc = match CncFile::map_existing(path) {
        Ok(cnc) => cnc,
        Err(e) if e.code() == libc::ENOENT => return Err(Attempt::Retry(FILE_WAIT, e.message().to_string())),
        Err(e) if is_retryable(&e) => return Err(Attempt::Retry(INIT_WAIT, e.message().to_string())),
        Err(e) => return Err(Attempt::Failed(e)),
    };
    let heartbeat = cnc.driver_heartbeat_ms();
    if heartbeat == 0 {
        return Err(Attempt::Retry(INIT_WAIT, format!("no driver heartbeat detected in {}", path.display())));
    }
    if heartbeat < epoch_ms() - driver_timeout.as_millis() as i64 {
        // Left behind by a driver that died or shut down (−1): a new one may replace it.
        return Err(Attempt::Retry(
            STALE_WAIT,
            format!("no driver heartbeat detected in {}", path.display()),
        ));
    }
    let to_driver = ManyToOneRingBuffer::new(cnc.to_driver_buffer().clone())
        .map_err(|e| Attempt::Failed(e.context("CnC to-driver ring buffer")))?;
    Ok(DriverConnection {
        to_driver,
        to_clients: cnc.to_clients_buffer().clone(),
        counters_metadata: cnc.counters_metadata_buffer().clone(),
        counters_values: cnc.counters_values_buffer().clone(),
        client_liveness_timeout_ns: cnc.client_liveness_timeout_ns(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_driver_times_out_with_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let mut ctx = Context::default();
        ctx.set_aeron_dir(dir.path()).set_driver_timeout(Duration::from_millis(50));
        let err = connect(&ctx).err().expect("no driver");
        assert_eq!(err.code(), libc::ETIMEDOUT);
        assert!(err.message().contains("CnC file not created"), "{err}");
    }

    #[test]
    fn uninitialised_cnc_times_out_and_bad_version_fails() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cnc.dat");
        let cnc = crate::concurrent::mapped_file::create_mapped(
            &path,
            4096,
            crate::concurrent::mapped_file::Allocation::Sparse,
        )
        .unwrap();
        let mut ctx = Context::default();
        ctx.set_aeron_dir(dir.path()).set_driver_timeout(Duration::from_millis(50));
        let err = connect(&ctx).err().expect("version 0");
        assert!(err.message().contains("not initialised"), "{err}");
        cnc.put_i32_release(0, 1 << 16);
        let err = connect(&ctx).err().expect("version 1.0.0");
        assert_eq!(err.code(), libc::EINVAL);
        assert!(err.message().contains("app=0.2.0 file=1.0.0"), "{err}");
    }
}
