// kokkosspgemm-mpi: distributed products of Tpetra matrices, ours against Tpetra's own in the same run.
//   mpirun -np N kokkosspgemm-mpi multiply --a A [--b B] [--layout L] [--repeat K] [--out C.mtx] [--no-tpetra]
//   mpirun -np N kokkosspgemm-mpi rap --a A --p P [--layout L] [--repeat K] [--out Ac.mtx] [--no-tpetra]
// Rank 0 reads (Matrix Market, plain or gzip, or a generator) and the rows are spread by the layout. Times are the
// slowest rank's (each call between two barriers), medians of K; the import and local parts are maxima over ranks.
#include <distributed/KokkosSpGEMM_Tpetra.hpp>
#include <distributed/KokkosSpGEMM_TpetraMatrices.hpp>
#include <io/KokkosSpGEMM_InputSpec.hpp>

#include <MatrixMarket_Tpetra.hpp>
#include <TpetraExt_MatrixMatrix.hpp>
#include <TpetraExt_TripleMatrixMultiply.hpp>
#include <Tpetra_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace {

using Matrix = Tpetra::CrsMatrix<double>;
using Map = Matrix::map_type;
using GO = Matrix::global_ordinal_type;
using LO = Matrix::local_ordinal_type;
using Node = Matrix::node_type;
using Host = KokkosSpGEMM::CsrMatrix<double, int, std::int64_t, Kokkos::HostSpace>;
namespace D = KokkosSpGEMM::Distributed;

const char* usage =
    "usage:\n"
    "  mpirun -np N kokkosspgemm-mpi multiply --a A [--b B] [--layout L] [--repeat K] [--out C.mtx] [--no-tpetra]\n"
    "  mpirun -np N kokkosspgemm-mpi rap --a A --p P [--layout L] [--repeat K] [--out Ac.mtx] [--no-tpetra]\n"
    "L: contiguous (default), cyclic, random, first-empty. rap computes P^T*A*P (P^T never formed by the caller).\n"
    "Matrices as for kokkosspgemm (FILE.mtx[.gz] or gen:...), read on rank 0.\n";

struct Args {
  std::string command;
  std::map<std::string, std::string> flags;
};

Args parse(int argc, char** argv) {
  Args args;
  if (argc < 2) throw KokkosSpGEMM::InvalidInput(usage);
  args.command = argv[1];
  if (args.command != "multiply" && args.command != "rap") throw KokkosSpGEMM::InvalidInput(usage);
  for (int i = 2; i < argc; ++i) {
    const std::string f = argv[i];
    if (f == "--no-tpetra") {
      args.flags[f] = "1";
    } else if ((f == "--a" || f == "--b" || f == "--p" || f == "--layout" || f == "--repeat" || f == "--out") &&
               i + 1 < argc) {
      args.flags[f] = argv[++i];
    } else {
      throw KokkosSpGEMM::InvalidInput("unknown or incomplete flag '" + f + "'\n" + usage);
    }
  }
  if (!args.flags.count("--a") || (args.command == "rap" && !args.flags.count("--p"))) {
    throw KokkosSpGEMM::InvalidInput(std::string("missing --a") + (args.command == "rap" ? " or --p" : "") + "\n" +
                                     usage);
  }
  return args;
}

double max_over_ranks(double x) {
  double m = 0;
  Teuchos::reduceAll<int, double>(*Tpetra::getDefaultComm(), Teuchos::REDUCE_MAX, x, Teuchos::outArg(m));
  return m;
}
long long sum_over_ranks(long long x) {
  long long s = 0;
  Teuchos::reduceAll<int, long long>(*Tpetra::getDefaultComm(), Teuchos::REDUCE_SUM, x, Teuchos::outArg(s));
  return s;
}

