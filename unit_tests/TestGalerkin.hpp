// Galerkin triple products R*A*P: both orders and the automatic choice, R given or P^T kept in the handle, reuse
// with new values, and the errors.
#include <SpGEMMTestHelpers.hpp>
#include <impl/accumulate/KokkosSpGEMM_TripleRowKernel.hpp>

namespace KokkosSpGEMMTest {

using KokkosSpGEMM::TripleOrder;

/// Checks Ac against the reference computed in the order the handle used. The reference takes its intermediate
/// as exact while ours carries that product's own rounding (summed in another order on GPUs), hence the factor.
template <class M, class H>
void expect_galerkin_matches(const M& ac, const H& h, const HostCsr<double>& r, const HostCsr<double>& a,
                             const HostCsr<double>& p, const std::string& what) {
  constexpr double intermediate_rounding = 64;
  const auto cmp =
      h.order() == TripleOrder::LeftFirst
          ? KokkosSpGEMM::compare_to_reference(ac, KokkosSpGEMM::reference_spgemm(r, a), p, true, intermediate_rounding)
          : KokkosSpGEMM::compare_to_reference(ac, r, KokkosSpGEMM::reference_spgemm(a, p), true,
                                               intermediate_rounding);
  EXPECT_TRUE(cmp.ok) << what << " (order " << KokkosSpGEMM::triple_order_name(h.order()) << "): " << cmp.message;
}

/// Triples (R, A, P) on the host: aggregation AMG (R = P^T) and random rectangular shapes with empty and long rows.
inline std::vector<std::array<HostCsr<double>, 3>> galerkin_cases() {
  std::vector<std::array<HostCsr<double>, 3>> cases;
  for (bool smoothed : {false, true}) {
    const auto a = KokkosSpGEMM::poisson_3d_7pt<double>(9);
    const auto p = KokkosSpGEMM::aggregation_prolongator<double>(9, 2, smoothed);
    cases.push_back({transpose_host(p), a, p});
  }
  KokkosSpGEMM::RandomCsrOptions<int> ro, ao, po;
  ro.rows = 40, ro.cols = 300, ro.mean_per_row = 5, ro.empty_row_fraction = 0.2;
  ao.rows = 300, ao.cols = 300, ao.mean_per_row = 6, ao.power_law = true, ao.empty_row_fraction = 0.1;
  po.rows = 300, po.cols = 70, po.mean_per_row = 3, po.long_row_length = 70, po.empty_row_fraction = 0.1;
  cases.push_back({KokkosSpGEMM::random_csr<double>(ro, 1), KokkosSpGEMM::random_csr<double>(ao, 2),
                   KokkosSpGEMM::random_csr<double>(po, 3)});
  // Empty operands: 0 coarse rows, and A without entries.
  KokkosSpGEMM::RandomCsrOptions<int> z;
  z.rows = 0, z.cols = 300;
  cases.push_back({KokkosSpGEMM::random_csr<double>(z, 4), KokkosSpGEMM::random_csr<double>(ao, 2),
                   KokkosSpGEMM::random_csr<double>(po, 3)});
  z.rows = 300, z.mean_per_row = 0;
  cases.push_back({KokkosSpGEMM::random_csr<double>(ro, 1), KokkosSpGEMM::random_csr<double>(z, 5),
                   KokkosSpGEMM::random_csr<double>(po, 3)});
  return cases;
}

TEST(TEST_CATEGORY, galerkin_every_order_matches_reference_and_reuses) {
  using Exec = TEST_EXECSPACE;
  using M = KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space>;
  Exec exec;
  int index = 0;
  for (const auto& [r, a, p] : galerkin_cases()) {
    for (TripleOrder order : {TripleOrder::Auto, TripleOrder::LeftFirst, TripleOrder::RightFirst}) {
      const std::string what = "case " + std::to_string(index) + " asked " + KokkosSpGEMM::triple_order_name(order);
      KokkosSpGEMM::GalerkinOptions o;
      o.triple_order = order;
      KokkosSpGEMM::GalerkinHandle<Exec, double> h({}, o);
      M ac;
      const auto dr = KokkosSpGEMM::copy_to(exec, r);
      const auto da = KokkosSpGEMM::copy_to(exec, a);
      const auto dp = KokkosSpGEMM::copy_to(exec, p);
      KokkosSpGEMM::galerkin_product(exec, h, dr, da, dp, ac);
      if (order != TripleOrder::Auto) EXPECT_EQ(h.order(), order) << what;
      EXPECT_EQ(static_cast<std::int64_t>(ac.nnz()), h.nnz()) << what;
      expect_galerkin_matches(ac, h, r, a, p, what);
      // New values of all three, same structures: symbolic work is not repeated and Ac follows them.
      const auto r2 = with_new_values(r, 0.5, 1.0);
      const auto a2 = with_new_values(a, -2.0, 0.5);
      const auto p2 = with_new_values(p, 1.5, -1.0);
      KokkosSpGEMM::galerkin_product(exec, h, KokkosSpGEMM::copy_to(exec, r2), KokkosSpGEMM::copy_to(exec, a2),
                                     KokkosSpGEMM::copy_to(exec, p2), ac);
      expect_galerkin_matches(ac, h, r2, a2, p2, what + ", new values");
    }
    ++index;
  }
}

// The one-pass triple product of host spaces (the Tpetra adapter's P^T*A*P), written into regions of the rows'
// bounds or counted first: structure, sorted rows and values against R*(A*P), new values in place, and a changed
// structure of A reported instead of wrong values. Case 0's tentative P (one entry a row) takes the kernel's unit-P
// loop, the random P's (empty and long rows) the general one.
TEST(TEST_CATEGORY, galerkin_triple_rows_kernel_matches_reference) {
  using Exec = TEST_EXECSPACE;
  if (KokkosSpGEMM::BackendTraits<Exec>::is_gpu) GTEST_SKIP() << "a host kernel (a dense accumulator per thread)";
  using M = KokkosSpGEMM::CsrMatrix<double, int, std::size_t, Exec::memory_space>;
  using KokkosSpGEMM::Impl::TripleRoute;
  Exec exec;
  constexpr double intermediate_rounding = 64;
  const auto cases = galerkin_cases();
  for (std::size_t c = 0; c < 2 * cases.size(); ++c) {
    const int index = static_cast<int>(c % cases.size());
    const TripleRoute route = c < cases.size() ? TripleRoute::OnePass : TripleRoute::Counted;
    const auto& [r, a, tentative] = cases[static_cast<std::size_t>(index)];
    const auto p = with_new_values(tentative, 1.0, 0.25);  // values that differ from entry to entry
    const std::string what =
        "case " + std::to_string(index) + (route == TripleRoute::OnePass ? " in one pass" : " counted first");
    const auto dr = KokkosSpGEMM::copy_to(exec, r);
    const auto dp = KokkosSpGEMM::copy_to(exec, p);
    M ac;
    KokkosSpGEMM::Impl::triple_rows_product(exec, dr, KokkosSpGEMM::copy_to(exec, a), dp, ac, route);
    auto cmp =
        KokkosSpGEMM::compare_to_reference(ac, r, KokkosSpGEMM::reference_spgemm(a, p), true, intermediate_rounding);
    EXPECT_TRUE(cmp.ok) << what << ": " << cmp.message;
    const auto a2 = with_new_values(a, -2.0, 0.5);
    EXPECT_TRUE(KokkosSpGEMM::Impl::triple_rows_refresh(exec, dr, KokkosSpGEMM::copy_to(exec, a2), dp, ac)) << what;
    cmp = KokkosSpGEMM::compare_to_reference(ac, r, KokkosSpGEMM::reference_spgemm(a2, p), true, intermediate_rounding);
    EXPECT_TRUE(cmp.ok) << what << ", new values: " << cmp.message;
    // A's entries moved to other columns (same sizes): some column of Ac is no longer reached, or one is new.
    if (a.nnz() > 0 && ac.nnz() > 0) {
      auto moved = KokkosSpGEMM::copy_to(Kokkos::DefaultHostExecutionSpace(), a2);
      bool changed = false;
      for (std::size_t e = 0; e < moved.nnz() && e < 20 && !changed; ++e) {
        const int column = moved.entries()(e);
        moved.entries()(e) = (column + moved.num_cols() / 2) % moved.num_cols();
        changed = KokkosSpGEMM::reference_spgemm(r, KokkosSpGEMM::reference_spgemm(moved, p)).nnz() != ac.nnz();
        if (!changed) moved.entries()(e) = column;
      }
      EXPECT_TRUE(changed || index >= 2) << what << ": no move of an entry of A changed Ac's structure";
      if (changed) {
        EXPECT_FALSE(KokkosSpGEMM::Impl::triple_rows_refresh(exec, dr, KokkosSpGEMM::copy_to(exec, moved), dp, ac))
            << what << ": a changed structure of A";
      }
    }
  }
}

TEST(TEST_CATEGORY, galerkin_with_p_transposed_in_the_handle) {
  using Exec = TEST_EXECSPACE;
  using M = KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space>;
  Exec exec;
  for (bool smoothed : {false, true}) {
    const auto a = KokkosSpGEMM::poisson_3d_7pt<double>(10);
    const auto p = KokkosSpGEMM::aggregation_prolongator<double>(10, 3, smoothed);
    const auto da = KokkosSpGEMM::copy_to(exec, a);
    const auto dp = KokkosSpGEMM::copy_to(exec, p);
    KokkosSpGEMM::GalerkinHandle<Exec, double> h;
    M ac;
    KokkosSpGEMM::galerkin_symbolic(exec, h, da, dp, ac);
    EXPECT_TRUE(h.r_is_p_transposed());
    KokkosSpGEMM::galerkin_numeric(exec, h, da, dp, ac);
    expect_galerkin_matches(ac, h, transpose_host(p), a, p, smoothed ? "smoothed" : "tentative");
    // New values of P must reach the kept P^T.
    const auto p2 = with_new_values(p, 3.0, 0.25);
    const auto a2 = with_new_values(a, 1.0, 1.0);
    KokkosSpGEMM::galerkin_numeric(exec, h, KokkosSpGEMM::copy_to(exec, a2), KokkosSpGEMM::copy_to(exec, p2), ac);
    expect_galerkin_matches(ac, h, transpose_host(p2), a2, p2, "new values of P");
    // The one-shot forms agree.
    const auto ac1 = KokkosSpGEMM::galerkin_product_pt(exec, da, dp);
    expect_galerkin_matches(ac1, h, transpose_host(p), a, p, "one-shot P^T A P");
    const auto ac2 =
        KokkosSpGEMM::galerkin_product<std::int64_t>(exec, KokkosSpGEMM::copy_to(exec, transpose_host(p)), da, dp);
    static_assert(std::is_same<typename decltype(ac2)::offset_type, std::int64_t>::value, "");
    EXPECT_TRUE(KokkosSpGEMM::compare_to_reference(ac2, KokkosSpGEMM::reference_spgemm(transpose_host(p), a), p).ok);
    EXPECT_GT(h.kept_bytes(), 0u);
    EXPECT_NE(h.describe().find("R = P^T"), std::string::npos) << h.describe();
  }
}

/// The input checks each multiplication of a Galerkin reuse call runs (Kokkos Tools callbacks: kernels named
/// KokkosSpGEMM::InputChecks::* within each spgemm_numeric region, in call order).
struct GalerkinCheckLaunches {
  static std::vector<int>& per_product() {
    static std::vector<int> counts;
    return counts;
  }
  static void push(const char* name) {
    if (std::string(name) == "KokkosSpGEMM::spgemm_numeric") per_product().push_back(0);
  }
  static void begin(const char* name, std::uint32_t, std::uint64_t*) {
    if (!per_product().empty() && std::string(name).rfind("KokkosSpGEMM::InputChecks::", 0) == 0) {
      ++per_product().back();
    }
  }
  template <class F>
  static std::vector<int> during(const F& f) {
    per_product().clear();
    Kokkos::Tools::Experimental::set_push_region_callback(&push);
    Kokkos::Tools::Experimental::set_begin_parallel_for_callback(&begin);
    Kokkos::Tools::Experimental::set_begin_parallel_reduce_callback(&begin);
    f();
    Kokkos::Tools::Experimental::set_push_region_callback(nullptr);
    Kokkos::Tools::Experimental::set_begin_parallel_for_callback(nullptr);
    Kokkos::Tools::Experimental::set_begin_parallel_reduce_callback(nullptr);
    return per_product();
  }
};

// A reuse call checks the caller's operands, not the handle's own: with P^T and the intermediate both the handle's
// (P^T*A*P, A*P first) the second multiplication runs no input check; with the caller's R, or with the caller's P
// multiplied second (R*A first), it checks them.
TEST(TEST_CATEGORY, galerkin_checks_only_the_callers_operands) {
  using Exec = TEST_EXECSPACE;
  using M = KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space>;
  Exec exec;
  const auto a = KokkosSpGEMM::poisson_3d_7pt<double>(10);
  const auto p = KokkosSpGEMM::aggregation_prolongator<double>(10, 2, true);
  const auto r = transpose_host(p);
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  const auto dp = KokkosSpGEMM::copy_to(exec, p);
  const auto dr = KokkosSpGEMM::copy_to(exec, r);
  for (TripleOrder order : {TripleOrder::RightFirst, TripleOrder::LeftFirst}) {
    for (bool own_r : {true, false}) {
      const std::string what =
          std::string(KokkosSpGEMM::triple_order_name(order)) + (own_r ? ", P^T in the handle" : ", the caller's R");
      KokkosSpGEMM::GalerkinOptions o;
      o.triple_order = order;
      KokkosSpGEMM::GalerkinHandle<Exec, double> h({}, o);
      M ac;
      if (own_r) {
        KokkosSpGEMM::galerkin_product(exec, h, da, dp, ac);
        KokkosSpGEMM::galerkin_numeric(exec, h, da, dp, ac);  // makes the position maps
      } else {
        KokkosSpGEMM::galerkin_product(exec, h, dr, da, dp, ac);
        KokkosSpGEMM::galerkin_numeric(exec, h, dr, da, dp, ac);
      }
      const auto a2 = with_new_values(a, 2.0, 1.0);
      const auto p2 = with_new_values(p, 0.5, 0.25);
      const auto da2 = KokkosSpGEMM::copy_to(exec, a2);
      const auto dp2 = KokkosSpGEMM::copy_to(exec, p2);
      const auto dr2 = KokkosSpGEMM::copy_to(exec, transpose_host(p2));
      const std::vector<int> checks = GalerkinCheckLaunches::during([&] {
        if (own_r) {
          KokkosSpGEMM::galerkin_numeric(exec, h, da2, dp2, ac);
        } else {
          KokkosSpGEMM::galerkin_numeric(exec, h, dr2, da2, dp2, ac);
        }
        exec.fence();
      });
      KokkosSpGEMM::verify(h);
      expect_galerkin_matches(ac, h, transpose_host(p2), a2, p2, what);
      ASSERT_EQ(checks.size(), 2u) << what;
      EXPECT_GT(checks[0], 0) << what;
      if (own_r && order == TripleOrder::RightFirst) {
        EXPECT_EQ(checks[1], 0) << what;
      } else {
        EXPECT_GT(checks[1], 0) << what;
      }
    }
  }
}

// Smoothed aggregation in the handle (GalerkinOptions::smoothing_omega): P = (I - w D^-1 A) P_tent from the
// Jacobi-fused product, Ac = P^T*A*P, both refreshed from new values of A and P_tent; an explicit R is refused.
TEST(TEST_CATEGORY, galerkin_smooths_the_tentative_prolongator_in_the_handle) {
  using Exec = TEST_EXECSPACE;
  using M = KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space>;
  Exec exec;
  const double omega = 2.0 / 3.0;
  KokkosSpGEMM::GalerkinOptions o;
  o.smoothing_omega = omega;
  const std::vector<std::pair<HostCsr<double>, HostCsr<double>>> cases = {
      {KokkosSpGEMM::poisson_3d_7pt<double>(10), KokkosSpGEMM::aggregation_prolongator<double>(10, 2, false)},
      {KokkosSpGEMM::poisson_3d_27pt<double>(7), KokkosSpGEMM::aggregation_prolongator<double>(7, 3, false)}};
  for (const auto& [a, p_tent] : cases) {
    const auto check = [&](const KokkosSpGEMM::GalerkinHandle<Exec, double>& h, const M& ac, const HostCsr<double>& ah,
                           const HostCsr<double>& ph, const std::string& what) {
      std::vector<double> dinv(ah.num_rows());
      for (int i = 0; i < ah.num_rows(); ++i) {
        double d = 0;
        for (int e = ah.row_map()(i); e < ah.row_map()(i + 1); ++e) d += ah.entries()(e) == i ? ah.values()(e) : 0.0;
        dinv[i] = 1.0 / d;
      }
      const auto p_ref = KokkosSpGEMM::reference_jacobi_with_bounds(omega, dinv, ah, ph);
      const auto cmp = KokkosSpGEMM::compare_to_reference(h.prolongator(), p_ref);
      EXPECT_TRUE(cmp.ok) << what << ", P: " << cmp.message;
      expect_galerkin_matches(ac, h, transpose_host(p_ref.c), ah, p_ref.c, what);
    };
    KokkosSpGEMM::GalerkinHandle<Exec, double> h({}, o);
    M ac;
    KokkosSpGEMM::galerkin_product(exec, h, KokkosSpGEMM::copy_to(exec, a), KokkosSpGEMM::copy_to(exec, p_tent), ac);
    check(h, ac, a, p_tent, "setup");
    EXPECT_NE(h.describe().find("formed in the handle"), std::string::npos) << h.describe();
    // New values: the off-diagonal couplings change relative to the diagonal, so P changes too.
    const auto a2 = with_new_values(a, 1.0, 0.5);
    const auto p2 = with_new_values(p_tent, 2.0, 0.0);
    KokkosSpGEMM::galerkin_numeric(exec, h, KokkosSpGEMM::copy_to(exec, a2), KokkosSpGEMM::copy_to(exec, p2), ac);
    check(h, ac, a2, p2, "new values");
    EXPECT_THROW(
        KokkosSpGEMM::galerkin_product(exec, h, KokkosSpGEMM::copy_to(exec, transpose_host(p_tent)),
                                       KokkosSpGEMM::copy_to(exec, a), KokkosSpGEMM::copy_to(exec, p_tent), ac),
        KokkosSpGEMM::HandleMismatch);
    KokkosSpGEMM::GalerkinHandle<Exec, double> fresh({}, o);
    EXPECT_THROW(
        KokkosSpGEMM::galerkin_product(exec, fresh, KokkosSpGEMM::copy_to(exec, transpose_host(p_tent)),
                                       KokkosSpGEMM::copy_to(exec, a), KokkosSpGEMM::copy_to(exec, p_tent), ac),
        KokkosSpGEMM::InvalidInput);
  }
}

TEST(TEST_CATEGORY, galerkin_auto_order_picks_fewer_products) {
  using Exec = TEST_EXECSPACE;
  using M = KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space>;
  Exec exec;
  KokkosSpGEMM::RandomCsrOptions<int> square;
  square.rows = square.cols = 400;
  square.mean_per_row = 10;
  // R with one short row: (R*A)*P touches a few rows of P, R*(A*P) forms all of A*P first.
  KokkosSpGEMM::RandomCsrOptions<int> one_row = square;
  one_row.rows = 1;
  one_row.mean_per_row = 3;
  // P with one column: A*P has at most one entry a row, R*A has R's rows times A's.
  KokkosSpGEMM::RandomCsrOptions<int> one_col = square;
  one_col.cols = 1;
  one_col.mean_per_row = 1;
  struct Case {
    HostCsr<double> r, a, p;
    TripleOrder expected;
  };
  const std::vector<Case> cases = {
      {KokkosSpGEMM::random_csr<double>(one_row, 1), KokkosSpGEMM::random_csr<double>(square, 2),
       KokkosSpGEMM::random_csr<double>(square, 3), TripleOrder::LeftFirst},
      {KokkosSpGEMM::random_csr<double>(square, 4), KokkosSpGEMM::random_csr<double>(square, 5),
       KokkosSpGEMM::random_csr<double>(one_col, 6), TripleOrder::RightFirst}};
  for (const auto& c : cases) {
    KokkosSpGEMM::GalerkinHandle<Exec, double> h;
    M ac;
    KokkosSpGEMM::galerkin_product(exec, h, KokkosSpGEMM::copy_to(exec, c.r), KokkosSpGEMM::copy_to(exec, c.a),
                                   KokkosSpGEMM::copy_to(exec, c.p), ac);
    EXPECT_EQ(h.order(), c.expected) << h.describe();
    EXPECT_GE(h.estimated_products_left_first(), 0);
    EXPECT_GE(h.estimated_products_right_first(), 0);
    expect_galerkin_matches(ac, h, c.r, c.a, c.p, "auto order");
  }
}

TEST(TEST_CATEGORY, galerkin_errors) {
  using Exec = TEST_EXECSPACE;
  using M = KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space>;
  Exec exec;
  const auto a = KokkosSpGEMM::copy_to(exec, KokkosSpGEMM::poisson_2d_5pt<double>(6));
  const auto p = KokkosSpGEMM::copy_to(exec, KokkosSpGEMM::uniform_random<double>(36, 9, 2, 1));
  const auto r = KokkosSpGEMM::transpose(exec, p);
  const auto p_wrong = KokkosSpGEMM::copy_to(exec, KokkosSpGEMM::uniform_random<double>(35, 9, 2, 1));
  KokkosSpGEMM::GalerkinHandle<Exec, double> h;
  M ac;
  EXPECT_THROW(KokkosSpGEMM::galerkin_symbolic(exec, h, r, a, p_wrong, ac), KokkosSpGEMM::DimensionMismatch);
  EXPECT_THROW(KokkosSpGEMM::galerkin_symbolic(exec, h, a, p_wrong, ac), KokkosSpGEMM::DimensionMismatch);
  EXPECT_THROW(KokkosSpGEMM::galerkin_numeric(exec, h, r, a, p, ac), KokkosSpGEMM::HandleMismatch);
  KokkosSpGEMM::galerkin_symbolic(exec, h, r, a, p, ac);
  // The analysis had an explicit R: the P^T overload is refused, and so is another structure.
  EXPECT_THROW(KokkosSpGEMM::galerkin_numeric(exec, h, a, p, ac), KokkosSpGEMM::HandleMismatch);
  const auto a_other = KokkosSpGEMM::copy_to(exec, KokkosSpGEMM::poisson_2d_9pt<double>(6));
  EXPECT_THROW(KokkosSpGEMM::galerkin_numeric(exec, h, r, a_other, p, ac), KokkosSpGEMM::HandleMismatch);
  // A broken operand is named.
  auto bad = KokkosSpGEMM::to_host(p);
  bad.entries()(3) = 9;  // one past P's columns
  try {
    KokkosSpGEMM::galerkin_symbolic(exec, h, r, a, KokkosSpGEMM::copy_to(exec, bad), ac);
    ADD_FAILURE() << "no exception";
  } catch (const KokkosSpGEMM::InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("P has column index 9"), std::string::npos) << e.what();
  }
  // The handle works again after the errors.
  KokkosSpGEMM::galerkin_symbolic(exec, h, r, a, p, ac);
  KokkosSpGEMM::galerkin_numeric(exec, h, r, a, p, ac);
  expect_galerkin_matches(ac, h, KokkosSpGEMM::to_host(r), KokkosSpGEMM::to_host(a), KokkosSpGEMM::to_host(p),
                          "after errors");
}

}  // namespace KokkosSpGEMMTest
