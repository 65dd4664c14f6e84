package aeron

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"
)

// runRole plays a child process's part; its exit status.
func runRole(role string) int {
	if err := playRole(role); err != nil {
		fmt.Fprintf(os.Stderr, "role %s: %v\n", role, err)
		return 1
	}
	return 0
}

func envInt(name string) int {
	n, err := strconv.Atoi(os.Getenv(name))
	if err != nil {
		panic(fmt.Sprintf("%s: %v", name, err))
	}
	return n
}

// playRole: "publisher" offers COUNT messages of LENGTH bytes on CHANNEL/STREAM and exits;
// "publisher-hold" does the same and then waits to be killed; "pong" is the round-trip
// benchmark's echo (bench_test.go).
func playRole(role string) error {
	if role == "pong" {
		return playPong()
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	client, err := Connect(ctx, Context{Dir: os.Getenv("AERON_DIR"), IdleSleep: time.Millisecond})
	if err != nil {
		return err
	}
	defer client.Close()
	publication, err := client.AddPublication(ctx, os.Getenv("CHANNEL"), int32(envInt("STREAM")))
	if err != nil {
		return err
	}
	count, length := envInt("COUNT"), envInt("LENGTH")
	buffer := make([]byte, length)
	for i := 0; i < count; i++ {
		fill(buffer, uint64(i))
		for {
			_, err := publication.Offer(buffer)
			if err == nil {
				break
			}
			if oe, ok := err.(OfferError); !ok || !oe.Retryable() {
				return fmt.Errorf("offer %d: %w", i, err)
			}
			if ctx.Err() != nil {
				return fmt.Errorf("offer %d: %w (%v)", i, ctx.Err(), err)
			}
			time.Sleep(50 * time.Microsecond)
		}
	}
	switch role {
	case "publisher":
		// An IPC publication drains to its subscribers after it closes: nothing is lost.
		return nil
	case "publisher-hold":
		fmt.Println("published")
		<-ctx.Done()
		return nil
	}
	return fmt.Errorf("unknown role %q", role)
}
