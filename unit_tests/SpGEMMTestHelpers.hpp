// Helpers shared by the SpGEMM tests: build matrices on the host, run our pipeline on TEST_EXECSPACE, and compare
// with the reference.
#ifndef KOKKOSSPGEMM_SPGEMMTESTHELPERS_HPP
#define KOKKOSSPGEMM_SPGEMMTESTHELPERS_HPP

#include <KokkosSpGEMM.hpp>
#include <io/KokkosSpGEMM_MatrixMarket.hpp>
#include <testing/KokkosSpGEMM_Testing.hpp>

#include <TestMatricesDir.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace KokkosSpGEMMTest {

template <class S, class O = int, class F = int>
using HostCsr = KokkosSpGEMM::CsrMatrix<S, O, F, Kokkos::HostSpace>;

/// Runs f and returns the message of the Exception it throws; a failure of the test if it throws nothing or another
/// type.
template <class Exception, class F>
std::string expect_throws(F&& f) {
  try {
    f();
  } catch (const Exception& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
    return "";
  }
  ADD_FAILURE() << "no exception";
  return "";
}

/// A host CSR matrix from (row, col, value) triplets in row order; columns kept in the given order (may be unsorted).
template <class S, class O = int, class F = int>
HostCsr<S, O, F> csr_from_rows(O rows, O cols, const std::vector<std::vector<std::pair<O, S>>>& entries) {
  std::size_t nnz = 0;
  for (const auto& r : entries) nnz += r.size();
  HostCsr<S, O, F> m("test", rows, cols, nnz);
  std::size_t e = 0;
  for (O i = 0; i < rows; ++i) {
    m.row_map()(i) = static_cast<F>(e);
    if (static_cast<std::size_t>(i) < entries.size()) {
      for (const auto& [c, v] : entries[i]) {
        m.entries()(e) = c;
        m.values()(e) = v;
        ++e;
      }
    }
  }
  if (m.row_map().extent(0) > 0) m.row_map()(rows) = static_cast<F>(e);
  return m;
}

/// The transpose of a host matrix (rows sorted).
template <class S, class O, class F>
HostCsr<S, O, F> transpose_host(const HostCsr<S, O, F>& a) {
  HostCsr<S, O, F> t("transpose", a.num_cols(), a.num_rows(), a.nnz());
  std::vector<F> count(static_cast<std::size_t>(a.num_cols()) + 1, 0);
  for (std::size_t e = 0; e < a.nnz(); ++e) ++count[a.entries()(e) + 1];
  for (O j = 0; j < a.num_cols(); ++j) count[j + 1] += count[j];
  for (O j = 0; j <= a.num_cols(); ++j) t.row_map()(j) = count[j];
  for (O i = 0; i < a.num_rows(); ++i) {
    for (F e = a.row_map()(i); e < a.row_map()(i + 1); ++e) {
      const F pos = count[a.entries()(e)]++;
      t.entries()(pos) = i;
      t.values()(pos) = a.values()(e);
    }
  }
  return t;
}

/// The scalar, ordinal and offset types the typed tests run: real and complex scalars, 64-bit ordinals and offsets,
/// unsigned offsets.
using ScalarOrdinalOffsetTypes =
    ::testing::Types<std::tuple<double, int, int>, std::tuple<float, int, int>,
                     std::tuple<Kokkos::complex<double>, int, int>, std::tuple<double, std::int64_t, std::int64_t>,
                     std::tuple<double, int, std::size_t>>;

/// A host matrix with m's structure and other values (scale * old + shift * a pattern of small integers).
template <class M>
M with_new_values(const M& m, double scale, double shift) {
  M out("new values", m.num_rows(), m.num_cols(), m.nnz());
  Kokkos::deep_copy(out.row_map(), m.row_map());
  Kokkos::deep_copy(out.entries(), m.entries());
  for (std::size_t e = 0; e < m.nnz(); ++e) out.values()(e) = scale * m.values()(e) + shift * ((e * 7919) % 13);
  return out;
}

