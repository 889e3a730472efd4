#pragma once
// Ends of the process that skip its exit handlers (docs/format.md, "Log files"): a
// fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, abort included), SIGINT,
// SIGTERM or SIGHUP that the program does not handle, _exit and _Exit, quick_exit.
// Each asks the shim's exit thread to run the lifecycle's at_abrupt_end handlers (write
// out what is recorded) and waits for it, a bounded time, with async-signal-safe means
// only; then the process ends as it would have: the signal is raised again with its
// original disposition, _exit's status is the program's. SIGKILL cannot be caught: what
// the writer thread had not written yet (at most its last 20 ms) is lost.
namespace computeprof::shim {

// Starts the exit thread and installs the handlers (once; with the first at_abrupt_end
// handler: lifecycle.cpp). A signal the program ignores is left alone; a handler of the
// program's is kept and called as before, with its own mask and flags, and when it
// returns into the end of the process (the default disposition set back and the signal
// raised again, or a fault that repeats), what is recorded is written out first. The
// shim does not intercept sigaction: a handler the program installs later replaces the
// shim's.
void watch_abrupt_end();

// Async-signal-safe: runs the at_abrupt_end handlers on the exit thread and waits for
// them (at most a second). Nothing in a process that did not start the exit thread (a
// forked or vforked child).
void abrupt_end();

}  // namespace computeprof::shim
