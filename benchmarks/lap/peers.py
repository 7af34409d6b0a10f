"""LAP peer adapters: jaxmatch and the solvers it is compared with.

Each adapter runs in its group's worker process; ``call(label)`` returns a
zero-argument function that solves the loaded batch and waits for the
device, and ``answer`` turns its output into the objectives of the check.
"""

from __future__ import annotations

import numpy as np

from benchmarks.family import Peer, jaxmatch_info
from benchmarks.lap.cases import objectives

#: The tiny matrix CPU loops warm up on (nothing to compile).
_TINY = np.random.default_rng(0).random((1, 8, 8), dtype=np.float32)


class ScipyPeer(Peer):
    """``scipy.optimize.linear_sum_assignment``, a Python loop over the batch."""

    real_warmup = False

    def setup(self):
        import scipy
        from scipy.optimize import linear_sum_assignment

        self.lsa = linear_sum_assignment
        self.info = {"version": scipy.__version__}

    def tiny_warmup(self):
        self.load(_TINY)
        self.call("scipy")()

    def load(self, C):
        self.mats = [np.ascontiguousarray(c) for c in C]

    def call(self, label):
        return lambda: np.stack([self.lsa(c)[1] for c in self.mats])

    def answer(self, label, out, C):
        return objectives(C, out)


class LapjvPeer(ScipyPeer):
    """``lap.lapjv`` on float64 copies made before timing, a loop over the batch."""

    def setup(self):
        import lap

        self.lapjv = lap.lapjv
        self.info = {"version": getattr(lap, "__version__", "?")}

    def load(self, C):
        self.mats = [np.ascontiguousarray(c, dtype=np.float64) for c in C]

    def call(self, label):
        return lambda: np.stack(
            [self.lapjv(c, extend_cost=False, return_cost=False)[0] for c in self.mats]
        )


class TorchPeer(Peer):
    """Common part of the torch peers: a CUDA ``[B, n, n]`` tensor."""

    def setup(self):
        import torch

        if not torch.cuda.is_available():
            raise RuntimeError("torch sees no CUDA device")
        self.torch = torch
        self.info = {"torch": torch.__version__, "device": torch.cuda.get_device_name(0)}

    def load(self, C):
        self.x = self.torch.from_numpy(C).cuda()
        self.torch.cuda.synchronize()

    def call(self, label):
        def run():
            out = self.solve(self.x)
            self.torch.cuda.synchronize()
            return out

        return run

    def answer(self, label, out, C):
        return objectives(C, out.cpu().numpy())

    def unload(self):
        self.x = None
        self.torch.cuda.empty_cache()


class TorchLinearAssignmentPeer(TorchPeer):
    """``torch_linear_assignment.batch_linear_assignment`` (Triton); refused
    where it would fall back to scipy (compute capability below 8.0)."""

    def setup(self):
        super().setup()
        import torch_linear_assignment as tla
        from torch_linear_assignment import assignment

        probe = self.torch.rand(1, 4, 4, device="cuda")
        if not assignment._cuda_uses_triton(probe):
            raise RuntimeError("torch-linear-assignment would use its scipy fallback: not timed")
        self.solve = tla.batch_linear_assignment  # casts int costs to float32 itself
        self.info.update(version=getattr(tla, "__version__", "0.1.0"), backend="triton")


class TorchLapCudaPeer(TorchPeer):
    """``torch_lap_cuda.solve_lap`` (HyLAC, one block per problem)."""

    def setup(self):
        super().setup()
        import torch_lap_cuda

        self.solve = torch_lap_cuda.solve_lap
        self.info["version"] = getattr(torch_lap_cuda, "__version__", "?")


class JaxPeer(Peer):
    """Common part of the JAX peers: the batch put on JAX's default device."""

    def setup(self):
        import jax

        self.jax = jax
        backend = jax.default_backend()
        if not self.opts.get("cpu") and backend not in ("gpu", "cuda"):
            raise RuntimeError(f"JAX backend is {backend!r}, not a GPU (use --cpu)")
        self.info = {"jax": jax.__version__, "device": str(jax.devices()[0].device_kind)}
        self.fns: dict = {}

    def load(self, C):
        self.x = self.jax.device_put(C).block_until_ready()

    def call(self, label):
        if label not in self.fns:
            self.fns[label] = self.jax.jit(self.solver(label))
        f, x = self.fns[label], self.x
        return lambda: self.jax.block_until_ready(f(x))

    def unload(self):
        self.x = None


class OptaxPeer(JaxPeer):
    """``jax.jit(jax.vmap(optax.assignment.hungarian_algorithm))``."""

    def setup(self):
        super().setup()
        import optax

        self.optax = optax
        self.info["version"] = optax.__version__

    def solver(self, label):
        return self.jax.vmap(self.optax.assignment.hungarian_algorithm)

    def answer(self, label, out, C):
        i, j = (np.asarray(a) for a in out)
        cols = np.full(i.shape, -1, dtype=np.int64)
        np.put_along_axis(cols, i, j, axis=1)
        return objectives(C, cols)


class JaxmatchPeer(JaxPeer):
    """``jax.jit(lambda C: jaxmatch.solve_lap(C, method=M, execution=E))``."""

    def setup(self):
        super().setup()
        import jaxmatch

        self.jaxmatch = jaxmatch
        self.info.update(jaxmatch_info())

    def solver(self, label):
        _, method, execution = label.split("/")
        return lambda C: self.jaxmatch.solve_lap(C, method=method, execution=execution)

    def answer(self, label, out, C):
        res = objectives(C, np.asarray(out.col_for_row))
        res["all_feasible"] = bool(np.asarray(out.feasible).all())
        res["max_iterations"] = int(np.asarray(out.iterations).max())
        return res


PEERS = {
    "jaxmatch": JaxmatchPeer,
    "jaxmatch-cmdbuf": JaxmatchPeer,
    "scipy": ScipyPeer,
    "lap.lapjv": LapjvPeer,
    "torch-linear-assignment": TorchLinearAssignmentPeer,
    "torch-lap-cuda": TorchLapCudaPeer,
    "optax": OptaxPeer,
}
