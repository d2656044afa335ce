// The CPU dense accumulator: a thread owns B.num_cols() slots (and a bitmap of them) from the memory pool.
#ifndef KOKKOSSPGEMM_DENSEROWKERNEL_HPP
#define KOKKOSSPGEMM_DENSEROWKERNEL_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <impl/memory/KokkosSpGEMM_MemoryPool.hpp>
#include <impl/accumulate/KokkosSpGEMM_RowSort.hpp>

#include <cstdint>

namespace KokkosSpGEMM {
namespace Impl {

/// The dense accumulator (kkSpGEMM's kkdense) for CPU spaces: per thread, in one pool chunk, a bitmap of
/// B.num_cols() columns and the list of the columns the row touched; in the numeric phase also a value slot per
/// column, and with Summary a second bitmap of the bitmap's nonzero words. Gather (numeric reuse: C's columns known)
/// marks columns with byte flags instead of bits: a gather only tests them, and a byte test is cheaper than a bit
/// test, while a full numeric phase keeps bits (it also stores them, dearer through bytes). Bitmaps, flags and
/// (branch-free) values are cleared after each row, so a chunk is always clean when free; the pool starts with them
/// zeroed.
template <class ExecSpace, bool Numeric, class Views, class Perm, bool Summary = false, bool Gather = false>
struct DenseRowKernel {
  using Ordinal = typename Views::ordinal_type;
  using Scalar = typename Views::scalar_type;
  using Pool = MemoryPool<typename ExecSpace::memory_space>;

  // Sorted output by walking the bitmap between the row's first and last column (64 columns a word, in order, and
  // clearing it on the way) when that span has at most this many words per entry and bit of the row's size; else a
  // sort of the touched list (n log n compares, most of them mispredicted: each costs more than a word of the walk).
  // With Summary the walk goes over the summary (4,096 columns a word) and visits only nonzero words: for rows much
  // shorter than B is wide, where empty words take much of the walk, while keeping the summary costs rows that fill
  // their words.
  static constexpr std::int64_t scan_words_per_compare = 4;

  Views v;
  Perm perm;
  std::int64_t first = 0;
  Ordinal width = 0;       // B.num_cols()
  std::int64_t bound = 0;  // the largest row bound of the bins sharing the pool: the touched list's length
  Pool pool;
  bool sorted = true;
  /// Full numeric phase: new columns found without a branch (BinConfig::dense_branch_free).
  bool branch_free = false;
  // With a chunk per thread, a thread's unique token picks its chunk: no shared flags bouncing between cores per
  // row, as the pool's acquire/release would cause.
  Kokkos::Experimental::UniqueToken<ExecSpace> token;
  bool by_token = false;

  // Chunk layout: bitmap (and summary), flags, values, touched list; each part 16-byte aligned (any scalar type).
  KOKKOS_INLINE_FUNCTION static std::size_t round16(std::size_t bytes) { return (bytes + 15) / 16 * 16; }
  KOKKOS_INLINE_FUNCTION static std::size_t bitmap_words(Ordinal width) {
    return (static_cast<std::size_t>(width) + 63) / 64;
  }
  KOKKOS_INLINE_FUNCTION static std::size_t summary_words(Ordinal width) {
    return Summary ? (bitmap_words(width) + 63) / 64 : 0;
  }
  KOKKOS_INLINE_FUNCTION static std::size_t bitmap_bytes(Ordinal width) {
    return round16((bitmap_words(width) + summary_words(width)) * 8);
  }
  KOKKOS_INLINE_FUNCTION static std::size_t flag_bytes(Ordinal width) {
    return Gather ? round16(static_cast<std::size_t>(width)) : 0;
  }
  /// The bitmaps and flags, which every row leaves cleared.
  KOKKOS_INLINE_FUNCTION static std::size_t clean_bytes(Ordinal width) {
    return bitmap_bytes(width) + flag_bytes(width);
  }
  /// What the pool zeroes: the clean part and, branch-free, the values, which every row then also leaves zeroed (its
  /// adds need no first-touch branch).
  KOKKOS_INLINE_FUNCTION static std::size_t zeroed_bytes(Ordinal width, bool branch_free) {
    return clean_bytes(width) + (branch_free && !Gather ? value_bytes(width) : 0);
  }
  KOKKOS_INLINE_FUNCTION static std::size_t value_bytes(Ordinal width) {
    return Numeric ? round16(static_cast<std::size_t>(width) * sizeof(Scalar)) : 0;
  }
  KOKKOS_INLINE_FUNCTION static std::size_t chunk_bytes(Ordinal width, std::int64_t bound) {
    return clean_bytes(width) + value_bytes(width) + static_cast<std::size_t>(bound + 1) * sizeof(Ordinal);
  }

