// Bad input gets a typed error naming the function, the matrix and the offending row.
#include <SpGEMMTestHelpers.hpp>

namespace KokkosSpGEMMTest {

template <class Exception, class F>
std::string expect_throws(F&& f) {
  try {
    f();
  } catch (const Exception& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
    return "";
  }
  ADD_FAILURE() << "no exception";
  return "";
}

TEST(TEST_CATEGORY, error_dimension_mismatch) {
  TEST_EXECSPACE exec;
  const auto a = KokkosSpGEMM::copy_to(exec, KokkosSpGEMM::uniform_random<double, int, int>(5, 4, 2, 1));
  const std::string msg = expect_throws<KokkosSpGEMM::DimensionMismatch>([&] { KokkosSpGEMM::spgemm(exec, a, a); });
  EXPECT_NE(msg.find("spgemm_symbolic"), std::string::npos) << msg;
  EXPECT_NE(msg.find("5 x 4"), std::string::npos) << msg;
}

TEST(TEST_CATEGORY, error_malformed_row_map_and_columns) {
  TEST_EXECSPACE exec;
  const auto good = csr_from_rows<double>(3, 3, {{{0, 1.0}}, {{1, 1.0}, {2, 1.0}}, {{2, 1.0}}});
  auto broken = [&](auto edit) {
    auto m = KokkosSpGEMM::copy_to(Kokkos::DefaultHostExecutionSpace(), good);
    edit(m);
    return KokkosSpGEMM::copy_to(exec, m);
  };
  const auto dg = KokkosSpGEMM::copy_to(exec, good);
  std::string msg;
  msg = expect_throws<KokkosSpGEMM::InvalidInput>([&] {
    KokkosSpGEMM::spgemm(exec, broken([](auto& m) { m.row_map()(2) = 0; }), dg);  // decreasing at row 1
  });
  EXPECT_NE(msg.find("row 1"), std::string::npos) << msg;
  msg = expect_throws<KokkosSpGEMM::InvalidInput>([&] {
    KokkosSpGEMM::spgemm(exec, dg, broken([](auto& m) { m.row_map()(0) = 1; }));  // not starting at 0
  });
  EXPECT_NE(msg.find("B's row map starts at 1"), std::string::npos) << msg;
  msg = expect_throws<KokkosSpGEMM::InvalidInput>([&] {
    KokkosSpGEMM::spgemm(exec, broken([](auto& m) { m.row_map()(3) = 3; }), dg);  // last != nnz
  });
  EXPECT_NE(msg.find("ends at 3"), std::string::npos) << msg;
  msg = expect_throws<KokkosSpGEMM::InvalidInput>([&] {
    KokkosSpGEMM::spgemm(exec, broken([](auto& m) { m.entries()(2) = 3; }), dg);  // column == num_cols
  });
  EXPECT_NE(msg.find("column index 3 in row 1"), std::string::npos) << msg;
  msg = expect_throws<KokkosSpGEMM::InvalidInput>([&] {
    KokkosSpGEMM::spgemm(exec, dg, broken([](auto& m) { m.entries()(0) = -2; }));  // negative column
  });
  EXPECT_NE(msg.find("column index -2 in row 0"), std::string::npos) << msg;
}

// A numeric call that replays C from the position map checks A and B on the device beside the replay (no copy
// back of its own): a bad column or row map there must still throw, name the problem, leave nothing half-done,
// and the handle must serve valid operands afterwards.
TEST(TEST_CATEGORY, error_malformed_operands_on_position_map_replay) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  const auto a = KokkosSpGEMM::rmat<double, int, int>(9, 8, 4);
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  auto broken = [&](auto edit) {
    auto m = KokkosSpGEMM::copy_to(Kokkos::DefaultHostExecutionSpace(), a);
    edit(m);
    return KokkosSpGEMM::copy_to(exec, m);
  };
  const int n = a.num_rows();
  const auto bad_column = broken([&](auto& m) { m.entries()(m.entries().extent(0) / 2) = n + 5; });
  const auto bad_row_map = broken([&](auto& m) { m.row_map()(n / 2) = m.row_map()(n / 2 + 1) + 1; });
  for (const auto shape : {KokkosSpGEMM::ReplayShape::Auto, KokkosSpGEMM::ReplayShape::Tiles,
                           KokkosSpGEMM::ReplayShape::Rows, KokkosSpGEMM::ReplayShape::RowsInScratch}) {
    TestOptions o;
    o.reuse_replay = shape;
    KokkosSpGEMM::Handle<Exec, double> handle(o);
    KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> c;
    KokkosSpGEMM::spgemm_symbolic(exec, handle, da, da, c);
    for (int call = 0; call < 3; ++call) KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c);  // map made
    EXPECT_NE(handle.describe().find("replayed from it"), std::string::npos) << handle.describe();
    std::string msg = expect_throws<KokkosSpGEMM::InvalidInput>(
        [&] { KokkosSpGEMM::spgemm_numeric(exec, handle, bad_column, da, c); });
    EXPECT_NE(msg.find("spgemm_numeric"), std::string::npos) << msg;
    EXPECT_NE(msg.find("column index " + std::to_string(n + 5)), std::string::npos) << msg;
    msg = expect_throws<KokkosSpGEMM::InvalidInput>(
        [&] { KokkosSpGEMM::spgemm_numeric(exec, handle, da, bad_row_map, c); });
    EXPECT_NE(msg.find("B's row map is not monotone"), std::string::npos) << msg;
    EXPECT_NE(msg.find("at row " + std::to_string(n / 2) + " "), std::string::npos) << msg;
    // Valid operands again: C is right (twice, so that a map made anew is replayed too).
    for (int call = 0; call < 2; ++call) {
      KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c);
      const auto cmp = KokkosSpGEMM::compare_to_reference(c, a, a);
      EXPECT_TRUE(cmp.ok) << cmp.message;
    }
  }
}

