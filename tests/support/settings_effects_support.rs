//! What the `settings_effects*.rs` tests share: a raw client's publications and
//! subscriptions, free ports, and bounded waits.
#![allow(dead_code)]

use std::time::{Duration, Instant};

use aeronrs::command::Response;

use crate::raw_client::RawClient;

/// What ON_PUBLICATION_READY / ON_EXCLUSIVE_PUBLICATION_READY says of a publication.
pub struct Ready {
    pub registration_id: i64,
    pub log_file: String,
    pub session_id: i32,
    pub limit_counter_id: i32,
}

pub fn add_publication(client: &mut RawClient, channel: &str, stream_id: i32, exclusive: bool) -> Ready {
    let id = client.add_publication(channel, stream_id, exclusive);
    let record = client.expect_correlated(id);
    match record.response() {
        Response::PublicationReady(p) | Response::ExclusivePublicationReady(p) => Ready {
            registration_id: p.registration_id,
            log_file: p.log_file_name_str().unwrap().to_string(),
            session_id: p.session_id,
            limit_counter_id: p.position_limit_counter_id,
        },
        other => panic!("{channel}: expected a publication, got {other:?}"),
    }
}

pub fn add_subscription(client: &mut RawClient, channel: &str, stream_id: i32) {
    let id = client.add_subscription(channel, stream_id);
    let record = client.expect_correlated(id);
    assert!(
        matches!(record.response(), Response::SubscriptionReady(_)),
        "{channel}: {:?}",
        record.response()
    );
}

/// A free UDP port on 127.0.0.1 for an endpoint.
pub fn free_port() -> u16 {
    std::net::UdpSocket::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Waits until `condition`, failing after `bound`: for a timeout set well below its
/// default, a bound under the default shows the setting made it fire.
pub fn wait_within(bound: Duration, what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + bound;
    while !condition() {
        assert!(Instant::now() < deadline, "{what} not within {bound:?}");
        std::thread::sleep(Duration::from_millis(1));
    }
}
