"""Optional adapters: embedders, vector indexes and generators.

The core never imports this package. Each adapter imports its third-party
library only when it is constructed, and raises ``MissingExtraError`` naming
the extra to install when the library is absent.
"""
