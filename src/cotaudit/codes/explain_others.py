"""Explanations of the vericot, cot and cross-engine (COTAUDIT_) codes."""

from cotaudit.codes.explain_model import Explanation, x

_VC = "docs/vericot.md"

CORE_EXPLAIN: tuple[Explanation, ...] = (
    x(
        "COTAUDIT_W001",
        "Every input is checked under a wall-time budget (--time-limit, default 60 s). An input that "
        "runs past it is stopped and reported abstain: nothing about it was decided, which is not "
        "a pass and not a fail.",
        "`cotaudit check --time-limit 0.001 examples/te/O_parametric.te` (a symbolic trace)",
        "`cotaudit check examples/te/O_parametric.te` (the default budget)",
        "Raise --time-limit (or time-limit in [tool.cotaudit], per engine in [engine.NAME]) for "
        "inputs that are slow by nature, or split the input.",
    ),
    x(
        "COTAUDIT_W002",
        "Every input is checked under a memory budget (--memory-limit, default 2048 MiB of growth). "
        "An input that needs more is reported abstain, undecided.",
        "`cotaudit check --memory-limit 1 big.kb` (a knowledge base whose closure is large)",
        "`cotaudit check big.kb` (the default budget)",
        "Raise --memory-limit, or make the input smaller.",
    ),
)

VERICOT_EXPLAIN: tuple[Explanation, ...] = (
    x(
        "VC_E001",
        "The step's formula is refuted: the knowledge base, or the premises accepted so far, entail "
        "its negation (z3 finds the set unsatisfiable; the unsat core is the evidence).",
        "premises 'Sara is a student', 'every student is enrolled'; step 'Sara is not enrolled'",
        "the same premises; step 'Sara is enrolled'",
        "Correct the step, or the premise it contradicts (the evidence lists the core).",
    ),
    x(
        "VC_E002",
        "No consistent set of accepted premises entails the step: it may be true, but the trace "
        "gave no grounds for it.",
        "premises 'Sara is a student'; step 'Sara is enrolled' (no rule links the two)",
        "add the premise 'every student is enrolled'",
        "State the premise the step relies on, or drop the step.",
    ),
    x(
        "VC_E003",
        "The step could not be turned into a usable formula: the formula does not parse, uses a "
        "forbidden command, conflicts with the vocabulary, is a tautology, or the formaliser gave up.",
        "a pre-formalised step whose formula is `(assert (forall ...` cut off mid-way",
        "the same step with a complete SMT-LIB formula over the declared vocabulary",
        f"Fix the formula (see {_VC}, formats) or let the formaliser retry.",
    ),
    x(
        "VC_E004",
        "The given premises contradict each other, so anything follows from them: every entailed "
        "step would be vacuous. The core of the inconsistency is listed.",
        "premises 'Sara is a student' and 'Sara is not a student'",
        "either premise alone",
        "Remove or correct one of the premises named in the core.",
    ),
    x(
        "VC_E005",
        "The .vcot.json input is not valid JSON, violates the schema, breaches a limit, or its "
        "shared formalisation cannot be loaded; nothing is checked.",
        '{"context": "...", "steps": "not a list"}',
        '{"context": "...", "steps": [{"id": "s1", "text": "..."}]}',
        f"Fix the file per the schema in {_VC}.",
    ),
    x(
        "VC_W001",
        "The solver could not decide the step (timeout, budget, a premise of unknown consistency), "
        "or the step rests on an earlier step nobody could check. Unknown is its own verdict "
        "(abstain), never pass or fail.",
        "a step whose entailment needs a quantifier instantiation z3 does not find within the budget",
        "the same step with the instance stated as a premise",
        "Raise the solver budget, or state the intermediate facts explicitly.",
    ),
    x(
        "VC_W002",
        "The step follows, but only through an earlier step that failed and was assumed to go on.",
        "step 2 entailed only by step 1, which was ungrounded",
        "step 1 fixed (grounded), so step 2 rests on accepted premises",
        "Fix the earlier step; this one then needs nothing.",
    ),
    x(
        "VC_W003",
        "No formaliser was available for a raw step (no model configured, a replay miss, the call "
        "budget spent), so the step is unknown.",
        "a raw chain of thought checked with no COTAUDIT_LLM_* settings",
        "the same chain with a model configured, or pre-formalised steps",
        "Configure a model (docs/llm.md) or pre-formalise the steps.",
    ),
)