/// Seconds of the slowest rank for one collective call.
double timed(const std::function<void()>& call) {
  const auto comm = Tpetra::getDefaultComm();
  comm->barrier();
  const auto start = std::chrono::steady_clock::now();
  call();
  comm->barrier();
  return max_over_ranks(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

/// The matrix named by spec, read on rank 0 and spread over `rows` (domain map: `domain`, or contiguous).
Teuchos::RCP<Matrix> load(const std::string& spec, D::RowLayout layout, Teuchos::RCP<const Map> range = Teuchos::null,
                          Teuchos::RCP<const Map> domain = Teuchos::null) {
  const auto comm = Tpetra::getDefaultComm();
  Host global;
  long long dims[2] = {0, 0};
  int ok = 1;
  std::string error;
  if (comm->getRank() == 0) {
    try {
      global = KokkosSpGEMM::load_input<double, int, std::int64_t>(spec);
      dims[0] = global.num_rows();
      dims[1] = global.num_cols();
    } catch (const std::exception& e) {
      ok = 0;
      error = e.what();
    }
  }
  Teuchos::broadcast<int, int>(*comm, 0, &ok);
  if (!ok) throw KokkosSpGEMM::InvalidInput(comm->getRank() == 0 ? error : "rank 0 could not read " + spec);
  Teuchos::broadcast<int, long long>(*comm, 0, 2, dims);
  const auto rows = D::make_row_map<Map>(layout, dims[0], comm);
  if (domain.is_null()) {
    domain = dims[0] == dims[1] ? rows : D::make_row_map<Map>(D::RowLayout::Contiguous, dims[1], comm);
  }
  return D::distribute<Matrix>(global, rows, domain, range);
}

void print_times(const char* what, const D::PhaseTimes& t) {
  const double imp = max_over_ranks(t.import), loc = max_over_ranks(t.local), fill = max_over_ranks(t.fill),
               tr = max_over_ranks(t.transpose), total = max_over_ranks(t.total);
  if (Tpetra::getDefaultComm()->getRank() == 0) {
    std::printf("  %-26s %.6f s: import %.6f, local %.6f, fill %.6f, transpose %.6f (maxima over ranks)\n", what, total,
                imp, loc, fill, tr);
  }
}

int run(const Args& args) {
  const auto comm = Tpetra::getDefaultComm();
  const bool root = comm->getRank() == 0;
  const D::RowLayout layout =
      D::row_layout_from_name(args.flags.count("--layout") ? args.flags.at("--layout") : "contiguous");
  const int repeat = args.flags.count("--repeat") ? std::max(1, std::stoi(args.flags.at("--repeat"))) : 5;
  const bool tpetra = !args.flags.count("--no-tpetra");
  const bool rap = args.command == "rap";
  const auto a = load(args.flags.at("--a"), layout);
  Teuchos::RCP<Matrix> b;
  // B (or P) laid out like A: its range map (its row map) is then A's domain map when their sizes agree, and the
  // product says DimensionMismatch on every rank when they do not.
  if (rap) {
    b = load(args.flags.at("--p"), layout);
  } else if (args.flags.count("--b") && args.flags.at("--b") != args.flags.at("--a")) {
    b = load(args.flags.at("--b"), layout);
  } else {
    b = a;
  }
  if (root) {
    std::printf("ranks             %d (%s rows)\n", comm->getSize(),
                args.flags.count("--layout") ? args.flags.at("--layout").c_str() : "contiguous");
    std::printf("A                 %llu x %llu, nnz %llu\n", (unsigned long long)a->getGlobalNumRows(),
                (unsigned long long)a->getDomainMap()->getGlobalNumElements(),
                (unsigned long long)a->getGlobalNumEntries());
    std::printf("%-17s %llu x %llu, nnz %llu\n", rap ? "P" : "B", (unsigned long long)b->getGlobalNumRows(),
                (unsigned long long)b->getDomainMap()->getGlobalNumElements(),
                (unsigned long long)b->getGlobalNumEntries());
  }

  // Ours: one-shot (symbolic, which includes the first numeric), then numeric reuse with the same values.
  Teuchos::RCP<Matrix> c;
  std::vector<double> one_shot, reuse;
  D::DistributedHandle<double, LO, GO, Node> handle;
  D::GalerkinHandle<double, LO, GO, Node> galerkin;
  D::PhaseTimes symbolic_times, numeric_times;
  for (int k = 0; k < repeat; ++k) {
    one_shot.push_back(timed([&] {
      if (rap) {
        galerkin = D::GalerkinHandle<double, LO, GO, Node>();
        D::galerkin_symbolic(galerkin, *a, *b, c);
      } else {
        D::multiply_symbolic(handle, *a, false, *b, false, c);
      }
    }));
  }
  symbolic_times = rap ? galerkin.rap_times() : handle.last_times();
  const D::PhaseTimes ap_symbolic = galerkin.ap().last_times();
  for (int k = 0; k < repeat; ++k) {
    reuse.push_back(timed([&] {
      if (rap) {
        D::galerkin_numeric(galerkin, *a, *b, *c);
      } else {
        D::multiply_numeric(handle, *a, *b, *c);
      }
    }));
  }
  numeric_times = rap ? galerkin.rap_times() : handle.last_times();
  const D::PhaseTimes ap_numeric = galerkin.ap().last_times();
  if (root) {
    std::printf("nnz(C)            %llu\n", (unsigned long long)c->getGlobalNumEntries());
    std::printf("ours one-shot     %.6f s (median of %d; symbolic with its first numeric, C made fill-complete)\n",
                median(one_shot), repeat);
    std::printf("ours reuse        %.6f s (numeric with new values: B's remote values travel, local replay)\n",
                median(reuse));
  }
  if (rap) {
    print_times("last symbolic (A*P part)", ap_symbolic);
    print_times(galerkin.transposed_product() ? "last symbolic (P^T*AP part)" : "last symbolic (R*AP part)",
                symbolic_times);
    print_times("last numeric (A*P part)", ap_numeric);
    print_times(galerkin.transposed_product() ? "last numeric (P^T*AP part)" : "last numeric (R*AP part)",
                numeric_times);
  } else {
    print_times("last symbolic", symbolic_times);
    print_times("last numeric", numeric_times);
  }
  if (!rap) {
    const long long received = sum_over_ranks(static_cast<long long>(handle.received_entries()));
    if (root) std::printf("  B's remote entries received, all ranks: %lld\n", received);
  }

  if (tpetra) {
    Teuchos::RCP<Matrix> ct;
    std::vector<double> t_one, t_reuse;
    auto call = [&] {
      if (rap) {
        if (ct->isFillComplete()) ct->resumeFill();  // MultiplyRAP wants its filled C reopened (Multiply does it)
        Tpetra::TripleMatrixMultiply::MultiplyRAP(*b, true, *a, false, *b, false, *ct);
      } else {
        Tpetra::MatrixMatrix::Multiply(*a, false, *b, false, *ct);
      }
    };
    for (int k = 0; k < repeat; ++k) {
      t_one.push_back(timed([&] {
        ct = Teuchos::rcp(new Matrix(rap ? b->getDomainMap() : a->getRowMap(), 0));
        call();
      }));
    }
    for (int k = 0; k < repeat; ++k) t_reuse.push_back(timed(call));  // Tpetra reuses a filled C's structure
    const long long bad = sum_over_ranks(D::mismatched_entries(*c, *ct, 1e-10));
    if (root) {
      std::printf("Tpetra one-shot   %.6f s (%s)\n", median(t_one),
                  rap ? "TripleMatrixMultiply::MultiplyRAP, R = P^T" : "MatrixMatrix::Multiply");
      std::printf("Tpetra reuse      %.6f s (the same call on its filled C)\n", median(t_reuse));
      std::printf("ours / Tpetra     one-shot %.2fx, reuse %.2fx (Tpetra's time / ours)\n",
                  median(t_one) / median(one_shot), median(t_reuse) / median(reuse));
      std::printf("check             %s\n", bad == 0 ? "same C as Tpetra" : "DIFFERS from Tpetra");
    }
    if (bad != 0) return 1;
  }
  if (args.flags.count("--out")) {
    Tpetra::MatrixMarket::Writer<Matrix>::writeSparseFile(args.flags.at("--out"), c);
    if (root) std::printf("wrote %s\n", args.flags.at("--out").c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard tpetra(&argc, &argv);
  const bool root = Tpetra::getDefaultComm()->getRank() == 0;
  Args args;
  try {
    args = parse(argc, argv);
  } catch (const std::exception& e) {
    if (root) std::fprintf(stderr, "kokkosspgemm-mpi: %s\n", e.what());
    return 2;
  }
  try {
    return run(args);
  } catch (const std::exception& e) {
    if (root) std::fprintf(stderr, "kokkosspgemm-mpi: error: %s\n", e.what());
    return 1;
  }
}
