# Pure Monte Carlo move choice: for each legal move, random playouts to the end.
#
# The trade-off is everything in C and nothing allocated per playout: a playout
# copies the root position into one stack struct, plays uniformly random legal
# moves from a fixed MAX_MOVES buffer with an xorshift generator, and stops at the
# first rule that ends a game (mate, stalemate, insufficient material, fifty moves,
# threefold repetition) or at PLAYOUT_MAX_PLIES. The GIL is released for the whole
# search, so memory stays the same whatever the time control: one object with
# per-root-move counters, and one stack frame.

from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from genchess_core.types cimport *
from genchess_core.position cimport Position, Undo, make_move, in_check, repetition_count, move_to_uci
from genchess_core.movegen cimport generate_legal, GEN_ALL, insufficient_material
from genchess_core.board cimport Board
from genchess_core.atomics cimport gc_shared_int


cdef double now_seconds() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef U64 xorshift64(U64* state) noexcept nogil:
    # xorshift64* (Vigna): full period, good enough low bits for picking moves.
    cdef U64 x = state[0]
    x ^= x >> 12
    x ^= x << 25
    x ^= x >> 27
    state[0] = x
    return x * <U64>2685821657736338717ULL


cdef int playout(Position* p, U64* rng, int max_plies, int side, int* plies) noexcept nogil:
    """Play random legal moves on `p` (modified) until the game ends; +1 if `side`
    wins, -1 if it loses, 0 for a draw. `plies` receives the playout's length."""
    cdef Move moves[MAX_MOVES]
    cdef Undo u
    cdef int n, ply = 0
    while True:
        n = generate_legal(p, moves, GEN_ALL)
        if n == 0:
            plies[0] = ply
            if in_check(p):
                return -1 if p.side == side else 1
            return 0
        if insufficient_material(p) or p.halfmove >= 100 or ply >= max_plies:
            plies[0] = ply
            return 0
        if p.halfmove >= 8 and repetition_count(p) >= 3:
            plies[0] = ply
            return 0
        make_move(p, moves[xorshift64(rng) % <U64>n], &u)
        ply += 1


cdef class MonteCarlo:
    """Playouts for every root move, round-robin, until the time is up or stop()."""
    cdef U64 rng
    cdef gc_shared_int stop_flag     # stop() from another thread (atomics.h)
    cdef int n_root
    cdef Move root[MAX_MOVES]
    cdef double total[MAX_MOVES]
    cdef long long count[MAX_MOVES]
    cdef long long playouts
    cdef long long plies

    def __cinit__(self, seed=0):
        self.reseed(seed)

    def reseed(self, seed):
        # splitmix-style scramble so small seeds give unrelated streams; never 0.
        cdef U64 z = (<U64>(int(seed) & 0xFFFFFFFFFFFFFFFF)) + <U64>0x9E3779B97F4A7C15ULL
        z = (z ^ (z >> 30)) * <U64>0xBF58476D1CE4E5B9ULL
        z = (z ^ (z >> 27)) * <U64>0x94D049BB133111EBULL
        z ^= z >> 31
        self.rng = z if z else 1

    def stop(self):
        """Make a running search return promptly (safe from another thread)."""
        self.stop_flag = 1

    def clear_stop(self):
        self.stop_flag = 0

    def progress(self):
        """(playouts, plies) of the running or last search; safe from another thread."""
        return self.playouts, self.plies

    @staticmethod
    def memory_bytes():
        """Bytes a search uses besides the interpreter: this object's C fields and
        the deepest C stack frame (root copy, work copy, move buffers). Constant:
        it does not depend on the time given."""
        return (sizeof(U64) + 2 * sizeof(int) + MAX_MOVES * (sizeof(Move) + sizeof(double)
                + sizeof(long long)) + 2 * sizeof(long long)
                + 2 * sizeof(Position) + 2 * MAX_MOVES * sizeof(Move) + 2 * sizeof(Undo))

    def search(self, Board board, double seconds, long long max_playouts=0,
               int max_plies=PLAYOUT_MAX_PLIES):
        """Search `board` for `seconds` (<= 0: until stop() or max_playouts) and
        return a dict: move (UCI or None), mean (the best move's average result
        in [-1, 1] for the side to move), playouts, plies, time, mate (True when
        the move mates at once) and moves: [(uci, mean, playouts)]. Call
        clear_stop() first; a pending stop() ends the search after one round."""
        cdef Position root = board.pos
        cdef Position work
        cdef Move moves[MAX_MOVES]
        cdef Undo u
        cdef int i, n, side = board.pos.side, length = 0, mate_index = -1, r
        cdef double start = now_seconds(), deadline = 0.0, elapsed
        cdef long long done = 0
        n = generate_legal(&root, moves, GEN_ALL)
        self.n_root = n
        for i in range(n):
            self.root[i] = moves[i]
            self.total[i] = 0.0
            self.count[i] = 0
        self.playouts = 0
        self.plies = 0
        if seconds > 0:
            deadline = start + seconds
        with nogil:
            # A move that mates at once needs no statistics.
            for i in range(n):
                work = root
                make_move(&work, self.root[i], &u)
                if in_check(&work) and generate_legal(&work, moves, GEN_ALL) == 0:
                    mate_index = i
                    break
            if mate_index < 0 and n > 0:
                while True:
                    i = <int>(done % n)
                    work = root
                    make_move(&work, self.root[i], &u)
                    r = playout(&work, &self.rng, max_plies, side, &length)
                    self.total[i] += r
                    self.count[i] += 1
                    self.plies += length + 1
                    done += 1
                    self.playouts = done
                    if i == n - 1:
                        # Stop only between rounds, so every move has as many playouts.
                        if self.stop_flag:
                            break
                        if max_playouts > 0 and done >= max_playouts:
                            break
                        if deadline > 0.0 and now_seconds() >= deadline:
                            break
                    elif deadline > 0.0 and (done & 15) == 0 and now_seconds() >= deadline + 0.05:
                        break       # a huge move list must not overrun the clock
        self.playouts = done
        elapsed = now_seconds() - start
        stats = [(move_to_uci(&root, self.root[i]),
                  self.total[i] / self.count[i] if self.count[i] else 0.0, self.count[i])
                 for i in range(n)]
        best = None
        mean = 0.0
        if mate_index >= 0:
            best, mean = move_to_uci(&root, self.root[mate_index]), 1.0
        elif n:
            # Best average; among equals the most tried, then the first generated.
            order = sorted(range(n), key=lambda k: (stats[k][2] > 0, stats[k][1], stats[k][2]),
                           reverse=True)
            best, mean = stats[order[0]][0], stats[order[0]][1]
        return {"move": best, "mean": mean, "playouts": done, "plies": self.plies,
                "time": elapsed, "mate": mate_index >= 0, "moves": stats}
