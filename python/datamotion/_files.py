"""Result files written whole or not at all.

Every result, model, report and prediction file goes to a temporary file in the
same folder, is flushed to disk, and is renamed over the target: a write that fails
part-way (a full disk, an interrupt) leaves the previous file as it was. Output
paths are checked before any measuring starts, by creating and removing a probe
file where the output will go, so that a mistyped or unwritable path fails at once
instead of after minutes of measurements.
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


def _nearest_existing(path: str) -> str:
    """``path`` (absolute) or its nearest ancestor that exists."""
    existing = os.path.abspath(path)
    while not os.path.lexists(existing):
        existing = os.path.dirname(existing)
    return existing


def _cannot_create_in(folder: str) -> str:
    """Why no file can be created in the existing ``folder``, or "" when one can: a
    probe file is created and removed. Permission bits alone do not tell (root writes
    through them; a read-only or virtual file system refuses what they allow)."""
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".datamotion-probe-")
    except OSError as exc:
        return f"cannot create a file in {folder} ({exc.strerror or exc})"
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(probe)
    return ""


def require_writable_file(path: str) -> None:
    """Raises OSError, in one line naming ``path``, unless a file can be created in its
    folder (tried: a probe file is created and removed) and ``path`` is not a folder."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        existing = _nearest_existing(folder)
        if not os.path.isdir(existing):
            raise OSError(f"cannot write {path}: {existing} is a file, not a folder")
        raise OSError(f"cannot write {path}: folder {folder} does not exist")
    if os.path.isdir(path):
        raise OSError(f"cannot write {path}: it is a folder")
    why = _cannot_create_in(folder)
    if why:
        raise OSError(f"cannot write {path}: {why}")


def require_writable_folder(folder: str) -> None:
    """Raises OSError, in one line naming ``folder``, unless files can be created in it
    or, where it does not exist yet, in its nearest existing ancestor (which will hold
    it); tried with a probe file, as above."""
    existing = _nearest_existing(folder)
    if not os.path.isdir(existing):
        raise OSError(f"cannot write into {folder}: {existing} is a file, not a folder")
    why = _cannot_create_in(existing)
    if why:
        raise OSError(f"cannot write into {folder}: {why}")
