"""The host-compilable helpers of ``cuda_ffi/common/device.h`` that the
kernels hand out work with (``device_helpers_check.cc``)."""

from __future__ import annotations

from pathlib import Path

from host_emulation import run_host_emulation


def test_orders_and_hashes(tmp_path):
    """``ScrambledOrder`` is a bijection of [0, n) for every n up to 3000 and
    some large ones (2^20, 2^20 + 1, ...); ``hashed_position`` stays in range."""
    run_host_emulation(Path(__file__).with_name("device_helpers_check.cc"), tmp_path)
