//! Storage that runs out is a clear error when a file is created, never a `SIGBUS` when it
//! is first written: `cnc.dat` and non-sparse log buffers have their space reserved up
//! front (`fallocate`). A driver on a file system too small for its `cnc.dat` fails to
//! start with the reason; a publication or image whose log does not fit fails alone (its
//! client, or the error log naming `images`, says why) and the driver serves on; the
//! publisher of an image that could not be built learns why from the receiver's ERR frame.
//!
//! Each test mounts a small tmpfs of its own, so they need root: skipped with a message
//! otherwise, and a failure under `AERONRS_REQUIRE_ROOT=1` (CI).

#[path = "support/log_client.rs"]
mod log_client;
#[path = "support/raw_client.rs"]
mod raw_client;
#[path = "support/udp_pair.rs"]
mod udp_pair;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use aeronrs::command::Response;
use aeronrs::driver::{DriverContext, MediaDriver, ThreadingMode};
use raw_client::RawClient;
use udp_pair::{context, free_port};

const STORAGE_SPACE: i32 = 12;

/// A tmpfs of `size` mounted at a fresh directory, unmounted on drop.
struct Tmpfs {
    _dir: tempfile::TempDir,
    mount: PathBuf,
}

impl Tmpfs {
    fn mount(size: &str) -> Option<Self> {
        let root = std::fs::read_to_string("/proc/self/status")
            .map(|s| s.lines().any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(2) == Some("0")))
            .unwrap_or(false);
        if !root {
            assert!(
                std::env::var("AERONRS_REQUIRE_ROOT").as_deref() != Ok("1"),
                "mounting a tmpfs needs root (AERONRS_REQUIRE_ROOT=1)"
            );
            eprintln!("SKIP: mounting a tmpfs needs root; storage exhaustion not tested");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let mount = dir.path().join("fs");
        std::fs::create_dir(&mount).unwrap();
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&mount)
            .status()
            .expect("run mount");
        assert!(status.success(), "mount -t tmpfs -o size={size} failed: {status}");
        Some(Self { _dir: dir, mount })
    }

    fn path(&self) -> &Path {
        &self.mount
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.mount).status();
    }
}

fn driver_context(dir: &Path) -> DriverContext {
    let mut ctx = context(dir, ThreadingMode::Shared);
    ctx.term_buffer_sparse_file = false;
    ctx
}

#[test]
fn a_file_system_too_small_for_cnc_is_a_start_error() {
    let Some(fs) = Tmpfs::mount("1m") else { return };
    let error = match MediaDriver::launch(driver_context(&fs.path().join("aeron"))) {
        Ok(_) => panic!("a driver started in 1 MiB"),
        Err(e) => e,
    };
    assert_eq!(error.code(), libc::ENOSPC, "{error}");
    assert!(error.message().contains("cnc.dat"), "{error}");
}

/// Storage checks off (AERON_PERFORM_STORAGE_CHECKS=false) or on, a log that does not fit
/// fails its own command and nothing else.
fn publication_that_does_not_fit(storage_checks: bool) {
    let Some(fs) = Tmpfs::mount("12m") else { return };
    let dir = fs.path().join("aeron");
    let mut ctx = driver_context(&dir);
    ctx.perform_storage_checks = storage_checks;
    let _driver = MediaDriver::launch(ctx).unwrap();
    let mut client = RawClient::connect(&dir);
    let big = client.add_publication("aeron:ipc?term-length=4m", 1001, false);
    let (code, message) = client.expect_error(big);
    assert_eq!(code, STORAGE_SPACE, "{message}");
    assert!(message.contains("publications"), "names where: {message}");
    // The driver is alive and serves what fits.
    let small = client.add_publication("aeron:ipc?term-length=64k", 1001, false);
    assert!(matches!(client.expect_correlated(small).response(), Response::PublicationReady(_)));
}

#[test]
fn a_publication_log_that_does_not_fit_fails_alone_with_storage_checks_off() {
    publication_that_does_not_fit(false);
}

#[test]
fn a_publication_log_that_does_not_fit_fails_alone_with_storage_checks_on() {
    publication_that_does_not_fit(true);
}

fn image_that_does_not_fit(storage_checks: bool) {
    let Some(fs) = Tmpfs::mount("12m") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let sub_dir = fs.path().join("aeron");
    let mut sub_ctx = driver_context(&sub_dir);
    sub_ctx.perform_storage_checks = storage_checks;
    let _sub_driver = MediaDriver::launch(sub_ctx).unwrap();
    let _pub_driver = MediaDriver::launch(driver_context(&tmp.path().join("pub"))).unwrap();
    let mut subscriber = RawClient::connect(&sub_dir);
    let mut publisher = RawClient::connect(&tmp.path().join("pub"));
    let channel = format!("aeron:udp?endpoint=127.0.0.1:{}", free_port());
    let sub = subscriber.add_subscription(&channel, 1001);
    subscriber.expect_correlated(sub);
    let publication = publisher.add_publication(&format!("{channel}|term-length=4m"), 1001, false);
    assert!(matches!(publisher.expect_correlated(publication).response(), Response::PublicationReady(_)));
    // The receiver says where it lacked the space; the sender's side hears why.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let sub_errors = subscriber.cnc.errors();
        let pub_errors = publisher.cnc.errors();
        let named = sub_errors.iter().any(|e| e.contains("/images") && !e.contains("/publications"));
        let told = pub_errors.iter().any(|e| e.contains("has no image") && e.contains("images"));
        if named && told {
            break;
        }
        assert!(Instant::now() < deadline, "receiver errors {sub_errors:?}; sender errors {pub_errors:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Still serving: a stream that fits gets its image.
    let small_channel = format!("aeron:udp?endpoint=127.0.0.1:{}", free_port());
    let sub = subscriber.add_subscription(&small_channel, 1002);
    subscriber.expect_correlated(sub);
    let small = publisher.add_publication(&format!("{small_channel}|term-length=64k"), 1002, false);
    publisher.expect_correlated(small);
    subscriber.expect("the small image", |r| matches!(r, Response::AvailableImage(i) if i.stream_id == 1002));
}

#[test]
fn an_image_that_does_not_fit_names_images_and_its_sender_hears_why() {
    image_that_does_not_fit(true);
    image_that_does_not_fit(false);
}
