"""Code judges: external programs, in any language, that score an answer.

Protocol: the program reads one JSON object on stdin and writes one JSON object on stdout.

Input::

    {"question": str, "expected_outcome": any, "candidate_answer": any,
     "reference_answer": any, "sidecar": {...}}

Output::

    {"score": 0..1, "hits": [str...], "misses": [str...], "reasoning": str}

A code judge is used in two places:

* as an argument checker (``checker_type: code_judge``, checker args ``script``, ``threshold``,
  optional ``timeout``, ``clean_env``, ``env``, ``expected_outcome``) — see
  :func:`code_judge_checker`;
* as a scenario-level evaluator that sees the whole run — see :mod:`pytest_are_judge.evaluators`.

Programs run without a shell (an argument list), with a timeout, in the scenario file's folder.
Anything other than a well-formed answer (crash, non-zero exit, timeout, non-JSON, out-of-range
score) raises :class:`CodeJudgeError` — a :class:`JudgeUnavailableError` of kind
``code_judge_error`` — so the judgment becomes an error, never a pass.

Identical invocations (same argv, environment and input JSON) are run once per process.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import CodeJudgeError, InputError

__all__ = [
    "CLEAN_ENV_KEYS",
    "CodeJudgeError",
    "CodeJudgeResult",
    "CodeJudgeVerdict",
    "build_argv",
    "clear_cache",
    "code_judge_checker",
    "event_to_json",
    "run_code_judge",
]

CLEAN_ENV_KEYS = ("PATH", "HOME", "LANG", "SYSTEMROOT")
"""Variables kept by ``clean_env: true``."""
DEFAULT_TIMEOUT = 30.0
DEFAULT_THRESHOLD = 0.5
_STDERR_LIMIT = 4000
_CACHE_SIZE = 4096


@dataclass(frozen=True)
class CodeJudgeResult:
    """A code judge's parsed answer."""

    score: float
    hits: tuple[str, ...] = ()
    misses: tuple[str, ...] = ()
    reasoning: str = ""
    stderr: str = ""
    argv: tuple[str, ...] = ()
    elapsed: float = 0.0
    cached: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "hits": list(self.hits),
            "misses": list(self.misses),
            "reasoning": self.reasoning,
            "argv": list(self.argv),
        }

    def summary(self, threshold: float | None = None) -> str:
        """One short paragraph for failure reports."""
        head = f"score {self.score:g}" + (f" (threshold {threshold:g})" if threshold is not None else "")
        parts = [head]
        if self.hits:
            parts.append("hits: " + "; ".join(self.hits))
        if self.misses:
            parts.append("misses: " + "; ".join(self.misses))
        if self.reasoning:
            parts.append("reasoning: " + self.reasoning)
        return " | ".join(parts)


@dataclass(eq=False)
class CodeJudgeVerdict:
    """What :func:`code_judge_checker` returns: truthy when the score reaches the threshold.

    ``note`` carries score, hits, misses and reasoning for the report's argument row.
    """

    passed: bool
    result: CodeJudgeResult
    threshold: float
    note: str = field(default="")

    def __post_init__(self) -> None:
        if not self.note:
            self.note = "code judge " + self.result.summary(self.threshold)

    def __bool__(self) -> bool:
        return self.passed


# ------------------------------------------------------------------ invocation


_INTERPRETED = {".py": "python", ".js": "node", ".mjs": "node", ".cjs": "node"}


def _interpreter(kind: str) -> str:
    if kind == "python":
        return sys.executable
    node = shutil.which("node")
    if node is None:
        raise CodeJudgeError("cannot run a .js code judge: 'node' is not on PATH")
    return node


def _resolve_path(item: str, base: Path) -> Path | None:
    p = Path(item).expanduser()
    if not p.is_absolute():
        p = base / p
    return p if p.exists() else None


