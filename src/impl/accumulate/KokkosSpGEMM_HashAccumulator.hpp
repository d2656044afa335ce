// The row accumulator: an open-addressing hash table (Fibonacci home slot, double hashing) of column -> value, kept in
// team scratch (level 1) or in a chunk of the global memory pool (level 2), after kkSpGEMM §3.1.2.
//
// Keys only ever go from empty to a column, never back, so a lock-free insert needs one compare-and-swap and a
// key's place is fixed once claimed. A level-1 insert probes a bounded window; when every slot of the window
// holds another column the key can never enter level 1 later (slots do not empty), so sending it to level 2 is
// safe even with concurrent inserters: no column is ever stored in both levels.
#ifndef KOKKOSSPGEMM_HASHACCUMULATOR_HPP
#define KOKKOSSPGEMM_HASHACCUMULATOR_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <compat/KokkosSpGEMM_Compat.hpp>

#include <Kokkos_Core.hpp>
#include <Kokkos_Complex.hpp>

#include <cstdint>
#include <type_traits>

namespace KokkosSpGEMM {
namespace Impl {

/// Adds v to *p; complex values are added as two real atomics (addition commutes per component).
template <bool Atomic, class Scalar>
KOKKOS_INLINE_FUNCTION void accumulate(Scalar* p, const Scalar& v) {
  if constexpr (Atomic) {
    Kokkos::atomic_add(p, v);
  } else {
    *p += v;
  }
}
template <bool Atomic, class Real>
KOKKOS_INLINE_FUNCTION void accumulate(Kokkos::complex<Real>* p, const Kokkos::complex<Real>& v) {
  if constexpr (Atomic) {
    Real* parts = reinterpret_cast<Real*>(p);
    Kokkos::atomic_add(parts, v.real());
    Kokkos::atomic_add(parts + 1, v.imag());
  } else {
    *p += v;
  }
}

/// accumulate<Atomic> into team scratch: real and complex values take the backend traits' shared-space atomics.
template <bool Atomic, class Scalar>
KOKKOS_INLINE_FUNCTION void accumulate_in_scratch(Scalar* p, const Scalar& v) {
  if constexpr (Atomic && (std::is_same_v<Scalar, double> || std::is_same_v<Scalar, float>)) {
    scratch_add(p, v);
  } else {
    accumulate<Atomic>(p, v);
  }
}
template <bool Atomic, class Real>
KOKKOS_INLINE_FUNCTION void accumulate_in_scratch(Kokkos::complex<Real>* p, const Kokkos::complex<Real>& v) {
  if constexpr (Atomic) {
    Real* parts = reinterpret_cast<Real*>(p);
    accumulate_in_scratch<true>(parts, v.real());
    accumulate_in_scratch<true>(parts + 1, v.imag());
  } else {
    *p += v;
  }
}

enum class InsertResult { Inserted, Found, Full };

/// A view of one table: capacity is a power of two; keys hold -1 when empty (and -2 once erased). Atomic selects
/// concurrent inserts (several threads or vector lanes of one team share the table) or plain ones (one thread owns it);
/// Scratch says that the table lives in the team's level-0 scratch (its atomics then name that space).
template <class Ordinal, class Scalar, bool Atomic, bool Scratch = false>
struct HashTable {
  Ordinal* keys = nullptr;
  Scalar* values = nullptr;  // null in the symbolic phase
  Ordinal mask = 0;          // capacity - 1
  int shift = 31;            // 32 - log2(capacity): the home slot is the top bits of the key's product

  static constexpr Ordinal empty = -1;
  /// A key erased from a finished table: no column, and not empty, so that searches for other keys pass its slot.
  static constexpr Ordinal erased = -2;

  KOKKOS_DEFAULTED_FUNCTION HashTable() = default;
  /// The table of capacity mask + 1 slots at keys (and values).
  KOKKOS_INLINE_FUNCTION HashTable(Ordinal* k, Scalar* v, Ordinal m) : keys(k), values(v), mask(m) {
    const int bits = bit_width_u32(static_cast<std::uint32_t>(m));
    shift = bits == 0 ? 31 : 32 - bits;
  }

