//! Property tests of the control protocol codec: every command and response survives an
//! encode → decode round trip, every truncation and negative length is a MALFORMED_COMMAND
//! error, and arbitrary (type id, bytes) never panic.

use aeronrs::command::control_protocol_events as events;
use aeronrs::command::*;
use aeronrs::concurrent::AtomicBuffer;
use aeronrs::util::error::AeronErrorCode;
use proptest::prelude::*;

/// Raw material for one message of any kind; messages borrow their strings from it.
#[derive(Debug, Clone)]
struct Fields {
    ids: [i64; 4],
    ints: [i32; 3],
    first: Vec<u8>,
    second: Vec<u8>,
    address_type: i16,
    port: u16,
    address: [u8; 16],
}

fn fields() -> impl Strategy<Value = Fields> {
    (
        any::<[i64; 4]>(),
        any::<[i32; 3]>(),
        proptest::collection::vec(any::<u8>(), 0..70),
        proptest::collection::vec(any::<u8>(), 0..70),
        any::<i16>(),
        any::<u16>(),
        any::<[u8; 16]>(),
    )
        .prop_map(|(ids, ints, first, second, address_type, port, address)| Fields {
            ids,
            ints,
            first,
            second,
            address_type,
            port,
            address,
        })
}

const COMMAND_KINDS: usize = 17;
const RESPONSE_KINDS: usize = 12;

fn command_of(kind: usize, f: &Fields) -> Command<'_> {
    let correlated = CorrelatedMessage::new(f.ids[0], f.ids[1]);
    let publication = PublicationMessage { correlated, stream_id: f.ints[0], channel: &f.first };
    let remove = RemoveMessage { correlated, registration_id: f.ids[2] };
    let destination = DestinationMessage { correlated, registration_id: f.ids[2], channel: &f.first };
    match kind {
        0 => Command::AddPublication(publication),
        1 => Command::RemovePublication(remove),
        2 => Command::AddExclusivePublication(publication),
        3 => Command::AddSubscription(SubscriptionMessage {
            correlated,
            registration_correlation_id: f.ids[2],
            stream_id: f.ints[0],
            channel: &f.first,
        }),
        4 => Command::RemoveSubscription(remove),
        5 => Command::ClientKeepalive(correlated),
        6 => Command::AddDestination(destination),
        7 => Command::RemoveDestination(destination),
        8 => Command::AddCounter(CounterMessage {
            correlated,
            type_id: f.ints[0],
            key: &f.first,
            label: &f.second,
        }),
        9 => Command::RemoveCounter(remove),
        10 => Command::ClientClose(correlated),
        11 => Command::AddRcvDestination(destination),
        12 => Command::RemoveRcvDestination(destination),
        13 => Command::TerminateDriver(TerminateDriverMessage { correlated, token: &f.first }),
        14 => Command::AddStaticCounter(StaticCounterMessage {
            correlated,
            registration_id: f.ids[2],
            type_id: f.ints[0],
            key: &f.first,
            label: &f.second,
        }),
        15 => Command::RejectImage(RejectImageMessage {
            correlated,
            image_correlation_id: f.ids[2],
            position: f.ids[3],
            reason: &f.first,
        }),
        _ => Command::RemoveDestinationById(DestinationByIdMessage {
            correlated,
            resource_registration_id: f.ids[2],
            destination_registration_id: f.ids[3],
        }),
    }
}

fn response_of(kind: usize, f: &Fields) -> Response<'_> {
    let ready = PublicationBuffersReady {
        correlation_id: f.ids[0],
        registration_id: f.ids[1],
        session_id: f.ints[0],
        stream_id: f.ints[1],
        position_limit_counter_id: f.ints[2],
        channel_status_indicator_id: f.ints[0] ^ 1,
        log_file_name: &f.first,
    };
    let update = CounterUpdate { correlation_id: f.ids[0], counter_id: f.ints[0] };
    match kind {
        0 => Response::Error(ErrorResponse {
            offending_command_correlation_id: f.ids[0],
            error_code_value: f.ints[0],
            error_message: &f.first,
        }),
        1 => Response::AvailableImage(ImageBuffersReady {
            correlation_id: f.ids[0],
            session_id: f.ints[0],
            stream_id: f.ints[1],
            subscription_registration_id: f.ids[1],
            subscriber_position_id: f.ints[2],
            log_file_name: &f.first,
            source_identity: &f.second,
        }),
        2 => Response::PublicationReady(ready),
        3 => Response::OperationSuccess(OperationSucceeded { correlation_id: f.ids[0] }),
        4 => Response::UnavailableImage(ImageMessage {
            correlation_id: f.ids[0],
            subscription_registration_id: f.ids[1],
            stream_id: f.ints[0],
            channel: &f.first,
        }),
        5 => Response::ExclusivePublicationReady(ready),
        6 => Response::SubscriptionReady(SubscriptionReady {
            correlation_id: f.ids[0],
            channel_status_indicator_id: f.ints[0],
        }),
        7 => Response::CounterReady(update),
        8 => Response::UnavailableCounter(update),
        9 => Response::ClientTimeout(ClientTimeout { client_id: f.ids[0] }),
        10 => Response::StaticCounter(update),
        _ => Response::PublicationError(PublicationError {
            registration_id: f.ids[0],
            destination_registration_id: f.ids[1],
            session_id: f.ints[0],
            stream_id: f.ints[1],
            receiver_id: f.ids[2],
            group_tag: f.ids[3],
            address_type: f.address_type,
            source_port: f.port,
            source_address: f.address,
            error_code_value: f.ints[2],
            error_message: &f.first,
        }),
    }
}

