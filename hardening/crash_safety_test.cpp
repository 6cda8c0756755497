// Crash safety of written files and Ctrl-C: a run killed at any moment leaves
// either the old output or the new one under the output's name, never a
// partial file; an interrupted run stops with exit code 130 and writes nothing.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

namespace fs = std::filesystem;

std::string file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Starts the distgrid command with the arguments and extra environment entries.
pid_t start(const std::vector<std::string>& arguments, const std::vector<std::string>& extra_environment = {}) {
  std::vector<std::string> args{DISTGRID_CLI};
  args.insert(args.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_copy(extra_environment);
  std::vector<char*> envp;
  for (std::string& e : env_copy) envp.push_back(e.data());
  for (char** e = environ; *e; ++e) envp.push_back(*e);
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  const int failed = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  return failed ? -1 : pid;
}

/// Waits for the process; returns its raw wait status.
int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

int run_to_end(const std::vector<std::string>& arguments) {
  const pid_t pid = start(arguments);
  if (pid < 0) return -1;
  const int status = wait_for(pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class CrashSafety : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("distgrid_crash_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    target_ = (dir_ / "part.dgrid").string();
    // The old file, and what the new run writes when it is not killed.
    ASSERT_EQ(run_to_end({"bake", "--part", "sphere", "--h", "0.05", "--out", target_}), 0);
    old_ = file_bytes(target_);
    const std::string fresh = (dir_ / "fresh.dgrid").string();
    ASSERT_EQ(run_to_end(new_run(fresh)), 0);
    new_ = file_bytes(fresh);
    fs::remove(fresh);
    ASSERT_NE(old_, new_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::vector<std::string> new_run(const std::string& out) {
    return {"bake", "--part", "sphere", "--h", "0.008", "--threads", "1", "--out", out};
  }
  /// The target holds exactly the old bytes or exactly the new ones.
  void expect_old_or_new(const std::string& when) const {
    const std::string now = file_bytes(target_);
    EXPECT_TRUE(now == old_ || now == new_) << when << ": the output holds " << now.size()
                                            << " bytes that are neither the old file (" << old_.size()
                                            << ") nor the new one (" << new_.size() << ")";
  }

  fs::path dir_;
  std::string target_, old_, new_;
};

TEST_F(CrashSafety, AWriterKilledAfterAnyNumberOfBytesLeavesTheOldFile) {
  for (const std::size_t written : {std::size_t{0}, std::size_t{1}, std::size_t{4096}, new_.size() / 2, new_.size() - 1}) {
    const pid_t pid = start(new_run(target_), {"DISTGRID_FAULT_KILL_AFTER_BYTES=" + std::to_string(written)});
    ASSERT_GT(pid, 0);
    const int status = wait_for(pid);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "killed after " << written << " bytes";
    EXPECT_EQ(file_bytes(target_), old_) << "killed after " << written << " bytes";
  }
  ASSERT_EQ(run_to_end(new_run(target_)), 0);
  EXPECT_EQ(file_bytes(target_), new_);
}

TEST_F(CrashSafety, AWriterKilledAtAnyMomentLeavesTheOldOrTheNewFile) {
  // Kills spread over the run; whichever moment each lands on, the invariant holds.
  for (int step = 0; step < 12; ++step) {
    const pid_t pid = start(new_run(target_));
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(40 * step));
    ::kill(pid, SIGKILL);
    wait_for(pid);
    expect_old_or_new("kill after " + std::to_string(40 * step) + " ms");
  }
}

TEST_F(CrashSafety, CtrlCStopsABakeWithExitCode130AndWritesNothing) {
  const std::string out = (dir_ / "long.dgrid").string();
  // About ten seconds on one thread: the signal arrives long before it ends.
  const pid_t pid = start({"bake", "--part", "gyroid", "--h", "0.004", "--threads", "1", "--out", out});
  ASSERT_GT(pid, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ::kill(pid, SIGINT);
  const int status = wait_for(pid);
  ASSERT_TRUE(WIFEXITED(status)) << "ended by a signal instead of stopping";
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_FALSE(fs::exists(out));
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_EQ(entry.path().filename().string().find("long.dgrid"), std::string::npos) << entry.path();
}

}  // namespace
