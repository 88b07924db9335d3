"""Visual reports: run_view, Markdown/Mermaid, and the HTML page rendered in headless Chromium."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from conformance import CASES

from pytest_are_judge.api import effective_config, judge_run
from pytest_are_judge.judge.evaluators import run_evaluators
from pytest_are_judge.readers import load_file, load_runs
from pytest_are_judge.report import (
    build_report,
    mermaid_graph,
    render_html,
    render_markdown,
    run_view,
    write_markdown_summary,
)

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "example_scenarios" / "code_judges" / "meeting_moved.yaml"
CASE_NAMES = [
    "cab__drop__oracle_cancel",
    "cab__time_shift_out__oracle_order_plus26",
    "cab__arg__oracle_order__locations_other",
]
CHROMIUM = next(
    (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome", "chrome") if shutil.which(n)), None
)


def case_view(name: str) -> dict:
    runs, errors = load_runs([CASES / name / "agent.json"], oracle_path=CASES / name / "oracle.json")
    assert not errors
    return run_view(runs[0], judge_run(runs[0]))


def example_views() -> list[dict]:
    out = []
    for r in load_file(EXAMPLE).runs:
        j = run_evaluators(r, judge_run(r), effective_config(None, r.scenario))
        out.append(run_view(r, j))
    return out


def make_report() -> dict:
    views = [case_view(n) for n in CASE_NAMES] + example_views()
    return build_report(views, title="ARE judge report </script><b>x</b>")


def test_run_view_statuses_and_windows():
    passed = case_view("cab__arg__oracle_order__locations_other")
    assert passed["status"] == "passed"
    assert all(n["status"] == "matched" and n["matched_agent_event"] for n in passed["oracle_nodes"])
    assert all(e["matched_oracle"] for e in passed["agent_events"] if e["judged"])
    counts = case_view("cab__drop__oracle_cancel")
    assert counts["status"] == "failed" and counts["failure_kind"] == "tool_count"
    st = {n["id"]: n["status"] for n in counts["oracle_nodes"]}
    assert st["oracle_cancel"] == "failed" and st["oracle_order"] == "unmatched"
    late = case_view("cab__time_shift_out__oracle_order_plus26")
    st = {n["id"]: n["status"] for n in late["oracle_nodes"]}
    assert st["user_msg_0"] == "matched" and st["oracle_order"] == "failed"
    lo, hi = late["windows"]["oracle_order"]
    node = next(n for n in late["oracle_nodes"] if n["id"] == "oracle_order")
    tol = late["tolerances"]
    assert hi - lo == pytest.approx(tol["pre"] + tol["post"])
    assert lo <= node["time"] <= hi
    agent = [e for e in late["agent_events"] if e["tool"] == node["tool"]]
    assert agent and all(e["time"] > hi for e in agent)  # shifted out of the window
    json.dumps(late)
    assert "oracle_order" in late["failure_text"]


def test_run_view_of_a_native_scenario_with_parents():
    views = {v["run_id"]: v for v in example_views()}
    good = views["good"]
    nodes = {n["id"]: n for n in good["oracle_nodes"]}
    assert nodes["send"]["parents"] == ["user_msg"] and nodes["reply"]["deps"] == ["send"]
    assert views["impolite"]["status"] == "failed" and views["impolite"]["failure_kind"] == "evaluator_reject"
    assert all(n["status"] == "matched" for n in views["impolite"]["oracle_nodes"])
    wrong = {n["id"]: n["status"] for n in views["wrong_time"]["oracle_nodes"]}
    assert wrong == {"user_msg": "matched", "send": "failed", "reply": "unmatched"}


def test_markdown_and_mermaid(tmp_path, monkeypatch):
    report = make_report()
    if not report["runs"]:
        pytest.skip("no runs available")
    md = render_markdown(report)
    assert md.startswith("## ")
    failing = [r for r in report["runs"] if r["status"] != "passed"]
    assert md.count("```mermaid") == len(failing)
    for r in failing:
        assert f"{r['scenario_id']} : {r['run_id']}" in md
    g = mermaid_graph(failing[0])
    assert g.startswith("graph TD") and "classDef failed" in g and re.search(r"class [n0-9,]+ failed", g)
    summary = tmp_path / "gh_summary.md"
    summary.write_text("previous step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    written = write_markdown_summary(report, tmp_path / "out" / "summary.md")
    assert written == [tmp_path / "out" / "summary.md", summary]
    assert summary.read_text().startswith("previous step\n## ")
    monkeypatch.delenv("GITHUB_STEP_SUMMARY")
    assert write_markdown_summary(report) == []
    ok = render_markdown(build_report([r for r in report["runs"] if r["status"] == "passed"]))
    assert "All runs passed" in ok and "mermaid" not in ok


def test_html_is_self_contained_and_escapes_data():
    report = make_report()
    page = render_html(report)
    assert page.count("<script") == 2 and "</script><b>" not in page
    assert "&lt;/script&gt;&lt;b&gt;x&lt;/b&gt;" in page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page), "no external resources"
    data = re.search(r'<script type="application/json" id="are-report-data">(.*?)</script>', page, re.S).group(1)
    assert json.loads(data)["runs"] == json.loads(json.dumps(report["runs"]))


@pytest.mark.skipif(
    CHROMIUM is None, reason="no chromium binary found (CI: apt-get update && apt-get install -y chromium)"
)
def test_html_renders_in_headless_chromium(tmp_path):
    report = make_report()
    if not report["runs"]:
        pytest.skip("no runs available")
    page = tmp_path / "report.html"
    page.write_text(render_html(report))
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    base = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
    ]
    try:
        dom = subprocess.run(
            [*base, "--dump-dom", page.as_uri() + "?status=failed"], capture_output=True, text=True, timeout=120
        ).stdout
        shot = tmp_path / "report.png"
        subprocess.run(
            [*base, "--hide-scrollbars", "--window-size=1280,1400", f"--screenshot={shot}", page.as_uri()],
            capture_output=True,
            timeout=120,
            cwd=tmp_path,
        )
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    n = len(report["runs"])
    failed = sum(r["status"] == "failed" for r in report["runs"])
    assert f'data-rendered="{n}"' in dom, dom[:2000]
    assert f"{failed} of {n} runs shown" in dom  # ?status=failed applied by the page's JS
    assert dom.count("<tr data-status=") == n
    assert len(re.findall(r'<g class="node n-failed"', dom)) >= 1
    assert 'class="window"' in dom and 'class="failure"' in dom
    for r in report["runs"]:
        assert r["scenario_id"] in dom
    assert shot.is_file() and shot.stat().st_size > 10_000


def test_only_declared_known_bad_runs_count_as_expected_failures():
    from pytest_are_judge.report.view import is_expected_failure, summarize_views

    declared = {"status": "failed", "expected": "fail", "outcome": "xfailed"}
    baseline_xfail = {"status": "failed", "expected": "pass", "outcome": "xfailed"}  # failed in the baseline too
    plain = {"status": "failed", "expected": "pass", "outcome": "failed"}
    assert [is_expected_failure(v) for v in (declared, baseline_xfail, plain)] == [True, False, False]
    md = render_markdown(build_report([declared, baseline_xfail, plain]))
    assert "**3 failed** (1 expected: declared known-bad)" in md
    assert summarize_views([declared, baseline_xfail, plain])["expected_failures"] == 1
