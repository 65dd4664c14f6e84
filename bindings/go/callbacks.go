package aeron

/*
#include "shim.h"
*/
import "C"

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// C code may not keep Go pointers, so callbacks registered with C name their Go side by
// an id in this registry. An id no longer registered is ignored: a callback that was
// already on its way when its owner closed finds nothing and does nothing.
var (
	callbacks      sync.Map // uintptr -> any
	nextCallbackID atomic.Uintptr
)

func registerCallback(target any) uintptr {
	id := nextCallbackID.Add(1)
	callbacks.Store(id, target)
	return id
}

func unregisterCallback(id uintptr) {
	if id != 0 {
		callbacks.Delete(id)
	}
}

func lookupCallback(id C.uintptr_t) any {
	target, _ := callbacks.Load(uintptr(id))
	return target
}

// imageCallbacks are a subscription's image handlers.
type imageCallbacks struct {
	onAvailable   func(*Image)
	onUnavailable func(*Image)
	// owner is the subscription, so the images handed out answer ErrClosed once it closed.
	owner *Subscription
}

//export goOnImage
func goOnImage(id C.uintptr_t, available C.int, image *C.aeron_image_t) {
	target, ok := lookupCallback(id).(*imageCallbacks)
	if !ok {
		return
	}
	img := newImage(image, target.owner, false)
	if available != 0 {
		if target.onAvailable != nil {
			target.onAvailable(img)
		}
	} else if target.onUnavailable != nil {
		target.onUnavailable(img)
	}
}

//export goOnError
func goOnError(id C.uintptr_t, code C.int, message *C.char) {
	if handler, ok := lookupCallback(id).(func(error)); ok {
		handler(&Error{Op: "client conductor", Code: Code(code), Message: C.GoString(message)})
	}
}

//export goOnCounter
func goOnCounter(id C.uintptr_t, value C.int64_t, counterID C.int32_t, typeID C.int32_t,
	key *C.uint8_t, keyLength C.size_t, label *C.char, labelLength C.size_t) {
	visit, ok := lookupCallback(id).(func(CounterInfo))
	if !ok {
		return
	}
	visit(CounterInfo{
		ID:     int32(counterID),
		TypeID: int32(typeID),
		Value:  int64(value),
		Key:    C.GoBytes(unsafe.Pointer(key), C.int(keyLength)),
		Label:  C.GoStringN(label, C.int(labelLength)),
	})
}
