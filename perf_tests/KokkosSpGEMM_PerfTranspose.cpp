// Transpose benchmark: our two transposes (SpTRANS by segmented merge, and scatter + per-row sort) against Kokkos
// Kernels' transpose_matrix (rows left unsorted, and followed by its sort_crs_matrix) and cuSPARSE's
// cusparseCsr2cscEx2 (CUDA builds), in one process. Every result is checked against a host counting-sort
// transpose before its time counts; GB/s counts the compulsory traffic (read A, write A^T).
#include <KokkosSpGEMM.hpp>
#include <PerfCommon.hpp>
#include <io/KokkosSpGEMM_InputSpec.hpp>
#if KOKKOSSPGEMM_HAVE_KOKKOSKERNELS
#include <interop/KokkosSpGEMM_KokkosKernelsInterop.hpp>
#endif

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

using namespace KokkosSpGEMMPerf;

struct Case {
  std::string name, a;
};

std::vector<Case> suite(bool quick, const std::string& matrices) {
  if (quick)
    return {{"p2d5_60", "gen:p2d5:60"}, {"rmat_s10_e8", "gen:rmat:10:8"}, {"bcsstk13", matrices + "/bcsstk13.mtx.gz"}};
  std::vector<Case> s = {{"p3d27_100", "gen:p3d27:100"},
                         {"p3d7_160", "gen:p3d7:160"},
                         {"p2d5_2000", "gen:p2d5:2000"},
                         {"rmat_s16_e16", "gen:rmat:16:16"},
                         {"rmat_s18_e8", "gen:rmat:18:8"},
                         {"uniform_1M_32", "gen:uniform:1000000:1000000:32"},
                         {"prolong_p3d7_160", "gen:prolong:160:2:smoothed"}};
  for (const char* m : {"ca-CondMat", "p2p-Gnutella31", "cage11", "ct2010", "usroads-48", "PGPgiantcompo", "bcsstk13",
                        "sinc18", "rajat01", "lp_e226"}) {
    s.push_back({m, matrices + "/" + m + ".mtx.gz"});
  }
  return s;
}

/// Host counting-sort transpose (stable: rows of A^T come out sorted).
HostMatrix host_transpose(const HostMatrix& a) {
  HostMatrix t("t", a.num_cols(), a.num_rows(), a.nnz());
  std::vector<Offset> pos(static_cast<std::size_t>(a.num_cols()) + 1, 0);
  for (std::size_t e = 0; e < a.nnz(); ++e) ++pos[a.entries()(e) + 1];
  for (Ordinal j = 0; j < a.num_cols(); ++j) pos[j + 1] += pos[j];
  for (Ordinal j = 0; j <= a.num_cols(); ++j) t.row_map()(j) = pos[j];
  for (Ordinal i = 0; i < a.num_rows(); ++i) {
    for (Offset e = a.row_map()(i); e < a.row_map()(i + 1); ++e) {
      const Offset p = pos[a.entries()(e)]++;
      t.entries()(p) = i;
      t.values()(p) = a.values()(e);
    }
  }
  return t;
}

/// "ok" when t equals the expected transpose (sorted rows: exact; unsorted: after sorting a copy of each row).
std::string check_transpose(const HostMatrix& want, const DeviceMatrix& got, bool sorted) {
  HostMatrix t = KokkosSpGEMM::to_host(got);
  if (t.nnz() != want.nnz() || t.num_rows() != want.num_rows()) return "WRONG: shape or nnz";
  for (Ordinal i = 0; i <= want.num_rows(); ++i) {
    if (t.row_map()(i) != want.row_map()(i)) return "WRONG: row map at " + std::to_string(i);
  }
  if (!sorted) {
    for (Ordinal i = 0; i < t.num_rows(); ++i) {
      KokkosSpGEMM::Impl::sort_row_sequential(t.entries().data() + t.row_map()(i), t.values().data() + t.row_map()(i),
                                              t.row_map()(i + 1) - t.row_map()(i));
    }
  }
  for (std::size_t e = 0; e < want.nnz(); ++e) {
    if (t.entries()(e) != want.entries()(e) || t.values()(e) != want.values()(e)) {
      return "WRONG: entry " + std::to_string(e);
    }
  }
  return "ok";
}

struct Row {
  std::string case_name, impl;
  double seconds;
  double bytes;
  std::string status;
};

