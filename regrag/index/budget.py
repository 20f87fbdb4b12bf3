"""The memory budget of a build (``regrag index --memory MB``): its default
and minimum, in a module light enough for the command line to import at
start-up (docs/index-format.md, "Building in bounded memory")."""

MEGABYTE = 1_000_000
DEFAULT_MEMORY_MB = 1024
MINIMUM_MEMORY_MB = 16  # what the command line accepts; the library takes any positive budget
