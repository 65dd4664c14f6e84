// Package aeron is a Go client for Aeron messaging over libaeronrs, the Rust
// implementation of Aeron shipped as a C library with Aeron 1.48's C API. It offers the
// client (publications, exclusive publications, subscriptions, images, counters), an
// embedded media driver, and aeronrs's extras: standalone ring buffers (one-to-one and
// many-to-one) and a persistent memory-mapped bus.
//
// Build: cgo finds the library through pkg-config (name aeronrs). Stage it with
// scripts/build-c-package.sh, then
//
//	export PKG_CONFIG_PATH=/path/to/aeronrs/target/dist/lib/pkgconfig
//	go build
//
// and run with the library on the loader's path (LD_LIBRARY_PATH, or an rpath given
// through CGO_LDFLAGS="-Wl,-rpath,<libdir>").
//
// Cost model. A cgo call costs tens of nanoseconds and a call from C back into Go far
// more, so Subscription.Poll never calls into Go per fragment: one C call describes up to
// the fragment limit's worth of fragments into an array (aeronrs_subscription_poll_batch),
// Go walks the array calling the handler with slices over the log buffer (no copy), then
// consumes what was handled by storing the image's new subscriber position (what
// aeronrs_fragment_batch_commit does, without a second cgo call). Offer passes the caller's
// slice to C as it is; nothing is copied on the Go side; OfferBatch hands many messages to
// C in one call.
//
// Threading follows Aeron: a Client, Publication, ExclusivePublication (one offering
// goroutine at a time for the latter) and Counter may be used from any goroutine; a
// Subscription is polled by one goroutine at a time. Close a handle only once no other
// goroutine uses it; a handle used after Close (or closed twice) answers ErrClosed.
//
// Errors: failed calls return *Error carrying aeron_errcode() and aeron_errmsg(); test
// them with errors.Is against the Code constants (ErrInvalidChannel, ErrDriverTimeout, ...)
// or syscall errno values. Offer and TryClaim results are typed errors as well:
// errors.Is(err, aeron.ErrBackPressured).
package aeron
