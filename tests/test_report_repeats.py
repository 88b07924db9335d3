"""The pass@k / pass^k section of the Markdown and HTML reports (report["repeats"])."""

from __future__ import annotations

import json
import re

from pytest_are_judge.repeats import compare_repeats, summarize_repeats
from pytest_are_judge.report import build_report, render_html, render_markdown
from pytest_are_judge.report.markdown import repeats_markdown


def records(**counts: tuple[int, int]) -> list[dict]:
    out = []
    for sid, (n, c) in counts.items():
        out += [{"scenario_id": sid, "success": True}] * c + [{"scenario_id": sid, "success": False}] * (n - c)
    return out


def test_markdown_repeats_table_with_baseline_and_gate() -> None:
    current = records(mail=(4, 3), memo=(3, 2))
    rep = summarize_repeats(current, 2)
    rep["baseline"] = compare_repeats(records(mail=(4, 4), memo=(3, 1)), current, 2)
    rep["min_pass_hat_k"], rep["gate_passed"] = 0.5, False
    lines = repeats_markdown(rep)
    # mail: pass^2 C(4,2)/C(4,2)=1 -> C(3,2)/C(4,2)=1/2; memo: 0 -> C(2,2)/C(3,2)=1/3
    assert "| Scenario | Runs | Passed | pass@2 | pass^2 | vs baseline |" in lines
    assert "| `mail` | 4 | 3 | 100.0% | 50.0% | ❌ regressed (100.0% → 50.0%) |" in lines
    assert "| `memo` | 3 | 2 | 100.0% | 33.3% | improved (0.0% → 33.3%) |" in lines
    assert "| **overall** (2 scored) | 7 | 5 | **100.0%** | **41.7%** | |" in lines
    assert "❌ FAILED: pass^2 41.7% vs minimum 50.0%" in lines
    assert repeats_markdown(None) == [] and repeats_markdown({"k": None}) == []
    md = render_markdown({**build_report([]), "repeats": rep})
    assert "### Repeated runs (k=2)" in md and "All runs passed" in md


def test_html_embeds_repeats_only_when_given() -> None:
    rep = summarize_repeats(records(mail=(2, 1)), 2)
    page = render_html({**build_report([]), "repeats": rep})
    data = json.loads(re.search(r'id="are-report-data">(.*?)</script>', page, re.S).group(1))
    assert data["repeats"]["k"] == 2 and data["repeats"]["scenarios"]["mail"]["pass_hat_k"] == 0.0
    plain = render_html(build_report([]))
    assert "repeats" not in json.loads(re.search(r'id="are-report-data">(.*?)</script>', plain, re.S).group(1))
