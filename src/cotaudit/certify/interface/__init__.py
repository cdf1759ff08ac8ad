"""The grounding interface I = (Σ, L, Ω): predicate signatures, roles and patterns, and the
reading of interface documents.
"""

from cotaudit.certify.interface.load import interface_from_dict, load_interface
from cotaudit.certify.interface.model import Interface, PredicateSig, Role, load_program, simple_interface

__all__ = [
    "Interface",
    "PredicateSig",
    "Role",
    "interface_from_dict",
    "load_interface",
    "load_program",
    "simple_interface",
]
