"""Result files written whole or not at all.

Every result, model, report and prediction file goes to a temporary file in the
same folder, is flushed to disk, and is renamed over the target: a write that fails
part-way (a full disk, an interrupt) leaves the previous file as it was. Output
folders are checked before any measuring starts, so that a mistyped path fails at
once instead of after minutes of measurements.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from typing import IO, Iterator


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_write(path: str, mode: str = "w", **open_args) -> Iterator[IO]:
    """Opens a temporary file next to ``path``; on a clean exit it replaces ``path``."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".partial")
    try:
        os.chmod(temporary, 0o666 & ~_umask())  # as a plain open() would create it
        with os.fdopen(fd, mode, **open_args) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def require_writable_file(path: str) -> None:
    """Raises OSError naming ``path`` unless its folder exists and can be written."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise OSError(f"cannot write {path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OSError(f"cannot write {path}: folder {folder} is not writable")
    if os.path.isdir(path):
        raise OSError(f"cannot write {path}: it is a folder")


def require_writable_folder(folder: str) -> None:
    """Raises OSError unless ``folder`` exists and can be written, or can be created."""
    existing = os.path.abspath(folder)
    while not os.path.exists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        raise OSError(f"cannot write into {folder}: {existing} is a file")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise OSError(f"cannot write into {folder}: {existing} is not writable")
