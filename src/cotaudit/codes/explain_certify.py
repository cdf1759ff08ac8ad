"""Explanations of the certify codes (shared/spec/certify.md). Examples are fragments of a
``.kb`` file (its ``%% units`` and ``%% queries`` sections) against an interface Σ with
predicates ``p/1`` (a source predicate, in the whitelist Ω), ``q/1`` and ``t/1``."""

from cotaudit.codes.explain_model import Explanation, x

_REJ = "The unit is rejected by the gate and not admitted; the rest of the file is still checked."
_DAG = "The derivation is checked by the independent checker, which never trusts the executor."


def _cert(code: str, meaning: str, example: str, near_miss: str, fix: str) -> Explanation:
    return x(code, f"{meaning} {_DAG}", example, near_miss, fix)


def _gate(code: str, meaning: str, example: str, near_miss: str, fix: str) -> Explanation:
    return x(code, f"{meaning} {_REJ}", example, near_miss, fix)


def _abstain(code: str, meaning: str, example: str, near_miss: str, fix: str) -> Explanation:
    return x(
        code,
        f"{meaning} An abstention is not a wrong answer: certify says it cannot certify one "
        "(verdict abstain), and never answers 'no' in its place.",
        example,
        near_miss,
        fix,
    )


CERTIFY_EXPLAIN: tuple[Explanation, ...] = (
    _gate(
        "CERTIFY_E001",
        "A unit does not parse as a fact or rule, or exceeds a load limit.",
        "q(X) :- p(X)",
        "q(X) :- p(X).",
        "Fix the syntax (every unit ends with '.').",
    ),
    _gate(
        "CERTIFY_E002",
        "A rule is unsafe: a variable of the head, of a 'not' or of a calc "
        "literal is not bound by the positive body, so the rule has no finite meaning.",
        "[r1] q(X) :- p(Y).",
        "[r1] q(X) :- p(X).",
        "Bind every head variable in the positive body.",
    ),
    _gate(
        "CERTIFY_E003",
        "Negation as failure through recursion: the program has no stratification.",
        "[r1] q(X) :- p(X), not t(X).\n[r2] t(X) :- p(X), not q(X).",
        "[r1] q(X) :- p(X), not t(X).\n[r2] t(X) :- p(X).",
        "Break the cycle through 'not' (certify.md, stratification).",
    ),
    _gate(
        "CERTIFY_E004",
        "The predicate is not declared in the interface Σ.",
        "r(k1).",
        "p(k1).",
        "Declare the predicate in the interface, or use a declared one.",
    ),
    _gate(
        "CERTIFY_E005",
        "The predicate is used with the wrong number of arguments.",
        "p(k1, k2).",
        "p(k1).",
        "Use the arity the interface declares.",
    ),
    _gate(
        "CERTIFY_E006",
        "An argument does not match its role's type or pattern (or a legend role).",
        "p(K1).  (the role 'item' is ^[a-z][a-z0-9]*$)",
        "p(k1).",
        "Write constants that match the role (see the interface's roles).",
    ),
    _gate(
        "CERTIFY_E007",
        "Strong negation '-' or 'not' is used while the interface's negation is 'none'.",
        "[r1] q(X) :- p(X), not t(X).  (negation: none)",
        "[r1] q(X) :- p(X), t(X).",
        "Enable negation in the interface, or rephrase without it.",
    ),
    _gate(
        "CERTIFY_E008",
        "A grounder (a query-scoped, model-backed step) proposed a rule; grounders may only propose facts.",
        "a grounding vote containing '[g1] q(X) :- p(X).'",
        "a grounding vote containing 'p(k1).'",
        "Let grounders propose facts only.",
    ),
    _gate(
        "CERTIFY_E009",
        "A fact of a predicate outside the source whitelist Ω was asserted as "
        "evidence; only source predicates come from sources.",
        "q(k1).  (q is not in Ω)",
        "p(k1).",
        "Derive q with a rule instead of asserting it.",
    ),
    _gate(
        "CERTIFY_E010",
        "A rule concludes a source predicate (Proposition 1): source facts must come from sources only.",
        "[r1] p(X) :- q(X).",
        "[r1] q(X) :- p(X).",
        "Never write rules whose head is in the whitelist.",
    ),
    _gate(
        "CERTIFY_E011",
        "The source checker did not find the unit in its evidence record.",
        "%% units writer=deploy evidence=lib\np(k9).  (lib has no p(k9))",
        "p(k1).  (lib has p(k1))",
        "Cite evidence that contains the unit, or drop it.",
    ),
    x(
        "CERTIFY_E012",
        "The source checker failed or timed out on the unit, so it is not admitted; "
        "as a whole-file finding it fails the check.",
        "a unit whose checker raises or overruns its bound",
        "the same unit with a working checker",
        "Fix or re-run the checker; see CERTIFY_W013 for undecided units.",
    ),
    _gate(
        "CERTIFY_E013",
        "Admitting the unit would make p and -p both hold in the kernel.",
        "-q(k1).  (the kernel derives q(k1))",
        "-q(k2).",
        "Remove the contradiction: correct the unit or the rule that derives the opposite.",
    ),
    _cert(
        "CERTIFY_E014",
        "The candidate derivation or certificate is not well formed (missing fields, wrong types).",
        'a .cert.json whose "nodes" is not a list',
        "the certificate as certify wrote it",
        "Regenerate the certificate with `cotaudit certify query`.",
    ),
    _cert(
        "CERTIFY_E015",
        "The derivation's root node is not the conclusion it claims.",
        "a certificate for q(k1) whose root states q(k2)",
        "root q(k1)",
        "Regenerate the certificate.",
    ),
    _cert(
        "CERTIFY_E016",
        "Node ids are not dense, or a premise refers to a later node.",
        "node 0 citing premise 1",
        "node 1 citing premise 0",
        "Regenerate the certificate.",
    ),
    _cert(
        "CERTIFY_E017",
        "A premise is not a node, or a node has neither a leaf nor an edge.",
        "a node with no rule edge and no leaf justification",
        "the node marked as a kernel leaf",
        "Regenerate the certificate.",
    ),
    _cert(
        "CERTIFY_E018",
        "A leaf is not an active kernel fact or a query-scoped fact.",
        "a leaf p(k9) never admitted",
        "a leaf p(k1) admitted from lib",
        "Admit the fact first.",
    ),
    _cert(
        "CERTIFY_E019",
        "A rule application does not verify; the sub-code says which check failed (E021 … E026).",
        "an edge applying r1 to premises that do not match its body",
        "the edge with the premises r1 needs",
        "Regenerate the certificate.",
    ),
    x(
        "CERTIFY_E020",
        "The verified derivation is deeper than the depth budget δ, so the answer is not "
        "certified at this budget.",
        "a chain of 12 rule applications with δ = 10",
        "the same chain with δ = 12 in the config",
        "Raise δ in the .kb config, or shorten the derivation.",
    ),
    _cert(
        "CERTIFY_E021",
        "The edge's rule is not a kernel rule with that key.",
        "an edge citing rule r9",
        "an edge citing r1",
        "Cite admitted rules only.",
    ),
    _cert(
        "CERTIFY_E022",
        "The substitution does not bind exactly the rule's variables.",
        "θ = {Y: k1} for a rule over X",
        "θ = {X: k1}",
        "Regenerate the certificate.",
    ),
    _cert(
        "CERTIFY_E023",
        "θ(head) is not the node's fact.",
        "θ(q(X)) = q(k1) on a node stating q(k2)",
        "the node stating q(k1)",
        "Regenerate the certificate.",
    ),
    _cert(
        "CERTIFY_E024",
        "θ(body) in canonical order is not the premise list.",
        "premises listed in another order or with one missing",
        "premises in the body's order",
        "Regenerate the certificate.",
    ),
    _cert(
        "CERTIFY_E025",
        "An atom checked by 'not' holds in the lower strata.",
        "an edge using 'not t(k1)' while t(k1) is derivable",
        "t(k1) not derivable",
        "Regenerate the certificate after fixing the program.",
    ),
    _cert(
        "CERTIFY_E026",
        "Recomputing the registered calc function gives another output.",
        "a calc node claiming add(2, 2) = 5",
        "add(2, 2) = 4",
        "Regenerate the certificate.",
    ),
    _cert(
        "CERTIFY_E027",
        "A stated depth is not 0 for a leaf, or 1 + the deepest premise.",
        "a leaf with depth 1",
        "the leaf with depth 0",
        "Regenerate the certificate.",
    ),
    _cert(
        "CERTIFY_E028",
        "Two nodes state the same fact.",
        "q(k1) as node 1 and node 3",
        "q(k1) once, cited twice",
        "Regenerate the certificate.",
    ),
    _cert(
        "CERTIFY_E029",
        "A node is not reachable from the root.",
        "an extra node nothing cites",
        "the certificate without it",
        "Regenerate the certificate.",
    ),
    _cert(
        "CERTIFY_E030",
        "The dependency list differs from the one recomputed from the nodes.",
        "deps missing an admitted unit the leaves use",
        "deps as recomputed",
        "Regenerate the certificate.",
    ),
    _cert(
        "CERTIFY_E031",
        "The certificate's sha256 does not match its canonical JSON: it was edited or forged.",
        "a .cert.json edited by hand after it was written",
        "the file as certify wrote it",
        "Never edit certificates; regenerate them.",
    ),
    _cert(
        "CERTIFY_E032",
        "A closure certificate (for a 'no' answer) claims a model that misses a "
        "derivable fact or is not closed under the rules.",
        "a model without t(k1) while r3 derives it",
        "the model with t(k1)",
        "Regenerate the certificate.",
    ),
    _cert(
        "CERTIFY_E033",
        "The target (or its complement) is in the claimed closure model, so the 'no' is not shown.",
        "a closure for q(k1) whose model contains q(k1)",
        "a closure for q(k2)",
        "Regenerate the certificate; the answer may be 'yes'.",
    ),
    x(
        "CERTIFY_E034",
        "The .kb or .cert.json file's structure cannot be read (missing sections, a "
        "broken header); the file is invalid.",
        "a .kb without its '%% interface' section",
        "the same file with the interface section",
        "Follow the .kb format of docs/certify.md.",
    ),
    x(
        "CERTIFY_E035",
        "The interface does not validate: an unknown role, Ω not a subset of Σ, legend "
        "problems …; the file is invalid.",
        '"source_whitelist": ["r"]  (r is not a predicate)',
        '"source_whitelist": ["p"]',
        "Fix the interface per the diagnostic's sub-code.",
    ),
    x(
        "CERTIFY_E036",
        "A program's rules conclude source predicates (Proposition 1, checked at load).",
        "%% record lib kind=rules\n[r1] p(X) :- q(X).",
        "%% record lib kind=rules\n[r1] q(X) :- p(X).",
        "Only sources may state whitelisted predicates.",
    ),
    x(
        "CERTIFY_E037",
        "Two different units of one program share a label.",
        "[r1] q(X) :- p(X).\n[r1] t(X) :- p(X).",
        "[r1] q(X) :- p(X).\n[r3] t(X) :- p(X).",
        "Give each unit its own label.",
    ),
    x(
        "CERTIFY_E038",
        "A certified answer differs from the answer the .kb file expects "
        "(`?- q(k1) => yes.`): the knowledge base does not say what its author thought.",
        "?- q(k2) => yes.  (nothing derives q(k2))",
        "?- q(k2) => no.",
        "Fix the expectation, or the units that should derive the answer.",
    ),
    _abstain(
        "CERTIFY_W001",
        "The answer's derivation is deeper than δ.",
        "a query whose only derivation has 12 steps, δ = 10",
        "δ = 12",
        "Raise δ in the config.",
    ),
    _abstain(
        "CERTIFY_W002",
        "Evaluation exceeded its fact or time limit.",
        "a recursive program whose closure has millions of facts",
        "the same query on a smaller program",
        "Raise the limits in the config, or bound the recursion.",
    ),
    _abstain(
        "CERTIFY_W003",
        "p and -p both hold, or a numeric target has several values.",
        "a kernel deriving both q(k1) and -q(k1)",
        "the kernel without one of the two",
        "Remove the inconsistency in the units.",
    ),
    _abstain(
        "CERTIFY_W004",
        "A numeric target has no value.",
        "a query for total(k1, V) with no total fact",
        "a unit stating the total",
        "Add the missing attribute.",
    ),
    _abstain(
        "CERTIFY_W005",
        "A query-scoped fact was rejected by the gate.",
        "a grounder proposing r(k1) (r not in Σ)",
        "a grounder proposing p(k1)",
        "Fix the grounder's prompt or the interface.",
    ),
    _abstain(
        "CERTIFY_W006",
        "A query-scoped fact failed its source check.",
        "a grounded fact absent from the question's evidence",
        "a fact the evidence states",
        "Ground only on the evidence given.",
    ),
    _abstain(
        "CERTIFY_W007",
        "The derived-mode gate rejected the executor's certificate.",
        "an executor certificate with a wrong edge",
        "a certificate that rechecks",
        "Report it: the executor and the checker disagree.",
    ),
    x(
        "CERTIFY_W008",
        "The kernel scan could not decide some units within its cap and kept them "
        "(kept, not certified as redundant).",
        "a scan over 10,000 units with a small cap",
        "the same scan with a larger cap",
        "Raise the scan cap (`certify kernel --cap`).",
    ),
    x(
        "CERTIFY_I001",
        "A query was answered with a certificate that rechecks: the answer is certified.",
        "?- q(k1) => yes.  (p(k1) and r1 admitted)",
        "?- q(k9) => no.  (answered with a closure certificate)",
        "Nothing to fix.",
    ),
    x(
        "CERTIFY_I002",
        "A unit was certified but is redundant: a duplicate, or derivable from the kernel; "
        "it is kept out of the kernel.",
        "[r3dup] t(Y) :- p(Y).  (r3 says the same)",
        "[r3] t(X) :- p(X).  alone",
        "Nothing to fix; drop the duplicate if you like.",
    ),
    x(
        "CERTIFY_I003",
        "A stored certificate rechecked against its kernel.",
        "`cotaudit certify recheck`",
        "(every recheck that passes reports it)",
        "Nothing to fix.",
    ),
    _abstain(
        "CERTIFY_W009",
        "No fact set or answer was proposed by a strict majority of the k votes.",
        "k = 3 votes proposing three different fact sets",
        "two of three votes agreeing",
        "Raise k, or make the grounding prompt less ambiguous.",
    ),
    _abstain(
        "CERTIFY_W010",
        "Every grounding vote was a parse failure or an error.",
        "a model answering prose instead of facts",
        "a model answering facts",
        "Fix the model or its prompt (docs/llm.md).",
    ),
    _abstain(
        "CERTIFY_W011",
        "The grounder failed (an exception, e.g. the model server unreachable).",
        "COTAUDIT_LLM_BASE_URL pointing at a server that is down",
        "a server that answers",
        "Start the server or fix the URL; the error names it.",
    ),
    x(
        "CERTIFY_W012",
        "After an abstention a fallback answered; that answer is UNCERTIFIED and carries no certificate.",
        "on_reject = 'fallback' with a query certify abstains on",
        "on_reject = 'abstain'",
        "Treat the answer as unchecked, or turn the fallback off.",
    ),
    x(
        "CERTIFY_W013",
        "The gate could not check a unit (UNDECIDED: a computation bound; CHECKER_ERROR: "
        "the source checker failed or timed out). It is not admitted, and that is not a rejection.",
        "a unit whose source check overruns its time bound",
        "the same unit under a larger bound",
        "Raise the bound, or fix the checker.",
    ),
)
