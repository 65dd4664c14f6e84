package aeron

import "runtime"

// aeron_errcode()/aeron_errmsg() are thread-local: a failing call and the reading of its
// error must run on the same OS thread.
func lockThread() {
	runtime.LockOSThread()
}

func unlockThread() {
	runtime.UnlockOSThread()
}
