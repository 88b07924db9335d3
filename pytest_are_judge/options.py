"""Every option of the plugin and the CLI, declared once.

:data:`OPTIONS` drives pytest's ``addoption``/``addini`` (``plugin.py``), the CLI's argparse
parser (``cli.py``), the resolved :class:`Settings` of both, the judge-config overrides they
make, and the tables in docs/configuration.md and docs/cli.md (checked by a test).  Standard
library only: the plugin imports this module at startup.

A value given on the command line wins over an ini value.  Every message names the option the
user typed (``--are-k``, ``--k``) or the ini key the value came from (``are_k (ini)``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._rate import parse_rate
from .errors import UsageError

__all__ = ["OPTIONS", "Option", "Settings", "resolve"]


@dataclass(frozen=True)
class Option:
    """One option.  ``key`` is its name in :class:`Settings`; ``flag``/``ini``/``cli`` its names
    in pytest (``--are-*``), in ini files and in the ``are-judge`` CLI (None: not offered there)."""

    key: str
    help: str
    kind: str = "str"
    """str | path | paths | int | rate | bool | choice | dataset"""
    flag: str | None = None
    ini: str | None = None
    cli: str | None = None
    metavar: str | None = None
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    config: str | None = None
    """The judge-config field it sets (``llm_options.x`` for a key of ``llm_options``)."""
    llm: bool = False
    """Only meaningful when LLM judging is on."""
    default: Any = None

    @property
    def names(self) -> list[str]:
        return [n for n in (self.flag, self.ini, self.cli) if n]


def _plugin(key: str, help: str, **kw: Any) -> Option:
    """An option of the plugin (``--are-<key>`` / ini ``are_<key>``), optionally also of the CLI."""
    dashed = key.replace("_", "-")
    kw.setdefault("flag", f"--are-{dashed}")
    kw.setdefault("ini", f"are_{key}")
    return Option(key=key, help=help, **kw)


OPTIONS: tuple[Option, ...] = (
    _plugin(
        "scenarios",
        "collect every ARE trace and native scenario under PATH as test items (repeatable)",
        kind="paths",
        metavar="PATH",
    ),
    _plugin(
        "limit",
        "judge at most N runs (the first N in collection order)",
        kind="int",
        minimum=1,
        cli="--limit",
        metavar="N",
    ),
    _plugin(
        "matching",
        "matching mode: greedy (ARE's first-fit, default) or exact",
        kind="choice",
        choices=("greedy", "exact"),
        cli="--matching",
        config="matching",
    ),
    _plugin(
        "config",
        "judge config (JSON/YAML/TOML); a scenario file's own judge_config overrides it",
        kind="path",
        cli="--config",
        metavar="FILE",
    ),
    _plugin(
        "min_pass_rate",
        "fail when the pass rate of judged runs is below R (0..1 or a percentage like 90%)",
        kind="rate",
        metavar="R",
    ),
    _plugin(
        "baseline",
        "compare with a saved baseline: fail only on regressions, report improvements",
        kind="path",
        metavar="FILE",
    ),
    _plugin("save_baseline", "write every run's verdict to FILE (for --are-baseline)", kind="path", metavar="FILE"),
    _plugin("report", "write a JSON report of every verdict and failure to FILE", kind="path", metavar="FILE"),
    _plugin(
        "hf",
        "oracle scenarios from a Hugging Face dataset (local folder/file or cached name), paired with the runs "
        "by scenario id (needs the [hf] extra)",
        kind="dataset",
        cli="--hf",
        metavar="DATASET",
    ),
    _plugin("hf_split", "split of the Hugging Face dataset (e.g. validation)", cli="--hf-split", metavar="SPLIT"),
    _plugin(
        "hf_config",
        "config of the Hugging Face dataset (Gaia2: execution, search...)",
        cli="--hf-config",
        metavar="NAME",
    ),
    _plugin(
        "k",
        "k for pass@k / pass^k over repeated runs of a scenario (default: the smallest run count among "
        "scenarios with two runs or more)",
        kind="int",
        minimum=1,
        cli="--k",
        metavar="K",
    ),
    _plugin(
        "min_pass_hat_k",
        "fail when the overall pass^k of repeated runs is below R (0..1 or a percentage like 80%)",
        kind="rate",
        cli="--min-pass-hat-k",
        metavar="R",
    ),
    _plugin(
        "html",
        "write a self-contained HTML report (oracle graphs, timelines, failures) of every judged run to FILE",
        kind="path",
        cli="--html",
        metavar="FILE",
    ),
    _plugin(
        "md_summary",
        "write a Markdown summary (failing runs with Mermaid graphs) to FILE; also appended to "
        "$GITHUB_STEP_SUMMARY when set",
        kind="path",
        cli="--md-summary",
        metavar="FILE",
    ),
    _plugin(
        "llm", "judge LLM-checked arguments with an LLM (needs the [llm] extra)", kind="bool", cli="--llm", config="llm"
    ),
    _plugin(
        "judge_model",
        "LLM judge model (config judge_model)",
        flag="--judge-model",
        ini="judge_model",
        cli="--judge-model",
        metavar="MODEL",
        config="judge_model",
        llm=True,
    ),
    _plugin(
        "judge_provider",
        "litellm provider of the judge model (config judge_provider)",
        flag="--judge-provider",
        ini="judge_provider",
        cli="--judge-provider",
        metavar="NAME",
        config="judge_provider",
        llm=True,
    ),
    _plugin(
        "judge_endpoint",
        "OpenAI-compatible base URL of the judge model (config judge_endpoint)",
        flag="--judge-endpoint",
        ini="judge_endpoint",
        cli="--judge-endpoint",
        metavar="URL",
        config="judge_endpoint",
        llm=True,
    ),
    _plugin(
        "llm_cache",
        "JSONL cache of LLM verdicts (llm_options.cache_path)",
        kind="path",
        cli="--llm-cache",
        metavar="PATH",
        config="llm_options.cache_path",
        llm=True,
    ),
    _plugin(
        "llm_replay_only",
        "never call the LLM, only replay the cache (llm_options.replay_only)",
        kind="bool",
        cli="--llm-replay-only",
        config="llm_options.replay_only",
        llm=True,
    ),
    _plugin(
        "llm_concurrency",
        "parallel LLM requests (llm_options.concurrency)",
        kind="int",
        minimum=1,
        cli="--llm-concurrency",
        metavar="N",
        config="llm_options.concurrency",
        llm=True,
    ),
    _plugin(
        "judge_votes",
        "LLM votes per soft check (config judge_votes)",
        kind="int",
        minimum=1,
        cli="--judge-votes",
        metavar="N",
        config="judge_votes",
        llm=True,
    ),
    _plugin(
        "xfail_strict",
        "an expected-to-fail run that passes fails the session (default true)",
        kind="bool",
        flag=None,
        default=True,
    ),
    _plugin(
        "allow_outside_files",
        "let a scenario's runs name agent logs outside the scenario's folder (off: they must be inside)",
        kind="bool",
        cli="--allow-outside-files",
    ),
    _plugin(
        "log_format",
        "format of the agent logs named by native runs' file: without a format: of their own "
        "(default: detected per file; docs/adapters.md)",
        kind="choice",
        choices=("native", "openai_chat", "openai_responses", "anthropic", "langchain", "otel"),
        flag="--are-format",
        ini="are_format",
        cli="--format",
    ),
    # --- the CLI only
    Option(
        "oracle",
        "oracle-run trace used as the oracle side of every ARE run",
        kind="path",
        cli="--oracle",
        metavar="ORACLE_TRACE",
    ),
    Option("output_dir", "write one JSON judgment per run into DIR", kind="path", cli="--output-dir", metavar="DIR"),
    Option("json", "one JSON object per run on stdout", kind="bool", cli="--json"),
    Option("schema", "print the JSON Schema of the native scenario format and exit", kind="bool", cli="--schema"),
    Option("no_color", "plain output", kind="bool", cli="--no-color"),
)

BY_KEY: dict[str, Option] = {o.key: o for o in OPTIONS}


def plugin_options() -> list[Option]:
    return [o for o in OPTIONS if o.flag or o.ini]


def cli_options() -> list[Option]:
    return [o for o in OPTIONS if o.cli]


# ------------------------------------------------------------------ values


def _parse_int(opt: Option, raw: object) -> int:
    if isinstance(raw, bool):
        raise ValueError(f"expected an integer, got {raw!r}")
    try:
        value = int(str(raw).strip())
    except ValueError:
        raise ValueError(f"expected an integer, got {raw!r}") from None
    if opt.minimum is not None and value < opt.minimum:
        raise ValueError(f"must be at least {opt.minimum}, got {value}")
    return value


def parse_value(opt: Option, raw: Any, base: Path | None) -> Any:
    """``raw`` (a command-line or ini value) converted for ``opt``; ValueError when it is invalid."""
    if opt.kind == "bool":
        return bool(raw)
    if opt.kind == "int":
        return _parse_int(opt, raw)
    if opt.kind == "rate":
        return parse_rate(raw)
    if opt.kind == "choice":
        if raw not in opt.choices:
            raise ValueError(f"expected one of {', '.join(opt.choices)}, got {raw!r}")
        return raw
    if opt.kind == "paths":
        return [_path(p, base) for p in raw]
    if opt.kind == "path":
        return str(_path(raw, base))
    if opt.kind == "dataset":  # a local dataset is a path, anything else a dataset name
        local = _path(raw, base)
        return str(local) if local.exists() else str(raw)
    return str(raw)


def _path(raw: Any, base: Path | None) -> Path:
    p = Path(str(raw))
    return p if p.is_absolute() or base is None else base / p


@dataclass
class Settings:
    """Resolved option values: ``settings.k``; unset options are None (or their default)."""

    values: dict[str, Any] = field(default_factory=dict)
    given: dict[str, str] = field(default_factory=dict)
    """For each option that was set: how the user gave it (``--are-k``, ``are_k (ini)``)."""
    from_cli: set[str] = field(default_factory=set)
    context: str = "plugin"

    def __getattr__(self, key: str) -> Any:
        if key.startswith("__") or key in ("values", "given", "from_cli", "context"):
            raise AttributeError(key)
        opt = BY_KEY.get(key)
        if opt is None:
            raise AttributeError(f"no option {key!r}")
        return self.values.get(key, opt.default)

    @property
    def explicit(self) -> list[str]:
        """Keys of the options that were given, in table order."""
        return [o.key for o in OPTIONS if o.key in self.given]

    def name(self, key: str) -> str:
        """How the user gave ``key``; when it was not given, how it can be given."""
        given = self.given.get(key)
        if given:
            return given
        opt = BY_KEY[key]
        if self.context == "cli":
            return opt.cli or opt.key
        return f"{opt.flag} (ini {opt.ini})" if opt.flag and opt.ini else (opt.flag or opt.ini or opt.key)

    def config_overrides(self) -> dict[str, Any]:
        """The judge-config fields the given options set (``llm_options`` as a nested mapping)."""
        out: dict[str, Any] = {}
        for opt in OPTIONS:
            if opt.config is None or opt.key not in self.given:
                continue
            value = self.values[opt.key]
            if opt.kind == "bool" and not value:
                continue
            head, _, sub = opt.config.partition(".")
            if sub:
                out.setdefault(head, {})[sub] = value
            else:
                out[head] = value
        return out

    def header(self, prefix: str = "are-judge: ") -> str:
        shown = []
        for key in self.explicit:
            value = self.values[key]
            shown.append(f"{key}={', '.join(str(p) for p in value) if isinstance(value, list) else value}")
        return prefix + ", ".join(shown)


Getter = Callable[[Option], Any]


def resolve(
    options: Iterable[Option],
    *,
    context: str,
    cli: Getter,
    ini: Getter | None = None,
    cli_base: Path | None = None,
    ini_base: Callable[[Option], Path | None] | None = None,
) -> Settings:
    """The settings from command-line values (``cli(opt)``: None when not given) over ini values
    (``context``: "plugin" or "cli", whose option names messages use)
    (``ini(opt)``: None or empty when not set).  Relative paths: ``cli_base`` for the command
    line, ``ini_base(opt)`` for ini values.  Raises :class:`UsageError` naming the option."""
    s = Settings(context=context)
    for opt in options:
        name = opt.flag if context == "plugin" else opt.cli
        raw = cli(opt) if name else None
        from_cli = raw is not None and raw is not False and raw != []
        if from_cli:
            given = name or opt.key
            base = cli_base
        else:
            raw = ini(opt) if ini is not None and opt.ini else None
            if raw is None or raw == "" or raw == [] or (raw is False and not opt.default):
                continue
            given = f"{opt.ini} (ini)"
            base = ini_base(opt) if ini_base is not None else None
        try:
            s.values[opt.key] = parse_value(opt, raw, base)
        except ValueError as exc:
            raise UsageError(f"{given}: {exc}") from None
        s.given[opt.key] = given
        if from_cli:
            s.from_cli.add(opt.key)
    return s


def check_combinations(s: Settings, *, plugin: bool) -> None:
    """Options that need others (shared by plugin and CLI)."""
    for key in ("hf_split", "hf_config"):
        if key in s.given and "hf" not in s.given:
            raise UsageError(f"{s.name(key)} needs {s.name('hf')}")
    if plugin and "hf" in s.given and "scenarios" not in s.given:
        raise UsageError(
            f"{s.name('hf')} needs {s.name('scenarios')}: the agent runs to judge against the dataset's scenarios"
        )
