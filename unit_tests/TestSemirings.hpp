// Semiring products (min-plus, max-plus, max-min, or-and, plus-pair, any-pair and a user-defined one) through every
// accumulator path and with reuse, masked products (plain and complemented masks: empty, full, C's own structure,
// over semirings, with reuse), triangle counts (complete graphs, the shared graphs), and their errors, against the
// serial references of testing/KokkosSpGEMM_ReferenceSemiring.hpp. Built with KOKKOSSPGEMM_TEST_SEMIRING_SUBSET (the
// sanitized build: KokkosSpGEMM_TEST_SEMIRING_SUBSET in CMake), the products leave out max-plus, max-min and the value
// types other than double, bool and int64, which the optimised builds test.
#include <SpGEMMTestHelpers.hpp>

#include <random>

namespace KokkosSpGEMMTest {

/// A user-defined semiring with no atomic of its own (GPU rows take the compare-and-swap loop): (max, ×).
struct MaxTimes {
  using value_type = double;
  static constexpr const char* name = "max-times";
  static KOKKOS_INLINE_FUNCTION double identity() { return -1e300; }
  static KOKKOS_INLINE_FUNCTION double add(double x, double y) { return x < y ? y : x; }
  static KOKKOS_INLINE_FUNCTION double multiply(double x, double y) { return x * y; }
};

/// m with values f(value, entry index), of type T.
template <class T, class S, class O, class F, class Fn>
HostCsr<T, O, F> with_values(const HostCsr<S, O, F>& m, Fn f) {
  HostCsr<T, O, F> out("with_values", m.num_rows(), m.num_cols(), m.nnz());
  Kokkos::deep_copy(out.row_map(), m.row_map());
  Kokkos::deep_copy(out.entries(), m.entries());
  for (std::size_t e = 0; e < m.nnz(); ++e) out.values()(e) = f(m.values()(e), e);
  return out;
}

/// Values of A and B for a semiring over T: signed weights for the path semirings, 0/1 for the boolean ones.
template <class T>
T weight(double v, std::size_t e) {
  if constexpr (std::is_same<T, bool>::value) {
    return e % 3 != 0;
  } else if constexpr (std::is_integral<T>::value) {
    return static_cast<T>(static_cast<long long>(v * 100) - 7);
  } else {
    return static_cast<T>(v * 4 - 1);
  }
}

/// The semiring product of a and b on Exec through every accumulator path, one-shot and with reuse (new values),
/// against the reference.
template <class Semiring, class Exec>
void expect_semiring_product(const HostCsr<double>& a0, const HostCsr<double>& b0, const std::string& what) {
  using T = typename Semiring::value_type;
  const auto a = with_values<T>(a0, [](double v, std::size_t e) { return weight<T>(v, e); });
  const auto b = with_values<T>(b0, [](double v, std::size_t e) { return weight<T>(-v, e + 1); });
  constexpr bool sums = std::is_same<Semiring, KokkosSpGEMM::Semirings::PlusPair<T>>::value;
  Exec exec;
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  const auto db = KokkosSpGEMM::copy_to(exec, b);
  const auto ref = KokkosSpGEMM::reference_semiring_spgemm<Semiring>(a, b);
  for (const auto& o : all_paths()) {
    const auto c = KokkosSpGEMM::spgemm(exec, da, db, Semiring(), o, o);
    const std::string diff = KokkosSpGEMM::semiring_difference(c, ref, sums, 1e-12, !o.sorted);
    EXPECT_TRUE(diff.empty()) << what << " " << Semiring::name << " one-shot ("
                              << KokkosSpGEMM::algorithm_name(o.algorithm) << ", scratch " << o.scratch_bytes
                              << (o.sorted ? "" : ", unsorted") << "): " << diff;
  }
  // Reuse: symbolic once, numeric with new values three times (the first makes the position map, then replays).
  KokkosSpGEMM::Handle<Exec, T> handle;
  KokkosSpGEMM::CsrMatrix<T, int, int, typename Exec::memory_space> c;
  KokkosSpGEMM::spgemm(exec, handle, da, db, c, Semiring());
  for (int round = 1; round <= 3; ++round) {
    const auto a2 = with_values<T>(a0, [&](double v, std::size_t e) { return weight<T>(v * round - 0.5, e + round); });
    const auto b2 = with_values<T>(b0, [&](double v, std::size_t e) { return weight<T>(v + round, e); });
    KokkosSpGEMM::spgemm_numeric(exec, handle, KokkosSpGEMM::copy_to(exec, a2), KokkosSpGEMM::copy_to(exec, b2), c,
                                 Semiring());
    const std::string diff =
        KokkosSpGEMM::semiring_difference(c, KokkosSpGEMM::reference_semiring_spgemm<Semiring>(a2, b2), sums);
    EXPECT_TRUE(diff.empty()) << what << " " << Semiring::name << " reuse round " << round << ": " << diff;
  }
  // Deterministic mode.
  TestOptions det;
  det.deterministic = true;
  const auto cd = KokkosSpGEMM::spgemm(exec, da, db, Semiring(), det, det);
  const std::string diff = KokkosSpGEMM::semiring_difference(cd, ref, sums);
  EXPECT_TRUE(diff.empty()) << what << " " << Semiring::name << " deterministic: " << diff;
}

template <class Exec>
void for_each_random_pair(
    const std::function<void(const HostCsr<double>&, const HostCsr<double>&, const std::string&)>& f) {
  std::uint64_t seed = 71;
  for (const auto& [sa, sb] : random_shapes()) {
    const auto a = KokkosSpGEMM::random_csr<double>(sa, seed++);
    const auto b = KokkosSpGEMM::random_csr<double>(sb, seed++);
    f(a, b, "random " + std::to_string(sa.rows) + "x" + std::to_string(sa.cols) + " * " + std::to_string(sb.cols));
  }
}

TEST(TEST_CATEGORY, semiring_min_plus_max_plus_max_min_match_reference_on_every_path) {
  using Exec = TEST_EXECSPACE;
  namespace SR = KokkosSpGEMM::Semirings;
  for_each_random_pair<Exec>([](const auto& a, const auto& b, const std::string& what) {
    expect_semiring_product<SR::MinPlus<double>, Exec>(a, b, what);
#if !defined(KOKKOSSPGEMM_TEST_SEMIRING_SUBSET)
    expect_semiring_product<SR::MaxPlus<double>, Exec>(a, b, what);
    expect_semiring_product<SR::MaxMin<double>, Exec>(a, b, what);
#endif
  });
}

TEST(TEST_CATEGORY, semiring_boolean_counting_pattern_and_user_defined_match_reference) {
  using Exec = TEST_EXECSPACE;
  namespace SR = KokkosSpGEMM::Semirings;
  for_each_random_pair<Exec>([](const auto& a, const auto& b, const std::string& what) {
    expect_semiring_product<SR::OrAnd<bool>, Exec>(a, b, what);
    expect_semiring_product<SR::PlusPair<std::int64_t>, Exec>(a, b, what);
    expect_semiring_product<SR::AnyPair<bool>, Exec>(a, b, what);
    expect_semiring_product<MaxTimes, Exec>(a, b, what);
  });
}

TEST(TEST_CATEGORY, semiring_value_types_float_and_integers) {
#if defined(KOKKOSSPGEMM_TEST_SEMIRING_SUBSET)
  GTEST_SKIP() << "KOKKOSSPGEMM_TEST_SEMIRING_SUBSET: the value types run in the optimised builds";
#else
  using Exec = TEST_EXECSPACE;
  namespace SR = KokkosSpGEMM::Semirings;
  KokkosSpGEMM::RandomCsrOptions<int> o;
  o.rows = 120;
  o.cols = 120;
  o.mean_per_row = 8;
  o.power_law = true;
  const auto a = KokkosSpGEMM::random_csr<double>(o, 5);
  const auto b = KokkosSpGEMM::random_csr<double>(o, 6);
  // A semiring for each value type the tests above leave out (they take or-and over bool, counts in 64 bits and
  // paths over double): each one instantiates the numeric pipeline again, which is most of these tests' compile time.
  expect_semiring_product<SR::MinPlus<float>, Exec>(a, b, "float");
  expect_semiring_product<SR::MinPlus<int>, Exec>(a, b, "int");
  expect_semiring_product<SR::MaxPlus<std::int64_t>, Exec>(a, b, "int64");
  expect_semiring_product<SR::PlusPair<int>, Exec>(a, b, "int");
#endif
}

TEST(TEST_CATEGORY, semiring_identities_on_empty_rows_and_negative_weights) {
  using Exec = TEST_EXECSPACE;
  namespace SR = KokkosSpGEMM::Semirings;
  Exec exec;
  // Shortest paths of length two with negative weights; row 1 of A is empty, column 2 of B is never reached.
  const auto a = csr_from_rows<double>(3, 3, {{{0, -2.0}, {1, 5.0}}, {}, {{1, 1.0}}});
  const auto b = csr_from_rows<double>(3, 3, {{{0, 3.0}, {1, -4.0}}, {{1, -1.0}}, {}});
  const auto c = KokkosSpGEMM::to_host(KokkosSpGEMM::spgemm(exec, KokkosSpGEMM::copy_to(exec, a),
                                                            KokkosSpGEMM::copy_to(exec, b), SR::MinPlus<double>()));
  ASSERT_EQ(c.nnz(), 3u);
  EXPECT_EQ(c.row_map()(1), 2);
  EXPECT_EQ(c.row_map()(2), 2);
  EXPECT_EQ(c.values()(0), 1.0);   // (0,0): -2 + 3
  EXPECT_EQ(c.values()(1), -6.0);  // (0,1): min(-2 - 4, 5 - 1)
  EXPECT_EQ(c.values()(2), 0.0);   // (2,1): 1 - 1
  // Integer counts: 300 paths through distinct middles, no overflow of a 64-bit count.
  std::vector<std::vector<std::pair<int, std::int64_t>>> ra(1), rb(300);
  for (int k = 0; k < 300; ++k) {
    ra[0].push_back({k, 1});
    rb[k].push_back({0, 1});
  }
  const auto counts = KokkosSpGEMM::to_host(KokkosSpGEMM::spgemm(
      exec, KokkosSpGEMM::copy_to(exec, csr_from_rows<std::int64_t>(1, 300, ra)),
      KokkosSpGEMM::copy_to(exec, csr_from_rows<std::int64_t>(300, 1, rb)), SR::PlusPair<std::int64_t>()));
  ASSERT_EQ(counts.nnz(), 1u);
  EXPECT_EQ(counts.values()(0), 300);
}

/// The masked product of a and b under mask m (plain and complemented) over Semiring, one-shot and with reuse.
template <class Semiring, class Exec>
void expect_masked_product(const HostCsr<double>& a0, const HostCsr<double>& b0, const HostCsr<double>& m,
                           const std::string& what, bool deterministic = false) {
  using T = typename Semiring::value_type;
  const auto a = with_values<T>(a0, [](double v, std::size_t e) { return weight<T>(v, e); });
  const auto b = with_values<T>(b0, [](double v, std::size_t e) { return weight<T>(-v, e + 1); });
  constexpr bool sums = std::is_floating_point<T>::value && KokkosSpGEMM::Semirings::is_plus_times<Semiring>::value;
  Exec exec;
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  const auto db = KokkosSpGEMM::copy_to(exec, b);
  const auto dm = KokkosSpGEMM::copy_to(exec, m);
  TestOptions o;
  o.deterministic = deterministic;
  for (auto kind : {KokkosSpGEMM::MaskKind::Plain, KokkosSpGEMM::MaskKind::Complement}) {
    const KokkosSpGEMM::Mask<decltype(dm)> mask{dm, kind};
    const std::string label = what + " " + Semiring::name + (kind == KokkosSpGEMM::MaskKind::Plain ? " <M>" : " <!M>");
    const auto ref = KokkosSpGEMM::reference_semiring_spgemm<Semiring>(a, b, &m, kind);
    const auto c = KokkosSpGEMM::masked_spgemm(exec, mask, da, db, Semiring(), o, o);
    std::string diff = KokkosSpGEMM::semiring_difference(c, ref, sums);
    EXPECT_TRUE(diff.empty()) << label << " one-shot: " << diff;
    KokkosSpGEMM::MaskedHandle<Exec, T> handle(o, o);
    KokkosSpGEMM::CsrMatrix<T, int, int, typename Exec::memory_space> ch;
    KokkosSpGEMM::masked_spgemm_symbolic(exec, handle, mask, da, db, ch);
    EXPECT_EQ(handle.nnz(), static_cast<std::int64_t>(ref.nnz())) << label;
    for (int round = 0; round < 2; ++round) {
      const auto a2 = with_values<T>(a0, [&](double v, std::size_t e) { return weight<T>(v + round, e + round); });
      const auto b2 = with_values<T>(b0, [&](double v, std::size_t e) { return weight<T>(v * 0.5 - round, e); });
      KokkosSpGEMM::masked_spgemm_numeric(exec, handle, mask, KokkosSpGEMM::copy_to(exec, a2),
                                          KokkosSpGEMM::copy_to(exec, b2), ch, Semiring());
      diff = KokkosSpGEMM::semiring_difference(ch, KokkosSpGEMM::reference_semiring_spgemm<Semiring>(a2, b2, &m, kind),
                                               sums);
      EXPECT_TRUE(diff.empty()) << label << " reuse round " << round << ": " << diff;
    }
  }
}

/// Masks for C = A·B of shape rows x cols: empty, full, random, and the unmasked product's own structure.
inline std::vector<std::pair<std::string, HostCsr<double>>> masks_for(const HostCsr<double>& a,
                                                                      const HostCsr<double>& b, std::uint64_t seed) {
  const int rows = a.num_rows(), cols = b.num_cols();
  std::vector<std::vector<std::pair<int, double>>> none(rows), full(rows);
  for (int i = 0; i < rows && cols <= 4000; ++i) {
    for (int j = 0; j < cols; ++j) full[i].push_back({j, 1.0});
  }
  KokkosSpGEMM::RandomCsrOptions<int> o;
  o.rows = rows;
  o.cols = cols;
  o.mean_per_row = std::max(1.0, cols / 4.0);
  std::vector<std::pair<std::string, HostCsr<double>>> out;
  out.emplace_back("empty mask", csr_from_rows<double>(rows, cols, none));
  if (cols <= 4000) out.emplace_back("full mask", csr_from_rows<double>(rows, cols, full));
  out.emplace_back("random mask", KokkosSpGEMM::random_csr<double>(o, seed));
  out.emplace_back("mask = C's structure", KokkosSpGEMM::reference_spgemm(a, b));
  return out;
}

TEST(TEST_CATEGORY, masked_products_plain_and_complemented_match_reference) {
  using Exec = TEST_EXECSPACE;
  namespace SR = KokkosSpGEMM::Semirings;
  std::uint64_t seed = 900;
  for_each_random_pair<Exec>([&](const auto& a, const auto& b, const std::string& what) {
    for (const auto& [name, m] : masks_for(a, b, seed++)) {
      expect_masked_product<SR::PlusTimes<double>, Exec>(a, b, m, what + ", " + name);
      expect_masked_product<SR::MinPlus<double>, Exec>(a, b, m, what + ", " + name);
      expect_masked_product<SR::PlusPair<std::int64_t>, Exec>(a, b, m, what + ", " + name);
    }
  });
}

TEST(TEST_CATEGORY, masked_products_boolean_deterministic_and_user_semirings) {
  using Exec = TEST_EXECSPACE;
  namespace SR = KokkosSpGEMM::Semirings;
  KokkosSpGEMM::RandomCsrOptions<int> o;
  o.rows = 200;
  o.cols = 200;
  o.mean_per_row = 10;
  o.power_law = true;
  const auto a = KokkosSpGEMM::random_csr<double>(o, 31);
  const auto b = KokkosSpGEMM::random_csr<double>(o, 32);
  const auto m = KokkosSpGEMM::random_csr<double>(o, 33);
  expect_masked_product<SR::OrAnd<bool>, Exec>(a, b, m, "power-law");
  expect_masked_product<SR::AnyPair<bool>, Exec>(a, b, m, "power-law");
  expect_masked_product<MaxTimes, Exec>(a, b, m, "power-law");
  expect_masked_product<SR::PlusTimes<double>, Exec>(a, b, m, "power-law deterministic", true);
  expect_masked_product<SR::MinPlus<int>, Exec>(a, b, m, "power-law int");
}

TEST(TEST_CATEGORY, masked_product_errors_are_typed) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  const auto a = KokkosSpGEMM::copy_to(exec, csr_from_rows<double>(2, 3, {{{0, 1.0}, {2, 2.0}}, {{1, 3.0}}}));
  const auto b = KokkosSpGEMM::copy_to(exec, csr_from_rows<double>(3, 2, {{{0, 1.0}}, {{1, 1.0}}, {{0, 2.0}}}));
  const auto wrong = KokkosSpGEMM::copy_to(exec, csr_from_rows<double>(3, 2, {{}, {}, {}}));
  EXPECT_THROW(KokkosSpGEMM::masked_spgemm(exec, KokkosSpGEMM::mask(wrong), a, b), KokkosSpGEMM::DimensionMismatch);
  const auto unsorted = KokkosSpGEMM::copy_to(exec, csr_from_rows<double>(2, 2, {{{1, 1.0}, {0, 1.0}}, {}}));
  EXPECT_THROW(KokkosSpGEMM::masked_spgemm(exec, KokkosSpGEMM::mask(unsorted), a, b), KokkosSpGEMM::InvalidInput);
  const auto repeated = KokkosSpGEMM::copy_to(exec, csr_from_rows<double>(2, 2, {{{0, 1.0}, {0, 1.0}}, {}}));
  EXPECT_THROW(KokkosSpGEMM::masked_spgemm(exec, KokkosSpGEMM::complement(repeated), a, b), KokkosSpGEMM::InvalidInput);
  EXPECT_THROW(KokkosSpGEMM::masked_spgemm(exec, KokkosSpGEMM::mask(unsorted), a, a), KokkosSpGEMM::DimensionMismatch);
  // The mask's single pass finds each flaw, and the detailed checks then name it.
  const auto message = [&](const HostCsr<double>& bad) {
    return expect_throws<KokkosSpGEMM::InvalidInput>(
        [&] { KokkosSpGEMM::masked_spgemm(exec, KokkosSpGEMM::mask(KokkosSpGEMM::copy_to(exec, bad)), a, b); });
  };
  auto flawed = csr_from_rows<double>(2, 2, {{{0, 1.0}}, {{0, 1.0}, {1, 1.0}}});
  EXPECT_NO_THROW(KokkosSpGEMM::masked_spgemm(exec, KokkosSpGEMM::mask(KokkosSpGEMM::copy_to(exec, flawed)), a, b));
  flawed.entries()(2) = 2;
  EXPECT_NE(message(flawed).find("the mask has column index 2 in row 1"), std::string::npos) << message(flawed);
  flawed.entries()(2) = 0;
  EXPECT_NE(message(flawed).find("row 1 of the mask is not sorted"), std::string::npos) << message(flawed);
  flawed.entries()(2) = 1;
  flawed.row_map()(2) = 2;
  EXPECT_NE(message(flawed).find("the mask's row map ends at 2"), std::string::npos) << message(flawed);
  const auto m = KokkosSpGEMM::copy_to(exec, csr_from_rows<double>(2, 2, {{{0, 1.0}, {1, 1.0}}, {{1, 1.0}}}));
  KokkosSpGEMM::MaskedHandle<Exec, double> handle;
  KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> c, other;
  EXPECT_THROW(KokkosSpGEMM::masked_spgemm_numeric(exec, handle, KokkosSpGEMM::mask(m), a, b, c),
               KokkosSpGEMM::HandleMismatch);
  KokkosSpGEMM::masked_spgemm_symbolic(exec, handle, KokkosSpGEMM::mask(m), a, b, c);
  EXPECT_THROW(KokkosSpGEMM::masked_spgemm_numeric(exec, handle, KokkosSpGEMM::complement(m), a, b, c),
               KokkosSpGEMM::HandleMismatch);
  EXPECT_THROW(KokkosSpGEMM::masked_spgemm_numeric(exec, handle, KokkosSpGEMM::mask(m), a, b, other),
               KokkosSpGEMM::HandleMismatch);
  KokkosSpGEMM::masked_spgemm_numeric(exec, handle, KokkosSpGEMM::mask(m), a, b, c);
  const auto h = KokkosSpGEMM::to_host(c);  // A·B: (0,0) = 1*1 + 2*2, (1,1) = 3*1, both in the mask
  ASSERT_EQ(h.nnz(), 2u);
  EXPECT_EQ(h.values()(0), 5.0);
  EXPECT_EQ(h.entries()(1), 1);
  EXPECT_EQ(h.values()(1), 3.0);
  // A complemented mask's handle with check_structure refuses an A whose entries moved (same shape and count): the
  // unmasked product's analysis it keeps compares the patterns.
  KokkosSpGEMM::Options check_structure;
  check_structure.check_structure = true;
  KokkosSpGEMM::MaskedHandle<Exec, double> ch(check_structure);
  const auto m2 = KokkosSpGEMM::copy_to(exec, csr_from_rows<double>(2, 2, {{{1, 1.0}}, {}}));
  KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> cc;
  KokkosSpGEMM::masked_spgemm_symbolic(exec, ch, KokkosSpGEMM::complement(m2), a, b, cc);
  const auto moved = KokkosSpGEMM::copy_to(exec, csr_from_rows<double>(2, 3, {{{1, 1.0}, {2, 2.0}}, {{0, 3.0}}}));
  EXPECT_THROW(KokkosSpGEMM::masked_spgemm_numeric(exec, ch, KokkosSpGEMM::complement(m2), moved, b, cc),
               KokkosSpGEMM::HandleMismatch);
  KokkosSpGEMM::masked_spgemm_numeric(exec, ch, KokkosSpGEMM::complement(m2), a, b, cc);
  const auto hc = KokkosSpGEMM::to_host(cc);  // A·B less (0, 1), which it lacks: (0, 0) = 5 and (1, 1) = 3
  ASSERT_EQ(hc.nnz(), 2u);
  EXPECT_EQ(hc.values()(0), 5.0);
  EXPECT_EQ(hc.values()(1), 3.0);
}

