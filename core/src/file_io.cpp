#include "distgrid/file_io.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "distgrid/error.hpp"

namespace distgrid {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::badfile, path + ": cannot open for reading");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) throw Error(ErrorCode::badfile, path + ": read failed");
  return bytes.str();
}

void replace_file(const std::string& path, std::string_view bytes) {
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(ErrorCode::badfile, path + ": cannot open a temporary file beside it for writing");
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      out.close();
      std::remove(temp.c_str());
      throw Error(ErrorCode::badfile, path + ": write failed (disk full?)");
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    throw Error(ErrorCode::badfile, path + ": cannot replace it with the written temporary file");
  }
}

}  // namespace distgrid
