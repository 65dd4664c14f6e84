//! Golden log buffers from real Aeron 1.48 (`shared/vectors`, README §1 and §5-8):
//! our descriptor and readers must see exactly what `*.frames.txt` lists, and our appenders,
//! scanner and rebuilder must write the same bytes for the same message sequence.
mod common;

use std::collections::HashMap;

use aeronrs::concurrent::AtomicBuffer;
use aeronrs::logbuffer::descriptor as d;
use aeronrs::logbuffer::{
    AppendOutcome, FragmentAssembler, Header, HeaderWriter, LogBuffers, TermAppender, frame_descriptor,
    term_gap_scanner, term_reader, term_rebuilder, term_scanner,
};

const T: usize = 65536;
const MTU: usize = 1408;
const SMALL_LENGTHS: [usize; 10] = [0, 1, 7, 31, 32, 33, 64, 95, 96, 200];
const M10_RESERVED: i64 = 0x0123_4567_89AB_CDEF;

/// Payload of a message of the documented sequence, by its label (M0..M11, F<k>).
fn payload(label: &str) -> Vec<u8> {
    let n: usize = label[1..].parse().unwrap();
    match (&label[..1], n) {
        ("M", 0..=9) => (0..SMALL_LENGTHS[n]).map(|j| ((16 * n + j) & 0xFF) as u8).collect(),
        ("M", 10) => (0..24).map(|j| 0xA0 + j as u8).collect(),
        ("M", 11) => (0..4000).map(|j| (j % 251) as u8).collect(),
        ("F", k) => {
            let mut p: Vec<u8> = (0..1000).map(|j| ((k + j) & 0xFF) as u8).collect();
            p[..4].copy_from_slice(&(k as u32).to_le_bytes());
            p
        }
        _ => panic!("unknown label {label}"),
    }
}

// ---- frames.txt parsing ----

#[derive(Debug)]
struct FrameLine {
    partition: usize,
    offset: usize,
    fields: HashMap<String, String>,
    label: String,
}

struct FramesTxt {
    metadata: HashMap<String, String>,
    frames: Vec<FrameLine>,
    zero_ranges: Vec<(usize, usize, usize)>,
    counts: Vec<usize>,
}

fn tokens(line: &str) -> Vec<(String, String)> {
    let mut squeezed = line.to_string();
    while squeezed.contains("= ") {
        squeezed = squeezed.replace("= ", "=");
    }
    squeezed
        .split_whitespace()
        .filter_map(|t| Some((t.split_once('=')?.0.to_string(), t.rsplit_once('=')?.1.to_string())))
        .collect()
}

fn parse_frames_txt(text: &str) -> FramesTxt {
    let mut metadata = HashMap::new();
    let mut frames = Vec::new();
    let mut zero_ranges = Vec::new();
    let mut counts = vec![0; 3];
    let mut in_metadata = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed == "metadata:" {
            in_metadata = true;
            continue;
        }
        if trimmed.starts_with("frames") {
            in_metadata = false;
            continue;
        }
        if in_metadata {
            let prefix = if let Some(rest) = trimmed.strip_prefix("tail_counter[") {
                format!("tail{}.", &rest[..1])
            } else if trimmed.starts_with("default_frame_header:") {
                "header.".to_string()
            } else {
                String::new()
            };
            for (k, v) in tokens(trimmed) {
                metadata.insert(format!("{prefix}{k}"), v.trim_end_matches(')').to_string());
            }
            if let Some((_, bytes)) = trimmed.split_once("(bytes: ") {
                metadata.insert("header.bytes".into(), bytes.trim_end_matches(')').to_string());
            }
            continue;
        }
        let Some(rest) = trimmed.strip_prefix('p') else { continue };
        let partition: usize = rest[..1].parse().unwrap();
        let rest = rest[1..].trim();
        if let Some(count) = rest.strip_prefix(": ") {
            counts[partition] = count.split_whitespace().next().unwrap().parse().unwrap();
        } else if let Some(range) = rest.strip_prefix('[') {
            if range.contains(") zero") {
                let (a, b) = range.split_once(')').unwrap().0.split_once(',').unwrap();
                zero_ranges.push((partition, a.trim().parse().unwrap(), b.trim().parse().unwrap()));
            }
        } else {
            let fields: HashMap<String, String> = tokens(rest).into_iter().collect();
            let offset = fields["off"].parse().unwrap();
            let label = rest.rsplit("  ").next().unwrap().split('(').next().unwrap().trim().to_string();
            frames.push(FrameLine { partition, offset, fields, label });
        }
    }
    FramesTxt { metadata, frames, zero_ranges, counts }
}

