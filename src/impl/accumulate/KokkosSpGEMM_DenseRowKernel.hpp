// The CPU dense accumulator: a thread owns B.num_cols() slots (with a stamp each) from the memory pool.
#ifndef KOKKOSSPGEMM_DENSEROWKERNEL_HPP
#define KOKKOSSPGEMM_DENSEROWKERNEL_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <impl/memory/KokkosSpGEMM_MemoryPool.hpp>
#include <impl/accumulate/KokkosSpGEMM_RowSort.hpp>
#include <impl/pipeline/KokkosSpGEMM_InputChecks.hpp>

#include <cstdint>
#include <type_traits>

namespace KokkosSpGEMM {
namespace Impl {

/// A launch of the dense accumulator takes at most one work item per this many rows: one chunk, taken once, serves a
/// range of rows; per row, a chunk taken and given back and a call of the functor cost as much as the products of a
/// short row (A times a tentative prolongator).
constexpr std::int64_t dense_rows_per_item = 32;

/// rows_of_even_length looks at this many rows at most, evenly spaced: a sample's cost stays small beside the count.
constexpr std::int64_t even_rows_samples = 4096;

/// Whether a matrix's rows are of nearly one length (a stencil's, not a graph's): the longest of even_rows_samples
/// rows evenly spaced at most 5/4 of the mean. The dense count then branches on new columns, which the repeating
/// pattern of such rows predicts (2D 5-point and 3D 7-point: a fifth less time), where a graph's rows would mispredict
/// about every other product (cage11: 1.8x the time).
template <class ExecSpace, class RowMap>
bool rows_of_even_length(const ExecSpace& exec, const RowMap& row_map, std::size_t nnz) {
  const std::int64_t rows = row_map.extent(0) > 0 ? static_cast<std::int64_t>(row_map.extent(0)) - 1 : 0;
  if (rows == 0 || nnz == 0) return false;
  const std::int64_t stride = (rows + even_rows_samples - 1) / even_rows_samples;
  std::int64_t longest = 0;
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::DenseRows::even_rows", Impl::Range<ExecSpace>(exec, 0, (rows + stride - 1) / stride),
      KOKKOS_LAMBDA(const std::int64_t s, std::int64_t& most) {
        const std::int64_t i = s * stride;
        const auto n = static_cast<std::int64_t>(row_map(i + 1) - row_map(i));
        most = n > most ? n : most;
      },
      Kokkos::Max<std::int64_t>(longest));
  return 4 * longest * rows <= 5 * static_cast<std::int64_t>(nnz);
}

/// The dense accumulator (kkSpGEMM's kkdense, with Gustavson's marker array) for CPU spaces: per thread, in one pool
/// chunk, a stamp per column of B, the list of the columns the row touched, a bitmap of B.num_cols() columns for the
/// sorted walk, and in the numeric phase a value slot per column (with Summary, a second bitmap of the bitmap's
/// nonzero words).
///
/// A column is new in a row when its stamp differs from the row's stamp, a number the chunk's header hands out once
/// per row: one load, one compare and one store per product, with nothing to clear after the row. A bitmap instead
/// (the first version) had each product read, modify and write a word that the next product's column often shares,
/// a chain of store-to-load waits (docs/performance.md). Values need no clearing either: a new column's slot is
/// overwritten. The bitmap is set from the touched list only when the row is emitted by walking it, and the walk
/// clears it, so a chunk is always clean when free; the pool starts with header, stamps and bitmaps zeroed.
///
/// BranchFree (numeric, Auto's choice for rows of very unequal products that compress a little: graphs): instead of a
/// branch on whether a column is new, every product lists its column past the row's last, counts it only when new
/// and adds to its slot, which the row's write-out leaves zero. On such rows whether a column is new is a coin toss
/// the branch mispredicts; on rows of a repeating pattern (stencils) it predicts well, and the branch-free form's
/// count of new columns, on which each list store's address waits, costs more (docs/performance.md).
template <class ExecSpace, bool Numeric, class Views, class Perm, bool Summary = false, bool Gather = false,
          bool BranchFree = false>
struct DenseRowKernel {
  using Ordinal = typename Views::ordinal_type;
  using Scalar = typename Views::scalar_type;
  using Pool = MemoryPool<typename ExecSpace::memory_space>;
  using Stamp = std::uint16_t;
  static_assert(!(Gather && BranchFree), "the gather of known columns does not clear its values");

