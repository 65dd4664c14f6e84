//! Feeds arbitrary (type id, body) pairs to the control-protocol decoders, as the driver
//! conductor (commands from any client process) and the client conductor (responses from
//! any driver) would see them. Decoding must never panic; whatever decodes must re-encode
//! into a body that decodes to the same message.
#![no_main]

use aeronrs::command::{Command, Response};
use libfuzzer_sys::fuzz_target;

/// Picks the type id from the first bytes so that most inputs hit a known command or
/// response id, while some still try arbitrary ids.
fn split(input: &[u8]) -> Option<(i32, &[u8])> {
    let (&selector, rest) = input.split_first()?;
    let (&low, rest) = rest.split_first()?;
    Some(match selector % 3 {
        0 => (1 + i32::from(low % 0x12), rest),
        1 => (0x0F01 + i32::from(low % 0x0D), rest),
        _ => {
            let (id, body) = rest.split_first_chunk::<4>()?;
            (i32::from_le_bytes(*id), body)
        }
    })
}

fuzz_target!(|input: &[u8]| {
    let Some((type_id, body)) = split(input) else { return };

    if let Ok(command) = Command::decode(type_id, body) {
        let mut encoded = vec![0u8; command.encoded_length()];
        let length = command.encode(&mut encoded).expect("a decoded command re-encodes");
        assert_eq!(length, encoded.len());
        let again = Command::decode(type_id, &encoded).expect("a re-encoded command decodes");
        assert_eq!(again, command);
    }

    if let Ok(response) = Response::decode(type_id, body) {
        let mut encoded = vec![0u8; response.encoded_length()];
        let length = response.encode(&mut encoded).expect("a decoded response re-encodes");
        assert_eq!(length, encoded.len());
        let again = Response::decode(type_id, &encoded).expect("a re-encoded response decodes");
        assert_eq!(again, response);
    }
});
