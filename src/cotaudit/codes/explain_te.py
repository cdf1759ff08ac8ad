"""Explanations of the te codes (TE-41): each example is a trace that produces the code, and its
near miss the smallest edit that does not (a test runs both through the linter)."""

from cotaudit.codes.explain_model import Explanation, x

_H = "GIVEN:\n  a := 4\n  b := 6\nGOAL: total\n"

TE_EXPLAIN: tuple[Explanation, ...] = (
    x(
        "TE_E001",
        "A trace has three sections in a fixed order: GIVEN (the inputs), GOAL (what is asked), "
        "then the work, ending with ANS. A missing, repeated or misplaced header makes the rest "
        "unreadable as a derivation, so it is reported first.",
        "GOAL: total\nGIVEN:\n  a := 4\n  b := 6\nEQ[e1]: total = a + b = 10\nANS: total\n",
        _H + "EQ[e1]: total = a + b = 10\nANS: total\n",
        "Put GIVEN first, GOAL second and ANS last, once each; indent GIVEN bindings under GIVEN.",
        is_input=True,
    ),
    x(
        "TE_E002",
        "Every STEP, EQ, CHECK and OPEN line has an ID that later lines refer to; two lines with "
        "one ID make those references ambiguous.",
        "GIVEN:\n  a := 5\n  b := 7\nGOAL: c\nEQ[e1]: c = a + b = 12\nCHECK[e1]: arith: e1.value == 12\nANS: c\n",
        "GIVEN:\n  a := 5\n  b := 7\nGOAL: c\nEQ[e1]: c = a + b = 12\nCHECK[c1]: arith: e1.value == 12\nANS: c\n",
        "Give every line its own ID (e1, e2 ... for EQ, c1 ... for CHECK) and resolve each OPEN once.",
        is_input=True,
    ),
    x(
        "TE_E003",
        "A reference -- a STEP's `from` list, a RESOLVE target, `e1.value` -- must point at an "
        "earlier line of the right kind; a dangling or forward reference cites nothing.",
        "GIVEN:\n  a := 5\nGOAL: d\nSTEP[s1]: double the input (from e7)\nEQ[e1]: d = 2 * a = 10\nANS: d\n",
        "GIVEN:\n  a := 5\nGOAL: d\nSTEP[s1]: double the input (from a)\nEQ[e1]: d = 2 * a = 10\nANS: d\n",
        "Refer only to IDs and names defined above the line; fix the typo or move the line down.",
        is_input=True,
    ),
    x(
        "TE_E004",
        "Every symbol in an expression must be a GIVEN, a parameter or the left side of an earlier "
        "EQ; an undeclared symbol is a value the trace never established.",
        "GIVEN:\n  total := 16\n  eaten := 3\nGOAL: sold\nEQ[e1]: sold = total - eaten - baked = 9\nANS: sold\n",
        "GIVEN:\n  total := 16\n  eaten := 3\n  baked := 4\nGOAL: sold\nEQ[e1]: sold = total - eaten - baked = 9\nANS: sold\n",
        "Declare the symbol under GIVEN (with its value from the problem) or derive it in an EQ first.",
        is_input=True,
    ),
    x(
        "TE_E005",
        "Units are checked exactly: the unit a line declares must equal the unit its expression "
        "computes (m/s times s is m, not miles).",
        "GIVEN:\n  speed := 12 [m/s]\n  time := 600 [s]\nGOAL: d [miles]\nEQ[e1]: d = speed * time = 7200 [miles]\nANS: d [miles]\n",
        "GIVEN:\n  speed := 12 [m/s]\n  time := 600 [s]\nGOAL: d [m]\nEQ[e1]: d = speed * time = 7200 [meters]\nANS: d [m]\n",
        "Declare the unit the expression computes, or convert explicitly (d_mi = d / 1609.344 [m/mile]).",
        is_input=True,
    ),
    x(
        "TE_E006",
        "The linter recomputes every EQ from the trace's own values with exact rationals; a claimed "
        "result that differs from the recomputed one (beyond the declared rounding) is an "
        "arithmetic slip. The message gives both values.",
        "GIVEN:\n  total := 16\n  eaten := 3\n  baked := 4\nGOAL: sold\nEQ[e1]: sold = total - eaten - baked = 8\nANS: sold\n",
        "GIVEN:\n  total := 16\n  eaten := 3\n  baked := 4\nGOAL: sold\nEQ[e1]: sold = total - eaten - baked = 9\nANS: sold\n",
        "Correct the claimed value (the evidence's `expected`), or write ≈ with the digits you mean "
        "when the value is rounded (r = a / 3 ≈ 3.33).",
        is_input=True,
    ),
    x(
        "TE_E007",
        "A CHECK states a claim about earlier values (arith, domain); the linter re-evaluates it "
        "and reports a claim that is false.",
        "GIVEN:\n  a := 4\nGOAL: b\nEQ[e1]: b = a * 2 = 8\nCHECK[c1]: arith: e1.value == 9\nANS: b\n",
        "GIVEN:\n  a := 4\nGOAL: b\nEQ[e1]: b = a * 2 = 8\nCHECK[c1]: arith: e1.value == 8\nANS: b\n",
        "Make the CHECK say what the trace computed, or fix the EQ it checks.",
        is_input=True,
    ),
    x(
        "TE_E008",
        "An OPEN starts a case split that must be closed with RESOLVE[ID]: by ...; an open case "
        "means the trace never said which branch holds.",
        "GIVEN:\n  x := 7\nGOAL: y\nOPEN[o1]: case x > 5\nEQ[e1]: y = x - 5 = 2\nANS: y\n",
        "GIVEN:\n  x := 7\nGOAL: y\nOPEN[o1]: case x > 5\nEQ[e1]: y = x - 5 = 2\nRESOLVE[o1]: by e1\nANS: y\n",
        "Add RESOLVE[o1]: by eN naming the line that settles the case.",
        is_input=True,
    ),
    x(
        "TE_E009",
        "An expression combines quantities whose dimensions cannot combine: adding metres to "
        "seconds, or taking a logarithm of a length.",
        "GIVEN:\n  w := 3 [m]\n  l1 := 4 [m]\n  t := 2 [s]\nGOAL: odd\nEQ[e1]: odd = w * (l1 + t) = 18\nANS: odd\n",
        "GIVEN:\n  w := 3 [m]\n  l1 := 4 [m]\n  l2 := 5 [m]\nGOAL: area [m^2]\nEQ[e1]: area = w * (l1 + l2) = 27 [m^2]\nANS: area [m^2]\n",
        "Add only like quantities; check the units of the GIVEN values against the problem.",
        is_input=True,
    ),
    x(
        "TE_E010",
        "Every non-blank line of a trace is tagged (GIVEN, GOAL, STEP, EQ, CHECK, OPEN, RESOLVE, "
        "ANS); free prose between them is not checkable and is refused.",
        _H + "EQ[e1]: total = a + b = 10\nSo the total is ten.\nANS: total\n",
        _H + "EQ[e1]: total = a + b = 10\nSTEP[s1]: So the total is ten.\nANS: total\n",
        "Put explanations in a STEP line, or delete them.",
        is_input=True,
    ),
    x(
        "TE_E011",
        "ANS must be the value of some EQ: a number no line computed was not derived.",
        _H + "EQ[e1]: total = a + b = 10\nANS: 12\n",
        _H + "EQ[e1]: total = a + b = 10\nANS: 10\n",
        "Answer with the EQ's symbol (ANS: total) or its computed value.",
        is_input=True,
    ),
    x(
        "TE_E012",
        "A hedge inside a tagged line (maybe, hmm, or a wait/actually that corrects the reasoning: "
        "'wait,', 'actually, no') marks a trace that changed its mind mid-way; TE asks for the final "
        "derivation only. The ordinary words are fine: 'they wait for 3 days', 'she actually walks'.",
        "GIVEN:\n  bill := 40\nGOAL: t\nEQ[e1]: t = bill + 6 = 46\nSTEP[s1]: wait, the tip goes on top (from e1)\nANS: t\n",
        "GIVEN:\n  wait_time := 4\nGOAL: t\nEQ[e1]: t = wait_time * 2 = 8\nSTEP[s1]: they wait for the result (from e1)\nANS: t\n",
        "Remove the correction and state the step as settled; an identifier or a word that "
        "merely contains one (wait_time, awaiting) and the word in its ordinary sense are fine.",
        is_input=True,
    ),
    x(
        "TE_E013",
        "The line or its expression does not fit the TE grammar, or uses a construct the safe "
        "evaluator refuses (attribute access, calls outside the whitelist, strings).",
        'GIVEN:\n  a := 2\nGOAL: b\nEQ[e1]: b = __import__("os").system("id")\nANS: b\n',
        "GIVEN:\n  a := 2\nGOAL: b\nEQ[e1]: b = a * 3 = 6\nANS: b\n",
        "Write plain arithmetic over declared symbols and the listed functions (sqrt, log, Sum, ...).",
        is_input=True,
    ),
    x(
        "TE_E014",
        "A size, magnitude or time bound was hit while evaluating (a 10**10**10, a trace over "
        "2,000 lines); the check fails closed rather than guessing.",
        "GIVEN:\n  a := 2\nGOAL: c\nEQ[e1]: c = 10**10**10\nANS: c\n",
        "GIVEN:\n  a := 2\nGOAL: c\nEQ[e1]: c = 10**10 = 10000000000\nANS: c\n",
        "Keep numbers and traces within the documented limits (docs/te.md); split huge traces.",
        is_input=True,
    ),
    x(
        "TE_W001",
        "A CHECK over free parameters (param(...)) or unknown units that the linter cannot decide "
        "either way. It is a warning: the trace still passes, the claim is just unchecked.",
        "GIVEN:\n  n := param(integer, positive)\nGOAL: S\nEQ[e1]: S = n*(n + 1)/2\nCHECK[c1]: domain: is_integer(e1.value)\nANS: S\n",
        "GIVEN:\n  n := param(integer, positive)\nGOAL: S\nEQ[e1]: S = n*(n + 1)/2\nCHECK[c1]: domain: is_positive(e1.value)\nANS: S\n",
        "Give the parameter a concrete value, or state a claim the linter can decide; --ignore "
        "TE_W001 if undecidable claims are expected.",
        is_input=True,
    ),
    x(
        "TE_X001",
        "An unexpected exception inside the linter while it processed one line; the line is "
        "reported instead of the whole trace crashing. No valid trace is meant to produce it.",
        "(no input is known to produce it: every one found so far was fixed and added to the "
        "hostile-input tests)",
        "any trace: the linter handles every str without an internal error",
        "Report it with the trace attached; meanwhile the rest of the trace is still checked.",
    ),
)
