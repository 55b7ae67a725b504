"""The test harness itself (tests/conftest.py): a launch reports once, from rank 0,
and a failure on another rank is in that report and fails the launch."""

import os
import textwrap

import pytest
from dmtest import run_job

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parallel(nprocs=[1])
def test_one_report_from_rank_zero_naming_other_ranks_failures(tmp_path):
    (tmp_path / "test_inner.py").write_text(textwrap.dedent("""
        import pytest
        from mpi4py import MPI

        @pytest.mark.parallel(nprocs=[2])
        def test_fails_on_rank_one():
            assert MPI.COMM_WORLD.rank != 1, "rank one says no"

        @pytest.mark.parallel(nprocs=[2])
        def test_passes():
            pass
    """))
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {TESTS!r})
        import pytest
        sys.exit(pytest.main([{str(tmp_path / "test_inner.py")!r}, "-q", "-p", "conftest", "-p", "no:cacheprovider",
                              "-m", "parallel[2]"]))
    """)
    done = run_job(script, 2, tmp_path)
    assert done.returncode != 0, done.stdout
    assert done.stdout.count("1 failed, 1 passed") == 1, done.stdout  # one summary: rank 0's
    assert "failed on rank(s) [1] of 2" in done.stdout and "rank one says no" in done.stdout, done.stdout
