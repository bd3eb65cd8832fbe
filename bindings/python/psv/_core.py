"""psv's Python objects over the C API (see _lib.py for the prototypes).

Handles are freed deterministically: close(), `with` blocks, and a weakref.finalize per object
(it runs when the object is collected, and at interpreter exit in reverse order of creation, so
matrices go before the context they were made in; psv frees an object of a freed context too).
A Matrix or Semiring holds a reference to its Context, so the context outlives them unless it is
closed explicitly (then their calls fail with PSV_ERROR_UNINITIALIZED_OBJECT; closing them is
still fine).
"""

import contextlib
import numbers
import os
import threading
import warnings
import weakref

from ctypes import byref, c_int32, c_int64, c_void_p

import numpy as np

from . import _lib
from ._lib import lib

__all__ = [
    "PsvError", "NotConvergedWarning", "backend_available", "Context", "default_context",
    "Matrix", "Semiring", "read", "mxv", "pagerank", "hits", "rwr",
]


# ---- errors ------------------------------------------------------------------------------------

class PsvError(Exception):
    """A psv call failed. .status: the psv_status (< 0); .name: "PSV_ERROR_..."; .message: the
    context's last error (psv_context_last_error) or the binding's own explanation; .function:
    the C function (or Python check) that failed. str(): status string, message, function."""

    def __init__(self, status, message="", function=""):
        self.status = int(status)
        self.name = _lib.STATUS_NAMES.get(self.status, "PSV_UNKNOWN_STATUS")
        self.message = message or ""
        self.function = function or ""
        text = _lib.status_string(self.status)
        if self.message:
            text += ": " + self.message
        if self.function and self.function not in self.message:
            text += " (in %s)" % self.function
        super().__init__(text)


class NotConvergedWarning(UserWarning):
    """An iteration stopped at max_iter (PSV_NOT_CONVERGED); the result is still returned."""


for _cls in (PsvError, NotConvergedWarning):
    _cls.__module__ = "psv"


def _last_error(ctx):
    if ctx is not None and ctx.closed:
        return "its context was closed"
    msg = lib.psv_context_last_error(ctx._h if ctx is not None else None)
    return msg.decode("utf-8", "replace") if msg else ""


def _check(status, ctx, function, stacklevel=3):
    """Raise PsvError for status < 0; warn NotConvergedWarning for PSV_NOT_CONVERGED."""
    if status == 0:
        return status
    if status < 0:
        raise PsvError(status, _last_error(ctx), function)
    if status == _lib.PSV_NOT_CONVERGED:
        warnings.warn(NotConvergedWarning("%s: %s" % (function, _lib.status_string(status))),
                      stacklevel=stacklevel)
    return status


def _fail(status, message, function=""):
    raise PsvError(status, message, function)


# ---- types -------------------------------------------------------------------------------------

_PSV_TYPE = {
    np.dtype(np.bool_): _lib.PSV_BOOL,
    np.dtype(np.int32): _lib.PSV_INT32,
    np.dtype(np.int64): _lib.PSV_INT64,
    np.dtype(np.float32): _lib.PSV_FP32,
    np.dtype(np.float64): _lib.PSV_FP64,
}
_NP_TYPE = {v: k for k, v in _PSV_TYPE.items()}


def _map_dtype(dtype):
    """The psv-supported numpy dtype that holds values of `dtype`: bool, int32, int64, float32,
    float64 as they are; int8/int16/uint8/uint16 -> int32; uint32/uint64 -> int64; float16 ->
    float32; wider floats -> float64. Complex, object, strings: PsvError (DOMAIN_MISMATCH)."""
    dt = np.dtype(dtype)
    if dt.byteorder not in ("=", "|"):
        dt = dt.newbyteorder("=")
    if dt in _PSV_TYPE:
        return dt
    if dt.kind in "iu":
        return np.dtype(np.int32) if dt.itemsize < 4 else np.dtype(np.int64)
    if dt.kind == "f":
        return np.dtype(np.float32) if dt.itemsize < 4 else np.dtype(np.float64)
    _fail(_lib.PSV_ERROR_DOMAIN_MISMATCH,
          "numpy dtype %s has no psv type (bool, int32, int64, float32, float64)" % dt)


