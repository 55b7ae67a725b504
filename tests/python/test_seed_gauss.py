"""The CM-5 paper's Figure 16 program in ``datamotion bench gauss``: on any rank count,
ranks owning no rows included, its elimination leaves the rows upper triangular in
pivot order, and back substitution gives NumPy's solution."""

import numpy as np
import pytest

from datamotion.measure.suites import gauss
from dmtest import WORLD, check_all


@pytest.mark.parallel(nprocs=[1, 2, 3, 4])
@pytest.mark.parametrize("n", [1, 3, 8, 17])
def test_figure_16_elimination_solves_the_system(n):
    block = -(-n // WORLD.size)
    first, last = min(WORLD.rank * block, n), min((WORLD.rank + 1) * block, n)
    a = gauss._matrix(n, first, last)
    gauss.eliminate(WORLD, a, first, n)
    rows = np.concatenate(WORLD.allgather(a)).reshape(n, n + 1)
    full = gauss._matrix(n, 0, n)
    ok = np.allclose(np.tril(rows[:, :n], -1), 0.0)  # pivots come in order 0, 1, ...: upper triangular
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = (rows[i, n] - rows[i, i + 1:n] @ x[i + 1:]) / rows[i, i]
    ok = ok and np.allclose(x, np.linalg.solve(full[:, :n], full[:, n]))
    check_all(WORLD, ok, f"n={n}: elimination gave rows {rows[:3, :4]}")
