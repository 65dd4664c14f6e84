//! The control-protocol codec against records real Aeron 1.48 wrote into `cnc.dat`
//! (`../shared/vectors`, README §4 and §12): every response still in the to-clients
//! broadcast buffer decodes to what the README lists and re-encodes to the same bytes. The
//! to-driver ring buffer has been consumed and zeroed by the driver, so no command record
//! survives there; its tail instead pins the total size of the commands the sample clients
//! sent, which our encoder must reproduce.
mod common;

use aeronrs::command::control_protocol_events as events;
use aeronrs::command::*;
use aeronrs::util::error::AeronErrorCode;

// cnc.dat layout (spec/cnc.md §2-3), ring buffer (ring-buffers.md §1), broadcast (broadcast.md
// §1-2). Test-local on purpose: the cnc, ring-buffer and broadcast modules are written in
// parallel and this test must not depend on them.
const CNC_TO_DRIVER_LENGTH_OFFSET: usize = 4;
const CNC_TO_CLIENTS_LENGTH_OFFSET: usize = 8;
const CNC_HEADER_LENGTH: usize = 128;
const RB_TRAILER_LENGTH: usize = 768;
const RB_TAIL_OFFSET: usize = 128;
const RB_HEAD_OFFSET: usize = 384;
const RB_CORRELATION_COUNTER_OFFSET: usize = 512;
const BROADCAST_TRAILER_LENGTH: usize = 128;
const BROADCAST_TAIL_INTENT_OFFSET: usize = 0;
const BROADCAST_TAIL_OFFSET: usize = 8;
const BROADCAST_LATEST_OFFSET: usize = 16;
const RECORD_HEADER_LENGTH: usize = 8;
const RECORD_ALIGNMENT: usize = 8;
const PADDING_MSG_TYPE_ID: i32 = -1;

fn i32_at(bytes: &[u8], offset: usize) -> i32 {
    i32::from_le_bytes(bytes[offset..offset + 4].try_into().unwrap())
}

fn i64_at(bytes: &[u8], offset: usize) -> i64 {
    i64::from_le_bytes(bytes[offset..offset + 8].try_into().unwrap())
}

fn align(value: usize, alignment: usize) -> usize {
    (value + alignment - 1) & !(alignment - 1)
}

struct Record<'a> {
    offset: usize,
    length: usize,
    type_id: i32,
    body: &'a [u8],
}

/// The to-clients records from offset 0 up to the tail (no wrap: the tails are far below
/// the 1 MiB capacity).
fn broadcast_records(cnc: &[u8]) -> (Vec<Record<'_>>, [i64; 3]) {
    let to_driver_length = i32_at(cnc, CNC_TO_DRIVER_LENGTH_OFFSET) as usize;
    let to_clients_length = i32_at(cnc, CNC_TO_CLIENTS_LENGTH_OFFSET) as usize;
    let start = CNC_HEADER_LENGTH + to_driver_length;
    let capacity = to_clients_length - BROADCAST_TRAILER_LENGTH;
    let buffer = &cnc[start..start + to_clients_length];
    let trailer = [
        i64_at(buffer, capacity + BROADCAST_TAIL_INTENT_OFFSET),
        i64_at(buffer, capacity + BROADCAST_TAIL_OFFSET),
        i64_at(buffer, capacity + BROADCAST_LATEST_OFFSET),
    ];
    let tail = trailer[1] as usize;
    assert!(tail < capacity);
    let mut records = Vec::new();
    let mut offset = 0;
    while offset < tail {
        let length = i32_at(buffer, offset) as usize;
        let type_id = i32_at(buffer, offset + 4);
        assert!(length >= RECORD_HEADER_LENGTH, "record @{offset} length {length}");
        if type_id != PADDING_MSG_TYPE_ID {
            let body = &buffer[offset + RECORD_HEADER_LENGTH..offset + length];
            records.push(Record { offset, length, type_id, body });
        }
        offset += align(length, RECORD_ALIGNMENT);
    }
    assert_eq!(offset, tail);
    (records, trailer)
}

/// Asserts that re-encoding `response` gives `record`'s bytes, except in the `ignored` range.
fn assert_reencodes(response: &Response<'_>, record: &Record<'_>, ignored: Option<std::ops::Range<usize>>) {
    let mut encoded = vec![0u8; response.encoded_length()];
    response.encode(&mut encoded).unwrap();
    assert_eq!(encoded.len(), record.body.len(), "@{}", record.offset);
    for (i, (ours, theirs)) in encoded.iter().zip(record.body).enumerate() {
        if ignored.as_ref().is_some_and(|r| r.contains(&i)) {
            assert_eq!(*ours, 0, "our padding is zero");
        } else {
            assert_eq!(ours, theirs, "record @{} byte {i}", record.offset);
        }
    }
}

