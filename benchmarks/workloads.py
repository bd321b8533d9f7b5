"""The inputs of the benchmarks: tool-call arguments of eight shapes, a large events file for ``toolguards replay``
(bench_guard.py), and a folder of sessions in two formats (bench_replay.py).

Everything is generated from a fixed seed, so two runs measure the same work.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["SHAPES", "write_events", "write_sessions"]

_CODE_LINE = "    total = round(price * rate, 2)  # keep the rounding explicit\n"


def _small(variant: int) -> dict[str, Any]:
    # A shell call, as coding agents make them: about 100 bytes.
    return {"command": f"pytest tests/test_pricing.py -q -k case_{variant}", "cwd": "/home/dev/shop", "timeout": 120}


def _floats(variant: int) -> dict[str, Any]:
    # Sampling floats (30.0 must print as 30, as JavaScript prints it) and integer-like keys, which JavaScript
    # orders numerically ("3", "12", "40"), not as text ("12", "3", "40").
    return {
        "model": "gpt-4o-mini",
        "temperature": 0.7,
        "timeout": 30.0,
        "max_tokens": 512 + variant,
        "lines": {"3": "import os", "12": "x = 1", "40": "return x"},
    }


def _four_kb(variant: int) -> dict[str, Any]:
    # A multi-edit: six replacements of a few lines each, about 4 KB.
    block = _CODE_LINE * 3
    edits = [
        {"old_string": f"# step {i}\n{block}", "new_string": f"# step {i}, fixed\n{block}{block}", "replace_all": False}
        for i in range(6)
    ]
    return {"file_path": f"src/shop/pricing_{variant}.py", "edits": edits}


_BIG_TEXT = (_CODE_LINE * (256 * 1024 // len(_CODE_LINE) + 1))[: 256 * 1024]


def _write_file(variant: int) -> dict[str, Any]:
    # A 256 KB file written in one call.
    return {"path": f"src/generated/tables_{variant}.py", "content": _BIG_TEXT}


def _wide(variant: int) -> dict[str, Any]:
    # A flat object of 1,000 keys (a form, a config, a row of a table): strings, integers and booleans.
    def value(i: int) -> Any:
        return f"value {variant}-{i}" if i % 3 == 0 else i * 7 if i % 3 == 1 else i % 2 == 0

    return {f"field_{i:04d}": value(i) for i in range(1000)}


def _wide_lists(variant: int) -> dict[str, Any]:
    # A wide object whose 1,000 values are small lists: {"k0001": [1, "v1", null, true], …}.
    return {f"k{i:04d}": [i, f"v{i}" if i > 1 else f"v{variant}", None, i % 2 == 0] for i in range(1, 1001)}


def _deep(variant: int) -> dict[str, Any]:
    # Objects nested 40 deep (a tree, a nested config), each level a few fields beside its child.
    node: dict[str, Any] = {"leaf": True, "value": variant}
    for level in range(40):
        node = {"level": level, "name": f"node {level}", "tags": ["a", "b"], "child": node}
    return node


def _objects(variant: int) -> dict[str, Any]:
    # A list of 1,000 small objects (rows of a table, search hits) as one argument.
    rows = [{"id": i, "name": f"item {i}", "price": 9.5 + i, "tags": ["new"] if i % 2 else [], "active": i % 3 == 0}
            for i in range(1000)]
    rows[0]["name"] = f"item 0.{variant}"
    return {"rows": rows}


#: name → (description, arguments of variant n); variants differ in one value, so alternating them never repeats.
SHAPES: dict[str, tuple[str, Callable[[int], dict[str, Any]]]] = {
    "small": ("small arguments", _small),
    "floats": ("floats, integer-like keys", _floats),
    "4k": ("4 KB arguments", _four_kb),
    "256k": ("256 KB write_file", _write_file),
    "wide": ("wide dict, 1,000 keys", _wide),
    "wide_lists": ("wide dict of small lists, 1,000 keys", _wide_lists),
    "deep": ("objects nested 40 deep", _deep),
    "objects": ("a list of 1,000 small objects", _objects),
}

_FILES = [f"src/shop/{name}.py" for name in ("cart", "pricing", "orders", "tax", "util", "api", "models", "db")]
_SOURCE = "".join(f"    def method_{i}(self, value):\n        return self.total * value + {i}\n" for i in range(400))
_TEST_OUTPUT = "".join(f"tests/test_pricing.py::test_case_{i} PASSED\n" for i in range(100))


def _call(rnd: random.Random) -> tuple[str, Any, Any]:
    """One tool call of a coding agent: (tool, arguments, result), results of realistic size."""
    kind = rnd.random()
    if kind < 0.30:
        start = rnd.randrange(len(_SOURCE) - 4000)
        return "read_file", {"path": rnd.choice(_FILES)}, _SOURCE[start : start + rnd.randint(300, 3000)]
    if kind < 0.50:
        pattern = rnd.choice(["def apply_discount", "TODO", "import os", "round("])
        hits = "src/shop/pricing.py:41: def apply_discount(price, code):\n" * rnd.randint(1, 6)
        return "grep", {"pattern": pattern, "path": "src", "ignore_case": False}, hits
    if kind < 0.65:
        output = _TEST_OUTPUT[: rnd.randint(100, len(_TEST_OUTPUT))] + "1 failed, 12 passed in 0.84s"
        return "run_tests", {"command": "pytest tests/test_pricing.py -q", "timeout": 120}, output
    if kind < 0.80:
        new = f"round(price * rate, {rnd.randint(1, 4)})"
        return "edit_file", {"path": rnd.choice(_FILES), "old": "round(price * rate, 1)", "new": new}, "ok"
    if kind < 0.90:
        todos = [
            {"content": "fix rounding in apply_discount", "status": "in_progress"},
            {"content": "run the tests", "status": "pending"},
        ]
        return "todo_write", {"todos": todos}, "Updated todo list"
    query = {"query": "python round half even decimal", "max_results": 5, "temperature": 0.7}
    return "web_search", query, "Python rounds half to even. " * rnd.randint(3, 30)


def write_events(path: Path, lines: int, seed: int = 7) -> None:
    """An events file of ``lines`` lines: 4 agents interleaved, step boundaries, and now and then a loop of identical
    calls (most calls draw no reminder)."""
    rnd = random.Random(seed)
    agents = ["main", "sub-search", "sub-tests", "sub-docs"]
    written = 0
    with path.open("w", encoding="utf-8") as out:
        while written < lines:
            agent = rnd.choice(agents)
            if rnd.random() < 0.02:
                out.write(json.dumps({"type": "pre-step", "agent": agent, "userPrompt": rnd.random() < 0.3}) + "\n")
                written += 1
                continue
            tool, arguments, result = _call(rnd)
            run = rnd.choices([1, 2, 3, 5, 8, 12], [90, 5, 3, 1, 0.5, 0.5])[0]
            for _ in range(min(run, lines - written)):
                event = {"type": "post-execute", "agent": agent, "tool": tool, "arguments": arguments,
                         "callId": f"call_{written:07d}", "result": result}
                out.write(json.dumps(event) + "\n")
                written += 1


def _claude_code_lines(rnd: random.Random, session: str, calls: int) -> list[str]:
    """A Claude Code transcript: one assistant line per tool_use block, one user line per tool_result, now and then
    a user prompt, and the 2.1 entry types replay passes over."""
    lines = [json.dumps({"type": "permission-mode", "permissionMode": "default", "sessionId": session})]
    for number in range(calls):
        if rnd.random() < 0.05:
            prompt = {"role": "user", "content": "now run the tests again"}
            lines.append(json.dumps({"type": "user", "sessionId": session, "uuid": f"p{number}", "message": prompt}))
        tool, arguments, result = _call(rnd)
        call_id = f"toolu_{number:06d}"
        use = {"type": "tool_use", "id": call_id, "name": tool, "input": arguments}
        message = {"id": f"msg_{number:06d}", "role": "assistant", "content": [use]}
        lines.append(json.dumps({"type": "assistant", "sessionId": session, "uuid": f"a{number}", "message": message}))
        answer = {"type": "tool_result", "tool_use_id": call_id, "content": result}
        message = {"role": "user", "content": [answer]}
        lines.append(json.dumps({"type": "user", "sessionId": session, "uuid": f"r{number}", "message": message}))
    lines.append(json.dumps({"type": "last-prompt", "lastPrompt": "now run the tests again", "sessionId": session}))
    return lines


def write_sessions(folder: Path, sessions: int, calls: int, seed: int = 11) -> None:
    """``sessions`` session files of about ``calls`` tool calls each under ``folder``, one project folder per ten:
    half Claude Code transcripts, half events files, as a folder run meets them."""
    rnd = random.Random(seed)
    for number in range(sessions):
        project = folder / f"project-{number // 10:02d}"
        project.mkdir(parents=True, exist_ok=True)
        if number % 2:
            session = f"{number:08d}-0000-4000-8000-000000000000"
            text = "\n".join(_claude_code_lines(rnd, session, calls)) + "\n"
            (project / f"{session}.jsonl").write_text(text, encoding="utf-8")
        else:
            write_events(project / f"session-{number:03d}.jsonl", calls, seed=rnd.randrange(1 << 30))
