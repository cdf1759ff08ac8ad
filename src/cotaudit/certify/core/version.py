"""The engine's name and version, as every certify report states them (R-1 ``engine_version``)."""

ENGINE = "certify"
ENGINE_VERSION = "certify/1"

__all__ = ["ENGINE", "ENGINE_VERSION"]