/// The to-driver ring buffer: `(tail, head, correlation counter)`, after checking that the
/// data region below the tail reads as zero (the driver zeroes what it consumed).
fn consumed_to_driver_buffer(cnc: &[u8]) -> (i64, i64, i64) {
    let to_driver_length = i32_at(cnc, CNC_TO_DRIVER_LENGTH_OFFSET) as usize;
    let capacity = to_driver_length - RB_TRAILER_LENGTH;
    let buffer = &cnc[CNC_HEADER_LENGTH..CNC_HEADER_LENGTH + to_driver_length];
    let tail = i64_at(buffer, capacity + RB_TAIL_OFFSET);
    let head = i64_at(buffer, capacity + RB_HEAD_OFFSET);
    let correlation_counter = i64_at(buffer, capacity + RB_CORRELATION_COUNTER_OFFSET);
    assert!(buffer[..capacity].iter().all(|&b| b == 0), "consumed command records are zeroed");
    (tail, head, correlation_counter)
}

/// Space the given commands take in the ring buffer: header + body, aligned to 8 each.
fn ring_buffer_space(commands: &[Command<'_>]) -> i64 {
    commands.iter().map(|c| align(RECORD_HEADER_LENGTH + c.encoded_length(), RECORD_ALIGNMENT) as i64).sum()
}

#[test]
fn cnc_with_clients_broadcast_responses_decode_and_reencode() {
    let Some(cnc) = common::read_vector("cnc-with-clients.dat.gz") else { return };
    let (records, [tail_intent, tail, latest]) = broadcast_records(&cnc);
    assert_eq!((tail_intent, tail, latest), (544, 544, 440));
    assert_eq!(records.len(), 10);
    let offsets: Vec<usize> = records.iter().map(|r| r.offset).collect();
    assert_eq!(offsets, [0, 24, 48, 72, 96, 120, 216, 320, 344, 440]);
    let lengths: Vec<usize> = records.iter().map(|r| r.length).collect();
    assert_eq!(lengths, [20, 20, 20, 20, 20, 89, 101, 20, 89, 99]);

    let decoded: Vec<Response<'_>> =
        records.iter().map(|r| Response::decode(r.type_id, r.body).unwrap()).collect();
    let counter_ready =
        |correlation_id, counter_id| Response::CounterReady(CounterUpdate { correlation_id, counter_id });
    let subscription_ready = |correlation_id, channel_status_indicator_id| {
        Response::SubscriptionReady(SubscriptionReady { correlation_id, channel_status_indicator_id })
    };
    let expected = [
        counter_ready(1, 40),
        subscription_ready(2, -1),
        counter_ready(3, 43),
        subscription_ready(4, 41),
        counter_ready(5, 44),
        Response::PublicationReady(PublicationBuffersReady {
            correlation_id: 6,
            registration_id: 6,
            session_id: 1698638129,
            stream_id: 1001,
            position_limit_counter_id: 46,
            channel_status_indicator_id: -1,
            log_file_name: b"/dev/shm/vec-clients/publications/6.logbuffer",
        }),
        Response::AvailableImage(ImageBuffersReady {
            correlation_id: 6,
            session_id: 1698638129,
            stream_id: 1001,
            subscription_registration_id: 2,
            subscriber_position_id: 47,
            log_file_name: b"/dev/shm/vec-clients/publications/6.logbuffer",
            source_identity: b"aeron:ipc",
        }),
        counter_ready(7, 48),
        Response::PublicationReady(PublicationBuffersReady {
            correlation_id: 8,
            registration_id: 8,
            session_id: 1698638130,
            stream_id: 1002,
            position_limit_counter_id: 52,
            channel_status_indicator_id: 49,
            log_file_name: b"/dev/shm/vec-clients/publications/8.logbuffer",
        }),
        Response::AvailableImage(ImageBuffersReady {
            correlation_id: 9,
            session_id: 1698638130,
            stream_id: 1002,
            subscription_registration_id: 4,
            subscriber_position_id: 58,
            log_file_name: b"/dev/shm/vec-clients/images/9.logbuffer",
            source_identity: b"127.0.0.1:44625",
        }),
    ];
    assert_eq!(decoded, expected);
    let type_ids: Vec<i32> = records.iter().map(|r| r.type_id).collect();
    assert_eq!(type_ids, decoded.iter().map(Response::type_id).collect::<Vec<_>>());

    for (response, record) in decoded.iter().zip(&records) {
        // Aeron's C driver does not clear the alignment padding after an image's log file
        // name (the vector holds stack bytes there), so those bytes are not compared.
        let ignored = match response {
            Response::AvailableImage(image) => {
                let end = 32 + image.log_file_name.len();
                Some(end..align(end, 4))
            }
            _ => None,
        };
        assert_reencodes(response, record, ignored);
    }
}

#[test]
fn cnc_with_clients_to_driver_buffer_is_consumed_and_matches_our_command_sizes() {
    let Some(cnc) = common::read_vector("cnc-with-clients.dat.gz") else { return };
    let (tail, head, correlation_counter) = consumed_to_driver_buffer(&cnc);
    assert_eq!((tail, head, correlation_counter), (256, 256, 10));
    // README §4: the only commands were two ADD_SUBSCRIPTIONs and two ADD_PUBLICATIONs
    // (1.48 C clients send no keepalive or close). Their records must fill exactly 256 bytes.
    let ipc = b"aeron:ipc";
    let udp = b"aeron:udp?endpoint=127.0.0.1:20121";
    let subscription = |client_id, correlation_id, stream_id, channel| {
        Command::AddSubscription(SubscriptionMessage {
            correlated: CorrelatedMessage::new(client_id, correlation_id),
            registration_correlation_id: 0,
            stream_id,
            channel,
        })
    };
    let publication = |client_id, correlation_id, stream_id, channel| {
        Command::AddPublication(PublicationMessage {
            correlated: CorrelatedMessage::new(client_id, correlation_id),
            stream_id,
            channel,
        })
    };
    let commands = [
        subscription(1, 2, 1001, &ipc[..]),
        subscription(3, 4, 1002, &udp[..]),
        publication(5, 6, 1001, &ipc[..]),
        publication(7, 8, 1002, &udp[..]),
    ];
    assert_eq!(ring_buffer_space(&commands), tail);
}

#[test]
fn cnc_with_errors_broadcast_holds_four_on_errors() {
    let Some(cnc) = common::read_vector("cnc-with-errors.dat.gz") else { return };
    let (records, [tail_intent, tail, latest]) = broadcast_records(&cnc);
    assert_eq!((tail_intent, tail, latest), (1584, 1584, 1248));
    assert_eq!(records.len(), 4);
    let expected = [(0, 476, 2), (480, 286, 4), (768, 476, 6), (1248, 332, 8)];
    for (record, (offset, length, correlation_id)) in records.iter().zip(expected) {
        assert_eq!((record.offset, record.length, record.type_id), (offset, length, events::ON_ERROR));
        let response = Response::decode(record.type_id, record.body).unwrap();
        let Response::Error(error) = response else { panic!("@{offset}: {response:?}") };
        assert_eq!(error.offending_command_correlation_id, correlation_id);
        assert_eq!(error.error_code(), Some(AeronErrorCode::GenericError));
        assert_eq!(error.error_code_value, 11);
        assert_eq!(error.error_message.len(), length - 8 - 16);
        let text = error.error_message_lossy();
        assert!(text.starts_with("(22) Invalid argument\n["), "{text}");
        assert!(text.ends_with('\n'));
        assert_reencodes(&response, record, None);
    }
    // Records 0 and 2 come from the same bad channel: identical bodies apart from the id.
    assert_eq!(records[0].body[8..], records[2].body[8..]);
}

#[test]
fn cnc_with_errors_to_driver_buffer_is_consumed_and_matches_our_command_sizes() {
    let Some(cnc) = common::read_vector("cnc-with-errors.dat.gz") else { return };
    let (tail, head, correlation_counter) = consumed_to_driver_buffer(&cnc);
    assert_eq!((tail, head, correlation_counter), (272, 272, 9));
    // README §12: four ADD_PUBLICATIONs on stream 1001, client ids 1, 3, 5, 7.
    let channels: [&[u8]; 4] = [
        b"aeron:udp?endpoint=bad:xx",
        b"aeron:ipc?term-length=1000",
        b"aeron:udp?endpoint=bad:xx",
        b"aeron:udp?endpoint=127.0.0.1:20121|mtu=1000",
    ];
    let commands: Vec<Command<'_>> = channels
        .iter()
        .enumerate()
        .map(|(i, channel)| {
            let client_id = 1 + 2 * i as i64;
            Command::AddPublication(PublicationMessage {
                correlated: CorrelatedMessage::new(client_id, client_id + 1),
                stream_id: 1001,
                channel,
            })
        })
        .collect();
    assert_eq!(ring_buffer_space(&commands), tail);
}
