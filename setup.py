"""Build the Cython core.

Release builds use -O3 and, on x86-64, the popcnt/bmi instruction sets that every
CPU of the last decade has (so popcount and ctz are one instruction). Set
GENCHESS_NATIVE=1 to tune for this exact CPU (-march=native), GENCHESS_PORTABLE=1
to use no CPU-specific flags, GENCHESS_DEBUG=1 for a debug build with bounds
checks, -O0 -g and Cython's line tracing off but its safety checks on, and
GENCHESS_TSAN=1 for a ThreadSanitizer build of the release code (-O1 -g), which
finds data races between the search threads (docs/building.md says how to run it:
Python itself is not instrumented, so libtsan is preloaded).
"""

import os
import platform
import sys
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("GENCHESS_DEBUG") == "1"
PORTABLE = os.environ.get("GENCHESS_PORTABLE") == "1"
NATIVE = os.environ.get("GENCHESS_NATIVE") == "1"
TSAN = os.environ.get("GENCHESS_TSAN") == "1"

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "cdivision": not DEBUG,
    "initializedcheck": DEBUG,
    "nonecheck": DEBUG,
    "embedsignature": True,
}

if sys.platform == "win32":
    compile_args = ["/Od", "/Zi"] if DEBUG else ["/O2"]
elif DEBUG:
    compile_args = ["-O0", "-g"]
elif TSAN:
    # -O1 keeps the code close to the release build's while the reports stay readable.
    compile_args = ["-O1", "-g", "-fno-omit-frame-pointer", "-fno-strict-aliasing", "-fsanitize=thread"]
else:
    compile_args = ["-O3", "-fno-strict-aliasing"]
    if NATIVE:
        compile_args.append("-march=native")
    elif not PORTABLE and platform.machine().lower() in ("x86_64", "amd64"):
        compile_args += ["-mpopcnt", "-mbmi"]

extensions = [
    Extension(
        f"genchess_core.{path.stem}",
        [str(path)],
        include_dirs=["genchess_core"],
        depends=[str(p) for p in Path("genchess_core").glob("*.h")],
        extra_compile_args=compile_args,
        extra_link_args=["-fsanitize=thread"] if TSAN and sys.platform != "win32" else [],
    )
    for path in sorted(Path("genchess_core").glob("*.pyx"))
]

setup(
    ext_modules=cythonize(extensions, compiler_directives=directives,
                          annotate=os.environ.get("GENCHESS_ANNOTATE") == "1"),
)
