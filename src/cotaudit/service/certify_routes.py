"""certify's state endpoints: ``POST /v1/certify/admit``, ``/v1/certify/erase`` and
``/v1/certify/query``.

They run certify's C-55 transitions on the SQLite state named by ``cotaudit serve --certify-db
PATH`` (the environment variable ``COTAUDIT_CERTIFY_DB``), a state created beforehand with
``cotaudit certify admit --db PATH FILE.kb`` (it carries the interface). Both endpoints are
registered ``write=True``: they always need the bearer token. Each request opens the state,
runs one transition (one SQLite transaction, one log entry) and closes it, one request at a
time, so the service never holds a connection across threads and sees what other writers
committed.

``admit``: ``{"unit": "p(a).", "writer": "deploy", "evidence": {"record": "rules", "quote"?,
"spans"?: [[start, end]]}}`` (``writer`` and ``evidence`` optional; the record must be in the
state) → the gate decision (C-37), e.g.
``{"outcome": "SOURCE_ADMIT", "reason": null, "detail": {"unit_id": 4}, "log_seq": 9, ...,
"kernel_version": 2}``; a unit the gate refuses is a decision too (``"outcome": "REJECT"``).
``erase``: ``{"unit_id": 4, "reason": "withdrawn"}`` → what the erase did (evicted cache
entries, the kernel change); an id that is not an active kernel unit is answered 404.
``query``: ``{"goal": "q(a)", "delta"?: 6, "space"?: "yesno"|"tfu"|"numeric", "facts"?: [{"unit":
"p(a).", "evidence"?: {...}}, ...], "writer"?: "grounder", "on_reject"?: "abstain"|"drop"}`` → the
answer with its certificate, ``{"status": "CERTIFIED"|"CACHED", "answer": "yes", "certificate":
{...}, "facts": [...], ...}``, or an explicit abstention, ``{"status": "ABSTAINED",
"abstain_reason": "...", "detail": ..., "certificate": null}`` (200 either way: an abstention is
an answer). ``facts`` are query-scoped (C-41, C-77, C-78): each goes through the gate at query
scope as ``writer`` (default ``grounder``), with its evidence in the admit body's shape; one the
gate rejects abstains the query (``on_reject: drop`` drops a fact outside the whitelist instead);
admitted ones expire with the query, and a query with facts is never answered from the cache.
``"facts"`` in the answer gives the gate's decision on each, in order. A malformed fact is 422
``bad_facts``, evidence naming a record the state lacks 422 ``unknown_record``, more than
``max_query_facts`` facts 413 ``too_many_items`` (cotaudit.certify.kb.facts checks them, as
``cotaudit certify query --facts`` does). A query writes (the cache, the audit log, the request
counts the next tick turns into frequencies), so it is ``write=True`` too. Without a configured
state all three answer 503 ``not_configured`` (after the token check).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cotaudit.service.config import serving_config
from cotaudit.service.core import ServiceError

CERTIFY_DB_ENV = "COTAUDIT_CERTIFY_DB"
WRITERS = ("deploy", "operator", "grounder")
_LOCK = threading.Lock()


def _state_path() -> str:
    path = os.environ.get(CERTIFY_DB_ENV) or ""
    if not path:
        raise ServiceError(
            503, "not_configured", "no certify state is served (start the service with --certify-db PATH)"
        )
    if not Path(path).is_file():
        raise ServiceError(
            503,
            "not_configured",
            f"the certify state {path} does not exist "
            "(create it with: cotaudit certify admit --db PATH FILE.kb)",
        )
    return path


def _open(path: str) -> Any:
    try:
        from cotaudit.certify.state.machine import CertState
    except ModuleNotFoundError as exc:
        raise ServiceError(501, "not_implemented", f"the certify engine is not available: {exc}") from None
    from cotaudit.certify.core.errors import CertifyError

    try:
        return CertState.open(path)
    except CertifyError as exc:
        raise ServiceError(503, "not_configured", f"cannot open the certify state: {exc}") from None


def _text(body: Mapping[str, Any], key: str, default: str | None = None) -> str:
    value = body.get(key, default)
    if not isinstance(value, str) or (default is None and not value.strip()):
        raise ValueError(
            f"'{key}' must be a non-empty string" if default is None else f"'{key}' must be a string"
        )
    return value


def admit(body: Mapping[str, Any]) -> dict[str, Any]:
    """Admit one unit at kernel scope (certify C-55 ``admit``); the gate's decision comes back."""
    from cotaudit.certify.kb.facts import evidence_spec

    unit = _text(body, "unit")
    writer = _text(body, "writer", "deploy")
    if writer not in WRITERS:
        raise ValueError(f"'writer' must be one of {', '.join(WRITERS)}")
    evidence = evidence_spec(body.get("evidence"))  # a ValueError (400) when malformed
    with _LOCK:
        state = _open(_state_path())
        try:
            found = None
            if evidence is not None:
                from cotaudit.certify.kb.file import locate

                record_id = evidence.record_id or ""
                record = state.records.record(record_id)
                found = locate(evidence, {record_id: record} if record else {})
            decision = state.admit(unit, found, writer)
            return {**decision.to_json(), "kernel_version": state.version}
        finally:
            state.close()


