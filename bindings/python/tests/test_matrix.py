"""Matrix construction and export: from_scipy / from_edges / to_scipy round trips for every
type, pattern detection, from_edges' n / shape / dup / scalar values, info(), set_option, and
psv.read's undirected and relabel options."""
import numpy as np
import pytest

import psv
import refs
from conftest import BACKEND

sp = pytest.importorskip("scipy.sparse")

DTYPES = [np.bool_, np.int32, np.int64, np.float32, np.float64]


def random_scipy(dt, m=40, n=30, density=0.15, seed=3):
    rng = np.random.default_rng(seed)
    S = sp.random(m, n, density=density, format="csr", random_state=rng)
    if np.dtype(dt) == np.bool_:
        S.data = rng.random(S.nnz) < 0.5  # explicit False entries are entries too
    elif np.dtype(dt).kind == "i":
        info = np.iinfo(dt)
        S.data = rng.integers(info.min, info.max, S.nnz, dtype=dt, endpoint=True)
    else:
        S.data = (rng.standard_normal(S.nnz) * 1e3).astype(dt)
    S = S.astype(dt)
    S.sort_indices()
    return S


def same_csr(a, b):
    a, b = a.tocsr(), b.tocsr()
    a.sort_indices()
    b.sort_indices()
    return (a.shape == b.shape and np.array_equal(a.indptr, b.indptr)
            and np.array_equal(a.indices, b.indices) and np.array_equal(a.data, b.data))


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_scipy_round_trip(ctx, dt):
    S = random_scipy(dt)
    with psv.Matrix.from_scipy(S, ctx=ctx, pattern=False) as A:
        assert A.shape == S.shape and A.nnz == S.nnz
        assert np.dtype(A.dtype) == np.dtype(dt) and not A.is_pattern
        T = A.to_scipy()
        assert isinstance(T, sp.csr_matrix)
        assert T.dtype == np.dtype(dt)
        assert same_csr(T, S)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "lil", "dok", "bsr"])
def test_from_any_scipy_format(ctx, fmt):
    S = random_scipy(np.float64)
    F = S.asformat(fmt)
    with psv.Matrix.from_scipy(F, ctx=ctx) as A:
        assert same_csr(A.to_scipy(), S)
    if hasattr(sp, "csr_array"):  # the sparse array classes (scipy >= 1.8)
        with psv.Matrix.from_scipy(sp.csr_array(S), ctx=ctx) as A:
            assert same_csr(A.to_scipy(), S)


def test_pattern_detection(ctx):
    S = random_scipy(np.float64)
    ones = S.copy()
    ones.data[:] = 1.0
    with psv.Matrix.from_scipy(ones, ctx=ctx) as A:  # all ones, no dtype: a pattern
        assert A.is_pattern
        T = A.to_scipy()
        assert np.all(T.data == 1) and T.dtype == np.dtype(A.dtype)
        assert same_csr(T.astype(np.float64), ones)
    with psv.Matrix.from_scipy(ones, ctx=ctx, dtype=np.float64) as A:  # dtype given: values
        assert not A.is_pattern and A.dtype == np.float64
    with psv.Matrix.from_scipy(ones, ctx=ctx, pattern=False) as A:
        assert not A.is_pattern
    with psv.Matrix.from_scipy(S, ctx=ctx) as A:  # not all ones: values
        assert not A.is_pattern
    with psv.Matrix.from_scipy(S, ctx=ctx, pattern=True) as A:  # values ignored
        assert A.is_pattern and np.all(A.to_scipy().data == 1)


@pytest.mark.parametrize("given, mapped", [(np.float16, np.float32), (np.int8, np.int32),
                                           (np.uint32, np.int64)])
def test_from_scipy_unsupported_dtype_maps(ctx, given, mapped):
    try:
        S = (random_scipy(np.float64) * 100).astype(given)
    except (ValueError, TypeError):  # newer scipy refuses some dtypes in sparse matrices
        pytest.skip(f"this scipy has no {np.dtype(given).name} sparse matrices")
    with psv.Matrix.from_scipy(S, ctx=ctx, pattern=False) as A:
        assert A.dtype == mapped
        want = sp.csr_matrix((S.data.astype(mapped), S.indices, S.indptr), shape=S.shape)
        assert same_csr(A.to_scipy(), want)


