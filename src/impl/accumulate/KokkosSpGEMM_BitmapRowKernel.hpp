// The wide-row accumulator: one team per row of C too long for a scratch hash table, when a bitmap of B's columns
// fits the team's scratch. Each product sets its column's bit (a scratch atomic OR) and, in the numeric phase, adds
// into a dense array of B.num_cols() values taken from the pool (a global atomic add): no probing, and no level-2
// hash table whose every insert is a compare-and-swap in global memory. The row then comes out sorted by walking
// the bitmap, which also clears the dense array for the team's next row. Its case: R-MAT hub rows (rows of C of
// 16K-131K columns out of 262K), which crawl through level-2 hash tables. Where B.num_cols() values fit the team's
// scratch beside the bitmap (dense_in_scratch), the dense array is there instead (spECK's dense accumulator): the
// team zeroes it and adds into scratch, with no pool and no global atomics; on CUDA such teams may take past Kokkos'
// 48 KB (parallel_for_teams).
#ifndef KOKKOSSPGEMM_BITMAPROWKERNEL_HPP
#define KOKKOSSPGEMM_BITMAPROWKERNEL_HPP

#include <backend/KokkosSpGEMM_BackendTraits.hpp>
#include <compat/KokkosSpGEMM_Compat.hpp>
#include <impl/pipeline/KokkosSpGEMM_BinConfig.hpp>
#include <impl/accumulate/KokkosSpGEMM_HashAccumulator.hpp>
#include <impl/memory/KokkosSpGEMM_MemoryPool.hpp>

#include <cstdint>

namespace KokkosSpGEMM {
namespace Impl {

template <class ExecSpace, bool Numeric, class Views, class Perm>
struct TeamBitmapKernel {
  using Ordinal = typename Views::ordinal_type;
  using Scalar = typename Views::scalar_type;
  using Policy = Impl::Teams<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  using Member = typename Policy::member_type;
  using Pool = MemoryPool<typename ExecSpace::memory_space>;
  using Word = bitmap_word;
  static constexpr bool gpu = BackendTraits<ExecSpace>::is_gpu;
  static constexpr int word_bits = bitmap_word_bits;
  static constexpr int scan_blocks = bitmap_scan_blocks;

  Views v;
  Perm perm;
  std::int64_t first = 0;         // this bin's rows are perm[first, first + rows)
  Ordinal width = 0;              // B's columns
  int threads = 1;                // team size x vector length
  Pool pool;                      // numeric: chunks of `width` values, zero between rows
  bool dense_in_scratch = false;  // numeric: the `width` values in the team's scratch instead of a pool chunk

  static std::size_t chunk_bytes(Ordinal width) { return static_cast<std::size_t>(width) * sizeof(Scalar); }
  /// The team's scratch: the bitmap and its slots, and the values where dense_in_scratch.
  std::size_t scratch_bytes() const {
    return team_dense_scratch_bytes(width, threads, Numeric && dense_in_scratch ? sizeof(Scalar) : 0);
  }