def erase(body: Mapping[str, Any]) -> dict[str, Any]:
    """Erase an active kernel unit (certify C-55 ``erase``): cache evicted, kernel rescanned."""
    unit_id = body.get("unit_id")
    if not isinstance(unit_id, int) or isinstance(unit_id, bool):
        raise ValueError("'unit_id' must be an integer")
    reason = _text(body, "reason", "")
    with _LOCK:
        state = _open(_state_path())
        from cotaudit.certify.core.errors import ComputationCap, StoreError

        try:
            result: dict[str, Any] = state.erase(unit_id, reason)
        except StoreError as exc:
            raise ServiceError(404, "not_found", str(exc)) from None
        except ComputationCap as exc:  # the rescan ran out of its bound: rolled back, nothing erased
            why = f"erase abstained and was rolled back (unit {unit_id} is still active): {exc}"
            raise ServiceError(503, "undecided", why) from None
        finally:
            state.close()
    return result


SPACES = ("yesno", "tfu", "numeric")
ON_REJECT = ("abstain", "drop")
# a FactSpecError's code → the answer: a list over the limit is a 413 like /v1/batch's
_FACT_ERRORS = {"too_many_facts": (413, "too_many_items"), "unknown_record": (422, "unknown_record")}


def _fact_error(exc: ValueError) -> ServiceError:
    status, code = _FACT_ERRORS.get(getattr(exc, "code", ""), (422, "bad_facts"))
    return ServiceError(status, code, str(exc))


def query(body: Mapping[str, Any]) -> dict[str, Any]:
    """Answer a goal (certify C-79 … C-81) from the kernel and the query-scoped facts given in
    ``facts`` (C-41, C-77, C-78: each through the gate at query scope, expired afterwards):
    certified, cached (never with facts), or abstained."""
    from cotaudit.certify.kb.facts import FactSpecError, answer_json, fact_specs, resolve

    goal = _text(body, "goal")
    delta = body.get("delta")
    if delta is not None and (not isinstance(delta, int) or isinstance(delta, bool) or delta < 0):
        raise ValueError("'delta' must be a non-negative integer")
    space = body.get("space")
    if space is not None and space not in SPACES:
        raise ValueError(f"'space' must be one of {', '.join(SPACES)}")
    writer = _text(body, "writer", "grounder")  # run_query's default for query facts (C-77)
    if writer not in WRITERS:
        raise ValueError(f"'writer' must be one of {', '.join(WRITERS)}")
    on_reject = body.get("on_reject")
    if on_reject is not None and on_reject not in ON_REJECT:
        raise ValueError(f"'on_reject' must be one of {', '.join(ON_REJECT)}")
    try:
        specs = fact_specs(body.get("facts"), serving_config().max_query_facts)
    except FactSpecError as exc:
        raise _fact_error(exc) from None
    with _LOCK:
        state = _open(_state_path())
        from cotaudit.certify.core.errors import CertifyError

        try:
            facts = resolve(specs, state.records)
            result = state.query(
                goal, facts=facts, delta=delta, answer_space=space, writer=writer, on_reject=on_reject
            )
        except FactSpecError as exc:  # evidence naming a record the state does not hold
            raise _fact_error(exc) from None
        except CertifyError as exc:  # a goal that does not parse or fit the interface
            raise ValueError(f"cannot query {goal!r}: {exc}") from None
        finally:
            state.close()
    return answer_json(result, specs)
