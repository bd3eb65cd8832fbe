"""psv's failures as Python exceptions (psv.PsvError with .status, .name and the context's last
error message) and non-convergence as psv.NotConvergedWarning with the result still returned."""
import warnings

import numpy as np
import pytest

import psv
import refs


@pytest.fixture(scope="module")
def A(ctx):
    src, dst = refs.read_edges("email-Eu-core.txt.gz")
    M = psv.Matrix.from_edges(src, dst, ctx=ctx)
    yield M
    M.close()


@pytest.fixture(scope="module")
def R(ctx):
    """A 3 x 4 float64 matrix (not square)."""
    M = psv.Matrix.from_edges([0, 1, 2], [3, 2, 0], values=np.array([1.0, 2, 3]), shape=(3, 4),
                              ctx=ctx)
    yield M
    M.close()


def expect(name, fn, *args, **kwargs):
    with pytest.raises(psv.PsvError) as e:
        fn(*args, **kwargs)
    err = e.value
    assert err.name == name, "%s instead of %s: %s" % (err.name, name, err)
    assert isinstance(err.status, int) and err.status < 0
    assert str(err).startswith(name) or name in str(err)
    # the detail: psv_context_last_error's message (or the binding's own), also in str()
    assert isinstance(err.message, str) and err.message.strip(), "no message: %r" % str(err)
    assert err.message in str(err)
    return err


def test_status_numbers():
    err = psv.PsvError(-6, "x")
    assert err.name == "PSV_ERROR_DIMENSION_MISMATCH" and err.status == -6
    assert issubclass(psv.PsvError, Exception)
    assert issubclass(psv.NotConvergedWarning, UserWarning)


def test_dimension_mismatch(A, R):
    n = A.shape[0]
    e = expect("PSV_ERROR_DIMENSION_MISMATCH", psv.mxv, A, np.ones(n + 1, dtype=np.float32),
               psv.Semiring("plus", "times", np.float32, ctx=A.ctx))
    assert e.status == -6
    expect("PSV_ERROR_DIMENSION_MISMATCH", psv.mxv, R, np.ones(3), "plus_times")  # ncols 4
    expect("PSV_ERROR_DIMENSION_MISMATCH", psv.mxv, R, np.ones(4), "plus_times", transpose=True)
    expect("PSV_ERROR_DIMENSION_MISMATCH", psv.mxv, R, np.ones(4), "plus_times",
           mask=np.ones(5))
    expect("PSV_ERROR_DIMENSION_MISMATCH", psv.mxv, R, np.ones(4), "plus_times", out=np.ones(2))
    # the algorithms need a square matrix: the C library's own message comes through
    e = expect("PSV_ERROR_DIMENSION_MISMATCH", psv.pagerank, R)
    expect("PSV_ERROR_DIMENSION_MISMATCH", psv.hits, R)
    expect("PSV_ERROR_DIMENSION_MISMATCH", psv.rwr, R, 0)
    expect("PSV_ERROR_DIMENSION_MISMATCH", psv.rwr, R, [0, 1])
    expect("PSV_ERROR_DIMENSION_MISMATCH", psv.pagerank, A,
           personalization=np.ones(A.shape[0] - 1))


def test_bad_semiring(A):
    x = np.ones(A.shape[1], dtype=np.float32)
    for bad in ("plus_foo", "foo_times", "plustimes", "plus_times_min", ""):
        expect("PSV_ERROR_INVALID_VALUE", psv.mxv, A, x, bad)
    # the add must be a monoid; absdiff is no multiply (psv_semiring_create refuses both)
    for bad in ("first_times", "minus_plus", "div_div", "plus_absdiff"):
        expect("PSV_ERROR_DOMAIN_MISMATCH", psv.mxv, A, x, bad)
    expect("PSV_ERROR_DOMAIN_MISMATCH", psv.Semiring, "second", "times", np.float64, ctx=A.ctx)
    expect("PSV_ERROR_INVALID_VALUE", psv.Semiring, "plus", "nope", np.float64, ctx=A.ctx)
    expect("PSV_ERROR_INVALID_VALUE", psv.mxv, A, x, "plus_times", accum="nope")


