//! One cell of the matrix: what runs (transport, message length, publishers, subscribers,
//! streams, publication kind, loss, throughput or ping-pong), read from the command line,
//! and the result line it prints.

use std::fmt::Write as _;
use std::path::PathBuf;

use crate::bench_support::Args;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    Ipc,
    Udp,
}

/// How the publisher threads of one stream publish.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sharing {
    /// Every thread offers to the one concurrent publication of the stream.
    Shared,
    /// Each thread has its own exclusive publication (its own session, so its own image at
    /// each subscriber). Concurrent publications cannot be separate: the driver gives every
    /// client of a channel and stream the same one (and refuses a second `session-id`).
    Separate,
}

#[derive(Clone, Debug)]
pub struct Cell {
    pub name: String,
    pub transport: Transport,
    pub length: usize,
    pub publishers: usize,
    pub sharing: Sharing,
    pub subscribers: usize,
    pub streams: usize,
    pub exclusive: bool,
    /// Probability that the driver's receive side drops a DATA datagram (UDP only).
    pub loss: f64,
    pub ping_pong: bool,
    pub seconds: f64,
    /// `term-length` URI parameter (e.g. `1m`); the driver's default when absent.
    pub term_length: Option<String>,
    /// Where a ping-pong cell writes its HdrHistogram percentile distribution.
    pub hgrm: Option<PathBuf>,
}

/// Where a cell's publications and subscriptions meet: ping and pong use two.
pub struct Endpoints {
    pub ports: [u16; 2],
}

impl Endpoints {
    pub fn new() -> Self {
        let free = || std::net::UdpSocket::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        Self { ports: [free(), free()] }
    }
}

impl Cell {
    pub fn from_args(args: &Args) -> Self {
        let transport = match args.value("--transport", "ipc".to_string()).as_str() {
            "ipc" => Transport::Ipc,
            "udp" => Transport::Udp,
            other => panic!("--transport ipc|udp, not {other}"),
        };
        let exclusive = args.flag("--exclusive");
        // An exclusive publication has one offering thread: it cannot be shared.
        let sharing = if exclusive { Sharing::Separate } else { Sharing::Shared };
        let term_length: String = args.value("--term-length", String::new());
        let hgrm: String = args.value("--hgrm", String::new());
        let cell = Self {
            name: args.value("--name", "cell".to_string()),
            transport,
            length: args.value("--length", 32usize),
            publishers: args.value("--publishers", 1usize),
            sharing,
            subscribers: args.value("--subscribers", 1usize),
            streams: args.value("--streams", 1usize),
            exclusive,
            loss: args.value("--loss", 0.0f64),
            ping_pong: args.flag("--ping-pong"),
            seconds: args.value("--seconds", 5.0f64),
            term_length: (!term_length.is_empty()).then_some(term_length),
            hgrm: (!hgrm.is_empty()).then(|| PathBuf::from(hgrm)),
        };
        cell.check();
        cell
    }

    fn check(&self) {
        assert!(self.length >= crate::throughput::STAMP_LENGTH, "--length must be at least 16 B");
        assert!(self.publishers >= 1 && self.subscribers >= 1 && self.streams >= 1, "counts start at 1");
        assert!(self.loss == 0.0 || self.transport == Transport::Udp, "--loss is for UDP cells");
        assert!((0.0..1.0).contains(&self.loss), "--loss is a probability below 1");
        assert!(!self.ping_pong || (self.publishers == 1 && self.subscribers == 1 && self.streams == 1));
        assert!(self.seconds > 0.0, "--seconds must be positive");
    }

    /// The channel of `endpoint` (0: data or ping, 1: pong).
    pub fn channel(&self, endpoints: &Endpoints, endpoint: usize) -> String {
        let mut params = Vec::new();
        if self.transport == Transport::Udp {
            params.push(format!("endpoint=127.0.0.1:{}", endpoints.ports[endpoint]));
        }
        if let Some(term_length) = &self.term_length {
            params.push(format!("term-length={term_length}"));
        }
        let media = if self.transport == Transport::Udp { "udp" } else { "ipc" };
        if params.is_empty() {
            format!("aeron:{media}")
        } else {
            format!("aeron:{media}?{}", params.join("|"))
        }
    }

    /// The driver's loss interceptor settings for this cell (DATA frames only, fixed seed).
    pub fn loss_settings(&self) -> Option<(String, String)> {
        (self.loss > 0.0)
            .then(|| ("loss".to_string(), format!("rate={}|seed=7|recv-msg-mask=0x2", self.loss)))
    }

    /// One line for scripts: `RESULT key=value ...`; `-` where a figure does not apply.
    pub fn result_line(&self, msgs_per_second: f64, percentiles_us: Option<[f64; 3]>) -> String {
        let mut line = String::from("RESULT");
        let transport = if self.transport == Transport::Udp { "udp" } else { "ipc" };
        let sharing = if self.sharing == Sharing::Shared { "shared" } else { "separate" };
        let publication = if self.exclusive { "exclusive" } else { "concurrent" };
        let kind = if self.ping_pong { "ping-pong" } else { "throughput" };
        write!(
            line,
            " name={} kind={kind} transport={transport} length={} publishers={} sharing={sharing} subscribers={} \
             streams={} publication={publication} loss={} msgs_per_s={msgs_per_second:.0} mb_per_s={:.2}",
            self.name,
            self.length,
            self.publishers,
            self.subscribers,
            self.streams,
            self.loss,
            msgs_per_second * self.length as f64 / 1e6,
        )
        .unwrap();
        match percentiles_us {
            Some([p50, p99, p999]) => {
                write!(line, " p50_us={p50:.3} p99_us={p99:.3} p999_us={p999:.3}").unwrap()
            }
            None => line.push_str(" p50_us=- p99_us=- p999_us=-"),
        }
        line
    }
}
