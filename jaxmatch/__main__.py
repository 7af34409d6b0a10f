"""``python -m jaxmatch``: the command line (:mod:`jaxmatch.cli`)."""

from jaxmatch.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
