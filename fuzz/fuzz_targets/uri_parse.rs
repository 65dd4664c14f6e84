//! Fuzzes channel URI parsing, typed parameter access and the string builder: nothing may
//! panic, and anything that parses must print to a string that parses back equal.
#![no_main]

use aeronrs::uri::{ChannelUri, UriStringBuilder};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(uri) = ChannelUri::parse(text) {
        let printed = uri.to_string();
        let again = ChannelUri::parse(&printed).expect("printed URI parses");
        assert_eq!(again, uri, "print/parse round trip");
        let _ = uri.validate_known_params();
        let _ = uri.validate_udp_channel();
        let _ = uri.initial_position(65536).map(|p| p.map(|p| p.position(65536)));
        let _ = uri.publication_window_length(1408, 65536);
    }
    if let Ok(builder) = UriStringBuilder::parse(text) {
        if let Ok(built) = builder.build() {
            let again = UriStringBuilder::parse(&built).expect("built URI parses");
            assert_eq!(again.build().ok().as_deref(), Some(built.as_str()), "builder round trip");
        }
    }
});
