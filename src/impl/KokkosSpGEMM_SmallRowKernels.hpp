// Rows that need no accumulator table: bin 1 (every product lands in one column, so the row of C is one entry)
// and the CPU dense accumulator, where a thread owns B.num_cols() slots from the memory pool.
#ifndef KOKKOSSPGEMM_SMALLROWKERNELS_HPP
#define KOKKOSSPGEMM_SMALLROWKERNELS_HPP

#include <impl/KokkosSpGEMM_MemoryPool.hpp>
#include <impl/KokkosSpGEMM_RowSort.hpp>

#include <cstdint>

namespace KokkosSpGEMM {
namespace Impl {

/// Bin 1: one product, or one column of B: C's row is a single entry summing every product.
template <bool Numeric, class Views, class Perm>
struct SingleEntryRowsKernel {
  using Ordinal = typename Views::ordinal_type;
  using Scalar = typename Views::scalar_type;
  Views v;
  Perm perm;
  std::int64_t first = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t r) const {
    const Ordinal row = perm(first + r);
    if constexpr (!Numeric) {
      v.row_sizes(row) = 1;
    } else {
      Scalar sum = Scalar();
      Ordinal col = 0;
      for (auto e = v.a_rows(row); e < v.a_rows(row + 1); ++e) {
        const Ordinal k = v.a_cols(e);
        for (auto jb = v.b_rows(k); jb < v.b_rows(k + 1); ++jb) {
          sum += v.a_vals(e) * v.b_vals(jb);
          col = v.b_cols(jb);
        }
      }
      v.c_cols(v.c_rows(row)) = col;
      v.c_vals(v.c_rows(row)) = sum;
    }
  }
};

template <class ExecSpace, bool Numeric, class Views, class Perm>
void single_entry_rows(const ExecSpace& exec, const Views& v, const Perm& perm, std::int64_t first, std::int64_t rows) {
  Kokkos::parallel_for(
      Numeric ? "KokkosSpGEMM::Numeric::single_entry_rows" : "KokkosSpGEMM::Symbolic::single_entry_rows",
      Kokkos::RangePolicy<ExecSpace>(exec, 0, rows), SingleEntryRowsKernel<Numeric, Views, Perm>{v, perm, first});
}

/// The dense accumulator (kkSpGEMM's kkdense) for CPU spaces: per thread, values and flags of B.num_cols() slots
/// and the list of touched columns, in one pool chunk. Flags are cleared after each row, so a chunk is always
/// clean when free; the pool starts zeroed.
template <class ExecSpace, bool Numeric, class Views, class Perm>
struct DenseRowKernel {
  using Ordinal = typename Views::ordinal_type;
  using Scalar = typename Views::scalar_type;
  using Pool = MemoryPool<typename ExecSpace::memory_space>;

  // Sorted output by a scan of the flags when the row fills at least 1/16 of the width (n log n > width there).
  static constexpr std::int64_t dense_scan_ratio = 16;

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

  KOKKOS_INLINE_FUNCTION static std::size_t chunk_bytes(Ordinal width, std::int64_t bound) {
    return width * (sizeof(Scalar) + 1) + bound * sizeof(Ordinal) + 32;
  }

  KOKKOS_INLINE_FUNCTION void release(std::int64_t chunk_id) const {
    if (by_token) {
      token.release(static_cast<int>(chunk_id));
    } else {
      pool.release(chunk_id);
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t r) const {
    const Ordinal row = perm(first + r);
    const std::int64_t chunk_id = by_token ? static_cast<std::int64_t>(token.acquire()) : pool.acquire(r);
    char* chunk = pool.chunk(chunk_id);
    Scalar* acc = reinterpret_cast<Scalar*>(chunk);
    Ordinal* touched = reinterpret_cast<Ordinal*>(chunk + width * sizeof(Scalar));
    unsigned char* flags = reinterpret_cast<unsigned char*>(touched + bound);
    // Raw pointers in locals: stores through the byte flags may alias anything, and would otherwise make the
    // compiler reload every view's data pointer after each of them.
    const auto* b_rows = v.b_rows.data();
    const Ordinal* b_cols = v.b_cols.data();
    const Scalar* b_vals = v.b_vals.data();
    std::int64_t n = 0;
    for (auto e = v.a_rows(row); e < v.a_rows(row + 1); ++e) {
      const Ordinal k = v.a_cols(e);
      Scalar a_val = Scalar();
      if constexpr (Numeric) a_val = v.a_vals(e);
      const auto end = b_rows[k + 1];
      for (auto jb = b_rows[k]; jb < end; ++jb) {
        const Ordinal col = b_cols[jb];
        if (!flags[col]) {
          flags[col] = 1;
          touched[n++] = col;
          if constexpr (Numeric) acc[col] = Scalar();
        }
        if constexpr (Numeric) acc[col] += a_val * b_vals[jb];
      }
    }
    if constexpr (!Numeric) {
      v.row_sizes(row) = n;
    } else if (v.known_columns) {
      // Reuse: C's columns are in place, each value is one read of the accumulator (no sort, no scan).
      const Ordinal* c_cols = v.c_cols.data() + v.c_rows(row);
      Scalar* c_vals = v.c_vals.data() + v.c_rows(row);
      const std::int64_t size = v.c_rows(row + 1) - v.c_rows(row);
      for (std::int64_t i = 0; i < size; ++i) {
        const Ordinal col = c_cols[i];
        c_vals[i] = col >= 0 && col < width && flags[col] ? acc[col] : v.missed();
      }
    } else if (sorted && width <= dense_scan_ratio * n) {
      // A dense row: walking the flags in column order is cheaper than sorting, and clears them on the way.
      Ordinal* c_cols = v.c_cols.data() + v.c_rows(row);
      Scalar* c_vals = v.c_vals.data() + v.c_rows(row);
      std::int64_t out = 0;
      for (Ordinal col = 0; col < width; ++col) {
        if (flags[col]) {
          c_cols[out] = col;
          c_vals[out++] = acc[col];
          flags[col] = 0;
        }
      }
      release(chunk_id);
      return;
    } else {
      if (sorted) sort_row_sequential(touched, static_cast<Scalar*>(nullptr), n);
      Ordinal* c_cols = v.c_cols.data() + v.c_rows(row);
      Scalar* c_vals = v.c_vals.data() + v.c_rows(row);
      for (std::int64_t i = 0; i < n; ++i) {
        c_cols[i] = touched[i];
        c_vals[i] = acc[touched[i]];
      }
    }
    for (std::int64_t i = 0; i < n; ++i) flags[touched[i]] = 0;
    release(chunk_id);
  }
};

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
