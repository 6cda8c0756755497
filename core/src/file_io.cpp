#include "distgrid/file_io.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#include "distgrid/error.hpp"
#include "distgrid/interrupt.hpp"

namespace distgrid {

namespace {

bool is_folder(const std::string& path) {
  std::error_code error;
  return std::filesystem::is_directory(path, error);
}

}  // namespace

std::string read_file(const std::string& path) {
  if (is_folder(path)) throw Error(ErrorCode::badarg, path + ": is a folder; a file was expected");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::badfile, path + ": cannot open for reading");
  // A MiB at a time, checking for an interrupt between reads: a large file takes seconds.
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  std::string bytes;
  std::error_code error;
  const auto size = std::filesystem::file_size(path, error);
  if (!error) bytes.reserve(static_cast<std::size_t>(size) + kChunk);
  for (;;) {
    throw_if_interrupted();
    const std::size_t at = bytes.size();
    bytes.resize(at + kChunk);
    in.read(bytes.data() + at, static_cast<std::streamsize>(kChunk));
    bytes.resize(at + static_cast<std::size_t>(in.gcount()));
    if (in.bad()) throw Error(ErrorCode::badfile, path + ": read failed");
    if (!in) break;  // end of file
  }
  return bytes;
}

namespace {

/// Fault injection for the crash-safety test: with DISTGRID_FAULT_KILL_AFTER_BYTES=N
/// in the environment, the process kills itself (SIGKILL, no clean-up) once N
/// bytes of a temporary file are written. Unset in normal use.
std::optional<std::size_t> kill_after_bytes() {
  const char* text = std::getenv("DISTGRID_FAULT_KILL_AFTER_BYTES");
  if (!text || !*text) return std::nullopt;
  return static_cast<std::size_t>(std::strtoull(text, nullptr, 10));
}

constexpr std::size_t kWriteChunk = std::size_t{1} << 20;

/// Writes all bytes to fd, retrying after signals; false on any other failure and
/// when an interrupt was requested (checked before each chunk of 1 MiB).
bool write_all(int fd, std::string_view bytes, std::optional<std::size_t> kill_after) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    if (interrupt_requested()) return false;
    std::size_t chunk = std::min(kWriteChunk, bytes.size() - done);
    if (kill_after && *kill_after >= done && *kill_after < done + chunk) chunk = *kill_after - done;
    if (kill_after && done == *kill_after) ::kill(::getpid(), SIGKILL);
    const ssize_t n = ::write(fd, bytes.data() + done, chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    ::sync_file_range(fd, static_cast<off_t>(done), n, SYNC_FILE_RANGE_WRITE);  // start the write-back now
    done += static_cast<std::size_t>(n);
  }
  return true;
}

/// Flushes the written bytes to disk a chunk at a time (each chunk's write-back was
/// started as it was written), checking for an interrupt between chunks: one fsync
/// of a large file on a busy disk blocks for seconds and cannot be interrupted.
bool flush_all(int fd, std::size_t size) {
  for (std::size_t done = 0; done < size; done += kWriteChunk) {
    if (interrupt_requested()) return false;
    const auto length = static_cast<off_t>(std::min(kWriteChunk, size - done));
    if (::sync_file_range(fd, static_cast<off_t>(done), length,
                          SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER) != 0 &&
        errno != EINTR)
      break;  // not supported here: the fsync below does it all
  }
  return !interrupt_requested() && ::fsync(fd) == 0;
}

/// Flushes the folder holding `path`, so the rename itself survives a power loss.
void sync_parent_folder(const std::string& path) {
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  const int fd = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;  // best effort: the data itself is already on disk
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void check_output_path(const std::string& path) {
  if (path.empty()) throw Error(ErrorCode::badarg, "the output file name is empty");
  if (is_folder(path) || path.back() == '/')
    throw Error(ErrorCode::badarg, path + ": is a folder; give the name of the file to write");
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  if (!folder.empty() && !is_folder(folder.string()))
    throw Error(ErrorCode::badfile, path + ": the folder " + folder.string() + " does not exist");
}

void replace_file(const std::string& path, std::string_view bytes) {
  check_output_path(path);
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0)
    throw Error(ErrorCode::badfile, path + ": cannot open a temporary file beside it for writing (" +
                                        std::strerror(errno) + ")");
  const bool written = write_all(fd, bytes, kill_after_bytes()) && flush_all(fd, bytes.size());
  const int write_errno = errno;
  const bool closed = ::close(fd) == 0;
  if (!written || !closed) {
    std::remove(temp.c_str());
    throw_if_interrupted();
    throw Error(ErrorCode::badfile,
                path + ": write failed (" + std::strerror(written ? errno : write_errno) + ")");
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    throw Error(ErrorCode::badfile, path + ": cannot replace it with the written temporary file");
  }
  sync_parent_folder(path);
}

}  // namespace distgrid
