// weft::init_process_group() with no arguments under the launchers it recognises: a real
// weft program (launched_program: all_reduce, all_gather, broadcast, barrier and a ring)
// under Open MPI's mpirun and MPICH's mpiexec.hydra when they are installed, as a Slurm
// step posed by starting the ranks with Slurm's variables set, and with Open MPI's
// variables naming a rank outside the world. Every job runs with a clean launcher
// environment and without WEFT_PORT, so the store's port is the one derived from the
// job's id, and is killed, with all it started, after 90 s at most.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "tests/harness/launched_job.h"

namespace {

using weft::testing::count_lines;
using weft::testing::find_on_path;
using weft::testing::LaunchedJob;
using weft::testing::LaunchSpec;
using weft::testing::run_launched_job;
using weft::testing::run_launched_jobs;

constexpr std::chrono::seconds kJobTimeout{90};

// The program from the test's runfiles.
std::string program_path() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir != nullptr && workspace != nullptr) {
    return std::string(srcdir) + "/" + workspace + "/tests/rendezvous/launched_program";
  }
  return "tests/rendezvous/launched_program";  // bazel runs tests from the runfiles root
}

// The launcher variables are dropped, and WEFT_PORT too: the port must be derived.
std::vector<std::string> dropped_variables() {
  std::vector<std::string> prefixes = weft::testing::default_dropped_env_prefixes();
  prefixes.push_back("WEFT_PORT");
  return prefixes;
}

// Every rank of a world of `n` said it was fine, exactly once.
void expect_ok_lines(const std::string& output, int n, const std::string& context) {
  for (int rank = 0; rank < n; ++rank) {
    std::string line =
        "launched_program rank " + std::to_string(rank) + " of " + std::to_string(n) + " ok";
    EXPECT_EQ(count_lines(output, line), 1) << context << ": expected '" << line << "' once in:\n"
                                            << output;
  }
}

TEST(LauncherTest, OpenMpiMpirunThreeRanks) {
  std::string mpirun = find_on_path({"mpirun.openmpi"});
  if (mpirun.empty()) {
    GTEST_SKIP() << "mpirun.openmpi is not on PATH (install the Debian openmpi-bin package to "
                    "run this test)";
  }
  std::string program = program_path();
  ASSERT_EQ(access(program.c_str(), X_OK), 0) << "no program at " << program;
  std::vector<std::string> argv = {
      mpirun, "--allow-run-as-root", "--oversubscribe", "-n", "3", "--bind-to", "none", program};
  LaunchedJob job = run_launched_job(argv, kJobTimeout, {}, dropped_variables());
  ASSERT_FALSE(job.timed_out) << "mpirun -n 3 did not finish within " << kJobTimeout.count()
                              << " s; output so far:\n"
                              << job.output;
  EXPECT_TRUE(job.exited_with(0)) << "mpirun -n 3 ended with " << job.describe() << "; output:\n"
                                  << job.output;
  expect_ok_lines(job.output, 3, "mpirun -n 3");
}

TEST(LauncherTest, HydraMpiexecFourRanks) {
  std::string mpiexec = find_on_path({"mpiexec.hydra", "mpiexec.mpich"});
  if (mpiexec.empty()) {
    GTEST_SKIP() << "neither mpiexec.hydra nor mpiexec.mpich is on PATH (install the Debian "
                    "mpich package to run this test)";
  }
  std::string program = program_path();
  ASSERT_EQ(access(program.c_str(), X_OK), 0) << "no program at " << program;
  // Hydra kills the whole job (sometimes still exiting 0) as soon as one rank that
  // joined PMI exits without cmd=finalize: missing ok lines here can mean that.
  LaunchedJob job =
      run_launched_job({mpiexec, "-n", "4", program}, kJobTimeout, {}, dropped_variables());
  ASSERT_FALSE(job.timed_out) << mpiexec << " -n 4 did not finish within " << kJobTimeout.count()
                              << " s; output so far:\n"
                              << job.output;
  EXPECT_TRUE(job.exited_with(0)) << mpiexec << " -n 4 ended with " << job.describe()
                                  << "; output:\n"
                                  << job.output;
  expect_ok_lines(job.output, 4, mpiexec + " -n 4");
}

