// The MPI programs in tests/mpi/programs, built the way a user builds them: with weft's
// mpicc from an installed-layout prefix (bin/, include/, lib/), and run with weft's
// mpirun on 1 to 4 ranks. Each program checks its own results against a serial
// reference and prints "<name>: OK (N ranks)". The same sources are also built and run
// with Debian's Open MPI, when it is installed, to show they are valid MPI (all but the
// ones that exercise weft's extensions).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace {

namespace fs = std::filesystem;

// Valid MPI: they also build and pass with Open MPI.
// clang-format off
const std::vector<std::string> kStandardPrograms = {
    "hello",
    "ring",
    "probe",
    "collectives",
    "maxloc",
    "comm_split",
    "errhandler",
    "nonblocking",
    "thread_init",
    "user_ops",
    "groups",
    "split_type",
    "dims_create",
    "icollectives",
    "send_modes",
    "vcollectives",
    "persistent",
    "datatypes",
    "ddt_p2p",
    "ddt_collectives",
    "attributes",
    "windows",
    "cart",
    "graph",
    "dist_graph",
    "keyvals",
    "comm_create_disjoint",
    "intercomm",
    "intercomm_collectives",
    "alltoallw",
    "mprobe",
    "file_io",
    "request_arrays",
    "rma",
};
// clang-format on

// Valid MPI of the standard's later versions (MPI-4 and 5: sessions, partitioned and
// persistent collective operations, large counts...), which Debian's Open MPI 4.1 lacks,
// so they run with weft only.
// clang-format off
const std::vector<std::string> kNewerStandardPrograms = {
    "abi_handles",
    "neighbor_persistent",
    "neighbor_large_count",
    "info",
    "user_errors",
    "grequests",
    "tool_interface",
    "sessions",
    "persistent_collectives",
    "large_count_collectives",
    "partitioned",
    "isendrecv",
    "large_count_p2p",
    "buffers",
    "type_contents",
    "type_layouts",
    "intercomm_large_count",
    "ports",
};
// clang-format on

// What weft accepts beyond the standard (which Open MPI refuses), errors weft detects
// where the standard leaves detection open (which Open MPI lets pass), one-sided
// progress and operations that Debian's Open MPI does not provide, and collective I/O
// whose counts at the end of a file its collective buffering gets wrong on 3 ranks.
const std::vector<std::string> kExtensionPrograms = {"ddt_reduce_ext", "errors_ext", "rma_ext",
                                                     "file_collective"};

std::vector<std::string> every_program() {
  std::vector<std::string> all = kStandardPrograms;
  all.insert(all.end(), kNewerStandardPrograms.begin(), kNewerStandardPrograms.end());
  all.insert(all.end(), kExtensionPrograms.begin(), kExtensionPrograms.end());
  return all;
}

const std::vector<std::string> kPrograms = every_program();

struct CommandResult {
  int exit_code = -1;
  std::string output;
};

CommandResult run(const std::string& command) {
  CommandResult result;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) result.output.append(buffer, n);
  int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

bool have(const std::string& tool) { return run("command -v " + tool).exit_code == 0; }

// A prefix laid out as tools/install.sh lays it out, from this test's runfiles.
class MpiPrograms : public ::testing::TestWithParam<std::tuple<std::string, int>> {
 protected:
  static void SetUpTestSuite() {
    if (!prefix_.empty()) return;  // both suites share one prefix
    prefix_ = fs::path(std::getenv("TEST_TMPDIR")) / "prefix";
    for (const char* dir : {"bin", "include", "lib", "built", "openmpi"}) {
      fs::create_directories(prefix_ / dir);
    }
    auto copy = [](const fs::path& from, const fs::path& to) {
      fs::copy_file(from, to, fs::copy_options::overwrite_existing);
    };
    copy("tools/mpi/mpicc", prefix_ / "bin/mpicc");
    copy("tools/mpi/mpirun", prefix_ / "bin/mpirun");
    copy("tools/weftrun/weftrun", prefix_ / "bin/weftrun");
    copy("mpi/include/mpi.h", prefix_ / "include/mpi.h");
    copy("mpi/libmpi_abi.so.1", prefix_ / "lib/libmpi_abi.so.1");
    copy("mpi/libmpi_abi.a", prefix_ / "lib/libmpi_abi.a");
    fs::create_symlink("libmpi_abi.so.1", prefix_ / "lib/libmpi_abi.so");
    for (const auto& name : kPrograms) {
      CommandResult built =
          run((prefix_ / "bin/mpicc").string() + " -O2 -Wall -o " +
              (prefix_ / "built" / name).string() + " tests/mpi/programs/" + name + ".c");
      build_errors_[name] = built.exit_code == 0 ? "" : built.output;
    }
  }

