//! Response channels (`control-mode=response`, `response-correlation-id`, RSP_SETUP) on our
//! drivers: the request/response pattern with one server and 100 clients, each getting
//! exactly its own responses, once, in order; how request publications are shared; and the
//! refusals, including Aeron's experimental-features gate; and the same pattern with real
//! Java Aeron (`aeron-all`, `interop/java` `Response`) on a Java media driver on either side
//! (skipped with a message when Java or Maven is missing, unless
//! `AERONRS_REQUIRE_INTEROP=1`).
//!
//! The pattern: each client subscribes to `aeron:udp?control=<server's response
//! address>|control-mode=response` and publishes its requests to the server's request
//! channel with `response-correlation-id=<that subscription's registration id>`; the server
//! answers each request image with a publication `control=<response
//! address>|control-mode=response|response-correlation-id=<the image's correlation id>`.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use aeronrs::client::{
    ADMIN_ACTION, Aeron, BACK_PRESSURED, Context, NOT_CONNECTED, Publication, Subscription,
};
use aeronrs::concurrent::counters::type_ids::RECEIVER_POSITION_TYPE_ID;
use aeronrs::driver::{DriverContext, MediaDriver, ThreadingMode};
use aeronrs::util::error::{AeronErrorCode, Error};
use aeronrs::util::idle_strategy::IdleStrategy;

#[path = "support/java_procs.rs"]
mod java_procs;

const REQUEST_STREAM: i32 = 10;
const RESPONSE_STREAM: i32 = 11;
const CLIENTS: usize = 100;
const CLIENT_THREADS: usize = 4;
const REQUESTS_PER_CLIENT: u32 = 20;
/// Every wait of these tests ends by this deadline.
const BOUND: Duration = Duration::from_secs(60);