def build_argv(script: str | Sequence[str], base_dir: str | Path | None = None) -> list[str]:
    """The argument list for ``script``.

    * a string is a path to a program (never split, never given to a shell), resolved against
      ``base_dir``; ``.py`` runs with this Python (``sys.executable``), ``.js`` with ``node``,
      anything else is executed directly;
    * a list is an argv: its first item is resolved like a string script when it names an existing
      file (else looked up on PATH), later items that name existing files relative to
      ``base_dir`` are made absolute.
    """
    base = (Path(base_dir) if base_dir is not None else Path.cwd()).resolve()
    if isinstance(script, (str, os.PathLike)):
        items = [os.fspath(script)]
    elif isinstance(script, Sequence) and script and all(isinstance(s, (str, os.PathLike)) for s in script):
        items = [os.fspath(s) for s in script]
    else:
        raise CodeJudgeError(f"a code judge 'script' must be a path or a non-empty list of strings, got {script!r}")
    first, rest = items[0], items[1:]
    found = _resolve_path(first, base)
    if found is None and isinstance(script, (str, os.PathLike)):
        raise CodeJudgeError(f"code judge script not found: {first} (resolved against {base})")
    if found is None and (os.sep in first or "/" in first):
        raise CodeJudgeError(f"code judge program not found: {first} (resolved against {base})")
    argv: list[str]
    if found is not None:
        kind = _INTERPRETED.get(found.suffix.lower())
        argv = [_interpreter(kind), str(found)] if kind else [str(found)]
    else:
        exe = shutil.which(first)
        if exe is None:
            raise CodeJudgeError(f"code judge program {first!r} is not on PATH")
        argv = [exe]
    for item in rest:
        if item.startswith("-"):
            argv.append(item)
            continue
        p = _resolve_path(item, base)
        argv.append(str(p) if p is not None and p.is_file() else item)
    return argv


def _environment(clean_env: bool, extra: Mapping[str, str] | None) -> dict[str, str]:
    if clean_env:
        env = {k: os.environ[k] for k in CLEAN_ENV_KEYS if k in os.environ}
    else:
        env = dict(os.environ)
    for k, v in (extra or {}).items():
        env[str(k)] = str(v)
    return env


_runs = [0]


def clear_cache() -> None:
    """Forget memoized code-judge answers (tests, long-lived processes)."""
    _run_cached.cache_clear()
    _runs[0] = 0


def cache_stats() -> dict[str, int]:
    """How many programs were started and how many answers came from the memo."""
    info = _run_cached.cache_info()
    return {"runs": _runs[0], "hits": info.hits, "size": info.currsize}


def _tail(text: str) -> str:
    text = text.rstrip()
    return text if len(text) <= _STDERR_LIMIT else "…" + text[-_STDERR_LIMIT:]


def _decode(raw: bytes | str | None) -> str:
    if raw is None:
        return ""
    if isinstance(raw, str):
        return raw
    return raw.decode("utf-8", errors="replace")


def _parse_output(stdout: str, *, data: dict[str, Any]) -> tuple[float, tuple[str, ...], tuple[str, ...], str]:
    text = stdout.strip()
    if not text:
        raise CodeJudgeError("code judge wrote nothing on stdout (expected one JSON object)", data=data)
    try:
        out = json.loads(text)
    except json.JSONDecodeError as exc:
        shown = text if len(text) <= 300 else text[:300] + "…"
        raise CodeJudgeError(
            f"code judge output is not JSON ({exc.msg} at line {exc.lineno}): {shown}", data=data
        ) from None
    if not isinstance(out, dict):
        raise CodeJudgeError(f"code judge output must be a JSON object, got {type(out).__name__}", data=data)
    score = out.get("score")
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        raise CodeJudgeError(f"code judge 'score' must be a number in [0, 1], got {score!r}", data=data)
    score = float(score)
    if not math.isfinite(score) or not 0.0 <= score <= 1.0:
        raise CodeJudgeError(f"code judge 'score' must be in [0, 1], got {score!r}", data=data)

    def strings(key: str) -> tuple[str, ...]:
        v = out.get(key)
        if v is None:
            return ()
        if isinstance(v, str):
            return (v,)
        if not isinstance(v, list):
            raise CodeJudgeError(f"code judge {key!r} must be a list of strings, got {type(v).__name__}", data=data)
        return tuple(x if isinstance(x, str) else json.dumps(x, default=str) for x in v)

    reasoning = out.get("reasoning")
    reasoning = (
        "" if reasoning is None else reasoning if isinstance(reasoning, str) else json.dumps(reasoning, default=str)
    )
    return score, strings("hits"), strings("misses"), reasoning