void run_case(const Case& cs, int repeat, std::vector<Row>& rows) {
  const HostMatrix a = KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(cs.a);
  const HostMatrix want = host_transpose(a);
  Exec exec;
  const DeviceMatrix da = KokkosSpGEMM::copy_to(exec, a);
  // Read A and write A^T once each: row maps, columns, values.
  const double bytes = 2.0 * a.nnz() * (sizeof(Ordinal) + sizeof(Scalar)) +
                       (static_cast<double>(a.num_rows()) + a.num_cols() + 2) * sizeof(Offset);
  using M = KokkosSpGEMM::TransposeMethod;
  for (const auto& variant :
       {std::make_pair("ours_segmerge", M::SegmentedMerge), std::make_pair("ours_rowsort", M::RowSort)}) {
    const M method = variant.second;  // (a structured binding cannot be captured in C++17)
    DeviceMatrix t;
    const double s = time_median(repeat, [&] { t = KokkosSpGEMM::transpose(exec, da, method); });
    rows.push_back({cs.name, variant.first, s, bytes, check_transpose(want, t, true)});
  }
#if KOKKOSSPGEMM_HAVE_KOKKOSKERNELS
  {
    using RowMap = typename DeviceMatrix::row_map_type;
    using Cols = typename DeviceMatrix::entries_type;
    using Vals = typename DeviceMatrix::values_type;
    RowMap t_rows;
    Cols t_cols;
    Vals t_vals;
    auto kk_transpose = [&] {
      t_rows = RowMap("kk_t_rows", a.num_cols() + 1);
      t_cols = Cols(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kk_t_cols"), a.nnz());
      t_vals = Vals(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kk_t_vals"), a.nnz());
      KokkosSpGEMM::Interop::kk_transpose::transpose_matrix<typename RowMap::const_type, typename Cols::const_type,
                                                            typename Vals::const_type, RowMap, Cols, Vals, RowMap,
                                                            Exec>(da.num_rows(), da.num_cols(), da.row_map(),
                                                                  da.entries(), da.values(), t_rows, t_cols, t_vals);
    };
    auto wrap = [&] { return DeviceMatrix(da.num_cols(), da.num_rows(), t_rows, t_cols, t_vals); };
    double s = time_median(repeat, kk_transpose);
    rows.push_back({cs.name, "kk_transpose_unsorted", s, bytes, check_transpose(want, wrap(), false)});
    s = time_median(repeat, [&] {
      kk_transpose();
      KokkosSpGEMM::Interop::kk_sort::sort_crs_matrix<Exec>(t_rows, t_cols, t_vals);
    });
    rows.push_back({cs.name, "kk_transpose_sorted", s, bytes, check_transpose(want, wrap(), true)});
  }
#endif
#if defined(KOKKOSSPGEMM_PERF_CUSPARSE)
  {
    DeviceMatrix t("cusparse_t", da.num_cols(), da.num_rows(), da.nnz());
    cusparseHandle_t handle = nullptr;
    cusparse_check(cusparseCreate(&handle), "cusparseCreate");
    std::string status;
    double s = 0;
    try {
      const double secs = time_median(repeat, [&] {
        std::size_t buffer_bytes = 0;
        cusparse_check(cusparseCsr2cscEx2_bufferSize(
                           handle, da.num_rows(), da.num_cols(), da.nnz(), da.values().data(), da.row_map().data(),
                           da.entries().data(), t.values().data(), t.row_map().data(), t.entries().data(), CUDA_R_64F,
                           CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &buffer_bytes),
                       "cusparseCsr2cscEx2_bufferSize");
        DeviceBuffer buffer(buffer_bytes);
        cusparse_check(cusparseCsr2cscEx2(handle, da.num_rows(), da.num_cols(), da.nnz(), da.values().data(),
                                          da.row_map().data(), da.entries().data(), t.values().data(),
                                          t.row_map().data(), t.entries().data(), CUDA_R_64F, CUSPARSE_ACTION_NUMERIC,
                                          CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, buffer.ptr),
                       "cusparseCsr2cscEx2");
        cuda_check(cudaDeviceSynchronize(), "csr2csc");
      });
      s = secs;
      status = check_transpose(want, t, true);
    } catch (const std::exception& e) {
      status = std::string("FAILED: ") + e.what();
    }
    cusparseDestroy(handle);
    rows.push_back({cs.name, "cusparse_csr2csc", s, bytes, status});
  }
#endif
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  PerfArgs args;
  if (!parse_perf_args(argc, argv, "perf_transpose.csv", args)) return 2;
  std::ofstream csv(args.csv);
  csv << "case,impl,seconds,gb_per_s,status" << std::endl;
  std::printf("%-22s %-24s %12s %10s  %s\n", "case", "impl", "seconds", "GB/s", "status");
  bool all_ok = true;
  for (const Case& c : cases_or_inputs(args, suite(args.quick, args.matrices))) {
    if (!args.selected(c.name) || !input_available(args, c.name, c.a)) continue;
    std::vector<Row> rows;
    try {
      run_case(c, args.repeat, rows);
    } catch (const std::exception& e) {
      rows.push_back({c.name, "ours", 0, 0, std::string("FAILED: ") + e.what()});
    }
    for (const Row& r : rows) {
      const double gbs = r.seconds > 0 ? r.bytes / r.seconds * 1e-9 : 0;
      std::printf("%-22s %-24s %12.6f %10.2f  %s\n", r.case_name.c_str(), r.impl.c_str(), r.seconds, gbs,
                  r.status.c_str());
      csv << r.case_name << "," << r.impl << "," << r.seconds << "," << gbs << "," << r.status << std::endl;
      const bool peer_failed = r.impl.rfind("ours", 0) != 0 && r.status.rfind("FAILED", 0) == 0;
      all_ok = all_ok && (r.status == "ok" || peer_failed);
    }
    std::fflush(stdout);
  }
  std::printf("%s\n", all_ok ? "all results validated" : "SOME RESULTS FAILED VALIDATION");
  return all_ok ? 0 : 1;
}
