"""Certified serving: grounding votes, the agreement rule and the serving loop."""

from cotaudit.certify.serve.agreement import POLICIES, Policy
from cotaudit.certify.serve.serving import ServeResult, serve
from cotaudit.certify.serve.votes import Grounder, ProposedFact, QueryInput, Vote

__all__ = ["POLICIES", "Grounder", "Policy", "ProposedFact", "QueryInput", "ServeResult", "Vote", "serve"]