  // Sorted output: by walking the bitmap between the row's first and last column (64 columns a word, in order, and
  // clearing it on the way) when that span has at most walk_words_per_entry words per entry: dense rows, as of 3D
  // stencils. Else an insertion sort of the touched list, which is linear on the nearly sorted lists of banded
  // matrices (each entry of A appends a sorted run of B's row), and gives up past insertion_moves_per_entry moves per
  // entry. Then the walk again where the span has at most scan_words_per_compare words per entry and bit of the
  // row's size; else a quicksort of the list (n log n compares, most of them mispredicted: each costs more than a
  // word of the walk). With Summary the walk goes over the summary (4,096 columns a word) and visits only nonzero
  // words: for rows much shorter than B is wide, where empty words take much of the walk. Rows of up to
  // insertion_first_entries entries try the insertion sort first: there the pass for the first and last column and
  // the walk over a span of many words cost more than the few moves of a nearly sorted list (A times a tentative
  // prolongator: 4 entries over 25 words; 2D 5-point: 13 over 62).
  static constexpr std::int64_t walk_words_per_entry = 8;
  static constexpr std::int64_t insertion_first_entries = 32;
  static constexpr std::int64_t insertion_moves_per_entry = 8;
  static constexpr std::int64_t scan_words_per_compare = 4;

  Views v;
  Perm perm;
  std::int64_t first = 0;
  Ordinal width = 0;       // B.num_cols()
  std::int64_t bound = 0;  // the largest row bound of the bins sharing the pool: the touched list's length
  Pool pool;
  bool sorted = true;
  // With a chunk per thread, a thread's unique token picks its chunk: no shared flags bouncing between cores per
  // row, as the pool's acquire/release would cause.
  Kokkos::Experimental::UniqueToken<ExecSpace> token;
  bool by_token = false;

  // Chunk layout: header (the last stamp handed out; at byte 8 whether the values are zeroed), stamps, bitmap (and
  // summary), values, touched list; each part 16-byte aligned (any scalar type).
  KOKKOS_INLINE_FUNCTION static std::size_t round16(std::size_t bytes) { return (bytes + 15) / 16 * 16; }
  static constexpr std::size_t header_bytes = 16;
  KOKKOS_INLINE_FUNCTION static std::size_t stamp_bytes(Ordinal width) {
    return round16(static_cast<std::size_t>(width) * sizeof(Stamp));
  }
  KOKKOS_INLINE_FUNCTION static std::size_t bitmap_words(Ordinal width) {
    return (static_cast<std::size_t>(width) + 63) / 64;
  }
  KOKKOS_INLINE_FUNCTION static std::size_t summary_words(Ordinal width) {
    return Summary ? (bitmap_words(width) + 63) / 64 : 0;
  }
  KOKKOS_INLINE_FUNCTION static std::size_t bitmap_bytes(Ordinal width) {
    return Numeric && !Gather ? round16((bitmap_words(width) + summary_words(width)) * 8) : 0;
  }
  KOKKOS_INLINE_FUNCTION static std::size_t value_bytes(Ordinal width) {
    return Numeric ? round16(static_cast<std::size_t>(width) * sizeof(Scalar)) : 0;
  }
  /// What the pool zeroes, and every row leaves as it found it: header, stamps and bitmaps. BranchFree: the values,
  /// which every row leaves zero too, are zeroed by the chunk's first work item of the launch (values_ready): a
  /// launch of few threads over many chunks would otherwise zero them all.
  KOKKOS_INLINE_FUNCTION static std::size_t zeroed_bytes(Ordinal width) {
    return header_bytes + stamp_bytes(width) + bitmap_bytes(width);
  }
  KOKKOS_INLINE_FUNCTION static std::size_t chunk_bytes(Ordinal width, std::int64_t bound) {
    return zeroed_bytes(width) + value_bytes(width) + static_cast<std::size_t>(bound + 1) * sizeof(Ordinal);
  }

