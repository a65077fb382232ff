! heat3d: a 3D heat (Jacobi) loop of the caller's own in Fortran, with halox filling the ghost cells.
!   mpirun -np 4 heat3d [NX NY NZ ITERS SEED [OUT.npy]]     (default 48 40 36 10 42)
! Rank 0 prints "checksum <uint64>", equal to that of `halox reference --stencil jacobi7 --dtype float
! --boundary periodic` with the same size, iterations and seed: the sweep below is halox's jacobi7
! expression, (((w + e) + (s + n)) + (d + u)) * (1/6 in the dtype), compiled without FMA contraction
! (-ffp-contract=off), so the bits are the reference's.
program heat3d
  use mpi
  use halox
  use, intrinsic :: iso_c_binding, only: c_float, c_int64_t
  implicit none
  integer, parameter :: g = 1
  real(c_float), allocatable, target :: u(:, :, :), v(:, :, :)
  type(hx_context) :: ctx
  type(hx_layout) :: lay
  type(hx_exchange) :: x
  type(hx_field) :: fu, fv
  integer :: n(3), iters, ierr, it, nx, ny, nz
  integer(c_int64_t) :: seed, sum
  character(len=256) :: arg, out

  call MPI_Init(ierr)
  n = [48, 40, 36]
  iters = 10
  seed = 42
  out = ""
  if (command_argument_count() >= 5) then
    call get_command_argument(1, arg); read (arg, *) n(1)
    call get_command_argument(2, arg); read (arg, *) n(2)
    call get_command_argument(3, arg); read (arg, *) n(3)
    call get_command_argument(4, arg); read (arg, *) iters
    call get_command_argument(5, arg); read (arg, *) seed
  end if
  if (command_argument_count() >= 6) call get_command_argument(6, out)

  call hx_context_create(ctx, MPI_COMM_WORLD, ierr, backend=HX_BACKEND_CPU)
  call check("hx_context_create")
  call hx_layout_create(lay, ctx, n, g, ierr, dtype=HX_FLOAT, boundary=HX_PERIODIC)
  call check("hx_layout_create")
  call hx_exchange_create(x, lay, ierr, transport="mpi", pattern=HX_DIRECT)
  call check("hx_exchange_create")

  ! this rank's block with one ghost cell per side: exactly halox's geometry, x fastest
  nx = lay%local(1); ny = lay%local(2); nz = lay%local(3)
  allocate (u(1 - g:nx + g, 1 - g:ny + g, 1 - g:nz + g), v(1 - g:nx + g, 1 - g:ny + g, 1 - g:nz + g))
  u = 0; v = 0
  call hx_field_of(lay, u, fu, ierr); call check("hx_field_of(u)")
  call hx_field_of(lay, v, fv, ierr); call check("hx_field_of(v)")
  call hx_field_init(lay, fu, seed, ierr); call check("hx_field_init")

  do it = 1, iters
    if (mod(it, 2) == 1) then
      call hx_exchange_run(x, fu, ierr); call check("hx_exchange_run")
      call sweep(u, v)
    else
      call hx_exchange_run(x, fv, ierr); call check("hx_exchange_run")
      call sweep(v, u)
    end if
  end do
  if (mod(iters, 2) == 1) then
    call finish(fv)
  else
    call finish(fu)
  end if

  call hx_exchange_destroy(x)
  call hx_layout_destroy(lay)
  call hx_context_destroy(ctx)
  call MPI_Finalize(ierr)

contains

  subroutine sweep(a, b)
    real(c_float), intent(in) :: a(1 - g:, 1 - g:, 1 - g:)
    real(c_float), intent(inout) :: b(1 - g:, 1 - g:, 1 - g:)
    real(c_float), parameter :: sixth = real(1.0d0 / 6.0d0, c_float)
    integer :: i, j, k
    do k = 1, nz
      do j = 1, ny
        do i = 1, nx
          b(i, j, k) = (((a(i - 1, j, k) + a(i + 1, j, k)) + (a(i, j - 1, k) + a(i, j + 1, k))) &
                        + (a(i, j, k - 1) + a(i, j, k + 1))) * sixth
        end do
      end do
    end do
  end subroutine

  subroutine finish(f)
    type(hx_field), intent(in) :: f
    call hx_field_checksum(lay, f, sum, ierr); call check("hx_field_checksum")
    if (hx_context_rank(ctx) == 0) print '(a,a)', "checksum ", hx_checksum_text(sum)
    if (len_trim(out) > 0) then
      call hx_field_write_npy(lay, f, trim(out), ierr); call check("hx_field_write_npy")
    end if
  end subroutine

  ! halox's calls fail on every rank together: each reports, then the job ends.
  subroutine check(what)
    character(len=*), intent(in) :: what
    integer :: e
    if (ierr == HX_OK) return
    write (0, '(a,a,a,a)') "heat3d: ", what, ": ", hx_error(ctx)
    call MPI_Abort(MPI_COMM_WORLD, 1, e)
  end subroutine
end program heat3d
