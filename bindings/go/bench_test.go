package aeron

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// The benchmarks measure what scripts/bench-go.sh prints beside the C samples (ping/pong,
// streaming_publisher/rate_subscriber): 32-byte messages over aeron:ipc with 64 MiB terms.
// They use the driver in AERON_DIR when set (the script's aeronmd), else an embedded one.
// They busy-spin, as the samples do.
const benchChannel = "aeron:ipc?term-length=64m"

func benchClient(b *testing.B) *Client {
	b.Helper()
	dir := os.Getenv("AERON_DIR")
	if dir == "" {
		driver, err := LaunchEmbeddedDriver(DriverContext{
			Dir:                  filepath.Join(b.TempDir(), "aeron"),
			DirDeleteOnStart:     true,
			DirDeleteOnShutdown:  true,
			ThreadingMode:        ThreadingShared,
			SharedIdle:           SleepingIdle(time.Millisecond),
			TermBufferSparseFile: true,
		})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = driver.Close() })
		dir = driver.Dir()
	}
	client, err := Connect(context.Background(), Context{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = client.Close() })
	return client
}

func benchPair(b *testing.B, client *Client, stream int32) (*ExclusivePublication, *Subscription) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	sub, err := client.AddSubscription(ctx, benchChannel, stream)
	if err != nil {
		b.Fatal(err)
	}
	pub, err := client.AddExclusivePublication(ctx, benchChannel, stream)
	if err != nil {
		b.Fatal(err)
	}
	for !pub.IsConnected() {
		time.Sleep(time.Millisecond)
	}
	return pub, sub
}

// offerSpinning offers m until it is accepted.
func offerSpinning(b *testing.B, pub *ExclusivePublication, m []byte) {
	for {
		_, err := pub.Offer(m)
		if err == nil {
			return
		}
		if oe, ok := err.(OfferError); !ok || !oe.Retryable() {
			b.Error(err)
			return
		}
	}
}

// BenchmarkIPCRoundTrip: ping sends its send time in a 32-byte message, pong (a child
// process, as the C samples' pong) echoes it, ping waits for the echo; b.N measured round
// trips after WARM_UP (10,000) unmeasured ones. Reports the percentiles in ns.
func BenchmarkIPCRoundTrip(b *testing.B) {
	client := benchClient(b)
	pingPub, err := client.AddExclusivePublication(context.Background(), benchChannel, 1002)
	if err != nil {
		b.Fatal(err)
	}
	pongSub, err := client.AddSubscription(context.Background(), benchChannel, 1003)
	if err != nil {
		b.Fatal(err)
	}
	pong := exec.Command(os.Args[0], "-test.run=^$")
	pong.Env = append(os.Environ(), roleEnv+"=pong", "AERON_DIR="+client.dir)
	pong.Stdout, pong.Stderr = os.Stderr, os.Stderr
	stdin, err := pong.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := pong.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		_ = stdin.Close() // pong stops at the end of its input
		_ = pong.Wait()
	}()
	for !pingPub.IsConnected() || !pongSub.IsConnected() {
		time.Sleep(time.Millisecond)
	}
	measureRoundTrips(b, pingPub, pongSub)
}

func measureRoundTrips(b *testing.B, pingPub *ExclusivePublication, pongSub *Subscription) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	message := make([]byte, 32)
	start := time.Now()
	var latency int64
	replied := false
	onPong := func(m []byte, h *Header) {
		latency = int64(time.Since(start)) - int64(binary.LittleEndian.Uint64(m))
		replied = true
	}
	roundTrip := func() int64 {
		binary.LittleEndian.PutUint64(message, uint64(time.Since(start)))
		offerSpinning(b, pingPub, message)
		replied = false
		for !replied {
			if _, err := pongSub.Poll(onPong, 1); err != nil {
				b.Fatal(err)
			}
		}
		return latency
	}
	warmUp := envCount("WARM_UP", 10000)
	for i := 0; i < warmUp; i++ {
		roundTrip()
	}
	latencies := make([]int64, b.N)
	b.ResetTimer()
	for i := range latencies {
		latencies[i] = roundTrip()
	}
	b.StopTimer()
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	at := func(q float64) float64 {
		return float64(latencies[min(len(latencies)-1, int(q*float64(len(latencies))))])
	}
	b.ReportMetric(at(0.5), "p50-ns")
	b.ReportMetric(at(0.99), "p99-ns")
	b.ReportMetric(at(0.999), "p99.9-ns")
	b.ReportMetric(float64(latencies[len(latencies)-1]), "max-ns")
}

