//! The batched paths (`send_batch`, `receive_batch` through the poller, with and without
//! `sendmmsg`/`recvmmsg`, `UDP_SEGMENT` and `UDP_GRO`) deliver exactly the datagrams the
//! plain paths do, in order; a kernel that refuses one of them is fallen back from.
use proptest::prelude::*;

use super::*;
use crate::driver::media::transport_poller::TransportPoller;

fn unconfigured() -> UdpTransport {
    let buffers = SocketBuffers { so_sndbuf: 4 << 20, so_rcvbuf: 4 << 20 };
    UdpTransport::bind("127.0.0.1:0".parse().unwrap(), buffers).unwrap()
}

fn transport(io: UdpIo) -> UdpTransport {
    let t = unconfigured();
    t.configure_io(io);
    t
}

fn datagram(index: usize, length: usize) -> Vec<u8> {
    (0..length).map(|k| (index * 31 + k) as u8).collect()
}

/// Sends `datagrams` in batches of the given sizes (cycling), retrying a short send, and
/// returns what the poller (reading `vlen` per call) hands on, in order.
fn round_trip(
    sender: &UdpTransport,
    receiver: UdpTransport,
    vlen: usize,
    datagrams: &[Vec<u8>],
    batches: &[usize],
) -> Vec<Vec<u8>> {
    let dest = receiver.local_addr();
    let mut poller = TransportPoller::new(vlen, None);
    poller.add(receiver);
    let mut received = Vec::new();
    let mut poll = |received: &mut Vec<Vec<u8>>| {
        poller
            .poll(|_, _, d, source, _| {
                assert_eq!(source, sender.local_addr());
                received.push(d.to_vec());
            })
            .unwrap()
    };
    let mut next = 0;
    let mut b = 0;
    while next < datagrams.len() {
        let size = batches[b % batches.len()].clamp(1, MAX_BATCH).min(datagrams.len() - next);
        b += 1;
        let slices: Vec<&[u8]> = datagrams[next..next + size].iter().map(Vec::as_slice).collect();
        next += sender.send_batch(&slices, Some(dest)).unwrap();
        poll(&mut received);
    }
    for _ in 0..5000 {
        if received.len() >= datagrams.len() {
            break;
        }
        if poll(&mut received).messages == 0 {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
    received
}

const MODES: [UdpIo; 4] = [
    UdpIo { mmsg: true, gso: true, gro: true },
    UdpIo { mmsg: true, gso: false, gro: false },
    UdpIo { mmsg: false, gso: true, gro: true },
    UdpIo::PLAIN,
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn batched_paths_deliver_the_same_datagrams_as_plain_ones(
        // Mostly MTU-sized runs (what the sender makes), with odd sizes between.
        sizes in prop::collection::vec(prop_oneof![3 => Just(1408usize), 1 => 1usize..1500, 1 => Just(64usize)], 1..80),
        batches in prop::collection::vec(1usize..=16, 1..6),
        vlen in 1usize..=16,
        mode in 0usize..MODES.len(),
    ) {
        let datagrams: Vec<Vec<u8>> = sizes.iter().enumerate().map(|(i, &n)| datagram(i, n)).collect();
        let io = MODES[mode];
        let received = round_trip(&transport(io), transport(io), vlen, &datagrams, &batches);
        prop_assert_eq!(received, datagrams);
    }
}

#[test]
fn runs_of_equal_datagrams_become_segmented_messages() {
    let lengths = [1408, 1408, 1408, 1000, 1408, 64, 64, 64, 1408];
    let datagrams: Vec<Vec<u8>> = lengths.iter().enumerate().map(|(i, &n)| datagram(i, n)).collect();
    let slices: Vec<&[u8]> = datagrams.iter().map(Vec::as_slice).collect();
    let mut plan = [OutgoingMessage { first: 0, count: 0, segment_size: None }; MAX_BATCH];
    let planned = plan_messages(&slices, 0, true, MAX_BATCH, &mut plan);
    let got: Vec<(usize, usize, Option<u16>)> =
        plan[..planned].iter().map(|m| (m.first, m.count, m.segment_size)).collect();
    // A shorter datagram ends a run; a single one is a plain message.
    assert_eq!(got, vec![(0, 4, Some(1408)), (4, 2, Some(1408)), (6, 2, Some(64)), (8, 1, None)]);
    let plain = plan_messages(&slices, 5, false, 3, &mut plan);
    assert_eq!(plain, 3);
    assert_eq!((plan[2].first, plan[2].count, plan[2].segment_size), (7, 1, None));
}

#[test]
fn gro_reads_are_split_into_their_datagrams() {
    let receiver = transport(UdpIo::default());
    if !receiver.io_in_use().2 {
        eprintln!("skipped: this kernel refuses UDP_GRO");
        return;
    }
    let sender = transport(UdpIo::default());
    let datagrams: Vec<Vec<u8>> = (0..10).map(|i| datagram(i, 1408)).collect();
    let slices: Vec<&[u8]> = datagrams.iter().map(Vec::as_slice).collect();
    assert_eq!(sender.send_batch(&slices, Some(receiver.local_addr())).unwrap(), 10);
    let mut slots = vec![0u8; 2 * 65536];
    let mut out = [ReceivedMessage::default(); 2];
    let mut messages = Vec::new();
    for _ in 0..5000 {
        let n = receiver.receive_batch(&mut slots, 65536, &mut out).unwrap();
        for (m, slot) in out[..n].iter().zip(slots.chunks(65536)) {
            messages.push((m.segment_size, slot[..m.length].to_vec()));
        }
        if messages.iter().map(|(_, b)| b.len()).sum::<usize>() >= 14080 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    // Loopback keeps the segmented send whole: one read of all ten, 1408 bytes apart.
    assert_eq!(messages.len(), 1, "{:?}", messages.iter().map(|(s, b)| (*s, b.len())).collect::<Vec<_>>());
    assert_eq!(messages[0].0, Some(1408));
    assert_eq!(messages[0].1, datagrams.concat());
}

#[test]
fn kernel_refusals_fall_back_to_plain_calls() {
    let datagrams: Vec<Vec<u8>> = (0..40).map(|i| datagram(i, if i % 7 == 6 { 300 } else { 1408 })).collect();
    for refusal in [Refusal::Mmsg, Refusal::Gso, Refusal::Gro] {
        let (sender, receiver) = (unconfigured(), unconfigured());
        for t in [&sender, &receiver] {
            t.refuse(refusal);
            t.configure_io(UdpIo::default());
        }
        if let Refusal::Gro = refusal {
            assert!(!receiver.io_in_use().2, "no GRO, so no ancillary data");
        }
        let received = round_trip(&sender, receiver, 16, &datagrams, &[16, 5]);
        assert_eq!(received, datagrams, "{refusal:?}");
        let (mmsg, gso, _) = sender.io_in_use();
        match refusal {
            Refusal::Mmsg => assert!(!mmsg && gso, "{refusal:?}: mmsg off, GSO kept"),
            Refusal::Gso => assert!(mmsg && !gso, "{refusal:?}: GSO off, mmsg kept"),
            Refusal::Gro => assert!(mmsg && gso, "{refusal:?}: sends unaffected"),
        }
    }
}

#[test]
fn a_receiver_refusing_recvmmsg_reads_one_at_a_time() {
    let (sender, receiver) = (transport(UdpIo::default()), transport(UdpIo::default()));
    receiver.refuse(Refusal::Mmsg);
    let datagrams: Vec<Vec<u8>> = (0..6).map(|i| datagram(i, 100 + i)).collect();
    let slices: Vec<&[u8]> = datagrams.iter().map(Vec::as_slice).collect();
    assert_eq!(sender.send_batch(&slices, Some(receiver.local_addr())).unwrap(), 6);
    let mut slots = vec![0u8; 4 * 65536];
    let mut out = [ReceivedMessage::default(); 4];
    let mut got = Vec::new();
    for _ in 0..5000 {
        let n = receiver.receive_batch(&mut slots, 65536, &mut out).unwrap();
        assert!(n <= 4);
        got.extend(out[..n].iter().zip(slots.chunks(65536)).map(|(m, s)| s[..m.length].to_vec()));
        if got.len() >= 6 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    assert_eq!(got, datagrams);
    assert!(!receiver.io_in_use().0, "recvmmsg given up after ENOSYS");
}
