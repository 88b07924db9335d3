"""--are-scenarios collection: items, node ids, oracle siblings, xfail, limit, bad input, errors."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest
from conformance import CASES

GOOD = textwrap.dedent(
    """
    format: are-judge/scenario-v1
    scenario_id: mail
    apps: {EmailClientV2: EmailClientV2}
    events:
      - {id: u, type: user, tool: AgentUserInterface.send_message_to_agent, args: {content: send it}}
      - {id: send, tool: EmailClientV2.send_email, after: [u], args: {recipients: [a@x.org], subject: s, content: c}}
    runs:
      - id: ok
        events:
          - {id: u, type: user, tool: AgentUserInterface.send_message_to_agent, time: 0, args: {content: send it}}
          - {tool: EmailClientV2.send_email, time: 2, args: {recipients: [a@x.org], subject: s, content: c}}
      - id: wrong
        expect: fail
        events:
          - {id: u, type: user, tool: AgentUserInterface.send_message_to_agent, time: 0, args: {content: send it}}
          - {tool: EmailClientV2.send_email, time: 2, args: {recipients: [b@x.org], subject: s, content: c}}
      - id: bad
        events:
          - {id: u, type: user, tool: AgentUserInterface.send_message_to_agent, time: 0, args: {content: send it}}
    """
)


def write_cases(root: Path) -> None:
    """Two real ARE cases: an oracle-run trace next to each agent run (same scenario id)."""
    for name in ("cab__drop__oracle_order", "cab__arg__oracle_order__locations_other"):
        dst = root / "traces" / name
        dst.mkdir(parents=True)
        for f in ("agent.json", "oracle.json"):
            shutil.copyfile(CASES / name / f, dst / f)


def test_collects_native_and_are_runs_with_ids(pytester: pytest.Pytester, run_pytest) -> None:
    (pytester.path / "sc").mkdir()
    (pytester.path / "sc" / "mail.yaml").write_text(GOOD)
    write_cases(pytester.path / "sc")
    result = run_pytest("--are-scenarios=sc", "-rA", "--co", "-q")
    result.stdout.fnmatch_lines(
        [
            "sc/mail.yaml::mail[[]ok[]]",
            "sc/mail.yaml::mail[[]wrong[]]",
            "sc/mail.yaml::mail[[]bad[]]",
            "sc/traces/cab__arg__oracle_order__locations_other/agent.json::hx_cab[[]agent[]]",
            "sc/traces/cab__drop__oracle_order/agent.json::hx_cab[[]agent[]]",
        ]
    )
    assert "oracle.json::" not in result.stdout.str()  # oracle runs are not judged
    result.stdout.fnmatch_lines(["*5 tests collected*"])


def test_verdicts_xfail_and_summary(pytester: pytest.Pytester, run_pytest) -> None:
    (pytester.path / "sc").mkdir()
    (pytester.path / "sc" / "mail.yaml").write_text(GOOD)
    write_cases(pytester.path / "sc")
    result = run_pytest("--are-scenarios=sc", "-rA")
    result.assert_outcomes(passed=2, failed=2, xfailed=1)
    out = result.stdout.str()
    assert "PASSED sc/mail.yaml::mail[ok]" in out
    assert "XFAIL sc/mail.yaml::mail[wrong]" in out
    assert "FAILED sc/mail.yaml::mail[bad]" in out
    assert "FAILED sc/traces/cab__drop__oracle_order/agent.json::hx_cab[agent]" in out
    # the failure report is the rendering, not a traceback into our code
    assert "Agent count 0, Oracle count 1" in out
    assert "collection.py" not in out and "Traceback" not in out
    result.stdout.fnmatch_lines(
        [
            "*= are-judge summary =*",
            "runs judged: 5  passed: 2  failed: 2  errors: 0  pass rate: 50.0% (of 4 run(s) expected to pass)",
            "expected failures: 1 (declared known-bad, failed as declared)",
            "pytest outcomes: failed: 2  passed: 2  xfailed: 1",
            "failures by kind:",
            "*counts (tool-call counts differ): 2",
        ]
    )
    assert "argument mismatch" not in out  # the known-bad run's failure is not a failure
    result.stdout.fnmatch_lines(["are-judge: scenarios=*sc"])  # header


def test_oracle_sibling_is_used(pytester: pytest.Pytester) -> None:
    """An oracle-run trace in the same folder supplies the oracle side (and is not judged)."""
    write_cases(pytester.path)
    pytester.makeconftest(
        "def pytest_are_judge_judgment(item, run, judgment):\n"
        "    print('ORACLE_RUN', run.scenario.scenario_id, run.scenario.oracle_run is not None)\n"
    )
    with_oracle = pytester.runpytest_subprocess(
        "--are-scenarios=traces/cab__drop__oracle_order", "-p", "no:xdist", "-s"
    )
    with_oracle.assert_outcomes(failed=1)
    with_oracle.stdout.fnmatch_lines(["*ORACLE_RUN hx_cab True*"])
    (pytester.path / "traces/cab__drop__oracle_order/oracle.json").unlink()
    alone = pytester.runpytest_subprocess("--are-scenarios=traces/cab__drop__oracle_order", "-p", "no:xdist", "-s")
    alone.stdout.fnmatch_lines(["*ORACLE_RUN hx_cab False*"])


def test_xfail_file_name_and_strict_xpass(pytester: pytest.Pytester, run_pytest) -> None:
    write_cases(pytester.path)
    d = pytester.path / "traces/cab__arg__oracle_order__locations_other"
    (d / "agent.json").rename(d / "agent.xfail.json")  # a passing run declared known-bad
    d2 = pytester.path / "traces/cab__drop__oracle_order"
    (d2 / "agent.json").rename(d2 / "agent.xfail.json")  # a failing run declared known-bad
    result = run_pytest("--are-scenarios=traces", "-rA")
    result.assert_outcomes(failed=1, xfailed=1)
    result.stdout.fnmatch_lines(["*XPASS(strict)*"])
    assert result.ret == 1
    # non-strict via ini: the xpass no longer fails
    pytester.makeini("[pytest]\nare_xfail_strict = false\n")
    result = run_pytest("--are-scenarios=traces")
    result.assert_outcomes(xpassed=1, xfailed=1)
    assert result.ret == 0


def test_k_deselect_and_limit(pytester: pytest.Pytester, run_pytest) -> None:
    (pytester.path / "sc").mkdir()
    (pytester.path / "sc" / "mail.yaml").write_text(GOOD)
    result = run_pytest("--are-scenarios=sc", "-k", "ok or wrong", "--deselect", "sc/mail.yaml::mail[wrong]")
    result.assert_outcomes(passed=1)
    result = run_pytest("--are-scenarios=sc", "--are-limit=2")
    result.assert_outcomes(passed=1, xfailed=1)
    result.stdout.fnmatch_lines(["*runs judged: 2 *"])
    if not run_pytest.workers:  # xdist workers deselect, the controller does not count them
        result.stdout.fnmatch_lines(["*1 deselected*"])


def test_last_failed_reruns_scenario_items(pytester: pytest.Pytester) -> None:
    (pytester.path / "sc").mkdir()
    (pytester.path / "sc" / "mail.yaml").write_text(GOOD)
    pytester.runpytest_subprocess("--are-scenarios=sc", "-p", "no:xdist").assert_outcomes(passed=1, failed=1, xfailed=1)
    again = pytester.runpytest_subprocess("--are-scenarios=sc", "--lf", "-p", "no:xdist", "-rA")
    again.assert_outcomes(failed=1)
    again.stdout.fnmatch_lines(["FAILED sc/mail.yaml::mail[[]bad[]]*"])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("format: are-judge/scenario-v1\nscenario_id: s\nevents:\n  - {id: e1, tool: nodot}\n", "*field*tool*"),
        (
            "format: are-judge/scenario-v1\nscenario_id: s\nevents:\n  - {id: a, tool: A.f, after: [zz]}\n",
            "*event a*field after*unknown event 'zz'*",
        ),
        ("scenario_id: [unclosed\n", "*cannot parse YAML at line*"),
    ],
    ids=["bad-tool", "unknown-dependency", "bad-yaml"],
)
def test_malformed_scenario_is_an_error_with_location(
    pytester: pytest.Pytester, run_pytest, text: str, expected: str
) -> None:
    (pytester.path / "sc").mkdir()
    (pytester.path / "sc" / "broken.yaml").write_text(text)
    (pytester.path / "sc" / "mail.yaml").write_text(GOOD)
    result = run_pytest("--are-scenarios=sc", "-rA")
    result.assert_outcomes(passed=1, failed=1, xfailed=1, errors=1)
    out = result.stdout.str()
    result.stdout.fnmatch_lines(["*cannot load scenario: file *broken.yaml" + expected])
    assert "Traceback" not in out and "site-packages" not in out and "pytest_are_judge/" not in out
    result.stdout.fnmatch_lines(
        ["*runs judged: 4  passed: 1  failed: 1  errors: 1  pass rate: 33.3% (of 3 run(s) expected to pass)"]
    )
    assert result.ret == 1


def test_could_not_judge_is_an_error_not_a_failure(pytester: pytest.Pytester, run_pytest) -> None:
    (pytester.path / "sc").mkdir()
    (pytester.path / "sc" / "odd.yaml").write_text(
        textwrap.dedent(
            """
            format: are-judge/scenario-v1
            scenario_id: odd
            events:
              - {id: u, type: user, tool: AgentUserInterface.send_message_to_agent, args: {content: hi}}
              - {id: x, tool: NoSuchApp.do_thing, after: [u], args: {a: 1}}
            runs:
              - id: r
                expect: fail
                events:
                  - {id: u, type: user, tool: AgentUserInterface.send_message_to_agent, time: 0, args: {content: hi}}
                  - {tool: NoSuchApp.do_thing, time: 1, args: {a: 1}}
            """
        )
    )
    result = run_pytest("--are-scenarios=sc", "-rA")
    result.assert_outcomes(errors=1)  # even though expect: fail, an input error is never an xfail
    result.stdout.fnmatch_lines(["*NoSuchApp__do_thing*"])
    assert "Traceback" not in result.stdout.str()


def test_scenarios_without_paths_replace_testpaths_but_explicit_paths_add(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain="def test_plain():\n    assert True\n")
    (pytester.path / "sc").mkdir()
    (pytester.path / "sc" / "mail.yaml").write_text(GOOD)
    only = pytester.runpytest_subprocess("--are-scenarios=sc", "-p", "no:xdist")
    only.assert_outcomes(passed=1, failed=1, xfailed=1)
    both = pytester.runpytest_subprocess("test_plain.py", "--are-scenarios=sc", "-p", "no:xdist")
    both.assert_outcomes(passed=2, failed=1, xfailed=1)
    # a root already inside the given paths is collected once
    once = pytester.runpytest_subprocess(".", "--are-scenarios=sc", "-p", "no:xdist")
    once.assert_outcomes(passed=2, failed=1, xfailed=1)


def test_ini_scenarios_and_missing_path(pytester: pytest.Pytester) -> None:
    (pytester.path / "sc").mkdir()
    (pytester.path / "sc" / "mail.yaml").write_text(GOOD)
    pytester.makeini("[pytest]\nare_scenarios = sc\n")
    pytester.runpytest_subprocess("-p", "no:xdist").assert_outcomes(passed=1, failed=1, xfailed=1)
    missing = pytester.runpytest_subprocess("--are-scenarios=nope", "-p", "no:xdist")
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    missing.stderr.fnmatch_lines(["*--are-scenarios: no such file or directory*nope*"])


def test_are_config_and_scenario_override(pytester: pytest.Pytester, run_pytest) -> None:
    """--are-config applies to collected scenarios; a scenario's own judge_config wins."""
    (pytester.path / "sc").mkdir()
    late = textwrap.dedent(
        """
        format: are-judge/scenario-v1
        scenario_id: late{n}
        {own}
        apps: {{EmailClientV2: EmailClientV2}}
        events:
          - {{id: u, type: user, tool: AgentUserInterface.send_message_to_agent, args: {{content: hi}}}}
          - {{id: send, tool: EmailClientV2.send_email, after: [u], delay: 5, args: {{recipients: [a@x.org], subject: s, content: c}}}}
        runs:
          - id: r
            events:
              - {{id: u, type: user, tool: AgentUserInterface.send_message_to_agent, time: 0, args: {{content: hi}}}}
              - {{tool: EmailClientV2.send_email, time: 45, args: {{recipients: [a@x.org], subject: s, content: c}}}}
        """
    )
    (pytester.path / "sc" / "a.yaml").write_text(late.format(n=1, own=""))
    (pytester.path / "sc" / "b.yaml").write_text(
        late.format(n=2, own="judge_config: {post_event_tolerance_seconds: 25}")
    )
    run_pytest("--are-scenarios=sc").assert_outcomes(failed=2)  # 45 s > 5 s + 25 s tolerance
    (pytester.path / "lenient.json").write_text(json.dumps({"post_event_tolerance_seconds": 60}))
    result = run_pytest("--are-scenarios=sc", "--are-config=lenient.json", "-rA")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["PASSED sc/a.yaml::late1*", "FAILED sc/b.yaml::late2*"])
    (pytester.path / "broken.json").write_text(json.dumps({"no_such_field": 1}))
    result = run_pytest("--are-scenarios=sc", "--are-config=broken.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR  # once, before any test
    result.stderr.fnmatch_lines(["ERROR: --are-config: *broken.json*no_such_field*"])


def test_example_scenarios_pass_and_xfail(pytester: pytest.Pytester, run_pytest) -> None:
    repo = Path(__file__).resolve().parents[1]
    shutil.copytree(repo / "example_scenarios", pytester.path / "example_scenarios")
    result = run_pytest("--are-scenarios=example_scenarios", "-rA")
    assert result.ret == 0
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) >= 6 and outcomes.get("xfailed", 0) >= 9
    assert "failed" not in outcomes and "errors" not in outcomes
    result.stdout.fnmatch_lines(["XFAIL example_scenarios/office_move.yaml::office_move[[]checkout_before_tape[]]*"])
