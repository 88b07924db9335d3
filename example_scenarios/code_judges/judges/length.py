#!/usr/bin/env python3
"""Example code judge (Python): the answer must be non-empty and at most ``max_chars`` long.

(The same judge in Node.js is docs/examples/code_judges/length.js; any language works.)
"""

import json
import sys

payload = json.load(sys.stdin)
args = (payload.get("sidecar") or {}).get("checker_args") or {}
max_chars = int(args.get("max_chars", 80))
answer = str(payload.get("candidate_answer") or "")
hits, misses = [], []
(hits if answer.strip() else misses).append("answer is not empty")
(hits if len(answer) <= max_chars else misses).append(f"at most {max_chars} characters (got {len(answer)})")
json.dump(
    {
        "score": len(hits) / (len(hits) + len(misses)),
        "hits": hits,
        "misses": misses,
        "reasoning": "length rule broken" if misses else "length rules respected",
    },
    sys.stdout,
)
