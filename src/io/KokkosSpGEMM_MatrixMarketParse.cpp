// Matrix Market coordinate reader and writer. The whole file is decompressed through zlib (gzread recognises gzip by
// its magic bytes and passes plain files through), then parsed in place line by line, so that every malformed input
// becomes a FileError naming its line and nothing partial is ever returned.
#include <io/KokkosSpGEMM_MatrixMarketParse.hpp>

#include <KokkosSpGEMM_Errors.hpp>

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <utility>

namespace KokkosSpGEMM {
namespace Impl {
namespace {

struct GzCloser {
  void operator()(gzFile f) const { gzclose(f); }
};
using GzHandle = std::unique_ptr<gzFile_s, GzCloser>;

/// The line a text ends in: where a truncated stream was cut.
long last_line(const std::string& text) { return 1 + static_cast<long>(std::count(text.begin(), text.end(), '\n')); }

std::string read_all(const std::string& path) {
  errno = 0;
  GzHandle f(gzopen(path.c_str(), "rb"));
  if (!f) throw FileError(path, 0, std::string("cannot open file: ") + std::strerror(errno ? errno : ENOMEM));
  gzbuffer(f.get(), 1 << 18);
  std::string text;
  while (true) {
    // Chunks grow with the text (64 KiB up to 4 MiB), so that a small file costs no 4 MiB zero-filled buffer.
    const unsigned chunk =
        static_cast<unsigned>(std::min<std::size_t>(std::max<std::size_t>(text.size(), 1 << 16), 1 << 22));
    const std::size_t old = text.size();
    text.resize(old + chunk);
    const int n = gzread(f.get(), &text[old], chunk);
    text.resize(old + static_cast<std::size_t>(std::max(n, 0)));
    if (n <= 0) break;
  }
  // gzread reports a gzip stream cut short only through gzerror (Z_BUF_ERROR), never through its return value.
  int code = Z_OK;
  const char* message = gzerror(f.get(), &code);
  if (code == Z_ERRNO) throw FileError(path, 0, std::string("read error: ") + std::strerror(errno));
  if (code != Z_OK) {
    std::string why = message ? message : "";
    if (why.compare(0, path.size() + 2, path + ": ") == 0) why.erase(0, path.size() + 2);  // zlib prefixes the path
    throw FileError(path, last_line(text), "corrupt or truncated gzip data: " + why);
  }
  return text;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

bool equal_nocase(const std::string& a, const char* b) {
  if (a.size() != std::strlen(b)) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
  }
  return true;
}

/// Walks the lines of the text without copying them; knows the 1-based number of the current line.
class Lines {
 public:
  explicit Lines(const std::string& text) : m_p(text.data()), m_end(text.data() + text.size()) {}
  bool next() {
    if (m_p == m_end) return false;
    const char* newline = static_cast<const char*>(std::memchr(m_p, '\n', static_cast<std::size_t>(m_end - m_p)));
    m_begin = m_p;
    m_stop = newline ? newline : m_end;
    m_p = newline ? newline + 1 : m_end;
    ++m_number;
    return true;
  }
  /// Blank lines and % comments carry no data.
  bool is_data() const {
    const char* p = m_begin;
    while (p != m_stop && is_space(*p)) ++p;
    return p != m_stop && *p != '%';
  }
  const char* begin() const { return m_begin; }
  const char* end() const { return m_stop; }
  long number() const { return m_number; }

 private:
  const char* m_p;
  const char* m_end;
  const char* m_begin = nullptr;
  const char* m_stop = nullptr;
  long m_number = 0;
};

/// Whitespace-separated tokens of one line; every failure names the file, the line and the token.
class Tokens {
 public:
  Tokens(const std::string& path, const Lines& line)
      : m_path(path), m_line(line.number()), m_p(line.begin()), m_end(line.end()) {}

