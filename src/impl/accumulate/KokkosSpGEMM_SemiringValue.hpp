// The value type through which the pipeline computes a semiring product: a value of the semiring's value type whose
// + is the semiring's add, * its multiply and default value its add identity. Every row method accumulates with
// Scalar(), + and * (and accumulate() below for concurrent adds), so on views of this type they compute the
// semiring product with no change of their own; plain plus-times products never go through it.
#ifndef KOKKOSSPGEMM_SEMIRINGVALUE_HPP
#define KOKKOSSPGEMM_SEMIRINGVALUE_HPP

#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <KokkosSpGEMM_Semirings.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace KokkosSpGEMM {
namespace Impl {

template <class Semiring>
struct SemiringValue {
  using semiring = Semiring;
  using value_type = typename Semiring::value_type;
  value_type x;

  KOKKOS_INLINE_FUNCTION SemiringValue() : x(Semiring::identity()) {}
  KOKKOS_INLINE_FUNCTION explicit SemiringValue(const value_type& v) : x(v) {}

  KOKKOS_INLINE_FUNCTION SemiringValue& operator+=(const SemiringValue& o) {
    x = Semiring::add(x, o.x);
    return *this;
  }
  friend KOKKOS_INLINE_FUNCTION SemiringValue operator+(SemiringValue a, const SemiringValue& b) {
    a += b;
    return a;
  }
  friend KOKKOS_INLINE_FUNCTION SemiringValue operator*(const SemiringValue& a, const SemiringValue& b) {
    return SemiringValue(Semiring::multiply(a.x, b.x));
  }
};

/// The value type C's views hold: the semiring's value type for SemiringValue, T otherwise.
template <class T>
struct stored_scalar {
  using type = T;
};
template <class S>
struct stored_scalar<SemiringValue<S>> {
  using type = typename S::value_type;
};
template <class T>
using stored_scalar_t = typename stored_scalar<T>::type;

template <class S, class = void>
struct has_atomic_add : std::false_type {};
template <class S>
struct has_atomic_add<
    S, std::void_t<decltype(S::atomic_add(static_cast<typename S::value_type*>(nullptr), S::identity()))>>
    : std::true_type {};

/// *p = add(*p, v) atomically: the semiring's own atomic where it has one, else a compare-and-swap loop on the bits.
template <class S>
KOKKOS_INLINE_FUNCTION void atomic_semiring_add(typename S::value_type* p, const typename S::value_type& v) {
  using T = typename S::value_type;
  if constexpr (has_atomic_add<S>::value) {
    S::atomic_add(p, v);
  } else {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8,
                  "KokkosSpGEMM: a semiring without atomic_add needs a value type of 4 or 8 bytes (GPU rows are "
                  "accumulated with a compare-and-swap on its bits)");
    using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    Bits* q = reinterpret_cast<Bits*>(p);
    Bits seen = *static_cast<volatile Bits*>(q);
    while (true) {
      T now;
      std::memcpy(&now, &seen, sizeof(T));
      const T next = S::add(now, v);
      Bits want;
      std::memcpy(&want, &next, sizeof(T));
      const Bits before = Kokkos::atomic_compare_exchange(q, seen, want);
      if (before == seen) return;
      seen = before;
    }
  }
}

/// Whether Scalar() is all zero bytes (then memory zeroed in bulk holds it: the wide-row pool relies on that).
template <class Scalar>
bool default_is_zero_bytes() {
  const Scalar x{};
  unsigned char zero[sizeof(Scalar)] = {};
  return std::memcmp(static_cast<const void*>(&x), zero, sizeof(Scalar)) == 0;
}

/// The accumulators' add (HashAccumulator.hpp) for semiring values.
template <bool Atomic, class S>
KOKKOS_INLINE_FUNCTION void accumulate(SemiringValue<S>* p, const SemiringValue<S>& v) {
  if constexpr (Atomic) {
    atomic_semiring_add<S>(&p->x, v.x);
  } else {
    *p += v;
  }
}

/// A values array seen as semiring values: the same memory, no copy.
template <class S, class Values>
auto semiring_values(const Values& v) {
  using Scalar = typename Values::value_type;
  using W = std::conditional_t<std::is_const<Scalar>::value, const SemiringValue<S>, SemiringValue<S>>;
  static_assert(std::is_same<std::remove_const_t<Scalar>, typename S::value_type>::value,
                "KokkosSpGEMM: the semiring's value_type must be the matrices' scalar type");
  static_assert(sizeof(SemiringValue<S>) == sizeof(Scalar) && alignof(SemiringValue<S>) == alignof(Scalar),
                "KokkosSpGEMM: a semiring value must have its value type's size");
  return Kokkos::View<std::remove_const_t<W>*, typename Values::memory_space>(
      reinterpret_cast<std::remove_const_t<W>*>(const_cast<std::remove_const_t<Scalar>*>(v.data())), v.extent(0));
}

/// A's (or B's, or C's) arrays seen as semiring values: the same row map, entries and values memory, no copy.
template <class S, class Scalar, class O, class F, class M>
CsrMatrix<SemiringValue<S>, O, F, M> semiring_view(const CsrMatrix<Scalar, O, F, M>& a) {
  using Out = CsrMatrix<SemiringValue<S>, O, F, M>;
  return Out(a.num_rows(), a.num_cols(), a.row_map(), a.entries(), semiring_values<S>(a.values()));
}

/// What the kernels take for a semiring product: the arrays themselves for plus-times (the plain path), else their
/// semiring views.
template <class S, class T>
auto semiring_operand(const T& x) {
  if constexpr (Semirings::is_plus_times<S>::value) {
    return x;
  } else if constexpr (Kokkos::is_view<T>::value) {
    return semiring_values<S>(x);
  } else {
    return semiring_view<S>(x);
  }
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
