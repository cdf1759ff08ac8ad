"""An ordering puzzle in the BIG-bench logical_deduction grammar, written for the tests, and a
sound trace of it (each step either states a statement or draws what follows)."""

from __future__ import annotations

# Five books; the only order (left to right): blue, green, white, red, black.
PUZZLE = """The following statements each describe a set of five objects arranged in a fixed order. \
The statements are logically consistent.
- On a shelf, there are five books: a red book, a green book, a blue book, a white book, and a black book.
- The green book is the second from the left.
- The red book is to the right of the white book.
- The black book is the rightmost.
- The white book is to the right of the green book.
Options:
(A) The red book is the leftmost.
(B) The green book is the leftmost.
(C) The blue book is the leftmost.
(D) The white book is the leftmost.
(E) The black book is the leftmost."""

PLAN = "To answer the question, I need to identify the positions of all five books."
GOOD = [
    PLAN,
    "The green book is the second from the left. So from left to right: first can be any book, then "
    "second is the green book, then third, fourth, and fifth can be any book.",
    "The black book is the rightmost. So from left to right: first can be any book, then second is the "
    "green book, then third and fourth can be any book, then fifth is the black book.",
    "The white book is to the right of the green book. So from left to right: first can be the blue book "
    "or the red book, then second is the green book, then third and fourth can be any book, then fifth "
    "is the black book.",
    "The red book is to the right of the white book. So from left to right: first is the blue book, then "
    "second is the green book, then third is the white book, then fourth is the red book, then fifth is "
    "the black book.",
    "According to this ordering, the leftmost book is the blue book. So the answer is (C)",
]


def with_step(k: int, text: str) -> list[str]:
    """``GOOD`` with step ``k`` replaced."""
    return [*GOOD[:k], text, *GOOD[k + 1 :]]