_BAKERY = "Step 1: 3 + 4 = {}.\nStep 2: So the answer is {}.\n"

COT_EXPLAIN: tuple[Explanation, ...] = (
    x(
        "COT_E001",
        "An arithmetic claim in a step (`a op b = c`) is recomputed exactly; a stated result that is "
        "not the exact value (beyond plain rounding) is reported.",
        _BAKERY.format(8, 8),
        _BAKERY.format(7, 7),
        "Correct the stated result; the evidence gives the exact value.",
        is_input=True,
    ),
    x(
        "COT_E002",
        "A task replayer (BIG-Bench Mistake tasks) re-played the step and found a state, placement, "
        "ordering or symbol the task's rules contradict.",
        "a Dyck-language step that closes ')' when the stack top is '['",
        "the same step closing ']'",
        "Correct the step the replay names.",
    ),
    x(
        "COT_E003",
        "The chain's final answer contradicts the gold answer given with it.",
        'a record {"text": "... The answer is 70", "gold": "72"}',
        'the same record with gold "70"',
        "Fix the reasoning that led to the answer.",
    ),
    x(
        "COT_E004",
        "The input is not a chain of thought the engine can read: a malformed record, no steps, binary data.",
        "an empty .txt file",
        "a .txt file with one step per line",
        "Give the chain as text, one step per line or per 'Step N:'.",
    ),
    x(
        "COT_W001",
        "The input or a step is over a size limit; the part beyond it was not checked.",
        "a 10 MB chain of thought",
        "the same chain under the limit (docs/cot.md)",
        "Check shorter chains, or split them.",
    ),
    x(
        "COT_W002",
        "An arithmetic claim could not be evaluated exactly within the limits (a huge power); it "
        "is left unchecked rather than guessed.",
        "Step 1: 9^9^9 = 1",
        "Step 1: 9^3 = 729",
        "Nothing to fix unless the claim matters; then state it in smaller parts.",
    ),
    x(
        "COT_W003",
        "A gold answer was given but no final answer could be extracted from the chain.",
        'a record with gold "7" whose chain never says "the answer is ..."',
        'the same chain ending "The answer is 7."',
        "End the chain with an explicit final answer.",
    ),
    x(
        "COT_W004",
        "The final and gold answers could not be compared: neither parses as a number or "
        "expression, or math-verify is not installed.",
        'gold "seven apples", answer "7"',
        'gold "7", answer "7"',
        "Give numeric gold answers, or pip install 'cotaudit[cot]' for math-verify.",
    ),
    x(
        "COT_I001",
        "Coverage: how many steps carried a claim the engine could check mechanically. Information; "
        "low coverage means the verdict says little.",
        _BAKERY.format(7, 7),
        "(every report has it; there is no near miss)",
        "Nothing to fix.",
    ),
    x(
        "COT_I002",
        "The final answer matches the gold answer.",
        'a record with gold "7" ending "The answer is 7."',
        'the same record with gold "8" (COT_E003 instead)',
        "Nothing to fix.",
    ),
    x(
        "COT_I003",
        "A stated result differs from the exact value only within its displayed rounding "
        "(10 / 3 = 3.33); accepted, and noted.",
        "Step 1: 10 / 3 = 3.33.\nThe answer is 3.33.\n",
        "Step 1: 10 / 2 = 5.\nThe answer is 5.\n",
        "Nothing to fix.",
        is_input=True,
    ),
    x(
        "COT_I004",
        "A stated result is near the exact value but outside plain rounding (a truncation, a unit "
        "conversion, a running total); it is left unchecked rather than called wrong.",
        "Step 1: 20% of 36 = 7.2, so about 7 muffins.",
        "Step 1: 20% of 36 = 7.2 muffins.",
        "State the exact value, or the rounding you applied.",
    ),
)
