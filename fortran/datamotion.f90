! datamotion — Fortran interfaces to the C API (the headers in include/datamotion).
!
! Every function is the C function of the same name, called through
! ISO_C_BINDING, and returns its int status: DM_OK on success, otherwise a
! DM_ERR_* code, with dm_last_error_message() saying what failed. Handles are type(c_ptr), NULL
! (c_null_ptr) before creation and after the matching free.
!
! Index order: C arrays are row-major, Fortran arrays column-major, so shapes,
! distributions, ghosts and grid axes are given in C order, which is Fortran's
! reversed: the Fortran array a(n1, n2) is the C array of shape [n2, n1], and
! Fortran dimension k of a d-dimensional array is C axis d - k. Grid coordinates, ranks, axes and
! the local indices of dm_dist_to_global are 0-based as in C; pgemr2d offsets
! and descriptors are ScaLAPACK's (1-based, column-major) and need no change.
!
! Communicators are MPI's Fortran handles: an integer from `use mpi`, or
! comm%MPI_VAL from `use mpi_f08`. Programs without MPI's Fortran bindings use
! dm_mpi_init, dm_comm_world and the other dm_mpi helpers at the end.
!
! Optional arguments left out are passed as C's NULL (dims, periods, dists,
! ghost, ranks, boundaries, and the data of ranks that hold none).
!
! The module also makes ISO_C_BINDING's names (c_ptr, c_int64_t, ...) available.
module datamotion
  use, intrinsic :: iso_c_binding
  implicit none
  private :: c_string, dm_last_error_message_c, dm_status_name_c

  ! ---- core.h -------------------------------------------------------------
  integer(c_int), parameter :: DM_OK = 0, DM_ERR_ARG = 1, DM_ERR_TYPE = 2, DM_ERR_MISMATCH = 3, &
                               DM_ERR_MPI = 4, DM_ERR_MEMORY = 5, DM_ERR_STATE = 6, &
                               DM_ERR_UNSUPPORTED = 7, DM_ERR_INTERNAL = 8
  integer(c_int), parameter :: DM_INT32 = 0, DM_INT64 = 1, DM_FLOAT32 = 2, DM_FLOAT64 = 3, &
                               DM_COMPLEX64 = 4, DM_COMPLEX128 = 5, DM_BOOL = 6
  integer(c_int), parameter :: DM_MAX_DIMS = 7

  ! ---- layout.h -----------------------------------------------------------
  integer(c_int), parameter :: DM_ORDER_SEND = 0, DM_ORDER_NEWS = 1, DM_ORDER_SHUFFLE = 2
  integer(c_int), parameter :: DM_DIST_BLOCK = 0, DM_DIST_CYCLIC = 1, DM_DIST_BLOCK_CYCLIC = 2, &
                               DM_DIST_SIZES = 3

  ! An axis distribution: dm_dist(DM_DIST_BLOCK_CYCLIC, block, src); block and
  ! src are read only for DM_DIST_BLOCK_CYCLIC. Irregular blocks:
  ! dm_dist(DM_DIST_SIZES, count=n, sizes=c_loc(sizes)) with integer(c_int64_t),
  ! target :: sizes(n), one per grid coordinate; borrowed until the call that
  ! takes the distribution returns (arrays copy them).
  type, bind(C) :: dm_dist
    integer(c_int) :: kind = DM_DIST_BLOCK
    integer(c_int64_t) :: block = 0
    integer(c_int) :: src = 0
    integer(c_int) :: count = 0
    type(c_ptr) :: sizes = c_null_ptr
  end type dm_dist

  ! ---- array.h ------------------------------------------------------------
  integer(c_int), parameter :: DM_ALL_RANKS = -1

  ! ---- shift.h ------------------------------------------------------------
  integer(c_int), parameter :: DM_CSHIFT = 0, DM_EOSHIFT = 1
  integer(c_int), parameter :: DM_BOUNDARY_ZERO = 0, DM_BOUNDARY_ONE = 1, DM_BOUNDARY_SCALAR = 2, &
                               DM_BOUNDARY_ARRAY = 3

  ! One shift of a polyshift: dm_shift_spec(DM_CSHIFT, axis, shift, DM_BOUNDARY_ZERO).
  type, bind(C) :: dm_shift_spec
    integer(c_int) :: kind = DM_CSHIFT
    integer(c_int) :: axis = 0
    integer(c_int64_t) :: shift = 0
    integer(c_int) :: boundary = DM_BOUNDARY_ZERO
  end type dm_shift_spec

  ! ---- redist.h -----------------------------------------------------------
  integer(c_int), parameter :: DM_REDIST_AUTO = 0, DM_REDIST_ALLTOALLW = 1, DM_REDIST_NONBLOCKING = 2, &
                               DM_REDIST_SENDRECV = 3, DM_REDIST_SIMPLE = 4, DM_REDIST_RANDOM = 5, &
                               DM_REDIST_PER_AXIS = 6

  interface
    ! ---- core.h -----------------------------------------------------------
    function dm_last_error_message_c() bind(C, name="dm_last_error_message") result(message)
      import :: c_ptr
      type(c_ptr) :: message
    end function
    function dm_status_name_c(status) bind(C, name="dm_status_name") result(name)
      import :: c_ptr, c_int
      integer(c_int), value :: status
      type(c_ptr) :: name
    end function
    function dm_wtime() bind(C, name="dm_wtime") result(seconds)
      import :: c_double
      real(c_double) :: seconds
    end function

    ! ---- layout.h ---------------------------------------------------------
    function dm_grid_create(comm, ndims, dims, periods, order, grid) bind(C, name="dmf_grid_create") result(status)
      import :: c_int, c_ptr
      integer(c_int), value :: comm, ndims, order
      integer(c_int), intent(in), optional :: dims(*), periods(*)
      type(c_ptr), intent(inout) :: grid
      integer(c_int) :: status
    end function
    function dm_grid_free(grid) bind(C, name="dm_grid_free") result(status)
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: grid
      integer(c_int) :: status
    end function
    function dm_grid_ndims(grid, ndims) bind(C, name="dm_grid_ndims") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: grid
      integer(c_int), intent(out) :: ndims
      integer(c_int) :: status
    end function
    function dm_grid_dims(grid, dims) bind(C, name="dm_grid_dims") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: grid
      integer(c_int), intent(out) :: dims(*)
      integer(c_int) :: status
    end function
    function dm_grid_coords(grid, coords) bind(C, name="dm_grid_coords") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: grid
      integer(c_int), intent(out) :: coords(*)
      integer(c_int) :: status
    end function
    function dm_grid_rank(grid, rank) bind(C, name="dm_grid_rank") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: grid
      integer(c_int), intent(out) :: rank
      integer(c_int) :: status
    end function
    function dm_numroc(n, block, coord, src, nprocs) bind(C, name="dm_numroc") result(count)
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: n, block
      integer(c_int), value :: coord, src, nprocs
      integer(c_int64_t) :: count
    end function
    function dm_dist_to_local(dist, n, nprocs, g, coord, local) bind(C, name="dm_dist_to_local") result(status)
      import :: c_int, c_int64_t, dm_dist
      type(dm_dist), value :: dist
      integer(c_int64_t), value :: n, g
      integer(c_int), value :: nprocs
      integer(c_int), intent(out) :: coord
      integer(c_int64_t), intent(out) :: local
      integer(c_int) :: status
    end function
    function dm_dist_to_global(dist, n, nprocs, coord, local, g) bind(C, name="dm_dist_to_global") result(status)
      import :: c_int, c_int64_t, dm_dist
      type(dm_dist), value :: dist
      integer(c_int64_t), value :: n, local
      integer(c_int), value :: nprocs, coord
      integer(c_int64_t), intent(out) :: g
      integer(c_int) :: status
    end function
    function dm_descinit(desc, m, n, mb, nb, rsrc, csrc, ctxt, nprow, npcol, myrow, lld) &
        bind(C, name="dm_descinit") result(status)
      import :: c_int
      integer(c_int), intent(out) :: desc(9)
      integer(c_int), value :: m, n, mb, nb, rsrc, csrc, ctxt, nprow, npcol, myrow, lld
      integer(c_int) :: status
    end function

    ! ---- array.h ----------------------------------------------------------
    function dm_array_create(grid, dtype, ndims, shape, dists, ghost, array) bind(C, name="dm_array_create") &
        result(status)
      import :: c_int, c_int64_t, c_ptr, dm_dist
      type(c_ptr), value :: grid
      integer(c_int), value :: dtype, ndims
      integer(c_int64_t), intent(in) :: shape(*)
      type(dm_dist), intent(in), optional :: dists(*)
      integer(c_int), intent(in), optional :: ghost(*)
      type(c_ptr), intent(inout) :: array
      integer(c_int) :: status
    end function
    function dm_array_create_empty(grid, dtype, ndims, shape, dists, ghost, array) &
        bind(C, name="dm_array_create_empty") result(status)
      import :: c_int, c_int64_t, c_ptr, dm_dist
      type(c_ptr), value :: grid
      integer(c_int), value :: dtype, ndims
      integer(c_int64_t), intent(in) :: shape(*)
      type(dm_dist), intent(in), optional :: dists(*)
      integer(c_int), intent(in), optional :: ghost(*)
      type(c_ptr), intent(inout) :: array
      integer(c_int) :: status
    end function
    function dm_array_free(array) bind(C, name="dm_array_free") result(status)
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: array
      integer(c_int) :: status
    end function
    ! `global`: the whole array, contiguous (a Fortran array of the reversed shape).
    function dm_array_scatter(array, global, root) bind(C, name="dm_array_scatter") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: array
      type(*), intent(in), optional :: global(*)
      integer(c_int), value :: root
      integer(c_int) :: status
    end function
    function dm_array_gather(array, global, root) bind(C, name="dm_array_gather") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: array
      type(*), intent(inout), optional :: global(*)
      integer(c_int), value :: root
      integer(c_int) :: status
    end function
    ! The owned elements (borrowed): map them with c_f_pointer; strides are in bytes.
    function dm_array_local(array, data, extents, strides) bind(C, name="dm_array_local") result(status)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: array
      type(c_ptr), intent(out) :: data
      integer(c_int64_t), intent(out), optional :: extents(*), strides(*)
      integer(c_int) :: status
    end function
    ! The whole local storage, ghosts included (borrowed), and its extents.
    function dm_array_storage(array, data, extents) bind(C, name="dm_array_storage") result(status)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: array
      type(c_ptr), intent(out) :: data
      integer(c_int64_t), intent(out), optional :: extents(*)
      integer(c_int) :: status
    end function

    ! ---- shift.h: halo ----------------------------------------------------
    function dm_halo_setup(prototype, corners, plan) bind(C, name="dm_halo_setup") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: prototype
      integer(c_int), value :: corners
      type(c_ptr), intent(inout) :: plan
      integer(c_int) :: status
    end function
    function dm_halo_exchange(plan, array) bind(C, name="dm_halo_exchange") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: plan, array
      integer(c_int) :: status
    end function
    function dm_halo_begin(plan, array) bind(C, name="dm_halo_begin") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: plan, array
      integer(c_int) :: status
    end function
    function dm_halo_end(plan) bind(C, name="dm_halo_end") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: plan
      integer(c_int) :: status
    end function
    function dm_halo_test(plan, done) bind(C, name="dm_halo_test") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: plan
      integer(c_int), intent(out) :: done
      integer(c_int) :: status
    end function
    function dm_halo_free(plan) bind(C, name="dm_halo_free") result(status)
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: plan
      integer(c_int) :: status
    end function

    ! ---- shift.h: PSHIFT --------------------------------------------------
    function dm_pshift_setup(prototype, nshifts, specs, plan) bind(C, name="dm_pshift_setup") result(status)
      import :: c_int, c_ptr, dm_shift_spec
      type(c_ptr), value :: prototype
      integer(c_int), value :: nshifts
      type(dm_shift_spec), intent(in) :: specs(*)
      type(c_ptr), intent(inout) :: plan
      integer(c_int) :: status
    end function
    ! boundaries(k): c_loc of the boundary of shift k (c_null_ptr if it needs none).
    function dm_pshift_execute(plan, dsts, srcs, boundaries) bind(C, name="dm_pshift_execute") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: plan
      type(c_ptr), intent(in) :: dsts(*), srcs(*)
      type(c_ptr), intent(in), optional :: boundaries(*)
      integer(c_int) :: status
    end function
    function dm_pshift_free(plan) bind(C, name="dm_pshift_free") result(status)
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: plan
      integer(c_int) :: status
    end function

    ! ---- redist.h ---------------------------------------------------------
    function dm_redist_setup(src, dst, method, plan) bind(C, name="dm_redist_setup") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: src, dst
      integer(c_int), value :: method
      type(c_ptr), intent(inout) :: plan
      integer(c_int) :: status
    end function
    function dm_redist_execute(plan, src, dst) bind(C, name="dm_redist_execute") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: plan, src, dst
      integer(c_int) :: status
    end function
    function dm_redist_free(plan) bind(C, name="dm_redist_free") result(status)
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: plan
      integer(c_int) :: status
    end function
    function dm_redist_context(nprow, npcol, ranks, ctxt) bind(C, name="dm_redist_context") result(status)
      import :: c_int
      integer(c_int), value :: nprow, npcol
      integer(c_int), intent(in), optional :: ranks(*)
      integer(c_int), intent(out) :: ctxt
      integer(c_int) :: status
    end function
    function dm_redist_context_coords(ctxt, rank, nprow, npcol, myrow, mycol) &
        bind(C, name="dm_redist_context_coords") result(status)
      import :: c_int
      integer(c_int), value :: ctxt, rank
      integer(c_int), intent(out) :: nprow, npcol, myrow, mycol
      integer(c_int) :: status
    end function
    ! B(ib:ib+m-1, jb:jb+n-1) = A(ia:ia+m-1, ja:ja+n-1); a rank outside a
    ! matrix's grid leaves that matrix out (its descriptor's CTXT is -1).
    function dm_redist_pgemr2d(m, n, a, ia, ja, desca, b, ib, jb, descb, comm) &
        bind(C, name="dmf_redist_pgemr2d") result(status)
      import :: c_int, c_double
      integer(c_int), value :: m, n, ia, ja, ib, jb, comm
      real(c_double), intent(in), optional :: a(*)
      real(c_double), intent(inout), optional :: b(*)
      integer(c_int), intent(in) :: desca(9), descb(9)
      integer(c_int) :: status
    end function
    ! As dm_redist_pgemr2d for elements of any dm_dtype.
    function dm_redist_gemr2d(dtype, m, n, a, ia, ja, desca, b, ib, jb, descb, comm) &
        bind(C, name="dmf_redist_gemr2d") result(status)
      import :: c_int
      integer(c_int), value :: dtype, m, n, ia, ja, ib, jb, comm
      type(*), intent(in), optional :: a(*)
      type(*), intent(inout), optional :: b(*)
      integer(c_int), intent(in) :: desca(9), descb(9)
      integer(c_int) :: status
    end function

    ! ---- MPI for programs without MPI's Fortran bindings --------------------
    ! Status: MPI's return code (0 is MPI_SUCCESS).
    function dm_mpi_init() bind(C, name="dmf_mpi_init") result(status)
      import :: c_int
      integer(c_int) :: status
    end function
    function dm_mpi_finalize() bind(C, name="dmf_mpi_finalize") result(status)
      import :: c_int
      integer(c_int) :: status
    end function
    ! MPI_COMM_WORLD as a Fortran handle.
    function dm_comm_world() bind(C, name="dmf_comm_world") result(comm)
      import :: c_int
      integer(c_int) :: comm
    end function
    function dm_comm_rank(comm, rank) bind(C, name="dmf_comm_rank") result(status)
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(out) :: rank
      integer(c_int) :: status
    end function
    function dm_comm_size(comm, size) bind(C, name="dmf_comm_size") result(status)
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(out) :: size
      integer(c_int) :: status
    end function
    ! Collective on comm: all = 1 where flag is nonzero on every rank, else 0.
    function dm_mpi_all(comm, flag, all) bind(C, name="dmf_all") result(status)
      import :: c_int
      integer(c_int), value :: comm, flag
      integer(c_int), intent(out) :: all
      integer(c_int) :: status
    end function
  end interface

contains

  ! Local. Message of the last failed datamotion call on this thread.
  function dm_last_error_message() result(message)
    character(:), allocatable :: message
    message = c_string(dm_last_error_message_c())
  end function

  ! Local. Symbolic name of a status code, e.g. "DM_ERR_ARG".
  function dm_status_name(status) result(name)
    integer(c_int), intent(in) :: status
    character(:), allocatable :: name
    name = c_string(dm_status_name_c(status))
  end function

  ! A copy of the NUL-terminated C string at p.
  function c_string(p) result(text)
    type(c_ptr), intent(in) :: p
    character(:), allocatable :: text
    interface
      function strlen(s) bind(C, name="strlen") result(n)
        import :: c_ptr, c_size_t
        type(c_ptr), value :: s
        integer(c_size_t) :: n
      end function
    end interface
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(p)) then
      text = ""
      return
    end if
    n = int(strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate(character(n) :: text)
    do i = 1, n
      text(i:i) = chars(i)
    end do
  end function
end module datamotion
