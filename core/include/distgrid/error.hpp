#pragma once
// Typed errors: every failure the library reports carries a code from a fixed
// list and a message that names the offending input.
#include <stdexcept>
#include <string>
#include <string_view>

namespace distgrid {

enum class ErrorCode {
  nobox,     ///< a formula with no finite box and no box given
  toolarge,  ///< brick coordinates outside the key range, or a part too wide
  badspec,   ///< malformed formula spec (message names the JSON path)
  badmesh,   ///< mesh content that cannot be used (indices, non-finite corners)
  openmesh,  ///< open, non-manifold or inconsistently oriented mesh
  selfintersect,  ///< a closed mesh whose triangles cross or touch: it bounds no solid
  badfile,   ///< unreadable, truncated or corrupt file
  badarg,    ///< a bad argument value (h <= 0, band < 1, ...)
  interrupted,  ///< stopped by SIGINT or SIGTERM (Ctrl-C) before finishing
};

/// Stable lower-case name of a code, as printed by the tools ("nobox", ...).
std::string_view error_code_name(ErrorCode code) noexcept;

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace distgrid
