// init_process_group's init_method: a URL the user, a launcher or a configuration file
// hands over (env://, tcp://host:port, tcp://[multicast]:port, file:///path), with the
// world_size and rank arguments. The first two bytes give those arguments (-1: not
// given), the rest is the URL; the environment is empty, so nothing else decides.
// Checks that a URL is refused only with a weft::Error, and that an accepted one names
// a store the way its scheme says: a host for tcp://, an absolute path for file://,
// neither for a world of one.
#include <dlfcn.h>
#include <netdb.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "rendezvous/init_method.h"
#include "tests/fuzz/fuzz_check.h"
#include "weft/error.h"

namespace r = weft::rendezvous;

// Name resolution is numeric only here: a DNS query for every mutated host name would
// measure the network, not the parser.
extern "C" int getaddrinfo(const char* node, const char* service, const addrinfo* hints,
                           addrinfo** res) {
  using Real = int (*)(const char*, const char*, const addrinfo*, addrinfo**);
  static Real real = reinterpret_cast<Real>(dlsym(RTLD_NEXT, "getaddrinfo"));
  addrinfo numeric = hints != nullptr ? *hints : addrinfo{};
  numeric.ai_flags |= AI_NUMERICHOST;
  return real(node, service, &numeric, res);
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  clearenv();  // no MASTER_ADDR, RANK, launcher variables: the URL alone decides
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  // 0..7 as given, 8..255 as "not given" (-1), so that both are common.
  const int world_size = data[0] < 8 ? data[0] : -1;
  const int rank = data[1] < 8 ? data[1] : -1;
  const std::string url(reinterpret_cast<const char*>(data) + 2, size - 2);
  r::InitSpec spec;
  try {
    spec = r::parse_init_method(url, world_size, rank);
  } catch (const weft::Error&) {
    return 0;
  }
  if (spec.singleton) {
    FUZZ_CHECK(spec.world_size == 1 && spec.rank == 0, "a singleton that is not rank 0 of 1");
  } else if (url.rfind("tcp://", 0) == 0) {
    FUZZ_CHECK(!spec.store_host.empty() && spec.store_file.empty(), "tcp:// without a host");
    FUZZ_CHECK(url.find(spec.store_host) != std::string::npos, "a host not in the URL");
  } else if (url.rfind("file://", 0) == 0) {
    FUZZ_CHECK(!spec.store_file.empty() && spec.store_file[0] == '/', "file:// not absolute");
    FUZZ_CHECK(url.substr(7) == spec.store_file, "the path is not the URL's");
  } else {
    FUZZ_CHECK(url.empty() || url == "env://", "an unknown scheme was accepted");
  }
  try {
    r::check_rank(spec);
  } catch (const weft::Error&) {
  }
  return 0;
}
