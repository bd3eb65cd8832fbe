// Allocation-failure injection ("brutal malloc", after SuiteSparse:GraphBLAS): every API call is
// re-run failing its 1st, 2nd, 3rd, ... allocation -- host (global operator new, all forms,
// replaced below) and backend (psv::test_hooks::fail_allocation: CPU malloc, CUDA device pool)
// in one sequence -- until it runs with no failure. Each failed run must return
// PSV_ERROR_OUT_OF_MEMORY, leave its outputs untouched, leak nothing (live operator-new blocks
// and live backend buffers back to their count before the call), and leave the context usable
// (a product afterwards gives the right answer); no file descriptor may stay open either.
// Two modes: only the N-th allocation fails ("transient"), or the N-th and every later one
// ("sticky": the cleanup must not need memory).
//
// Linked with the static library so the replaced operator new also serves the library's code.
// PSV_TEST_BACKEND=cuda runs it on the CUDA backend (exit 77 without a device).
#include <dirent.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <new>
#include <string>
#include <vector>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "psv/psv.h"  // before check.h: its backend and data helpers need it
#include "check.h"
#include "core/test_hooks.hpp"
#include "cuda/internal.hpp"

// ---- injection state -------------------------------------------------------------------------
namespace {
std::atomic<long> g_seen{0};     // allocations seen since arming
std::atomic<long> g_fail_at{0};  // 0: disarmed
std::atomic<bool> g_sticky{false};
std::atomic<long> g_injected{0};  // failures injected since arming
std::atomic<long> g_live_new{0};  // live operator-new blocks

// Only the test's own thread and OpenMP workers inside a parallel region take part: the CUDA
// runtime's helper threads allocate and free on their own schedule, which would make the counts
// drift and put injected failures where psv cannot see them.
thread_local bool t_main_thread = false;
bool tracked_thread() {
#ifdef _OPENMP
    if (omp_in_parallel()) return true;
#endif
    return t_main_thread;
}

bool inject() {
    const long at = g_fail_at.load(std::memory_order_relaxed);
    if (at == 0 || !tracked_thread()) return false;
    const long k = g_seen.fetch_add(1, std::memory_order_relaxed) + 1;
    if (k == at || (g_sticky.load(std::memory_order_relaxed) && k > at)) {
        g_injected.fetch_add(1, std::memory_order_relaxed);
        return true;
    }
    return false;
}

bool backend_hook(psv_backend, size_t) { return inject(); }

void arm(long n, bool sticky) {
    g_seen = 0;
    g_injected = 0;
    g_sticky = sticky;
    g_fail_at = n;
}
void disarm() { g_fail_at = 0; }
// Set-up work inside an armed call: pause() stops counting, resume() goes on where it stopped.
long g_paused_at = 0;
void pause() { g_paused_at = g_fail_at.exchange(0); }
void resume() { g_fail_at = g_paused_at; }

// Each block carries a header before the pointer handed out: [.. flag | header size (size_t)].
// The flag says whether a tracked thread made the block, so a block freed on another thread
// (made by an OpenMP worker, freed by the caller) still balances the count.
__attribute__((noinline)) void *counted_alloc(size_t n, size_t align) {
    if (inject()) return nullptr;
    const size_t h = align > 16 ? align : 16;
    void *base;
    if (align > alignof(std::max_align_t)) {
        if (posix_memalign(&base, align, n + h) != 0) base = nullptr;
    } else {
        base = std::malloc(n + h);
    }
    if (!base) return nullptr;
    unsigned char *p = static_cast<unsigned char *>(base) + h;
    const bool tracked = tracked_thread();
    std::memcpy(p - sizeof(size_t), &h, sizeof(size_t));
    p[-(long)sizeof(size_t) - 1] = tracked ? 1 : 0;
    if (tracked) g_live_new.fetch_add(1, std::memory_order_relaxed);
    return p;
}
__attribute__((noinline)) void counted_free(void *ptr) {
    if (!ptr) return;
    unsigned char *p = static_cast<unsigned char *>(ptr);
    size_t h;
    std::memcpy(&h, p - sizeof(size_t), sizeof(size_t));
    if (p[-(long)sizeof(size_t) - 1]) g_live_new.fetch_sub(1, std::memory_order_relaxed);
    std::free(p - h);
}
}  // namespace

