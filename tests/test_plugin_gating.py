"""CI gating a team can trust (docs/ci.md has the table): exit status of gates, repeats, known-bad
runs, baselines, copied node ids, usage errors; plus the JSON report, junit and LLM options."""

from __future__ import annotations

import json
import sys
import textwrap
import xml.etree.ElementTree as ET

import pytest
from builders import mail_scenario_yaml

PASS, FAIL = "a@x.org", "b@x.org"


def write(
    pytester: pytest.Pytester, runs: dict[str, str], expect_fail: tuple[str, ...] = (), sid: str = "mail"
) -> None:
    """runs: run id -> recipient (a@x.org passes, anything else fails)."""
    body = mail_scenario_yaml(runs, sid=sid, expect_fail=expect_fail)
    (pytester.path / "sc").mkdir(exist_ok=True)
    (pytester.path / "sc" / f"{sid}.yaml").write_text(body)


# ------------------------------------------------------------------ pass^k decides for repeats


def test_pass_hat_k_gate_decides_for_repeated_runs(pytester: pytest.Pytester, run_pytest) -> None:
    write(pytester, {"run_1": PASS, "run_2": PASS, "run_3": FAIL, "run_4": PASS})
    # n=4, c=3, k=2: pass^2 = C(3,2)/C(4,2) = 3/6 = 50%
    ok = run_pytest("--are-scenarios=sc", "--are-k=2", "--are-min-pass-hat-k=40%", "-rxX")
    ok.assert_outcomes(passed=3, xfailed=1)
    assert ok.ret == 0
    ok.stdout.fnmatch_lines(["pass^k gate OK: pass^2 50.0% >= --are-min-pass-hat-k 40.0%"])
    ok.stdout.fnmatch_lines(
        [
            "XFAIL sc/mail.yaml::mail[[]run_3[]] - a repeat of its scenario: the pass^k gate (--are-min-pass-hat-k 40.0%) decides*"
        ]
    )
    below = run_pytest("--are-scenarios=sc", "--are-k=2", "--are-min-pass-hat-k=60%")
    below.assert_outcomes(passed=3, xfailed=1)
    assert below.ret == 1
    below.stdout.fnmatch_lines(["FAILED: pass^2 50.0% is below --are-min-pass-hat-k 60.0%"])
    # without the gate, a failing repeat fails like any run
    plain = run_pytest("--are-scenarios=sc", "--are-k=2")
    plain.assert_outcomes(passed=3, failed=1)
    assert plain.ret == 1


def test_a_gated_session_still_fails_on_other_failures(pytester: pytest.Pytester, run_pytest) -> None:
    write(pytester, {"run_1": PASS, "run_2": FAIL, "variant": FAIL})  # 'variant' is not a repeat
    result = run_pytest("--are-scenarios=sc", "--are-min-pass-hat-k=0")
    result.assert_outcomes(passed=1, xfailed=1, failed=1)
    assert result.ret == 1


def test_repeats_are_only_numbered_runs_never_variants_or_known_bad(pytester: pytest.Pytester, run_pytest) -> None:
    write(
        pytester,
        {"run_1": PASS, "run_2": PASS, "run_3": PASS, "good": PASS, "wrong_recipient": FAIL, "run_9": FAIL},
        expect_fail=("wrong_recipient", "run_9"),
    )
    result = run_pytest("--are-scenarios=sc", "--are-report=r.json", "--are-min-pass-hat-k=1")
    assert result.ret == 0
    # 3 repeats (run_1..run_3): k defaults to 3, not lowered by the variants; pass^3 = 1
    result.stdout.fnmatch_lines(
        ["repeated runs (k=3): pass@3 100.0%  pass^3 100.0%  (1 of 1 scenario(s) scored, 3 runs)"]
    )
    rep = json.loads((pytester.path / "r.json").read_text())["repeats"]
    assert rep["k"] == 3 and rep["scenarios"]["mail"]["n"] == 3 and rep["gate_passed"] is True


# ------------------------------------------------------------------ known-bad runs and the pass rate


