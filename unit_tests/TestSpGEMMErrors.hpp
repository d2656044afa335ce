// Bad input gets a typed error naming the function, the matrix and the offending row.
#include <SpGEMMTestHelpers.hpp>

namespace KokkosSpGEMMTest {

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
  // A times itself (B the same arrays: one pass checks both), with a bad column and with a bad row map.
  const auto bad_column = broken([](auto& m) { m.entries()(2) = 3; });
  msg = expect_throws<KokkosSpGEMM::InvalidInput>([&] { KokkosSpGEMM::spgemm(exec, bad_column, bad_column); });
  EXPECT_NE(msg.find("column index 3 in row 1"), std::string::npos) << msg;
  const auto bad_rows = broken([](auto& m) { m.row_map()(2) = 5; });
  msg = expect_throws<KokkosSpGEMM::InvalidInput>([&] { KokkosSpGEMM::spgemm(exec, bad_rows, bad_rows); });
  EXPECT_NE(msg.find("row map"), std::string::npos) << msg;
}

// The operand check's blocks of OperandItems::unrolled_items (a CUDA thread's block, its loads issued together)
// must count what the items one by one count, at every offset of a block against the parts (A's rows, A's entries,
// B's rows, B's entries) and with the faults at a block's first, middle and last item. Host views: the same code.
TEST(TEST_CATEGORY, operand_check_blocks_count_as_items_one_by_one) {
  using Items = KokkosSpGEMM::Impl::OperandItems<KokkosSpGEMM::CsrMatrix<double, int, int, Kokkos::HostSpace>,
                                                 KokkosSpGEMM::CsrMatrix<double, int, int, Kokkos::HostSpace>>;
  constexpr int block = Items::unrolled_items;
  const auto a = KokkosSpGEMM::rmat<double, int, int>(6, 4, 3);
  const auto b = KokkosSpGEMM::rmat<double, int, int>(6, 6, 5);
  const int nb = static_cast<int>(b.entries().extent(0));
  for (int fault = 0; fault < 7; ++fault) {
    auto x = KokkosSpGEMM::copy_to(Kokkos::DefaultHostExecutionSpace(), a);
    auto y = KokkosSpGEMM::copy_to(Kokkos::DefaultHostExecutionSpace(), b);
    if (fault == 1) x.entries()(0) = x.num_cols();                // A's first entry
    if (fault == 2) x.entries()(x.entries().extent(0) - 1) = -1;  // A's last entry
    if (fault == 3) x.row_map()(5) = x.row_map()(6) + 1;          // A's rows 4 and 5
    if (fault == 4) y.row_map()(0) = 1;                           // B's first row
    if (fault == 5) y.row_map()(y.num_rows()) = nb + 1;           // B's last row
    if (fault == 6) y.entries()(nb / 2) = y.num_cols() + 3;       // B's middle
    const Items items(x, y);
    std::int64_t one_by_one = 0;
    for (std::int64_t i = 0; i < items.size(); ++i) one_by_one += items.ok(i) ? 0 : 1;
    EXPECT_EQ(one_by_one == 0, fault == 0) << "fault " << fault;
    for (std::int64_t shift = 0; shift < block; ++shift) {
      std::int64_t blocks = items.bad_items(0, shift);
      for (std::int64_t lo = shift; lo < items.size(); lo += block) {
        blocks += items.bad_items(lo, std::min(items.size(), lo + block));
      }
      EXPECT_EQ(blocks, one_by_one) << "fault " << fault << ", blocks from " << shift;
    }
  }
}

