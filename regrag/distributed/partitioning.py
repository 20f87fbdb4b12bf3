"""The partition function of every Spark job: a SHA-256 of the record's key.

Spark's default partitioner is Python's ``hash()``, which depends on
``PYTHONHASHSEED``; round-robin ``repartition()`` can move records on a task
retry (SPARK-23207). A key's partition here depends on its UTF-8 bytes only.
"""

from __future__ import annotations

import hashlib


def partition_of(key: str, partitions: int) -> int:
    """The partition, in ``0 .. partitions-1``, of ``key``: the first 8 bytes of
    SHA-256(UTF-8 key), big-endian, modulo ``partitions``."""
    if partitions < 1:
        raise ValueError(f"partitions must be >= 1, got {partitions}")
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % partitions


class KeyPartitioner:
    """``partition_of`` as the ``partitionFunc`` of ``RDD.partitionBy``: Spark
    takes the result modulo the partition count, so this returns the partition itself."""

    def __init__(self, partitions: int) -> None:
        self.partitions = partitions

    def __call__(self, key: str) -> int:
        return partition_of(key, self.partitions)