TEST(TEST_CATEGORY, semiring_and_masked_products_with_64_bit_offsets) {
  using Exec = TEST_EXECSPACE;
  namespace SR = KokkosSpGEMM::Semirings;
  Exec exec;
  KokkosSpGEMM::RandomCsrOptions<int> o;
  o.rows = 150;
  o.cols = 150;
  o.mean_per_row = 9;
  o.power_law = true;
  const auto a = KokkosSpGEMM::random_csr<double>(o, 41);
  const auto b = KokkosSpGEMM::random_csr<double>(o, 42);
  const auto m = KokkosSpGEMM::random_csr<double>(o, 43);
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  const auto db = KokkosSpGEMM::copy_to(exec, b);
  const auto c = KokkosSpGEMM::spgemm<std::int64_t>(exec, da, db, SR::MinPlus<double>());
  static_assert(std::is_same<typename decltype(c)::offset_type, std::int64_t>::value, "64-bit offsets asked");
  std::string diff =
      KokkosSpGEMM::semiring_difference(c, KokkosSpGEMM::reference_semiring_spgemm<SR::MinPlus<double>>(a, b), false);
  EXPECT_TRUE(diff.empty()) << diff;
  const auto dm = KokkosSpGEMM::copy_to(exec, m);
  for (auto kind : {KokkosSpGEMM::MaskKind::Plain, KokkosSpGEMM::MaskKind::Complement}) {
    const auto cm = KokkosSpGEMM::masked_spgemm<std::int64_t>(exec, KokkosSpGEMM::Mask<decltype(dm)>{dm, kind}, da, db,
                                                              SR::MinPlus<double>());
    static_assert(std::is_same<typename decltype(cm)::offset_type, std::int64_t>::value, "64-bit offsets asked");
    diff = KokkosSpGEMM::semiring_difference(
        cm, KokkosSpGEMM::reference_semiring_spgemm<SR::MinPlus<double>>(a, b, &m, kind), false);
    EXPECT_TRUE(diff.empty()) << (kind == KokkosSpGEMM::MaskKind::Plain ? "<M> " : "<!M> ") << diff;
  }
}

