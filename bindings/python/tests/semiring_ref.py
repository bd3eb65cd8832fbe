"""A scalar reference of psv's operators and psv_mxv (include/psv/psv.h), element by element in
Python, independent of psv: integer arithmetic wraps (two's complement), integer x/0 is 0 and
INT_MIN/-1 is INT_MIN, division truncates toward zero as in C; floats follow IEEE 754 in their
own precision, MIN/MAX follow fmin/fmax (a NaN operand is ignored); logical operators treat
nonzero as true and give 0 or 1; on bool, PLUS and MAX are LOR, TIMES and MIN are LAND, MINUS is
LXOR, DIV is FIRST."""
import numpy as np

MONOIDS = ["plus", "times", "min", "max", "lor", "land", "lxor"]
MULTIPLIES = MONOIDS + ["first", "second", "pair", "minus", "div"]
OPERATORS = MULTIPLIES  # binary operators usable as accumulators (absdiff aside)
DTYPES = [np.bool_, np.int32, np.int64, np.float32, np.float64]
BOOL_RENAME = {"plus": "lor", "max": "lor", "times": "land", "min": "land",
               "minus": "lxor", "div": "first"}


def kind(dt):
    return np.dtype(dt).kind  # 'b', 'i', 'f'


def wrap(v, dt):
    bits = np.dtype(dt).itemsize * 8
    v &= (1 << bits) - 1
    if v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def scalar(v, dt):
    """v as the reference's scalar of dtype dt: int for bool/integers, numpy float otherwise."""
    k = kind(dt)
    if k == "b":
        return 1 if v else 0
    if k == "i":
        return int(v)
    return np.dtype(dt).type(v)


def identity(add, dt):
    k = kind(dt)
    if k == "b":
        add = BOOL_RENAME.get(add, add)
    if add in ("plus", "lor", "lxor"):
        return scalar(0, dt)
    if add in ("times", "land"):
        return scalar(1, dt)
    if add == "min":
        return np.iinfo(dt).max if k == "i" else np.dtype(dt).type(np.inf)
    if add == "max":
        return np.iinfo(dt).min if k == "i" else np.dtype(dt).type(-np.inf)
    raise ValueError(add)


def apply(op, x, y, dt):
    k = kind(dt)
    if k == "b":
        op = BOOL_RENAME.get(op, op)
    one, zero = scalar(1, dt), scalar(0, dt)
    if op == "first":
        return x
    if op == "second":
        return y
    if op == "pair":
        return one
    if op == "lor":
        return one if (x != 0 or y != 0) else zero  # NaN != 0: true
    if op == "land":
        return one if (x != 0 and y != 0) else zero
    if op == "lxor":
        return one if ((x != 0) != (y != 0)) else zero
    if k == "i":
        if op == "plus":
            return wrap(x + y, dt)
        if op == "minus":
            return wrap(x - y, dt)
        if op == "times":
            return wrap(x * y, dt)
        if op == "min":
            return min(x, y)
        if op == "max":
            return max(x, y)
        if op == "div":
            if y == 0:
                return 0
            q = abs(x) // abs(y)
            return wrap(-q if (x < 0) != (y < 0) else q, dt)
    if k == "f":
        with np.errstate(all="ignore"):
            if op == "plus":
                return x + y
            if op == "minus":
                return x - y
            if op == "times":
                return x * y
            if op == "div":
                return x / y
            if op == "min":
                return np.fmin(x, y)
            if op == "max":
                return np.fmax(x, y)
    raise ValueError((op, dt))


def mxv(rows, cols, vals, nrows, x, add, mul, dt):
    """t = A (+).(x) x for x with every entry present: (values, present) as numpy arrays of dt."""
    t = [identity(add, dt)] * nrows
    present = np.zeros(nrows, dtype=bool)
    for i, j, a in zip(rows, cols, vals):
        term = apply(mul, scalar(a, dt), scalar(x[j], dt), dt)
        t[i] = apply(add, t[i], term, dt)
        present[i] = True
    return np.array(t, dtype=dt) if kind(dt) != "b" else np.array(t, dtype=bool), present


def write_back(t, tp, w, wp, allow, accum, replace, dt):
    """GraphBLAS w<mask> accum= t: (values, present). allow: where the (complemented) mask is
    true; w, wp: w's values and presence before the call."""
    n = len(t)
    z = list(w)
    zp = wp.copy()
    for i in range(n):
        if accum is None:
            zi, zpi = t[i], tp[i]
        elif tp[i] and wp[i]:
            zi, zpi = apply(accum, scalar(w[i], dt), scalar(t[i], dt), dt), True
        elif tp[i]:
            zi, zpi = t[i], True
        else:
            zi, zpi = w[i], wp[i]
        if allow[i]:
            z[i], zp[i] = zi, zpi
        elif replace:
            zp[i] = False
    return np.array(z, dtype=dt), zp