def test_known_bad_runs_do_not_lower_the_pass_rate(pytester: pytest.Pytester, run_pytest) -> None:
    write(pytester, {"r1": PASS, "r2": FAIL, "r3": FAIL}, expect_fail=("r2", "r3"))
    gated = run_pytest("--are-scenarios=sc", "--are-min-pass-rate=100%")
    gated.assert_outcomes(passed=1, xfailed=2)
    assert gated.ret == 0
    gated.stdout.fnmatch_lines(
        [
            "runs judged: 3  passed: 1  failed: 0  errors: 0  pass rate: 100.0% (of 1 run(s) expected to pass)",
            "expected failures: 2 (declared known-bad, failed as declared)",
            "*pass rate gate OK: 100.0% >= --are-min-pass-rate 100.0%",
        ]
    )


def test_a_known_bad_run_that_passes_is_reported(pytester: pytest.Pytester, run_pytest) -> None:
    write(pytester, {"r1": PASS, "r2": PASS}, expect_fail=("r2",))
    result = run_pytest("--are-scenarios=sc", "-rX")
    result.assert_outcomes(passed=1, failed=1)  # XPASS(strict) by default
    assert result.ret == 1
    result.stdout.fnmatch_lines(["known-bad runs that passed: 1 (declared expect: fail, judged a pass)"])


def test_the_pass_rate_gate_fails_when_failures_are_hidden_by_xfail(pytester: pytest.Pytester, run_pytest) -> None:
    write(pytester, {"run_1": PASS, "run_2": FAIL, "run_3": FAIL})
    gated = run_pytest("--are-scenarios=sc", "--are-min-pass-hat-k=0", "--are-min-pass-rate=0.5")
    gated.assert_outcomes(passed=1, xfailed=2)
    assert gated.ret == 1
    gated.stdout.fnmatch_lines(["FAILED: pass rate 33.3% is below --are-min-pass-rate 50.0%"])
    bad = run_pytest("--are-scenarios=sc", "--are-min-pass-rate=2")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR


# ------------------------------------------------------------------ gates need judged runs; --co


def test_ini_gates_do_not_apply_without_judged_runs(pytester: pytest.Pytester, run_pytest) -> None:
    write(pytester, {"r1": FAIL})
    pytester.makepyfile(test_unit="def test_x():\n    pass\n")
    pytester.makeini("[pytest]\nare_min_pass_rate = 0.9\nare_min_pass_hat_k = 0.9\n")
    result = run_pytest("test_unit.py", "-k", "x")
    result.assert_outcomes(passed=1)
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "gate not applied: no runs judged (are_min_pass_rate (ini))",
            "gate not applied: no runs judged (are_min_pass_hat_k (ini))",
        ]
    )


def test_collect_only_evaluates_no_gate_and_writes_no_report(pytester: pytest.Pytester, run_pytest) -> None:
    write(pytester, {"r1": FAIL})
    (pytester.path / "report.json").write_text("previous")
    result = run_pytest("--are-scenarios=sc", "--co", "--are-min-pass-rate=1", "--are-report=report.json")
    assert result.ret == 0
    assert (pytester.path / "report.json").read_text() == "previous"
    out = result.stdout.str()
    assert "gate OK" not in out and "FAILED:" not in out and "gate not applied" not in out


# ------------------------------------------------------------------ baselines