// On CPUs the symbolic phase checks A in its own passes: the dense accumulator's row bounds as they read A, the hash
// rows (Algorithm::Hash) and row blocks (a memory budget) before theirs. Each path must name a bad column or row map
// of A, with B another matrix and B the very arrays of A, and never read past A or B.
TEST(TEST_CATEGORY, error_malformed_a_on_every_symbolic_path) {
  TEST_EXECSPACE exec;
  const auto a = KokkosSpGEMM::uniform_random<double, int, int>(40, 40, 4, 3);
  auto broken = [&](auto edit) {
    auto m = KokkosSpGEMM::copy_to(Kokkos::DefaultHostExecutionSpace(), a);
    edit(m);
    return KokkosSpGEMM::copy_to(exec, m);
  };
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  const auto bad_column = broken([](auto& m) { m.entries()(37) = 40; });  // row 9's entry
  const auto bad_row_map = broken([](auto& m) { m.row_map()(10) = m.row_map()(11) + 1; });
  for (int path = 0; path < 3; ++path) {
    KokkosSpGEMM::Options o;
    if (path == 1) o.algorithm = KokkosSpGEMM::Algorithm::Hash;
    if (path == 2) o.memory_budget_bytes = 1000;  // row blocks of about 10 rows
    for (const bool same_arrays : {false, true}) {
      std::string msg = expect_throws<KokkosSpGEMM::InvalidInput>(
          [&] { KokkosSpGEMM::spgemm(exec, bad_column, same_arrays ? bad_column : da, o); });
      EXPECT_NE(msg.find("A has column index 40 in row 9"), std::string::npos) << "path " << path << ": " << msg;
      msg = expect_throws<KokkosSpGEMM::InvalidInput>(
          [&] { KokkosSpGEMM::spgemm(exec, bad_row_map, same_arrays ? bad_row_map : da, o); });
      EXPECT_NE(msg.find("A's row map is not monotone"), std::string::npos) << "path " << path << ": " << msg;
      EXPECT_NE(msg.find("at row 10 "), std::string::npos) << "path " << path << ": " << msg;
    }
    // Valid operands on the same path give the reference product.
    if (path < 2) {
      const auto c = KokkosSpGEMM::spgemm(exec, da, da, o);
      const auto cmp = KokkosSpGEMM::compare_to_reference(c, a, a);
      EXPECT_TRUE(cmp.ok) << cmp.message;
    }
  }
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
  // A row of A past A's entries: every replay must name it, and one that checks A beside its own work (the entry
  // form on GPUs) must not read beyond A, B or the map before the check's verdict.
  const int nnz = static_cast<int>(a.entries().extent(0));
  const auto far_row_map = broken([&](auto& m) { m.row_map()(n / 2) = nnz + 1000; });
  for (const auto shape :
       {KokkosSpGEMM::ReplayShape::Auto, KokkosSpGEMM::ReplayShape::Tiles, KokkosSpGEMM::ReplayShape::Rows,
        KokkosSpGEMM::ReplayShape::RowsInScratch, KokkosSpGEMM::ReplayShape::Entries}) {
    TestOptions o;
    o.reuse_replay = shape;
    o.synchronous_checks = true;  // the verdict in the call itself (deferred_checks_surface_at_the_next_call_or_verify)
    // R-MAT's products compress: the entry form's lists need more than the size of C.
    if (shape == KokkosSpGEMM::ReplayShape::Entries) o.reuse_positions_bytes = std::size_t(1) << 26;
    KokkosSpGEMM::Handle<Exec, double> handle(o);
    KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> c;
    KokkosSpGEMM::spgemm_symbolic(exec, handle, da, da, c);
    for (int call = 0; call < 3; ++call) KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c);  // map made
    EXPECT_NE(handle.describe().find("replayed from it"), std::string::npos) << handle.describe();
    if (shape == KokkosSpGEMM::ReplayShape::Entries) {
      EXPECT_NE(handle.describe().find("entries/position-map"), std::string::npos) << handle.describe();
    }
    std::string msg = expect_throws<KokkosSpGEMM::InvalidInput>(
        [&] { KokkosSpGEMM::spgemm_numeric(exec, handle, bad_column, da, c); });
    EXPECT_NE(msg.find("spgemm_numeric"), std::string::npos) << msg;
    EXPECT_NE(msg.find("column index " + std::to_string(n + 5)), std::string::npos) << msg;
    msg = expect_throws<KokkosSpGEMM::InvalidInput>(
        [&] { KokkosSpGEMM::spgemm_numeric(exec, handle, da, bad_row_map, c); });
    EXPECT_NE(msg.find("B's row map is not monotone"), std::string::npos) << msg;
    EXPECT_NE(msg.find("at row " + std::to_string(n / 2) + " "), std::string::npos) << msg;
    for (const auto* bad_a : {&bad_row_map, &far_row_map}) {
      msg =
          expect_throws<KokkosSpGEMM::InvalidInput>([&] { KokkosSpGEMM::spgemm_numeric(exec, handle, *bad_a, da, c); });
      EXPECT_NE(msg.find("A's row map is not monotone"), std::string::npos) << msg;
      // The first row whose offsets leave [0, nnz] or decrease: the one ending past A's entries, or row n / 2.
      EXPECT_NE(msg.find("at row " + std::to_string(bad_a == &far_row_map ? n / 2 - 1 : n / 2) + " "),
                std::string::npos)
          << msg;
    }
    // Valid operands again: C is right (twice, so that a map made anew is replayed too).
    for (int call = 0; call < 2; ++call) {
      KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c);
      const auto cmp = KokkosSpGEMM::compare_to_reference(c, a, a);
      EXPECT_TRUE(cmp.ok) << cmp.message;
    }
  }
}

