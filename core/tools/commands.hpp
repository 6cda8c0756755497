#pragma once
// Commands of the distgrid tool that live in their own files. Each takes the
// whole argv (argv[1] is the command word) and returns the exit code; it throws
// command_line::UsageError for bad usage and distgrid::Error for failures.

namespace distgrid::tools {

/// `distgrid bake --mesh FILE ...` (bake_mesh_command.cpp).
int run_bake_mesh(int argc, char** argv);

/// `distgrid contour GRID.dgrid ...` (contour_command.cpp).
int run_contour(int argc, char** argv);

}  // namespace distgrid::tools
