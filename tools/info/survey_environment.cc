#include <unistd.h>

#include <cstring>
#include <map>
#include <string>
#include <string_view>

#include "tools/info/survey.h"

extern char** environ;

namespace weft::info {

namespace {

// Prefixes of the variables weft reads: its own, env://'s, weftrun's and torchrun's,
// and those of the launchers it recognises (Open MPI, PMI, Slurm), plus CUDA's device
// selection.
constexpr std::string_view kPrefixes[] = {"WEFT_",
                                          "MASTER_ADDR",
                                          "MASTER_PORT",
                                          "RANK",
                                          "WORLD_SIZE",
                                          "LOCAL_RANK",
                                          "LOCAL_WORLD_SIZE",
                                          "GROUP_RANK",
                                          "OMPI_COMM_WORLD_",
                                          "PMI_",
                                          "SLURM_PROCID",
                                          "SLURM_NTASKS",
                                          "SLURM_LOCALID",
                                          "SLURM_JOB_ID",
                                          "SLURM_STEP_",
                                          "CUDA_VISIBLE_DEVICES"};

// Variables whose value is a secret: reported as set, never shown.
bool is_secret(std::string_view name) {
  return name.find("TOKEN") != std::string_view::npos ||
         name.find("SECRET") != std::string_view::npos;
}

bool is_reported(std::string_view name) {
  for (std::string_view prefix : kPrefixes) {
    if (name.substr(0, prefix.size()) == prefix) {
      // RANK must not match RANKFILE-like names of other tools: exact names for the
      // prefixes that are whole variable names.
      const bool whole_name = prefix.back() != '_';
      if (!whole_name || name.size() == prefix.size()) return true;
    }
  }
  return false;
}

}  // namespace

InfoNode survey_environment() {
  std::map<std::string, std::string> sorted;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    const size_t equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    std::string_view name = text.substr(0, equals);
    if (!is_reported(name)) continue;
    sorted[std::string(name)] =
        is_secret(name) ? "(set; not shown)" : std::string(text.substr(equals + 1));
  }
  InfoNode variables;
  for (auto& [name, value] : sorted) variables.add(name, std::move(value));
  return variables;
}

}  // namespace weft::info
