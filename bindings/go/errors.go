package aeron

/*
#cgo pkg-config: aeronrs
#include <aeronc.h>
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"syscall"
)

// Code is a value of aeron_errcode(): > 0 an errno, < 0 an Aeron code (the control
// protocol's -AERON_ERROR_CODE_*, or AERON_CLIENT_ERROR_*). As an error it matches any
// *Error with that code: errors.Is(err, aeron.ErrInvalidChannel).
type Code int

// Aeron's codes, as aeron_errcode() reports them.
const (
	ErrGeneric                 = Code(-11)
	ErrInvalidChannel          = Code(-1)
	ErrUnknownSubscription     = Code(-2)
	ErrUnknownPublication      = Code(-3)
	ErrChannelEndpoint         = Code(-4)
	ErrUnknownCounter          = Code(-5)
	ErrMalformedCommand        = Code(-7)
	ErrNotSupported            = Code(-8)
	ErrUnknownHost             = Code(-9)
	ErrResourceUnavailable     = Code(-10)
	ErrStorageSpace            = Code(-12)
	ErrImageRejected           = Code(-13)
	ErrDriverTimeout           = Code(C.AERON_CLIENT_ERROR_DRIVER_TIMEOUT)
	ErrClientTimeout           = Code(C.AERON_CLIENT_ERROR_CLIENT_TIMEOUT)
	ErrConductorServiceTimeout = Code(C.AERON_CLIENT_ERROR_CONDUCTOR_SERVICE_TIMEOUT)
	ErrBufferFull              = Code(C.AERON_CLIENT_ERROR_BUFFER_FULL)
	// ErrInvalidArgument is EINVAL: a NULL, out-of-range or malformed argument.
	ErrInvalidArgument = Code(syscall.EINVAL)
	// ErrTimedOut is ETIMEDOUT, e.g. no media driver found within the driver timeout.
	ErrTimedOut = Code(syscall.ETIMEDOUT)
)

func (c Code) Error() string {
	if c > 0 {
		return syscall.Errno(c).Error()
	}
	return fmt.Sprintf("aeron error code %d", int(c))
}

// Error is a failed libaeronrs call: the C function, aeron_errcode() and aeron_errmsg().
type Error struct {
	Op      string
	Code    Code
	Message string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: (%d) %s", e.Op, int(e.Code), e.Message)
}

// Is matches a Code or a syscall.Errno equal to the error's code.
func (e *Error) Is(target error) bool {
	switch t := target.(type) {
	case Code:
		return t == e.Code
	case syscall.Errno:
		return int(t) == int(e.Code)
	}
	return false
}

// ErrClosed is returned by every method of a handle (client, publication, subscription,
// counter, driver, ring buffer, bus) used after its Close, or closed twice.
var ErrClosed = errors.New("aeron: handle is closed")

// OfferError is a negative result of Offer, OfferParts or TryClaim (AERON_PUBLICATION_*):
// the message was not sent. NotConnected, BackPressured and AdminAction are worth a retry.
type OfferError int64

// The offer results.
const (
	ErrNotConnected        = OfferError(C.AERON_PUBLICATION_NOT_CONNECTED)
	ErrBackPressured       = OfferError(C.AERON_PUBLICATION_BACK_PRESSURED)
	ErrAdminAction         = OfferError(C.AERON_PUBLICATION_ADMIN_ACTION)
	ErrPublicationClosed   = OfferError(C.AERON_PUBLICATION_CLOSED)
	ErrMaxPositionExceeded = OfferError(C.AERON_PUBLICATION_MAX_POSITION_EXCEEDED)
	offerResultError       = int64(C.AERON_PUBLICATION_ERROR)
)

func (e OfferError) Error() string {
	switch e {
	case ErrNotConnected:
		return "aeron: publication not connected"
	case ErrBackPressured:
		return "aeron: publication back pressured"
	case ErrAdminAction:
		return "aeron: publication admin action"
	case ErrPublicationClosed:
		return "aeron: publication closed"
	case ErrMaxPositionExceeded:
		return "aeron: publication max position exceeded"
	}
	return fmt.Sprintf("aeron: offer result %d", int64(e))
}

// Retryable says whether the same offer may succeed later.
func (e OfferError) Retryable() bool {
	return e == ErrNotConnected || e == ErrBackPressured || e == ErrAdminAction
}

// lastError reads this OS thread's aeron_errcode()/aeron_errmsg(). The caller has locked
// its goroutine to the thread since the failing call (the error is thread-local).
func lastError(op string) error {
	return &Error{Op: op, Code: Code(C.aeron_errcode()), Message: C.GoString(C.aeron_errmsg())}
}

// call runs f on a locked OS thread; a negative result is an error read on that thread.
func call(op string, f func() C.int) (int, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if result := f(); result < 0 {
		return int(result), lastError(op)
	} else {
		return int(result), nil
	}
}

// callOK runs ok on a locked OS thread; false is an error read on that thread.
func callOK(op string, ok func() bool) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if !ok() {
		return lastError(op)
	}
	return nil
}

// offerResult turns an offer's result into a position or a typed error. Runs on the
// locked thread of the offer.
func offerResult(op string, result C.int64_t) (int64, error) {
	if result >= 0 {
		return int64(result), nil
	}
	if int64(result) == offerResultError {
		return int64(result), lastError(op)
	}
	return int64(result), OfferError(result)
}
