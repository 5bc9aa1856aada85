"""The docs/methods.md test vector and comparisons with numbers as printed there or in a paper."""

from __future__ import annotations

import math

#: docs/methods.md differences: rep 1 fold 1, rep 1 fold 2, rep 2 fold 1, ...
SECTION_1 = [0.02, -0.01, 0.03, 0.00, 0.01, 0.02, -0.02, 0.01, 0.04, 0.00]
FOUR = [0.02, -0.01, 0.03, 0.00]


def as_printed(x: float, printed: str) -> bool:
    """Whether ``x`` agrees with a printed reference value to all its digits (at least 6)."""
    mantissa = printed.lower().lstrip("-").split("e")[0].replace(".", "").lstrip("0")
    digits = max(6, len(mantissa))
    return float(f"{x:.{digits}g}") == float(f"{float(printed):.{digits}g}")


def assert_printed(value: float, printed: str) -> None:
    """``value`` agrees with a number printed in docs/methods.md to every printed digit."""
    mantissa = printed.lower().split("e")[0]
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    exponent = int(printed.lower().split("e")[1]) if "e" in printed.lower() else 0
    assert abs(value - float(printed)) <= 0.5 * 10.0 ** (exponent - decimals) * (1 + 1e-9), (
        value,
        printed,
    )


def t3_cdf(t: float) -> float:
    """Student t CDF with 3 degrees of freedom in closed form (no library)."""
    x = t / math.sqrt(3.0)
    return 0.5 + (x / (1 + x * x) + math.atan(x)) / math.pi


def phi(z: float) -> float:
    """Standard normal CDF via the error function."""
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))
