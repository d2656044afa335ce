// Building host CSR matrices row by row (generators, readers): checks that sizes fit the ordinal and offset types.
#ifndef KOKKOSSPGEMM_CSRBUILDER_HPP
#define KOKKOSSPGEMM_CSRBUILDER_HPP

#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <KokkosSpGEMM_Errors.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace KokkosSpGEMM {
namespace Impl {

/// Throws IndexOverflow unless value fits T.
template <class T>
T checked_cast(std::int64_t value, const char* function, const char* what) {
  KOKKOSSPGEMM_REQUIRE(
      value >= 0 && static_cast<std::uint64_t>(value) <= static_cast<std::uint64_t>(std::numeric_limits<T>::max()),
      IndexOverflow, function,
      what << " = " << value << " does not fit a " << sizeof(T) * 8 << "-bit "
           << (std::is_signed<T>::value ? "signed" : "unsigned") << " index type");
  return static_cast<T>(value);
}

/// Appends rows in order; each row's entries are sorted by column and duplicates summed when the row is closed.
template <class S, class O, class F>
class CsrBuilder {
 public:
  CsrBuilder(const char* function, std::int64_t rows, std::int64_t cols)
      : m_function(function),
        m_rows(checked_cast<O>(rows, function, "number of rows")),
        m_cols(checked_cast<O>(cols, function, "number of columns")) {
    m_row_map.reserve(static_cast<std::size_t>(rows) + 1);
    m_row_map.push_back(0);
  }
  void add(std::int64_t col, const S& value) { m_row.push_back({static_cast<O>(col), value}); }
  void end_row() {
    std::sort(m_row.begin(), m_row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (std::size_t i = 0; i < m_row.size(); ++i) {
      if (i > 0 && m_row[i].first == m_cols_out.back()) {
        m_vals_out.back() += m_row[i].second;
      } else {
        m_cols_out.push_back(m_row[i].first);
        m_vals_out.push_back(m_row[i].second);
      }
    }
    m_row.clear();
    m_row_map.push_back(static_cast<std::int64_t>(m_cols_out.size()));
  }
  CsrMatrix<S, O, F, Kokkos::HostSpace> finish() {
    checked_cast<F>(static_cast<std::int64_t>(m_cols_out.size()), m_function, "number of stored entries");
    CsrMatrix<S, O, F, Kokkos::HostSpace> m("KokkosSpGEMM::CsrBuilder", m_rows, m_cols, m_cols_out.size());
    for (std::size_t i = 0; i < m_row_map.size(); ++i) m.row_map()(i) = static_cast<F>(m_row_map[i]);
    for (std::size_t e = 0; e < m_cols_out.size(); ++e) {
      m.entries()(e) = m_cols_out[e];
      m.values()(e) = m_vals_out[e];
    }
    return m;
  }

 private:
  const char* m_function;
  O m_rows, m_cols;
  std::vector<std::pair<O, S>> m_row;
  std::vector<std::int64_t> m_row_map;
  std::vector<O> m_cols_out;
  std::vector<S> m_vals_out;
};

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
