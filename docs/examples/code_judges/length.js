#!/usr/bin/env node
// Example code judge (Node.js): the answer must be non-empty and at most `max_chars` long.
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const payload = JSON.parse(input);
  const args = (payload.sidecar && payload.sidecar.checker_args) || {};
  const maxChars = Number(args.max_chars || 80);
  const answer = String(payload.candidate_answer ?? "");
  const hits = [];
  const misses = [];
  (answer.trim().length > 0 ? hits : misses).push("answer is not empty");
  (answer.length <= maxChars ? hits : misses).push(`at most ${maxChars} characters (got ${answer.length})`);
  process.stdout.write(
    JSON.stringify({
      score: hits.length / (hits.length + misses.length),
      hits,
      misses,
      reasoning: misses.length ? "length rule broken" : "length rules respected",
    })
  );
});
