//! The same DATA frame lost again and again: a UDP relay between two of our drivers drops
//! the datagram that starts at one chosen term offset — the original and then each
//! retransmission — a fixed number of times before letting it through. Every message must
//! still arrive once, intact, in order, and the NAK and retransmit counters must show one
//! round of recovery per drop.

#[path = "support/log_client.rs"]
mod log_client;
#[path = "support/raw_client.rs"]
mod raw_client;
#[path = "support/udp_pair.rs"]
mod udp_pair;

use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use aeronrs::driver::ThreadingMode;
use udp_pair::{connect_channels, exchange, free_port, pair};

const NAKS_SENT: i32 = 5;
const RETRANSMITS_SENT: i32 = 11;
const TIMES_DROPPED: u32 = 5;
/// The first DATA datagram starting at or beyond this term offset becomes the victim.
const VICTIM_FROM_OFFSET: i32 = 16 * 1024;

/// The relay's choice of victim frame and how often it has dropped it.
#[derive(Default)]
struct Victim {
    choice: Mutex<Choice>,
    drops: AtomicU32,
}

#[derive(Default)]
struct Choice {
    first_term_id: Option<i32>,
    /// (term id, term offset) of the victim once chosen.
    frame: Option<(i32, i32)>,
}

impl Victim {
    /// Whether a datagram from the publisher is to be dropped: DATA with a payload,
    /// starting at the victim's position, while drops remain.
    fn drops(&self, datagram: &[u8]) -> bool {
        if datagram.len() < 32 || u16::from_le_bytes([datagram[6], datagram[7]]) != 0x01 {
            return false;
        }
        let word = |at: usize| i32::from_le_bytes(datagram[at..at + 4].try_into().unwrap());
        let (frame_length, term_offset, term_id) = (word(0), word(8), word(20));
        if frame_length <= 0 {
            return false; // a heartbeat
        }
        let mut choice = self.choice.lock().unwrap();
        let first_term_id = *choice.first_term_id.get_or_insert(term_id);
        if choice.frame.is_none() && term_id == first_term_id && term_offset >= VICTIM_FROM_OFFSET {
            choice.frame = Some((term_id, term_offset));
        }
        if choice.frame == Some((term_id, term_offset)) && self.drops.load(Ordering::Relaxed) < TIMES_DROPPED
        {
            self.drops.fetch_add(1, Ordering::Relaxed);
            return true;
        }
        false
    }
}

/// Forwards publisher → subscriber through `back` and subscriber → publisher (status
/// messages, NAKs) through `front`, dropping what the victim says.
struct Relay {
    port: u16,
    victim: Arc<Victim>,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl Relay {
    fn start(subscriber_port: u16) -> Relay {
        let front = Arc::new(UdpSocket::bind("127.0.0.1:0").unwrap());
        let back = Arc::new(UdpSocket::bind("127.0.0.1:0").unwrap());
        back.connect(("127.0.0.1", subscriber_port)).unwrap();
        for socket in [&front, &back] {
            socket.set_read_timeout(Some(Duration::from_millis(20))).unwrap();
        }
        let port = front.local_addr().unwrap().port();
        let victim = Arc::new(Victim::default());
        let stop = Arc::new(AtomicBool::new(false));
        let publisher: Arc<Mutex<Option<SocketAddr>>> = Arc::default();
        let forward = {
            let (front, back, victim, stop, publisher) =
                (front.clone(), back.clone(), victim.clone(), stop.clone(), publisher.clone());
            std::thread::spawn(move || {
                let mut buffer = [0u8; 65536];
                while !stop.load(Ordering::Relaxed) {
                    let Ok((length, from)) = front.recv_from(&mut buffer) else { continue };
                    *publisher.lock().unwrap() = Some(from);
                    if !victim.drops(&buffer[..length]) {
                        let _ = back.send(&buffer[..length]);
                    }
                }
            })
        };
        let backward = {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut buffer = [0u8; 65536];
                while !stop.load(Ordering::Relaxed) {
                    let Ok(length) = back.recv(&mut buffer) else { continue };
                    if let Some(to) = *publisher.lock().unwrap() {
                        let _ = front.send_to(&buffer[..length], to);
                    }
                }
            })
        };
        Relay { port, victim, stop, threads: vec![forward, backward] }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.threads.drain(..).for_each(|t| t.join().unwrap());
    }
}

#[test]
fn one_frame_dropped_again_and_again_still_arrives_once_in_order() {
    let mut p = pair(ThreadingMode::Dedicated);
    let subscriber_port = free_port();
    let relay = Relay::start(subscriber_port);
    let pub_channel = format!("aeron:udp?endpoint=127.0.0.1:{}", relay.port);
    let sub_channel = format!("aeron:udp?endpoint=127.0.0.1:{subscriber_port}");
    let (publication, mut image, _) = connect_channels(&mut p, &pub_channel, &sub_channel, 1001);
    exchange(&publication, &mut image, 5_000, 200);

    let victim = relay.victim.choice.lock().unwrap().frame;
    let drops = relay.victim.drops.load(Ordering::Relaxed);
    let naks_sent = p.subscriber.cnc.system_counter(NAKS_SENT);
    let retransmits = p.publisher.cnc.system_counter(RETRANSMITS_SENT);
    eprintln!("victim {victim:?} dropped {drops} times; NAKs sent {naks_sent}, retransmits {retransmits}");
    assert_eq!(drops, TIMES_DROPPED, "the victim frame was dropped each time");
    // The original and the first TIMES_DROPPED - 1 retransmissions were lost: each loss
    // took a NAK and a retransmission to repair.
    assert!(naks_sent >= i64::from(TIMES_DROPPED), "NAKs sent {naks_sent}");
    assert!(retransmits >= i64::from(TIMES_DROPPED), "retransmits {retransmits}");
}
