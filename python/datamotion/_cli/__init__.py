"""What the ``datamotion`` command runs (:mod:`datamotion.cli` reads the command line
and reports what went wrong): one module per command, the parser, and what the
commands share (``common``: their errors, exit statuses and output on rank 0).

Nothing here loads MPI at import; a command starts it when it runs.
"""
