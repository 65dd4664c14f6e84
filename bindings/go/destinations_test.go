package aeron

import (
	"fmt"
	"net"
	"testing"
)

func freeUDPPort(t *testing.T) int {
	t.Helper()
	socket, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer socket.Close()
	return socket.LocalAddr().(*net.UDPAddr).Port
}

// A manual multi-destination-cast publication gains a destination, a subscriber there
// receives, and the destination goes again; a multi-destination subscription gains the
// endpoint a plain publication sends to.
func TestDestinations(t *testing.T) {
	driver := embeddedDriver(t, nil)
	client := connectTo(t, driver.Dir())
	ctx := testContext(t)
	endpoint := fmt.Sprintf("aeron:udp?endpoint=127.0.0.1:%d", freeUDPPort(t))

	sub, err := client.AddSubscription(ctx, endpoint, 1040)
	if err != nil {
		t.Fatal(err)
	}
	mdc, err := client.AddExclusivePublication(ctx, "aeron:udp?control-mode=manual|term-length=64k", 1040)
	if err != nil {
		t.Fatal(err)
	}
	if err := mdc.AddDestination(ctx, endpoint); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the destination's subscriber", mdc.IsConnected)
	r := &received{t: t, length: func(uint64) int { return 48 }}
	for i := uint64(0); i < 100; i++ {
		offerUntil(t, mdc, message(i, 48))
	}
	pollUntil(t, sub, r.onMessage, func() uint64 { return r.next }, 100)
	if r.failure != "" {
		t.Fatal(r.failure)
	}
	if err := mdc.RemoveDestination(ctx, endpoint); err != nil {
		t.Fatal(err)
	}
	if err := mdc.AddDestination(ctx, "aeron:udp?endpoint=no-port"); err == nil {
		t.Fatal("a destination without a port is accepted")
	}

	mdsEndpoint := fmt.Sprintf("aeron:udp?endpoint=127.0.0.1:%d", freeUDPPort(t))
	mds, err := client.AddSubscription(ctx, "aeron:udp?control-mode=manual", 1041)
	if err != nil {
		t.Fatal(err)
	}
	if err := mds.AddDestination(ctx, mdsEndpoint); err != nil {
		t.Fatal(err)
	}
	pub, err := client.AddPublication(ctx, mdsEndpoint+"|term-length=64k", 1041)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the multi-destination subscription", pub.IsConnected)
	r = &received{t: t, length: func(uint64) int { return 48 }}
	for i := uint64(0); i < 100; i++ {
		offerUntil(t, pub, message(i, 48))
	}
	pollUntil(t, mds, r.onMessage, func() uint64 { return r.next }, 100)
	if r.failure != "" {
		t.Fatal(r.failure)
	}
	if err := mds.RemoveDestination(ctx, mdsEndpoint); err != nil {
		t.Fatal(err)
	}
	_ = pub.Close()
	if err := pub.AddDestination(ctx, endpoint); err != ErrClosed {
		t.Fatalf("destination of a closed publication: %v", err)
	}
}
