// Triangle counting and masked products, in one process and one run: ours (triangle_count: checks, L and the masked
// count, from the whole graph), Kokkos Kernels 4.x's triangle counting (triangle_generic, SPGEMM_KK_TRIANGLE_LL on
// the L ours uses, its handle made in the timing; with bit-set compression as its perf test runs it, and without),
// Kokkos Kernels' SpGEMM of L·L with the mask applied after (what its own kernels give where its triangle functions
// count 0, as on CUDA) and, in host-only builds, SuiteSparse:GraphBLAS as LAGraph counts (C⟨L⟩ = L·L saxpy and C⟨L⟩ =
// L·Uᵀ dot, plus-pair, then the sum). Every count is checked against the serial reference. Rates are GraphChallenge's:
// undirected edges (nnz(G) / 2) per second. Then the masked products against the unmasked one of the same operands (L·L
// over plus-pair): C⟨L⟩, C⟨¬L⟩ and the unmasked C, one-shot, each checked against the reference.
#include <KokkosSpGEMM.hpp>
#include <PerfCommon.hpp>
#include <io/KokkosSpGEMM_InputSpec.hpp>
#if KOKKOSSPGEMM_HAVE_KOKKOSKERNELS
#include <KokkosKernels_config.h>
#if defined(KOKKOSKERNELS_VERSION)
// Kokkos Kernels 4.x: 3.4's (Debian's) triangle header does not compile (its bit-set hash map lacks a member it
// sets), so 3.4 builds leave this peer out.
#include <KokkosKernels_Handle.hpp>
#include <KokkosGraph_Triangle.hpp>
#include <impl/pipeline/KokkosSpGEMM_WorkRanges.hpp>
#include <interop/KokkosSpGEMM_KokkosKernelsInterop.hpp>
#define KOKKOSSPGEMM_PERF_KK_TRIANGLES 1
#endif
#endif
#if defined(KOKKOSSPGEMM_PERF_GRAPHBLAS)
#include <PeerGraphBLAS.hpp>
#endif

#include <cstdio>
#include <fstream>
#include <functional>

