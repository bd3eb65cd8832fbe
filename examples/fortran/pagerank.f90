! pagerank.f90 -- PageRank of a graph file with psv, from Fortran.
!   pagerank GRAPH [TOP [BACKEND]]   GRAPH: Matrix Market or SNAP edge list, plain or .gz
!                                    BACKEND: cpu (default), cuda or auto
! Prints the TOP (default 5) ranked vertices (0-based ids, as in the file). Exits 1 on error
! or if the ranks do not sum to 1, and 77 (a test harness's "skipped") when the backend asked
! for does not exist on this machine.
program pagerank
  use, intrinsic :: iso_c_binding
  use psv
  implicit none
  type(c_ptr) :: ctx = c_null_ptr, A = c_null_ptr, rank = c_null_ptr
  character(len=4096) :: path, arg
  integer(c_int32_t) :: status, iterations, backend
  integer(c_int64_t) :: n, nvals
  real(c_float), allocatable :: r(:)
  real(c_double) :: total
  integer :: top, k
  integer, allocatable :: order(:)

  if (command_argument_count() < 1) then
    write (*, '(a)') "usage: pagerank GRAPH [TOP [cpu|cuda|auto]]"
    stop 2
  end if
  call get_command_argument(1, path)
  top = 5
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) top
  end if

  backend = PSV_BACKEND_CPU
  if (command_argument_count() >= 3) then
    call get_command_argument(3, arg)
    select case (trim(arg))
    case ("cpu");  backend = PSV_BACKEND_CPU
    case ("cuda"); backend = PSV_BACKEND_CUDA
    case ("auto"); backend = PSV_BACKEND_AUTO
    case default
      write (*, '(a)') "unknown backend " // trim(arg) // " (cpu, cuda or auto)"
      stop 2
    end select
  end if

  status = psv_context_create(backend, 0, ctx)
  if (status == PSV_ERROR_BACKEND_UNAVAILABLE) then
    write (*, '(a)') "backend " // trim(arg) // " unavailable here: " // psv_last_error(ctx)
    stop 77
  end if
  call psv_check(ctx, status, "psv_context_create")
  call psv_check(ctx, psv_read(ctx, path, A), "psv_read(" // trim(path) // ")")
  call psv_check(ctx, psv_matrix_nrows(A, n), "psv_matrix_nrows")
  call psv_check(ctx, psv_matrix_nvals(A, nvals), "psv_matrix_nvals")

  status = psv_pagerank(rank, iterations, A, 0.85_c_double, 1.0e-7_c_double, 100_c_int32_t)
  call psv_check(ctx, status, "psv_pagerank")
  allocate(r(n))
  call psv_check(ctx, psv_vector_to(rank, r), "psv_vector_get")

  write (*, '(a, ": ", i0, " vertices, ", i0, " edges, ", i0, " iterations, converged: ", l1)') &
    trim(path), n, nvals, iterations, status == PSV_SUCCESS
  ! Top vertices by selection (TOP is small).
  allocate(order(min(top, int(n))))
  do k = 1, size(order)
    order(k) = maxloc(r, dim=1)
    write (*, '("  vertex ", i8, "  rank ", es12.5)') order(k) - 1, r(order(k))
    r(order(k)) = -r(order(k)) - 1.0  ! take it out of the next maxloc
  end do
  do k = 1, size(order)
    r(order(k)) = -(r(order(k)) + 1.0)
  end do

  call psv_vector_free(rank)
  call psv_matrix_free(A)
  call psv_context_free(ctx)
  if (c_associated(A) .or. c_associated(ctx)) stop "free did not reset the handle"
  total = sum(real(r, c_double))
  deallocate(r, order)  ! a main program's arrays are not freed at its end (leak checkers see them)
  if (status /= PSV_SUCCESS .or. abs(total - 1.0_c_double) > 1.0e-3_c_double) then
    write (*, '(a, es12.5)') "bad result: sum of ranks ", total
    stop 1
  end if
end program pagerank
