// Crash safety of written files and Ctrl-C: a run killed at any moment leaves
// either the old output or the new one under the output's name, never a
// partial file; an interrupted run stops with exit code 130 and writes nothing,
// promptly in whatever phase of a large mesh bake or contour the signal lands.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "distgrid/mesh_io.hpp"
#include "support/sanitizers.hpp"
#include "support/scratch_dir.hpp"
#include "support/test_meshes.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;

std::string file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Starts the distgrid command with the arguments and extra environment entries;
/// its standard error goes to `stderr_fd` (a pipe's writing end, closed here) or,
/// when -1, like its standard output to /dev/null.
pid_t start(const std::vector<std::string>& arguments, const std::vector<std::string>& extra_environment = {},
            int stderr_fd = -1) {
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
  if (stderr_fd < 0) posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  else posix_spawn_file_actions_adddup2(&actions, stderr_fd, 2);
  pid_t pid = -1;
  const int failed = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (stderr_fd >= 0) ::close(stderr_fd);
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

/// A running distgrid command whose standard error the test reads.
struct LoggedChild {
  pid_t pid = -1;
  int stderr_fd = -1;
  std::string log;  // what it wrote to stderr so far
};

/// Starts the command with DISTGRID_PHASE_LOG set: a line on stderr as each phase starts.
LoggedChild start_logged(const std::vector<std::string>& arguments) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return {};
  LoggedChild child;
  child.pid = start(arguments, {"DISTGRID_PHASE_LOG=1"}, pipe_fds[1]);
  if (child.pid < 0) {
    ::close(pipe_fds[0]);
    return {};
  }
  child.stderr_fd = pipe_fds[0];
  return child;
}

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

/// Reads the child's stderr until the line "distgrid: phase <name>" has come;
/// false at the end of its output or after `timeout` seconds.
bool wait_for_phase(LoggedChild& child, const std::string& name, double timeout) {
  const std::string line = "distgrid: phase " + name + "\n";
  const Clock::time_point start = Clock::now();
  while (child.log.find(line) == std::string::npos) {
    const double left = timeout - seconds_since(start);
    if (left <= 0) return false;
    pollfd fd{child.stderr_fd, POLLIN, 0};
    if (::poll(&fd, 1, static_cast<int>(left * 1000) + 1) <= 0) continue;
    char buffer[4096];
    const ssize_t n = ::read(child.stderr_fd, buffer, sizeof buffer);
    if (n <= 0) return false;
    child.log.append(buffer, static_cast<std::size_t>(n));
  }
  return true;
}

/// The raw wait status once the child ends within `timeout` seconds; else it is
/// killed (SIGKILL) and the result is empty.
std::optional<int> wait_within(pid_t pid, double timeout) {
  const Clock::time_point start = Clock::now();
  int status = 0;
  while (seconds_since(start) < timeout) {
    if (::waitpid(pid, &status, WNOHANG) == pid) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(pid, SIGKILL);
  wait_for(pid);
  return std::nullopt;
}

class CtrlC : public distgrid::test_support::ScratchDirTest {
 protected:
  /// Starts the command, waits until it has begun `phase` (a long one) and has run for
  /// a second, sends SIGINT, and expects exit code 130 within a second (ten under
  /// sanitizers, see support/sanitizers.hpp) and no output or temporary file.
  void expect_prompt_stop(const std::vector<std::string>& arguments, const std::string& phase, const fs::path& out) {
    const double slowdown = distgrid::test_support::kSanitizerSlowdown;
    const Clock::time_point started = Clock::now();
    LoggedChild child = start_logged(arguments);
    ASSERT_GT(child.pid, 0);
    const bool reached = wait_for_phase(child, phase, 300 * slowdown);
    if (!reached) {
      ::kill(child.pid, SIGKILL);
      wait_for(child.pid);
      ::close(child.stderr_fd);
      FAIL() << "the run did not reach its " << phase << " phase; its output:\n" << child.log;
    }
    const double wait = 1.0 - seconds_since(started);
    if (wait > 0) std::this_thread::sleep_for(std::chrono::duration<double>(wait));
    ::kill(child.pid, SIGINT);
    const Clock::time_point signalled = Clock::now();
    const std::optional<int> status = wait_within(child.pid, 1.0 * slowdown);
    const double took = seconds_since(signalled);
    char rest[4096];
    for (ssize_t n; (n = ::read(child.stderr_fd, rest, sizeof rest)) > 0;) child.log.append(rest, static_cast<std::size_t>(n));
    ::close(child.stderr_fd);
    ASSERT_TRUE(status.has_value()) << "still running " << 1.0 * slowdown << " s after SIGINT; its output:\n" << child.log;
    ASSERT_TRUE(WIFEXITED(*status)) << "ended by a signal instead of stopping; its output:\n" << child.log;
    EXPECT_EQ(WEXITSTATUS(*status), 130) << child.log;
    EXPECT_NE(child.log.find("distgrid: interrupted: "), std::string::npos) << child.log;
    EXPECT_EQ(child.log.find('\r'), std::string::npos) << "a progress line on a pipe:\n" << child.log;
    EXPECT_LE(took, 1.0 * slowdown);
    EXPECT_FALSE(fs::exists(out)) << out;
    for (const auto& entry : fs::directory_iterator(dir_))
      EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos) << entry.path();
  }
};

