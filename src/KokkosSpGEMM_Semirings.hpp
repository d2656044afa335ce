// Semirings: what "add" and "multiply" mean in C = A ⊕.⊗ B. A semiring is a small struct of static functions (the
// add monoid's identity, add, multiply) with its value type; every row method of the pipeline takes one through a
// value type whose + and * are the semiring's (impl/accumulate/KokkosSpGEMM_SemiringValue.hpp), so no kernel has a
// copy per semiring. A user-defined semiring is a struct of the same shape:
//
//   struct MyRing {
//     using value_type = double;
//     static KOKKOS_INLINE_FUNCTION value_type identity() { ... }   // of add: add(identity(), x) == x
//     static KOKKOS_INLINE_FUNCTION value_type add(value_type x, value_type y) { ... }   // associative, commutative
//     static KOKKOS_INLINE_FUNCTION value_type multiply(value_type x, value_type y) { ... }
//     static constexpr const char* name = "my-ring";
//     // optional: static KOKKOS_INLINE_FUNCTION void atomic_add(value_type* p, value_type x), an atomic *p = add(*p,
//     x)
//     // (without it, a compare-and-swap loop; value types of 4 or 8 bytes then)
//   };
#ifndef KOKKOSSPGEMM_SEMIRINGS_HPP
#define KOKKOSSPGEMM_SEMIRINGS_HPP

