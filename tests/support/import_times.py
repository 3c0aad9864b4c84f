"""What a process run with `python -X importtime` (or PYTHONPROFILEIMPORTTIME=1) imported."""


def imported(stderr: str) -> set[str]:
    """The modules the process imported, read from its stderr."""
    return {line.rsplit("|", 1)[1].strip() for line in stderr.splitlines() if line.startswith("import time:")}


def said(stderr: str) -> list[str]:
    """Its stderr without the import-time lines."""
    return [line for line in stderr.splitlines() if not line.startswith("import time:")]
