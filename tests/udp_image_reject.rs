//! Image rejection end to end over UDP loopback (Aeron 1.47+ `Image.reject`, REJECT_IMAGE,
//! ERR frames, ON_PUBLICATION_ERROR): two of our drivers, a Rust client on each. The
//! subscriber rejects the publisher's image; the publishing client's error frame handler
//! hears IMAGE_REJECTED with the reason; the image goes unavailable once it times out and
//! the publisher then joins again with a new image; the error frame counters move; the
//! driver refuses unknown images and over-long reasons.

#[path = "support/log_client.rs"]
mod log_client;
#[path = "support/raw_client.rs"]
mod raw_client;
#[path = "support/udp_pair.rs"]
mod udp_pair;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aeronrs::client::{Aeron, Context, Image, PublicationErrorFrame};
use aeronrs::command::{Command, CorrelatedMessage, RejectImageMessage, Response};
use aeronrs::driver::{DriverContext, MediaDriver, ThreadingMode};
use aeronrs::util::error::AeronErrorCode;

use raw_client::RawClient;

const ERROR_FRAMES_RECEIVED: i32 = 38;
const ERROR_FRAMES_SENT: i32 = 39;
const IMAGE_REJECTED: i32 = 13;
const GENERIC_ERROR: i32 = 11;

fn driver(dir: &std::path::Path) -> MediaDriver {
    MediaDriver::launch(DriverContext {
        // A rejected image is dropped once it times out: keep that short.
        image_liveness_timeout_ns: 1_000_000_000,
        ..udp_pair::context(dir, ThreadingMode::Shared)
    })
    .unwrap()
}

