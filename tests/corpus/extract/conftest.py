import sys
from pathlib import Path

# make_docx, make_pdf, make_formats: the writers of the sample files (corpora/formats/), used by the tests too
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "corpora" / "formats"))
