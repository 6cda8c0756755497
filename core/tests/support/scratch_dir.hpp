#pragma once
// Test support: a fresh scratch directory per test, and running the distgrid
// command. Not a test file (the test glob takes only *_test.cpp).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace distgrid::test_support {

/// A fixture whose tests each get an empty directory, removed afterwards.
class ScratchDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("distgrid_" + std::string(info->test_suite_name()) + "_" + info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  /// Writes the bytes to a file in the directory and returns its path.
  std::string write(const std::string& name, const std::string& bytes) const {
    std::ofstream(path(name), std::ios::binary) << bytes;
    return path(name);
  }

  std::filesystem::path dir_;
};

struct CliResult {
  int exit_code;
  std::string out;  // stdout and stderr together
};

/// Runs a command line through the shell, its standard error joined to its output.
inline CliResult run_command(const std::string& command_line) {
  const std::string command = command_line + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return {-1, "popen failed"};
  std::string out;
  std::array<char, 4096> buf{};
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

/// Runs the distgrid command (DISTGRID_CLI) with the arguments.
/// (Appended rather than `std::string(DISTGRID_CLI) + " " + args`, which GCC 12 at -O3 falsely reports as an
/// out-of-bounds copy: -Warray-bounds.)
inline CliResult run_cli(const std::string& args) {
  std::string command = DISTGRID_CLI;
  command += ' ';
  command += args;
  return run_command(command);
}

}  // namespace distgrid::test_support
