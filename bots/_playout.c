/* The learned playout's rollouts in C: `bots.playout.LinearPlayout.play_outs` without the interpreter.
 *
 * One call reads a position once and plays it to the end of its round after each of a list of first
 * moves (a search's candidates on one sample), every seat choosing as `LinearPlayout.action` does
 * and every action applied as `sdk.engine.Game.apply` does (docs/rules.md §4-§7), and returns each
 * rollout's round scores and the number of actions it played. It is an accelerator
 * only: bots/playout.py holds the definition, and with the same weights this code must choose the
 * same actions in the same order of candidates, with the same floating-point sums, so that ties
 * and near-ties break alike (tests/bots/test_compiled_playout.py plays both on thousands of
 * positions). Where the build has no C compiler the Python code runs instead, with the same results.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define MAX_SEATS 5
#define MAX_CARDS 48 /* more than the 45-card deck, so a hand can always take one more card */
#define MAX_SHOWS (MAX_CARDS * (MAX_CARDS + 1) / 2) /* at most one show per pair of ends */
#define NO_KEY (-1)
#define SEQUENCE 0
#define GROUP 1
#define NEAR_OUT 2
#define EARLY_TURNS 2
#define LOW_SINGLE 4

enum { CAPTURED, CARDS_AFTER, SETS_AFTER, EMPTIES, IS_SCOUT, IS_SCOUT_SHOW, SHOWN_LENGTH, SHOWN_LOWEST,
       SHOWN_GROUP, SCOUT_NEAR_OUT, SCOUTED_VALUE, LONGEST_AFTER, SCOUT_EARLY, SHOW_SINGLE_LOW, N_FEATURES };
/* bots.playout.FEATURES, in order. */

enum { EMPTY_HAND, BACK_TO_OWNER, CANNOT_ANSWER, ACTION_CAP };

typedef struct {
    int top[MAX_CARDS];
    int bottom[MAX_CARDS];
    int n;
} Cards;

typedef struct {
    int players;
    Cards hands[MAX_SEATS];
    Cards active;
    int active_key; /* a set's strength (length, kind, lowest) as one comparable int; NO_KEY if none */
    int owner;      /* -1: nobody has shown this round */
    int to_move;
    int chips[MAX_SEATS];
    int scout_show[MAX_SEATS];
    int captured[MAX_SEATS];
    int round_actions;
    int cap;
    double weights[N_FEATURES]; /* the playout's, one per feature */
} State;

typedef struct {
    int kind; /* SHOW, SCOUT or SCOUT_SHOW */
    int start, length;
    int end, flip, position;
} Move;

enum { SHOW, SCOUT, SCOUT_SHOW };

static inline int key_of(int length, int kind, int lowest) { return (length << 8) | (kind << 6) | lowest; }

/* sdk.engine.sets.set_key of a valid set (every set the playout meets is one). */
static int set_key(const int *tops, int n) {
    if (n == 0) return NO_KEY;
    if (n == 1 || tops[1] == tops[0]) return key_of(n, GROUP, tops[0]);
    return key_of(n, SEQUENCE, tops[0] < tops[n - 1] ? tops[0] : tops[n - 1]);
}

/* sdk.engine.sets.set_key of any cards: NO_KEY where they are no set. */
static int checked_set_key(const int *tops, int n) {
    if (n == 0) return NO_KEY;
    int step = n > 1 ? tops[1] - tops[0] : 0;
    if (step < -1 || step > 1) return NO_KEY;
    for (int i = 2; i < n; i++)
        if (tops[i] - tops[i - 1] != step) return NO_KEY;
    return set_key(tops, n);
}

/* The length of the run of one step (0, +1 or -1) that starts at card i, and that step. */
static int run_from(const int *tops, int n, int i, int *step) {
    if (i + 1 >= n) return 1;
    int d = tops[i + 1] - tops[i];
    if (d < -1 || d > 1) return 1;
    int j = i + 2;
    while (j < n && tops[j] - tops[j - 1] == d) j++;
    *step = d;
    return j - i;
}

