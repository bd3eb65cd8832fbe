"""psv.mxv for every semiring (add monoid x multiply x type) against the element-by-element
reference of semiring_ref.py, plus masks (value, structure, complement, replace), accumulators,
transpose, pattern matrices and the fill of absent entries. Integers and bool must match
exactly; floats (whose values are chosen so that most sums are exact) within rtol."""
import numpy as np
import pytest

import psv
import semiring_ref as R

NROWS, NCOLS = 13, 9
NAN_COL = 2      # floats: x[NAN_COL] is NaN
NAN_ONLY_ROW = 3  # a row whose only entry meets the NaN


def dtname(dt):
    return np.dtype(dt).name


def make_case(dt, seed=23):
    """(rows, cols, vals, x) of a small random NROWS x NCOLS matrix of type dt, with two empty
    rows, an empty column, explicit zeros, and the type's edge values."""
    rng = np.random.default_rng(seed)
    on = rng.random((NROWS, NCOLS)) < 0.4
    on[[0, 5], :] = False            # empty rows: absent in the result (fill)
    on[:, 7] = False                 # an empty column
    on[NAN_ONLY_ROW, :] = False
    on[NAN_ONLY_ROW, NAN_COL] = True
    on[1, 0] = True
    rows, cols = np.nonzero(on)
    nnz = len(rows)
    k = R.kind(dt)
    if k == "b":
        vals = rng.random(nnz) < 0.5
        x = rng.random(NCOLS) < 0.5
        x[0], x[1] = True, False
    elif k == "i":
        info = np.iinfo(dt)
        pool = np.array(list(range(-4, 5)) + [info.max, info.min, info.max // 2 + 1, info.min + 1],
                        dtype=np.int64)
        vals = pool[rng.integers(0, len(pool), nnz)].astype(dt)
        x = pool[rng.integers(0, len(pool), NCOLS)].astype(dt)
        x[0], x[1] = -1, 0  # INT_MIN / -1 and x / 0
        vals[(rows == 1) & (cols == 0)] = info.min
    else:
        pool = np.array([-2, -1, -0.5, 0, 0.5, 1, 2, 4])
        vals = pool[rng.integers(0, len(pool), nnz)].astype(dt)
        x = pool[rng.integers(0, len(pool), NCOLS)].astype(dt)
        x[0], x[1] = 0, 0.5
        x[NAN_COL] = np.nan
    return rows.astype(np.int64), cols.astype(np.int64), vals, x


_mats = {}


def matrix(ctx, dt, transpose_input=False):
    key = (id(ctx), dtname(dt))
    if key not in _mats:
        rows, cols, vals, x = make_case(dt)
        A = psv.Matrix.from_edges(rows, cols, values=vals, shape=(NROWS, NCOLS), ctx=ctx)
        _mats[key] = (A, rows, cols, vals, x)
    return _mats[key]


@pytest.fixture(scope="module", autouse=True)
def _close_mats():
    yield
    for A, *_ in _mats.values():
        A.close()
    _mats.clear()


def assert_result(got, want, dt, what=""):
    got = np.asarray(got)
    assert got.shape == want.shape, what
    assert got.dtype == np.dtype(dt), "%s: result dtype %s, expected %s" % (what, got.dtype,
                                                                             np.dtype(dt))
    if R.kind(dt) == "f":
        rtol = 1e-5 if np.dtype(dt) == np.float32 else 1e-12
        np.testing.assert_allclose(got, want, rtol=rtol, atol=0, equal_nan=True, err_msg=what)
    else:
        assert np.array_equal(got, want), "%s:\n got  %r\n want %r" % (what, got, want)


def check(got_pair, want_vals, want_present, fill, dt, what):
    vals, present = got_pair
    present = np.asarray(present)
    assert present.dtype == np.bool_, what
    assert np.array_equal(present, want_present), "%s: present %r, want %r" % (
        what, present, want_present)
    expect = np.where(want_present, want_vals, np.array(fill, dtype=dt))
    assert_result(vals, expect.astype(dt), dt, what)


def test_matrix_setup(ctx):
    for dt in R.DTYPES:
        A, rows, cols, vals, x = matrix(ctx, dt)
        assert A.shape == (NROWS, NCOLS) and A.nnz == len(rows)
        assert np.dtype(A.dtype) == np.dtype(dt) and not A.is_pattern


@pytest.mark.parametrize("dt", R.DTYPES, ids=dtname)
@pytest.mark.parametrize("mul", R.MULTIPLIES)
@pytest.mark.parametrize("add", R.MONOIDS)
def test_semiring_object(ctx, add, mul, dt):
    A, rows, cols, vals, x = matrix(ctx, dt)
    want, wp = R.mxv(rows, cols, vals, NROWS, x, add, mul, dt)
    S = psv.Semiring(add, mul, dt, ctx=ctx)
    got = psv.mxv(A, x, semiring=S, return_present=True)
    check(got, want, wp, R.identity(add, dt), dt, "%s_%s %s" % (add, mul, dtname(dt)))
    # default return: the values alone, absent rows holding the add identity
    plain = psv.mxv(A, x, S)
    assert_result(plain, np.where(wp, want, R.identity(add, dt)).astype(dt), dt)


@pytest.mark.parametrize("dt", R.DTYPES, ids=dtname)
@pytest.mark.parametrize("mul", R.MULTIPLIES)
@pytest.mark.parametrize("add", R.MONOIDS)
def test_semiring_name(ctx, add, mul, dt):
    """The same through the name "add_multiply" (the type is the matrix's)."""
    A, rows, cols, vals, x = matrix(ctx, dt)
    want, wp = R.mxv(rows, cols, vals, NROWS, x, add, mul, dt)
    got = psv.mxv(A, x, semiring="%s_%s" % (add, mul), return_present=True)
    check(got, want, wp, R.identity(add, dt), dt, "%s_%s %s" % (add, mul, dtname(dt)))


def test_fill_and_reference_sanity(ctx):
    """The reference itself: wraparound, x/0 and INT_MIN/-1 and the NaN rules are exercised."""
    dt = np.int32
    A, rows, cols, vals, x = matrix(ctx, dt)
    assert R.apply("div", -2**31, -1, dt) == -2**31
    assert R.apply("div", 7, 0, dt) == 0 and R.apply("div", -7, 2, dt) == -3
    assert R.apply("plus", 2**31 - 1, 1, dt) == -2**31
    assert np.isnan(R.apply("plus", np.float32(np.nan), np.float32(1), np.float32))
    assert R.apply("min", np.float64(np.nan), np.float64(1), np.float64) == 1
    assert R.apply("lor", 0, 0, np.bool_) == 0 and R.apply("plus", 1, 1, np.bool_) == 1
    # the fill argument replaces the identity in absent rows
    got = psv.mxv(A, x, "plus_times", fill=-7)
    want, wp = R.mxv(rows, cols, vals, NROWS, x, "plus", "times", dt)
    assert not wp[0] and not wp[5]
    assert_result(got, np.where(wp, want, -7).astype(dt), dt)
    # min_plus on float64: +inf in empty rows; the row whose only term is NaN reduces to +inf
    # (fmin ignores NaN) but is present
    A, rows, cols, vals, x = matrix(ctx, np.float64)
    v, p = psv.mxv(A, x, "min_plus", return_present=True)
    assert v[0] == np.inf and not p[0]
    assert v[NAN_ONLY_ROW] == np.inf and p[NAN_ONLY_ROW]
    v, p = psv.mxv(A, x, "plus_plus", return_present=True)
    assert np.isnan(v[NAN_ONLY_ROW]) and p[NAN_ONLY_ROW]


@pytest.mark.parametrize("dt", R.DTYPES, ids=dtname)
def test_x_is_cast(ctx, dt):
    """x of another dtype (and a list) is cast to the semiring's type."""
    A, rows, cols, vals, x = matrix(ctx, dt)
    want = psv.mxv(A, x, "plus_times")
    if R.kind(dt) != "f":
        got = psv.mxv(A, x.astype(np.float64), "plus_times") if R.kind(dt) == "b" else \
            psv.mxv(A, [int(v) for v in x], "plus_times")
        assert_result(got, want, dt)
    else:
        got = psv.mxv(A, x.astype(np.float32 if dt == np.float64 else np.float64), "plus_times")
        assert_result(got, want, dt)


@pytest.mark.parametrize("dt", R.DTYPES, ids=dtname)
@pytest.mark.parametrize("sr", ["plus_times", "min_plus", "max_second", "lor_land", "plus_pair"])
def test_transpose(ctx, dt, sr):
    A, rows, cols, vals, _ = matrix(ctx, dt)
    rng = np.random.default_rng(5)
    if R.kind(dt) == "b":
        y = rng.random(NROWS) < 0.5
    else:
        y = rng.integers(-3, 4, NROWS).astype(dt)
    add, mul = sr.split("_")
    want, wp = R.mxv(cols, rows, vals, NCOLS, y, add, mul, dt)
    got = psv.mxv(A, y, sr, transpose=True, return_present=True)
    check(got, want, wp, R.identity(add, dt), dt, "%s' %s" % (sr, dtname(dt)))
    assert not wp[7]  # the empty column is an absent entry of A' x


@pytest.mark.parametrize("dt", [np.int32, np.float64, np.bool_], ids=dtname)
@pytest.mark.parametrize("sr", ["plus_times", "min_plus"])
def test_pattern_matrix(ctx, dt, sr):
    """A pattern matrix (values=None) acts as all ones, with a semiring of any type."""
    rows, cols, _, x = make_case(dt)
    with psv.Matrix.from_edges(rows, cols, shape=(NROWS, NCOLS), ctx=ctx) as P:
        assert P.is_pattern and P.nnz == len(rows)
        add, mul = sr.split("_")
        ones = np.ones(len(rows), dtype=dt)
        want, wp = R.mxv(rows, cols, ones, NROWS, x, add, mul, dt)
        got = psv.mxv(P, x, psv.Semiring(add, mul, dt, ctx=ctx), return_present=True)
        check(got, want, wp, R.identity(add, dt), dt, "pattern %s %s" % (sr, dtname(dt)))


def out_start(dt, seed=7):
    rng = np.random.default_rng(seed)
    if R.kind(dt) == "b":
        return rng.random(NROWS) < 0.5
    return rng.integers(-3, 4, NROWS).astype(dt)


def mask_array(seed=11):
    rng = np.random.default_rng(seed)
    m = rng.integers(0, 3, NROWS).astype(np.float64)  # nonzero = true; values 0, 1, 2
    m[0], m[1], m[2] = 1, 0, 2.5
    return m


@pytest.mark.parametrize("dt", [np.int32, np.float64, np.bool_], ids=dtname)
@pytest.mark.parametrize("accum", [None, "plus", "min", "second"])
@pytest.mark.parametrize("out", [False, True], ids=["no_out", "out"])
@pytest.mark.parametrize("replace", [False, True], ids=["keep", "replace"])
@pytest.mark.parametrize("complement", [False, True], ids=["mask", "complement"])
@pytest.mark.parametrize("structure", [False, True], ids=["value", "structure"])
def test_masks(ctx, dt, accum, out, replace, complement, structure):
    A, rows, cols, vals, x = matrix(ctx, dt)
    sr = "plus_times"
    t, tp = R.mxv(rows, cols, vals, NROWS, x, "plus", "times", dt)
    m = mask_array()
    allow = np.ones(NROWS, dtype=bool) if structure else (m != 0)
    if complement:
        allow = ~allow
    if out:
        w0 = out_start(dt)
        wp0 = np.ones(NROWS, dtype=bool)
    else:
        w0 = np.zeros(NROWS, dtype=dt)
        wp0 = np.zeros(NROWS, dtype=bool)
    want, wp = R.write_back(t, tp, w0, wp0, allow, accum, replace, dt)
    kwargs = dict(mask=m, accum=accum, complement=complement, structure=structure,
                  replace=replace, return_present=True)
    if out:
        kwargs["out"] = w0.copy()
    got = psv.mxv(A, x, sr, **kwargs)
    check(got, want, wp, R.identity("plus", dt), dt,
          "mask %s accum=%s out=%s replace=%s complement=%s structure=%s" % (
              dtname(dt), accum, out, replace, complement, structure))


@pytest.mark.parametrize("mdt", [np.bool_, np.int32, np.int64, np.float32, np.float64],
                         ids=dtname)
def test_mask_of_any_type(ctx, mdt):
    """A value mask of any type is true where nonzero."""
    dt = np.float64
    A, rows, cols, vals, x = matrix(ctx, dt)
    m = (mask_array() != 0).astype(mdt) * (3 if mdt != np.bool_ else 1)
    t, tp = R.mxv(rows, cols, vals, NROWS, x, "plus", "times", dt)
    got = psv.mxv(A, x, "plus_times", mask=m, return_present=True)
    allow = mask_array() != 0
    check(got, t, tp & allow, 0.0, dt, "mask of %s" % dtname(mdt))


@pytest.mark.parametrize("dt", R.DTYPES, ids=dtname)
@pytest.mark.parametrize("accum", R.OPERATORS)
def test_accumulators(ctx, dt, accum):
    """w = accum(w, t) where both exist, the union elsewhere, for every operator and type."""
    A, rows, cols, vals, x = matrix(ctx, dt)
    t, tp = R.mxv(rows, cols, vals, NROWS, x, "plus", "times", dt)
    w0 = out_start(dt)
    want, wp = R.write_back(t, tp, w0, np.ones(NROWS, dtype=bool),
                            np.ones(NROWS, dtype=bool), accum, False, dt)
    got = psv.mxv(A, x, "plus_times", accum=accum, out=w0.copy(), return_present=True)
    check(got, want, wp, 0, dt, "accum %s %s" % (accum, dtname(dt)))


@pytest.mark.parametrize("dt", [np.int64, np.float32], ids=dtname)
def test_transpose_with_mask_and_accum(ctx, dt):
    A, rows, cols, vals, _ = matrix(ctx, dt)
    y = np.arange(NROWS, dtype=dt) - 4
    t, tp = R.mxv(cols, rows, vals, NCOLS, y, "max", "plus", dt)
    m = np.array([1, 0, 1, 1, 0, 1, 0, 1, 1], dtype=np.int32)
    w0 = np.arange(NCOLS, dtype=dt) * 2
    want, wp = R.write_back(t, tp, w0, np.ones(NCOLS, dtype=bool), m != 0, "minus", True, dt)
    got = psv.mxv(A, y, "max_plus", mask=m, accum="minus", out=w0.copy(), replace=True,
                  transpose=True, return_present=True)
    check(got, want, wp, R.identity("max", dt), dt, "transpose+mask+accum")


@pytest.mark.parametrize("structure", [False, True], ids=["value", "structure"])
@pytest.mark.parametrize("complement", [False, True], ids=["mask", "complement"])
def test_mask_present_and_out_present(ctx, structure, complement):
    """mask_present: the mask's present entries (a structural mask is true exactly there, a
    value mask where present and nonzero); out_present: w's entries before the call."""
    dt = np.int64
    A, rows, cols, vals, x = matrix(ctx, dt)
    t, tp = R.mxv(rows, cols, vals, NROWS, x, "plus", "times", dt)
    m = np.array([0, 1, 2, 0, 1, 0, 3, 0, 1, 1, 0, 2, 0], dtype=np.int32)
    mp = np.array([1, 1, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 0], dtype=bool)
    allow = mp.copy() if structure else (mp & (m != 0))
    if complement:
        allow = ~allow
    w0 = np.arange(NROWS, dtype=dt) * 10
    wp0 = np.array([1, 0] * 6 + [1], dtype=bool)
    want, wp = R.write_back(t, tp, w0, wp0, allow, "plus", False, dt)
    got = psv.mxv(A, x, "plus_times", mask=m, mask_present=mp, structure=structure,
                  complement=complement, accum="plus", out=w0, out_present=wp0,
                  return_present=True)
    check(got, want, wp, 0, dt, "mask_present structure=%s complement=%s" % (structure,
                                                                            complement))
    assert np.array_equal(w0, np.arange(NROWS, dtype=dt) * 10)  # out is not modified