  bool done() {
    skip();
    return m_p == m_end;
  }
  std::string word(const char* what) {
    const auto t = token(what);
    return std::string(t.first, t.second);
  }
  std::int64_t integer(const char* what) {
    auto t = token(what);
    const char* b = plus(t);
    std::int64_t v = 0;
    const auto r = std::from_chars(b, t.second, v);
    if (r.ec == std::errc::result_out_of_range) fail(std::string(what) + " '" + text(t) + "' is out of range");
    if (r.ec != std::errc() || r.ptr != t.second) fail(std::string("bad ") + what + " '" + text(t) + "'");
    return v;
  }
  double real(const char* what) {
    auto t = token(what);
    const char* b = plus(t);
    double v = 0;
    const auto r = std::from_chars(b, t.second, v);
    if (r.ec == std::errc::result_out_of_range && r.ptr == t.second) {
      v = std::strtod(text(t).c_str(), nullptr);  // underflow or overflow: keep what strtod rounds to (0 or inf)
    } else if (r.ec != std::errc() || r.ptr != t.second) {
      fail(std::string("bad ") + what + " '" + text(t) + "'");
    }
    return v;
  }
  void finish(const char* context) {
    if (!done()) fail(std::string("unexpected '") + word("") + "' after " + context);
  }
  [[noreturn]] void fail(const std::string& what) const { throw FileError(m_path, m_line, what); }

 private:
  using Token = std::pair<const char*, const char*>;
  void skip() {
    while (m_p != m_end && is_space(*m_p)) ++m_p;
  }
  Token token(const char* what) {
    skip();
    if (m_p == m_end) fail(std::string("missing ") + what);
    const char* b = m_p;
    while (m_p != m_end && !is_space(*m_p)) ++m_p;
    return {b, m_p};
  }
  // from_chars takes no leading '+', which some writers emit.
  static const char* plus(const Token& t) {
    return (t.second - t.first > 1 && *t.first == '+' && t.first[1] != '-' && t.first[1] != '+') ? t.first + 1
                                                                                                 : t.first;
  }
  static std::string text(const Token& t) { return std::string(t.first, t.second); }

