"""``are-judge lint``: bad scenarios are stopped before any agent is judged, each with where and
how to fix it; the same problems are input errors (never verdicts) when runs are judged."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from pytest_are_judge.cli import main

EXAMPLE = Path(__file__).parent.parent / "example_scenarios"
CAB = EXAMPLE / "are_traces" / "cab"
EMAIL = yaml.safe_load((EXAMPLE / "email_reply.yaml").read_text())


def write(tmp: Path, name: str, edit=None, *, data=None) -> Path:
    doc = json.loads(json.dumps(data if data is not None else EMAIL))
    if edit is not None:
        edit(doc)
    path = tmp / name
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def lint(capsys, *paths: Path | str) -> tuple[int, str]:
    code = main(["lint", *map(str, paths)])
    out = capsys.readouterr()
    return code, out.out + out.err


def send_event(doc: dict) -> dict:
    return next(e for e in doc["events"] if e["id"] == "send")


def test_the_bundled_examples_are_clean(capsys) -> None:
    code, out = lint(capsys, EXAMPLE)
    assert code == 0, out
    assert "no problems" in out


def _typo_tool(doc: dict) -> None:
    send_event(doc)["tool"] = "EmailClientV2.send_emial"


def _unknown_arg(doc: dict) -> None:
    send_event(doc)["args"]["recipient"] = "x@example.com"


def _unknown_after(doc: dict) -> None:
    send_event(doc)["after"] = ["user_mgs"]


def _cycle(doc: dict) -> None:
    doc["events"][0]["after"] = ["confirm"]


def _placeholder(doc: dict) -> None:
    send_event(doc)["args"]["subject"] = "{{lookup}}"


def _params_for_missing_event(doc: dict) -> None:
    doc["judge_config"] = {
        "event_id_to_checker_params": {"sned": [{"arg_name": "subject", "checker_type": "eq_checker"}]}
    }


def _unknown_checker(doc: dict) -> None:
    doc["judge_config"] = {
        "event_id_to_checker_params": {"send": [{"arg_name": "subject", "checker_type": "eq_chekcer"}]}
    }


@pytest.mark.parametrize(
    "edit,where,says",
    [
        (_typo_tool, "event send, field tool", "did you mean send_email"),
        (_unknown_arg, "event send, field args.recipient", "its arguments: recipients"),
        (_unknown_after, "event send, field after", "did you mean 'user_msg'"),
        (_cycle, "", "cycle"),
        (_placeholder, "event send", "lookup"),
        (_params_for_missing_event, "event sned", "did you mean 'send'"),
        (_unknown_checker, "", "eq_chekcer"),
    ],
    ids=lambda v: getattr(v, "__name__", None) or str(v)[:20],
)
def test_each_scenario_problem_is_named_with_its_fix(tmp_path, capsys, edit, where, says) -> None:
    bad = write(tmp_path, "bad.yaml", edit)
    code, out = lint(capsys, tmp_path)
    assert code == 2, out
    assert f"file {bad}" in out and where in out and says in out, out
    assert "1 file(s) checked: 1 problem(s)" in out


def test_every_bad_file_is_reported_not_only_the_first(tmp_path, capsys) -> None:
    write(tmp_path, "a.yaml", _typo_tool)
    write(tmp_path, "b.yaml", _unknown_after)
    write(tmp_path, "c.yaml")
    (tmp_path / "d.yaml").write_text("format: are-judge/scenario-v1\nscenario_id: [\n")
    code, out = lint(capsys, tmp_path)
    assert code == 2
    assert "4 file(s) checked: 3 problem(s)" in out
    for name in ("a.yaml", "b.yaml", "d.yaml"):
        assert name in out
    assert "c.yaml" not in out


def test_a_scenario_without_runs_is_still_checked(tmp_path, capsys) -> None:
    write(tmp_path, "defn.yaml", lambda d: (_typo_tool(d), d.pop("runs")))
    code, out = lint(capsys, tmp_path)
    assert code == 2 and "send_emial" in out


def test_a_known_bad_label_nothing_would_honour_is_a_problem(tmp_path, capsys) -> None:
    shutil.copy(CAB / "oracle.json", tmp_path / "oracle.xfail.json")
    shutil.copy(CAB / "agent_other_wording.json", tmp_path / "agent_wrong-xfail.json")
    write(tmp_path, "email.xfail.yaml")
    code, out = lint(capsys, tmp_path)
    assert code == 2
    assert "oracle.xfail.json: the name says '.xfail.' (known-bad), but this is an oracle-run trace" in out
    assert "agent_wrong-xfail.json: the name says xfail, but only a '.xfail.' part marks a known-bad run" in out
    assert (
        "email.xfail.yaml: the name says xfail, but a native scenario declares a known-bad run with 'expect: fail'"
        in (out)
    )


def test_nothing_to_lint_and_a_bad_config_are_usage_errors(tmp_path, capsys) -> None:
    code, out = lint(capsys, tmp_path)
    assert code == 2 and "no scenario files found" in out
    write(tmp_path, "ok.yaml")
    cfg = tmp_path / "cfg.json"
    cfg.write_text('{"extra_send_message_to_user_allowed": -1}')
    code, out = lint(capsys, "--config", cfg, tmp_path)  # type: ignore[arg-type]
    assert code == 2 and "cfg.json" in out and "extra_send_message_to_user_allowed" in out


def test_an_oracle_typo_is_an_input_error_when_judging_never_a_verdict(tmp_path, capsys) -> None:
    write(tmp_path, "bad.yaml", _typo_tool)
    assert main([str(tmp_path), "--no-color"]) == 2
    out = capsys.readouterr().out
    assert "ERROR" in out and "did you mean send_email" in out and "FAIL " not in out


def test_an_oracle_typo_is_an_error_item_in_pytest(tmp_path, pytester: pytest.Pytester, run_pytest) -> None:
    write(pytester.path, "bad.yaml", _typo_tool)
    result = run_pytest("--are-scenarios=.", "-p", "no:xdist")
    result.assert_outcomes(errors=2)  # both runs of the scenario: neither is a verdict on the agent
    result.stdout.fnmatch_lines(["*EmailClientV2 has no tool 'send_emial'*did you mean send_email*"])