// B with rows of one entry (a tentative prolongator): the CPU replay reads B's entry k for A's column k without B's
// row bounds, so a column of A past B's rows must still throw, in the first and in the last row of A, and the handle
// must serve valid operands afterwards.
TEST(TEST_CATEGORY, error_malformed_a_on_replay_with_b_rows_of_one_entry) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  const auto a = KokkosSpGEMM::poisson_3d_7pt<double, int, int>(8);
  const auto p = KokkosSpGEMM::aggregation_prolongator<double, int, int>(8, 2, false);
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  const auto dp = KokkosSpGEMM::copy_to(exec, p);
  const int n = p.num_rows();
  for (const bool last : {false, true}) {
    auto m = KokkosSpGEMM::copy_to(Kokkos::DefaultHostExecutionSpace(), a);
    m.entries()(last ? m.entries().extent(0) - 1 : 0) = n + 5;
    const auto bad_column = KokkosSpGEMM::copy_to(exec, m);
    TestOptions o;
    o.synchronous_checks = true;
    KokkosSpGEMM::Handle<Exec, double> handle(o);
    KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> c;
    KokkosSpGEMM::spgemm_symbolic(exec, handle, da, dp, c);
    for (int call = 0; call < 3; ++call) KokkosSpGEMM::spgemm_numeric(exec, handle, da, dp, c);  // map made
    EXPECT_NE(handle.describe().find("replayed from it"), std::string::npos) << handle.describe();
    const std::string msg = expect_throws<KokkosSpGEMM::InvalidInput>(
        [&] { KokkosSpGEMM::spgemm_numeric(exec, handle, bad_column, dp, c); });
    EXPECT_NE(msg.find("column index " + std::to_string(n + 5)), std::string::npos) << msg;
    for (int call = 0; call < 2; ++call) {
      KokkosSpGEMM::spgemm_numeric(exec, handle, da, dp, c);
      const auto cmp = KokkosSpGEMM::compare_to_reference(c, a, p);
      EXPECT_TRUE(cmp.ok) << cmp.message;
    }
  }
}

