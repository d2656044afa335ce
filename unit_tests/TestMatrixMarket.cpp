// Matrix Market reading and writing: formats, symmetries, malformed files, and every shared matrix.
#include <KokkosSpGEMM.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

using KokkosSpGEMM::FileError;

std::string temp_path(const std::string& name) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/kokkosspgemm_test_" + std::to_string(::getpid()) + "_" + name;
}

std::string write_text(const std::string& name, const std::string& text) {
  const std::string path = temp_path(name);
  std::ofstream(path) << text;
  return path;
}

std::string matrices_dir() {
  const char* env = std::getenv("KOKKOSSPGEMM_TEST_MATRICES");
  return env && *env ? env : KOKKOSSPGEMM_TEST_MATRICES;
}

template <class M>
void expect_same(const M& x, const M& y) {
  ASSERT_EQ(x.num_rows(), y.num_rows());
  ASSERT_EQ(x.num_cols(), y.num_cols());
  ASSERT_EQ(x.nnz(), y.nnz());
  for (std::size_t i = 0; i < x.row_map().extent(0); ++i) EXPECT_EQ(x.row_map()(i), y.row_map()(i));
  for (std::size_t e = 0; e < x.nnz(); ++e) {
    EXPECT_EQ(x.entries()(e), y.entries()(e));
    EXPECT_EQ(x.values()(e), y.values()(e));
  }
}

/// The line a malformed file is reported at.
long error_line(const std::string& text) {
  const std::string path = write_text("bad.mtx", text);
  try {
    KokkosSpGEMM::read_matrix_market<double>(path);
  } catch (const FileError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    return e.line();
  }
  ADD_FAILURE() << "no FileError for:\n" << text;
  return -1;
}

TEST(MatrixMarket, round_trip_real_plain_and_gzip) {
  const auto a = KokkosSpGEMM::uniform_random<double, int, int>(30, 17, 4, 3);
  for (const char* name : {"rt.mtx", "rt.mtx.gz"}) {
    const std::string path = temp_path(name);
    KokkosSpGEMM::write_matrix_market(path, a);
    expect_same(KokkosSpGEMM::read_matrix_market<double>(path), a);
  }
}

TEST(MatrixMarket, round_trip_complex_and_empty_shapes) {
  const auto z = KokkosSpGEMM::uniform_random<Kokkos::complex<double>, int, int>(12, 9, 3, 4);
  const std::string path = temp_path("z.mtx.gz");
  KokkosSpGEMM::write_matrix_market(path, z);
  expect_same(KokkosSpGEMM::read_matrix_market<Kokkos::complex<double>>(path), z);
  for (auto shape : {std::pair<int, int>{0, 0}, {3, 0}, {0, 4}}) {
    const auto e = KokkosSpGEMM::uniform_random<double, int, int>(shape.first, shape.second, 2, 1);
    const std::string p = temp_path("empty.mtx");
    KokkosSpGEMM::write_matrix_market(p, e);
    expect_same(KokkosSpGEMM::read_matrix_market<double>(p), e);
  }
}

TEST(MatrixMarket, symmetric_kinds_are_expanded) {
  const auto s = KokkosSpGEMM::read_matrix_market<double>(
      write_text("s.mtx", "%%MatrixMarket matrix coordinate real symmetric\n% c\n3 3 3\n1 1 2\n3 1 5\n2 2 1\n"));
  ASSERT_EQ(s.nnz(), 4u);  // (1,1) (1,3) (2,2) (3,1)
  EXPECT_EQ(s.entries()(1), 2);
  EXPECT_EQ(s.values()(1), 5.0);
  EXPECT_EQ(s.values()(3), 5.0);
  const auto k = KokkosSpGEMM::read_matrix_market<double>(
      write_text("k.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 3\n"));
  ASSERT_EQ(k.nnz(), 2u);
  EXPECT_EQ(k.values()(0), -3.0);  // (1,2)
  EXPECT_EQ(k.values()(1), 3.0);   // (2,1)
  const auto h = KokkosSpGEMM::read_matrix_market<Kokkos::complex<double>>(
      write_text("h.mtx", "%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n1 1 4 0\n2 1 1 2\n"));
  ASSERT_EQ(h.nnz(), 3u);
  EXPECT_EQ(h.values()(1), Kokkos::complex<double>(1, -2));  // (1,2) = conj
  EXPECT_EQ(h.values()(2), Kokkos::complex<double>(1, 2));
}

