#pragma once
// What the core library was compiled for: the instruction set its vector code uses.
#include <string>

namespace distgrid {

/// The x86-64 level (or other architecture) and widest vector extension the core
/// library was compiled for, e.g. "x86-64-v4 (AVX-512)"; the vector width of every
/// lane loop follows from it at build time.
std::string build_instruction_set();

}  // namespace distgrid