typedef struct {
    int start, length;
} Span;

/* sdk.engine.legal_shows: every show that beats `beat`, by start; from one start runs before
 * groups (a single card is a group), each shortest first. Returns how many were written. */
static int legal_shows(const int *tops, int n, int beat, Span *out) {
    int count = 0;
    for (int i = 0; i < n; i++) {
        int step = 9;
        int run = run_from(tops, n, i, &step);
        int single = key_of(1, GROUP, tops[i]) > beat;
        if (step == 0) {
            if (single) out[count++] = (Span){i, 1};
            for (int len = 2; len <= run; len++)
                if (key_of(len, GROUP, tops[i]) > beat) out[count++] = (Span){i, len};
        } else {
            for (int len = 2; len <= run; len++) {
                int last = tops[i + len - 1];
                if (key_of(len, SEQUENCE, tops[i] < last ? tops[i] : last) > beat) out[count++] = (Span){i, len};
            }
            if (single) out[count++] = (Span){i, 1};
        }
    }
    return count;
}

/* bots.greedy.greedy_split: the sets of the split that takes the longest set from the left, and
 * the longest of them. */
static void greedy_split(const int *tops, int n, int *sets, int *longest) {
    int parts = 0, most = 0, i = 0;
    while (i < n) {
        parts++;
        int j = i + 1;
        if (j < n) {
            int step = tops[j] - tops[i];
            if (step >= -1 && step <= 1) {
                j++;
                while (j < n && tops[j] - tops[j - 1] == step) j++;
            }
        }
        if (j - i > most) most = j - i;
        i = j;
    }
    *sets = parts;
    *longest = most;
}

/* bots.playout._Weights.hand_term: the hand part of a candidate's score. */
static double hand_term(const double *w, const int *tops, int n) {
    if (n == 0) return w[EMPTIES];
    int sets, longest;
    greedy_split(tops, n, &sets, &longest);
    return w[CARDS_AFTER] * n + w[SETS_AFTER] * sets + w[LONGEST_AFTER] * longest;
}

/* LinearPlayout.action's `shape` of a shown set of 2+ cards. */
static double shape(const double *w, const int *shown, int length) {
    int lowest = shown[0] < shown[length - 1] ? shown[0] : shown[length - 1];
    double score = w[SHOWN_LENGTH] * length + w[SHOWN_LOWEST] * lowest / 10;
    if (shown[0] == shown[1]) score += w[SHOWN_GROUP];
    return score;
}

/* `tops` without cards start..start+length-1, into `out`; returns its length. */
static int without(const int *tops, int n, int start, int length, int *out) {
    memcpy(out, tops, sizeof(int) * start);
    memcpy(out + start, tops + start + length, sizeof(int) * (n - start - length));
    return n - length;
}

/* bots.montecarlo._runs_through: the longest group and runs of 2+ cards through card pos. */
static int runs_through(const int *hand, int n, int pos, Span *out) {
    static const int steps[3] = {0, 1, -1};
    int found = 0;
    for (int k = 0; k < 3; k++) {
        int step = steps[k];
        int a = pos, b = pos;
        while (a > 0 && hand[a] - hand[a - 1] == step) a--;
        while (b < n - 1 && hand[b + 1] - hand[b] == step) b++;
        if (b > a) out[found++] = (Span){a, b - a + 1};
    }
    return found;
}

static inline int near(int a, int b) { return a - b >= -1 && a - b <= 1; }

