//! Connecting to a media driver through its `cnc.dat` (`spec/cnc.md` §5): wait for the
//! file and the driver's readiness signal, check the CnC version, and refuse a CnC whose
//! driver stopped heartbeating — all within the driver timeout.
#![forbid(unsafe_code)]

use std::path::Path;
use std::time::{Duration, Instant};

use crate::client::context::Context;
use crate::concurrent::AtomicBuffer;
use crate::concurrent::mapped_file::map_existing;
use crate::concurrent::ring_buffer::{ManyToOneRingBuffer, RingBuffer};
use crate::util::clock::epoch_ms;
use crate::util::error::{Error, Result};

/// CnC header (`spec/cnc.md` §3).
const CNC_VERSION_OFFSET: usize = 0;
const TO_DRIVER_BUFFER_LENGTH_OFFSET: usize = 4;
const TO_CLIENTS_BUFFER_LENGTH_OFFSET: usize = 8;
const COUNTERS_METADATA_LENGTH_OFFSET: usize = 12;
const COUNTERS_VALUES_LENGTH_OFFSET: usize = 16;
const CLIENT_LIVENESS_TIMEOUT_OFFSET: usize = 24;
/// Where the to-driver buffer starts: the header padded to 128 bytes.
pub(crate) const END_OF_METADATA_OFFSET: usize = 128;
/// Semantic version 0.2.0 of the CnC layout.
pub(crate) const CNC_VERSION: i32 = 512;

const fn major(version: i32) -> i32 {
    (version >> 16) & 0xFF
}

fn format_version(version: i32) -> String {
    format!("{}.{}.{}", major(version), (version >> 8) & 0xFF, version & 0xFF)
}

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
    Retry(Duration, &'static str),
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
                            "{reason}: {} (is a media driver running? driver timeout {} ms)",
                            path.display(),
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
    const FILE_WAIT: Duration = Duration::from_millis(16);
    const INIT_WAIT: Duration = Duration::from_millis(1);
    const STALE_WAIT: Duration = Duration::from_millis(100);
    const NOT_CREATED: &str = "CnC file not created";
    const NOT_INITIALISED: &str = "CnC file is created but not initialised";

    match std::fs::metadata(path) {
        Ok(m) if m.len() > END_OF_METADATA_OFFSET as u64 => {}
        _ => return Err(Attempt::Retry(FILE_WAIT, NOT_CREATED)),
    }
    // The file may vanish between the two calls (a driver deleting its directory).
    let cnc = map_existing(path).map_err(|_| Attempt::Retry(FILE_WAIT, NOT_CREATED))?;
    if cnc.capacity() <= END_OF_METADATA_OFFSET {
        return Err(Attempt::Retry(INIT_WAIT, NOT_INITIALISED));
    }
    // Acquire: the driver stores the version last, with release, once every other field
    // and structure is initialised.
    let version = cnc.get_i32_acquire(CNC_VERSION_OFFSET);
    if version == 0 {
        return Err(Attempt::Retry(INIT_WAIT, NOT_INITIALISED));
    }
    if major(version) != major(CNC_VERSION) {
        return Err(Attempt::Failed(Error::invalid_argument(format!(
            "CnC version not compatible: app={} file={}",
            format_version(CNC_VERSION),
            format_version(version)
        ))));
    }
    let length = |offset: usize| usize::try_from(cnc.get_i32(offset)).unwrap_or(usize::MAX);
    let to_driver_length = length(TO_DRIVER_BUFFER_LENGTH_OFFSET);
    let to_clients_length = length(TO_CLIENTS_BUFFER_LENGTH_OFFSET);
    let metadata_length = length(COUNTERS_METADATA_LENGTH_OFFSET);
    let values_length = length(COUNTERS_VALUES_LENGTH_OFFSET);
    // As Aeron: the error log is not part of the sufficiency check.
    let required = [to_driver_length, to_clients_length, metadata_length, values_length]
        .iter()
        .try_fold(END_OF_METADATA_OFFSET, |sum, &l| sum.checked_add(l));
    match required {
        Some(required) if required <= cnc.capacity() => {}
        _ => return Err(Attempt::Retry(INIT_WAIT, NOT_INITIALISED)),
    }
    let section = |offset: usize, len: usize| cnc.view(offset, len).map_err(Attempt::Failed);
    let to_clients_offset = END_OF_METADATA_OFFSET + to_driver_length;
    let metadata_offset = to_clients_offset + to_clients_length;
    let values_offset = metadata_offset + metadata_length;
    let to_driver = ManyToOneRingBuffer::new(section(END_OF_METADATA_OFFSET, to_driver_length)?)
        .map_err(|e| Attempt::Failed(e.context("CnC to-driver ring buffer")))?;
    let heartbeat = to_driver.consumer_heartbeat_time();
    if heartbeat == 0 {
        return Err(Attempt::Retry(INIT_WAIT, "no driver heartbeat detected"));
    }
    if heartbeat < epoch_ms() - driver_timeout.as_millis() as i64 {
        // Left behind by a driver that died or shut down (−1): a new one may replace it.
        return Err(Attempt::Retry(STALE_WAIT, "no driver heartbeat detected"));
    }
    Ok(DriverConnection {
        to_driver,
        to_clients: section(to_clients_offset, to_clients_length)?,
        counters_metadata: section(metadata_offset, metadata_length)?,
        counters_values: section(values_offset, values_length)?,
        client_liveness_timeout_ns: cnc.get_i64(CLIENT_LIVENESS_TIMEOUT_OFFSET),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_parts() {
        assert_eq!(major(CNC_VERSION), 0);
        assert_eq!(format_version(CNC_VERSION), "0.2.0");
        assert_eq!(format_version((1 << 16) | (2 << 8) | 3), "1.2.3");
    }

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
        cnc.put_i32_release(CNC_VERSION_OFFSET, 1 << 16);
        let err = connect(&ctx).err().expect("version 1.0.0");
        assert_eq!(err.code(), libc::EINVAL);
        assert!(err.message().contains("app=0.2.0 file=1.0.0"), "{err}");
    }
}
