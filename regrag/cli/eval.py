"""``regrag eval --beir DIR``: retrieval and answer metrics on a labelled
folder (BEIR layout, trec_eval conventions; docs/evaluation.md)."""

from __future__ import annotations

import argparse
import sys

from regrag.audit.canonical import canonical_json
from regrag.cli.options import add_index_options, analyzer, parameters, stored_index
from regrag.cli.output import staged_progress
from regrag.cli.spark_options import add_spark_options, with_spark_rankings
from regrag.cli.status import ExitStatus
from regrag.errors import InputError
from regrag.eval.ablation import ABLATION, DENSE_EVAL_METHODS
from regrag.retrieval.methods import METHODS


def register(commands) -> None:
    evaluate = commands.add_parser("eval", help="evaluate on a labelled folder (BEIR layout; trec_eval conventions)")
    evaluate.add_argument("--beir", required=True, metavar="DIR",
                          help="BEIR folder (corpus.jsonl or documents/, queries.jsonl, qrels/, optional answers.jsonl)")
    evaluate.add_argument("--method", choices=METHODS + ("all",) + DENSE_EVAL_METHODS + ("ablation",), default="all",
                          help="retriever, or all three side by side (default: all); dense, fused (RRF of bm25, "
                               "tfidf, dense) and rerank (the dense top 20 ordered by BM25), or ablation (bm25, tfidf, dense, each pair, all three): docs/dense.md")
    evaluate.add_argument("--embedder", default="e5",
                          help="with dense, fused or ablation and no --index with stored vectors: the embedder of "
                               "the passages and queries (default e5)")
    evaluate.add_argument("--split", default="test", help="qrels split (default: test)")
    evaluate.add_argument("--depth", type=int, default=1000, help="results ranked per query (default 1000)")
    evaluate.add_argument("--run-file", help="write the run in TREC format (needs a single --method)")
    evaluate.add_argument("--per-query", action="store_true", help="also show each query's first relevant rank per method")
    evaluate.add_argument("--no-answers", action="store_true", help="skip answer metrics even if answers.jsonl exists")
    evaluate.add_argument("--fit-calibration", metavar="FILE", default=None,
                          help="fit this corpus's calibration map on the answers of a single --method and write it "
                               "(with its out-of-fold figures; docs/calibration.md)")
    evaluate.add_argument("--calibration", metavar="FILE", default=None,
                          help="evaluate the answers with this calibration map applied (as ask --calibration)")
    evaluate.add_argument("--folds", type=int, default=10,
                          help="with --fit-calibration: folds of the out-of-fold estimate (default 10)")
    add_index_options(evaluate, corpus=False)
    evaluate.add_argument("--json", action="store_true", help="canonical JSON output")
    add_spark_options(evaluate)
    evaluate.set_defaults(handler=run_eval)