fn hex_i64(v: &str) -> i64 {
    u64::from_str_radix(v.trim_start_matches("0x"), 16).unwrap() as i64
}

fn num(v: &str) -> i64 {
    v.parse().unwrap()
}

/// Maps a copy of vector `name` through `LogBuffers::map_existing`.
fn map_vector(name: &str) -> Option<(tempfile::TempDir, LogBuffers, Vec<u8>, FramesTxt)> {
    let bytes = common::read_vector(name)?;
    let text = common::read_vector_text(&name.replace(".logbuffer", ".frames.txt")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, &bytes).unwrap();
    let log = LogBuffers::map_existing(&path).unwrap();
    Some((dir, log, bytes, parse_frames_txt(&text)))
}

fn check_metadata(log: &LogBuffers, m: &HashMap<String, String>) {
    let meta = log.metadata();
    for i in 0..3 {
        let raw = d::raw_tail(meta, i);
        assert_eq!(raw, hex_i64(&m[&format!("tail{i}.raw")]), "tail[{i}]");
        assert_eq!(i64::from(d::term_id(raw)), num(&m[&format!("tail{i}.term_id")]));
        assert_eq!(raw & 0xFFFF_FFFF, num(&m[&format!("tail{i}.raw_term_offset")]));
        assert_eq!(i64::from(d::term_offset(raw, T)), num(&m[&format!("tail{i}.term_offset")]));
    }
    let ints: [(&str, i64); 20] = [
        ("active_term_count", d::active_term_count(meta).into()),
        ("end_of_stream_position", d::end_of_stream_position(meta)),
        ("is_connected", d::is_connected(meta).into()),
        ("active_transport_count", d::active_transport_count(meta).into()),
        ("correlation_id", d::correlation_id(meta)),
        ("initial_term_id", d::initial_term_id(meta).into()),
        ("default_frame_header_length", d::default_frame_header_length(meta).into()),
        ("mtu_length", d::mtu_length(meta).into()),
        ("term_length", d::term_length(meta).into()),
        ("page_size", d::page_size(meta).into()),
        ("publication_window_length", d::publication_window_length(meta).into()),
        ("receiver_window_length", d::receiver_window_length(meta).into()),
        ("socket_sndbuf_length", d::socket_sndbuf_length(meta).into()),
        ("os_default_sndbuf", d::os_default_socket_sndbuf_length(meta).into()),
        ("os_max_sndbuf", d::os_max_socket_sndbuf_length(meta).into()),
        ("socket_rcvbuf_length", d::socket_rcvbuf_length(meta).into()),
        ("os_default_rcvbuf", d::os_default_socket_rcvbuf_length(meta).into()),
        ("os_max_rcvbuf", d::os_max_socket_rcvbuf_length(meta).into()),
        ("max_resend", d::max_resend(meta).into()),
        ("entity_tag", d::entity_tag(meta)),
    ];
    for (key, ours) in ints {
        assert_eq!(ours, num(&m[key]), "metadata {key}");
    }
    let more: [(&str, i64); 12] = [
        ("response_correlation_id", d::response_correlation_id(meta)),
        ("linger_timeout_ns", d::linger_timeout_ns(meta)),
        ("untethered_window_limit_timeout_ns", d::untethered_window_limit_timeout_ns(meta)),
        ("untethered_resting_timeout_ns", d::untethered_resting_timeout_ns(meta)),
        ("group", d::group(meta).into()),
        ("is_response", d::is_response(meta).into()),
        ("rejoin", d::rejoin(meta).into()),
        ("reliable", d::reliable(meta).into()),
        ("sparse", d::sparse(meta).into()),
        ("signal_eos", d::signal_eos(meta).into()),
        ("spies_simulate_connection", d::spies_simulate_connection(meta).into()),
        ("tether", d::tether(meta).into()),
    ];
    for (key, ours) in more {
        assert_eq!(ours, num(&m[key]), "metadata {key}");
    }
    let header = Header::from_bytes(&d::default_frame_header(meta), 0, 16).unwrap();
    assert_eq!(i64::from(header.session_id()), num(&m["header.session_id"]));
    assert_eq!(i64::from(header.stream_id()), num(&m["header.stream_id"]));
    assert_eq!(i64::from(header.term_id()), num(&m["header.term_id"]));
    assert_eq!(header.term_id(), d::initial_term_id(meta), "default header term id = initial term id");
    assert_eq!(header.flags(), 0xC0);
    let hex: String = d::default_frame_header(meta).iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, m["header.bytes"]);
    assert!(meta.load_vec(320 + 32, 96).iter().all(|&b| b == 0));
    assert!(meta.load_vec(496, 4096 - 496).iter().all(|&b| b == 0), "metadata 496..4095 zero");
}