// playPong echoes stream 1002 onto stream 1003, busy-spinning, until its input ends.
func playPong() error {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	client, err := Connect(ctx, Context{Dir: os.Getenv("AERON_DIR")})
	if err != nil {
		return err
	}
	defer client.Close()
	sub, err := client.AddSubscription(ctx, benchChannel, 1002)
	if err != nil {
		return err
	}
	pub, err := client.AddExclusivePublication(ctx, benchChannel, 1003)
	if err != nil {
		return err
	}
	var stop atomic.Bool
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		stop.Store(true)
	}()
	runtime.LockOSThread()
	var offerErr error
	echo := func(m []byte, h *Header) {
		for {
			_, err := pub.Offer(m)
			if err == nil {
				return
			}
			if oe, ok := err.(OfferError); !ok || !oe.Retryable() || stop.Load() {
				offerErr = err
				return
			}
		}
	}
	for !stop.Load() && offerErr == nil {
		if _, err := sub.Poll(echo, 16); err != nil {
			return err
		}
	}
	return offerErr
}

// BenchmarkIPCThroughput: a publisher goroutine streams b.N 32-byte messages, this one
// polls up to 1024 fragments at a time; reports messages per second.
func BenchmarkIPCThroughput(b *testing.B) {
	client := benchClient(b)
	pub, sub := benchPair(b, client, 1004)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	received := 0
	onMessage := func(m []byte, h *Header) { received++ }
	published := make(chan error, 1)
	b.ResetTimer()
	start := time.Now()
	go func() {
		runtime.LockOSThread()
		message := make([]byte, 32)
		for i := 0; i < b.N; i++ {
			binary.LittleEndian.PutUint64(message, uint64(i))
			for {
				_, err := pub.Offer(message)
				if err == nil {
					break
				}
				if !errors.Is(err, ErrBackPressured) && !errors.Is(err, ErrAdminAction) {
					published <- err
					return
				}
			}
		}
		published <- nil
	}()
	for received < b.N {
		if _, err := sub.Poll(onMessage, 1024); err != nil {
			b.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	if err := <-published; err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
}

// BenchmarkOfferPoll: one goroutine offers a 32-byte message and polls it back: what a
// message costs through the binding with no thread hand-off (two cgo calls: the offer
// and the poll).
func BenchmarkOfferPoll(b *testing.B) {
	client := benchClient(b)
	pub, sub := benchPair(b, client, 1005)
	message := make([]byte, 32)
	got := 0
	onMessage := func(m []byte, h *Header) { got++ }
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		offerSpinning(b, pub, message)
		for n := 0; n == 0; {
			n, _ = sub.Poll(onMessage, 10)
		}
	}
	if got != b.N {
		b.Fatalf("got %d of %d", got, b.N)
	}
}

// BenchmarkEmptyPoll: a poll that finds nothing (one cgo call).
func BenchmarkEmptyPoll(b *testing.B) {
	client := benchClient(b)
	_, sub := benchPair(b, client, 1006)
	handler := func(m []byte, h *Header) {}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, _ = sub.Poll(handler, 10)
	}
}

func envCount(name string, fallback int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n >= 0 {
		return n
	}
	return fallback
}

// BenchmarkIPCThroughputBatch is BenchmarkIPCThroughput with the publisher handing over
// 64 messages per cgo call (OfferBatch).
func BenchmarkIPCThroughputBatch(b *testing.B) {
	client := benchClient(b)
	pub, sub := benchPair(b, client, 1007)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	received := 0
	onMessage := func(m []byte, h *Header) { received++ }
	published := make(chan error, 1)
	b.ResetTimer()
	start := time.Now()
	go func() {
		runtime.LockOSThread()
		const batch = 64
		buffer := make([]byte, 32*batch)
		lengths := make([]uint32, batch)
		for i := range lengths {
			lengths[i] = 32
		}
		for sent := 0; sent < b.N; {
			n := min(batch, b.N-sent)
			for k := 0; k < n; k++ {
				binary.LittleEndian.PutUint64(buffer[32*k:], uint64(sent+k))
			}
			offered, _, err := pub.OfferBatch(buffer[:32*n], lengths[:n])
			sent += offered
			if err != nil && !errors.Is(err, ErrBackPressured) && !errors.Is(err, ErrAdminAction) {
				published <- err
				return
			}
		}
		published <- nil
	}()
	for received < b.N {
		if _, err := sub.Poll(onMessage, 1024); err != nil {
			b.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	if err := <-published; err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
}
