// Intel MKL's sparse BLAS as a CPU peer (host builds where MKL is installed; Debian's non-free libmkl-dev): the
// one-shot mkl_sparse_spmm (rows unsorted, as MKL leaves them; and followed by mkl_sparse_order for sorted rows),
// and the two-stage mkl_sparse_sp2m, whose finalize stage (values into C's known structure) is MKL's numeric reuse.
// MKL runs on GNU OpenMP threads, the runtime Kokkos' OpenMP backend uses, as many as Kokkos' host space.
#ifndef KOKKOSSPGEMM_PEERMKL_HPP
#define KOKKOSSPGEMM_PEERMKL_HPP

#include <mkl.h>
#include <mkl_spblas.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace KokkosSpGEMMPerf {

inline void mkl_check(sparse_status_t s, const char* what) {
  if (s != SPARSE_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": sparse_status_t " + std::to_string(s));
}

/// C = A*B for CSR inputs with 32-bit indices (MKL's LP64 interface), which MKL reads in place.
class MklSpGEMM {
 public:
  MklSpGEMM(int m, int k, int n, const int* a_rows, const int* a_cols, const double* a_vals, const int* b_rows,
            const int* b_cols, const double* b_vals, int threads) {
    static const int layer = mkl_set_threading_layer(MKL_THREADING_GNU);
    (void)layer;
    mkl_set_num_threads(threads);
    mkl_check(
        mkl_sparse_d_create_csr(&m_a, SPARSE_INDEX_BASE_ZERO, m, k, const_cast<int*>(a_rows),
                                const_cast<int*>(a_rows) + 1, const_cast<int*>(a_cols), const_cast<double*>(a_vals)),
        "mkl_sparse_d_create_csr(A)");
    mkl_check(
        mkl_sparse_d_create_csr(&m_b, SPARSE_INDEX_BASE_ZERO, k, n, const_cast<int*>(b_rows),
                                const_cast<int*>(b_rows) + 1, const_cast<int*>(b_cols), const_cast<double*>(b_vals)),
        "mkl_sparse_d_create_csr(B)");
    m_general.type = SPARSE_MATRIX_TYPE_GENERAL;
    m_general.mode = SPARSE_FILL_MODE_FULL;
    m_general.diag = SPARSE_DIAG_NON_UNIT;
  }
  MklSpGEMM(const MklSpGEMM&) = delete;
  MklSpGEMM& operator=(const MklSpGEMM&) = delete;
  ~MklSpGEMM() {
    release_c();
    mkl_sparse_destroy(m_a);
    mkl_sparse_destroy(m_b);
  }

  /// A fresh C = A*B by mkl_sparse_spmm; sorted: then mkl_sparse_order.
  void one_shot(bool sorted) {
    release_c();
    mkl_check(mkl_sparse_spmm(SPARSE_OPERATION_NON_TRANSPOSE, m_a, m_b, &m_c), "mkl_sparse_spmm");
    if (sorted) mkl_check(mkl_sparse_order(m_c), "mkl_sparse_order");
  }

  /// The two-stage product's structure (untimed setup of its reuse): C's pattern without values.
  void reuse_setup() {
    release_c();
    mkl_check(mkl_sparse_sp2m(SPARSE_OPERATION_NON_TRANSPOSE, m_general, m_a, SPARSE_OPERATION_NON_TRANSPOSE, m_general,
                              m_b, SPARSE_STAGE_FULL_MULT_NO_VAL, &m_c),
              "mkl_sparse_sp2m(FULL_MULT_NO_VAL)");
  }
  /// Its numeric stage: C's values for the structure of reuse_setup.
  void reuse_compute() {
    mkl_check(mkl_sparse_sp2m(SPARSE_OPERATION_NON_TRANSPOSE, m_general, m_a, SPARSE_OPERATION_NON_TRANSPOSE, m_general,
                              m_b, SPARSE_STAGE_FINALIZE_MULT, &m_c),
              "mkl_sparse_sp2m(FINALIZE_MULT)");
  }

  /// The last C in CSR (for the check, untimed).
  void export_c(std::vector<int>& rows, std::vector<int>& cols, std::vector<double>& vals) const {
    sparse_index_base_t base;
    int n_rows = 0, n_cols = 0, *starts = nullptr, *ends = nullptr, *indices = nullptr;
    double* values = nullptr;
    mkl_check(mkl_sparse_d_export_csr(m_c, &base, &n_rows, &n_cols, &starts, &ends, &indices, &values),
              "mkl_sparse_d_export_csr");
    rows.assign(static_cast<std::size_t>(n_rows) + 1, 0);
    cols.clear();
    vals.clear();
    for (int i = 0; i < n_rows; ++i) {
      for (int e = starts[i] - base; e < ends[i] - base; ++e) {
        cols.push_back(indices[e] - base);
        vals.push_back(values[e]);
      }
      rows[static_cast<std::size_t>(i) + 1] = static_cast<int>(cols.size());
    }
  }

 private:
  void release_c() {
    if (m_c) mkl_sparse_destroy(m_c);
    m_c = nullptr;
  }

  sparse_matrix_t m_a = nullptr, m_b = nullptr, m_c = nullptr;
  matrix_descr m_general{};
};

}  // namespace KokkosSpGEMMPerf

#endif
