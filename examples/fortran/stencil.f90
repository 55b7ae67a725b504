! A Fortran program on datamotion: a periodic 2-d heat equation on a
! distributed array with one halo exchange per step, checked against the same
! steps on the whole array; two PSHIFT shifts checked against Fortran's CSHIFT
! and EOSHIFT; and a ScaLAPACK-style submatrix copy (dm_redist_pgemr2d) between
! two block-cyclic layouts on grids of different shapes, checked element by
! element. Prints "ok" on rank 0; exits non-zero on any mismatch or error.
!
!   mpiexec -n 4 ./fortran_stencil
!   (with the mpiexec of the MPI datamotion was built with: .venv/bin/mpiexec after ./dev install)
program stencil
  use, intrinsic :: iso_c_binding
  use datamotion
  implicit none
  integer(c_int) :: comm, rank, nprocs, all_ok
  logical :: ok

  call check(dm_mpi_init(), "MPI_Init")
  comm = dm_comm_world()
  call check(dm_comm_rank(comm, rank), "MPI_Comm_rank")
  call check(dm_comm_size(comm, nprocs), "MPI_Comm_size")

  ok = heat_and_shifts(comm)
  ok = submatrix_copy(comm, rank, nprocs) .and. ok

  ! A rank's own checks may fail alone: agree before deciding.
  call check(dm_mpi_all(comm, merge(1, 0, ok), all_ok), "MPI_Allreduce")
  if (rank == 0 .and. all_ok == 1) print '(a)', "ok"
  call check(dm_mpi_finalize(), "MPI_Finalize")
  if (all_ok /= 1) error stop 1