  static std::string mpirun() { return (prefix_ / "bin/mpirun").string(); }

  static inline fs::path prefix_;
  static inline std::map<std::string, std::string> build_errors_;
};

TEST_P(MpiPrograms, BuildsWithMpiccAndPassesUnderMpirun) {
  const auto& [name, ranks] = GetParam();
  ASSERT_EQ(build_errors_[name], "") << "mpicc failed on " << name;
  CommandResult r = run(mpirun() + " -n " + std::to_string(ranks) + " --timeout 60 " +
                        (prefix_ / "built" / name).string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(name + ": OK (" + std::to_string(ranks) + " ranks)"), std::string::npos)
      << r.output;
}

INSTANTIATE_TEST_SUITE_P(EveryProgramOnOneToFourRanks, MpiPrograms,
                         ::testing::Combine(::testing::ValuesIn(kPrograms),
                                            ::testing::Values(1, 2, 3, 4)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" +
                                  std::to_string(std::get<1>(info.param)) + "_ranks";
                         });

class MpiProgramsElsewhere : public MpiPrograms {};

// WEFT_RMA=messages takes the path of windows across hosts on this one: every one-sided
// operation and lock is a request to the target's service thread. It runs over shared
// memory, over TCP alone, and mixed: with the odd ranks in IPC namespaces of their own
// (as in containers of their own) the window's members do not all share memory, so the
// service thread is taken without WEFT_RMA, and its requests go over shared memory
// between even ranks and over TCP to the odd ones.
TEST_F(MpiProgramsElsewhere, OneSidedProgramsPassByMessagesToo) {
  const std::string odd_ranks_apart =
      " sh -c 'if [ $((RANK % 2)) = 1 ]; then exec unshare --ipc \"$0\"; else exec \"$0\"; fi'";
  const std::vector<std::pair<std::string, std::string>> ways = {
      {"WEFT_RMA=messages ", ""},
      {"WEFT_RMA=messages WEFT_TRANSPORTS=tcp ", ""},
      {"", odd_ranks_apart},
  };
  for (const std::string name : {"rma", "rma_ext"}) {
    ASSERT_EQ(build_errors_[name], "") << "mpicc failed on " << name;
    for (const auto& [environment, wrapper] : ways) {
      for (int ranks : {2, 3}) {
        CommandResult r =
            run(environment + mpirun() + " -n " + std::to_string(ranks) + " --timeout 60" +
                wrapper + " " + (prefix_ / "built" / name).string());
        EXPECT_EQ(r.exit_code, 0) << environment << wrapper << "\n" << r.output;
        EXPECT_NE(r.output.find(name + ": OK (" + std::to_string(ranks) + " ranks)"),
                  std::string::npos)
            << environment << wrapper << "\n"
            << r.output;
      }
    }
  }
}

TEST_F(MpiProgramsElsewhere, AStaticBuildNeedsNoSharedLibraries) {
  fs::path out = prefix_ / "built/ring_static";
  CommandResult built = run((prefix_ / "bin/mpicc").string() + " -static -O2 -o " + out.string() +
                            " tests/mpi/programs/ring.c");
  ASSERT_EQ(built.exit_code, 0) << built.output;
  CommandResult ldd = run("ldd " + out.string());
  EXPECT_NE(ldd.output.find("not a dynamic executable"), std::string::npos) << ldd.output;
  CommandResult r = run(mpirun() + " -n 3 --timeout 60 " + out.string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("ring: OK (3 ranks)"), std::string::npos) << r.output;
}

