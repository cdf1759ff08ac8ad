"""cotaudit: mechanical audits of language-model reasoning traces."""

__version__ = "0.1.0"