/// A*B's products (each entry of A times its row of B) and the most of any row, counted on the host.
template <class S, class O, class F>
std::pair<std::int64_t, std::int64_t> product_totals(const HostCsr<S, O, F>& a, const HostCsr<S, O, F>& b) {
  std::int64_t sum = 0, longest = 0;
  for (O i = 0; i < a.num_rows(); ++i) {
    std::int64_t p = 0;
    for (F e = a.row_map()(i); e < a.row_map()(i + 1); ++e) {
      const O k = a.entries()(e);
      p += static_cast<std::int64_t>(b.row_map()(k + 1) - b.row_map()(k));
    }
    sum += p;
    longest = std::max(longest, p);
  }
  return {sum, longest};
}

/// True when C's values equal the reference's bit for bit (same pattern assumed: sorted rows, checked before).
template <class M, class S, class O, class F>
bool bitwise_equal_values(const M& c_any, const HostCsr<S, O, F>& ref) {
  const auto c = KokkosSpGEMM::to_host(c_any);
  if (c.nnz() != ref.nnz()) return false;
  return c.nnz() == 0 || std::memcmp(c.values().data(), ref.values().data(), c.nnz() * sizeof(S)) == 0;
}

/// A test's path: what a user decides and the tuning knobs that force a path, in one object (the handle and
/// spgemm take both from it).
using TestOptions = KokkosSpGEMM::Impl::Settings;

/// Multiplies on TEST_EXECSPACE with the given options and checks the result against the reference. Methods:
/// the handle's row methods (ResearchMethods for the research ones).
template <class ExecSpace, class Methods = KokkosSpGEMM::CoreMethods, class S, class O, class F>
void expect_matches_reference(const HostCsr<S, O, F>& a, const HostCsr<S, O, F>& b,
                              const TestOptions& options = TestOptions(), const std::string& what = "") {
  ExecSpace exec;
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  const auto db = KokkosSpGEMM::copy_to(exec, b);
  const auto c = KokkosSpGEMM::Impl::one_shot<void, Methods>(exec, da, db, options, options);
  const auto cmp = KokkosSpGEMM::compare_to_reference(c, a, b, options.sorted);
  EXPECT_TRUE(cmp.ok) << what << " (" << KokkosSpGEMM::algorithm_name(options.algorithm)
                      << (options.sorted ? ", sorted" : ", unsorted") << ", scratch " << options.scratch_bytes
                      << "): " << cmp.message;
}

/// Symbolic, numeric, then `rounds` numeric calls with new values (the first makes the position map, the others
/// replay it), each checked against the reference; the map within the size of C. Returns the handle's description.
template <class ExecSpace, class S, class O, class F>
std::string check_reuse_rounds(const HostCsr<S, O, F>& a, const HostCsr<S, O, F>& b, const TestOptions& o,
                               const std::string& what, int rounds = 3) {
  ExecSpace exec;
  KokkosSpGEMM::Handle<ExecSpace, S, O, F> handle(o);
  KokkosSpGEMM::CsrMatrix<S, O, F, typename ExecSpace::memory_space> c;
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  const auto db = KokkosSpGEMM::copy_to(exec, b);
  KokkosSpGEMM::spgemm_symbolic(exec, handle, da, db, c);
  KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c);
  for (int round = 1; round <= rounds; ++round) {
    const auto a2 = with_new_values(a, -1.5 * round, 1.0);
    const auto b2 = with_new_values(b, 0.25, round);
    KokkosSpGEMM::spgemm_numeric(exec, handle, KokkosSpGEMM::copy_to(exec, a2), KokkosSpGEMM::copy_to(exec, b2), c);
    const auto cmp = KokkosSpGEMM::compare_to_reference(c, a2, b2, o.sorted);
    EXPECT_TRUE(cmp.ok) << what << ", round " << round << ": " << cmp.message;
  }
  if (o.reuse_positions_bytes == 0) {
    // The map takes at most the size of C beyond what the analysis keeps anyway.
    const std::size_t c_bytes = static_cast<std::size_t>(handle.nnz()) * (sizeof(O) + sizeof(S));
    const std::size_t other = handle.kept_bytes() - KokkosSpGEMM::Impl::state(handle).positions.bytes();
    EXPECT_LE(handle.kept_bytes(), std::max(c_bytes, other)) << what;
  }
  return handle.describe();
}

