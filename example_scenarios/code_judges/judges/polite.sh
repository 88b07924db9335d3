#!/bin/sh
# Example code judge (POSIX shell): does the answer say thanks?  Reads the JSON on stdin and
# writes the JSON answer on stdout; no JSON parser needed for such a crude check.
input=$(cat)
if printf '%s' "$input" | grep -qi '"candidate_answer": *"[^"]*thank'; then
  echo '{"score": 1, "hits": ["thanks the user"], "misses": [], "reasoning": "polite"}'
else
  echo '{"score": 0, "hits": [], "misses": ["does not thank the user"], "reasoning": "no thanks found"}'
fi