/// Bytes a decoder needs: all of the encoding except the reject-image trailer the encoder
/// adds for Aeron's C driver.
fn command_content_length(command: &Command<'_>) -> usize {
    match command {
        Command::RejectImage(_) => command.encoded_length() - reject_image::REASON_TRAILER_LENGTH,
        _ => command.encoded_length(),
    }
}

/// Offset of the first string's int32 length prefix, for messages that have one.
fn command_first_length_offset(command: &Command<'_>) -> Option<usize> {
    Some(match command {
        Command::AddPublication(_) | Command::AddExclusivePublication(_) => 20,
        Command::AddSubscription(_) => 28,
        Command::AddDestination(_)
        | Command::RemoveDestination(_)
        | Command::AddRcvDestination(_)
        | Command::RemoveRcvDestination(_) => 24,
        Command::AddCounter(_) => 20,
        Command::AddStaticCounter(_) => 28,
        Command::TerminateDriver(_) => 16,
        Command::RejectImage(_) => 32,
        _ => return None,
    })
}

fn response_first_length_offset(response: &Response<'_>) -> Option<usize> {
    Some(match response {
        Response::Error(_) => 12,
        Response::AvailableImage(_) => 28,
        Response::PublicationReady(_) | Response::ExclusivePublicationReady(_) => 32,
        Response::UnavailableImage(_) => 20,
        Response::PublicationError(_) => 64,
        _ => return None,
    })
}

fn encode_command(command: &Command<'_>, trailing: usize) -> Vec<u8> {
    let mut bytes = vec![0xA5; command.encoded_length() + trailing];
    assert_eq!(command.encode(&mut bytes).unwrap(), command.encoded_length());
    bytes
}

fn encode_response(response: &Response<'_>, trailing: usize) -> Vec<u8> {
    let mut bytes = vec![0xA5; response.encoded_length() + trailing];
    assert_eq!(response.encode(&mut bytes).unwrap(), response.encoded_length());
    bytes
}

