package aeron

/*
#include <stdlib.h>
#include <aeronmd.h>
*/
import "C"

import (
	"strconv"
	"sync/atomic"
	"time"
	"unsafe"
)

// ThreadingMode is how the embedded driver runs its agents.
type ThreadingMode int

// The threading modes; ThreadingDefault keeps AERON_THREADING_MODE (or Aeron's default,
// dedicated).
const (
	ThreadingDefault ThreadingMode = iota
	ThreadingDedicated
	ThreadingSharedNetwork
	ThreadingShared
)

func (m ThreadingMode) c() C.aeron_threading_mode_t {
	switch m {
	case ThreadingDedicated:
		return C.AERON_THREADING_MODE_DEDICATED
	case ThreadingSharedNetwork:
		return C.AERON_THREADING_MODE_SHARED_NETWORK
	}
	return C.AERON_THREADING_MODE_SHARED
}

// IdleStrategy names a driver agent's idle strategy as Aeron does ("sleep-ns", "yield",
// "noop", "backoff") with its init args (e.g. the sleep in nanoseconds).
type IdleStrategy struct {
	Name string
	Args string
}

// SleepingIdle sleeps d when idle.
func SleepingIdle(d time.Duration) IdleStrategy {
	return IdleStrategy{Name: "sleep-ns", Args: strconv.FormatInt(d.Nanoseconds(), 10)}
}

// YieldingIdle yields the thread when idle.
func YieldingIdle() IdleStrategy { return IdleStrategy{Name: "yield"} }

// BusySpinIdle spins when idle (a core per agent).
func BusySpinIdle() IdleStrategy { return IdleStrategy{Name: "noop"} }

// DriverContext configures an embedded media driver. Zero fields keep libaeronrs's
// defaults (Aeron's environment variables, then Aeron's defaults); a value the driver
// refuses fails LaunchEmbeddedDriver with the setter's error.
type DriverContext struct {
	Dir                            string
	DirDeleteOnStart               bool
	DirDeleteOnShutdown            bool
	ThreadingMode                  ThreadingMode
	TermBufferLength               int
	IpcTermBufferLength            int
	PublicationTermWindowLength    int
	IpcPublicationTermWindowLength int
	MTULength                      int
	SocketRcvbuf                   int
	SocketSndbuf                   int
	TermBufferSparseFile           bool
	SpiesSimulateConnection        bool
	ClientLivenessTimeout          time.Duration
	ImageLivenessTimeout           time.Duration
	PublicationLingerTimeout       time.Duration
	PublicationConnectionTimeout   time.Duration
	PublicationUnblockTimeout      time.Duration
	DriverTimeout                  time.Duration
	TimerInterval                  time.Duration
	ConductorIdle                  IdleStrategy
	SenderIdle                     IdleStrategy
	ReceiverIdle                   IdleStrategy
	SharedNetworkIdle              IdleStrategy
	SharedIdle                     IdleStrategy
}

// EmbeddedDriver is a media driver running in this process on its own threads
// (aeron_driver_t from aeronmd.h).
type EmbeddedDriver struct {
	context *C.aeron_driver_context_t
	driver  *C.aeron_driver_t
	dir     string
	closed  atomic.Bool
}

// LaunchEmbeddedDriver configures, initialises and starts a driver.
func LaunchEmbeddedDriver(c DriverContext) (*EmbeddedDriver, error) {
	d := &EmbeddedDriver{}
	if _, err := call("aeron_driver_context_init", func() C.int { return C.aeron_driver_context_init(&d.context) }); err != nil {
		return nil, err
	}
	if err := d.configure(c); err != nil {
		C.aeron_driver_context_close(d.context)
		return nil, err
	}
	if _, err := call("aeron_driver_init", func() C.int { return C.aeron_driver_init(&d.driver, d.context) }); err != nil {
		C.aeron_driver_context_close(d.context)
		return nil, err
	}
	if _, err := call("aeron_driver_start", func() C.int { return C.aeron_driver_start(d.driver, false) }); err != nil {
		C.aeron_driver_close(d.driver)
		C.aeron_driver_context_close(d.context)
		return nil, err
	}
	d.dir = C.GoString(C.aeron_driver_context_get_dir(d.context))
	return d, nil
}

