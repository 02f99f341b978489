#include "lib/launch/interrupt.h"

#include <signal.h>

#include <initializer_list>

namespace commbench {
namespace {

volatile sig_atomic_t g_signal = 0;

void OnSignal(int sig) { g_signal = sig; }

}  // namespace

void InstallInterruptHandlers() {
  struct sigaction sa = {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaction(sig, &sa, nullptr);
}

bool Interrupted() { return g_signal != 0; }
int InterruptSignal() { return g_signal; }

}  // namespace commbench
