//! File and directory helpers behind Aeron's `util/aeron_fileutil.h`, with its rules:
//! `mkdir` refuses a path that exists, `remove` takes a file or an empty directory, the
//! paths of log buffers are `<aeron dir>/<folder>/<id>.logbuffer` as Aeron formats them.
#![forbid(unsafe_code)]

use std::path::Path;

use crate::util::error::{Error, Result};

/// Creates `pathname` and any missing parents with mode `permission` (before the umask);
/// EEXIST if it already exists.
pub fn mkdir_recursive(pathname: &str, permission: u32) -> Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    if Path::new(pathname).exists() {
        return Err(Error::with_code(libc::EEXIST, format!("aeron_mkdir failed for {pathname}")));
    }
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(permission)
        .create(pathname)
        .map_err(|e| Error::io(&e, format_args!("aeron_mkdir failed for {pathname}")))
}

/// Deletes the file (or empty directory) `path`, as C `remove`.
pub fn remove(path: &str) -> Result<()> {
    let removed = match std::fs::symlink_metadata(path) {
        Ok(metadata) if metadata.is_dir() => std::fs::remove_dir(path),
        _ => std::fs::remove_file(path),
    };
    removed.map_err(|e| Error::io(&e, format_args!("remove {path}")))
}

/// Deletes the log file `filename` of a released raw log; a missing or empty file counts
/// as deleted (another process may have removed or truncated it first).
pub fn remove_log_file(filename: &str) -> Result<()> {
    match std::fs::remove_file(filename) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(_) if std::fs::metadata(filename).map_or(true, |m| m.len() == 0) => Ok(()),
        Err(e) => Err(Error::io(&e, format_args!("remove {filename}"))),
    }
}

/// The length in bytes of the file `path`.
pub fn file_length(path: &str) -> Result<i64> {
    let metadata = std::fs::metadata(path).map_err(|e| Error::io(&e, format_args!("stat {path}")))?;
    Ok(i64::try_from(metadata.len()).unwrap_or(i64::MAX))
}

/// `<aeron_dir>/<folder>/<correlation_id>.logbuffer`, joined as Aeron's C driver joins it
/// (with `/`, whatever `aeron_dir` ends with).
pub fn log_location(aeron_dir: &str, folder: &str, correlation_id: i64) -> String {
    format!("{aeron_dir}/{folder}/{correlation_id}.logbuffer")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mkdir_refuses_an_existing_path_and_remove_takes_files_and_empty_directories() {
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("a/b");
        let nested = nested.to_str().unwrap();
        mkdir_recursive(nested, 0o755).unwrap();
        assert_eq!(mkdir_recursive(nested, 0o755).unwrap_err().code(), libc::EEXIST);
        let file = dir.path().join("a/b/f");
        std::fs::write(&file, b"12345").unwrap();
        assert_eq!(file_length(file.to_str().unwrap()).unwrap(), 5);
        remove(file.to_str().unwrap()).unwrap();
        remove(nested).unwrap();
        assert!(remove(nested).is_err());
        remove_log_file(nested).unwrap();
        assert_eq!(log_location("/d", "images", 7), "/d/images/7.logbuffer");
    }
}
