! The Fortran module on 1 to 4 ranks: ghost cells after an exchange, cell by cell; the module's own
! checks and the library's errors with their messages; many fields, per-axis halos and operators
! (each skipped, with the reason, when the loaded libhalox lacks it). Prints one line per check.
program test_fortran_api
  use mpi
  use halox
  use, intrinsic :: iso_c_binding, only: c_float, c_double, c_int64_t
  implicit none
  integer, parameter :: nx = 13, ny = 11, g = 1
  type(hx_context) :: ctx
  type(hx_layout) :: lay
  type(hx_exchange) :: x, xm
  type(hx_field) :: fu, fv, fs(2)
  real(c_double), allocatable, target :: u(:, :), v(:, :), w(:, :)
  real(c_float), allocatable, target :: s(:, :)
  integer :: ierr, fails, rank
  fails = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call hx_context_create(ctx, MPI_COMM_WORLD, ierr, backend=HX_BACKEND_CPU, threads=1)
  call expect(ierr == HX_OK .and. hx_context_rank(ctx) == rank, "context")

  ! one exchange, fixed boundary, direct pattern (corners included)
  call hx_layout_create(lay, ctx, [nx, ny], g, ierr, dtype=HX_DOUBLE, boundary=HX_FIXED)
  call expect(ierr == HX_OK, "layout")
  call hx_exchange_create(x, lay, ierr, transport="mpi", pattern=HX_DIRECT)
  call expect(ierr == HX_OK, "exchange")
  allocate (u(1 - g:lay%local(1) + g, 1 - g:lay%local(2) + g))
  call fill(u)
  call hx_field_of(lay, u, fu, ierr)
  call expect(ierr == HX_OK .and. fu%ghost == g .and. fu%pitch(1) == lay%local(1) + 2 * g, "hx_field_of")
  call hx_exchange_run(x, fu, ierr)
  call expect(ierr == HX_OK .and. ghosts_ok(u), "ghost cells after hx_exchange_run")

  ! the module's checks, before any C call
  allocate (v(1 - g:lay%local(1) + g + 1, 1 - g:lay%local(2) + g))
  call hx_field_of(lay, v, fv, ierr)
  call expect(ierr == HX_ERR_INPUT .and. index(hx_error(ctx), "extents") > 0, "wrong extents refused")
  allocate (s(1 - g:lay%local(1) + g, 1 - g:lay%local(2) + g))
  call hx_field_of(lay, s, fv, ierr)
  call expect(ierr == HX_ERR_INPUT .and. index(hx_error(ctx), "kind") > 0, "wrong kind refused")
  allocate (w(2 * (lay%local(1) + 2 * g), lay%local(2) + 2 * g))
  call hx_field_of(lay, w(::2, :), fv, ierr)
  call expect(ierr == HX_ERR_INPUT .and. index(hx_error(ctx), "contiguous") > 0, "a strided section refused")
  ! the library's refusal, agreed by every rank, with its message
  call hx_exchange_create(xm, lay, ierr, transport="no-such-transport")
  call expect(ierr == HX_ERR_INPUT .and. index(hx_error(ctx), "no-such-transport") > 0, "unknown transport refused")

  ! many fields in one exchange
  if (hx_has("hx_exchange_run_many")) then
    call hx_exchange_create(xm, lay, ierr, nfields=2, pattern=HX_DIRECT)
    call fill(u)
    deallocate (v)
    allocate (v(1 - g:lay%local(1) + g, 1 - g:lay%local(2) + g))
    call fill(v)
    call hx_field_of(lay, u, fs(1), ierr)
    call hx_field_of(lay, v, fs(2), ierr)
    call hx_exchange_run_many(xm, fs, ierr)
    call expect(ierr == HX_OK .and. ghosts_ok(u) .and. ghosts_ok(v), "ghost cells after hx_exchange_run_many")
    call hx_exchange_destroy(xm)
  else
    if (rank == 0) print '(a)', "skip: libhalox lacks hx_exchange_run_many"
  end if
  call operators()
  call per_axis()

  call hx_exchange_destroy(x)
  call hx_layout_destroy(lay)
  call hx_context_destroy(ctx)
  call MPI_Allreduce(MPI_IN_PLACE, fails, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
  if (fails > 0) stop 1

contains

  ! owned cells: global index + 1; ghosts: -1
  subroutine fill(a)
    real(c_double), intent(out) :: a(1 - g:, 1 - g:)
    integer :: i, j
    a = -1
    do j = 1, lay%local(2)
      do i = 1, lay%local(1)
        a(i, j) = real((i - 1 + lay%offset(1)) + nx * (j - 1 + lay%offset(2)) + 1, c_double)
      end do
    end do
  end subroutine

  ! every cell within g of the block: the global value there, 0 beyond the fixed boundary
  logical function ghosts_ok(a)
    real(c_double), intent(in) :: a(1 - g:, 1 - g:)
    integer :: i, j, gi, gj
    real(c_double) :: want
    ghosts_ok = .true.
    do j = 1 - g, lay%local(2) + g
      do i = 1 - g, lay%local(1) + g
        gi = i - 1 + lay%offset(1)
        gj = j - 1 + lay%offset(2)
        want = real(gi + nx * gj + 1, c_double)
        if (gi < 0 .or. gi >= nx .or. gj < 0 .or. gj >= ny) want = -1 ! never written: stays as filled
        if (a(i, j) /= want) ghosts_ok = .false.
      end do
    end do
  end function

  ! an operator from terms, swept by halox, against the same sum in the documented order here
  subroutine operators()
    type(hx_operator) :: op
    type(hx_layout) :: l2
    type(hx_exchange) :: x2
    type(hx_sweeper) :: sw
    type(hx_term) :: t(3)
    integer(c_int64_t) :: a, b
    if (.not. hx_has("hx_operator_create")) then
      if (rank == 0) print '(a)', "skip: libhalox lacks hx_operator_create"
      return
    end if
    t(1) = hx_term([0, 0, 0], 0.5d0, -1, [0, 0, 0])
    t(2) = hx_term([-1, 0, 0], 0.25d0, -1, [0, 0, 0])
    t(3) = hx_term([0, 1, 0], 0.25d0, -1, [0, 0, 0])
    call hx_operator_create(op, ctx, 2, HX_DOUBLE, t, ierr, name="lopsided")
    call expect(ierr == HX_OK .and. hx_operator_radius(op) == 1, "hx_operator_create")
    call hx_layout_create(l2, ctx, [nx, ny], 1, ierr, dtype=HX_DOUBLE)
    call hx_exchange_create(x2, l2, ierr)
    call hx_sweeper_create(sw, l2, x2, ierr, op=op)
    call expect(ierr == HX_OK, "sweeper with an operator")
    call hx_sweeper_init(sw, 7_c_int64_t, ierr)
    call hx_sweeper_iterate(sw, 3, ierr)
    call hx_field_checksum(l2, hx_sweeper_field(sw), a, ierr)
    call own_loop(l2, x2, b)
    call expect(a == b, "operator sweeps equal the documented order, bit for bit")
    call hx_sweeper_destroy(sw)
    call hx_exchange_destroy(x2)
    call hx_layout_destroy(l2)
    call hx_operator_destroy(op)
    t(1)%d(1) = 9
    call hx_operator_create(op, ctx, 2, HX_DOUBLE, t, ierr)
    call expect(ierr == HX_ERR_INPUT .and. len(hx_error(ctx)) > 0, "an offset beyond the radius limit refused")
    call hx_operator_destroy(op)
  end subroutine

  subroutine own_loop(l2, x2, sum)
    type(hx_layout), intent(in) :: l2
    type(hx_exchange), intent(in) :: x2
    integer(c_int64_t), intent(out) :: sum
    real(c_double), allocatable, target :: p(:, :), q(:, :)
    type(hx_field) :: fp
    integer :: it, i, j
    allocate (p(0:l2%local(1) + 1, 0:l2%local(2) + 1), q(0:l2%local(1) + 1, 0:l2%local(2) + 1))
    call hx_field_of(l2, p, fp, ierr)
    call hx_field_init(l2, fp, 7_c_int64_t, ierr)
    do it = 1, 3
      call hx_exchange_run(x2, fp, ierr)
      do j = 1, l2%local(2)
        do i = 1, l2%local(1)
          q(i, j) = (0.5d0 * p(i, j) + 0.25d0 * p(i - 1, j)) + 0.25d0 * p(i, j + 1)
        end do
      end do
      p(1:l2%local(1), 1:l2%local(2)) = q(1:l2%local(1), 1:l2%local(2))
    end do
    call hx_field_checksum(l2, fp, sum, ierr)
  end subroutine

  subroutine per_axis()
    type(hx_layout) :: l3
    call hx_layout_create(l3, ctx, [nx, ny], 0, ierr, halo_axis=[2, 0], boundary_axis=[HX_PERIODIC, HX_FIXED])
    if (ierr /= HX_OK .and. index(hx_error(ctx), "lacks per-axis") > 0) then
      if (rank == 0) print '(a)', "skip: " // hx_error(ctx)
      return
    end if
    call expect(ierr == HX_OK .and. l3%ghost == 2, "per-axis layout keeps the widest halo as ghost")
    call hx_layout_destroy(l3)
  end subroutine

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (ok) then
      if (rank == 0) print '(a,a)', "ok   ", what
    else
      fails = fails + 1
      print '(a,i0,a,a,a,a)', "FAIL (rank ", rank, "): ", what, ": ", hx_error(ctx)
    end if
  end subroutine
end program test_fortran_api
