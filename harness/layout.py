#!/usr/bin/python3
"""The build folder's layout, stated once for the harness.

  layout.py src KERNEL            build/src/KERNEL: base, patched, series
  layout.py obj KERNEL FLAVOUR    build/obj/KERNEL-FLAVOUR
  layout.py image KERNEL FLAVOUR  the bzImage in it
  layout.py ccache-env            the compiler cache's settings, as exports

The Python scripts import it; the Makefile and the shell scripts ask it.
Everything under build/ is generated and may be removed (make clean).
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build")
# Logs of make check's guests, one per boot.
CHECK_LOGS = os.path.join(BUILD, "check")
# make patch's outputs: the combined patch, and the series to mail.
COMBINED_PATCH = os.path.join(BUILD, "negative-dentry.patch")
SERIES_OUT = os.path.join(BUILD, "series")
# make series-check's logs, one per patch.
SERIES_CHECK_LOGS = os.path.join(BUILD, "series-check")


def ccache_env():
    """ccache's settings for every build of the harness. The base folder
    makes the paths it hashes relative to the clone, so a clone in another
    folder (CI's) finds what this one compiled."""
    return {"CCACHE_DIR": os.environ.get("CCACHE_DIR",
                                         "/var/cache/negdentry-ccache"),
            "CCACHE_MAXSIZE": os.environ.get("CCACHE_MAXSIZE", "20G"),
            "CCACHE_BASEDIR": ROOT, "CCACHE_NOHASHDIR": "true"}


def src(kernel):
    """A source tree: base (Debian's), patched (ours), series (git)."""
    return os.path.join(BUILD, "src", kernel)


def obj(kernel, flavour):
    """The object directory of @kernel built in @flavour (debug, fast, or
    one of the harness's own: w1, series-check, ...)."""
    return os.path.join(BUILD, "obj", f"{kernel}-{flavour}")


def image(kernel, flavour):
    return os.path.join(obj(kernel, flavour), "arch", "x86", "boot",
                        "bzImage")


if __name__ == "__main__":
    what, args = sys.argv[1:2], sys.argv[2:]
    if what == ["src"] and len(args) == 1:
        print(src(*args))
    elif what in (["obj"], ["image"]) and len(args) == 2:
        print({"obj": obj, "image": image}[what[0]](*args))
    elif what == ["ccache-env"] and not args:
        for name, value in ccache_env().items():
            print(f"export {name}='{value}'")
    else:
        sys.exit(__doc__)