namespace {

using namespace KokkosSpGEMMPerf;
using Count = std::int64_t;
using CountMatrix = KokkosSpGEMM::CsrMatrix<Count, Ordinal, Offset, Exec::memory_space>;

struct Case {
  std::string name, a;
};

std::vector<Case> suite(const std::string& dir, bool quick) {
  if (quick) return {{"tri_rmat_s10", "gen:rmat:10:16"}, {"tri_ca-CondMat", dir + "/ca-CondMat.mtx.gz"}};
  std::vector<Case> cases;
  for (const char* g : {"ca-CondMat", "p2p-Gnutella31", "PGPgiantcompo", "usroads-48", "ct2010"}) {
    cases.push_back({std::string("tri_") + g, dir + "/" + g + ".mtx.gz"});
  }
  for (int scale = 16; scale <= 20; ++scale) {
    cases.push_back({"tri_rmat_s" + std::to_string(scale), "gen:rmat:" + std::to_string(scale) + ":16"});
  }
  return cases;
}

struct Row {
  std::string case_name, impl;
  double seconds = 0;
  std::int64_t edges = 0, count = 0;
  std::string status;
};

bool print_row(const Row& r, std::ofstream& csv) {
  const double rate = r.seconds > 0 ? r.edges / r.seconds : 0;
  std::printf("%-22s %-26s %11.6f %12.2f %14lld  %s\n", r.case_name.c_str(), r.impl.c_str(), r.seconds, rate * 1e-6,
              (long long)r.count, r.status.c_str());
  csv << r.case_name << "," << r.impl << "," << r.seconds << "," << rate << "," << r.count << "," << r.status
      << std::endl;
  const bool ours = r.impl.rfind("ours", 0) == 0;
  return r.status == "ok" || (!ours && r.status.rfind("FAILED", 0) == 0);
}

/// ok, or what is wrong: ours WRONG (a failed run), a peer FAILED (reported, as a peer that fails outright).
std::string count_status(Count got, Count want, bool ours = false) {
  if (got == want) return "ok";
  return std::string(ours ? "WRONG: " : "FAILED (wrong count): ") + std::to_string(got) + " triangles, the reference " +
         std::to_string(want);
}

/// The peers' L: g with its vertices renumbered by (degree, index), then its strictly lower triangle (U = Lᵀ), rows
/// sorted. That is the L ours forms without renumbering; Kokkos Kernels' LL kernel needs a strictly lower L in
/// index order (on the L of ours, columns above the diagonal, it counted a fraction), and LAGraph presorts skewed
/// graphs by degree alike.
HostMatrix lower_of(const HostMatrix& g, bool upper) {
  const Ordinal n = g.num_rows();
  const auto degree = [&](Ordinal v) { return g.row_map()(v + 1) - g.row_map()(v); };
  std::vector<Ordinal> order(n), rank(n);
  for (Ordinal v = 0; v < n; ++v) order[v] = v;
  std::sort(order.begin(), order.end(),
            [&](Ordinal x, Ordinal y) { return degree(x) < degree(y) || (degree(x) == degree(y) && x < y); });
  for (Ordinal r = 0; r < n; ++r) rank[order[r]] = r;
  std::vector<std::vector<std::pair<Ordinal, Scalar>>> rows(n);
  for (Ordinal i = 0; i < n; ++i) {
    for (Offset e = g.row_map()(i); e < g.row_map()(i + 1); ++e) {
      const Ordinal ri = rank[i], rj = rank[g.entries()(e)];
      if (rj < ri) (upper ? rows[rj] : rows[ri]).push_back({upper ? ri : rj, 1.0});
    }
  }
  KokkosSpGEMM::Impl::CsrBuilder<Scalar, Ordinal, Offset> b("L", n, n);
  for (auto& r : rows) {
    std::sort(r.begin(), r.end());
    for (const auto& [c, v] : r) b.add(c, v);
    b.end_row();
  }
  return b.finish();
}

#if defined(KOKKOSSPGEMM_PERF_KK_TRIANGLES)
/// Kokkos Kernels' count on L: a fresh handle (SPGEMM_KK_TRIANGLE_LL, bit-set compression), triangle_generic adding
/// each row's triangles (set bits of the column sets it reports) into per_row, then their sum.
Count kk_triangles(const DeviceMatrix& dl, const Kokkos::View<Count*, Exec::memory_space>& per_row, bool compress) {
  using KH = KokkosKernels::Experimental::KokkosKernelsHandle<Offset, Ordinal, Ordinal, Exec, Exec::memory_space,
                                                              Exec::memory_space>;
  const Ordinal n = dl.num_rows();
  KH kh;
  kh.create_spgemm_handle(KokkosSparse::SPGEMM_KK_TRIANGLE_LL);
  kh.get_spgemm_handle()->set_compression(compress);
  kh.get_spgemm_handle()->set_create_lower_triangular(false);
  kh.get_spgemm_handle()->set_sort_lower_triangular(false);
  Kokkos::deep_copy(per_row, Count(0));
  const auto counts = per_row;
  KokkosGraph::Experimental::triangle_generic(
      &kh, n, dl.row_map(), dl.entries(),
      KOKKOS_LAMBDA(const Ordinal& row, const Ordinal&, const Ordinal& col_set, const Ordinal&) {
        Count bits = 1;  // without compression a visit is one triangle
        if (compress) {
          bits = 0;
          for (unsigned x = static_cast<unsigned>(col_set); x != 0; x &= x - 1) ++bits;
        }
        Kokkos::atomic_add(&counts(row), bits);
      });
  Count got = 0;
  Kokkos::parallel_reduce(
      "kk_triangles_sum", Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(const Ordinal i, Count& s) { s += counts(i); },
      got);
  kh.destroy_spgemm_handle();
  return got;
}

/// Kokkos Kernels' count through its SpGEMM (SPGEMM_KK, the kernel its triangle counting builds on): C = L·L with
/// L's values 1, then the sum of C's values at L's entries. Its triangle functions count 0 on CUDA, so on GPUs this is
/// the count a user of Kokkos Kernels gets from its own kernels. A fresh handle and C each call, as ours.
Count kk_spgemm_then_mask(const DeviceMatrix& dl) {
  using KH = KokkosKernels::Experimental::KokkosKernelsHandle<Offset, Ordinal, Scalar, Exec, Exec::memory_space,
                                                              Exec::memory_space>;
  namespace kk = KokkosSpGEMM::Interop::kk_sparse;
  const Ordinal n = dl.num_rows();
  KH kh;
  kh.create_spgemm_handle(KokkosSparse::SPGEMM_KK);
  typename DeviceMatrix::row_map_type c_rows(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kk_c_rows"), n + 1);
  kk::spgemm_symbolic(&kh, n, n, n, dl.row_map(), dl.entries(), false, dl.row_map(), dl.entries(), false, c_rows);
  const std::size_t nnz = kh.get_spgemm_handle()->get_c_nnz();
  typename DeviceMatrix::entries_type c_cols(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kk_c_cols"), nnz);
  typename DeviceMatrix::values_type c_vals(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kk_c_vals"), nnz);
  kk::spgemm_numeric(&kh, n, n, n, dl.row_map(), dl.entries(), dl.values(), false, dl.row_map(), dl.entries(),
                     dl.values(), false, c_rows, c_cols, c_vals);
  kh.destroy_spgemm_handle();
  // C's rows may be unsorted; L's are sorted, so each entry of C looks its column up in L's row.
  const auto lr = dl.row_map();
  const auto lc = dl.entries();
  Count got = 0;
  Kokkos::parallel_reduce(
      "kk_mask_sum", Kokkos::RangePolicy<Exec>(0, n),
      KOKKOS_LAMBDA(const Ordinal i, Count& s) {
        for (Offset e = c_rows(i); e < c_rows(i + 1); ++e) {
          const std::int64_t p = KokkosSpGEMM::Impl::sorted_lower_bound(lc, lr(i), lr(i + 1), c_cols(e));
          if (p < static_cast<std::int64_t>(lr(i + 1)) && lc(p) == c_cols(e)) s += static_cast<Count>(c_vals(e));
        }
      },
      got);
  return got;
}
#endif

void run_case(const Case& cs, int repeat, std::vector<Row>& rows) {
  Exec exec;
  const HostMatrix g = KokkosSpGEMM::undirected_pattern(KokkosSpGEMM::load_input<Scalar, Ordinal, Offset>(cs.a));
  const std::int64_t edges = static_cast<std::int64_t>(g.nnz()) / 2;
  const Count want = KokkosSpGEMM::reference_triangle_count(g);
  const DeviceMatrix dg = KokkosSpGEMM::copy_to(exec, g);
  {
    Count got = 0;
    const double t = time_median(repeat, [&] { got = KokkosSpGEMM::triangle_count(exec, dg); });
    rows.push_back({cs.name, "ours_triangle_count", t, edges, got, count_status(got, want, true)});
  }
  const HostMatrix l = lower_of(g, false);
  const DeviceMatrix dl = KokkosSpGEMM::copy_to(exec, l);
#if defined(KOKKOSSPGEMM_PERF_KK_TRIANGLES)
  for (bool compress : {true, false}) {
    const std::string name = compress ? "kk_triangle_LL" : "kk_triangle_LL_nocompress";
    try {
      Kokkos::View<Count*, Exec::memory_space> per_row("kk_per_row", l.num_rows());
      Count got = 0;
      const double t = time_median(repeat, [&] { got = kk_triangles(dl, per_row, compress); });
      rows.push_back({cs.name, name, t, edges, got, count_status(got, want)});
    } catch (const std::exception& e) {
      rows.push_back({cs.name, name, 0, edges, 0, std::string("FAILED: ") + e.what()});
    }
  }
  try {
    Count got = 0;
    const double t = time_median(repeat, [&] { got = kk_spgemm_then_mask(dl); });
    rows.push_back({cs.name, "kk_spgemm_LL_then_mask", t, edges, got, count_status(got, want)});
  } catch (const std::exception& e) {
    rows.push_back({cs.name, "kk_spgemm_LL_then_mask", 0, edges, 0, std::string("FAILED: ") + e.what()});
  }
#endif
#if defined(KOKKOSSPGEMM_PERF_GRAPHBLAS)
  {
    const HostMatrix u = lower_of(g, true);
    GraphBlasTriangles gb(l.num_rows(), l.row_map().data(), l.entries().data(), u.row_map().data(), u.entries().data(),
                          Kokkos::DefaultHostExecutionSpace().concurrency());
    for (bool dot : {false, true}) {
      Count got = 0;
      const double t = time_median(repeat, [&] { got = gb.count(dot); });
      rows.push_back(
          {cs.name, dot ? "graphblas_dot_LUt" : "graphblas_saxpy_LL", t, edges, got, count_status(got, want)});
    }
  }
#endif
  // Masked against unmasked products of the same operands: L·L over plus-pair.
  namespace SR = KokkosSpGEMM::Semirings;
  const auto lc = KokkosSpGEMM::copy_to(exec, [&] {
    KokkosSpGEMM::CsrMatrix<Count, Ordinal, Offset, Kokkos::HostSpace> x("Lc", l.num_rows(), l.num_cols(), l.nnz());
    Kokkos::deep_copy(x.row_map(), l.row_map());
    Kokkos::deep_copy(x.entries(), l.entries());
    Kokkos::deep_copy(x.values(), Count(1));
    return x;
  }());
  const auto lh = KokkosSpGEMM::to_host(lc);
  const auto check_product = [&](const CountMatrix& c, const KokkosSpGEMM::MaskKind kind) {
    const auto ref = KokkosSpGEMM::reference_semiring_spgemm<SR::PlusPair<Count>>(lh, lh, &lh, kind);
    const std::string diff = KokkosSpGEMM::semiring_difference(c, ref, false);
    return diff.empty() ? std::string("ok") : "WRONG: " + diff;
  };
  // The unmasked product and the two masked ones in turn (time_in_turn), for the masked / unmasked ratios the
  // issue's target compares; each ratio is also a row ("ratio_..."), its seconds column the median of the rounds'
  // ratios (a plain number, not a time).
  const KokkosSpGEMM::MaskKind kinds[3] = {KokkosSpGEMM::MaskKind::None, KokkosSpGEMM::MaskKind::Plain,
                                           KokkosSpGEMM::MaskKind::Complement};
  const char* names[3] = {"ours_LL_unmasked", "ours_LL_mask_L", "ours_LL_mask_notL"};
  const char* ratio_names[3] = {"", "ratio_mask_L_to_unmasked", "ratio_mask_notL_to_unmasked"};
  CountMatrix c[3];
  std::vector<std::function<void()>> calls;
  for (int i = 0; i < 3; ++i) {
    calls.push_back([&, i] {
      if (kinds[i] == KokkosSpGEMM::MaskKind::None) {
        c[i] = KokkosSpGEMM::spgemm(exec, lc, lc, SR::PlusPair<Count>());
      } else {
        c[i] = KokkosSpGEMM::masked_spgemm(exec, KokkosSpGEMM::Mask<CountMatrix>{lc, kinds[i]}, lc, lc,
                                           SR::PlusPair<Count>());
      }
    });
  }
  const TimedInTurn timed = time_in_turn(repeat, calls);
  std::string status[3];
  for (int i = 0; i < 3; ++i) {
    status[i] = check_product(c[i], kinds[i]);
    rows.push_back({cs.name, names[i], timed.medians[static_cast<std::size_t>(i)], edges,
                    static_cast<std::int64_t>(c[i].nnz()), status[i]});
  }
  for (int i = 1; i < 3; ++i) {
    rows.push_back({cs.name, ratio_names[i], timed.ratios[static_cast<std::size_t>(i)], 0, 0,
                    status[0] == "ok" && status[i] == "ok" ? "ok" : "FAILED (a product failed)"});
  }
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  PerfArgs args;
  if (!parse_perf_args(argc, argv, "perf_triangles.csv", args)) return 2;
  std::vector<Case> cases = cases_or_inputs(args, suite(args.matrices, args.quick));
  std::ofstream csv(args.csv);
  csv << "case,impl,seconds,edges_per_s,count_or_nnz,status" << std::endl;
  std::printf("%s, %d threads; Medges/s = undirected edges / s; count: triangles (or nnz(C) for the products)\n",
              Exec::name(), Exec().concurrency());
  std::printf("%-22s %-26s %11s %12s %14s  %s\n", "case", "impl", "seconds", "Medges/s", "count", "status");
  bool all_ok = true;
  for (const Case& c : cases) {
    if (!args.selected(c.name) || !input_available(args, c.name, c.a)) continue;
    std::vector<Row> rows;
    try {
      run_case(c, args.repeat, rows);
    } catch (const std::exception& e) {
      rows.push_back({c.name, "ours", 0, 0, 0, std::string("FAILED: ") + e.what()});
    }
    for (const Row& r : rows) all_ok = print_row(r, csv) && all_ok;
    std::fflush(stdout);
  }
  std::printf("%s\n", all_ok ? "all results validated" : "SOME RESULTS FAILED VALIDATION");
  return all_ok ? 0 : 1;
}
