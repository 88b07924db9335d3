"""xdist parity, in one place: the same session with ``-n 0`` and ``-n 2`` (real subprocesses)
gives the same outcomes, terminal summary, JSON report, baseline, junit properties, HTML and
Markdown.  Every other plugin test runs in-process without xdist."""

from __future__ import annotations

import json
import re
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from builders import UNREGISTERED_TOOL_SCENARIO, mail_scenario_yaml

PASS, FAIL = "a@x.org", "b@x.org"
BROKEN_TOOL = UNREGISTERED_TOOL_SCENARIO
USAGE = textwrap.dedent(
    """
    def pytest_are_judge_judgment(item, run, judgment):
        from pytest_are_judge.soft import usage
        usage.record(calls=2, prompt_tokens=10, cost_usd=0.5)
    """
)


def write(root: Path) -> None:
    """mail: 4 repeats (one fails), a known-bad variant; a run that cannot be judged; a file
    that is not a scenario; and a huge agent value (bounded in every report)."""
    sc = root / "sc"
    sc.mkdir()
    runs = {"run_1": PASS, "run_2": PASS, "run_3": FAIL, "run_4": PASS, "known": FAIL}
    (sc / "mail.yaml").write_text(mail_scenario_yaml(runs, expect_fail=("known",)))
    (sc / "odd.yaml").write_text(BROKEN_TOOL)
    (sc / "broken.json").write_text('{"hello": "not a scenario"}')
    huge = mail_scenario_yaml({"huge": "x" * 300_000 + "@x.org"}, sid="huge")
    (sc / "huge.yaml").write_text(huge)


def session(pytester: pytest.Pytester, workers: int, tag: str) -> tuple[pytest.RunResult, dict]:
    extra = ["-n", str(workers)] if workers else ["-p", "no:xdist"]
    result = pytester.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        *extra,
        "--are-scenarios=sc",
        "--are-min-pass-hat-k=0.4",
        f"--are-report={tag}.json",
        f"--are-save-baseline={tag}-base.json",
        f"--are-html={tag}.html",
        f"--are-md-summary={tag}.md",
        f"--junitxml={tag}.xml",
    )
    files = {
        "report": json.loads((pytester.path / f"{tag}.json").read_text()),
        "baseline": json.loads((pytester.path / f"{tag}-base.json").read_text()),
        "md": (pytester.path / f"{tag}.md").read_text(),
        "html": re.search(
            r'id="are-report-data">(.*?)</script>', (pytester.path / f"{tag}.html").read_text(), re.S
        ).group(1),
        "junit": sorted(
            (p.get("name"), p.get("value")) for p in ET.parse(pytester.path / f"{tag}.xml").getroot().iter("property")
        ),
    }
    return result, files


def summary_section(result: pytest.RunResult) -> list[str]:
    lines = result.stdout.lines
    start = next(i for i, line in enumerate(lines) if "are-judge summary" in line)
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("="))
    keep = lines[start:end]
    return [re.sub(r"n[02](\.json|-base\.json|\.html|\.md)", r"nX\1", line) for line in keep]


def _timeless(run: dict) -> dict:
    return {k: v for k, v in run.items() if k != "judge_seconds"}


def _stable(report: dict) -> dict:
    report = dict(report)
    report.pop("created")
    report["runs"] = [_timeless(r) for r in report["runs"]]
    report["settings"] = re.sub(r"/[^ ,]*/", "/", report["settings"]).replace("n0", "nX").replace("n2", "nX")
    return report


def test_sessions_are_identical_with_and_without_xdist(pytester: pytest.Pytester) -> None:
    write(pytester.path)
    pytester.makeconftest(USAGE)
    r0, f0 = session(pytester, 0, "n0")
    r2, f2 = session(pytester, 2, "n2")
    for r in (r0, r2):
        r.assert_outcomes(passed=3, failed=1, xfailed=2, errors=2)  # run_3: the pass^k gate decides; known: declared
        assert r.ret == pytest.ExitCode.OK  # saving a baseline records: it does not gate
        assert "INTERNALERROR" not in r.stdout.str() + r.stderr.str()
    assert summary_section(r0) == summary_section(r2)
    assert any(line.startswith("repeated runs (k=4)") for line in summary_section(r0))
    assert _stable(f0["report"]) == _stable(f2["report"])
    assert f0["baseline"] == f2["baseline"]
    assert f0["md"] == f2["md"] and f0["junit"] == f2["junit"]
    html0, html2 = (json.loads(f["html"]) for f in (f0, f2))
    assert [_timeless(r) for r in html0["runs"]] == [_timeless(r) for r in html2["runs"]]
    report = f0["report"]
    assert report["llm_usage"]["calls"] == 2 * len([r for r in report["runs"] if r["scenario_id"]])
    huge = next(r for r in report["runs"] if r["scenario_id"] == "huge")
    assert huge["verdict"] == "fail" and len(json.dumps(huge)) < 60_000  # bounded between processes too
    assert "chars)" in json.dumps(huge)  # the cut says how long the value was