def _psv_type(dtype):
    return _PSV_TYPE[np.dtype(dtype)]


def _op(name, what="operator"):
    if isinstance(name, str):
        key = name.lower()
        if key in _lib.OPS:
            return _lib.OPS[key]
    _fail(_lib.PSV_ERROR_INVALID_VALUE, "unknown %s %r (one of: %s)"
          % (what, name, ", ".join(k for k in _lib.OPS if k != "noop")))


def _identity(add, dtype):
    """The identity of the monoid `add` (a name) on numpy dtype `dtype`."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        # On bool: PLUS and MAX are LOR, TIMES and MIN are LAND (psv.h).
        return add in ("times", "land", "min")
    if add in ("plus", "lor", "lxor"):
        return dt.type(0)
    if add in ("times", "land"):
        return dt.type(1)
    if add == "min":
        return dt.type(np.inf) if dt.kind == "f" else np.iinfo(dt).max
    if add == "max":
        return dt.type(-np.inf) if dt.kind == "f" else np.iinfo(dt).min
    return dt.type(0)


def _as_index(a, what):
    a = np.asarray(a)
    if a.ndim != 1:
        a = a.reshape(-1)
    if a.size and a.dtype.kind not in "iu":
        _fail(_lib.PSV_ERROR_DOMAIN_MISMATCH, "%s must hold integers, not %s" % (what, a.dtype))
    return np.ascontiguousarray(a, dtype=np.int64)


def _addr(a):
    return a.ctypes.data


# ---- backends and contexts -----------------------------------------------------------------

def backend_available(backend):
    """Whether a context of `backend` ("cpu", "cuda" or "auto") can be created here."""
    return bool(lib.psv_backend_available(_backend_id(backend)))


def _backend_id(backend):
    if isinstance(backend, str) and backend.lower() in _lib.BACKENDS:
        return _lib.BACKENDS[backend.lower()]
    _fail(_lib.PSV_ERROR_INVALID_VALUE,
          "unknown backend %r (one of: auto, cpu, cuda)" % (backend,))


def _free_context(handle, semirings):
    for h in semirings.values():
        lib.psv_semiring_free(byref(h))
    semirings.clear()
    lib.psv_context_free(byref(handle))


def _free_with(free, handle, *keepalive):
    # keepalive: the Context object, so that it is collected after its objects.
    free(byref(handle))


class _Handle:
    """What Context, Semiring and Matrix share: a C handle freed by a weakref finalizer (close(),
    a with block, or collection), and an error where a closed one is used."""

    _what = "object"

    @property
    def closed(self):
        return not self._finalizer.alive

    @property
    def handle(self):
        if not self._finalizer.alive:
            _fail(_lib.PSV_ERROR_UNINITIALIZED_OBJECT, "the %s is closed" % self._what.lower(),
                  self._what)
        return self._h

    def close(self):
        """Free it now (idempotent)."""
        self._finalizer()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Context(_Handle):
    """A psv context: a backend ("auto": CUDA where a device exists, else the CPU), a device,
    the default matrix format options. Use as a context manager or close() it."""

    _what = "Context"

    def __init__(self, backend="auto", device=0):
        b = _backend_id(backend)
        h = c_void_p()
        st = lib.psv_context_create(b, int(device), byref(h))
        if st < 0:  # no context yet, so no last-error message: say what was asked
            _fail(st, "cannot create a context for backend %r, device %d" % (backend, int(device)),
                  "psv_context_create")
        self._h = h
        self._semirings = {}
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, _free_context, h, self._semirings)
        be = c_int32(0)
        _check(lib.psv_context_backend(h, byref(be)), self, "psv_context_backend")
        self._backend = _lib.BACKEND_NAMES.get(be.value, str(be.value))
        self._device = int(device)

    @property
    def backend(self):
        """"cpu" or "cuda": the backend this context runs on."""
        return self._backend

    @property
    def device(self):
        return self._device

    def close(self):
        """Free the context (and the semirings cached in it). Idempotent. Matrices still open in
        it become unusable; close them too."""
        self._finalizer()

    def set_option(self, option, value):
        """Default format option for matrices built later in this context (see
        Matrix.set_option for the names and values)."""
        opt, val = _option(option, value)
        _check(lib.psv_context_set_option(self.handle, opt, val), self, "psv_context_set_option")

    def _semiring(self, add, multiply, dtype):
        """A semiring handle cached in this context (freed with it)."""
        key = (add, multiply, _psv_type(dtype))
        with self._lock:
            h = self._semirings.get(key)
            if h is None:
                h = c_void_p()
                _check(lib.psv_semiring_create(self.handle, _op(add), _op(multiply), key[2],
                                               byref(h)),
                       self, "psv_semiring_create")
                self._semirings[key] = h
            return h

    def __repr__(self):
        return "<psv.Context backend=%s device=%d%s>" % (
            self._backend, self._device, " closed" if self.closed else "")


_default = None
_default_lock = threading.Lock()


def default_context():
    """The context used where ctx=None: Context("auto"), created on first use (and again if it
    was closed)."""
    global _default
    with _default_lock:
        if _default is None or _default.closed:
            _default = Context("auto")
        return _default


def _ctx(ctx):
    return default_context() if ctx is None else ctx


def _option(option, value):
    if not isinstance(option, str) or option.lower() not in _lib.OPTIONS:
        _fail(_lib.PSV_ERROR_INVALID_VALUE, "unknown option %r (one of: %s)"
              % (option, ", ".join(_lib.OPTIONS)))
    option = option.lower()
    if option == "kernel" and isinstance(value, str):
        if value.lower() not in _lib.KERNELS:
            _fail(_lib.PSV_ERROR_INVALID_VALUE, "unknown kernel %r (one of: %s)"
                  % (value, ", ".join(_lib.KERNELS)))
        value = _lib.KERNELS[value.lower()]
    return _lib.OPTIONS[option], int(value)


# ---- semirings -------------------------------------------------------------------------------

class Semiring(_Handle):
    """A semiring (add, multiply) on one dtype: add a monoid ("plus", "times", "min", "max",
    "lor", "land", "lxor"), multiply one of those or "first", "second", "pair", "minus", "div"."""

    _what = "Semiring"

    def __init__(self, add, multiply, dtype, ctx=None):
        ctx = _ctx(ctx)
        self.add = str(add).lower()
        self.multiply = str(multiply).lower()
        self.dtype = _map_dtype(dtype)
        self.ctx = ctx
        h = c_void_p()
        _check(lib.psv_semiring_create(ctx.handle, _op(add), _op(multiply),
                                       _psv_type(self.dtype), byref(h)),
               ctx, "psv_semiring_create")
        self._h = h
        self._finalizer = weakref.finalize(self, _free_with, lib.psv_semiring_free, h, ctx)

    @property
    def name(self):
        return "%s_%s" % (self.add, self.multiply)

    def __repr__(self):
        return "<psv.Semiring %s %s>" % (self.name, self.dtype)


def _parse_semiring(name):
    if not isinstance(name, str) or name.count("_") != 1:
        _fail(_lib.PSV_ERROR_INVALID_VALUE,
              "a semiring is named add_multiply (e.g. 'plus_times', 'min_plus'), not %r" % (name,))
    add, mul = name.lower().split("_")
    _op(add, "add operator")
    _op(mul, "multiply operator")
    return add, mul


# ---- vectors (per call) ------------------------------------------------------------------------

class _Vec:
    """A psv vector living for one `with` block."""

    __slots__ = ("h", "ctx", "n", "dtype")

    def __init__(self, ctx, dtype, n):
        self.h = c_void_p()
        self.ctx = ctx
        self.n = int(n)
        self.dtype = np.dtype(dtype)
        _check(lib.psv_vector_create(ctx.handle, _psv_type(dtype), self.n, byref(self.h)),
               ctx, "psv_vector_create")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        lib.psv_vector_free(byref(self.h))

    def set(self, values):
        values = np.ascontiguousarray(values, dtype=self.dtype)
        _check(lib.psv_vector_set(self.h, _addr(values), values.size), self.ctx,
               "psv_vector_set")

    def build(self, indices, values):
        indices = np.ascontiguousarray(indices, dtype=np.int64)
        values = np.ascontiguousarray(values, dtype=self.dtype)
        _check(lib.psv_vector_build(self.h, _addr(indices), _addr(values), indices.size),
               self.ctx, "psv_vector_build")

    def assign(self, values, present=None):
        """All entries present (present None) or those where present is true."""
        if present is None:
            self.set(values)
        else:
            present = np.asarray(present, dtype=bool).reshape(-1)
            values = np.asarray(values).reshape(-1)
            if present.size != values.size:
                _fail(_lib.PSV_ERROR_DIMENSION_MISMATCH,
                      "a presence array of %d entries for %d values" % (present.size,
                                                                        values.size))
            idx = np.flatnonzero(present)
            self.build(idx, values[idx])

    def get(self):
        out = np.empty(self.n, dtype=self.dtype)
        _check(lib.psv_vector_get(self.h, _addr(out), self.n), self.ctx, "psv_vector_get")
        return out

    def tuples(self):
        idx = np.empty(self.n, dtype=np.int64)
        vals = np.empty(self.n, dtype=self.dtype)
        n = c_int64(self.n)
        _check(lib.psv_vector_extract_tuples(self.h, _addr(idx), _addr(vals), byref(n)),
               self.ctx, "psv_vector_extract_tuples")
        return idx[:n.value], vals[:n.value]


def _take_vector(h, ctx, n, dtype=np.float32):
    """Read a vector an algorithm returned (every entry present) and free it."""
    try:
        out = np.empty(n, dtype=dtype)
        if h.value:
            _check(lib.psv_vector_get(h, _addr(out), n), ctx, "psv_vector_get")
        return out
    finally:
        lib.psv_vector_free(byref(h))


# ---- matrices ----------------------------------------------------------------------------------

_DUP_NONE = ("error", "noop", None)


class Matrix(_Handle):
    """A psv matrix. Made by Matrix.from_scipy, Matrix.from_edges or psv.read (not by calling
    Matrix()). Freed by close(), a `with` block, or when collected."""

    _what = "Matrix"

    def __init__(self, *args, **kwargs):
        raise TypeError("psv.Matrix is made by Matrix.from_scipy, Matrix.from_edges or psv.read")

    @classmethod
    def _wrap(cls, ctx, h, labels=None):
        self = object.__new__(cls)
        self._h = h
        self.ctx = ctx
        self.labels = labels
        self._finalizer = weakref.finalize(self, _free_with, lib.psv_matrix_free, h, ctx)
        nr, nc, nv = c_int64(), c_int64(), c_int64()
        t, p = c_int32(), c_int32()
        _check(lib.psv_matrix_nrows(h, byref(nr)), ctx, "psv_matrix_nrows")
        _check(lib.psv_matrix_ncols(h, byref(nc)), ctx, "psv_matrix_ncols")
        _check(lib.psv_matrix_nvals(h, byref(nv)), ctx, "psv_matrix_nvals")
        _check(lib.psv_matrix_type(h, byref(t)), ctx, "psv_matrix_type")
        _check(lib.psv_matrix_is_pattern(h, byref(p)), ctx, "psv_matrix_is_pattern")
        self.shape = (nr.value, nc.value)
        self.nnz = nv.value
        self.dtype = _NP_TYPE[t.value]
        self.is_pattern = bool(p.value)
        return self

    @classmethod
    def _build(cls, ctx, dtype, shape, rows, cols, values, dup, labels=None):
        h = c_void_p()
        nvals = rows.size
        _check(lib.psv_matrix_build(ctx.handle, _psv_type(dtype), int(shape[0]), int(shape[1]),
                                    nvals, _addr(rows), _addr(cols),
                                    None if values is None else _addr(values), dup, byref(h)),
               ctx, "psv_matrix_build", stacklevel=4)
        return cls._wrap(ctx, h, labels)

    # -- constructors --

    @classmethod
    def from_scipy(cls, S, ctx=None, pattern=None, dtype=None):
        """Any scipy.sparse matrix or array. pattern=True: a pattern matrix (values ignored);
        pattern=None: a pattern matrix when every stored value is 1 and dtype is not given.
        dtype: bool, int32, int64, float32 or float64 (default: S.dtype, mapped as
        _map_dtype says: float16 -> float32, small ints -> int32, ...). Duplicate entries of a
        COO input are summed first (scipy's meaning), so the pattern rule sees the sums. S itself
        is not changed."""
        ctx = _ctx(ctx)
        C = S.tocoo(copy=True)
        C.sum_duplicates()
        rows = np.ascontiguousarray(C.row, dtype=np.int64)
        cols = np.ascontiguousarray(C.col, dtype=np.int64)
        data = np.asarray(C.data)
        dt = _map_dtype(data.dtype if dtype is None else dtype)
        if pattern is None:
            pattern = dtype is None and bool(np.all(data == 1))
        values = None if pattern else np.ascontiguousarray(data, dtype=dt)
        return cls._build(ctx, dt, C.shape, rows, cols, values, _lib.OPS["plus"])

    @classmethod
    def from_edges(cls, src, dst, values=None, n=None, ctx=None, shape=None, dtype=None,
                   dup="error"):
        """A matrix with an entry (src[k], dst[k]) per edge (numpy arrays, no Python loop).
        n: n x n (default: max id + 1); shape=(nrows, ncols) overrides n. values None: a
        pattern matrix (dtype default float32); else values[k] (a scalar is broadcast), dtype
        default values' dtype mapped. dup: "error" (a duplicate edge is PSV_ERROR_DUPLICATE_ENTRY;
        pattern matrices count duplicates once) or an operator name combining them ("plus",
        "max", "first", ...)."""
        ctx = _ctx(ctx)
        rows = _as_index(src, "src")
        cols = _as_index(dst, "dst")
        if rows.size != cols.size:
            _fail(_lib.PSV_ERROR_DIMENSION_MISMATCH,
                  "src has %d entries, dst %d" % (rows.size, cols.size), "Matrix.from_edges")
        if shape is None:
            if n is None:
                n = int(max(rows.max(), cols.max())) + 1 if rows.size else 0
            shape = (int(n), int(n))
        if values is None:
            dt = _map_dtype(np.float32 if dtype is None else dtype)
            vals = None
        else:
            v = np.asarray(values)
            dt = _map_dtype(v.dtype if dtype is None else dtype)
            if v.ndim == 0:
                v = np.broadcast_to(v, rows.shape)
            vals = np.ascontiguousarray(v.reshape(-1), dtype=dt)
            if vals.size != rows.size:
                _fail(_lib.PSV_ERROR_DIMENSION_MISMATCH,
                      "%d values for %d edges" % (vals.size, rows.size), "Matrix.from_edges")
        dup_op = 0 if dup in _DUP_NONE else _op(dup, "dup operator")
        return cls._build(ctx, dt, shape, rows, cols, vals, dup_op)

    # -- properties --

    @property
    def nrows(self):
        return self.shape[0]

    @property
    def ncols(self):
        return self.shape[1]

    def __repr__(self):
        return "<psv.Matrix %dx%d nnz=%d %s%s%s>" % (
            self.shape[0], self.shape[1], self.nnz, self.dtype,
            " pattern" if self.is_pattern else "", " closed" if self.closed else "")

    # -- contents --

    def write(self, path):
        """Write the matrix in psv's binary format (.psv) with psv_matrix_write; psv.read loads it."""
        _check(lib.psv_matrix_write(self.handle, os.fsencode(os.fspath(path))), self.ctx, "psv_matrix_write")

    def tuples(self):
        """(rows, cols, values) numpy arrays, sorted by row then column (a pattern gives 1s)."""
        nnz = self.nnz
        rows = np.empty(nnz, dtype=np.int64)
        cols = np.empty(nnz, dtype=np.int64)
        vals = np.empty(nnz, dtype=self.dtype)
        n = c_int64(nnz)
        _check(lib.psv_matrix_extract_tuples(self.handle, _addr(rows), _addr(cols), _addr(vals),
                                             byref(n)),
               self.ctx, "psv_matrix_extract_tuples")
        return rows[:n.value], cols[:n.value], vals[:n.value]

    def to_scipy(self):
        """A scipy.sparse.csr_matrix of the entries (a pattern matrix: ones of A.dtype)."""
        import scipy.sparse
        rows, cols, vals = self.tuples()
        indptr = np.zeros(self.shape[0] + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=self.shape[0]), out=indptr[1:])
        return scipy.sparse.csr_matrix((vals, cols, indptr), shape=self.shape)

    def info(self):
        """psv_matrix_info as a dict; 'kernel' and 'backend' as names ("csr", "cpu", ...); plus
        'dtype' and 'is_pattern'."""
        inf = _lib.MatrixInfo()
        _check(lib.psv_matrix_info_get(self.handle, byref(inf)), self.ctx, "psv_matrix_info_get")
        d = {name: getattr(inf, name) for name, _ in inf._fields_ if name != "reserved"}
        d["kernel"] = _lib.KERNEL_NAMES.get(d["kernel"], d["kernel"])
        d["backend"] = _lib.BACKEND_NAMES.get(d["backend"], d["backend"])
        d["dtype"] = self.dtype
        d["is_pattern"] = self.is_pattern
        return d

    def tiles(self):
        """psv_matrix_tile_info of every tile (dense ones, then the sparse one) as dicts."""
        inf = _lib.MatrixInfo()
        _check(lib.psv_matrix_info_get(self.handle, byref(inf)), self.ctx, "psv_matrix_info_get")
        out = []
        for t in range(inf.dense_tiles + (1 if inf.sparse_tile else 0)):
            ti = _lib.TileInfo()
            _check(lib.psv_matrix_tile_info(self.handle, t, byref(ti)), self.ctx,
                   "psv_matrix_tile_info")
            d = {name: getattr(ti, name) for name, _ in ti._fields_ if name != "reserved"}
            d["is_sparse"] = bool(d["is_sparse"])
            out.append(d)
        return out

    def set_option(self, option, value):
        """Change a format option and rebuild: "kernel" ("auto", "tile-composite", "tile-coo",
        "csr", "stream", "sell" or the PSV_KERNEL_* number), "tile_width", "max_tiles", "workload_size",
        "progress"."""
        opt, val = _option(option, value)
        _check(lib.psv_matrix_set_option(self.handle, opt, val), self.ctx,
               "psv_matrix_set_option")


