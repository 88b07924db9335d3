"""Finding files and turning each into runs to judge."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..model import Run, Scenario
from .are_json import is_are_export, is_oracle_run, read_export
from .native import FORMAT_TAG, _load_structured, read_native

SCENARIO_SUFFIXES = (".json", ".yaml", ".yml")


@dataclass(eq=False)
class LoadedFile:
    """What one file holds: runs to judge, and/or an oracle run for its scenario."""

    path: str
    kind: str  # "are_export" | "native"
    scenario_id: str | None = None
    runs: list[Run] = field(default_factory=list)
    oracle_data: dict[str, Any] | None = None
    """For an ARE oracle-run trace: the raw export (used as the oracle of sibling runs)."""
    raw: dict[str, Any] | None = None


def read_json(path: str | Path) -> Any:
    try:
        with open(path, "rb") as fh:
            return json.loads(fh.read())
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", file=str(path)) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        line = f" at line {exc.lineno} column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
        raise InputError(f"not valid JSON{line}: {getattr(exc, 'msg', exc)}", file=str(path)) from None


def is_oracle_file(path: str | Path, data: dict[str, Any]) -> bool:
    """An oracle-run trace: named ``oracle*.json`` / ``*.oracle.json``, or marked as an oracle
    run in its metadata (and not named like an agent run)."""
    name = Path(path).name.lower()
    if name.startswith("oracle") or ".oracle." in name:
        return True
    if name.startswith("agent") or ".agent." in name or ".run" in name:
        return False
    return is_oracle_run(data)


def load_file(path: str | Path, *, oracle: dict[str, Any] | None = None, oracle_file: str | None = None) -> LoadedFile:
    """Read one scenario/trace file.  Raises :class:`InputError` naming file, event and field."""
    p = path if isinstance(path, Path) else Path(path)
    if str(p)[-5:].lower() == ".json":
        data = read_json(p)
    else:
        data = _load_structured(p)
    if is_are_export(data):
        if oracle is None and is_oracle_file(p, data):
            # validate now, so a broken oracle trace is reported even if no run uses it
            oracle_run = read_export(data, file=str(p))
            return LoadedFile(str(p), "are_export", oracle_run.scenario.scenario_id, [], oracle_data=data, raw=data)
        run = read_export(data, file=str(p), oracle=oracle, oracle_file=oracle_file)
        return LoadedFile(str(p), "are_export", run.scenario.scenario_id, [run], raw=data)
    if isinstance(data, dict) and (data.get("format") == FORMAT_TAG or ("scenario_id" in data and "events" in data)):
        file = str(p)
        scenario, runs = read_native(data, file=file)
        return LoadedFile(file, "native", scenario.scenario_id, runs)
    raise InputError(
        "not a scenario: expected an ARE export (version are_simulation_v1) or a native scenario "
        f"(format: {FORMAT_TAG})",
        file=str(p),
    )


def discover(paths: list[str | Path]) -> list[Path]:
    """Scenario files under ``paths`` (files given directly are always included), sorted."""
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            for f in sorted(p.rglob("*")):
                if f.is_file() and f.suffix.lower() in SCENARIO_SUFFIXES and not _ignored(f, p):
                    out.append(f)
        elif p.exists():
            out.append(p)
        else:
            raise InputError("no such file or directory", file=str(p))
    return out


def _ignored(f: Path, root: Path) -> bool:
    froot, fpath = str(root), str(f)
    if fpath.startswith(froot) and (len(fpath) == len(froot) or fpath[len(froot)] == os.sep or froot.endswith(os.sep)):
        rel = [part for part in fpath[len(froot) :].split(os.sep) if part]  # lexical: no Path objects per file
    else:
        rel = list(f.relative_to(root).parts)
    if any(part.startswith(".") or part == "__pycache__" for part in rel):
        return True
    name = os.path.basename(fpath).lower()
    # agent logs referenced by native scenarios, judge configs, our own outputs
    return (
        name.endswith(".log.json")
        or name.endswith(".jsonl")
        or name in ("judge_config.json", "expected.json")
        or name.startswith("are-report")
    )


def load_runs(
    paths: list[str | Path], *, oracle_path: str | Path | None = None, explicit_files_are_runs: bool = False
) -> tuple[list[Run], list[InputError]]:
    """Every run under ``paths``.  An oracle-run trace supplies the oracle side for ARE runs of the
    same scenario id in the same folder (or everywhere, when given as ``oracle_path``).
    With ``explicit_files_are_runs``, an oracle-run trace named directly in ``paths`` that no run
    uses is judged itself (against its own definition: a self-check).
    Unreadable files are returned as errors, never skipped."""
    errors: list[InputError] = []
    explicit_oracle: tuple[dict[str, Any], str] | None = None
    if oracle_path is not None:
        explicit_oracle = (read_json(oracle_path), str(oracle_path))
    files = discover(list(paths))
    loaded: list[LoadedFile] = []
    oracles: dict[tuple[str, str | None], tuple[dict[str, Any], str]] = {}
    for f in files:
        if explicit_oracle is not None and Path(f).resolve() == Path(explicit_oracle[1]).resolve():
            continue
        try:
            lf = load_file(f, oracle=None)
        except InputError as exc:
            errors.append(exc)
            continue
        if lf.oracle_data is not None:
            oracles[(str(Path(f).parent), lf.scenario_id)] = (lf.oracle_data, str(f))
        loaded.append(lf)
    runs: list[Run] = []
    used: set[str] = set()
    for lf in loaded:
        if lf.kind != "are_export" or lf.oracle_data is not None:
            runs.extend(lf.runs)
            continue
        oracle = explicit_oracle or oracles.get((str(Path(lf.path).parent), lf.scenario_id))
        if oracle is None:
            runs.extend(lf.runs)
            continue
        used.add(oracle[1])
        try:
            runs.append(read_export(lf.raw or {}, file=lf.path, oracle=oracle[0], oracle_file=oracle[1]))
        except InputError as exc:
            errors.append(exc)
    if explicit_files_are_runs:
        named = {str(Path(p)) for p in paths if Path(p).is_file()}
        for lf in loaded:
            if lf.oracle_data is not None and lf.path in named and lf.path not in used:
                try:
                    runs.append(read_export(lf.oracle_data, file=lf.path))
                except InputError as exc:
                    errors.append(exc)
    return runs, errors


def count_oracle_files(paths: list[str | Path]) -> int:
    """How many oracle-run traces are under ``paths`` (for 'no runs found' messages)."""
    n = 0
    for f in discover(list(paths)):
        try:
            lf = load_file(f)
        except InputError:
            continue
        n += lf.oracle_data is not None
    return n


def scenario_of(run: Run) -> Scenario:
    return run.scenario