  /// The products of entry e of A: bits set, values added. WholeTeam: every thread and lane of the team split the
  /// entry's row of B; otherwise the calling thread's lanes do.
  template <bool WholeTeam>
  KOKKOS_INLINE_FUNCTION void add_entry(const Member& team, const Ordinal row, const std::int64_t e, Word* bits,
                                        Scalar* dense) const {
    const Ordinal k = v.a_cols(e);
    const auto b_begin = v.b_rows(k);
    const Ordinal n = static_cast<Ordinal>(v.b_rows(k + 1) - b_begin);
    const Scalar a_val = Numeric ? v.a_value(row, e) : Scalar();
    const auto body = [&](const Ordinal jj) {
      const Ordinal col = v.b_cols(b_begin + jj);
      const Word bit = Word(1) << (col % word_bits);
      Word* word = bits + col / word_bits;
      if constexpr (gpu) {
        Kokkos::atomic_or(word, bit);
      } else {
        *word |= bit;  // a CPU team is one thread
      }
      if constexpr (Numeric) {
        if (dense_in_scratch) {
          accumulate_in_scratch<gpu>(dense + col, a_val * v.b_vals(b_begin + jj));
        } else {
          accumulate<gpu>(dense + col, a_val * v.b_vals(b_begin + jj));
        }
      }
    };
    if constexpr (WholeTeam) {
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, n), body);
    } else {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, n), body);
    }
  }

  /// f(i) once for every thread and lane of the team, i in [0, threads).
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each_thread(const Member& team, const F& f) const {
    const int lanes = threads / team.team_size();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, team.team_size()), [&](const int t) {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](const int l) { f(t * lanes + l); });
    });
  }

  /// Writes the marked columns and their sums to C from c_begin on, in column order, clearing the dense row behind.
  KOKKOS_INLINE_FUNCTION void write_sorted(const Member& team, const std::int64_t nwords, const Word* bits,
                                           Scalar* dense, std::int64_t* counts, std::int64_t* block_sums,
                                           const std::int64_t c_begin) const {
    // Each thread and lane takes a run of words; its place in C is the number of bits before its run.
    const std::int64_t per = (nwords + threads - 1) / threads;
    for_each_thread(team, [&](const int i) {
      std::int64_t n = 0;
      const std::int64_t w_end = min_of(nwords, (i + 1) * per);
      for (std::int64_t w = i * per; w < w_end; ++w) n += popcount_u64(bits[w]);
      counts[i] = n;
    });
    team.team_barrier();
    // Exclusive scan of the counts: block sums, their scan by one thread, then each block's own.
    const int block = (threads + scan_blocks - 1) / scan_blocks;
    const int blocks = (threads + block - 1) / block;  // at most scan_blocks; fewer for small teams
    for_each_thread(team, [&](const int b) {
      if (b < blocks) {
        std::int64_t s = 0;
        for (int i = b * block; i < min_of(threads, (b + 1) * block); ++i) s += counts[i];
        block_sums[b] = s;
      }
    });
    team.team_barrier();
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      std::int64_t s = 0;
      for (int b = 0; b < blocks; ++b) {
        const std::int64_t x = block_sums[b];
        block_sums[b] = s;
        s += x;
      }
      block_sums[scan_blocks] = s;
    });
    team.team_barrier();
    for_each_thread(team, [&](const int b) {
      if (b < blocks) {
        std::int64_t s = block_sums[b];
        for (int i = b * block; i < min_of(threads, (b + 1) * block); ++i) {
          const std::int64_t x = counts[i];
          counts[i] = s;
          s += x;
        }
      }
    });
    team.team_barrier();
    const auto put = [&](const std::int64_t pos, const Ordinal col, const Scalar& value) {
      v.c_cols(c_begin + pos) = col;
      v.c_vals(c_begin + pos) = value;
      dense[col] = Scalar();
    };
    if (block_sums[scan_blocks] * 8 < nwords * word_bits) {
      // Rows under 1/8 of the columns: a thread's lanes take words side by side, each lane its run's bits.
      for_each_thread(team, [&](const int i) {
        std::int64_t pos = counts[i];
        const std::int64_t w_end = min_of(nwords, (i + 1) * per);
        for (std::int64_t w = i * per; w < w_end; ++w) {
          for (Word x = bits[w]; x != 0; x &= x - 1) {
            const Ordinal col = static_cast<Ordinal>(w * word_bits + lowest_bit_u64(x));
            put(pos++, col, dense[col]);
          }
        }
      });
      return;
    }
    // Denser rows: a thread walks its lanes' runs word by word, lane l taking bit l, so that a word's entries go to
    // C side by side, and reads the sums of `batch` words before it writes any (a lane's run a thread wrote each
    // store to an L2 sector of its own and waited on each sum in turn, and its warp then waited for the longest run
    // at the barrier).
    constexpr int batch = 4;
    const int lanes = threads / team.team_size();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, team.team_size()), [&](const int t) {
      std::int64_t pos = counts[t * lanes];
      const std::int64_t w_end = min_of(nwords, (t + 1) * lanes * per);
      for (std::int64_t w0 = t * lanes * per; w0 < w_end; w0 += batch) {
        Word x[batch];
        for (int q = 0; q < batch; ++q) x[q] = w0 + q < w_end ? bits[w0 + q] : Word(0);
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, word_bits), [&](const int l) {
          const Word below = (Word(1) << l) - 1;
          Scalar sum[batch] = {};
          for (int q = 0; q < batch; ++q) {
            if ((x[q] >> l) & 1u) sum[q] = dense[(w0 + q) * word_bits + l];
          }
          std::int64_t p = pos;
          for (int q = 0; q < batch; ++q) {
            if ((x[q] >> l) & 1u)
              put(p + popcount_u64(x[q] & below), static_cast<Ordinal>((w0 + q) * word_bits + l), sum[q]);
            p += popcount_u64(x[q]);
          }
        });
        for (int q = 0; q < batch; ++q) pos += popcount_u64(x[q]);
      }
    });
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    if (v.operands_failed()) return;
    const Ordinal row = perm(first + team.league_rank());
    const std::int64_t nwords = bitmap_words(width);
    std::int64_t* counts =  // a count per thread, the scan's block sums and their total, the pool chunk
        static_cast<std::int64_t*>(team.team_shmem().get_shmem_aligned(bitmap_slot_bytes(threads), 16));
    std::int64_t* block_sums = counts + threads;
    std::int64_t* chunk = block_sums + scan_blocks + 1;
    Word* bits = static_cast<Word*>(team.team_shmem().get_shmem_aligned(nwords * sizeof(Word), 16));
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, nwords), [&](const std::int64_t w) { bits[w] = 0; });
    Scalar* dense = nullptr;
    if constexpr (Numeric) {
      if (dense_in_scratch) {
        dense = static_cast<Scalar*>(
            team.team_shmem().get_shmem_aligned(static_cast<std::size_t>(width) * sizeof(Scalar), 16));
        // Scalar() is the semiring's identity.
        Kokkos::parallel_for(Kokkos::TeamVectorRange(team, width), [&](const Ordinal j) { dense[j] = Scalar(); });
      } else {
        Kokkos::single(Kokkos::PerTeam(team), [&]() { *chunk = pool.acquire(team.league_rank()); });
      }
    }
    team.team_barrier();
    if constexpr (Numeric) {
      if (!dense_in_scratch) dense = reinterpret_cast<Scalar*>(pool.chunk(*chunk));
    }

    const auto a_begin = v.a_rows(row);
    const Ordinal a_len = static_cast<Ordinal>(v.a_rows(row + 1) - a_begin);
    if (a_len >= team.team_size()) {
      // Threads split A's row, their lanes each row of B (as the hash team-row kernel).
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, a_len),
                           [&](const Ordinal t) { add_entry<false>(team, row, a_begin + t, bits, dense); });
    } else {
      for (Ordinal t = 0; t < a_len; ++t) add_entry<true>(team, row, a_begin + t, bits, dense);
    }
    team.team_barrier();

    // A binned complemented mask's row (MultiplyViews::mask_hits): its columns set, counted (symbolic) or taken
    // out, their sums cleared for the team's next row (numeric; only where the symbolic pass counted some).
    const bool masked = Numeric ? v.erases_in_row(row) : v.binned_mask();
    const std::int64_t hits = !masked ? 0 : v.over_mask_row(team, row, [&](const Ordinal col) {
      const Word bit = Word(1) << (col % word_bits);
      if ((bits[col / word_bits] & bit) == 0) return 0;
      if constexpr (Numeric) {
        if constexpr (gpu) {
          Kokkos::atomic_and(bits + col / word_bits, ~bit);
        } else {
          bits[col / word_bits] &= ~bit;
        }
        dense[col] = Scalar();
      }
      return 1;
    });
    if (masked) team.team_barrier();
    if constexpr (!Numeric) {
      std::int64_t count = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamVectorRange(team, nwords),
          [&](const std::int64_t w, std::int64_t& c) { c += popcount_u64(bits[w]); }, count);
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        v.row_sizes(row) = count;
        if (v.binned_mask()) v.mask_hits(row) = static_cast<Ordinal>(hits);
      });
    } else {
      const auto c_begin = v.c_rows(row);
      if (v.known_columns) {
        // C's columns in place: read each one's sum, then clear every marked column (C may lack some if its
        // entries were changed: the miss makes the call redo the full phase).
        Kokkos::parallel_for(Kokkos::TeamVectorRange(team, v.c_rows(row + 1) - c_begin), [&](const Ordinal j) {
          const Ordinal col = v.c_cols(c_begin + j);
          const bool found = col >= 0 && col < width && ((bits[col / word_bits] >> (col % word_bits)) & 1u) != 0;
          v.c_vals(c_begin + j) = found ? dense[col] : v.missed();
        });
        if (!dense_in_scratch) {  // the pool's chunk clean for its next row (values in scratch are zeroed a row)
          team.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamVectorRange(team, nwords), [&](const std::int64_t w) {
            for (Word x = bits[w]; x != 0; x &= x - 1) dense[w * word_bits + lowest_bit_u64(x)] = Scalar();
          });
        }
      } else {
        write_sorted(team, nwords, bits, dense, counts, block_sums, c_begin);
      }
      if (!dense_in_scratch) {
        team.team_barrier();  // the chunk is clean before it is given back
        Kokkos::single(Kokkos::PerTeam(team), [&]() { pool.release(*chunk); });
      }
    }
  }
};

}  // namespace Impl
}  // namespace KokkosSpGEMM

#endif
