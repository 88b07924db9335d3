"""Bad input never passes, never crashes (#12), and one bad file never hides the others (#18).

A seeded corpus of malformed inputs (tests/fuzz.py: structural and text mutations of the bundled
examples and the real ARE traces, plus every finding of the issue made by hand) goes through the
CLI; file-system faults (FIFOs, devices, broken symlinks, unreadable folders) and mixed folders
go through the CLI and the plugin.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from builders import mail_scenario_yaml
from fuzz import corpus, run_one

from pytest_are_judge.cli import main

GOOD = {"r1": "a@x.org"}


def test_a_seeded_fuzz_corpus_keeps_every_rule(tmp_path: Path) -> None:
    """~180 inputs: no traceback, no exception escaping, every error naming its file, every
    input the rules reject rejected (never judged, so never a false pass)."""
    problems = []
    mutants = corpus(150, seed=11)
    for i, m in enumerate(mutants):
        outcome = run_one(m, tmp_path / f"m{i:04d}" / "case")
        if outcome.problem:
            problems.append(f"{m.family} | {m.name} | {outcome.problem}")
    assert problems == []
    assert sum(m.must_reject for m in mutants) >= 25  # the hand-made findings are in it


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    # a real process: a regression here would hang or exhaust memory, which must not take the
    # test session with it (the timeout guards the session; it is not a speed assertion)
    return subprocess.run(
        [sys.executable, "-m", "pytest_are_judge", *args, "--json"], capture_output=True, text=True, timeout=300
    )


def test_fifos_devices_and_folders_named_like_scenarios_are_errors_not_hangs(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    for target in (str(fifo), "/dev/zero"):
        r = _cli(target)
        assert r.returncode == 2, (target, r.stderr)
        assert "Traceback" not in r.stderr
        rec = json.loads(r.stdout.splitlines()[0])
        assert rec["verdict"] == "error" and target in rec["failure"]
    assert "not a regular file" in _cli(str(fifo)).stdout
    (tmp_path / "folder.yaml").mkdir()  # a folder is walked, not read
    r = _cli(str(tmp_path / "folder.yaml"))
    assert r.returncode == 2 and "no runs found under" in r.stderr


def test_a_run_file_pointing_at_a_device_or_outside_is_an_error(tmp_path: Path) -> None:
    body = mail_scenario_yaml(GOOD).replace("  - id: r1\n", "  - id: far\n    file: /dev/zero\n  - id: r1\n", 1)
    (tmp_path / "s.yaml").write_text(body)
    r = _cli(str(tmp_path))
    assert r.returncode == 2 and "outside the scenario's folder" in r.stdout
    r = _cli(str(tmp_path), "--allow-outside-files")
    assert r.returncode == 2 and "not a regular file" in r.stdout  # allowed, but still never read


def _deep_unreadable(root: Path) -> Path:
    """A folder whose path is longer than the system allows (ENAMETOOLONG): it cannot be listed,
    by root as by anyone (chmod 000 does not stop root)."""
    here = os.getcwd()
    os.chdir(root)
    try:
        for _ in range(20):
            name = "d" * 250
            os.mkdir(name)
            os.chdir(name)
        with open("x.yaml", "w") as fh:  # relative: the absolute path is too long to name
            fh.write(mail_scenario_yaml(GOOD))
    finally:
        os.chdir(here)
    return root


def _mixed_folder(root: Path) -> Path:
    """2 good scenario files, and one of each bad kind beside them."""
    sc = root / "sc"
    sc.mkdir()
    (sc / "a.yaml").write_text(mail_scenario_yaml(GOOD, sid="a"))
    (sc / "c.yaml").write_text(mail_scenario_yaml(GOOD, sid="c"))
    (sc / "deep.json").write_text("[" * 5000 + "]" * 5000)
    (sc / "huge.json").write_text('{"scenario_id": 1' + "0" * 5000 + "}")
    (sc / "b.yaml").write_text(
        mail_scenario_yaml(GOOD, sid="b").replace(
            "runs:\n", "judge_config: {per_tool_arg_to_checker_type: {T__f: {x: nope}}}\nruns:\n"
        )
    )
    (sc / "dangling.yaml").symlink_to(sc / "gone.yaml")
    return sc


def test_cli_folder_run_judges_every_good_file_and_reports_each_bad_one(tmp_path: Path, capsys) -> None:
    sc = _mixed_folder(tmp_path)
    assert main([str(sc), "--json"]) == 2  # exit 2 at the end: some input could not be judged
    recs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    verdicts = {r["scenario_id"]: r["verdict"] for r in recs if r["verdict"] != "error"}
    assert verdicts == {"a": "pass", "c": "pass"}
    errors = sorted(Path(r["failure_detail"]["file"]).name for r in recs if r["verdict"] == "error")
    assert errors == ["b.yaml", "dangling.yaml", "deep.json", "huge.json"]
    b = next(r for r in recs if r["verdict"] == "error" and r["failure_detail"]["file"].endswith("b.yaml"))
    assert "unknown checker 'nope'" in b["failure"] and "per_tool_arg_to_checker_type" in b["failure"]


def test_cli_reports_a_folder_it_cannot_read_and_goes_on(tmp_path: Path, capsys) -> None:
    sc = tmp_path / "sc"
    sc.mkdir()
    (sc / "a.yaml").write_text(mail_scenario_yaml(GOOD, sid="a"))
    _deep_unreadable(sc)
    assert main([str(sc), "--json"]) == 2
    recs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["verdict"] for r in recs if r["scenario_id"] == "a"] == ["pass"]
    unreadable = [r for r in recs if r["verdict"] == "error"]
    assert len(unreadable) == 1 and "cannot read folder" in unreadable[0]["failure"]


def test_plugin_session_goes_on_with_an_error_item_per_bad_file(pytester: pytest.Pytester, run_pytest) -> None:
    _mixed_folder(pytester.path)
    _deep_unreadable(pytester.path / "sc")
    result = run_pytest("--are-scenarios=sc", "-rE")
    result.assert_outcomes(passed=2, errors=5)
    out = result.stdout.str()
    assert "Traceback" not in out and "INTERNALERROR" not in out and "Interrupted" not in out
    for name in ("b.yaml", "dangling.yaml", "deep.json", "huge.json"):
        assert f"sc/{name}::" in out, name
    assert "cannot read folder" in out
    result.stdout.fnmatch_lines(["runs judged: 7  passed: 2  failed: 0  errors: 5*"])


def test_an_oracle_file_holding_null_is_an_error(tmp_path: Path, capsys) -> None:
    case = Path(__file__).parent / "data" / "are" / "cases" / "cab__replay__exact_ids"
    shutil.copy(case / "agent.json", tmp_path / "agent.json")
    (tmp_path / "null.json").write_text("null")
    assert main([str(tmp_path / "agent.json"), "--oracle", str(tmp_path / "null.json")]) == 2
    err = capsys.readouterr().err
    assert "null.json" in err and "--oracle must be an ARE export" in err


def test_code_judge_check_options_name_the_file_and_the_event(tmp_path: Path, capsys) -> None:
    body = mail_scenario_yaml(GOOD).replace(
        "after: [u], args:",
        "after: [u], checks: [{arg: subject, checker: code_judge, args: {script: j.py, threshold: 1.5}}], args:",
    )
    (tmp_path / "s.yaml").write_text(body)
    assert main([str(tmp_path), "--json"]) == 2
    rec = json.loads(capsys.readouterr().out.splitlines()[0])
    detail = rec["failure_detail"]
    assert detail["file"].endswith("s.yaml") and detail["event_id"] == "send"
    assert "'threshold' must be a number in [0, 1], got 1.5" in rec["failure"]


def test_a_utf8_byte_order_mark_is_not_content(tmp_path: Path, capsys) -> None:
    """Some Windows editors start UTF-8 files with a BOM: such a scenario is read like any other."""
    (tmp_path / "s.yaml").write_bytes(b"\xef\xbb\xbf" + mail_scenario_yaml(GOOD).encode())
    (tmp_path / "t.json").write_bytes(
        b"\xef\xbb\xbf" + json.dumps(yaml.safe_load(mail_scenario_yaml(GOOD, sid="m2"))).encode()
    )
    assert main([str(tmp_path), "--no-color"]) == 0, capsys.readouterr().out


def test_a_contacts_app_state_that_is_not_a_collection_is_an_input_error(tmp_path: Path, capsys) -> None:
    """Found by the seed-3 release fuzz run: it was a TypeError."""
    case = Path(__file__).parent / "data" / "are" / "cases" / "files__replay__exact_ids"
    data = json.loads((case / "agent.json").read_text())
    contacts = next(i for i, a in enumerate(data["apps"]) if a.get("class_name") in ("Contacts", "ContactsApp"))
    data["apps"][contacts]["app_state"]["contacts"] = True
    (tmp_path / "agent.json").write_text(json.dumps(data))
    shutil.copy(case / "oracle.json", tmp_path / "oracle.json")
    assert main([str(tmp_path), "--json"]) == 2
    rec = json.loads(capsys.readouterr().out.splitlines()[0])
    assert rec["failure_detail"]["field"] == f"apps.{contacts}.app_state.contacts"
