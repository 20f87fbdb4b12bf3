"""CSV files: fee schedules and rate tables, one document per file or per row.

The file is UTF-8, comma-separated, fields optionally in double quotes (a
quote inside a quoted field written twice), records ended by CR LF or LF:
RFC 4180, read by a small scanner here rather than the ``csv`` module so
that every field's span in the file is known. The first record is the
header: its names label the fields (``column N`` for an empty or missing
name). A row becomes lines ``label: value`` (empty values left out); the
label maps to the header cell, the value to the row's cell. One document
per file (rows separated by a blank line, one section titled with the file
name), or with ``per_row`` one per row titled ``FILE › row N`` (id
``FILE/row-N``; a file with no data row is one document all the same). A quote
left open at the end of the file, or text after a closing quote, is an
error naming the line.
"""

from __future__ import annotations

from regrag.corpus.checks import _check_file_text, decode_utf8
from regrag.corpus.extract.builder import Extracted, TextBuilder
from regrag.corpus.model import TITLE_SEPARATOR
from regrag.errors import InputError
from regrag.limits import Limits

EXTRACTOR = "regrag.csv"
VERSION = "1"

Field = tuple[str, int, int]  # value, source start, source end (characters of the decoded file)


def extractor_version() -> str:
    return VERSION


def extract(data: bytes, where: str, stem: str, limits: Limits, per_row: bool = False) -> list[tuple[str, Extracted]]:
    """The file as one document, or (``per_row``) one per data row: (id suffix, extracted), the
    suffix ``/row-N`` for a row, empty for the whole file (also when a file has no data row)."""
    text = decode_utf8(data, where)
    _check_file_text(text, where)
    records = _records(text, where)
    if len(records) < 2:
        return [("", TextBuilder(where, limits).finish(stem, {}))]
    header, rows = records[0], records[1:]
    documents: list[tuple[str, Extracted]] = []
    builder = TextBuilder(where, limits)
    for number, row in enumerate(rows, start=1):
        if per_row:
            builder = TextBuilder(where, limits)
        else:
            builder.block_break()
        _row_text(builder, header, row)
        if per_row:
            documents.append((f"/row-{number}", builder.finish(f"{stem}{TITLE_SEPARATOR}row {number}", {})))
    if not per_row:
        documents.append(("", builder.finish(stem, {})))
    return documents


def _row_text(builder: TextBuilder, header: list[Field], row: list[Field]) -> None:
    for column, (value, start, end) in enumerate(row):
        if not value.strip():
            continue
        if not builder.ends_with("\n"):
            builder.separator("\n")
        if column < len(header) and header[column][0].strip():
            label, label_start, label_end = header[column]
            builder.add(label, "", label_start, label_end)
        else:
            builder.separator(f"column {column + 1}")
        builder.separator(": ")
        builder.add(value, "", start, end)


def _records(text: str, where: str) -> list[list[Field]]:
    """Every record's fields with their spans; blank lines are no record."""
    records: list[list[Field]] = []
    position, length = (1 if text.startswith("\ufeff") else 0), len(text)
    line = 1
    while position < length:
        if text[position] in "\r\n":  # a blank line
            line += text[position] == "\n"
            position += 1
            continue
        fields: list[Field] = []
        while True:
            if position < length and text[position] == '"':
                value, end, line = _quoted(text, position, where, line)
                inner = (position + 1, end - 1) if len(value) == end - position - 2 else (position, end)
                fields.append((value, *inner))
                position = end
                if position < length and text[position] not in ",\r\n":
                    raise InputError(f"{where}:{line}: text after a closing quote (a quote inside a quoted field "
                                     'is written twice: "")')
            else:
                end = position
                while end < length and text[end] not in ",\r\n":
                    end += 1
                fields.append((text[position:end], position, end))
                position = end
            if position < length and text[position] == ",":
                position += 1
                continue
            break
        if text.startswith("\r\n", position):
            position += 2
        elif position < length:
            position += 1
        line += 1
        records.append(fields)
    return records


def _quoted(text: str, start: int, where: str, line: int) -> tuple[str, int, int]:
    """A quoted field from ``start`` (its opening quote): its value, where it ends, and the line reached."""
    parts: list[str] = []
    position = start + 1
    first_line = line
    while True:
        close = text.find('"', position)
        if close < 0:
            raise InputError(f"{where}:{first_line}: a quoted field is not closed before the end of the file")
        parts.append(text[position:close])
        line += text.count("\n", position, close)
        if text.startswith('""', close):
            parts.append('"')
            position = close + 2
            continue
        return "".join(parts), close + 1, line