fn assert_malformed(err: &aeronrs::Error) {
    assert_eq!(err.aeron_code(), Some(AeronErrorCode::MalformedCommand), "{err}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn command_round_trips(kind in 0..COMMAND_KINDS, f in fields(), trailing in 0usize..16) {
        let command = command_of(kind, &f);
        let bytes = encode_command(&command, trailing);
        prop_assert_eq!(Command::decode(command.type_id(), &bytes).unwrap(), command);
        prop_assert_eq!(Command::decode(command.type_id(), &bytes).unwrap().correlated(),
            CorrelatedMessage::new(f.ids[0], f.ids[1]));
    }

    #[test]
    fn response_round_trips(kind in 0..RESPONSE_KINDS, f in fields(), trailing in 0usize..16) {
        let response = response_of(kind, &f);
        let bytes = encode_response(&response, trailing);
        prop_assert_eq!(Response::decode(response.type_id(), &bytes).unwrap(), response);
    }

    #[test]
    fn command_truncations_are_malformed(kind in 0..COMMAND_KINDS, f in fields()) {
        let command = command_of(kind, &f);
        let bytes = encode_command(&command, 0);
        let content = command_content_length(&command);
        for n in 0..bytes.len() {
            match Command::decode(command.type_id(), &bytes[..n]) {
                Ok(decoded) => {
                    prop_assert!(n >= content, "prefix {} of {} decoded", n, content);
                    prop_assert_eq!(decoded, command);
                }
                Err(err) => {
                    prop_assert!(n < content);
                    assert_malformed(&err);
                }
            }
        }
    }

    #[test]
    fn response_truncations_are_malformed(kind in 0..RESPONSE_KINDS, f in fields()) {
        let response = response_of(kind, &f);
        let bytes = encode_response(&response, 0);
        for n in 0..bytes.len() {
            let err = Response::decode(response.type_id(), &bytes[..n]).unwrap_err();
            assert_malformed(&err);
        }
    }

    #[test]
    fn negative_string_lengths_are_malformed(
        kind in 0..COMMAND_KINDS.max(RESPONSE_KINDS),
        f in fields(),
        negative in i32::MIN..0,
    ) {
        let command = command_of(kind % COMMAND_KINDS, &f);
        if let Some(offset) = command_first_length_offset(&command) {
            let mut bytes = encode_command(&command, 0);
            bytes[offset..offset + 4].copy_from_slice(&negative.to_le_bytes());
            let err = Command::decode(command.type_id(), &bytes).unwrap_err();
            assert_malformed(&err);
            prop_assert!(err.message().ends_with(&format!("length {negative} is negative")), "{}", err);
        }
        let response = response_of(kind % RESPONSE_KINDS, &f);
        if let Some(offset) = response_first_length_offset(&response) {
            let mut bytes = encode_response(&response, 0);
            bytes[offset..offset + 4].copy_from_slice(&negative.to_le_bytes());
            let err = Response::decode(response.type_id(), &bytes).unwrap_err();
            assert_malformed(&err);
            prop_assert!(err.message().ends_with(&format!("length {negative} is negative")), "{}", err);
        }
    }

    #[test]
    fn string_lengths_past_the_end_are_malformed(kind in 0..COMMAND_KINDS, f in fields(), extra in 1i32..1000) {
        let command = command_of(kind, &f);
        if let Some(offset) = command_first_length_offset(&command) {
            let mut bytes = encode_command(&command, 0);
            let remaining = i32::try_from(bytes.len() - offset - 4).unwrap();
            bytes[offset..offset + 4].copy_from_slice(&(remaining + extra).to_le_bytes());
            let err = Command::decode(command.type_id(), &bytes).unwrap_err();
            assert_malformed(&err);
            prop_assert!(err.message().contains("runs past the end"), "{}", err);
        }
    }

    /// Any bytes under any type id: an error or a message that re-encodes to itself.
    #[test]
    fn arbitrary_bytes_never_panic(
        type_id in prop_oneof![-2i32..0x14, 0x0EFFi32..0x0F10, any::<i32>()],
        bytes in proptest::collection::vec(any::<u8>(), 0..160),
    ) {
        if let Ok(command) = Command::decode(type_id, &bytes) {
            prop_assert!(command.encoded_length() <= bytes.len() + reject_image::REASON_TRAILER_LENGTH);
            let again = encode_command(&command, 0);
            prop_assert_eq!(Command::decode(type_id, &again).unwrap(), command);
        }
        if let Ok(response) = Response::decode(type_id, &bytes) {
            prop_assert!(response.encoded_length() <= bytes.len());
            let again = encode_response(&response, 0);
            prop_assert_eq!(Response::decode(type_id, &again).unwrap(), response);
        }
    }

    /// Messages built from small random lengths: most length prefixes point inside the body,
    /// so the deeper fields (label, source identity) get exercised, not just the first check.
    #[test]
    fn plausible_lengths_never_panic(
        type_id in prop_oneof![1i32..0x12, 0x0F01i32..0x0F0D],
        words in proptest::collection::vec(-8i32..48, 0..24),
    ) {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let _ = Command::decode(type_id, &bytes);
        let _ = Response::decode(type_id, &bytes);
    }
}

#[test]
fn encoders_refuse_short_destinations() {
    let f = Fields {
        ids: [1, 2, 3, 4],
        ints: [5, 6, 7],
        first: b"abc".to_vec(),
        second: b"de".to_vec(),
        address_type: 1,
        port: 2,
        address: [0; 16],
    };
    for kind in 0..COMMAND_KINDS {
        let command = command_of(kind, &f);
        let mut short = vec![0u8; command.encoded_length() - 1];
        assert!(command.encode(&mut short).is_err(), "{}", command.name());
        assert!(short.iter().all(|&b| b == 0), "{} wrote into a short buffer", command.name());
    }
    for kind in 0..RESPONSE_KINDS {
        let response = response_of(kind, &f);
        let mut short = vec![0u8; response.encoded_length() - 1];
        assert!(response.encode(&mut short).is_err(), "{}", response.name());
    }
}

/// The path the conductors use: encode into a claimed region of an `AtomicBuffer`, decode
/// from the published slice.
#[test]
fn atomic_buffer_region_round_trip() {
    let buffer = AtomicBuffer::alloc(256);
    let message = SubscriptionMessage {
        correlated: CorrelatedMessage::new(3, 4),
        registration_correlation_id: -1,
        stream_id: 1002,
        channel: b"aeron:udp?endpoint=127.0.0.1:20121",
    };
    let length = message.encode_into(&buffer, 72).unwrap();
    assert_eq!(length, 66);
    let record = buffer.load_vec(72, length);
    let decoded = Command::decode(events::ADD_SUBSCRIPTION, &record).unwrap();
    assert_eq!(decoded, Command::AddSubscription(message));
    assert!(message.encode_into(&buffer, 256 - 65).is_err());
}
