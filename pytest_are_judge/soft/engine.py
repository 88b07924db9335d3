"""Model calls through litellm: lazy import, async, bounded concurrency, retries with backoff.

litellm is imported on the first call, never at import or construction time.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import random
import threading
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from ..errors import LLMCallError
from . import usage
from .options import ModelSettings, SoftOptions

T = TypeVar("T")

_litellm: Any = None
_import_lock = threading.Lock()


def _import_litellm() -> Any:
    global _litellm
    if _litellm is None:
        with _import_lock:
            if _litellm is None:
                # Use litellm's bundled price map rather than fetching one from the internet
                # at import (a judge in CI must not make surprise connections).  Set the
                # variable to "False" yourself to get the live map.
                os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
                import litellm

                litellm.suppress_debug_info = True
                _litellm = litellm
    return _litellm


@dataclass
class Answer:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0


def _non_retryable(exc: BaseException) -> bool:
    """Authentication and malformed-request errors will not get better by retrying."""
    status = getattr(exc, "status_code", None)
    name = type(exc).__name__
    if name in (
        "AuthenticationError",
        "PermissionDeniedError",
        "NotFoundError",
        "BadRequestError",
        "ContextWindowExceededError",
        "ContentPolicyViolationError",
        "UnsupportedParamsError",
    ):
        return True
    return isinstance(status, int) and status in (400, 401, 403, 404, 422)


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if len(text) > 200:
        text = text[:197] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


MAX_RETRY_AFTER = 60.0
"""The longest ``Retry-After`` honoured (seconds); a longer one is an error, not a hang."""


def retry_after(exc: BaseException) -> float | None:
    """The seconds a rate-limited or unavailable server asked us to wait (``Retry-After``), if any."""
    headers = getattr(exc, "litellm_response_headers", None) or getattr(getattr(exc, "response", None), "headers", None)
    if not headers:
        return None
    value = headers.get("retry-after") if hasattr(headers, "get") else None
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        from email.utils import parsedate_to_datetime

        try:
            when = parsedate_to_datetime(str(value))
        except (TypeError, ValueError):
            return None
        import datetime as _dt

        return max(0.0, (when - _dt.datetime.now(_dt.UTC)).total_seconds())


class _ProcessLimit:
    """Requests in flight in the whole process (per event loop; the sync bridge uses one loop):
    at most the largest ``concurrency`` among the judges that are calling models right now."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.active: dict[int, list[int]] = {}  # judge engine id -> [concurrency, requests waiting or in flight]
        self.cond = asyncio.Condition()

    def limit(self) -> int:
        return max((c for c, _n in self.active.values()), default=1)

    @contextlib.asynccontextmanager
    async def slot(self, engine: int, wanted: int) -> AsyncIterator[None]:
        async with self.cond:
            self.active.setdefault(engine, [wanted, 0])[1] += 1
            await self.cond.wait_for(lambda: self.in_flight < self.limit())
            self.in_flight += 1
        try:
            yield
        finally:
            async with self.cond:
                self.in_flight -= 1
                entry = self.active[engine]
                entry[1] -= 1
                if not entry[1]:
                    del self.active[engine]
                self.cond.notify_all()


_PROCESS_LIMITS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _ProcessLimit] = weakref.WeakKeyDictionary()