fn client(dir: &std::path::Path, errors: &Arc<Mutex<Vec<String>>>, ctx: &mut Context) -> Aeron {
    let sink = Arc::clone(errors);
    ctx.set_aeron_dir(dir)
        .set_idle_sleep_duration(Duration::from_millis(1))
        .set_error_handler(move |e| sink.lock().unwrap().push(e.to_string()));
    Aeron::connect(ctx.clone()).unwrap()
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn system_counter(aeron: &Aeron, id: i32, label: &str) -> i64 {
    let counters = aeron.counters_reader();
    assert_eq!(counters.counter_label(id).unwrap(), label);
    counters.counter_value(id).unwrap()
}

#[test]
fn rejected_image_reports_to_the_publisher_and_times_out() {
    let tmp = tempfile::tempdir().unwrap();
    let (pub_dir, sub_dir) = (tmp.path().join("pub"), tmp.path().join("sub"));
    let (mut pub_driver, mut sub_driver) = (driver(&pub_dir), driver(&sub_dir));
    let errors = Arc::new(Mutex::new(Vec::new()));
    let frames: Arc<Mutex<Vec<PublicationErrorFrame>>> = Arc::default();
    let mut pub_ctx = Context::default();
    let sink = Arc::clone(&frames);
    pub_ctx.set_publication_error_frame_handler(move |frame| sink.lock().unwrap().push(frame.clone()));
    let pub_client = client(&pub_dir, &errors, &mut pub_ctx);
    let sub_client = client(&sub_dir, &errors, &mut Context::default());

    let unavailable: Arc<Mutex<Vec<i64>>> = Arc::default();
    let available = Arc::new(AtomicUsize::new(0));
    let (seen_gone, seen_new) = (Arc::clone(&unavailable), Arc::clone(&available));
    let mut subscription = sub_client
        .add_subscription_with_handlers(
            "aeron:udp?endpoint=127.0.0.1:0",
            7,
            move |_: &Arc<Image>| {
                seen_new.fetch_add(1, Ordering::SeqCst);
            },
            move |image: &Arc<Image>| seen_gone.lock().unwrap().push(image.correlation_id()),
        )
        .unwrap();
    let endpoint = subscription.resolved_endpoint().unwrap();
    let channel = subscription.try_resolve_channel_endpoint_port().unwrap();
    let mut publication = pub_client.add_exclusive_publication(&channel, 7).unwrap();
    wait_until("connected", || publication.is_connected() && subscription.image_count() == 1);
    let image = subscription.images().remove(0);
    wait_until("offered", || publication.offer(b"before").unwrap_or(0) > 0);
    let mut received = Vec::new();
    wait_until("received", || {
        subscription.poll(|payload, _| received.push(payload.to_vec()), 10);
        !received.is_empty()
    });
    assert_eq!(received, vec![b"before".to_vec()]);
    let (sent_before, received_before) = (
        system_counter(&sub_client, ERROR_FRAMES_SENT, "Error Frames sent"),
        system_counter(&pub_client, ERROR_FRAMES_RECEIVED, "Error Frames received"),
    );
    assert_eq!((sent_before, received_before), (0, 0));

    // The driver refuses a reason over 1023 bytes; the image stays as it was.
    let long = "x".repeat(1024);
    let refused = image.reject(&long).unwrap_err();
    assert_eq!(refused.aeron_code(), Some(AeronErrorCode::GenericError), "{refused}");
    assert!(refused.message().contains("1023"), "{refused}");

    image.reject("not for me").unwrap();
    wait_until("the error frame handler", || !frames.lock().unwrap().is_empty());
    let frame = frames.lock().unwrap()[0].clone();
    assert_eq!(frame.registration_id, publication.original_registration_id());
    assert_eq!(frame.destination_registration_id, -1);
    assert_eq!((frame.session_id, frame.stream_id), (publication.session_id(), 7));
    assert_eq!(frame.error_code, IMAGE_REJECTED);
    assert_eq!(frame.error_message, "not for me");
    assert_eq!(frame.group_tag, -1, "no group tag");
    assert_eq!(
        frame.source_address.map(|a| a.to_string()),
        Some(endpoint.clone()),
        "from the receive socket"
    );
    assert!(system_counter(&sub_client, ERROR_FRAMES_SENT, "Error Frames sent") >= 1);
    assert!(system_counter(&pub_client, ERROR_FRAMES_RECEIVED, "Error Frames received") >= 1);

    // The image takes no more data: it times out and goes unavailable, with nothing new.
    let _ = publication.offer(b"after");
    wait_until("image unavailable", || {
        subscription.poll(|payload, _| received.push(payload.to_vec()), 10);
        !unavailable.lock().unwrap().is_empty()
    });
    assert_eq!(*unavailable.lock().unwrap(), vec![image.correlation_id()]);
    assert_eq!(received, vec![b"before".to_vec()], "nothing taken after the rejection");
    assert!(image.is_closed());

    // The publisher is still there: it joins again with a new image, and data flows.
    wait_until("a new image", || {
        subscription.poll(|_, _| {}, 10);
        subscription.image_count() == 1 && available.load(Ordering::SeqCst) == 2
    });
    let rejoined = subscription.images().remove(0);
    assert_ne!(rejoined.correlation_id(), image.correlation_id());
    wait_until("connected again", || publication.is_connected());
    wait_until("offered again", || publication.offer(b"again").unwrap_or(0) > 0);
    wait_until("received again", || {
        subscription.poll(|payload, _| received.push(payload.to_vec()), 10);
        received.last().map(Vec::as_slice) == Some(b"again")
    });
    assert_eq!(frames.lock().unwrap()[0], frame);

    assert!(errors.lock().unwrap().is_empty(), "{:?}", errors.lock().unwrap());
    drop((subscription, publication, image, rejoined, pub_client, sub_client));
    pub_driver.close().unwrap();
    sub_driver.close().unwrap();
}

#[test]
fn driver_answers_reject_image_commands() {
    let tmp = tempfile::tempdir().unwrap();
    let mut media_driver = driver(tmp.path());
    let mut raw = RawClient::connect(tmp.path());
    let reject = |raw: &RawClient, image_correlation_id: i64, reason: &[u8]| {
        let correlation_id = raw.next_id();
        raw.send(Command::RejectImage(RejectImageMessage {
            correlated: CorrelatedMessage::new(raw.client_id, correlation_id),
            image_correlation_id,
            position: 0,
            reason,
        }));
        correlation_id
    };

    let unknown = reject(&raw, 424242, b"who?");
    let (code, message) = raw.expect_error(unknown);
    assert_eq!(code, GENERIC_ERROR);
    assert!(message.contains("correlationId=424242"), "{message}");

    // An IPC image is no network image: unknown to REJECT_IMAGE as well.
    let subscription = raw.add_subscription("aeron:ipc", 3);
    raw.expect_correlated(subscription);
    let publication = raw.add_publication("aeron:ipc", 3, false);
    raw.expect_correlated(publication);
    let record = raw.expect("image", |r| matches!(r, Response::AvailableImage(_)));
    let Response::AvailableImage(ipc_image) = record.response() else { unreachable!() };
    let ipc = reject(&raw, ipc_image.correlation_id, b"no");
    assert_eq!(raw.expect_error(ipc).0, GENERIC_ERROR);

    let too_long = reject(&raw, 424242, &[b'y'; 1024]);
    let (code, message) = raw.expect_error(too_long);
    assert_eq!(code, GENERIC_ERROR);
    assert!(message.contains("1023"), "{message}");
    drop(raw);
    media_driver.close().unwrap();
}
