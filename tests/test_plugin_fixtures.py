"""Fixtures, markers, the assertion helper, hooks and the syrupy extension."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

SCEN = textwrap.dedent(
    """
    format: are-judge/scenario-v1
    scenario_id: mail
    apps: {EmailClientV2: EmailClientV2}
    events:
      - {id: u, type: user, tool: AgentUserInterface.send_message_to_agent, args: {content: send it}}
      - {id: send, tool: EmailClientV2.send_email, after: [u], delay: 5, args: {recipients: [a@x.org], subject: s, content: c}}
    runs:
      - id: ok
        events:
          - {id: u, type: user, tool: AgentUserInterface.send_message_to_agent, time: 0, args: {content: send it}}
          - {id: e1, tool: EmailClientV2.send_email, time: 6, args: {recipients: [a@x.org], subject: s, content: c}}
      - id: late
        events:
          - {id: u, type: user, tool: AgentUserInterface.send_message_to_agent, time: 0, args: {content: send it}}
          - {id: e1, tool: EmailClientV2.send_email, time: 50, args: {recipients: [a@x.org], subject: s, content: c}}
      - id: odd_case
        events:
          - {id: u, type: user, tool: AgentUserInterface.send_message_to_agent, time: 0, args: {content: send it}}
          - {id: e1, tool: EmailClientV2.send_email, time: 6, args: {recipients: [A@X.ORG], subject: s, content: c}}
    """
)


@pytest.fixture
def scen(pytester: pytest.Pytester) -> Path:
    p = pytester.path / "mail.yaml"
    p.write_text(SCEN)
    return p


def test_docs_example_module(pytester: pytest.Pytester, run_pytest) -> None:
    (pytester.path / "docs" / "examples").mkdir(parents=True)
    shutil.copyfile(REPO / "docs/examples/test_with_fixtures.py", pytester.path / "docs/examples/test_with_fixtures.py")
    shutil.copytree(
        REPO / "example_scenarios", pytester.path / "example_scenarios", ignore=shutil.ignore_patterns("code_judges")
    )
    result = run_pytest("docs/examples/test_with_fixtures.py", "-v")
    result.assert_outcomes(passed=6)
    assert "PASSED" in result.stdout.str() and "test_parametrised_scenarios[dinner]" in result.stdout.str()


def test_assert_judged_report_starts_at_user_line(pytester: pytest.Pytester, scen: Path, run_pytest) -> None:
    pytester.makepyfile(
        test_x="""
        from pytest_are_judge import assert_judged

        def test_late(load_scenario):
            run = load_scenario("mail.yaml", run="late")
            assert_judged(run)

        def test_late_fixture(are_judge, load_scenario):
            are_judge.assert_judged(load_scenario("mail.yaml", run="late"))

        def test_method(load_scenario, are_judge):
            are_judge(load_scenario("mail.yaml", run="late")).assert_success()
        """
    )
    result = run_pytest("-rf")
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(
        [
            "*_ test_late _*",
            "test_x.py:5: in test_late",
            "    assert_judged(run)",
            "FAIL mail:late *[[]oracle_event_matching[]]",
            "Failure: Agent did not perform the following oracle tool call:",
        ]
    )
    result.stdout.fnmatch_lines(["test_x.py:8: in test_late_fixture", "    are_judge.assert_judged(*"])
    result.stdout.fnmatch_lines(["test_x.py:11: in test_method", "*time*window*"])
    out = result.stdout.str()
    assert "pytest_are_judge/" not in out and "Traceback" not in out


def test_judge_config_fixture_and_marker_merge(pytester: pytest.Pytester, scen: Path, run_pytest) -> None:
    pytester.makeconftest(
        """
        import pytest

        @pytest.fixture
        def judge_config():
            return {"post_event_tolerance_seconds": 60, "extra_send_message_to_user_allowed": 3}
        """
    )
    pytester.makepyfile(
        test_x="""
        import pytest

        pytestmark = pytest.mark.judge_config(extra_send_message_to_user_allowed=2, matching="exact")

        def test_conftest_value(are_judge, load_scenario):
            assert are_judge.config.post_event_tolerance_seconds == 60
            assert are_judge.config.extra_send_message_to_user_allowed == 2   # module marker beats fixture
            assert are_judge(load_scenario("mail.yaml", run="late")).success  # 60 s tolerance

        @pytest.mark.judge_config(post_event_tolerance_seconds=25)
        def test_closest_marker_wins(are_judge, load_scenario):
            assert are_judge.config.matching == "exact"
            assert are_judge.config.post_event_tolerance_seconds == 25
            assert not are_judge(load_scenario("mail.yaml", run="late")).success

        @pytest.mark.judge_config(no_such_setting=1)
        def test_bad_marker(are_judge):
            pass
        """
    )
    result = run_pytest("-rA")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*invalid judge config: no_such_setting*"])


def test_are_scenario_marker_and_load_errors(pytester: pytest.Pytester, scen: Path, run_pytest) -> None:
    pytester.makepyfile(
        test_x="""
        import pytest

        @pytest.mark.are_scenario("mail.yaml", run="ok")
        def test_bound(are_run, agent_events, oracle_events, are_judgment):
            assert are_run.run_id == "ok"
            assert [e.event_id for e in agent_events] == ["u", "e1"]
            assert [e.event_id for e in oracle_events] == ["u", "send"]
            assert are_judgment.success

        @pytest.mark.are_scenario("mail.yaml")
        def test_ambiguous(are_run):
            pass

        @pytest.mark.are_scenario("mail.yaml", run="nope")
        def test_unknown_run(are_run):
            pass

        def test_no_binding(are_run):
            pass
        """
    )
    result = run_pytest("-rA")
    result.assert_outcomes(passed=1, errors=3)
    result.stdout.fnmatch_lines(
        ["*file *mail.yaml: expected exactly one run, found 3 (ok, late, odd_case): pass run=...*"]
    )
    result.stdout.fnmatch_lines(["*file *mail.yaml, field run: no run 'nope'; runs: ok, late, odd_case*"])
    result.stdout.fnmatch_lines(["*no path given and no @pytest.mark.are_scenario*"])
    assert "Traceback" not in result.stdout.str()


def test_hooks_register_checker_adjust_config_and_observe(pytester: pytest.Pytester, scen: Path, run_pytest) -> None:
    pytester.makeconftest(
        """
        def pytest_are_judge_register_checkers(register):
            register("casefold_list_checker",
                     lambda agent, oracle, **kw: sorted(a.lower() for a in agent) == sorted(o.lower() for o in oracle))

        def pytest_are_judge_adjust_config(scenario, config):
            if scenario.scenario_id == "mail":
                return {"per_tool_arg_to_checker_type": {"EmailClientV2__send_email": {"recipients": "casefold_list_checker"}}}

        def pytest_are_judge_judgment(item, run, judgment):
            item.user_properties.append(("verdict", f"{run.run_id}={judgment.success}"))
        """
    )
    result = run_pytest("--are-scenarios=mail.yaml", "-rA", "--junitxml=j.xml")
    result.assert_outcomes(passed=2, failed=1)  # odd_case passes only thanks to the custom checker
    result.stdout.fnmatch_lines(["PASSED mail.yaml::mail[[]odd_case[]]", "FAILED mail.yaml::mail[[]late[]]*"])
    xml = (pytester.path / "j.xml").read_text()
    assert 'value="odd_case=True"' in xml and 'value="late=False"' in xml
    # without the conftest the custom checker is unknown and odd_case fails
    (pytester.path / "conftest.py").unlink()
    run_pytest("--are-scenarios=mail.yaml").assert_outcomes(passed=1, failed=2)


def test_judgment_snapshot(pytester: pytest.Pytester, scen: Path) -> None:
    pytester.makepyfile(
        test_snap="""
        def test_snap(are_judge, load_scenario, judgment_snapshot):
            assert are_judge(load_scenario("mail.yaml", run="late")) == judgment_snapshot
        """
    )
    args = ("-p", "no:xdist", "-p", "no:cacheprovider")
    first = pytester.runpytest_subprocess(*args, "--snapshot-update")
    first.assert_outcomes(passed=1)
    snap = next((pytester.path / "__snapshots__").glob("*.ambr")).read_text()
    assert "verdict: FAIL" in snap and "scenario: mail" in snap and "run: late" in snap
    assert "categories: time" in snap and "u -> u" in snap
    assert str(pytester.path) not in snap  # stable: no absolute paths
    pytester.runpytest_subprocess(*args).assert_outcomes(passed=1)
    # a change in the judge's output is a snapshot diff
    (pytester.path / "mail.yaml").write_text(SCEN.replace("time: 50", "time: 7"))
    changed = pytester.runpytest_subprocess(*args)
    changed.assert_outcomes(failed=1)
    changed.stdout.fnmatch_lines(["*verdict: FAIL*", "*verdict: PASS*"])


OTHER_RECIPIENT = """
format: are-judge/scenario-v1
scenario_id: {sid}
apps: {{EmailClientV2: EmailClientV2}}
events:
  - {{id: u, type: user, tool: AgentUserInterface.send_message_to_agent, args: {{content: send it}}}}
  - {{id: send, tool: EmailClientV2.send_email, after: [u], delay: 5, args: {{recipients: [a@x.org], subject: s, content: c}}}}