  const std::string& m_path;
  long m_line;
  const char* m_p;
  const char* m_end;
};

void parse_banner(const std::string& path, const Lines& line, CooData& out) {
  Tokens t(path, line);
  if (t.done() || !equal_nocase(t.word("banner"), "%%matrixmarket")) {
    t.fail("missing '%%MatrixMarket matrix coordinate <field> <symmetry>' banner on the first line");
  }
  const std::string object = t.word("object in the banner (matrix)");
  if (!equal_nocase(object, "matrix")) t.fail("unsupported object '" + object + "': only 'matrix'");
  const std::string format = t.word("format in the banner (coordinate)");
  if (equal_nocase(format, "array")) t.fail("the dense 'array' format is not supported: only 'coordinate'");
  if (!equal_nocase(format, "coordinate")) t.fail("unknown format '" + format + "': only 'coordinate'");
  const std::string field = t.word("field in the banner (real, integer, pattern or complex)");
  if (equal_nocase(field, "real")) {
    out.field = MatrixMarketField::Real;
  } else if (equal_nocase(field, "integer")) {
    out.field = MatrixMarketField::Integer;
  } else if (equal_nocase(field, "pattern")) {
    out.field = MatrixMarketField::Pattern;
  } else if (equal_nocase(field, "complex")) {
    out.field = MatrixMarketField::Complex;
  } else {
    t.fail("unknown field '" + field + "': real, integer, pattern or complex");
  }
  const std::string symmetry = t.word("symmetry in the banner (general, symmetric, skew-symmetric or hermitian)");
  if (equal_nocase(symmetry, "general")) {
    out.symmetry = MatrixMarketSymmetry::General;
  } else if (equal_nocase(symmetry, "symmetric")) {
    out.symmetry = MatrixMarketSymmetry::Symmetric;
  } else if (equal_nocase(symmetry, "skew-symmetric")) {
    out.symmetry = MatrixMarketSymmetry::SkewSymmetric;
  } else if (equal_nocase(symmetry, "hermitian")) {
    out.symmetry = MatrixMarketSymmetry::Hermitian;
  } else {
    t.fail("unknown symmetry '" + symmetry + "': general, symmetric, skew-symmetric or hermitian");
  }
  t.finish("the banner");
  if (out.symmetry == MatrixMarketSymmetry::Hermitian && out.field != MatrixMarketField::Complex) {
    t.fail("hermitian symmetry needs the complex field");
  }
  if (out.symmetry == MatrixMarketSymmetry::SkewSymmetric && out.field == MatrixMarketField::Pattern) {
    t.fail("skew-symmetric symmetry needs values, not the pattern field");
  }
}

std::uint64_t splitmix(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// 53 random bits mapped to (0, 1]: never 0, so that no random value turns an entry into an explicit zero.
double unit_interval(std::uint64_t h) { return static_cast<double>((h >> 11) + 1) * (1.0 / 9007199254740992.0); }

}  // namespace

CooData parse_matrix_market(const std::string& path) { return parse_matrix_market_text(read_all(path), path); }

CooData parse_matrix_market_text(const std::string& text, const std::string& path) {
  Lines lines(text);
  CooData out;
  if (!lines.next()) throw FileError(path, 1, "empty file: missing '%%MatrixMarket' banner");
  parse_banner(path, lines, out);

  std::int64_t declared = -1;
  while (declared < 0 && lines.next()) {
    if (!lines.is_data()) continue;
    Tokens t(path, lines);
    out.rows = t.integer("number of rows");
    out.cols = t.integer("number of columns");
    declared = t.integer("number of entries");
    t.finish("the size line (rows columns entries)");
    if (out.rows < 0 || out.cols < 0 || declared < 0) t.fail("negative size on the size line");
    if (out.symmetry != MatrixMarketSymmetry::General && out.rows != out.cols) {
      t.fail("a matrix stored as symmetric, skew-symmetric or hermitian must be square");
    }
  }
  if (declared < 0) throw FileError(path, lines.number() + 1, "missing size line (rows columns entries)");

  const bool mirror = out.symmetry != MatrixMarketSymmetry::General;
  const bool complex = out.field == MatrixMarketField::Complex;
  const bool pattern = out.field == MatrixMarketField::Pattern;
  // A data line takes at least 4 bytes, which bounds the reservation whatever the size line claims.
  const std::size_t reserve =
      static_cast<std::size_t>(std::min<std::int64_t>(declared, static_cast<std::int64_t>(text.size() / 4) + 1)) *
      (mirror ? 2 : 1);
  out.row.reserve(reserve);
  out.col.reserve(reserve);
  out.re.reserve(reserve);
  if (complex) out.im.reserve(reserve);

  std::int64_t seen = 0;
  while (lines.next()) {
    if (!lines.is_data()) continue;
    Tokens t(path, lines);
    if (seen == declared) t.fail("more entries than the " + std::to_string(declared) + " declared");
    const std::int64_t i = t.integer("row index");
    const std::int64_t j = t.integer("column index");
    if (i < 1 || i > out.rows || j < 1 || j > out.cols) {
      t.fail("index (" + std::to_string(i) + ", " + std::to_string(j) + ") outside the " + std::to_string(out.rows) +
             " x " + std::to_string(out.cols) + " matrix (indices are 1-based)");
    }
    const double re = pattern ? 1.0 : t.real("value");
    const double im = complex ? t.real("imaginary part") : 0.0;
    t.finish("the entry");
    if (out.symmetry == MatrixMarketSymmetry::SkewSymmetric && i == j) {
      t.fail("diagonal entry in a skew-symmetric matrix");
    }
    out.row.push_back(i - 1);
    out.col.push_back(j - 1);
    out.re.push_back(re);
    if (complex) out.im.push_back(im);
    if (mirror && i != j) {
      // (j, i) holds v, -v or conj(v); the file stores one triangle only.
      const bool skew = out.symmetry == MatrixMarketSymmetry::SkewSymmetric;
      out.row.push_back(j - 1);
      out.col.push_back(i - 1);
      out.re.push_back(skew ? -re : re);
      if (complex) out.im.push_back(out.symmetry == MatrixMarketSymmetry::Symmetric ? im : -im);
    }
    ++seen;
  }
  if (seen < declared) {
    throw FileError(
        path, lines.number() + 1,
        "file ends after " + std::to_string(seen) + " of the " + std::to_string(declared) + " declared entries");
  }
  return out;
}

void randomize_pattern_values(CooData& coo, std::uint64_t seed, bool complex) {
  if (coo.field != MatrixMarketField::Pattern) return;
  const bool symmetric = coo.symmetry != MatrixMarketSymmetry::General;
  const std::uint64_t base = splitmix(seed);
  if (complex) coo.im.resize(coo.re.size());
  for (std::size_t e = 0; e < coo.re.size(); ++e) {
    std::int64_t i = coo.row[e], j = coo.col[e];
    if (symmetric && i > j) std::swap(i, j);
    const std::uint64_t h = splitmix(splitmix(base ^ static_cast<std::uint64_t>(i)) ^ static_cast<std::uint64_t>(j));
    coo.re[e] = unit_interval(h);
    if (complex) coo.im[e] = unit_interval(splitmix(h));
  }
}

namespace {

CsrData sort_and_sum(CooData coo) {
  const std::size_t n = coo.row.size();
  const bool has_im = !coo.im.empty();
  // Stable counting sort by row keeps file order, then a per-row sort by (column, file position): duplicates end up
  // adjacent and are summed in file order. Rows read column-major come out sorted, so most rows skip the sort.
  std::vector<std::int64_t> start(static_cast<std::size_t>(coo.rows) + 1, 0);
  for (std::size_t e = 0; e < n; ++e) ++start[static_cast<std::size_t>(coo.row[e]) + 1];
  for (std::size_t i = 0; i < static_cast<std::size_t>(coo.rows); ++i) start[i + 1] += start[i];
  std::vector<std::size_t> order(n);
  {
    std::vector<std::int64_t> next(start.begin(), start.end() - 1);
    for (std::size_t e = 0; e < n; ++e)
      order[static_cast<std::size_t>(next[static_cast<std::size_t>(coo.row[e])]++)] = e;
  }
  const auto by_column = [&](std::size_t x, std::size_t y) {
    return coo.col[x] != coo.col[y] ? coo.col[x] < coo.col[y] : x < y;
  };

  CsrData out;
  out.rows = coo.rows;
  out.cols = coo.cols;
  out.complex = has_im;
  out.row_map.reserve(start.size());
  out.row_map.push_back(0);
  out.col.reserve(n);
  out.re.reserve(n);
  if (has_im) out.im.reserve(n);
  for (std::size_t i = 0; i < static_cast<std::size_t>(coo.rows); ++i) {
    const auto first = order.begin() + start[i], last = order.begin() + start[i + 1];
    if (!std::is_sorted(first, last, by_column)) std::sort(first, last, by_column);
    const std::size_t row_begin = out.col.size();
    for (auto it = first; it != last; ++it) {
      const std::size_t e = *it;
      if (out.col.size() > row_begin && out.col.back() == coo.col[e]) {
        out.re.back() += coo.re[e];
        if (has_im) out.im.back() += coo.im[e];
      } else {
        out.col.push_back(coo.col[e]);
        out.re.push_back(coo.re[e]);
        if (has_im) out.im.push_back(coo.im[e]);
      }
    }
    out.row_map.push_back(static_cast<std::int64_t>(out.col.size()));
  }
  return out;
}

}  // namespace

CsrData coo_to_csr(CooData coo) {
  // The row map is the one allocation sized by the size line rather than by the input, so a few bytes can ask for
  // more than memory holds: a typed error instead of std::length_error or std::bad_alloc.
  const std::string shape = std::to_string(coo.rows) + " x " + std::to_string(coo.cols) + " matrix with " +
                            std::to_string(coo.row.size()) + " entries";
  if (static_cast<std::uint64_t>(coo.rows) >= std::vector<std::int64_t>().max_size()) {
    throw OutOfMemory("KokkosSpGEMM::read_matrix_market: the row map of a " + shape + " exceeds the address space");
  }
  try {
    return sort_and_sum(std::move(coo));
  } catch (const std::bad_alloc&) {
    throw OutOfMemory("KokkosSpGEMM::read_matrix_market: cannot allocate the CSR arrays of a " + shape);
  }
}

void write_matrix_market_file(const std::string& path, const CsrData& a) {
  const std::size_t nnz = a.col.size();
  const char* function = "write_matrix_market";
  KOKKOSSPGEMM_REQUIRE(a.rows >= 0 && a.cols >= 0 && a.row_map.size() == static_cast<std::size_t>(a.rows) + 1 &&
                           a.row_map.front() == 0 && a.row_map.back() == static_cast<std::int64_t>(nnz) &&
                           a.re.size() == nnz && (!a.complex || a.im.size() == nnz),
                       InvalidInput, function,
                       path << ": inconsistent matrix (" << a.rows << " x " << a.cols << ", row map of "
                            << a.row_map.size() << ", " << nnz << " entries)");
  for (std::size_t i = 0; i < static_cast<std::size_t>(a.rows); ++i) {
    KOKKOSSPGEMM_REQUIRE(a.row_map[i] <= a.row_map[i + 1], InvalidInput, function,
                         path << ": row map decreases at row " << i);
  }
  for (std::size_t e = 0; e < nnz; ++e) {
    KOKKOSSPGEMM_REQUIRE(a.col[e] >= 0 && a.col[e] < a.cols, InvalidInput, function,
                         path << ": column index " << a.col[e] << " outside [0, " << a.cols << ")");
  }

  const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  errno = 0;
  gzFile f = gzopen(path.c_str(), gz ? "wb6" : "wbT");  // T: plain output through the same calls
  if (!f)
    throw FileError(path, 0, std::string("cannot open file for writing: ") + std::strerror(errno ? errno : ENOMEM));
  std::string buffer;
  const auto flush = [&]() {
    if (!buffer.empty() &&
        gzwrite(f, buffer.data(), static_cast<unsigned>(buffer.size())) != static_cast<int>(buffer.size())) {
      throw FileError(path, 0, "write error");
    }
    buffer.clear();
  };
  try {
    buffer = std::string("%%MatrixMarket matrix coordinate ") + (a.complex ? "complex" : "real") + " general\n" +
             std::to_string(a.rows) + " " + std::to_string(a.cols) + " " + std::to_string(nnz) + "\n";
    char line[160];
    for (std::size_t i = 0; i < static_cast<std::size_t>(a.rows); ++i) {
      for (auto e = static_cast<std::size_t>(a.row_map[i]); e < static_cast<std::size_t>(a.row_map[i + 1]); ++e) {
        const long long r = static_cast<long long>(i) + 1, c = static_cast<long long>(a.col[e]) + 1;
        const int n = a.complex ? std::snprintf(line, sizeof(line), "%lld %lld %.17g %.17g\n", r, c, a.re[e], a.im[e])
                                : std::snprintf(line, sizeof(line), "%lld %lld %.17g\n", r, c, a.re[e]);
        buffer.append(line, static_cast<std::size_t>(n));
        if (buffer.size() >= (1u << 20)) flush();
      }
    }
    flush();
  } catch (...) {
    gzclose(f);
    std::remove(path.c_str());
    throw;
  }
  // Buffered data reaches the disk only on close, so a full disk shows up here.
  if (gzclose(f) != Z_OK) {
    std::remove(path.c_str());
    throw FileError(path, 0, "write error on close");
  }
}

}  // namespace Impl
}  // namespace KokkosSpGEMM
