// A host slow at latency for bench/accept_vcluster.sh's "latency" case: preloaded (LD_PRELOAD) into one namespace
// host's ranks, it delays each writev(2) on a socket by COMMBENCH_SEND_DELAY_US microseconds, as a slow driver or
// interrupt moderation would. Gloo's TCP transport sends with writev alone (its rendezvous over Redis uses
// write(2), left alone). A kernel qdisc would be the natural tool, but this kernel has no netem and tbf delays a
// packet only as a bandwidth cap does. Also bench/gate_shared_runner.sh's regression made outside commbench (2 us
// more per send). Not linked into commbench; a test tool.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>

typedef ssize_t (*WritevFn)(int, const struct iovec*, int);

static long DelayUs(void) {
  static long us = -1;
  if (us < 0) {
    const char* text = getenv("COMMBENCH_SEND_DELAY_US");
    us = text ? atol(text) : 0;
    if (us < 0) us = 0;
  }
  return us;
}

// Delays below this spin on the clock: nanosleep cannot wake sooner than the thread's timer slack (50 us by
// default) plus a wake-up, so a "2 us" sleep cost the gate's B side about 60 us a send and a reschedule.
enum { kSpinBelowUs = 200 };

static void Spin(long us) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do {
    clock_gettime(CLOCK_MONOTONIC, &t);
  } while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < us * 1000L);
}

static void Sleep(long us) {
  struct timespec t = {us / 1000000, (us % 1000000) * 1000};
  while (nanosleep(&t, &t) != 0 && errno == EINTR) {
  }
}

ssize_t writev(int fd, const struct iovec* iov, int iovcnt) {
  static WritevFn next = NULL;
  if (!next) next = (WritevFn)dlsym(RTLD_NEXT, "writev");
  struct stat st;
  const long us = DelayUs();
  if (us > 0 && fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode)) {
    if (us < kSpinBelowUs) {
      Spin(us);
    } else {
      Sleep(us);
    }
  }
  return next(fd, iov, iovcnt);
}
