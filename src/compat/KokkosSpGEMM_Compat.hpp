// The only place where Kokkos 3.4 and Kokkos 4.x differ for us: every KOKKOS_VERSION branch lives here. So do the
// Tpetra member names that changed between Trilinos 13.2 and later releases (detected, so no Tpetra include here).
#ifndef KOKKOSSPGEMM_COMPAT_HPP
#define KOKKOSSPGEMM_COMPAT_HPP

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#if (defined(__x86_64__) || defined(__i386__)) && defined(__SSE2__) && !defined(__CUDA_ARCH__) && \
    !defined(__HIP_DEVICE_COMPILE__)
#define KOKKOSSPGEMM_STREAM_STORES 1
#include <immintrin.h>
#endif

// Host loops compiled a second time for AVX2 and chosen at run time (host_has_avx2), where the build's baseline lacks
// it (x86-64 builds default to SSE2): gcc and clang on x86-64, not under nvcc or hipcc, whose host passes need not
// take target attributes. A Kokkos_ARCH_* or -march with AVX2 makes the one copy AVX2 code already.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__AVX2__) && !defined(__CUDACC__) && \
    !defined(__HIPCC__) && !defined(__INTEL_COMPILER) && !defined(__INTEL_LLVM_COMPILER)
#define KOKKOSSPGEMM_HOST_AVX2_CLONES 1
#define KOKKOSSPGEMM_TARGET_AVX2 __attribute__((target("avx2")))
#endif

#if !defined(KOKKOS_VERSION) || KOKKOS_VERSION < 30400
#error "KokkosSpGEMM needs Kokkos 3.4 or newer"
#endif

namespace KokkosSpGEMM {
namespace Impl {

// Kokkos 3.4 has no Kokkos::min/max (3.7+); ours work everywhere and on any arithmetic type.
template <class T>
KOKKOS_INLINE_FUNCTION constexpr T min_of(const T& a, const T& b) {
  return b < a ? b : a;
}
template <class T>
KOKKOS_INLINE_FUNCTION constexpr T max_of(const T& a, const T& b) {
  return a < b ? b : a;
}

template <class T>
KOKKOS_INLINE_FUNCTION void swap_values(T& a, T& b) {
  T t = a;
  a = b;
  b = t;
}

// Kokkos 3.4 has no bit_ceil (4.x has Kokkos::bit_ceil).
KOKKOS_INLINE_FUNCTION constexpr std::uint64_t bit_ceil_u64(std::uint64_t x) {
  std::uint64_t p = 1;
  while (p < x) p <<= 1;
  return p;
}

// Number of the highest set bit plus one (0 for 0): the power-of-two bin of a row size.
KOKKOS_INLINE_FUNCTION constexpr int bit_width_u64(std::uint64_t x) {
  int w = 0;
  while (x) {
    ++w;
    x >>= 1;
  }
  return w;
}

// bit_width of x in one instruction where there is one: for device code that needs it per row (bit_width_u64 loops).
KOKKOS_INLINE_FUNCTION int bit_width_u32(std::uint32_t x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return 32 - __clz(static_cast<int>(x));
#elif defined(__GNUC__) || defined(__clang__)
  return x == 0 ? 0 : 32 - __builtin_clz(x);
#else
  return bit_width_u64(x);
#endif
}

// Asks for the cache line at p ahead of its load (a hint: never faults, whatever p is); nothing on GPUs.
KOKKOS_INLINE_FUNCTION void prefetch_read(const void* p) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  (void)p;
#elif defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(p, 0, 3);
#else
  (void)p;
#endif
}

// Index of the lowest set bit of x != 0 (Kokkos 3.4 has no countr_zero; 4.x's is constexpr-only on some compilers).
KOKKOS_INLINE_FUNCTION int lowest_bit_u64(std::uint64_t x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __ffsll(static_cast<long long>(x)) - 1;
#elif defined(__GNUC__) || defined(__clang__)
  return __builtin_ctzll(x);
#else
  int i = 0;
  while (!(x & 1)) {
    x >>= 1;
    ++i;
  }
  return i;
#endif
}

// Number of set bits of x. Without a target that has the instruction (__POPCNT__), GCC's builtin is a library call:
// the bit-parallel sum is faster there.
KOKKOS_INLINE_FUNCTION int popcount_u64(std::uint64_t x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __popcll(x);
#elif defined(__POPCNT__)
  return __builtin_popcountll(x);
#else
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return static_cast<int>((x * 0x0101010101010101ull) >> 56);
#endif
}

// Copies n values to dst with streaming stores where the host has them (x86 SSE2): they go to memory without the
// line's read that a cached store makes first, so a write-only array larger than the caches costs its writes alone.
// A plain copy elsewhere and for other value sizes. The writer calls stream_fence() before another thread reads dst.
template <class T>
KOKKOS_INLINE_FUNCTION void stream_copy(T* dst, const T* src, std::size_t n) {
#if defined(KOKKOSSPGEMM_STREAM_STORES)
  if constexpr (std::is_trivially_copyable<T>::value && (sizeof(T) == 4 || sizeof(T) == 8)) {
    const auto one = [](T* d, const T* s) {  // movnti
      if constexpr (sizeof(T) == 4) {
        int w;
        __builtin_memcpy(&w, s, sizeof(T));
        _mm_stream_si32(reinterpret_cast<int*>(d), w);
      } else {
        long long w;
        __builtin_memcpy(&w, s, sizeof(T));
        _mm_stream_si64(reinterpret_cast<long long*>(d), w);
      }
    };
    std::size_t i = 0;
    // One value at a time to the first 16-byte boundary, then 16 bytes a store (movntdq), then the rest.
    for (; i < n && (reinterpret_cast<std::uintptr_t>(dst + i) & 15) != 0; ++i) one(dst + i, src + i);
    constexpr std::size_t per = 16 / sizeof(T);
    for (; i + per <= n; i += per) {
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
    }
    for (; i < n; ++i) one(dst + i, src + i);
    return;
  }
#endif
  for (std::size_t i = 0; i < n; ++i) dst[i] = src[i];
}

#if defined(KOKKOSSPGEMM_HOST_AVX2_CLONES)
// Whether this CPU runs AVX2 code (KOKKOSSPGEMM_HOST_AVX2_CLONES), asked once.
inline bool host_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}
#endif