def test_domain_mismatch(ctx):
    # a float64 matrix with an int32 semiring: types do not fit
    with psv.Matrix.from_edges([0, 1], [1, 0], values=np.array([1.0, 2.0]), ctx=ctx) as F:
        expect("PSV_ERROR_DOMAIN_MISMATCH", psv.mxv, F, np.ones(2),
               psv.Semiring("plus", "times", np.int32, ctx=ctx))
    # complex values have no psv type
    expect("PSV_ERROR_DOMAIN_MISMATCH", psv.Matrix.from_edges, [0], [1],
           values=np.array([1 + 2j]), ctx=ctx)
    expect("PSV_ERROR_DOMAIN_MISMATCH", psv.Semiring, "absdiff", "times", np.float32, ctx=ctx)
    with psv.Matrix.from_edges([0, 1], [1, 0], values=np.array([1.0, 2.0]), ctx=ctx) as F:
        expect("PSV_ERROR_DOMAIN_MISMATCH", psv.mxv, F, np.array([1 + 1j, 2]), "plus_times")
        expect("PSV_ERROR_DOMAIN_MISMATCH", psv.mxv, F, np.array(["a", "b"], dtype=object),
               "plus_times")


def test_invalid_options(A):
    expect("PSV_ERROR_INVALID_VALUE", A.set_option, "no_such_option", 1)
    expect("PSV_ERROR_INVALID_VALUE", A.set_option, "kernel", "no-such-kernel")
    expect("PSV_ERROR_INVALID_VALUE", A.set_option, "kernel", 99)  # checked by the C library
    expect("PSV_ERROR_INVALID_VALUE", A.set_option, "tile_width", -5)
    expect("PSV_ERROR_INVALID_VALUE", A.ctx.set_option, "max_tiles", -7)
    expect("PSV_ERROR_INVALID_VALUE", psv.pagerank, A, damping=1.0)
    expect("PSV_ERROR_INVALID_VALUE", psv.pagerank, A, damping=-0.1)
    expect("PSV_ERROR_INVALID_VALUE", psv.pagerank, A, tol=-1.0)
    expect("PSV_ERROR_INVALID_VALUE", psv.pagerank, A, max_iter=0)
    expect("PSV_ERROR_INVALID_VALUE", psv.hits, A, max_iter=0)
    expect("PSV_ERROR_INVALID_VALUE", psv.rwr, A, 0, c=1.0)
    expect("PSV_ERROR_INVALID_VALUE", psv.rwr, A, [0, 1], c=0.0)
    expect("PSV_ERROR_INVALID_VALUE", psv.pagerank, A, personalization=np.zeros(A.shape[0]))
    p = np.ones(A.shape[0])
    p[3] = -1
    expect("PSV_ERROR_INVALID_VALUE", psv.pagerank, A, personalization=p)
    expect("PSV_ERROR_INVALID_VALUE", psv.Context, backend="tpu")
    expect("PSV_ERROR_INVALID_VALUE", psv.Context, backend="cpu", device=-1)
    # the matrix still works after the refused options
    assert abs(float(psv.pagerank(A).sum()) - 1) < 1e-4


def test_read_errors(ctx, tmp_path):
    missing = tmp_path / "no-such-file.txt"
    e = expect("PSV_ERROR_IO", psv.read, str(missing), ctx=ctx)
    assert "no-such-file" in str(e)  # the message names the file
    bad = tmp_path / "bad.txt"
    bad.write_text("0 1\n1 x\n")
    e = expect("PSV_ERROR_PARSE", psv.read, str(bad), ctx=ctx)
    assert "2" in e.message  # the line number
    d = refs.data_path("malformed")
    import os
    for name in sorted(os.listdir(d))[:5]:
        with pytest.raises(psv.PsvError):
            psv.read(os.path.join(d, name), ctx=ctx)