# ---- reading files -----------------------------------------------------------------------------

def read(path, ctx=None, undirected=False, relabel=False):
    """Read a graph or matrix file (Matrix Market, SNAP or CSV edge list, METIS, .psv; plain or
    .gz; "-" is standard input) with psv_matrix_read_with_flags.

    undirected=True stores both directions: every entry (i, j) gets a mirror (j, i); an entry the
    file gives keeps its own value, a missing mirror takes A(i, j)'s (a self loop once). Needs a
    square matrix.
    relabel=True compacts the ids: the ids that occur in some entry get new ids 0 .. n-1 in
    order of first appearance in the file (a line's row id before its column id), so edge-list
    ids may be anything up to 2^63-1; A.labels[new] is the id as written in the file (1-based
    for Matrix Market). The result is n x n. Both are done by the C reader."""
    ctx = _ctx(ctx)
    h = c_void_p()
    flags = (_lib.READ_UNDIRECTED if undirected else 0) | (_lib.READ_RELABEL if relabel else 0)
    _check(lib.psv_matrix_read_with_flags(ctx.handle, os.fsencode(os.fspath(path)), flags,
                                          byref(h)),
           ctx, "psv_matrix_read_with_flags")
    A = Matrix._wrap(ctx, h)
    if relabel:
        labels = np.empty(A.shape[0], dtype=np.int64)
        n = c_int64(labels.size)
        st = lib.psv_matrix_labels(h, _addr(labels), byref(n))
        if st == _lib.PSV_NO_VALUE:  # nothing to relabel (an empty .psv file)
            labels = labels[:0]
        else:
            _check(st, ctx, "psv_matrix_labels")
        A.labels = labels
    return A


