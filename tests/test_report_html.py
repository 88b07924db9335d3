"""Reports drawn only from judgments: the trace the judge records, the run records, Markdown
(through a real CommonMark parser), the HTML page, and the page in headless Chromium."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from browser import chromium, needs_chromium
from conformance import CASES

from pytest_are_judge._text import visible
from pytest_are_judge.pipeline import Pipeline
from pytest_are_judge.readers import load_runs
from pytest_are_judge.report import build_report, mermaid_graph, render_html, render_markdown, run_record
from pytest_are_judge.report.markdown import code
from pytest_are_judge.report.record import display_status

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "example_scenarios"
SCREENSHOTS = ROOT / "docs" / "img"


def case_record(name: str) -> dict:
    runs, errors = load_runs([CASES / name / "agent.json"], oracle_path=CASES / name / "oracle.json")
    assert not errors
    return dict(run_record(Pipeline().judge_run(runs[0])))


def example_records() -> dict[str, dict]:
    runs, errors = load_runs([EXAMPLES])
    assert not errors
    return {f"{r.scenario.scenario_id}:{r.run_id}": dict(run_record(Pipeline().judge_run(r))) for r in runs}


def nodes(rec: dict) -> dict[str, dict]:
    return {n["id"]: n for n in rec["trace"]["oracle"]}


def test_count_failure_marks_the_tool_rejected_and_the_rest_not_reached():
    rec = case_record("cab__drop__oracle_cancel")
    assert rec["verdict"] == "fail" and rec["failure_kind"] == "tool_count"
    states = {i: n["state"] for i, n in nodes(rec).items()}
    assert states["oracle_cancel"] == "rejected"
    assert states["oracle_order"] == "not_reached"  # never tried: the turn's counts differ
    assert "counts differ" in nodes(rec)["oracle_order"]["note"]


def test_time_failure_has_its_checked_window_around_the_expected_time():
    rec = case_record("cab__time_shift_out__oracle_order_plus26")
    n = nodes(rec)
    assert n["user_msg_0"]["state"] == "matched" and n["user_msg_0"]["window"] is None  # not time-checked
    order = n["oracle_order"]
    assert order["state"] == "rejected"
    lo, hi = order["window"]
    tol = rec["trace"]["tolerances"]
    assert hi - lo == pytest.approx(tol["pre"] + tol["post"])
    assert lo <= order["expected_time"] <= hi  # the dot is inside its own window
    agent = [e for e in rec["trace"]["agent"] if e["tool"] == order["tool"]]
    assert agent and all(e["time"] > hi for e in agent)  # shifted out of the window
    assert "oracle_order" in rec["failure_text"]
    json.dumps(rec)


def test_multi_turn_events_are_placed_in_the_agents_time_frame():
    recs = example_records()
    good = recs["team_dinner:good"]
    n = nodes(good)
    agent = {e["id"]: e for e in good["trace"]["agent"]}
    turn1_msg = agent["ask_announce"]
    assert turn1_msg["turn"] == 1 and turn1_msg["time"] == pytest.approx(30)
    assert n["create_group"]["turn"] == 1
    # expected after the turn-1 user message the agent received at t=30 (not at the oracle's t=~5)
    assert n["create_group"]["expected_time"] >= turn1_msg["time"]
    assert n["create_group"]["oracle_time"] < turn1_msg["time"]
    assert n["ask_announce"]["type"] == "USER" and n["ask_announce"]["state"] == "matched"
    for node in n.values():
        if node["window"] is not None:
            lo, hi = node["window"]
            assert (lo is None or lo <= node["expected_time"]) and (hi is None or node["expected_time"] <= hi)


def test_not_reached_after_a_failure_and_windows_only_where_checked():
    recs = example_records()
    late = recs["team_dinner:booked_too_late"]
    states = {i: n["state"] for i, n in nodes(late).items()}
    assert states["ask_book"] == "matched" and states["book"] == "rejected"
    assert late["trace"]["turns_judged"] == 1
    turn1 = [n for n in late["trace"]["oracle"] if n["turn"] == 1]
    assert turn1 and all(n["state"] == "not_reached" and n["window"] is None for n in turn1)
    wrong = recs["code_judge_meeting_moved:wrong_time"]
    assert {i: n["state"] for i, n in nodes(wrong).items()} == {
        "user_msg": "matched",
        "send": "rejected",
        "reply": "not_reached",
    }


def test_records_are_bounded_whatever_the_agent_wrote():
    recs = example_records()
    rec = recs["new_client_ride:premium_instead_of_default"]
    assert len(json.dumps(rec)) < 100_000
    from pytest_are_judge._text import bounded

    big = bounded({"a": "x" * 1_000_000, "n": 10**5000, "l": list(range(10_000))})
    text = json.dumps(big)
    assert len(text) < 10_000 and "1000000 chars" in text and "bits" in text and "more items" in text


INJECTION = {
    "img": "<img src=x onerror=alert(1)>",
    "js_link": "[click](javascript:alert(1))",
    "autolink": "<https://evil.example/steal>",
    "html_block": "<script>alert(1)</script>",
    "ticks": "``` </details> <a href='x'>y</a> ```",
    "pipe": "a | b | <b>c</b>",
}


def evil_record() -> dict:
    text = " ".join(INJECTION.values())
    rec = case_record("cab__arg__oracle_order__ride_time_other")  # a failing run, with a trace
    rec.update(scenario_id=f"sc {INJECTION['img']}", run_id=INJECTION["js_link"], failure_text=text + "\x1b[31mred")
    rec["trace"]["oracle"][0]["id"] = INJECTION["html_block"]
    rec["categories"] = [INJECTION["pipe"]]
    return rec


def test_markdown_makes_agent_text_inert():
    from markdown_it import MarkdownIt

    md = render_markdown(build_report([evil_record()]))
    html = MarkdownIt("commonmark").enable("table").render(md)
    # only our own markup survives: no element, link or image from the run
    assert not re.search(r"<(img|script|a)\b", html), html
    assert "javascript:" not in re.sub(r"<code[^>]*>.*?</code>", "", html, flags=re.S)
    assert "\x1b" not in md and "\\x1b[31mred" in md
    assert "<details><summary>Failure report</summary>" in md  # ours, and still closed properly
    assert html.count("<details>") == html.count("</details>") == 1
    table_rows = [line for line in md.splitlines() if line.startswith("| ❌")]
    assert table_rows and all(line.count(" | ") == 5 for line in table_rows)  # the pipes stayed escaped
    assert code("a`b") == "``a`b``" and code("`x`") == "`` `x` ``"


def test_mermaid_labels_are_entity_escaped():
    g = mermaid_graph(evil_record())
    assert g.startswith("graph TD") and "classDef rejected" in g
    assert "<script>" not in g and "#lt;script#gt;" in g


def test_markdown_counts_expected_failures_apart_and_load_errors_have_a_title():
    recs = list(example_records().values())
    md = render_markdown(build_report(recs))
    assert "**0 failed**" in md and "failed as expected (declared known-bad)" in md
    assert "All runs passed or failed as declared" in md
    from pytest_are_judge.errors import InputError
    from pytest_are_judge.judgment.result import Judgment

    broken = dict(run_record(Judgment.for_input_error(InputError("bad", file="sc/broken.json"), run_id="load_error")))
    md = render_markdown(build_report([broken]))
    assert "None" not in md.split("###", 1)[1].splitlines()[0]
    assert "### ⚠️ `sc/broken.json` (could not be read)" in md


def test_terminal_rendering_shows_control_characters():
    runs, _ = load_runs([CASES / "cab__arg__oracle_order__ride_time_other" / "agent.json"])
    j = Pipeline().judge_run(runs[0])
    j.failure.comparison_failures[0].agent_event_id = "evil\x1b[2J\x07"  # type: ignore[union-attr]
    text = j.render()
    assert "\x1b" not in text and "\x07" not in text and "\\x1b[2J\\x07" in text
    assert visible("a\u202eb") == "a\\u202eb"


def test_html_is_self_contained_and_escapes_data():
    report = build_report([evil_record()], title="ARE judge report </script><b>x</b>")
    page = render_html(report)
    assert page.count("<script") == 2 and "</script><b>" not in page
    assert "&lt;/script&gt;&lt;b&gt;x&lt;/b&gt;" in page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page), "no external resources"
    data = re.search(r'<script type="application/json" id="are-report-data">(.*?)</script>', page, re.S).group(1)
    assert json.loads(data)["runs"] == json.loads(json.dumps(report["runs"]))
    assert "innerHTML" not in page  # the page never parses run text as markup


def _attr_map(dom: str, tag: str, key: str, value: str) -> dict[str, str]:
    out = {}
    for m in re.finditer(rf"<{tag}\b[^>]*>", dom):
        attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', m.group(0)))
        if key in attrs and value in attrs:
            out[attrs[key]] = attrs[value]
    return out


def test_examples_render_in_headlesschromium(tmp_path: Path) -> None:
    """The bundled examples (a multi-turn run, a not-reached case, a time failure, xfails) in a
    real browser: the DOM state of nodes, lanes and badges, and a screenshot."""
    needs_chromium()
    recs = list(example_records().values())
    page = tmp_path / "report.html"
    page.write_text(render_html(build_report(recs, title="example scenarios")))
    dom = chromium(["--dump-dom", page.as_uri()], tmp_path).stdout
    n = len(recs)
    assert f'data-rendered="{n}"' in dom, dom[:2000]
    assert 'data-overall="green"' in dom  # passes and declared expected failures only
    statuses = re.findall(r'<tr data-status="(\w+)"', dom)
    assert sorted(statuses) == sorted(display_status(r) for r in recs)
    assert set(statuses) == {"passed", "xfailed"} and statuses.count("xfailed") >= 11
    assert 'class="badge s-failed"' not in dom  # an expected failure never wears the red badge
    assert "expected failure" in dom and 'data-total="expected_failures"' in dom
    # team_dinner:booked_too_late: the booking rejected, the second turn never reached
    idx = [k for k in example_records()].index("team_dinner:booked_too_late")
    run = dom.split(f'id="run-{idx}"', 1)[1].split('<details class="run"', 1)[0]
    node_states = _attr_map(run, "g", "data-id", "data-state")
    assert node_states["book"] == "rejected" and node_states["create_group"] == "not_reached"
    assert node_states["ask_book"] == "matched"
    lanes = dict(
        re.findall(r'<g class="lane oracle-lane[^"]*" data-id="([^"]+)" data-state="\w+" data-window="(\w+)"', run)
    )
    assert lanes["book"] == "checked" and lanes["create_group"] == "none"
    assert 'class="lane agent-lane"' in run
    good = dom.split(f'id="run-{list(example_records()).index("team_dinner:good")}"', 1)[1].split(
        '<details class="run"', 1
    )[0]
    assert 'class="turn"' in good and ">turn 1<" in good  # the turn boundary is drawn
    shot = tmp_path / "report.png"
    chromium(
        [
            "--hide-scrollbars",
            "--window-size=1280,1700",
            "--virtual-time-budget=5000",
            f"--screenshot={shot}",
            page.as_uri() + "?q=booked_too_late",
        ],
        tmp_path,
    )
    assert shot.is_file() and shot.stat().st_size > 10_000
    if os.environ.get("UPDATE_SCREENSHOTS"):
        SCREENSHOTS.mkdir(exist_ok=True)
        shutil.copyfile(shot, SCREENSHOTS / "report.png")


def test_many_runs_collapse_but_links_and_filters_open_them(tmp_path: Path) -> None:
    needs_chromium()
    recs = list(example_records().values()) * 2  # every run collapsed
    page = tmp_path / "many.html"
    page.write_text(render_html(build_report(recs)))
    dom = chromium(["--dump-dom", page.as_uri() + "#run-30"], tmp_path).stdout
    opened = re.findall(r'<details class="run" id="run-(\d+)"[^>]*\sopen', dom)
    assert opened == ["30"]
    dom = chromium(["--dump-dom", page.as_uri() + "?q=booked_too_late"], tmp_path).stdout
    opened = re.findall(r'<details class="run" id="run-(\d+)"[^>]*\sopen', dom)
    assert len(opened) == 2 and f"2 of {len(recs)} runs shown" in dom


def test_run_notes_are_listed_as_text(tmp_path: Path) -> None:
    needs_chromium()
    rec = dict(next(iter(example_records().values())))
    rec["notes"] = ["time not checked (order): the agent log has no timestamps", "<img src=x onerror=alert(1)>"]
    page = tmp_path / "notes.html"
    page.write_text(render_html(build_report([rec])))
    dom = chromium(["--dump-dom", page.as_uri() + "#run-0"], tmp_path).stdout
    assert '<ul class="notes"><li>time not checked (order): the agent log has no timestamps</li>' in dom
    assert "<li>&lt;img src=x onerror=alert(1)&gt;</li>" in dom and "<img src=x" not in dom
