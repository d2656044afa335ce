// The oracle: a deliberately simple serial Gustavson SpGEMM on the host (dense accumulator, sorted output), and the
// comparison every backend's result must pass ("equivalent to reference", as in Ginkgo's tests: same structure,
// values within a tolerance scaled by sum |a_ik * b_kj| of each entry).
#ifndef KOKKOSSPGEMM_REFERENCE_HPP
#define KOKKOSSPGEMM_REFERENCE_HPP

#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <KokkosSpGEMM_Errors.hpp>
#include <testing/KokkosSpGEMM_GeneratorsRandom.hpp>

#include <Kokkos_Complex.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
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
bool is_finite(const T& x) {
  return std::isfinite(static_cast<double>(x));
}
template <class T>
bool is_finite(const Kokkos::complex<T>& x) {
  return std::isfinite(static_cast<double>(x.real())) && std::isfinite(static_cast<double>(x.imag()));
}
/// Whether an entry of C agrees with the reference's: within tol where the reference is finite; where it is not
/// (Inf and NaN propagate through any order of summation), the same non-finite value: NaN where it has NaN, the
/// same infinity where it has one, part by part for complex values.
inline bool same_non_finite(double val, double want) { return std::isnan(want) ? std::isnan(val) : val == want; }
template <class T>
bool values_agree(const T& val, const T& want, double tol) {
  if (!is_finite(want)) {
    if constexpr (std::is_same<typename RealOf<T>::type, T>::value) {
      return same_non_finite(static_cast<double>(val), static_cast<double>(want));
    } else {
      const auto part_agrees = [&](double v, double w) {
        return std::isfinite(w) ? std::isfinite(v) && std::abs(v - w) <= tol : same_non_finite(v, w);
      };
      return part_agrees(static_cast<double>(val.real()), static_cast<double>(want.real())) &&
             part_agrees(static_cast<double>(val.imag()), static_cast<double>(want.imag()));
    }
  }
  const double diff = magnitude(val - want);
  return !is_nan(val) && diff <= tol;
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

/// Empty when m satisfies the CSR invariants (num_rows + 1 row map entries from 0, monotone, ending at nnz; as many
/// values as entries; columns in [0, num_cols); and, if require_sorted, strictly increasing columns in each row,
/// so no duplicates), else what is wrong and where.
template <class S, class O, class F>
std::string csr_invariant_violation(const HostCsrMatrix<S, O, F>& m, bool require_sorted) {
  std::ostringstream s;
  if (m.num_rows() < 0 || m.num_cols() < 0) {
    s << "negative dimensions " << m.num_rows() << " x " << m.num_cols();
    return s.str();
  }
  if (m.values().extent(0) != m.nnz()) {
    s << m.values().extent(0) << " values for " << m.nnz() << " column indices";
    return s.str();
  }
  const auto& rm = m.row_map();
  if (rm.extent(0) != static_cast<std::size_t>(m.num_rows()) + 1) {
    // A 0-row matrix may come without a row map.
    if (!(m.num_rows() == 0 && rm.extent(0) == 0 && m.nnz() == 0)) {
      s << "row map has " << rm.extent(0) << " entries for " << m.num_rows() << " rows";
    }
    return s.str();
  }
  // The whole row map first, so that the column pass never reads past the entries.
  if (rm(0) != 0) {
    s << "row map starts at " << static_cast<long long>(rm(0));
    return s.str();
  }
  for (O i = 0; i < m.num_rows(); ++i) {
    if (rm(i + 1) < rm(i)) {
      s << "row map decreases at row " << i << " (" << static_cast<long long>(rm(i)) << " then "
        << static_cast<long long>(rm(i + 1)) << ")";
      return s.str();
    }
  }
  if (static_cast<std::size_t>(rm(m.num_rows())) != m.nnz()) {
    s << "row map ends at " << static_cast<long long>(rm(m.num_rows())) << ", not at nnz = " << m.nnz();
    return s.str();
  }
  for (O i = 0; i < m.num_rows(); ++i) {
    for (F e = rm(i); e < rm(i + 1); ++e) {
      const O c = m.entries()(e);
      if (c < 0 || c >= m.num_cols()) {
        s << "column " << c << " out of range [0, " << m.num_cols() << ") in row " << i;
        return s.str();
      }
      if (require_sorted && e > rm(i) && !(m.entries()(e - 1) < c)) {
        s << "row " << i << " is not strictly increasing at column " << c << " (after " << m.entries()(e - 1) << ")";
        return s.str();
      }
    }
  }
  return "";
}

/// The result of is_valid_csr: ok, or what is wrong and where.
struct CsrValidity {
  bool ok = true;
  std::string message;
  explicit operator bool() const { return ok; }
};

/// Checks the CSR invariants of m (any memory space; copied to the host unless it is there); see
/// csr_invariant_violation.
template <class S, class O, class F, class M>
CsrValidity is_valid_csr(const CsrMatrix<S, O, F, M>& m, bool require_sorted = true) {
  CsrValidity v;
  if constexpr (std::is_same<M, Kokkos::HostSpace>::value) {
    v.message = csr_invariant_violation(m, require_sorted);
  } else {
    v.message = csr_invariant_violation(to_host(m), require_sorted);
  }
  v.ok = v.message.empty();
  return v;
}

/// C = A*B with, per entry of C, the bound sum |a_ik * b_kj| and the number of products that formed it.
template <class S, class O, class F>
struct ReferenceProduct {
  HostCsrMatrix<S, O, F> c;
  std::vector<double> bound;
  std::vector<std::int64_t> terms;
};

namespace Impl {
/// The references' dense accumulator: add() sums into the current row of C, close_row() appends it (columns
/// sorted, with each entry's bound and number of terms), finish() makes the product.
template <class S, class O, class F>
struct ReferenceRows {
  std::vector<S> acc;
  std::vector<double> acc_bound;
  std::vector<std::int64_t> acc_terms;
  std::vector<O> touched, c_cols;
  std::vector<S> c_vals;
  std::vector<F> row_map{F(0)};
  ReferenceProduct<S, O, F> out;

  explicit ReferenceRows(O cols) : acc(cols), acc_bound(cols), acc_terms(cols, 0) {}

  void add(O c, const S& value, double bound, std::int64_t terms) {
    if (acc_terms[c] == 0) {
      touched.push_back(c);
      acc[c] = S();
      acc_bound[c] = 0;
    }
    acc[c] += value;
    acc_bound[c] += bound;
    acc_terms[c] += terms;
  }

  void close_row(const char* function) {
    std::sort(touched.begin(), touched.end());
    for (O c : touched) {
      c_cols.push_back(c);
      c_vals.push_back(acc[c]);
      out.bound.push_back(acc_bound[c]);
      out.terms.push_back(acc_terms[c]);
      acc_terms[c] = 0;
    }
    touched.clear();
    KOKKOSSPGEMM_REQUIRE(c_cols.size() <= static_cast<std::size_t>(std::numeric_limits<F>::max()), IndexOverflow,
                         function, "nnz(C) = " << c_cols.size() << " does not fit the offset type");
    row_map.push_back(static_cast<F>(c_cols.size()));
  }

  ReferenceProduct<S, O, F> finish(const char* label, O rows, O cols) {
    out.c = HostCsrMatrix<S, O, F>(label, rows, cols, c_cols.size());
    for (std::size_t i = 0; i < row_map.size(); ++i) out.c.row_map()(i) = row_map[i];
    for (std::size_t e = 0; e < c_cols.size(); ++e) {
      out.c.entries()(e) = c_cols[e];
      out.c.values()(e) = c_vals[e];
    }
    return std::move(out);
  }
};
}  // namespace Impl

/// Serial Gustavson with a dense accumulator: an entry of C exists wherever a product exists (values that cancel to
/// 0 stay); rows of C sorted. Accepts unsorted and repeated columns in A and B.
/// Throws DimensionMismatch, InvalidInput (broken CSR invariants), IndexOverflow (nnz(C) beyond Offset).
template <class S, class O, class F>
ReferenceProduct<S, O, F> reference_spgemm_with_bounds(const HostCsrMatrix<S, O, F>& a,
                                                       const HostCsrMatrix<S, O, F>& b) {
  KOKKOSSPGEMM_REQUIRE(
      a.num_cols() == b.num_rows(), DimensionMismatch, "reference_spgemm",
      "A is " << a.num_rows() << " x " << a.num_cols() << " but B is " << b.num_rows() << " x " << b.num_cols());
  // The oracle indexes B's row map with A's columns: a broken input must throw, not read out of bounds.
  const std::string bad_a = csr_invariant_violation(a, false), bad_b = csr_invariant_violation(b, false);
  KOKKOSSPGEMM_REQUIRE(bad_a.empty(), InvalidInput, "reference_spgemm", "A: " << bad_a);
  KOKKOSSPGEMM_REQUIRE(bad_b.empty(), InvalidInput, "reference_spgemm", "B: " << bad_b);
  const O rows = a.num_rows(), cols = b.num_cols();
  Impl::ReferenceRows<S, O, F> c(cols);
  for (O i = 0; i < rows; ++i) {
    for (F e = a.row_map()(i); e < a.row_map()(i + 1); ++e) {
      const O k = a.entries()(e);
      for (F j = b.row_map()(k); j < b.row_map()(k + 1); ++j) {
        const S p = a.values()(e) * b.values()(j);
        c.add(b.entries()(j), p, Impl::magnitude(p), 1);
      }
    }
    c.close_row("reference_spgemm");
  }
  return c.finish("KokkosSpGEMM::Reference::C", rows, cols);
}

/// C = A*B on the host (see reference_spgemm_with_bounds).
template <class S, class O, class F>
HostCsrMatrix<S, O, F> reference_spgemm(const HostCsrMatrix<S, O, F>& a, const HostCsrMatrix<S, O, F>& b) {
  return reference_spgemm_with_bounds(a, b).c;
}

/// C = P - omega D^-1 (A*P) on the host (the Jacobi-smoothed product), with bounds: an entry of C exists wherever
/// A*P or P has one; its bound adds |p_ij| to |omega dinv_i| times A*P's, and P's entry counts as one more term.
template <class S, class O, class F>
ReferenceProduct<S, O, F> reference_jacobi_with_bounds(S omega, const std::vector<S>& dinv,
                                                       const HostCsrMatrix<S, O, F>& a,
                                                       const HostCsrMatrix<S, O, F>& p) {
  KOKKOSSPGEMM_REQUIRE(a.num_rows() == a.num_cols() && p.num_rows() == a.num_rows() &&
                           dinv.size() == static_cast<std::size_t>(a.num_rows()),
                       DimensionMismatch, "reference_jacobi",
                       "A is " << a.num_rows() << " x " << a.num_cols() << ", P has " << p.num_rows() << " rows, D^-1 "
                               << dinv.size() << " entries");
  const ReferenceProduct<S, O, F> ap = reference_spgemm_with_bounds(a, p);
  const O rows = a.num_rows(), cols = p.num_cols();
  Impl::ReferenceRows<S, O, F> c(cols);
  for (O i = 0; i < rows; ++i) {
    const S scale = -omega * dinv[i];
    for (F e = ap.c.row_map()(i); e < ap.c.row_map()(i + 1); ++e) {
      c.add(ap.c.entries()(e), scale * ap.c.values()(e), Impl::magnitude(scale) * ap.bound[e], ap.terms[e]);
    }
    for (F e = p.row_map()(i); e < p.row_map()(i + 1); ++e) {
      c.add(p.entries()(e), p.values()(e), Impl::magnitude(p.values()(e)), 1);
    }
    c.close_row("reference_jacobi");
  }
  return c.finish("KokkosSpGEMM::Reference::Jacobi", rows, cols);
}

/// ok, or the first difference found (row, column and values).
struct SpGEMMComparison {
  bool ok = true;
  std::string message;
};

/// Checks C (any memory space) against a reference product: identical shape and row map; identical columns in
/// order (require_sorted) or as sets; each value within tolerance_factor * 4 * eps * max(products, 1) *
/// sum |a_ik b_kj|, eps that of the real type of S. Where the reference is not finite, C must hold the same
/// non-finite value (NaN for NaN, the same infinity); NaN in C passes nowhere else.
template <class MatrixC, class S, class O, class F>
SpGEMMComparison compare_to_reference(const MatrixC& c_any, const ReferenceProduct<S, O, F>& ref,
                                      bool require_sorted = true, double tolerance_factor = 1.0) {
  SpGEMMComparison r;
  std::ostringstream s;
  auto fail = [&] {
    r.ok = false;
    r.message = s.str();
    return r;
  };
  const auto c = to_host(c_any);
  if (c.num_rows() != ref.c.num_rows() || c.num_cols() != ref.c.num_cols()) {
    s << "C is " << c.num_rows() << " x " << c.num_cols() << ", expected " << ref.c.num_rows() << " x "
      << ref.c.num_cols();
    return fail();
  }
  const std::string invalid = csr_invariant_violation(c, require_sorted);
  if (!invalid.empty()) {
    s << "C is not valid CSR: " << invalid;
    return fail();
  }
  using Real = typename Impl::RealOf<S>::type;
  const double eps = static_cast<double>(std::numeric_limits<Real>::epsilon());
  std::vector<std::pair<O, S>> row;
  for (O i = 0; i < c.num_rows(); ++i) {
    row.clear();
    for (F e = c.row_map()(i); e < c.row_map()(i + 1); ++e) row.push_back({c.entries()(e), c.values()(e)});
    if (!require_sorted) {
      std::stable_sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    }
    // Merge C's row with the reference's: the first column in one and not the other is the offending entry.
    const F begin = ref.c.row_map()(i), end = ref.c.row_map()(i + 1);
    std::size_t k = 0;
    for (F e = begin; e < end || k < row.size(); ++k, ++e) {
      if (k > 0 && k < row.size() && row[k].first == row[k - 1].first) {
        s << "row " << i << ": column " << row[k].first << " appears twice";
        return fail();
      }
      const bool c_done = k >= row.size(), ref_done = e >= end;
      if (ref_done || (!c_done && row[k].first < ref.c.entries()(e))) {
        s << "row " << i << ": extra entry C(" << i << "," << row[k].first << ") = " << Impl::to_text(row[k].second)
          << " that the reference does not have";
        return fail();
      }
      if (c_done || ref.c.entries()(e) < row[k].first) {
        s << "row " << i << ": missing entry C(" << i << "," << ref.c.entries()(e) << "), reference value "
          << Impl::to_text(ref.c.values()(e));
        return fail();
      }
      const S val = row[k].second, want = ref.c.values()(e);
      const double tol =
          tolerance_factor * 4.0 * eps * static_cast<double>(std::max<std::int64_t>(ref.terms[e], 1)) * ref.bound[e];
      if (!Impl::values_agree(val, want, tol)) {
        s << "row " << i << ": C(" << i << "," << row[k].first << ") = " << Impl::to_text(val) << ", reference "
          << Impl::to_text(want) << " (difference " << Impl::to_text(Impl::magnitude(val - want)) << " > tolerance "
          << Impl::to_text(tol) << ")";
        return fail();
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

/// The rows to check in a product too large for the whole reference: the `longest` with the most products (where
/// accumulators overflow first) and `random` more drawn uniformly from a seeded generator; sorted, distinct.
template <class S, class O, class F>
std::vector<O> rows_to_sample(const HostCsrMatrix<S, O, F>& a, const HostCsrMatrix<S, O, F>& b, std::size_t longest,
                              std::size_t random, std::uint64_t seed = 12345) {
  std::vector<std::pair<std::int64_t, O>> work;
  for (O i = 0; i < a.num_rows(); ++i) {
    std::int64_t p = 0;
    for (F e = a.row_map()(i); e < a.row_map()(i + 1); ++e) {
      p += static_cast<std::int64_t>(b.row_map()(a.entries()(e) + 1) - b.row_map()(a.entries()(e)));
    }
    work.push_back({p, i});
  }
  longest = std::min(longest, work.size());
  std::partial_sort(work.begin(), work.begin() + longest, work.end(),
                    [](const auto& x, const auto& y) { return x.first > y.first; });
  std::vector<O> rows;
  for (std::size_t k = 0; k < longest; ++k) rows.push_back(work[k].second);
  Impl::Random rng(seed);
  for (std::size_t k = 0; k < random && a.num_rows() > 0; ++k) rows.push_back(static_cast<O>(rng.below(a.num_rows())));
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

/// For products too large for the whole reference (nnz(C) past 10^9): checks the listed rows of C (any memory space;
/// only its row map and those rows are copied) against the reference computed for those rows alone, with sorted
/// columns and the tolerance of compare_to_reference.
template <class MatrixC, class S, class O, class F>
SpGEMMComparison compare_rows_to_reference(const MatrixC& c, const HostCsrMatrix<S, O, F>& a,
                                           const HostCsrMatrix<S, O, F>& b, const std::vector<O>& rows,
                                           double tolerance_factor = 1.0) {
  SpGEMMComparison r;
  std::ostringstream s;
  using Real = typename Impl::RealOf<S>::type;
  const double eps = static_cast<double>(std::numeric_limits<Real>::epsilon());
  const auto c_rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c.row_map());
  struct Term {
    O col;
    S value;
    double bound;
  };
  std::vector<Term> terms;
  for (const O i : rows) {
    if (i < 0 || i >= a.num_rows()) continue;
    // The row's products sorted by column, then summed per column in the reference's order (A's then B's).
    terms.clear();
    for (F e = a.row_map()(i); e < a.row_map()(i + 1); ++e) {
      const O k = a.entries()(e);
      for (F f = b.row_map()(k); f < b.row_map()(k + 1); ++f) {
        const S prod = a.values()(e) * b.values()(f);
        terms.push_back({b.entries()(f), prod, Impl::magnitude(prod)});
      }
    }
    std::stable_sort(terms.begin(), terms.end(), [](const Term& x, const Term& y) { return x.col < y.col; });
    std::vector<Term> want;
    std::vector<std::int64_t> count;
    for (const Term& t : terms) {
      if (!want.empty() && want.back().col == t.col) {
        want.back().value += t.value;
        want.back().bound += t.bound;
        ++count.back();
      } else {
        want.push_back(t);
        count.push_back(1);
      }
    }
    const auto begin = c_rows(i), end = c_rows(i + 1);
    const std::size_t n = static_cast<std::size_t>(end - begin);
    const auto range = std::make_pair(static_cast<std::size_t>(begin), static_cast<std::size_t>(end));
    const auto cols = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Kokkos::subview(c.entries(), range));
    const auto vals = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Kokkos::subview(c.values(), range));
    if (n != want.size()) {
      s << "row " << i << " has " << n << " entries, the reference " << want.size();
      r.ok = false;
      r.message = s.str();
      return r;
    }
    for (std::size_t k = 0; k < n; ++k) {
      const double tol = tolerance_factor * 4.0 * eps * static_cast<double>(count[k]) * want[k].bound;
      if (cols(k) != want[k].col || !Impl::values_agree(static_cast<S>(vals(k)), want[k].value, tol)) {
        s << "row " << i << ", entry " << k << ": C has column " << cols(k) << " value " << Impl::to_text(vals(k))
          << ", the reference column " << want[k].col << " value " << Impl::to_text(want[k].value);
        r.ok = false;
        r.message = s.str();
        return r;
      }
    }
  }
  return r;
}

}  // namespace KokkosSpGEMM

#endif
