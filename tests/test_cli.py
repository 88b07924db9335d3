"""The offline command-line judge: output formats and exit codes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conformance import CASES, TRACES

from pytest_are_judge.cli import main

PASS_CASE = CASES / "calendar__replay__renamed_ids"
FAIL_CASE = CASES / "cab__reorder_violating__swap_oracle_order_oracle_cancel"


def test_json_lines_have_the_documented_fields(capsys):
    code = main([str(PASS_CASE), str(FAIL_CASE), "--json"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 1
    assert len(lines) == 2
    for d in lines:
        assert {"path", "scenario_id", "success", "failure", "failure_kind", "matches"} <= d.keys()
    by_ok = {d["success"]: d for d in lines}
    assert by_ok[True]["failure"] is None and by_ok[True]["matches"]["user_msg_0"] == "user_msg_0"
    assert by_ok[False]["failure_kind"] == "oracle_event_matching"
    assert by_ok[False]["failure"].startswith("Failure: Agent did not perform")


def test_all_pass_exits_zero_and_prints_a_table(capsys):
    assert main([str(PASS_CASE)]) == 0
    out = capsys.readouterr().out
    assert "PASS" in out and "hx_calendar" in out and "1 run(s): 1 pass" in out


def test_failure_prints_the_rich_report(capsys):
    assert main([str(FAIL_CASE), "--no-color"]) == 1
    out = capsys.readouterr().out
    assert "Closest candidate:" in out and "reason: causality" in out


def test_input_error_exits_two_with_file_name(tmp_path, capsys):
    bad = tmp_path / "broken.json"
    bad.write_text("{")
    assert main([str(bad)]) == 2
    out = capsys.readouterr().out
    assert "ERROR" in out and "broken.json" in out and "cannot parse JSON" in out
    assert "Traceback" not in out


def test_usage_errors_exit_two(capsys):
    assert main([]) == 2
    assert main(["--limit", "0", str(PASS_CASE)]) == 2
    with pytest.raises(SystemExit) as ei:
        main(["--matching", "perfect", str(PASS_CASE)])
    assert ei.value.code == 2


def test_oracle_only_folder_explains_itself(capsys):
    assert main([str(TRACES)]) == 2
    assert "oracle-run trace(s) found" in capsys.readouterr().err


def test_named_oracle_trace_is_self_checked(capsys):
    assert main([str(TRACES / "cab.json")]) == 0


def test_explicit_oracle_option(tmp_path, capsys):
    shutil.copy(FAIL_CASE / "agent.json", tmp_path / "run.json")
    assert main([str(tmp_path / "run.json"), "--oracle", str(FAIL_CASE / "oracle.json"), "--json"]) == 1
    d = json.loads(capsys.readouterr().out)
    assert "causality" in d["failure"]


def test_output_dir_and_limit(tmp_path, capsys):
    out = tmp_path / "out"
    code = main([str(CASES), "--limit", "3", "--output-dir", str(out), "--json"])
    files = sorted(out.glob("*.json"))
    assert len(files) == 3 and code in (0, 1)
    assert all("success" in json.loads(f.read_text()) for f in files)


def test_config_file_and_matching(tmp_path, capsys):
    cfg = tmp_path / "judge.yaml"
    cfg.write_text("extra_send_message_to_user_allowed: 0\npost_event_tolerance_seconds: 5\n")
    assert main([str(PASS_CASE), "--config", str(cfg), "--matching", "exact"]) == 0
    cfg.write_text("no_such_option: 1\n")
    assert main([str(PASS_CASE), "--config", str(cfg)]) == 2
    assert "no_such_option" in capsys.readouterr().err


def test_python_dash_m_entry_point():
    r = subprocess.run(
        [sys.executable, "-m", "pytest_are_judge", str(PASS_CASE), "--json"], capture_output=True, text=True
    )
    assert r.returncode == 0 and json.loads(r.stdout)["success"] is True


def test_html_and_markdown_reports(tmp_path, capsys, monkeypatch):
    summary = tmp_path / "gh_summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    html, md = tmp_path / "r.html", tmp_path / "r.md"
    assert main([str(PASS_CASE), str(FAIL_CASE), "--html", str(html), "--md-summary", str(md)]) == 1
    page = html.read_text()
    assert "<script" in page and "hx_calendar" in page
    assert "https://cdn" not in page
    text = md.read_text()
    assert "hx_cab" in text and "graph TD" in text
    assert summary.read_text().strip() == text.strip()  # appended to GitHub's step summary too


def test_hf_dataset_pairs_runs_by_scenario_id(tmp_path, capsys, monkeypatch):
    datasets = pytest.importorskip("datasets")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    oracle = json.loads((FAIL_CASE / "oracle.json").read_text())
    datasets.Dataset.from_list([{"scenario_id": "hx_cab", "data": json.dumps(oracle)}]).save_to_disk(
        str(tmp_path / "ds")
    )
    shutil.copy(FAIL_CASE / "agent.json", tmp_path / "run.json")
    assert main([str(tmp_path / "run.json"), "--hf", str(tmp_path / "ds"), "--json"]) == 1
    d = json.loads(capsys.readouterr().out)
    assert "causality" in d["failure"]
    assert main([str(tmp_path / "run.json"), "--hf", str(tmp_path / "missing")]) == 2


REPEATED = """format: are-judge/scenario-v1
scenario_id: {sid}
events:
  - {{id: u, type: user, tool: AgentUserInterface.send_message_to_agent, args: {{content: go}}}}
  - {{id: del, tool: EmailClientV2.delete_email, after: [u], args: {{email_id: e1}}}}
