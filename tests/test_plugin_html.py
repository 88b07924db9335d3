"""--are-html and --are-md-summary (and $GITHUB_STEP_SUMMARY) from the plugin: views built where
the run was judged, sent with the test reports, assembled on the controller."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from browser import chromium, needs_chromium
from builders import UNREGISTERED_TOOL_SCENARIO, mail_scenario_yaml

ODD = UNREGISTERED_TOOL_SCENARIO
NODEIDS = {
    "passes_1": "sc/mail.yaml::mail[run_1]",
    "passes_2": "sc/mail.yaml::mail[run_2]",
    "fails": "sc/mail.yaml::mail[run_3]",
    "xfails": "sc/mail.yaml::mail[run_4]",
    "could_not_judge": "sc/odd.yaml::odd[r]",
    "load_error": "sc/broken.json::load_error",
}


def write(root: Path) -> None:
    """mail: 4 numbered runs (2 pass, 1 fails, 1 fails as declared); a run that cannot be judged
    (unknown tool); a file that is not a scenario."""
    runs = {"run_1": "a@x.org", "run_2": "a@x.org", "run_3": "b@x.org", "run_4": "c@x.org"}
    body = mail_scenario_yaml(runs, expect_fail=("run_4",))
    (root / "sc").mkdir()
    (root / "sc" / "mail.yaml").write_text(body)
    (root / "sc" / "odd.yaml").write_text(ODD)
    (root / "sc" / "broken.json").write_text('{"hello": "not a scenario"}')


def page_data(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="are-report-data">(.*?)</script>', page, re.S)
    assert m, "no embedded report data"
    return json.loads(m.group(1))


def test_html_and_markdown_reports(pytester: pytest.Pytester, run_pytest, monkeypatch) -> None:
    write(pytester.path)
    gh = pytester.path / "gh_summary.md"
    gh.write_text("previous step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(gh))
    result = run_pytest("--are-scenarios=sc", "--are-html=out/report.html", "--are-md-summary=out/summary.md")
    result.assert_outcomes(passed=2, failed=1, xfailed=1, errors=2)
    result.stdout.fnmatch_lines(["are-judge: scenarios=*, html=*report.html, md_summary=*summary.md"])
    result.stdout.fnmatch_lines(
        ["HTML report: *out/report.html", "Markdown summary: *out/summary.md", "Markdown summary: *gh_summary.md"]
    )

    page = (pytester.path / "out" / "report.html").read_text()
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page), "no external resources"
    assert "<link" not in page and page.count("<script") == 2
    data = page_data(page)
    recs = {v["nodeid"]: v for v in data["runs"]}
    assert set(recs) == set(NODEIDS.values())
    assert [v["nodeid"] for v in data["runs"]] == sorted(recs)
    fails, xfails = recs[NODEIDS["fails"]], recs[NODEIDS["xfails"]]
    assert fails["verdict"] == "fail" and fails["outcome"] == "failed" and fails["scenario_id"] == "mail"
    assert "Agent did not perform the following oracle tool call" in fails["failure_text"]
    assert {n["id"]: n["state"] for n in fails["trace"]["oracle"]} == {"u": "matched", "send": "rejected"}
    assert xfails["outcome"] == "xfailed" and xfails["run_number"] == 4 and xfails["expected"] == "fail"
    assert recs[NODEIDS["passes_1"]]["verdict"] == "pass" and recs[NODEIDS["passes_1"]]["failure_text"] == ""
    cnj = recs[NODEIDS["could_not_judge"]]
    assert cnj["verdict"] == "error" and cnj["outcome"] == "error" and "NoSuchApp__do_thing" in cnj["failure_text"]
    load = recs[NODEIDS["load_error"]]
    assert load["verdict"] == "error" and load["outcome"] == "error" and "not a scenario" in load["failure_text"]
    assert load["trace"] is None
    summary = data["summary"]
    assert (summary["total"], summary["passed"], summary["failed"], summary["expected_failures"], summary["error"]) == (
        6,
        2,
        1,
        1,
        2,
    )
    # repeats: mail has 3 numbered runs that are not declared known-bad, 2 passed -> k=3:
    # pass@3 = 1, pass^3 = 0
    assert data["repeats"]["k"] == 3 and data["repeats"]["scenarios"]["mail"]["n"] == 3
    assert data["repeats"]["overall"]["pass_at_k"] == 1.0 and data["repeats"]["overall"]["pass_hat_k"] == 0.0

    md = (pytester.path / "out" / "summary.md").read_text()
    assert md.startswith("## pytest-are-judge report")
    assert "**2 passed**, **1 failed**, 1 failed as expected (declared known-bad), **2 errors** of 6 run(s)." in md
    # detailed: the failing run and the two errors, not the expected failure nor the passes
    assert md.count("```mermaid") == 2  # run_3 and odd[r] (the load error has no graph)
    for key in ("fails", "could_not_judge", "load_error"):
        assert f"`{NODEIDS[key]}`" in md, key
    assert NODEIDS["xfails"] not in md and NODEIDS["passes_1"] not in md
    assert "`sc/mail.yaml::mail[run_3]` · pytest: `failed`" in md
    assert "### Repeated runs (k=3)" in md and "| `mail` | 3 | 2 | 100.0% | 0.0% |" in md
    assert gh.read_text() == "previous step\n" + md + "\n"  # appended to the step summary


def test_step_summary_only_when_the_session_is_active(pytester: pytest.Pytester, run_pytest, monkeypatch) -> None:
    write(pytester.path)
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    gh = pytester.path / "gh.md"
    gh.write_text("")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(gh))
    run_pytest("test_plain.py").assert_outcomes(passed=1)
    assert gh.read_text() == ""  # the plugin session is not active: nothing written
    pytester.makeini("[pytest]\nare_md_summary = ini-summary.md\n")
    run_pytest("--are-scenarios=sc")
    assert "sc/mail.yaml::mail[run_3]" in (pytester.path / "ini-summary.md").read_text()
    assert gh.read_text() == (pytester.path / "ini-summary.md").read_text() + "\n"


def test_plugin_html_in_headless_chromium_with_baseline_status(pytester: pytest.Pytester, run_pytest) -> None:
    """A session's page in a real browser: ?status= filter, repeats table, and per-run baseline
    status badges (regressed / improved / still failing / unchanged / new)."""
    needs_chromium()
    write(pytester.path)
    run_pytest("--are-scenarios=sc", "--are-save-baseline=base.json")
    # run_1 now fails (regressed), run_3 now passes (improved)
    runs = {"run_1": "z@x.org", "run_2": "a@x.org", "run_3": "a@x.org", "run_4": "c@x.org", "run_5": "a@x.org"}
    (pytester.path / "sc" / "mail.yaml").write_text(mail_scenario_yaml(runs, expect_fail=("run_4",)))
    run_pytest("--are-scenarios=sc", "--are-baseline=base.json", "--are-html=report.html")
    page = pytester.path / "report.html"
    dom = chromium(["--dump-dom", page.as_uri() + "?status=error"]).stdout
    assert 'data-rendered="7"' in dom, dom[:2000]
    assert "2 of 7 runs shown" in dom  # ?status=error: the could-not-judge run and the load error
    assert 'id="repeats-table"' in dom and '<tr data-scenario="mail"' in dom
    rows = re.findall(r'<tr data-status="(\w+)" data-kind="[^"]*" data-index="(\d+)" data-baseline="([^"]*)"', dom)
    data = page_data(page.read_text())
    by_index = {data["runs"][int(i)]["nodeid"]: b for _, i, b in rows}
    assert by_index["sc/mail.yaml::mail[run_1]"] == "regressed"
    assert by_index["sc/mail.yaml::mail[run_3]"] == "improved"
    assert by_index["sc/mail.yaml::mail[run_2]"] == "unchanged"
    assert by_index["sc/mail.yaml::mail[run_5]"] == "new"
    assert by_index["sc/odd.yaml::odd[r]"] == "still failing"
    assert 'class="badge b-regressed"' in dom
