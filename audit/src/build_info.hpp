#pragma once
// How this build was made, filled in by CMake (build_info.cpp is generated from
// audit/CMakeLists.txt), for the report's "build" section.
namespace distgrid::audit::build_info {

extern const char* const kVersion;
extern const char* const kGitRevision;
extern const char* const kGitCommitTime;  ///< ISO 8601, "unknown" outside a git checkout
extern const char* const kCompilerId;
extern const char* const kCompilerVersion;
extern const char* const kBuildType;
extern const char* const kCxxFlags;        ///< CMAKE_CXX_FLAGS
extern const char* const kBuildTypeFlags;  ///< CMAKE_CXX_FLAGS_<BUILD_TYPE>
extern const char* const kOptionsFlags;    ///< distgrid::options (warnings, -ffp-contract=off, ...)
extern const char* const kCoreFlags;       ///< distgrid::core's own compile options

}  // namespace distgrid::audit::build_info
