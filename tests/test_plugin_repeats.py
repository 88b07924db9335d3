"""Repeated runs in the plugin: pass@k / pass^k in the summary, JSON report and junit, the
--are-min-pass-hat-k gate, and the per-scenario baseline comparison at the same k.

Expected numbers are worked out by hand (n runs, c passed):
  pass@k = 1 - C(n-c, k) / C(n, k)      pass^k = C(c, k) / C(n, k)
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from builders import mail_scenario_yaml

PASS, FAIL = "a@x.org", "b@x.org"


def write(pytester: pytest.Pytester, sid: str, runs: dict[str, str], expect_fail: tuple[str, ...] = ()) -> None:
    """One native scenario file ``sc/<sid>.yaml``; runs: run id -> recipient (a@x.org passes)."""
    body = mail_scenario_yaml(runs, sid=sid, expect_fail=expect_fail)
    (pytester.path / "sc").mkdir(exist_ok=True)
    (pytester.path / "sc" / f"{sid}.yaml").write_text(body)


def write_session(pytester: pytest.Pytester) -> None:
    """mail: 4 repeats, 3 pass; memo: 3 repeats, 1 passes; solo: 1 repeat (never scored at k >= 2);
    variant: a hand-made variant (not a repeat)."""
    write(pytester, "mail", {"run_1": PASS, "run_2": PASS, "run_3": PASS, "run_4": FAIL})
    write(pytester, "memo", {"run_1": PASS, "run_2": FAIL, "run_3": FAIL})
    write(pytester, "solo", {"run_1": PASS})
    write(pytester, "variant", {"good": PASS, "wrong": FAIL}, expect_fail=("wrong",))


def summary_section(result: pytest.RunResult) -> list[str]:
    lines = result.stdout.lines
    start = next(i for i, line in enumerate(lines) if "are-judge summary" in line)
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("="))
    return lines[start:end]


def test_pass_at_k_and_pass_hat_k_default_k(pytester: pytest.Pytester, run_pytest) -> None:
    write_session(pytester)
    result = run_pytest("--are-scenarios=sc", "--are-report=r.json", "--junitxml=j.xml")
    result.assert_outcomes(passed=6, failed=3, xfailed=1)
    assert result.ret == 1  # no gate: a failing repeat fails like any run
    # default k = the smallest repeat count among scenarios with >= 2 repeats = 3 (memo)
    # mail n=4 c=3: pass@3 = 1 - C(1,3)/C(4,3) = 1; pass^3 = C(3,3)/C(4,3) = 1/4
    # memo n=3 c=1: pass@3 = 1 - C(2,3)/C(3,3) = 1; pass^3 = C(1,3)/C(3,3) = 0
    # overall (mean over the 2 scored scenarios): pass@3 = 1, pass^3 = 1/8
    result.stdout.fnmatch_lines(
        [
            "repeated runs (k=3): pass@3 100.0%  pass^3 12.5%  (2 of 3 scenario(s) scored, 8 runs)",
            "  scenario  runs  passed  pass@3  pass^3",
            "  --------  ----  ------  ------  ------",
            "  mail      4     3       100.0%  25.0%",
            "  memo      3     1       100.0%  0.0%",
            "  (1 scenario(s) with a single run, fewer than k=3: not scored)",
        ]
    )
    assert "pass^k gate" not in result.stdout.str()
    report = json.loads((pytester.path / "r.json").read_text())
    rep = report["repeats"]
    assert rep["k"] == 3 and rep["min_pass_hat_k"] is None and rep["gate_passed"] is None
    assert rep["scenarios"]["mail"]["n"] == 4 and rep["scenarios"]["mail"]["c"] == 3
    assert rep["scenarios"]["mail"]["pass_at_k"] == pytest.approx(1.0)
    assert rep["scenarios"]["mail"]["pass_hat_k"] == pytest.approx(0.25)
    assert rep["scenarios"]["memo"]["pass_hat_k"] == 0.0
    assert rep["scenarios"]["solo"]["pass_hat_k"] is None and "variant" not in rep["scenarios"]
    assert rep["overall"]["pass_hat_k"] == pytest.approx(0.125) and rep["overall"]["scored"] == 2
    by_id = {(r["scenario_id"], r["run_id"]): r for r in report["runs"]}
    assert by_id[("mail", "run_3")]["run_number"] == 3 and by_id[("variant", "good")]["run_number"] is None
    props = {p.get("name"): p.get("value") for p in ET.parse(pytester.path / "j.xml").getroot().iter("property")}
    assert props["are_k"] == "3"
    assert props["are_pass_at_k"] == "1.0000" and props["are_pass_hat_k"] == "0.1250"
    assert props["are_pass_hat_k_mail"] == "0.2500" and props["are_pass_at_k_memo"] == "1.0000"
    assert "are_pass_hat_k_solo" not in props and "are_pass_hat_k_gate_passed" not in props


def test_explicit_k_and_ini_twin(pytester: pytest.Pytester, run_pytest) -> None:
    write_session(pytester)
    # mail n=4 c=3: pass@2 = 1 - C(1,2)/C(4,2) = 1; pass^2 = C(3,2)/C(4,2) = 3/6
    # memo n=3 c=1: pass@2 = 1 - C(2,2)/C(3,2) = 2/3; pass^2 = C(1,2)/C(3,2) = 0
    # overall: pass@2 = (1 + 2/3)/2 = 5/6; pass^2 = (1/2 + 0)/2 = 1/4
    expected = [
        "repeated runs (k=2): pass@2 83.3%  pass^2 25.0%  (2 of 3 scenario(s) scored, 8 runs)",
        "  scenario  runs  passed  pass@2  pass^2",
        "  --------  ----  ------  ------  ------",
        "  mail      4     3       100.0%  50.0%",
        "  memo      3     1       66.7%   0.0%",
    ]
    run_pytest("--are-scenarios=sc", "--are-k=2").stdout.fnmatch_lines(expected)
    pytester.makeini("[pytest]\nare_k = 2\n")
    run_pytest("--are-scenarios=sc").stdout.fnmatch_lines(["are-judge: scenarios=*, k=2", *expected])


def test_min_pass_hat_k_gate(pytester: pytest.Pytester, run_pytest) -> None:
    write_session(pytester)
    failed = run_pytest("--are-scenarios=sc", "--are-min-pass-hat-k=0.2", "--are-report=r.json", "--junitxml=j.xml")
    failed.assert_outcomes(passed=6, xfailed=4)  # the failing repeats are the gate's to judge...
    assert failed.ret == 1  # ...and overall pass^3 = 12.5% < 20%
    failed.stdout.fnmatch_lines(["FAILED: pass^3 12.5% is below --are-min-pass-hat-k 20.0%"])
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["repeats"]["min_pass_hat_k"] == 0.2 and report["repeats"]["gate_passed"] is False
    props = {p.get("name"): p.get("value") for p in ET.parse(pytester.path / "j.xml").getroot().iter("property")}
    assert props["are_min_pass_hat_k"] == "0.2" and props["are_pass_hat_k_gate_passed"] == "False"
    ok = run_pytest("--are-scenarios=sc", "--are-min-pass-hat-k=12.5%")
    assert ok.ret == 0
    ok.stdout.fnmatch_lines(["pass^k gate OK: pass^3 12.5% >= --are-min-pass-hat-k 12.5%"])
    # at k=2 the same runs give pass^2 = 25%: the gate is evaluated at the session's k
    assert run_pytest("--are-scenarios=sc", "--are-min-pass-hat-k=0.2", "--are-k=2").ret == 0


def test_gate_without_repeated_runs_fails_and_bad_values_are_usage_errors(
    pytester: pytest.Pytester, run_pytest
) -> None:
    write(pytester, "solo", {"run_1": PASS})
    write(pytester, "other", {"o1": PASS})
    args = ("--are-scenarios=sc",)
    none = run_pytest(*args, "--are-min-pass-hat-k=0.5")
    none.assert_outcomes(passed=2)
    assert none.ret == 1  # runs were judged, but the gate cannot be evaluated: never a pass
    none.stdout.fnmatch_lines(
        [
            "repeated runs: none (no scenario has two runs or more): pass^k cannot be computed",
            "FAILED: pass^k n/a (no scenario has k repeats) is below --are-min-pass-hat-k 50.0%",
        ]
    )
    # --are-k=1 scores single repeats too: pass@1 = pass^1 = the pass rate
    one = run_pytest(*args, "--are-k=1")
    one.stdout.fnmatch_lines(["repeated runs (k=1): pass@1 100.0%  pass^1 100.0%  (1 of 1 scenario(s) scored, 1 runs)"])
    # variants that only share a scenario id are never repeats, asked or not
    write(pytester, "variants", {"good": PASS, "wrong": FAIL}, expect_fail=("wrong",))
    plain = run_pytest(*args)
    plain.assert_outcomes(passed=3, xfailed=1)
    assert plain.ret == 0 and "repeated runs" not in plain.stdout.str()
    asked = run_pytest(*args, "--are-k=2")
    asked.stdout.fnmatch_lines(["repeated runs (k=2): pass@2 n/a  pass^2 n/a  (0 of 1 scenario(s) scored, 1 runs)"])
    for bad, message in (
        ("--are-k=0", "ERROR: --are-k: must be at least 1, got 0"),
        ("--are-min-pass-hat-k=2", "*--are-min-pass-hat-k: must be between 0 and 1*"),
        ("--are-min-pass-hat-k=lots", "*--are-min-pass-hat-k: expected a number*"),
        ("--are-min-pass-hat-k=nan", "*--are-min-pass-hat-k: must be between 0 and 1*"),
    ):
        result = run_pytest(*args, bad)
        assert result.ret == pytest.ExitCode.USAGE_ERROR, bad
        result.stderr.fnmatch_lines([message])
    pytester.makeini("[pytest]\nare_k = 0\n")
    from_ini = run_pytest(*args)
    assert from_ini.ret == pytest.ExitCode.USAGE_ERROR
    from_ini.stderr.fnmatch_lines(["ERROR: are_k (ini): must be at least 1, got 0"])


def test_baseline_compares_pass_hat_k_per_scenario_at_the_same_k(pytester: pytest.Pytester, run_pytest) -> None:
    # baseline: mail 4/4 passed, memo 1/3 passed
    write(pytester, "mail", {"run_1": PASS, "run_2": PASS, "run_3": PASS, "run_4": PASS})
    write(pytester, "memo", {"run_1": PASS, "run_2": FAIL, "run_3": FAIL})
    first = run_pytest("--are-scenarios=sc", "--are-save-baseline=base.json")
    assert first.ret == 0
    saved = json.loads((pytester.path / "base.json").read_text())
    assert saved["schema"] == "pytest-are-judge/baseline-v2"
    assert saved["repeats"] == {"mail": {"n": 4, "c": 4}, "memo": {"n": 3, "c": 1}}
    same = run_pytest("--are-scenarios=sc", "--are-baseline=base.json", "--are-k=2")
    assert same.ret == 0
    same.stdout.fnmatch_lines(["repeats vs baseline *base.json (k=2): 0 regressed, 0 improved"])
    # now: mail's run_4 fails (gated by pass^k: an xfail); memo's run_2 passes (an XPASS,
    # non-strict: it failed in the baseline)
    write(pytester, "mail", {"run_1": PASS, "run_2": PASS, "run_3": PASS, "run_4": FAIL})
    write(pytester, "memo", {"run_1": PASS, "run_2": PASS, "run_3": FAIL})
    result = run_pytest(
        "--are-scenarios=sc",
        "--are-baseline=base.json",
        "--are-k=2",
        "--are-min-pass-hat-k=0",
        "--are-report=r.json",
        "--junitxml=j.xml",
    )
    result.assert_outcomes(passed=4, xfailed=2, xpassed=1)
    assert result.ret == 1  # the pass^k regression fails the session
    # mail: pass^2 C(4,2)/C(4,2) = 1 -> C(3,2)/C(4,2) = 1/2; memo: 0 -> C(2,2)/C(3,2) = 1/3
    result.stdout.fnmatch_lines(
        [
            "repeats vs baseline *base.json (k=2): 1 regressed, 1 improved",
            "  regressed: mail pass^2 100.0% -> 50.0%  (runs passed 4/4 -> 3/4)",
            "  improved: memo pass^2 0.0% -> 33.3%  (runs passed 1/3 -> 2/3)",
            "FAILED: pass^2 regressed vs baseline for 1 scenario(s): mail",
        ]
    )
    report = json.loads((pytester.path / "r.json").read_text())
    base = report["repeats"]["baseline"]
    assert base["k"] == 2 and base["regressed"] == ["mail"] and base["improved"] == ["memo"]
    assert base["scenarios"]["mail"]["delta_pass_hat_k"] == pytest.approx(-0.5)
    props = {p.get("name"): p.get("value") for p in ET.parse(pytester.path / "j.xml").getroot().iter("property")}
    assert props["are_repeat_regressions"] == "1" and props["are_repeat_improvements"] == "1"


def test_v1_baseline_still_loads_and_compares_repeats(pytester: pytest.Pytester, run_pytest) -> None:
    """A baseline written before repeat counts existed: counts are rebuilt from its runs."""
    write(pytester, "mail", {"run_1": PASS, "run_2": PASS, "run_3": FAIL})
    runs = {
        f"sc/mail.yaml::mail[run_{i}]": {
            "verdict": "pass",
            "scenario_id": "mail",
            "run_id": f"run_{i}",
            "failure_kind": None,
        }
        for i in (1, 2, 3)
    }
    (pytester.path / "v1.json").write_text(json.dumps({"schema": "pytest-are-judge/baseline-v1", "runs": runs}))
    result = run_pytest("--are-scenarios=sc", "--are-baseline=v1.json")
    result.assert_outcomes(passed=2, failed=1)
    assert result.ret == 1
    # k = 3: pass^3 C(3,3)/C(3,3) = 1 -> C(2,3)/C(3,3) = 0
    result.stdout.fnmatch_lines(
        [
            "*baseline *v1.json: 1 regressed, 0 improved, 0 still failing, 0 new, 0 missing",
            "  regressed: sc/mail.yaml::mail[[]run_3[]]",
            "repeats vs baseline *v1.json (k=3): 1 regressed, 0 improved",
            "  regressed: mail pass^3 100.0% -> 0.0%  (runs passed 3/3 -> 2/3)",
            "FAILED: pass^3 regressed vs baseline for 1 scenario(s): mail",
        ]
    )