// On CPUs the one-shot C⟨¬M⟩ stamps M's rows into the dense accumulator's rows (MultiplyViews::mask_rows): graph
// rows (the numeric rows without a branch, asserted chosen), stencil rows (the symbolic count over the compressed B),
// more rows than a 16-bit stamp counts (the stamps start again on one thread's chunk), and B too wide for the dense
// rows (the unmasked product, then the filter).
TEST(TEST_CATEGORY, complemented_one_shot_through_the_dense_rows_matches_reference) {
  using Exec = TEST_EXECSPACE;
  namespace SR = KokkosSpGEMM::Semirings;
  const auto graph = KokkosSpGEMM::undirected_pattern(KokkosSpGEMM::rmat<double>(11, 16, 7));
  expect_masked_product<SR::PlusTimes<double>, Exec>(graph, graph, graph, "R-MAT 11, M = G");
  expect_masked_product<SR::PlusPair<std::int64_t>, Exec>(graph, graph, graph, "R-MAT 11, M = G");
  {
    // Power-law rows of A over narrow rows of B: the first of these whose C⟨¬M⟩ Auto gives the numeric rows without
    // a branch (dense_branch_free: unequal rows that compress a little) is multiplied; one must be.
    KokkosSpGEMM::RandomCsrOptions<int> ro;
    bool found = false;
    for (int narrow_cols : {400, 200, 100, 50}) {
      ro.rows = 3000;
      ro.cols = 600;
      ro.mean_per_row = 6;
      ro.power_law = true;
      const auto a = KokkosSpGEMM::random_csr<double>(ro, 61);
      ro.rows = 600;
      ro.cols = narrow_cols;
      ro.mean_per_row = 3;
      ro.power_law = false;
      const auto b = KokkosSpGEMM::random_csr<double>(ro, 62);
      ro.rows = 3000;
      ro.mean_per_row = narrow_cols / 8.0;
      const auto m = KokkosSpGEMM::random_csr<double>(ro, 63);
      const auto ref =
          KokkosSpGEMM::reference_semiring_spgemm<SR::PlusTimes<double>>(a, b, &m, KokkosSpGEMM::MaskKind::Complement);
      const auto [products, most] = product_totals(a, b);
      if (!KokkosSpGEMM::Impl::dense_branch_free(TestOptions(), a.num_rows(), products, most,
                                                 static_cast<std::int64_t>(ref.nnz()))) {
        continue;
      }
      found = true;
      expect_masked_product<SR::PlusTimes<double>, Exec>(
          a, b, m, "power-law rows over " + std::to_string(narrow_cols) + " columns");
      expect_masked_product<SR::MinPlus<int>, Exec>(a, b, m, "power-law rows, int");
      break;
    }
    EXPECT_TRUE(found) << "no case takes the dense numeric rows without a branch";
  }
  const auto stencil = KokkosSpGEMM::poisson_3d_27pt<double>(9);
  KokkosSpGEMM::RandomCsrOptions<int> o;
  o.rows = stencil.num_rows();
  o.cols = stencil.num_cols();
  o.mean_per_row = 30;
  expect_masked_product<SR::PlusTimes<double>, Exec>(stencil, stencil, stencil, "3D 27-point 9^3, M = A");
  expect_masked_product<SR::MinPlus<double>, Exec>(stencil, stencil, KokkosSpGEMM::random_csr<double>(o, 51),
                                                   "3D 27-point 9^3, random M");
  o.rows = 70000;
  o.cols = 40;
  o.mean_per_row = 3;
  const auto tall = KokkosSpGEMM::random_csr<double>(o, 52);
  o.rows = 40;
  const auto small = KokkosSpGEMM::random_csr<double>(o, 53);
  o.rows = 70000;
  o.mean_per_row = 5;
  expect_masked_product<SR::PlusTimes<double>, Exec>(tall, small, KokkosSpGEMM::random_csr<double>(o, 54),
                                                     "70,000 rows");
  // B past the dense rows' width: the one-shot takes the binned hash rows, which count and erase M's columns.
  Exec exec;
  TestOptions narrow;
  narrow.dense_max_columns = 8;
  const auto da = KokkosSpGEMM::copy_to(exec, graph);
  const auto c =
      KokkosSpGEMM::masked_spgemm(exec, KokkosSpGEMM::complement(da), da, da, SR::PlusTimes<double>(), narrow, narrow);
  const std::string diff =
      KokkosSpGEMM::semiring_difference(c,
                                        KokkosSpGEMM::reference_semiring_spgemm<SR::PlusTimes<double>>(
                                            graph, graph, &graph, KokkosSpGEMM::MaskKind::Complement),
                                        true);
  EXPECT_TRUE(diff.empty()) << "hash rows: " << diff;
}

