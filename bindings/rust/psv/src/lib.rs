//! Safe Rust interface to psv: sparse matrix-vector products on power-law graphs.
//!
//! ```no_run
//! use psv::{Backend, Context, Matrix};
//! fn main() -> Result<(), psv::Error> {
//!     let ctx = Context::new(Backend::Cpu)?;
//!     let a = Matrix::read(&ctx, "email-Eu-core.txt.gz")?;
//!     let (rank, iterations, converged) = psv::pagerank(&a, 0.85, 1e-7, 100)?;
//!     println!("{} ranks, {iterations} iterations, converged: {converged}", rank.len());
//!     Ok(())
//! }
//! ```
//!
//! Ownership: every object (`Matrix`, `Vector`, `Semiring`) borrows the [`Context`] that
//! created it (`Matrix<'c>`), so the compiler rejects code where an object outlives its
//! context. Each handle is freed by `Drop`. Failures are [`Error`]s carrying the C status and
//! the context's message for it (`psv_context_last_error`). Vector data is exchanged as slices
//! of the vector's element type (`f32`, `f64`, `i32`, `i64`, `bool`), checked at compile time.
//! Indices are `i64` and 0-based, as in the C API.

use psv_sys as sys;
use std::ffi::{CStr, CString};
use std::fmt;
use std::marker::PhantomData;
use std::os::raw::c_void;
use std::path::Path;
use std::ptr;

pub use sys::psv_matrix_info as MatrixInfo;
pub use sys::psv_tile_info as TileInfo;
pub use sys::psv_tuning_info as TuningInfo;

/// A failed call: the psv status (< 0; see `psv_sys::PSV_ERROR_*`) and the detail message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub status: i32,
    pub message: String,
}

impl Error {
    /// The status's name, e.g. "PSV_ERROR_IO: ...", from `psv_status_string`.
    pub fn status_name(&self) -> String {
        status_string(self.status)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.status_name();
        if self.message.is_empty() {
            write!(f, "{name} (status {})", self.status)
        } else {
            write!(f, "{name} (status {}): {}", self.status, self.message)
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

/// The static English name of a status code.
pub fn status_string(status: i32) -> String {
    // SAFETY: psv_status_string returns a static, never-NULL, NUL-terminated string.
    unsafe { CStr::from_ptr(sys::psv_status_string(status)) }
        .to_string_lossy()
        .into_owned()
}

/// Version of the linked library, `major * 10000 + minor * 100 + patch`.
pub fn version_number() -> i32 {
    unsafe { sys::psv_version_number() }
}

/// The version these bindings were generated for (`PSV_VERSION_NUMBER`).
pub const HEADER_VERSION_NUMBER: i32 = sys::PSV_VERSION_NUMBER;

fn local_error(status: i32, message: impl Into<String>) -> Error {
    Error {
        status,
        message: message.into(),
    }
}

/// Where a context runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// CUDA where a device exists, else CPU.
    Auto,
    Cpu,
    Cuda,
}

impl Backend {
    fn raw(self) -> i32 {
        match self {
            Backend::Auto => sys::PSV_BACKEND_AUTO,
            Backend::Cpu => sys::PSV_BACKEND_CPU,
            Backend::Cuda => sys::PSV_BACKEND_CUDA,
        }
    }
    fn from_raw(b: i32) -> Backend {
        match b {
            sys::PSV_BACKEND_CPU => Backend::Cpu,
            sys::PSV_BACKEND_CUDA => Backend::Cuda,
            _ => Backend::Auto,
        }
    }
    /// Whether a context of this backend can be created on this machine.
    pub fn available(self) -> bool {
        unsafe { sys::psv_backend_available(self.raw()) != 0 }
    }
}

/// Value types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    Bool,
    Int32,
    Int64,
    Fp32,
    Fp64,
}

impl Type {
    pub fn raw(self) -> i32 {
        match self {
            Type::Bool => sys::PSV_BOOL,
            Type::Int32 => sys::PSV_INT32,
            Type::Int64 => sys::PSV_INT64,
            Type::Fp32 => sys::PSV_FP32,
            Type::Fp64 => sys::PSV_FP64,
        }
    }
    fn from_raw(t: i32) -> Option<Type> {
        Some(match t {
            sys::PSV_BOOL => Type::Bool,
            sys::PSV_INT32 => Type::Int32,
            sys::PSV_INT64 => Type::Int64,
            sys::PSV_FP32 => Type::Fp32,
            sys::PSV_FP64 => Type::Fp64,
            _ => return None,
        })
    }
}

mod sealed {
    pub trait Sealed {}
}

/// Element types a [`Vector`] or a matrix's values can have. Sealed: exactly the psv types.
pub trait Scalar: sealed::Sealed + Copy + Default + 'static {
    const TYPE: Type;
}
macro_rules! scalar {
    ($t:ty, $v:ident) => {
        impl sealed::Sealed for $t {}
        impl Scalar for $t {
            const TYPE: Type = Type::$v;
        }
    };
}
// bool: the C side stores one byte, 0 or 1 — the layout of Rust's bool.
scalar!(bool, Bool);
scalar!(i32, Int32);
scalar!(i64, Int64);
scalar!(f32, Fp32);
scalar!(f64, Fp64);

