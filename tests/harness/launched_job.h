// Running jobs under an external launcher (mpirun, mpiexec.hydra, srun) or as a set of
// processes that pose as one, from a test: start the command(s) with a clean launcher
// environment, collect their output, stop them at a deadline, and leave nothing behind.
//
//   LaunchedJob job = run_launched_job({mpiexec, "-n", "3", program}, std::chrono::seconds(60));
//   ASSERT_FALSE(job.timed_out) << job.output;
//   EXPECT_TRUE(job.exited_with(0)) << job.output;
//
// While it runs, the test process is a child subreaper: ranks orphaned by a launcher's
// dying proxy become its children rather than init's, and at the end every process
// below the test process (found through /proc, since launchers start their ranks in
// sessions of their own) is killed and reaped. Do not call it with other children of
// the test process running that must survive, nor from two threads at once.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace weft::testing {

// The first of `names` found as an executable on PATH (or in /usr/local/bin, /usr/bin
// and /bin when PATH is unset); "" when none is.
std::string find_on_path(const std::vector<std::string>& names);

// Every process below `root` (children, their children, ...), found through /proc.
std::set<pid_t> descendants_of(pid_t root);

// Kills (SIGKILL) every process below this one and reaps those that are its children,
// until none is left (or, after a second of trying, gives up).
void kill_and_reap_descendants();

// The prefixes of the variables dropped from a launched job's environment unless the
// caller names others: those of the launchers weft recognises and of env://, so that a
// test run under a launcher, or with a weft job's variables set, starts a clean job.
const std::vector<std::string>& default_dropped_env_prefixes();

struct LaunchedJob {
  bool timed_out = false;  // still running at the deadline, and killed then
  int status = 0;          // as waitpid gives it; that of the SIGKILL when timed out
  std::string output;      // stdout and stderr together, as written

  bool exited_with(int code) const;
  // "exit 3", "signal 9", or "timed out (then signal 9)".
  std::string describe() const;
};

// One command of a job: argv[0] is a path (no PATH search), with `extra_env` set in its
// environment after the dropped prefixes are removed.
struct LaunchSpec {
  std::vector<std::string> argv;
  std::map<std::string, std::string> extra_env;
};

// Runs the commands side by side, with stdin from /dev/null, until each has exited and
// closed its output (with everything it started), or until `timeout` passes, when
// whatever is left is killed. Results are in the order of `commands`. A command that
// cannot be started gives status exit 127 and says why in its output.
std::vector<LaunchedJob> run_launched_jobs(
    const std::vector<LaunchSpec>& commands, std::chrono::seconds timeout,
    const std::vector<std::string>& drop_env_prefixes = default_dropped_env_prefixes());

// One command, as above.
LaunchedJob run_launched_job(
    const std::vector<std::string>& argv, std::chrono::seconds timeout,
    const std::map<std::string, std::string>& extra_env = {},
    const std::vector<std::string>& drop_env_prefixes = default_dropped_env_prefixes());

// Counts the lines of `output` equal to `line` (without its newline).
int count_lines(const std::string& output, const std::string& line);

}  // namespace weft::testing
