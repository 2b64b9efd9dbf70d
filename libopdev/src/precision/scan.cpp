// Driver of the streaming comparison pass: chunking, threads, the per-element path for
// blocks holding NaN/Inf, worst-element selection and the failure profile (rows, columns,
// tiles), and the deterministic merge of per-chunk partial results.
#include "precision/scan.h"

#include "precision/scan_kernel.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <thread>

namespace opdev::precision {

namespace {

constexpr int64_t kChunk = int64_t{1} << 16;  // elements per work item (multiple of block)

// Partial sums of one chunk, combined in chunk order at the end. Neighbouring chunks are
// written by different threads block after block, so each gets its own cache line (shared
// lines cost more than the kernel itself on two cores).
struct alignas(64) ChunkSums {
  double sum_abs = 0, sum_rel = 0, sum_sq = 0, sum_ag = 0, sum_aa = 0, sum_gg = 0;
};

// Order-independent results of one thread (on its own cache lines, like ChunkSums).
struct alignas(64) ThreadState {
  int64_t nan_mismatch = 0, inf_sign_mismatch = 0, special = 0;
  int64_t passed = 0, rel_count = 0, compared = 0;
  double max_abs = 0, max_rel = 0;
  int64_t hist[kHistBins] = {};
  std::vector<ScanWorst> heap;  // min-heap on "badness" (root = least bad kept)
  int64_t first_fail = -1;
  std::vector<int64_t> fail_rows, fail_cols, fail_tiles, special_rows;
};

// a is worse than b: larger error, ties broken by lower flat index.
bool Worse(const ScanWorst& a, const ScanWorst& b) {
  if (a.abs_error != b.abs_error) return a.abs_error > b.abs_error;
  return a.flat < b.flat;
}

struct Context {
  const Tensor* a;
  const Tensor* g;
  const ScanParams* p;
  const ScanKernels* k;
  int64_t tile_grid_cols = 0, tile_grid_rows = 0;
  std::vector<ChunkSums> chunks;
};

void PushWorst(ThreadState& st, const ScanWorst& w, int k) {
  if (k <= 0) return;
  auto cmp = [](const ScanWorst& x, const ScanWorst& y) { return Worse(x, y); };
  if (static_cast<int>(st.heap.size()) < k) {
    st.heap.push_back(w);
    std::push_heap(st.heap.begin(), st.heap.end(), cmp);
  } else if (Worse(w, st.heap.front())) {
    std::pop_heap(st.heap.begin(), st.heap.end(), cmp);
    st.heap.back() = w;
    std::push_heap(st.heap.begin(), st.heap.end(), cmp);
  }
}

// Row (axis -2) and column (last axis) of consecutive flat indices without divisions.
struct Cursor {
  int64_t row, col, rows, cols;
  Cursor(int64_t flat, int64_t rows_, int64_t cols_)
      : row((flat / cols_) % rows_), col(flat % cols_), rows(rows_), cols(cols_) {}
  void Next() {
    if (++col == cols) {
      col = 0;
      if (++row == rows) row = 0;
    }
  }
};

void RecordFailure(Context& c, ThreadState& st, int64_t flat, int64_t row, int64_t col) {
  const ScanParams& p = *c.p;
  if (st.first_fail < 0 || flat < st.first_fail) st.first_fail = flat;
  if (!p.diagnostics) return;
  if (st.fail_rows.empty()) {
    st.fail_rows.assign(static_cast<size_t>(p.rows), 0);
    st.fail_cols.assign(static_cast<size_t>(p.cols), 0);
    if (c.tile_grid_rows > 0)
      st.fail_tiles.assign(static_cast<size_t>(c.tile_grid_rows * c.tile_grid_cols), 0);
  }
  ++st.fail_rows[static_cast<size_t>(row)];
  ++st.fail_cols[static_cast<size_t>(col)];
  if (c.tile_grid_rows > 0)
    ++st.fail_tiles[static_cast<size_t>((row / p.tile_rows) * c.tile_grid_cols +
                                        col / p.tile_cols)];
}

// Row, column and tile of consecutive flat indices, advanced without divisions.
struct TileCursor {
  int64_t row, col, rows, cols;
  int64_t tile_rows, tile_cols;  // a huge extent when there is no tile shape
  int64_t tr, tc, rin, cin;      // tile position, and position inside the tile
  TileCursor(int64_t flat, const ScanParams& p)
      : row((flat / p.cols) % p.rows), col(flat % p.cols), rows(p.rows), cols(p.cols),
        tile_rows(p.tile_rows > 0 ? p.tile_rows : INT64_MAX),
        tile_cols(p.tile_cols > 0 ? p.tile_cols : INT64_MAX),
        tr(row / tile_rows), tc(col / tile_cols), rin(row % tile_rows), cin(col % tile_cols) {}
  void Next() {
    if (++col == cols) {
      col = 0;
      tc = 0;
      cin = 0;
      if (++row == rows) {
        row = 0;
        tr = 0;
        rin = 0;
      } else if (++rin == tile_rows) {
        rin = 0;
        ++tr;
      }
    } else if (++cin == tile_cols) {
      cin = 0;
      ++tc;
    }
  }
};

// The failure profile of a block holding failing elements (diagnostics): first failure,
// histogram bins above 1, failures per row, column and tile. Counts are added branch-free
// (a failure pattern is often irregular, and a branch per element would mispredict).
void ProfileFailures(Context& c, ThreadState& st, const double* a, const double* g, int n,
                     int64_t base) {
  const ScanParams& p = *c.p;
  int first = 0;
  while (first < n && std::fabs(a[first] - g[first]) <= p.atol + p.rtol * std::fabs(g[first]))
    ++first;
  if (first == n) return;
  TileCursor cur(base + first, p);
  RecordFailure(c, st, base + first, cur.row, cur.col);  // sets first_fail, allocates
  int64_t* rows = st.fail_rows.data();
  int64_t* cols = st.fail_cols.data();
  int64_t* tiles = c.tile_grid_rows > 0 ? st.fail_tiles.data() : nullptr;
  int64_t hist[kHistBins] = {};
  static_assert(kHistEdges == 7 && kPassEdges == 3, "bins above 1: edges 2, 4, 16");
  {
    double d = std::fabs(a[first] - g[first]), tol = p.atol + p.rtol * std::fabs(g[first]);
    ++hist[kPassEdges + 1 + (d > tol * kHistEdge[4]) + (d > tol * kHistEdge[5]) +
           (d > tol * kHistEdge[6])];
  }
  cur.Next();
  for (int i = first + 1; i < n; ++i, cur.Next()) {
    double d = std::fabs(a[i] - g[i]);
    double tol = p.atol + p.rtol * std::fabs(g[i]);
    int64_t f = !(d <= tol);
    int bin = kPassEdges + 1 + (d > tol * kHistEdge[4]) + (d > tol * kHistEdge[5]) +
              (d > tol * kHistEdge[6]);
    hist[bin] += f;
    rows[cur.row] += f;
    cols[cur.col] += f;
    if (tiles) tiles[cur.tr * c.tile_grid_cols + cur.tc] += f;
  }
  for (int b = kPassEdges + 1; b < kHistBins; ++b) st.hist[b] += hist[b];
}

void RecordSpecial(Context& c, ThreadState& st, int64_t flat) {
  const ScanParams& p = *c.p;
  if (!p.diagnostics) return;
  if (st.special_rows.empty()) st.special_rows.assign(static_cast<size_t>(p.rows), 0);
  ++st.special_rows[static_cast<size_t>((flat / p.cols) % p.rows)];
}

// Per-element path for a block holding NaN or Inf: applies the special-value rules, then
// accumulates exactly like the vector kernel (kScanLanes lanes, same reduction order).
void SlowBlock(Context& c, ThreadState& st, const double* a, const double* g, int n,
               int64_t base, ChunkSums& cs) {
  const ScanParams& p = *c.p;
  constexpr int L = kScanLanes;
  double sabs[L] = {}, srel[L] = {}, ssq[L] = {}, sag[L] = {}, saa[L] = {}, sgg[L] = {};
  double mabs = 0, mrel = 0;
  for (int i = 0; i < n; ++i) {
    double av = a[i], gv = g[i];
    bool an = std::isnan(av), gn = std::isnan(gv);
    if (an != gn) {
      ++st.nan_mismatch;
      RecordSpecial(c, st, base + i);
      continue;
    }
    if (an) {
      ++st.special;
      continue;
    }
    bool ai = std::isinf(av), gi = std::isinf(gv);
    if (ai && gi) {
      if (std::signbit(av) != std::signbit(gv)) {
        ++st.inf_sign_mismatch;
        RecordSpecial(c, st, base + i);
      } else {
        ++st.special;
      }
      continue;
    }
    if (ai) av = std::copysign(p.replace_max, av);
    if (gi) gv = std::copysign(p.replace_max, gv);
    ++st.compared;
    int lane = i % L;
    double d = std::fabs(av - gv);
    double ag = std::fabs(gv);
    double tol = p.atol + p.rtol * ag;
    bool ok = d <= tol;
    if (ok) ++st.passed;
    sabs[lane] += d;
    if (d > mabs) mabs = d;
    if (ag > 0) {
      double r = d / ag;
      srel[lane] += r;
      ++st.rel_count;
      if (p.diagnostics && r > mrel) mrel = r;
    }
    if (p.diagnostics) {
      ssq[lane] += d * d;
      sag[lane] += av * gv;
      saa[lane] += av * av;
      sgg[lane] += gv * gv;
      int bin = 0;
      while (bin < kHistEdges && d > tol * kHistEdge[bin]) ++bin;
      ++st.hist[bin];
      PushWorst(st, ScanWorst{base + i, av, gv, d, tol}, p.worst_k);
    }
    if (!ok) {
      Cursor cur(base + i, p.rows, p.cols);
      RecordFailure(c, st, base + i, cur.row, cur.col);
    }
  }
  static_assert(L == 8, "the lane sums below combine 8 lanes like the vector kernel");
  auto sum8 = [](const double* v) {
    return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
  };
  cs.sum_abs += sum8(sabs);
  cs.sum_rel += sum8(srel);
  cs.sum_sq += sum8(ssq);
  cs.sum_ag += sum8(sag);
  cs.sum_aa += sum8(saa);
  cs.sum_gg += sum8(sgg);
  st.max_abs = std::max(st.max_abs, mabs);
  st.max_rel = std::max(st.max_rel, mrel);
}

void ProcessChunk(Context& c, ThreadState& st, int64_t chunk) {
  const ScanParams& p = *c.p;
  const ScanKernels& k = *c.k;
  alignas(64) double abuf[kScanBlock];
  alignas(64) double gbuf[kScanBlock];
  const DType at = c.a->dtype(), gt = c.g->dtype();
  const size_t asz = c.a->itemsize(), gsz = c.g->itemsize();
  int64_t begin = chunk * kChunk;
  int64_t end = std::min(begin + kChunk, c.a->numel());
  ChunkSums& cs = c.chunks[static_cast<size_t>(chunk)];
  BlockParams bp{p.rtol, p.atol};
  for (int64_t base = begin; base < end; base += kScanBlock) {
    int n = static_cast<int>(std::min<int64_t>(kScanBlock, end - base));
    const std::byte* pa = c.a->data() + static_cast<size_t>(base) * asz;
    const std::byte* pg = c.g->data() + static_cast<size_t>(base) * gsz;
    // The per-element paths below work on float64 copies of the block, made on demand.
    bool converted = false;
    auto convert = [&] {
      if (converted) return;
      k.load(pa, at, n, abuf);
      k.load(pg, gt, n, gbuf);
      converted = true;
    };
    BlockSums bs;
    if (n == kScanBlock) {
      k.block(pa, at, pg, gt, bp, p.diagnostics, &bs);
    } else {
      convert();
      std::fill(abuf + n, abuf + kScanBlock, 0.0);
      std::fill(gbuf + n, gbuf + kScanBlock, 0.0);
      k.block(abuf, DType::kFloat64, gbuf, DType::kFloat64, bp, p.diagnostics, &bs);
    }
    if (!bs.finite) {
      convert();
      SlowBlock(c, st, abuf, gbuf, n, base, cs);
      continue;
    }
    int pad = kScanBlock - n;  // padding lanes: error 0, pass, |g| = 0
    int64_t passed = bs.passed - pad;
    st.compared += n;
    st.passed += passed;
    st.rel_count += bs.rel_count;
    cs.sum_abs += bs.sum_abs;
    cs.sum_rel += bs.sum_rel;
    st.max_abs = std::max(st.max_abs, bs.max_abs);
    st.max_rel = std::max(st.max_rel, bs.max_rel);
    if (!p.diagnostics) {
      if (passed < n && (st.first_fail < 0 || base < st.first_fail)) {
        convert();
        for (int i = 0; i < n; ++i) {
          double d = std::fabs(abuf[i] - gbuf[i]);
          if (!(d <= p.atol + p.rtol * std::fabs(gbuf[i]))) {
            RecordFailure(c, st, base + i, 0, 0);
            break;
          }
        }
      }
      continue;
    }
    cs.sum_sq += bs.sum_sq;
    cs.sum_ag += bs.sum_ag;
    cs.sum_aa += bs.sum_aa;
    cs.sum_gg += bs.sum_gg;
    const int64_t failed = n - passed;
    st.hist[0] += n - bs.above_edge[0];
    st.hist[1] += bs.above_edge[0] - bs.above_edge[1];
    st.hist[2] += bs.above_edge[1] - bs.above_edge[2];
    st.hist[3] += bs.above_edge[2] - failed;  // (1/2, 1]: above 1/2 and passing
    bool want_worst =
        p.worst_k > 0 &&
        (static_cast<int>(st.heap.size()) < p.worst_k || bs.max_abs > st.heap.front().abs_error ||
         (bs.max_abs == st.heap.front().abs_error && base < st.heap.front().flat));
    if (want_worst) {
      convert();
      for (int i = 0; i < n; ++i) {
        double d = std::fabs(abuf[i] - gbuf[i]);
        double tol = p.atol + p.rtol * std::fabs(gbuf[i]);
        PushWorst(st, ScanWorst{base + i, abuf[i], gbuf[i], d, tol}, p.worst_k);
      }
    }
    if (failed > 0) {
      convert();
      ProfileFailures(c, st, abuf, gbuf, n, base);
    }
  }
}

void AddVec(std::vector<int64_t>& into, const std::vector<int64_t>& from) {
  if (from.empty()) return;
  if (into.empty()) {
    into = from;
    return;
  }
  for (size_t i = 0; i < from.size(); ++i) into[i] += from[i];
}

int ThreadCount(int requested, int64_t chunks) {
  int hw = static_cast<int>(std::thread::hardware_concurrency());
  int t = requested > 0 ? requested : (hw > 0 ? hw : 1);
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(t, chunks)));
}

