"""Bounded work on hostile intents (issue 10 section 2), measured side by side with a valid intent.

Run: ``.venv/bin/python benchmarks/bench_bounded.py [--repeat N]``

Each hostile input must be refused (``IntentError``) in about the time a valid intent takes to parse:
the ratio column is hostile / valid, both measured in this run. The limits that bound the work are in
the code (``intent._intent``: 1 MiB, 32 levels, 10,000 values after aliases, 20-digit integers; at most
10 problems listed, values echoed at most 80 characters); the tests assert those limits, never a time.
Before the fix the 592-byte alias bomb ran > 20 s and 1.45 GB, and 10,000 unknown keys 65 s.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from computeops_cdk.errors import IntentError
from computeops_cdk.intent import WorkloadIntent

GOOD = """\
apiVersion: computeops.dev/v1
kind: WorkloadIntent
name: chat
workload:
  type: inference
  model: {name: llama-3.1-8b}
  serving:
    output_tokens_per_s: 1000
"""
BOMB = "\n".join(
    ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    + [f"{c}: &{c} [{','.join([f'*{p}'] * 9)}]" for p, c in zip("abcdefgh", "bcdefghi", strict=True)]
)
UNKNOWN_KEYS = GOOD + "".join(f"unknown_{i}: {i}\n" for i in range(10_000))
DEEP = GOOD + "preferences: " + "[" * 100_000 + "]" * 100_000 + "\n"
HUGE_INT = GOOD.replace("1000", "1" + "0" * 5000)


def _time(text: str, repeat: int) -> tuple[float, int]:
    times, length = [], 0
    for _ in range(repeat):
        start = time.perf_counter()
        try:
            WorkloadIntent.from_yaml(text)
        except IntentError as err:
            length = len(str(err))
        times.append(time.perf_counter() - start)
    return statistics.median(times), length


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    cases: dict[str, str] = {
        "alias bomb (592 bytes, 387M values)": BOMB,
        "10,000 unknown keys": UNKNOWN_KEYS,
        "100,000 levels of nesting": DEEP,
        "a 5,000-digit integer": HUGE_INT,
    }
    base, _ = _time(GOOD, args.repeat)
    print(f"valid intent: {base * 1000:.2f} ms (median of {args.repeat})")
    print("| input | median ms | message chars | ratio to a valid intent |")
    print("|---|---|---|---|")
    measure: Callable[[str, int], tuple[float, int]] = _time
    for name, text in cases.items():
        seconds, length = measure(text, args.repeat)
        print(f"| {name} | {seconds * 1000:.2f} | {length:,} | {seconds / base:.1f}x |")


if __name__ == "__main__":
    main()