TEST(TEST_CATEGORY, error_research_method_on_a_plain_handle) {
  // Research methods compile only for a MethodsHandle: a plain handle and spgemm name the header instead.
  using Exec = TEST_EXECSPACE;
  Exec exec;
  const auto a = KokkosSpGEMM::copy_to(exec, KokkosSpGEMM::poisson_2d_5pt<double, int, int>(4));
  for (const auto algorithm : KokkosSpGEMM::all_algorithms()) {
    if (!KokkosSpGEMM::is_research_method(algorithm)) continue;
    KokkosSpGEMM::Options o;
    o.algorithm = algorithm;
    KokkosSpGEMM::Handle<Exec, double> handle(o);
    KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> c;
    std::string msg =
        expect_throws<KokkosSpGEMM::InvalidInput>([&] { KokkosSpGEMM::spgemm_symbolic(exec, handle, a, a, c); });
    EXPECT_NE(msg.find(std::string("algorithm '") + KokkosSpGEMM::algorithm_name(algorithm) + "'"), std::string::npos)
        << msg;
    EXPECT_NE(msg.find("<KokkosSpGEMM_Methods.hpp>"), std::string::npos) << msg;
    EXPECT_FALSE(handle.has_analysis());
    msg = expect_throws<KokkosSpGEMM::InvalidInput>([&] { KokkosSpGEMM::spgemm(exec, a, a, o); });
    EXPECT_NE(msg.find("MethodsHandle"), std::string::npos) << msg;
  }
}

TEST(TEST_CATEGORY, error_offset_overflow_names_the_fix) {
  // C's offsets are 16-bit here, so nnz(C) > 32767 must be refused, as nnz(C) > 2^31 - 1 is with 32-bit offsets.
  using Exec = TEST_EXECSPACE;
  Exec exec;
  const auto a = KokkosSpGEMM::copy_to(exec, KokkosSpGEMM::poisson_2d_5pt<double, int, int>(90));
  KokkosSpGEMM::Handle<Exec, double, int, short> handle;
  KokkosSpGEMM::CsrMatrix<double, int, short, Exec::memory_space> c;
  const std::string msg =
      expect_throws<KokkosSpGEMM::IndexOverflow>([&] { KokkosSpGEMM::spgemm_symbolic(exec, handle, a, a, c); });
  EXPECT_NE(msg.find("64-bit"), std::string::npos) << msg;
  // The same product with 64-bit offsets for C works.
  const auto c64 = KokkosSpGEMM::spgemm<std::int64_t>(exec, a, a);
  EXPECT_GT(c64.nnz(), 32767u);
}

TEST(TEST_CATEGORY, nan_and_inf_propagate) {
  const double inf = std::numeric_limits<double>::infinity();
  const auto a = csr_from_rows<double>(2, 2, {{{0, inf}, {1, 1.0}}, {{1, std::nan("")}}});
  TEST_EXECSPACE exec;
  const auto c =
      KokkosSpGEMM::to_host(KokkosSpGEMM::spgemm(exec, KokkosSpGEMM::copy_to(exec, a), KokkosSpGEMM::copy_to(exec, a)));
  ASSERT_EQ(c.nnz(), 3u);
  EXPECT_EQ(c.values()(0), inf);           // inf*inf
  EXPECT_TRUE(std::isnan(c.values()(1)));  // inf*1 + 1*nan
  EXPECT_TRUE(std::isnan(c.values()(2)));  // nan*nan
}

}  // namespace KokkosSpGEMMTest
