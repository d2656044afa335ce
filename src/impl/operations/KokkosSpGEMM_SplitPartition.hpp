// The partition of HH-CPU (Ramamoorthy et al.): rows of B at or above a length threshold are "high"; the entries
// a_ik of A with k high go to the host, the others stay on the device, so C = A_host*B + A_device*B. Also the
// threshold that gives the host a target share of the products.
#ifndef KOKKOSSPGEMM_SPLITPARTITION_HPP
#define KOKKOSSPGEMM_SPLITPARTITION_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <KokkosSpGEMM_CsrMatrix.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace KokkosSpGEMM {
namespace Impl {

/// The row length t of B such that the products a_ik * B(k,:) over rows k with nnz(B(k,:)) >= t come closest to
/// fraction * all products, lowering t one row length at a time (a threshold above every row: none to the host).
template <class ExecSpace, class AMatrix, class BMatrix>
std::int64_t split_threshold(const ExecSpace& exec, const AMatrix& a, const BMatrix& b, double fraction,
                             std::int64_t& host_products, std::int64_t& all_products) {
  using Space = typename ExecSpace::memory_space;
  using Ordinal = typename AMatrix::ordinal_type;
  const Ordinal k_rows = b.num_rows();
  Kokkos::View<std::int64_t*, Space> col_count("KokkosSpGEMM::Split::col_count", k_rows);
  const auto a_cols = a.entries();
  Kokkos::parallel_for(
      "KokkosSpGEMM::Split::count_columns", Impl::Range<ExecSpace>(exec, 0, a_cols.extent(0)),
      KOKKOS_LAMBDA(const std::size_t e) { Kokkos::atomic_add(&col_count(a_cols(e)), std::int64_t(1)); });
  const auto counts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), col_count);
  const auto b_rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b.row_map());
  // Work of row k of B: how often A uses it times its length; sorted by length, longest first.
  std::vector<std::pair<std::int64_t, std::int64_t>> work;  // (length, products)
  work.reserve(k_rows);
  all_products = 0;
  for (Ordinal k = 0; k < k_rows; ++k) {
    const std::int64_t len = static_cast<std::int64_t>(b_rows(k + 1) - b_rows(k));
    work.push_back({len, len * counts(k)});
    all_products += len * counts(k);
  }
  std::sort(work.begin(), work.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  const double budget = fraction * static_cast<double>(all_products);
  std::int64_t threshold = work.empty() ? 1 : work.front().first + 1;
  host_products = 0;
  std::size_t i = 0;
  while (i < work.size() && work[i].first > 0) {
    // Rows of one length move together (the threshold cannot split them).
    std::size_t j = i;
    std::int64_t group = 0;
    while (j < work.size() && work[j].first == work[i].first) group += work[j++].second;
    // Take the group while that brings the host's share closer to the target (one hub row of an R-MAT matrix can
    // hold a fifth of all products, and leaving it out would give the host nothing).
    if (static_cast<double>(host_products) + 0.5 * static_cast<double>(group) > budget) break;
    host_products += group;
    threshold = work[i].first;
    i = j;
  }
  return threshold;
}

/// Splits A by the length of the B row each entry meets: out_host keeps a_ik with nnz(B(k,:)) >= threshold,
/// out_device the rest; both have A's shape and keep A's order within rows.
template <class ExecSpace, class AMatrix, class BMatrix, class Out>
void split_by_b_rows(const ExecSpace& exec, const AMatrix& a, const BMatrix& b, std::int64_t threshold, Out& out_host,
                     Out& out_device) {
  using Ordinal = typename AMatrix::ordinal_type;
  using Offset = typename Out::offset_type;
  const Ordinal rows = a.num_rows();
  const auto a_rows = a.row_map();
  const auto a_cols = a.entries();
  const auto a_vals = a.values();
  const auto b_rows = b.row_map();
  typename Out::row_map_type h_rows("KokkosSpGEMM::Split::host_rows", static_cast<std::size_t>(rows) + 1);
  typename Out::row_map_type d_rows("KokkosSpGEMM::Split::device_rows", static_cast<std::size_t>(rows) + 1);
  Kokkos::parallel_for(
      "KokkosSpGEMM::Split::count", Impl::Range<ExecSpace>(exec, 0, rows), KOKKOS_LAMBDA(const Ordinal i) {
        Offset n = 0;
        for (auto e = a_rows(i); e < a_rows(i + 1); ++e) {
          const Ordinal k = a_cols(e);
          n += static_cast<std::int64_t>(b_rows(k + 1) - b_rows(k)) >= threshold ? 1 : 0;
        }
        h_rows(i + 1) = n;
        d_rows(i + 1) = static_cast<Offset>(a_rows(i + 1) - a_rows(i)) - n;
      });
  Offset h_nnz = 0, d_nnz = 0;
  Kokkos::parallel_scan(
      "KokkosSpGEMM::Split::scan_host", Impl::Range<ExecSpace>(exec, 0, rows),
      KOKKOS_LAMBDA(const Ordinal i, Offset& partial, const bool final) {
        partial += h_rows(i + 1);
        if (final) h_rows(i + 1) = partial;
      },
      h_nnz);
  Kokkos::parallel_scan(
      "KokkosSpGEMM::Split::scan_device", Impl::Range<ExecSpace>(exec, 0, rows),
      KOKKOS_LAMBDA(const Ordinal i, Offset& partial, const bool final) {
        partial += d_rows(i + 1);
        if (final) d_rows(i + 1) = partial;
      },
      d_nnz);
  out_host = Out("KokkosSpGEMM::Split::A_host", rows, a.num_cols(), static_cast<std::size_t>(h_nnz));
  out_device = Out("KokkosSpGEMM::Split::A_device", rows, a.num_cols(), static_cast<std::size_t>(d_nnz));
  Kokkos::deep_copy(exec, out_host.row_map(), h_rows);
  Kokkos::deep_copy(exec, out_device.row_map(), d_rows);
  const auto h_cols = out_host.entries();
  const auto h_vals = out_host.values();
  const auto d_cols = out_device.entries();
  const auto d_vals = out_device.values();
  Kokkos::parallel_for(
      "KokkosSpGEMM::Split::fill", Impl::Range<ExecSpace>(exec, 0, rows), KOKKOS_LAMBDA(const Ordinal i) {
        Offset h = h_rows(i), d = d_rows(i);
        for (auto e = a_rows(i); e < a_rows(i + 1); ++e) {
          const Ordinal k = a_cols(e);
          if (static_cast<std::int64_t>(b_rows(k + 1) - b_rows(k)) >= threshold) {
            h_cols(h) = k;
            h_vals(h++) = a_vals(e);
          } else {
            d_cols(d) = k;
            d_vals(d++) = a_vals(e);
          }
        }
      });
}

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
