! psv.f90 -- module psv: the psv C API for Fortran.
!
! `use psv` gives everything of the generated module psv_c (every C function under its C name,
! every PSV_* constant, the bind(C) types psv_matrix_info and psv_tile_info) plus these
! Fortran-friendly helpers, each a thin layer over one or two C calls:
!
!   psv_read(ctx, path, A)            psv_matrix_read with a Fortran string path (blanks trimmed)
!   psv_last_error(ctx)               the context's last error message as a Fortran string
!   psv_status_name(status)           psv_status_string as a Fortran string
!   psv_c_string(p)                   any C string (type(c_ptr)) as a Fortran string
!   psv_check(ctx, status, what)      stop with the status name and message when status < 0
!   psv_vector_from(ctx, x, v)        a new vector holding the real/integer array x (generic)
!   psv_vector_to(v, x)               copy a vector's values into x (generic; absent -> 0)
!   psv_build_1based(ctx, nrows, ncols, rows, cols, vals, A)
!                                     build a real(c_double) matrix from 1-based indices
!
! Conventions: functions return the C status (integer(c_int32_t)); handles are type(c_ptr)
! and are released with the C *_free subroutines (psv_matrix_free(A) sets A to c_null_ptr).
! Indices passed to the C functions are 0-based, as in C; psv_build_1based converts.
module psv
  use, intrinsic :: iso_c_binding
  use psv_c
  implicit none

  interface
    !> C strlen (used to read C strings).
    pure function psv_strlen(s) bind(C, name="strlen")
      import :: c_ptr, c_size_t
      type(c_ptr), value, intent(in) :: s
      integer(c_size_t) :: psv_strlen
    end function psv_strlen
  end interface

  !> A new vector (PSV_FP32, PSV_FP64, PSV_INT32 or PSV_INT64 after x's kind) holding x.
  interface psv_vector_from
    module procedure vector_from_r4, vector_from_r8, vector_from_i4, vector_from_i8
  end interface psv_vector_from

  !> Copy all values of a vector into x (size(x) must be the vector's size).
  interface psv_vector_to
    module procedure vector_to_r4, vector_to_r8, vector_to_i4, vector_to_i8
  end interface psv_vector_to

contains

  !> A NUL-terminated C string as a Fortran string ("" for c_null_ptr).
  function psv_c_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(p)) then
      s = ""
      return
    end if
    n = int(psv_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate(character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function psv_c_string

  !> The message of this thread's last failed call on ctx, as a Fortran string.
  function psv_last_error(ctx) result(s)
    type(c_ptr), intent(in) :: ctx
    character(len=:), allocatable :: s
    s = psv_c_string(psv_context_last_error(ctx))
  end function psv_last_error

  !> The English name of a status, e.g. "PSV_ERROR_IO: ...".
  function psv_status_name(status) result(s)
    integer(c_int32_t), intent(in) :: status
    character(len=:), allocatable :: s
    s = psv_c_string(psv_status_string(status))
  end function psv_status_name

  !> psv_matrix_read with a Fortran string path (trailing blanks trimmed).
  function psv_read(ctx, path, A) result(status)
    type(c_ptr), intent(in) :: ctx
    character(len=*), intent(in) :: path
    type(c_ptr), intent(out) :: A
    integer(c_int32_t) :: status
    A = c_null_ptr
    status = psv_matrix_read(ctx, trim(path) // c_null_char, A)
  end function psv_read

  !> If status < 0: print what failed, the status name and the context's message, and stop 1.
  subroutine psv_check(ctx, status, what)
    type(c_ptr), intent(in) :: ctx
    integer(c_int32_t), intent(in) :: status
    character(len=*), intent(in) :: what
    if (status >= 0) return
    write (*, '(a)') what // " failed: " // psv_status_name(status) // ": " // psv_last_error(ctx)
    stop 1
  end subroutine psv_check

  !> Build a real(c_double) matrix from 1-based (Fortran) row and column indices.
  !> vals may be absent for a pattern matrix. dup (default PSV_NOOP) combines duplicates.
  function psv_build_1based(ctx, nrows, ncols, rows, cols, vals, A, dup) result(status)
    type(c_ptr), intent(in) :: ctx
    integer(c_int64_t), intent(in) :: nrows, ncols
    integer(c_int64_t), intent(in) :: rows(:), cols(:)
    real(c_double), intent(in), target, optional :: vals(:)
    type(c_ptr), intent(out) :: A
    integer(c_int32_t), intent(in), optional :: dup
    integer(c_int32_t) :: status, d
    integer(c_int64_t), allocatable :: r0(:), c0(:)
    type(c_ptr) :: pv
    A = c_null_ptr
    if (size(rows) /= size(cols)) then
      status = PSV_ERROR_DIMENSION_MISMATCH
      return
    end if
    d = PSV_NOOP
    if (present(dup)) d = dup
    pv = c_null_ptr
    if (present(vals)) then
      if (size(vals) /= size(rows)) then
        status = PSV_ERROR_DIMENSION_MISMATCH
        return
      end if
      if (size(vals) > 0) pv = c_loc(vals(1))
    end if
    allocate(r0(size(rows)), c0(size(cols)))
    r0(:) = rows - 1
    c0(:) = cols - 1
    status = psv_matrix_build(ctx, PSV_FP64, nrows, ncols, int(size(rows), c_int64_t), r0, c0, &
                              pv, d, A)
  end function psv_build_1based

  ! ---- psv_vector_from / psv_vector_to ----

  function vector_from_r4(ctx, x, v) result(status)
    type(c_ptr), intent(in) :: ctx
    real(c_float), intent(in), contiguous, target :: x(:)
    type(c_ptr), intent(out) :: v
    integer(c_int32_t) :: status
    status = vector_from_raw(ctx, PSV_FP32, size(x, kind=c_int64_t), c_loc(x), v)
  end function vector_from_r4

  function vector_from_r8(ctx, x, v) result(status)
    type(c_ptr), intent(in) :: ctx
    real(c_double), intent(in), contiguous, target :: x(:)
    type(c_ptr), intent(out) :: v
    integer(c_int32_t) :: status
    status = vector_from_raw(ctx, PSV_FP64, size(x, kind=c_int64_t), c_loc(x), v)
  end function vector_from_r8

  function vector_from_i4(ctx, x, v) result(status)
    type(c_ptr), intent(in) :: ctx
    integer(c_int32_t), intent(in), contiguous, target :: x(:)
    type(c_ptr), intent(out) :: v
    integer(c_int32_t) :: status
    status = vector_from_raw(ctx, PSV_INT32, size(x, kind=c_int64_t), c_loc(x), v)
  end function vector_from_i4

  function vector_from_i8(ctx, x, v) result(status)
    type(c_ptr), intent(in) :: ctx
    integer(c_int64_t), intent(in), contiguous, target :: x(:)
    type(c_ptr), intent(out) :: v
    integer(c_int32_t) :: status
    status = vector_from_raw(ctx, PSV_INT64, size(x, kind=c_int64_t), c_loc(x), v)
  end function vector_from_i8

  ! The callers' x are contiguous (a non-contiguous actual is copied in for the call).
  function vector_from_raw(ctx, t, n, px, v) result(status)
    type(c_ptr), intent(in) :: ctx, px
    integer(c_int32_t), intent(in) :: t
    integer(c_int64_t), intent(in) :: n
    type(c_ptr), intent(out) :: v
    integer(c_int32_t) :: status
    v = c_null_ptr
    status = psv_vector_create(ctx, t, n, v)
    if (status < 0) return
    status = psv_vector_set(v, px, n)
    if (status < 0) call psv_vector_free(v)
  end function vector_from_raw

  function vector_to_r4(v, x) result(status)
    type(c_ptr), intent(in) :: v
    real(c_float), intent(inout), contiguous, target :: x(:)
    integer(c_int32_t) :: status
    status = psv_vector_get(v, c_loc(x), size(x, kind=c_int64_t))
  end function vector_to_r4

  function vector_to_r8(v, x) result(status)
    type(c_ptr), intent(in) :: v
    real(c_double), intent(inout), contiguous, target :: x(:)
    integer(c_int32_t) :: status
    status = psv_vector_get(v, c_loc(x), size(x, kind=c_int64_t))
  end function vector_to_r8

  function vector_to_i4(v, x) result(status)
    type(c_ptr), intent(in) :: v
    integer(c_int32_t), intent(inout), contiguous, target :: x(:)
    integer(c_int32_t) :: status
    status = psv_vector_get(v, c_loc(x), size(x, kind=c_int64_t))
  end function vector_to_i4

  function vector_to_i8(v, x) result(status)
    type(c_ptr), intent(in) :: v
    integer(c_int64_t), intent(inout), contiguous, target :: x(:)
    integer(c_int32_t) :: status
    status = psv_vector_get(v, c_loc(x), size(x, kind=c_int64_t))
  end function vector_to_i8

end module psv
