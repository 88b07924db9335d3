"""--are-hf in the plugin: oracle scenarios from a local Hugging Face dataset (built here from the
shared ARE traces, loaded offline), paired with the collected runs by scenario id."""

from __future__ import annotations

import json
import shutil

import pytest
from conformance import CASES

datasets = pytest.importorskip("datasets")

# three agent runs of the cab scenario (hx_cab), numbered by their folder; ARE's verdicts:
RUNS = {
    "run_1": "cab__drop__oracle_cancel",
    "run_2": "cab__arg__oracle_order__locations_other",
    "run_3": "cab__replay__exact_ids",
}
OTHER = "calendar__arg__oracle_add__attendees_emails"  # hx_calendar: not in the dataset

CONFTEST = """
import json, pathlib
def pytest_are_judge_judgment(item, run, judgment):
    out = pathlib.Path(item.config.rootpath, "seen")
    out.mkdir(exist_ok=True)
    name = item.nodeid.replace("/", "_").replace(":", "_")
    (out / name).write_text(json.dumps([run.scenario.metadata.get("oracle_source"), run.metadata.get("oracle")]))
"""


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def make_dataset(path, *, splits: bool = False) -> None:
    data = json.loads((CASES / RUNS["run_1"] / "oracle.json").read_text())
    rows = [{"scenario_id": data["metadata"]["definition"]["scenario_id"], "data": json.dumps(data), "run_number": 1}]
    ds = datasets.Dataset.from_list(rows)
    (datasets.DatasetDict({"train": ds, "validation": ds}) if splits else ds).save_to_disk(str(path))


def make_runs(root) -> None:
    """Agent traces only (no oracle-run sibling): the oracle side must come from the dataset."""
    for folder, case in RUNS.items():
        (root / "sc" / folder).mkdir(parents=True)
        shutil.copyfile(CASES / case / "agent.json", root / "sc" / folder / "agent.json")


def expected_success(case: str) -> bool:
    return json.loads((CASES / case / "expected.json").read_text())["success"]


def test_runs_are_paired_with_dataset_scenarios(pytester: pytest.Pytester, run_pytest) -> None:
    make_dataset(pytester.path / "ds")
    make_runs(pytester.path)
    pytester.makeconftest(CONFTEST)
    result = run_pytest("--are-scenarios=sc", "--are-hf=ds", "-rA", "--are-report=r.json")
    result.assert_outcomes(passed=2, failed=1)
    assert result.ret == 1
    report = json.loads((pytester.path / "r.json").read_text())
    verdicts = {r["nodeid"]: r["verdict"] for r in report["runs"]}
    for folder, case in RUNS.items():  # ARE's own verdicts
        assert verdicts[f"sc/{folder}/agent.json::hx_cab[agent]"] == ("pass" if expected_success(case) else "fail")
    seen = {p.name: json.loads(p.read_text()) for p in (pytester.path / "seen").iterdir()}
    assert len(seen) == 3 and all(v == ["hf", "<hf:hx_cab>"] for v in seen.values()), seen
    result.stdout.fnmatch_lines(["are-judge: scenarios=*, hf=*ds*"])
    # the three runs are numbered (run_<n> folders): pass@3 / pass^3 of 2 passes out of 3
    result.stdout.fnmatch_lines(
        ["repeated runs (k=3): pass@3 100.0%  pass^3 0.0%  (1 of 1 scenario(s) scored, 3 runs)"]
    )


def test_run_without_dataset_scenario_is_an_error_item(pytester: pytest.Pytester, run_pytest) -> None:
    make_dataset(pytester.path / "ds", splits=True)
    make_runs(pytester.path)
    (pytester.path / "sc" / "cal").mkdir()
    shutil.copyfile(CASES / OTHER / "agent.json", pytester.path / "sc" / "cal" / "agent.json")
    result = run_pytest("--are-scenarios=sc", "--are-hf=ds", "--are-hf-split=validation", "-rA", "--are-report=r.json")
    result.assert_outcomes(passed=2, failed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*cal/agent.json, field scenario_id: run 'agent': no scenario 'hx_calendar' in the --are-hf dataset *ds split=validation"
        ]
    )
    assert "Traceback" not in result.stdout.str()
    report = json.loads((pytester.path / "r.json").read_text())
    err = next(r for r in report["runs"] if r["scenario_id"] == "hx_calendar")
    assert (
        err["verdict"] == "error"
        and err["outcome"] == "error"
        and err["nodeid"] == "sc/cal/agent.json::hx_calendar[agent]"
    )
    assert report["summary"]["errors"] == 1


def test_ini_twins(pytester: pytest.Pytester) -> None:
    make_dataset(pytester.path / "ds", splits=True)
    make_runs(pytester.path)
    pytester.makeini("[pytest]\nare_scenarios = sc\nare_hf = ds\nare_hf_split = validation\n")
    result = pytester.runpytest_subprocess("-p", "no:xdist", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["are-judge: scenarios=*, hf=*ds, hf_split=validation"])


def test_dataset_errors_are_usage_errors(pytester: pytest.Pytester) -> None:
    make_dataset(pytester.path / "ds", splits=True)
    make_runs(pytester.path)
    args = ("-p", "no:cacheprovider", "--are-scenarios=sc")
    cases = [
        (("--are-hf=no-such-dataset-xyz",), "ERROR: --are-hf: file no-such-dataset-xyz: dataset not found*"),
        (
            ("--are-hf=ds", "--are-hf-split=test"),
            "ERROR: --are-hf: file *ds, field split: split 'test' not found; available splits: train, validation",
        ),
        (
            ("--are-hf=ds",),
            "ERROR: --are-hf: file *ds, field split: the dataset has several splits (train, validation); choose one*",
        ),
        (("--are-hf-config=execution",), "ERROR: --are-hf-config needs --are-hf (ini are_hf)"),
    ]
    for extra, message in cases:
        result = pytester.runpytest_subprocess(*args, "-p", "no:xdist", *extra)
        assert result.ret == pytest.ExitCode.USAGE_ERROR, extra
        result.stderr.fnmatch_lines([message])
        assert "Traceback" not in result.stderr.str() + result.stdout.str()
    # xdist: the controller loads the dataset first, so the error comes before any worker
    result = pytester.runpytest_subprocess(*args, "-n", "2", "--are-hf=no-such-dataset-xyz")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --are-hf: file no-such-dataset-xyz: dataset not found*"])
    assert "Traceback" not in result.stderr.str() + result.stdout.str()
    # without runs to judge
    alone = pytester.runpytest_subprocess("-p", "no:xdist", "-p", "no:cacheprovider", "--are-hf=ds")
    assert alone.ret == pytest.ExitCode.USAGE_ERROR
    alone.stderr.fnmatch_lines(["ERROR: --are-hf needs --are-scenarios (ini are_scenarios)*"])


def test_missing_hf_extra_is_a_usage_error(pytester: pytest.Pytester) -> None:
    make_dataset(pytester.path / "ds")
    make_runs(pytester.path)
    pytester.makeconftest("import sys\nsys.modules['datasets'] = None  # as if the [hf] extra were not installed\n")
    result = pytester.runpytest_subprocess(
        "-p", "no:xdist", "-p", "no:cacheprovider", "--are-scenarios=sc", "--are-hf=ds"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: --are-hf: *needs the 'datasets' package: pip install 'pytest-are-judge[[]hf[]]'"]
    )
    assert "Traceback" not in result.stderr.str()