  /// The chunk's values; BranchFree: zeroed at their first use since the pool zeroed its header.
  KOKKOS_INLINE_FUNCTION Scalar* values_ready(char* chunk) const {
    Scalar* acc = reinterpret_cast<Scalar*>(chunk + zeroed_bytes(width));
    std::uint32_t& ready = *reinterpret_cast<std::uint32_t*>(chunk + 8);
    if (BranchFree && !ready) {
      for (Ordinal c = 0; c < width; ++c) acc[c] = Scalar();
      ready = 1;
    }
    return acc;
  }

  KOKKOS_INLINE_FUNCTION void release(std::int64_t chunk_id) const {
    if (by_token) {
      token.release(static_cast<int>(chunk_id));
    } else {
      pool.release(chunk_id);
    }
  }

  /// The row's stamp: the chunk's next one. After every 65,535 rows on one chunk the stamps start again from zero:
  /// clearing width stamps that often costs little next to the rows' work, and two bytes a column halve the
  /// memory, and the zeroing, of four.
  KOKKOS_INLINE_FUNCTION Stamp next_stamp(char* chunk, Stamp* stamps) const {
    Stamp& last = *reinterpret_cast<Stamp*>(chunk);
    if (last == static_cast<Stamp>(~Stamp(0))) {
      for (Ordinal c = 0; c < width; ++c) stamps[c] = 0;
      last = 0;
    }
    return ++last;
  }

  /// What a counting row checks of A (MultiplyViews::check_a): read into locals once an item, so that the rows'
  /// stores into the bitmap (words the width of an extent, which may alias one) do not reload them every entry.
  struct ACheck {
    bool on = false;
    std::size_t a_nnz = 0;
    Ordinal a_rows = 0;
    std::make_unsigned_t<Ordinal> b_rows = 0;
    /// Whether row i of A keeps the CSR rules (csr_offsets_ok); a row that does not is counted in bad, not followed.
    template <class ARows>
    KOKKOS_INLINE_FUNCTION bool row_followed(const ARows& a_row_map, Ordinal row, std::int64_t& bad) const {
      if (!on || csr_offsets_ok(a_row_map, a_nnz, row, a_rows)) return true;
      ++bad;
      return false;
    }
    /// Whether A's column k names a row of B; one that does not is counted in bad.
    KOKKOS_INLINE_FUNCTION bool entry_followed(Ordinal k, std::int64_t& bad) const {
      if (!on || static_cast<std::make_unsigned_t<Ordinal>>(k) < b_rows) return true;
      ++bad;
      return false;
    }
  };

  /// A's check, on or off, for the rows of this kernel's views.
  KOKKOS_INLINE_FUNCTION ACheck a_check(bool on) const {
    ACheck check;
    check.on = on;
    check.a_nnz = v.a_cols.extent(0);
    check.a_rows = static_cast<Ordinal>(v.a_rows.extent(0) - 1);
    check.b_rows = static_cast<std::make_unsigned_t<Ordinal>>(v.b_rows.extent(0) - 1);
    return check;
  }

