"""The version of cotaudit: one place, read by the package, the front end and every report it makes."""

__version__ = "0.1.0"

__all__ = ["__version__"]