def test_query_out_of_range(A):
    n = A.shape[0]
    expect("PSV_ERROR_INVALID_INDEX", psv.rwr, A, n)
    expect("PSV_ERROR_INVALID_INDEX", psv.rwr, A, -1)
    expect("PSV_ERROR_INVALID_INDEX", psv.rwr, A, [0, n + 5])
    expect("PSV_ERROR_INVALID_INDEX", psv.Matrix.from_edges, [0, 5], [1, 2], n=3, ctx=A.ctx)


def test_not_converged_warns(A):
    with pytest.warns(psv.NotConvergedWarning):
        r, it = psv.pagerank(A, max_iter=1, return_iterations=True)
    assert it == 1 and r.shape == (A.shape[0],)
    assert abs(float(r.sum(dtype=np.float64)) - 1) < 1e-4  # the delivered iterate
    with pytest.warns(psv.NotConvergedWarning):
        h, a = psv.hits(A, max_iter=1)
    assert h.shape == a.shape == (A.shape[0],) and abs(float(a.sum()) - 1) < 1e-4
    with pytest.warns(psv.NotConvergedWarning):
        r = psv.rwr(A, 0, max_iter=1)
    assert r.shape == (A.shape[0],) and r[0] > 0
    with pytest.warns(psv.NotConvergedWarning):
        r = psv.rwr(A, [0, 1], max_iter=1)
    assert r.shape == (A.shape[0], 2)
    with pytest.warns(psv.NotConvergedWarning):
        psv.pagerank(A, personalization=np.ones(A.shape[0]), max_iter=1)
    # converged: no warning at all
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        psv.pagerank(A, max_iter=1000)


def test_not_converged_can_be_an_error(A):
    with warnings.catch_warnings():
        warnings.simplefilter("error", psv.NotConvergedWarning)
        with pytest.raises(psv.NotConvergedWarning):
            psv.pagerank(A, max_iter=2)


def test_closed_objects_raise(ctx):
    M = psv.Matrix.from_edges([0, 1], [1, 0], ctx=ctx)
    M.close()
    with pytest.raises(psv.PsvError) as e:
        psv.pagerank(M)
    assert e.value.name in ("PSV_ERROR_UNINITIALIZED_OBJECT", "PSV_ERROR_NULL_POINTER")
    with pytest.raises(psv.PsvError):
        M.info()


def test_bad_inputs(ctx, A):
    expect("PSV_ERROR_INVALID_INDEX", psv.Matrix.from_edges, [0, -1], [1, 0], n=3, ctx=ctx)
    expect("PSV_ERROR_DOMAIN_MISMATCH", psv.Matrix.from_edges, np.array([0.5, 1.0]), [1, 0],
           ctx=ctx)
    expect("PSV_ERROR_DIMENSION_MISMATCH", psv.Matrix.from_edges, [0, 1, 2], [1, 0], ctx=ctx)
    expect("PSV_ERROR_DIMENSION_MISMATCH", psv.Matrix.from_edges, [0, 1], [1, 0],
           values=np.ones(3), ctx=ctx)
    expect("PSV_ERROR_INVALID_VALUE", psv.rwr, A, [])  # k >= 1
    with psv.Matrix.from_edges([0, 1], [1, 0], shape=(2, 3), ctx=ctx) as R:
        import tempfile, os
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "r.mtx")
            with open(p, "w") as f:
                f.write("%%MatrixMarket matrix coordinate pattern general\n2 3 2\n1 2\n2 3\n")
            expect("PSV_ERROR_DIMENSION_MISMATCH", psv.read, p, ctx=ctx, undirected=True)
    with pytest.raises(TypeError):
        psv.Matrix()
