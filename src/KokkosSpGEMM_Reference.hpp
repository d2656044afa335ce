// The oracle: a deliberately simple serial Gustavson SpGEMM on the host (dense accumulator, sorted output), and the
// comparison every backend's result must pass ("equivalent to reference": same structure, values within a
// tolerance scaled by sum |a_ik * b_kj| of each entry).
#ifndef KOKKOSSPGEMM_REFERENCE_HPP
#define KOKKOSSPGEMM_REFERENCE_HPP

#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <KokkosSpGEMM_Errors.hpp>

#include <Kokkos_Complex.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace KokkosSpGEMM {

namespace Impl {
template <class T>
struct RealOf {
  using type = T;
};
template <class T>
struct RealOf<Kokkos::complex<T>> {
  using type = T;
};
inline double magnitude(double x) { return std::abs(x); }
inline double magnitude(float x) { return std::abs(static_cast<double>(x)); }
template <class T>
double magnitude(const Kokkos::complex<T>& x) {
  return std::hypot(static_cast<double>(x.real()), static_cast<double>(x.imag()));
}
template <class T>
bool is_nan(const T& x) {
  return std::isnan(static_cast<double>(x));
}
template <class T>
bool is_nan(const Kokkos::complex<T>& x) {
  return std::isnan(static_cast<double>(x.real())) || std::isnan(static_cast<double>(x.imag()));
}
template <class T>
std::string to_text(const T& x) {
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
}
template <class T>
std::string to_text(const Kokkos::complex<T>& x) {
  std::ostringstream s;
  s.precision(17);
  s << "(" << x.real() << "," << x.imag() << ")";
  return s.str();
}
}  // namespace Impl

template <class S, class O, class F>
using HostCsrMatrix = CsrMatrix<S, O, F, Kokkos::HostSpace>;

/// C = A*B with, per entry of C, the bound sum |a_ik * b_kj| and the number of products that formed it.
template <class S, class O, class F>
struct ReferenceProduct {
  HostCsrMatrix<S, O, F> c;
  std::vector<double> bound;
  std::vector<std::int64_t> terms;
};

/// Serial Gustavson: an entry of C exists wherever a product exists (values that cancel to 0 stay). Accepts
/// unsorted and repeated columns in A and B. Throws DimensionMismatch, IndexOverflow.
template <class S, class O, class F>
ReferenceProduct<S, O, F> reference_spgemm_with_bounds(const HostCsrMatrix<S, O, F>& a,
                                                       const HostCsrMatrix<S, O, F>& b) {
  KOKKOSSPGEMM_REQUIRE(
      a.num_cols() == b.num_rows(), DimensionMismatch, "reference_spgemm",
      "A is " << a.num_rows() << " x " << a.num_cols() << " but B is " << b.num_rows() << " x " << b.num_cols());
  const O rows = a.num_rows(), cols = b.num_cols();
  std::vector<S> acc(cols);
  std::vector<double> acc_bound(cols);
  std::vector<std::int64_t> acc_terms(cols, 0);
  std::vector<O> touched;
  std::vector<F> row_map(static_cast<std::size_t>(rows) + 1, 0);
  std::vector<O> c_cols;
  std::vector<S> c_vals;
  ReferenceProduct<S, O, F> out;
  for (O i = 0; i < rows; ++i) {
    touched.clear();
    for (F e = a.row_map()(i); e < a.row_map()(i + 1); ++e) {
      const O k = a.entries()(e);
      for (F j = b.row_map()(k); j < b.row_map()(k + 1); ++j) {
        const O c = b.entries()(j);
        const S p = a.values()(e) * b.values()(j);
        if (acc_terms[c] == 0) {
          touched.push_back(c);
          acc[c] = S();
          acc_bound[c] = 0;
        }
        acc[c] += p;
        acc_bound[c] += Impl::magnitude(p);
        ++acc_terms[c];
      }
    }
    std::sort(touched.begin(), touched.end());
    for (O c : touched) {
      c_cols.push_back(c);
      c_vals.push_back(acc[c]);
      out.bound.push_back(acc_bound[c]);
      out.terms.push_back(acc_terms[c]);
      acc_terms[c] = 0;
    }
    KOKKOSSPGEMM_REQUIRE(c_cols.size() <= static_cast<std::size_t>(std::numeric_limits<F>::max()), IndexOverflow,
                         "reference_spgemm", "nnz(C) does not fit the offset type");
    row_map[i + 1] = static_cast<F>(c_cols.size());
  }
  out.c = HostCsrMatrix<S, O, F>("KokkosSpGEMM::Reference::C", rows, cols, c_cols.size());
  for (std::size_t i = 0; i < row_map.size(); ++i) out.c.row_map()(i) = row_map[i];
  for (std::size_t e = 0; e < c_cols.size(); ++e) {
    out.c.entries()(e) = c_cols[e];
    out.c.values()(e) = c_vals[e];
  }
  return out;
}

template <class S, class O, class F>
HostCsrMatrix<S, O, F> reference_spgemm(const HostCsrMatrix<S, O, F>& a, const HostCsrMatrix<S, O, F>& b) {
  return reference_spgemm_with_bounds(a, b).c;
}

