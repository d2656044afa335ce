// Matrix Market reading and writing: round trips, symmetry kinds, pattern values, duplicates and explicit zeros,
// every malformed case with its line number, and every shared SuiteSparse matrix against its manifest.
#include <KokkosSpGEMM_CsrMatrix.hpp>
#include <KokkosSpGEMM_Errors.hpp>
#include <io/KokkosSpGEMM_MatrixMarket.hpp>
#include <TestMatricesDir.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

using KokkosSpGEMM::FileError;
using KokkosSpGEMM::read_matrix_market;
using KokkosSpGEMM::write_matrix_market;
using Complex = Kokkos::complex<double>;
template <class S, class O = int, class F = int>
using HostCsr = KokkosSpGEMM::CsrMatrix<S, O, F, Kokkos::HostSpace>;

/// One scratch folder per test process (ctest runs every test in its own process), removed at exit.
class TempDir {
 public:
  TempDir() : m_path(std::filesystem::temp_directory_path() / ("kokkosspgemm_mm_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(m_path);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
  }
  std::string file(const std::string& name) const { return (m_path / name).string(); }

 private:
  std::filesystem::path m_path;
};

std::string temp_path(const std::string& name) {
  static TempDir dir;
  return dir.file(name);
}

std::string write_text(const std::string& name, const std::string& text) {
  const std::string path = temp_path(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string matrices_dir() { return KokkosSpGEMMTest::test_matrices_dir(); }

template <class S, class O = int, class F = int>
HostCsr<S, O, F> make_csr(O rows, O cols, const std::vector<F>& row_map, const std::vector<O>& entries,
                          const std::vector<S>& values) {
  HostCsr<S, O, F> a("test", rows, cols, entries.size());
  for (std::size_t i = 0; i < row_map.size(); ++i) a.row_map()(i) = row_map[i];
  for (std::size_t e = 0; e < entries.size(); ++e) {
    a.entries()(e) = entries[e];
    a.values()(e) = values[e];
  }
  return a;
}

template <class M>
void expect_same(const M& x, const M& y) {
  ASSERT_EQ(x.num_rows(), y.num_rows());
  ASSERT_EQ(x.num_cols(), y.num_cols());
  ASSERT_EQ(x.nnz(), y.nnz());
  ASSERT_EQ(x.row_map().extent(0), y.row_map().extent(0));
  for (std::size_t i = 0; i < x.row_map().extent(0); ++i) EXPECT_EQ(x.row_map()(i), y.row_map()(i)) << "row " << i;
  for (std::size_t e = 0; e < x.nnz(); ++e) {
    EXPECT_EQ(x.entries()(e), y.entries()(e)) << "entry " << e;
    EXPECT_EQ(x.values()(e), y.values()(e)) << "entry " << e;
  }
}

/// The first broken CSR invariant ("" when none): row map from 0 to nnz, monotone; columns in range, strictly sorted.
template <class M>
std::string csr_violation(const M& a) {
  const std::size_t n = static_cast<std::size_t>(a.num_rows());
  if (a.row_map().extent(0) != n + 1) return "row map length " + std::to_string(a.row_map().extent(0));
  if (a.row_map()(0) != 0) return "row map does not start at 0";
  if (static_cast<std::size_t>(a.row_map()(n)) != a.nnz()) return "row map does not end at nnz";
  for (std::size_t i = 0; i < n; ++i) {
    if (a.row_map()(i + 1) < a.row_map()(i)) return "row map decreases at row " + std::to_string(i);
    for (auto e = a.row_map()(i); e < a.row_map()(i + 1); ++e) {
      const auto j = a.entries()(e);
      if (j < 0 || j >= a.num_cols()) return "column out of range in row " + std::to_string(i);
      if (e > a.row_map()(i) && j <= a.entries()(e - 1))
        return "unsorted or duplicate column in row " + std::to_string(i);
    }
  }
  return "";
}

// ---------------------------------------------------------------------------------------------- round trips

TEST(MatrixMarket, round_trip_real_rectangular_plain_and_gzip) {
  // 4 x 6 with an empty row, an explicit zero and values that need all 17 digits.
  const auto a = make_csr<double>(4, 6, {0, 3, 3, 5, 7}, {0, 2, 5, 1, 4, 0, 5},
                                  {0.1, -1e-300, 1.0 / 3.0, 0.0, 1e300, -2.5, 3.141592653589793});
  for (const char* name : {"rt.mtx", "rt.mtx.gz"}) {
    const std::string path = temp_path(name);
    write_matrix_market(path, a);
    expect_same(read_matrix_market<double>(path), a);
  }
}

TEST(MatrixMarket, round_trip_complex_plain_and_gzip) {
  const auto z = make_csr<Complex>(2, 3, {0, 2, 3}, {0, 2, 1}, {Complex(1, -2), Complex(0.1, 1e-5), Complex(0, 0)});
  for (const char* name : {"z.mtx", "z.mtx.gz"}) {
    const std::string path = temp_path(name);
    write_matrix_market(path, z);
    expect_same(read_matrix_market<Complex>(path), z);
  }
}

TEST(MatrixMarket, round_trip_float_and_64_bit_indices) {
  const auto f = make_csr<float>(2, 2, {0, 1, 2}, {1, 0}, {0.1f, -3.25f});
  write_matrix_market(temp_path("f.mtx"), f);
  expect_same(read_matrix_market<float>(temp_path("f.mtx")), f);
  const auto l = make_csr<double, std::int64_t, std::size_t>(2, 5, {0, 1, 2}, {4, 0}, {2.0, 7.0});
  write_matrix_market(temp_path("l.mtx.gz"), l);
  expect_same((read_matrix_market<double, std::int64_t, std::size_t>(temp_path("l.mtx.gz"))), l);
}

TEST(MatrixMarket, round_trip_empty_matrices) {
  for (const auto& shape : std::vector<std::pair<int, int>>{{0, 0}, {3, 0}, {0, 4}, {5, 5}}) {
    SCOPED_TRACE(std::to_string(shape.first) + " x " + std::to_string(shape.second));
    const HostCsr<double> e("empty", shape.first, shape.second, 0);
    for (const char* name : {"e.mtx", "e.mtx.gz"}) {
      write_matrix_market(temp_path(name), e);
      expect_same(read_matrix_market<double>(temp_path(name)), e);
    }
  }
  write_matrix_market(temp_path("default.mtx"), HostCsr<double>());  // empty row map
  const auto d = read_matrix_market<double>(temp_path("default.mtx"));
  EXPECT_EQ(d.num_rows(), 0);
  EXPECT_EQ(d.nnz(), 0u);
}

TEST(MatrixMarket, writer_writes_a_general_banner_and_17_digits) {
  write_matrix_market(temp_path("w.mtx"), make_csr<double>(1, 2, {0, 1}, {1}, {0.1}));
  EXPECT_EQ(read_bytes(temp_path("w.mtx")),
            "%%MatrixMarket matrix coordinate real general\n1 2 1\n1 2 0.10000000000000001\n");
  write_matrix_market(temp_path("wz.mtx"), make_csr<Complex>(1, 1, {0, 1}, {0}, {Complex(1, -2)}));
  EXPECT_EQ(read_bytes(temp_path("wz.mtx")), "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 -2\n");
}

TEST(MatrixMarket, writer_rejects_a_broken_matrix) {
  const auto bad = make_csr<double>(1, 2, {0, 1}, {5}, {1.0});  // column 5 of a 2-column matrix
  EXPECT_THROW(write_matrix_market(temp_path("bad_out.mtx"), bad), KokkosSpGEMM::InvalidInput);
  EXPECT_THROW(write_matrix_market(temp_path("no_such_dir/x.mtx"), make_csr<double>(1, 1, {0, 0}, {}, {})), FileError);
}

TEST(MatrixMarket, gzip_is_detected_by_content_not_name) {
  const auto a = make_csr<double>(2, 2, {0, 1, 2}, {1, 0}, {4.0, 5.0});
  write_matrix_market(temp_path("g.mtx.gz"), a);
  std::filesystem::rename(temp_path("g.mtx.gz"), temp_path("gzip_named_plain.mtx"));
  expect_same(read_matrix_market<double>(temp_path("gzip_named_plain.mtx")), a);
  write_matrix_market(temp_path("plain_named_gzip.mtx.gz.txt"), a);  // not ".gz": written plain
  std::filesystem::rename(temp_path("plain_named_gzip.mtx.gz.txt"), temp_path("plain_named_gzip.mtx.gz"));
  expect_same(read_matrix_market<double>(temp_path("plain_named_gzip.mtx.gz")), a);
}

// ---------------------------------------------------------------------------------------------- symmetry kinds

TEST(MatrixMarket, symmetric_is_expanded_to_both_triangles) {
  const auto s = read_matrix_market<double>(
      write_text("s.mtx", "%%MatrixMarket matrix coordinate real symmetric\n% c\n3 3 3\n1 1 2\n3 1 5\n3 2 -1\n"));
  expect_same(s, make_csr<double>(3, 3, {0, 2, 3, 5}, {0, 2, 2, 0, 1}, {2, 5, -1, 5, -1}));
}

TEST(MatrixMarket, skew_symmetric_mirror_is_negated) {
  const auto k = read_matrix_market<double>(
      write_text("k.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 3\n3 2 -4\n"));
  expect_same(k, make_csr<double>(3, 3, {0, 1, 3, 4}, {1, 0, 2, 1}, {-3, 3, 4, -4}));
}

TEST(MatrixMarket, hermitian_mirror_is_conjugated) {
  const auto h = read_matrix_market<Complex>(
      write_text("h.mtx", "%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n1 1 4 0\n2 1 1 2\n"));
  expect_same(h, make_csr<Complex>(2, 2, {0, 2, 3}, {0, 1, 0}, {Complex(4, 0), Complex(1, -2), Complex(1, 2)}));
}

TEST(MatrixMarket, complex_symmetric_mirror_is_not_conjugated) {
  const auto s = read_matrix_market<Complex>(
      write_text("cs.mtx", "%%MatrixMarket matrix coordinate complex symmetric\n2 2 1\n2 1 1 2\n"));
  expect_same(s, make_csr<Complex>(2, 2, {0, 1, 2}, {1, 0}, {Complex(1, 2), Complex(1, 2)}));
}

// ---------------------------------------------------------------------------------------------- values

TEST(MatrixMarket, pattern_values_are_ones) {
  const auto p = read_matrix_market<double>(
      write_text("p.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 3 3\n1 3\n2 1\n1 1\n"));
  expect_same(p, make_csr<double>(2, 3, {0, 2, 3}, {0, 2, 0}, {1, 1, 1}));
}

TEST(MatrixMarket, pattern_random_values_are_deterministic_in_unit_interval) {
  const std::string path =
      write_text("pr.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 4\n1 3\n2 1\n1 1\n3 2\n");
  KokkosSpGEMM::MatrixMarketOptions options;
  options.pattern_values = KokkosSpGEMM::PatternValues::Random;
  const auto r1 = read_matrix_market<double>(path, options);
  expect_same(read_matrix_market<double>(path, options), r1);
  options.seed = 7;
  const auto r2 = read_matrix_market<double>(path, options);
  ASSERT_EQ(r1.nnz(), 4u);
  bool differs = false;
  for (std::size_t e = 0; e < r1.nnz(); ++e) {
    EXPECT_GT(r1.values()(e), 0.0);
    EXPECT_LE(r1.values()(e), 1.0);
    differs = differs || r1.values()(e) != r2.values()(e);
  }
  EXPECT_TRUE(differs) << "another seed should give other values";
}

TEST(MatrixMarket, pattern_random_values_keep_a_symmetric_file_symmetric) {
  KokkosSpGEMM::MatrixMarketOptions options;
  options.pattern_values = KokkosSpGEMM::PatternValues::Random;
  const auto s = read_matrix_market<double>(
      write_text("ps.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n2 1\n2 2\n"), options);
  ASSERT_EQ(s.nnz(), 3u);  // (0,1) (1,0) (1,1)
  EXPECT_EQ(s.values()(0), s.values()(1));
  EXPECT_NE(s.values()(0), s.values()(2));
}

TEST(MatrixMarket, entries_are_sorted_by_row_then_column) {
  const auto a = read_matrix_market<double>(
      write_text("u.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 4\n3 3 1\n1 3 2\n1 1 3\n2 2 4\n"));
  expect_same(a, make_csr<double>(3, 3, {0, 2, 3, 4}, {0, 2, 1, 2}, {3, 2, 4, 1}));
}

TEST(MatrixMarket, duplicates_are_summed) {
  const auto a = read_matrix_market<double>(
      write_text("d.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 4\n1 2 3\n2 2 0.5\n1 2 4\n1 2 -1\n"));
  expect_same(a, make_csr<double>(2, 2, {0, 1, 2}, {1, 1}, {6, 0.5}));
  const auto s = read_matrix_market<double>(
      write_text("ds.mtx", "%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n2 1 1\n2 1 2\n"));
  expect_same(s, make_csr<double>(2, 2, {0, 1, 2}, {1, 0}, {3, 3}));
}

TEST(MatrixMarket, explicit_zeros_are_kept) {
  const auto a = read_matrix_market<double>(
      write_text("ez.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 4\n1 1 0\n2 2 0.0\n1 2 1\n1 2 -1\n"));
  expect_same(a, make_csr<double>(2, 2, {0, 2, 3}, {0, 1, 1}, {0, 0, 0}));  // cancelling duplicates stay too
}

TEST(MatrixMarket, comments_blank_lines_crlf_and_integer_values_are_accepted) {
  const auto a = read_matrix_market<double>(write_text(
      "crlf.mtx",
      "%%MatrixMarket MATRIX Coordinate Integer General\r\n% c\r\n\r\n2 2 2\r\n% mid\r\n\r\n 1  2\t+5 \r\n2 1 -7"));
  expect_same(a, make_csr<double>(2, 2, {0, 1, 2}, {1, 0}, {5, -7}));
}

TEST(MatrixMarket, complex_file_into_real_scalar_throws_invalid_input) {
  const std::string path = write_text("c.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 2\n");
  try {
    read_matrix_market<double>(path);
    FAIL() << "no exception";
  } catch (const KokkosSpGEMM::InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_matrix_market<Complex>(path).values()(0), Complex(1, 2));
}

// ---------------------------------------------------------------------------------------------- index overflow

/// The message of the IndexOverflow that reading path throws.
template <class O, class F>
std::string overflow_message(const std::string& path) {
  try {
    read_matrix_market<double, O, F>(path);
  } catch (const KokkosSpGEMM::IndexOverflow& e) {
    return e.what();
  }
  ADD_FAILURE() << "no IndexOverflow for " << path;
  return "";
}

TEST(MatrixMarket, dimensions_beyond_ordinal_throw_index_overflow) {
  const std::string rows =
      write_text("big_rows.mtx", "%%MatrixMarket matrix coordinate real general\n3000000000 2 1\n1 1 1\n");
  EXPECT_NE((overflow_message<int, int>(rows).find("number of rows")), std::string::npos);
  const std::string cols = write_text("big_cols.mtx", "%%MatrixMarket matrix coordinate real general\n2 40000 0\n");
  const std::string message = overflow_message<short, int>(cols);
  EXPECT_NE(message.find("number of columns"), std::string::npos) << message;
  EXPECT_NE(message.find("Ordinal"), std::string::npos) << message;
  EXPECT_EQ((read_matrix_market<double, int, int>(cols).num_cols()), 40000);
}

TEST(MatrixMarket, stored_entries_beyond_offset_throw_index_overflow) {
  std::string distinct = "%%MatrixMarket matrix coordinate real general\n1 200 200\n";
  std::string repeated = distinct;
  for (int j = 1; j <= 200; ++j) {
    distinct += "1 " + std::to_string(j) + " 1\n";
    repeated += "1 1 1\n";
  }
  const std::string message = overflow_message<int, signed char>(write_text("many.mtx", distinct));
  EXPECT_NE(message.find("number of stored entries"), std::string::npos) << message;
  EXPECT_NE(message.find("Offset"), std::string::npos) << message;
  // Counted after duplicates are summed: 200 copies of one entry fit.
  const auto one = read_matrix_market<double, int, signed char>(write_text("repeated.mtx", repeated));
  EXPECT_EQ(one.nnz(), 1u);
  EXPECT_EQ(one.values()(0), 200.0);
}

// ---------------------------------------------------------------------------------------------- malformed files

struct Malformed {
  std::string name;
  std::string text;
  long line;
};
void PrintTo(const Malformed& m, std::ostream* os) { *os << m.name; }

const std::string kReal = "%%MatrixMarket matrix coordinate real general\n";

std::vector<Malformed> malformed_cases() {
  return {
      {"empty_file", "", 1},
      {"missing_banner", "hello\n1 1 1\n1 1 1\n", 1},
      {"banner_after_a_comment", "% c\n" + kReal + "1 1 0\n", 1},
      {"incomplete_banner", "%%MatrixMarket matrix coordinate real\n1 1 0\n", 1},
      {"extra_word_in_banner", "%%MatrixMarket matrix coordinate real general x\n1 1 0\n", 1},
      {"array_format", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1},
      {"unknown_object", "%%MatrixMarket vector coordinate real general\n1 1 0\n", 1},
      {"unknown_field", "%%MatrixMarket matrix coordinate float general\n1 1 1\n1 1 1\n", 1},
      {"unknown_symmetry", "%%MatrixMarket matrix coordinate real weird\n1 1 1\n1 1 1\n", 1},
      {"hermitian_real_field", "%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", 1},
      {"skew_symmetric_pattern", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n1 1 0\n", 1},
      {"missing_size_line", kReal + "% c\n\n", 4},
      {"non_numeric_size", kReal + "% c\n2 two 1\n1 1 1\n", 3},
      {"size_line_missing_entries", kReal + "2 2\n", 2},
      {"negative_size", kReal + "-1 2 0\n", 2},
      {"size_line_extra_token", kReal + "2 2 1 5\n1 1 1\n", 2},
      {"symmetric_not_square", "%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n", 2},
      {"row_index_zero", kReal + "2 2 1\n0 1 1\n", 3},
      {"row_index_too_large", kReal + "2 2 1\n3 1 1\n", 3},
      {"column_index_zero", kReal + "2 2 1\n1 0 1\n", 3},
      {"column_index_too_large", kReal + "2 2 1\n1 3 1\n", 3},
      {"fractional_index", kReal + "2 2 1\n1.5 1 1\n", 3},
      {"non_numeric_index", kReal + "2 2 1\n1 a 1\n", 3},
      {"non_numeric_value", kReal + "2 2 1\n1 1 x\n", 3},
      {"value_with_trailing_garbage", kReal + "2 2 1\n1 1 1.5abc\n", 3},
      {"nul_byte_in_value", kReal + "2 2 1\n1 1 1" + std::string(1, '\0') + "\n", 3},
      {"missing_value", kReal + "2 2 2\n1 1 1\n2 2\n", 4},
      {"missing_imaginary_part", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 2\n", 3},
      {"value_in_pattern_file", "%%MatrixMarket matrix coordinate pattern general\n1 1 1\n1 1 1\n", 3},
      {"extra_value", kReal + "2 2 1\n1 1 1 2\n", 3},
      {"fewer_entries_than_declared", kReal + "2 2 2\n1 1 1\n", 4},
      {"more_entries_than_declared", kReal + "2 2 1\n1 1 1\n% c\n2 2 2\n", 5},
      {"skew_symmetric_diagonal", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 1\n", 3},
  };
}

class MatrixMarketMalformed : public ::testing::TestWithParam<Malformed> {};

TEST_P(MatrixMarketMalformed, throws_file_error_at_line) {
  const std::string path = write_text("malformed_" + GetParam().name + ".mtx", GetParam().text);
  try {
    read_matrix_market<double>(path);
    FAIL() << "no FileError";
  } catch (const FileError& e) {
    EXPECT_EQ(e.line(), GetParam().line) << e.what();
    EXPECT_EQ(e.file(), path);
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(MatrixMarket, MatrixMarketMalformed, ::testing::ValuesIn(malformed_cases()),
                         [](const ::testing::TestParamInfo<Malformed>& info) { return info.param.name; });

TEST(MatrixMarket, array_format_error_says_it_is_unsupported) {
  try {
    read_matrix_market<double>(write_text("array.mtx", "%%MatrixMarket matrix array real general\n1 1\n1\n"));
    FAIL() << "no FileError";
  } catch (const FileError& e) {
    EXPECT_NE(std::string(e.what()).find("not supported"), std::string::npos) << e.what();
  }
}

TEST(MatrixMarket, missing_file_throws_file_error) {
  const std::string path = temp_path("does_not_exist.mtx");
  try {
    read_matrix_market<double>(path);
    FAIL() << "no FileError";
  } catch (const FileError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), 0);  // not tied to a line
  }
}

TEST(MatrixMarket, truncated_gzip_throws_file_error) {
  std::vector<int> row_map{0}, entries;
  std::vector<double> values;
  for (int i = 0; i < 2000; ++i) {
    entries.push_back(i);
    values.push_back(1.0 / (i + 1));
    row_map.push_back(i + 1);
  }
  write_matrix_market(temp_path("full.mtx.gz"), make_csr<double>(2000, 2000, row_map, entries, values));
  const std::string gz = read_bytes(temp_path("full.mtx.gz"));
  // Cut in the middle of the deflate data, and cut only the CRC/length trailer: both must be noticed.
  for (std::size_t keep : {gz.size() / 2, gz.size() - 4}) {
    SCOPED_TRACE("kept " + std::to_string(keep) + " of " + std::to_string(gz.size()) + " bytes");
    const std::string path = write_text("cut.mtx.gz", gz.substr(0, keep));
    try {
      read_matrix_market<double>(path);
      ADD_FAILURE() << "no FileError";
    } catch (const FileError& e) {
      EXPECT_EQ(e.file(), path);
      EXPECT_GT(e.line(), 0) << e.what();
    }
  }
}

TEST(MatrixMarket, rows_beyond_the_address_space_throw_out_of_memory) {
  // A size line declares up to 2^63 - 1 rows in a few bytes and the row map needs rows + 1 offsets: that must be a
  // typed error, not std::length_error (found by fuzz/FuzzMatrixMarket.cpp).
  const std::string path =
      write_text("huge_rows.mtx", "%%MatrixMarket matrix coordinate real general\n4611686018427387904 2 1\n1 1 1\n");
  EXPECT_THROW((read_matrix_market<double, std::int64_t, std::int64_t>(path)), KokkosSpGEMM::OutOfMemory);
}

TEST(MatrixMarket, in_memory_parse_matches_the_file_parse) {
  const std::string text = "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n2 1 3\n2 2 4\n";
  const auto from_text = KokkosSpGEMM::Impl::parse_matrix_market_text(text, "memory");
  const auto from_file = KokkosSpGEMM::Impl::parse_matrix_market(write_text("text.mtx", text));
  EXPECT_EQ(from_text.row, from_file.row);
  EXPECT_EQ(from_text.col, from_file.col);
  EXPECT_EQ(from_text.re, from_file.re);
  try {
    KokkosSpGEMM::Impl::parse_matrix_market_text(kReal + "2 2 1\n3 1 1\n", "memory");
    FAIL() << "no FileError";
  } catch (const FileError& e) {
    EXPECT_EQ(e.file(), "memory");
    EXPECT_EQ(e.line(), 3);
  }
}

// ---------------------------------------------------------------------------------------------- shared matrices

/// Splits one CSV line; quoted fields may hold commas.
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"' && quoted && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  return fields;
}

TEST(MatrixMarket, every_shared_matrix_matches_the_manifest) {
  KOKKOSSPGEMM_NEED_TEST_MATRICES();
  std::ifstream manifest(matrices_dir() + "/MANIFEST.csv");
  ASSERT_TRUE(manifest.good()) << matrices_dir();
  std::string line;
  std::getline(manifest, line);
  std::map<std::string, std::size_t> column;
  const auto header = split_csv(line);
  for (std::size_t c = 0; c < header.size(); ++c) column[header[c]] = c;
  for (const char* name : {"name", "rows", "cols", "nnz"}) ASSERT_TRUE(column.count(name)) << name;
  // Explicit zeros the manifest notes mention: they are structural entries and must survive the read.
  const std::map<std::string, std::size_t> explicit_zeros{{"p2p-Gnutella31", 14989}, {"sinc18", 25130}};
  int read = 0;
  while (std::getline(manifest, line)) {
    if (line.empty() || line == "\r") continue;
    const auto f = split_csv(line);
    ASSERT_GT(f.size(), column["nnz"]) << line;
    const std::string& name = f[column["name"]];
    SCOPED_TRACE(name);
    const auto a = read_matrix_market<double, int, int>(matrices_dir() + "/" + name + ".mtx.gz");
    EXPECT_EQ(a.num_rows(), std::stoll(f[column["rows"]]));
    EXPECT_EQ(a.num_cols(), std::stoll(f[column["cols"]]));
    EXPECT_EQ(static_cast<long long>(a.nnz()), std::stoll(f[column["nnz"]]));
    EXPECT_EQ(csr_violation(a), "");
    if (explicit_zeros.count(name)) {
      std::size_t zeros = 0;
      for (std::size_t e = 0; e < a.nnz(); ++e) zeros += a.values()(e) == 0.0;
      EXPECT_EQ(zeros, explicit_zeros.at(name));
    }
    ++read;
  }
  EXPECT_GE(read, 10);
}

}  // namespace