def run_code_judge(
    script: str | Sequence[str],
    payload: Mapping[str, Any],
    *,
    base_dir: str | Path | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    clean_env: bool = False,
    env: Mapping[str, str] | None = None,
    use_cache: bool = True,
) -> CodeJudgeResult:
    """Run one code judge on ``payload``; raises :class:`CodeJudgeError` unless it answers well."""
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise CodeJudgeError(f"code judge 'timeout' must be a positive number of seconds, got {timeout!r}")
    argv = build_argv(script, base_dir)
    cwd = str((Path(base_dir) if base_dir is not None else Path.cwd()).resolve())
    try:
        stdin = json.dumps(payload, default=str, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise CodeJudgeError(f"cannot encode the code judge input as JSON: {exc}") from None
    key = (tuple(argv), stdin, bool(clean_env), tuple(sorted((env or {}).items())), cwd, float(timeout))
    if not use_cache:
        return _run(*key)
    hits = _run_cached.cache_info().hits
    result = _run_cached(*key)
    return dataclasses.replace(result, cached=True) if _run_cached.cache_info().hits > hits else result


def _run(
    argv: tuple[str, ...], stdin: str, clean_env: bool, env: tuple[tuple[str, str], ...], cwd: str, timeout: float
) -> CodeJudgeResult:
    data: dict[str, Any] = {"argv": list(argv)}
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(
            argv,
            input=stdin.encode("utf-8"),
            capture_output=True,
            timeout=timeout,
            cwd=cwd,
            env=_environment(clean_env, dict(env)),
            shell=False,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        data["stderr"] = _tail(_decode(exc.stderr))
        raise CodeJudgeError(f"code judge timed out after {timeout:g}s: {' '.join(argv)}", data=data) from None
    except OSError as exc:
        raise CodeJudgeError(f"cannot start code judge {' '.join(argv)}: {exc.strerror or exc}", data=data) from None
    elapsed = time.perf_counter() - t0
    _runs[0] += 1
    stderr = _tail(_decode(proc.stderr))
    data.update(stderr=stderr, exit_code=proc.returncode)
    if proc.returncode != 0:
        how = (
            f"was killed by signal {-proc.returncode}"
            if proc.returncode < 0
            else f"exited with status {proc.returncode}"
        )
        raise CodeJudgeError(f"code judge {how}: {' '.join(argv)}", data=data)
    score, hits, misses, reasoning = _parse_output(_decode(proc.stdout), data=data)
    return CodeJudgeResult(score, hits, misses, reasoning, stderr, argv, elapsed)


_run_cached = functools.lru_cache(maxsize=_CACHE_SIZE)(_run)
"""Answers memoized by program, input, environment and folder (failures are never memoized)."""


# ------------------------------------------------------------------ payloads


def event_to_json(event: Any) -> dict[str, Any] | None:
    """An agent/oracle event (model ``Event``, ``OracleStep``...) as plain JSON data."""
    if event is None:
        return None
    if isinstance(event, dict):
        return event
    out: dict[str, Any] = {"event_id": getattr(event, "event_id", None)}
    et = getattr(event, "event_type", None)
    out["event_type"] = getattr(et, "value", et)
    out["tool_name"] = getattr(event, "tool_name", None)
    out["args"] = dict(getattr(event, "args", None) or {})
    if hasattr(event, "event_time"):
        out["event_time"] = event.event_time
    if hasattr(event, "return_value"):
        out["return_value"] = event.return_value
    if getattr(event, "exception", None) is not None:
        out["exception"] = event.exception
    if getattr(event, "turn", None) is not None:
        out["turn"] = event.turn
    return out


def base_dir_of(scenario: Any = None, source: str | None = None) -> Path | None:
    """The folder script paths are relative to: the scenario file's, else the run file's."""
    src = getattr(scenario, "source", None) or source
    if not src or str(src).startswith("<"):
        return None
    p = Path(src)
    return p.parent if p.suffix else p


MAX_TIMEOUT = 3600.0


def check_options(args: Mapping[str, Any], *, where: str) -> dict[str, Any]:
    """Validated ``script`` / ``threshold`` / ``timeout`` / ``clean_env`` / ``env`` options
    (an :class:`InputError` with field ``where`` for a bad one: checked before anything runs)."""

    def bad(message: str) -> InputError:
        return InputError(message, field=where)

    script = args.get("script")
    if isinstance(script, str):
        if not script.strip():
            raise bad("a code judge 'script' must not be empty")
    elif not (isinstance(script, (list, tuple)) and script and all(isinstance(x, str) and x for x in script)):
        raise bad(f"a code judge needs 'script': a path, or a non-empty list of strings (an argv), got {script!r}")
    threshold = args.get("threshold", DEFAULT_THRESHOLD)
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 <= threshold <= 1:
        raise bad(f"'threshold' must be a number in [0, 1], got {threshold!r}")
    timeout = args.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= MAX_TIMEOUT:
        raise bad(f"'timeout' must be a number of seconds in (0, {MAX_TIMEOUT:g}], got {timeout!r}")
    clean_env = args.get("clean_env", False)
    if not isinstance(clean_env, bool):
        raise bad(f"'clean_env' must be true or false, got {clean_env!r}")
    env = args.get("env") or {}
    if not isinstance(env, Mapping) or not all(
        isinstance(k, str) and isinstance(v, (str, int, float, bool)) for k, v in env.items()
    ):
        raise bad("'env' must be a mapping of variable names to string values")
    return {
        "script": script,
        "threshold": float(threshold),
        "timeout": float(timeout),
        "clean_env": clean_env,
        "env": {k: str(v) for k, v in env.items()},
    }


def code_judge_checker(
    agent_value: Any,
    oracle_value: Any,
    *,
    script: str | Sequence[str],
    threshold: float = DEFAULT_THRESHOLD,
    timeout: float = DEFAULT_TIMEOUT,
    clean_env: bool = False,
    env: Mapping[str, str] | None = None,
    expected_outcome: Any = None,
    context: dict[str, Any] | None = None,
    **extra: Any,
) -> CodeJudgeVerdict:
    """Argument checker ``code_judge``: passes when the program's score reaches ``threshold``.

    ``question`` is the task of the oracle event's turn, ``candidate_answer`` the agent's value,
    ``reference_answer`` the oracle's value, ``expected_outcome`` the checker arg of that name
    (else the oracle value).  ``sidecar`` holds the tool and argument names, both events, the
    run so far and any extra checker args.
    """
    ctx = context or {}
    opts = check_options(
        {"script": script, "threshold": threshold, "timeout": timeout, "clean_env": clean_env, "env": env},
        where=f"code_judge on argument {ctx.get('arg_name', '?')!r}",
    )
    scenario = ctx.get("scenario")
    agent_events = ctx.get("agent_events") or []
    payload = {
        "question": ctx.get("task", ""),
        "expected_outcome": oracle_value if expected_outcome is None else expected_outcome,
        "candidate_answer": agent_value,
        "reference_answer": oracle_value,
        "sidecar": {
            "mode": "argument",
            "tool_name": ctx.get("tool_name"),
            "arg_name": ctx.get("arg_name"),
            "oracle_event": {
                "event_id": ctx.get("oracle_event_id"),
                "tool_name": ctx.get("tool_name"),
                "args": ctx.get("oracle_args") or {},
            },
            "agent_event": event_to_json(ctx.get("agent_event")),
            "run": {
                "scenario_id": getattr(scenario, "scenario_id", None),
                "tasks": ctx.get("tasks") or [],
                "agent_events": [event_to_json(e) for e in agent_events],
            },
            "checker_args": extra,
        },
    }
    result = run_code_judge(
        opts["script"],
        payload,
        base_dir=base_dir_of(scenario, ctx.get("source")),
        timeout=opts["timeout"],
        clean_env=opts["clean_env"],
        env=opts["env"],
    )
    return CodeJudgeVerdict(result.score >= opts["threshold"], result, opts["threshold"])


code_judge_checker.wants_context = True  # type: ignore[attr-defined]
