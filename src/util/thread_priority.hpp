#pragma once
// Scheduling priority of the calling thread (Linux: each thread has its own nice value). The
// daemon lowers its synthesis threads so that the stage the pipeline waits on (the device stage's
// host work: the witness copy into pinned memory, kernel launches) is not starved by them.
namespace cuzk {

// The calling thread's nice value.
int current_thread_nice();

// Makes the calling thread `increment` nice levels lower in priority than it is now (clamped to
// the lowest, 19). Raising the niceness needs no privilege. Returns the new nice value, or the old
// one if the system refused (the thread keeps running, only its priority is unchanged).
int lower_current_thread_priority(int increment);

}  // namespace cuzk
