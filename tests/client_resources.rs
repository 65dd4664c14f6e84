//! Client resources against each media driver (real Java Aeron, and our `aeronmd`): async adds and their errors,
//! counters and their handlers, image handlers, NOT_CONNECTED, try_claim commit/abort,
//! exclusive publications across term rotations.
mod client_support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use aeronrs::client::{
    ADMIN_ACTION, Aeron, BACK_PRESSURED, CLOSED, ControlledPollAction, ExclusivePublication, Header,
    NOT_CONNECTED, Publication, Subscription,
};
use aeronrs::util::error::AeronErrorCode;
use client_support::{ErrorLog, TestDriver, context, driver_tests, wait_until};

const WAIT: Duration = Duration::from_secs(20);

/// Offers until the publication accepts, failing on CLOSED/MAX_POSITION_EXCEEDED.
fn offer(publication: &Publication, message: &[u8]) -> i64 {
    loop {
        let result = publication.offer(message).expect("offer");
        if result > 0 {
            return result;
        }
        assert!(
            result == BACK_PRESSURED || result == ADMIN_ACTION || result == NOT_CONNECTED,
            "offer: {result}"
        );
        std::thread::yield_now();
    }
}

fn offer_exclusive(publication: &mut ExclusivePublication, message: &[u8]) -> i64 {
    loop {
        let result = publication.offer(message).expect("offer");
        if result > 0 {
            return result;
        }
        assert!(
            result == BACK_PRESSURED || result == ADMIN_ACTION || result == NOT_CONNECTED,
            "offer: {result}"
        );
        std::thread::yield_now();
    }
}

/// Polls until `count` messages arrived, returning them.
fn receive(subscription: &mut Subscription, count: usize) -> Vec<Vec<u8>> {
    let mut received = Vec::new();
    wait_until(WAIT, "messages", || {
        subscription.poll(|payload: &[u8], _: &Header| received.push(payload.to_vec()), 100);
        received.len() >= count
    });
    received
}

fn no_subscriber_is_not_connected_then_messages_flow(driver: &mut TestDriver) {
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
    let channel = "aeron:ipc?term-length=64k";
    let publication = aeron.add_publication(channel, 1).expect("publication");
    assert!(!publication.is_connected());
    assert_eq!(publication.offer(b"lost").unwrap(), NOT_CONNECTED);
    assert_eq!(publication.position(), 0);
    assert_eq!(publication.max_payload_length(), 1408 - 32);
    assert_eq!(publication.max_message_length(), 65536 / 8);
    let too_long = vec![0u8; 65536 / 8 + 1];
    let err = publication.offer(&too_long).unwrap_err();
    assert_eq!(err.code(), libc::EINVAL);
    assert!(err.message().contains("exceeds max message length 8192"), "{err}");

    let mut subscription = aeron.add_subscription(channel, 1).expect("subscription");
    wait_until(WAIT, "connected", || publication.is_connected() && subscription.image_count() == 1);
    let image = subscription.image_by_session_id(publication.session_id()).expect("image");
    assert_eq!(image.source_identity(), "aeron:ipc");
    assert_eq!(image.term_buffer_length(), 65536);
    let position = offer(&publication, b"hello");
    assert_eq!(position, 64, "32-byte header + 5 bytes, aligned to 32");
    assert_eq!(receive(&mut subscription, 1), vec![b"hello".to_vec()]);
    assert_eq!(image.position(), 64);
    assert!(log.errors().is_empty(), "{:?}", log.errors());
}