func (d *EmbeddedDriver) configure(c DriverContext) error {
	ctx := d.context
	type setting struct {
		op  string
		set bool
		f   func() C.int
	}
	ns := func(t time.Duration) C.uint64_t { return C.uint64_t(t.Nanoseconds()) }
	settings := []setting{
		{"aeron_driver_context_set_dir_delete_on_start", c.DirDeleteOnStart, func() C.int {
			return C.aeron_driver_context_set_dir_delete_on_start(ctx, true)
		}},
		{"aeron_driver_context_set_dir_delete_on_shutdown", c.DirDeleteOnShutdown, func() C.int {
			return C.aeron_driver_context_set_dir_delete_on_shutdown(ctx, true)
		}},
		{"aeron_driver_context_set_threading_mode", c.ThreadingMode != ThreadingDefault, func() C.int {
			return C.aeron_driver_context_set_threading_mode(ctx, c.ThreadingMode.c())
		}},
		{"aeron_driver_context_set_term_buffer_length", c.TermBufferLength > 0, func() C.int {
			return C.aeron_driver_context_set_term_buffer_length(ctx, C.size_t(c.TermBufferLength))
		}},
		{"aeron_driver_context_set_ipc_term_buffer_length", c.IpcTermBufferLength > 0, func() C.int {
			return C.aeron_driver_context_set_ipc_term_buffer_length(ctx, C.size_t(c.IpcTermBufferLength))
		}},
		{"aeron_driver_context_set_publication_term_window_length", c.PublicationTermWindowLength > 0, func() C.int {
			return C.aeron_driver_context_set_publication_term_window_length(ctx, C.size_t(c.PublicationTermWindowLength))
		}},
		{"aeron_driver_context_set_ipc_publication_term_window_length", c.IpcPublicationTermWindowLength > 0, func() C.int {
			return C.aeron_driver_context_set_ipc_publication_term_window_length(ctx, C.size_t(c.IpcPublicationTermWindowLength))
		}},
		{"aeron_driver_context_set_mtu_length", c.MTULength > 0, func() C.int {
			return C.aeron_driver_context_set_mtu_length(ctx, C.size_t(c.MTULength))
		}},
		{"aeron_driver_context_set_socket_so_rcvbuf", c.SocketRcvbuf > 0, func() C.int {
			return C.aeron_driver_context_set_socket_so_rcvbuf(ctx, C.size_t(c.SocketRcvbuf))
		}},
		{"aeron_driver_context_set_socket_so_sndbuf", c.SocketSndbuf > 0, func() C.int {
			return C.aeron_driver_context_set_socket_so_sndbuf(ctx, C.size_t(c.SocketSndbuf))
		}},
		{"aeron_driver_context_set_term_buffer_sparse_file", c.TermBufferSparseFile, func() C.int {
			return C.aeron_driver_context_set_term_buffer_sparse_file(ctx, true)
		}},
		{"aeron_driver_context_set_spies_simulate_connection", c.SpiesSimulateConnection, func() C.int {
			return C.aeron_driver_context_set_spies_simulate_connection(ctx, true)
		}},
		{"aeron_driver_context_set_client_liveness_timeout_ns", c.ClientLivenessTimeout > 0, func() C.int {
			return C.aeron_driver_context_set_client_liveness_timeout_ns(ctx, ns(c.ClientLivenessTimeout))
		}},
		{"aeron_driver_context_set_image_liveness_timeout_ns", c.ImageLivenessTimeout > 0, func() C.int {
			return C.aeron_driver_context_set_image_liveness_timeout_ns(ctx, ns(c.ImageLivenessTimeout))
		}},
		{"aeron_driver_context_set_publication_linger_timeout_ns", c.PublicationLingerTimeout > 0, func() C.int {
			return C.aeron_driver_context_set_publication_linger_timeout_ns(ctx, ns(c.PublicationLingerTimeout))
		}},
		{"aeron_driver_context_set_publication_connection_timeout_ns", c.PublicationConnectionTimeout > 0, func() C.int {
			return C.aeron_driver_context_set_publication_connection_timeout_ns(ctx, ns(c.PublicationConnectionTimeout))
		}},
		{"aeron_driver_context_set_publication_unblock_timeout_ns", c.PublicationUnblockTimeout > 0, func() C.int {
			return C.aeron_driver_context_set_publication_unblock_timeout_ns(ctx, ns(c.PublicationUnblockTimeout))
		}},
		{"aeron_driver_context_set_driver_timeout_ms", c.DriverTimeout > 0, func() C.int {
			return C.aeron_driver_context_set_driver_timeout_ms(ctx, C.uint64_t(c.DriverTimeout.Milliseconds()))
		}},
		{"aeron_driver_context_set_timer_interval_ns", c.TimerInterval > 0, func() C.int {
			return C.aeron_driver_context_set_timer_interval_ns(ctx, ns(c.TimerInterval))
		}},
	}
	if c.Dir != "" {
		dir := cString(c.Dir)
		defer C.free(unsafe.Pointer(dir))
		settings = append(settings, setting{"aeron_driver_context_set_dir", true, func() C.int {
			return C.aeron_driver_context_set_dir(ctx, dir)
		}})
	}
	for _, s := range settings {
		if !s.set {
			continue
		}
		if _, err := call(s.op, s.f); err != nil {
			return err
		}
	}
	idles := []struct {
		strategy IdleStrategy
		op       string
		args     func(*C.char) C.int
		name     func(*C.char) C.int
	}{
		{c.ConductorIdle, "conductor",
			func(a *C.char) C.int { return C.aeron_driver_context_set_conductor_idle_strategy_init_args(ctx, a) },
			func(n *C.char) C.int { return C.aeron_driver_context_set_conductor_idle_strategy(ctx, n) }},
		{c.SenderIdle, "sender",
			func(a *C.char) C.int { return C.aeron_driver_context_set_sender_idle_strategy_init_args(ctx, a) },
			func(n *C.char) C.int { return C.aeron_driver_context_set_sender_idle_strategy(ctx, n) }},
		{c.ReceiverIdle, "receiver",
			func(a *C.char) C.int { return C.aeron_driver_context_set_receiver_idle_strategy_init_args(ctx, a) },
			func(n *C.char) C.int { return C.aeron_driver_context_set_receiver_idle_strategy(ctx, n) }},
		{c.SharedNetworkIdle, "sharednetwork",
			func(a *C.char) C.int { return C.aeron_driver_context_set_sharednetwork_idle_strategy_init_args(ctx, a) },
			func(n *C.char) C.int { return C.aeron_driver_context_set_sharednetwork_idle_strategy(ctx, n) }},
		{c.SharedIdle, "shared",
			func(a *C.char) C.int { return C.aeron_driver_context_set_shared_idle_strategy_init_args(ctx, a) },
			func(n *C.char) C.int { return C.aeron_driver_context_set_shared_idle_strategy(ctx, n) }},
	}
	for _, idle := range idles {
		if idle.strategy.Name == "" {
			continue
		}
		if err := setIdle(idle.op, idle.strategy, idle.args, idle.name); err != nil {
			return err
		}
	}
	return nil
}

// setIdle sets an agent's idle strategy: its init args first, which apply when the
// strategy is selected by name.
func setIdle(agent string, s IdleStrategy, args, name func(*C.char) C.int) error {
	if s.Args != "" {
		a := cString(s.Args)
		defer C.free(unsafe.Pointer(a))
		if _, err := call("aeron_driver_context_set_"+agent+"_idle_strategy_init_args", func() C.int { return args(a) }); err != nil {
			return err
		}
	}
	n := cString(s.Name)
	defer C.free(unsafe.Pointer(n))
	_, err := call("aeron_driver_context_set_"+agent+"_idle_strategy", func() C.int { return name(n) })
	return err
}

// Dir is the driver's Aeron directory, for Context.Dir.
func (d *EmbeddedDriver) Dir() string { return d.dir }

// Close stops the driver, frees it and its context (deleting the directory if
// configured). Closing twice answers ErrClosed.
func (d *EmbeddedDriver) Close() error {
	if d.closed.Swap(true) {
		return ErrClosed
	}
	_, err := call("aeron_driver_close", func() C.int { return C.aeron_driver_close(d.driver) })
	C.aeron_driver_context_close(d.context)
	return err
}