/// Every frame listed is where our frame walker finds it, with the listed header and the
/// documented payload.
fn check_frames(log: &LogBuffers, f: &FramesTxt) {
    let initial = d::initial_term_id(log.metadata());
    let bits = d::position_bits_to_shift(T);
    for p in 0..3 {
        let listed: Vec<&FrameLine> = f.frames.iter().filter(|l| l.partition == p).collect();
        assert_eq!(listed.len(), f.counts[p], "partition {p} frame count");
        let term = log.term(p);
        let mut offset = listed.first().map_or(T, |l| l.offset);
        for line in &listed {
            assert_eq!(offset, line.offset, "frames are contiguous in partition {p}");
            let length = frame_descriptor::frame_length_volatile(term, offset);
            let mut header = Header::new(initial, bits);
            header.load(term, offset, length);
            let kind = if header.frame_type() == 0 { "PAD" } else { "DATA" };
            assert!(line.fields.contains_key("frame_length"));
            let fl = &line.fields;
            assert_eq!(i64::from(length), num(&fl["frame_length"]), "p{p}@{offset}");
            assert_eq!(frame_descriptor::aligned_frame_length(length as usize) as i64, num(&fl["aligned"]));
            assert_eq!(i64::from(header.version()), num(&fl["version"]));
            assert_eq!(format!("0x{:02x}", header.flags()), fl["flags"]);
            assert_eq!(i64::from(header.term_offset()), num(&fl["term_offset"]));
            assert_eq!(i64::from(header.session_id()), num(&fl["session_id"]));
            assert_eq!(i64::from(header.stream_id()), num(&fl["stream_id"]));
            assert_eq!(i64::from(header.term_id()), num(&fl["term_id"]));
            assert_eq!(header.reserved_value(), hex_i64(&fl["reserved"]));
            let (start, end) = fl["position"].split_once("..").unwrap();
            assert_eq!(
                d::compute_position(header.term_id(), header.term_offset(), bits, initial),
                num(start)
            );
            assert_eq!(header.position(), num(end), "p{p}@{offset} position");
            let body = term.load_vec(offset + 32, length as usize - 32);
            if kind == "PAD" {
                assert!(line.label.starts_with("padding"), "p{p}@{offset} is PAD");
                assert!(body.iter().all(|&b| b == 0), "PAD body zero");
            } else if line.label == "M11" {
                let start = (header.term_offset() as usize - first_m11(&listed)) / 1408 * 1376;
                assert_eq!(body, &payload("M11")[start..start + body.len()]);
            } else {
                assert_eq!(body, &payload(&line.label)[..], "{} payload", line.label);
            }
            offset += frame_descriptor::aligned_frame_length(length as usize);
        }
    }
    for &(p, a, b) in &f.zero_ranges {
        assert!(log.term(p).load_vec(a, b - a).iter().all(|&x| x == 0), "p{p} [{a},{b}) zero");
    }
}

fn first_m11(listed: &[&FrameLine]) -> usize {
    listed.iter().find(|l| l.label == "M11").unwrap().offset
}

/// Our term reader with the fragment assembler delivers the documented messages in order.
fn check_reader(log: &LogBuffers, f: &FramesTxt) {
    let initial = d::initial_term_id(log.metadata());
    let mut expected: Vec<String> = Vec::new();
    for line in f.frames.iter().filter(|l| !l.label.starts_with("padding")) {
        // A fragmented message is delivered once, on its END fragment.
        if line.label != "M11" || line.fields["flags"] == "0x40" {
            expected.push(line.label.clone());
        }
    }
    let mut got: Vec<(String, i64)> = Vec::new();
    let mut assembler = FragmentAssembler::new(|p: &[u8], h: &Header| {
        let label = if p.len() == 4000 {
            "M11".to_string()
        } else if p.len() == 1000 {
            format!("F{}", u32::from_le_bytes([p[0], p[1], p[2], p[3]]))
        } else if h.reserved_value() == M10_RESERVED {
            "M10".to_string()
        } else {
            format!("M{}", SMALL_LENGTHS.iter().position(|&l| l == p.len()).unwrap())
        };
        assert_eq!(p, &payload(&label)[..], "{label}");
        got.push((label, h.position()));
    });
    let mut header = Header::new(initial, 16);
    for p in 0..3 {
        let Some(first) = f.frames.iter().find(|l| l.partition == p) else { continue };
        let mut offset = first.offset;
        loop {
            let outcome =
                term_reader::read(log.term(p), offset, 7, &mut header, |b, h| assembler.on_fragment(b, h));
            if outcome.offset == offset {
                break;
            }
            offset = outcome.offset;
        }
    }
    drop(assembler);
    let labels: Vec<&String> = got.iter().map(|(l, _)| l).collect();
    assert_eq!(labels, expected.iter().collect::<Vec<_>>());
    let last_end =
        f.frames.iter().rev().find(|l| l.label.starts_with('F')).unwrap().fields["position"].clone();
    assert_eq!(got.last().unwrap().1, num(last_end.split_once("..").unwrap().1));
}

