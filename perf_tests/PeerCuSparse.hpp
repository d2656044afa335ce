// cuSPARSE's generic SpGEMM as a peer (CUDA builds): one-shot with its default algorithm or ALG2/ALG3 (work
// estimation, [memory estimate,] compute, copy, buffers allocated and freed inside the timing), and its reuse API
// (numeric-only cusparseSpGEMMreuse_compute after one structure pass), with the bytes each keeps.
#ifndef KOKKOSSPGEMM_PEERCUSPARSE_HPP
#define KOKKOSSPGEMM_PEERCUSPARSE_HPP

#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <PeerBuffer.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace KokkosSpGEMMPerf {

inline void cusparse_check(cusparseStatus_t s, const char* what) {
  if (s != CUSPARSE_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": " + cusparseGetErrorString(s));
}
inline void cuda_check(cudaError_t s, const char* what) {
  if (s != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(s));
}

struct CudaBufferApi {
  static void allocate(void** p, std::size_t n) { cuda_check(cudaMalloc(p, n), "cudaMalloc"); }
  static void release(void* p) { cudaFree(p); }
};
using DeviceBuffer = PeerBuffer<CudaBufferApi>;

/// C = A*B for 32-bit indices and double values through cuSPARSE.
class CuSparseSpGEMM {
 public:
  CuSparseSpGEMM(int m, int k, int n, std::int64_t nnz_a, const int* a_rows, const int* a_cols, const double* a_vals,
                 std::int64_t nnz_b, const int* b_rows, const int* b_cols, const double* b_vals)
      : m_m(m), m_n(n) {
    cusparse_check(cusparseCreate(&m_handle), "cusparseCreate");
    cusparse_check(cusparseCreateCsr(&m_a, m, k, nnz_a, const_cast<int*>(a_rows), const_cast<int*>(a_cols),
                                     const_cast<double*>(a_vals), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
                   "cusparseCreateCsr(A)");
    cusparse_check(cusparseCreateCsr(&m_b, k, n, nnz_b, const_cast<int*>(b_rows), const_cast<int*>(b_cols),
                                     const_cast<double*>(b_vals), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
                   "cusparseCreateCsr(B)");
  }
  ~CuSparseSpGEMM() {
    release_c();
    cusparseDestroySpMat(m_a);
    cusparseDestroySpMat(m_b);
    cusparseDestroy(m_handle);
  }

  /// One-shot with algorithm alg (DEFAULT, ALG2 or ALG3; the last two size their buffers by estimateMemory, ALG3
  /// computing in chunks of chunk_fraction of the products); returns the peak bytes of its buffers.
  std::size_t one_shot(cusparseSpGEMMAlg_t alg = CUSPARSE_SPGEMM_DEFAULT, float chunk_fraction = 0.2f) {
    release_c();
    make_c();
    cusparseSpGEMMDescr_t desc;
    cusparse_check(cusparseSpGEMM_createDescr(&desc), "createDescr");
    struct DescrGuard {
      cusparseSpGEMMDescr_t d;
      ~DescrGuard() { cusparseSpGEMM_destroyDescr(d); }
    } guard{desc};
    const double alpha = 1.0, beta = 0.0;
    const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    std::size_t bytes1 = 0, bytes2 = 0, bytes3 = 0;
    cusparse_check(cusparseSpGEMM_workEstimation(m_handle, op, op, &alpha, m_a, m_b, &beta, m_c, CUDA_R_64F, alg, desc,
                                                 &bytes1, nullptr),
                   "workEstimation");
    DeviceBuffer buf1(bytes1);
    cusparse_check(cusparseSpGEMM_workEstimation(m_handle, op, op, &alpha, m_a, m_b, &beta, m_c, CUDA_R_64F, alg, desc,
                                                 &bytes1, buf1.ptr),
                   "workEstimation");
    if (alg == CUSPARSE_SPGEMM_ALG2 || alg == CUSPARSE_SPGEMM_ALG3) {
      cusparse_check(cusparseSpGEMM_estimateMemory(m_handle, op, op, &alpha, m_a, m_b, &beta, m_c, CUDA_R_64F, alg,
                                                   desc, chunk_fraction, &bytes3, nullptr, nullptr),
                     "estimateMemory");
      DeviceBuffer buf3(bytes3);
      cusparse_check(cusparseSpGEMM_estimateMemory(m_handle, op, op, &alpha, m_a, m_b, &beta, m_c, CUDA_R_64F, alg,
                                                   desc, chunk_fraction, &bytes3, buf3.ptr, &bytes2),
                     "estimateMemory");
    } else {
      cusparse_check(cusparseSpGEMM_compute(m_handle, op, op, &alpha, m_a, m_b, &beta, m_c, CUDA_R_64F, alg, desc,
                                            &bytes2, nullptr),
                     "compute");
    }
    DeviceBuffer buf2(bytes2);
    cusparse_check(cusparseSpGEMM_compute(m_handle, op, op, &alpha, m_a, m_b, &beta, m_c, CUDA_R_64F, alg, desc,
                                          &bytes2, buf2.ptr),
                   "compute");
    alloc_c_arrays();
    cusparse_check(cusparseSpGEMM_copy(m_handle, op, op, &alpha, m_a, m_b, &beta, m_c, CUDA_R_64F, alg, desc), "copy");
    return bytes1 + std::max(bytes2, bytes3);
  }

  /// The reuse API's structure pass; afterwards reuse_compute() is the numeric phase. Returns the kept bytes.
  std::size_t reuse_setup() {
    release_c();
    make_c();
    cusparse_check(cusparseSpGEMM_createDescr(&m_reuse), "createDescr");
    const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    const auto alg = CUSPARSE_SPGEMM_DEFAULT;
    std::size_t b1 = 0, b2 = 0, b3 = 0, b4 = 0, b5 = 0;
    cusparse_check(cusparseSpGEMMreuse_workEstimation(m_handle, op, op, m_a, m_b, m_c, alg, m_reuse, &b1, nullptr),
                   "reuse_workEstimation");
    DeviceBuffer buf1(b1);
    cusparse_check(cusparseSpGEMMreuse_workEstimation(m_handle, op, op, m_a, m_b, m_c, alg, m_reuse, &b1, buf1.ptr),
                   "reuse_workEstimation");
    cusparse_check(cusparseSpGEMMreuse_nnz(m_handle, op, op, m_a, m_b, m_c, alg, m_reuse, &b2, nullptr, &b3, nullptr,
                                           &b4, nullptr),
                   "reuse_nnz");
    DeviceBuffer buf2(b2), buf3(b3);
    m_kept4 = DeviceBuffer(b4);
    cusparse_check(cusparseSpGEMMreuse_nnz(m_handle, op, op, m_a, m_b, m_c, alg, m_reuse, &b2, buf2.ptr, &b3, buf3.ptr,
                                           &b4, m_kept4.ptr),
                   "reuse_nnz");
    alloc_c_arrays();
    cusparse_check(cusparseSpGEMMreuse_copy(m_handle, op, op, m_a, m_b, m_c, alg, m_reuse, &b5, nullptr), "reuse_copy");
    m_kept5 = DeviceBuffer(b5);
    cusparse_check(cusparseSpGEMMreuse_copy(m_handle, op, op, m_a, m_b, m_c, alg, m_reuse, &b5, m_kept5.ptr),
                   "reuse_copy");
    return b4 + b5;
  }

  void reuse_compute() {
    const double alpha = 1.0, beta = 0.0;
    const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    cusparse_check(cusparseSpGEMMreuse_compute(m_handle, op, op, &alpha, m_a, m_b, &beta, m_c, CUDA_R_64F,
                                               CUSPARSE_SPGEMM_DEFAULT, m_reuse),
                   "reuse_compute");
  }

  /// Points B at other arrays of the same structure (a chained product whose B is another product's C).
  void set_b_pointers(const int* rows, const int* cols, const double* vals) {
    cusparse_check(
        cusparseCsrSetPointers(m_b, const_cast<int*>(rows), const_cast<int*>(cols), const_cast<double*>(vals)),
        "CsrSetPointers(B)");
  }

  std::int64_t nnz() const { return m_nnz; }
  const int* c_rows() const { return static_cast<const int*>(m_c_rows.ptr); }
  const int* c_cols() const { return static_cast<const int*>(m_c_cols.ptr); }
  const double* c_vals() const { return static_cast<const double*>(m_c_vals.ptr); }

 private:
  void make_c() {
    m_c_rows = DeviceBuffer(sizeof(int) * (static_cast<std::size_t>(m_m) + 1));
    cusparse_check(cusparseCreateCsr(&m_c, m_m, m_n, 0, m_c_rows.ptr, nullptr, nullptr, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
                   "cusparseCreateCsr(C)");
  }
  void alloc_c_arrays() {
    std::int64_t rows, cols;
    cusparse_check(cusparseSpMatGetSize(m_c, &rows, &cols, &m_nnz), "SpMatGetSize");
    m_c_cols = DeviceBuffer(sizeof(int) * static_cast<std::size_t>(m_nnz));
    m_c_vals = DeviceBuffer(sizeof(double) * static_cast<std::size_t>(m_nnz));
    cusparse_check(cusparseCsrSetPointers(m_c, m_c_rows.ptr, m_c_cols.ptr, m_c_vals.ptr), "CsrSetPointers");
  }
  void release_c() {
    if (m_c) cusparseDestroySpMat(m_c);
    m_c = nullptr;
    if (m_reuse) cusparseSpGEMM_destroyDescr(m_reuse);
    m_reuse = nullptr;
    m_kept4 = DeviceBuffer();
    m_kept5 = DeviceBuffer();
  }

  int m_m, m_n;
  std::int64_t m_nnz = 0;
  cusparseHandle_t m_handle = nullptr;
  cusparseSpMatDescr_t m_a = nullptr, m_b = nullptr, m_c = nullptr;
  cusparseSpGEMMDescr_t m_reuse = nullptr;
  DeviceBuffer m_c_rows, m_c_cols, m_c_vals, m_kept4, m_kept5;
};

/// C = X + Y for two sorted CSR matrices of one shape through cuSPARSE's csrgeam2 (the add of the unfused smoothing
/// step): structure() counts C's row map and allocates C; add() fills C's columns and values (the numeric part a
/// reuse call repeats).
class CuSparseGeam {
 public:
  CuSparseGeam(int m, int n) : m_m(m), m_n(n) {
    cusparse_check(cusparseCreate(&m_handle), "cusparseCreate");
    cusparse_check(cusparseCreateMatDescr(&m_descr), "cusparseCreateMatDescr");
  }
  ~CuSparseGeam() {
    cusparseDestroyMatDescr(m_descr);
    cusparseDestroy(m_handle);
  }
  /// Counts C = X + Y and allocates it with its work buffer; returns the buffer's bytes.
  std::size_t structure(std::int64_t nnz_x, const int* x_rows, const int* x_cols, const double* x_vals,
                        std::int64_t nnz_y, const int* y_rows, const int* y_cols, const double* y_vals) {
    const double one = 1.0;
    m_rows = DeviceBuffer(sizeof(int) * (static_cast<std::size_t>(m_m) + 1));
    std::size_t bytes = 0;
    cusparse_check(cusparseDcsrgeam2_bufferSizeExt(m_handle, m_m, m_n, &one, m_descr, static_cast<int>(nnz_x), x_vals,
                                                   x_rows, x_cols, &one, m_descr, static_cast<int>(nnz_y), y_vals,
                                                   y_rows, y_cols, m_descr, nullptr, c_rows(), nullptr, &bytes),
                   "csrgeam2_bufferSizeExt");
    m_buffer = DeviceBuffer(bytes);
    int nnz = 0;
    cusparse_check(cusparseSetPointerMode(m_handle, CUSPARSE_POINTER_MODE_HOST), "SetPointerMode");
    cusparse_check(cusparseXcsrgeam2Nnz(m_handle, m_m, m_n, m_descr, static_cast<int>(nnz_x), x_rows, x_cols, m_descr,
                                        static_cast<int>(nnz_y), y_rows, y_cols, m_descr, static_cast<int*>(m_rows.ptr),
                                        &nnz, m_buffer.ptr),
                   "csrgeam2Nnz");
    m_nnz = nnz;
    m_cols = DeviceBuffer(sizeof(int) * static_cast<std::size_t>(m_nnz));
    m_vals = DeviceBuffer(sizeof(double) * static_cast<std::size_t>(m_nnz));
    return bytes;
  }
  void add(std::int64_t nnz_x, const int* x_rows, const int* x_cols, const double* x_vals, std::int64_t nnz_y,
           const int* y_rows, const int* y_cols, const double* y_vals) {
    const double one = 1.0;
    cusparse_check(cusparseDcsrgeam2(m_handle, m_m, m_n, &one, m_descr, static_cast<int>(nnz_x), x_vals, x_rows, x_cols,
                                     &one, m_descr, static_cast<int>(nnz_y), y_vals, y_rows, y_cols, m_descr,
                                     static_cast<double*>(m_vals.ptr), static_cast<int*>(m_rows.ptr),
                                     static_cast<int*>(m_cols.ptr), m_buffer.ptr),
                   "csrgeam2");
  }
  std::int64_t nnz() const { return m_nnz; }
  const int* c_rows() const { return static_cast<const int*>(m_rows.ptr); }
  const int* c_cols() const { return static_cast<const int*>(m_cols.ptr); }
  const double* c_vals() const { return static_cast<const double*>(m_vals.ptr); }

 private:
  int m_m, m_n;
  std::int64_t m_nnz = 0;
  cusparseHandle_t m_handle = nullptr;
  cusparseMatDescr_t m_descr = nullptr;
  DeviceBuffer m_rows, m_cols, m_vals, m_buffer;
};

}  // namespace KokkosSpGEMMPerf

#endif