def run_eval(arguments: argparse.Namespace) -> int:
    from regrag.eval.beir import write_run_trec
    from regrag.eval.run import ANSWER_METRIC_NAMES, evaluate_folder

    methods = {"all": METHODS, "ablation": ABLATION}.get(arguments.method, (arguments.method,))
    if arguments.run_file and len(methods) != 1:
        raise InputError("--run-file needs a single --method")
    calibration = _check_calibration_options(arguments, methods)
    index = stored_index(arguments)
    if arguments.spark is not None or arguments.partitions is not None:  # the rankings on Spark, the rest here
        from regrag.distributed.precomputed import evaluation_requests

        index = with_spark_rankings(arguments, index, evaluation_requests(index, arguments.beir, arguments.split,
                                                                          methods, arguments.depth))
    with staged_progress(arguments) as progress:
        extra = None
        if arguments.method in DENSE_EVAL_METHODS + ("ablation",):  # docs/dense.md, "ask and eval"
            from regrag.eval.ablation import dense_methods, index_for_folder, vectors_for

            if index is None:
                index = index_for_folder(arguments.beir, arguments.split, analyzer(arguments), parameters(arguments),
                                         progress)
            vectors, embedder = vectors_for(index, arguments.index, arguments.embedder,
                                            lambda done, total: progress("embedding", done, total))
            extra = dense_methods(methods, index, vectors, embedder)
        report = evaluate_folder(arguments.beir, methods=methods, split=arguments.split, depth=arguments.depth,
                                 analyzer=analyzer(arguments), parameters=parameters(arguments),
                                 answers=not arguments.no_answers and arguments.method != "ablation", index=index,
                                 progress=progress, extra_methods=extra, calibration=calibration)
    fitted = None
    if arguments.fit_calibration:
        from regrag.answer.calibration import write_calibration
        from regrag.eval.calibration_fit import fit_calibration

        fitted = fit_calibration(report.results[0], str(arguments.beir), arguments.folds, report.unanswerable)
        write_calibration(arguments.fit_calibration, fitted[0])
    if arguments.run_file:
        write_run_trec(arguments.run_file, report.results[0].run, f"regrag-{methods[0]}")
    if arguments.json:  # the record is reproducible byte for byte; the timings go apart, to standard error
        record = report.to_dict(per_query=arguments.per_query)
        if fitted is not None:
            record["fitted_calibration"] = {"file": arguments.fit_calibration, "steps": len(fitted[0].points),
                                            "sha256": fitted[0].sha256, "out_of_fold": fitted[1].to_dict()}
        if calibration is not None:
            record["calibration"] = calibration.label()
        print(canonical_json(record))
        print(f"regrag: timings: {canonical_json(report.timings())}", file=sys.stderr)
        return ExitStatus.OK
    print(f"{report.root}  split {report.split}  ·  {report.judged_count} judged queries"
          f"{f' + {report.unanswerable_count} unanswerable' if report.unanswerable_count else ''}  ·  "
          f"{report.document_count} documents  ·  {report.passage_count} passages  ·  judged by {report.unit}")
    names = list(report.results[0].metrics)
    width = max(8, *(len(result.method) for result in report.results))
    print(f"  {'method':<{width}}" + "".join(f"{name:>12}" for name in names))
    for result in report.results:
        print(f"  {result.method:<{width}}" + "".join(f"{result.metrics[name]:>12.4f}" for name in names))
    answered = [r for r in report.results if r.answer_metrics]
    if answered:
        present = [name for name in ANSWER_METRIC_NAMES if name in answered[0].answer_metrics]
        print()
        print(f"  {'answers':<8}" + "".join(f"{name:>22}" for name in present))
        for result in answered:
            print(f"  {result.method:<8}" + "".join(f"{result.answer_metrics[name]:>22.4f}" for name in present))
    calibrated = [r for r in report.results if r.confidence]
    if calibrated:
        print()
        print("  confidence   (bins of the answer confidence: queries, mean confidence, fraction whose top result is relevant)")
        for result in calibrated:
            table, error = result.reliability()
            cells = "  ".join(f"[{b.low:.1f},{b.high:.1f}{']' if b.high == 1.0 else ')'} n={b.count} {b.mean_confidence:.2f}/{b.accuracy:.2f}" for b in table)
            print(f"  {result.method:<8} ECE {error:.3f}  {cells}")
    if calibration is not None:
        print(f"  (confidences and refusals calibrated by {arguments.calibration}, fitted on "
              f"{calibration.labelled_set}: {calibration.questions} questions)")
        if calibration.labelled_set == str(arguments.beir):
            print(f"  (in-sample: the map was fitted on these questions; its out-of-fold ECE was "
                  f"{calibration.out_of_fold_ece:.3f})")
    if fitted is not None:
        step_map, measured = fitted

        def rate(value: float | None) -> str:
            return "-" if value is None else f"{value:.4f}"
        print()
        print(f"  calibration map: {len(step_map.points)} steps fitted on {step_map.questions} {step_map.method} answers "
              f"-> {arguments.fit_calibration}")
        print(f"  out of fold ({measured.folds} folds): ECE {measured.ece:.3f}, refused answerable "
              f"{rate(measured.refused_answerable)}, refused unanswerable {rate(measured.refused_unanswerable)}, "
              f"confident wrong {measured.confident_wrong:.4f}")
    print()
    print(f"  indexing {report.index_seconds:.2f} s")
    for result in report.results:
        timings = result.timing_summary()
        if result.query_seconds:
            print(f"  {result.method:<8} per query mean {timings['query_mean_ms']:.2f} ms  p50 {timings['query_p50_ms']:.2f} ms  "
                  f"p99 {timings['query_p99_ms']:.2f} ms  ({timings['queries_per_second']:.1f} queries/s, top {report.depth})")
    if arguments.per_query:
        print()
        print(f"  {'query':<24}" + "".join(f"{r.method:>8}" for r in report.results) + "   (rank of the first relevant result; R = refused)")
        for query_id in sorted(set(report.results[0].first_relevant_rank) | set(report.results[0].refused)):
            ranks = []
            for result in report.results:
                rank = result.first_relevant_rank.get(query_id, "")
                mark = "R" if result.refused.get(query_id) else ""
                ranks.append(f"{'-' if rank is None else rank}{mark}")
            print(f"  {query_id:<24}" + "".join(f"{cell:>8}" for cell in ranks))
    return ExitStatus.OK


def _check_calibration_options(arguments: argparse.Namespace, methods: tuple[str, ...]):
    """The map of ``--calibration`` (None without it), after refusing the
    combinations that mean nothing: fitting needs one method and rule-based
    confidences, and both need answers."""
    if arguments.fit_calibration and arguments.calibration:
        raise InputError("--fit-calibration fits the rule-based confidence; it cannot be combined with --calibration")
    if (arguments.fit_calibration or arguments.calibration) and (arguments.no_answers or arguments.method == "ablation"):
        raise InputError("--fit-calibration and --calibration need the answer metrics (no --no-answers, no ablation)")
    if arguments.fit_calibration and len(methods) != 1:
        raise InputError("--fit-calibration needs a single --method (each method's confidence has its own map)")
    if arguments.folds < 2:
        raise InputError(f"--folds must be at least 2, got {arguments.folds}")
    if (arguments.fit_calibration or arguments.calibration) and any(m not in METHODS for m in methods):
        raise InputError(f"--fit-calibration and --calibration map the confidence of {', '.join(METHODS)} answers")
    if not arguments.calibration:
        return None
    from regrag.answer.calibration import read_calibration

    calibration = read_calibration(arguments.calibration)
    if len(methods) != 1 or calibration.method != methods[0]:
        raise InputError(f"{arguments.calibration}: fitted on {calibration.method} answers: "
                         f"use it with --method {calibration.method}")
    from regrag.answer.calibration import staleness
    from regrag.answer.lexicon import LEXICON_VERSION
    from regrag.answer.rules_version import ANSWER_RULES

    why = staleness(calibration, ANSWER_RULES, LEXICON_VERSION)
    if why:
        print(f"regrag: note: {arguments.calibration} was fitted under {why}; fit it again", file=sys.stderr)
    return calibration
