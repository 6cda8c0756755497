#include "distgrid/error.hpp"

namespace distgrid {

std::string_view error_code_name(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::nobox: return "nobox";
    case ErrorCode::toolarge: return "toolarge";
    case ErrorCode::badspec: return "badspec";
    case ErrorCode::badmesh: return "badmesh";
    case ErrorCode::openmesh: return "openmesh";
    case ErrorCode::selfintersect: return "selfintersect";
    case ErrorCode::badfile: return "badfile";
    case ErrorCode::badarg: return "badarg";
    case ErrorCode::interrupted: return "interrupted";
  }
  return "unknown";
}

}  // namespace distgrid
