// rocSPARSE's generic SpGEMM as a peer (HIP builds; compile-checked only, there is no AMD GPU here): one-shot
// (buffer size, nnz, compute, buffers and C allocated inside the timing) and reuse (symbolic once, then the numeric
// stage alone), with the bytes each keeps. Mirrors PeerCuSparse.hpp.
#ifndef KOKKOSSPGEMM_PEERROCSPARSE_HPP
#define KOKKOSSPGEMM_PEERROCSPARSE_HPP

#include <hip/hip_runtime_api.h>
#include <rocsparse/rocsparse.h>

#include <PeerBuffer.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace KokkosSpGEMMPerf {

inline void rocsparse_check(rocsparse_status s, const char* what) {
  if (s != rocsparse_status_success)
    throw std::runtime_error(std::string(what) + ": rocsparse status " + std::to_string(s));
}
inline void hip_check(hipError_t s, const char* what) {
  if (s != hipSuccess) throw std::runtime_error(std::string(what) + ": " + hipGetErrorString(s));
}

struct HipBufferApi {
  static void allocate(void** p, std::size_t n) { hip_check(hipMalloc(p, n), "hipMalloc"); }
  static void release(void* p) { (void)hipFree(p); }
};
using HipBuffer = PeerBuffer<HipBufferApi>;

/// C = A*B for 32-bit indices and double values through rocSPARSE.
class RocSparseSpGEMM {
 public:
  RocSparseSpGEMM(int m, int k, int n, std::int64_t nnz_a, const int* a_rows, const int* a_cols, const double* a_vals,
                  std::int64_t nnz_b, const int* b_rows, const int* b_cols, const double* b_vals)
      : m_m(m), m_n(n) {
    rocsparse_check(rocsparse_create_handle(&m_handle), "create_handle");
    rocsparse_check(
        rocsparse_create_csr_descr(&m_a, m, k, nnz_a, const_cast<int*>(a_rows), const_cast<int*>(a_cols),
                                   const_cast<double*>(a_vals), rocsparse_indextype_i32, rocsparse_indextype_i32,
                                   rocsparse_index_base_zero, rocsparse_datatype_f64_r),
        "create_csr_descr(A)");
    rocsparse_check(
        rocsparse_create_csr_descr(&m_b, k, n, nnz_b, const_cast<int*>(b_rows), const_cast<int*>(b_cols),
                                   const_cast<double*>(b_vals), rocsparse_indextype_i32, rocsparse_indextype_i32,
                                   rocsparse_index_base_zero, rocsparse_datatype_f64_r),
        "create_csr_descr(B)");
  }
  ~RocSparseSpGEMM() {
    release_c();
    rocsparse_destroy_spmat_descr(m_a);
    rocsparse_destroy_spmat_descr(m_b);
    rocsparse_destroy_handle(m_handle);
  }

  /// One-shot with the default algorithm; returns the bytes of its buffer.
  std::size_t one_shot() {
    release_c();
    make_c();
    std::size_t bytes = 0;
    stage(rocsparse_spgemm_stage_buffer_size, &bytes, nullptr, "spgemm(buffer_size)");
    HipBuffer buffer(bytes);
    stage(rocsparse_spgemm_stage_nnz, &bytes, buffer.ptr, "spgemm(nnz)");
    alloc_c_arrays();
    stage(rocsparse_spgemm_stage_compute, &bytes, buffer.ptr, "spgemm(compute)");
    return bytes;
  }

  /// Symbolic pass of the reuse path (C's structure); afterwards reuse_compute() is the numeric stage alone.
  /// Returns the kept bytes (the buffer the numeric stage needs).
  std::size_t reuse_setup() {
    release_c();
    make_c();
    std::size_t bytes = 0;
    stage(rocsparse_spgemm_stage_buffer_size, &bytes, nullptr, "spgemm(buffer_size)");
    m_kept = HipBuffer(bytes);
    stage(rocsparse_spgemm_stage_nnz, &bytes, m_kept.ptr, "spgemm(nnz)");
    alloc_c_arrays();
    stage(rocsparse_spgemm_stage_symbolic, &bytes, m_kept.ptr, "spgemm(symbolic)");
    reuse_compute();
    return m_kept.bytes;
  }

  void reuse_compute() {
    std::size_t bytes = m_kept.bytes;
    stage(rocsparse_spgemm_stage_numeric, &bytes, m_kept.ptr, "spgemm(numeric)");
  }

  std::int64_t nnz() const { return m_nnz; }
  const int* c_rows() const { return static_cast<const int*>(m_c_rows.ptr); }
  const int* c_cols() const { return static_cast<const int*>(m_c_cols.ptr); }
  const double* c_vals() const { return static_cast<const double*>(m_c_vals.ptr); }

 private:
  // beta = 0: D is not read; C serves as D (allowed when both have one pattern).
  void stage(rocsparse_spgemm_stage s, std::size_t* bytes, void* buffer, const char* what) {
    const double alpha = 1.0, beta = 0.0;
    rocsparse_check(
        rocsparse_spgemm(m_handle, rocsparse_operation_none, rocsparse_operation_none, &alpha, m_a, m_b, &beta, m_c,
                         m_c, rocsparse_datatype_f64_r, rocsparse_spgemm_alg_default, s, bytes, buffer),
        what);
  }
  void make_c() {
    m_c_rows = HipBuffer(sizeof(int) * (static_cast<std::size_t>(m_m) + 1));
    rocsparse_check(
        rocsparse_create_csr_descr(&m_c, m_m, m_n, 0, m_c_rows.ptr, nullptr, nullptr, rocsparse_indextype_i32,
                                   rocsparse_indextype_i32, rocsparse_index_base_zero, rocsparse_datatype_f64_r),
        "create_csr_descr(C)");
  }
  void alloc_c_arrays() {
    std::int64_t rows, cols;
    rocsparse_check(rocsparse_spmat_get_size(m_c, &rows, &cols, &m_nnz), "spmat_get_size");
    m_c_cols = HipBuffer(sizeof(int) * static_cast<std::size_t>(m_nnz));
    m_c_vals = HipBuffer(sizeof(double) * static_cast<std::size_t>(m_nnz));
    rocsparse_check(rocsparse_csr_set_pointers(m_c, m_c_rows.ptr, m_c_cols.ptr, m_c_vals.ptr), "csr_set_pointers");
  }
  void release_c() {
    if (m_c) rocsparse_destroy_spmat_descr(m_c);
    m_c = nullptr;
    m_kept = HipBuffer();
  }

  int m_m, m_n;
  std::int64_t m_nnz = 0;
  rocsparse_handle m_handle = nullptr;
  rocsparse_spmat_descr m_a = nullptr, m_b = nullptr, m_c = nullptr;
  HipBuffer m_c_rows, m_c_cols, m_c_vals, m_kept;
};

}  // namespace KokkosSpGEMMPerf

#endif