def test_saving_a_baseline_records_and_does_not_gate(pytester: pytest.Pytester, run_pytest) -> None:
    write(pytester, {"stays_ok": PASS, "regresses": PASS, "improves": FAIL, "stays_bad": FAIL})
    first = run_pytest("--are-scenarios=sc", "--are-save-baseline=base.json")
    first.assert_outcomes(passed=2, failed=2)
    assert first.ret == 0  # written: saving records, it does not gate
    first.stdout.fnmatch_lines(["baseline written: *base.json (4 run(s): 2 pass, 2 fail, 0 error)"])
    saved = json.loads((pytester.path / "base.json").read_text())
    assert saved["schema"] == "pytest-are-judge/baseline-v2"
    assert saved["runs"]["sc/mail.yaml::mail[regresses]"]["verdict"] == "pass"
    # a failing plain test in the same session still fails it
    pytester.makepyfile(test_unit="def test_x():\n    assert False\n")
    mixed = run_pytest("--are-scenarios=sc", "test_unit.py", "--are-save-baseline=base2.json")
    assert mixed.ret == 1
    (pytester.path / "test_unit.py").unlink()

    same = run_pytest("--are-scenarios=sc", "--are-baseline=base.json", "-rA")
    same.assert_outcomes(passed=2, xfailed=2)
    assert same.ret == 0
    same.stdout.fnmatch_lines(["*XFAIL sc/mail.yaml::mail[[]improves[]] - failed in the baseline too*"])
    write(
        pytester,
        {"stays_ok": PASS, "regresses": FAIL, "improves": PASS, "stays_bad": FAIL, "brand_new": PASS},
    )
    result = run_pytest("--are-scenarios=sc", "--are-baseline=base.json", "-rA", "--are-report=r.json")
    result.assert_outcomes(passed=2, failed=1, xfailed=1, xpassed=1)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["XPASS sc/mail.yaml::mail[[]improves[]] - improved over baseline*"])
    result.stdout.fnmatch_lines(
        [
            "*baseline *base.json: 1 regressed, 1 improved, 1 still failing, 1 new, 0 missing",
            "  regressed: sc/mail.yaml::mail[[]regresses[]]",
            "  improved: sc/mail.yaml::mail[[]improves[]]",
            "  still failing: sc/mail.yaml::mail[[]stays_bad[]]",
            "  new: sc/mail.yaml::mail[[]brand_new[]]",
        ]
    )
    assert "failed in baseline too" not in result.stdout.str()
    report = json.loads((pytester.path / "r.json").read_text())
    by_id = {r["run_id"]: r for r in report["runs"]}
    assert by_id["improves"]["baseline"] == "improved" and by_id["improves"]["outcome"] == "xpassed"
    assert by_id["regresses"]["baseline"] == "regressed" and by_id["brand_new"]["baseline"] == "new"
    write(pytester, {"stays_ok": PASS})
    fewer = run_pytest("--are-scenarios=sc", "--are-baseline=base.json")
    fewer.stdout.fnmatch_lines(
        ["*0 regressed, 0 improved, 0 still failing, 0 new, 3 missing", "  missing: sc/mail.yaml::mail[[]improves[]]"]
    )


def test_bad_baseline_is_a_usage_error(pytester: pytest.Pytester, run_pytest) -> None:
    write(pytester, {"r": PASS})
    (pytester.path / "base.json").write_text('{"runs": []}')
    result = run_pytest("--are-scenarios=sc", "--are-baseline=base.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*base.json is not a pytest-are-judge baseline*"])


# ------------------------------------------------------------------ node ids and plain pytest paths


def test_a_copied_node_id_reruns_that_item_only(pytester: pytest.Pytester, run_pytest) -> None:
    write(pytester, {"r1": PASS, "r2": FAIL, "r3": PASS})
    one = run_pytest("sc/mail.yaml::mail[r2]", "--are-scenarios=sc")
    one.assert_outcomes(failed=1)
    file_only = run_pytest("sc/mail.yaml", "--are-scenarios=sc")
    file_only.assert_outcomes(passed=2, failed=1)


def test_a_scenario_file_without_are_scenarios_says_how_to_judge_it(pytester: pytest.Pytester, run_pytest) -> None:
    write(pytester, {"r1": PASS})
    result = run_pytest("sc/mail.yaml")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*pytest does not judge scenario files by itself: run `pytest --are-scenarios=sc/mail.yaml`*"]
    )
    assert "Traceback" not in result.stdout.str()


def test_a_scenario_without_runs_is_an_error_item(pytester: pytest.Pytester, run_pytest) -> None:
    write(pytester, {"r1": PASS})
    (pytester.path / "sc" / "empty.yaml").write_text(mail_scenario_yaml({}, sid="empty") + "  []\n")
    result = run_pytest("--are-scenarios=sc")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*empty.yaml*the scenario has no runs to judge*"])


# ------------------------------------------------------------------ usage errors, once, before any test