/* LinearPlayout.action: the first candidate with the highest score. */
static Move choose(const State *s, const double *w) {
    int seat = s->to_move;
    const Cards *held = &s->hands[seat];
    const int *tops = held->top;
    int n = held->n;
    int gain = s->active.n;
    int after[MAX_CARDS + 1], hand[MAX_CARDS + 1];
    Span shows[MAX_SHOWS];
    Move best = {SHOW, 0, 0, 0, 0, 0};
    double best_score = -1e18;

    double show_base = w[CAPTURED] * gain;
    int count = legal_shows(tops, n, s->active_key, shows);
    for (int k = 0; k < count; k++) {
        int start = shows[k].start, length = shows[k].length;
        double score;
        double term = hand_term(w, after, without(tops, n, start, length, after));
        if (length == 1) {
            int lowest = tops[start];
            score = show_base + term + w[SHOWN_LENGTH] + w[SHOWN_LOWEST] * lowest / 10;
            if (lowest <= LOW_SINGLE) score += w[SHOW_SINGLE_LOW];
        } else {
            score = show_base + term + shape(w, tops + start, length);
        }
        if (score > best_score) {
            best = (Move){SHOW, start, length, 0, 0, 0};
            best_score = score;
        }
    }
    if (gain == 0 || (s->players == 2 && !s->chips[seat])) return best;

    double scout_base = w[IS_SCOUT];
    int fewest = MAX_CARDS;
    for (int o = 0; o < s->players; o++)
        if (o != seat && s->hands[o].n < fewest) fewest = s->hands[o].n;
    if (fewest <= NEAR_OUT) scout_base += w[SCOUT_NEAR_OUT];
    if (s->round_actions < EARLY_TURNS * s->players) scout_base += w[SCOUT_EARLY];
    double w_scouted = w[SCOUTED_VALUE] / 10;
    double scout_show_base = w[IS_SCOUT_SHOW] + w[CAPTURED] * (gain - 1);
    int can_scout_show = s->scout_show[seat];
    const Cards *active = &s->active;
    for (int end = 0; end < (gain > 1 ? 2 : 1); end++) {
        int taken = end ? gain - 1 : 0;
        int rest_key = set_key(active->top + (end ? 0 : 1), gain - 1);
        for (int flip = 0; flip < 2; flip++) {
            int v = flip ? active->bottom[taken] : active->top[taken];
            /* bots.montecarlo._joining_positions: beside a card within 1 of it, else the far left. */
            int positions[MAX_CARDS + 1], joining = 0;
            for (int pos = 0; pos <= n; pos++)
                if ((pos && near(tops[pos - 1], v)) || (pos < n && near(tops[pos], v))) positions[joining++] = pos;
            if (!joining) positions[joining++] = 0;
            for (int k = 0; k < joining; k++) {
                int pos = positions[k];
                memcpy(hand, tops, sizeof(int) * pos);
                hand[pos] = v;
                memcpy(hand + pos + 1, tops + pos, sizeof(int) * (n - pos));
                /* Beside its equal the card makes the hand of position pos - 1, scored already. */
                if (!(pos && tops[pos - 1] == v)) {
                    double score = scout_base + w_scouted * v + hand_term(w, hand, n + 1);
                    if (score > best_score) {
                        best = (Move){SCOUT, 0, 0, end, flip, pos};
                        best_score = score;
                    }
                }
                if (can_scout_show) {
                    Span runs[3];
                    int found = runs_through(hand, n + 1, pos, runs);
                    for (int r = 0; r < found; r++) {
                        int start = runs[r].start, length = runs[r].length;
                        if (rest_key != NO_KEY && !(set_key(hand + start, length) > rest_key)) continue;
                        int left = without(hand, n + 1, start, length, after);
                        double score = scout_show_base + w_scouted * v + hand_term(w, after, left) +
                                       shape(w, hand + start, length);
                        if (score > best_score) {
                            best = (Move){SCOUT_SHOW, start, length, end, flip, pos};
                            best_score = score;
                        }
                    }
                }
            }
        }
    }
    return best;
}

/* Why `m` is not one of the mover's legal actions (docs/rules.md §4-§5), or NULL if it is: a caller's
 * first move is checked as Game.apply would check it. */
