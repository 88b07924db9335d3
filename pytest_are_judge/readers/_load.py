"""Finding scenario files, reading each once, and pairing ARE runs with their oracle-run trace.

One rule pairs an ARE agent run with an oracle: the oracle-run trace of the same scenario id in
the same folder (a file named ``oracle*``/``*.oracle.*``, or marked as an oracle run in its
metadata and not named like an agent run), unless one oracle is given for every run.  The CLI,
the library and the pytest plugin all go through :class:`RunIndex`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._files import read_document
from ..errors import InputError
from ..model import Run, Scenario
from .are_json import XFAIL_NAME_TAG, is_are_export, is_oracle_run, read_export, with_oracle_run
from .native import FORMAT_TAG, read_native

SCENARIO_SUFFIXES = (".json", ".yaml", ".yml")
_SKIPPED_NAMES = ("judge_config.json", "expected.json")


@dataclass(eq=False)
class LoadedFile:
    """What one file holds: runs to judge, or (an ARE oracle-run trace) the oracle of its scenario."""

    path: str
    kind: str  # "are_export" | "native"
    scenario_id: str | None = None
    runs: list[Run] = field(default_factory=list)
    oracle_run: Run | None = None
    """For an ARE oracle-run trace: the trace read as a run (its events are the oracle run)."""
    scenario: Scenario | None = None
    """The scenario the file defines (also for a native scenario without runs)."""


def named_like_agent_run(name: str) -> bool:
    """``agent*``, ``*.agent.*`` or ``*.run*``: never taken for an oracle-run trace."""
    name = name.lower()
    return name.startswith("agent") or ".agent." in name or ".run" in name


def is_oracle_file(path: str | Path, data: dict[str, Any]) -> bool:
    """An oracle-run trace: named ``oracle*``/``*.oracle.*``, or marked as an oracle run in its
    metadata and not named like an agent run."""
    name = os.path.basename(str(path)).lower()
    if name.startswith("oracle") or ".oracle." in name:
        return True
    return not named_like_agent_run(name) and is_oracle_run(data)


def ignored(f: Path, root: Path) -> bool:
    """Files under ``root`` that are never scenarios: hidden or ``__pycache__`` parts, agent logs
    referenced by native scenarios (``*.log.json``, ``*.jsonl``), judge configs, expected
    verdicts and our own reports."""
    froot, fpath = str(root), str(f)
    if fpath.startswith(froot) and (len(fpath) == len(froot) or fpath[len(froot)] == os.sep or froot.endswith(os.sep)):
        rel = [part for part in fpath[len(froot) :].split(os.sep) if part]
    else:
        rel = list(f.relative_to(root).parts)
    if any(part.startswith(".") or part == "__pycache__" for part in rel):
        return True
    name = os.path.basename(fpath).lower()
    return name.endswith((".log.json", ".jsonl")) or name in _SKIPPED_NAMES or name.startswith("are-report")


def check_label(path: Path, *, kind: str, oracle_trace: bool) -> None:
    """A known-bad label in a file name that nothing would honour is an input error: the run
    would be judged as expected to pass (or not judged at all), whatever the name says."""
    name = path.name.lower()
    if "xfail" not in name:
        return
    if kind == "native":
        raise InputError(
            f"the name says xfail, but a native scenario declares a known-bad run with 'expect: fail' on the run; "
            f"rename the file without {XFAIL_NAME_TAG!r}",
            file=str(path),
        )
    if oracle_trace:
        raise InputError(
            f"the name says {XFAIL_NAME_TAG!r} (known-bad), but this is an oracle-run trace: it is the oracle of the "
            "agent runs beside it and is never judged as a run; name an agent run like agent_x.xfail.json "
            "(an ARE oracle-mode trace judged as an agent run must be named like one: *.run.xfail.json)",
            file=str(path),
        )
    if XFAIL_NAME_TAG not in name:
        raise InputError(
            f"the name says xfail, but only a {XFAIL_NAME_TAG!r} part marks a known-bad run "
            f"(e.g. agent_x{XFAIL_NAME_TAG}json): as named, this run is expected to pass",
            file=str(path),
        )


def load_file(
    path: str | Path,
    *,
    oracle: dict[str, Any] | None = None,
    oracle_file: str | None = None,
    allow_outside: bool = False,
    log_format: str | None = None,
) -> LoadedFile:
    """Read one scenario/trace file (``oracle``: an oracle-run export to judge an ARE run against;
    ``allow_outside``: a native run's agent log may lie outside the scenario's folder).
    Raises :class:`InputError` naming file, event and field."""
    p = path if isinstance(path, Path) else Path(path)
    file = str(p)
    data = read_document(p)
    if is_are_export(data):
        if oracle is None and is_oracle_file(p, data):
            # read now, so a broken oracle trace is reported even if no run uses it
            check_label(p, kind="are_export", oracle_trace=True)
            oracle_run = read_export(data, file=file)
            return LoadedFile(
                file, "are_export", oracle_run.scenario.scenario_id, oracle_run=oracle_run, scenario=oracle_run.scenario
            )
        check_label(p, kind="are_export", oracle_trace=False)
        run = read_export(data, file=file, oracle=oracle, oracle_file=oracle_file)
        return LoadedFile(file, "are_export", run.scenario.scenario_id, [run], scenario=run.scenario)
    if isinstance(data, dict) and (data.get("format") == FORMAT_TAG or ("scenario_id" in data and "events" in data)):
        check_label(p, kind="native", oracle_trace=False)
        scenario, runs = read_native(data, file=file, allow_outside=allow_outside, log_format=log_format)
        return LoadedFile(file, "native", scenario.scenario_id, runs, scenario=scenario)
    raise InputError(
        "not a scenario: expected an ARE export (version are_simulation_v1) or a native scenario "
        f"(format: {FORMAT_TAG})",
        file=file,
    )


def discover(paths: list[str | Path]) -> tuple[list[Path], list[InputError]]:
    """Scenario files under ``paths`` (files given directly are always included), sorted, and
    what could not be looked at: a missing path, a folder that cannot be read, a symlink whose
    target is gone.  Nothing is skipped silently."""
    out: list[Path] = []
    errors: list[InputError] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found, problems = walk(p)
            out += found
            errors += problems
        elif p.exists():
            out.append(p)
        elif p.is_symlink():
            errors.append(InputError(f"a broken symlink (to {os.readlink(p)!r})", file=str(p)))
        else:
            errors.append(InputError("no such file or directory", file=str(p)))
    return out, errors


def walk(root: Path) -> tuple[list[Path], list[InputError]]:
    """The scenario files under ``root`` (sorted), and the folders and broken symlinks that
    could not be read."""
    found: list[Path] = []
    errors: list[InputError] = []

    def unreadable(exc: OSError) -> None:
        errors.append(InputError(f"cannot read folder: {exc.strerror or exc}", file=exc.filename or str(root)))

    for folder, dirs, files in os.walk(root, onerror=unreadable):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        for name in files:
            if not name.lower().endswith(SCENARIO_SUFFIXES):
                continue
            f = Path(folder, name)
            if ignored(f, root):
                continue
            if f.is_symlink() and not f.exists():
                errors.append(InputError(f"a broken symlink (to {os.readlink(f)!r})", file=str(f)))
                continue
            found.append(f)
    found.sort()
    errors.sort(key=lambda e: e.file or "")
    return found, errors


class RunIndex:
    """Scenario files under some roots, each read once, and the runs to judge in each.

    ``oracle``: one oracle-run trace for every ARE run (``--oracle``); otherwise each ARE run is
    paired with the oracle-run trace of its scenario in its folder, when there is one.
    """

    def __init__(
        self,
        roots: list[Path] | tuple[Path, ...] = (),
        *,
        oracle: str | Path | None = None,
        allow_outside: bool = False,
        log_format: str | None = None,
    ) -> None:
        self.allow_outside = allow_outside
        self.log_format = log_format
        self.roots = [Path(os.path.abspath(r)) for r in roots]
        self._root_strs = [(str(r), str(r).rstrip(os.sep) + os.sep, r) for r in self.roots]
        self._loaded: dict[Path, LoadedFile | InputError] = {}
        self._oracles: dict[Path, dict[str | None, Run]] = {}
        self.used_oracles: set[str] = set()
        """Paths of the oracle-run traces that some run was paired with."""
        self.oracle: Run | None = None
        self.oracle_path: str | None = None
        if oracle is not None:
            self.oracle_path = str(oracle)
            data = read_document(oracle)
            if not is_are_export(data):
                raise InputError("--oracle must be an ARE export (oracle-run trace)", file=str(oracle))
            self.oracle = read_export(data, file=str(oracle))

    def root_of(self, path: Path) -> Path | None:
        """The root holding ``path`` (an absolute path), compared as strings."""
        p = str(path)
        for root, prefix, root_path in self._root_strs:
            if p == root or p.startswith(prefix):
                return root_path
        return None

    def wants(self, path: Path) -> bool:
        """Is ``path`` a scenario file under one of the roots?"""
        if path.suffix.lower() not in SCENARIO_SUFFIXES:
            return False
        root = self.root_of(path)
        return root is not None and (path == root or not ignored(path, root))

    def load(self, path: Path) -> LoadedFile:
        cached = self._loaded.get(path)
        if cached is None:
            try:
                cached = load_file(path, allow_outside=self.allow_outside, log_format=self.log_format)
            except InputError as exc:
                cached = exc
            self._loaded[path] = cached
        if isinstance(cached, InputError):
            raise cached
        return cached

    def oracle_for(self, path: Path, scenario_id: str | None) -> Run | None:
        """The oracle-run trace of ``scenario_id`` beside ``path``, if any."""
        if self.oracle is not None:
            return self.oracle
        folder = path.parent
        oracles = self._oracles.get(folder)
        if oracles is None:
            oracles = {}
            for sibling in sorted(folder.iterdir()):
                if (
                    sibling == path
                    or sibling.suffix.lower() != ".json"
                    or named_like_agent_run(sibling.name)
                    or ignored(sibling, folder)
                    or not sibling.is_file()
                ):
                    continue
                try:
                    lf = self.load(sibling)
                except InputError:
                    continue  # reported where the file itself is read
                if lf.oracle_run is not None:
                    oracles[lf.scenario_id] = lf.oracle_run
            self._oracles[folder] = oracles
        return oracles.get(scenario_id)

    def runs(self, path: Path) -> list[Run]:
        """The runs to judge in ``path`` (none in an oracle-run trace: it is an oracle)."""
        if self.oracle_path is not None and os.path.abspath(path) == os.path.abspath(self.oracle_path):
            return []
        lf = self.load(path)
        if lf.oracle_run is not None or lf.kind != "are_export":
            return list(lf.runs)
        oracle = self.oracle_for(path, lf.scenario_id)
        if oracle is None:
            return list(lf.runs)
        if oracle.source:
            self.used_oracles.add(oracle.source)
        return [with_oracle_run(run, oracle) for run in lf.runs]

    def is_oracle_trace(self, path: Path) -> bool:
        """Is ``path`` an oracle-run trace (it supplies the oracle of its siblings' runs)?"""
        if self.oracle_path is not None and os.path.abspath(path) == os.path.abspath(self.oracle_path):
            return True
        cached = self._loaded.get(path)
        return isinstance(cached, LoadedFile) and cached.oracle_run is not None

    def release(self, path: Path) -> None:
        """Forget a file's parse once its runs are taken (oracle-run traces stay: siblings may
        still need them)."""
        cached = self._loaded.get(path)
        if isinstance(cached, LoadedFile) and cached.oracle_run is None:
            del self._loaded[path]


def load_runs(
    paths: list[str | Path],
    *,
    oracle_path: str | Path | None = None,
    explicit_files_are_runs: bool = False,
    allow_outside: bool = False,
    log_format: str | None = None,
) -> tuple[list[Run], list[InputError]]:
    """Every run under ``paths``, and the files that could not be read (never skipped).

    With ``explicit_files_are_runs``, an oracle-run trace named directly in ``paths`` that no run
    uses is judged itself, against its own definition (a self-check)."""
    index = RunIndex(
        [Path(p) if Path(p).is_dir() else Path(p).parent for p in paths],
        oracle=oracle_path,
        allow_outside=allow_outside,
        log_format=log_format,
    )
    runs: list[Run] = []
    files, errors = discover(list(paths))
    for f in files:
        try:
            runs.extend(index.runs(f))
        except InputError as exc:
            errors.append(exc)
    if explicit_files_are_runs:
        for p in paths:
            if not Path(p).is_file() or str(p) in index.used_oracles:
                continue
            try:
                lf = index.load(Path(p))
            except InputError:
                continue  # already reported
            if lf.oracle_run is not None and (index.oracle_path is None or str(p) != index.oracle_path):
                runs.append(lf.oracle_run)
    return runs, errors


def load_run_file(path: str | Path, *, run: str | None = None, oracle: str | Path | None = None) -> Run:
    """The one run to judge in a scenario/trace file (``run``: its id when the file has several)."""
    p = Path(path)
    if not p.is_file():
        raise InputError("no such scenario file", file=str(p))
    runs = RunIndex([p.parent], oracle=oracle).runs(p)
    if run is not None:
        chosen = [r for r in runs if r.run_id == run]
        if not chosen:
            raise InputError(
                f"no run {run!r}; runs: {', '.join(r.run_id for r in runs) or 'none'}", file=str(p), field="run"
            )
        return chosen[0]
    if len(runs) != 1:
        listed = f" ({', '.join(r.run_id for r in runs)}): pass run=..." if runs else ""
        raise InputError(f"expected exactly one run, found {len(runs)}{listed}", file=str(p))
    return runs[0]


def count_oracle_files(paths: list[str | Path]) -> int:
    """How many oracle-run traces are under ``paths`` (for 'no runs found' messages)."""
    index = RunIndex()
    n = 0
    for f in discover(list(paths))[0]:
        try:
            n += index.load(f).oracle_run is not None
        except InputError:
            continue
    return n
