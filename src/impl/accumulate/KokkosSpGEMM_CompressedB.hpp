// B compressed for the symbolic phase of the CPU dense accumulator (kkSpGEMM's compression of B, §3.2, with words
// of 64 columns): each run of entries of a row of B in the same word of 64 columns becomes one (word, bit mask)
// pair, and the symbolic phase ORs masks into its bitmap instead of marking columns one by one. Stencil and FEM
// matrices shrink several-fold; random graphs do not, and keep their B.
#ifndef KOKKOSSPGEMM_COMPRESSEDB_HPP
#define KOKKOSSPGEMM_COMPRESSEDB_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <Kokkos_Core.hpp>

#include <cstdint>

namespace KokkosSpGEMM {
namespace Impl {

/// Whether entry j of B (in a row starting at `start`) opens a new run: the first of the row or another word.
template <class Cols>
KOKKOS_INLINE_FUNCTION bool opens_run(const Cols& cols, std::int64_t start, std::int64_t j) {
  return j == start || (cols(j) >> 6) != (cols(j - 1) >> 6);
}

/// The runs of row k of B.
template <class Rows, class Cols>
struct RunCount {
  Rows rows;
  Cols cols;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(const std::int64_t k) const {
    std::int64_t n = 0;
    for (std::int64_t j = rows(k); j < static_cast<std::int64_t>(rows(k + 1)); ++j) n += opens_run(cols, rows(k), j);
    return n;
  }
};

/// compress_b samples every this many rows of B first (a sixteenth of the count's cost), and counts them all only
/// where the sample shrinks by at least compression_sample_margin times the ratio asked. A sample that misjudges B
/// costs time, never a wrong C.
constexpr std::int64_t compression_sample_stride = 16;
constexpr double compression_sample_margin = 0.9;

/// Gives v its compressed B (bc_rows, bc_words, bc_masks) when B shrinks by at least min_ratio (0: never), the
/// products it saves (products x (1 - runs / nnz(B))) outnumber the two passes over B that make it, and it takes at
/// most max_bytes (0: no limit); returns the bytes it takes (0: B kept as it is). Rows need not
/// be sorted: a word met twice in a row gives two runs, whose masks OR into the same bitmap word.
template <class ExecSpace, class Views>
std::size_t compress_b(const ExecSpace& exec, Views& v, std::int64_t products, double min_ratio,
                       std::size_t max_bytes) {
  using Space = typename ExecSpace::memory_space;
  using Ordinal = typename Views::ordinal_type;
  const std::int64_t b_rows = v.b_rows.extent(0) > 0 ? static_cast<std::int64_t>(v.b_rows.extent(0)) - 1 : 0;
  const std::int64_t nnz = v.b_cols.extent(0);
  // Even a B compressed to nothing would not save the passes.
  if (min_ratio <= 0 || b_rows == 0 || nnz == 0 || (min_ratio > 1 && products < 2 * nnz)) return 0;
  const std::size_t row_bytes = static_cast<std::size_t>(b_rows + 1) * sizeof(std::int64_t);
  if (max_bytes > 0 && row_bytes > max_bytes) return 0;
  const auto rows = v.b_rows;
  const auto cols = v.b_cols;
  const RunCount<decltype(rows), decltype(cols)> runs_of{rows, cols};
  // A sample of every compression_sample_stride-th row first: where it shrinks clearly less than the rule asks (2D
  // 5-point rows: 5 entries in 3 runs), the whole count (a pass over B) is not worth making.
  if (min_ratio > 1 && b_rows >= 2 * compression_sample_stride) {
    std::int64_t sample[2] = {0, 0};  // entries, runs
    Kokkos::parallel_reduce(
        "KokkosSpGEMM::CompressedB::sample", Impl::Range<ExecSpace>(exec, 0, b_rows / compression_sample_stride),
        KOKKOS_LAMBDA(const std::int64_t s, std::int64_t& entries, std::int64_t& n) {
          const std::int64_t k = s * compression_sample_stride;
          entries += static_cast<std::int64_t>(rows(k + 1) - rows(k));
          n += runs_of(k);
        },
        sample[0], sample[1]);
    if (static_cast<double>(sample[0]) < compression_sample_margin * min_ratio * static_cast<double>(sample[1])) {
      return 0;
    }
  }
  // Counted first without the row offsets: where B does not shrink (a tentative prolongator's rows of one entry),
  // their fresh array's first touch cost more than the count.
  std::int64_t runs = 0;
  Kokkos::parallel_reduce(
      "KokkosSpGEMM::CompressedB::count", Impl::Range<ExecSpace>(exec, 0, b_rows),
      KOKKOS_LAMBDA(const std::int64_t k, std::int64_t& sum) { sum += runs_of(k); }, runs);
  const std::size_t bytes = row_bytes + static_cast<std::size_t>(runs) * (sizeof(Ordinal) + sizeof(std::uint64_t));
  const double saved = static_cast<double>(products) * (1.0 - static_cast<double>(runs) / static_cast<double>(nnz));
  if (static_cast<double>(nnz) < min_ratio * static_cast<double>(runs) || (min_ratio > 1 && saved < 2.0 * nnz) ||
      (max_bytes > 0 && bytes > max_bytes)) {
    return 0;
  }
  Kokkos::View<std::int64_t*, Space> offsets(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::CompressedB::rows"), b_rows + 1);
  Kokkos::parallel_scan(
      "KokkosSpGEMM::CompressedB::offsets", Impl::Range<ExecSpace>(exec, 0, b_rows),
      KOKKOS_LAMBDA(const std::int64_t k, std::int64_t& partial, const bool final) {
        partial += runs_of(k);
        if (final) offsets(k + 1) = partial;
        if (final && k == 0) offsets(0) = 0;
      });
  Kokkos::View<Ordinal*, Space> words(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::CompressedB::words"), runs);
  Kokkos::View<std::uint64_t*, Space> masks(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::CompressedB::masks"), runs);
  Kokkos::parallel_for(
      "KokkosSpGEMM::CompressedB::fill", Impl::Range<ExecSpace>(exec, 0, b_rows), KOKKOS_LAMBDA(const std::int64_t k) {
        std::int64_t out = offsets(k) - 1;
        for (std::int64_t j = rows(k); j < static_cast<std::int64_t>(rows(k + 1)); ++j) {
          const Ordinal col = cols(j);
          if (opens_run(cols, rows(k), j)) {
            words(++out) = col >> 6;
            masks(out) = 0;
          }
          masks(out) |= std::uint64_t(1) << (col & 63);
        }
      });
  v.bc_rows = offsets;
  v.bc_words = words;
  v.bc_masks = masks;
  return bytes;
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