/// A large mesh bake: 81 920 triangles at h = 0.002, tens of seconds of distances here.
std::vector<std::string> large_mesh_bake(const fs::path& dir, const fs::path& out) {
  const std::string mesh = (dir / "bunny.stl").string();
  distgrid::write_mesh(distgrid::test_support::bunny_like(6), mesh, distgrid::MeshFormat::stl_binary);
  return {"bake", "--mesh", mesh, "--h", "0.002", "--threads", "2", "--out", out.string()};
}

TEST_F(CtrlC, StopsALargeMeshBakeWithinASecondAndWritesNothing) {
  const fs::path out = dir_ / "bunny.dgrid";
  expect_prompt_stop(large_mesh_bake(dir_, out), "distances", out);
}

TEST_F(CtrlC, ALongRunShowsItsProgressOnATerminalAfterASecond) {
  // The child's standard error is a terminal (a pseudo-terminal read here); the
  // tests above read it through a pipe and see no progress line.
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  ASSERT_GE(master, 0);
  ASSERT_EQ(::grantpt(master), 0);
  ASSERT_EQ(::unlockpt(master), 0);
  const int slave = ::open(::ptsname(master), O_RDWR | O_NOCTTY);
  ASSERT_GE(slave, 0);
  const fs::path out = dir_ / "bunny.dgrid";
  const pid_t pid = start(large_mesh_bake(dir_, out), {}, slave);
  ASSERT_GT(pid, 0);
  // "distgrid: distances   12%  6352 / 53082 bricks, 3.99e+03/s  2.5 s", redrawn in place.
  const std::regex line(R"(\r\x1b\[Kdistgrid: distances +[0-9]+%  [0-9]+ / [0-9]+ bricks, [0-9.e+]+/s  ([0-9.]+) s)");
  std::string seen;
  std::smatch match;
  const Clock::time_point start_time = Clock::now();
  while (!std::regex_search(seen, match, line) && seconds_since(start_time) < 300 * distgrid::test_support::kSanitizerSlowdown) {
    pollfd fd{master, POLLIN, 0};
    if (::poll(&fd, 1, 100) <= 0) continue;
    char buffer[4096];
    const ssize_t n = ::read(master, buffer, sizeof buffer);
    if (n <= 0) break;
    seen.append(buffer, static_cast<std::size_t>(n));
  }
  ::kill(pid, SIGINT);
  const std::optional<int> status = wait_within(pid, 10 * distgrid::test_support::kSanitizerSlowdown);
  ::close(master);
  ASSERT_FALSE(match.empty()) << "no progress line on the terminal; it showed:\n" << seen;
  EXPECT_GE(std::stod(match[1].str()), 1.0) << "shown before the run had taken a second: " << match[0];
  EXPECT_EQ(seen.find("distgrid: phase"), std::string::npos) << "phase lines without DISTGRID_PHASE_LOG";
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 130);
}

TEST_F(CtrlC, StopsALargeContourWithinASecondAndWritesNothing) {
  // About 1.5 million triangles, written as ASCII STL: seconds of meshing, counting
  // and formatting, whichever the signal lands in.
  const std::string grid = (dir_ / "sphere.dgrid").string();
  ASSERT_EQ(run_to_end({"bake", "--part", "sphere", "--h", "0.005", "--out", grid}), 0);
  const fs::path out = dir_ / "sphere.stl";
  expect_prompt_stop({"contour", grid, "--format", "stl-ascii", "--out", out.string()}, "meshing", out);
}

}  // namespace
