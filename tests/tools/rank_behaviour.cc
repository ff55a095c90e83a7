// A rank for the weftrun tests that misbehaves on request. RANK picks the role:
//   exit R CODE          rank R exits with CODE at once; the others sleep (at most 30 s)
//   exit-together R CODE rank R exits with CODE at once; the others exit 1 after 300 ms,
//                        like ranks that notice a dead peer
//   signal R SIG         rank R raises SIG; the others sleep
//   exit-then-kill R CODE K
//                        rank R exits with CODE at once, rank K raises SIGKILL 50 ms
//                        later, like a killed rank whose peer reports it first
//   sleep S              every rank sleeps S seconds, then exits 0
//   partial              prints "no newline at end" without a newline and exits 0
//   spam                 prints "spam" lines until stdout breaks (at most 30 s)
//   trap-term            prints "ready"; on SIGTERM prints "rank R got SIGTERM", exits 0
//   ignore-term          ignores SIGTERM, prints "ready", sleeps
//   ignore-int           ignores SIGINT, prints "ready", sleeps
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

int g_rank = -1;

void sleep_seconds(double seconds) {
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

void on_sigterm(int) {
  char line[64];
  int n = std::snprintf(line, sizeof line, "rank %d got SIGTERM\n", g_rank);
  (void)!write(STDOUT_FILENO, line, static_cast<size_t>(n));
  _exit(0);
}

void say_ready() {
  std::printf("ready\n");
  std::fflush(stdout);
}

int usage() {
  std::fprintf(stderr, "rank_behaviour: bad arguments\n");
  return 64;
}

}  // namespace

int main(int argc, char** argv) {
  // A test that fails halfway must not leave ranks behind.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  const char* rank_text = std::getenv("RANK");
  if (rank_text == nullptr || argc < 2) return usage();
  g_rank = std::atoi(rank_text);
  std::string mode = argv[1];
  constexpr double kLongSleep = 30;

  if ((mode == "exit" || mode == "exit-together" || mode == "signal") && argc == 4) {
    int chosen = std::atoi(argv[2]);
    int value = std::atoi(argv[3]);
    if (g_rank == chosen) {
      if (mode == "signal") raise(value);
      return value;
    }
    if (mode == "exit-together") {
      sleep_seconds(0.3);
      return 1;
    }
    sleep_seconds(kLongSleep);
    return 0;
  }
  if (mode == "exit-then-kill" && argc == 5) {
    if (g_rank == std::atoi(argv[2])) return std::atoi(argv[3]);
    if (g_rank == std::atoi(argv[4])) {
      sleep_seconds(0.05);
      raise(SIGKILL);
    }
    sleep_seconds(kLongSleep);
    return 0;
  }
  if (mode == "sleep" && argc == 3) {
    sleep_seconds(std::atof(argv[2]));
    return 0;
  }
  if (mode == "partial") {
    std::printf("no newline at end");
    return 0;
  }
  if (mode == "spam") {
    auto stop = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < stop) std::printf("spam\n");
    return 0;
  }
  if (mode == "trap-term" || mode == "ignore-term" || mode == "ignore-int") {
    struct sigaction action {};
    sigemptyset(&action.sa_mask);
    action.sa_handler = mode == "trap-term" ? on_sigterm : SIG_IGN;
    sigaction(mode == "ignore-int" ? SIGINT : SIGTERM, &action, nullptr);
    say_ready();
    sleep_seconds(kLongSleep);
    return 0;
  }
  return usage();
}