static const char *illegal(const State *s, Move m) {
    int seat = s->to_move, n = s->hands[seat].n, beat = s->active_key;
    const Cards *active = &s->active;
    int tops[MAX_CARDS + 1];
    memcpy(tops, s->hands[seat].top, sizeof(int) * n);
    if (m.kind != SHOW && m.kind != SCOUT && m.kind != SCOUT_SHOW) return "a move is a show, a scout or a scout & show";
    if (m.kind != SHOW) {
        if (!active->n) return "there is no active set to scout from";
        if (s->players == 2 && !s->chips[seat]) return "the mover has no scout chip left";
        if (m.kind == SCOUT_SHOW && !s->scout_show[seat]) return "the mover has used its Scout & Show chip";
        if ((m.end != 0 && m.end != 1) || (m.flip != 0 && m.flip != 1)) return "a scout's end and flip are 0 or 1";
        if (m.position < 0 || m.position > n) return "the scout's insert position is outside the hand";
        int at = m.end && active->n > 1 ? active->n - 1 : 0;
        memmove(tops + m.position + 1, tops + m.position, sizeof(int) * (n - m.position));
        tops[m.position] = m.flip ? active->bottom[at] : active->top[at];
        n++;
        beat = set_key(active->top + (at ? 0 : 1), active->n - 1);
    }
    if (m.kind == SCOUT) return NULL;
    if (m.start < 0 || m.length < 1 || m.start + m.length > n) return "the shown cards are outside the hand";
    int key = checked_set_key(tops + m.start, m.length);
    if (key == NO_KEY) return "the shown cards are neither a group nor a sequence";
    if (!(key > beat)) return "the set shown is not stronger than the active set";
    return NULL;
}

static void put_shown(State *s, int seat, int start, int length) {
    Cards *hand = &s->hands[seat];
    s->active_key = set_key(hand->top + start, length);
    s->captured[seat] += s->active.n;
    memcpy(s->active.top, hand->top + start, sizeof(int) * length);
    memcpy(s->active.bottom, hand->bottom + start, sizeof(int) * length);
    s->active.n = length;
    memmove(hand->top + start, hand->top + start + length, sizeof(int) * (hand->n - start - length));
    memmove(hand->bottom + start, hand->bottom + start + length, sizeof(int) * (hand->n - start - length));
    hand->n -= length;
    s->owner = seat;
}

/* Game._take_scouted: the card into the hand, the chip paid, the active set's strength updated. */
static void take_scouted(State *s, int seat, int end, int flip, int pos) {
    Cards *active = &s->active;
    int at = end && active->n > 1 ? active->n - 1 : 0;
    int top = active->top[at], bottom = active->bottom[at];
    if (flip) {
        int t = top;
        top = bottom;
        bottom = t;
    }
    memmove(active->top + at, active->top + at + 1, sizeof(int) * (active->n - at - 1));
    memmove(active->bottom + at, active->bottom + at + 1, sizeof(int) * (active->n - at - 1));
    active->n--;
    Cards *hand = &s->hands[seat];
    memmove(hand->top + pos + 1, hand->top + pos, sizeof(int) * (hand->n - pos));
    memmove(hand->bottom + pos + 1, hand->bottom + pos, sizeof(int) * (hand->n - pos));
    hand->top[pos] = top;
    hand->bottom[pos] = bottom;
    hand->n++;
    if (s->players == 2)
        s->chips[seat]--;
    else
        s->chips[s->owner]++;
    s->active_key = set_key(active->top, active->n);
}

/* Game._pass_turn_two_players: the round ends if `mover` cannot answer (§6.2) or at the cap. */
static int pass_turn_two_players(State *s, int mover) {
    if (s->active.n && !s->chips[mover]) {
        Span shows[MAX_SHOWS];
        if (!legal_shows(s->hands[mover].top, s->hands[mover].n, s->active_key, shows)) return CANNOT_ANSWER;
    }
    if (s->round_actions >= s->cap) return ACTION_CAP;
    s->to_move = mover;
    return -1;
}

