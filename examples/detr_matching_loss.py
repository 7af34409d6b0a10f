"""A DETR-style set-prediction loss with the Hungarian matching inside ``jax.jit``.

DETR (Carion et al., *End-to-End Object Detection with Transformers*, 2020)
predicts a fixed set of ``N`` "queries" per image, each a class distribution
over ``K`` object classes plus "no object" and a box ``(cx, cy, w, h)`` in
``[0, 1]``. The ``M <= N`` ground-truth objects of an image have no order, so
the loss first matches predictions to targets by a linear assignment
problem on the matching cost

    cost[q, t] = -w_class * p_q(class_t) + w_L1 * |box_q - box_t|_1
                 - w_GIoU * GIoU(box_q, box_t),

then scores the matched pairs: cross-entropy on every query (target class
for a matched query, "no object" for the others, down-weighted by
``--eos-weight``), plus ``w_L1 * L1 + w_GIoU * (1 - GIoU)`` on the matched
boxes, normalized by the number of objects (DETR's weights: 1, 5, 2). The
assignment is a constant of the loss (``lax.stop_gradient`` on the cost; the
assignment is integer): gradients flow through the matched pairs only.

Images have different numbers of objects; targets are padded to ``M_max``
slots with a mask. The cost matrices are ``[B, N, M_max]`` (rectangular: every
target column is assigned a query, ``N - M_max`` queries stay unassigned) and
padded target columns cost 0 for every query: they take queries no real
target wants, so the real targets' assignment is optimal for the unpadded
problem (``N >= M_max`` leaves room), and the queries they take count as
"no object".

The model is a small MLP in pure ``jax.numpy`` that maps one feature vector
per image to the ``N`` predictions. The data are synthetic: random objects
(1 to ``M_max`` per image, random classes and boxes), and the image's feature
vector is a fixed random projection of its padded targets plus noise, so
there is something to learn. The script

* trains ``--steps`` steps of optax Adam with the matching done by
  ``jax.vmap(jaxmatch.hungarian)`` inside the jitted loss, and checks that the
  loss on a held-out batch decreased (and the training loss too);
* trains the same model from the same initialization with the matching done
  on the host by ``scipy.optimize.linear_sum_assignment`` per image (through
  ``jax.pure_callback``) and compares the step times;
* checks on one batch that jaxmatch's assignment has the same total cost as
  scipy's for every image.

Run: ``python examples/detr_matching_loss.py [--batch 32 --steps 50 --queries 20]``.
Needs optax (``pip install optax``). Exits non-zero if a check fails.
"""

from __future__ import annotations

import argparse
import time
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
import scipy.optimize
from jax import lax

import jaxmatch

W_CLASS, W_L1, W_GIOU = 1.0, 5.0, 2.0  # DETR's matching and loss weights


class Batch(NamedTuple):
    features: jax.Array  # [B, F]
    labels: jax.Array  # [B, M] int32, class of each target slot
    boxes: jax.Array  # [B, M, 4] (cx, cy, w, h)
    mask: jax.Array  # [B, M] bool, True on real targets


def make_dataset(rng: np.random.Generator, args) -> Batch:
    """``--images`` synthetic images plus a held-out batch, as one Batch."""
    count, M, K = args.images + args.batch, args.max_objects, args.classes
    n_objects = rng.integers(1, M + 1, count)
    mask = np.arange(M)[None, :] < n_objects[:, None]
    labels = rng.integers(0, K, (count, M))
    centers = rng.uniform(0.15, 0.85, (count, M, 2))
    sizes = rng.uniform(0.05, 0.3, (count, M, 2))
    boxes = np.concatenate([centers, sizes], axis=-1)
    # The features: a fixed random projection of the padded targets, plus noise.
    targets = np.concatenate([np.eye(K)[labels], boxes], axis=-1) * mask[..., None]
    projection = rng.normal(0, 1 / np.sqrt(M * (K + 4)), (M * (K + 4), args.features))
    features = targets.reshape(count, -1) @ projection
    features += rng.normal(0, 0.1 * features.std(), features.shape)
    return Batch(
        jnp.asarray(features, jnp.float32),
        jnp.asarray(labels, jnp.int32),
        jnp.asarray(boxes, jnp.float32),
        jnp.asarray(mask),
    )


def init_mlp(key: jax.Array, sizes: list[int]) -> list[tuple[jax.Array, jax.Array]]:
    """He-initialized dense layers ``(W, b)``."""
    keys = jax.random.split(key, len(sizes) - 1)
    return [
        (jax.random.normal(k, (m, n)) * jnp.sqrt(2.0 / m), jnp.zeros(n))
        for k, m, n in zip(keys, sizes[:-1], sizes[1:])
    ]