// A job id of its own for each run, so that runs side by side derive different ports.
std::string random_job_id() {
  std::random_device device;
  return std::to_string(1 + device() % 9'000'000);
}

struct SlurmStep {
  const char* nodelist_variable;  // SLURM_STEP_NODELIST or SLURM_JOB_NODELIST
  const char* nodelist;
  bool step_num_tasks;  // whether SLURM_STEP_NUM_TASKS is set, besides SLURM_NTASKS
};

// Starts `n` copies of the program as srun would on one host: rank i with SLURM_PROCID=i
// and SLURM_LOCALID=i, the same job and step ids, and the node list given.
void run_as_slurm_step(int n, const SlurmStep& step) {
  std::string program = program_path();
  ASSERT_EQ(access(program.c_str(), X_OK), 0) << "no program at " << program;
  std::string job_id = random_job_id();
  std::vector<LaunchSpec> ranks;
  for (int i = 0; i < n; ++i) {
    LaunchSpec spec;
    spec.argv = {program};
    spec.extra_env = {
        {"SLURM_PROCID", std::to_string(i)},
        {"SLURM_LOCALID", std::to_string(i)},
        {"SLURM_NTASKS", std::to_string(n)},
        {"SLURM_JOB_ID", job_id},
        {"SLURM_STEP_ID", "0"},
        {step.nodelist_variable, step.nodelist},
    };
    if (step.step_num_tasks) spec.extra_env["SLURM_STEP_NUM_TASKS"] = std::to_string(n);
    ranks.push_back(spec);
  }
  std::string context = std::string("Slurm step of ") + std::to_string(n) + " ranks, job " +
                        job_id + ", " + step.nodelist_variable + "=" + step.nodelist;
  std::vector<LaunchedJob> results = run_launched_jobs(ranks, kJobTimeout, dropped_variables());
  std::string all_output;
  for (int i = 0; i < n; ++i) {
    const LaunchedJob& r = results[i];
    EXPECT_TRUE(r.exited_with(0)) << context << ": rank " << i << " ended with " << r.describe()
                                  << "; its output:\n"
                                  << r.output;
    EXPECT_EQ(count_lines(r.output, "launched_program rank " + std::to_string(i) + " of " +
                                        std::to_string(n) + " ok"),
              1)
        << context << ": rank " << i << " output:\n"
        << r.output;
    all_output += r.output;
  }
  expect_ok_lines(all_output, n, context);
}

TEST(LauncherTest, SlurmStepOnOneNode) {
  run_as_slurm_step(3, {"SLURM_STEP_NODELIST", "localhost", true});
}

TEST(LauncherTest, SlurmStepWhoseFirstNodeIsThisHost) {
  // Only rank 0's host, the first of the list, matters for the store; the rest are
  // never contacted.
  run_as_slurm_step(3, {"SLURM_STEP_NODELIST", "localhost,otherhost", true});
}

TEST(LauncherTest, SlurmJobNodelistAndNtasksAlone) {
  // Without the step's variables, those of the job are used.
  run_as_slurm_step(3, {"SLURM_JOB_NODELIST", "localhost,nodeb[1-3]", false});
}

TEST(LauncherTest, OpenMpiRankOutsideTheWorldFailsAtOnce) {
  std::string program = program_path();
  ASSERT_EQ(access(program.c_str(), X_OK), 0) << "no program at " << program;
  auto start = std::chrono::steady_clock::now();
  LaunchedJob job = run_launched_job({program}, std::chrono::seconds(30),
                                     {{"OMPI_COMM_WORLD_RANK", "5"}, {"OMPI_COMM_WORLD_SIZE", "2"}},
                                     dropped_variables());
  auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(job.timed_out) << "a rank outside the world hung; output:\n" << job.output;
  EXPECT_LT(took, std::chrono::seconds(10)) << job.output;
  EXPECT_TRUE(WIFEXITED(job.status) && WEXITSTATUS(job.status) != 0)
      << "ended with " << job.describe() << "; output:\n"
      << job.output;
  EXPECT_NE(job.output.find("OMPI_COMM_WORLD_RANK"), std::string::npos) << job.output;
  EXPECT_NE(job.output.find("rank 5"), std::string::npos) << job.output;
  EXPECT_EQ(job.output.find(" ok\n"), std::string::npos) << job.output;
}

}  // namespace
