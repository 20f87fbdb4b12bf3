"""The one layer of regrag that touches the disk.

Every other module reads, writes, locks and lists files through these
modules, one idea each:

- ``system``: the system calls themselves, behind one swappable object (the
  fault tests swap in a double that fails the n-th call);
- ``files``: opening a regular file without blocking, bounded reads, listing
  and removing;
- ``writes``: whole files written and fsynced, atomic replacement, directory
  fsync, and the wording of write failures;
- ``locks``: file locks, non-blocking or with a bounded wait;
- ``clock``: the UTC clock and the one timestamp format (and its parser);
- ``identity``: file identity snapshots, to refuse a file changed while read;
- ``digests``: the shape of a SHA-256 digest written in files.
"""