fn read_and_check(name: &str) -> Option<(tempfile::TempDir, LogBuffers, Vec<u8>)> {
    let (dir, log, bytes, f) = map_vector(name)?;
    assert_eq!(bytes.len(), 200_704);
    assert_eq!(log.buffer().capacity(), d::compute_log_length(T, 4096));
    check_metadata(&log, &f.metadata);
    check_frames(&log, &f);
    check_reader(&log, &f);
    Some((dir, log, bytes))
}

#[test]
fn ipc_publication_vector_reads_as_documented() {
    read_and_check("ipc-publication.logbuffer");
}

#[test]
fn ipc_publication_from_zero_vector_reads_as_documented() {
    read_and_check("ipc-publication-from-zero.logbuffer");
}

#[test]
fn udp_image_vector_reads_as_documented() {
    read_and_check("udp-image.logbuffer");
}

#[test]
fn udp_loss_image_vector_reads_as_documented() {
    read_and_check("udp-loss-image.logbuffer");
}

#[test]
fn udp_publication_vector_reads_as_documented() {
    read_and_check("udp-publication.logbuffer");
}

// ---- writing the sequence ourselves ----

/// A minimal concurrent-publication offer loop over our appenders (no limits): retries
/// after rotation exactly as `aeron_publication_offer` reports ADMIN_ACTION.
struct Publisher {
    log: LogBuffers,
    appenders: Vec<TermAppender>,
    header: HeaderWriter,
    admin_actions: usize,
}

impl Publisher {
    fn new(log: LogBuffers, session_id: i32, stream_id: i32) -> Self {
        let appenders = (0..3)
            .map(|i| TermAppender::new(log.term(i).clone(), log.metadata().clone(), i).unwrap())
            .collect();
        Self { log, appenders, header: HeaderWriter::new(session_id, stream_id), admin_actions: 0 }
    }

    /// Offers `label`'s payload; returns the term id it landed in.
    fn offer(&mut self, label: &str) -> i32 {
        let meta = self.log.metadata().clone();
        let initial = d::initial_term_id(&meta);
        let message = payload(label);
        loop {
            let term_count = d::active_term_count(&meta);
            let index = d::index_by_term_count(term_count.into());
            let term_id = d::term_id(d::raw_tail_volatile(&meta, index));
            assert_eq!(d::compute_term_count(term_id, initial), term_count);
            let outcome = if label == "M10" {
                let (outcome, claim) = self.appenders[index].claim(&self.header, 24, term_id);
                if let Some(mut claim) = claim {
                    claim.buffer().copy_from_slice(&message);
                    claim.set_reserved_value(M10_RESERVED);
                    claim.commit();
                }
                outcome
            } else {
                self.appenders[index].append(&self.header, &message, MTU - 32, None, term_id).unwrap()
            };
            match outcome {
                AppendOutcome::Appended { term_id, .. } => return term_id,
                AppendOutcome::Tripped { .. } | AppendOutcome::Failed { .. } => {
                    d::rotate_log(&meta, term_count, term_id);
                    self.admin_actions += 1;
                }
            }
        }
    }

    /// "full" (`fillers_in_next_term = Some(4)`) or "start" with `n` fillers.
    fn publish_sequence(&mut self, start_term_id: i32, fillers: Option<usize>, next_term_fillers: usize) {
        for i in 0..12 {
            self.offer(&format!("M{i}"));
        }
        let mut k = 0;
        let mut in_next = 0;
        while fillers.is_none_or(|n| k < n) && in_next < next_term_fillers {
            if self.offer(&format!("F{k}")) != start_term_id {
                in_next += 1;
            }
            k += 1;
        }
    }
}

