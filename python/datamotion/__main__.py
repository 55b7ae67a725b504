"""``python -m datamotion`` is the ``datamotion`` command."""

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
