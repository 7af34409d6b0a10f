"""Exit codes and the one exception type of the command line."""

from __future__ import annotations

PROG = "jaxmatch"

EXIT_OK = 0
#: An infeasible problem, a failed solve or certificate, an unwritable output.
EXIT_FAILED = 1
#: A usage or input error (argparse uses 2 as well).
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class CLIError(Exception):
    """A user-facing failure: printed as one line, exits with ``exit_code``."""

    def __init__(self, message: str, exit_code: int = EXIT_USAGE) -> None:
        """Initializes the error.

        Args:
          message: the line printed after ``jaxmatch: error:``.
          exit_code: the process exit status.
        """
        super().__init__(message)
        self.exit_code = exit_code