  KOKKOS_INLINE_FUNCTION void release(std::int64_t chunk_id) const {
    if (by_token) {
      token.release(static_cast<int>(chunk_id));
    } else {
      pool.release(chunk_id);
    }
  }

  /// The size of a row of C from the compressed B: each run ORs its mask into the bitmap and counts the new bits;
  /// touched lists the words set, for clearing.
  KOKKOS_INLINE_FUNCTION std::int64_t count_compressed(Ordinal row, std::uint64_t* bits, Ordinal* touched) const {
    const std::int64_t* runs = v.bc_rows.data();
    const Ordinal* words = v.bc_words.data();
    const std::uint64_t* masks = v.bc_masks.data();
    std::int64_t n = 0, used = 0;
    for (auto e = v.a_rows(row); e < v.a_rows(row + 1); ++e) {
      const Ordinal k = v.a_cols(e);
      for (std::int64_t j = runs[k]; j < runs[k + 1]; ++j) {
        const Ordinal w = words[j];
        const std::uint64_t old = bits[w], add = masks[j] & ~old;
        if (add) {
          if (!old) touched[used++] = w;
          bits[w] = old | add;
          n += popcount_u64(add);
        }
      }
    }
    for (std::int64_t i = 0; i < used; ++i) bits[touched[i]] = 0;
    return n;
  }

  /// The size of a row of C, counted without branches: whether a column is new is a coin toss where rows barely
  /// compress, so a branch on it would be mispredicted about every other product.
  KOKKOS_INLINE_FUNCTION std::int64_t count_columns(Ordinal row, std::uint64_t* bits, Ordinal* touched) const {
    const auto* b_rows = v.b_rows.data();
    const Ordinal* b_cols = v.b_cols.data();
    std::int64_t n = 0;
    for (auto e = v.a_rows(row); e < v.a_rows(row + 1); ++e) {
      const Ordinal k = v.a_cols(e);
      for (auto jb = b_rows[k]; jb < b_rows[k + 1]; ++jb) {
        const Ordinal col = b_cols[jb];
        const std::uint64_t word = bits[col >> 6], bit = std::uint64_t(1) << (col & 63);
        bits[col >> 6] = word | bit;
        touched[n] = col;  // kept only when new (the list has a slot to spare)
        n += !(word & bit);
      }
    }
    for (std::int64_t i = 0; i < n; ++i) bits[touched[i] >> 6] = 0;
    return n;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t r) const {
    const Ordinal row = perm(first + r);
    const std::int64_t chunk_id = by_token ? static_cast<std::int64_t>(token.acquire()) : pool.acquire(r);
    char* chunk = pool.chunk(chunk_id);
    std::uint64_t* bits = reinterpret_cast<std::uint64_t*>(chunk);
    Ordinal* touched = reinterpret_cast<Ordinal*>(chunk + clean_bytes(width) + value_bytes(width));
    if constexpr (!Numeric) {
      v.row_sizes(row) =
          v.bc_rows.extent(0) > 0 ? count_compressed(row, bits, touched) : count_columns(row, bits, touched);
    } else {
      accumulate(row, bits, reinterpret_cast<unsigned char*>(chunk + bitmap_bytes(width)),
                 reinterpret_cast<Scalar*>(chunk + clean_bytes(width)), touched);
    }
    release(chunk_id);
  }