/// A fresh log with the golden file's metadata values written through our setters.
fn fresh_log_like(golden: &LogBuffers, with_tails: Option<(i32, i32)>) -> LogBuffers {
    let (g, log) = (golden.metadata(), LogBuffers::alloc(T, 4096).unwrap());
    let m = log.metadata();
    let initial = d::initial_term_id(g);
    if let Some((term_id, term_offset)) = with_tails {
        d::initialise_tails(m, initial, term_id, term_offset).unwrap();
    }
    d::set_end_of_stream_position(m, d::end_of_stream_position(g));
    d::set_is_connected(m, d::is_connected(g));
    d::set_active_transport_count(m, d::active_transport_count(g));
    d::set_correlation_id(m, d::correlation_id(g));
    d::set_initial_term_id(m, initial);
    d::set_mtu_length(m, d::mtu_length(g));
    d::set_publication_window_length(m, d::publication_window_length(g));
    d::set_receiver_window_length(m, d::receiver_window_length(g));
    d::set_socket_sndbuf_length(m, d::socket_sndbuf_length(g));
    d::set_os_default_socket_sndbuf_length(m, d::os_default_socket_sndbuf_length(g));
    d::set_os_max_socket_sndbuf_length(m, d::os_max_socket_sndbuf_length(g));
    d::set_socket_rcvbuf_length(m, d::socket_rcvbuf_length(g));
    d::set_os_default_socket_rcvbuf_length(m, d::os_default_socket_rcvbuf_length(g));
    d::set_os_max_socket_rcvbuf_length(m, d::os_max_socket_rcvbuf_length(g));
    d::set_max_resend(m, d::max_resend(g));
    let header = Header::from_bytes(&d::default_frame_header(g), 0, 16).unwrap();
    d::fill_default_frame_header(m, header.session_id(), header.stream_id(), initial);
    d::set_entity_tag(m, d::entity_tag(g));
    d::set_response_correlation_id(m, d::response_correlation_id(g));
    d::set_linger_timeout_ns(m, d::linger_timeout_ns(g));
    d::set_untethered_window_limit_timeout_ns(m, d::untethered_window_limit_timeout_ns(g));
    d::set_untethered_resting_timeout_ns(m, d::untethered_resting_timeout_ns(g));
    d::set_group(m, d::group(g));
    d::set_is_response(m, d::is_response(g));
    d::set_rejoin(m, d::rejoin(g));
    d::set_reliable(m, d::reliable(g));
    d::set_sparse(m, d::sparse(g));
    d::set_signal_eos(m, d::signal_eos(g));
    d::set_spies_simulate_connection(m, d::spies_simulate_connection(g));
    d::set_tether(m, d::tether(g));
    log
}

fn written_like(
    golden: &LogBuffers,
    start_offset: i32,
    fillers: Option<usize>,
    next: usize,
) -> (LogBuffers, usize) {
    let initial = d::initial_term_id(golden.metadata());
    let log = fresh_log_like(golden, Some((initial, start_offset)));
    let header = Header::from_bytes(&d::default_frame_header(golden.metadata()), 0, 16).unwrap();
    let mut publisher = Publisher::new(log.clone(), header.session_id(), header.stream_id());
    publisher.publish_sequence(initial, fillers, next);
    (log, publisher.admin_actions)
}

fn assert_same_bytes(ours: &LogBuffers, golden: &[u8]) {
    let ours = ours.buffer().load_vec(0, golden.len());
    if let Some(i) = (0..golden.len()).find(|&i| ours[i] != golden[i]) {
        panic!("first difference at file offset {i}: ours {:#04x}, golden {:#04x}", ours[i], golden[i]);
    }
}

#[test]
fn our_appender_writes_ipc_publication_byte_for_byte() {
    let Some((_dir, golden, bytes)) = map_vector("ipc-publication.logbuffer").map(|(a, b, c, _)| (a, b, c))
    else {
        return;
    };
    let (ours, admin_actions) = written_like(&golden, 40960, None, 4);
    assert_eq!(admin_actions, 1, "exactly one ADMIN_ACTION, on F18");
    assert_same_bytes(&ours, &bytes);
}