/// Binary operators (semiring add/multiply, accumulators, element-wise ops).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Plus,
    Times,
    Min,
    Max,
    First,
    Second,
    Pair,
    Lor,
    Land,
    Lxor,
    Minus,
    Div,
    AbsDiff,
}

impl Op {
    pub fn raw(self) -> i32 {
        match self {
            Op::Plus => sys::PSV_PLUS,
            Op::Times => sys::PSV_TIMES,
            Op::Min => sys::PSV_MIN,
            Op::Max => sys::PSV_MAX,
            Op::First => sys::PSV_FIRST,
            Op::Second => sys::PSV_SECOND,
            Op::Pair => sys::PSV_PAIR,
            Op::Lor => sys::PSV_LOR,
            Op::Land => sys::PSV_LAND,
            Op::Lxor => sys::PSV_LXOR,
            Op::Minus => sys::PSV_MINUS,
            Op::Div => sys::PSV_DIV,
            Op::AbsDiff => sys::PSV_ABSDIFF,
        }
    }
}

fn op_or_noop(op: Option<Op>) -> i32 {
    op.map_or(sys::PSV_NOOP, Op::raw)
}

/// Matrix format options (`psv_context_set_option`, `Matrix::set_option`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatOption {
    TileWidth,
    MaxTiles,
    WorkloadSize,
    Kernel,
    Progress,
    /// CUDA auto plan: columns of x held in shared memory (-1 chosen, 0 none, n the n longest).
    HotColumns,
    /// CUDA auto plan: x read in column rank order (-1 chosen, 0 plain, 1 ranked).
    RankOrder,
    /// How auto chooses the CUDA plan: `sys::PSV_CHOICE_MODEL` or `sys::PSV_CHOICE_RULES`.
    PlanChoice,
}

impl FormatOption {
    fn raw(self) -> i32 {
        match self {
            FormatOption::TileWidth => sys::PSV_OPT_TILE_WIDTH,
            FormatOption::MaxTiles => sys::PSV_OPT_MAX_TILES,
            FormatOption::WorkloadSize => sys::PSV_OPT_WORKLOAD_SIZE,
            FormatOption::Kernel => sys::PSV_OPT_KERNEL,
            FormatOption::Progress => sys::PSV_OPT_PROGRESS,
            FormatOption::HotColumns => sys::PSV_OPT_HOT_COLUMNS,
            FormatOption::RankOrder => sys::PSV_OPT_RANK_ORDER,
            FormatOption::PlanChoice => sys::PSV_OPT_PLAN_CHOICE,
        }
    }
}

/// Descriptor bits for [`mxv`]; combine with `|`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Descriptor(pub i32);

impl Descriptor {
    pub const NONE: Descriptor = Descriptor(0);
    pub const TRANSPOSE_A: Descriptor = Descriptor(sys::PSV_DESC_TRANSPOSE_A);
    pub const MASK_COMPLEMENT: Descriptor = Descriptor(sys::PSV_DESC_MASK_COMPLEMENT);
    pub const MASK_STRUCTURE: Descriptor = Descriptor(sys::PSV_DESC_MASK_STRUCTURE);
    pub const REPLACE: Descriptor = Descriptor(sys::PSV_DESC_REPLACE);
}

impl std::ops::BitOr for Descriptor {
    type Output = Descriptor;
    fn bitor(self, o: Descriptor) -> Descriptor {
        Descriptor(self.0 | o.0)
    }
}

// ---------------------------------------------------------------------------------------------
// Context
// ---------------------------------------------------------------------------------------------

/// A psv context: a backend (and device) plus format defaults. Owns `psv_context`.
pub struct Context {
    raw: *mut sys::psv_context,
}

// SAFETY: the C API serializes calls on one context with a lock and keeps the last error per
// thread, and Error messages are read on the thread that made the failing call.
unsafe impl Send for Context {}
unsafe impl Sync for Context {}

