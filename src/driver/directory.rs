//! The Aeron directory at driver start and shutdown (`spec/cnc.md` §6-7, `spec/driver.md`
//! §10): refuse to start over a live driver, replace a dead one (saving its errors), create
//! `publications/` and `images/`, delete on shutdown when configured.
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};

use crate::cnc::{CncFile, cnc_path, is_driver_active};
use crate::concurrent::error_log;
use crate::driver::context::DriverContext;
use crate::util::clock::epoch_ms;
use crate::util::error::{Error, Result};
use crate::util::format::{TimeZone, format_epoch_ms};

pub use crate::cnc::CNC_FILE;
pub const LOSS_REPORT_FILE: &str = "loss-report.dat";
pub const PUBLICATIONS_DIR: &str = "publications";
pub const IMAGES_DIR: &str = "images";

/// Prepares the directory for a new driver: deletes it when configured to or when it holds
/// a dead driver's CnC (saving that driver's errors next to it first), refuses when a live
/// driver owns it (its heartbeat is younger than the driver timeout), then creates it with
/// `publications/` and `images/`.
pub fn prepare(ctx: &DriverContext) -> Result<()> {
    let dir = ctx.aeron_dir.as_path();
    if dir.is_dir() {
        if ctx.dir_warn_if_exists {
            eprintln!("WARNING: {} exists", dir.display());
        }
        if !ctx.dir_delete_on_start {
            if is_driver_active(dir, ctx.driver_timeout_ms as i64)? {
                return Err(Error::illegal_state(format!(
                    "active driver detected in {}: refusing to start over it",
                    dir.display()
                )));
            }
            save_existing_errors(dir)?;
        }
        delete_directory(dir)?;
    }
    for sub in [dir.to_path_buf(), dir.join(PUBLICATIONS_DIR), dir.join(IMAGES_DIR)] {
        std::fs::create_dir_all(&sub)
            .map_err(|e| Error::io(&e, format_args!("create directory {}", sub.display())))?;
    }
    Ok(())
}

/// Removes the directory and everything in it; a missing directory is not an error.
pub fn delete_directory(dir: &Path) -> Result<()> {
    match std::fs::remove_dir_all(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(&e, format_args!("delete directory {}", dir.display()))),
    }
}

/// Writes the distinct errors recorded in a dead driver's compatible CnC to
/// `<dir>-<date>-error.log` (as the C driver does), if it recorded any. Returns the file
/// written. A missing, unfinished or incompatible CnC has nothing to save.
pub fn save_existing_errors(dir: &Path) -> Result<Option<PathBuf>> {
    let Ok(cnc) = CncFile::map_existing(&cnc_path(dir)) else { return Ok(None) };
    let Ok(errors) = cnc.error_log_buffer() else { return Ok(None) };
    if !error_log::error_log_exists(errors) {
        return Ok(None);
    }
    let text = error_log::format_error_report(errors, TimeZone::Utc)?;
    let name = format!("{}-{}-error.log", dir.display(), format_date(epoch_ms()).replace(':', "-"));
    let path = PathBuf::from(name);
    std::fs::write(&path, text)
        .map_err(|e| Error::io(&e, format_args!("save errors to {}", path.display())))?;
    eprintln!("WARNING: Existing errors saved to: {}", path.display());
    Ok(Some(path))
}

/// `YYYY-MM-DD hh:mm:ss.mmm+0000` (UTC) for an epoch-ms timestamp.
pub fn format_date(epoch_ms: i64) -> String {
    format_epoch_ms(epoch_ms, TimeZone::Utc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_format_in_utc() {
        assert_eq!(format_date(0), "1970-01-01 00:00:00.000+0000");
        assert_eq!(format_date(1_740_566_400_123), "2025-02-26 10:40:00.123+0000");
        assert_eq!(format_date(951_782_400_000), "2000-02-29 00:00:00.000+0000");
    }

    #[test]
    fn prepare_creates_layout_and_replaces_a_directory_without_cnc() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("aeron");
        std::fs::create_dir_all(dir.join("junk")).unwrap();
        let ctx = DriverContext { aeron_dir: dir.clone(), ..DriverContext::default() };
        prepare(&ctx).unwrap();
        assert!(dir.join(PUBLICATIONS_DIR).is_dir());
        assert!(dir.join(IMAGES_DIR).is_dir());
        assert!(!dir.join("junk").exists());
        assert!(!is_driver_active(&dir, 10).unwrap());
        assert_eq!(save_existing_errors(&dir).unwrap(), None);
        delete_directory(&dir).unwrap();
        assert!(!dir.exists());
        delete_directory(&dir).unwrap();
    }
}