# ---- products ----------------------------------------------------------------------------------

def mxv(A, x, semiring="plus_times", mask=None, accum=None, transpose=False, complement=False,
        structure=False, replace=False, out=None, *, mask_present=None, out_present=None,
        fill=None, return_present=False):
    """w<mask> accum= A (+).(x) x  (psv_mxv; GraphBLAS GrB_mxv), with numpy arrays in and out.

    semiring: "add_multiply" (e.g. "plus_times", "min_plus", "lor_land") on A's dtype (on x's
    dtype, mapped, where A is a pattern matrix), or a psv.Semiring. x: 1-D, A.ncols entries
    (A.nrows with transpose), all present, cast to the semiring's dtype.
    mask: a numpy array, true where nonzero (structure=True: where present); mask_present: a
    bool array of the mask's present entries (default: all present). complement, structure,
    replace: the descriptor bits. accum: an operator name or None.
    out: the starting w (None: w starts with no entries); out_present: its present entries
    (default: all). `out` itself is not modified.
    Returns a numpy array of the semiring's dtype; absent entries hold `fill` (default: the add
    monoid's identity: 0 for plus, +inf for min, -inf for max, False for lor, ...);
    return_present=True returns (values, present)."""
    ctx = A.ctx
    if isinstance(semiring, Semiring):
        s_h = semiring.handle
        dtype = semiring.dtype
        add = semiring.add
    else:
        add, mul = _parse_semiring(semiring)
        x = np.asarray(x)
        dtype = _map_dtype(x.dtype) if A.is_pattern else A.dtype
        s_h = ctx._semiring(add, mul, dtype)
    x = np.asarray(x)
    if x.dtype.kind not in "biuf":
        _map_dtype(x.dtype)  # raises PSV_ERROR_DOMAIN_MISMATCH for complex, object, ...
    if x.ndim != 1:
        _fail(_lib.PSV_ERROR_DIMENSION_MISMATCH, "x must be 1-D, not of shape %s" % (x.shape,),
              "psv.mxv")
    nout = A.shape[1] if transpose else A.shape[0]
    desc = ((_lib.DESC_TRANSPOSE_A if transpose else 0)
            | (_lib.DESC_MASK_COMPLEMENT if complement else 0)
            | (_lib.DESC_MASK_STRUCTURE if structure else 0)
            | (_lib.DESC_REPLACE if replace else 0))
    accum_op = 0 if accum is None else _op(accum, "accumulator")
    with contextlib.ExitStack() as stack:
        u = stack.enter_context(_Vec(ctx, dtype, x.size))
        u.set(x)
        if out is not None:
            out_arr = np.asarray(out).reshape(-1)
            w = stack.enter_context(_Vec(ctx, dtype, out_arr.size))
            w.assign(out_arr, out_present)
        else:
            w = stack.enter_context(_Vec(ctx, dtype, nout))
        m_h = None
        if mask is not None:
            m_arr = np.asarray(mask).reshape(-1)
            m = stack.enter_context(_Vec(ctx, np.bool_, m_arr.size))
            m.assign(m_arr.astype(bool), mask_present)
            m_h = m.h
        _check(lib.psv_mxv(w.h, m_h, accum_op, s_h, A.handle, u.h, desc), ctx, "psv_mxv")
        idx, vals = w.tuples()
    if fill is None:
        fill = _identity(add, dtype)
    if idx.size == w.n:
        result = vals
        present = np.ones(w.n, dtype=bool)
    else:
        result = np.full(w.n, fill, dtype=dtype)
        result[idx] = vals
        present = np.zeros(w.n, dtype=bool)
        present[idx] = True
    if return_present:
        return result, present
    return result