/* Game.apply of a move the playout chose (legal by construction); the round's end reason, or -1. */
static int apply(State *s, Move m) {
    int seat = s->to_move, n = s->players;
    if (m.kind != SHOW) {
        take_scouted(s, seat, m.end, m.flip, m.position);
        if (m.kind == SCOUT_SHOW) s->scout_show[seat] = 0;
    }
    if (m.kind != SCOUT) put_shown(s, seat, m.start, m.length);
    s->round_actions++;
    if (m.kind != SCOUT && s->hands[seat].n == 0) return EMPTY_HAND;
    if (n == 2) return pass_turn_two_players(s, m.kind == SCOUT ? seat : 1 - seat);
    if (m.kind == SCOUT && (seat + 1) % n == s->owner) return BACK_TO_OWNER;
    if (s->round_actions >= s->cap) return ACTION_CAP;
    s->to_move = (seat + 1) % n;
    return -1;
}

/* -- reading the position from Python ---------------------------------------------------------- */

static int read_int(PyObject *item, int *out, const char *what) {
    long v = PyLong_AsLong(item);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < -1000000 || v > 1000000) {
        PyErr_Format(PyExc_ValueError, "%s %ld is out of range", what, v);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* A card's number (docs/rules.md §1), which `key_of` packs into 6 bits. */
static int read_value(PyObject *item, int *out) {
    if (read_int(item, out, "a card's value")) return -1;
    if (*out < 1 || *out > 10) {
        PyErr_Format(PyExc_ValueError, "a card's value is 1 to 10, not %d", *out);
        return -1;
    }
    return 0;
}

static int read_cards(PyObject *seq, Cards *out, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n >= MAX_CARDS) {
        PyErr_Format(PyExc_ValueError, "%s holds %zd cards, more than a deck", what, n);
        Py_DECREF(fast);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *card = PySequence_Fast_GET_ITEM(fast, i);
        if (!PyTuple_Check(card) || PyTuple_GET_SIZE(card) != 2) {
            PyErr_Format(PyExc_TypeError, "%s: a card is a (top, bottom) pair", what);
            Py_DECREF(fast);
            return -1;
        }
        if (read_value(PyTuple_GET_ITEM(card, 0), &out->top[i]) ||
            read_value(PyTuple_GET_ITEM(card, 1), &out->bottom[i])) {
            Py_DECREF(fast);
            return -1;
        }
    }
    out->n = (int)n;
    Py_DECREF(fast);
    return 0;
}

