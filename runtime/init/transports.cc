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

// What carries messages in this build, for the errors that say what may be chosen.
constexpr char kThisBuild[] =
    "this build moves messages over shm and tcp; its ib finds devices but cannot use them yet";

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

std::string chosen(const TransportChoice& choice) {
  std::string names;
  if (choice.shm) names = "shm";
  if (choice.tcp) names += names.empty() ? "tcp" : ", tcp";
  return names;
}

// What serves instead of verbs, for the lines that say verbs do not.
std::string instead(const TransportChoice& choice) {
  return choice.tcp ? "peers on other hosts use tcp" : "using " + chosen(choice) + " only";
}

// `ib` in WEFT_TRANSPORTS. This build has no verbs transport to choose, so `ib` alone is
// refused whatever the probe finds (never pretended); beside other transports, which
// then serve, a line says what was found: a warning where a device could have served.
void check_verbs_request(const TransportChoice& choice, bool alone,
                         const transport::ib::ProbeOptions& options) {
  const transport::ib::VerbsReport report = transport::ib::probe_verbs_devices(options);
  if (alone && !report.usable()) {
    throw InvalidArgument(choice.setting + ": no verbs device to use: " + report.why_none + " (" +
                          kThisBuild + ")");
  }
  if (alone) {
    throw InvalidArgument(choice.setting + ": found " + report.summary() +
                          ", but the verbs transport is not available in this build yet; use "
                          "shm and tcp (leave WEFT_TRANSPORTS unset, or WEFT_TRANSPORTS=shm,tcp)");
  }
  if (report.usable()) {
    WEFT_LOG(WARN) << "verbs: found " << report.summary()
                   << ", but the verbs transport is not available in this build yet; "
                   << instead(choice) << " (" << choice.setting << ")";
  } else {
    WEFT_LOG(INFO) << "verbs: " << report.why_none << "; " << instead(choice);
  }
}

// WEFT_TRANSPORTS unset: one INFO line, once per process, says what verbs devices there
// are. Only when INFO lines are wanted: probing loads libibverbs and opens every device,
// which nothing else of init needs yet.
void log_verbs_devices(const TransportChoice& choice, const transport::ib::ProbeOptions& options) {
  if (!base::log::enabled(base::log::Level::kInfo) || !base::log::first_time("verbs devices")) {
    return;
  }
  const transport::ib::VerbsReport report = transport::ib::probe_verbs_devices(options);
  if (report.usable()) {
    WEFT_LOG(INFO) << "verbs: found " << report.summary()
                   << "; the verbs transport is not available in this build yet, so "
                   << instead(choice);
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
                              "' (known: shm, tcp, ib; " + kThisBuild + ")");
      }
    }
    choice.tcp = choice.tcp && tcp;
    choice.shm = choice.shm && shm;
    choice.setting = "WEFT_TRANSPORTS=" + *list + (name == "tcp" ? " with backend 'tcp'" : "");
    // Backend 'tcp' rules verbs out as it rules out shared memory.
    if (ib && name != "tcp") check_verbs_request(choice, !tcp && !shm, verbs_options);
    if (!choice.tcp && !choice.shm) {
      throw InvalidArgument(choice.setting + " leaves no transport to reach peers with (" +
                            kThisBuild + ")");
    }
  } else if (name != "tcp") {
    log_verbs_devices(choice, verbs_options);
  }
  WEFT_LOG(INFO) << "backend \"" << backend << "\": using "
                 << (name == "tcp" ? "TCP only" : "weft's own transports") << " (" << chosen(choice)
                 << ")" << (list ? " as WEFT_TRANSPORTS=" + *list + " allows" : "");
  return choice;
}

}  // namespace weft::runtime
