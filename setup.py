"""Build the Cython core.

Release builds use -O3 and, on x86-64, the popcnt/bmi instruction sets that every
CPU of the last decade has (so popcount and ctz are one instruction). Set
GENCHESS_NATIVE=1 to tune for this exact CPU (-march=native), GENCHESS_PORTABLE=1
to use no CPU-specific flags (the network trainer's module adds OpenMP's flag where the
compiler has it), GENCHESS_DEBUG=1 for a debug build with bounds
checks, -O0 -g and Cython's line tracing off but its safety checks on, and
GENCHESS_TSAN=1 for a ThreadSanitizer build of the release code (-O1 -g), which
finds data races between the search threads (docs/building.md says how to run it:
Python itself is not instrumented, so libtsan is preloaded).
"""

import os
import platform
import runpy
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

# The network trainer's loops (network_fit.pyx) run on every core through OpenMP, and
# only they: the engine's threads are its own. A compiler without OpenMP (Apple's clang
# without libomp) builds the same loops for one thread.
THREADED = {"network_fit"}
# The trainer's loops give the same numbers bit for bit from each of their versions
# (baseline, AVX2, AVX-512: a test holds it), so a run resumes exactly on any machine. A
# compiler that fuses a * b + c into one rounding (FMA, which -march=native lets GCC use
# in the baseline too) would break that: these modules never fuse.
EXACT_FLOATS = {"network_fit"}
NO_FUSING = [] if sys.platform == "win32" else ["-ffp-contract=off"]   # MSVC 2022 fuses only if asked (/fp:contract)


def openmp_flags() -> list[str]:
    """The flag that turns OpenMP on, if this compiler accepts it (tried on a tiny program)."""
    if sys.platform == "win32":
        return ["/openmp"]
    import shutil
    import subprocess
    import tempfile
    import sysconfig
    compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()
    if not shutil.which(compiler[0]):
        return []
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "omp.c"
        source.write_text("#include <omp.h>\nint main(void) { return omp_get_max_threads() < 1; }\n")
        done = subprocess.run(compiler + ["-fopenmp", str(source), "-o", str(Path(folder) / "omp")],
                              capture_output=True)
    return ["-fopenmp"] if done.returncode == 0 else []


# Its C loops may take sqrt as one instruction and a comparison without a branch, so
# that they vectorise: Python reads no math errno and enables no floating-point traps,
# and neither flag changes a result.
OPENMP = openmp_flags() + ([] if sys.platform == "win32" else ["-fno-math-errno", "-fno-trapping-math"])
if "-fopenmp" not in OPENMP and sys.platform != "win32":
    print("setup.py: this compiler has no OpenMP: the network trainer will run on one thread",
          file=sys.stderr)

# The search genes' struct is made from their one table before Cython reads search.pxd
# (genchess_core/search_gene_table.py says why); run by path, as nothing is built yet.
CORE = Path(__file__).resolve().parent / "genchess_core"
runpy.run_path(str(CORE / "search_gene_table.py"))["write_struct_pxi"](CORE)

extensions = [
    Extension(
        f"genchess_core.{path.stem}",
        [str(path)],
        include_dirs=["genchess_core"],
        depends=[str(p) for p in Path("genchess_core").glob("*.h")],
        extra_compile_args=compile_args + (OPENMP if path.stem in THREADED else [])
        + (NO_FUSING if path.stem in EXACT_FLOATS else []),
        extra_link_args=(["-fsanitize=thread"] if TSAN and sys.platform != "win32" else [])
        + (OPENMP if path.stem in THREADED and sys.platform != "win32" else []),
    )
    for path in sorted(Path("genchess_core").glob("*.pyx"))
]

setup(
    ext_modules=cythonize(extensions, compiler_directives=directives,
                          annotate=os.environ.get("GENCHESS_ANNOTATE") == "1"),
)
