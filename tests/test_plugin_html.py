"""--are-html and --are-md-summary (and $GITHUB_STEP_SUMMARY) from the plugin: views built where
the run was judged, sent with the test reports, assembled on the controller."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
import textwrap
from pathlib import Path

import pytest
from builders import mail_scenario_yaml

ODD = textwrap.dedent(
    """
    format: are-judge/scenario-v1
    scenario_id: odd
    events:
      - {id: u, type: user, tool: AgentUserInterface.send_message_to_agent, args: {content: hi}}
      - {id: x, tool: NoSuchApp.do_thing, after: [u], args: {a: 1}}
    runs:
      - id: r
        events:
          - {id: u, type: user, tool: AgentUserInterface.send_message_to_agent, time: 0, args: {content: hi}}
          - {tool: NoSuchApp.do_thing, time: 1, args: {a: 1}}
    """
)
NODEIDS = {
    "passes_1": "sc/mail.yaml::mail[run_1]",
    "passes_2": "sc/mail.yaml::mail[run_2]",
    "fails": "sc/mail.yaml::mail[run_3]",
    "xfails": "sc/mail.yaml::mail[run_4]",
    "could_not_judge": "sc/odd.yaml::odd[r]",
    "load_error": "sc/broken.json::load_error",
}
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)


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
    views = {v["nodeid"]: v for v in data["runs"]}
    assert set(views) == set(NODEIDS.values())
    assert [v["nodeid"] for v in data["runs"]] == sorted(views)
    fails, xfails = views[NODEIDS["fails"]], views[NODEIDS["xfails"]]
    assert fails["status"] == "failed" and fails["outcome"] == "failed" and fails["scenario_id"] == "mail"
    assert "Agent did not perform the following oracle tool call" in fails["failure_text"]
    assert {n["id"]: n["status"] for n in fails["oracle_nodes"]} == {"u": "matched", "send": "failed"}
    assert xfails["outcome"] == "xfailed" and xfails["run_number"] == 4
    assert views[NODEIDS["passes_1"]]["status"] == "passed" and views[NODEIDS["passes_1"]]["failure_text"] == ""
    cnj = views[NODEIDS["could_not_judge"]]
    assert cnj["status"] == "error" and cnj["outcome"] == "error" and "NoSuchApp__do_thing" in cnj["failure_text"]
    load = views[NODEIDS["load_error"]]
    assert load["status"] == "error" and load["outcome"] == "error" and "cannot load scenario" in load["failure_text"]
    assert data["summary"]["total"] == 6 and data["summary"]["error"] == 2 and data["summary"]["pass rate"] == "33.3%"
    # repeats: mail has 4 numbered runs, 2 passed -> k=4: pass@4 = 1, pass^4 = 0
    assert data["repeats"]["k"] == 4 and data["repeats"]["scenarios"]["mail"]["n"] == 4
    assert data["repeats"]["overall"]["pass_at_k"] == 1.0 and data["repeats"]["overall"]["pass_hat_k"] == 0.0

    md = (pytester.path / "out" / "summary.md").read_text()
    assert md.startswith("## pytest-are-judge report")
    assert "**2 passed**, **2 failed** (1 expected: declared known-bad), **2 errors** of 6 run(s)." in md
    assert "run_4 (expected to fail)" in md
    # a graph per failing run that has one: run_3, run_4 and odd[r] (its oracle plan is drawable;
    # the unknown tool only fails the judging); the load error has none
    assert md.count("```mermaid") == 3 and views[NODEIDS["load_error"]]["oracle_nodes"] == []
    for key in ("fails", "xfails", "could_not_judge", "load_error"):
        assert f"`{NODEIDS[key]}`" in md, key
    assert "`sc/mail.yaml::mail[run_3]` · pytest: failed" in md and "pytest: xfailed" in md
    assert "### Repeated runs (k=4)" in md and "| mail | 4 | 2 | 100.0% | 0.0% |" in md
    assert NODEIDS["passes_1"] not in md  # passing runs are not detailed
    assert gh.read_text() == "previous step\n" + md + "\n"  # appended to the step summary


def test_reports_are_identical_with_xdist(pytester: pytest.Pytester) -> None:
    write(pytester.path)
    pages, mds = [], []
    for i, extra in enumerate((("-p", "no:xdist"), ("-n", "2"))):
        result = pytester.runpytest_subprocess(
            "-p", "no:cacheprovider", *extra, "--are-scenarios=sc", f"--are-html=r{i}.html", f"--are-md-summary=s{i}.md"
        )
        result.assert_outcomes(passed=2, failed=1, xfailed=1, errors=2)
        data = page_data((pytester.path / f"r{i}.html").read_text())
        pages.append(data)
        mds.append((pytester.path / f"s{i}.md").read_text())
    assert len(pages[0]["runs"]) == 6
    assert pages[0] == pages[1]
    assert mds[0] == mds[1]


def test_views_only_when_asked_and_step_summary_only_when_active(pytester: pytest.Pytester, monkeypatch) -> None:
    write(pytester.path)
    pytester.makeconftest(
        "import pathlib\n"
        "def pytest_runtest_logreport(report):\n"
        "    if getattr(report, 'are_judge_view', None) is not None:\n"
        "        pathlib.Path('views-sent').touch()\n"
    )
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    args = ("-p", "no:xdist", "-p", "no:cacheprovider")
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    pytester.runpytest_subprocess(*args, "--are-scenarios=sc").assert_outcomes(passed=2, failed=1, xfailed=1, errors=2)
    assert not (pytester.path / "views-sent").exists()  # records stay small
    pytester.runpytest_subprocess(*args, "--are-scenarios=sc", "--are-html=r.html")
    assert (pytester.path / "views-sent").exists() and (pytester.path / "r.html").is_file()
    gh = pytester.path / "gh.md"
    gh.write_text("")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(gh))
    pytester.runpytest_subprocess(*args, "test_plain.py").assert_outcomes(passed=1)
    assert gh.read_text() == ""  # the plugin session is not active: nothing written
    pytester.makeini("[pytest]\nare_md_summary = ini-summary.md\n")
    pytester.runpytest_subprocess(*args, "--are-scenarios=sc")
    assert "sc/mail.yaml::mail[run_3]" in (pytester.path / "ini-summary.md").read_text()
    assert gh.read_text() == (pytester.path / "ini-summary.md").read_text() + "\n"


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary (apt-get install -y chromium)")
def test_plugin_html_renders_in_headless_chromium(pytester: pytest.Pytester, tmp_path) -> None:
    write(pytester.path)
    pytester.runpytest_subprocess(
        "-p", "no:xdist", "-p", "no:cacheprovider", "--are-scenarios=sc", "--are-html=report.html"
    )
    page = pytester.path / "report.html"
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    cmd = [
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
        "--dump-dom",
        page.as_uri() + "?status=error",
    ]
    try:
        dom = subprocess.run(cmd, capture_output=True, text=True, timeout=120).stdout
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    assert 'data-rendered="6"' in dom, dom[:2000]
    assert "2 of 6 runs shown" in dom  # ?status=error: the could-not-judge run and the load error
    assert dom.count("<tr data-status=") == 6
    assert 'id="repeats-table"' in dom and '<tr data-scenario="mail"' in dom
    assert "Repeated runs (k=4): pass@4 100.0%, pass^4 0.0%" in dom
    assert "sc/mail.yaml::mail[run_3]" in dom and "pytest: xfailed" in dom
    assert '<g class="node n-failed"' in dom
