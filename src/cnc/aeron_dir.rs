//! Where `cnc.dat` lives (`spec/cnc.md` §1) and the "is a driver active there?" check (§6).

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::cnc_file::{CncFile, is_retryable};
use super::descriptor::{
    CNC_FILE, CNC_VERSION, CNC_VERSION_OFFSET, END_OF_METADATA_OFFSET, semantic_version_major,
};
use crate::concurrent::mapped_file;
use crate::util::clock::epoch_ms;
use crate::util::error::{CLIENT_ERROR_DRIVER_TIMEOUT, Error, Result};

/// Environment variable naming the Aeron directory (read by the contexts).
pub const AERON_DIR_ENV_VAR: &str = "AERON_DIR";

/// The user part of the default directory: `$USER`, else the passwd name of the real uid,
/// else `default`, as Aeron C.
pub fn aeron_user_name() -> String {
    std::env::var("USER")
        .ok()
        .filter(|user| !user.is_empty())
        .or_else(crate::util::sys::real_user_name)
        .unwrap_or_else(|| "default".to_string())
}

/// Aeron C's default directory: `/dev/shm/aeron-<user>` on Linux, else
/// `<TMPDIR or /tmp>/aeron-<user>`.
pub fn default_aeron_dir() -> PathBuf {
    let name = format!("aeron-{}", aeron_user_name());
    if cfg!(target_os = "linux") {
        return Path::new("/dev/shm").join(name);
    }
    let tmp = std::env::var_os("TMPDIR").filter(|t| !t.is_empty()).unwrap_or_else(|| "/tmp".into());
    PathBuf::from(tmp).join(name)
}

/// `<aeron_dir>/cnc.dat`.
pub fn cnc_path(aeron_dir: &Path) -> PathBuf {
    aeron_dir.join(CNC_FILE)
}

/// Maps and validates the `cnc.dat` at `path`, retrying every 16 ms while it is missing or
/// not initialised until `timeout_ms` passes (as `aeron_cnc_init`): then fails with
/// `AERON_CLIENT_ERROR_DRIVER_TIMEOUT` and the last reason. Other errors (an incompatible
/// version, a failed mapping) are returned at once. The driver heartbeat is not checked.
pub fn await_cnc(path: &Path, timeout_ms: i64) -> Result<CncFile> {
    let deadline_ms = epoch_ms().saturating_add(timeout_ms);
    loop {
        match CncFile::map_existing(path) {
            Ok(cnc) => return Ok(cnc),
            Err(e) if is_retryable(&e) => {
                if epoch_ms() >= deadline_ms {
                    return Err(Error::with_code(
                        CLIENT_ERROR_DRIVER_TIMEOUT,
                        format!(
                            "Timed out waiting for CnC file to become available after {timeout_ms}ms: {}",
                            e.message()
                        ),
                    ));
                }
                std::thread::sleep(Duration::from_millis(16));
            }
            Err(e) => return Err(e),
        }
    }
}

/// Whether a driver is active in `aeron_dir` (`aeron_is_driver_active_with_cnc`): waits
/// (polling every 1 ms, up to `driver_timeout_ms`) for the CnC version to be set, then
/// requires a compatible major version and a driver heartbeat at most
/// `driver_timeout_ms` old. A missing, short, or invalid file means "not active".
pub fn is_driver_active(aeron_dir: &Path, driver_timeout_ms: i64) -> Result<bool> {
    let path = cnc_path(aeron_dir);
    if !path.exists() {
        return Ok(false);
    }
    let buffer = match mapped_file::map_existing(&path) {
        Ok(buffer) => buffer,
        Err(e) if e.code() == libc::ENOENT || e.code() == libc::EINVAL => return Ok(false),
        Err(e) => return Err(e),
    };
    if buffer.capacity() <= END_OF_METADATA_OFFSET {
        return Ok(false);
    }
    let deadline_ms = epoch_ms().saturating_add(driver_timeout_ms);
    loop {
        let version = buffer.get_i32_acquire(CNC_VERSION_OFFSET);
        if version != 0 {
            if semantic_version_major(version) != semantic_version_major(CNC_VERSION) {
                return Ok(false);
            }
            break;
        }
        if epoch_ms() > deadline_ms {
            return Ok(false);
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    Ok(CncFile::wrap(buffer).is_ok_and(|cnc| cnc.is_driver_active(epoch_ms(), driver_timeout_ms)))
}

/// [`is_driver_active`], describing to `log` what it finds on the way, as
/// `aeron_is_driver_active` does: the directory, the CnC file, and the heartbeat's age.
/// A missing directory or CnC file is "not active".
pub fn is_driver_active_logged(
    aeron_dir: &Path,
    driver_timeout_ms: i64,
    mut log: impl FnMut(String),
) -> Result<bool> {
    if !aeron_dir.is_dir() {
        return Ok(false);
    }
    log(format!("INFO: Aeron directory {} exists", aeron_dir.display()));
    let path = cnc_path(aeron_dir);
    if !path.is_file() {
        return Ok(false);
    }
    log(format!("INFO: Aeron CnC file {} exists", path.display()));
    let active = is_driver_active(aeron_dir, driver_timeout_ms)?;
    if let Ok(cnc) = CncFile::map_existing(&path) {
        let age = epoch_ms().saturating_sub(cnc.driver_heartbeat_ms());
        log(format!("INFO: Aeron driver heartbeat is {age} ms old"));
    }
    Ok(active)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logs_what_it_finds_until_something_is_missing() {
        let mut lines = Vec::new();
        let missing = std::env::temp_dir().join(format!("aeronrs-no-such-dir-{}", std::process::id()));
        assert!(!is_driver_active_logged(&missing, 10, |line| lines.push(line)).unwrap());
        assert!(lines.is_empty(), "{lines:?}");
        let dir = tempfile::tempdir().unwrap();
        assert!(!is_driver_active_logged(dir.path(), 10, |line| lines.push(line)).unwrap());
        assert_eq!(lines, [format!("INFO: Aeron directory {} exists", dir.path().display())]);
    }
}
