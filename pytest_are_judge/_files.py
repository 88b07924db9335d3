"""Reading the files we are given: one reader for every structured format (JSON, JSONL, YAML,
TOML), whose every failure is an :class:`~pytest_are_judge.errors.InputError` naming the file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .errors import InputError


def read_utf8(path: str | Path) -> str:
    """The file's text, decoded as UTF-8 with universal newlines (``\\r\\n`` and ``\\r`` read as
    ``\\n``).  Raises ``OSError`` and ``UnicodeDecodeError``."""
    with open(path, "rb") as fh:
        text = fh.read().decode("utf-8")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def read_text(path: str | Path) -> str:
    """:func:`read_utf8` with its errors as input errors naming the file."""
    try:
        return read_utf8(path)
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", file=str(path)) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not valid UTF-8 text (byte {exc.start}: {exc.reason})", file=str(path)) from None


def parse_text(text: str, kind: str, *, file: str) -> Any:
    """``text`` parsed as ``kind`` (``json``, ``jsonl``, ``yaml`` or ``toml``)."""
    try:
        if kind == "yaml":
            from ._yaml import load_yaml

            return load_yaml(text)
        if kind == "jsonl":
            return [json.loads(line) for line in text.splitlines() if line.strip()]
        if kind == "toml":
            import tomllib

            return tomllib.loads(text)
        return json.loads(text)
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