template <typename Fn>
void RunParallel(int64_t chunks, int threads, Fn&& fn) {
  std::atomic<int64_t> next{0};
  auto worker = [&](int tid) {
    for (int64_t ch; (ch = next.fetch_add(1)) < chunks;) fn(tid, ch);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker, t);
  worker(0);
  for (auto& th : pool) th.join();
}

}  // namespace

ScanResult ScanFloating(const Tensor& actual, const Tensor& golden, const ScanParams& params) {
  ScanParams p = params;
  if (p.rows < 1) p.rows = 1;
  if (p.cols < 1) p.cols = 1;
  Context c{&actual, &golden, &p, p.kernels ? p.kernels : &SelectScanKernels(), 0, 0, {}};
  if (p.tile_rows > 0 && p.tile_cols > 0) {
    c.tile_grid_rows = (p.rows + p.tile_rows - 1) / p.tile_rows;
    c.tile_grid_cols = (p.cols + p.tile_cols - 1) / p.tile_cols;
  }
  int64_t n = actual.numel();
  int64_t nchunks = (n + kChunk - 1) / kChunk;
  c.chunks.assign(static_cast<size_t>(nchunks), ChunkSums{});
  int threads = ThreadCount(p.threads, nchunks);
  std::vector<ThreadState> states(static_cast<size_t>(threads));
  RunParallel(nchunks, threads,
              [&](int tid, int64_t ch) { ProcessChunk(c, states[static_cast<size_t>(tid)], ch); });

  ScanResult r;
  r.total = n;
  for (const ChunkSums& cs : c.chunks) {
    r.sum_abs += cs.sum_abs;
    r.sum_rel += cs.sum_rel;
    r.sum_sq += cs.sum_sq;
    r.sum_ag += cs.sum_ag;
    r.sum_aa += cs.sum_aa;
    r.sum_gg += cs.sum_gg;
  }
  std::vector<ScanWorst> worst;
  for (ThreadState& st : states) {
    r.nan_mismatch += st.nan_mismatch;
    r.inf_sign_mismatch += st.inf_sign_mismatch;
    r.special_matched += st.special;
    r.compared += st.compared;
    r.passed += st.passed;
    r.rel_count += st.rel_count;
    r.max_abs = std::max(r.max_abs, st.max_abs);
    r.max_rel = std::max(r.max_rel, st.max_rel);
    for (int b = 0; b < kHistBins; ++b) r.hist[b] += st.hist[b];
    worst.insert(worst.end(), st.heap.begin(), st.heap.end());
    if (st.first_fail >= 0 && (r.first_fail < 0 || st.first_fail < r.first_fail))
      r.first_fail = st.first_fail;
    AddVec(r.fail_rows, st.fail_rows);
    AddVec(r.fail_cols, st.fail_cols);
    AddVec(r.fail_tiles, st.fail_tiles);
    AddVec(r.special_rows, st.special_rows);
  }
  std::sort(worst.begin(), worst.end(), Worse);
  if (static_cast<int>(worst.size()) > p.worst_k) worst.resize(static_cast<size_t>(std::max(0, p.worst_k)));
  r.worst = std::move(worst);
  return r;
}

int64_t CountExactMismatches(const Tensor& actual, const Tensor& golden, int threads) {
  int64_t n = actual.numel();
  int64_t nchunks = (n + kChunk - 1) / kChunk;
  int t = ThreadCount(threads, nchunks);
  std::vector<int64_t> counts(static_cast<size_t>(nchunks), 0);
  size_t item = actual.itemsize();
  bool is_bool = actual.dtype() == DType::kBool;
  const std::byte* pa = actual.data();
  const std::byte* pg = golden.data();
  RunParallel(nchunks, t, [&](int, int64_t ch) {
    int64_t begin = ch * kChunk, end = std::min(begin + kChunk, n);
    int64_t diff = 0;
    if (is_bool) {
      for (int64_t i = begin; i < end; ++i)
        diff += (pa[i] != std::byte{0}) != (pg[i] != std::byte{0});
    } else {
      for (int64_t i = begin; i < end; ++i)
        diff += std::memcmp(pa + static_cast<size_t>(i) * item, pg + static_cast<size_t>(i) * item,
                            item) != 0;
    }
    counts[static_cast<size_t>(ch)] = diff;
  });
  int64_t total = 0;
  for (int64_t x : counts) total += x;
  return total;
}

}  // namespace opdev::precision