// ---- global operator new / delete, every form -----------------------------------------------
void *operator new(size_t n) {
    void *p = counted_alloc(n, 0);
    if (!p) throw std::bad_alloc();
    return p;
}
void *operator new[](size_t n) {
    void *p = counted_alloc(n, 0);
    if (!p) throw std::bad_alloc();
    return p;
}
void *operator new(size_t n, const std::nothrow_t &) noexcept { return counted_alloc(n, 0); }
void *operator new[](size_t n, const std::nothrow_t &) noexcept { return counted_alloc(n, 0); }
void *operator new(size_t n, std::align_val_t a) {
    void *p = counted_alloc(n, (size_t)a);
    if (!p) throw std::bad_alloc();
    return p;
}
void *operator new[](size_t n, std::align_val_t a) {
    void *p = counted_alloc(n, (size_t)a);
    if (!p) throw std::bad_alloc();
    return p;
}
void *operator new(size_t n, std::align_val_t a, const std::nothrow_t &) noexcept { return counted_alloc(n, (size_t)a); }
void *operator new[](size_t n, std::align_val_t a, const std::nothrow_t &) noexcept { return counted_alloc(n, (size_t)a); }
void operator delete(void *p) noexcept { counted_free(p); }
void operator delete[](void *p) noexcept { counted_free(p); }
void operator delete(void *p, size_t) noexcept { counted_free(p); }
void operator delete[](void *p, size_t) noexcept { counted_free(p); }
void operator delete(void *p, const std::nothrow_t &) noexcept { counted_free(p); }
void operator delete[](void *p, const std::nothrow_t &) noexcept { counted_free(p); }
void operator delete(void *p, std::align_val_t) noexcept { counted_free(p); }
void operator delete[](void *p, std::align_val_t) noexcept { counted_free(p); }
void operator delete(void *p, size_t, std::align_val_t) noexcept { counted_free(p); }
void operator delete[](void *p, size_t, std::align_val_t) noexcept { counted_free(p); }
void operator delete(void *p, std::align_val_t, const std::nothrow_t &) noexcept { counted_free(p); }
void operator delete[](void *p, std::align_val_t, const std::nothrow_t &) noexcept { counted_free(p); }

