"""pass@k / pass^k and repeated-run summaries."""

from __future__ import annotations

import random
from itertools import combinations
from math import comb

import pytest

from pytest_are_judge.repeats import (
    compare_repeats,
    group_runs,
    pass_at_k,
    pass_hat_k,
    run_number_of,
    summarize_repeats,
)


def brute(n: int, c: int, k: int) -> tuple[float, float]:
    runs = [True] * c + [False] * (n - c)
    draws = list(combinations(range(n), k))
    any_ = sum(any(runs[i] for i in d) for d in draws) / len(draws)
    all_ = sum(all(runs[i] for i in d) for d in draws) / len(draws)
    return any_, all_


@pytest.mark.parametrize("n", range(1, 8))
def test_estimators_match_enumeration(n):
    for c in range(n + 1):
        for k in range(1, n + 1):
            a, h = brute(n, c, k)
            assert pass_at_k(n, c, k) == pytest.approx(a)
            assert pass_hat_k(n, c, k) == pytest.approx(h)


def test_known_values_and_edges():
    assert pass_at_k(10, 0, 3) == 0.0 and pass_at_k(10, 10, 3) == 1.0
    assert pass_at_k(5, 1, 1) == pytest.approx(0.2)
    assert pass_hat_k(5, 4, 2) == pytest.approx(comb(4, 2) / comb(5, 2))
    assert pass_at_k(3, 2, 2) == 1.0  # n - c < k
    for bad in ((3, 4, 1), (3, 1, 0), (3, 1, 4), (-1, 0, 1)):
        with pytest.raises(ValueError):
            pass_at_k(*bad)
    with pytest.raises(TypeError):
        pass_hat_k(3.0, 1, 1)  # type: ignore[arg-type]


def recs(sid: str, outcomes: str) -> list[dict]:
    return [{"scenario_id": sid, "success": ch == "P" if ch != "E" else None} for ch in outcomes]


def test_summarize_per_scenario_and_overall():
    records = recs("a", "PPFP") + recs("b", "FFFF") + recs("c", "P") + recs("d", "PPPE")
    s = summarize_repeats(records, k=2)
    a, b, c, d = (s["scenarios"][x] for x in "abcd")
    assert (a["n"], a["c"]) == (4, 3) and a["pass_at_k"] == pytest.approx(1.0) and a["pass_hat_k"] == pytest.approx(0.5)
    assert b["pass_at_k"] == 0.0 and b["pass_hat_k"] == 0.0
    assert c["pass_at_k"] is None and "fewer than k=2" in c["note"]
    assert d["errors"] == 1 and d["c"] == 3
    o = s["overall"]
    assert (o["scenarios"], o["scored"], o["runs"], o["passes"]) == (4, 3, 13, 7)
    assert o["pass_at_k"] == pytest.approx((1.0 + 0.0 + 1.0) / 3)
    assert o["pass_hat_k"] == pytest.approx((0.5 + 0.0 + 0.5) / 3)


def test_error_failure_kinds_do_not_pass():
    s = summarize_repeats([{"scenario_id": "x", "success": True, "failure_kind": "code_judge_error"}], 1)
    assert s["scenarios"]["x"]["c"] == 0


def test_compare_at_same_k():
    base = recs("a", "PPPP") + recs("b", "PFFF") + recs("gone", "PP")
    cur = recs("a", "PPFF") + recs("b", "PPPF") + recs("new", "PP")
    cmp = compare_repeats(base, cur, 2)
    rows = cmp["scenarios"]
    assert rows["a"]["status"] == "regressed" and rows["a"]["delta_pass_hat_k"] == pytest.approx(1 / 6 - 1)
    assert rows["b"]["status"] == "improved"
    assert rows["gone"]["status"] == "removed" and rows["new"]["status"] == "new"
    assert cmp["regressed"] == ["a"] and cmp["improved"] == ["b"]
    # summaries computed at another k are recomputed at the requested k
    again = compare_repeats(summarize_repeats(base, 1), summarize_repeats(cur, 3), 2)
    assert again["scenarios"]["a"]["delta_pass_hat_k"] == pytest.approx(rows["a"]["delta_pass_hat_k"])
    assert compare_repeats(base, base, 2)["regressed"] == []


def test_random_records_are_consistent():
    rng = random.Random(7)
    records = [{"scenario_id": f"s{rng.randrange(5)}", "success": rng.random() < 0.6} for _ in range(60)]
    for k in (1, 2, 3):
        s = summarize_repeats(records, k)
        for row in s["scenarios"].values():
            if row["pass_at_k"] is not None:
                assert 0 <= row["pass_hat_k"] <= row["pass_rate"] + 1e-12 <= row["pass_at_k"] + 1e-12
        if k == 1:
            assert all(r["pass_at_k"] == pytest.approx(r["pass_rate"]) for r in s["scenarios"].values())


def test_run_numbers_and_grouping(tmp_path):
    from pytest_are_judge.model import Run, Scenario

    sc = Scenario(scenario_id="s")
    r1 = Run(scenario=sc, events=[], run_id="agent", source=str(tmp_path / "runs" / "run_2" / "agent.json"))
    r2 = Run(scenario=sc, events=[], run_id="x", run_number=1)
    r3 = Run(scenario=sc, events=[], run_id="y", metadata={"run": {"run_number": 3}})
    r4 = Run(scenario=sc, events=[], run_id="trace-run-7")
    r5 = Run(scenario=sc, events=[], run_id="nothing")
    assert [run_number_of(r) for r in (r1, r2, r3, r4, r5)] == [2, 1, 3, 7, None]
    assert [r.run_id for r in group_runs([r5, r4, r3, r1, r2])["s"]] == ["x", "agent", "y", "trace-run-7", "nothing"]