// Rows of A whose rows of C are empty are not replayed; a bad column or row map there must still throw on a reuse
// call through the map (CPUs check A as the replay reads it, and those rows beside it), with B a copy of A and B the
// very arrays of A, and the handle must serve valid operands afterwards.
TEST(TEST_CATEGORY, error_malformed_operands_in_rows_the_map_leaves) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  // Rows 3 and 5 of A name only empty rows of A (4 and 1): their rows of A * A are empty.
  const std::vector<std::vector<std::pair<int, double>>> rows = {{{1, 1.0}, {2, 2.0}}, {}, {{3, 3.0}},
                                                                 {{4, 4.0}},           {}, {{1, 5.0}}};
  const auto a = csr_from_rows<double>(6, 6, rows);
  auto broken = [&](auto edit) {
    auto m = KokkosSpGEMM::copy_to(Kokkos::DefaultHostExecutionSpace(), a);
    edit(m);
    return KokkosSpGEMM::copy_to(exec, m);
  };
  const auto bad_column = broken([](auto& m) { m.entries()(4) = 11; });  // row 3's entry
  const auto bad_row_map = broken([](auto& m) { m.row_map()(4) = 2; });  // row 3 ends before it starts
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  for (const bool same_arrays : {false, true}) {
    for (const auto& bad_and_what :
         {std::pair{bad_column, std::string("column index 11")}, std::pair{bad_row_map, std::string("row map")}}) {
      // Not a structured binding: lambdas capture those only from C++20 on.
      const auto& bad = bad_and_what.first;
      const std::string& what = bad_and_what.second;
      TestOptions o;
      o.synchronous_checks = true;
      o.reuse_positions_bytes = 4096;  // a map for so small a C (by default it keeps within C's size)
      KokkosSpGEMM::Handle<Exec, double> handle(o);
      KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> c;
      KokkosSpGEMM::spgemm_symbolic(exec, handle, da, da, c);
      for (int call = 0; call < 3; ++call) KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c);
      ASSERT_NE(handle.describe().find("replayed from it"), std::string::npos) << handle.describe();
      const std::string msg = expect_throws<KokkosSpGEMM::InvalidInput>(
          [&] { KokkosSpGEMM::spgemm_numeric(exec, handle, bad, same_arrays ? bad : da, c); });
      EXPECT_NE(msg.find(what), std::string::npos) << msg;
      for (int call = 0; call < 2; ++call) {
        KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c);
        const auto cmp = KokkosSpGEMM::compare_to_reference(c, a, a);
        EXPECT_TRUE(cmp.ok) << cmp.message;
      }
    }
  }
}

// A map that leaves some bins to hash tables: the check beside the replay must stop those kernels too (they would
// follow the bad column), in the call's own verdict (synchronous_checks) and in a deferred one.
TEST(TEST_CATEGORY, error_malformed_operands_with_a_partial_position_map) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  const auto a = KokkosSpGEMM::rmat<double, int, int>(9, 8, 4);
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  auto bad = KokkosSpGEMM::copy_to(Kokkos::DefaultHostExecutionSpace(), a);
  bad.entries()(bad.entries().extent(0) / 2) = a.num_rows() + 5;
  const auto bad_column = KokkosSpGEMM::copy_to(exec, bad);
  for (const bool synchronous : {true, false}) {
    for (const auto shape :
         {KokkosSpGEMM::ReplayShape::Auto, KokkosSpGEMM::ReplayShape::Tiles, KokkosSpGEMM::ReplayShape::Rows}) {
      TestOptions o;
      o.reuse_replay = shape;
      o.synchronous_checks = synchronous;
      std::size_t full = 0;
      {
        KokkosSpGEMM::Handle<Exec, double> h(o);
        KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> c;
        KokkosSpGEMM::spgemm_symbolic(exec, h, da, da, c);
        for (int call = 0; call < 2; ++call) KokkosSpGEMM::spgemm_numeric(exec, h, da, da, c);
        full = h.kept_bytes();
      }
      bool partial = false;
      for (const double share : {0.8, 0.6, 0.45, 0.3, 0.2}) {
        o.reuse_positions_bytes = static_cast<std::size_t>(share * full);
        KokkosSpGEMM::Handle<Exec, double> handle(o);
        KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> c;
        KokkosSpGEMM::spgemm_symbolic(exec, handle, da, da, c);
        for (int call = 0; call < 3; ++call) KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c);
        const std::string d = handle.describe();
        if (d.find("replayed from it") == std::string::npos || d.find("gathered from hash") == std::string::npos) {
          continue;
        }
        partial = true;
        if (!synchronous && KokkosSpGEMM::BackendTraits<Exec>::is_gpu) {
          KokkosSpGEMM::spgemm_numeric(exec, handle, bad_column, da, c);
          const std::string msg = expect_throws<KokkosSpGEMM::InvalidInput>([&] { KokkosSpGEMM::verify(handle); });
          EXPECT_NE(msg.find("not a well-formed CSR matrix"), std::string::npos) << msg;
        }
        const std::string msg = expect_throws<KokkosSpGEMM::InvalidInput>(
            [&] { KokkosSpGEMM::spgemm_numeric(exec, handle, bad_column, da, c); });
        EXPECT_NE(msg.find("column index " + std::to_string(a.num_rows() + 5)), std::string::npos) << msg;
        for (int call = 0; call < 3; ++call) {
          KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c);
          const auto cmp = KokkosSpGEMM::compare_to_reference(c, a, a);
          EXPECT_TRUE(cmp.ok) << cmp.message;
        }
        break;
      }
      EXPECT_TRUE(partial) << "no byte limit left some bins to hash tables (shape " << static_cast<int>(shape) << ")";
    }
  }
}