runs:
  - id: other
    events:
      - {{id: u, type: user, tool: AgentUserInterface.send_message_to_agent, time: 0, args: {{content: send it}}}}
      - {{tool: EmailClientV2.send_email, time: 6, args: {{recipients: [b@x.org], subject: s, content: c}}}}
"""


def test_adjust_config_hook_changing_the_session_config_in_place(pytester: pytest.Pytester, run_pytest) -> None:
    # a hook may change the config it is given and return nothing: every run is judged with the
    # config as the hook left it for that run (the judge cache must not go by object identity)
    sc = pytester.path / "sc"
    sc.mkdir()
    for sid in ("lenient", "strict", "zlenient"):
        (sc / f"{sid}.yaml").write_text(OTHER_RECIPIENT.format(sid=sid))
    pytester.makeconftest(
        """
        def pytest_are_judge_adjust_config(scenario, config):
            checked = "recipients" if scenario.scenario_id == "strict" else "subject"
            config.per_tool_arg_to_checker_type = {"EmailClientV2__send_email": {checked: "eq_checker"}}
        """
    )
    result = run_pytest("--are-scenarios=sc", "-rA")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["FAILED sc/strict.yaml::strict[[]other[]]*"])
    (pytester.path / "conftest.py").unlink()
    run_pytest("--are-scenarios=sc").assert_outcomes(failed=3)  # the default registry checks recipients