def test_from_edges_options(ctx):
    src = np.array([0, 2, 4, 4], dtype=np.int64)
    dst = np.array([1, 3, 0, 2], dtype=np.int32)
    with psv.Matrix.from_edges(src, dst, ctx=ctx) as A:  # n = max id + 1, pattern
        assert A.shape == (5, 5) and A.nnz == 4 and A.is_pattern
    with psv.Matrix.from_edges(src, dst, n=9, ctx=ctx) as A:
        assert A.shape == (9, 9)
    with psv.Matrix.from_edges(src, dst, shape=(5, 7), ctx=ctx) as A:
        assert A.shape == (5, 7)
    vals = np.array([1.5, -2, 3, 4], dtype=np.float64)
    with psv.Matrix.from_edges(src, dst, values=vals, ctx=ctx) as A:
        assert not A.is_pattern and A.dtype == np.float64
        want = sp.coo_matrix((vals, (src, dst)), shape=(5, 5))
        assert same_csr(A.to_scipy(), want)
    with psv.Matrix.from_edges(src, dst, values=vals, dtype=np.int32, ctx=ctx) as A:
        assert A.dtype == np.int32
        assert list(A.to_scipy().tocoo().data) == [1, -2, 3, 4]  # sorted by row; cast
    with psv.Matrix.from_edges(src, dst, values=np.float32(2.5), ctx=ctx) as A:  # broadcast
        assert A.dtype == np.float32 and np.all(A.to_scipy().data == 2.5)
    # duplicates: an error by default, combined by dup, counted once in a pattern
    s2, d2 = np.array([0, 0, 1]), np.array([1, 1, 0])
    v2 = np.array([2.0, 5.0, 1.0])
    with pytest.raises(psv.PsvError) as e:
        psv.Matrix.from_edges(s2, d2, values=v2, ctx=ctx)
    assert e.value.name == "PSV_ERROR_DUPLICATE_ENTRY"
    with psv.Matrix.from_edges(s2, d2, values=v2, dup="plus", ctx=ctx) as A:
        assert A.nnz == 2 and A.to_scipy()[0, 1] == 7.0
    with psv.Matrix.from_edges(s2, d2, values=v2, dup="max", ctx=ctx) as A:
        assert A.to_scipy()[0, 1] == 5.0
    with psv.Matrix.from_edges(s2, d2, ctx=ctx) as A:
        assert A.is_pattern and A.nnz == 2


def test_from_edges_empty(ctx):
    e = np.array([], dtype=np.int64)
    with psv.Matrix.from_edges(e, e, n=4, ctx=ctx) as A:
        assert A.shape == (4, 4) and A.nnz == 0
        assert A.to_scipy().nnz == 0
        r = psv.pagerank(A)
        assert np.allclose(r, 0.25)


def test_info(ctx):
    src, dst = refs.read_edges("email-Eu-core.txt.gz")
    with psv.Matrix.from_edges(src, dst, ctx=ctx) as A:
        info = A.info()
        assert info["nrows"] == A.shape[0] and info["ncols"] == A.shape[1]
        assert info["nvals"] == A.nnz
        assert info["device_bytes"] > 0
        # at least CSR's column indices
        assert info["device_bytes"] >= 4 * A.nnz
        assert info["backend"] == BACKEND
        assert info["kernel"] in ("tile-composite", "tile-coo", "csr")
        for key in ("tile_width", "dense_tiles", "workloads", "padding_ratio", "bytes",
                    "build_seconds", "max_row_length"):
            assert key in info
        assert info["max_row_length"] == int(np.bincount(src).max()) or A.nnz < len(src)


