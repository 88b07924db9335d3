"""An append-only JSONL verdict cache, safe for several processes (``pytest -n N``).

Each entry is one line (preceded by a newline) written with a single ``os.write`` on a file opened with ``O_APPEND``,
so concurrent writers never interleave inside a line.  The reader skips lines that do not
parse (e.g. a partial last line of a killed process) and picks up lines other processes
appended since its last read whenever it misses.  Only decided results are ever stored:
errors and abstentions are never cached.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

CACHE_FORMAT = 1


def cache_key(*, model: str, checker: str, prompt_version: str, payload: Any) -> str:
    """sha256 over the model, checker, prompt version and the (rendered) arguments."""
    blob = json.dumps(
        {"f": CACHE_FORMAT, "model": model, "checker": checker, "prompt_version": prompt_version, "payload": payload},
        sort_keys=True,
        ensure_ascii=False,
        default=str,
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class VerdictCache:
    """In-memory map backed (optionally) by a JSONL file."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path else None
        self._mem: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._offset = 0
        self._pending = b""

    # ------------------------------------------------------------------ read
    def _refresh(self) -> None:
        """Read whatever was appended since the last read (tolerating partial lines)."""
        if self.path is None:
            return
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self._offset)
                data = fh.read()
        except FileNotFoundError:
            return
        if not data:
            return
        self._offset += len(data)
        data = self._pending + data
        lines = data.split(b"\n")
        self._pending = lines.pop()  # an unterminated tail: kept until it is completed
        for raw in lines:
            if not raw.strip():
                continue
            try:
                rec = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError):
                continue  # a corrupt line is ignored, never fatal
            if isinstance(rec, dict) and isinstance(rec.get("key"), str) and "value" in rec:
                self._mem[rec["key"]] = rec

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            rec = self._mem.get(key)
            if rec is None and self.path is not None:
                self._refresh()
                rec = self._mem.get(key)
            return rec

    # ----------------------------------------------------------------- write
    def put(self, key: str, value: Any, **meta: Any) -> None:
        rec = {"key": key, "value": value, "ts": round(time.time(), 3), **meta}
        with self._lock:
            self._mem[key] = rec
            if self.path is None:
                return
            # The leading newline terminates any partial line a killed writer may have left,
            # so one crash never swallows the next entry.
            line = ("\n" + json.dumps(rec, ensure_ascii=False, sort_keys=True, default=str) + "\n").encode("utf-8")
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)

    def __len__(self) -> int:
        with self._lock:
            self._refresh()
            return len(self._mem)


_shared: dict[str, VerdictCache] = {}
_shared_lock = threading.Lock()


def shared_cache(path: str | None) -> VerdictCache:
    """One cache object per file per process (a fresh private one when ``path`` is None)."""
    if path is None:
        return VerdictCache(None)
    real = str(Path(path).expanduser().resolve())
    with _shared_lock:
        c = _shared.get(real)
        if c is None:
            c = _shared[real] = VerdictCache(real)
        return c
