"""``python -m regrag``: see ``regrag.cli``."""

import sys

from regrag.cli import main

if __name__ == "__main__":
    sys.exit(main())