  /// The numeric phase of a row.
  KOKKOS_INLINE_FUNCTION void accumulate(Ordinal row, std::uint64_t* bits, unsigned char* flags, Scalar* acc,
                                         Ordinal* touched) const {
    std::uint64_t* summary = bits + bitmap_words(width);
    // Raw pointers in locals: stores through the byte flags may alias anything, and would otherwise make the
    // compiler reload every view's data pointer after each of them.
    const auto* b_rows = v.b_rows.data();
    const Ordinal* b_cols = v.b_cols.data();
    const Scalar* b_vals = v.b_vals.data();
    std::int64_t n = 0;
    std::int64_t lo = width, hi = 0;  // the row's first and last column (with Summary: word)
    // The row's span takes column col of word w (with Summary: the word, marked in the summary).
    const auto widen = [&](std::int64_t w, Ordinal col) {
      if constexpr (Summary) {
        summary[w >> 6] |= std::uint64_t(1) << (w & 63);
        lo = w < lo ? w : lo;
        hi = w > hi ? w : hi;
      } else {
        lo = col < lo ? col : lo;
        hi = col > hi ? col : hi;
      }
    };
    for (auto e = v.a_rows(row); e < v.a_rows(row + 1); ++e) {
      const Ordinal k = v.a_cols(e);
      const Scalar a_val = v.a_vals(e);
      const auto end = b_rows[k + 1];
      for (auto jb = b_rows[k]; jb < end; ++jb) {
        const Ordinal col = b_cols[jb];
        if constexpr (Gather) {
          if (!flags[col]) {
            flags[col] = 1;
            touched[n++] = col;
            acc[col] = Scalar();
          }
          acc[col] += a_val * b_vals[jb];
          continue;
        }
        const std::int64_t w = col >> 6;
        const std::uint64_t word = bits[w], bit = std::uint64_t(1) << (col & 63);
        if (branch_free) {
          // The values are zero until touched (each row zeroes what it read), so every product just adds.
          bits[w] = word | bit;
          touched[n] = col;  // kept only when new (the list has a slot to spare)
          n += !(word & bit);
          widen(w, col);
        } else if (!(word & bit)) {
          bits[w] = word | bit;
          touched[n++] = col;
          acc[col] = Scalar();
          if (!Summary || !word) widen(w, col);
        }
        acc[col] += a_val * b_vals[jb];
      }
    }
    Ordinal* c_cols = v.c_cols.data() + v.c_rows(row);
    Scalar* c_vals = v.c_vals.data() + v.c_rows(row);
    if constexpr (Gather) {
      // Reuse: C's columns are in place, each value is one read of the accumulator (no sort, no scan).
      const std::int64_t size = v.c_rows(row + 1) - v.c_rows(row);
      for (std::int64_t i = 0; i < size; ++i) {
        const Ordinal col = c_cols[i];
        c_vals[i] = col >= 0 && col < width && flags[col] ? acc[col] : v.missed();
      }
      for (std::int64_t i = 0; i < n; ++i) flags[touched[i]] = 0;
      return;
    } else if (sorted && n > 1 &&
               (hi >> 6) - (lo >> 6) < scan_words_per_compare * n * bit_width_u64(static_cast<std::uint64_t>(n))) {
      // Columns in order from the bitmap(s), cleared on the way.
      std::int64_t out = 0;
      const auto emit_word = [&](std::int64_t w) {
        std::uint64_t word = bits[w];
        bits[w] = 0;
        for (; word; word &= word - 1) {
          const Ordinal col = static_cast<Ordinal>(w * 64 + lowest_bit_u64(word));
          c_cols[out] = col;
          c_vals[out++] = acc[col];
          if (branch_free) acc[col] = Scalar();
        }
      };
      if constexpr (Summary) {
        for (std::int64_t s = lo >> 6; s <= (hi >> 6); ++s) {
          std::uint64_t words = summary[s];
          summary[s] = 0;
          for (; words; words &= words - 1) emit_word(s * 64 + lowest_bit_u64(words));
        }
      } else {
        for (std::int64_t w = lo >> 6; w <= (hi >> 6); ++w) {
          if (bits[w]) emit_word(w);
        }
      }
      return;
    } else {
      if (sorted) sort_row_sequential(touched, static_cast<Scalar*>(nullptr), n);
      for (std::int64_t i = 0; i < n; ++i) {
        c_cols[i] = touched[i];
        c_vals[i] = acc[touched[i]];
        if (branch_free) acc[touched[i]] = Scalar();
      }
      // Cleared here, not after the if: the other branches return, and nvcc warns of an unreachable loop.
      for (std::int64_t i = 0; i < n; ++i) {
        bits[touched[i] >> 6] = 0;
        if constexpr (Summary) summary[touched[i] >> 12] = 0;
      }
    }
  }
};

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
