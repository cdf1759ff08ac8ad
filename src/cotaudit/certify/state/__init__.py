"""The certified state: the :class:`~cotaudit.certify.state.machine.CertState` facade, the
services it runs its transitions with (admission, cache operations, history, queries), its
SQLite store and the log replay that checks the tables.
"""

from cotaudit.certify.state.config import CertifyConfig
from cotaudit.certify.state.machine import CertState
from cotaudit.certify.state.query import AbstainReason, AnswerKind, QueryResult, ServeStatus

__all__ = ["AbstainReason", "AnswerKind", "CertState", "CertifyConfig", "QueryResult", "ServeStatus"]
