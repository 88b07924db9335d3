"""CI gating: pass-rate gate, baselines, JSON report, junitxml, LLM options and usage."""

from __future__ import annotations

import json
import textwrap
import xml.etree.ElementTree as ET

import pytest
from builders import mail_scenario_yaml


def write(pytester: pytest.Pytester, runs: dict[str, str], expect_fail: tuple[str, ...] = ()) -> None:
    """runs: run id -> recipient (a@x.org passes, anything else fails)."""
    body = mail_scenario_yaml(runs, expect_fail=expect_fail)
    (pytester.path / "sc").mkdir(exist_ok=True)
    (pytester.path / "sc" / "mail.yaml").write_text(body)


def test_min_pass_rate_fails_session_even_when_items_are_xfail(pytester: pytest.Pytester, run_pytest) -> None:
    write(pytester, {"r1": "a@x.org", "r2": "b@x.org", "r3": "b@x.org"}, expect_fail=("r2", "r3"))
    ok = run_pytest("--are-scenarios=sc")
    ok.assert_outcomes(passed=1, xfailed=2)
    assert ok.ret == 0
    gated = run_pytest("--are-scenarios=sc", "--are-min-pass-rate=0.5")
    gated.assert_outcomes(passed=1, xfailed=2)
    assert gated.ret == 1
    gated.stdout.fnmatch_lines(["*FAILED: pass rate 33.3% is below --are-min-pass-rate 50.0%*"])
    fine = run_pytest("--are-scenarios=sc", "--are-min-pass-rate=30%")
    assert fine.ret == 0
    fine.stdout.fnmatch_lines(["*pass rate gate OK: 33.3% >= 30.0%*"])
    bad = run_pytest("--are-scenarios=sc", "--are-min-pass-rate=2")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR


def test_baseline_regressions_improvements_per_run(pytester: pytest.Pytester, run_pytest) -> None:
    write(pytester, {"stays_ok": "a@x.org", "regresses": "a@x.org", "improves": "b@x.org", "stays_bad": "b@x.org"})
    first = run_pytest("--are-scenarios=sc", "--are-save-baseline=base.json")
    first.assert_outcomes(passed=2, failed=2)
    saved = json.loads((pytester.path / "base.json").read_text())
    assert saved["schema"] == "pytest-are-judge/baseline-v2"
    assert saved["runs"]["sc/mail.yaml::mail[regresses]"]["verdict"] == "pass"
    assert saved["runs"]["sc/mail.yaml::mail[stays_bad]"]["verdict"] == "fail"
    # unchanged: failures that failed in the baseline too are xfail, the session passes
    same = run_pytest("--are-scenarios=sc", "--are-baseline=base.json", "-rA")
    same.assert_outcomes(passed=2, xfailed=2)
    assert same.ret == 0
    same.stdout.fnmatch_lines(["*XFAIL sc/mail.yaml::mail[[]improves[]] - failed in baseline too*"])
    # now one regression and one improvement
    write(
        pytester,
        {
            "stays_ok": "a@x.org",
            "regresses": "b@x.org",
            "improves": "a@x.org",
            "stays_bad": "b@x.org",
            "brand_new": "a@x.org",
        },
    )
    result = run_pytest("--are-scenarios=sc", "--are-baseline=base.json", "-rA", "--are-report=r.json")
    result.assert_outcomes(passed=2, failed=1, xfailed=1, xpassed=1)
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "*baseline *base.json: 1 regression(s), 1 improvement(s), 1 still failing, 1 new, 0 missing",
            "  regression: sc/mail.yaml::mail[[]regresses[]]",
            "  improvement: sc/mail.yaml::mail[[]improves[]]",
            "  new: sc/mail.yaml::mail[[]brand_new[]]",
        ]
    )
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["baseline"]["regressions"] == ["sc/mail.yaml::mail[regresses]"]
    assert report["baseline"]["improvements"] == ["sc/mail.yaml::mail[improves]"]
    by_id = {r["run_id"]: r for r in report["runs"]}
    assert by_id["improves"]["baseline"] == "fail" and by_id["improves"]["outcome"] == "xpassed"