def test_a_bad_config_file_is_one_usage_error(pytester: pytest.Pytester, run_pytest) -> None:
    write(pytester, {"r1": PASS, "r2": PASS})
    missing = run_pytest("--are-scenarios=sc", "--are-config=nope.json")
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    missing.stderr.fnmatch_lines(["ERROR: --are-config: file *nope.json: cannot read file*"])
    (pytester.path / "bad.json").write_text(json.dumps({"no_such_field": 1}))
    bad = run_pytest("--are-scenarios=sc", "--are-config=bad.json")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["ERROR: --are-config: file *bad.json: invalid judge config: no_such_field*"])
    assert "ERROR at setup" not in bad.stdout.str()


def test_tool_are_judge_in_pyproject_is_read(pytester: pytest.Pytester, run_pytest) -> None:
    write(pytester, {"r1": PASS})
    pytester.makepyprojecttoml("[tool.are_judge]\nmatching = 'exact'\nextra_send_message_to_user_allowed = 0\n")
    pytester.makeconftest(
        "def pytest_are_judge_judgment(item, run, judgment):\n    print('MATCHING', judgment.matching)\n"
    )
    result = run_pytest("--are-scenarios=sc", "-s")
    result.stdout.fnmatch_lines(["*MATCHING exact*"])
    pytester.makepyprojecttoml("[tool.are_judge]\nno_such = 1\n")
    bad = run_pytest("--are-scenarios=sc")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["ERROR: [[]tool.are_judge[]] in pyproject.toml: *pyproject.toml*no_such*"])


def test_llm_options_without_llm_judging_are_a_usage_error(pytester: pytest.Pytester, run_pytest) -> None:
    write(pytester, {"r1": PASS})
    result = run_pytest("--are-scenarios=sc", "--judge-model=m", "--are-llm-cache=c.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: --judge-model, --are-llm-cache given while LLM judging is off: add --are-llm (ini are_llm)*"]
    )
    pytester.makeini("[pytest]\njudge_model = m\n")  # ini values may stay set
    assert run_pytest("--are-scenarios=sc").ret == 0


def test_llm_judging_without_litellm_says_which_extra(
    pytester: pytest.Pytester, run_pytest, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(pytester, {"r1": PASS})
    monkeypatch.setitem(sys.modules, "litellm", None)  # as if the [llm] extra were not installed
    result = run_pytest("--are-scenarios=sc", "--are-llm")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: LLM judging is on but litellm is not installed: pip install 'pytest-are-judge[[]llm[]]'"]
    )
    assert "Traceback" not in result.stderr.str()


# ------------------------------------------------------------------ reports


def test_json_report_schema(pytester: pytest.Pytester, run_pytest) -> None:
    write(pytester, {"good": PASS, "bad": FAIL, "known": "c@x.org"}, expect_fail=("known",))
    run_pytest("--are-scenarios=sc", "--are-report=out/report.json", "--are-min-pass-rate=0.2")
    report = json.loads((pytester.path / "out" / "report.json").read_text())
    assert report["schema_version"] == 2 and report["tool"] == "pytest-are-judge"
    s = report["summary"]
    assert (s["runs"], s["passed"], s["failed"], s["errors"], s["expected_failures"]) == (3, 1, 1, 0, 1)
    assert s["pass_rate"] == pytest.approx(1 / 2) and s["expected_to_pass"] == 2
    assert s["gate_passed"] is True and s["min_pass_rate"] == 0.2
    assert s["failure_categories"] == {"arguments": 1}
    assert s["outcomes"] == {"failed": 1, "passed": 1, "xfailed": 1}
    runs = {r["run_id"]: r for r in report["runs"]}
    assert [r["nodeid"] for r in report["runs"]] == sorted(r["nodeid"] for r in report["runs"])
    assert runs["good"]["verdict"] == "pass" and runs["good"]["outcome"] == "passed" and runs["good"]["matches"]
    assert runs["bad"]["verdict"] == "fail" and runs["bad"]["failure_kind"] == "oracle_event_matching"
    assert "Agent did not perform" in runs["bad"]["failure"]
    assert runs["known"]["expected"] == "fail" and runs["known"]["outcome"] == "xfailed"
    assert runs["bad"]["path"] == "sc/mail.yaml"
    assert {n["id"]: n["state"] for n in runs["bad"]["trace"]["oracle"]} == {"u": "matched", "send": "rejected"}