/// The one-shot C⟨¬M⟩ where the rows are binned (CPUs under Hash or past the dense rows' width): each row's
/// accumulator (thread and team tables, spilled level 2, dense rows in scratch) counts M's columns in the symbolic
/// phase and leaves them out of C in the numeric one, on every path all_paths() forces, against the reference; the
/// filter of A·B (deterministic mode; GPUs until the kernels' mask has run there) alike.
TEST(TEST_CATEGORY, complemented_one_shot_through_the_binned_rows_matches_reference) {
  using Exec = TEST_EXECSPACE;
  namespace SR = KokkosSpGEMM::Semirings;
  Exec exec;
  std::vector<TestOptions> paths = all_paths();
  paths.emplace_back();
  paths.back().dense_max_columns = 8;  // Auto on CPUs: binned past the dense rows' width
  paths.emplace_back();
  paths.back().deterministic = true;
  const auto check = [&](const HostCsr<double>& a, const HostCsr<double>& b, const HostCsr<double>& m,
                         const std::string& what) {
    const auto da = KokkosSpGEMM::copy_to(exec, a);
    const auto db = KokkosSpGEMM::copy_to(exec, b);
    const auto dm = KokkosSpGEMM::copy_to(exec, m);
    const auto ref =
        KokkosSpGEMM::reference_semiring_spgemm<SR::PlusTimes<double>>(a, b, &m, KokkosSpGEMM::MaskKind::Complement);
    const auto one = [](double, std::size_t) { return std::int64_t(1); };
    const auto a1 = with_values<std::int64_t>(a, one);
    const auto b1 = with_values<std::int64_t>(b, one);
    const auto counts = KokkosSpGEMM::reference_semiring_spgemm<SR::PlusPair<std::int64_t>>(
        a1, b1, &m, KokkosSpGEMM::MaskKind::Complement);
    const auto ia = KokkosSpGEMM::copy_to(exec, a1);
    const auto ib = KokkosSpGEMM::copy_to(exec, b1);
    for (std::size_t p = 0; p < paths.size(); ++p) {
      const TestOptions& o = paths[p];
      const std::string label = what + ", path " + std::to_string(p) + " (" +
                                KokkosSpGEMM::algorithm_name(o.algorithm) + ", scratch " +
                                std::to_string(o.scratch_bytes) + (o.deterministic ? ", deterministic" : "") + ")";
      const auto c =
          KokkosSpGEMM::masked_spgemm(exec, KokkosSpGEMM::complement(dm), da, db, SR::PlusTimes<double>(), o, o);
      std::string diff = KokkosSpGEMM::semiring_difference(c, ref, true);
      EXPECT_TRUE(diff.empty()) << label << ": " << diff;
      const auto cc =
          KokkosSpGEMM::masked_spgemm(exec, KokkosSpGEMM::complement(dm), ia, ib, SR::PlusPair<std::int64_t>(), o, o);
      diff = KokkosSpGEMM::semiring_difference(cc, counts, false);
      EXPECT_TRUE(diff.empty()) << label << ", plus-pair: " << diff;
    }
  };
  std::uint64_t seed = 1700;
  for_each_random_pair<Exec>([&](const auto& a, const auto& b, const std::string& what) {
    for (const auto& [name, m] : masks_for(a, b, seed++)) check(a, b, m, what + ", " + name);
  });
  const auto graph = KokkosSpGEMM::undirected_pattern(KokkosSpGEMM::rmat<double>(11, 16, 9));
  check(graph, graph, graph, "R-MAT 11, M = G");
  const auto stencil = KokkosSpGEMM::poisson_3d_27pt<double>(8);
  check(stencil, stencil, stencil, "3D 27-point 8^3, M = A");
  // Rows of one product each (a permutation times a diagonal), half of whose columns M takes out.
  const int n = 5000;
  std::vector<std::vector<std::pair<int, double>>> perm(n), diag(n), half(n);
  for (int i = 0; i < n; ++i) {
    perm[i].push_back({(i * 7919) % n, 1.0 + i % 3});
    diag[i].push_back({i, 2.0});
    if (i % 2 == 0) half[i].push_back({(i * 7919) % n, 1.0});
  }
  check(csr_from_rows<double>(n, n, perm), csr_from_rows<double>(n, n, diag), csr_from_rows<double>(n, n, half),
        "single products");
}