/* One int per seat from `seq`, or its items' lengths when `lengths` is set. */
static int read_seats(PyObject *seq, int players, int *out, int lengths, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast) return -1;
    if (PySequence_Fast_GET_SIZE(fast) != players) {
        PyErr_Format(PyExc_ValueError, "%s has %zd entries for %d seats", what, PySequence_Fast_GET_SIZE(fast),
                     players);
        Py_DECREF(fast);
        return -1;
    }
    for (int i = 0; i < players; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(fast, i);
        if (lengths) {
            Py_ssize_t size = PyObject_Length(item);
            if (size < 0) {
                Py_DECREF(fast);
                return -1;
            }
            out[i] = (int)size;
        } else if (read_int(item, &out[i], what)) {
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    return 0;
}

PyDoc_STRVAR(play_rounds_doc,
             "play_rounds(hands, active, owner, to_move, chips, scout_show, captured, round_actions, weights, cap, "
             "firsts, worth=None)\n"
             "--\n\n"
             "Play a position in the PLAY phase to the end of its round with the linear playout of `weights`\n"
             "(one per bots.playout.FEATURES), once for each entry of `firsts`: after that move of the mover's,\n"
             "(kind, start, length, end, flip, position), kind 0 a show, 1 a scout, 2 a scout & show, or with\n"
             "no move first where it is None. Return a list with one (the round's scores, actions played,\n"
             "the first move included) per entry, in order; or, given `worth` (seat, lead, totals), the list\n"
             "of what each round's scores are worth to that seat (bots.playout.Worth) and the actions all\n"
             "the rollouts played. The position is read once. Changes nothing.");

/* One rollout of the position `s` (a copy: `s` is left as it was), after `first` unless it is None:
 * every seat's round score into `scores` and the actions played into `played`; -1 with an exception
 * set if it cannot be played. */
static int play_one(State s, PyObject *first, int *scores, int *played) {
    int start = s.round_actions, reason = -1;
    if (first != Py_None) {
        Move m;
        if (!PyTuple_Check(first)) {
            PyErr_Format(PyExc_TypeError, "a move is a tuple of 6 ints");
            return -1;
        }
        if (!PyArg_ParseTuple(first, "iiiiii;a move is (kind, start, length, end, flip, position)", &m.kind,
                              &m.start, &m.length, &m.end, &m.flip, &m.position))
            return -1;
        const char *why = illegal(&s, m);
        if (why) {
            PyErr_Format(PyExc_ValueError, "illegal first move: %s", why);
            return -1;
        }
        reason = apply(&s, m);
    }
    while (reason < 0) {
        if (s.hands[s.to_move].n + 1 >= MAX_CARDS) {
            PyErr_Format(PyExc_ValueError, "a hand outgrew the deck");
            return -1;
        }
        Move move = choose(&s, s.weights);
        if (move.kind == SHOW && move.length == 0) {
            PyErr_Format(PyExc_ValueError, "seat %d has no move: the position is not one of a round", s.to_move);
            return -1;
        }
        reason = apply(&s, move);
    }
    int exempt = reason == BACK_TO_OWNER || reason == CANNOT_ANSWER ? s.owner : -1;
    for (int i = 0; i < s.players; i++) scores[i] = s.captured[i] + s.chips[i] - (i == exempt ? 0 : s.hands[i].n);
    *played = s.round_actions - start;
    return 0;
}

/* What a round's scores are worth to one seat (bots.playout.Worth): its score against the others'
 * mean, blended by `lead` into its total against the best other total after the round. */
typedef struct {
    int seat;
    double lead;
    int totals[MAX_SEATS];
} Worth;

/* bots.playout.Worth.__call__, the same operations in the same order, so the same double. */
static double worth_of(const Worth *w, const int *scores, int players) {
    int mine = scores[w->seat], sum = 0, best = 0, first = 1;
    for (int i = 0; i < players; i++) {
        sum += scores[i];
        if (i == w->seat) continue;
        int total = w->totals[i] + scores[i];
        if (first || total > best) best = total;
        first = 0;
    }
    double lead = (double)(w->totals[w->seat] + mine - best);
    double margin = (double)mine - (double)(sum - mine) / (double)(players - 1);
    return (1.0 - w->lead) * margin + w->lead * lead;
}

static int read_worth(PyObject *obj, int players, Worth *out) {
    PyObject *totals;
    if (!PyArg_ParseTuple(obj, "idO;worth is (seat, lead, totals)", &out->seat, &out->lead, &totals)) return -1;
    if (out->seat < 0 || out->seat >= players) {
        PyErr_Format(PyExc_ValueError, "worth's seat %d is outside 0..%d", out->seat, players - 1);
        return -1;
    }
    return read_seats(totals, players, out->totals, 0, "worth's totals");
}

static PyObject *play_rounds(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *hands, *active, *owner, *chips, *scout_show, *captured, *weights, *firsts, *worth_arg = Py_None;
    State s;
    if (!PyArg_ParseTuple(args, "OOOiOOOiOiO|O", &hands, &active, &owner, &s.to_move, &chips, &scout_show, &captured,
                          &s.round_actions, &weights, &s.cap, &firsts, &worth_arg))
        return NULL;
    PyObject *fast = PySequence_Fast(hands, "hands must be a sequence of hands");
    if (!fast) return NULL;
    Py_ssize_t players = PySequence_Fast_GET_SIZE(fast);
    if (players < 2 || players > MAX_SEATS) {
        Py_DECREF(fast);
        return PyErr_Format(PyExc_ValueError, "a table seats 2 to %d players, not %zd", MAX_SEATS, players);
    }
    s.players = (int)players;
    for (int i = 0; i < s.players; i++) {
        if (read_cards(PySequence_Fast_GET_ITEM(fast, i), &s.hands[i], "a hand")) {
            Py_DECREF(fast);
            return NULL;
        }
    }
    Py_DECREF(fast);
    if (read_cards(active, &s.active, "the active set")) return NULL;
    s.owner = -1;
    if (owner != Py_None && read_int(owner, &s.owner, "the owner")) return NULL;
    if (s.to_move < 0 || s.to_move >= s.players || s.owner < -1 || s.owner >= s.players)
        return PyErr_Format(PyExc_ValueError, "a seat is outside 0..%d", s.players - 1);
    if (s.active.n && s.owner < 0) return PyErr_Format(PyExc_ValueError, "an active set needs its owner");
    if (read_seats(chips, s.players, s.chips, 0, "chips") ||
        read_seats(scout_show, s.players, s.scout_show, 0, "scout_show") ||
        read_seats(captured, s.players, s.captured, 1, "captured"))
        return NULL;
    PyObject *wfast = PySequence_Fast(weights, "weights must be a sequence of floats");
    if (!wfast) return NULL;
    if (PySequence_Fast_GET_SIZE(wfast) != N_FEATURES) {
        Py_DECREF(wfast);
        return PyErr_Format(PyExc_ValueError, "a playout needs %d weights", N_FEATURES);
    }
    for (int i = 0; i < N_FEATURES; i++) {
        s.weights[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(wfast, i));
        if (s.weights[i] == -1.0 && PyErr_Occurred()) {
            Py_DECREF(wfast);
            return NULL;
        }
    }
    Py_DECREF(wfast);
    s.active_key = checked_set_key(s.active.top, s.active.n);
    if (s.active.n && s.active_key == NO_KEY)
        return PyErr_Format(PyExc_ValueError, "the active set is neither a group nor a sequence");

    Worth worth;
    int valued = worth_arg != Py_None;
    if (valued && read_worth(worth_arg, s.players, &worth)) return NULL;
    PyObject *moves = PySequence_Fast(firsts, "firsts must be a sequence of moves or None");
    if (!moves) return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(moves);
    PyObject *results = PyList_New(count);
    if (!results) {
        Py_DECREF(moves);
        return NULL;
    }
    long actions = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        int scores[MAX_SEATS], played;
        PyObject *result = NULL;
        if (!play_one(s, PySequence_Fast_GET_ITEM(moves, i), scores, &played)) {
            actions += played;
            if (valued) {
                result = PyFloat_FromDouble(worth_of(&worth, scores, s.players));
            } else {
                PyObject *tuple = PyTuple_New(s.players);
                for (int k = 0; tuple && k < s.players; k++) {
                    PyObject *score = PyLong_FromLong(scores[k]);
                    if (!score) Py_CLEAR(tuple);
                    else PyTuple_SET_ITEM(tuple, k, score);
                }
                if (tuple) result = Py_BuildValue("(Ni)", tuple, played);
            }
        }
        if (!result) {
            Py_DECREF(results);
            Py_DECREF(moves);
            return NULL;
        }
        PyList_SET_ITEM(results, i, result);
    }
    Py_DECREF(moves);
    if (valued) return Py_BuildValue("(Nl)", results, actions);
    return results;
}

static PyMethodDef methods[] = {
    {"play_rounds", play_rounds, METH_VARARGS, play_rounds_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "bots._playout",
    .m_doc = "The learned playout's rollout in C (bots/_playout.c).",
    .m_size = -1,
    .m_methods = methods,
};

#ifndef SOURCE_SHA256
#define SOURCE_SHA256 "unknown"
#endif

PyMODINIT_FUNC PyInit__playout(void) {
    PyObject *m = PyModule_Create(&module);
    /* What hatch_build.py compiled, so a test can tell a module older than its source. */
    if (m && PyModule_AddStringConstant(m, "SOURCE_SHA256", SOURCE_SHA256) < 0) Py_CLEAR(m);
    return m;
}