runs:
{runs}
"""


def _repeated(tmp_path, sid, verdicts):
    runs = []
    for i, ok in enumerate(verdicts, 1):
        runs.append(
            f"  - id: run_{i}\n    events:\n"
            "      - {id: u, type: user, tool: AgentUserInterface.send_message_to_agent, time: 0, args: {content: go}}\n"
            f"      - {{tool: EmailClientV2.delete_email, time: 1, args: {{email_id: {'e1' if ok else 'e2'}}}}}\n"
        )
    path = tmp_path / f"{sid}.yaml"
    path.write_text(REPEATED.format(sid=sid, runs="".join(runs)))
    return path


def test_repeated_runs_report_pass_at_k_and_pass_hat_k(tmp_path, capsys):
    _repeated(tmp_path, "flaky", [True, True, False, True])  # n=4, c=3
    _repeated(tmp_path, "solid", [True, True])  # n=2, c=2
    assert main([str(tmp_path), "--no-color"]) == 1  # a failing run fails without a pass^k gate
    out = capsys.readouterr().out
    # default k = smallest repeated run count = 2: flaky pass@2 = 1 - C(1,2)/C(4,2) = 1,
    # pass^2 = C(3,2)/C(4,2) = 0.5; solid 1 and 1; overall means 1 and 0.75
    assert "repeated runs (k=2): pass@2 100.0%  pass^2 75.0%  (2 of 2 scenario(s) scored, 6 runs)" in out
    flaky = next(line for line in out.splitlines() if line.lstrip().startswith("flaky "))
    assert flaky.split() == ["flaky", "4", "3", "100.0%", "50.0%"]

    assert main([str(tmp_path), "--k", "3", "--output-dir", str(tmp_path / "out"), "--json"]) == 1
    data = json.loads((tmp_path / "out" / "_repeats.json").read_text())
    assert data["k"] == 3
    assert data["scenarios"]["flaky"]["pass_hat_k"] == pytest.approx(1 / 4)  # C(3,3)/C(4,3)
    assert data["scenarios"]["solid"]["pass_hat_k"] is None  # only 2 runs < k
    assert data["overall"]["scored"] == 1


def test_min_pass_hat_k_gate_decides_the_exit_status(tmp_path, capsys):
    _repeated(tmp_path, "flaky", [True, True, False, True])
    _repeated(tmp_path, "solid", [True, True])
    assert main([str(tmp_path), "--min-pass-hat-k", "70%"]) == 0  # 0.75 >= 0.70, failures tolerated
    assert "pass^k gate OK: pass^k 75.0% >= --min-pass-hat-k 70.0%" in capsys.readouterr().out
    assert main([str(tmp_path), "--min-pass-hat-k", "0.8"]) == 1
    assert "FAILED: pass^k 75.0% is below --min-pass-hat-k 80.0%" in capsys.readouterr().out
    assert main([str(tmp_path), "--min-pass-hat-k", "0.8", "--json"]) == 1
    assert "is below --min-pass-hat-k 80.0%" in capsys.readouterr().err
    assert main([str(tmp_path), "--min-pass-hat-k", "1.5"]) == 2
    assert main([str(tmp_path), "--k", "0"]) == 2
    single = tmp_path / "single"
    single.mkdir()
    _repeated(single, "once", [True])
    assert main([str(single), "--min-pass-hat-k", "0.5"]) == 1  # no repeats: the gate cannot pass
    assert "pass^k cannot be computed" in capsys.readouterr().out


def test_variants_of_one_scenario_are_not_taken_for_repeats(capsys):
    # the conformance cases hold many unnumbered variants of the same scenario ids
    main([str(CASES), "--limit", "6", "--no-color"])
    assert "repeated runs" not in capsys.readouterr().out
    main([str(CASES), "--limit", "6", "--no-color", "--k", "2"])  # asked for: shown
    assert "repeated runs (k=2):" in capsys.readouterr().out


def test_bundled_examples_meet_their_expectations_in_the_cli_too(capsys):
    # the same verdicts as `pytest --are-scenarios=example_scenarios`: passes, and known-bad runs
    # (expect: fail, or .xfail. in an ARE trace's file name) rejected as expected
    examples = Path(__file__).resolve().parent.parent / "example_scenarios"
    assert main([str(examples), "--no-color"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "agent_forgot_ride.xfail" in line)
    assert row.startswith("XFAIL")
    assert not [line for line in out.splitlines() if line.startswith(("FAIL ", "XPASS", "ERROR"))]


# ------------------------------------------------------------------ long runs: streaming, progress


def test_json_lines_stream_as_each_run_is_judged(tmp_path, capsys):
    """Each run's JSON line is written before the next run is judged (a checker registered
    through the public API marks when judging happens on the same stream)."""
    from builders import mail_scenario_yaml

    from pytest_are_judge.checkers import register_checker

    def probe(agent: object, oracle: object, **_: object) -> bool:
        print(f"JUDGING {agent}")
        return agent == oracle

    register_checker("probe_checker", probe)
    cfg = tmp_path / "cfg.json"
    cfg.write_text(
        json.dumps({"per_tool_arg_to_checker_type": {"EmailClientV2__send_email": {"subject": "probe_checker"}}})
    )
    (tmp_path / "mail.yaml").write_text(mail_scenario_yaml({"r1": "a@x.org", "r2": "a@x.org", "r3": "a@x.org"}))
    assert main([str(tmp_path / "mail.yaml"), "--json", "--config", str(cfg)]) == 0
    lines = capsys.readouterr().out.splitlines()
    kinds = ["judging" if line.startswith("JUDGING") else json.loads(line)["run_id"] for line in lines]
    assert kinds == ["judging", "r1", "judging", "r2", "judging", "r3"]


def test_a_progress_line_on_a_terminal_only(tmp_path):
    import os
    import pty
    import subprocess
    import sys

    from builders import mail_scenario_yaml

    (tmp_path / "mail.yaml").write_text(mail_scenario_yaml({f"r{i}": "a@x.org" for i in range(25)}))
    primary, secondary = pty.openpty()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest_are_judge", str(tmp_path), "--no-color"],
        stdout=subprocess.PIPE,
        stderr=secondary,
        timeout=120,
    )
    os.close(secondary)
    err = b""
    while True:
        try:
            chunk = os.read(primary, 4096)
        except OSError:
            break
        if not chunk:
            break
        err += chunk
    os.close(primary)
    assert proc.returncode == 0
    assert b"are-judge: judged 25/25" in err and b"\r" in err
    assert b"judged" not in proc.stdout  # stdout stays clean
    piped = subprocess.run(
        [sys.executable, "-m", "pytest_are_judge", str(tmp_path), "--no-color"], capture_output=True, timeout=120
    )
    assert b"judged" not in piped.stderr  # not a terminal: no progress line


def test_hf_run_without_a_dataset_scenario_errors_that_run_only(tmp_path, capsys, monkeypatch):
    datasets = pytest.importorskip("datasets")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    data = json.loads((CASES / "cab__drop__oracle_cancel" / "oracle.json").read_text())
    rows = [{"scenario_id": data["metadata"]["definition"]["scenario_id"], "data": json.dumps(data)}]
    datasets.Dataset.from_list(rows).save_to_disk(str(tmp_path / "ds"))
    runs = tmp_path / "runs"
    for name, case in (
        ("cab", "cab__arg__oracle_order__locations_other"),
        ("cal", "calendar__arg__oracle_add__attendees_emails"),
    ):
        (runs / name).mkdir(parents=True)
        (runs / name / "agent.json").write_text((CASES / case / "agent.json").read_text())
    assert main([str(runs), "--hf", str(tmp_path / "ds"), "--json"]) == 2
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    by_sid = {r["scenario_id"]: r for r in lines}
    assert by_sid["hx_cab"]["status"] == "PASS"  # judged against the dataset's scenario
    assert by_sid["hx_calendar"]["status"] == "ERROR"
    assert "no scenario 'hx_calendar' in the --hf dataset" in by_sid["hx_calendar"]["failure"]
