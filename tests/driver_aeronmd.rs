//! The standalone `aeronmd`: configuration from a properties file and `-D` defines, clean
//! shutdown on SIGINT, and exit on an accepted TERMINATE_DRIVER.

#[path = "support/raw_client.rs"]
mod raw_client;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use aeronrs::command::Response;
use raw_client::{Cnc, RawClient, wait_until};

fn wait_exit(child: &mut Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("aeronmd did not exit");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn spawn(args: &[String]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_aeronmd"))
        .args(args)
        .env_remove("AERON_DIR")
        .stdout(Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn properties_file_defines_and_sigint() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let properties = tmp.path().join("driver.properties");
    std::fs::write(
        &properties,
        format!(
            "# aeronmd settings\naeron.dir={}\naeron.ipc.term.buffer.length = 128k\naeron.threading.mode: SHARED\n\
             aeron.shared.idle.strategy=sleep-ns\naeron.dir.delete.on.shutdown=true\n",
            dir.display()
        ),
    )
    .unwrap();
    // As in C's aeronmd, defines are applied first and files after them.
    let mut child =
        spawn(&["-Daeron.timer.interval=20ms".to_string(), format!("file://{}", properties.display())]);
    let mut client = RawClient::connect(&dir);
    let id = client.add_publication("aeron:ipc", 5, false);
    let record = client.expect_correlated(id);
    let Response::PublicationReady(p) = record.response() else { panic!("{record:?}") };
    let log = std::fs::metadata(p.log_file_name_str().unwrap()).unwrap();
    assert_eq!(log.len(), 3 * 128 * 1024 + 4096, "term length from the properties file");
    let h0 = client.cnc.driver_heartbeat();
    wait_until("heartbeat every 20 ms", || client.cnc.driver_heartbeat() > h0);

    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    // As Aeron's aeronmd: a clean shutdown, and the signal's number as the exit status.
    assert_eq!(wait_exit(&mut child).code(), Some(libc::SIGINT));
    assert_eq!(client.cnc.driver_heartbeat(), -1, "clean shutdown heartbeat");
    assert!(!dir.exists(), "deleted on shutdown");
}

#[test]
fn terminate_driver_stops_aeronmd_when_allowed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut child = spawn(&[
        format!("-Daeron.dir={}", dir.display()),
        "-D".to_string(),
        "aeron.driver.termination.validator=allow".to_string(),
    ]);
    let client = RawClient::connect(&dir);
    let cnc = Cnc::map(&dir);
    // The live driver in the other process is detected through its heartbeat.
    let ctx = aeronrs::driver::DriverContext {
        aeron_dir: dir.clone(),
        ..aeronrs::driver::DriverContext::default()
    };
    let err = aeronrs::driver::MediaDriver::launch(ctx).unwrap_err();
    assert!(err.message().contains("active driver"), "{err}");
    client.terminate_driver(b"");
    assert_eq!(wait_exit(&mut child).code(), Some(0));
    assert_eq!(cnc.driver_heartbeat(), -1);
    assert!(dir.join("cnc.dat").exists(), "not configured to delete on shutdown");
}

#[test]
fn bad_arguments_fail() {
    let out = Command::new(env!("CARGO_BIN_EXE_aeronmd")).arg("-x").output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("Usage"));
    let out = Command::new(env!("CARGO_BIN_EXE_aeronmd")).arg("-Dnovalue").output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("malformed define"));
    let out = Command::new(env!("CARGO_BIN_EXE_aeronmd")).arg("/nonexistent/props").output().unwrap();
    assert!(!out.status.success());
    let out = Command::new(env!("CARGO_BIN_EXE_aeronmd")).arg("-v").output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("major 1 minor 48 patch 0"));
}

/// Kills the child if the test fails before it exits.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn unknown_aeron_variables_are_warned_about_once_each() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut command = Command::new(env!("CARGO_BIN_EXE_aeronmd"));
    // Only this test's variables: none the test runner's environment happens to carry.
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("AERON") {
            command.env_remove(name);
        }
    }
    let child = command
        .args([
            format!("-Daeron.dir={}", dir.display()),
            "-Daeron.term.bufer.length=128k".to_string(),
            "-Daeron.driver.termination.validator=allow".to_string(),
        ])
        .env("AERON_SOCKET_SO_RCVBUFF", "64k")
        .env("AERON_CLIENT_NAME", "known to the client context")
        .env("AERON_TIMER_INTERVAL", "100ms")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = KillOnDrop(child);
    let stderr = child.0.stderr.take().unwrap();
    let (lines, received) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stderr).lines().map_while(std::result::Result::ok) {
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let client = RawClient::connect(&dir);
    let mut warnings = Vec::new();
    while warnings.len() < 2 {
        let line = received.recv_timeout(Duration::from_secs(20)).expect("aeronmd warned about both");
        warnings.push(line);
    }
    client.terminate_driver(b"");
    assert_eq!(wait_exit(&mut child.0).code(), Some(0));
    // The rest of stderr, after the exit: no further warnings (once each, known names never).
    warnings.extend(received.iter());
    warnings.sort();
    assert_eq!(
        warnings,
        [
            "aeronmd: WARNING: AERON_SOCKET_SO_RCVBUFF is not a setting of this driver or its clients; ignored",
            "aeronmd: WARNING: AERON_TERM_BUFER_LENGTH is not a setting of this driver or its clients; ignored",
        ]
    );
}
