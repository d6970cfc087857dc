"""PGN text for a finished game, written by GenChess itself.

One writer for every game GenChess records (`genchess play --pgn`, the trainer's
games files), with SAN from players.human (checked against python-chess on 1.4M
moves) so no PGN library is needed at run time.
"""

from __future__ import annotations

import datetime

from genchess import __version__
from genchess.game import GameRecord
from genchess.players.human import san_line
from genchess_core import STARTING_FEN, Board

# PGN's Termination tag knows a few words; everything else is "normal".
PGN_TERMINATION = {"time forfeit": "time forfeit", "abandoned": "abandoned",
                   "illegal move": "rules infraction", "crash": "abandoned",
                   "protocol error": "rules infraction", "adjudication": "adjudication"}


def time_control_tags(record: GameRecord) -> list[tuple[str, str]]:
    """TimeControl, or with time odds WhiteTimeControl and BlackTimeControl (as
    cutechess writes them)."""
    if record.black_time_control and record.black_time_control != record.time_control:
        return [("WhiteTimeControl", record.time_control), ("BlackTimeControl", record.black_time_control)]
    return [("TimeControl", record.time_control)]


def pgn_text(record: GameRecord, date: str | None = None, event: str = "GenChess game",
             seed: int | None = None, tags: dict[str, str] | None = None) -> str:
    """A PGN game with the Seven Tag Roster, TimeControl, Termination, FEN/SetUp for
    a non-standard start (and Variant "Chess960" with the FEN for every Chess960
    game, as python-chess and cutechess write it), a comment closing the opening's
    moves (if the record began with some), and the reason as a comment before the
    result. `tags` replace tags of the same name and add the others (the trainer's
    Pool, IDs...)."""
    board = Board(record.start_fen, chess960=record.chess960)
    sans = san_line(board, record.moves)
    termination = PGN_TERMINATION.get(record.termination, "normal")
    tag_list = [("Event", event), ("Site", "GenChess " + __version__),
            ("Date", date or datetime.date.today().strftime("%Y.%m.%d")), ("Round", "-"),
            ("White", record.white), ("Black", record.black), ("Result", record.result),
            *time_control_tags(record), ("Termination", termination),
            ("PlyCount", str(len(record.moves)))]
    if record.chess960:
        tag_list.append(("Variant", "Chess960"))
    if record.start_fen != STARTING_FEN or record.chess960:
        tag_list += [("SetUp", "1"), ("FEN", record.start_fen)]
    if seed is not None:
        tag_list.append(("Annotator", f"genchess play --seed {seed}"))
    merged = dict(tag_list)
    merged.update(tags or {})
    out = [f'[{name} "{value.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"]'
           for name, value in merged.items()]
    tokens = []
    number, white = board.fullmove_number, board.turn == "w"
    for i, text in enumerate(sans):
        if white:
            tokens.append(f"{number}.")
        elif i == 0:
            tokens.append(f"{number}...")
        tokens.append(text)
        if i + 1 == record.opening_plies:
            tokens.append("{end of opening}")
        if not white:
            number += 1
        white = not white
    reason = record.reason.replace("{", "(").replace("}", ")")
    tokens += ["{" + reason + "}", record.result]
    lines, line = [], ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > 79:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    lines.append(line)
    return "\n".join(out) + "\n\n" + "\n".join(lines) + "\n\n"