def test_junitxml_suite_properties_and_failure_text(pytester: pytest.Pytester, run_pytest) -> None:
    write(pytester, {"good": PASS, "bad": FAIL})
    run_pytest("--are-scenarios=sc", "--junitxml=j.xml")
    root = ET.parse(pytester.path / "j.xml").getroot()
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["are_runs"] == "2" and props["are_passed"] == "1" and props["are_failed"] == "1"
    assert props["are_pass_rate"] == "0.5000"
    assert props["are_failures_arguments"] == "1"
    failures = [tc for tc in suite.iter("testcase") if tc.find("failure") is not None]
    assert len(failures) == 1
    text = failures[0].find("failure").text or failures[0].find("failure").get("message")
    assert "Agent did not perform the following oracle tool call" in text


def test_llm_options_map_into_config(pytester: pytest.Pytester, run_pytest) -> None:
    """Every LLM option lands in the judge config (observed through the adjust_config hook)."""
    write(pytester, {"good": PASS})
    pytester.makeconftest(
        textwrap.dedent(
            """
            import json
            def pytest_are_judge_adjust_config(scenario, config):
                open(f"seen-{id(config)}.json", "w").write(json.dumps(config.model_dump(include={
                    "llm", "judge_model", "judge_provider", "judge_endpoint", "judge_votes", "llm_options", "matching"})))
                return {"llm": False}  # keep this test offline
            """
        )
    )
    result = run_pytest(
        "--are-scenarios=sc",
        "--are-llm",
        "--judge-model=m1",
        "--judge-provider=p1",
        "--judge-endpoint=http://127.0.0.1:9/v1",
        "--are-llm-cache=cache.db",
        "--are-llm-replay-only",
        "--are-llm-concurrency=3",
        "--are-judge-votes=3",
        "--are-matching=exact",
    )
    result.assert_outcomes(passed=1)
    seen = [json.loads(p.read_text()) for p in pytester.path.glob("seen-*.json")]
    assert len(seen) == 1
    cfg = seen[0]
    assert cfg["llm"] is True and cfg["judge_model"] == "m1" and cfg["judge_provider"] == "p1"
    assert cfg["judge_endpoint"] == "http://127.0.0.1:9/v1" and cfg["judge_votes"] == 3 and cfg["matching"] == "exact"
    assert cfg["llm_options"] == {"cache_path": str(pytester.path / "cache.db"), "replay_only": True, "concurrency": 3}
    result.stdout.fnmatch_lines(["are-judge: *llm=True*judge_model=m1*"])


def test_llm_usage_is_summed_in_summary_report_and_junit(pytester: pytest.Pytester, run_pytest) -> None:
    write(pytester, {"a": PASS, "b": PASS, "c": PASS, "d": PASS})
    pytester.makeconftest(
        textwrap.dedent(
            """
            def pytest_are_judge_judgment(item, run, judgment):
                from pytest_are_judge.soft import usage
                usage.record(calls=2, prompt_tokens=10, cost_usd=0.5)
            """
        )
    )
    result = run_pytest("--are-scenarios=sc", "--are-report=r.json", "--junitxml=j.xml")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["LLM usage: *calls: 8*prompt_tokens: 40*cost_usd: 2.0000*"])
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["llm_usage"]["calls"] == 8 and report["llm_usage"]["cost_usd"] == pytest.approx(2.0)
    props = {p.get("name"): p.get("value") for p in ET.parse(pytester.path / "j.xml").getroot().iter("property")}
    assert props["are_llm_calls"] == "8"


def test_header_and_summary_only_when_active(pytester: pytest.Pytester, run_pytest) -> None:
    from pytest_are_judge.options import plugin_options

    pytester.makepyfile(test_a="def test_a():\n    pass\n")
    plain = run_pytest()
    assert "are-judge:" not in plain.stdout.str() and "are-judge summary" not in plain.stdout.str()
    plain.assert_outcomes(passed=1)
    helped = run_pytest("--help")
    for opt in plugin_options():
        for name in (opt.flag, opt.ini):
            if name:
                assert name in helped.stdout.str(), name