/// C⟨M⟩ and C⟨¬M⟩ where M is A's and B's very arrays (a triangle count's L·L⟨L⟩: M's check covers A's), and the
/// complemented one-shot through the dense rows, whose count checks M as it stamps it (no pass of its own): each
/// flaw of M, A or B is still InvalidInput naming it.
TEST(TEST_CATEGORY, masked_products_check_the_mask_where_they_read_it) {
  using Exec = TEST_EXECSPACE;
  namespace SR = KokkosSpGEMM::Semirings;
  Exec exec;
  const auto graph = KokkosSpGEMM::undirected_pattern(KokkosSpGEMM::rmat<double>(10, 8, 5));
  const auto dg = KokkosSpGEMM::copy_to(exec, graph);
  for (auto kind : {KokkosSpGEMM::MaskKind::Plain, KokkosSpGEMM::MaskKind::Complement}) {
    const auto c =
        KokkosSpGEMM::masked_spgemm(exec, KokkosSpGEMM::Mask<decltype(dg)>{dg, kind}, dg, dg, SR::PlusPair<double>());
    const std::string diff = KokkosSpGEMM::semiring_difference(
        c, KokkosSpGEMM::reference_semiring_spgemm<SR::PlusPair<double>>(graph, graph, &graph, kind), false);
    EXPECT_TRUE(diff.empty()) << (kind == KokkosSpGEMM::MaskKind::Plain ? "<G>" : "<!G>") << ": " << diff;
  }
  // Rows of M that descend across row boundaries, over empty rows too, are well formed.
  const auto a = csr_from_rows<double>(4, 3, {{{0, 1.0}}, {{1, 2.0}}, {{2, 3.0}, {0, 1.0}}, {}});
  const auto b = csr_from_rows<double>(3, 6, {{{1, 1.0}, {5, 2.0}}, {{0, 3.0}, {2, 1.0}}, {{1, 1.0}, {4, 5.0}}});
  const auto m = csr_from_rows<double>(4, 6, {{{5, 1.0}}, {}, {{1, 1.0}, {2, 1.0}}, {{0, 1.0}}});
  expect_masked_product<SR::PlusTimes<double>, Exec>(a, b, m, "descents across rows");
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  const auto db = KokkosSpGEMM::copy_to(exec, b);
  for (auto kind : {KokkosSpGEMM::MaskKind::Plain, KokkosSpGEMM::MaskKind::Complement}) {
    const std::string label = kind == KokkosSpGEMM::MaskKind::Plain ? "<M>" : "<!M>";
    const auto message = [&](const HostCsr<double>& bad) {
      return expect_throws<KokkosSpGEMM::InvalidInput>([&] {
        KokkosSpGEMM::masked_spgemm(exec, KokkosSpGEMM::Mask<decltype(da)>{KokkosSpGEMM::copy_to(exec, bad), kind}, da,
                                    db);
      });
    };
    auto flawed = KokkosSpGEMM::to_host(m);  // deep copies: m is left as it is
    flawed.entries()(1) = 6;                 // past C's columns
    EXPECT_NE(message(flawed).find("the mask has column index 6 in row 2"), std::string::npos) << label;
    flawed.entries()(1) = 2;  // row 2 is {2, 2}
    EXPECT_NE(message(flawed).find("row 2 of the mask is not sorted"), std::string::npos) << label;
    flawed.entries()(1) = 3;  // {3, 2}
    EXPECT_NE(message(flawed).find("row 2 of the mask is not sorted"), std::string::npos) << label;
    flawed.entries()(1) = -1;
    EXPECT_NE(message(flawed).find("the mask has column index -1"), std::string::npos) << label;
    flawed = KokkosSpGEMM::to_host(m);
    flawed.row_map()(4) = 3;  // ends short of its entries
    EXPECT_NE(message(flawed).find("the mask's row map ends at 3"), std::string::npos) << label;
    // Offsets out of order (row 1 runs backwards) whose rows, each read as if well formed, would straddle one
    // position twice: the pass's count of descents must not cancel the flaw.
    flawed = KokkosSpGEMM::to_host(m);
    flawed.row_map()(1) = 3;
    flawed.row_map()(2) = 1;
    message(flawed);
    // A flaw of A is named as A's, and of B as B's.
    auto bad_a = KokkosSpGEMM::to_host(a);
    bad_a.entries()(0) = 3;
    const std::string a_message = expect_throws<KokkosSpGEMM::InvalidInput>([&] {
      KokkosSpGEMM::masked_spgemm(exec, KokkosSpGEMM::Mask<decltype(da)>{KokkosSpGEMM::copy_to(exec, m), kind},
                                  KokkosSpGEMM::copy_to(exec, bad_a), db);
    });
    EXPECT_NE(a_message.find("A has column index 3"), std::string::npos) << label << ": " << a_message;
    auto bad_b = KokkosSpGEMM::to_host(b);
    bad_b.entries()(2) = 7;
    const std::string b_message = expect_throws<KokkosSpGEMM::InvalidInput>([&] {
      KokkosSpGEMM::masked_spgemm(exec, KokkosSpGEMM::Mask<decltype(da)>{KokkosSpGEMM::copy_to(exec, m), kind}, da,
                                  KokkosSpGEMM::copy_to(exec, bad_b));
    });
    EXPECT_NE(b_message.find("B has column index 7"), std::string::npos) << label << ": " << b_message;
    // M, A and B one unsorted matrix: refused (M's check is A's).
    auto unsorted = KokkosSpGEMM::to_host(graph);
    int row = 0;
    while (unsorted.row_map()(row + 1) - unsorted.row_map()(row) < 2) ++row;
    const auto at = unsorted.row_map()(row);
    std::swap(unsorted.entries()(at), unsorted.entries()(at + 1));
    const auto du = KokkosSpGEMM::copy_to(exec, unsorted);
    EXPECT_NE(expect_throws<KokkosSpGEMM::InvalidInput>([&] {
                KokkosSpGEMM::masked_spgemm(exec, KokkosSpGEMM::Mask<decltype(du)>{du, kind}, du, du);
              }).find("row " + std::to_string(row) + " of the mask is not sorted"),
              std::string::npos)
        << label;
    // M, A and B one matrix, each flaw of it named as the mask's (its check covers A's and B's).
    const auto square = csr_from_rows<double>(
        6, 6, {{{0, 1.0}}, {{0, 1.0}, {2, 1.0}}, {{1, 1.0}, {3, 1.0}, {5, 1.0}}, {{2, 1.0}, {4, 1.0}}, {{3, 1.0}}, {}});
    const auto dsq = KokkosSpGEMM::copy_to(exec, square);
    const std::string sq_diff = KokkosSpGEMM::semiring_difference(
        KokkosSpGEMM::masked_spgemm(exec, KokkosSpGEMM::Mask<decltype(dsq)>{dsq, kind}, dsq, dsq),
        KokkosSpGEMM::reference_semiring_spgemm<SR::PlusTimes<double>>(square, square, &square, kind), false);
    EXPECT_TRUE(sq_diff.empty()) << label << ", M = A = B: " << sq_diff;
    const auto same_message = [&](const HostCsr<double>& bad) {
      const auto d = KokkosSpGEMM::copy_to(exec, bad);
      return expect_throws<KokkosSpGEMM::InvalidInput>([&] {
        KokkosSpGEMM::masked_spgemm(exec, KokkosSpGEMM::Mask<decltype(d)>{d, kind}, d, d);
      });
    };
    auto one = KokkosSpGEMM::to_host(KokkosSpGEMM::copy_to(exec, square));
    one.entries()(4) = 6;  // row 2: {1, 6, 5}
    EXPECT_NE(same_message(one).find("the mask has column index 6 in row 2"), std::string::npos) << label;
    one.entries()(4) = 1;  // {1, 1, 5}
    EXPECT_NE(same_message(one).find("row 2 of the mask is not sorted"), std::string::npos) << label;
    one.entries()(4) = -1;
    EXPECT_NE(same_message(one).find("the mask has column index -1"), std::string::npos) << label;
    one.entries()(4) = 3;
    one.row_map()(5) = 8;  // rows 4 and 5 empty: the map ends short of its 9 entries
    one.row_map()(6) = 8;
    EXPECT_NE(same_message(one).find("the mask's row map ends at 8"), std::string::npos) << label;
    one.row_map()(5) = 9;
    one.row_map()(6) = 9;
    one.row_map()(2) = 0;  // row 1 runs backwards
    same_message(one);
    one.row_map()(2) = 3;
    one.row_map()(0) = 1;  // does not start at 0
    EXPECT_NE(same_message(one).find("row map starts at 1"), std::string::npos) << label;
  }
}