for _cls in (Context, Semiring, Matrix):
    _cls.__module__ = "psv"
del _cls


# ---- algorithms --------------------------------------------------------------------------------

def pagerank(A, damping=0.85, tol=1e-6, max_iter=100, personalization=None,
             return_iterations=False):
    """PageRank (psv_pagerank: LAGraph's definition, dangling rank spread uniformly) of the
    pattern of A: a float32 array of n ranks summing to 1. personalization: a teleport array of
    n non-negative weights (psv_pagerank_personalized; normalized inside). Not converged within
    max_iter: NotConvergedWarning, the ranks still returned. return_iterations=True: (ranks,
    iterations)."""
    ctx = A.ctx
    rank = c_void_p()
    it = c_int32(0)
    n = A.shape[0]
    try:
        if personalization is None:
            st = lib.psv_pagerank(byref(rank), byref(it), A.handle, float(damping), float(tol),
                                  int(max_iter))
            _check(st, ctx, "psv_pagerank")
        else:
            p = np.ascontiguousarray(np.asarray(personalization).reshape(-1), dtype=np.float32)
            with _Vec(ctx, np.float32, p.size) as t:
                t.set(p)
                st = lib.psv_pagerank_personalized(byref(rank), byref(it), A.handle, t.h,
                                                   float(damping), float(tol), int(max_iter))
                _check(st, ctx, "psv_pagerank_personalized")
        r = _take_vector(rank, ctx, n)
    finally:
        lib.psv_vector_free(byref(rank))
    return (r, it.value) if return_iterations else r