class LLMEngine:
    """Sends chat messages to the judge model and returns the answer text.

    Requests in flight are bounded twice: by this judge's ``concurrency``, and for the whole
    process by the largest ``concurrency`` among the judges calling models at that moment (two
    judges at 4 each never have more than 4 requests in flight together)."""

    def __init__(self, settings: ModelSettings, options: SoftOptions) -> None:
        self.settings = settings
        self.options = options
        self._sems: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )

    def semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        sem = self._sems.get(loop)
        if sem is None:
            sem = self._sems[loop] = asyncio.Semaphore(self.options.concurrency)
        return sem

    def process_slot(self) -> contextlib.AbstractAsyncContextManager[None]:
        loop = asyncio.get_running_loop()
        limit = _PROCESS_LIMITS.get(loop)
        if limit is None:
            limit = _PROCESS_LIMITS[loop] = _ProcessLimit()
        return limit.slot(id(self), self.options.concurrency)

    async def _once(self, messages: list[dict[str, str]], response_format: dict[str, Any] | None) -> Answer:
        litellm = _import_litellm()
        o = self.options
        kw: dict[str, Any] = {
            "model": self.settings.litellm_model,
            "messages": messages,
            "timeout": o.timeout,
            "num_retries": 0,  # we retry ourselves, with bounded backoff
            "max_retries": 0,
        }
        if self.settings.endpoint:
            kw["api_base"] = self.settings.endpoint
        if self.settings.api_key:
            kw["api_key"] = self.settings.api_key
        if o.temperature is not None:
            kw["temperature"] = o.temperature
        if o.max_tokens is not None:
            kw["max_tokens"] = o.max_tokens
        if response_format is not None:
            kw["response_format"] = response_format
            kw["drop_params"] = True  # a provider without structured output falls back to markers
        kw.update(o.extra_params)
        async with self.semaphore(), self.process_slot():
            # litellm's own timeout is per request; the outer wait_for also bounds connection set-up.
            resp = await asyncio.wait_for(litellm.acompletion(**kw), timeout=o.timeout + 5)
        try:
            text = resp.choices[0].message.content
        except (AttributeError, IndexError, KeyError, TypeError):
            text = None
        if not isinstance(text, str):
            raise LLMCallError("the model's answer has no text content")
        u = getattr(resp, "usage", None)
        pt = int(getattr(u, "prompt_tokens", 0) or 0) if u is not None else 0
        ct = int(getattr(u, "completion_tokens", 0) or 0) if u is not None else 0
        try:
            cost = float(litellm.completion_cost(completion_response=resp) or 0.0)
        except Exception:
            cost = 0.0
        return Answer(text, pt, ct, cost)

    def _delay(self, attempt: int) -> float:
        o = self.options
        base = min(o.retry_max_delay, o.retry_base_delay * (2**attempt))
        return base * (0.5 + random.random() / 2) if base > 0 else 0.0

    async def ask(
        self,
        messages: list[dict[str, str]],
        accept: Callable[[str], T | None],
        *,
        response_format: dict[str, Any] | None = None,
    ) -> tuple[T | None, str, list[str]]:
        """Call the model until ``accept(text)`` gives a value (not None), at most
        ``1 + max_retries`` times.

        Returns ``(value, last_text, problems)``; ``value`` is None when every answer was
        unusable.  Raises :class:`LLMCallError` when the last attempt failed at the transport
        level (timeout, 429, 5xx, connection refused...) or on a non-retryable error.
        """
        problems: list[str] = []
        last_text = ""
        attempts = 1 + self.options.max_retries
        wait: float | None = None
        for attempt in range(attempts):
            if attempt:
                await asyncio.sleep(self._delay(attempt - 1) if wait is None else wait)
                wait = None
            try:
                ans = await self._once(messages, response_format)
            except asyncio.CancelledError:
                raise
            except BaseException as exc:
                if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                    raise
                msg = "timed out" if isinstance(exc, (asyncio.TimeoutError, TimeoutError)) else _short(exc)
                problems.append(f"attempt {attempt + 1}: {msg}")
                usage.record(errors=1)
                if _non_retryable(exc):
                    raise LLMCallError("; ".join(problems)) from None
                wait = retry_after(exc)
                if wait is not None and wait > MAX_RETRY_AFTER:
                    problems.append(f"the server asked to retry after {wait:g} s (more than {MAX_RETRY_AFTER:g} s)")
                    raise LLMCallError("; ".join(problems)) from None
                if attempt == attempts - 1:
                    raise LLMCallError("; ".join(problems)) from None
                continue
            usage.record(
                calls=1, prompt_tokens=ans.prompt_tokens, completion_tokens=ans.completion_tokens, cost_usd=ans.cost_usd
            )
            last_text = ans.text
            value = accept(ans.text)
            if value is not None:
                return value, ans.text, problems
            snippet = ans.text.strip().replace("\n", " ")
            problems.append(f"attempt {attempt + 1}: no verdict in the answer ({snippet[:120]!r})")
        return None, last_text, problems


# ------------------------------------------------------------------ sync bridge
class _LoopThread:
    """One long-lived event loop in a daemon thread, for synchronous callers.

    Reusing one loop keeps litellm's cached async HTTP clients valid between calls, and lets
    ``check_many`` work even when the caller is itself inside a running event loop.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pid = 0

    def loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._pid != os.getpid() or not self._loop.is_running():
                loop = asyncio.new_event_loop()
                started = threading.Event()

                def run() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(started.set)
                    loop.run_forever()

                threading.Thread(target=run, name="are-judge-llm-loop", daemon=True).start()
                started.wait()
                self._loop, self._pid = loop, os.getpid()
            return self._loop

    def close(self) -> None:
        """Cancel what is left on the loop (e.g. litellm's logging worker) and stop it."""
        with self._lock:
            loop, self._loop = self._loop, None
        if loop is None or self._pid != os.getpid() or not loop.is_running():
            return

        async def drain() -> None:
            me = asyncio.current_task()
            tasks = [t for t in asyncio.all_tasks() if t is not me]
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(drain(), loop).result(timeout=5)
        loop.call_soon_threadsafe(loop.stop)

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        fut = asyncio.run_coroutine_threadsafe(coro, self.loop())
        return fut.result()


_BRIDGE = _LoopThread()
atexit.register(_BRIDGE.close)


def run_sync(coro_factory: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine to completion from synchronous code."""

    async def wrapper() -> T:
        return await coro_factory()

    return _BRIDGE.run(wrapper())
