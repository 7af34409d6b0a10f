"""The harness's own check: a toy family whose solvers sleep, answer wrongly,
crash, hang or warm up too slowly, run through the real harness (worker
processes, limits, checks, JSON, report) in a few seconds.

    python -m benchmarks selftest
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import ClassVar

from benchmarks import family, harness, report

#: label -> what its call does (see ``ToyPeer.call``).
BEHAVIOUR = {
    "sleep": "answers right after 10 ms",
    "wrong": "answers wrong",
    "crash": "kills its own process",
    "hang": "never returns from its first timed call",
    "slow-warm-up": "takes 2 s on its first call",
}


class ToyPeer(family.Peer):
    def __init__(self, group, opts):
        super().__init__(group, opts)
        self.calls = 0

    def setup(self):
        self.info = {"pid": os.getpid()}

    def load(self, data):
        self.value = data["value"]

    def call(self, label):
        def run():
            self.calls += 1
            if label == "crash":
                os._exit(3)
            if label == "hang" and self.calls > 1:  # after its warm-up
                time.sleep(10**6)
            if label == "slow-warm-up" and self.calls == 1:
                time.sleep(2.0)
            time.sleep(0.01)
            return self.value + (1 if label == "wrong" else 0)

        return run

    def answer(self, label, out, data):
        return {"value": out}


class SelftestFamily(family.Family):
    name = "selftest"
    solvers: ClassVar[dict[str, dict]] = {label: {"group": label} for label in BEHAVIOUR}

    def cases(self, opts):
        return [{"name": "tiny", "value": 1}, {"name": "small", "value": 2}]

    def peer(self, group, opts):
        return ToyPeer(group, opts)

    def prepare(self, case, opts):
        return {"reference": case["value"]}

    def load(self, case, prepared, opts):
        return {"value": case["value"]}

    def skip_reason(self, label, case, history, opts):
        if any(r.get("status") == "timeout" for _, r in history):
            return "timed out on an earlier case"
        return ""

    def check(self, case, prepared, results):
        for r in results:
            if "value" in r:
                ok = r["value"] == prepared["reference"]
                r["check"] = {"ok": ok, "note": "" if ok else f"{r['value']} != {case['value']}"}


FAMILY = SelftestFamily()


def expect(doc: dict) -> list[str]:
    """What went wrong, compared with each solver's known behaviour."""
    want = {
        ("tiny", "sleep"): "ok",
        ("small", "sleep"): "ok",
        ("tiny", "wrong"): "ok",
        ("tiny", "crash"): "error",
        ("small", "crash"): "error",
        ("tiny", "hang"): "timeout",
        ("small", "hang"): "skipped",
        ("tiny", "slow-warm-up"): "too-slow",
    }
    got = {(r["case"], r["solver"]): r for r in doc["results"]}
    bad = [
        f"{case}/{label}: status {got.get((case, label), {}).get('status')}, expected {status}"
        for (case, label), status in want.items()
        if got.get((case, label), {}).get("status") != status
    ]
    sleep = got.get(("tiny", "sleep"), {})
    if sleep.get("n_runs") != 3 or not (sleep.get("check") or {}).get("ok"):
        bad.append(f"tiny/sleep: {sleep.get('n_runs')} calls, check {sleep.get('check')}")
    if (got.get(("tiny", "wrong"), {}).get("check") or {}).get("ok") is not False:
        bad.append("tiny/wrong: the wrong answer passed the check")
    return bad


def main() -> int:
    t0 = time.time()
    opts = dict(
        repeats=3,
        budget=5.0,
        max_seconds_per_run=1.0,
        case_timeout=1.5,
        prep_timeout=10.0,
        prefetch=True,
        tag="selftest",
    )
    with tempfile.TemporaryDirectory() as td:
        out = Path(td) / "selftest.json"
        harness.run(FAMILY, opts, list(FAMILY.solvers), FAMILY.cases(opts), out)
        doc = json.loads(out.read_text())
    md = report.render([doc])
    print(md)
    bad = expect(doc)
    if "MISMATCH" not in md or "| tiny |" not in md:
        bad.append("the report lacks the MISMATCH cell or the tiny row")
    verdict = "FAILED:\n  " + "\n  ".join(bad) if bad else "passed"
    print(f"\nselftest {verdict} ({time.time() - t0:.1f} s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
