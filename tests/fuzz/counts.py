"""Adds up the fuzz case counts that the processes of a run wrote to
``JAXMATCH_FUZZ_COUNTS_DIR``: ``python tests/fuzz/counts.py DIR``."""

from __future__ import annotations

import collections
import json
import pathlib
import sys


def main(folder: str) -> None:
    total: collections.Counter[str] = collections.Counter()
    for path in sorted(pathlib.Path(folder).glob("*.json")):
        total.update(json.loads(path.read_text()))
    for entry, count in sorted(total.items()):
        print(f"fuzz cases: {entry}: {count}")
    print(f"fuzz cases in all: {sum(total.values())}")


if __name__ == "__main__":
    main(sys.argv[1])
