//! Our Rust client over UDP: a publication on one driver, a subscription on another (both
//! ours, each with its own directory), through `aeron::client`. Checks what the client sees
//! of UDP channels: channel status, local socket addresses, the image's source identity,
//! every message in order, and end of stream when the publication closes.

use std::cell::Cell;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aeronrs::client::{Aeron, Context, FragmentAssembler, Header};
use aeronrs::driver::{DriverContext, MediaDriver, ThreadingMode};
use aeronrs::util::idle_strategy::IdleStrategy;

fn free_port() -> u16 {
    std::net::UdpSocket::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn driver(dir: &std::path::Path) -> MediaDriver {
    let sleep = IdleStrategy::Sleep(Duration::from_micros(100));
    MediaDriver::launch(DriverContext {
        aeron_dir: dir.to_path_buf(),
        dir_delete_on_shutdown: true,
        threading_mode: ThreadingMode::SharedNetwork,
        shared_network_idle_strategy: sleep.clone(),
        conductor_idle_strategy: sleep,
        term_buffer_length: 1 << 20,
        ..DriverContext::default()
    })
    .unwrap()
}

fn client(dir: &std::path::Path, errors: &Arc<Mutex<Vec<String>>>) -> Aeron {
    let mut ctx = Context::default();
    let sink = Arc::clone(errors);
    ctx.set_aeron_dir(dir)
        .set_idle_sleep_duration(Duration::from_millis(1))
        .set_error_handler(move |e| sink.lock().unwrap().push(e.to_string()));
    Aeron::connect(ctx).unwrap()
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn rust_client_publishes_and_subscribes_over_udp() {
    let tmp = tempfile::tempdir().unwrap();
    let (pub_dir, sub_dir) = (tmp.path().join("pub"), tmp.path().join("sub"));
    let (mut pub_driver, mut sub_driver) = (driver(&pub_dir), driver(&sub_dir));
    let errors = Arc::new(Mutex::new(Vec::new()));
    let (pub_client, sub_client) = (client(&pub_dir, &errors), client(&sub_dir, &errors));
    let port = free_port();
    let channel = format!("aeron:udp?endpoint=127.0.0.1:{port}");

    let mut subscription = sub_client.add_subscription(&channel, 7).unwrap();
    assert_eq!(subscription.channel_status(), 1, "receive endpoint ACTIVE");
    assert_eq!(subscription.local_socket_addresses(), vec![format!("127.0.0.1:{port}")]);
    let publication = pub_client.add_publication(&channel, 7).unwrap();
    assert_eq!(publication.channel_status(), 1, "send endpoint ACTIVE");
    let local = publication.local_socket_addresses();
    assert_eq!(local.len(), 1, "{local:?}");
    assert!(local[0].starts_with("127.0.0.1:"), "{local:?}");
    wait_until("connected", || publication.is_connected() && subscription.image_count() == 1);
    let image = subscription.images().remove(0);
    assert_eq!(image.source_identity(), local[0], "the image names the publication's socket");
    assert_eq!(image.session_id(), publication.session_id());

    let count = 100_000u64;
    let next = Cell::new(0u64);
    let mut assembler = FragmentAssembler::new(|m: &[u8], _: &Header| {
        let i = next.get();
        assert_eq!(m.len(), 100 + (i % 3000) as usize, "message {i}");
        assert_eq!(&m[..8], &i.to_le_bytes(), "message {i}");
        assert!(m[8..].iter().all(|&b| b == i as u8), "message {i}");
        next.set(i + 1);
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut sent = 0u64;
    let mut message = vec![0u8; 3100];
    while next.get() < count {
        assert!(Instant::now() < deadline, "sent {sent}, received {}", next.get());
        if sent < count {
            let length = 100 + (sent % 3000) as usize;
            message[..8].copy_from_slice(&sent.to_le_bytes());
            message[8..length].fill(sent as u8);
            if publication.offer(&message[..length]).unwrap() > 0 {
                sent += 1;
                continue;
            }
        }
        if subscription.poll(|p, h| assembler.on_fragment(p, h), 256) == 0 {
            std::thread::sleep(Duration::from_micros(100));
        }
    }

    // Closing the publication ends the stream at the subscriber.
    let end = publication.position();
    publication.close();
    wait_until("end of stream", || {
        subscription.poll(|p, h| assembler.on_fragment(p, h), 256);
        image.is_end_of_stream()
    });
    assert_eq!(image.end_of_stream_position(), end);
    assert_eq!(next.get(), count);
    wait_until("image unavailable", || {
        subscription.poll(|_, _| {}, 1);
        subscription.image_count() == 0
    });
    assert!(errors.lock().unwrap().is_empty(), "{:?}", errors.lock().unwrap());
    drop((subscription, pub_client, sub_client));
    pub_driver.close().unwrap();
    sub_driver.close().unwrap();
}