impl Context {
    /// A context of `backend` on device 0.
    pub fn new(backend: Backend) -> Result<Context> {
        Context::with_device(backend, 0)
    }

    /// A context of `backend` on CUDA device `device` (ignored by the CPU backend).
    pub fn with_device(backend: Backend, device: i32) -> Result<Context> {
        let mut raw = ptr::null_mut();
        let s = unsafe { sys::psv_context_create(backend.raw(), device, &mut raw) };
        if s < 0 {
            // No context exists to hold a message: psv_context_last_error(NULL) gives a static one.
            return Err(local_error(
                s,
                cstr(unsafe { sys::psv_context_last_error(ptr::null()) }),
            ));
        }
        Ok(Context { raw })
    }

    /// The backend actually used (never `Auto`).
    pub fn backend(&self) -> Result<Backend> {
        let mut b = 0;
        self.check(unsafe { sys::psv_context_backend(self.raw, &mut b) })?;
        Ok(Backend::from_raw(b))
    }

    /// Set a default format option for matrices built later in this context.
    pub fn set_option(&self, option: FormatOption, value: i64) -> Result<()> {
        self.check(unsafe { sys::psv_context_set_option(self.raw, option.raw(), value) })
            .map(|_| ())
    }

    /// Where the performance model's tuning table came from and what it holds.
    pub fn tuning(&self) -> Result<TuningInfo> {
        let mut info = TuningInfo::default();
        self.check(unsafe { sys::psv_context_tuning(self.raw, &mut info) })?;
        Ok(info)
    }

    /// The tuning table in words: the device and where the table came from, or why there is none.
    pub fn tuning_text(&self) -> String {
        cstr(unsafe { sys::psv_context_tuning_text(self.raw) })
    }

    /// Measure the device and write its tuning table to `path` (None: the user's cache); `quick`
    /// is the short pass. The CPU backend has no model: `PSV_ERROR_NOT_IMPLEMENTED`.
    pub fn tune(&mut self, path: Option<&Path>, quick: bool, progress: bool) -> Result<()> {
        let p = path.map(path_cstring).transpose()?;
        let raw_path = p.as_ref().map_or(ptr::null(), |c| c.as_ptr());
        self.check(unsafe {
            sys::psv_context_tune(self.raw, raw_path, i32::from(!quick), i32::from(progress))
        })
        .map(|_| ())
    }

    /// The message of this thread's last failed call on this context ("" if none).
    pub fn last_error(&self) -> String {
        cstr(unsafe { sys::psv_context_last_error(self.raw) })
    }

    /// The raw handle, for calls into `psv_sys`. Stays owned by `self`.
    pub fn as_raw(&self) -> *mut sys::psv_context {
        self.raw
    }

    /// Turn a status into Ok(status >= 0) or Err with this context's message.
    fn check(&self, status: i32) -> Result<i32> {
        if status < 0 {
            Err(Error {
                status,
                message: self.last_error(),
            })
        } else {
            Ok(status)
        }
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        unsafe { sys::psv_context_free(&mut self.raw) }
    }
}

fn cstr(p: *const std::os::raw::c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: psv returns NUL-terminated strings valid until the next failing call.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

// ---------------------------------------------------------------------------------------------
// Matrix
// ---------------------------------------------------------------------------------------------

/// A sparse matrix in tile-composite form, owned; cannot outlive its context:
///
/// ```compile_fail,E0597
/// let a = {
///     let ctx = psv::Context::new(psv::Backend::Cpu).unwrap();
///     psv::Matrix::read(&ctx, "graph.mtx").unwrap()
/// }; // error[E0597]: `ctx` does not live long enough
/// ```
/// Options of `Matrix::read_with` (`PSV_READ_UNDIRECTED`, `PSV_READ_RELABEL`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// Store both directions of every edge (a self loop once).
    pub undirected: bool,
    /// Compact the ids in order of first appearance (any id up to 2^63-1).
    pub relabel: bool,
}

/// A path as a C string (PSV_ERROR_INVALID_VALUE if it holds a NUL byte).
fn path_cstring(p: &Path) -> Result<CString> {
    CString::new(p.as_os_str().as_encoded_bytes()).map_err(|_| {
        local_error(
            sys::PSV_ERROR_INVALID_VALUE,
            format!("path {:?} contains a NUL byte", p),
        )
    })
}

pub struct Matrix<'c> {
    raw: *mut sys::psv_matrix,
    ctx: &'c Context,
}

unsafe impl Send for Matrix<'_> {}
unsafe impl Sync for Matrix<'_> {}

