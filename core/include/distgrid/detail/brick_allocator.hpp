#pragma once
// Allocator for the one block that holds all node values.
// - Elements are default-initialised (not zeroed): a bake writes every value
//   anyway, so growing the block costs no memset.
// - Large blocks are aligned to 2 MiB and, on Linux, marked for transparent huge
//   pages, so random-order sampling over many bricks misses the TLB less.
#include <cstddef>
#include <cstdlib>
#include <new>
#include <type_traits>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace distgrid::detail {

template <class T>
class BrickAllocator {
 public:
  using value_type = T;
  static_assert(std::is_trivially_default_constructible_v<T>);

  BrickAllocator() noexcept = default;
  template <class U>
  BrickAllocator(const BrickAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugeThreshold) return static_cast<T*>(::operator new(bytes));
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    ::madvise(p, rounded, MADV_HUGEPAGE);  // a hint: failure only costs speed
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kHugeThreshold)
      ::operator delete(p);
    else
      std::free(p);
  }
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;  // default-initialise: no zeroing
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(static_cast<Args&&>(args)...);
  }
  friend bool operator==(const BrickAllocator&, const BrickAllocator&) noexcept { return true; }

 private:
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
  static constexpr std::size_t kHugeThreshold = std::size_t{4} << 20;
};

}  // namespace distgrid::detail
