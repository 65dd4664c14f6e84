package aeron_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	aeron "github.com/aeronrs/aeronrs/bindings/go"
)

// The README's example, with an embedded driver of its own.
func Example() {
	tmp, err := os.MkdirTemp("", "aeronrs-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	driver, err := aeron.LaunchEmbeddedDriver(aeron.DriverContext{
		Dir:                 filepath.Join(tmp, "aeron"),
		DirDeleteOnShutdown: true,
		ThreadingMode:       aeron.ThreadingShared,
		SharedIdle:          aeron.SleepingIdle(time.Millisecond),
	})
	if err != nil {
		log.Fatal(err)
	}
	defer driver.Close()

	ctx := context.Background()
	client, err := aeron.Connect(ctx, aeron.Context{Dir: driver.Dir()})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	sub, err := client.AddSubscription(ctx, "aeron:ipc", 1001)
	if err != nil {
		log.Fatal(err)
	}
	pub, err := client.AddPublication(ctx, "aeron:ipc", 1001)
	if err != nil {
		log.Fatal(err)
	}
	for !pub.IsConnected() {
		time.Sleep(time.Millisecond)
	}
	if _, err := pub.Offer([]byte("hello")); err != nil {
		log.Fatal(err)
	}
	onMessage := func(msg []byte, h *aeron.Header) { fmt.Printf("%s at position %d\n", msg, h.Position()) }
	for n := 0; n == 0 && err == nil; n, err = sub.Poll(onMessage, 10) {
	}
	// Output: hello at position 64
}