fn free_port() -> u16 {
    std::net::UdpSocket::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn driver(dir: &std::path::Path, experimental: bool) -> MediaDriver {
    driver_with(dir, experimental, DriverContext::default().timer_interval_ns)
}

/// `timer_interval_ns`: how often the conductor looks for unused endpoints (among others).
fn driver_with(dir: &std::path::Path, experimental: bool, timer_interval_ns: u64) -> MediaDriver {
    let sleep = IdleStrategy::Sleep(Duration::from_micros(200));
    MediaDriver::launch(DriverContext {
        timer_interval_ns,
        aeron_dir: dir.to_path_buf(),
        dir_delete_on_shutdown: true,
        threading_mode: ThreadingMode::SharedNetwork,
        shared_network_idle_strategy: sleep.clone(),
        conductor_idle_strategy: sleep,
        term_buffer_sparse_file: true,
        enable_experimental_features: experimental,
        ..DriverContext::default()
    })
    .unwrap()
}

fn client(dir: &std::path::Path) -> Aeron {
    let mut ctx = Context::default();
    ctx.set_aeron_dir(dir).set_idle_sleep_duration(Duration::from_millis(1));
    Aeron::connect(ctx).unwrap()
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + BOUND;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Request `seq` of client `client`: its index and sequence number, then a text.
fn request(client: u32, seq: u32) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(64);
    bytes.extend_from_slice(&client.to_le_bytes());
    bytes.extend_from_slice(&seq.to_le_bytes());
    bytes.extend_from_slice(format!("request {seq} of client {client}").as_bytes());
    bytes
}

/// The server's answer: the request, then the session id of the request image it came on.
fn response(request: &[u8], request_session_id: i32) -> Vec<u8> {
    let mut bytes = request.to_vec();
    bytes.extend_from_slice(&request_session_id.to_le_bytes());
    bytes
}

/// Offers until the message is in the log; `NOT_CONNECTED` and back pressure are waited out.
fn offer(publication: &Publication, message: &[u8], what: &str) {
    let deadline = Instant::now() + BOUND;
    loop {
        let result = publication.offer(message).unwrap();
        if result > 0 {
            return;
        }
        assert!([NOT_CONNECTED, BACK_PRESSURED, ADMIN_ACTION].contains(&result), "{what}: offer {result}");
        assert!(Instant::now() < deadline, "{what}: not offered within {BOUND:?} ({result})");
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// One answered request image: the response publication and the answers it has to send.
struct Responder {
    request_session_id: i32,
    image_correlation_id: i64,
    publication: Option<Publication>,
    pending: aeronrs::client::AsyncAddPublication,
    backlog: VecDeque<Vec<u8>>,
}

/// The server: a request subscription, and a response publication per request image made
/// from that image's correlation id. Runs until `stop`; returns how many images it answered.
fn serve(aeron: Aeron, request_channel: String, response_control: String, stop: Arc<AtomicBool>) -> usize {
    let mut subscription = aeron.add_subscription(&request_channel, REQUEST_STREAM).unwrap();
    let mut responders: Vec<Responder> = Vec::new();
    let deadline = Instant::now() + BOUND * 2;
    while !stop.load(Ordering::Acquire) {
        assert!(Instant::now() < deadline, "server still running after {:?}", BOUND * 2);
        let mut work = 0;
        for image in subscription.images() {
            if responders.iter().all(|r| r.image_correlation_id != image.correlation_id()) {
                let channel = format!(
                    "aeron:udp?control={response_control}|control-mode=response|term-length=64k|response-correlation-id={}",
                    image.correlation_id()
                );
                responders.push(Responder {
                    request_session_id: image.session_id(),
                    image_correlation_id: image.correlation_id(),
                    publication: None,
                    pending: aeron.async_add_publication(&channel, RESPONSE_STREAM).unwrap(),
                    backlog: VecDeque::new(),
                });
                work += 1;
            }
        }
        for responder in &mut responders {
            if responder.publication.is_none() {
                responder.publication = responder.pending.poll().expect("response publication");
            }
        }
        work += subscription.poll_with_image(
            |payload, header, image| {
                // By image, not session: two clients' drivers may pick the same session id.
                let responder = responders
                    .iter_mut()
                    .find(|r| r.image_correlation_id == image.correlation_id())
                    .expect("a request from an image the server knows");
                assert_eq!(header.session_id(), responder.request_session_id);
                responder.backlog.push_back(response(payload, header.session_id()));
            },
            64,
        );
        for responder in &mut responders {
            let Some(publication) = &responder.publication else { continue };
            while let Some(answer) = responder.backlog.front() {
                let result = publication.offer(answer).unwrap();
                if result < 0 {
                    assert!(
                        [NOT_CONNECTED, BACK_PRESSURED, ADMIN_ACTION].contains(&result),
                        "offer {result}"
                    );
                    break;
                }
                responder.backlog.pop_front();
                work += 1;
            }
        }
        if work == 0 {
            std::thread::sleep(Duration::from_micros(200));
        }
    }
    responders.len()
}

/// One client: its response subscription and its request publication.
struct RequestClient {
    index: u32,
    subscription: Subscription,
    publication: Publication,
    next_response: u32,
}

/// A thread's share of the clients: all connect, then each sends its requests and checks
/// that exactly its own responses arrive, once, in order, from its own pairing.
fn run_clients(
    aeron: Aeron,
    indices: Vec<u32>,
    request_endpoint: String,
    response_control: String,
    requests: u32,
) {
    let mut clients = Vec::new();
    for index in indices {
        let subscription = aeron
            .add_subscription(
                &format!("aeron:udp?control={response_control}|control-mode=response"),
                RESPONSE_STREAM,
            )
            .unwrap();
        let publication = aeron
            .add_publication(
                &format!(
                    "aeron:udp?endpoint={request_endpoint}|term-length=64k|response-correlation-id={}",
                    subscription.registration_id()
                ),
                REQUEST_STREAM,
            )
            .unwrap();
        clients.push(RequestClient { index, subscription, publication, next_response: 0 });
    }
    wait_until("every client's request and response streams connected", || {
        clients.iter().all(|c| c.publication.is_connected() && c.subscription.is_connected())
    });
    let mut response_sessions = std::collections::HashSet::new();
    for c in &clients {
        assert_eq!(c.subscription.image_count(), 1, "client {}: one response image", c.index);
        // Each client hears its own response publication (one driver's sessions differ).
        assert!(response_sessions.insert(c.subscription.images()[0].session_id()), "client {}", c.index);
    }
    let deadline = Instant::now() + BOUND;
    for seq in 0..requests {
        for c in &mut clients {
            offer(&c.publication, &request(c.index, seq), "request");
        }
        // Drain what has come back so far, so responses never wait on a full window.
        for c in &mut clients {
            poll_responses(c);
        }
    }
    while clients.iter().any(|c| c.next_response < requests) {
        assert!(Instant::now() < deadline, "responses missing after {BOUND:?}");
        let mut got = 0;
        for c in &mut clients {
            got += poll_responses(c);
        }
        if got == 0 {
            std::thread::sleep(Duration::from_micros(200));
        }
    }
}

fn poll_responses(c: &mut RequestClient) -> usize {
    let (index, request_session_id) = (c.index, c.publication.session_id());
    let next = &mut c.next_response;
    c.subscription.poll(
        |payload, _| {
            let expected = response(&request(index, *next), request_session_id);
            assert_eq!(payload, &expected[..], "client {index}: response {next}");
            *next += 1;
        },
        64,
    )
}

#[test]
fn response_channel_request_response_with_100_clients() {
    let tmp = tempfile::tempdir().unwrap();
    let (server_dir, other_dir) = (tmp.path().join("server"), tmp.path().join("other"));
    // Half the clients share the server's driver (as Aeron's own test does), half use another.
    let (mut server_driver, mut other_driver) = (driver(&server_dir, true), driver(&other_dir, true));
    let request_endpoint = format!("127.0.0.1:{}", free_port());
    let response_control = format!("127.0.0.1:{}", free_port());
    let stop = Arc::new(AtomicBool::new(false));
    let server = {
        let (aeron, stop) = (client(&server_dir), Arc::clone(&stop));
        let (request_channel, control) =
            (format!("aeron:udp?endpoint={request_endpoint}"), response_control.clone());
        std::thread::spawn(move || serve(aeron, request_channel, control, stop))
    };
    let start = Instant::now();
    let finished = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = (0..CLIENT_THREADS)
        .map(|t| {
            let dir = if t % 2 == 0 { &server_dir } else { &other_dir };
            let aeron = client(dir);
            let indices: Vec<u32> =
                (0..CLIENTS as u32).filter(|i| *i as usize % CLIENT_THREADS == t).collect();
            let (endpoint, control, finished) =
                (request_endpoint.clone(), response_control.clone(), Arc::clone(&finished));
            std::thread::spawn(move || {
                run_clients(aeron, indices, endpoint, control, REQUESTS_PER_CLIENT);
                finished.fetch_add(1, Ordering::AcqRel);
            })
        })
        .collect();
    let mut failure = None;
    for thread in threads {
        if let Err(panic) = thread.join() {
            failure.get_or_insert(panic);
        }
    }
    stop.store(true, Ordering::Release);
    let answered = server.join();
    if let Some(panic) = failure {
        std::panic::resume_unwind(panic);
    }
    let answered = answered.unwrap_or_else(|p| std::panic::resume_unwind(p));
    eprintln!("{CLIENTS} clients x {REQUESTS_PER_CLIENT} requests answered in {:.2?}", start.elapsed());
    assert_eq!(finished.load(Ordering::Acquire), CLIENT_THREADS);
    assert_eq!(answered, CLIENTS, "one response publication per client");
    server_driver.close().unwrap();
    other_driver.close().unwrap();
}

/// Request publications are shared only with the same `response-correlation-id` (as Aeron's
/// publication matching), and two response publications for one image are one.
#[test]
fn response_correlation_id_decides_which_publications_are_shared() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut media_driver = driver(&dir, true);
    let aeron = client(&dir);
    let endpoint = format!("127.0.0.1:{}", free_port());
    let control = format!("127.0.0.1:{}", free_port());
    let request_sub =
        aeron.add_subscription(&format!("aeron:udp?endpoint={endpoint}"), REQUEST_STREAM).unwrap();
    let response_a = aeron
        .add_subscription(&format!("aeron:udp?control={control}|control-mode=response"), RESPONSE_STREAM)
        .unwrap();
    let response_b = aeron
        .add_subscription(&format!("aeron:udp?control={control}|control-mode=response"), RESPONSE_STREAM)
        .unwrap();
    let request = |rcid: i64| {
        aeron
            .add_publication(
                &format!("aeron:udp?endpoint={endpoint}|response-correlation-id={rcid}"),
                REQUEST_STREAM,
            )
            .unwrap()
    };
    let (a1, a2, b) = (
        request(response_a.registration_id()),
        request(response_a.registration_id()),
        request(response_b.registration_id()),
    );
    let plain = aeron.add_publication(&format!("aeron:udp?endpoint={endpoint}"), REQUEST_STREAM).unwrap();
    assert_eq!(a1.original_registration_id(), a2.original_registration_id());
    assert_eq!(a1.session_id(), a2.session_id());
    assert_ne!(a1.original_registration_id(), b.original_registration_id());
    assert_ne!(plain.original_registration_id(), a1.original_registration_id());
    wait_until("three request images", || request_sub.image_count() == 3);
    let image = request_sub.image_by_session_id(a1.session_id()).unwrap();
    let answer = format!(
        "aeron:udp?control={control}|control-mode=response|response-correlation-id={}",
        image.correlation_id()
    );
    let (r1, r2) = (
        aeron.add_publication(&answer, RESPONSE_STREAM).unwrap(),
        aeron.add_publication(&answer, RESPONSE_STREAM).unwrap(),
    );
    assert_eq!(r1.original_registration_id(), r2.original_registration_id());
    wait_until("the response stream of a connected", || {
        r1.is_connected() && response_a.is_connected() && a1.is_connected()
    });
    assert_eq!(response_a.images()[0].session_id(), r1.session_id());
    // b's response subscription is still waiting: nobody answered b's image.
    assert!(!response_b.is_connected());
    drop((r1, r2, a1, a2, b, plain, response_a, response_b, request_sub, aeron));
    media_driver.close().unwrap();
}

/// Two response subscriptions wait on one endpoint; the first is paired, used and closed
/// with everything around it; the second, still waiting, keeps the endpoint and is paired
/// later (Aeron's partially created response subscriptions).
#[test]
fn a_waiting_response_subscription_outlives_a_closed_one_on_its_endpoint() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    // A short timer: an endpoint nothing holds closes within milliseconds.
    let timer_interval = Duration::from_millis(20);
    let mut media_driver = driver_with(&dir, true, timer_interval.as_nanos() as u64);
    let aeron = client(&dir);
    let (endpoint, control, response_endpoint) = (
        format!("127.0.0.1:{}", free_port()),
        format!("127.0.0.1:{}", free_port()),
        format!("127.0.0.1:{}", free_port()),
    );
    let response_channel =
        format!("aeron:udp?control-mode=response|control={control}|endpoint={response_endpoint}");
    let request_sub =
        aeron.add_subscription(&format!("aeron:udp?endpoint={endpoint}"), REQUEST_STREAM).unwrap();
    let waiting = aeron.add_subscription(&response_channel, RESPONSE_STREAM + 1).unwrap();
    let answer = |image: i64, stream_id: i32| {
        aeron
            .add_publication(
                &format!("aeron:udp?control={control}|control-mode=response|response-correlation-id={image}"),
                stream_id,
            )
            .unwrap()
    };
    let request = |subscription: &Subscription| {
        aeron
            .add_publication(
                &format!(
                    "aeron:udp?endpoint={endpoint}|response-correlation-id={}",
                    subscription.registration_id()
                ),
                REQUEST_STREAM,
            )
            .unwrap()
    };
    {
        let first = aeron.add_subscription(&response_channel, RESPONSE_STREAM).unwrap();
        let first_request = request(&first);
        wait_until("the first request image", || request_sub.image_count() == 1);
        let response = answer(request_sub.images()[0].correlation_id(), RESPONSE_STREAM);
        wait_until("the first response stream", || first.is_connected() && response.is_connected());
        assert_eq!(first.local_socket_addresses(), vec![response_endpoint.clone()]);
        drop((response, first_request, first));
    }
    wait_until("the first request image gone", || request_sub.image_count() == 0);
    // The first response image (rcv-pos counters of its stream) gone: only the waiting
    // subscription holds the endpoint now.
    let response_images = || {
        let mut n = 0;
        aeron.counters_reader().for_each_counter(|c| {
            let stream_id = i32::from_le_bytes(c.key()[12..16].try_into().unwrap());
            n += usize::from(c.type_id == RECEIVER_POSITION_TYPE_ID && stream_id == RESPONSE_STREAM);
        });
        n
    };
    wait_until("the first response image released", || response_images() == 0);
    // The point of the test: many timer intervals pass, and the endpoint stays.
    std::thread::sleep(timer_interval * 10);
    assert_eq!(waiting.channel_status(), 1, "the waiting subscription's endpoint is still ACTIVE");
    assert!(!waiting.is_connected());
    let second_request = request(&waiting);
    wait_until("the second request image", || request_sub.image_count() == 1);
    let response = answer(request_sub.images()[0].correlation_id(), RESPONSE_STREAM + 1);
    wait_until("the second response stream", || waiting.is_connected() && response.is_connected());
    assert_eq!(waiting.images()[0].session_id(), response.session_id());
    drop((response, second_request, waiting, request_sub, aeron));
    media_driver.close().unwrap();
}

fn refused<T: std::fmt::Debug>(result: Result<T, Error>, what: &str, needle: &str) {
    let error = result.expect_err(what);
    assert_eq!(error.aeron_code(), Some(AeronErrorCode::GenericError), "{what}: {error}");
    assert!(error.message().contains(needle), "{what}: {error}");
}

#[test]
fn response_channels_need_experimental_features() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut media_driver = driver(&dir, false);
    let aeron = client(&dir);
    let control = format!("127.0.0.1:{}", free_port());
    let gate = "Response Channels is an experimental feature";
    refused(
        aeron.add_subscription(&format!("aeron:udp?control={control}|control-mode=response"), 1),
        "response subscription",
        gate,
    );
    let sub = aeron.add_subscription(&format!("aeron:udp?control={control}"), 1).unwrap();
    refused(
        aeron.add_publication(
            &format!("aeron:udp?endpoint={control}|response-correlation-id={}", sub.registration_id()),
            1,
        ),
        "request publication",
        gate,
    );
    refused(
        aeron.add_publication(
            &format!("aeron:udp?control={control}|control-mode=response|response-correlation-id=1"),
            1,
        ),
        "response publication",
        gate,
    );
    // IPC knows no control modes: as in Aeron's driver, nothing is gated there.
    let ipc = aeron.add_publication("aeron:ipc?control-mode=response|response-correlation-id=5", 1).unwrap();
    assert!(!aeron.is_closed() && !ipc.is_closed());
    drop((ipc, sub, aeron));
    media_driver.close().unwrap();
}

