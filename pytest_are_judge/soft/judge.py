"""``SoftToolJudge`` / ``MildToolJudge``: the soft (LLM) part of ARE's tool judges.

The matching engine has already run the hard checks and ARE's equality pre-check on the
normalised values; it hands us only the requests that still need an LLM verdict
(:class:`~pytest_are_judge.soft.api.SoftRequest`).  For each request we run the
tool's soft checkers (ARE's default registry, ``content_checker`` for a tool with LLM
arguments but no entry), concurrently, and report the first non-passing checker in registry
order, exactly as a sequential run would.

Never a false pass: a failed call is retried, then reported as an error; a tie or an
all-abstain vote is inconclusive (an error unless ``inconclusive_policy="reject"``).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from ..errors import LLMCallError
from . import usage
from .api import SoftRequest, SoftVerdict
from .cache import VerdictCache, cache_key, shared_cache
from .checkers import (
    CHECKERS,
    SoftContext,
    build_messages,
    placeholder_check,
    sanity_shortcut,
    subtask_messages,
    today_from,
)
from .engine import LLMEngine, run_sync
from .guard import suspected_argument
from .options import ModelSettings, SoftOptions, parse_options, resolve_model
from .parsing import Parsed, parse_answer, parse_subtask
from .prompts import VERDICT_SCHEMA, chat, fenced, new_fence, prompt_version

T = TypeVar("T")

FALLBACK_CHECKERS = ("content_checker",)


@dataclass
class CheckerResult:
    name: str
    passed: bool | None
    rationale: str = ""
    error: str | None = None


INJECTION_GUARD = "injection_guard"
"""The checker name of a rejection by the pre-scan (:func:`~.guard.suspected_argument`)."""


def _rationale(text: str, reason: str) -> str:
    if reason:
        return reason.strip()[:400]
    body = text.strip()
    # the model's closing words, without the verdict marker
    body = re.sub(r"\[\[\s*[A-Za-z]+\s*\]\]", "", body).strip()
    return ("..." + body[-300:]) if len(body) > 300 else body


class SoftToolJudge:
    """Decides :class:`SoftRequest` batches with the judge model.  Implements ``SoftJudge``.

    Construction is cheap and offline: litellm is imported at the first model call.
    """

    @property
    def prefetch(self) -> bool:
        """Ask ahead for every hard-passing candidate of a turn (``llm_options.speculate``)."""
        return self.options.speculate

    def __init__(
        self,
        *,
        settings: ModelSettings | None = None,
        options: SoftOptions | dict[str, Any] | None = None,
        votes: int = 1,
        registry: dict[str, list[str]] | None = None,
    ) -> None:
        self.options = options if isinstance(options, SoftOptions) else parse_options(options)
        self.settings = settings or resolve_model(model=None, provider=None, endpoint=None, options=self.options)
        if votes < 1:
            raise ValueError("votes must be >= 1")
        self.votes = votes
        self._registry = registry
        self.engine = LLMEngine(self.settings, self.options)
        if self.options.cache_path:
            self.cache: VerdictCache | None = shared_cache(self.options.cache_path)
        elif self.options.memory_cache:
            self.cache = VerdictCache(None)
        else:
            self.cache = None
        self._inflight: dict[Any, asyncio.Future[Any]] = {}
        self._subtasks: dict[Any, str] = {}
        self.prompt_version = prompt_version()

    # ---------------------------------------------------------------- config
    @classmethod
    def from_config(cls, config: Any) -> SoftToolJudge:
        options = parse_options(getattr(config, "llm_options", None))
        settings = resolve_model(
            model=getattr(config, "judge_model", None),
            provider=getattr(config, "judge_provider", None),
            endpoint=getattr(config, "judge_endpoint", None),
            options=options,
        )
        return cls(settings=settings, options=options, votes=getattr(config, "judge_votes", 1) or 1)

    @property
    def registry(self) -> dict[str, list[str]]:
        if self._registry is None:
            from ..checkers import load_soft_registry

            reg = {k: [getattr(c, "value", c) for c in v] for k, v in load_soft_registry().items()}
            reg.update({k: list(v) for k, v in (self.options.soft_checkers or {}).items()})
            self._registry = reg
        return self._registry

    def checkers_for(self, tool_name: str) -> list[str]:
        """The tool's soft checkers, or ``content_checker`` when it has no entry (ARE's fallback)."""
        names = self.registry.get(tool_name)
        return list(names) if names else list(FALLBACK_CHECKERS)

    # ------------------------------------------------------------------- API
    def check_many(self, requests: list[SoftRequest]) -> list[SoftVerdict]:
        """Synchronous entry point (runs :meth:`acheck_many` on the judge's event loop)."""
        if not requests:
            return []
        reqs = list(requests)
        return run_sync(lambda: self.acheck_many(reqs))

    async def acheck_many(self, requests: list[SoftRequest]) -> list[SoftVerdict]:
        """Decide every request concurrently (bounded by ``llm_options.concurrency``)."""
        return list(await asyncio.gather(*(self.acheck(r) for r in requests)))

    async def acheck(self, req: SoftRequest) -> SoftVerdict:
        try:
            return await self._check(req)
        except LLMCallError as exc:
            return SoftVerdict(None, checker=getattr(exc, "checker", ""), error=str(exc))

    # ------------------------------------------------------------- internals
    def context(self, req: SoftRequest) -> SoftContext:
        user = req.user
        return SoftContext(
            tool_name=req.tool_name,
            agent_args={a: req.agent_args.get(a) for a in req.llm_args},
            oracle_args={a: req.oracle_args.get(a) for a in req.llm_args},
            tasks=[t.strip() for t in req.tasks],
            user_name=f"{user.first_name} {user.last_name}".strip() if user else "",
            user_address=user.address if user else "",
            today_date=today_from(req.oracle_event_time),
        )

    async def _check(self, req: SoftRequest) -> SoftVerdict:
        names = self.checkers_for(req.tool_name)
        ctx = self.context(req)
        suspect = suspected_argument(ctx.agent_args) if self.options.injection_guard else None
        if suspect is not None:  # agent text addressing the judge is never passed by an LLM
            return SoftVerdict(
                False,
                rationale=f"suspected prompt injection in {suspect}; not sent to the LLM",
                checker=INJECTION_GUARD,
            )
        plan: list[tuple[str, CheckerResult | None]] = []
        for name in names:
            if name == "placeholder_checker":
                ok, why = placeholder_check(ctx.agent_args)
                plan.append((name, CheckerResult(name, ok, why)))
                if not ok:
                    break  # later checkers cannot change a rejection: no calls for them
            elif name == "sanity_checker" and sanity_shortcut(ctx.agent_args):
                plan.append((name, CheckerResult(name, True, "a bare number needs no sanity check")))
            else:
                plan.append((name, None))
        subtask: asyncio.Future[str] | None = None
        if self.options.speculate:  # every checker at once; read below in ARE's order
            if any(r is None and CHECKERS[n].needs_subtask for n, r in plan):
                subtask = asyncio.ensure_future(self._subtask(req, ctx))
            pending = [self._run_checker(n, ctx, subtask) for n, r in plan if r is None]
            try:
                done = iter(await asyncio.gather(*pending))
            finally:
                if subtask is not None and not subtask.done():
                    subtask.cancel()
            results = [r if r is not None else next(done) for _, r in plan]
        else:  # ARE's order: one checker after the other, none after the first that does not pass
            results = []
            for n, r in plan:
                if r is None:
                    if CHECKERS[n].needs_subtask and subtask is None:
                        subtask = asyncio.ensure_future(self._subtask(req, ctx))
                    r = await self._run_checker(n, ctx, subtask)
                results.append(r)
                if r.error is not None or r.passed is not True:
                    break
        for r in results:
            if r.error is not None:
                return SoftVerdict(None, rationale=r.rationale, checker=r.name, error=f"{r.name}: {r.error}")
            if r.passed is None:
                if self.options.inconclusive_policy == "reject":
                    return SoftVerdict(
                        False, rationale=f"inconclusive, counted as a rejection: {r.rationale}", checker=r.name
                    )
                return SoftVerdict(None, rationale=f"{r.name}: {r.rationale}", checker=r.name)
            if r.passed is False:
                return SoftVerdict(False, rationale=f"{r.name}: {r.rationale}", checker=r.name)
        return SoftVerdict(
            True, rationale="; ".join(f"{r.name}: {r.rationale}" for r in results), checker=",".join(names)
        )

    async def _run_checker(self, name: str, ctx: SoftContext, subtask: asyncio.Future[str] | None) -> CheckerResult:
        spec = CHECKERS[name]
        try:
            if spec.needs_subtask:
                assert subtask is not None
                ctx = SoftContext(**{**ctx.__dict__, "subtask": await asyncio.shield(subtask)})
        except LLMCallError as exc:
            return CheckerResult(name, None, error=f"subtask extraction failed: {exc}")
        system, user = build_messages(spec, ctx)
        return await self.decide(name, chat(system, user, structured=self.options.structured))

    async def decide(self, name: str, messages: list[dict[str, str]]) -> CheckerResult:
        """Ask ``judge_votes`` times and take the majority; ties and all-abstain are inconclusive."""
        try:
            outcomes = await asyncio.gather(*(self._vote(name, messages, i) for i in range(self.votes)))
        except LLMCallError as exc:
            return CheckerResult(name, None, error=str(exc))
        yes = [o for o in outcomes if o[0] is True]
        no = [o for o in outcomes if o[0] is False]
        if len(yes) > len(no):
            return CheckerResult(
                name, True, yes[-1][1] if self.votes == 1 else f"{len(yes)} of {self.votes} votes pass: {yes[-1][1]}"
            )
        if len(no) > len(yes):
            return CheckerResult(
                name, False, no[-1][1] if self.votes == 1 else f"{len(no)} of {self.votes} votes fail: {no[-1][1]}"
            )
        if not yes:
            problems = "; ".join(o[1] for o in outcomes)
            return CheckerResult(name, None, f"no verdict in any of {self.votes} answer(s) ({problems})")
        return CheckerResult(
            name, None, f"tied vote: {len(yes)} pass, {len(no)} fail, {self.votes - len(yes) - len(no)} abstain"
        )

    async def _single_flight(self, key: Any, factory: Callable[[], Awaitable[T]]) -> T:
        """Run ``factory`` once per key at a time (concurrent identical asks share one call)."""
        loop = asyncio.get_running_loop()
        k = (id(loop), key)
        fut = self._inflight.get(k)
        if fut is None:
            fut = asyncio.ensure_future(factory())
            self._inflight[k] = fut
            fut.add_done_callback(lambda _f: self._inflight.pop(k, None))
        elif not fut.done():
            usage.record(cache_hits=1)
        return await asyncio.shield(fut)

    def _cached(self, key: str) -> dict[str, Any] | None:
        if self.cache is None:
            return None
        rec = self.cache.get(key)
        if rec is not None:
            usage.record(cache_hits=1)
        return rec

    async def _vote(self, name: str, messages: list[dict[str, str]], i: int) -> tuple[bool | None, str]:
        """One vote: (True/False, rationale) or (None, why there is no verdict)."""
        key = cache_key(
            model=self.settings.label,
            checker=name,
            prompt_version=self.prompt_version,
            payload={"messages": messages, "vote": i, "structured": self.options.structured},
        )
        rec = self._cached(key)
        if rec is not None:
            v = rec["value"]
            return bool(v["verdict"]), v.get("rationale", "")
        if self.options.replay_only:
            raise LLMCallError(
                f"replay-only mode and no cached verdict for {name} (key {key[:12]}) in {self.options.cache_path}"
            )

        async def ask() -> tuple[bool | None, str]:
            rec = self._cached(key)
            if rec is not None:
                return bool(rec["value"]["verdict"]), rec["value"].get("rationale", "")
            fmt = VERDICT_SCHEMA if self.options.structured else None
            code = new_fence()
            structured = self.options.structured

            def accept(text: str) -> Parsed | None:
                p = parse_answer(text, code, structured=structured)
                return p if p.verdict is not None or p.how == "contradictory" else None

            parsed, text, problems = await self.engine.ask(fenced(messages, code), accept, response_format=fmt)
            if parsed is None:
                return None, "; ".join(problems) or "no verdict"
            if parsed.verdict is None:  # contradictory: an error, never a pass nor a fail (not cached)
                return None, f"{parsed.reason}: {_rationale(text, '')}"
            why = _rationale(text, parsed.reason)
            if self.cache is not None:
                self.cache.put(
                    key,
                    {"verdict": parsed.verdict, "rationale": why},
                    model=self.settings.label,
                    checker=name,
                    prompt_version=self.prompt_version,
                )
            return parsed.verdict, why

        return await self._single_flight(("vote", key), ask)

    async def _subtask(self, req: SoftRequest, ctx: SoftContext) -> str:
        """The part of the task this oracle call serves; extracted once per
        (oracle event, tool, arguments) and cached (ARE extracts it for every candidate pair)."""
        task = "\n".join(t.strip() for t in req.tasks if t.strip())
        if not task:
            return ""
        mem_key = (req.oracle_event_id, req.tool_name, json.dumps(ctx.oracle_args, sort_keys=True, default=str), task)
        if mem_key in self._subtasks:
            return self._subtasks[mem_key]
        system, user = subtask_messages(req.tool_name, ctx.oracle_args, task)
        messages = chat(system, user)
        key = cache_key(
            model=self.settings.label,
            checker="subtask_extractor",
            prompt_version=self.prompt_version,
            payload={"messages": messages},
        )

        async def extract() -> str:
            rec = self._cached(key)
            if rec is not None:
                return str(rec["value"])
            if self.options.replay_only:
                raise LLMCallError(
                    f"replay-only mode and no cached subtask (key {key[:12]}) in {self.options.cache_path}"
                )
            found, _text, _problems = await self.engine.ask(messages, parse_subtask)
            if not found:
                found = task  # no usable extraction: the checkers get the whole task (cached too)
            if self.cache is not None:
                self.cache.put(
                    key,
                    found,
                    model=self.settings.label,
                    checker="subtask_extractor",
                    prompt_version=self.prompt_version,
                )
            return found

        result = await self._single_flight(("subtask", key), extract)
        self._subtasks[mem_key] = result
        return result


class MildToolJudge(SoftToolJudge):
    """ARE's mild tool judge: hard checks first, then the soft checks of the ``llm_checker``
    arguments.  In this library the matching engine runs the hard checks and the equality
    pre-check; this object decides only the soft part (see :class:`SoftToolJudge`)."""


def build_soft_judge(config: Any) -> MildToolJudge:
    """The soft judge for a :class:`GraphPerEventJudgeConfig` (offline; no litellm import)."""
    judge = MildToolJudge.from_config(config)
    assert isinstance(judge, MildToolJudge)
    return judge
