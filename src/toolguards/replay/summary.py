"""``toolguards replay --summary --format json``: the summary as one JSON document, for machines.

Its shape (every count an integer; ``model`` null where the format names none; ``cost`` null where no usage was
recorded; the dollar figures null without a price for any of the loops' models)::

    {
      "sessions": 2, "calls": 21, "agents": 2, "reminders": 3,
      "reminders_by_threshold": [{"guard": "repeat-tool-reminder", "count": 3, "reminders": 2}, ...],
      "tools": {"run_tests": {"calls": 9, "runs": {"6": 1, "1": 3}, "reminders": {"3": 1, "5": 1}}, ...},
      "records_not_read": [{"format": "claude-code", "type": "made-up", "count": 3, "first": "path:41"}],
      "skipped_lines": 0, "failed_inputs": 0,
      "outcomes": [{"guard": "repeat-tool-reminder", "template": "first", "tool": "run_tests", "model": null,
                    "delivered": false, "reminders": 2, "changed": 1, "repeated": 1, "ended": 0, "followed": 3}],
      "cost": {"tokens": {"input": 91000, "output": 2300},
               "tokens_in_loops": {"input": 40000, "output": 900},
               "tokens_after_reminder": {"input": 21000, "output": 400},
               "dollars_in_loops": 0.1335, "dollars_after_reminder": 0.069,
               "tools": {"run_tests": {"tokens_in_loops": {...}, "tokens_after_reminder": {...},
                                       "dollars_in_loops": 0.1335, "dollars_after_reminder": 0.069}}}
    }

``outcomes`` has a row per (guard, template, tool, model, delivered), sorted: ``delivered`` true for the reminders the
sessions themselves delivered, false for the guard's would-fire points in sessions where it delivered none (the
control); ``followed`` sums the identical calls that followed (``replay.delivered`` has the definitions).
"""

from __future__ import annotations

from typing import Any

from .delivered import Followups, Tokens
from .stats import Totals

__all__ = ["followup_text", "outcome_rows", "share", "summary_document"]


def _dollars(tokens: Tokens) -> float | None:
    return round(tokens.dollars, 6) if tokens.priced else None


def _cost(found: Followups) -> dict[str, Any] | None:
    if not found.usage:
        return None
    tools = {
        tool: {"tokens_in_loops": tokens.to_json(),
               "tokens_after_reminder": found.tools_after_reminder[tool].to_json(),
               "dollars_in_loops": _dollars(tokens),
               "dollars_after_reminder": _dollars(found.tools_after_reminder[tool])}
        for tool, tokens in sorted(found.tools_in_loops.items())
    }
    return {"tokens": found.tokens.to_json(), "tokens_in_loops": found.in_loops.to_json(),
            "tokens_after_reminder": found.after_reminder.to_json(), "dollars_in_loops": _dollars(found.in_loops),
            "dollars_after_reminder": _dollars(found.after_reminder), "tools": tools}


def outcome_rows(found: Followups) -> list[dict[str, Any]]:
    """The outcome rows, sorted by guard, template, tool, model (none first) and delivered first."""
    def order(item: Any) -> Any:
        (guard, template, tool, model, delivered), _ = item
        return guard, template, tool, model or "", not delivered

    return [{"guard": guard, "template": template, "tool": tool, "model": model, "delivered": delivered,
             "reminders": row.reminders, "changed": row.changed, "repeated": row.repeated, "ended": row.ended,
             "followed": row.followed}
            for (guard, template, tool, model, delivered), row in sorted(found.rows.items(), key=order)]


def summary_document(totals: Totals, found: Followups) -> dict[str, Any]:
    """The summary's figures, the outcome rows and the cost, as one JSON-ready mapping."""
    by_threshold: dict[tuple[str, int], int] = {}
    for stats in totals.tools.values():
        for key, n in stats.reminders.items():
            by_threshold[key] = by_threshold.get(key, 0) + n
    tools = {
        tool: {"calls": stats.calls,
               "runs": {str(length): n for length, n in sorted(stats.runs.items(), reverse=True)},
               "reminders": {str(count): n for (_, count), n in sorted(stats.reminders.items())}}
        for tool, stats in sorted(totals.tools.items(), key=lambda item: (-item[1].calls, item[0]))
    }
    unread = [{"format": fmt, "type": label, "count": entry.count, "first": f"{entry.path}:{entry.line}"}
              for (fmt, label), entry in sorted(totals.unread.items(), key=lambda item: (-item[1].count, item[0]))]
    return {
        "sessions": totals.sessions, "calls": totals.calls, "agents": totals.agent_count,
        "reminders": totals.reminder_count(),
        "reminders_by_threshold": [{"guard": guard, "count": count, "reminders": n}
                                   for (guard, count), n in sorted(by_threshold.items())],
        "tools": tools, "records_not_read": unread, "skipped_lines": totals.skipped, "failed_inputs": totals.failed,
        "outcomes": outcome_rows(found), "cost": _cost(found),
    }


def share(part: int, whole: int) -> str:
    """``part/whole (NN%)``: a share never without its n."""
    return f"{part}/{whole} ({round(100 * part / whole)}%)" if whole else f"{part}/0"


def _tokens(tokens: Tokens) -> str:
    money = f", ${tokens.dollars:.4f}" if tokens.priced else ""
    return f"{tokens.input} in / {tokens.output} out{money}"


def followup_text(found: Followups) -> str:
    """The text lines of ``--summary`` after the per-tool figures: each outcome row with its shares, and the cost."""
    lines = []
    rows = outcome_rows(found)
    if rows:
        lines += ["", "after the reminder (of the reminders: changed / repeated / ended; delivered = in the session, "
                      "not delivered = the guard's would-fire points where it delivered none):"]
        for row in rows:
            n = row["reminders"]
            model = f" · {row['model']}" if row["model"] else ""
            lines.append(
                f"  {row['guard']}/{row['template']} · {row['tool']}{model} · "
                f"{'delivered' if row['delivered'] else 'not delivered'}: changed {share(row['changed'], n)}, "
                f"repeated {share(row['repeated'], n)}, ended {share(row['ended'], n)}; {row['followed']} identical "
                f"call{'s' if row['followed'] != 1 else ''} followed"
            )
    if found.usage:
        lines += ["", f"tokens: {_tokens(found.tokens)} in all; in loops {_tokens(found.in_loops)}; after the "
                      f"first reminder {_tokens(found.after_reminder)}"]
        for tool, tokens in sorted(found.tools_in_loops.items()):
            lines.append(f"  {tool}: in loops {_tokens(tokens)}; after the first reminder "
                         f"{_tokens(found.tools_after_reminder[tool])}")
    return "\n".join(lines) + "\n" if lines else ""
