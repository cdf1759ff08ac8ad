"""V-37 … V-40: the deterministic formalisers — round trip, encodings, both semantics."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cotaudit import vericot
from cotaudit.vericot.formalizers import formalize_step, prontoqa, proofwriter
from cotaudit.vericot.formalizers.ast import VAR, Atom, Fact, ParseFailure, Rule, to_smt

ENTS = st.sampled_from([*proofwriter.NAMES, *(f"the_{a.replace(' ', '_')}" for a in proofwriter.ANIMALS)])
ADJ = st.sampled_from(sorted(proofwriter.ADJECTIVES))
VERB = st.sampled_from(proofwriter.VERBS)


def _atom(subject: st.SearchStrategy[str], obj: st.SearchStrategy[str]) -> st.SearchStrategy[Atom]:
    unary = st.builds(lambda s, a, p: Atom(a, (s,), p), subject, ADJ, st.booleans())
    binary = st.builds(lambda s, v, o, p: Atom(v, (s, o), p), subject, VERB, obj, st.booleans())
    return st.one_of(unary, binary)


PW_FACT = st.builds(Fact, _atom(ENTS, ENTS))
PW_RULE = st.builds(
    lambda cs, c: Rule(tuple(cs), c),
    st.lists(_atom(st.just(VAR), st.one_of(ENTS, st.just(VAR))), min_size=1, max_size=3),
    _atom(st.one_of(ENTS, st.just(VAR)), st.one_of(ENTS, st.just(VAR))),
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(PW_FACT, PW_RULE))
def test_proofwriter_round_trip(ast: Fact | Rule) -> None:
    assert proofwriter.parse_sentence(proofwriter.realize(ast)) == ast


# The open lexicon (V-39, issue 19): any noun phrase, adjective, proper name or numeral.
NOUN = st.sampled_from(
    ["yumpus", "dumpus", "blorpus", "heron", "sea otter", "prime number", "mersenne prime", "café", "x-ray"]
)
ADJECTIVE = st.sampled_from(["sour", "red", "wooden", "luminous", "six-legged", "warm-blooded", "naïve"])
NAME = st.sampled_from(["max", "alex", "mary ann", "31", "8191", "zoë", "o'neill", "ōtani"])


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.builds(lambda n, w, p: Fact(Atom(w, (n,), p, noun=True)), NAME, NOUN, st.booleans()),
        st.builds(lambda n, w, p: Fact(Atom(w, (n,), p)), NAME, ADJECTIVE, st.booleans()),
        st.builds(
            lambda c, w, p: Rule((Atom(c, (VAR,), noun=True),), Atom(w, (VAR,), p, noun=True)),
            NOUN,
            NOUN,
            st.booleans(),
        ),
        st.builds(
            lambda c, w, p: Rule((Atom(c, (VAR,), noun=True),), Atom(w, (VAR,), p)),
            NOUN,
            ADJECTIVE,
            st.booleans(),
        ),
    )
)
def test_prontoqa_round_trip(ast: Fact | Rule) -> None:
    assert prontoqa.parse_sentence(prontoqa.realize(ast)) == ast


def test_proofwriter_shapes() -> None:
    cases = {
        "Bob is not big.": Fact(Atom("big", ("bob",), False)),
        "The bald eagle chases the cat.": Fact(Atom("chase", ("the_bald_eagle", "the_cat"))),
        "The dog does not see Bob.": Fact(Atom("see", ("the_dog", "bob"), False)),
        "All quiet, red things are not big.": Rule(
            (Atom("quiet", (VAR,)), Atom("red", (VAR,))), Atom("big", (VAR,), False)
        ),
        "If someone is big and not red then they are cold.": Rule(
            (Atom("big", (VAR,)), Atom("red", (VAR,), False)), Atom("cold", (VAR,))
        ),
        "If Dave is smart and Dave is kind then Dave is quiet.": Rule(
            (Atom("smart", ("dave",)), Atom("kind", ("dave",))), Atom("quiet", ("dave",))
        ),
    }
    for text, ast in cases.items():
        assert proofwriter.parse_sentence(text) == ast, text


def test_proofwriter_unknown_word_names_the_token() -> None:
    r = proofwriter.parse_sentence("Bob is gigantic.")
    assert isinstance(r, ParseFailure) and r.token == "gigantic"
    assert isinstance(proofwriter.parse_sentence("Bob is big"), ParseFailure)


def test_encodings_and_semantics() -> None:
    rule = proofwriter.parse_sentence("If something is big then it is not red.")
    assert isinstance(rule, Rule)
    assert to_smt(rule).smt == "(assert (forall ((x Ent)) (=> (p_big x) (not (p_red x)))))"
    assert to_smt(rule, "proofwriter").smt == "(assert (forall ((x Ent)) (=> (p_big x) (p_not_red x))))"
    ground = to_smt(rule, "classical", "ground", ("bob", "anne"))
    assert (
        ground.smt
        == "(assert (=> (p_big e_anne) (not (p_red e_anne)))) (assert (=> (p_big e_bob) (not (p_red e_bob))))"
    )
    fact = proofwriter.parse_sentence("Bob is not big.")
    assert isinstance(fact, Fact)
    pw = to_smt(fact, "proofwriter")
    assert (pw.smt, pw.negation_smt) == ("(assert (p_not_big e_bob))", "(assert (p_big e_bob))")
    assert to_smt(fact).negation_smt is None


def test_proofwriter_unseen_adjective_is_untranslatable() -> None:
    """V-52, U in ProofWriter: a closed lexicon makes an unseen word untranslatable."""
    t = {
        "id": "u",
        "context": {"question": "Bob is big."},
        "steps": [{"id": "s1", "text": "Bob is gigantic."}],
    }
    r = vericot.verify(t, formalizer="proofwriter")
    s = r.details["steps"][0]
    assert s["status"] == "untranslatable" and "gigantic" in s["detail"]
    near = {"id": "u", "context": {"question": "Bob is big."}, "steps": [{"id": "s1", "text": "Bob is big."}]}
    assert vericot.verify(near, formalizer="proofwriter").details["steps"][0]["status"] != "untranslatable"


def test_prontoqa_unseen_predicate_is_ungrounded() -> None:
    sf = formalize_step(prontoqa, "s1", "Max is a blorpus.", "classical")
    assert sf.smt == "(assert (p_blorpus e_max))"


def test_pre_formalized_undeclared_symbol_is_parse_error() -> None:
    t = {
        "id": "u",
        "context": {"question": "q"},
        "steps": [{"id": "s1", "text": "Max is a blorpus."}],
        "formalization": {
            "vocabulary": "(declare-sort Ent 0) (declare-const e_max Ent)",
            "steps": [{"step_id": "s1", "smt": "(assert (p_blorpus e_max))"}],
        },
    }
    s = vericot.verify(t).details["steps"][0]
    assert (s["status"], s["reason"]) == ("untranslatable", "parse_error")


def test_negate_text() -> None:
    assert prontoqa.negate_text("Max is a dumpus.") == "Max is not a dumpus."
    assert prontoqa.negate_text("Tumpuses are not sour.") == "Tumpuses are sour."
