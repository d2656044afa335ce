// Every SuiteSparse matrix of the test matrices (TestMatricesDir.hpp): A*A (A*A^T for rectangular ones) on
// TEST_EXECSPACE, checked against the reference and against the manifest's nnz(A*A) and product count.
#include <SpGEMMTestHelpers.hpp>

#include <cctype>
#include <fstream>
#include <sstream>

namespace KokkosSpGEMMTest {

struct ManifestRow {
  std::string name;
  std::int64_t rows = 0, cols = 0, mults = 0, nnz_aa = 0;
};

inline std::vector<ManifestRow> read_manifest() {
  std::ifstream in(test_matrices_dir() + "/MANIFEST.csv");
  std::vector<ManifestRow> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream s(line);
    std::string field;
    while (f.size() < 10 && std::getline(s, field, ',')) f.push_back(field);
    if (f.size() < 10) continue;
    rows.push_back({f[0], std::stoll(f[3]), std::stoll(f[4]), std::stoll(f[8]), std::stoll(f[9])});
  }
  return rows;
}

class SharedMatrix : public ::testing::TestWithParam<std::string> {};

TEST_P(SharedMatrix, times_itself_matches_reference_and_manifest) {
  using Exec = TEST_EXECSPACE;
  KOKKOSSPGEMM_NEED_TEST_MATRICES();
  ManifestRow m;
  for (const auto& r : read_manifest()) {
    if (r.name == GetParam()) m = r;
  }
  ASSERT_EQ(m.name, GetParam()) << "not in MANIFEST.csv";
  const auto a = KokkosSpGEMM::read_matrix_market<double, int, int>(test_matrices_dir() + "/" + m.name + ".mtx.gz");
  const auto b = m.rows == m.cols ? a : transpose_host(a);
  Exec exec;
  const auto da = KokkosSpGEMM::copy_to(exec, a);
  const auto db = KokkosSpGEMM::copy_to(exec, b);
  KokkosSpGEMM::Handle<Exec, double> handle;
  KokkosSpGEMM::CsrMatrix<double, int, int, Exec::memory_space> c;
  KokkosSpGEMM::spgemm_symbolic(exec, handle, da, db, c);
  KokkosSpGEMM::spgemm_numeric(exec, handle, da, db, c);
  EXPECT_EQ(handle.products(), m.mults);
  EXPECT_EQ(handle.nnz(), m.nnz_aa);
  const auto cmp = KokkosSpGEMM::compare_to_reference(c, a, b);
  EXPECT_TRUE(cmp.ok) << cmp.message;
  // The product totals come from the row bounds' reduction (CPUs' dense rows in order) or, for binned rows, with
  // the bins' counts: both must give the manifest's products and the longest row's.
  const std::int64_t longest = product_totals(a, b).second;
  EXPECT_EQ(handle.max_row_products(), longest);
  TestOptions hashed;
  hashed.algorithm = KokkosSpGEMM::Algorithm::Hash;
  KokkosSpGEMM::Handle<Exec, double> binned(hashed);
  KokkosSpGEMM::spgemm_symbolic(exec, binned, da, db, c);
  EXPECT_EQ(binned.products(), m.mults);
  EXPECT_EQ(binned.max_row_products(), longest);
  EXPECT_EQ(binned.nnz(), m.nnz_aa);
}

INSTANTIATE_TEST_SUITE_P(TEST_CATEGORY, SharedMatrix,
                         ::testing::Values("ca-CondMat", "p2p-Gnutella31", "cage11", "ct2010", "usroads-48",
                                           "PGPgiantcompo", "bcsstk13", "sinc18", "rajat01", "lp_e226"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& ch : name) ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           return name;
                         });

}  // namespace KokkosSpGEMMTest