// The standard's functions (mpi/abi/functions.txt) are what the header declares and what
// the library exports, as MPI_ and PMPI_; and nothing more: weft's own symbols stay
// inside. (Those weft does not carry out are exported and refuse; docs/MPI.md.)
TEST_F(MpiProgramsElsewhere, TheLibraryExportsExactlyTheStandardsFunctions) {
  std::set<std::string> standard;
  std::ifstream list("mpi/abi/functions.txt");
  std::string line;
  while (std::getline(list, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t name = line.find('|') + 1;
    standard.insert(line.substr(name, line.find('|', name) - name));
  }
  ASSERT_EQ(standard.size(), 664u);
  std::set<std::string> declared;
  std::ifstream header("mpi/include/mpi.h");
  const std::string marker = "WEFT_MPI_FN(";
  while (std::getline(header, line)) {
    size_t at = line.find(marker);
    if (at != 0) continue;  // the macro's definition is indented or starts with #define
    size_t name = line.find(',', at) + 2;
    declared.insert(line.substr(name, line.find(',', name) - name));
  }
  EXPECT_EQ(declared, standard);
  ASSERT_GT(declared.size(), 100u);
  CommandResult nm = run("nm -D --defined-only " + (prefix_ / "lib/libmpi_abi.so.1").string());
  ASSERT_EQ(nm.exit_code, 0) << nm.output;
  std::set<std::string> exported, other;
  std::istringstream symbols(nm.output);
  std::string address, kind, symbol;
  while (symbols >> address >> kind >> symbol) {
    // A local symbol (lower-case kind) is in the table only for a relocation of the
    // library's own, such as its initial-exec thread-locals': nothing outside binds to it.
    if (std::islower(static_cast<unsigned char>(kind[0]))) continue;
    if (symbol.rfind("PMPI_", 0) == 0) {
      exported.insert("P" + symbol.substr(5));
    } else if (symbol.rfind("MPI_", 0) == 0) {
      exported.insert(symbol.substr(4));
    } else {
      other.insert(symbol);
    }
  }
  std::set<std::string> both;
  for (const auto& name : standard) both.insert(name), both.insert("P" + name);
  EXPECT_EQ(exported, both);
  EXPECT_TRUE(other.empty()) << "exported besides MPI_ and PMPI_: " << *other.begin();
}

// MPI_Abort on one rank ends the others' blocked receives at once with an error naming
// its abort (weft::abort underneath), on shared memory and on TCP.
TEST_F(MpiProgramsElsewhere, MpiAbortFailsTheOtherRanksWaitsNamingTheAbortingRank) {
  fs::path out = prefix_ / "built/abort_while_others_wait";
  CommandResult built = run((prefix_ / "bin/mpicc").string() + " -O2 -o " + out.string() +
                            " tests/mpi/aborting/abort_while_others_wait.c");
  ASSERT_EQ(built.exit_code, 0) << built.output;
  for (const char* transports : {"shm", "tcp"}) {
    CommandResult r = run("WEFT_TRANSPORTS=" + std::string(transports) + " " + mpirun() +
                          " -n 3 --timeout 60 " + out.string());
    EXPECT_NE(r.exit_code, 0) << transports << ": " << r.output;
    EXPECT_NE(r.output.find("MPI_Abort on rank 1 with error code 7"), std::string::npos)
        << transports << ": " << r.output;
    for (const char* rank : {"MPI_Recv (rank 0)", "MPI_Recv (rank 2)"}) {
      const size_t at = r.output.find(rank);
      ASSERT_NE(at, std::string::npos) << transports << ": " << rank << "\n" << r.output;
      const std::string line = r.output.substr(at, r.output.find('\n', at) - at);
      EXPECT_NE(line.find("aborted the job (it called weft::abort)"), std::string::npos)
          << transports << ": " << line;
    }
    EXPECT_EQ(r.output.find("the receive completed"), std::string::npos) << r.output;
  }
}

TEST_F(MpiProgramsElsewhere, ShowPrintsTheCompilerCommand) {
  CommandResult shown = run((prefix_ / "bin/mpicc").string() + " -show -o app app.c");
  EXPECT_EQ(shown.exit_code, 0);
  EXPECT_NE(shown.output.find("cc -I" + (prefix_ / "include").string() + " -o app app.c -L" +
                              (prefix_ / "lib").string()),
            std::string::npos)
      << shown.output;
  EXPECT_NE(shown.output.find("-lmpi_abi"), std::string::npos) << shown.output;
}

TEST_F(MpiProgramsElsewhere, TheSameSourcesAreValidMpiForOpenMpi) {
  if (!have("mpicc.openmpi") || !have("mpirun.openmpi")) {
    GTEST_SKIP() << "Debian's Open MPI (openmpi-bin, libopenmpi-dev) is not installed";
  }
  // openmpi-bin brings the wrapper, libopenmpi-dev the mpi.h it compiles against.
  if (run("echo '#include <mpi.h>' | mpicc.openmpi -fsyntax-only -x c -").exit_code != 0) {
    GTEST_SKIP() << "Open MPI's mpi.h is missing (install libopenmpi-dev)";
  }
  for (const auto& name : kStandardPrograms) {
    fs::path out = prefix_ / "openmpi" / name;
    CommandResult built =
        run("mpicc.openmpi -O2 -o " + out.string() + " tests/mpi/programs/" + name + ".c");
    ASSERT_EQ(built.exit_code, 0) << name << ": " << built.output;
    CommandResult r =
        // Debian's Open MPI creates no window with its default components (MPI_ERR_WIN):
        // its pt2pt one-sided component over the tcp transport does, and its sm one
        // MPI_Win_allocate_shared's.
        run("timeout 120 env OMPI_MCA_osc=sm,pt2pt OMPI_MCA_btl=self,vader,tcp mpirun.openmpi "
            "--allow-run-as-root --oversubscribe -n 3 " +
            out.string());
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.output;
    EXPECT_NE(r.output.find(name + ": OK (3 ranks)"), std::string::npos) << r.output;
  }
}

}  // namespace
