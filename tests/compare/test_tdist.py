"""Student's t in pure Python, checked against printed table values (two-sided critical values, CDF points)."""

from __future__ import annotations

import pytest
from perflab import tdist

# t_{0.975, df} and t_{0.95, df} from any statistics textbook table.
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 8: 2.306, 10: 2.228, 20: 2.086, 30: 2.042, 120: 1.980}
T95 = {1: 6.314, 2: 2.920, 3: 2.353, 5: 2.015, 10: 1.812, 30: 1.697}
T80 = {2: 1.061, 4: 0.941, 8: 0.889, 38: 0.851}


@pytest.mark.parametrize("df,q", sorted(T975.items()))
def test_two_sided_95_percent_critical_values(df: int, q: float) -> None:
    assert tdist.t_ppf(0.975, df) == pytest.approx(q, abs=5e-4)
    assert tdist.t_ppf(0.025, df) == pytest.approx(-q, abs=5e-4)
    assert tdist.t_cdf(q, df) == pytest.approx(0.975, abs=2e-5)


@pytest.mark.parametrize("table,p", [(T95, 0.95), (T80, 0.80)])
def test_one_sided_critical_values(table: dict[int, float], p: float) -> None:
    for df, q in table.items():
        assert tdist.t_ppf(p, df) == pytest.approx(q, abs=5e-4)


def test_cdf_known_points_and_fractional_degrees_of_freedom() -> None:
    # df = 1 is the Cauchy distribution: P(T <= 1) = 3/4; df = 2 has a closed form.
    assert tdist.t_cdf(1.0, 1) == pytest.approx(0.75, abs=1e-12)
    for t in (-3.0, -0.5, 0.0, 0.7, 2.5):
        assert tdist.t_cdf(t, 2) == pytest.approx(0.5 + t / (2 * (2 + t * t) ** 0.5), abs=1e-12)
    # Welch gives fractional df: the quantile lies between its integer neighbours, and inverts the CDF.
    q = tdist.t_ppf(0.975, 2.5)
    assert T975[3] < q < T975[2]
    assert tdist.t_cdf(q, 2.5) == pytest.approx(0.975, abs=1e-10)
    # Large df approaches the normal distribution.
    assert tdist.t_ppf(0.975, 1e6) == pytest.approx(1.95996, abs=1e-4)
    assert tdist.betainc(2.0, 3.0, 0.4) == pytest.approx(0.5248, abs=1e-4)
