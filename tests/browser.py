"""Headless Chromium for the HTML report tests: a DOM dump or a screenshot of a page."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)


def needs_chromium() -> None:
    """Skip without a browser, except in CI (.ci/run installs one), where that is a failure."""
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed: CI must run the browser test (.ci/run installs it)")
        pytest.skip("no chromium binary (apt-get install chromium); CI installs it and runs this test")


def chromium(args: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run headless Chromium with a throw-away profile and no network chatter."""
    assert CHROMIUM is not None
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    base = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
    ]
    try:
        return subprocess.run([*base, *args], capture_output=True, text=True, cwd=cwd, timeout=180)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