impl<'c> Matrix<'c> {
    /// Read a graph or matrix file (every format psv reads, plain or gzip), see `psv_matrix_read`.
    pub fn read<P: AsRef<Path>>(ctx: &'c Context, path: P) -> Result<Matrix<'c>> {
        Self::read_with(ctx, path, ReadOptions::default())
    }

    /// Read with options (undirected, relabelled ids), see `psv_matrix_read_with_flags`;
    /// `labels` gives the original ids of a relabelled matrix.
    pub fn read_with<P: AsRef<Path>>(
        ctx: &'c Context,
        path: P,
        options: ReadOptions,
    ) -> Result<Matrix<'c>> {
        let c = path_cstring(path.as_ref())?;
        let flags = if options.undirected {
            sys::PSV_READ_UNDIRECTED
        } else {
            0
        } | if options.relabel {
            sys::PSV_READ_RELABEL
        } else {
            0
        };
        let mut raw = ptr::null_mut();
        ctx.check(unsafe {
            sys::psv_matrix_read_with_flags(ctx.raw, c.as_ptr(), flags, &mut raw)
        })?;
        Ok(Matrix { raw, ctx })
    }

    /// The file's id of each row/column of a matrix read with `relabel`, else `None`; see
    /// `psv_matrix_labels`.
    pub fn labels(&self) -> Result<Option<Vec<i64>>> {
        let mut n = self.nrows()?;
        let mut l = vec![0i64; n as usize];
        let s = self
            .ctx
            .check(unsafe { sys::psv_matrix_labels(self.raw, l.as_mut_ptr(), &mut n) })?;
        if s == sys::PSV_NO_VALUE {
            return Ok(None);
        }
        l.truncate(n as usize);
        Ok(Some(l))
    }

    /// Write in psv's binary format (.psv), see `psv_matrix_write`; `Matrix::read` loads it.
    pub fn write<P: AsRef<Path>>(&self, path: P) -> Result<()> {
        let c = path_cstring(path.as_ref())?;
        self.ctx
            .check(unsafe { sys::psv_matrix_write(self.raw, c.as_ptr()) })?;
        Ok(())
    }

