"""Draw the strength levels' measured ratings (genchess.levels.CALIBRATION) against the
skill, with their 95% intervals (open markers: chained below the ladder) and the UCI_Elo mapping between them: docs/levels.png.

    python scripts/maintenance/plot_levels.py [OUT.png]
"""

from __future__ import annotations

import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from genchess import levels  # noqa: E402


def main(out: str = "docs/levels.png") -> None:
    if not out.lower().endswith(".png"):
        sys.exit(f"plot_levels: {out}: the plot is a PNG file; name it NAME.png")
    points = sorted(levels.CALIBRATION, key=lambda p: p.skill)
    fig, ax = plt.subplots(figsize=(8, 5))
    for chained, style, label in (
            (False, dict(fmt="o"), "measured rating (95%), 10+0.1 against the Stockfish ladder"),
            (True, dict(fmt="o", mfc="white"), "chained below the ladder: against Stockfish "
                                               "1350 and measured levels")):
        group = [p for p in points if p.chained == chained]
        if group:
            ax.errorbar([p.skill for p in group], [p.elo for p in group],
                        yerr=[p.interval for p in group], capsize=4, color="C0",
                        label=label, **style)
    ax.plot([p.skill for p in points], [p.elo for p in points], "-", alpha=0.6,
            label="UCI_Elo to skill: interpolated between measured points")
    for p in points:
        ax.annotate(f"{p.elo} ({p.games} games)", (p.skill, p.elo), textcoords="offset points",
                    xytext=(9, 4), fontsize=8)
    ax.set_xlabel("skill (Skill Level)")
    ax.set_ylabel("rating on Stockfish's UCI_Elo scale")
    ax.set_xticks(range(0, levels.MAX_SKILL + 1, 2))
    ax.set_xlim(-0.5, levels.MAX_SKILL + 0.5)
    ax.set_title("GenChess strength levels")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print(f"wrote {out}")


if __name__ == "__main__":
    main(*sys.argv[1:2])