fn try_claim_commit_and_abort(driver: &mut TestDriver) {
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
    let channel = "aeron:ipc?term-length=64k";
    let mut subscription = aeron.add_subscription(channel, 2).expect("subscription");
    let publication = aeron.add_publication(channel, 2).expect("publication");
    wait_until(WAIT, "connected", || publication.is_connected());

    let err = publication.try_claim(publication.max_payload_length() + 1).unwrap_err();
    assert!(err.message().contains("exceeds max payload length"), "{err}");

    let claim_and = |commit: bool, text: &[u8]| loop {
        let (position, claim) = publication.try_claim(text.len()).unwrap();
        if let Some(mut claim) = claim {
            claim.buffer().copy_from_slice(text);
            if commit {
                claim.commit()
            } else {
                claim.abort()
            }
            return position;
        }
        assert!(position == BACK_PRESSURED || position == ADMIN_ACTION, "try_claim: {position}");
    };
    assert_eq!(claim_and(true, b"first"), 64);
    assert_eq!(claim_and(false, b"aborted"), 128);
    assert_eq!(claim_and(true, b"third"), 192);
    let received = receive(&mut subscription, 2);
    assert_eq!(received, vec![b"first".to_vec(), b"third".to_vec()]);
    // The aborted frame became padding: the subscriber moved past all three.
    wait_until(WAIT, "subscriber position", || subscription.images()[0].position() == 192);
    assert!(log.errors().is_empty(), "{:?}", log.errors());
}

fn exclusive_publication_crosses_terms_in_order(driver: &mut TestDriver) {
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
    let channel = "aeron:ipc?term-length=64k";
    let mut subscription = aeron.add_subscription(channel, 3).expect("subscription");
    let mut publication = aeron.add_exclusive_publication(channel, 3).expect("exclusive publication");
    wait_until(WAIT, "connected", || publication.is_connected());
    // 992-byte messages take 1024 bytes with their header: 2000 of them span 31+ terms.
    let count = 2000u32;
    let mut received = Vec::new();
    let mut message = vec![0u8; 992];
    for i in 0..count {
        message[..4].copy_from_slice(&i.to_le_bytes());
        loop {
            let result = publication.offer(&message).expect("offer");
            if result > 0 {
                break;
            }
            assert!(result == BACK_PRESSURED || result == ADMIN_ACTION, "offer: {result}");
            subscription.poll(
                |p: &[u8], _: &Header| received.push(u32::from_le_bytes(p[..4].try_into().unwrap())),
                64,
            );
        }
    }
    wait_until(WAIT, "all messages", || {
        subscription
            .poll(|p: &[u8], _: &Header| received.push(u32::from_le_bytes(p[..4].try_into().unwrap())), 64);
        received.len() == count as usize
    });
    assert_eq!(received, (0..count).collect::<Vec<_>>());
    // 64 messages fill a 64 KiB term exactly, so no padding was needed anywhere.
    assert_eq!(publication.position(), i64::from(count) * 1024);
    assert_eq!(publication.term_id() - publication.initial_term_id(), (count / 64) as i32);
    assert_eq!(offer_exclusive(&mut publication, b"x"), i64::from(count) * 1024 + 64);
    assert!(log.errors().is_empty(), "{:?}", log.errors());
}

