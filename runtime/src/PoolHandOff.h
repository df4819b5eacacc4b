// pthreadpool is not built with ThreadSanitizer, so the hand-off of a task
// to its workers and back is invisible to it; a TSan build states those two
// happens-before edges itself (on the task's address). Threaded reference
// kernels call handOff before pthreadpool_parallelize_* and takeOver after
// it, and each worker calls takeOver on entry and handOff on exit.
#pragma once

#if defined(__SANITIZE_THREAD__)
#define KILN_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define KILN_TSAN 1
#endif
#endif

#ifdef KILN_TSAN
extern "C" void __tsan_acquire(void *Addr);
extern "C" void __tsan_release(void *Addr);
#endif

namespace kiln::rt::ref {

#ifdef KILN_TSAN
inline void handOff(void *Task) { __tsan_release(Task); }
inline void takeOver(void *Task) { __tsan_acquire(Task); }
#else
inline void handOff(void *) {}
inline void takeOver(void *) {}
#endif

} // namespace kiln::rt::ref
