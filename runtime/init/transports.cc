#include "runtime/init/transports.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "base/env.h"
#include "base/log.h"
#include "transport/ib/devices.h"
#include "weft/error.h"

namespace weft::runtime {
namespace {

// What carries messages, for the errors that say what may be chosen.
constexpr char kKnown[] = "known: shm, tcp, ib";

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// The names torch.distributed's programs pass; each means weft's own transports, as
// "auto" does, so such a program runs unchanged.
bool is_compatible_name(const std::string& name) {
  return name == "gloo" || name == "mpi" || name == "nccl";
}

// The transports chosen. ib is named only where WEFT_TRANSPORTS asked for it; by default
// it serves peers on other hosts that it reaches, which log_verbs_devices tells.
std::string chosen(const TransportChoice& choice) {
  std::string names;
  if (choice.shm) names = "shm";
  if (choice.tcp) names += names.empty() ? "tcp" : ", tcp";
  if (choice.ib && choice.ib_asked) names += names.empty() ? "ib" : ", ib";
  return names;
}

// What serves instead of verbs, for the lines that say verbs cannot.
std::string instead(const TransportChoice& choice) {
  TransportChoice without = choice;
  without.ib = false;
  return choice.tcp ? "peers on other hosts use tcp" : "using " + chosen(without) + " only";
}

// `ib` in WEFT_TRANSPORTS: the devices are probed now, so that `ib` alone with no usable
// port fails here, saying why, rather than at the first peer. Beside other transports,
// one line says what was found, and the others serve where verbs cannot.
void check_verbs_request(TransportChoice& choice, bool alone,
                         const transport::ib::ProbeOptions& options) {
  const transport::ib::VerbsReport report = transport::ib::probe_verbs_devices(options);
  if (alone && !report.usable()) {
    throw InvalidArgument(choice.setting + ": no verbs device to use: " + report.why_none +
                          " (leave WEFT_TRANSPORTS unset, or add shm and tcp)");
  }
  if (report.usable()) {
    WEFT_LOG(INFO) << "verbs: found " << report.summary() << "; peers reachable over it use ib ("
                   << choice.setting << ")";
  } else {
    WEFT_LOG(INFO) << "verbs: " << report.why_none << "; " << instead(choice);
    choice.ib = false;
  }
}

// WEFT_TRANSPORTS unset: one INFO line, once per process, says what verbs devices there
// are. Only when INFO lines are wanted: probing loads libibverbs and opens every device,
// which init itself does only when some peer is on another host.
void log_verbs_devices(const TransportChoice& choice, const transport::ib::ProbeOptions& options) {
  if (!base::log::enabled(base::log::Level::kInfo) || !base::log::first_time("verbs devices")) {
    return;
  }
  const transport::ib::VerbsReport report = transport::ib::probe_verbs_devices(options);
  if (report.usable()) {
    WEFT_LOG(INFO) << "verbs: found " << report.summary()
                   << "; peers on other hosts use ib where both ends have a port on a common "
                      "fabric, else tcp";
  } else {
    WEFT_LOG(INFO) << "verbs: " << report.why_none << "; " << instead(choice);
  }
}

}  // namespace

TransportChoice select_transports(const std::string& backend) {
  TransportChoice choice;
  const std::string name = lowercase(backend);
  if (name == "tcp") {
    choice.shm = false;
    choice.ib = false;
    choice.setting = "backend 'tcp'";
  } else if (name != "auto" && !is_compatible_name(name)) {
    throw InvalidArgument("init_process_group: backend '" + backend +
                          "' is not supported; use 'auto' (best transport per peer), 'tcp' "
                          "(TCP only), or 'gloo', 'mpi' or 'nccl' (each meaning 'auto'); "
                          "case does not matter");
  }
  // Read whether or not ib is asked for, so that a malformed value is refused, never
  // ignored; reading them loads nothing.
  const transport::ib::ProbeOptions verbs_options = transport::ib::ProbeOptions::from_env();
  auto list = base::env::get("WEFT_TRANSPORTS");
  if (list) {
    bool tcp = false, shm = false, ib = false;
    std::stringstream in(*list);
    std::string transport;
    while (std::getline(in, transport, ',')) {
      if (transport == "tcp") {
        tcp = true;
      } else if (transport == "shm") {
        shm = true;
      } else if (transport == "ib") {
        ib = true;
      } else if (!transport.empty()) {
        throw InvalidArgument("WEFT_TRANSPORTS=" + *list + ": unknown transport '" + transport +
                              "' (" + kKnown + ")");
      }
    }
    choice.tcp = choice.tcp && tcp;
    choice.shm = choice.shm && shm;
    // Backend 'tcp' rules verbs out as it rules out shared memory.
    choice.ib = choice.ib && ib;
    choice.ib_asked = choice.ib;
    choice.setting = "WEFT_TRANSPORTS=" + *list + (name == "tcp" ? " with backend 'tcp'" : "");
    if (!choice.tcp && !choice.shm && !choice.ib) {
      throw InvalidArgument(choice.setting + " leaves no transport to reach peers with (" + kKnown +
                            ")");
    }
    if (choice.ib) check_verbs_request(choice, !choice.tcp && !choice.shm, verbs_options);
  } else if (name != "tcp") {
    log_verbs_devices(choice, verbs_options);
  }
  WEFT_LOG(INFO) << "backend \"" << backend << "\": using "
                 << (name == "tcp" ? "TCP only" : "weft's own transports") << " (" << chosen(choice)
                 << ")" << (list ? " as WEFT_TRANSPORTS=" + *list + " allows" : "");
  return choice;
}

}  // namespace weft::runtime