def hits(A, tol=1e-6, max_iter=100, return_iterations=False):
    """HITS (psv_hits) of the pattern of A: (hubs, authorities), float32 arrays summing to 1
    each; with return_iterations=True (hubs, authorities, iterations)."""
    ctx = A.ctx
    hub, auth = c_void_p(), c_void_p()
    it = c_int32(0)
    n = A.shape[0]
    try:
        st = lib.psv_hits(byref(hub), byref(auth), byref(it), A.handle, float(tol),
                          int(max_iter))
        _check(st, ctx, "psv_hits")
        h = _take_vector(hub, ctx, n)
        a = _take_vector(auth, ctx, n)
    finally:
        lib.psv_vector_free(byref(hub))
        lib.psv_vector_free(byref(auth))
    return (h, a, it.value) if return_iterations else (h, a)


def rwr(A, queries, c=0.9, tol=1e-6, max_iter=100, return_iterations=False):
    """Random walk with restart (psv_rwr) on the undirected pattern of A. queries: a vertex (an
    int: a float32 array of n relevances) or a sequence of k vertices (psv_rwr_batch: a float32
    array of shape (n, k), column j for queries[j]). return_iterations=True: (result,
    iterations) (a batch: the largest count over its queries)."""
    ctx = A.ctx
    it = c_int32(0)
    n = A.shape[0]
    if isinstance(queries, (numbers.Integral, np.integer)) or (
            isinstance(queries, np.ndarray) and queries.ndim == 0):
        rel = c_void_p()
        try:
            st = lib.psv_rwr(byref(rel), byref(it), A.handle, int(queries), float(c), float(tol),
                             int(max_iter))
            _check(st, ctx, "psv_rwr")
            r = _take_vector(rel, ctx, n)
        finally:
            lib.psv_vector_free(byref(rel))
    else:
        q = _as_index(queries, "queries")
        r = np.empty((n, q.size), dtype=np.float32)
        st = lib.psv_rwr_batch(_addr(r), byref(it), A.handle, _addr(q), q.size, float(c),
                               float(tol), int(max_iter))
        _check(st, ctx, "psv_rwr_batch")
    return (r, it.value) if return_iterations else r
