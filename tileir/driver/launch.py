"""`tileir-as`'s client started without Python's `site` (docs/cli.md, "The tileiras shim").

    python -S -P .../tileir/driver/launch.py --paths DIR[:DIR...] -- ARGS...

The tileiras shim (`tileir-as --make-tileiras-shim`) runs this file.  `site` is the
largest part of a bare Python start: it scans the environment's site-packages and runs
its `.pth` files (an editable install's import hook alone imports `pathlib` and `re`),
10-25 ms of every run, which a cache hit or a compilation handed to the warm server
otherwise pays for nothing.  The shim's writer, which ran with `site`, gives here the
directories the client needs: the one holding `tileir` and the site-packages (for the
`nvidia` wheels' ptxas, which the cache key names).  Whatever needs the compiler in this
process (no server, no cache entry) runs `site` first (`client.ensure_site`), so that
it imports what a console-script `tileir-as` imports: the same bytes come out.

Standard library only, and nothing imported before `sys.path` is set: under `-P`
(Python 3.11+) the script's own directory is not on `sys.path`; on older Pythons it is
removed first (else this directory's modules would shadow the standard library's).
"""

import os
import sys


def _bootstrap(argv: list[str]) -> list[str] | None:
    """Put the `--paths` directories first on `sys.path`; the arguments after `--`, or
    None if the command line is not one a shim wrote."""
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and sys.path[0] and os.path.abspath(sys.path[0]) == here:
        del sys.path[0]
    if len(argv) < 3 or argv[0] != "--paths" or argv[2] != "--":
        return None
    extra = [p for p in argv[1].split(os.pathsep) if p and p not in sys.path]
    sys.path[:0] = extra
    return argv[3:]


def main() -> None:
    args = _bootstrap(sys.argv[1:])
    if args is None:
        print("usage: python -S -P launch.py --paths DIRS -- ARGS...", file=sys.stderr)
        sys.exit(2)
    sys.argv[1:] = args
    try:
        from tileir.driver import client
    except ImportError:  # the directories moved: start as a full Python would
        import site

        site.main()
        from tileir.driver import client
    client.main()


if __name__ == "__main__":
    main()
