"""The issue-17 completions: a good te trace, a wrong one, the good one in a fence, after a
``<think>`` block, and plain prose — plus a clean trace that computes the wrong quantity."""

from __future__ import annotations

GOOD = (
    "GIVEN:\n  total := 16\n  eaten := 3\n  baked := 4\n  price := 2 [USD]\nGOAL: revenue [USD]\n"
    "STEP[s1]: subtract the eggs used (from total, eaten, baked)\n"
    "EQ[e1]: sold = total - eaten - baked = 9\nCHECK[c1]: arith: e1.value == 9\n"
    "EQ[e2]: revenue = sold * price = 18 [USD]\nANS: revenue [USD]\n"
)
WRONG = GOOD.replace("= 9\n", "= 8\n", 1)  # TE_E006 on line 8
FENCED = "Here is my trace.\n\n```\n" + GOOD + "```\n\nSo Janet makes $18 a day."
THINK = "<think>\nShe has 16 - 3 - 4 = 9 eggs left and sells them at $2: 18.\n</think>\n" + GOOD
PROSE = "Janet sells 16 - 3 - 4 = 9 eggs at $2 each, so she makes $18 every day."
FIVE = [GOOD, WRONG, FENCED, THINK, PROSE]
# Every line checks out, but ANS names the eggs sold (9), not the dollars asked for (18).
WRONG_QUANTITY = GOOD.replace("GOAL: revenue [USD]", "GOAL: sold").replace("ANS: revenue [USD]", "ANS: sold")


def chat(text: str) -> list[dict[str, str]]:
    """TRL's conversational format for one completion."""
    return [{"role": "assistant", "content": text}]