/// Reverses the columns of every row of c by hand (still the product's columns, out of order) and returns the host
/// copy written back.
template <class DeviceCsr>
auto reverse_rows_by_hand(DeviceCsr& c) {
  auto hc = KokkosSpGEMM::to_host(c);
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(hc.num_rows()); ++i) {
    std::reverse(hc.entries().data() + hc.row_map()(i), hc.entries().data() + hc.row_map()(i + 1));
  }
  Kokkos::deep_copy(c.entries(), hc.entries());
  return hc;
}

/// Grid sides whose stencils have at least `rows` interior rows in 2D and 3D (at least 8 a side).
inline std::pair<int, int> grid_sides_for_rows(std::int64_t rows) {
  const int n2 = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(rows)))) + 4;
  const int n3 = static_cast<int>(std::ceil(std::cbrt(static_cast<double>(rows)))) + 4;
  return {std::max(n2, 8), std::max(n3, 8)};
}

/// A (3 x 1000) and B (1000 x 4000) where row 1 of C has 1e5 products over 4,000 columns (rows of B repeat
/// columns): the largest bins, the pools, and long merges.
inline std::pair<HostCsr<double>, HostCsr<double>> one_long_row_case() {
  std::vector<std::vector<std::pair<int, double>>> a_rows(3), b_rows(1000);
  for (int k = 0; k < 1000; ++k) a_rows[1].push_back({k, 1.0 + k % 7});
  a_rows[2].push_back({5, 2.0});
  std::uint64_t x = 12345;
  for (int k = 0; k < 1000; ++k) {
    for (int j = 0; j < 100; ++j) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      b_rows[k].push_back({static_cast<int>((x >> 33) % 4000), 0.5 + j % 3});
    }
  }
  return {csr_from_rows<double>(3, 1000, a_rows), csr_from_rows<double>(1000, 4000, b_rows)};
}

/// Pairs of compatible random shapes (A, B): 0 x n, n x 0, rectangular with empty rows, power-law rows, one long
/// row, duplicate-heavy (columns from a pool of 8).
inline std::vector<std::pair<KokkosSpGEMM::RandomCsrOptions<int>, KokkosSpGEMM::RandomCsrOptions<int>>>
random_shapes() {
  auto shape = [](int rows, int cols, double mean, double empty, bool power_law, int long_row, int pool) {
    KokkosSpGEMM::RandomCsrOptions<int> o;
    o.rows = rows;
    o.cols = cols;
    o.mean_per_row = mean;
    o.empty_row_fraction = empty;
    o.power_law = power_law;
    o.long_row_length = long_row;
    o.column_pool = pool;
    return o;
  };
  return {{shape(0, 7, 3, 0, false, 0, 0), shape(7, 5, 3, 0, false, 0, 0)},
          {shape(9, 0, 3, 0, false, 0, 0), shape(0, 4, 3, 0, false, 0, 0)},
          {shape(37, 53, 4, 0.2, false, 0, 0), shape(53, 11, 3, 0.3, false, 0, 0)},
          {shape(300, 300, 6, 0.1, true, 0, 0), shape(300, 300, 6, 0.1, true, 0, 0)},
          {shape(50, 2000, 5, 0.1, false, 2000, 0), shape(2000, 3000, 20, 0.05, false, 0, 0)},
          {shape(100, 100, 20, 0, false, 0, 8), shape(100, 100, 30, 0, false, 0, 0)}};
}

/// Options that force each accumulator path: the default, tiny scratch tables whose team rows take the dense rows
/// in scratch (WideRows::DenseScratch, where B's width fits) or else the level-2 pool, a pool of one chunk (takers
/// must wait for each other), the dense accumulator, and unsorted output.
inline std::vector<TestOptions> all_paths() {
  std::vector<TestOptions> paths(6);
  paths[1].algorithm = KokkosSpGEMM::Algorithm::Hash;
  paths[2].algorithm = KokkosSpGEMM::Algorithm::Hash;
  paths[2].scratch_bytes = 512;
  paths[2].wide_rows = KokkosSpGEMM::WideRows::DenseScratch;
  paths[3].algorithm = KokkosSpGEMM::Algorithm::Hash;
  paths[3].scratch_bytes = 512;
  paths[3].pool_bytes_limit = 1;
  paths[4].algorithm = KokkosSpGEMM::Algorithm::Dense;
  paths[5].sorted = false;
  return paths;
}

}  // namespace KokkosSpGEMMTest

#endif