/// Empty when m satisfies the CSR invariants (row map from 0, monotone, ending at nnz; columns in range; and, if
/// require_sorted, strictly increasing columns in each row), else what is wrong and where.
template <class S, class O, class F>
std::string csr_invariant_violation(const HostCsrMatrix<S, O, F>& m, bool require_sorted) {
  std::ostringstream s;
  if (m.row_map().extent(0) != static_cast<std::size_t>(m.num_rows()) + 1) {
    if (!(m.num_rows() == 0 && m.row_map().extent(0) == 0 && m.nnz() == 0)) {
      s << "row map has " << m.row_map().extent(0) << " entries for " << m.num_rows() << " rows";
    }
    return s.str();
  }
  if (m.row_map()(0) != 0) return "row map starts at " + std::to_string(static_cast<long long>(m.row_map()(0)));
  for (O i = 0; i < m.num_rows(); ++i) {
    if (m.row_map()(i + 1) < m.row_map()(i)) return "row map decreases at row " + std::to_string(i);
    for (F e = m.row_map()(i); e < m.row_map()(i + 1); ++e) {
      const O c = m.entries()(e);
      if (c < 0 || c >= m.num_cols())
        return "column " + std::to_string(c) + " out of range in row " + std::to_string(i);
      if (require_sorted && e > m.row_map()(i) && !(m.entries()(e - 1) < c)) {
        return "row " + std::to_string(i) + " is not strictly increasing at column " + std::to_string(c);
      }
    }
  }
  if (static_cast<std::size_t>(m.row_map()(m.num_rows())) != m.nnz()) return "row map does not end at nnz";
  return "";
}

struct SpGEMMComparison {
  bool ok = true;
  std::string message;
};

/// Checks C (any memory space) against a reference product: identical shape and row map; identical columns in
/// order (require_sorted) or as sets; each value within tolerance_factor * 4 * eps * max(products, 1) *
/// sum |a_ik b_kj|. NaN never passes.
template <class MatrixC, class S, class O, class F>
SpGEMMComparison compare_to_reference(const MatrixC& c_any, const ReferenceProduct<S, O, F>& ref,
                                      bool require_sorted = true, double tolerance_factor = 1.0) {
  SpGEMMComparison r;
  auto fail = [&](const std::string& m) {
    r.ok = false;
    r.message = m;
    return r;
  };
  const auto c = to_host(c_any);
  if (c.num_rows() != ref.c.num_rows() || c.num_cols() != ref.c.num_cols()) {
    return fail("C is " + std::to_string(c.num_rows()) + " x " + std::to_string(c.num_cols()) + ", expected " +
                std::to_string(ref.c.num_rows()) + " x " + std::to_string(ref.c.num_cols()));
  }
  const std::string invalid = csr_invariant_violation(c, require_sorted);
  if (!invalid.empty()) return fail("C is not valid CSR: " + invalid);
  if (c.nnz() != ref.c.nnz()) {
    return fail("nnz(C) = " + std::to_string(c.nnz()) + ", expected " + std::to_string(ref.c.nnz()));
  }
  using Real = typename Impl::RealOf<S>::type;
  const double eps = static_cast<double>(std::numeric_limits<Real>::epsilon());
  std::vector<std::pair<O, S>> row;
  for (O i = 0; i < c.num_rows(); ++i) {
    const F begin = ref.c.row_map()(i), end = ref.c.row_map()(i + 1);
    if (static_cast<std::int64_t>(c.row_map()(i + 1)) - static_cast<std::int64_t>(c.row_map()(i)) !=
        static_cast<std::int64_t>(end - begin)) {
      return fail("row " + std::to_string(i) + " has " +
                  std::to_string(static_cast<long long>(c.row_map()(i + 1) - c.row_map()(i))) + " entries, expected " +
                  std::to_string(static_cast<long long>(end - begin)));
    }
    row.clear();
    for (F e = c.row_map()(i); e < c.row_map()(i + 1); ++e) row.push_back({c.entries()(e), c.values()(e)});
    if (!require_sorted) {
      std::sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    }
    for (F e = begin; e < end; ++e) {
      const auto& [col, val] = row[e - begin];
      if (col != ref.c.entries()(e)) {
        return fail("row " + std::to_string(i) + ": column " + std::to_string(col) + " where the reference has " +
                    std::to_string(ref.c.entries()(e)));
      }
      const double tol =
          tolerance_factor * 4.0 * eps * static_cast<double>(std::max<std::int64_t>(ref.terms[e], 1)) * ref.bound[e];
      const double diff = Impl::magnitude(val - ref.c.values()(e));
      if (Impl::is_nan(val) || Impl::is_nan(ref.c.values()(e)) || !(diff <= tol)) {
        return fail("C(" + std::to_string(i) + "," + std::to_string(col) + ") = " + Impl::to_text(val) +
                    ", reference " + Impl::to_text(ref.c.values()(e)) + " (difference " + Impl::to_text(diff) +
                    " > tolerance " + Impl::to_text(tol) + ")");
      }
    }
  }
  return r;
}

/// The same check against the reference product of A and B, computed here.
template <class MatrixC, class S, class O, class F>
SpGEMMComparison compare_to_reference(const MatrixC& c, const HostCsrMatrix<S, O, F>& a,
                                      const HostCsrMatrix<S, O, F>& b, bool require_sorted = true,
                                      double tolerance_factor = 1.0) {
  return compare_to_reference(c, reference_spgemm_with_bounds(a, b), require_sorted, tolerance_factor);
}

}  // namespace KokkosSpGEMM

#endif
