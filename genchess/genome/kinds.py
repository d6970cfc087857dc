"""Evaluation kinds: which genome class reads a genome file's block, by its `Kind:`.

A genome file holds blocks `ID: n` ... `END`. A block may name its kind on the
line after `ID:` (`Kind: material`); without one it is a Genetic Chess genome,
so every file written before kinds existed still reads. Each kind is one module
of this package with one class that has:

    KIND                           the name used after `Kind:`
    id                             the genome ID
    from_lines(id, lines, path)    build from the block's `(line number, text)`
                                   lines between `Kind:` and `END`; GenomeError
                                   with path:line on any problem
    to_text()                      the whole block, `ID:` to `END`, read back equal
    pack()                         the flat dict the C evaluation loads once, with
                                   `kind` set, plus the time-management keys
                                   (genes.time_management_defaults() for kinds that
                                   do not evolve them)
    copy(new_id=None), __eq__

The file's framing (`ID:`, `Kind:`, `END`, `Still Alive:` lines, comments) is read
by genome_file.py for every kind alike; a kind reads only its block's lines.
Evolutionary operators belong to the trainer that uses the kind: each design
mutates in its own way (gene-wise, by population spread, by table squares).

Every problem with a genome, whatever its kind and wherever it is loaded, is one
GenomeError whose message names the file (and the line), so every entry point
prints it the same way.
"""

from __future__ import annotations

from genchess.console import quoted as quote   # noqa: F401  (the genome modules' name for it)


class GenomeError(ValueError):
    """A genome file that cannot be used; the message reads `path:line: problem`."""

    @classmethod
    def at(cls, path: str, line: int | None, problem: str) -> GenomeError:
        where = path if line is None else f"{path}:{line}"
        return cls(f"{where}: {problem}")


GENOME_KINDS: dict[str, type] = {}


def register_kind(cls: type) -> type:
    """Class decorator: make `Kind: <cls.KIND>` blocks read as `cls`."""
    GENOME_KINDS[cls.KIND] = cls
    return cls


def kind_class(name: str, path: str, line: int) -> type:
    cls = GENOME_KINDS.get(name)
    if cls is None:
        known = ", ".join(sorted(GENOME_KINDS))
        raise GenomeError.at(path, line, f"unknown genome kind {quote(name)} (known: {known})")
    return cls

