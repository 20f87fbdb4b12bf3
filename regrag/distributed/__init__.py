"""Running regrag's work on Apache Spark (``pip install 'regrag[spark]'``; docs/distributed.md).

Spark is only the scheduler: every task is a pure function of its partition,
records are partitioned by a SHA-256 of their key (never Python's ``hash()``),
the driver sorts what comes back by its canonical key, and only canonical
bytes are written. So the output is byte-identical to one process, however
the work is split. pyspark is imported inside functions only: importing
this package needs nothing beyond the standard library.

- ``partitioning``: the SHA-256 partition function;
- ``worker_identity``: what an executor must share with the driver
  (Python version, regrag version, analyzer identity), checked in every task;
- ``spark_jobs``: starting Spark and turning a failed task into one clear error;
- ``topics``: reading a topics file (BEIR queries.jsonl or TSV);
- ``batch_search``: ranking many queries, in one process or on Spark, and the TREC run file;
- ``precomputed``: rankings fanned out on Spark, served to ``eval`` and ``golden``;
- ``spark_build``: ``regrag index --spark``, the sharded build's phases on Spark.
"""