// Orders this thread's streaming stores (stream_copy) before its later stores.
KOKKOS_INLINE_FUNCTION void stream_fence() {
#if defined(KOKKOSSPGEMM_STREAM_STORES)
  _mm_sfence();
#endif
}

// Labelled fences appeared in Kokkos 3.6.
template <class ExecSpace>
void fence(const ExecSpace& exec, const std::string& label) {
#if KOKKOS_VERSION >= 30600
  exec.fence(label);
#else
  (void)label;
  exec.fence();
#endif
}

inline void fence_all(const std::string& label) {
#if KOKKOS_VERSION >= 30600
  Kokkos::fence(label);
#else
  (void)label;
  Kokkos::fence();
#endif
}

// Whether two instances are one queue: Kokkos 4 compares them; Kokkos 3.4's spaces here (Serial, OpenMP) have one.
template <class ExecSpace>
bool same_instance(const ExecSpace& a, const ExecSpace& b) {
#if KOKKOS_VERSION >= 40000
  return a == b;
#else
  (void)a;
  (void)b;
  return true;
#endif
}

// ExecSpace::concurrency() became a member function in Kokkos 4; calling it on an instance works in both.
template <class ExecSpace>
int concurrency(const ExecSpace& exec) {
  return static_cast<int>(exec.concurrency());
}

// Kokkos 3.4 keeps the math functions in Kokkos::Experimental.
template <class T>
KOKKOS_INLINE_FUNCTION auto sqrt_of(const T& x) {
#if KOKKOS_VERSION >= 30700
  return Kokkos::sqrt(x);
#else
  return Kokkos::Experimental::sqrt(x);
#endif
}

// Tpetra: Trilinos 13.2 (Debian bookworm) has getNode*; 13.4 added getLocal* and 14 removed getNode*. Matrices:
// getLocalMatrixDevice (13.2 on) replaced getLocalMatrix (removed in 14).
template <class T, class = void>
struct has_get_local_num_elements : std::false_type {};
template <class T>
struct has_get_local_num_elements<T, std::void_t<decltype(std::declval<const T&>().getLocalNumElements())>>
    : std::true_type {};
template <class Map>
std::size_t tpetra_local_num_elements(const Map& map) {
  if constexpr (has_get_local_num_elements<Map>::value) {
    return map.getLocalNumElements();
  } else {
    return map.getNodeNumElements();
  }
}
template <class T, class = void>
struct has_get_local_element_list : std::false_type {};
template <class T>
struct has_get_local_element_list<T, std::void_t<decltype(std::declval<const T&>().getLocalElementList())>>
    : std::true_type {};
template <class T, class = void>
struct has_get_raw_ptr : std::false_type {};
template <class T>
struct has_get_raw_ptr<T, std::void_t<decltype(std::declval<const T&>().getRawPtr())>> : std::true_type {};
/// The map's global indices in local order, as an array the map owns (13.2 and 13.4 give a Teuchos::ArrayView,
/// 14 a Kokkos::View). On a contiguous map Tpetra makes that array at the first call.
template <class Map>
const typename Map::global_ordinal_type* tpetra_local_element_list(const Map& map) {
  const auto list = [&] {
    if constexpr (has_get_local_element_list<Map>::value) {
      return map.getLocalElementList();
    } else {
      return map.getNodeElementList();
    }
  }();
  if constexpr (has_get_raw_ptr<decltype(list)>::value) {
    return list.getRawPtr();
  } else {
    return list.data();
  }
}
template <class T, class = void>
struct has_get_local_num_rows : std::false_type {};
template <class T>
struct has_get_local_num_rows<T, std::void_t<decltype(std::declval<const T&>().getLocalNumRows())>> : std::true_type {};
template <class Matrix>
std::size_t tpetra_local_num_rows(const Matrix& m) {
  if constexpr (has_get_local_num_rows<Matrix>::value) {
    return m.getLocalNumRows();
  } else {
    return m.getNodeNumRows();
  }
}
template <class T, class = void>
struct has_get_local_matrix_device : std::false_type {};
template <class T>
struct has_get_local_matrix_device<T, std::void_t<decltype(std::declval<const T&>().getLocalMatrixDevice())>>
    : std::true_type {};
template <class Matrix>
auto tpetra_local_matrix(const Matrix& m) {
  if constexpr (has_get_local_matrix_device<Matrix>::value) {
    return m.getLocalMatrixDevice();
  } else {
    return m.getLocalMatrix();
  }
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