contains

  ! Stops the program when a call fails. datamotion's collective calls fail on
  ! every rank alike, so every rank stops here together.
  subroutine check(status, what)
    integer(c_int), intent(in) :: status
    character(*), intent(in) :: what
    if (status /= 0) then
      print '(a, ": status ", i0, ": ", a)', what, status, dm_last_error_message()
      error stop 2
    end if
  end subroutine

  logical function heat_and_shifts(comm) result(ok)
    integer(c_int), intent(in) :: comm
    integer, parameter :: nx = 24, ny = 18, steps = 10
    real(c_double), parameter :: alpha = 0.1d0
    ! Fortran u(nx, ny) is the C array of shape [ny, nx]: C axis 1 is Fortran's dimension 1.
    integer(c_int64_t), parameter :: shape(2) = [int(ny, c_int64_t), int(nx, c_int64_t)]
    real(c_double) :: initial(nx, ny), expected(nx, ny), current(nx, ny), got(nx, ny)
    real(c_double), pointer :: storage(:)
    type(c_ptr) :: grid, field, rolled, ended, halo, pshift, data
    type(dm_shift_spec) :: specs(2)
    integer(c_int64_t) :: extents(2)
    integer :: i, j, step, nxl, nyl

    grid = c_null_ptr; field = c_null_ptr; rolled = c_null_ptr; ended = c_null_ptr
    halo = c_null_ptr; pshift = c_null_ptr
    do j = 1, ny
      do i = 1, nx
        initial(i, j) = real(mod(7 * i + 13 * j, 17), c_double)
      end do
    end do

    ! Both axes distributed (grid extents as MPI_Dims_create chooses) and periodic.
    call check(dm_grid_create(comm, 2, [0, 0], [1, 1], DM_ORDER_SEND, grid), "dm_grid_create")
    call check(dm_array_create(grid, DM_FLOAT64, 2, shape, ghost=[1, 1], array=field), "dm_array_create")
    call check(dm_array_scatter(field, initial, DM_ALL_RANKS), "dm_array_scatter")
    call check(dm_halo_setup(field, 0, halo), "dm_halo_setup")

    ! This rank's storage, ghosts included: (nxl + 2) x (nyl + 2) elements.
    call check(dm_array_storage(field, data, extents), "dm_array_storage")
    nyl = int(extents(1)) - 2
    nxl = int(extents(2)) - 2
    if (nxl > 0 .and. nyl > 0) call c_f_pointer(data, storage, [extents(1) * extents(2)])

    expected = initial
    do step = 1, steps
      call check(dm_halo_exchange(halo, field), "dm_halo_exchange")
      if (nxl > 0 .and. nyl > 0) call heat_step(nxl, nyl, alpha, storage)
      expected = expected + alpha * (cshift(expected, -1, 1) + cshift(expected, 1, 1) &
                                   + cshift(expected, -1, 2) + cshift(expected, 1, 2) - 4 * expected)
    end do
    call check(dm_array_gather(field, current, DM_ALL_RANKS), "dm_array_gather")
    ok = all(abs(current - expected) <= 1d-12 * maxval(abs(expected)))
    if (.not. ok) print '(a, es10.3)', "heat: largest difference from the serial steps ", &
                        maxval(abs(current - expected))

    ! PSHIFT: shifts have Fortran's semantics; C axis 1 is Fortran dimension 1, C axis 0 dimension 2.
    specs(1) = dm_shift_spec(DM_CSHIFT, 1, 3_c_int64_t, DM_BOUNDARY_ZERO)
    specs(2) = dm_shift_spec(DM_EOSHIFT, 0, -2_c_int64_t, DM_BOUNDARY_ZERO)
    call check(dm_array_create_empty(grid, DM_FLOAT64, 2, shape, ghost=[1, 1], array=rolled), "dm_array_create_empty")
    call check(dm_array_create_empty(grid, DM_FLOAT64, 2, shape, ghost=[1, 1], array=ended), "dm_array_create_empty")
    call check(dm_pshift_setup(field, 2, specs, pshift), "dm_pshift_setup")
    call check(dm_pshift_execute(pshift, [rolled, ended], [field, field]), "dm_pshift_execute")
    call check(dm_array_gather(rolled, got, DM_ALL_RANKS), "dm_array_gather")
    if (any(got /= cshift(current, 3, 1))) then
      ok = .false.
      print '(a)', "pshift: CSHIFT differs from Fortran's"
    end if
    call check(dm_array_gather(ended, got, DM_ALL_RANKS), "dm_array_gather")
    if (any(got /= eoshift(current, -2, 0d0, 2))) then
      ok = .false.
      print '(a)', "pshift: EOSHIFT differs from Fortran's"
    end if

    call check(dm_pshift_free(pshift), "dm_pshift_free")
    call check(dm_halo_free(halo), "dm_halo_free")
    call check(dm_array_free(ended), "dm_array_free")
    call check(dm_array_free(rolled), "dm_array_free")
    call check(dm_array_free(field), "dm_array_free")
    call check(dm_grid_free(grid), "dm_grid_free")
  end function

  ! One explicit step on this rank's interior; the ghosts hold the neighbours' edges.
  subroutine heat_step(nxl, nyl, alpha, u)
    integer, intent(in) :: nxl, nyl
    real(c_double), intent(in) :: alpha
    real(c_double), intent(inout) :: u(0:nxl + 1, 0:nyl + 1)
    u(1:nxl, 1:nyl) = u(1:nxl, 1:nyl) + alpha * (u(0:nxl - 1, 1:nyl) + u(2:nxl + 1, 1:nyl) &
                                               + u(1:nxl, 0:nyl - 1) + u(1:nxl, 2:nyl + 1) - 4 * u(1:nxl, 1:nyl))
  end subroutine

  ! Oracle: the value of global element (i, j) of A (1-based).
  pure real(c_double) function element(i, j)
    integer, intent(in) :: i, j
    element = real(1000 * i + j, c_double)
  end function

  ! Global 1-based index of local 1-based index l on coordinate coord of nprocs,
  ! for blocks of `block` dealt from coordinate 0 along an axis of n.
  integer function global_index(n, block, nprocs, coord, l)
    integer, intent(in) :: n, block, nprocs, coord, l
    integer(c_int64_t) :: g
    call check(dm_dist_to_global(dm_dist(DM_DIST_BLOCK_CYCLIC, block, 0), int(n, c_int64_t), nprocs, coord, &
                                 int(l - 1, c_int64_t), g), "dm_dist_to_global")
    global_index = int(g) + 1
  end function

  ! B(ib:ib+m-1, jb:jb+n-1) = A(ia:ia+m-1, ja:ja+n-1) with A in 2 x 3 blocks on a
  ! pr x pc grid and B in 4 x 2 blocks on a P x 1 grid; the rest of B keeps -1.
  logical function submatrix_copy(comm, rank, nprocs) result(ok)
    integer(c_int), intent(in) :: comm, rank, nprocs
    integer, parameter :: mg = 13, ng = 11, ia = 2, ja = 3, ib = 3, jb = 2, m = 10, n = 7
    integer, parameter :: mba = 2, nba = 3, mbb = 4, nbb = 2
    real(c_double), allocatable :: a(:, :), b(:, :)
    integer(c_int) :: ctxa, ctxb, desca(9), descb(9), pr, pc, myr, myc, rows, cols
    integer :: pa, li, lj, gi, gj
    real(c_double) :: want

    ! The squarest pr x pc grid: pr the largest divisor of P not above sqrt(P).
    pa = 1
    do li = 1, nprocs
      if (li * li > nprocs) exit
      if (mod(nprocs, li) == 0) pa = li
    end do
    call check(dm_redist_context(pa, nprocs / pa, ctxt=ctxa), "dm_redist_context")
    call check(dm_redist_context(nprocs, 1, ctxt=ctxb), "dm_redist_context")

    call check(dm_redist_context_coords(ctxa, rank, pr, pc, myr, myc), "dm_redist_context_coords")
    rows = int(dm_numroc(int(mg, c_int64_t), int(mba, c_int64_t), myr, 0, pr))
    cols = int(dm_numroc(int(ng, c_int64_t), int(nba, c_int64_t), myc, 0, pc))
    allocate(a(max(1, rows), max(1, cols)))
    call check(dm_descinit(desca, mg, ng, mba, nba, 0, 0, ctxa, pr, pc, myr, max(1, rows)), "dm_descinit")
    do lj = 1, cols
      gj = global_index(ng, nba, pc, myc, lj)
      do li = 1, rows
        a(li, lj) = element(global_index(mg, mba, pr, myr, li), gj)
      end do
    end do

    call check(dm_redist_context_coords(ctxb, rank, pr, pc, myr, myc), "dm_redist_context_coords")
    rows = int(dm_numroc(int(mg, c_int64_t), int(mbb, c_int64_t), myr, 0, pr))
    cols = int(dm_numroc(int(ng, c_int64_t), int(nbb, c_int64_t), myc, 0, pc))
    allocate(b(max(1, rows), max(1, cols)))
    b = -1
    call check(dm_descinit(descb, mg, ng, mbb, nbb, 0, 0, ctxb, pr, pc, myr, max(1, rows)), "dm_descinit")

    call check(dm_redist_pgemr2d(m, n, a, ia, ja, desca, b, ib, jb, descb, comm), "dm_redist_pgemr2d")

    ok = .true.
    do lj = 1, cols
      gj = global_index(ng, nbb, pc, myc, lj)
      do li = 1, rows
        gi = global_index(mg, mbb, pr, myr, li)
        want = -1
        if (gi >= ib .and. gi < ib + m .and. gj >= jb .and. gj < jb + n) want = element(gi - ib + ia, gj - jb + ja)
        if (b(li, lj) /= want) then
          if (ok) print '(a, i0, a, i0, a, i0, a, f8.0, a, f8.0)', "pgemr2d: rank ", rank, ": B(", gi, ", ", gj, &
                              ") = ", b(li, lj), ", expected ", want
          ok = .false.
        end if
      end do
    end do
  end function
end program stencil
