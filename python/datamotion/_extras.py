"""Optional dependencies: the extras of `pip install datamotion[...]` that a feature needs."""

__all__ = ["MissingExtra"]


class MissingExtra(ImportError):
    """An optional dependency a feature needs is not installed; the message names the
    extra that installs it, in one line."""

    def __init__(self, package: str, extra: str, feature: str):
        super().__init__(f"{feature} needs {package}, which is not installed: pip install 'datamotion[{extra}]'")
        self.name = package
        self.extra = extra
