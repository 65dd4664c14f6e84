//! The one table behind [`Command`](super::Command) and [`Response`](super::Response): each
//! variant names its message type and the record type id it travels under, and the macro
//! derives the enum, its decoder (dispatch on the type id), `type_id`, `name`,
//! `encoded_length` and `encode` from that table. Keeping the mapping in one place means a
//! type id can never decode to one variant yet encode under another.
#![forbid(unsafe_code)]

/// Declares a control-message enum over [`ControlMessage`](super::codec::ControlMessage)
/// bodies. `$kind` ("command", "response") words the unknown-type error; `$name_of` maps a
/// type id to Aeron's name, which prefixes decode errors.
macro_rules! control_message_enum {
    (
        $(#[$meta:meta])*
        pub enum $enum:ident<'a> (kind = $kind:literal, name_of = $name_of:path) {
            $( $variant:ident($message:ty) = $type_id:path, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $enum<'a> {
            $( $variant($message), )+
        }

        impl<'a> $enum<'a> {
            /// Parses the body of a record of type `type_id`. An unknown type id is an
            /// UNKNOWN_COMMAND_TYPE_ID error, a body that does not fit its type a
            /// MALFORMED_COMMAND error prefixed with Aeron's name for the type and naming
            /// the field.
            pub fn decode(type_id: i32, src: &'a [u8]) -> $crate::util::error::Result<Self> {
                Self::decode_body(type_id, src).map_err(|e| match $name_of(type_id) {
                    Some(name) => e.context(name),
                    None => e,
                })
            }

            fn decode_body(type_id: i32, src: &'a [u8]) -> $crate::util::error::Result<Self> {
                use $crate::command::codec::ControlMessage as _;
                // A match, not an if-chain: a type id listed twice is an unreachable
                // pattern, which the lints reject.
                Ok(match type_id {
                    $( $type_id => Self::$variant(<$message>::decode(src)?), )+
                    _ => {
                        return Err($crate::util::error::Error::aeron(
                            $crate::util::error::AeronErrorCode::UnknownCommandTypeId,
                            format!(concat!($kind, " type id {} (0x{:x}) unknown"), type_id, type_id),
                        ));
                    }
                })
            }

            /// The record type id this message travels under.
            pub fn type_id(&self) -> i32 {
                match self {
                    $( Self::$variant(_) => $type_id, )+
                }
            }

            /// Aeron's name for this message.
            pub fn name(&self) -> &'static str {
                $name_of(self.type_id()).unwrap_or("UNKNOWN")
            }

            /// Bytes `encode` writes; claim this much for the record body.
            pub fn encoded_length(&self) -> usize {
                use $crate::command::codec::ControlMessage as _;
                match self {
                    $( Self::$variant(m) => m.encoded_length(), )+
                }
            }

            /// Writes the body at the start of `dst`; returns its length.
            pub fn encode(&self, dst: &mut [u8]) -> $crate::util::error::Result<usize> {
                use $crate::command::codec::ControlMessage as _;
                match self {
                    $( Self::$variant(m) => m.encode(dst), )+
                }
            }
        }
    };
}

pub(crate) use control_message_enum;