/// The complete graph on n vertices, with self-loops when asked (they are ignored).
inline HostCsr<double> complete_graph(int n, bool loops) {
  std::vector<std::vector<std::pair<int, double>>> rows(n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i != j || loops) rows[i].push_back({j, 1.0});
    }
  }
  return csr_from_rows<double>(n, n, rows);
}

TEST(TEST_CATEGORY, triangle_count_complete_graphs_and_small_cases) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  for (int n : {0, 1, 2, 3, 4, 5, 6, 20, 64}) {
    const std::int64_t want = static_cast<std::int64_t>(n) * (n - 1) * (n - 2) / 6;
    EXPECT_EQ(KokkosSpGEMM::triangle_count(exec, KokkosSpGEMM::copy_to(exec, complete_graph(n, false))), want) << n;
    EXPECT_EQ(KokkosSpGEMM::triangle_count(exec, KokkosSpGEMM::copy_to(exec, complete_graph(n, true))), want)
        << n << " with self-loops";
  }
  // Two triangles sharing an edge (0-1-2, 0-2-3) and a pendant vertex 4.
  const auto g = csr_from_rows<double>(5, 5,
                                       {{{1, 1.0}, {2, 1.0}, {3, 1.0}},
                                        {{0, 1.0}, {2, 1.0}},
                                        {{0, 1.0}, {1, 1.0}, {3, 1.0}, {4, 1.0}},
                                        {{0, 1.0}, {2, 1.0}},
                                        {{2, 1.0}}});
  EXPECT_EQ(KokkosSpGEMM::triangle_count(exec, KokkosSpGEMM::copy_to(exec, g)), 2);
  // A wheel: hub 0 on a rim cycle 1..n, n triangles. The hub's row outweighs the CPU walk's share of work a range,
  // so it stands alone and ranges around it are empty.
  for (int n : {4, 200, 3000}) {
    std::vector<std::vector<std::pair<int, double>>> wheel(n + 1);
    for (int v = 1; v <= n; ++v) {
      const int next = v % n + 1, prev = (v + n - 2) % n + 1;
      wheel[0].push_back({v, 1.0});
      wheel[v] = {{0, 1.0}, {std::min(prev, next), 1.0}, {std::max(prev, next), 1.0}};
    }
    const auto w = csr_from_rows<double>(n + 1, n + 1, wheel);
    EXPECT_EQ(KokkosSpGEMM::triangle_count(exec, KokkosSpGEMM::copy_to(exec, w)), n) << "wheel " << n;
  }
  // Random symmetric power-law graphs against the reference count.
  KokkosSpGEMM::RandomCsrOptions<int> o;
  o.rows = 400;
  o.cols = 400;
  o.mean_per_row = 12;
  o.power_law = true;
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const auto r = KokkosSpGEMM::random_csr<double>(o, seed);
    std::vector<std::vector<std::pair<int, double>>> rows(o.rows);
    for (int i = 0; i < o.rows; ++i) {
      for (int e = r.row_map()(i); e < r.row_map()(i + 1); ++e) {
        rows[i].push_back({r.entries()(e), 1.0});
        rows[r.entries()(e)].push_back({i, 1.0});
      }
    }
    for (auto& row : rows) {
      std::sort(row.begin(), row.end());
      row.erase(std::unique(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first == y.first; }),
                row.end());
    }
    const auto graph = csr_from_rows<double>(o.rows, o.rows, rows);
    EXPECT_EQ(KokkosSpGEMM::triangle_count(exec, KokkosSpGEMM::copy_to(exec, graph)),
              KokkosSpGEMM::reference_triangle_count(graph))
        << "seed " << seed;
  }
}

