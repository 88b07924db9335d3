"""Hugging Face datasets: Gaia2-layout rows built locally from the shared ARE traces, loaded offline."""

from __future__ import annotations

import json
import sys

import pytest
from conformance import CASES, config_for

from pytest_are_judge.api import judge_for, judge_run
from pytest_are_judge.errors import InputError
from pytest_are_judge.readers import load_file

datasets = pytest.importorskip("datasets")

from pytest_are_judge.readers.hf import load_hf_scenarios, pair_runs_with_hf, runs_from_hf  # noqa: E402

CASE_NAMES = ["cab__drop__oracle_cancel", "cab__arg__oracle_order__locations_other"]


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setattr(datasets.config, "HF_DATASETS_OFFLINE", True, raising=False)


def oracle_rows() -> list[dict]:
    rows = []
    seen = set()
    for name in CASE_NAMES:
        data = json.loads((CASES / name / "oracle.json").read_text())
        sid = data["metadata"]["definition"]["scenario_id"]
        if sid in seen:
            continue
        seen.add(sid)
        rows.append({"scenario_id": sid, "data": json.dumps(data), "run_number": 1, "phase_name": "validation"})
    return rows


@pytest.fixture(scope="module")
def hf_dirs(tmp_path_factory):
    base = tmp_path_factory.mktemp("hf")
    rows = oracle_rows()
    ds = datasets.Dataset.from_list(rows)
    ds.save_to_disk(str(base / "disk"))
    datasets.DatasetDict({"validation": ds}).save_to_disk(str(base / "dict"))
    (base / "pq").mkdir()
    ds.to_parquet(str(base / "pq" / "validation-00000-of-00001.parquet"))
    with open(base / "rows.jsonl", "w") as fh:
        for r in rows:
            fh.write(json.dumps(r) + "\n")
    dict_rows = [{"scenario_id": r["scenario_id"], "data": json.loads(r["data"])} for r in rows]
    datasets.Dataset.from_list(dict_rows).save_to_disk(str(base / "dictrows"))
    return base


@pytest.mark.parametrize(
    ("sub", "split"),
    [("disk", None), ("dict", "validation"), ("dict", None), ("pq", None), ("rows.jsonl", None), ("dictrows", None)],
)
def test_load_layouts(hf_dirs, sub, split):
    got = load_hf_scenarios(hf_dirs / sub, split=split)
    assert list(got) == ["hx_cab"]
    (export,) = got["hx_cab"]
    assert export["version"] == "are_simulation_v1" and export["events"]


@pytest.mark.parametrize("name", CASE_NAMES)
def test_paired_runs_match_the_trace_oracle_verdict(hf_dirs, name):
    hf = load_hf_scenarios(hf_dirs / "disk")
    case = CASES / name
    expected = json.loads((case / "expected.json").read_text())
    runs = load_file(case / "agent.json").runs
    (paired,) = pair_runs_with_hf(runs, hf)
    assert paired.scenario.metadata["oracle_source"] == "hf" and paired.scenario.oracle_run
    judge = judge_for(config_for(case))
    j = judge_run(paired, judge=judge)
    assert j.success == expected["success"]
    ref = judge_run(
        load_file(case / "agent.json", oracle=json.loads((case / "oracle.json").read_text())).runs[0], judge=judge
    )
    assert j.success == ref.success and j.agent_event_id_to_oracle_event_id == ref.agent_event_id_to_oracle_event_id


def test_definition_only_rows_derive_the_oracle(tmp_path):
    data = json.loads((CASES / CASE_NAMES[1] / "oracle.json").read_text())
    data["completed_events"] = []
    datasets.Dataset.from_list([{"scenario_id": "hx_cab", "data": json.dumps(data)}]).save_to_disk(str(tmp_path / "d"))
    hf = load_hf_scenarios(tmp_path / "d")
    runs = load_file(CASES / CASE_NAMES[1] / "agent.json").runs
    (paired,) = pair_runs_with_hf(runs, hf)
    assert paired.scenario.oracle_run is None
    assert judge_run(paired).success is not None
    assert runs_from_hf(hf) == []


def test_missing_runs_policy(hf_dirs):
    hf = load_hf_scenarios(hf_dirs / "disk")
    other = {"nope": hf["hx_cab"]}
    runs = load_file(CASES / CASE_NAMES[0] / "agent.json").runs
    with pytest.raises(InputError, match="no scenario in the dataset for 1 run"):
        pair_runs_with_hf(runs, other)
    assert pair_runs_with_hf(runs, other, missing="keep") == runs
    assert pair_runs_with_hf(runs, other, missing="skip") == []


def test_clear_errors(hf_dirs, tmp_path):
    with pytest.raises(InputError, match="split 'test' not found; available splits: validation"):
        load_hf_scenarios(hf_dirs / "dict", split="test")
    with pytest.raises(InputError, match="no column 'payload'"):
        load_hf_scenarios(hf_dirs / "disk", data_column="payload")
    datasets.Dataset.from_list([{"scenario_id": "a", "text": "x"}]).save_to_disk(str(tmp_path / "nodata"))
    with pytest.raises(InputError, match="no scenario column"):
        load_hf_scenarios(tmp_path / "nodata")
    datasets.Dataset.from_list([{"scenario_id": "a", "data": "{not json"}]).save_to_disk(str(tmp_path / "badjson"))
    with pytest.raises(InputError, match="row 0: column 'data' is not valid JSON"):
        load_hf_scenarios(tmp_path / "badjson")
    datasets.Dataset.from_list([{"scenario_id": "a", "data": json.dumps({"x": 1})}]).save_to_disk(
        str(tmp_path / "notexport")
    )
    with pytest.raises(InputError, match="not an ARE export"):
        load_hf_scenarios(tmp_path / "notexport")
    (tmp_path / "x.txt").write_text("hi")
    with pytest.raises(InputError, match="cannot read a dataset"):
        load_hf_scenarios(tmp_path / "x.txt")


def test_without_datasets_installed(monkeypatch):
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(InputError, match=r"pip install 'pytest-are-judge\[hf\]'"):
        load_hf_scenarios("anything")


def test_unknown_hub_name_offline_is_a_clear_error(tmp_path):
    """In a fresh process (``datasets`` reads HF_DATASETS_OFFLINE at import) with an empty cache."""
    import os
    import subprocess

    code = (
        "from pytest_are_judge.readers.hf import load_hf_scenarios\n"
        "from pytest_are_judge.errors import InputError\n"
        "try:\n    load_hf_scenarios('no-such-org/no-such-dataset-xyz', split='validation', config='execution')\n"
        "except InputError as e:\n    print(e)\n"
    )
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf-home")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert "dataset not found" in out.stdout and "HF_DATASETS_OFFLINE is set" in out.stdout, out.stdout + out.stderr