    /// Build from coordinate tuples with values of type `T`. `dup` combines duplicate (i,j);
    /// `None`: a duplicate is an error (PSV_ERROR_DUPLICATE_ENTRY).
    pub fn build<T: Scalar>(
        ctx: &'c Context,
        nrows: i64,
        ncols: i64,
        rows: &[i64],
        cols: &[i64],
        values: &[T],
        dup: Option<Op>,
    ) -> Result<Matrix<'c>> {
        if values.len() != rows.len() {
            return Err(local_error(
                sys::PSV_ERROR_DIMENSION_MISMATCH,
                format!("{} values for {} tuples", values.len(), rows.len()),
            ));
        }
        Self::build_raw(
            ctx,
            T::TYPE,
            nrows,
            ncols,
            rows,
            cols,
            values.as_ptr() as *const c_void,
            dup,
        )
    }

    /// Build a pattern matrix (every entry 1 of type `ty`; duplicates count once).
    pub fn build_pattern(
        ctx: &'c Context,
        ty: Type,
        nrows: i64,
        ncols: i64,
        rows: &[i64],
        cols: &[i64],
    ) -> Result<Matrix<'c>> {
        Self::build_raw(ctx, ty, nrows, ncols, rows, cols, ptr::null(), None)
    }

    #[allow(clippy::too_many_arguments)]
    fn build_raw(
        ctx: &'c Context,
        ty: Type,
        nrows: i64,
        ncols: i64,
        rows: &[i64],
        cols: &[i64],
        values: *const c_void,
        dup: Option<Op>,
    ) -> Result<Matrix<'c>> {
        if rows.len() != cols.len() {
            return Err(local_error(
                sys::PSV_ERROR_DIMENSION_MISMATCH,
                format!(
                    "{} row indices but {} column indices",
                    rows.len(),
                    cols.len()
                ),
            ));
        }
        let mut raw = ptr::null_mut();
        ctx.check(unsafe {
            sys::psv_matrix_build(
                ctx.raw,
                ty.raw(),
                nrows,
                ncols,
                rows.len() as i64,
                rows.as_ptr(),
                cols.as_ptr(),
                values,
                op_or_noop(dup),
                &mut raw,
            )
        })?;
        Ok(Matrix { raw, ctx })
    }

    pub fn context(&self) -> &'c Context {
        self.ctx
    }

    pub fn nrows(&self) -> Result<i64> {
        let mut n = 0;
        self.ctx
            .check(unsafe { sys::psv_matrix_nrows(self.raw, &mut n) })?;
        Ok(n)
    }

    pub fn ncols(&self) -> Result<i64> {
        let mut n = 0;
        self.ctx
            .check(unsafe { sys::psv_matrix_ncols(self.raw, &mut n) })?;
        Ok(n)
    }

    pub fn nvals(&self) -> Result<i64> {
        let mut n = 0;
        self.ctx
            .check(unsafe { sys::psv_matrix_nvals(self.raw, &mut n) })?;
        Ok(n)
    }

    pub fn value_type(&self) -> Result<Type> {
        let mut t = 0;
        self.ctx
            .check(unsafe { sys::psv_matrix_type(self.raw, &mut t) })?;
        Type::from_raw(t).ok_or_else(|| local_error(sys::PSV_ERROR_INVALID_OBJECT, "unknown type"))
    }

    pub fn is_pattern(&self) -> Result<bool> {
        let mut p = 0;
        self.ctx
            .check(unsafe { sys::psv_matrix_is_pattern(self.raw, &mut p) })?;
        Ok(p != 0)
    }

    /// The entries as (rows, cols, values), sorted by row then column. `T` must be the
    /// matrix's type (else PSV_ERROR_DOMAIN_MISMATCH).
    pub fn extract_tuples<T: Scalar>(&self) -> Result<(Vec<i64>, Vec<i64>, Vec<T>)> {
        let ty = self.value_type()?;
        if ty != T::TYPE {
            return Err(local_error(
                sys::PSV_ERROR_DOMAIN_MISMATCH,
                format!("matrix holds {:?}, asked for {:?}", ty, T::TYPE),
            ));
        }
        let mut n = self.nvals()?;
        let len = n as usize;
        let (mut r, mut c, mut v) = (vec![0i64; len], vec![0i64; len], vec![T::default(); len]);
        self.ctx.check(unsafe {
            sys::psv_matrix_extract_tuples(
                self.raw,
                r.as_mut_ptr(),
                c.as_mut_ptr(),
                v.as_mut_ptr() as *mut c_void,
                &mut n,
            )
        })?;
        let n = n as usize;
        r.truncate(n);
        c.truncate(n);
        v.truncate(n);
        Ok((r, c, v))
    }

    /// Change a format option of this matrix (its form is rebuilt at once).
    pub fn set_option(&mut self, option: FormatOption, value: i64) -> Result<()> {
        self.ctx
            .check(unsafe { sys::psv_matrix_set_option(self.raw, option.raw(), value) })
            .map(|_| ())
    }

    /// What the tile-composite form looks like.
    pub fn info(&self) -> Result<MatrixInfo> {
        let mut info = MatrixInfo::default();
        self.ctx
            .check(unsafe { sys::psv_matrix_info_get(self.raw, &mut info) })?;
        Ok(info)
    }

    /// The plan `mxv` runs for this matrix in words; with `runner_up`, the plan the performance
    /// model ranked second ("" where there is none).
    pub fn plan(&self, runner_up: bool) -> String {
        cstr(unsafe { sys::psv_matrix_plan(self.raw, i32::from(runner_up)) })
    }

    /// One tile of the form (0 .. dense_tiles-1 dense, dense_tiles the sparse one).
    pub fn tile_info(&self, tile: i32) -> Result<TileInfo> {
        let mut info = TileInfo::default();
        self.ctx
            .check(unsafe { sys::psv_matrix_tile_info(self.raw, tile, &mut info) })?;
        Ok(info)
    }

    /// PageRank of this graph; see [`pagerank`].
    pub fn pagerank(
        &self,
        damping: f64,
        tolerance: f64,
        max_iterations: i32,
    ) -> Result<(Vec<f32>, i32, bool)> {
        pagerank(self, damping, tolerance, max_iterations)
    }

    pub fn as_raw(&self) -> *mut sys::psv_matrix {
        self.raw
    }
}

impl Drop for Matrix<'_> {
    fn drop(&mut self) {
        unsafe { sys::psv_matrix_free(&mut self.raw) }
    }
}

// ---------------------------------------------------------------------------------------------
// Vector
// ---------------------------------------------------------------------------------------------

/// A vector of `n` values of type `T`, each present or absent; cannot outlive its context.
pub struct Vector<'c, T: Scalar> {
    raw: *mut sys::psv_vector,
    ctx: &'c Context,
    _t: PhantomData<T>,
}

unsafe impl<T: Scalar> Send for Vector<'_, T> {}
unsafe impl<T: Scalar> Sync for Vector<'_, T> {}

/// Any vector, whatever its type: what a mask may be.
pub trait AnyVector {
    fn as_raw_vector(&self) -> *mut sys::psv_vector;
}

