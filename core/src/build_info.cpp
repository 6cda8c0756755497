#include "distgrid/build_info.hpp"

namespace distgrid {

std::string build_instruction_set() {
#if defined(__AVX512F__) && defined(__AVX512VL__) && defined(__AVX512BW__) && defined(__AVX512DQ__)
  return "x86-64-v4 (AVX-512)";
#elif defined(__AVX2__) && defined(__FMA__) && defined(__BMI2__)
  return "x86-64-v3 (AVX2)";
#elif defined(__SSE4_2__) && defined(__POPCNT__)
  return "x86-64-v2 (SSE4.2)";
#elif defined(__x86_64__)
  return "x86-64 (SSE2)";
#elif defined(__aarch64__)
  return "aarch64";
#else
  return "generic";
#endif
}

}  // namespace distgrid
