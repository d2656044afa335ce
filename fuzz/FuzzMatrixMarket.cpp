// libFuzzer target over the Matrix Market reader: any input must either parse into a valid CSR matrix or throw a
// KokkosSpGEMM::Error; the file path (plain and gzip) must agree with the in-memory parse, and what the writer writes
// must read back the same. Anything else (another exception, a crash, a sanitizer report) is a finding.
#include <KokkosSpGEMM_Errors.hpp>
#include <io/KokkosSpGEMM_MatrixMarketParse.hpp>

#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

using KokkosSpGEMM::Impl::CooData;
using KokkosSpGEMM::Impl::CsrData;

/// A row map is legitimately sized by the size line, so the harness converts only matrices of at most this many
/// rows to CSR: a 30-byte file declaring 10^9 rows would otherwise spend the fuzzer's memory on a valid matrix.
constexpr std::int64_t kMaxCsrRows = 1 << 16;

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "FuzzMatrixMarket finding: %s\n", what.c_str());
  std::abort();
}

/// One scratch file per process, for the reader's file path (gzread) and the writer; removed at exit. The name is
/// never destroyed: a static std::string would be destroyed before the atexit handler registered during its own
/// initialisation runs.
const std::string& scratch_path() {
  static const std::string* const path = [] {
    const char* dir = std::getenv("TMPDIR");
    auto* p = new std::string(std::string(dir && *dir ? dir : "/tmp") + "/kokkosspgemm_fuzz_XXXXXX");
    const int fd = ::mkstemp(&(*p)[0]);
    if (fd < 0) finding("cannot create a scratch file in " + *p);
    ::close(fd);
    std::atexit([] { std::remove(scratch_path().c_str()); });
    return p;
  }();
  return *path;
}

void write_file(const std::string& path, const std::string& bytes, bool gzip) {
  gzFile f = gzopen(path.c_str(), gzip ? "wb1" : "wbT");
  if (!f || (!bytes.empty() && gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())) <= 0) ||
      gzclose(f) != Z_OK) {
    finding("cannot write the scratch file " + path);
  }
}

/// The parse result or the message of the Error it threw; any other exception propagates to the fuzzer.
struct Outcome {
  bool ok = false;
  CooData coo;
  std::string error;
};

template <class F>
Outcome attempt(F&& parse) {
  Outcome o;
  try {
    o.coo = parse();
    o.ok = true;
  } catch (const KokkosSpGEMM::Error& e) {
    o.error = e.what();
  }
  return o;
}

bool same_doubles(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) return false;
  for (std::size_t k = 0; k < x.size(); ++k) {
    // NaN payloads need not survive a text round trip; everything else, signed zeros included, must.
    if (std::isnan(x[k]) ? !std::isnan(y[k]) : std::memcmp(&x[k], &y[k], sizeof(double)) != 0) return false;
  }
  return true;
}

void expect_same(const Outcome& a, const Outcome& b, const char* what) {
  if (a.ok != b.ok || a.error != b.error) finding(std::string(what) + ": '" + a.error + "' vs '" + b.error + "'");
  if (!a.ok) return;
  const CooData &x = a.coo, &y = b.coo;
  if (x.rows != y.rows || x.cols != y.cols || x.field != y.field || x.symmetry != y.symmetry || x.row != y.row ||
      x.col != y.col || !same_doubles(x.re, y.re) || !same_doubles(x.im, y.im)) {
    finding(std::string(what) + ": different entries");
  }
}

void check_csr(const CsrData& a, const CooData& coo) {
  const std::size_t n = a.col.size();
  if (a.rows != coo.rows || a.cols != coo.cols || a.row_map.size() != static_cast<std::size_t>(a.rows) + 1 ||
      a.row_map.front() != 0 || a.row_map.back() != static_cast<std::int64_t>(n) || a.re.size() != n ||
      a.im.size() != (coo.im.empty() ? 0 : n) || n > coo.row.size()) {
    finding("inconsistent CSR arrays");
  }
  for (std::size_t i = 0; i < static_cast<std::size_t>(a.rows); ++i) {
    if (a.row_map[i] > a.row_map[i + 1]) finding("row map decreases at row " + std::to_string(i));
  }
  for (std::size_t i = 0; i < static_cast<std::size_t>(a.rows); ++i) {
    for (auto e = static_cast<std::size_t>(a.row_map[i]); e < static_cast<std::size_t>(a.row_map[i + 1]); ++e) {
      if (a.col[e] < 0 || a.col[e] >= a.cols ||
          (e > static_cast<std::size_t>(a.row_map[i]) && a.col[e] <= a.col[e - 1])) {
        finding("row " + std::to_string(i) + " is not sorted, has duplicates or a column out of range");
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace KokkosSpGEMM::Impl;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const std::string& path = scratch_path();

  // The real entry point reads through zlib, which decompresses gzip input and passes anything else through.
  write_file(path, bytes, false);
  const Outcome from_file = attempt([&] { return parse_matrix_market(path); });
  // A gzip stream the fuzzer made has no plain text to compare with; its parse goes on to the CSR checks.
  const bool gzip_magic = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
  if (!gzip_magic) {
    const Outcome in_memory = attempt([&] { return parse_matrix_market_text(bytes, path); });
    expect_same(in_memory, from_file, "plain file vs in-memory parse");
    write_file(path, bytes, true);
    expect_same(in_memory, attempt([&] { return parse_matrix_market(path); }), "gzip file vs in-memory parse");
  }
  if (!from_file.ok) return 0;
  if (from_file.coo.rows > kMaxCsrRows) {
    // Beyond the address space the row map must fail with a typed error before allocating anything.
    if (static_cast<std::uint64_t>(from_file.coo.rows) >= std::vector<std::int64_t>().max_size()) {
      try {
        coo_to_csr(from_file.coo);
        finding("a row map beyond the address space did not throw");
      } catch (const KokkosSpGEMM::OutOfMemory&) {
      }
    }
    return 0;
  }

  CooData coo = from_file.coo;
  randomize_pattern_values(coo, size, (size & 1) != 0);
  CsrData csr = coo_to_csr(coo);
  check_csr(csr, coo);

  // What the writer writes reads back as the same matrix.
  write_matrix_market_file(path, csr);
  const CsrData back = coo_to_csr(parse_matrix_market(path));
  if (back.rows != csr.rows || back.cols != csr.cols || back.row_map != csr.row_map || back.col != csr.col ||
      !same_doubles(back.re, csr.re) || !same_doubles(back.im, csr.im)) {
    finding("the written matrix reads back differently");
  }
  return 0;
}