impl<T: Scalar> AnyVector for Vector<'_, T> {
    fn as_raw_vector(&self) -> *mut sys::psv_vector {
        self.raw
    }
}

impl<'c, T: Scalar> Vector<'c, T> {
    /// A vector of size n with no entry present.
    pub fn new(ctx: &'c Context, n: i64) -> Result<Vector<'c, T>> {
        let mut raw = ptr::null_mut();
        ctx.check(unsafe { sys::psv_vector_create(ctx.raw, T::TYPE.raw(), n, &mut raw) })?;
        Ok(Vector {
            raw,
            ctx,
            _t: PhantomData,
        })
    }

    /// A vector holding `values` (all present).
    pub fn from_slice(ctx: &'c Context, values: &[T]) -> Result<Vector<'c, T>> {
        let mut v = Vector::new(ctx, values.len() as i64)?;
        v.set(values)?;
        Ok(v)
    }

    pub fn size(&self) -> Result<i64> {
        let mut n = 0;
        self.ctx
            .check(unsafe { sys::psv_vector_size(self.raw, &mut n) })?;
        Ok(n)
    }

    /// Number of present entries.
    pub fn nvals(&self) -> Result<i64> {
        let mut n = 0;
        self.ctx
            .check(unsafe { sys::psv_vector_nvals(self.raw, &mut n) })?;
        Ok(n)
    }

    /// Copy `values` in; every entry becomes present. Its length must be the size
    /// (else PSV_ERROR_DIMENSION_MISMATCH).
    pub fn set(&mut self, values: &[T]) -> Result<()> {
        self.ctx
            .check(unsafe {
                sys::psv_vector_set(
                    self.raw,
                    values.as_ptr() as *const c_void,
                    values.len() as i64,
                )
            })
            .map(|_| ())
    }

    /// Copy the values out into `out` (absent entries read as zero); `out.len()` must be the size.
    pub fn get_into(&self, out: &mut [T]) -> Result<()> {
        self.ctx
            .check(unsafe {
                sys::psv_vector_get(self.raw, out.as_mut_ptr() as *mut c_void, out.len() as i64)
            })
            .map(|_| ())
    }

    /// All values (absent entries read as zero).
    pub fn get(&self) -> Result<Vec<T>> {
        let mut out = vec![T::default(); self.size()? as usize];
        self.get_into(&mut out)?;
        Ok(out)
    }

    /// Replace the contents by the entries `indices[k] = values[k]`; the others become absent.
    pub fn build(&mut self, indices: &[i64], values: &[T]) -> Result<()> {
        if indices.len() != values.len() {
            return Err(local_error(
                sys::PSV_ERROR_DIMENSION_MISMATCH,
                format!("{} indices but {} values", indices.len(), values.len()),
            ));
        }
        self.ctx
            .check(unsafe {
                sys::psv_vector_build(
                    self.raw,
                    indices.as_ptr(),
                    values.as_ptr() as *const c_void,
                    indices.len() as i64,
                )
            })
            .map(|_| ())
    }

    /// Make every entry present with `value`.
    pub fn fill(&mut self, value: T) -> Result<()> {
        self.ctx
            .check(unsafe { sys::psv_vector_fill(self.raw, &value as *const T as *const c_void) })
            .map(|_| ())
    }

    /// Make every entry absent.
    pub fn clear(&mut self) -> Result<()> {
        self.ctx
            .check(unsafe { sys::psv_vector_clear(self.raw) })
            .map(|_| ())
    }

    pub fn set_element(&mut self, i: i64, value: T) -> Result<()> {
        self.ctx
            .check(unsafe {
                sys::psv_vector_set_element(self.raw, i, &value as *const T as *const c_void)
            })
            .map(|_| ())
    }

    /// Entry i, or None if absent.
    pub fn get_element(&self, i: i64) -> Result<Option<T>> {
        let mut value = T::default();
        let s = self.ctx.check(unsafe {
            sys::psv_vector_get_element(self.raw, i, &mut value as *mut T as *mut c_void)
        })?;
        Ok(if s == sys::PSV_NO_VALUE {
            None
        } else {
            Some(value)
        })
    }

    /// The present entries as (indices, values), in increasing index order.
    pub fn extract_tuples(&self) -> Result<(Vec<i64>, Vec<T>)> {
        let mut n = self.nvals()?;
        let len = n as usize;
        let (mut idx, mut val) = (vec![0i64; len], vec![T::default(); len]);
        self.ctx.check(unsafe {
            sys::psv_vector_extract_tuples(
                self.raw,
                idx.as_mut_ptr(),
                val.as_mut_ptr() as *mut c_void,
                &mut n,
            )
        })?;
        idx.truncate(n as usize);
        val.truncate(n as usize);
        Ok((idx, val))
    }

    /// self = u op v on the entries present in both.
    pub fn ewise(&mut self, op: Op, u: &Vector<'c, T>, v: &Vector<'c, T>) -> Result<()> {
        self.ctx
            .check(unsafe { sys::psv_vector_ewise(self.raw, op.raw(), u.raw, v.raw) })
            .map(|_| ())
    }

    /// self = u op scalar on u's present entries.
    pub fn apply(&mut self, op: Op, u: &Vector<'c, T>, scalar: T) -> Result<()> {
        self.ctx
            .check(unsafe {
                sys::psv_vector_apply(
                    self.raw,
                    op.raw(),
                    u.raw,
                    &scalar as *const T as *const c_void,
                )
            })
            .map(|_| ())
    }

    /// Reduce the present entries with a monoid (the identity if none).
    pub fn reduce(&self, monoid: Op) -> Result<T> {
        let mut r = T::default();
        self.ctx.check(unsafe {
            sys::psv_vector_reduce(&mut r as *mut T as *mut c_void, monoid.raw(), self.raw)
        })?;
        Ok(r)
    }

    pub fn context(&self) -> &'c Context {
        self.ctx
    }

    pub fn as_raw(&self) -> *mut sys::psv_vector {
        self.raw
    }
}

impl<T: Scalar> Drop for Vector<'_, T> {
    fn drop(&mut self) {
        unsafe { sys::psv_vector_free(&mut self.raw) }
    }
}

