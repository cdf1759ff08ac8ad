"""Explanations of the type6 codes: most examples are annotated traces (``.t6``) with a near miss
that differs in one line (the pairs of ``examples/type6``); a test runs both through type6."""

from cotaudit.codes.explain_model import Explanation, x

_OK = "T  q      : Is 2 even?\nT  p1     : 2 is divisible by 2.\nT  THEN a : So 2 is even.\n"
_PRIME = (
    "T  q       : Is 10 a prime number?\nT  p1      : 10 is even,\nT  AND p2  : and it is greater than 2,\n"
    "Uk THEN p3 : so it has a divisor other than 1 and itself.\n"
)
_ALIBI = "T  q         : Did the suspect have an alibi?\nT  K NOT p1  : I know the suspect was not at home at 9.\nUk R         : Wait, let me re-check the timeline.\nT  p2        : The doorbell camera shows him entering at 8:55.\n"
_AGE = "T  p2    : Cosmology estimates about 13.8 billion years.\nT  THEN a : So it is about 13.8 billion years old.\n"
_FIX_INPUT = "Correct the line the diagnostic names; see docs/type6.md for the line format."

TYPE6_EXPLAIN: tuple[Explanation, ...] = (
    x(
        "T6_E001",
        "Each statement line starts with its annotation: T (true), F (false), Uc (uncertain) or "
        "Uk (unknowable). Anything else makes the trace invalid; nothing is analysed.",
        "T  q      : Is 2 even?\nX  p1     : 2 is divisible by 2.\nT  THEN a : So 2 is even.\n",
        _OK,
        "Use one of T, F, Uc, Uk as the first token of the line.",
        is_input=True,
    ),
    x(
        "T6_E002",
        "A statement line is `ANNOTATION [OPERATORS] PROPOSITION : surface text`; without the colon "
        "the surface text cannot be told from the proposition.",
        "T  q      : Is 2 even?\nT  p1       2 is divisible by 2.\nT  THEN a : So 2 is even.\n",
        _OK,
        "Put ' : ' between the proposition and the text.",
        is_input=True,
    ),
    x(
        "T6_E003",
        "Propositions are symbols (q, a, p1, p_2 ...); punctuation inside one is refused.",
        "T  q      : Is 2 even?\nT  p-1    : 2 is divisible by 2.\nT  THEN a : So 2 is even.\n",
        _OK,
        "Name propositions with letters, digits and underscores.",
        is_input=True,
    ),
    x(
        "T6_E004",
        "A trace needs at least one statement and a sink (the answer a, or an inferable last "
        "statement) for the analysis to have a target.",
        "T  q      : Is 2 even?\n",
        _OK,
        "Annotate at least the question q and the answer a.",
        is_input=True,
    ),
    x(
        "T6_E005",
        "The trace is over an input limit (bytes, statements, symbols; docs/type6.md), so it is not "
        "analysed at all rather than half-analysed.",
        "a .t6 file of 200,000 statements",
        "the same reasoning within the limits (split it into several traces)",
        "Split the trace, or raise the limit in the type6 Config when you trust the input.",
    ),
    x(
        "T6_E006",
        "The JSON / JSONL form of a trace does not match its schema (a missing field, a wrong type).",
        '{"statements": [{"annotation": "T"}]}  (no proposition, no text)',
        '{"statements": [{"annotation": "T", "proposition": "q", "text": "Is 2 even?"}, ...]}',
        "Convert from the .t6 form with `cotaudit type6 convert TRACE.t6 --to json` and edit that.",
    ),
    x(
        "T6_E101",
        "The trace knows a proposition (K) and later knows its negation, with no revision "
        "licensed in between (a re-check R followed by a derivation of the new value).",
        _ALIBI
        + "T  p3        : The neighbour heard a car.\nT  K p1      : I now know he was at home at 9.\nT  THEN a    : So he had an alibi.\n",
        _ALIBI
        + "T  THEN p1   : So he was at home at 9.\nT  K p1      : I now know he was at home at 9.\nT  THEN a    : So he had an alibi.\n",
        "Derive the new value (THEN) after the re-check before committing to it, or drop the first claim.",
        is_input=True,
    ),
    x(
        "T6_E102",
        "Back-propagation through the implications made a constraint conflict: what the premises "
        "force disagrees with what the trace concludes.",
        _PRIME + "F  THEN a  : So 10 is prime.\n",
        _PRIME + "T  THEN a  : So 10 is composite.\n",
        "Make the conclusion follow from the premises as annotated (or fix the premise annotations).",
        is_input=True,
    ),
    x(
        "T6_E103",
        "A commitment (K or B) annotated Uc: a statement cannot be both held and uncertain.",
        "T  q     : How old is the universe?\nUc B p1  : I know the exact age of the universe to the day.\n"
        + _AGE,
        "T  q     : How old is the universe?\nUk B p1  : I know the exact age of the universe to the day.\n"
        + _AGE,
        "Annotate what the sentence really does: drop the B/K operator, or the Uc.",
        is_input=True,
    ),
    x(
        "T6_E104",
        "A knowledge claim (K) annotated Uk: claiming to know the unknowable.",
        "T  q     : How old is the universe?\nUk K p1  : I know the exact age of the universe to the day.\n"
        + _AGE,
        "T  q     : How old is the universe?\nUk B p1  : I know the exact age of the universe to the day.\n"
        + _AGE,
        "Weaken the claim to a belief (B) or drop it.",
        is_input=True,
    ),
    x(
        "T6_E105",
        "No constraint derives the answer: the trace states it without any THEN that leads there.",
        "T  q    : Which planet is the largest?\nT  p1   : There are eight planets.\nT  K p2 : I know Jupiter is a gas giant.\nT  a    : The answer is Jupiter.\n",
        "T  q    : Which planet is the largest?\nT  p1   : There are eight planets.\nT  K p2 : I know Jupiter is a gas giant.\nT  THEN a : So the answer is Jupiter.\n",
        "Derive the answer (THEN a) from the statements that support it.",
        is_input=True,
    ),
    x(
        "T6_E201",
        "A doubted statement (p?) on the implication chain to the answer was never resolved, so the "
        "answer rests on doubt.",
        "T  q      : Is the code thread-safe?\nT  p1     : The counter is guarded by a lock.\nT  p1?    : Or is it?\nT  THEN a : So the code is thread-safe.\n",
        "T  q      : Is the code thread-safe?\nT  p1     : The counter is guarded by a lock.\nT  THEN a : So the code is thread-safe.\n",
        "Resolve the doubt (re-check, then restate p1) before concluding, or conclude less.",
        is_input=True,
    ),
    x(
        "T6_E202",
        "An unknowable (Uk) statement sits on the implication chain to the answer: the conclusion "
        "depends on something the trace itself marks as unknowable.",
        "T  q      : Is the test result usable?\nUk p1     : The sample might have been contaminated.\nT  THEN a : So the result must be discarded.\n",
        "T  q      : Is the test result usable?\nT  p1     : The sample was contaminated.\nT  THEN a : So the result must be discarded.\n",
        "Base the answer on statements the trace can establish, or answer that it cannot be decided.",
        is_input=True,
    ),
    x(
        "T6_W201",
        "A doubt left unresolved off the implication chain: it does not touch the answer, so it "
        "is a warning only.",
        "T  q      : Is 2 even?\nT  p2     : 3 is odd.\nT  p2?    : Or is it?\nT  p1     : 2 is divisible by 2.\nT  THEN a : So 2 is even.\n",
        "T  q      : Is 2 even?\nT  p2     : 3 is odd.\nT  p1     : 2 is divisible by 2.\nT  THEN a : So 2 is even.\n",
        "Resolve or remove the stray doubt.",
        is_input=True,
    ),
    x(
        "T6_W202",
        "An unknowable statement off the implication chain: harmless to the answer, noted.",
        "T  q      : Is 2 even?\nUk p2     : Nobody knows the next prime gap.\nT  p1     : 2 is divisible by 2.\nT  THEN a : So 2 is even.\n",
        "T  q      : Is 2 even?\nT  p1     : 2 is divisible by 2.\nT  THEN a : So 2 is even.\n",
        "Drop statements that do not serve the answer.",
        is_input=True,
    ),
    x(
        "T6_W301",
        "Two beliefs (B) with opposite values and no licensed revision between them.",
        "T  q         : Will it rain tomorrow?\nT  B p1      : I think the forecast says rain.\nT  p2        : The pressure is dropping.\nT  B NOT p1  : I think the forecast does not say rain.\nT  THEN a    : So it will probably stay dry.\n",
        "T  q         : Will it rain tomorrow?\nT  B p1      : I think the forecast says rain.\nT  p2        : The pressure is dropping.\nT  B p1      : I still think it says rain.\nT  THEN a    : So it will probably stay dry.\n",
        "Re-check (R) and derive the changed belief, or keep one value.",
        is_input=True,
    ),
    x(
        "T6_W302",
        "Opposite values on one proposition where one side is a bare statement, not licensed by a revision.",
        "T  q      : Is the shop open today?\nT  p1     : The shop opens on weekdays.\nT  p2     : Today is a public holiday.\nT  NOT p1 : On holidays the weekday schedule does not apply.\nT  p3     : The hours are posted on the door.\nT  THEN a : So check the door.\n",
        "T  q      : Is the shop open today?\nT  p1     : The shop opens on weekdays.\nT  p2     : Today is a public holiday.\nT  p3     : The hours are posted on the door.\nT  THEN a : So check the door.\n",
        "Use a new proposition for the exception, or revise explicitly (R, then THEN NOT p1).",
        is_input=True,
    ),
    x(
        "T6_W303",
        "Knowledge (K) downgraded to belief (B) without a derivation or licence in between.",
        "T  q      : Is the reactor stable?\nT  K p1   : I know the coolant loop is intact.\nT  p2     : The pumps are running.\nT  B p1   : I believe the coolant loop is intact.\nT  THEN a : So the reactor is stable.\n",
        "T  q      : Is the reactor stable?\nT  K p1   : I know the coolant loop is intact.\nT  p2     : The pumps are running.\nT  THEN a : So the reactor is stable.\n",
        "Say why the certainty dropped (a re-check), or keep the knowledge claim.",
        is_input=True,
    ),
    x(
        "T6_W304",
        "A belief (B) turned into knowledge (K) of the opposite value with no licence.",
        "T  q        : Is the bridge open?\nT  B p1     : I believe the bridge is open.\nT  p2       : Traffic reports mention delays.\nT  K NOT p1 : I know the bridge is closed.\nT  THEN a   : So take the tunnel.\n",
        "T  q        : Is the bridge open?\nT  B p1     : I believe the bridge is open.\nT  p2       : Traffic reports mention delays.\nT  K p1     : I know the bridge is open.\nT  THEN a   : So take the tunnel.\n",
        "Derive the new knowledge from evidence (THEN) after a re-check.",
        is_input=True,
    ),
    x(
        "T6_W305",
        "Consistent paths through the trace end with T on a proposition along one and F along "
        "another: the trace supports both.",
        "T  q      : Is the shop open today?\nT  p1     : The shop opens on weekdays.\nT  p2     : Today is a public holiday.\nT  NOT p1 : On holidays the weekday schedule does not apply.\nT  p3     : The hours are posted on the door.\nT  THEN a : So check the door.\n",
        "T  q      : Is the shop open today?\nT  p1     : The shop opens on weekdays.\nT  p2     : Today is a public holiday.\nT  p3     : The hours are posted on the door.\nT  THEN a : So check the door.\n",
        "Settle the proposition one way before concluding.",
        is_input=True,
    ),
    x(
        "T6_W401",
        "The same commitment restated with nothing but filler between: redundant.",
        "T  q      : Is 2 even?\nT  K p1   : I know 2 is divisible by 2.\nUk N      : Hmm.\nT  K p1   : I know 2 is divisible by 2.\nT  THEN a : So 2 is even.\n",
        "T  q      : Is 2 even?\nT  K p1   : I know 2 is divisible by 2.\nT  p2     : 2 is a natural number.\nT  K p1   : I know 2 is divisible by 2.\nT  THEN a : So 2 is even.\n",
        "Drop the repetition.",
        is_input=True,
    ),
    x(
        "T6_W402",
        "`K p?` right after `K p`: the trace questions its own knowledge claim.",
        "T  q      : Does the lemma hold?\nT  K p1   : I know the lemma holds.\nT  K p1?  : I know I doubt that it holds.\nT  THEN a : So the lemma is true.\n",
        "T  q      : Does the lemma hold?\nT  K p1   : I know the lemma holds.\nT  THEN a : So the lemma is true.\n",
        "Either know it or doubt it; resolve the doubt before going on.",
        is_input=True,
    ),
    x(
        "T6_W403",
        "`B p?` right after `B p`: the trace questions its own belief.",
        "T  q      : Does the lemma hold?\nT  B p1   : I believe the lemma holds.\nT  B p1?  : I believe I doubt that it holds.\nT  THEN a : So the lemma is true.\n",
        "T  q      : Does the lemma hold?\nT  B p1   : I believe the lemma holds.\nT  THEN a : So the lemma is true.\n",
        "Resolve the doubt or drop the belief.",
        is_input=True,
    ),
    x(
        "T6_W404",
        "A constraint's status became unverifiable: one of its inputs is unknowable, so the "
        "implication cannot be checked.",
        "T  q      : Is the test result usable?\nUk p1     : The sample might have been contaminated.\nT  THEN a : So the result must be discarded.\n",
        "T  q      : Is the test result usable?\nT  p1     : The sample was contaminated.\nT  THEN a : So the result must be discarded.\n",
        "Derive from statements with a definite annotation.",
        is_input=True,
    ),
    x(
        "T6_W405",
        "An odd number of NOTs on a connective (AND NOT p2) can be read two ways.",
        "T  q          : What did you see in the garden?\nT  p1         : I saw a dog\nT  AND NOT p2 : and not a cat.\nT  THEN a     : So only a dog was there.\n",
        "T  q          : What did you see in the garden?\nT  p1         : I saw a dog\nT  AND K NOT p2 : and I know there was no cat.\nT  THEN a     : So only a dog was there.\n",
        "Attach the negation to a modal (K NOT p2) or rephrase as a positive proposition.",
        is_input=True,
    ),
    x(
        "T6_W501",
        "An IF was left pending: a second IF, a re-check or the end of the trace came before its THEN.",
        "T  q      : Do we ship today?\nT  IF p1  : If tests pass,\nT  IF p2  : if the review is done,\nT  THEN a : we ship.\n",
        "T  q      : Do we ship today?\nT  IF p1  : If tests pass,\nT  AND p2 : and the review is done,\nT  THEN a : we ship.\n",
        "Join the conditions with AND under one IF, or close each IF with its THEN.",
        is_input=True,
    ),
    x(
        "T6_I502",
        "Consistent paths disagree between Uk and a definite value on a proposition: the trace "
        "under-resolves it. Information only.",
        "T  q      : Is the shop open today?\nT  p1     : The shop opens on weekdays.\nT  p2     : Today is a public holiday.\nUk p1    : On holidays the weekday schedule may not apply.\nT  p3     : The hours are posted on the door.\nT  THEN a : So check the door.\n",
        "T  q      : Is the shop open today?\nT  p1     : The shop opens on weekdays.\nT  p2     : Today is a public holiday.\nT  p3     : The hours are posted on the door.\nT  THEN a : So check the door.\n",
        "Nothing to fix; settle the proposition if the answer should depend on it.",
        is_input=True,
    ),
    x(
        "T6_I001",
        "Opposite values on a proposition, but the change was licensed (a re-check, then a "
        "derivation): a legitimate revision, recorded as information.",
        _ALIBI
        + "T  THEN p1   : So he was at home at 9.\nT  K p1      : I now know he was at home at 9.\nT  THEN a    : So he had an alibi.\n",
        _ALIBI + "T  THEN a    : So he had an alibi.\n",
        "Nothing to fix.",
        is_input=True,
    ),
    x(
        "T6_I002",
        "Back-propagation pinned a Uk target to a definite value (information about the analysis).",
        _PRIME + "T  THEN a  : So 10 is composite.\n",
        "T  q       : Is 10 a prime number?\nT  p1      : 10 is even,\nT  THEN a  : So 10 is composite.\n",
        "Nothing to fix.",
        is_input=True,
    ),
    x(
        "T6_W001",
        "An operator token type6 does not know (MAYBE, PERHAPS) or one in the wrong place; it is ignored.",
        "T  q       : Is the claim supported?\nT  MAYBE p1 : Perhaps the survey supports it.\nT  THEN a  : So the claim is supported.\n",
        "T  q       : Is the claim supported?\nT  B p1    : Perhaps the survey supports it.\nT  THEN a  : So the claim is supported.\n",
        "Use the operators of docs/type6.md (K, B, NOT, AND, OR, IF, THEN, R, N).",
        is_input=True,
    ),
    x(
        "T6_W002",
        "No statement is the question q, so the source of the paths was inferred.",
        "T  p1     : 2 is divisible by 2.\nT  THEN a : So 2 is even.\n",
        _OK,
        "Annotate the question as q.",
        is_input=True,
    ),
    x(
        "T6_W003",
        "No statement is the answer a, so the sink was inferred (the last statement).",
        "T  q      : Is 2 even?\nT  p1     : 2 is divisible by 2.\nT  THEN p2 : So 2 is even.\n",
        _OK,
        "Annotate the answer as a.",
        is_input=True,
    ),
    x(
        "T6_W004",
        "A connective (AND, OR) with no proposition after it.",
        "T  q      : Is 2 even?\nT  p1     : 2 is divisible by 2.\nT  AND    : and by 1.\nT  THEN a : So 2 is even.\n",
        _OK,
        "Give the connective its proposition (AND p2) or drop it.",
        is_input=True,
    ),
    x(
        "T6_W005",
        "An operator (K, B ...) with no target proposition, or a filler line.",
        "T  q      : Is 2 even?\nT  p1     : 2 is divisible by 2.\nT  K      : I know.\nT  THEN a : So 2 is even.\n",
        _OK,
        "Name the proposition the operator applies to.",
        is_input=True,
    ),
    x(
        "T6_W006",
        "THEN with nothing before it to derive from: no constraint is created.",
        "a trace whose first statement after the question is `T THEN p1 : ...` with no antecedent",
        "the same THEN after a premise (`T p0 : ...` first)",
        "State the premises before the THEN.",
    ),
    x(
        "T6_W007",
        "The path set was cut (the path cap K, a budget, or sampling): path-level findings cover "
        "only the paths examined.",
        "a trace with more than 10,000 paths under the default max_paths",
        "the same trace with --max-paths raised above its path count",
        "Raise --max-paths, or accept sampled path findings.",
    ),
    x(
        "T6_W008",
        "Path analysis did not run: no source, or path_mode is off.",
        "`cotaudit type6 verify --path-mode off TRACE.t6`",
        "`cotaudit type6 verify TRACE.t6` (path_mode auto)",
        "Annotate the question q and leave path_mode on.",
    ),
    x(
        "T6_W009",
        "The upstream-search budget for licensing a revision ran out; later derivations are "
        "counted as absent, so a revision may be reported as unlicensed.",
        "a long trace with thousands of revisions of one proposition",
        "the same revisions spread over fewer statements",
        "Shorten the trace or raise the licensing budget in the type6 Config.",
    ),
    x(
        "T6_X001",
        "An unexpected exception inside type6 (a bug). The trace is reported invalid instead of "
        "crashing the run.",
        "(no input is known to produce it)",
        "any trace",
        "Report it with the trace attached.",
    ),
)