@pytest.mark.parametrize("kernel", ["tile-composite", "tile-coo", "csr", "auto"])
def test_set_option_kernel_keeps_results(ctx, kernel):
    src, dst = refs.read_edges("wiki-Vote.txt.gz")
    rng = np.random.default_rng(1)
    with psv.Matrix.from_edges(src, dst, ctx=ctx) as A:
        x = rng.random(A.shape[1]).astype(np.float32)
        before = psv.mxv(A, x, psv.Semiring("plus", "times", np.float32, ctx=ctx))
        A.set_option("kernel", kernel)
        info = A.info()
        if kernel == "csr":
            assert info["kernel"] == "csr"
        elif kernel == "tile-coo":  # the CPU backend runs TILE-COO requests as CSR
            assert info["kernel"] == ("csr" if BACKEND == "cpu" else "tile-coo")
        elif kernel == "tile-composite":
            assert info["kernel"] == "tile-composite"
        after = psv.mxv(A, x, psv.Semiring("plus", "times", np.float32, ctx=ctx))
        S = refs.pattern_csr(src, dst, A.shape[0])
        want = S @ x.astype(np.float64)
        np.testing.assert_allclose(after, want, rtol=1e-5)
        np.testing.assert_allclose(before, want, rtol=1e-5)
        A.set_option("tile_width", 1024)
        A.set_option("max_tiles", 2)
        A.set_option("workload_size", 64)
        np.testing.assert_allclose(psv.mxv(A, x, psv.Semiring("plus", "times", np.float32,
                                                              ctx=ctx)), want, rtol=1e-5)


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_read_plain(ctx, tmp_path):
    path = write(tmp_path, "g.txt", "# comment\n10 5\n5 100\n10 100\n100 100\n")
    with psv.read(path, ctx=ctx) as A:
        assert A.shape == (101, 101) and A.nnz == 4 and A.labels is None
        T = A.to_scipy()
        assert T[10, 5] == 1 and T[5, 100] == 1 and T[100, 100] == 1 and T[5, 10] == 0


def test_write_psv_round_trip(ctx, tmp_path):
    path = write(tmp_path, "w.txt", "0 1 2.5\n1 2 -1\n2 0 3\n")
    with psv.read(path, ctx=ctx) as A:
        A.write(tmp_path / "w.psv")
        with psv.read(tmp_path / "w.psv", ctx=ctx) as B:
            assert A.shape == B.shape and A.dtype == B.dtype
            for a, b in zip(A.tuples(), B.tuples()):
                assert (a == b).all()
    with psv.read(path, ctx=ctx) as A:
        with pytest.raises(psv.PsvError) as e:
            A.write(tmp_path / "no" / "x.psv")
    assert e.value.name == "PSV_ERROR_IO" and not (tmp_path / "no").exists()


def test_read_undirected(ctx, tmp_path):
    # a self-loop (once), an edge given in both directions (once each), a one-way edge
    path = write(tmp_path, "u.txt", "0 1\n1 0\n1 2\n3 3\n")
    with psv.read(path, ctx=ctx, undirected=True) as A:
        assert A.shape == (4, 4)
        T = A.to_scipy()
        want = {(0, 1), (1, 0), (1, 2), (2, 1), (3, 3)}
        got = set(zip(*T.nonzero()))
        assert {(int(i), int(j)) for i, j in got} == want
        assert A.nnz == 5 and A.is_pattern
        assert (T != T.T).nnz == 0


def test_read_undirected_weighted(ctx, tmp_path):
    path = write(tmp_path, "w.txt", "0 1 2.5\n1 2 4\n2 1 7\n")
    with psv.read(path, ctx=ctx, undirected=True) as A:
        T = A.to_scipy()
        assert not A.is_pattern and A.nnz == 4
        assert T[0, 1] == 2.5 and T[1, 0] == 2.5
        assert T[1, 2] == 4 and T[2, 1] == 7  # entries the file gives keep their own value


def test_read_relabel(ctx, tmp_path):
    path = write(tmp_path, "r.txt", "10 5\n5 100\n10 100\n100 100\n")
    with psv.read(path, ctx=ctx, relabel=True) as A:
        assert A.shape == (3, 3) and A.nnz == 4
        labels = np.asarray(A.labels)
        assert sorted(labels.tolist()) == [5, 10, 100]
        # the same edges, in the original ids
        T = A.to_scipy().tocoo()
        edges = {(int(labels[i]), int(labels[j])) for i, j in zip(T.row, T.col)}
        assert edges == {(10, 5), (5, 100), (10, 100), (100, 100)}
        # first appearance in the file, a line's row id before its column id
        assert labels.tolist() == [10, 5, 100]
    with psv.read(path, ctx=ctx, relabel=True, undirected=True) as B:
        assert B.shape == (3, 3) and B.nnz == 7
        labels = np.asarray(B.labels)
        T = B.to_scipy().tocoo()
        edges = {(int(labels[i]), int(labels[j])) for i, j in zip(T.row, T.col)}
        assert edges == {(10, 5), (5, 10), (5, 100), (100, 5), (10, 100), (100, 10), (100, 100)}


