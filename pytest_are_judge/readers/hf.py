"""Scenarios from Hugging Face ``datasets`` (Gaia2 and datasets laid out like it).

Gaia2 (``meta-agents-research-environments/gaia2``) has one config per capability
(``execution``, ``search``, ``adaptability``, ``time``, ``ambiguity``...) and a ``validation``
split; each row has a ``scenario_id`` and a ``data`` column holding the ARE export JSON of the
scenario as a string (other columns such as ``run_number`` or ``phase_name`` may be present).
This module reads such rows — ``data`` as a JSON string or as a mapping, or rows that are ARE
exports themselves — from a local dataset (``save_to_disk`` folder, parquet/JSON/JSONL files or
a folder of them) or a dataset already in the Hugging Face cache.  Nothing is downloaded when
``HF_DATASETS_OFFLINE=1`` is set (``datasets`` reads that variable itself).

Needs the ``[hf]`` extra: ``pip install 'pytest-are-judge[hf]'``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from ..errors import InputError
from ..model import Run
from .are_json import is_are_export, is_oracle_run, parse_completed_events, scenario_from_export

__all__ = ["HF_EXTRA_HINT", "load_hf_scenarios", "pair_runs_with_hf", "runs_from_hf"]

HF_EXTRA_HINT = "pip install 'pytest-are-judge[hf]'"
DATA_COLUMNS = ("data",)
ID_COLUMNS = ("scenario_id", "id")
_FILE_BUILDERS = {".parquet": "parquet", ".json": "json", ".jsonl": "json", ".csv": "csv", ".arrow": "arrow"}


def _datasets() -> Any:
    try:
        import datasets
    except ImportError:
        raise InputError(f"reading Hugging Face datasets needs the 'datasets' package: {HF_EXTRA_HINT}") from None
    return datasets


def _open(dataset: str | Path, split: str | None, config: str | None) -> Any:
    ds_mod = _datasets()
    label = str(dataset)
    p = Path(dataset).expanduser()
    try:
        if p.is_dir() and any((p / f).is_file() for f in ("dataset_info.json", "state.json", "dataset_dict.json")):
            return ds_mod.load_from_disk(str(p))
        if p.is_file():
            builder = _FILE_BUILDERS.get(p.suffix.lower())
            if builder is None:
                raise InputError(
                    f"cannot read a dataset from a {p.suffix or 'suffix-less'} file (use parquet, JSON, JSONL, CSV or arrow)",
                    file=label,
                )
            return ds_mod.load_dataset(builder, data_files=str(p), split=split)
        if p.is_dir():
            return ds_mod.load_dataset(str(p), name=config, split=split)
        return ds_mod.load_dataset(label, name=config, split=split)
    except InputError:
        raise
    except FileNotFoundError as exc:
        raise InputError(
            f"dataset not found locally or in the Hugging Face cache ({_first_line(exc)}); give a local folder/file, "
            "or download it once without HF_DATASETS_OFFLINE=1",
            file=label,
        ) from None
    except ValueError as exc:
        msg = _first_line(exc)
        if "split" in msg.lower():
            raise InputError(f"split {split!r} not found: {msg}", file=label, field="split") from None
        if "config" in msg.lower() or "name" in msg.lower():
            raise InputError(f"config {config!r} not found: {msg}", file=label, field="config") from None
        raise InputError(f"cannot load dataset: {msg}", file=label) from None
    except Exception as exc:
        if not p.exists():
            raise InputError(
                "dataset not found: not a local file or folder, and not loadable from the Hugging Face cache"
                f"{' (HF_DATASETS_OFFLINE is set)' if _offline() else ''}: {type(exc).__name__}: {_first_line(exc)}",
                file=label,
            ) from None
        raise InputError(f"cannot load dataset: {type(exc).__name__}: {_first_line(exc)}", file=label) from None


def _offline() -> bool:
    import os

    return os.environ.get("HF_DATASETS_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _pick_split(obj: Any, split: str | None, label: str) -> Any:
    if not isinstance(obj, dict):  # a single Dataset (DatasetDict is a dict of splits)
        return obj
    splits = list(obj.keys())
    if split is not None:
        if split not in splits:
            raise InputError(
                f"split {split!r} not found; available splits: {', '.join(splits) or '(none)'}",
                file=label,
                field="split",
            )
        return obj[split]
    if len(splits) == 1:
        return obj[splits[0]]
    raise InputError(
        f"the dataset has several splits ({', '.join(splits)}); choose one with split=", file=label, field="split"
    )


def _row_export(row: Mapping[str, Any], data_column: str | None, *, label: str, index: int) -> dict[str, Any]:
    if data_column is not None:
        raw = row.get(data_column)
        if isinstance(raw, (bytes, bytearray)):
            raw = raw.decode("utf-8")
        if isinstance(raw, str):
            try:
                raw = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise InputError(
                    f"row {index}: column {data_column!r} is not valid JSON ({exc.msg} at line {exc.lineno})",
                    file=label,
                    field=data_column,
                ) from None
        if not isinstance(raw, Mapping):
            raise InputError(
                f"row {index}: column {data_column!r} must hold an ARE export (JSON string or mapping), got {type(raw).__name__}",
                file=label,
                field=data_column,
            )
        data = dict(raw)
    else:
        data = dict(row)
    if not is_are_export(data):
        raise InputError(
            f"row {index}: not an ARE export (needs 'events', 'apps' and 'completed_events')",
            file=label,
            field=data_column,
        )
    return data


def load_hf_scenarios(
    dataset: str | Path,
    split: str | None = None,
    config: str | None = None,
    *,
    data_column: str | None = None,
    id_column: str | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """``{scenario_id: [ARE export dict, ...]}`` from a dataset, rows in dataset order.

    ``dataset`` is a local path (``save_to_disk`` folder, a parquet/JSON/JSONL file or a folder of
    them) or a dataset name already in the Hugging Face cache (Gaia2:
    ``meta-agents-research-environments/gaia2`` with ``config="execution"``,
    ``split="validation"``).  The export is read from ``data_column`` (default: ``data`` when the
    dataset has it, else the row itself); the id from ``id_column`` (default ``scenario_id`` or
    ``id``, else the export's ``metadata.definition.scenario_id``).
    """
    label = str(dataset)
    ds = _pick_split(_open(dataset, split, config), split, label)
    columns = list(getattr(ds, "column_names", None) or [])
    if data_column is None:
        data_column = next((c for c in DATA_COLUMNS if c in columns), None)
        if data_column is None and not {"events", "apps", "completed_events"} <= set(columns):
            raise InputError(
                f"no scenario column: expected a 'data' column with ARE export JSON (Gaia2 layout) or ARE export rows; columns: {columns}",
                file=label,
                field="data",
            )
    elif data_column not in columns:
        raise InputError(f"no column {data_column!r}; columns: {columns}", file=label, field=data_column)
    if id_column is not None and id_column not in columns:
        raise InputError(f"no column {id_column!r}; columns: {columns}", file=label, field=id_column)
    id_col = id_column or next((c for c in ID_COLUMNS if c in columns and c != data_column), None)
    out: dict[str, list[dict[str, Any]]] = {}
    for index, row in enumerate(ds):
        data = _row_export(row, data_column, label=label, index=index)
        sid = row.get(id_col) if id_col else None
        if not sid:
            sid = ((data.get("metadata") or {}).get("definition") or {}).get("scenario_id")
        if not sid:
            raise InputError(
                f"row {index}: no scenario id (column {id_col or 'scenario_id'!r} or metadata.definition.scenario_id)",
                file=label,
            )
        out.setdefault(str(sid), []).append(data)
    if not out:
        raise InputError("the dataset has no rows", file=label)
    return out


def _hf_source(sid: str) -> str:
    return f"<hf:{sid}>"


def pair_run_with_hf(
    run: Run, hf_scenarios: Mapping[str, list[dict[str, Any]]], label: str
) -> tuple[Run, InputError | None]:
    """``run`` with its dataset scenario as oracle side, or ``(run, error)`` when the dataset has
    no scenario of its id (that run is an error; the others are judged)."""
    sid = run.scenario.scenario_id
    if sid not in hf_scenarios:
        return run, InputError(
            f"run {run.run_id!r}: no scenario {sid!r} in the {label}", file=run.source, field="scenario_id"
        )
    try:
        (paired,) = pair_runs_with_hf([run], hf_scenarios)
    except InputError as exc:
        return run, exc
    return paired, None


def pair_runs_with_hf(
    runs: Iterable[Run],
    hf_scenarios: Mapping[str, list[dict[str, Any]]],
    *,
    missing: Literal["error", "keep", "skip"] = "error",
) -> list[Run]:
    """Runs whose oracle side is the dataset's scenario of the same id.

    The run keeps its agent events; its scenario definition is replaced by the dataset row's
    (the first row of that id).  When the row is an oracle-run trace (its metadata marks an
    oracle run and it has completed events) those events are the oracle run, as with
    ``read_export(agent, oracle=row)``; otherwise the oracle run is derived from the definition,
    timed from the agent run's own start.  A run with no dataset scenario raises
    :class:`InputError` (``missing="error"``), keeps its own definition (``"keep"``) or is dropped
    (``"skip"``).
    """
    out: list[Run] = []
    absent: list[str] = []
    for run in runs:
        sid = run.scenario.scenario_id
        rows = hf_scenarios.get(sid)
        if not rows:
            if missing == "keep":
                out.append(run)
            elif missing == "error":
                absent.append(f"{sid} ({run.source or run.run_id})")
            continue
        row = rows[0]
        src = _hf_source(sid)
        scenario = scenario_from_export(row, file=src)
        app_classes = {a.name: a.class_name for a in scenario.apps}
        completed = row.get("completed_events") or []
        update: dict[str, Any] = {
            "metadata": {**scenario.metadata, "oracle_source": "hf", "agent_definition_source": run.scenario.source},
        }
        if completed and is_oracle_run(row):
            update["oracle_run"] = parse_completed_events(completed, app_classes, file=src)
        else:
            update["start_time"] = run.scenario.start_time
        scenario = scenario.model_copy(update=update)
        out.append(run.model_copy(update={"scenario": scenario, "metadata": {**run.metadata, "oracle": src}}))
    if absent:
        raise InputError(
            f"no scenario in the dataset for {len(absent)} run(s): {', '.join(absent[:10])}{' …' if len(absent) > 10 else ''}",
            field="scenario_id",
        )
    return out


def runs_from_hf(hf_scenarios: Mapping[str, list[dict[str, Any]]]) -> list[Run]:
    """Runs stored in the dataset itself (rows that are agent traces with completed events)."""
    from .are_json import read_export

    out = []
    for sid, rows in hf_scenarios.items():
        for n, row in enumerate(rows):
            if row.get("completed_events"):
                run = read_export(row, file=f"<hf:{sid}#{n}>")
                out.append(run.model_copy(update={"run_id": f"hf{n}"}))
    return out
