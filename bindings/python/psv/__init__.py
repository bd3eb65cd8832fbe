"""psv: sparse matrix-vector products on power-law graphs (PageRank, HITS, RWR), from Python.

A ctypes binding of libpsv's C API (include/psv/psv.h); numpy arrays in and out, scipy.sparse
matrices through Matrix.from_scipy / Matrix.to_scipy (scipy is imported only there).

    import numpy as np, psv
    with psv.Context("cpu") as ctx:
        A = psv.read("wiki-Vote.txt.gz", ctx=ctx)
        r = psv.pagerank(A)               # float32 ranks summing to 1
        y = psv.mxv(A, np.ones(A.ncols, np.float32), "plus_times")

The library is found through PSV_LIBRARY (its full path), else the libdir it was installed into
(psv/_config.py, written by meson install), else ctypes.util.find_library("psv").
Errors raise psv.PsvError (.status, .name, the context's last error message); an iteration that
stops at max_iter warns psv.NotConvergedWarning and still returns its result.
"""

from ._lib import lib as _clib
from ._core import (  # noqa: F401
    Context,
    Matrix,
    NotConvergedWarning,
    PsvError,
    Semiring,
    backend_available,
    default_context,
    hits,
    mxv,
    pagerank,
    read,
    rwr,
)
from ._lib import path as library_path  # noqa: F401  the libpsv that was loaded


def _version():
    v = _clib.psv_version_number()
    return "%d.%d.%d" % (v // 10000, v // 100 % 100, v % 100)


__version__ = _version()

__all__ = [
    "Context", "Matrix", "NotConvergedWarning", "PsvError", "Semiring", "backend_available",
    "default_context", "hits", "mxv", "pagerank", "read", "rwr", "library_path", "__version__",
]
