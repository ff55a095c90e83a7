// weft-info: what weft sees on this host, like ompi_info and `nvidia-smi topo -m`
// together: weft's version and build, the hardware topology (hwloc), the transports it
// can use here and why not where it cannot, and the environment variables it reads.
//
//   weft-info [--json] [--version]
#include <cstdio>
#include <cstring>

#include "tools/info/survey.h"
#include "weft/version.h"

int main(int argc, char** argv) {
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0) {
      json = true;
    } else if (std::strcmp(argv[i], "--version") == 0) {
      std::printf("weft-info (weft) %s\n", weft::kVersion);
      return 0;
    } else {
      const bool help = std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0;
      if (!help) std::fprintf(stderr, "weft-info: unknown argument %s\n", argv[i]);
      std::fprintf(help ? stdout : stderr,
                   "usage: weft-info [--json] [--version]\n"
                   "  prints weft's build, this host's topology, the transports weft can use "
                   "here (and why not where it cannot) and the environment variables it "
                   "reads; --json for tools\n");
      return help ? 0 : 2;
    }
  }
  weft::info::InfoNode report;
  report.add("weft", weft::info::survey_build());
  report.add("topology", weft::info::survey_topology());
  report.add("transports", weft::info::survey_transports());
  report.add("environment", weft::info::survey_environment());
  const std::string text = json ? report.to_json() : report.to_text();
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}