TEST(MatrixMarket, pattern_integer_duplicates_and_explicit_zeros) {
  const std::string pattern =
      write_text("p.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 3 3\n1 3\n2 1\n1 1\n");
  const auto ones = KokkosSpGEMM::read_matrix_market<double>(pattern);
  ASSERT_EQ(ones.nnz(), 3u);
  for (std::size_t e = 0; e < 3; ++e) EXPECT_EQ(ones.values()(e), 1.0);
  KokkosSpGEMM::MatrixMarketOptions random;
  random.pattern_values = KokkosSpGEMM::PatternValues::Random;
  const auto r1 = KokkosSpGEMM::read_matrix_market<double>(pattern, random);
  const auto r2 = KokkosSpGEMM::read_matrix_market<double>(pattern, random);
  for (std::size_t e = 0; e < 3; ++e) {
    EXPECT_GT(r1.values()(e), 0.0);
    EXPECT_LE(r1.values()(e), 1.0);
    EXPECT_EQ(r1.values()(e), r2.values()(e));
  }
  const auto d = KokkosSpGEMM::read_matrix_market<double>(
      write_text("d.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 4\n1 2 3\n1 2 4\n2 2 0\n1 1 -1\n"));
  ASSERT_EQ(d.nnz(), 3u);
  EXPECT_EQ(d.values()(1), 7.0);  // duplicates summed
  EXPECT_EQ(d.values()(2), 0.0);  // explicit zero kept
}

TEST(MatrixMarket, malformed_files_name_the_line) {
  EXPECT_EQ(error_line("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n"), 4);         // truncated
  EXPECT_EQ(error_line("hello\n"), 1);                                                               // banner
  EXPECT_EQ(error_line("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n"), 1);           // array
  EXPECT_EQ(error_line("%%MatrixMarket matrix coordinate real weird\n1 1 1\n1 1 1\n"), 1);           // symmetry
  EXPECT_EQ(error_line("%%MatrixMarket matrix coordinate float general\n1 1 1\n1 1 1\n"), 1);        // field
  EXPECT_EQ(error_line("%%MatrixMarket matrix coordinate real general\n% x\n2 two 1\n1 1 1\n"), 3);  // size line
  EXPECT_EQ(error_line("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n"), 3);         // row out of range
  EXPECT_EQ(error_line("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 0 1\n"), 3);         // column 0
  EXPECT_EQ(error_line("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 x\n"), 3);         // non-numeric
  EXPECT_EQ(error_line("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2\n"), 4);    // missing value
  EXPECT_EQ(error_line("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 2\n"), 4);  // extra entry
  EXPECT_EQ(error_line("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 1\n"), 3);  // skew diagonal
  EXPECT_EQ(error_line("%%MatrixMarket matrix coordinate real general\n"), 2);                       // no size line
  EXPECT_EQ(error_line(""), 1);
  EXPECT_THROW(KokkosSpGEMM::read_matrix_market<double>(temp_path("does_not_exist.mtx")), FileError);
  EXPECT_THROW(KokkosSpGEMM::read_matrix_market<double>(
                   write_text("c.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 2\n")),
               KokkosSpGEMM::InvalidInput);
}

TEST(MatrixMarket, sizes_beyond_the_index_types_overflow) {
  const std::string big =
      write_text("big.mtx", "%%MatrixMarket matrix coordinate real general\n3000000000 2 1\n1 1 1\n");
  EXPECT_THROW(KokkosSpGEMM::read_matrix_market<double>(big), KokkosSpGEMM::IndexOverflow);
  const std::string many = write_text(
      "many.mtx", "%%MatrixMarket matrix coordinate real general\n1 200 200\n" + [] {
        std::string s;
        for (int j = 1; j <= 200; ++j) s += "1 " + std::to_string(j) + " 1\n";
        return s;
      }());
  EXPECT_THROW((KokkosSpGEMM::read_matrix_market<double, int, signed char>(many)), KokkosSpGEMM::IndexOverflow);
}

TEST(MatrixMarket, every_shared_matrix_matches_the_manifest) {
  std::ifstream manifest(matrices_dir() + "/MANIFEST.csv");
  ASSERT_TRUE(manifest.good()) << matrices_dir();
  std::string line;
  std::getline(manifest, line);
  int read = 0;
  while (std::getline(manifest, line)) {
    std::vector<std::string> f;
    std::stringstream s(line);
    std::string field;
    while (f.size() < 6 && std::getline(s, field, ',')) f.push_back(field);
    const auto a = KokkosSpGEMM::read_matrix_market<double>(matrices_dir() + "/" + f[0] + ".mtx.gz");
    EXPECT_EQ(a.num_rows(), std::stoll(f[3])) << f[0];
    EXPECT_EQ(a.num_cols(), std::stoll(f[4])) << f[0];
    EXPECT_EQ(static_cast<long long>(a.nnz()), std::stoll(f[5])) << f[0];
    EXPECT_EQ(KokkosSpGEMM::csr_invariant_violation(a, true), "") << f[0];
    ++read;
  }
  EXPECT_EQ(read, 10);
}

}  // namespace