def test_read_relabel_ranks(ctx):
    """wiki-Vote relabelled: its 1,183 unused ids dropped, the edges kept; PageRank of it equals
    the float64 one of the edges renumbered through A.labels."""
    path = refs.data_path("wiki-Vote.txt.gz")
    src, dst = refs.read_edges("wiki-Vote.txt.gz")
    used = np.union1d(src, dst)
    with psv.read(path, ctx=ctx, relabel=True) as B:
        labels = np.asarray(B.labels)
        assert B.shape == (used.size, used.size) and B.nnz == 103689
        assert np.array_equal(np.sort(labels), used)
        new_id = np.full(int(used.max()) + 1, -1, dtype=np.int64)
        new_id[labels] = np.arange(labels.size)
        S = refs.pattern_csr(new_id[src], new_id[dst], used.size)
        assert same_csr(B.to_scipy().astype(np.float64), S)
        rb, it = psv.pagerank(B, tol=1e-6, max_iter=1000, return_iterations=True)
        ref, _ = refs.pagerank(S, iterations=it)
        assert np.abs(rb.astype(np.float64) - ref).sum() <= 1e-6


def test_read_matrix_market(ctx):
    with psv.read(refs.data_path("karate.mtx"), ctx=ctx) as A:
        assert A.shape == (34, 34) and A.nnz == 156
        T = A.to_scipy()
        assert (T != T.T).nnz == 0


def test_read_pathlike_and_empty(ctx, tmp_path):
    p = tmp_path / "e.txt"
    p.write_text("0 1\n1 2\n")
    with psv.read(p, ctx=ctx) as A:  # a pathlib.Path
        assert A.shape == (3, 3) and A.nnz == 2
    S = sp.csr_matrix((4, 6), dtype=np.float64)
    with psv.Matrix.from_scipy(S, ctx=ctx) as E:
        assert E.shape == (4, 6) and E.nnz == 0
        T = E.to_scipy()
        assert T.shape == (4, 6) and T.nnz == 0
        v, present = psv.mxv(E, np.ones(6), "plus_times", return_present=True)
        assert not present.any() and np.all(v == 0)


def test_labels_are_ids(ctx, tmp_path):
    p = tmp_path / "big.txt"
    # ids above 2^31 (up to 2^63-1): only relabelled can fit, and nothing is sized by them
    p.write_text("3000000000 7\n7 3000000000\n9223372036854775807 7\n")
    with psv.read(str(p), ctx=ctx, relabel=True) as A:
        assert A.shape == (3, 3) and A.nnz == 3
        assert np.asarray(A.labels).dtype == np.int64
        assert [int(v) for v in A.labels] == [3000000000, 7, 9223372036854775807]
    with pytest.raises(psv.PsvError) as e:
        psv.read(str(p), ctx=ctx)
    assert e.value.name == "PSV_ERROR_INVALID_INDEX"


def test_read_relabel_matrix_market_ids(ctx):
    """Labels are the ids as the file writes them: 1-based for Matrix Market."""
    with psv.read(refs.data_path("karate.mtx"), ctx=ctx, relabel=True) as A:
        assert sorted(int(v) for v in A.labels) == list(range(1, 35))
        assert A.shape == (34, 34) and A.nnz == 156


def test_from_scipy_coo_duplicates_summed(ctx):
    """Duplicate COO entries are summed, as scipy's own conversions do."""
    S = sp.coo_matrix((np.array([2.0, 3.0, 1.0]), (np.array([0, 0, 1]), np.array([1, 1, 0]))),
                      shape=(2, 2))
    with psv.Matrix.from_scipy(S, ctx=ctx) as A:
        assert A.nnz == 2
        assert same_csr(A.to_scipy(), S.tocsr())