// ---- fixtures ---------------------------------------------------------------------------------
namespace {

psv_backend B;
psv_context *ctx;
psv_semiring *plus_times;  // FP64
psv_matrix *A;             // 6 x 5 FP64
psv_matrix *G;             // 6 x 6 pattern graph (algorithms)
psv_vector *u5, *w6, *mask6, *sparse6, *tele6;

const int64_t kR[] = {0, 0, 1, 2, 2, 3, 4, 5, 5, 5};
const int64_t kC[] = {0, 3, 1, 2, 4, 0, 4, 1, 2, 3};
const double kV[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
const double kU[] = {1, -1, 0.5, 2, -3};

// The product A u computed here, for the usability check.
std::vector<double> expected_Au() {
    std::vector<double> t(6, 0.0);
    for (int k = 0; k < 10; ++k) t[kR[k]] += kV[k] * kU[kC[k]];
    return t;
}

// A vector's full state (present entries and their values), read with injection off.
struct Snapshot {
    std::vector<int64_t> idx;
    std::vector<double> val;
    bool operator==(const Snapshot &o) const { return idx == o.idx && val == o.val; }
};
Snapshot snap(const psv_vector *v) {
    Snapshot s;
    int64_t n = 0;
    psv_vector_size(v, &n);
    s.idx.resize((size_t)n);
    s.val.resize((size_t)n);
    psv_type t = 0;
    psv_vector_type(v, &t);
    std::vector<float> f((size_t)n);
    if (psv_vector_extract_tuples(v, s.idx.data(), t == PSV_FP32 ? (void *)f.data() : (void *)s.val.data(), &n) != PSV_SUCCESS)
        n = -1;
    s.idx.resize(n < 0 ? 0 : (size_t)n);
    s.val.resize(n < 0 ? 0 : (size_t)n);
    if (t == PSV_FP32)
        for (size_t i = 0; i < s.val.size(); ++i) s.val[i] = f[i];
    return s;
}

// The context still works: A u is right (a fresh vector, freed again).
bool context_usable() {
    psv_vector *t = nullptr;
    if (psv_vector_create(ctx, PSV_FP64, 6, &t) != PSV_SUCCESS) return false;
    bool ok = psv_mxv(t, nullptr, PSV_NOOP, plus_times, A, u5, 0) == PSV_SUCCESS;
    double got[6] = {0};
    ok = ok && psv_vector_get(t, got, 6) == PSV_SUCCESS;
    const std::vector<double> want = expected_Au();
    for (int i = 0; ok && i < 6; ++i) ok = got[i] == want[i];
    psv_vector_free(&t);
    return ok;
}

// One API call under test.
struct Case {
    const char *name;
    // Runs the call (outputs go to the case's own variables); returns its status.
    std::function<psv_status()> call;
    // The outputs are as before the call (checked after a failed run).
    std::function<bool()> untouched;
    // Releases what a successful run produced.
    std::function<void()> release;
    psv_status ok = PSV_SUCCESS;  // the status of a run with no failure
};

// Open file descriptors (a reader that fails half-way must close its file).
int open_fds() {
    int n = 0;
    if (DIR *d = opendir("/proc/self/fd")) {
        while (readdir(d)) ++n;
        closedir(d);
    }
    return n;
}

long total_failures_checked = 0;
Snapshot before;  // a vector's state before a call (set once in main: it keeps its blocks)

// count_host: check the live operator-new count (off for the CUDA backend's settling pass).
void brutal(const Case &c, bool sticky, bool count_host = true) {
    // One successful run first, uncounted: whatever a call sets up once for the process (the
    // CUDA runtime's per-kernel state, a library's lazily built tables) is not a leak of the
    // failing runs that follow.
    {
        const psv_status st = c.call();
        CHECK_MSG(st == c.ok, "%s: warm-up run returned %d (%s): %s", c.name, (int)st, psv_status_string(st),
                  psv_context_last_error(ctx));
        if (st == c.ok && c.release) c.release();
    }
    long n = 1;
    for (;; ++n) {
        if (n > 100000) {
            CHECK_MSG(false, "%s: more than 100000 allocations?", c.name);
            return;
        }
        const long live_new = g_live_new.load();
        const int64_t live_buf = psv::test_hooks::live_buffers.load();
        const int fds = open_fds();
        arm(n, sticky);
        const psv_status st = c.call();
        disarm();
        const long injected = g_injected.load();
        if (injected == 0) {
            CHECK_MSG(st == c.ok, "%s: run without failure returned %d (%s): %s", c.name, (int)st,
                      psv_status_string(st), psv_context_last_error(ctx));
            if (c.release) c.release();
            CHECK_MSG((!count_host || g_live_new.load() == live_new) && psv::test_hooks::live_buffers.load() == live_buf,
                      "%s: success then release leaks (%ld blocks, %lld buffers)", c.name,
                      g_live_new.load() - live_new, (long long)(psv::test_hooks::live_buffers.load() - live_buf));
            break;
        }
        ++total_failures_checked;
        if (st == c.ok) {
            // The failure was absorbed (e.g. only the message of a warning could not be stored).
            if (c.release) c.release();
        } else {
            CHECK_MSG(st == PSV_ERROR_OUT_OF_MEMORY, "%s (%s): failing allocation %ld returned %d (%s): %s",
                      c.name, sticky ? "sticky" : "transient", n, (int)st, psv_status_string(st),
                      psv_context_last_error(ctx));
            CHECK_MSG(!c.untouched || c.untouched(), "%s (%s): failing allocation %ld changed an output",
                      c.name, sticky ? "sticky" : "transient", n);
        }
        CHECK_MSG(!count_host || g_live_new.load() == live_new, "%s (%s): failing allocation %ld leaks %ld operator-new blocks",
                  c.name, sticky ? "sticky" : "transient", n, g_live_new.load() - live_new);
        CHECK_MSG(psv::test_hooks::live_buffers.load() == live_buf,
                  "%s (%s): failing allocation %ld leaks %lld backend buffers", c.name,
                  sticky ? "sticky" : "transient", n,
                  (long long)(psv::test_hooks::live_buffers.load() - live_buf));
        CHECK_MSG(open_fds() == fds, "%s (%s): failing allocation %ld leaks %d file descriptors", c.name,
                  sticky ? "sticky" : "transient", n, open_fds() - fds);
        CHECK_MSG(context_usable(), "%s (%s): context unusable after failing allocation %ld", c.name,
                  sticky ? "sticky" : "transient", n);
        if (check_failures > 50) {
            std::fprintf(stderr, "too many failures; stopping\n");
            std::exit(1);
        }
    }
    std::fprintf(stderr, "%-34s %-9s %4ld allocations, each failed once\n", c.name,
                 sticky ? "sticky" : "transient", n - 1);
}

// Sentinels for handle outputs: a failed call must leave them as they are.
template <class T> T *sentinel() { return reinterpret_cast<T *>(uintptr_t(0x5eed0000)); }

// The vector output of several families' cases.
psv_vector *v_out;

// Constructors and readers: a handle output, left as it was on failure.
void creation_cases(std::vector<Case> &cs) {
    static psv_context *c_out;
    cs.push_back({"psv_context_create",
                  [] { c_out = sentinel<psv_context>(); return psv_context_create(B, 0, &c_out); },
                  [] { return c_out == sentinel<psv_context>(); },
                  [] { psv_context_free(&c_out); }});
    static psv_semiring *s_out;
    cs.push_back({"psv_semiring_create",
                  [] { s_out = sentinel<psv_semiring>(); return psv_semiring_create(ctx, PSV_MIN, PSV_PLUS, PSV_FP32, &s_out); },
                  [] { return s_out == sentinel<psv_semiring>(); },
                  [] { psv_semiring_free(&s_out); }});
    static psv_matrix *m_out;
    cs.push_back({"psv_matrix_build fp64",
                  [] { m_out = sentinel<psv_matrix>(); return psv_matrix_build(ctx, PSV_FP64, 6, 5, 10, kR, kC, kV, PSV_NOOP, &m_out); },
                  [] { return m_out == sentinel<psv_matrix>(); },
                  [] { psv_matrix_free(&m_out); }});
    cs.push_back({"psv_matrix_build pattern+dup",
                  [] {
                      const int64_t r[] = {0, 1, 1, 2, 0, 399}, c[] = {1, 2, 2, 0, 1, 7};
                      m_out = sentinel<psv_matrix>();
                      return psv_matrix_build(ctx, PSV_INT32, 400, 400, 6, r, c, nullptr, PSV_NOOP, &m_out);
                  },
                  [] { return m_out == sentinel<psv_matrix>(); },
                  [] { psv_matrix_free(&m_out); }});
    cs.push_back({"psv_matrix_build int64 dup plus",
                  [] {
                      const int64_t r[] = {0, 1, 1, 2}, c[] = {1, 2, 2, 0}, v[] = {1, 2, 3, 4};
                      m_out = sentinel<psv_matrix>();
                      return psv_matrix_build(ctx, PSV_INT64, 3, 3, 4, r, c, v, PSV_PLUS, &m_out);
                  },
                  [] { return m_out == sentinel<psv_matrix>(); },
                  [] { psv_matrix_free(&m_out); }});
    for (const char *f : {"karate.mtx", "io/real_general.mtx.gz", "io/weighted.txt", "io/pattern_symmetric.mtx",
                          "io/tabs_spaces.txt.gz"}) {
        static std::deque<std::string> names;  // stable addresses
        names.push_back(std::string("psv_matrix_read ") + f);
        const char *name = names.back().c_str();
        const std::string path = test_data(f);
        cs.push_back({name,
                      [path] { m_out = sentinel<psv_matrix>(); return psv_matrix_read(ctx, path.c_str(), &m_out); },
                      [] { return m_out == sentinel<psv_matrix>(); },
                      [] { psv_matrix_free(&m_out); }});
    }
    cs.push_back({"psv_vector_create",
                  [] { v_out = sentinel<psv_vector>(); return psv_vector_create(ctx, PSV_FP64, 1000, &v_out); },
                  [] { return v_out == sentinel<psv_vector>(); },
                  [] { psv_vector_free(&v_out); }});
}

void vector_op_cases(std::vector<Case> &cs) {
    // Vector operations on w6 (its state restored after each successful run).
    auto w_case = [&](const char *name, std::function<psv_status()> call) {
        cs.push_back({name, [call] {
                          pause();
                          before = snap(w6);
                          resume();
                          return call();
                      }, [] { return snap(w6) == before; },
                      [] {
                          const int64_t idx[] = {0, 2, 5};
                          const double v[] = {10, 20, 30};
                          psv_vector_build(w6, idx, v, 3);
                      }});
    };
    w_case("psv_vector_build", [] {
        const int64_t idx[] = {1, 3, 4};
        const double v[] = {-1, -2, -3};
        return psv_vector_build(w6, idx, v, 3);
    });
    w_case("psv_vector_set", [] {
        const double v[6] = {1, 2, 3, 4, 5, 6};
        return psv_vector_set(w6, v, 6);
    });
    w_case("psv_vector_fill", [] { const double x = 7; return psv_vector_fill(w6, &x); });
    w_case("psv_vector_clear", [] { return psv_vector_clear(w6); });
    w_case("psv_vector_set_element", [] { const double x = 9; return psv_vector_set_element(w6, 1, &x); });
    w_case("psv_vector_ewise", [] { return psv_vector_ewise(w6, PSV_PLUS, sparse6, sparse6); });
    w_case("psv_vector_apply", [] { const double x = 2; return psv_vector_apply(w6, PSV_TIMES, sparse6, &x); });
    w_case("psv_mxv", [] { return psv_mxv(w6, nullptr, PSV_NOOP, plus_times, A, u5, 0); });
    w_case("psv_mxv mask+accum+replace", [] {
        return psv_mxv(w6, mask6, PSV_PLUS, plus_times, A, u5, PSV_DESC_REPLACE);
    });
    w_case("psv_mxv complement+structure", [] {
        return psv_mxv(w6, mask6, PSV_MIN, plus_times, A, u5, PSV_DESC_MASK_COMPLEMENT | PSV_DESC_MASK_STRUCTURE);
    });
    w_case("psv_mxv sparse u", [] { return psv_mxv(w6, nullptr, PSV_NOOP, plus_times, G, sparse6, 0); });
}

// psv_mxv on objects made afresh for each run.
void mxv_fresh_output_cases(std::vector<Case> &cs) {
    // The transpose is built on first use and then cached: a fresh matrix each run so every
    // run builds it.
    static psv_matrix *At;
    cs.push_back({"psv_mxv transpose (builds A')",
                  [] {
                      pause();
                      psv_matrix_build(ctx, PSV_FP64, 6, 5, 10, kR, kC, kV, PSV_NOOP, &At);
                      psv_vector_create(ctx, PSV_FP64, 5, &v_out);
                      before = snap(v_out);
                      resume();
                      return psv_mxv(v_out, nullptr, PSV_NOOP, plus_times, At, w6, PSV_DESC_TRANSPOSE_A);
                  },
                  [] {
                      const bool same = snap(v_out) == before;
                      psv_vector_free(&v_out);
                      psv_matrix_free(&At);
                      return same;
                  },
                  [] {
                      psv_vector_free(&v_out);
                      psv_matrix_free(&At);
                  }});
    cs.push_back({"psv_mxv in place (w == u)",
                  [] {
                      pause();
                      psv_vector_create(ctx, PSV_FP64, 6, &v_out);
                      const double x[6] = {1, 2, 3, 4, 5, 6};
                      psv_vector_set(v_out, x, 6);
                      before = snap(v_out);
                      resume();
                      return psv_mxv(v_out, nullptr, PSV_NOOP, plus_times, G, v_out, 0);
                  },
                  [] {
                      const bool same = snap(v_out) == before;
                      psv_vector_free(&v_out);
                      return same;
                  },
                  [] { psv_vector_free(&v_out); }});
}

void query_cases(std::vector<Case> &cs) {
    // Queries that allocate host scratch.
    static double dbuf[6];
    cs.push_back({"psv_vector_get (sparse)",
                  [] { for (double &d : dbuf) d = -77; return psv_vector_get(sparse6, dbuf, 6); },
                  [] { for (double d : dbuf) if (d != -77) return false; return true; }, nullptr});
    static int64_t ibuf[6], nbuf;
    cs.push_back({"psv_vector_extract_tuples",
                  [] { nbuf = 6; for (int64_t &d : ibuf) d = -77; return psv_vector_extract_tuples(sparse6, ibuf, dbuf, &nbuf); },
                  [] { for (int64_t d : ibuf) if (d != -77) return false; return nbuf == 6; }, nullptr});
    cs.push_back({"psv_vector_reduce",
                  [] { dbuf[0] = -77; return psv_vector_reduce(dbuf, PSV_PLUS, sparse6); },
                  [] { return dbuf[0] == -77; }, nullptr});
    static psv_matrix_info info;
    cs.push_back({"psv_matrix_info_get",
                  [] { std::memset(&info, 0x5a, sizeof info); return psv_matrix_info_get(A, &info); },
                  [] { psv_matrix_info z; std::memset(&z, 0x5a, sizeof z); return std::memcmp(&z, &info, sizeof z) == 0; },
                  nullptr});
    cs.push_back({"psv_matrix_extract_tuples",
                  [] { nbuf = 10; return psv_matrix_extract_tuples(A, nullptr, nullptr, nullptr, &nbuf); },
                  [] { return nbuf == 10; }, nullptr});
    // A format change rebuilds the form; on failure the old one is kept (the usability check
    // multiplies with A itself).
    cs.push_back({"psv_matrix_set_option", [] { return psv_matrix_set_option(A, PSV_OPT_TILE_WIDTH, 2); },
                  nullptr, [] { psv_matrix_set_option(A, PSV_OPT_TILE_WIDTH, 0); }});
    cs.push_back({"psv_context_set_option", [] { return psv_context_set_option(ctx, PSV_OPT_MAX_TILES, 3); },
                  nullptr, [] { psv_context_set_option(ctx, PSV_OPT_MAX_TILES, -1); }});
}

void algorithm_cases(std::vector<Case> &cs) {
    // Algorithms: a fresh graph each run so the cached transpose is built under injection too.
    static psv_matrix *g;
    static psv_vector *r2;
    static int32_t iters;
    static float fbuf[12];
    auto algo = [&](const char *name, std::function<psv_status()> call, psv_status ok) {
        cs.push_back({name,
                      [call] {
                          pause();
                          const int64_t r[] = {0, 1, 2, 2, 3, 4, 5}, c[] = {1, 2, 0, 3, 4, 5, 0};
                          psv_matrix_build(ctx, PSV_FP32, 6, 6, 7, r, c, nullptr, PSV_NOOP, &g);
                          v_out = sentinel<psv_vector>();
                          r2 = sentinel<psv_vector>();
                          iters = -5;
                          for (float &f : fbuf) f = -77;
                          resume();
                          return call();
                      },
                      [] {
                          bool same = v_out == sentinel<psv_vector>() && r2 == sentinel<psv_vector>() && iters == -5;
                          for (float f : fbuf) same = same && f == -77;
                          psv_matrix_free(&g);
                          return same;
                      },
                      [] {
                          if (v_out != sentinel<psv_vector>()) psv_vector_free(&v_out);
                          if (r2 != sentinel<psv_vector>()) psv_vector_free(&r2);
                          psv_matrix_free(&g);
                      },
                      ok});
    };
    algo("psv_pagerank", [] { return psv_pagerank(&v_out, &iters, g, 0.85, 1e-6, 100); }, PSV_SUCCESS);
    algo("psv_pagerank not converged", [] { return psv_pagerank(&v_out, &iters, g, 0.85, 0, 3); }, PSV_NOT_CONVERGED);
    algo("psv_pagerank_personalized", [] { return psv_pagerank_personalized(&v_out, &iters, g, tele6, 0.85, 1e-6, 100); },
         PSV_SUCCESS);
    algo("psv_hits", [] { return psv_hits(&v_out, &r2, &iters, g, 1e-6, 100); }, PSV_SUCCESS);
    algo("psv_hits not converged", [] { return psv_hits(&v_out, &r2, &iters, g, 0, 2); }, PSV_NOT_CONVERGED);
    algo("psv_rwr", [] { return psv_rwr(&v_out, &iters, g, 2, 0.9, 1e-6, 200); }, PSV_SUCCESS);
    algo("psv_rwr_batch", [] {
        const int64_t q[] = {0, 3};
        return psv_rwr_batch(fbuf, &iters, g, q, 2, 0.9, 1e-6, 200);
    }, PSV_SUCCESS);
    algo("psv_rwr_batch not converged", [] {
        const int64_t q[] = {0, 3};
        return psv_rwr_batch(fbuf, &iters, g, q, 2, 0.9, 0, 2);
    }, PSV_NOT_CONVERGED);
}

std::vector<Case> cases() {
    std::vector<Case> cs;
    creation_cases(cs);
    vector_op_cases(cs);
    mxv_fresh_output_cases(cs);
    query_cases(cs);
    algorithm_cases(cs);
    return cs;
}

}  // namespace

int main() {
    t_main_thread = true;
    // Load every CUDA module at context creation: lazy loading would allocate (and keep) host
    // memory at a kernel's first launch, inside whichever call happens to launch it first.
    setenv("CUDA_MODULE_LOADING", "EAGER", 0);
    B = test_backend();
    REQUIRE(psv_context_create(B, 0, &ctx) == PSV_SUCCESS);
    if (B == PSV_BACKEND_CUDA) { psv::cuda::Policy p = psv::cuda::policy_of(ctx); p.pool_no_cache = true; psv::cuda::set_policy(ctx, p); }
    REQUIRE(psv_semiring_create(ctx, PSV_PLUS, PSV_TIMES, PSV_FP64, &plus_times) == PSV_SUCCESS);
    REQUIRE(psv_matrix_build(ctx, PSV_FP64, 6, 5, 10, kR, kC, kV, PSV_NOOP, &A) == PSV_SUCCESS);
    {
        const int64_t r[] = {0, 1, 2, 2, 3, 4, 5}, c[] = {1, 2, 0, 3, 4, 5, 0};
        REQUIRE(psv_matrix_build(ctx, PSV_FP32, 6, 6, 7, r, c, nullptr, PSV_NOOP, &G) == PSV_SUCCESS);
    }
    REQUIRE(psv_vector_create(ctx, PSV_FP64, 5, &u5) == PSV_SUCCESS);
    REQUIRE(psv_vector_set(u5, kU, 5) == PSV_SUCCESS);
    REQUIRE(psv_vector_create(ctx, PSV_FP64, 6, &w6) == PSV_SUCCESS);
    {
        const int64_t idx[] = {0, 2, 5};
        const double v[] = {10, 20, 30};
        REQUIRE(psv_vector_build(w6, idx, v, 3) == PSV_SUCCESS);
    }
    REQUIRE(psv_vector_create(ctx, PSV_BOOL, 6, &mask6) == PSV_SUCCESS);
    {
        const int64_t idx[] = {0, 1, 3};
        const uint8_t v[] = {1, 0, 1};
        REQUIRE(psv_vector_build(mask6, idx, v, 3) == PSV_SUCCESS);
    }
    REQUIRE(psv_vector_create(ctx, PSV_FP64, 6, &sparse6) == PSV_SUCCESS);
    {
        const int64_t idx[] = {1, 2, 4};
        const double v[] = {1.5, -2, 4};
        REQUIRE(psv_vector_build(sparse6, idx, v, 3) == PSV_SUCCESS);
    }
    REQUIRE(psv_vector_create(ctx, PSV_FP32, 6, &tele6) == PSV_SUCCESS);
    {
        const float t[6] = {1, 0, 0, 2, 0, 1};
        REQUIRE(psv_vector_set(tele6, t, 6) == PSV_SUCCESS);
    }
    REQUIRE(context_usable());
    // The context keeps one message per thread: the first error a thread records makes that
    // slot, which lives as long as the context (not a leak). Make it now.
    {
        psv_vector *v = nullptr;
        REQUIRE(psv_vector_create(ctx, PSV_FP64, -1, &v) == PSV_ERROR_INVALID_VALUE);
    }
    before = snap(w6);
    psv::test_hooks::fail_allocation = backend_hook;
    const std::vector<Case> cs = cases();
    // On the CUDA backend the runtime keeps host bookkeeping of its own (per allocation, per
    // stream, per module) that a failure path can make grow once, the first time it is taken:
    // each case first runs a settling pass (every status and backend buffer checked, host blocks
    // not counted), then the counted pass. A leak of psv's recurs on every pass and is caught.
    const bool settle = B == PSV_BACKEND_CUDA;
    for (bool sticky : {false, true})
        for (const Case &c : cs) {
            if (settle) brutal(c, sticky, false);
            brutal(c, sticky);
        }
    psv::test_hooks::fail_allocation = nullptr;
    std::fprintf(stderr, "%ld failing runs checked\n", total_failures_checked);
    psv_vector_free(&u5);
    psv_vector_free(&w6);
    psv_vector_free(&mask6);
    psv_vector_free(&sparse6);
    psv_vector_free(&tele6);
    psv_matrix_free(&A);
    psv_matrix_free(&G);
    psv_semiring_free(&plus_times);
    psv_context_free(&ctx);
    CHECK(psv::test_hooks::live_buffers.load() == 0);
    return check_exit();
}
