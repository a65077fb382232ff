! halox for Fortran: iso_c_binding interfaces to libhalox and thin wrappers (docs/fortran.md).
! Fortran's column-major order (i fastest) is halox's (x fastest): an array
! u(1-g:nx+g, 1-g:ny+g[, 1-g:nz+g]) is exactly an hx_field with ghost g and pitch (nx+2g, ny+2g).
! Every call returns its status in ierr (HX_OK = 0); hx_error(ctx) gives the one-line reason.
module halox
  use, intrinsic :: iso_c_binding
  implicit none
  private

  integer, parameter, public :: HX_OK = 0, HX_ERR_INPUT = 2, HX_ERR_RUNTIME = 3, HX_ERR_VERIFY = 4
  integer, parameter, public :: HX_FLOAT = 0, HX_DOUBLE = 1
  integer, parameter, public :: HX_STAGED = 0, HX_DIRECT = 1
  integer, parameter, public :: HX_PERIODIC = 0, HX_FIXED = 1
  integer, parameter, public :: HX_BACKEND_AUTO = 0, HX_BACKEND_CPU = 1, HX_BACKEND_CUDA = 2
  integer, parameter, public :: HX_JACOBI5 = 0, HX_JACOBI7 = 1, HX_STAR9 = 2, HX_STAR13 = 3
  integer, parameter, public :: HX_SCHEDULE_CYCLE = 0, HX_SCHEDULE_FUSED = 1, HX_SCHEDULE_PERSISTENT = 2
  integer, parameter, public :: HX_NUM_SEGS = 9, HX_MAX_FIELDS = 32

  ! The C structs (halox/*.h), field for field.
  type, bind(c), public :: hx_field
    type(c_ptr) :: data = c_null_ptr
    integer(c_int) :: ghost = 0
    integer(c_int) :: pitch(2) = 0
  end type
  type, bind(c), public :: hx_term
    integer(c_int) :: d(3) = 0
    real(c_double) :: weight = 0
    integer(c_int) :: coef = -1
    integer(c_int) :: c(3) = 0
  end type
  type, bind(c) :: c_context_options
    integer(c_size_t) :: struct_size
    integer(c_int) :: backend
    type(c_ptr) :: devices
    integer(c_int) :: log_level
    type(c_funptr) :: log
    type(c_ptr) :: log_user
    integer(c_int) :: threads
  end type
  type, bind(c) :: c_layout_desc
    integer(c_int) :: dim, global(3), pgrid(3), halo, dtype, boundary, per_axis, halo_axis(3), boundary_axis(3)
  end type
  type, bind(c) :: c_decomp ! the leading fields of hx_decomp
    integer(c_int) :: dim, global(3), pgrid(3), coords(3), local(3), offset(3), ghost(3), alloc(3), boundary, rank, nranks
  end type
  type, bind(c) :: c_exchange_options
    integer(c_size_t) :: struct_size
    type(c_ptr) :: transport
    integer(c_int) :: pattern, halo
    integer(c_long) :: ll_bytes
    type(c_ptr) :: host_fallback
    integer(c_int) :: nfields
    type(c_ptr) :: dtypes
  end type
  type, bind(c) :: c_tuning
    integer(c_int) :: block_rows, march, zsplit, lanes, inplace, prefetch, pdl, tma
  end type
  type, bind(c) :: c_sweep_options
    integer(c_size_t) :: struct_size
    integer(c_int) :: stencil, schedule, depth, overlap, graph, fuse
    integer(c_long) :: norm_every
    integer(c_int) :: desync_barrier, kernel
    type(c_tuning) :: tuning
    integer(c_int) :: profile
    type(c_ptr) :: op, coef
    integer(c_int) :: ncoef
  end type
  type, bind(c) :: c_operator_desc
    integer(c_size_t) :: struct_size
    type(c_ptr) :: name
    integer(c_int) :: dim, dtype, nterms
    type(c_ptr) :: terms
    integer(c_int) :: ncoef
  end type

  ! The Fortran handles.
  type, public :: hx_context
    type(c_ptr) :: p = c_null_ptr
  end type
  type, public :: hx_layout
    type(c_ptr) :: p = c_null_ptr
    type(c_ptr) :: ctx = c_null_ptr
    integer :: dim = 0, dtype = HX_FLOAT, ghost = 0
    integer :: global(3) = 1, local(3) = 1, offset(3) = 0, pgrid(3) = 1, coords(3) = 0
  end type
  type, public :: hx_exchange
    type(c_ptr) :: p = c_null_ptr
    type(c_ptr) :: ctx = c_null_ptr
  end type
  type, public :: hx_sweeper
    type(c_ptr) :: p = c_null_ptr
    type(c_ptr) :: ctx = c_null_ptr
    type(c_ptr) :: layout = c_null_ptr
    type(hx_field), allocatable :: coef(:)
  end type
  type, public :: hx_operator
    type(c_ptr) :: p = c_null_ptr
  end type

  public :: hx_context_create, hx_context_destroy, hx_error, hx_context_rank, hx_context_size, hx_has
  public :: hx_context_sync
  public :: hx_layout_create, hx_layout_destroy, hx_field_of, hx_field_device
  public :: hx_field_init, hx_field_checksum, hx_field_write_npy, hx_checksum_text
  public :: hx_exchange_create, hx_exchange_destroy, hx_exchange_run, hx_exchange_run_many
  public :: hx_operator_create, hx_operator_named, hx_operator_load, hx_operator_destroy, hx_operator_radius
  public :: hx_sweeper_create, hx_sweeper_destroy, hx_sweeper_init, hx_sweeper_iterate, hx_sweeper_field
  public :: hx_sweeper_times

  ! A field descriptor from the caller's host array, with its ghost cells (checked against the layout).
  interface hx_field_of
    module procedure field_of_r4_2d, field_of_r4_3d, field_of_r8_2d, field_of_r8_3d
  end interface

  ! The message of a failure found here, before any C call ("" when the last failure was the library's).
  character(len=256), save :: fortran_err = ""

  interface
    function c_context_defaults() bind(c, name="hx_context_defaults")
      import :: c_context_options
      type(c_context_options) :: c_context_defaults
    end function
    integer(c_int) function c_context_create_f(fcomm, o, out) bind(c, name="hx_context_create_f")
      import :: c_int, c_ptr, c_context_options
      integer(c_int), value :: fcomm
      type(c_context_options), intent(in) :: o
      type(c_ptr), intent(out) :: out
    end function
    subroutine c_context_destroy(ctx) bind(c, name="hx_context_destroy")
      import :: c_ptr
      type(c_ptr), value :: ctx
    end subroutine
    type(c_ptr) function c_context_error(ctx) bind(c, name="hx_context_error")
      import :: c_ptr
      type(c_ptr), value :: ctx
    end function
    integer(c_int) function c_context_rank(ctx) bind(c, name="hx_context_rank")
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
    end function
    integer(c_int) function c_context_size(ctx) bind(c, name="hx_context_size")
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
    end function
    integer(c_int) function c_context_sync(ctx) bind(c, name="hx_context_sync")
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
    end function
    integer(c_int) function c_has(name) bind(c, name="hxf_has")
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: name(*)
    end function
    integer(c_int) function c_layout_create(ctx, d, out) bind(c, name="hx_layout_create")
      import :: c_int, c_ptr, c_layout_desc
      type(c_ptr), value :: ctx
      type(c_layout_desc), intent(in) :: d
      type(c_ptr), intent(out) :: out
    end function
    subroutine c_layout_destroy(l) bind(c, name="hx_layout_destroy")
      import :: c_ptr
      type(c_ptr), value :: l
    end subroutine
    type(c_ptr) function c_layout_decomp(l) bind(c, name="hx_layout_decomp")
      import :: c_ptr
      type(c_ptr), value :: l
    end function
    integer(c_int) function c_field_init(l, f, seed) bind(c, name="hx_field_init")
      import :: c_int, c_ptr, c_int64_t, hx_field
      type(c_ptr), value :: l
      type(hx_field), intent(in) :: f
      integer(c_int64_t), value :: seed
    end function
    integer(c_int) function c_field_checksum(l, f, s) bind(c, name="hx_field_checksum")
      import :: c_int, c_ptr, c_int64_t, hx_field
      type(c_ptr), value :: l
      type(hx_field), intent(in) :: f
      integer(c_int64_t), intent(out) :: s
    end function
    integer(c_int) function c_field_write_npy(l, f, path) bind(c, name="hx_field_write_npy")
      import :: c_int, c_ptr, c_char, hx_field
      type(c_ptr), value :: l
      type(hx_field), intent(in) :: f
      character(kind=c_char), intent(in) :: path(*)
    end function
    subroutine c_u64_text(v, buf) bind(c, name="hxf_u64_text")
      import :: c_int64_t, c_char
      integer(c_int64_t), value :: v
      character(kind=c_char), intent(out) :: buf(*)
    end subroutine
    function c_exchange_defaults() bind(c, name="hx_exchange_defaults")
      import :: c_exchange_options
      type(c_exchange_options) :: c_exchange_defaults
    end function
    integer(c_int) function c_exchange_create_opts(l, o, out) bind(c, name="hx_exchange_create_opts")
      import :: c_int, c_ptr, c_exchange_options
      type(c_ptr), value :: l
      type(c_exchange_options), intent(in) :: o
      type(c_ptr), intent(out) :: out
    end function
    subroutine c_exchange_destroy(x) bind(c, name="hx_exchange_destroy")
      import :: c_ptr
      type(c_ptr), value :: x
    end subroutine
    integer(c_int) function c_exchange_run(x, f, stream) bind(c, name="hx_exchange_run")
      import :: c_int, c_ptr, hx_field
      type(c_ptr), value :: x, stream
      type(hx_field), intent(in) :: f
    end function
    integer(c_int) function c_exchange_run_many(x, n, f, stream) bind(c, name="hxf_exchange_run_many")
      import :: c_int, c_ptr, hx_field
      type(c_ptr), value :: x, stream
      integer(c_int), value :: n
      type(hx_field), intent(in) :: f(*)
    end function
    integer(c_int) function c_operator_create(ctx, d, out) bind(c, name="hxf_operator_create")
      import :: c_int, c_ptr, c_operator_desc
      type(c_ptr), value :: ctx
      type(c_operator_desc), intent(in) :: d
      type(c_ptr), intent(out) :: out
    end function
    integer(c_int) function c_operator_named(ctx, name, dtype, out) bind(c, name="hxf_operator_named")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), value :: dtype
      type(c_ptr), intent(out) :: out
    end function
    integer(c_int) function c_operator_load(ctx, path, dtype, out) bind(c, name="hxf_operator_load")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int), value :: dtype
      type(c_ptr), intent(out) :: out
    end function
    subroutine c_operator_destroy(op) bind(c, name="hxf_operator_destroy")
      import :: c_ptr
      type(c_ptr), value :: op
    end subroutine
    integer(c_int) function c_operator_radius(op) bind(c, name="hxf_operator_radius")
      import :: c_int, c_ptr
      type(c_ptr), value :: op
    end function
    function c_sweep_defaults(s) bind(c, name="hx_sweep_defaults")
      import :: c_int, c_sweep_options
      integer(c_int), value :: s
      type(c_sweep_options) :: c_sweep_defaults
    end function
    integer(c_int) function c_sweeper_create(l, x, o, out) bind(c, name="hx_sweeper_create")
      import :: c_int, c_ptr, c_sweep_options
      type(c_ptr), value :: l, x
      type(c_sweep_options), intent(in) :: o
      type(c_ptr), intent(out) :: out
    end function
    subroutine c_sweeper_destroy(s) bind(c, name="hx_sweeper_destroy")
      import :: c_ptr
      type(c_ptr), value :: s
    end subroutine
    integer(c_int) function c_sweeper_init(s, seed) bind(c, name="hx_sweeper_init")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: s
      integer(c_int64_t), value :: seed
    end function
    integer(c_int) function c_sweeper_iterate(s, n) bind(c, name="hx_sweeper_iterate")
      import :: c_int, c_ptr, c_long
      type(c_ptr), value :: s
      integer(c_long), value :: n
    end function
    function c_sweeper_field(s) bind(c, name="hx_sweeper_field")
      import :: c_ptr, hx_field
      type(c_ptr), value :: s
      type(hx_field) :: c_sweeper_field
    end function
    integer(c_int) function c_sweeper_times(s, t) bind(c, name="hx_sweeper_times")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: s
      real(c_double), intent(out) :: t(*)
    end function
  end interface

contains

  include "halox_impl.inc"
  include "halox_sweep.inc"

end module halox