#[test]
fn our_appender_writes_ipc_publication_from_zero_byte_for_byte() {
    let Some((_dir, golden, bytes)) =
        map_vector("ipc-publication-from-zero.logbuffer").map(|(a, b, c, _)| (a, b, c))
    else {
        return;
    };
    let (ours, admin_actions) = written_like(&golden, 0, Some(3), 1);
    assert_eq!(admin_actions, 0);
    assert_same_bytes(&ours, &bytes);
}

#[test]
fn our_appender_writes_udp_publication_byte_for_byte() {
    let Some((_dir, golden, bytes)) = map_vector("udp-publication.logbuffer").map(|(a, b, c, _)| (a, b, c))
    else {
        return;
    };
    let (ours, _) = written_like(&golden, 0, None, 4);
    // The driver cleaned up to sender position − T = 4224 (README §8).
    ours.term(0).fill_bytes(0, 4224, 0);
    assert_same_bytes(&ours, &bytes);
}

/// Datagrams as the sender cuts them: term scanner up to the MTU, PAD ends a datagram.
fn datagrams(log: &LogBuffers, end_position: i64) -> Vec<(usize, usize, Vec<u8>)> {
    let mut position = 0i64;
    let mut out = Vec::new();
    while position < end_position {
        let index = d::index_by_position(position, 16);
        let offset = d::compute_term_offset_from_position(position, 16) as usize;
        let scan = term_scanner::scan_for_availability(log.term(index), offset, MTU);
        assert!(scan.available > 0, "stuck at {position}");
        let available = scan.available as usize;
        out.push((index, offset, log.term(index).load_vec(offset, available).to_vec()));
        position += (available + scan.padding as usize) as i64;
    }
    out
}

fn rebuild_image_like(name: &str, shuffle: bool) {
    let Some((_dir, golden, bytes)) = map_vector(name).map(|(a, b, c, _)| (a, b, c)) else { return };
    // The publisher side of that session, written by our appender.
    let (publication, _) = written_like(&golden, 0, None, 4);
    let packets = datagrams(&publication, 69_760);
    assert_eq!(packets.len(), 1 + 3 + 57 + 4, "M0..M10, M11's 3 fragments, F0..F56 (+PAD), F57..F60");
    assert_eq!(packets[0].2.len(), 1056);
    assert_eq!(packets[60].2.len(), 1088, "F56 with the PAD header @65344");

    let image = fresh_log_like(&golden, None);
    let mut order: Vec<usize> = (0..packets.len()).collect();
    if shuffle {
        // Deterministic out-of-order delivery with duplicates: reverse pairs, resend every 5th.
        order = order.chunks(2).flat_map(|c| c.iter().rev().copied().collect::<Vec<_>>()).collect();
        let dups: Vec<usize> = (0..packets.len()).step_by(5).collect();
        order.splice(7..7, dups);
    }
    let mut gaps_seen = 0;
    for (n, &i) in order.iter().enumerate() {
        let (index, offset, packet) = &packets[i];
        term_rebuilder::insert(image.term(*index), *offset, packet).unwrap();
        if shuffle && n == 20 {
            term_gap_scanner::scan_for_gap(image.term(0), 0, 0, T, |_, o, l| {
                assert!(o % 32 == 0 && l > 0);
                gaps_seen += 1;
            });
        }
    }
    if shuffle {
        assert_eq!(gaps_seen, 1);
    }
    let complete = term_gap_scanner::scan_for_gap(image.term(0), 0, 0, T, |_, o, l| panic!("gap {o}+{l}"));
    assert_eq!(complete, T);
    assert_eq!(term_gap_scanner::scan_for_gap(image.term(1), 1, 0, 4224, |_, _, _| panic!("gap")), 4224);
    assert_same_bytes(&image, &bytes);
}

#[test]
fn scanner_and_rebuilder_rebuild_udp_image_byte_for_byte() {
    rebuild_image_like("udp-image.logbuffer", false);
}

#[test]
fn rebuilder_with_loss_reorder_and_duplicates_rebuilds_udp_loss_image() {
    rebuild_image_like("udp-loss-image.logbuffer", true);
}

#[test]
fn heap_and_mapped_views_agree() {
    let Some(bytes) = common::read_vector("ipc-publication.logbuffer") else { return };
    let buffer = AtomicBuffer::alloc(bytes.len());
    buffer.store_bytes(0, &bytes);
    let log = LogBuffers::from_buffer(buffer).unwrap();
    assert_eq!(d::raw_tail(log.metadata(), 0) as u64, 0x0000_03E8_0001_0280);
    assert_eq!(log.term(0).get_i32(65120), 416);
}
