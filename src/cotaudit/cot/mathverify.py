"""The one module that imports Hugging Face's ``math-verify`` (``pip install 'cotaudit[cot]'``).

:func:`equivalent` compares a final answer with a gold answer the way the field does, with
three guards around the library:

- Only :class:`math_verify.LatexExtractionConfig` is used. Its expression extractor
  (``ExprExtractionConfig``) hands text to SymPy's ``parse_expr``, which calls ``eval``; no
  untrusted text may reach that.
- Time is bounded: on the main thread math-verify's own ``signal.alarm`` deadline is used,
  sized from :func:`cotaudit.limits.remaining`; off the main thread (where signals cannot be
  armed) only short answers without powers or factorials are compared, the rest is "not
  compared".
- Its known false "equal" verdicts (huggingface/Math-Verify#14: ``1/2004!`` vs ``1/2006!``,
  ``1/2^99`` vs ``1/2^98``; numeric tolerance on tiny values) are caught: when both sides are
  constants, an "equal" must also be exactly equal (``(a - b).is_zero`` is not ``False``).

Returns ``True`` / ``False``, or ``None`` when the answers could not be compared.
"""

from __future__ import annotations

import importlib.util
import threading
from typing import Any

import cotaudit.limits as limits

INSTALL_HINT = "pip install 'cotaudit[cot]'  (math-verify)"
MAX_ANSWER_CHARS = 2000
MAX_OFF_MAIN_CHARS = 100


def available() -> bool:
    """Whether math-verify can be imported here (no import is done)."""
    return importlib.util.find_spec("math_verify") is not None


def _wrap(text: str) -> str:
    t = text.strip()
    if "$" in t or "\\boxed" in t or "\\(" in t or "\\[" in t:
        return t
    return f"${t}$"


def _timeout_s() -> int | None:
    if threading.current_thread() is not threading.main_thread():
        return None
    left = limits.remaining(5.0)
    return max(1, int(left if left is not None else 5.0))


def equivalent(gold: str, answer: str) -> bool | None:
    """Does ``answer`` state the same mathematical object as ``gold``? (see the module doc)"""
    if not available() or len(gold) > MAX_ANSWER_CHARS or len(answer) > MAX_ANSWER_CHARS:
        return None
    timeout = _timeout_s()
    if timeout is None and (
        max(len(gold), len(answer)) > MAX_OFF_MAIN_CHARS or any(c in gold + answer for c in "^!")
    ):
        return None
    from math_verify import LatexExtractionConfig, parse, verify

    config = [LatexExtractionConfig()]
    try:
        g = parse(_wrap(gold), extraction_config=config, parsing_timeout=timeout, fallback_mode="no_fallback")
        a = parse(
            _wrap(answer), extraction_config=config, parsing_timeout=timeout, fallback_mode="no_fallback"
        )
        if not g or not a:
            return None
        same = bool(verify(g, a, timeout_seconds=timeout))
    except Exception:  # math-verify raises on odd input (TypeError, ValueError, its timeouts)
        return None
    if same and not _exactly_equal(g[0], a[0]):
        return False
    return same


def _exactly_equal(g: Any, a: Any) -> bool:
    """``False`` only when both are constants whose difference SymPy proves non-zero."""
    try:
        if getattr(g, "free_symbols", None) or getattr(a, "free_symbols", None):
            return True
        if not (getattr(g, "is_number", False) and getattr(a, "is_number", False)):
            return True
        return (g - a).is_zero is not False
    except Exception:
        return True
