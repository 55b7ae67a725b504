"""The exception every datamotion call raises."""

__all__ = ["Error"]

# The C status codes (include/datamotion/core.h), by name.
DM_ERR_ARG = 1
DM_ERR_TYPE = 2
DM_ERR_MISMATCH = 3
DM_ERR_MPI = 4
DM_ERR_MEMORY = 5
DM_ERR_STATE = 6
DM_ERR_UNSUPPORTED = 7
DM_ERR_INTERNAL = 8

_STATUS_NAMES = {code: name for name, code in globals().items() if name.startswith("DM_ERR_")}


class Error(RuntimeError):
    """A datamotion call failed.

    Collective calls raise it on every rank of the call with the same ``code``
    and message, so no rank is left waiting. ``str(e)`` is the message and its
    status, ``"global shape differs across ranks [DM_ERR_MISMATCH]"``, as the C
    library's one-line errors end.

    Attributes:
        code: the C status code (``DM_ERR_*``).
        status: its symbolic name, e.g. ``"DM_ERR_ARG"``.
        message: the message alone.
    """

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code
        self.status = _STATUS_NAMES.get(code, "DM_ERR_UNKNOWN")
        self.message = message

    def __str__(self) -> str:
        return f"{self.message} [{self.status}]"

    def __repr__(self) -> str:
        return f"datamotion.Error({self.status}, {self.message!r})"

    def __reduce__(self):
        return (type(self), (self.code, self.message))


Error.__module__ = "datamotion"  # tracebacks and pickles name it as users import it