// ---------------------------------------------------------------------------------------------
// Semiring, mxv, algorithms
// ---------------------------------------------------------------------------------------------

/// A semiring over `T`: `add` a monoid, `multiply` any binary operator.
pub struct Semiring<'c, T: Scalar> {
    raw: *mut sys::psv_semiring,
    ctx: &'c Context,
    _t: PhantomData<T>,
}

unsafe impl<T: Scalar> Send for Semiring<'_, T> {}
unsafe impl<T: Scalar> Sync for Semiring<'_, T> {}

impl<'c, T: Scalar> Semiring<'c, T> {
    pub fn new(ctx: &'c Context, add: Op, multiply: Op) -> Result<Semiring<'c, T>> {
        let mut raw = ptr::null_mut();
        ctx.check(unsafe {
            sys::psv_semiring_create(ctx.raw, add.raw(), multiply.raw(), T::TYPE.raw(), &mut raw)
        })?;
        Ok(Semiring {
            raw,
            ctx,
            _t: PhantomData,
        })
    }

    pub fn context(&self) -> &'c Context {
        self.ctx
    }

    pub fn as_raw(&self) -> *mut sys::psv_semiring {
        self.raw
    }
}

impl<T: Scalar> Drop for Semiring<'_, T> {
    fn drop(&mut self) {
        unsafe { sys::psv_semiring_free(&mut self.raw) }
    }
}

/// `w<mask> accum= A (+).(x) u` (GraphBLAS GrB_mxv). `mask`: None for none; `accum`: None for
/// none; `desc`: [`Descriptor`] bits. Errors: PSV_ERROR_DIMENSION_MISMATCH, ..._DOMAIN_MISMATCH
/// (a value matrix of another type), ..._CONTEXT_MISMATCH.
pub fn mxv<'c, T: Scalar>(
    w: &mut Vector<'c, T>,
    mask: Option<&dyn AnyVector>,
    accum: Option<Op>,
    semiring: &Semiring<'c, T>,
    a: &Matrix<'c>,
    u: &Vector<'c, T>,
    desc: Descriptor,
) -> Result<()> {
    let m = mask.map_or(ptr::null_mut(), |m| m.as_raw_vector());
    w.ctx
        .check(unsafe {
            sys::psv_mxv(
                w.raw,
                m,
                op_or_noop(accum),
                semiring.raw,
                a.raw,
                u.raw,
                desc.0,
            )
        })
        .map(|_| ())
}

/// PageRank (LAGr_PageRank's definition) of the pattern of `a`: (ranks summing to 1,
/// iterations run, converged). Not converging within `max_iterations` is not an error:
/// the ranks are returned with `converged == false`.
pub fn pagerank(
    a: &Matrix<'_>,
    damping: f64,
    tolerance: f64,
    max_iterations: i32,
) -> Result<(Vec<f32>, i32, bool)> {
    let mut raw = ptr::null_mut();
    let mut iterations = 0i32;
    let s = a.ctx.check(unsafe {
        sys::psv_pagerank(
            &mut raw,
            &mut iterations,
            a.raw,
            damping,
            tolerance,
            max_iterations,
        )
    })?;
    // Own it at once so it is freed whatever happens next.
    let rank: Vector<'_, f32> = Vector {
        raw,
        ctx: a.ctx,
        _t: PhantomData,
    };
    Ok((rank.get()?, iterations, s != sys::PSV_NOT_CONVERGED))
}