  /// The size of a row of C from the compressed B: each run ORs its mask into the bitmap and counts the new bits;
  /// touched lists the words set, for clearing. Counts: also the row's products (from B's row map) and A's check.
  template <bool Counts>
  KOKKOS_INLINE_FUNCTION std::int64_t count_compressed(Ordinal row, std::uint64_t* bits, Ordinal* touched,
                                                       const ACheck& check, std::int64_t& products,
                                                       std::int64_t& bad) const {
    const std::int64_t* runs = v.bc_rows.data();
    const Ordinal* words = v.bc_words.data();
    const std::uint64_t* masks = v.bc_masks.data();
    const auto* b_rows = v.b_rows.data();
    const Ordinal* a_cols = v.a_cols.data();
    std::int64_t n = 0, used = 0;
    if (Counts && !check.row_followed(v.a_rows, row, bad)) return 0;
    const auto a_end = v.a_rows(row + 1);
    for (auto e = v.a_rows(row); e < a_end; ++e) {
      const Ordinal k = a_cols[e];
      if (Counts && !check.entry_followed(k, bad)) continue;
      if constexpr (Counts) products += static_cast<std::int64_t>(b_rows[k + 1] - b_rows[k]);
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
    // A complemented mask's columns that the row holds are not C's: counted off after the products, one walk of
    // its row (set before them, its words had to be cleared in a second).
    bad += for_mask_row<Counts>(
        row, [&](const Ordinal col) { n -= static_cast<std::int64_t>((bits[col >> 6] >> (col & 63)) & 1); });
    for (std::int64_t i = 0; i < used; ++i) bits[touched[i]] = 0;
    return n;
  }

  /// Calls f(column) for each column of the complemented mask's row (MultiplyViews::mask_rows). Check: the row is
  /// checked as it is read, the mask having no pass of its own before the count (MaskedSpGEMM.hpp): its offsets,
  /// each column within B's width and above the one before; a flawed row or column is counted in the return and not
  /// passed to f.
  template <bool Check, class F>
  KOKKOS_INLINE_FUNCTION std::int64_t for_mask_row(const Ordinal row, const F& f) const {
    if (v.mask_rows.extent(0) == 0) return 0;
    const auto begin = v.mask_rows(row), end = v.mask_rows(row + 1);
    if constexpr (Check) {
      if (!csr_offsets_ok(begin, end, v.mask_cols.extent(0), row, static_cast<Ordinal>(v.mask_rows.extent(0) - 1))) {
        return 1;
      }
      std::int64_t flaws = 0;
      Ordinal last = -1;
      for (auto p = begin; p < end; ++p) {
        const Ordinal col = v.mask_cols(p);
        if (col > last && col < width) {
          f(col);
        } else {
          ++flaws;
        }
        last = col;
      }
      return flaws;
    } else {
      for (auto p = begin; p < end; ++p) f(v.mask_cols(p));
      return 0;
    }
  }

  /// A complemented mask's row (MultiplyViews::mask_rows) stamped as seen, so that its columns are never new: never
  /// counted, listed or written. Their slots may take sums, which no row reads (a new column's slot is overwritten;
  /// BranchFree clears them with clear_mask_row).
  KOKKOS_INLINE_FUNCTION void stamp_mask_row(Ordinal row, Stamp* stamps, Stamp stamp) const {
    for_mask_row<false>(row, [&](const Ordinal col) { stamps[col] = stamp; });
  }
  KOKKOS_INLINE_FUNCTION void clear_mask_row(Ordinal row, Scalar* acc) const {
    for_mask_row<false>(row, [&](const Ordinal col) { acc[col] = Scalar(); });
  }

  /// The size of a row of C, counted without branches: whether a column is new is a coin toss where rows barely
  /// compress, so a branch on it would be mispredicted about every other product; with a branch where A's and B's
  /// rows are of even length (Branches: MultiplyViews::count_branches). Counts: also the row's products and A's check.
  template <bool Counts, bool Branches>
  KOKKOS_INLINE_FUNCTION std::int64_t count_columns(Ordinal row, Stamp* stamps, Stamp stamp, const ACheck& check,
                                                    std::int64_t& products, std::int64_t& bad) const {
    const auto* b_rows = v.b_rows.data();
    const Ordinal* b_cols = v.b_cols.data();
    const Ordinal* a_cols = v.a_cols.data();
    if (Counts && !check.row_followed(v.a_rows, row, bad)) return 0;
    bad += for_mask_row<Counts>(row, [&](const Ordinal col) { stamps[col] = stamp; });
    std::int64_t n = 0;
    const auto a_end = v.a_rows(row + 1);
    if (v.unit_b) {
      for (auto e = v.a_rows(row); e < a_end; ++e) {
        const Ordinal k = a_cols[e];
        if (Counts && !check.entry_followed(k, bad)) continue;
        if constexpr (Counts) ++products;
        const Ordinal col = b_cols[k];
        n += stamps[col] != stamp;
        stamps[col] = stamp;
      }
      return n;
    }
    for (auto e = v.a_rows(row); e < a_end; ++e) {
      const Ordinal k = a_cols[e];
      if (Counts && !check.entry_followed(k, bad)) continue;
      const auto begin = b_rows[k], end = b_rows[k + 1];
      if constexpr (Counts) products += static_cast<std::int64_t>(end - begin);
      if constexpr (Branches) {
        for (auto jb = begin; jb < end; ++jb) {
          const Ordinal col = b_cols[jb];
          if (stamps[col] != stamp) {
            stamps[col] = stamp;
            ++n;
          }
        }
      } else {
        for (auto jb = begin; jb < end; ++jb) {
          const Ordinal col = b_cols[jb];
          n += stamps[col] != stamp;
          stamps[col] = stamp;
        }
      }
    }
    return n;
  }

  static constexpr std::int64_t rows_per_item = dense_rows_per_item;
  // Item w takes the launch's rows [ranges(w), ranges(w + 1)), ranges of equal work (balanced_ranges).
  Kokkos::View<const std::int64_t*, typename ExecSpace::memory_space> ranges;

  /// A chunk's parts (see the layout above).
  struct Parts {
    Stamp* stamps;
    std::uint64_t* bits;
    Ordinal* touched;
    Scalar* acc;  // numeric only
  };
  KOKKOS_INLINE_FUNCTION Parts parts(char* chunk) const {
    Parts p{reinterpret_cast<Stamp*>(chunk + header_bytes),
            reinterpret_cast<std::uint64_t*>(chunk + header_bytes + stamp_bytes(width)),
            reinterpret_cast<Ordinal*>(chunk + zeroed_bytes(width) + value_bytes(width)), nullptr};
    if constexpr (Numeric) p.acc = values_ready(chunk);
    return p;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t item) const {
    if (v.operands_failed()) return;
    const std::int64_t begin = ranges(item), end = ranges(item + 1);
    if (begin == end) return;
    const std::int64_t chunk_id = by_token ? static_cast<std::int64_t>(token.acquire()) : pool.acquire(item);
    char* chunk = pool.chunk(chunk_id);
    const Parts p = parts(chunk);
    if constexpr (Numeric) {
      for (std::int64_t r = begin; r < end; ++r) {
        const Ordinal row = perm(first + r);
        accumulate(row, p, next_stamp(chunk, p.stamps), v.c_cols.data() + v.c_rows(row),
                   v.c_vals.data() + v.c_rows(row));
      }
    } else if (v.counted_products.extent(0) > 0) {
      if (v.count_branches) {
        count_rows<true, true>(item, begin, end, chunk, p.stamps, p.touched);
      } else {
        count_rows<true, false>(item, begin, end, chunk, p.stamps, p.touched);
      }
    } else if (v.count_branches) {
      count_rows<false, true>(item, begin, end, chunk, p.stamps, p.touched);
    } else {
      count_rows<false, false>(item, begin, end, chunk, p.stamps, p.touched);
    }
    release(chunk_id);
  }

  /// The symbolic phase of rows [begin, end) of work item `item`; Counts: with their products and A's check
  /// (MultiplyViews::counted_products).
  template <bool Counts, bool Branches>
  KOKKOS_INLINE_FUNCTION void count_rows(std::int64_t item, std::int64_t begin, std::int64_t end, char* chunk,
                                         Stamp* stamps, Ordinal* touched) const {
    std::int64_t sum = 0, most = 0, bad = 0;
    const bool compressed = v.bc_rows.extent(0) > 0;
    ACheck check;
    if constexpr (Counts) check = a_check(v.check_a);
    for (std::int64_t r = begin; r < end; ++r) {
      const Ordinal row = perm(first + r);
      std::int64_t products = 0;
      // The compressed B marks bits: its bitmap is the stamps' space, which it leaves cleared as it found it.
      v.row_sizes(row) =
          compressed
              ? count_compressed<Counts>(row, reinterpret_cast<std::uint64_t*>(stamps), touched, check, products, bad)
              : count_columns<Counts, Branches>(row, stamps, next_stamp(chunk, stamps), check, products, bad);
      if constexpr (Counts) {
        v.counted_products(row) = products;
        sum += products;
        most = products > most ? products : most;
      }
    }
    if constexpr (Counts) {
      v.counted_totals(item, 0) = sum;
      v.counted_totals(item, 1) = most;
      v.counted_totals(item, 2) = bad;
    }
  }

  /// The numeric phase of a row, written at c_cols and c_vals; returns its size. Checked (one pass, OnePass.hpp): A's
  /// row and entries are checked as the count checks them (those that fail are counted in bad and skipped).
  template <bool Checked = false>
  KOKKOS_FORCEINLINE_FUNCTION std::int64_t accumulate(Ordinal row, const Parts& p, const Stamp stamp, Ordinal* c_cols,
                                                      Scalar* c_vals, const ACheck& check = ACheck(),
                                                      std::int64_t* bad = nullptr) const {
    Stamp* stamps = p.stamps;
    std::uint64_t* bits = p.bits;
    Ordinal* touched = p.touched;
    Scalar* acc = p.acc;
    if constexpr (Checked) {
      if (!check.row_followed(v.a_rows, row, *bad)) return 0;
    }
    // Raw pointers in locals: stores through the stamps may alias anything, and would otherwise make the compiler
    // reload every view's data pointer after each of them.
    const auto* b_rows = v.b_rows.data();
    const Ordinal* b_cols = v.b_cols.data();
    const Scalar* b_vals = v.b_vals.data();
    const Scalar* a_vals = v.a_vals.data();
    const auto a_row = v.a_values.row(row);  // the Jacobi operand's scale and diagonal, once a row
    if constexpr (!Gather && !Checked) {
      // A row the count left empty is written as it is (no products, or all of them under a complemented mask).
      if (v.c_rows(row + 1) == v.c_rows(row)) return 0;
    }
    if constexpr (!Gather) stamp_mask_row(row, stamps, stamp);
    std::int64_t n = 0;
    if (!BranchFree && v.unit_b) {  // the loop below, with B's row of one entry at k
      for (auto e = v.a_rows(row); e < v.a_rows(row + 1); ++e) {
        const Ordinal k = v.a_cols(e);
        if constexpr (Checked) {
          if (!check.entry_followed(k, *bad)) continue;
        }
        const Ordinal col = b_cols[k];
        if (stamps[col] != stamp) {
          stamps[col] = stamp;
          touched[n++] = col;
          acc[col] = Scalar();
        }
        acc[col] += a_row(a_vals[e], e) * b_vals[k];
      }
    } else {
      for (auto e = v.a_rows(row); e < v.a_rows(row + 1); ++e) {
        const Ordinal k = v.a_cols(e);
        if constexpr (Checked) {
          if (!check.entry_followed(k, *bad)) continue;
        }
        const Scalar a_val = a_row(a_vals[e], e);
        const auto end = b_rows[k + 1];
        if constexpr (BranchFree) {
          for (auto jb = b_rows[k]; jb < end; ++jb) {
            const Ordinal col = b_cols[jb];
            touched[n] = col;
            n += stamps[col] != stamp;
            stamps[col] = stamp;
            acc[col] += a_val * b_vals[jb];
          }
        } else {
          for (auto jb = b_rows[k]; jb < end; ++jb) {
            const Ordinal col = b_cols[jb];
            if (stamps[col] != stamp) {
              stamps[col] = stamp;
              touched[n++] = col;
              acc[col] = Scalar();
            }
            acc[col] += a_val * b_vals[jb];
          }
        }
      }
    }
    if constexpr (BranchFree) clear_mask_row(row, acc);  // not written out, so not cleared there
    static_assert(!Checked || !Gather, "one pass gathers no columns");
    if constexpr (Gather) {
      // Reuse: C's columns are in place, each value is one read of the accumulator (no sort, no scan).
      const std::int64_t size = v.c_rows(row + 1) - v.c_rows(row);
      for (std::int64_t i = 0; i < size; ++i) {
        const Ordinal col = c_cols[i];
        c_vals[i] = col >= 0 && col < width && stamps[col] == stamp ? acc[col] : v.missed();
      }
      return size;
    } else {
      if (sorted && n > 1) {
        Ordinal lo = 0, hi = 0;
        std::int64_t span = -1;  // in words; found where a choice needs it (the insertion sort may reorder the list)
        const auto find_span = [&]() {
          lo = hi = touched[0];
          for (std::int64_t i = 1; i < n; ++i) {
            lo = touched[i] < lo ? touched[i] : lo;
            hi = touched[i] > hi ? touched[i] : hi;
          }
          span = Summary ? (hi >> 12) - (lo >> 12) : (hi >> 6) - (lo >> 6);
        };
        if (n > insertion_first_entries) {
          find_span();
          if (span <= walk_words_per_entry * n) {
            walk_bitmap(touched, n, lo, hi, bits, acc, c_cols, c_vals);
            return n;
          }
        }
        if (!insertion_sorted(touched, n, insertion_moves_per_entry)) {
          if (span < 0) find_span();
          if (span < scan_words_per_compare * n * bit_width_u64(static_cast<std::uint64_t>(n))) {
            walk_bitmap(touched, n, lo, hi, bits, acc, c_cols, c_vals);
            return n;
          }
          sort_row_sequential(touched, static_cast<Scalar*>(nullptr), n);
        }
      }
      for (std::int64_t i = 0; i < n; ++i) {
        const Ordinal col = touched[i];
        c_cols[i] = col;
        c_vals[i] = acc[col];
        if constexpr (BranchFree) acc[col] = Scalar();
      }
      return n;
    }
  }

  /// Writes the row's columns in order from the bitmap(s) of its touched list (columns lo to hi), clearing them.
  KOKKOS_INLINE_FUNCTION void walk_bitmap(const Ordinal* touched, std::int64_t n, Ordinal lo, Ordinal hi,
                                          std::uint64_t* bits, Scalar* acc, Ordinal* c_cols, Scalar* c_vals) const {
    std::uint64_t* summary = bits + bitmap_words(width);
    for (std::int64_t i = 0; i < n; ++i) {
      const Ordinal col = touched[i];
      bits[col >> 6] |= std::uint64_t(1) << (col & 63);
      if constexpr (Summary) summary[col >> 12] |= std::uint64_t(1) << ((col >> 6) & 63);
    }
    std::int64_t out = 0;
    const auto emit_word = [&](std::int64_t w) {
      std::uint64_t word = bits[w];
      bits[w] = 0;
      for (; word; word &= word - 1) {
        const Ordinal col = static_cast<Ordinal>(w * 64 + lowest_bit_u64(word));
        c_cols[out] = col;
        c_vals[out++] = acc[col];
        if constexpr (BranchFree) acc[col] = Scalar();
      }
    };
    if constexpr (Summary) {
      for (std::int64_t s = lo >> 12; s <= (hi >> 12); ++s) {
        std::uint64_t words = summary[s];
        summary[s] = 0;
        for (; words; words &= words - 1) emit_word(s * 64 + lowest_bit_u64(words));
      }
    } else {
      for (std::int64_t w = lo >> 6; w <= (hi >> 6); ++w) {
        if (bits[w]) emit_word(w);
      }
    }
  }
};

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
