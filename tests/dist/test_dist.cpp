// Multi-part contexts (psv_context_create_multi) on the backend PSV_TEST_BACKEND names (CUDA:
// every part on device 0): every call on 1, 2, 3 and 7
// parts against a one-part context -- PageRank (plain, personalized), HITS, RWR (single and
// batch), psv_mxv with the common semirings and a runtime combination under masks,
// accumulators and descriptors, vector and matrix calls; uneven and empty parts, parts without
// edges; results identical run to run; invalid arguments; failure injection (outputs untouched,
// nothing leaked); the equal-rows / near-equal-entries property of the bitonic layout on R-MAT.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "psv/psv.h"  // before check.h: its test_backend()
#include "check.h"
#include "core/test_hooks.hpp"
#include "cuda/internal.hpp"
#include "dist/dist.hpp"
#include "dist/stages.hpp"
#include "dist_common.hpp"

namespace {


psv_context *context(int32_t nparts) {
    psv_context *ctx = nullptr;
    REQUIRE(psv_context_create_multi(test_backend(), nparts, nullptr, &ctx) == PSV_SUCCESS);  // CUDA: all on device 0
    return ctx;
}

psv_matrix *pattern(psv_context *ctx, const Graph &g) {
    psv_matrix *A = nullptr;
    REQUIRE(psv_matrix_build(ctx, PSV_FP32, g.n, g.n, (int64_t)g.rows.size(), g.rows.data(), g.cols.data(),
                             nullptr, PSV_NOOP, &A) == PSV_SUCCESS);
    return A;
}

std::vector<float> values(const psv_vector *v) {
    int64_t n = 0;
    psv_vector_size(v, &n);
    std::vector<float> x((size_t)n);
    REQUIRE(psv_vector_get(v, x.data(), n) == PSV_SUCCESS);
    return x;
}


const int32_t kParts[] = {1, 2, 3, 7};
constexpr double kTol = 1e-6;

// PageRank, personalized PageRank, HITS, RWR and RWR batch of g on P parts vs one part.
void algorithms(const char *name, const Graph &g) {
    psv_context *c1 = context(1);
    psv_matrix *A1 = pattern(c1, g);
    psv_vector *pr1 = nullptr, *h1 = nullptr, *a1 = nullptr, *rw1 = nullptr, *tele1 = nullptr, *ppr1 = nullptr;
    REQUIRE(psv_pagerank(&pr1, nullptr, A1, 0.85, 1e-9, 200) >= 0);
    REQUIRE(psv_hits(&h1, &a1, nullptr, A1, 1e-9, 200) >= 0);
    const int64_t q = g.n > 2 ? 2 : 0;
    REQUIRE(psv_rwr(&rw1, nullptr, A1, q, 0.9, 1e-9, 500) >= 0);
    std::vector<float> tele((size_t)g.n);
    for (int64_t i = 0; i < g.n; ++i) tele[i] = (float)(i % 3);
    const bool has_tele = g.n >= 3;
    if (has_tele) {
        psv_vector_create(c1, PSV_FP32, g.n, &tele1);
        psv_vector_set(tele1, tele.data(), g.n);
        REQUIRE(psv_pagerank_personalized(&ppr1, nullptr, A1, tele1, 0.85, 1e-9, 200) >= 0);
    }
    const int32_t k = 3;
    std::vector<int64_t> queries = {0, g.n - 1, g.n / 2};
    std::vector<float> batch1((size_t)g.n * k);
    REQUIRE(psv_rwr_batch(batch1.data(), nullptr, A1, queries.data(), k, 0.9, 1e-9, 500) >= 0);
    for (int32_t P : kParts) {
        psv_context *c = context(P);
        psv_matrix *A = pattern(c, g);
        psv_vector *pr = nullptr, *h = nullptr, *a = nullptr, *rw = nullptr;
        int32_t it = 0;
        CHECK(psv_pagerank(&pr, &it, A, 0.85, 1e-9, 200) >= 0);
        CHECK_MSG(rel_l1(values(pr), values(pr1)) <= kTol, "%s P=%d pagerank %g", name, P, rel_l1(values(pr), values(pr1)));
        CHECK(psv_hits(&h, &a, nullptr, A, 1e-9, 200) >= 0);
        CHECK_MSG(rel_l1(values(h), values(h1)) <= kTol, "%s P=%d hubs", name, P);
        CHECK_MSG(rel_l1(values(a), values(a1)) <= kTol, "%s P=%d authorities", name, P);
        CHECK(psv_rwr(&rw, nullptr, A, q, 0.9, 1e-9, 500) >= 0);
        CHECK_MSG(rel_l1(values(rw), values(rw1)) <= kTol, "%s P=%d rwr", name, P);
        if (has_tele) {
            psv_vector *t = nullptr, *ppr = nullptr;
            psv_vector_create(c, PSV_FP32, g.n, &t);
            psv_vector_set(t, tele.data(), g.n);
            CHECK(psv_pagerank_personalized(&ppr, nullptr, A, t, 0.85, 1e-9, 200) >= 0);
            CHECK_MSG(rel_l1(values(ppr), values(ppr1)) <= kTol, "%s P=%d personalized", name, P);
            psv_vector_free(&t);
            psv_vector_free(&ppr);
        }
        std::vector<float> batch((size_t)g.n * k);
        CHECK(psv_rwr_batch(batch.data(), nullptr, A, queries.data(), k, 0.9, 1e-9, 500) >= 0);
        CHECK_MSG(rel_l1(batch, batch1) <= kTol, "%s P=%d rwr batch", name, P);
        // bit-identical run to run
        psv_vector *pr2 = nullptr;
        CHECK(psv_pagerank(&pr2, nullptr, A, 0.85, 1e-9, 200) >= 0);
        CHECK_MSG(values(pr2) == values(pr), "%s P=%d pagerank differs between two runs", name, P);
        psv_vector_free(&pr2);
        psv_vector_free(&pr);
        psv_vector_free(&h);
        psv_vector_free(&a);
        psv_vector_free(&rw);
        psv_matrix_free(&A);
        psv_context_free(&c);
    }
    psv_vector_free(&pr1);
    psv_vector_free(&h1);
    psv_vector_free(&a1);
    psv_vector_free(&rw1);
    psv_vector_free(&tele1);
    psv_vector_free(&ppr1);
    psv_matrix_free(&A1);
    psv_context_free(&c1);
}

// ---- psv_mxv ----
struct Semi {
    psv_op add, mul;
    psv_type type;
};
const Semi kSemirings[] = {
    {PSV_PLUS, PSV_TIMES, PSV_FP64}, {PSV_MIN, PSV_PLUS, PSV_FP64}, {PSV_MAX, PSV_TIMES, PSV_FP32},
    {PSV_LOR, PSV_LAND, PSV_BOOL},   {PSV_PLUS, PSV_PAIR, PSV_INT64}, {PSV_MIN, PSV_SECOND, PSV_INT32},
    {PSV_MAX, PSV_MINUS, PSV_FP64},  // a runtime combination
};

size_t tsize(psv_type t) { return t == PSV_BOOL ? 1 : (t == PSV_INT32 || t == PSV_FP32) ? 4 : 8; }

// value i of a small pattern of each type, bytes into out
void value_of(psv_type t, int64_t i, void *out) {
    const double x = (double)((i * 7) % 11) - 3.0;
    switch (t) {
    case PSV_BOOL: *(uint8_t *)out = (i % 3) != 0; break;
    case PSV_INT32: *(int32_t *)out = (int32_t)x; break;
    case PSV_INT64: *(int64_t *)out = (int64_t)x; break;
    case PSV_FP32: *(float *)out = (float)(x * 0.5); break;
    default: *(double *)out = x * 0.25; break;
    }
}

double as_double(psv_type t, const uint8_t *p) {
    switch (t) {
    case PSV_BOOL: return *p;
    case PSV_INT32: return *(const int32_t *)p;
    case PSV_INT64: return (double)*(const int64_t *)p;
    case PSV_FP32: return *(const float *)p;
    default: return *(const double *)p;
    }
}

// The entries of v: indices and values as doubles.
void tuples(const psv_vector *v, psv_type t, std::vector<int64_t> &idx, std::vector<double> &val) {
    int64_t n = 0;
    psv_vector_size(v, &n);
    idx.resize((size_t)n);
    std::vector<uint8_t> raw((size_t)n * tsize(t));
    int64_t cnt = n;
    REQUIRE(psv_vector_extract_tuples(v, idx.data(), raw.data(), &cnt) == PSV_SUCCESS);
    idx.resize((size_t)cnt);
    val.resize((size_t)cnt);
    for (int64_t k = 0; k < cnt; ++k) val[k] = as_double(t, &raw[(size_t)k * tsize(t)]);
}

// w, u and mask of one case, built in ctx: u sparse (every third entry absent), w with a few
// entries, the mask of another type.
struct Case {
    psv_vector *w = nullptr, *u = nullptr, *mask = nullptr;
};
Case make_case(psv_context *ctx, psv_type t, int64_t nw, int64_t nu) {
    Case c;
    std::vector<int64_t> iu, iw, im;
    std::vector<uint8_t> vu, vw;
    std::vector<int32_t> vm;
    uint8_t buf[8];
    for (int64_t i = 0; i < nu; ++i)
        if (i % 3 != 1) {
            iu.push_back(i);
            value_of(t, i + 1, buf);
            vu.insert(vu.end(), buf, buf + tsize(t));
        }
    for (int64_t i = 0; i < nw; i += 2) {
        iw.push_back(i);
        value_of(t, i + 5, buf);
        vw.insert(vw.end(), buf, buf + tsize(t));
    }
    for (int64_t i = 0; i < nw; ++i)
        if (i % 4 != 3) {
            im.push_back(i);
            vm.push_back(i % 5 == 0 ? 0 : 1);  // some present-but-false entries (value masks)
        }
    psv_vector_create(ctx, t, nu, &c.u);
    psv_vector_create(ctx, t, nw, &c.w);
    psv_vector_create(ctx, PSV_INT32, nw, &c.mask);
    REQUIRE(psv_vector_build(c.u, iu.data(), vu.data(), (int64_t)iu.size()) == PSV_SUCCESS);
    REQUIRE(psv_vector_build(c.w, iw.data(), vw.data(), (int64_t)iw.size()) == PSV_SUCCESS);
    REQUIRE(psv_vector_build(c.mask, im.data(), vm.data(), (int64_t)im.size()) == PSV_SUCCESS);
    return c;
}
void free_case(Case &c) {
    psv_vector_free(&c.w);
    psv_vector_free(&c.u);
    psv_vector_free(&c.mask);
}

// A valued matrix of type t from g's tuples (rectangular when ncols < n: columns folded).
psv_matrix *valued(psv_context *ctx, const Graph &g, psv_type t, int64_t ncols) {
    std::vector<int64_t> cols(g.cols);
    for (int64_t &c : cols) c %= ncols;
    std::vector<uint8_t> vals(g.rows.size() * tsize(t));
    for (size_t e = 0; e < g.rows.size(); ++e) value_of(t, (int64_t)e, &vals[e * tsize(t)]);
    psv_matrix *A = nullptr;
    REQUIRE(psv_matrix_build(ctx, t, g.n, ncols, (int64_t)g.rows.size(), g.rows.data(), cols.data(), vals.data(),
                             PSV_FIRST, &A) == PSV_SUCCESS);
    return A;
}

void products(const char *name, const Graph &g, int64_t ncols) {
    const int32_t descs[] = {0, PSV_DESC_TRANSPOSE_A, PSV_DESC_MASK_COMPLEMENT | PSV_DESC_REPLACE,
                             PSV_DESC_MASK_STRUCTURE};
    psv_context *c1 = context(1);
    std::vector<psv_context *> cs;
    for (int32_t P : kParts) cs.push_back(context(P));
    for (const Semi &sr : kSemirings) {
        psv_semiring *s1 = nullptr;
        REQUIRE(psv_semiring_create(c1, sr.add, sr.mul, sr.type, &s1) == PSV_SUCCESS);
        psv_matrix *A1 = valued(c1, g, sr.type, ncols);
        for (int32_t desc : descs) {
            const bool tr = desc & PSV_DESC_TRANSPOSE_A;
            const int64_t nw = tr ? ncols : g.n, nu = tr ? g.n : ncols;
            for (int variant = 0; variant < 3; ++variant) {  // no mask/accum; mask; mask + accum
                const bool use_mask = variant >= 1 || (desc & (PSV_DESC_MASK_COMPLEMENT | PSV_DESC_MASK_STRUCTURE));
                const psv_op accum = variant == 2 ? sr.add : PSV_NOOP;
                Case r1 = make_case(c1, sr.type, nw, nu);
                REQUIRE(psv_mxv(r1.w, use_mask ? r1.mask : nullptr, accum, s1, A1, r1.u, desc) == PSV_SUCCESS);
                std::vector<int64_t> i1;
                std::vector<double> v1;
                tuples(r1.w, sr.type, i1, v1);
                for (size_t ci = 0; ci < cs.size(); ++ci) {
                    psv_semiring *s = nullptr;
                    REQUIRE(psv_semiring_create(cs[ci], sr.add, sr.mul, sr.type, &s) == PSV_SUCCESS);
                    psv_matrix *A = valued(cs[ci], g, sr.type, ncols);
                    Case r = make_case(cs[ci], sr.type, nw, nu);
                    CHECK(psv_mxv(r.w, use_mask ? r.mask : nullptr, accum, s, A, r.u, desc) == PSV_SUCCESS);
                    std::vector<int64_t> ip;
                    std::vector<double> vp;
                    tuples(r.w, sr.type, ip, vp);
                    bool same = ip == i1;
                    for (size_t e = 0; same && e < vp.size(); ++e)
                        same = std::fabs(vp[e] - v1[e]) <= kTol * std::max(1.0, std::fabs(v1[e]));
                    CHECK_MSG(same, "%s: semiring %d.%d type %d desc %d variant %d on %d parts differs", name,
                              (int)sr.add, (int)sr.mul, (int)sr.type, (int)desc, variant, (int)kParts[ci]);
                    free_case(r);
                    psv_matrix_free(&A);
                    psv_semiring_free(&s);
                }
                free_case(r1);
            }
        }
        psv_matrix_free(&A1);
        psv_semiring_free(&s1);
    }
    for (psv_context *&c : cs) psv_context_free(&c);
    psv_context_free(&c1);
}

// t of a StagedProduct on the host in global row order: values (fp64) and presence.
void staged_host(const psv::dist::StagedProduct &sp, const psv_matrix *A, std::vector<double> &val,
                 std::vector<uint8_t> &present) {
    const psv::dist::PartitionedStore *M = psv::dist::as_partitioned(*A->store);
    const int64_t n = A->store->nrows;
    val.assign((size_t)n, 0.0);
    present.assign((size_t)n, 0);
    for (int32_t p = 0; p < sp.nparts(); ++p) {
        const psv::dist::StagedProduct::Piece t = sp.piece(p);
        std::vector<double> v((size_t)t.n);
        std::vector<uint8_t> pr((size_t)t.n);
        if (t.n) {
            t.backend->download(v.data(), t.values, (size_t)t.n * sizeof(double));
            t.backend->download(pr.data(), t.present, (size_t)t.n);
        }
        for (int64_t i = 0; i < t.n; ++i) {
            const int64_t r = M ? M->rows->global_of(M->rows->offset[p] + i) : i;
            val[(size_t)r] = v[(size_t)i];
            present[(size_t)r] = pr[(size_t)i];
        }
    }
}

// The product's stages (src/dist/stages.hpp), which psv_bench --ranks times one by one: Local
// alone is the product over the entries whose columns the row's part owns; Local, Exchange and
// Remote in turn leave psv_mxv's result bit for bit, as All does, and Remote before any Exchange
// fails; on one part Local is the whole product and Exchange and Remote change nothing.
// Plus-times fp64 with u sparse (a union of patterns).
void staged_product(const char *name, const Graph &g) {
    using psv::dist::ProductStage;
    for (int32_t P : kParts) {
        psv_context *c = context(P);
        psv_matrix *A = valued(c, g, PSV_FP64, g.n);
        psv_semiring *s = nullptr;
        REQUIRE(psv_semiring_create(c, PSV_PLUS, PSV_TIMES, PSV_FP64, &s) == PSV_SUCCESS);
        Case k = make_case(c, PSV_FP64, g.n, g.n);
        REQUIRE(psv_mxv(k.w, nullptr, PSV_NOOP, s, A, k.u, 0) == PSV_SUCCESS);
        std::vector<int64_t> wi;
        std::vector<double> wv;
        tuples(k.w, PSV_FP64, wi, wv);
        // the local columns' share on the host: an entry is local where its column's owner (column
        // layout) is its row's owner (row layout)
        const psv::dist::PartitionedStore *M = psv::dist::as_partitioned(*A->store);
        CHECK((P == 1) == (M == nullptr));
        int64_t nv = 0;
        psv_matrix_nvals(A, &nv);
        std::vector<int64_t> r((size_t)nv), cl((size_t)nv), ui;
        std::vector<double> v((size_t)nv), uv;
        int64_t cap = nv;
        REQUIRE(psv_matrix_extract_tuples(A, r.data(), cl.data(), v.data(), &cap) == PSV_SUCCESS);
        tuples(k.u, PSV_FP64, ui, uv);
        std::vector<double> u_dense((size_t)g.n, 0.0), local((size_t)g.n, 0.0);
        std::vector<uint8_t> u_has((size_t)g.n, 0), local_has((size_t)g.n, 0);
        for (size_t e = 0; e < ui.size(); ++e) u_dense[(size_t)ui[e]] = uv[e], u_has[(size_t)ui[e]] = 1;
        int64_t remote_entries = 0;
        const auto owner = [](const psv::dist::Layout &L, int64_t i) { return L.owner_of_position(L.position_of(i)); };
        for (int64_t e = 0; e < nv; ++e) {
            if (M && owner(*M->cols, cl[e]) != owner(*M->rows, r[e])) {
                ++remote_entries;
                continue;
            }
            if (!u_has[(size_t)cl[e]]) continue;
            local[(size_t)r[e]] += v[e] * u_dense[(size_t)cl[e]];
            local_has[(size_t)r[e]] = 1;
        }
        CHECK_MSG(P == 1 || remote_entries > 0, "%s P=%d: no remote entries to test", name, P);
        {  // sp goes before A, u and the context
            psv::dist::StagedProduct sp(*A, *s, *k.u);
            std::vector<double> got;
            std::vector<uint8_t> has;
            sp.run(ProductStage::Local);
            staged_host(sp, A, got, has);
            bool ok = has == local_has;
            for (int64_t i = 0; ok && i < g.n; ++i)
                ok = !has[(size_t)i] ||
                     std::fabs(got[(size_t)i] - local[(size_t)i]) <= 1e-12 * std::max(1.0, std::fabs(local[(size_t)i]));
            CHECK_MSG(ok, "%s P=%d: Local is not the local columns' product", name, P);
            // each sequence's t, as w's tuples: the whole product, bit for bit
            const auto same_as_w = [&](const char *what) {
                staged_host(sp, A, got, has);
                std::vector<int64_t> ti;
                std::vector<double> tv;
                for (int64_t i = 0; i < g.n; ++i)
                    if (has[(size_t)i]) ti.push_back(i), tv.push_back(got[(size_t)i]);
                CHECK_MSG(ti == wi && tv == wv, "%s P=%d: %s differs from psv_mxv's result", name, P, what);
            };
            psv_status remote_first = PSV_SUCCESS;
            try {
                sp.run(ProductStage::Remote);
            } catch (const psv::Error &e) {
                remote_first = e.status();
            }
            CHECK_MSG(remote_first == (P == 1 ? PSV_SUCCESS : PSV_ERROR_INVALID_VALUE), "%s P=%d: Remote before an Exchange: %d",
                      name, P, (int)remote_first);
            sp.run(ProductStage::Exchange);
            sp.run(ProductStage::Remote);
            same_as_w("Local, Exchange, Remote");
            sp.run(ProductStage::All);
            same_as_w("All");
            sp.run(ProductStage::Local);  // the last exchange serves Remote again
            sp.run(ProductStage::Remote);
            same_as_w("Local, Remote");
            if (P == 1) {  // nothing to exchange, no remote block
                sp.run(ProductStage::Exchange);
                sp.run(ProductStage::Remote);
                same_as_w("Local, Remote, Exchange, Remote on one part");
            }
        }
        free_case(k);
        psv_semiring_free(&s);
        psv_matrix_free(&A);
        psv_context_free(&c);
    }
}

// w = A u with w aliasing u, and a u whose layout differs from the matrix's (a PageRank result).
void aliasing_and_layouts(const Graph &g) {
    psv_context *c1 = context(1), *c3 = context(3);
    std::vector<std::vector<float>> out;
    for (psv_context *c : {c1, c3}) {
        psv_matrix *A = pattern(c, g);
        psv_semiring *s = nullptr;
        psv_semiring_create(c, PSV_PLUS, PSV_TIMES, PSV_FP32, &s);
        psv_vector *r = nullptr, *x = nullptr;
        REQUIRE(psv_pagerank(&r, nullptr, A, 0.85, 1e-9, 100) >= 0);
        psv_vector_create(c, PSV_FP32, g.n, &x);
        const float one = 1.0f;
        psv_vector_fill(x, &one);
        CHECK(psv_vector_ewise(x, PSV_PLUS, x, r) == PSV_SUCCESS);  // layouts differ on 3 parts
        CHECK(psv_mxv(x, nullptr, PSV_NOOP, s, A, x, 0) == PSV_SUCCESS);
        CHECK(psv_mxv(x, nullptr, PSV_PLUS, s, A, r, PSV_DESC_TRANSPOSE_A) == PSV_SUCCESS);
        const float two = 2.0f;
        CHECK(psv_vector_apply(x, PSV_TIMES, x, &two) == PSV_SUCCESS);
        out.push_back(values(x));
        float sum = 0, most = 0;
        CHECK(psv_vector_reduce(&sum, PSV_PLUS, x) == PSV_SUCCESS);
        CHECK(psv_vector_reduce(&most, PSV_MAX, x) == PSV_SUCCESS);
        out.push_back({sum, most});
        psv_vector_free(&r);
        psv_vector_free(&x);
        psv_semiring_free(&s);
        psv_matrix_free(&A);
    }
    CHECK(rel_l1(out[2], out[0]) <= kTol);
    CHECK(std::fabs(out[3][0] - out[1][0]) <= kTol * std::fabs(out[1][0]));
    CHECK(out[3][1] == out[1][1]);
    psv_context_free(&c1);
    psv_context_free(&c3);
}

// Vector calls on a partitioned vector: elements, tuples, fill, clear, nvals, device import.
void vector_calls(int32_t P) {
    psv_context *c = context(P);
    psv_vector *v = nullptr;
    const int64_t n = 10;  // uneven over 3 and 7 parts
    REQUIRE(psv_vector_create(c, PSV_INT64, n, &v) == PSV_SUCCESS);
    int64_t nv = -1, x = 0;
    CHECK(psv_vector_nvals(v, &nv) == PSV_SUCCESS && nv == 0);
    for (int64_t i = 0; i < n; i += 3) {
        const int64_t val = 100 + i;
        CHECK(psv_vector_set_element(v, i, &val) == PSV_SUCCESS);
    }
    CHECK(psv_vector_nvals(v, &nv) == PSV_SUCCESS && nv == 4);
    CHECK(psv_vector_get_element(v, 9, &x) == PSV_SUCCESS && x == 109);
    CHECK(psv_vector_get_element(v, 8, &x) == PSV_NO_VALUE);
    CHECK(psv_vector_get_element(v, n, &x) == PSV_ERROR_INVALID_INDEX);
    int64_t idx[10], vals[10], cnt = 10;
    CHECK(psv_vector_extract_tuples(v, idx, vals, &cnt) == PSV_SUCCESS && cnt == 4 && idx[1] == 3 && vals[2] == 106);
    int64_t all[10];
    CHECK(psv_vector_get(v, all, n) == PSV_SUCCESS && all[3] == 103 && all[4] == 0);
    int64_t sum = 0;
    CHECK(psv_vector_reduce(&sum, PSV_PLUS, v) == PSV_SUCCESS && sum == 100 + 103 + 106 + 109);
    const int64_t seven = 7;
    CHECK(psv_vector_fill(v, &seven) == PSV_SUCCESS);
    CHECK(psv_vector_nvals(v, &nv) == PSV_SUCCESS && nv == n);
    CHECK(psv_vector_reduce(&sum, PSV_PLUS, v) == PSV_SUCCESS && sum == 7 * n);
    int64_t set[10];
    for (int64_t i = 0; i < n; ++i) set[i] = i * i;
    CHECK(psv_vector_set(v, set, n) == PSV_SUCCESS);
    CHECK(psv_vector_get(v, all, n) == PSV_SUCCESS && std::memcmp(all, set, sizeof set) == 0);
    if (test_backend() == PSV_BACKEND_CPU) {
        CHECK(psv_vector_set_device(v, set, n) == PSV_ERROR_BACKEND_UNAVAILABLE);  // as on one part
    } else {  // device arrays in and out, spanning the parts
        psv::Backend &be = psv::cuda::backend_of(c);
        psv::Buffer d(&be, sizeof set);
        int64_t rev[10];
        for (int64_t i = 0; i < n; ++i) rev[i] = set[n - 1 - i];
        be.upload(d.get(), rev, sizeof rev);
        CHECK(psv_vector_set_device(v, d.get(), n) == PSV_SUCCESS);
        CHECK(psv_vector_get(v, all, n) == PSV_SUCCESS && std::memcmp(all, rev, sizeof rev) == 0);
        CHECK(psv_vector_set(v, set, n) == PSV_SUCCESS);
        CHECK(psv_vector_get_device(v, d.get(), n) == PSV_SUCCESS);
        be.download(all, d.get(), sizeof all);
    }
    CHECK(psv_vector_get(v, all, n) == PSV_SUCCESS && std::memcmp(all, set, sizeof set) == 0);
    CHECK(psv_vector_clear(v) == PSV_SUCCESS);
    CHECK(psv_vector_nvals(v, &nv) == PSV_SUCCESS && nv == 0);
    psv_vector_free(&v);
    CHECK(v == nullptr);
    psv_context_free(&c);
}

// Matrix calls: the partitioned matrix gives back its tuples, counts and description.
void matrix_calls(const Graph &g, int32_t P) {
    psv_context *c1 = context(1), *c = context(P);
    psv_matrix *A1 = valued(c1, g, PSV_FP64, g.n), *A = valued(c, g, PSV_FP64, g.n);
    int64_t nv1 = 0, nv = 0, nr = 0;
    psv_matrix_nvals(A1, &nv1);
    CHECK(psv_matrix_nvals(A, &nv) == PSV_SUCCESS && nv == nv1);
    CHECK(psv_matrix_nrows(A, &nr) == PSV_SUCCESS && nr == g.n);
    std::vector<int64_t> r1((size_t)nv1), k1((size_t)nv1), r((size_t)nv1), k((size_t)nv1);
    std::vector<double> v1((size_t)nv1), v((size_t)nv1);
    int64_t cap = nv1;
    psv_matrix_extract_tuples(A1, r1.data(), k1.data(), v1.data(), &cap);
    cap = nv1;
    CHECK(psv_matrix_extract_tuples(A, r.data(), k.data(), v.data(), &cap) == PSV_SUCCESS);
    CHECK(r == r1 && k == k1 && v == v1);
    psv_matrix_info i1, i;
    psv_matrix_info_get(A1, &i1);
    CHECK(psv_matrix_info_get(A, &i) == PSV_SUCCESS);
    CHECK(i.nvals == i1.nvals && i.max_row_length == i1.max_row_length && i.max_col_length == i1.max_col_length);
    CHECK(psv_matrix_set_option(A, PSV_OPT_TILE_WIDTH, 64) == PSV_SUCCESS);
    psv_matrix_free(&A1);
    psv_matrix_free(&A);
    psv_context_free(&c1);
    psv_context_free(&c);
}

// psv_matrix_read (with flags) on parts: the file's matrix, its PageRank as on one part.
void read_file() {
    const char *dir = getenv("PSV_TEST_DATA");
    REQUIRE(dir);
    const std::string path = std::string(dir) + "/karate.mtx";
    std::vector<std::vector<float>> ranks;
    for (int32_t P : {1, 3}) {
        psv_context *c = context(P);
        psv_matrix *A = nullptr;
        CHECK(psv_matrix_read_with_flags(c, path.c_str(), PSV_READ_UNDIRECTED, &A) == PSV_SUCCESS);
        int64_t nv = 0;
        CHECK(psv_matrix_nvals(A, &nv) == PSV_SUCCESS && nv == 156);
        psv_vector *r = nullptr;
        const psv_status st = psv_pagerank(&r, nullptr, A, 0.85, 1e-7, 200);  // fp32 reaches 1e-7 on both backends
        CHECK_MSG(st == PSV_SUCCESS, "PageRank on %d parts: %s (%s)", (int)P, psv_status_string(st), psv_context_last_error(c));
        ranks.push_back(values(r));
        psv_vector_free(&r);
        psv_matrix_free(&A);
        psv_context_free(&c);
    }
    CHECK(ranks[0].size() == 34 && rel_l1(ranks[1], ranks[0]) <= kTol);
}

void invalid_arguments() {
    psv_context *c = nullptr;
    CHECK(psv_context_create_multi(PSV_BACKEND_CPU, 0, nullptr, &c) == PSV_ERROR_INVALID_VALUE);
    CHECK(psv_context_create_multi(PSV_BACKEND_CPU, -2, nullptr, &c) == PSV_ERROR_INVALID_VALUE);
    CHECK(psv_context_create_multi(PSV_BACKEND_CPU, PSV_MAX_PARTS + 1, nullptr, &c) == PSV_ERROR_INVALID_VALUE);
    CHECK(psv_context_create_multi((psv_backend)9, 2, nullptr, &c) == PSV_ERROR_INVALID_VALUE);
    const int32_t bad[2] = {0, -1};
    CHECK(psv_context_create_multi(PSV_BACKEND_CPU, 2, bad, &c) == PSV_ERROR_INVALID_VALUE);
    CHECK(psv_context_create_multi(PSV_BACKEND_CPU, 2, nullptr, nullptr) == PSV_ERROR_NULL_POINTER);
    if (!psv_backend_available(PSV_BACKEND_CUDA)) {
        const int32_t devs[2] = {0, 0};
        CHECK(psv_context_create_multi(PSV_BACKEND_CUDA, 2, devs, &c) == PSV_ERROR_BACKEND_UNAVAILABLE);
    }
    CHECK(c == nullptr);
    int32_t np = 0;
    c = context(1);
    CHECK(psv_context_nparts(c, &np) == PSV_SUCCESS && np == 1);
    psv_context_free(&c);
    c = context(5);
    CHECK(psv_context_nparts(c, &np) == PSV_SUCCESS && np == 5);
    CHECK(psv_context_nparts(c, nullptr) == PSV_ERROR_NULL_POINTER);
    // the calls' own checks hold on parts: a dimension mismatch, a bad query
    psv_vector *v = nullptr;
    psv_vector_create(c, PSV_FP32, 3, &v);
    const int64_t rows[] = {0, 1}, cols[] = {1, 2};
    psv_matrix *A = nullptr;
    REQUIRE(psv_matrix_build(c, PSV_FP32, 4, 4, 2, rows, cols, nullptr, PSV_NOOP, &A) == PSV_SUCCESS);
    psv_semiring *s = nullptr;
    psv_semiring_create(c, PSV_PLUS, PSV_TIMES, PSV_FP32, &s);
    CHECK(psv_mxv(v, nullptr, PSV_NOOP, s, A, v, 0) == PSV_ERROR_DIMENSION_MISMATCH);
    psv_vector *r = nullptr;
    CHECK(psv_rwr(&r, nullptr, A, 4, 0.9, 1e-6, 10) == PSV_ERROR_INVALID_INDEX && r == nullptr);
    psv_semiring_free(&s);
    psv_matrix_free(&A);
    psv_vector_free(&v);
    psv_context_free(&c);
}

// Allocation failures at every allocation of psv_mxv and psv_pagerank on 3 parts: the call
// fails with PSV_ERROR_OUT_OF_MEMORY, leaves w untouched and leaks nothing, until it succeeds.
int64_t allowed = 0;
bool fail_after(psv_backend, size_t) { return allowed-- <= 0; }

void failure_injection(const Graph &g) {
    psv_context *c = context(3);
    psv_matrix *A = pattern(c, g);
    psv_semiring *s = nullptr;
    psv_semiring_create(c, PSV_PLUS, PSV_TIMES, PSV_FP32, &s);
    Case k = make_case(c, PSV_FP32, g.n, g.n);
    const std::vector<float> before = values(k.w);
    bool done = false;
    // a failed call may leave A's transpose cached (once: its buffers, many on CUDA); anything
    // else it keeps is a leak, and would grow again at the next failure
    int64_t grew = 0;
    for (int64_t budget = 0; budget < 1000 && !done; ++budget) {
        const int64_t live = psv::test_hooks::live_buffers.load();
        allowed = budget;
        psv::test_hooks::fail_allocation = fail_after;
        const psv_status st = psv_mxv(k.w, k.mask, PSV_PLUS, s, A, k.u, PSV_DESC_TRANSPOSE_A);
        psv::test_hooks::fail_allocation = nullptr;
        if (st == PSV_SUCCESS) {
            done = true;
            break;
        }
        CHECK(st == PSV_ERROR_OUT_OF_MEMORY);
        CHECK(values(k.w) == before);
        if (psv::test_hooks::live_buffers.load() > live) ++grew;
        CHECK_MSG(grew <= 1, "mxv leaked after %lld allocations", (long long)budget);
    }
    CHECK(done);
    done = false;
    {  // what the matrix keeps for PageRank (its transpose, its inverse row lengths) made first
        psv_vector *r = nullptr;
        CHECK(psv_pagerank(&r, nullptr, A, 0.85, 1e-6, 30) >= 0);
        psv_vector_free(&r);
    }
    for (int64_t budget = 0; budget < 2000 && !done; ++budget) {
        const int64_t live = psv::test_hooks::live_buffers.load();
        psv_vector *r = nullptr;
        allowed = budget;
        psv::test_hooks::fail_allocation = fail_after;
        const psv_status st = psv_pagerank(&r, nullptr, A, 0.85, 1e-6, 30);
        psv::test_hooks::fail_allocation = nullptr;
        if (st >= 0) {
            done = true;
            psv_vector_free(&r);
            break;
        }
        CHECK(st == PSV_ERROR_OUT_OF_MEMORY && r == nullptr);
        CHECK(psv::test_hooks::live_buffers.load() == live);
    }
    CHECK(done);
    free_case(k);
    psv_semiring_free(&s);
    psv_matrix_free(&A);
    psv_context_free(&c);
}

// The bitonic layout on a power-law graph: rows per part differ by at most one; the entries of
// any two parts differ by at most the longest row (each round deals the parts behind the larger
// rows), far less than contiguous blocks.
void bitonic_balance() {
    const Graph g = rmat(14, 16, 7);
    std::vector<int64_t> len((size_t)g.n, 0);
    {  // distinct entries per row
        std::vector<std::pair<int64_t, int64_t>> e;
        for (size_t k = 0; k < g.rows.size(); ++k) e.emplace_back(g.rows[k], g.cols[k]);
        std::sort(e.begin(), e.end());
        e.erase(std::unique(e.begin(), e.end()), e.end());
        for (auto &x : e) ++len[(size_t)x.first];
    }
    for (int32_t P : {2, 3, 7, 16}) {
        auto L = psv::dist::bitonic_layout(len, P);
        auto B = psv::dist::block_layout(g.n, P);
        int64_t rmin = INT64_MAX, rmax = 0;
        std::vector<int64_t> ent((size_t)P, 0), blk((size_t)P, 0);
        for (int32_t p = 0; p < P; ++p) {
            rmin = std::min(rmin, L->size(p));
            rmax = std::max(rmax, L->size(p));
            for (int64_t k = L->offset[p]; k < L->offset[p + 1]; ++k) ent[p] += len[(size_t)L->global_of(k)];
            for (int64_t k = B->offset[p]; k < B->offset[p + 1]; ++k) blk[p] += len[(size_t)k];
        }
        const auto spread = [](const std::vector<int64_t> &x) {
            const double lo = (double)*std::min_element(x.begin(), x.end()), hi = (double)*std::max_element(x.begin(), x.end());
            return (hi - lo) / hi;
        };
        const int64_t longest = *std::max_element(len.begin(), len.end());
        const int64_t gap = *std::max_element(ent.begin(), ent.end()) - *std::min_element(ent.begin(), ent.end());
        fprintf(stderr, "R-MAT 14 on %d parts: rows %lld..%lld; entries (max-min)/max %.4f, gap %lld <= longest row %lld"
                " (contiguous blocks %.4f)\n", (int)P, (long long)rmin, (long long)rmax, spread(ent), (long long)gap,
                (long long)longest, spread(blk));
        CHECK(rmax - rmin <= 1);
        CHECK_MSG(gap <= longest, "P=%d entries gap %lld > longest row %lld", (int)P, (long long)gap, (long long)longest);
        CHECK(spread(ent) * 5 < spread(blk));
    }
}

// Uneven parts, parts without edges and parts without rows (nparts > nrows).
Graph small_graph() {
    Graph g;  // 10 vertices; 0..3 have no edges at all
    g.n = 10;
    const int64_t e[][2] = {{4, 5}, {5, 6}, {6, 4}, {7, 4}, {8, 9}, {9, 8}, {4, 9}, {6, 6}};
    for (auto &x : e) {
        g.rows.push_back(x[0]);
        g.cols.push_back(x[1]);
    }
    return g;
}

}  // namespace

int main() {
    const Graph g = rmat(10, 8, 1);
    algorithms("rmat10", g);
    const Graph small = small_graph();
    algorithms("small", small);
    Graph tiny;  // 3 vertices on up to 7 parts: empty parts
    tiny.n = 3;
    tiny.rows = {0, 1, 2};
    tiny.cols = {1, 2, 0};
    algorithms("tiny", tiny);
    products("rmat10", g, g.n);
    products("rmat10 rectangular", g, 700);
    products("small", small, small.n);
    aliasing_and_layouts(g);
    staged_product("rmat10", g);
    staged_product("small", small);
    staged_product("tiny", tiny);
    for (int32_t P : kParts) {
        vector_calls(P);
        matrix_calls(g, P);
    }
    read_file();
    invalid_arguments();
    // PSV_GPU_TEST_SMALL (the sanitizer runs): the failure injection's thousands of retried calls
    // test host logic, which the CPU run covers; under racecheck they would take most of an hour
    const char *sm = getenv("PSV_GPU_TEST_SMALL");
    if (!(sm && *sm && *sm != '0')) failure_injection(small);
    bitonic_balance();
    CHECK(psv::test_hooks::live_buffers.load() == 0);
    return check_exit();
}