def predict(params, features: jax.Array, queries: int, classes: int):
    """``[B, N, K + 1]`` class logits and ``[B, N, 4]`` boxes in ``(0, 1)``."""
    x = features
    for W, b in params[:-1]:
        x = jax.nn.relu(x @ W + b)
    W, b = params[-1]
    out = (x @ W + b).reshape(features.shape[0], queries, classes + 5)
    return out[..., : classes + 1], jax.nn.sigmoid(out[..., classes + 1 :])


def cxcywh_to_xyxy(box: jax.Array) -> jax.Array:
    center, size = box[..., :2], box[..., 2:]
    return jnp.concatenate([center - size / 2, center + size / 2], axis=-1)


def generalized_iou(a: jax.Array, b: jax.Array) -> jax.Array:
    """GIoU of ``(cx, cy, w, h)`` boxes, broadcasting over the leading axes."""
    a, b = cxcywh_to_xyxy(a), cxcywh_to_xyxy(b)
    area_a = jnp.prod(a[..., 2:] - a[..., :2], axis=-1)
    area_b = jnp.prod(b[..., 2:] - b[..., :2], axis=-1)
    overlap = jnp.clip(jnp.minimum(a[..., 2:], b[..., 2:]) - jnp.maximum(a[..., :2], b[..., :2]), 0)
    inter = jnp.prod(overlap, axis=-1)
    union = area_a + area_b - inter
    hull = jnp.prod(jnp.maximum(a[..., 2:], b[..., 2:]) - jnp.minimum(a[..., :2], b[..., :2]), -1)
    return inter / union - (hull - union) / hull


def matching_cost(logits: jax.Array, boxes: jax.Array, batch: Batch) -> jax.Array:
    """``[B, N, M]`` DETR matching costs; padded target columns cost 0."""
    prob = jax.nn.softmax(logits, axis=-1)
    p_class = jnp.take_along_axis(prob, batch.labels[:, None, :], axis=-1)  # [B, N, M]
    pred, target = boxes[:, :, None, :], batch.boxes[:, None, :, :]
    l1 = jnp.sum(jnp.abs(pred - target), axis=-1)
    cost = -W_CLASS * p_class + W_L1 * l1 - W_GIOU * generalized_iou(pred, target)
    return jnp.where(batch.mask[:, None, :], cost, 0.0)


def jaxmatch_matcher(cost: jax.Array) -> jax.Array:
    """``[B, N]`` target slot of each query (-1: none), on the device."""
    return jax.vmap(jaxmatch.hungarian)(cost)


def scipy_matcher(cost: jax.Array) -> jax.Array:
    """The same assignment by scipy on the host, one image at a time."""

    def host(cost):
        cost = np.asarray(cost)
        slots = np.full(cost.shape[:2], -1, dtype=np.int32)
        for b, c in enumerate(cost):
            rows, cols = scipy.optimize.linear_sum_assignment(c)
            slots[b, rows] = cols
        return slots

    return jax.pure_callback(host, jax.ShapeDtypeStruct(cost.shape[:2], jnp.int32), cost)


def set_loss(params, batch: Batch, matcher, args) -> jax.Array:
    """Matching (a constant of the loss), then CE on all queries and box losses on matches."""
    logits, boxes = predict(params, batch.features, args.queries, args.classes)
    slot = matcher(lax.stop_gradient(matching_cost(logits, boxes, batch)))  # [B, N]
    safe = jnp.clip(slot, 0)
    matched = (slot >= 0) & jnp.take_along_axis(batch.mask, safe, axis=1)
    n_objects = jnp.maximum(batch.mask.sum(), 1)

    # Cross-entropy: the matched target's class, else "no object" (class K).
    target_class = jnp.where(matched, jnp.take_along_axis(batch.labels, safe, axis=1), args.classes)
    ce = optax.softmax_cross_entropy_with_integer_labels(logits, target_class)
    weight = jnp.where(matched, 1.0, args.eos_weight)
    loss_class = jnp.sum(weight * ce) / jnp.sum(weight)

    # Box losses on matched queries only.
    target_box = jnp.take_along_axis(batch.boxes, safe[..., None], axis=1)  # [B, N, 4]
    l1 = jnp.sum(jnp.abs(boxes - target_box), axis=-1)
    giou = generalized_iou(boxes, target_box)
    loss_l1 = jnp.sum(jnp.where(matched, l1, 0.0)) / n_objects
    loss_giou = jnp.sum(jnp.where(matched, 1.0 - giou, 0.0)) / n_objects
    return W_CLASS * loss_class + W_L1 * loss_l1 + W_GIOU * loss_giou


