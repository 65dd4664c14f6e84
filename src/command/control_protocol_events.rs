//! Message type ids of the control protocol: the record type of each command in the to-driver
//! ring buffer and of each response in the to-clients broadcast buffer
//! (`spec/control-protocol.md` §2-3).
#![forbid(unsafe_code)]

// Client → driver commands.
pub const ADD_PUBLICATION: i32 = 0x01;
pub const REMOVE_PUBLICATION: i32 = 0x02;
pub const ADD_EXCLUSIVE_PUBLICATION: i32 = 0x03;
pub const ADD_SUBSCRIPTION: i32 = 0x04;
pub const REMOVE_SUBSCRIPTION: i32 = 0x05;
pub const CLIENT_KEEPALIVE: i32 = 0x06;
/// Send side (multi-destination-cast publication).
pub const ADD_DESTINATION: i32 = 0x07;
/// Send side, by channel.
pub const REMOVE_DESTINATION: i32 = 0x08;
pub const ADD_COUNTER: i32 = 0x09;
pub const REMOVE_COUNTER: i32 = 0x0A;
pub const CLIENT_CLOSE: i32 = 0x0B;
/// Receive side (multi-destination subscription).
pub const ADD_RCV_DESTINATION: i32 = 0x0C;
pub const REMOVE_RCV_DESTINATION: i32 = 0x0D;
pub const TERMINATE_DRIVER: i32 = 0x0E;
pub const ADD_STATIC_COUNTER: i32 = 0x0F;
pub const REJECT_IMAGE: i32 = 0x10;
/// Send side, by the destination's registration id.
pub const REMOVE_DESTINATION_BY_ID: i32 = 0x11;

// Driver → clients responses.
pub const ON_ERROR: i32 = 0x0F01;
pub const ON_AVAILABLE_IMAGE: i32 = 0x0F02;
pub const ON_PUBLICATION_READY: i32 = 0x0F03;
pub const ON_OPERATION_SUCCESS: i32 = 0x0F04;
pub const ON_UNAVAILABLE_IMAGE: i32 = 0x0F05;
pub const ON_EXCLUSIVE_PUBLICATION_READY: i32 = 0x0F06;
pub const ON_SUBSCRIPTION_READY: i32 = 0x0F07;
pub const ON_COUNTER_READY: i32 = 0x0F08;
pub const ON_UNAVAILABLE_COUNTER: i32 = 0x0F09;
pub const ON_CLIENT_TIMEOUT: i32 = 0x0F0A;
pub const ON_STATIC_COUNTER: i32 = 0x0F0B;
pub const ON_PUBLICATION_ERROR: i32 = 0x0F0C;

/// Aeron's name for a command type id, for logs and error messages.
pub fn command_name(type_id: i32) -> Option<&'static str> {
    Some(match type_id {
        ADD_PUBLICATION => "ADD_PUBLICATION",
        REMOVE_PUBLICATION => "REMOVE_PUBLICATION",
        ADD_EXCLUSIVE_PUBLICATION => "ADD_EXCLUSIVE_PUBLICATION",
        ADD_SUBSCRIPTION => "ADD_SUBSCRIPTION",
        REMOVE_SUBSCRIPTION => "REMOVE_SUBSCRIPTION",
        CLIENT_KEEPALIVE => "CLIENT_KEEPALIVE",
        ADD_DESTINATION => "ADD_DESTINATION",
        REMOVE_DESTINATION => "REMOVE_DESTINATION",
        ADD_COUNTER => "ADD_COUNTER",
        REMOVE_COUNTER => "REMOVE_COUNTER",
        CLIENT_CLOSE => "CLIENT_CLOSE",
        ADD_RCV_DESTINATION => "ADD_RCV_DESTINATION",
        REMOVE_RCV_DESTINATION => "REMOVE_RCV_DESTINATION",
        TERMINATE_DRIVER => "TERMINATE_DRIVER",
        ADD_STATIC_COUNTER => "ADD_STATIC_COUNTER",
        REJECT_IMAGE => "REJECT_IMAGE",
        REMOVE_DESTINATION_BY_ID => "REMOVE_DESTINATION_BY_ID",
        _ => return None,
    })
}

/// Aeron's name for a response type id, for logs and error messages.
pub fn response_name(type_id: i32) -> Option<&'static str> {
    Some(match type_id {
        ON_ERROR => "ON_ERROR",
        ON_AVAILABLE_IMAGE => "ON_AVAILABLE_IMAGE",
        ON_PUBLICATION_READY => "ON_PUBLICATION_READY",
        ON_OPERATION_SUCCESS => "ON_OPERATION_SUCCESS",
        ON_UNAVAILABLE_IMAGE => "ON_UNAVAILABLE_IMAGE",
        ON_EXCLUSIVE_PUBLICATION_READY => "ON_EXCLUSIVE_PUBLICATION_READY",
        ON_SUBSCRIPTION_READY => "ON_SUBSCRIPTION_READY",
        ON_COUNTER_READY => "ON_COUNTER_READY",
        ON_UNAVAILABLE_COUNTER => "ON_UNAVAILABLE_COUNTER",
        ON_CLIENT_TIMEOUT => "ON_CLIENT_TIMEOUT",
        ON_STATIC_COUNTER => "ON_STATIC_COUNTER",
        ON_PUBLICATION_ERROR => "ON_PUBLICATION_ERROR",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_aerons() {
        let commands = [
            (ADD_PUBLICATION, 1),
            (REMOVE_PUBLICATION, 2),
            (ADD_EXCLUSIVE_PUBLICATION, 3),
            (ADD_SUBSCRIPTION, 4),
            (REMOVE_SUBSCRIPTION, 5),
            (CLIENT_KEEPALIVE, 6),
            (ADD_DESTINATION, 7),
            (REMOVE_DESTINATION, 8),
            (ADD_COUNTER, 9),
            (REMOVE_COUNTER, 10),
            (CLIENT_CLOSE, 11),
            (ADD_RCV_DESTINATION, 12),
            (REMOVE_RCV_DESTINATION, 13),
            (TERMINATE_DRIVER, 14),
            (ADD_STATIC_COUNTER, 15),
            (REJECT_IMAGE, 16),
            (REMOVE_DESTINATION_BY_ID, 17),
        ];
        for (id, expected) in commands {
            assert_eq!(id, expected);
            assert!(command_name(id).is_some());
            assert!(response_name(id).is_none());
        }
        let responses = [
            (ON_ERROR, 3841),
            (ON_AVAILABLE_IMAGE, 3842),
            (ON_PUBLICATION_READY, 3843),
            (ON_OPERATION_SUCCESS, 3844),
            (ON_UNAVAILABLE_IMAGE, 3845),
            (ON_EXCLUSIVE_PUBLICATION_READY, 3846),
            (ON_SUBSCRIPTION_READY, 3847),
            (ON_COUNTER_READY, 3848),
            (ON_UNAVAILABLE_COUNTER, 3849),
            (ON_CLIENT_TIMEOUT, 3850),
            (ON_STATIC_COUNTER, 3851),
            (ON_PUBLICATION_ERROR, 3852),
        ];
        for (id, expected) in responses {
            assert_eq!(id, expected);
            assert!(response_name(id).is_some());
            assert!(command_name(id).is_none());
        }
        assert_eq!(command_name(0x11), Some("REMOVE_DESTINATION_BY_ID"));
        assert_eq!(response_name(0x0F0C), Some("ON_PUBLICATION_ERROR"));
        assert_eq!(command_name(0x12), None);
        assert_eq!(command_name(-1), None);
    }
}