fn bad_channel_is_an_invalid_channel_error(driver: &mut TestDriver) {
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
    // A parameter without '=' is malformed for every driver.
    let err = aeron.add_publication("aeron:ipc?foo", 4).unwrap_err();
    assert_eq!(err.aeron_code(), Some(AeronErrorCode::InvalidChannel), "{err}");
    let err = aeron.add_subscription("aeron:ipc?foo", 4).unwrap_err();
    assert_eq!(err.aeron_code(), Some(AeronErrorCode::InvalidChannel), "{err}");
    assert_eq!(err.code(), -1, "aeron_errcode() is minus the ON_ERROR code");
    let mut pending = aeron.async_add_publication("aeron:ipc", 4).unwrap();
    let publication = loop {
        if let Some(p) = pending.poll().unwrap() {
            break p;
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    assert_eq!(publication.registration_id(), pending.registration_id());
    assert!(pending.poll().is_err(), "a completed registration cannot be polled again");
    publication.close();
    assert!(publication.is_closed());
    assert_eq!(publication.offer(b"x").unwrap(), CLOSED);
}

fn counters_and_image_handlers(driver: &mut TestDriver) {
    let log = ErrorLog::default();
    let events = Arc::new(Mutex::new(Vec::<String>::new()));
    let mut ctx = context(driver.aeron_dir(), &log);
    let sink = Arc::clone(&events);
    ctx.set_on_available_counter(move |registration_id, counter_id| {
        sink.lock().unwrap().push(format!("available {registration_id} {counter_id}"))
    });
    let sink = Arc::clone(&events);
    ctx.set_on_unavailable_counter(move |registration_id, counter_id| {
        sink.lock().unwrap().push(format!("unavailable {registration_id} {counter_id}"))
    });
    let aeron = Aeron::connect(ctx).expect("connect");

    let counter = aeron.add_counter(1001, b"key bytes", "test counter").expect("counter");
    let (registration_id, counter_id) = (counter.registration_id(), counter.counter_id());
    assert!(counter_id >= 0);
    let counters = aeron.counters_reader();
    assert_eq!(counters.counter_type_id(counter_id).unwrap(), 1001);
    assert_eq!(counters.counter_label(counter_id).unwrap(), "test counter");
    assert_eq!(&counters.counter_key(counter_id).unwrap()[..9], b"key bytes");
    assert_eq!(counters.counter_registration_id(counter_id).unwrap(), registration_id);
    assert_eq!(counters.counter_owner_id(counter_id).unwrap(), aeron.client_id());
    assert_eq!(counter.get(), 0);
    counter.set(41);
    assert_eq!(counter.increment(), 41);
    assert_eq!(counter.get(), 42);
    assert!(counter.compare_and_set(42, 7));
    assert_eq!(counters.counter_value(counter_id).unwrap(), 7);
    let available = format!("available {registration_id} {counter_id}");
    wait_until(WAIT, "available counter handler", || events.lock().unwrap().contains(&available));
    counter.close();
    assert!(counter.is_closed());
    let unavailable = format!("unavailable {registration_id} {counter_id}");
    wait_until(WAIT, "unavailable counter handler", || events.lock().unwrap().contains(&unavailable));
    let err = aeron.add_counter(1001, &[0u8; 113], "key too long").unwrap_err();
    assert_eq!(err.code(), libc::EINVAL);

    let images = Arc::new(Mutex::new(Vec::<String>::new()));
    let (on_available, on_unavailable) = (Arc::clone(&images), Arc::clone(&images));
    let channel = "aeron:ipc?term-length=64k";
    let subscription = aeron
        .add_subscription_with_handlers(
            channel,
            5,
            move |image| on_available.lock().unwrap().push(format!("+{}", image.session_id())),
            move |image| on_unavailable.lock().unwrap().push(format!("-{}", image.session_id())),
        )
        .expect("subscription");
    let publication = aeron.add_publication(channel, 5).expect("publication");
    let session = publication.session_id();
    wait_until(WAIT, "available image handler", || images.lock().unwrap().contains(&format!("+{session}")));
    let image = subscription.image_by_session_id(session).expect("image");
    drop(publication);
    wait_until(WAIT, "unavailable image handler", || images.lock().unwrap().contains(&format!("-{session}")));
    assert!(image.is_closed());
    assert!(image.is_end_of_stream());
    assert_eq!(subscription.image_count(), 0);
    assert!(log.errors().is_empty(), "{:?}", log.errors());
}

fn vectored_offer_reserved_value_and_poll_variants(driver: &mut TestDriver) {
    let log = ErrorLog::default();
    let aeron = Aeron::connect(context(driver.aeron_dir(), &log)).expect("connect");
    let channel = "aeron:ipc?term-length=64k";
    let mut subscription = aeron.add_subscription(channel, 6).expect("subscription");
    let publication = aeron.add_publication(channel, 6).expect("publication");
    wait_until(WAIT, "connected", || publication.is_connected());

    // offerv joins the parts; the supplier sees the whole frame (header included).
    let mut frame_lengths = Vec::new();
    let mut supplier = |frame: &[u8]| {
        frame_lengths.push(frame.len());
        0x1122_3344_5566_7788
    };
    let position = loop {
        let r = publication.offer_with_reserved_value(&[b"abc", b"", b"defg"], &mut supplier).unwrap();
        if r > 0 {
            break r;
        }
    };
    assert_eq!(position, 64);
    assert_eq!(frame_lengths, vec![32 + 7]);
    assert!(publication.offerv(&[b"second", b"-part"]).unwrap() > 0);
    for i in 0u8..3 {
        offer(&publication, &[i; 40]);
    }

    // Controlled poll: ABORT leaves a fragment for next time, BREAK stops after one.
    let mut seen = Vec::new();
    wait_until(WAIT, "first fragment", || {
        subscription.controlled_poll(
            |payload: &[u8], header: &Header| {
                seen.push((payload.to_vec(), header.reserved_value()));
                ControlledPollAction::Break
            },
            10,
        ) == 1
    });
    assert_eq!(seen, vec![(b"abcdefg".to_vec(), 0x1122_3344_5566_7788)]);
    let mut aborted = 0;
    let fragments = subscription.controlled_poll(
        |_: &[u8], _: &Header| {
            aborted += 1;
            ControlledPollAction::Abort
        },
        10,
    );
    assert_eq!((fragments, aborted), (0, 1));
    let mut next = Vec::new();
    subscription.controlled_poll(
        |payload: &[u8], _: &Header| {
            next.push(payload.to_vec());
            ControlledPollAction::Commit
        },
        1,
    );
    assert_eq!(next, vec![b"second-part".to_vec()]);
    let image = subscription.image_by_session_id(publication.session_id()).unwrap();
    assert_eq!(image.position(), 128);

    // Block poll hands over the three 72-byte frames (40 + 32, padded to 96) at once.
    let mut blocks = Vec::new();
    let bytes = subscription.block_poll(
        |block: &[u8], session_id, term_id| blocks.push((block.len(), session_id, term_id)),
        4096,
    );
    assert_eq!(bytes, 3 * 96);
    assert_eq!(blocks, vec![(3 * 96, publication.session_id(), publication.initial_term_id())]);
    assert_eq!(image.position(), 128 + 3 * 96);

    // set_position: only frame-aligned positions within the current term.
    assert!(image.set_position(image.position() + 1).is_err());
    assert!(image.set_position(1 << 20).is_err());
    image.set_position(128).unwrap();
    let mut again = 0;
    subscription.poll(|_: &[u8], _: &Header| again += 1, 10);
    assert_eq!(again, 3, "the three frames are read again after rewinding");
    assert!(!image.is_end_of_stream());
    assert!(log.errors().is_empty(), "{:?}", log.errors());
}

fn a_panicking_handler_is_reported_not_fatal(driver: &mut TestDriver) {
    let log = ErrorLog::default();
    let mut ctx = context(driver.aeron_dir(), &log);
    ctx.set_on_available_counter(|_, _| panic!("handler bug"));
    let aeron = Aeron::connect(ctx).expect("connect");
    let _counter = aeron.add_counter(1002, &[], "c").expect("counter");
    wait_until(WAIT, "panic reported", || log.errors().iter().any(|e| e.message().contains("handler bug")));
    // The conductor goes on: more commands still complete.
    let _publication = aeron.add_publication("aeron:ipc", 9).expect("publication after the panic");
    assert!(!aeron.is_closed());
}

driver_tests!(
    no_subscriber_is_not_connected_then_messages_flow,
    try_claim_commit_and_abort,
    exclusive_publication_crosses_terms_in_order,
    bad_channel_is_an_invalid_channel_error,
    counters_and_image_handlers,
    vectored_offer_reserved_value_and_poll_variants,
    a_panicking_handler_is_reported_not_fatal,
);
