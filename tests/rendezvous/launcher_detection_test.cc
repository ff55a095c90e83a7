// detect_launcher on hand-made environments: what each launcher's variables give, which
// launcher wins, and variables that are present but unusable.
#include "rendezvous/launcher_detection.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <map>
#include <optional>
#include <string>

#include "rendezvous/init_method.h"
#include "weft/error.h"
#include "weft/process_group.h"

namespace {

using weft::rendezvous::detect_launcher;
using weft::rendezvous::port_for_job;

// Clears every variable detection reads, then sets `vars`; restores nothing (each test
// sets what it needs).
void environment(const std::map<std::string, std::string>& vars) {
  for (const char* name :
       {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
        "OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_MCA_ess_base_jobid", "PMI_RANK", "PMI_SIZE", "PMI_FD",
        "SLURM_PROCID", "SLURM_NTASKS", "SLURM_STEP_NUM_TASKS", "SLURM_LOCALID",
        "SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_JOB_ID", "SLURM_STEP_ID", "WEFT_PORT",
        "MASTER_PORT", "MASTER_ADDR"}) {
    unsetenv(name);
  }
  for (const auto& [name, value] : vars) setenv(name.c_str(), value.c_str(), 1);
}

std::string error_of(const std::map<std::string, std::string>& vars) {
  environment(vars);
  try {
    detect_launcher();
  } catch (const weft::InvalidArgument& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InvalidArgument";
  return "";
}

TEST(LauncherDetection, NothingSetIsNoLauncher) {
  environment({});
  EXPECT_FALSE(detect_launcher().has_value());
}

TEST(LauncherDetection, OpenMpiOnOneHostUsesLoopbackAndAPortFromItsJobId) {
  environment({{"OMPI_COMM_WORLD_RANK", "2"},
               {"OMPI_COMM_WORLD_SIZE", "4"},
               {"OMPI_COMM_WORLD_LOCAL_RANK", "2"},
               {"OMPI_COMM_WORLD_LOCAL_SIZE", "4"},
               {"OMPI_MCA_ess_base_jobid", "2075525121"}});
  auto l = detect_launcher();
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(l->launcher, "Open MPI");
  EXPECT_EQ(l->rank, 2);
  EXPECT_EQ(l->world_size, 4);
  EXPECT_EQ(l->local_rank, 2);
  EXPECT_EQ(l->store_host, "127.0.0.1");
  EXPECT_EQ(l->store_port, port_for_job(2075525121));
  EXPECT_FALSE(l->pmi);
}

TEST(LauncherDetection, OpenMpiAcrossHostsNeedsMasterAddr) {
  std::map<std::string, std::string> vars = {{"OMPI_COMM_WORLD_RANK", "0"},
                                             {"OMPI_COMM_WORLD_SIZE", "4"},
                                             {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}};
  EXPECT_NE(error_of(vars).find("set MASTER_ADDR"), std::string::npos);
  vars["MASTER_ADDR"] = "10.0.0.1";
  vars["WEFT_PORT"] = "29555";
  environment(vars);
  auto l = detect_launcher();
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(l->store_host, "10.0.0.1");
  EXPECT_EQ(l->store_port, 29555);
}

TEST(LauncherDetection, PmiNeedsItsFdAndLearnsTheStoreLater) {
  environment({{"PMI_RANK", "1"}, {"PMI_SIZE", "3"}, {"PMI_FD", "7"}});
  auto l = detect_launcher();
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(l->launcher, "PMI");
  EXPECT_EQ(l->rank, 1);
  EXPECT_EQ(l->world_size, 3);
  EXPECT_TRUE(l->pmi);
  EXPECT_TRUE(l->store_host.empty());
}

TEST(LauncherDetection, SlurmStoreIsOnTheFirstNodeOfTheStep) {
  environment({{"SLURM_PROCID", "5"},
               {"SLURM_NTASKS", "16"},
               {"SLURM_STEP_NUM_TASKS", "8"},
               {"SLURM_LOCALID", "1"},
               {"SLURM_JOB_NODELIST", "other[1-9]"},
               {"SLURM_STEP_NODELIST", "node[07-09],gpu1"},
               {"SLURM_JOB_ID", "4242"},
               {"SLURM_STEP_ID", "3"}});
  auto l = detect_launcher();
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(l->launcher, "Slurm");
  EXPECT_EQ(l->rank, 5);
  EXPECT_EQ(l->world_size, 8);  // the step's tasks, not the job's
  EXPECT_EQ(l->local_rank, 1);
  EXPECT_EQ(l->store_host, "node07");
  EXPECT_EQ(l->store_port, port_for_job(4242 * 64 + 3));
}

TEST(LauncherDetection, ThePublicLaunchedJobSaysTheSame) {
  environment({{"SLURM_PROCID", "2"},
               {"SLURM_NTASKS", "4"},
               {"SLURM_LOCALID", "2"},
               {"SLURM_JOB_NODELIST", "node[3-4]"},
               {"SLURM_JOB_ID", "77"},
               {"SLURM_STEP_ID", "0"}});
  auto job = weft::launched_job();
  ASSERT_TRUE(job.has_value());
  EXPECT_EQ(job->launcher, "Slurm");
  EXPECT_EQ(job->rank, 2);
  EXPECT_EQ(job->world_size, 4);
  EXPECT_EQ(job->local_rank, 2);
  EXPECT_EQ(job->store_host, "node3");
  EXPECT_EQ(job->store_port, port_for_job(77 * 64));
  environment({});
  EXPECT_FALSE(weft::launched_job().has_value());
}

TEST(LauncherDetection, EnvMethodUsesTheLauncherWhenOnlyTheStoreAddressIsGiven) {
  environment({{"SLURM_PROCID", "1"},
               {"SLURM_NTASKS", "2"},
               {"SLURM_STEP_NODELIST", "n[1-2]"},
               {"MASTER_ADDR", "10.1.2.3"},
               {"MASTER_PORT", "29400"}});
  unsetenv("WORLD_SIZE");
  unsetenv("RANK");
  auto spec = weft::rendezvous::parse_init_method("env://", -1, -1);
  EXPECT_EQ(spec.launcher, "Slurm");
  EXPECT_EQ(spec.rank, 1);
  EXPECT_EQ(spec.world_size, 2);
  EXPECT_EQ(spec.store_host, "10.1.2.3");
  EXPECT_EQ(spec.store_port, 29400);
  EXPECT_TRUE(spec.bind_any_address);
  // With RANK and WORLD_SIZE too, it is a plain env:// job.
  setenv("RANK", "0", 1);
  setenv("WORLD_SIZE", "2", 1);
  EXPECT_EQ(weft::rendezvous::parse_init_method("env://", -1, -1).launcher, "env://");
  unsetenv("WORLD_SIZE");
  unsetenv("RANK");
}

TEST(LauncherDetection, OpenMpiWinsOverStrayPmiVariables) {
  environment({{"OMPI_COMM_WORLD_RANK", "0"},
               {"OMPI_COMM_WORLD_SIZE", "2"},
               {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
               {"PMI_RANK", "1"},
               {"PMI_FD", "3"}});
  EXPECT_EQ(detect_launcher()->launcher, "Open MPI");
}

TEST(LauncherDetection, UnusableVariablesAreNamed) {
  EXPECT_NE(error_of({{"OMPI_COMM_WORLD_RANK", "5"}, {"OMPI_COMM_WORLD_SIZE", "2"}})
                .find("OMPI_COMM_WORLD_RANK"),
            std::string::npos);
  EXPECT_NE(error_of({{"OMPI_COMM_WORLD_RANK", "0"}}).find("OMPI_COMM_WORLD_SIZE is not set"),
            std::string::npos);
  EXPECT_NE(error_of({{"PMI_RANK", "0"}, {"PMI_FD", "3"}}).find("PMI_SIZE"), std::string::npos);
  EXPECT_NE(error_of({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}}).find("SLURM_STEP_NODELIST"),
            std::string::npos);
  EXPECT_NE(
      error_of({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}, {"SLURM_STEP_NODELIST", "node[1-"}})
          .find("SLURM_STEP_NODELIST"),
      std::string::npos);
  EXPECT_NE(error_of({{"SLURM_PROCID", "x"}, {"SLURM_NTASKS", "2"}}).find("SLURM_PROCID"),
            std::string::npos);
  EXPECT_NE(error_of({{"SLURM_PROCID", "0"},
                      {"SLURM_NTASKS", "2"},
                      {"SLURM_STEP_NODELIST", "n1"},
                      {"SLURM_JOB_ID", "abc"}})
                .find("SLURM_JOB_ID"),
            std::string::npos);
}

TEST(LauncherDetection, DerivedPortsStayBelowTheEphemeralRangeAndSpreadOut) {
  std::map<uint16_t, int> seen;
  for (uint64_t job = 1; job <= 1000; ++job) {
    uint16_t port = port_for_job(job);
    EXPECT_GE(port, 10000);
    EXPECT_LT(port, 30000);
    ++seen[port];
  }
  EXPECT_GT(seen.size(), 950u);  // neighbouring job ids rarely share a port
}

}  // namespace