#[test]
fn invalid_response_channels_are_refused_with_upstreams_reasons() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("aeron");
    let mut media_driver = driver(&dir, true);
    let aeron = client(&dir);
    let (endpoint, control) = (format!("127.0.0.1:{}", free_port()), format!("127.0.0.1:{}", free_port()));
    let response_sub = aeron
        .add_subscription(&format!("aeron:udp?control={control}|control-mode=response"), RESPONSE_STREAM)
        .unwrap();
    refused(
        aeron.add_publication(&format!("aeron:udp?control={control}|control-mode=response"), RESPONSE_STREAM),
        "response publication without a correlation id",
        "control-mode=response was specified, but no response-correlation-id set",
    );
    let unknown = response_sub.registration_id() + 1000;
    refused(
        aeron.add_publication(
            &format!("aeron:udp?control={control}|control-mode=response|response-correlation-id={unknown}"),
            RESPONSE_STREAM,
        ),
        "response publication for no image",
        &format!("image.correlationId={unknown} not found"),
    );
    refused(
        aeron.add_publication(&format!("aeron:udp?endpoint={endpoint}|response-correlation-id={unknown}"), 1),
        "request publication for no subscription",
        &format!("unable to find response subscription for response-correlation-id={unknown}"),
    );
    refused(
        aeron.add_publication(&format!("aeron:udp?endpoint={endpoint}|response-correlation-id=abc"), 1),
        "a correlation id that is no number",
        "response-correlation-id=abc",
    );
    // An image whose publication asked for no response channel cannot be answered.
    let request_sub =
        aeron.add_subscription(&format!("aeron:udp?endpoint={endpoint}"), REQUEST_STREAM).unwrap();
    let plain = aeron.add_publication(&format!("aeron:udp?endpoint={endpoint}"), REQUEST_STREAM).unwrap();
    wait_until("the plain request image", || request_sub.image_count() == 1 && plain.is_connected());
    let image = request_sub.images()[0].correlation_id();
    refused(
        aeron.add_publication(
            &format!("aeron:udp?control={control}|control-mode=response|response-correlation-id={image}"),
            RESPONSE_STREAM,
        ),
        "response publication for a plain image",
        &format!("image.correlationId={image} did not request a response channel"),
    );
    // A response subscription and a plain one may not share a stream on one endpoint, either way.
    refused(
        aeron.add_subscription(&format!("aeron:udp?control={control}"), RESPONSE_STREAM),
        "plain after response",
        &format!(
            "option conflicts with existing subscription: isResponse=false existingChannel=aeron:udp?control={control}|control-mode=response"
        ),
    );
    refused(
        aeron.add_subscription(
            &format!("aeron:udp?endpoint={endpoint}|control-mode=response"),
            REQUEST_STREAM,
        ),
        "response after plain",
        "option conflicts with existing subscription: isResponse=true",
    );
    refused(
        aeron.add_subscription("aeron:udp?control=127.0.0.1:0|control-mode=response", RESPONSE_STREAM),
        "response subscription with an ephemeral control port",
        "control has port=0 for subscription",
    );
    refused(
        aeron.add_publication(&format!("aeron:udp?control={control}"), 1),
        "a control address alone",
        "'control' parameter requires that either 'endpoint' or 'control-mode' is specified",
    );
    let destinations = aeron.add_publication("aeron:udp?control-mode=manual", 1).unwrap();
    let error = destinations
        .add_destination(&format!("aeron:udp?endpoint={endpoint}|control-mode=response"))
        .expect_err("a response destination");
    assert_eq!(error.aeron_code(), Some(AeronErrorCode::InvalidChannel), "{error}");
    assert!(!aeron.is_closed());
    drop((destinations, plain, request_sub, response_sub, aeron));
    media_driver.close().unwrap();
}