def train(name: str, params, data: Batch, matcher, args):
    """``--steps`` Adam steps; returns the parameters, losses and per-step times."""
    optimizer = optax.adam(args.lr)

    @jax.jit
    def step(params, opt_state, batch):
        loss, grads = jax.value_and_grad(set_loss)(params, batch, matcher, args)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    opt_state = optimizer.init(params)
    batches_per_epoch = args.images // args.batch
    losses, times = [], []
    for i in range(args.steps):
        start = (i % batches_per_epoch) * args.batch
        batch = jax.tree.map(lambda x, s=start: x[s : s + args.batch], data)
        t0 = time.perf_counter()
        params, opt_state, loss = jax.block_until_ready(step(params, opt_state, batch))
        times.append(time.perf_counter() - t0)
        losses.append(float(loss))
        if i % 10 == 0 or i == args.steps - 1:
            print(f"  [{name}] step {i:3d}: loss {losses[-1]:.4f}")
    return params, losses, times[1:]  # the first step includes the compilation


def check_assignment_costs(params, batch: Batch, args) -> None:
    """jaxmatch's and scipy's assignments must have equal total cost per image."""
    logits, boxes = predict(params, batch.features, args.queries, args.classes)
    cost = matching_cost(logits, boxes, batch)
    totals = []
    for matcher in (jax.jit(jaxmatch_matcher), jax.jit(scipy_matcher)):
        slot = np.asarray(matcher(cost))
        c = np.asarray(cost, dtype=np.float64)
        picked = np.take_along_axis(c, np.clip(slot, 0, None)[..., None], axis=2)[..., 0]
        totals.append(np.where(slot >= 0, picked, 0.0).sum(axis=1))
        if not np.all((slot >= 0).sum(axis=1) == args.max_objects):
            raise SystemExit("FAIL: not every target slot was assigned a query")
    diff = np.abs(totals[0] - totals[1]).max()
    if diff > 1e-4:
        raise SystemExit(f"FAIL: jaxmatch's and scipy's matching costs differ by {diff:.2e}")
    print(
        f"matching costs of {len(totals[0])} images equal scipy's (max difference {diff:.1e}; "
        f"mean total cost {totals[0].mean():.4f})"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--batch", type=int, default=32, help="images per step")
    p.add_argument("--steps", type=int, default=50, help="Adam steps")
    p.add_argument("--queries", type=int, default=20, help="predictions per image (N)")
    p.add_argument("--max-objects", type=int, default=10, help="target slots per image (M_max)")
    p.add_argument("--classes", type=int, default=10, help="object classes (K)")
    p.add_argument("--features", type=int, default=128, help="feature vector size")
    p.add_argument("--hidden", type=int, default=256, help="MLP hidden width")
    p.add_argument("--images", type=int, default=1024, help="training images")
    p.add_argument("--eos-weight", type=float, default=0.1, help="weight of 'no object' CE")
    p.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    if args.max_objects > args.queries:
        p.error("--max-objects must be at most --queries")
    if args.images < args.batch:
        p.error("--images must be at least --batch")

    print(f"jaxmatch {jaxmatch.__version__} on {jax.default_backend()}")
    data = make_dataset(np.random.default_rng(args.seed), args)
    held_out = jax.tree.map(lambda x: x[args.images :], data)
    sizes = [args.features, args.hidden, args.hidden, args.queries * (args.classes + 5)]
    params0 = init_mlp(jax.random.key(args.seed), sizes)
    eval_loss = jax.jit(lambda params: set_loss(params, held_out, jaxmatch_matcher, args))

    check_assignment_costs(params0, held_out, args)
    params, losses, t_jax = train("jaxmatch", params0, data, jaxmatch_matcher, args)
    _, losses_scipy, t_scipy = train("scipy", params0, data, scipy_matcher, args)
    check_assignment_costs(params, held_out, args)

    before, after = float(eval_loss(params0)), float(eval_loss(params))
    print(f"held-out loss: {before:.4f} -> {after:.4f}")
    print(
        f"training loss: jaxmatch {losses[0]:.4f} -> {losses[-1]:.4f}, "
        f"scipy {losses_scipy[0]:.4f} -> {losses_scipy[-1]:.4f}"
    )
    print(
        f"median step time, batch {args.batch} ({jax.default_backend()}): matching by "
        f"jaxmatch in the jitted loss {np.median(t_jax) * 1e3:.2f} ms, "
        f"by scipy via pure_callback {np.median(t_scipy) * 1e3:.2f} ms"
    )
    if not (after < before and losses[-1] < losses[0]):
        raise SystemExit("FAIL: the loss did not decrease")
    print("all checks passed")


if __name__ == "__main__":
    main()
