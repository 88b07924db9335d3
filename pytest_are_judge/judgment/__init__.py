"""Typed judgment results and their renderings (text for terminals, dicts for machines)."""

from .failures import (
    ArgCheck,
    EnvOracleMatchingFailure,
    EventComparisonFailure,
    EventComparisonFailureType,
    Failure,
    FailureKind,
    GenericFailure,
    InputErrorFailure,
    OracleEventMatchingFailure,
    RejectDetail,
    TimeCheck,
    ToolCallCountsFailure,
)
from .render import render_failure, render_judgment
from .result import Judgment, JudgmentError

__all__ = [
    "ArgCheck",
    "EnvOracleMatchingFailure",
    "EventComparisonFailure",
    "EventComparisonFailureType",
    "Failure",
    "FailureKind",
    "GenericFailure",
    "InputErrorFailure",
    "Judgment",
    "JudgmentError",
    "OracleEventMatchingFailure",
    "RejectDetail",
    "TimeCheck",
    "ToolCallCountsFailure",
    "render_failure",
    "render_judgment",
]
