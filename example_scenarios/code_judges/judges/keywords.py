#!/usr/bin/env python3
"""Example code judge (Python): which required keywords does the answer contain?

Keywords come from the checker arg ``keywords`` (per-event check) or, for a run-level
evaluator, from ``expected_outcome`` when it is a list.  Score = share of keywords found.
"""

import json
import sys

payload = json.load(sys.stdin)
sidecar = payload.get("sidecar") or {}
keywords = (sidecar.get("checker_args") or {}).get("keywords")
if keywords is None:
    expected = payload.get("expected_outcome")
    keywords = expected if isinstance(expected, list) else [str(expected or "")]
answer = str(payload.get("candidate_answer") or "").lower()
hits = [k for k in keywords if str(k).lower() in answer]
misses = [k for k in keywords if str(k).lower() not in answer]
print(f"checked {len(keywords)} keyword(s)", file=sys.stderr)
json.dump(
    {
        "score": len(hits) / len(keywords) if keywords else 1.0,
        "hits": [f"mentions {k!r}" for k in hits],
        "misses": [f"does not mention {k!r}" for k in misses],
        "reasoning": f"{len(hits)} of {len(keywords)} required keywords present",
    },
    sys.stdout,
)
