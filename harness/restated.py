#!/usr/bin/env python3
"""The kernel's constants that the selftests restate, and whether the
copies still match.

The selftests size their scenarios from the limits' parameters (the
charge batch, the slots of a stock, a run's budget, the kill threshold).
They state each once, in negative_dentry_util.h, as a #define whose
comment ends with the kernel macro it copies in parentheses:

    /* ... a run may look at (NEGATIVE_DENTRY_RUN_BUDGET) */
    #define ND_RUN_BUDGET		65536

make check's harness suite compares each with the macro in our kernel
files, so that the kernel and the tests cannot drift apart unseen.
"""
import re
import sys

import assemble
import layout

UTIL = "tools/testing/selftests/filesystems/negative_dentries/" \
    "negative_dentry_util.h"

# A comment, its last parenthesised MACRO, then the test's #define.
COPY = re.compile(r"\((\w+)\)\.?\s*\*/\s*\n#define\s+(ND_\w+)\s+(\d+)L?\b")
DEFINE = r"^#define\s+{}\s+(\d+)L?\b"


def copies(text):
    """[(test macro, its value, kernel macro)] that @text restates."""
    return [(ours, int(value), kernel)
            for kernel, ours, value in COPY.findall(text)]


def kernel_value(macro, texts):
    """The value of @macro in the first of @texts to define it, or None."""
    for text in texts:
        found = re.search(DEFINE.format(re.escape(macro)), text, re.M)
        if found:
            return int(found.group(1))
    return None


def mismatches(util, kernel_texts):
    """What the copies in @util get wrong: a sentence for each."""
    out = []
    for ours, value, kernel in copies(util):
        theirs = kernel_value(kernel, kernel_texts)
        if theirs is None:
            out.append(f"{ours} copies {kernel}, which no kernel file of "
                       "ours defines")
        elif theirs != value:
            out.append(f"{ours} is {value}, {kernel} {theirs}")
    return out


def kernel_files():
    """The texts of the kernel files the series adds (not its tests)."""
    texts = []
    for _, files in assemble.series_entries(f"{layout.ROOT}/patches"):
        for path in files:
            if path.endswith((".c", ".h")) and "/tests/" not in path and \
                    not path.startswith("tools/"):
                with open(f"{layout.ROOT}/{path}") as f:
                    texts.append(f.read())
    return texts


def check():
    """(the copies found, what they get wrong)."""
    with open(f"{layout.ROOT}/{UTIL}") as f:
        util = f.read()
    return copies(util), mismatches(util, kernel_files())


if __name__ == "__main__":
    found, wrong = check()
    for ours, value, kernel in found:
        print(f"{ours} {value} ({kernel})")
    for line in wrong:
        print(f"wrong: {line}")
    sys.exit(1 if wrong else 0)
