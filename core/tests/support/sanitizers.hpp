#pragma once
// Test support: how much slower a sanitizer build runs. AddressSanitizer and
// UndefinedBehaviorSanitizer (the asan preset) check every access and slow the
// tools' work and unwinding by about ten times, so bounds on elapsed time in the
// tests that need them (a prompt Ctrl-C, an early refusal) are that much wider there.
namespace distgrid::test_support {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr double kSanitizerSlowdown = 10;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr double kSanitizerSlowdown = 10;
#else
inline constexpr double kSanitizerSlowdown = 1;
#endif
#else
inline constexpr double kSanitizerSlowdown = 1;
#endif

}  // namespace distgrid::test_support
