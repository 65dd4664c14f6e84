//! One cell of the benchmark matrix per run (plain `main`), for `scripts/bench-matrix.sh`:
//!
//! `cargo bench --bench matrix -- [--transport ipc|udp] [--length N] [--publishers N]
//! [--subscribers N] [--streams N] [--exclusive] [--loss RATE] [--ping-pong]
//! [--seconds S] [--term-length L] [--hgrm FILE] [--name NAME]`
//!
//! Our media driver is embedded (as Java's `Embedded*` samples embed theirs; its settings
//! come from `AERON_*` variables), on tmpfs, one driver for both ends even over UDP
//! (loopback, `127.0.0.1`). Throughput cells: `--publishers` threads offer `--length`-byte
//! messages to each of `--streams` streams in turn (one concurrent publication per stream
//! shared by the threads; with `--exclusive`, one exclusive publication per thread and
//! stream), `--subscribers` threads each poll every stream and receive every message (fan
//! out); msgs/s is what each subscriber received per second after a warm-up of a fifth of
//! the run (at most 1 s). `--loss` drops that share of DATA datagrams at the driver's receive
//! side (the `loss` interceptor: `AERON_UDP_CHANNEL_INCOMING_INTERCEPTORS=loss`), so the
//! figures include NAKs and retransmits. Ping-pong cells: round trips of one message, p50,
//! p99 and p99.9, and with `--hgrm` the HdrHistogram percentile distribution (µs) to a file.
//!
//! Every run checks that each subscriber saw every message of every publisher once and in
//! order, and prints one line: `RESULT name=... kind=... msgs_per_s=N mb_per_s=N p50_us=N
//! p99_us=N p999_us=N` (`-` where a figure does not apply).
//!
//! Without `--bench` and without `--transport` (`cargo test --bench matrix`) it runs a few
//! tiny cells as a smoke test, a few seconds in all.
#[path = "../tests/client_support/mod.rs"]
mod client_support;

#[path = "bench_support/mod.rs"]
mod bench_support;

#[path = "matrix/cell.rs"]
mod cell;
#[path = "matrix/ping_pong.rs"]
mod ping_pong;
#[path = "matrix/throughput.rs"]
mod throughput;

use std::fs::File;
use std::io::{BufWriter, Write};

use bench_support::{Args, BenchDriver, write_percentile_distribution};
use cell::Cell;

/// Runs `cell` against a fresh embedded driver; returns its result line.
fn run_cell(args: &Args, cell: &Cell) -> String {
    let driver = BenchDriver::start(args, |ctx| {
        if let Some((interceptors, loss_args)) = cell.loss_settings() {
            ctx.udp_channel_incoming_interceptors = Some(interceptors);
            ctx.udp_channel_loss_args = Some(loss_args);
        }
    });
    let aeron = driver.connect(cell.ping_pong);
    let line = if cell.ping_pong {
        let (rate, histogram) = ping_pong::run(&aeron, cell);
        if let Some(path) = &cell.hgrm {
            let mut out = BufWriter::new(File::create(path).expect("create the .hgrm file"));
            write_percentile_distribution(&histogram, &mut out).expect("write the .hgrm file");
            out.flush().expect("write the .hgrm file");
        }
        let us = |q: f64| histogram.value_at_quantile(q) as f64 / 1000.0;
        cell.result_line(rate, Some([us(0.5), us(0.99), us(0.999)]))
    } else {
        cell.result_line(throughput::run(&aeron, cell), None)
    };
    aeron.close();
    line
}

/// A few tiny cells covering every kind of cell: the matrix still runs.
fn smoke() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let hgrm = tmp.path().join("smoke.hgrm");
    let hgrm_arg = hgrm.display().to_string();
    let cells: [&[&str]; 4] = [
        &["--name", "ipc-fan", "--publishers", "2", "--subscribers", "2", "--streams", "2"],
        &["--name", "ipc-64k-exclusive", "--length", "65536", "--publishers", "2", "--exclusive"],
        &[
            "--name",
            "udp-loss",
            "--transport",
            "udp",
            "--length",
            "1024",
            "--exclusive",
            "--publishers",
            "2",
            "--streams",
            "2",
            "--loss",
            "0.05",
        ],
        &["--name", "udp-ping-pong", "--transport", "udp", "--ping-pong", "--hgrm", &hgrm_arg],
    ];
    for cell_args in cells {
        let mut words: Vec<String> = cell_args.iter().map(|s| s.to_string()).collect();
        words.extend(["--seconds".to_string(), "0.5".to_string()]);
        let args = Args::new(words);
        let line = run_cell(&args, &Cell::from_args(&args));
        println!("{line}");
        let rate: f64 =
            line.split(" msgs_per_s=").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
        assert!(rate > 0.0, "{line}: something arrived");
    }
    let table = std::fs::read_to_string(&hgrm).expect("the ping-pong cell wrote its .hgrm file");
    assert!(table.trim_start().starts_with("Value     Percentile TotalCount 1/(1-Percentile)"), "{table}");
    assert!(table.lines().any(|l| l.split_whitespace().nth(1) == Some("1.000000000000")), "{table}");
}

fn main() {
    let args = Args::from_env();
    if !args.full() && !args.flag("--transport") {
        smoke();
        return;
    }
    println!("{}", run_cell(&args, &Cell::from_args(&args)));
}