TEST(TEST_CATEGORY, triangle_count_shared_graphs_match_reference) {
  using Exec = TEST_EXECSPACE;
  KOKKOSSPGEMM_NEED_TEST_MATRICES();
  Exec exec;
  for (const char* name : {"ca-CondMat", "PGPgiantcompo", "usroads-48", "ct2010"}) {
    const auto g = KokkosSpGEMM::read_matrix_market<double, int, int>(test_matrices_dir() + "/" + name + ".mtx.gz");
    EXPECT_EQ(KokkosSpGEMM::triangle_count(exec, KokkosSpGEMM::copy_to(exec, g)),
              KokkosSpGEMM::reference_triangle_count(g))
        << name;
  }
}

TEST(TEST_CATEGORY, triangle_count_rejects_directed_unsorted_and_rectangular) {
  using Exec = TEST_EXECSPACE;
  Exec exec;
  const auto directed = csr_from_rows<double>(3, 3, {{{1, 1.0}}, {{2, 1.0}}, {{0, 1.0}}});
  EXPECT_THROW(KokkosSpGEMM::triangle_count(exec, KokkosSpGEMM::copy_to(exec, directed)), KokkosSpGEMM::InvalidInput);
  const auto unsorted = csr_from_rows<double>(3, 3, {{{2, 1.0}, {1, 1.0}}, {{0, 1.0}}, {{0, 1.0}}});
  EXPECT_THROW(KokkosSpGEMM::triangle_count(exec, KokkosSpGEMM::copy_to(exec, unsorted)), KokkosSpGEMM::InvalidInput);
  auto outside = csr_from_rows<double>(3, 3, {{{1, 1.0}}, {{0, 1.0}}, {}});
  outside.entries()(1) = 3;
  const std::string outside_message = expect_throws<KokkosSpGEMM::InvalidInput>(
      [&] { KokkosSpGEMM::triangle_count(exec, KokkosSpGEMM::copy_to(exec, outside)); });
  EXPECT_NE(outside_message.find("the graph has column index 3 in row 1"), std::string::npos) << outside_message;
  const auto rect = csr_from_rows<double>(2, 3, {{{1, 1.0}}, {{0, 1.0}}});
  EXPECT_THROW(KokkosSpGEMM::triangle_count(exec, KokkosSpGEMM::copy_to(exec, rect)), KokkosSpGEMM::DimensionMismatch);
}

}  // namespace KokkosSpGEMMTest