/// The Java tests run one at a time: each starts a JVM driver and a JVM peer.
static JAVA_SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

const JAVA_CLIENTS: u32 = 10;
const JAVA_REQUESTS: u32 = 20;
/// Experimental features on (Aeron gates response channels), sparse logs.
const JAVA_DRIVER_OPTIONS: [&str; 2] =
    ["-Daeron.enable.experimental.features=true", "-Daeron.term.buffer.sparse.file=true"];

/// A Java response server on a Java driver answers our clients on our driver.
#[test]
fn interop_with_java_aeron_all_for_response_channels_java_server_our_clients() {
    let _serial = JAVA_SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let Some(classpath) = java_procs::interop_classpath() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (java_dir, ours_dir) = (tmp.path().join("java"), tmp.path().join("ours"));
    let mut java = java_procs::java_driver_with(&classpath, &java_dir, &JAVA_DRIVER_OPTIONS);
    let mut ours = driver(&ours_dir, true);
    let (endpoint, control) = (format!("127.0.0.1:{}", free_port()), format!("127.0.0.1:{}", free_port()));
    let (clients, requests) = (JAVA_CLIENTS.to_string(), JAVA_REQUESTS.to_string());
    let mut server = java_procs::response_peer(
        "java response server",
        &classpath,
        &java_dir,
        &["server", &endpoint, &control, &clients, &requests],
    );
    server.expect_line("READY", Duration::from_secs(60));
    run_clients(client(&ours_dir), (0..JAVA_CLIENTS).collect(), endpoint, control, JAVA_REQUESTS);
    let done = server.expect_line("DONE", BOUND);
    assert_eq!(done, format!("DONE {}", JAVA_CLIENTS * JAVA_REQUESTS));
    drop(server.child.stdin.take());
    server.wait_success(Duration::from_secs(30));
    ours.close().unwrap();
    java.stop();
}