/// Take ownership of a vector a psv algorithm created, read it, free it.
fn take_f32(ctx: &Context, raw: *mut sys::psv_vector) -> Result<Vec<f32>> {
    let v: Vector<'_, f32> = Vector {
        raw,
        ctx,
        _t: PhantomData,
    };
    v.get()
}

/// Personalized PageRank: [`pagerank`] teleporting by `teleport` (n entries, >= 0, not all
/// zero; normalized internally) instead of 1/n. Returns (ranks, iterations, converged).
pub fn pagerank_personalized(
    a: &Matrix<'_>,
    teleport: &Vector<'_, f32>,
    damping: f64,
    tolerance: f64,
    max_iterations: i32,
) -> Result<(Vec<f32>, i32, bool)> {
    let mut raw = ptr::null_mut();
    let mut iterations = 0i32;
    let s = a.ctx.check(unsafe {
        sys::psv_pagerank_personalized(
            &mut raw,
            &mut iterations,
            a.raw,
            teleport.raw,
            damping,
            tolerance,
            max_iterations,
        )
    })?;
    Ok((
        take_f32(a.ctx, raw)?,
        iterations,
        s != sys::PSV_NOT_CONVERGED,
    ))
}

/// HITS of the pattern of `a`: (hubs, authorities, iterations, converged), each summing to 1.
pub fn hits(
    a: &Matrix<'_>,
    tolerance: f64,
    max_iterations: i32,
) -> Result<(Vec<f32>, Vec<f32>, i32, bool)> {
    let (mut h, mut au) = (ptr::null_mut(), ptr::null_mut());
    let mut iterations = 0i32;
    let s = a.ctx.check(unsafe {
        sys::psv_hits(
            &mut h,
            &mut au,
            &mut iterations,
            a.raw,
            tolerance,
            max_iterations,
        )
    })?;
    let hubs = take_f32(a.ctx, h);
    let authorities = take_f32(a.ctx, au);
    Ok((hubs?, authorities?, iterations, s != sys::PSV_NOT_CONVERGED))
}

/// Random walk with restart from vertex `query` (the graph taken as undirected); `restart_c`
/// is the probability of following an edge. Returns (relevance, iterations, converged).
pub fn rwr(
    a: &Matrix<'_>,
    query: i64,
    restart_c: f64,
    tolerance: f64,
    max_iterations: i32,
) -> Result<(Vec<f32>, i32, bool)> {
    let mut raw = ptr::null_mut();
    let mut iterations = 0i32;
    let s = a.ctx.check(unsafe {
        sys::psv_rwr(
            &mut raw,
            &mut iterations,
            a.raw,
            query,
            restart_c,
            tolerance,
            max_iterations,
        )
    })?;
    Ok((
        take_f32(a.ctx, raw)?,
        iterations,
        s != sys::PSV_NOT_CONVERGED,
    ))
}

/// [`rwr`] for several queries at once: relevance of vertex i to `queries[j]` at
/// `[i * queries.len() + j]` (row-major n x k). Returns (relevance, iterations, converged).
pub fn rwr_batch(
    a: &Matrix<'_>,
    queries: &[i64],
    restart_c: f64,
    tolerance: f64,
    max_iterations: i32,
) -> Result<(Vec<f32>, i32, bool)> {
    let n = a.nrows()?;
    if a.ncols()? != n {
        return Err(local_error(
            sys::PSV_ERROR_DIMENSION_MISMATCH,
            "rwr_batch: A not square",
        ));
    }
    let k = i32::try_from(queries.len())
        .map_err(|_| local_error(sys::PSV_ERROR_INVALID_VALUE, "rwr_batch: too many queries"))?;
    let mut out = vec![0f32; n as usize * queries.len()];
    let mut iterations = 0i32;
    let s = a.ctx.check(unsafe {
        sys::psv_rwr_batch(
            out.as_mut_ptr(),
            &mut iterations,
            a.raw,
            queries.as_ptr(),
            k,
            restart_c,
            tolerance,
            max_iterations,
        )
    })?;
    Ok((out, iterations, s != sys::PSV_NOT_CONVERGED))
}
