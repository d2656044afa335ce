// Long rows of C by the segmented merge primitive (Ji et al. 2020, §4, the bhSPARSE + segmented merge variant):
// the scaled rows of B of every row in a group of rows are expanded into one global array (each row of B a sorted
// sub-segment, each row of C a segment), merged by segmented_merge with every thread on an equal share of the
// elements whatever the row lengths, then compressed per row. Groups bound the expanded array's memory. Needs B's
// rows sorted; sums run in A's then B's order (stable merge).
#ifndef KOKKOSSPGEMM_SEGMENTEDMERGEROWS_HPP
#define KOKKOSSPGEMM_SEGMENTEDMERGEROWS_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <operations/KokkosSpGEMM_SegmentedMerge.hpp>
#include <impl/methods/KokkosSpGEMM_EscRowKernel.hpp>

#include <cstdint>
#include <vector>

namespace KokkosSpGEMM {
namespace Impl {

/// Runs rows perm[first, first + rows) of one bin; returns the bytes of the largest group's arrays.
/// group_elements: products per group (a longer row gets a group of its own).
template <bool Numeric, class ExecSpace, class Views, class Perm>
std::size_t segmented_merge_rows(const ExecSpace& exec, const Views& v, const Perm& perm, std::int64_t first,
                                 std::int64_t rows, std::int64_t group_elements) {
  static_assert(Views::stored_values, "KokkosSpGEMM: research row methods multiply by A's stored values only");
  using Space = typename ExecSpace::memory_space;
  using Ordinal = typename Views::ordinal_type;
  using Scalar = typename Views::scalar_type;
  using I64 = std::int64_t;
  using TeamPolicy = Impl::Teams<ExecSpace>;
  using Member = typename TeamPolicy::member_type;
  const std::string phase = Numeric ? "KokkosSpGEMM::Numeric::segmerge_" : "KokkosSpGEMM::Symbolic::segmerge_";
  // Products and A-row lengths of the bin's rows, to cut groups on the host (long rows are few).
  Kokkos::View<I64*, Space> sizes(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::SegMerge::sizes"),
                                  2 * rows);
  Kokkos::parallel_for(
      phase + "row_sizes", Impl::Range<ExecSpace>(exec, 0, rows), KOKKOS_LAMBDA(const I64 r) {
        const Ordinal row = perm(first + r);
        I64 p = 0;
        for (auto e = v.a_rows(row); e < v.a_rows(row + 1); ++e) {
          const Ordinal k = v.a_cols(e);
          p += static_cast<I64>(v.b_rows(k + 1) - v.b_rows(k));
        }
        sizes(2 * r) = p;
        sizes(2 * r + 1) = v.a_rows(row + 1) - v.a_rows(row);
      });
  auto sizes_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sizes);
  std::size_t peak = 0;
  I64 g0 = 0;
  while (g0 < rows) {
    I64 g1 = g0, elements = 0, entries = 0;
    while (g1 < rows && (g1 == g0 || elements + sizes_host(2 * g1) <= group_elements)) {
      elements += sizes_host(2 * g1);
      entries += sizes_host(2 * g1 + 1);
      ++g1;
    }
    const I64 g = g1 - g0;
    // Segments: rows of the group; sub-segments: entries of their rows of A (rows of B).
    Kokkos::View<I64*, Space> seg("KokkosSpGEMM::SegMerge::segments", g + 1);
    Kokkos::View<I64*, Space> elem("KokkosSpGEMM::SegMerge::row_starts", g + 1);
    Kokkos::View<I64*, Space> sub(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::SegMerge::subsegments"), entries + 1);
    Kokkos::View<Ordinal*, Space> keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::SegMerge::keys"),
                                       2 * elements);
    Kokkos::View<Scalar*, Space> vals(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::SegMerge::values"),
                                      Numeric ? 2 * elements : 0);
    peak = max_of(peak, static_cast<std::size_t>(2 * elements) * (sizeof(Ordinal) + (Numeric ? sizeof(Scalar) : 0)) +
                            static_cast<std::size_t>(2 * (entries + g + 2)) * sizeof(I64));
    const I64 base = g0;
    Kokkos::parallel_scan(
        phase + "segment_starts", Impl::Range<ExecSpace>(exec, 0, g + 1),
        KOKKOS_LAMBDA(const I64 r, I64& partial, const bool final) {
          if (final) seg(r) = partial;
          if (r < g) partial += sizes(2 * (base + r) + 1);
        });
    Kokkos::parallel_scan(
        phase + "element_starts", Impl::Range<ExecSpace>(exec, 0, g + 1),
        KOKKOS_LAMBDA(const I64 r, I64& partial, const bool final) {
          if (final) elem(r) = partial;
          if (r < g) partial += sizes(2 * (base + r));
        });
    Kokkos::parallel_for(
        phase + "subsegment_starts", Impl::Range<ExecSpace>(exec, 0, g + 1), KOKKOS_LAMBDA(const I64 r) {
          if (r == g) {
            sub(seg(g)) = elem(g);
            return;
          }
          const Ordinal row = perm(first + base + r);
          I64 at = elem(r);
          I64 s = seg(r);
          for (auto e = v.a_rows(row); e < v.a_rows(row + 1); ++e, ++s) {
            sub(s) = at;
            const Ordinal k = v.a_cols(e);
            at += static_cast<I64>(v.b_rows(k + 1) - v.b_rows(k));
          }
        });
    Ordinal* k_ptr = keys.data();
    Scalar* v_ptr = Numeric ? vals.data() : nullptr;
    const I64 q = entries;
    Kokkos::parallel_for(
        phase + "expand", Impl::Range<ExecSpace>(exec, 0, elements), KOKKOS_LAMBDA(const I64 i) {
          const I64 s = last_at_or_below(sub, q, i);
          const I64 r = last_at_or_below(seg, g, s);
          const Ordinal row = perm(first + base + r);
          const auto e = v.a_rows(row) + (s - seg(r));
          const auto jb = v.b_rows(v.a_cols(e)) + (i - sub(s));
          k_ptr[i] = v.b_cols(jb);
          if (v_ptr) v_ptr[i] = v.a_vals(e) * v.b_vals(jb);  // null in the symbolic phase
        });
    // The primitive's rounds overwrite their pointer arrays: give them copies of seg, keep elem for compressing.
    Kokkos::View<I64*, Space> seg_work(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosSpGEMM::SegMerge::seg"),
                                       g + 1);
    Kokkos::deep_copy(exec, seg_work, seg);
    segmented_merge_rounds(exec, k_ptr, v_ptr, k_ptr + elements, Numeric ? v_ptr + elements : nullptr, seg_work, sub, g,
                           q, elements);
    Kokkos::parallel_for(
        phase + "compress", TeamPolicy(exec, static_cast<int>(g), Kokkos::AUTO), KOKKOS_LAMBDA(const Member& team) {
          const I64 r = team.league_rank();
          const Ordinal row = perm(first + base + r);
          compress_sorted_products<Numeric>(v, team, row, k_ptr + elem(r), v_ptr ? v_ptr + elem(r) : v_ptr,
                                            elem(r + 1) - elem(r));
        });
    g0 = g1;
  }
  exec.fence();
  return peak;
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