/// Our server on our `aeronmd` (experimental features from its environment, as Aeron's
/// `AERON_ENABLE_EXPERIMENTAL_FEATURES`) answers Java clients on a Java driver.
#[test]
fn interop_with_java_aeron_all_for_response_channels_our_server_java_clients() {
    let _serial = JAVA_SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let Some(classpath) = java_procs::interop_classpath() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (java_dir, ours_dir) = (tmp.path().join("java"), tmp.path().join("ours"));
    let mut java = java_procs::java_driver_with(&classpath, &java_dir, &JAVA_DRIVER_OPTIONS);
    let mut ours = java_procs::aeronmd(
        &ours_dir,
        &[("AERON_ENABLE_EXPERIMENTAL_FEATURES", "true"), ("AERON_TERM_BUFFER_SPARSE_FILE", "true")],
    );
    let (endpoint, control) = (format!("127.0.0.1:{}", free_port()), format!("127.0.0.1:{}", free_port()));
    let stop = Arc::new(AtomicBool::new(false));
    let server = {
        let (aeron, stop) = (client(&ours_dir), Arc::clone(&stop));
        let (request_channel, control) = (format!("aeron:udp?endpoint={endpoint}"), control.clone());
        std::thread::spawn(move || serve(aeron, request_channel, control, stop))
    };
    let (clients, requests) = (JAVA_CLIENTS.to_string(), JAVA_REQUESTS.to_string());
    let mut java_clients = java_procs::response_peer(
        "java response clients",
        &classpath,
        &java_dir,
        &["client", &endpoint, &control, "0", &clients, &requests],
    );
    java_clients.expect_line("CONNECTED", BOUND);
    let done = java_clients.expect_line("DONE", BOUND);
    assert_eq!(done, format!("DONE {}", JAVA_CLIENTS * JAVA_REQUESTS));
    java_clients.wait_success(Duration::from_secs(30));
    stop.store(true, Ordering::Release);
    let answered = server.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
    assert_eq!(answered, JAVA_CLIENTS as usize, "one response publication per Java client");
    ours.stop();
    java.stop();
}
