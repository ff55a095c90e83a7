// A rank for the weftrun tests: prints what weftrun told it (one line of launcher
// variables, then "env NAME=value" or "env NAME unset" for each NAME in argv, then
// "cpus=0,1,..." where it may run), a few
// more lines on stdout and one on stderr, and proves MASTER_ADDR:MASTER_PORT is a store
// shared by the whole job: every rank sets its key, then reads every other rank's.
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "rendezvous/tcp_store_client.h"

namespace {

std::string env_or(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value ? value : fallback;
}

}  // namespace

int main(int argc, char** argv) {
  // A test that fails halfway must not leave ranks behind.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  std::string rank = env_or("RANK", "?");
  std::printf(
      "rank=%s world=%s local_rank=%s local_world=%s master_addr=%s master_port=%s "
      "launcher_store=%s\n",
      rank.c_str(), env_or("WORLD_SIZE", "?").c_str(), env_or("LOCAL_RANK", "?").c_str(),
      env_or("LOCAL_WORLD_SIZE", "?").c_str(), env_or("MASTER_ADDR", "?").c_str(),
      env_or("MASTER_PORT", "?").c_str(), env_or("WEFT_LAUNCHER_STORE", "?").c_str());
  for (int i = 1; i < argc; ++i) {
    const char* value = std::getenv(argv[i]);
    if (value) {
      std::printf("env %s=%s\n", argv[i], value);
    } else {
      std::printf("env %s unset\n", argv[i]);
    }
  }
  // Where weftrun let it run (--bind-to).
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  sched_getaffinity(0, sizeof allowed, &allowed);
  std::string cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &allowed)) cpus += (cpus.empty() ? "" : ",") + std::to_string(cpu);
  }
  std::printf("cpus=%s\n", cpus.c_str());
  std::printf("first of two lines from rank %s\nsecond of two lines from rank %s\n", rank.c_str(),
              rank.c_str());
  std::fprintf(stderr, "a line on stderr from rank %s\n", rank.c_str());
  std::fflush(stdout);

  try {
    int world = std::stoi(env_or("WORLD_SIZE", "0"));
    auto port = static_cast<uint16_t>(std::stoi(env_or("MASTER_PORT", "0")));
    auto deadline = weft::base::Deadline::after(std::chrono::seconds(10));
    weft::rendezvous::TcpStoreClient store(env_or("MASTER_ADDR", "127.0.0.1"), port, deadline);
    store.set("rank/" + rank, "hello from " + rank, deadline);
    for (int peer = 0; peer < world; ++peer) {
      std::string expected = "hello from " + std::to_string(peer);
      std::string got = store.get("rank/" + std::to_string(peer), deadline);
      if (got != expected) {
        std::fprintf(stderr, "store: rank/%d is '%s', expected '%s'\n", peer, got.c_str(),
                     expected.c_str());
        return 1;
      }
    }
    std::printf("store ok: saw %d ranks\n", world);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "store: %s\n", e.what());
    return 1;
  }
  return 0;
}