#include <Kokkos_Core.hpp>
#include <Kokkos_NumericTraits.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace KokkosSpGEMM {
namespace Semirings {

namespace Detail {
template <class T>
constexpr bool is_number = std::is_arithmetic<T>::value && !std::is_same<T, bool>::value;
// Kokkos' numeric traits, not std::numeric_limits: these run in device code.
template <class T>
KOKKOS_INLINE_FUNCTION constexpr T largest() {
  if constexpr (std::is_floating_point<T>::value) {
    return Kokkos::Experimental::infinity<T>::value;
  } else {
    return Kokkos::Experimental::finite_max<T>::value;
  }
}
template <class T>
KOKKOS_INLINE_FUNCTION constexpr T smallest() {
  if constexpr (std::is_floating_point<T>::value) {
    return -Kokkos::Experimental::infinity<T>::value;
  } else {
    return Kokkos::Experimental::finite_min<T>::value;
  }
}
}  // namespace Detail

/// The usual product: (+, ×), identity 0. The plain spgemm calls are this semiring.
template <class T>
struct PlusTimes {
  using value_type = T;
  static constexpr const char* name = "plus-times";
  static KOKKOS_INLINE_FUNCTION T identity() { return T(); }
  static KOKKOS_INLINE_FUNCTION T add(const T& x, const T& y) { return x + y; }
  static KOKKOS_INLINE_FUNCTION T multiply(const T& x, const T& y) { return x * y; }
};

/// Shortest paths (tropical): (min, +), identity +infinity (the largest value for integers).
template <class T>
struct MinPlus {
  static_assert(Detail::is_number<T>, "KokkosSpGEMM::Semirings::MinPlus needs a real or integer value type");
  using value_type = T;
  static constexpr const char* name = "min-plus";
  static KOKKOS_INLINE_FUNCTION T identity() { return Detail::largest<T>(); }
  static KOKKOS_INLINE_FUNCTION T add(T x, T y) { return y < x ? y : x; }
  static KOKKOS_INLINE_FUNCTION T multiply(T x, T y) { return x + y; }
  static KOKKOS_INLINE_FUNCTION void atomic_add(T* p, T x) { (void)Kokkos::atomic_fetch_min(p, x); }
};

/// Longest (critical) paths: (max, +), identity -infinity (the lowest value for integers).
template <class T>
struct MaxPlus {
  static_assert(Detail::is_number<T>, "KokkosSpGEMM::Semirings::MaxPlus needs a real or integer value type");
  using value_type = T;
  static constexpr const char* name = "max-plus";
  static KOKKOS_INLINE_FUNCTION T identity() { return Detail::smallest<T>(); }
  static KOKKOS_INLINE_FUNCTION T add(T x, T y) { return x < y ? y : x; }
  static KOKKOS_INLINE_FUNCTION T multiply(T x, T y) { return x + y; }
  static KOKKOS_INLINE_FUNCTION void atomic_add(T* p, T x) { (void)Kokkos::atomic_fetch_max(p, x); }
};

/// Widest (bottleneck) paths: (max, min), identity -infinity.
template <class T>
struct MaxMin {
  static_assert(Detail::is_number<T>, "KokkosSpGEMM::Semirings::MaxMin needs a real or integer value type");
  using value_type = T;
  static constexpr const char* name = "max-min";
  static KOKKOS_INLINE_FUNCTION T identity() { return Detail::smallest<T>(); }
  static KOKKOS_INLINE_FUNCTION T add(T x, T y) { return x < y ? y : x; }
  static KOKKOS_INLINE_FUNCTION T multiply(T x, T y) { return y < x ? y : x; }
  static KOKKOS_INLINE_FUNCTION void atomic_add(T* p, T x) { (void)Kokkos::atomic_fetch_max(p, x); }
};

/// Reachability: (or, and) on bool (or on integers: nonzero is true, results are 0 or 1).
template <class T = bool>
struct OrAnd {
  static_assert(std::is_integral<T>::value, "KokkosSpGEMM::Semirings::OrAnd needs bool or an integer value type");
  using value_type = T;
  static constexpr const char* name = "or-and";
  static KOKKOS_INLINE_FUNCTION T identity() { return T(0); }
  static KOKKOS_INLINE_FUNCTION T add(T x, T y) { return T(x != T(0) || y != T(0)); }
  static KOKKOS_INLINE_FUNCTION T multiply(T x, T y) { return T(x != T(0) && y != T(0)); }
  /// Every writer stores the same true, so a plain store of it is the atomic or (no compare-and-swap on a byte).
  static KOKKOS_INLINE_FUNCTION void atomic_add(T* p, T x) {
    if (x != T(0)) *static_cast<volatile T*>(p) = T(1);
  }
};

/// Counts of paths of length two (common neighbours; triangles under a mask): (+, pair), where pair(x, y) = 1.
template <class T = std::int64_t>
struct PlusPair {
  static_assert(Detail::is_number<T>, "KokkosSpGEMM::Semirings::PlusPair needs a real or integer value type");
  using value_type = T;
  static constexpr const char* name = "plus-pair";
  static KOKKOS_INLINE_FUNCTION T identity() { return T(0); }
  static KOKKOS_INLINE_FUNCTION T add(T x, T y) { return x + y; }
  static KOKKOS_INLINE_FUNCTION T multiply(T, T) { return T(1); }
  static KOKKOS_INLINE_FUNCTION void atomic_add(T* p, T x) { Kokkos::atomic_add(p, x); }
};

/// The pattern of A·B: (any, pair). C's columns are computed, its values are all 1 (true): multiply reads neither
/// operand's values, so the kernels load none.
template <class T = bool>
struct AnyPair {
  using value_type = T;
  static constexpr const char* name = "any-pair";
  static KOKKOS_INLINE_FUNCTION T identity() { return T(0); }
  static KOKKOS_INLINE_FUNCTION T add(T x, T y) { return T(x != T(0) || y != T(0)); }
  static KOKKOS_INLINE_FUNCTION T multiply(T, T) { return T(1); }
  static KOKKOS_INLINE_FUNCTION void atomic_add(T* p, T x) {
    if (x != T(0)) *static_cast<volatile T*>(p) = T(1);
  }
};

/// Whether S has the shape of a semiring (value_type, identity, add, multiply).
template <class S, class = void>
struct is_semiring : std::false_type {};
template <class S>
struct is_semiring<
    S, std::void_t<typename S::value_type, decltype(S::identity()), decltype(S::add(S::identity(), S::identity())),
                   decltype(S::multiply(S::identity(), S::identity()))>> : std::true_type {};

/// True for plus-times, which the plain pipeline computes without the semiring value type.
template <class S>
struct is_plus_times : std::false_type {};
template <class T>
struct is_plus_times<PlusTimes<T>> : std::true_type {};

/// The names the tool takes.
inline const char* const names[] = {"plus-times", "min-plus", "max-plus", "max-min", "or-and", "plus-pair", "any-pair"};

}  // namespace Semirings
}  // namespace KokkosSpGEMM

#endif