  KOKKOS_INLINE_FUNCTION Ordinal capacity() const { return mask + 1; }

  // Fibonacci hashing (the top bits of the key times 2^32 / phi): columns a power of two apart, as a grid's
  // neighbours are on 2^k or 2000 points, get distinct home slots, where identity hashing (key & mask) stacked them.
  KOKKOS_INLINE_FUNCTION Ordinal slot_of(Ordinal key) const {
    return static_cast<Ordinal>((static_cast<std::uint32_t>(key) * 2654435769u) >> shift) & mask;
  }
  // After a collision a key moves by an odd stride of its own (double hashing, so it still reaches every slot).
  // With steps of one, columns a capacity apart whose home slots wrap onto each other made long runs of occupied
  // slots that each later key walked one lane at a time.
  KOKKOS_INLINE_FUNCTION static Ordinal stride_of(Ordinal key) {
    return static_cast<Ordinal>(((static_cast<std::uint32_t>(key) * 2654435769u) >> 17) | 1u);
  }

  /// The slot after s in key's probe sequence; stride is 0 until the first collision computes it.
  KOKKOS_INLINE_FUNCTION Ordinal next_slot(Ordinal s, Ordinal key, Ordinal& stride) const {
    if (stride == 0) stride = stride_of(key);
    return (s + stride) & mask;
  }

  /// Finds or claims the slot of key within window probes. Returns the slot or -1 (window full of other keys).
  KOKKOS_INLINE_FUNCTION Ordinal find_or_claim(Ordinal key, Ordinal window, InsertResult& result) const {
    Ordinal s = slot_of(key);
    Ordinal stride = 0;  // computed at the first collision only
    for (Ordinal probe = 0; probe < window; ++probe) {
      // volatile: another thread may have claimed the slot since our last look.
      Ordinal current = static_cast<volatile Ordinal*>(keys)[s];
      if (current == empty) {
        if constexpr (Atomic) {
          if constexpr (Scratch) {
            current = scratch_compare_exchange(&keys[s], empty, key);
          } else {
            current = Kokkos::atomic_compare_exchange(&keys[s], empty, key);
          }
        } else {
          keys[s] = key;
        }
        if (current == empty) {
          result = InsertResult::Inserted;
          return s;
        }
      }
      if (current == key) {
        result = InsertResult::Found;
        return s;
      }
      s = next_slot(s, key, stride);
    }
    result = InsertResult::Full;
    return -1;
  }

  /// The slot holding key within window probes, or -1. Read-only: for tables whose inserts are done (after a
  /// barrier). An empty slot ends the search, so a key never inserted (even -1) is not found.
  KOKKOS_INLINE_FUNCTION Ordinal find(Ordinal key, Ordinal window) const {
    Ordinal s = slot_of(key);
    Ordinal stride = 0;
    for (Ordinal probe = 0; probe < window; ++probe, s = next_slot(s, key, stride)) {
      const Ordinal current = keys[s];
      if (current == empty) return -1;
      if (current == key) return s;
    }
    return -1;
  }

  /// Takes key out of a finished table (a complemented mask's column, before the row is written); returns whether
  /// it was there. Concurrent calls take distinct keys.
  KOKKOS_INLINE_FUNCTION bool erase(Ordinal key, Ordinal window) const {
    const Ordinal s = find(key, window);
    if (s >= 0) keys[s] = erased;
    return s >= 0;
  }

  /// Symbolic insert: records the column only.
  KOKKOS_INLINE_FUNCTION InsertResult insert(Ordinal key, Ordinal window) const {
    InsertResult r;
    find_or_claim(key, window, r);
    return r;
  }

  /// Numeric insert: records the column and adds v to its value (values start at zero).
  KOKKOS_INLINE_FUNCTION InsertResult insert_add(Ordinal key, const Scalar& v, Ordinal window) const {
    InsertResult r;
    const Ordinal s = find_or_claim(key, window, r);
    if (s < 0) return r;
    if constexpr (Scratch) {
      accumulate_in_scratch<Atomic>(&values[s], v);
    } else {
      accumulate<Atomic>(&values[s], v);
    }
    return r;
  }
};

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
