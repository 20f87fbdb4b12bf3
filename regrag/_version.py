"""The engine's version, in a module of its own so that any layer can read it
without importing the package (``regrag/__init__.py`` imports the engine)."""

__version__ = "0.1.0"
