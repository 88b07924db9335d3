"""Reading the files we are given: one reader for every structured format (JSON, JSONL, YAML,
TOML), whose every failure is an :class:`~pytest_are_judge.errors.InputError` naming the file.

Files are untrusted input.  Only regular files are read (a FIFO would block, ``/dev/zero`` would
never end), at most :data:`MAX_BYTES` of them; duplicate keys are an error in JSON as in YAML
(the later, weaker value would silently win); documents nested deeper than
:data:`~._yaml.MAX_DEPTH` levels are rejected.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from ._yaml import MAX_DEPTH
from .errors import InputError

MAX_BYTES = 64 * 1024 * 1024
"""Largest file read (64 MiB)."""


def read_utf8(path: str | Path) -> str:
    """The text of a regular file, decoded as UTF-8 with universal newlines.  Raises ``OSError``
    (also for a file that is not a regular file or is larger than :data:`MAX_BYTES`) and
    ``UnicodeDecodeError``."""
    st = os.stat(path)  # follows symlinks; a dangling one raises FileNotFoundError
    if not stat.S_ISREG(st.st_mode):
        kind = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file (a FIFO, socket or device)"
        raise OSError(f"{kind}: only regular files are read")
    if st.st_size > MAX_BYTES:
        raise OSError(f"{st.st_size:,} bytes, more than the {MAX_BYTES:,}-byte limit")
    with open(path, "rb") as fh:
        data = fh.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise OSError(f"more than the {MAX_BYTES:,}-byte limit")
    text = data.decode("utf-8-sig")  # a UTF-8 BOM (some Windows editors write one) is not content
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def read_text(path: str | Path) -> str:
    """:func:`read_utf8` with its errors as input errors naming the file."""
    try:
        return read_utf8(path)
    except OSError as exc:
        why = exc.strerror or (exc.args[0] if exc.args else str(exc))
        raise InputError(f"cannot read file: {why}", file=str(path)) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not valid UTF-8 text (byte {exc.start}: {exc.reason})", file=str(path)) from None


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"duplicate key {k!r}: JSON would silently keep only the last one")
        out[k] = v
    return out


def _json(text: str) -> Any:
    return json.loads(text, object_pairs_hook=_no_duplicates)


def check_depth(data: Any, limit: int = MAX_DEPTH) -> None:
    """ValueError when ``data`` nests lists/mappings deeper than ``limit`` (iterative)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (list, dict)):
            if depth > limit:
                raise ValueError(f"the document is nested deeper than {limit} levels")
            children = value.values() if isinstance(value, dict) else value
            stack.extend((c, depth + 1) for c in children if isinstance(c, (list, dict)))


def parse_text(text: str, kind: str, *, file: str) -> Any:
    """``text`` parsed as ``kind`` (``json``, ``jsonl``, ``yaml`` or ``toml``)."""
    try:
        if kind == "yaml":
            from ._yaml import load_yaml

            return load_yaml(text)
        if kind == "jsonl":
            data: Any = [_json(line) for line in text.splitlines() if line.strip()]
        elif kind == "toml":
            import tomllib

            data = tomllib.loads(text)
        else:
            data = _json(text)
        check_depth(data)
        return data
    except RecursionError:
        raise InputError(f"cannot parse {kind.upper()}: the document is nested too deeply", file=file) from None
    except Exception as exc:
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            where = f" at line {mark.line + 1}"
        elif isinstance(getattr(exc, "lineno", None), int):
            where = f" at line {exc.lineno}" + (f" column {exc.colno}" if hasattr(exc, "colno") else "")  # type: ignore[attr-defined]
        else:
            where = ""
        what = getattr(exc, "msg", None) or getattr(exc, "problem", None) or exc
        raise InputError(f"cannot parse {kind.upper()}{where}: {what}", file=file) from None


def kind_of(path: str | Path) -> str:
    """The structured format of a file, from its suffix (JSON when unknown)."""
    suffix = Path(path).suffix.lower()
    return {".yaml": "yaml", ".yml": "yaml", ".jsonl": "jsonl", ".toml": "toml"}.get(suffix, "json")


def read_document(path: str | Path) -> Any:
    """The parsed content of a JSON, JSONL, YAML or TOML file (by suffix)."""
    return parse_text(read_text(path), kind_of(path), file=str(path))
