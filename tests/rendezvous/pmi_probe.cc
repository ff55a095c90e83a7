// One rank of a job started by a PMI-1 process manager (mpiexec.hydra -n N pmi_probe):
// puts k<rank>=v<rank>, waits in the barrier for every rank, reads every other rank's
// key and checks its value, then prints "pmi_probe rank R of N ok" and exits 0. Any
// failure is printed to stderr and exits 1; no PMI_FD at all exits 2.
#include <cstdio>
#include <optional>
#include <string>

#include "rendezvous/pmi_client.h"
#include "weft/error.h"

int main() {
  using weft::rendezvous::PmiClient;
  try {
    std::optional<PmiClient> pmi = PmiClient::from_environment();
    if (!pmi) {
      std::fprintf(stderr, "pmi_probe: PMI_FD is not set; start it with mpiexec.hydra\n");
      return 2;
    }
    pmi->init();
    int rank = pmi->rank();
    int size = pmi->size();
    pmi->put("k" + std::to_string(rank), "v" + std::to_string(rank));
    pmi->barrier();
    for (int other = 0; other < size; ++other) {
      if (other == rank) continue;
      std::string value = pmi->get("k" + std::to_string(other));
      if (value != "v" + std::to_string(other)) {
        std::fprintf(stderr, "pmi_probe rank %d: k%d is '%s', expected 'v%d'\n", rank, other,
                     value.c_str(), other);
        return 1;
      }
    }
    // A second barrier, so that no rank finalizes while another still reads.
    pmi->barrier();
    pmi->finalize();
    std::printf("pmi_probe rank %d of %d ok\n", rank, size);
    std::fflush(stdout);
    return 0;
  } catch (const weft::Error& e) {
    std::fprintf(stderr, "pmi_probe: %s\n", e.what());
    return 1;
  }
}
