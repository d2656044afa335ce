// SuiteSparse:GraphBLAS as a CPU peer (host builds where Debian's libgraphblas-dev is installed): C = A*B by
// GrB_mxm over the plus-times semiring of doubles, C's creation and GrB_wait (the finished, sorted matrix) inside the
// timing, on as many threads as Kokkos' host space runs.
#ifndef KOKKOSSPGEMM_PEERGRAPHBLAS_HPP
#define KOKKOSSPGEMM_PEERGRAPHBLAS_HPP

extern "C" {
#include <GraphBLAS.h>
}

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace KokkosSpGEMMPerf {

inline void graphblas_check(GrB_Info info, const char* what) {
  if (info != GrB_SUCCESS) throw std::runtime_error(std::string(what) + ": GrB_Info " + std::to_string(info));
}

/// GraphBLAS started once per process, in non-blocking mode as its users run it, finished at exit.
inline void graphblas_start(int threads) {
  static const bool started = [] {
    graphblas_check(GrB_init(GrB_NONBLOCKING), "GrB_init");
    std::atexit([] { GrB_finalize(); });
    return true;
  }();
  (void)started;
  graphblas_check(GxB_Global_Option_set(GxB_GLOBAL_NTHREADS, threads), "GxB_Global_Option_set(GxB_NTHREADS)");
}

/// C = A*B for CSR inputs with 32-bit indices (copied into GraphBLAS matrices at construction, outside the timing).
class GraphBlasSpGEMM {
 public:
  GraphBlasSpGEMM(int m, int k, int n, const int* a_rows, const int* a_cols, const double* a_vals, const int* b_rows,
                  const int* b_cols, const double* b_vals, int threads)
      : m_m(m), m_n(n) {
    graphblas_start(threads);
    m_a = import(m, k, a_rows, a_cols, a_vals);
    m_b = import(k, n, b_rows, b_cols, b_vals);
  }
  GraphBlasSpGEMM(const GraphBlasSpGEMM&) = delete;
  GraphBlasSpGEMM& operator=(const GraphBlasSpGEMM&) = delete;
  ~GraphBlasSpGEMM() {
    GrB_Matrix_free(&m_c);
    GrB_Matrix_free(&m_a);
    GrB_Matrix_free(&m_b);
  }

  /// A fresh C = A*B, finished (GrB_wait).
  void one_shot() {
    GrB_Matrix_free(&m_c);
    graphblas_check(GrB_Matrix_new(&m_c, GrB_FP64, m_m, m_n), "GrB_Matrix_new(C)");
    graphblas_check(GrB_mxm(m_c, nullptr, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, m_a, m_b, nullptr), "GrB_mxm");
    graphblas_check(GrB_Matrix_wait(m_c, GrB_MATERIALIZE), "GrB_Matrix_wait");
  }

  /// The last C in CSR with 32-bit indices (for the check, untimed).
  void export_c(std::vector<int>& rows, std::vector<int>& cols, std::vector<double>& vals) const {
    GrB_Index n_rows = 0, n_cols = 0, n_vals = 0;
    graphblas_check(GrB_Matrix_exportSize(&n_rows, &n_cols, &n_vals, GrB_CSR_FORMAT, m_c), "GrB_Matrix_exportSize");
    std::vector<GrB_Index> r(n_rows), c(n_cols);
    vals.resize(n_vals);
    graphblas_check(
        GrB_Matrix_export_FP64(r.data(), c.data(), vals.data(), &n_rows, &n_cols, &n_vals, GrB_CSR_FORMAT, m_c),
        "GrB_Matrix_export_FP64");
    rows.assign(r.begin(), r.begin() + static_cast<std::ptrdiff_t>(n_rows));
    cols.assign(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(n_cols));
    vals.resize(n_vals);
  }

 private:
  static GrB_Matrix import(int rows, int cols, const int* row_map, const int* entries, const double* values) {
    const std::int64_t nnz = row_map[rows];
    std::vector<GrB_Index> p(row_map, row_map + rows + 1), j(entries, entries + nnz);
    GrB_Matrix m = nullptr;
    graphblas_check(GrB_Matrix_import_FP64(&m, GrB_FP64, rows, cols, p.data(), j.data(), values, p.size(), j.size(),
                                           static_cast<GrB_Index>(nnz), GrB_CSR_FORMAT),
                    "GrB_Matrix_import_FP64");
    return m;
  }

  int m_m, m_n;
  GrB_Matrix m_a = nullptr, m_b = nullptr, m_c = nullptr;
};

/// Triangle counting as LAGraph does it, on the strictly lower triangle L of an undirected graph (imported outside
/// the timing): Sandia_LL, C⟨L⟩ = L·L by saxpy, and SandiaDot, C⟨L⟩ = L·Uᵀ by dot products (U = Lᵀ), both over
/// plus-pair with a structural mask, then the sum of C (GrB_reduce). Each call makes and frees its C.
class GraphBlasTriangles {
 public:
  GraphBlasTriangles(int n, const int* l_rows, const int* l_cols, const int* u_rows, const int* u_cols, int threads) {
    graphblas_start(threads);
    m_l = import(n, l_rows, l_cols);
    m_u = import(n, u_rows, u_cols);
    m_n = n;
  }
  GraphBlasTriangles(const GraphBlasTriangles&) = delete;
  GraphBlasTriangles& operator=(const GraphBlasTriangles&) = delete;
  ~GraphBlasTriangles() {
    GrB_Matrix_free(&m_l);
    GrB_Matrix_free(&m_u);
  }

  /// dot: SandiaDot (C⟨L⟩ = L·Uᵀ), else Sandia_LL (C⟨L⟩ = L·L).
  std::int64_t count(bool dot) const {
    GrB_Matrix c = nullptr;
    graphblas_check(GrB_Matrix_new(&c, GrB_INT64, m_n, m_n), "GrB_Matrix_new(C)");
    graphblas_check(dot ? GrB_mxm(c, m_l, nullptr, GxB_PLUS_PAIR_INT64, m_l, m_u, GrB_DESC_ST1)
                        : GrB_mxm(c, m_l, nullptr, GxB_PLUS_PAIR_INT64, m_l, m_l, GrB_DESC_S),
                    "GrB_mxm");
    std::int64_t total = 0;
    graphblas_check(GrB_Matrix_reduce_INT64(&total, nullptr, GrB_PLUS_MONOID_INT64, c, nullptr), "GrB_reduce");
    GrB_Matrix_free(&c);
    return total;
  }

 private:
  static GrB_Matrix import(int n, const int* row_map, const int* entries) {
    const std::int64_t nnz = row_map[n];
    std::vector<GrB_Index> p(row_map, row_map + n + 1), j(entries, entries + nnz);
    std::vector<std::int64_t> ones(static_cast<std::size_t>(nnz), 1);
    GrB_Matrix m = nullptr;
    graphblas_check(GrB_Matrix_import_INT64(&m, GrB_INT64, n, n, p.data(), j.data(), ones.data(), p.size(), j.size(),
                                            static_cast<GrB_Index>(nnz), GrB_CSR_FORMAT),
                    "GrB_Matrix_import_INT64");
    return m;
  }
  GrB_Matrix m_l = nullptr, m_u = nullptr;
  int m_n = 0;
};

}  // namespace KokkosSpGEMMPerf

#endif