// On GPUs a reuse call returns without waiting for its checks (Options::synchronous_checks false, the default):
// a malformed operand or changed columns of C must surface, typed and naming the call, at the handle's next call or
// at verify, and the handle must give a valid C afterwards. CPU spaces check in the call itself.
TEST(TEST_CATEGORY, deferred_checks_surface_at_the_next_call_or_verify) {
  using Exec = TEST_EXECSPACE;
  constexpr bool deferred = KokkosSpGEMM::BackendTraits<Exec>::is_gpu;
  Exec exec;
  const auto a = KokkosSpGEMM::rmat<double, int, int>(9, 8, 4);
  const auto a2 = with_new_values(a, -1.5, 1.0);
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  const auto da2 = KokkosSpGEMM::copy_to(exec, a2);
  const int n = a.num_rows();
  auto bad = KokkosSpGEMM::copy_to(Kokkos::DefaultHostExecutionSpace(), a);
  bad.entries()(bad.entries().extent(0) / 2) = n + 5;
  const auto bad_column = KokkosSpGEMM::copy_to(exec, bad);
  const auto expect_product = [&](const auto& c, const auto& x, const char* what) {
    const auto cmp = KokkosSpGEMM::compare_to_reference(c, x, a);
    EXPECT_TRUE(cmp.ok) << what << ": " << cmp.message;
  };
  for (const auto shape :
       {KokkosSpGEMM::ReplayShape::Auto, KokkosSpGEMM::ReplayShape::Tiles, KokkosSpGEMM::ReplayShape::Rows}) {
    TestOptions o;
    o.reuse_replay = shape;
    KokkosSpGEMM::Handle<Exec, double> handle(o);
    KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> c;
    KokkosSpGEMM::spgemm_symbolic(exec, handle, da, da, c);
    for (int call = 0; call < 3; ++call) KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c);  // calls 1-3: map
    for (int call = 4; call <= 6; ++call) {
      KokkosSpGEMM::spgemm_numeric(exec, handle, call % 2 ? da2 : da, da, c);
      KokkosSpGEMM::verify(handle);
      expect_product(c, call % 2 ? a2 : a, "valid reuse calls");
    }

    // A malformed A in call 7: verify names that call; the next call checks A itself and names the column.
    if (deferred) {
      KokkosSpGEMM::spgemm_numeric(exec, handle, bad_column, da, c);
      auto copy = handle;  // a copy starts without the verdicts of the calls made through the original
      KokkosSpGEMM::verify(copy);
      std::string msg = expect_throws<KokkosSpGEMM::InvalidInput>([&] { KokkosSpGEMM::verify(handle); });
      EXPECT_NE(msg.find("KokkosSpGEMM::verify: numeric call 7 "), std::string::npos) << msg;
      EXPECT_NE(msg.find("not a well-formed CSR matrix"), std::string::npos) << msg;
      KokkosSpGEMM::verify(handle);  // read once
    }
    std::string msg = expect_throws<KokkosSpGEMM::InvalidInput>(
        [&] { KokkosSpGEMM::spgemm_numeric(exec, handle, bad_column, da, c); });
    EXPECT_NE(msg.find("column index " + std::to_string(n + 5)), std::string::npos) << msg;
    for (int call = 0; call < 2; ++call) {  // the full phase, then a map made anew
      KokkosSpGEMM::spgemm_numeric(exec, handle, da2, da, c);
      expect_product(c, a2, "after a malformed A");
    }

    // The next call surfaces an unread failure before doing its own work; the one after gives a valid C.
    if (deferred) {
      const auto calls = KokkosSpGEMM::Impl::state(handle).numeric_calls;
      KokkosSpGEMM::spgemm_numeric(exec, handle, bad_column, da, c);
      exec.fence();  // its verdict is ready: the next call must read it (one not yet done is read a call later)
      msg = expect_throws<KokkosSpGEMM::InvalidInput>([&] { KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c); });
      EXPECT_NE(msg.find("spgemm_numeric: numeric call " + std::to_string(calls + 1) + " "), std::string::npos) << msg;
      KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c);
      expect_product(c, a, "after a failure read at the next call");
      KokkosSpGEMM::spgemm_numeric(exec, handle, da, da, c);  // the map made anew
    }

    // C's columns changed under the handle (a column row 0 does not have): the replay's C is flagged, and the next
    // call computes C in full. CPU spaces (and synchronous_checks) redo the call itself.
    auto hc = KokkosSpGEMM::to_host(c);
    std::vector<int> row0(hc.entries().data() + hc.row_map()(0), hc.entries().data() + hc.row_map()(1));
    ASSERT_FALSE(row0.empty());
    int absent = 0;
    while (std::find(row0.begin(), row0.end(), absent) != row0.end()) ++absent;
    hc.entries()(hc.row_map()(0)) = absent;
    Kokkos::deep_copy(c.entries(), hc.entries());
    KokkosSpGEMM::spgemm_numeric(exec, handle, da2, da, c);
    if (deferred) {
      msg = expect_throws<KokkosSpGEMM::HandleMismatch>([&] { KokkosSpGEMM::verify(handle); });
      EXPECT_NE(msg.find("column indices changed"), std::string::npos) << msg;
      KokkosSpGEMM::spgemm_numeric(exec, handle, da2, da, c);
    }
    expect_product(c, a2, "after C's columns changed");
    const auto& pending = KokkosSpGEMM::Impl::state(handle).deferred.checks;
    EXPECT_EQ(pending ? pending->pending() : 0, 0);
  }

  // The operations built on handles: a Galerkin product's reuse calls, read by its verify.
  const auto p = KokkosSpGEMM::copy_to(exec, KokkosSpGEMM::aggregation_prolongator<double, int, int>(6, 2, true));
  const auto lap = KokkosSpGEMM::copy_to(exec, KokkosSpGEMM::poisson_3d_7pt<double, int, int>(6));
  KokkosSpGEMM::GalerkinHandle<Exec, double> gh;
  KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> ac;
  KokkosSpGEMM::galerkin_product(exec, gh, lap, p, ac);
  for (int call = 0; call < 3; ++call) KokkosSpGEMM::galerkin_numeric(exec, gh, lap, p, ac);
  KokkosSpGEMM::verify(gh);
  const auto pt = KokkosSpGEMM::to_host(KokkosSpGEMM::transpose(exec, p));
  const auto ref = KokkosSpGEMM::reference_spgemm_with_bounds(
      pt, KokkosSpGEMM::reference_spgemm(KokkosSpGEMM::to_host(lap), KokkosSpGEMM::to_host(p)));
  const auto cmp = KokkosSpGEMM::compare_to_reference(ac, ref, true, 16.0);
  EXPECT_TRUE(cmp.ok) << "Galerkin reuse: " << cmp.message;
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
  // C is not left with truncated offsets.
  EXPECT_EQ(c.num_rows(), 0);
  EXPECT_EQ(c.row_map().extent(0), 0u);
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