def test_bad_baseline_is_a_usage_error(pytester: pytest.Pytester) -> None:
    write(pytester, {"r": "a@x.org"})
    (pytester.path / "base.json").write_text('{"runs": []}')
    result = pytester.runpytest_subprocess("--are-scenarios=sc", "--are-baseline=base.json", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*base.json is not a pytest-are-judge baseline*"])


def test_json_report_schema(pytester: pytest.Pytester, run_pytest) -> None:
    write(pytester, {"good": "a@x.org", "bad": "b@x.org", "known": "c@x.org"}, expect_fail=("known",))
    run_pytest("--are-scenarios=sc", "--are-report=out/report.json", "--are-min-pass-rate=0.2")
    report = json.loads((pytester.path / "out" / "report.json").read_text())
    assert report["schema_version"] == 1
    assert report["tool"] == "pytest-are-judge"
    s = report["summary"]
    assert (s["runs"], s["passed"], s["failed"], s["errors"]) == (3, 1, 2, 0)
    assert s["pass_rate"] == pytest.approx(1 / 3)
    assert s["gate_passed"] is True and s["min_pass_rate"] == 0.2
    assert s["failure_categories"] == {"arguments": 2}
    assert s["outcomes"] == {"failed": 1, "passed": 1, "xfailed": 1}
    runs = {r["run_id"]: r for r in report["runs"]}
    assert [r["nodeid"] for r in report["runs"]] == sorted(r["nodeid"] for r in report["runs"])
    assert runs["good"]["verdict"] == "pass" and runs["good"]["outcome"] == "passed" and runs["good"]["matches"]
    assert runs["bad"]["verdict"] == "fail" and runs["bad"]["failure_kind"] == "oracle_event_matching"
    assert "Agent did not perform" in runs["bad"]["failure"]
    assert runs["known"]["expected"] == "fail" and runs["known"]["outcome"] == "xfailed"
    assert runs["bad"]["path"] == "sc/mail.yaml"


def test_junitxml_suite_properties_and_failure_text(pytester: pytest.Pytester, run_pytest) -> None:
    write(pytester, {"good": "a@x.org", "bad": "b@x.org"})
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
    write(pytester, {"good": "a@x.org"})
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


def test_llm_usage_is_summed_over_workers(pytester: pytest.Pytester, run_pytest) -> None:
    """Usage recorded in whichever process judged shows up (summed) in summary, report and junit."""
    write(pytester, {"a": "a@x.org", "b": "a@x.org", "c": "a@x.org", "d": "a@x.org"})
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


def test_header_and_summary_only_when_active(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_a="def test_a():\n    pass\n")
    plain = pytester.runpytest_subprocess("-p", "no:xdist")
    assert "are-judge:" not in plain.stdout.str() and "are-judge summary" not in plain.stdout.str()
    plain.assert_outcomes(passed=1)
    helped = pytester.runpytest_subprocess("--help")
    for flag in (
        "--are-scenarios",
        "--are-limit",
        "--are-matching",
        "--are-config",
        "--are-min-pass-rate",
        "--are-baseline",
        "--are-save-baseline",
        "--are-report",
        "--are-llm",
        "--judge-model",
        "--judge-provider",
        "--judge-endpoint",
        "--are-llm-cache",
        "--are-llm-replay-only",
        "--are-llm-concurrency",
        "--are-judge-votes",
        "--are-hf",
        "--are-hf-split",
        "--are-hf-config",
        "--are-k",
        "--are-min-pass-hat-k",
        "--are-html",
        "--are-md-summary",
    ):
        assert flag in helped.stdout.str(), flag
    for ini in (
        "are_scenarios",
        "are_limit",
        "are_matching",
        "are_min_pass_rate",
        "are_llm",
        "judge_model",
        "are_xfail_strict",
        "are_hf",
        "are_hf_split",
        "are_hf_config",
        "are_k",
        "are_min_pass_hat_k",
        "are_html",
        "are_md_summary",
    ):
        assert ini in helped.stdout.str(), ini
