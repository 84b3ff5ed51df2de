"""Noise shapes and the binomial bound the calibration simulations share (fresh random draws every run).

Every shape has a run-to-run spread of about 3%, what a tuned load test on a quiet machine shows:
- normal: value * (1 + 0.03 Z)
- log-normal: value * exp(0.03 Z)
- heavy-tailed: value * (1 + 0.03 T3 / sqrt(3)), Student t with 3 degrees of freedom (rare wild runs)
- two-mode: 70% of runs at the value, 30% 8% higher (CPU placement, a cache warm or not), 2% noise in each
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

SHAPES = ("normal", "log-normal", "heavy-tailed", "two-mode")
RUN_COUNTS = (2, 3, 4, 5, 8, 20)
NOISE = 0.03


def sampler(shape: str, rng: random.Random) -> Callable[[float, int], list[float]]:
    """A function (center, n) -> n runs of that noise shape around center."""
    g = rng.gauss
    if shape == "normal":
        return lambda c, n: [c * (1 + NOISE * g(0, 1)) for _ in range(n)]
    if shape == "log-normal":
        return lambda c, n: [c * math.exp(NOISE * g(0, 1)) for _ in range(n)]
    if shape == "heavy-tailed":
        # T3 = Z / sqrt(chi2_3 / 3); chi2_3 is Gamma(1.5, 2). Scaled to unit variance.
        def t3() -> float:
            return g(0, 1) / math.sqrt(rng.gammavariate(1.5, 2.0) / 3) / math.sqrt(3)

        return lambda c, n: [c * (1 + NOISE * t3()) for _ in range(n)]
    if shape == "two-mode":
        return lambda c, n: [c * (1.08 if rng.random() < 0.3 else 1.0) * (1 + 0.02 * g(0, 1)) for _ in range(n)]
    raise ValueError(shape)


def binomial_upper(trials: int, p: float, confidence: float) -> int:
    """The smallest k with P(Binomial(trials, p) <= k) >= confidence: a count above it is evidence the rate exceeds p."""
    acc = 0.0
    for k in range(trials + 1):
        acc += math.comb(trials, k) * p**k * (1 - p) ** (trials - k)
        if acc >= confidence:
            return k
    return trials


def table(title: str, header: list[str], rows: list[list[str]]) -> str:
    out = [f"**{title}**", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out) + "\n"
