! test_psv.f90 -- the Fortran binding against the linked libpsv (CPU backend): values through
! the raw interfaces and the helpers, struct layout, and error paths. Exits 1 on a failure.
program test_psv
  use, intrinsic :: iso_c_binding
  use psv
  implicit none
  interface
    function psv_test_c_sizeof(which) bind(C)
      import
      integer(c_int32_t), value :: which
      integer(c_int64_t) :: psv_test_c_sizeof
    end function
    function psv_test_c_offset(which) bind(C)
      import
      integer(c_int32_t), value :: which
      integer(c_int64_t) :: psv_test_c_offset
    end function
  end interface
  type(c_ptr) :: ctx = c_null_ptr, A = c_null_ptr, B = c_null_ptr, s = c_null_ptr
  type(c_ptr) :: u = c_null_ptr, w = c_null_ptr, rank = c_null_ptr
  type(c_ptr) :: hubs = c_null_ptr, auths = c_null_ptr
  real(c_float) :: rel(8)
  type(psv_matrix_info), target :: info
  type(psv_tile_info), target :: tinfo
  type(psv_tuning_info), target :: tuning
  integer(c_int64_t) :: rows(4) = [0, 1, 2, 2], cols(4) = [1, 2, 0, 1]
  real(c_double), target :: vals(4) = [1d0, 2d0, 3d0, 4d0]
  real(c_double), target :: x(4) = [1d0, 10d0, 100d0, 1000d0], y(3), one
  integer(c_int64_t) :: n, er(4), ec(4)
  real(c_double), target :: ev(4)
  integer(c_int32_t) :: t, iterations, backend, st
  real(c_float) :: r(4)
  integer :: failures = 0

  call expect(psv_version_number() == PSV_VERSION_NUMBER_CONST, "version number")
  call expect(psv_backend_available(PSV_BACKEND_CPU) == 1, "CPU backend available")
  call expect(psv_type_size(PSV_FP64) == 8, "psv_type_size(PSV_FP64)")
  call expect(psv_type_size(PSV_BOOL) == 1, "psv_type_size(PSV_BOOL)")
  call expect(index(psv_status_name(PSV_ERROR_IO), "PSV_ERROR_IO") == 1, "psv_status_name")

  ! Layout of the bind(C) types against the C compiler's.
  call expect(c_sizeof(info) == psv_test_c_sizeof(0), "sizeof(psv_matrix_info)")
  call expect(c_sizeof(tinfo) == psv_test_c_sizeof(1), "sizeof(psv_tile_info)")
  call expect(offset(c_loc(info%padding_ratio), c_loc(info)) == psv_test_c_offset(0), "offset padding_ratio")
  call expect(offset(c_loc(info%kernel), c_loc(info)) == psv_test_c_offset(1), "offset kernel")
  call expect(offset(c_loc(info%build_seconds), c_loc(info)) == psv_test_c_offset(2), "offset build_seconds")
  call expect(offset(c_loc(info%reserved), c_loc(info)) == psv_test_c_offset(3), "offset reserved")
  call expect(offset(c_loc(tinfo%index_bits), c_loc(tinfo)) == psv_test_c_offset(4), "offset index_bits")
  call expect(offset(c_loc(tinfo%reserved), c_loc(tinfo)) == psv_test_c_offset(5), "offset tile reserved")
  call expect(offset(c_loc(info%runner_up_kernel), c_loc(info)) == psv_test_c_offset(6), "offset runner_up_kernel")
  call expect(offset(c_loc(info%hot_columns), c_loc(info)) == psv_test_c_offset(7), "offset hot_columns")
  call expect(c_sizeof(tuning) == psv_test_c_sizeof(2), "sizeof(psv_tuning_info)")
  call expect(offset(c_loc(tuning%samples), c_loc(tuning)) == psv_test_c_offset(8), "offset samples")

  call ok(psv_context_create(PSV_BACKEND_CPU, 0, ctx), "psv_context_create")
  call ok(psv_context_backend(ctx, backend), "psv_context_backend")
  call expect(backend == PSV_BACKEND_CPU, "backend is CPU")

  ! A = [0 1 0 0; 0 0 2 0; 3 4 0 0], through the raw interface (0-based).
  call ok(psv_matrix_build(ctx, PSV_FP64, 3_c_int64_t, 4_c_int64_t, 4_c_int64_t, rows, cols, &
                           c_loc(vals), PSV_NOOP, A), "psv_matrix_build")
  call ok(psv_matrix_nvals(A, n), "psv_matrix_nvals")
  call expect(n == 4, "nvals")
  call ok(psv_matrix_type(A, t), "psv_matrix_type")
  call expect(t == PSV_FP64, "type")
  call ok(psv_matrix_info_get(A, info), "psv_matrix_info_get")
  call expect(info%nrows == 3 .and. info%ncols == 4 .and. info%nvals == 4, "info dims")
  call expect(info%backend == PSV_BACKEND_CPU, "info backend")
  call ok(psv_matrix_tile_info(A, 0, tinfo), "psv_matrix_tile_info")
  ! The CPU has no performance model: nothing predicted, a plan in words, nothing to tune (an
  ! absent path passes NULL, the user's cache).
  call expect(info%predicted_ms == 0 .and. info%plan_candidates == 0 .and. info%runner_up_kernel == -1, &
              "info: no model on the CPU")
  call expect(index(psv_c_string(psv_matrix_plan(A, 0)), "tile-composite kernel") == 1, "psv_matrix_plan")
  call ok(psv_context_tuning(ctx, tuning), "psv_context_tuning")
  call expect(tuning%source == PSV_TUNING_NONE, "no tuning table on the CPU")
  call expect(len(psv_c_string(psv_context_tuning_text(ctx))) > 0, "psv_context_tuning_text")
  call expect(psv_context_tune(ctx, effort=0, progress=0) == PSV_ERROR_NOT_IMPLEMENTED, "tune on the CPU")
  call expect(psv_context_tune(ctx, "/tmp/psv_unused.tbl" // c_null_char, 2, 0) == PSV_ERROR_INVALID_VALUE, &
              "tune: bad effort")
  call expect(tinfo%index_bits == 16 .or. tinfo%index_bits == 32, "tile index_bits")
  n = 4
  call ok(psv_matrix_extract_tuples(A, er, ec, c_loc(ev), n), "psv_matrix_extract_tuples")
  call expect(n == 4 .and. all(er == rows) .and. all(ec == cols) .and. all(ev == vals), "tuples")
  ! An absent optional array passes NULL ("may be NULL to skip it").
  n = 4
  call ok(psv_matrix_extract_tuples(A, er, n=n, values=c_null_ptr), "extract rows only")
  n = 2
  call expect(psv_matrix_extract_tuples(A, er, ec, c_loc(ev), n) == PSV_ERROR_INSUFFICIENT_SPACE &
              .and. n == 2, "insufficient space")

  ! w = A * x on (+, *), with the generic helpers.
  call ok(psv_semiring_create(ctx, PSV_PLUS, PSV_TIMES, PSV_FP64, s), "psv_semiring_create")
  call ok(psv_vector_from(ctx, x, u), "psv_vector_from")
  call ok(psv_vector_create(ctx, PSV_FP64, 3_c_int64_t, w), "psv_vector_create")
  call ok(psv_mxv(w, c_null_ptr, PSV_NOOP, s, A, u, 0), "psv_mxv")
  call ok(psv_vector_to(w, y), "psv_vector_to")
  call expect(all(y == [10d0, 200d0, 43d0]), "mxv values")
  call ok(psv_vector_get_element(w, 2_c_int64_t, c_loc(one)), "psv_vector_get_element")
  call expect(one == 43d0, "get_element")

  ! Error paths: dimension mismatch (u has 4 entries, A' needs 3), bad path, 1-based build.
  st = psv_mxv(w, c_null_ptr, PSV_NOOP, s, A, u, PSV_DESC_TRANSPOSE_A)
  call expect(st == PSV_ERROR_DIMENSION_MISMATCH, "mxv dimension mismatch")
  call expect(len(psv_last_error(ctx)) > 0, "message after dimension mismatch")
  st = psv_read(ctx, "/nonexistent/dir/graph.mtx   ", B)
  call expect(st == PSV_ERROR_IO, "bad path gives PSV_ERROR_IO")
  call expect(.not. c_associated(B), "output untouched on failure")
  call expect(len(psv_last_error(ctx)) > 0, "message after bad path")
  call expect(psv_build_1based(ctx, 3_c_int64_t, 3_c_int64_t, [1_c_int64_t, 4_c_int64_t], &
              [1_c_int64_t, 1_c_int64_t], [1d0, 1d0], B) == PSV_ERROR_INVALID_INDEX, "1-based out of range")

  ! PageRank of a directed 4-cycle (1-based helper, pattern): every rank is 1/4.
  call ok(psv_build_1based(ctx, 4_c_int64_t, 4_c_int64_t, [1_c_int64_t, 2_c_int64_t, 3_c_int64_t, &
          4_c_int64_t], [2_c_int64_t, 3_c_int64_t, 4_c_int64_t, 1_c_int64_t], A=B), "psv_build_1based")
  call ok(psv_pagerank(rank, iterations, B, 0.85_c_double, 1d-9, 100_c_int32_t), "psv_pagerank")
  call ok(psv_vector_to(rank, r), "rank values")
  call expect(all(abs(r - 0.25) < 1e-6) .and. iterations >= 1, "pagerank of a cycle")
  call expect(psv_pagerank(rank, iterations, A, 0.85_c_double, 1d-9, 100_c_int32_t) == &
              PSV_ERROR_DIMENSION_MISMATCH, "pagerank of a non-square matrix")

  ! Two output handles (HITS) and a host output array (RWR batch, n x k row-major).
  call ok(psv_hits(hubs, auths, iterations, B, 1d-9, 100_c_int32_t), "psv_hits")
  call ok(psv_vector_to(auths, r), "authorities")
  call expect(all(abs(r - 0.25) < 1e-5), "hits of a cycle")
  call ok(psv_rwr_batch(rel, iterations, B, [0_c_int64_t, 2_c_int64_t], 2_c_int32_t, 0.9_c_double, &
                        1d-6, 1000_c_int32_t), "psv_rwr_batch")
  call expect(abs(sum(rel(1::2)) - 1.0) < 1e-4 .and. maxloc(rel(1::2), 1) == 1 .and. &
              maxloc(rel(2::2), 1) == 3, "rwr_batch columns")
  call psv_vector_free(hubs)
  call psv_vector_free(auths)

  call psv_vector_free(rank)
  call psv_vector_free(u)
  call psv_vector_free(w)
  call psv_semiring_free(s)
  call psv_matrix_free(A)
  call psv_matrix_free(B)
  call psv_context_free(ctx)
  call expect(.not. (c_associated(A) .or. c_associated(ctx) .or. c_associated(rank)), "frees reset handles")
  call psv_matrix_free(A)  ! NULL-safe

  if (failures > 0) then
    write (*, '(i0, a)') failures, " check(s) failed"
    stop 1
  end if
  write (*, '(a)') "all Fortran binding checks passed"

contains

  subroutine expect(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (.not. cond) then
      failures = failures + 1
      write (*, '(a)') "FAIL: " // what
    end if
  end subroutine expect

  subroutine ok(status, what)
    integer(c_int32_t), intent(in) :: status
    character(len=*), intent(in) :: what
    if (status /= PSV_SUCCESS) then
      failures = failures + 1
      write (*, '(a)') "FAIL: " // what // ": " // psv_status_name(status) // ": " // psv_last_error(ctx)
    end if
  end subroutine ok

  integer(c_int64_t) function offset(p, base)
    type(c_ptr), intent(in) :: p, base
    integer(c_intptr_t) :: a, b
    a = transfer(p, a)
    b = transfer(base, b)
    offset = a - b
  end function offset

end program test_psv
