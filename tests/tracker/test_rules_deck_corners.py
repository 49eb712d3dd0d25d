"""The cards themselves, counted through a hand, in all four rulesets (shared/seeds/000_*..003_*): the 108-card deck
dealt seven a seat, the draw pile running out and restocked from the discard pile (CH default, FA-MISDEAL,
MA-RESHUFFLE, OL-RESTOCK), penalty cards drawn and owed across a restock, the cards a last Draw Two / Wild Draw Four
makes the next player draw (MA-LAST), reveals at the end of a hand and for a Wild Draw Four challenge, `count_mismatch`
(EVENTS.md: "a revealed hand holds a different number of cards than the log accounts for"), scores from revealed hands,
reveals the deck can't hold, a hand revealed twice, a reveal before the last card, a draw larger than the piles hold,
a redeal, and what `unotable replay --json` reports for the draw pile and the discard pile (stop 63's deck audit, h5).

Every `DeckCase` also counts the cards: at the end of the log the seats' hands (`counts` less what they `owe` and have
not drawn), the draw pile and the discard pile of `--json`'s state must hold the 108 cards of the deck, no more, no
less (CH "Всего в колоде 108 карт", FA "one fresh 108-card UNO deck", OL "The deck consists of 108 cards").

Each verdict comes from the rulebook text or EVENTS.md / README.md, quoted in `why`. `FINDINGS` are the cases the
engine got wrong before stop 63's fixes ("finding N": what it did).
"""

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from tracker.commands import register
from tracker.log import write_log
from tracker.script import RuleCase

CH, FA, MA, OL = "chempiunat", "falsonal", "mattel", "olympic"
DECK = 108


@dataclass(frozen=True)
class DeckCase(RuleCase):
    """A `RuleCase` that also counts the cards (`whole_deck`: hands + draw pile + discard pile = 108 at the end) and
    checks that the engine said something (`warn_at`: indices into `events()`, e.g. -1 for the last event, whose line
    must begin one of the state's warnings, "line N: ...")."""

    whole_deck: bool = True
    warn_at: tuple[int, ...] = ()

    def problems(self) -> list[str]:
        out = super().problems()
        state = self.run().state.to_dict()
        if self.whole_deck:
            held = sum(state["counts"]) - sum(state["owed"])
            total = held + state["draw_pile"] + state["discard_pile"]
            if total != DECK:
                out.append(f"{total} cards on the table, not {DECK}: hands {held} (counts {state['counts']}, owed "
                           f"{state['owed']}), draw pile {state['draw_pile']}, discard pile {state['discard_pile']}")
        events = self.events()
        for i in self.warn_at:
            line = events[i].line
            if not any(w.startswith(f"line {line}:") for w in state["warnings"]):
                out.append(f"no warning about line {line} ({events[i].type}); warnings: {state['warnings']}")
        return out


# ------------------------------------------------------------------------------------------------ the texts
DECK_OL = ('OL: "The deck consists of 108 cards: four each of \'Wild\' and \'Wild Draw Four,\' and 25 each of four '
           'different colors ... Each color consists of one zero, two each of 1 through 9, and two each of \'Skip,\' '
           '\'Draw Two,\' and \'Reverse.\'"')
DECK_CH = ("CH: 'Всего в колоде 108 карт. ... Все цифры (кроме 0) в двойном количестве.' (108 cards; every number but "
           "0 twice)")
DECK_FA = 'FA-TABLE: "one fresh 108-card UNO deck (no special editions, no Wild Customizable cards)"'
DEAL_MA = ('MA: "Each player is dealt 7 cards with the remaining ones placed face down to form a DRAW pile. The top '
           'card of the DRAW pile is turned over to begin a DISCARD pile."')
RESTOCK = {
    CH: ("CH is silent on an empty pile; 'Игра будет проводиться по классическим правилам' (classic rules), so "
         "RULESETS.md's default, Mattel's: " + '"take the Discard Pile, shuffle it, and turn it over to regenerate a '
         'new Draw Pile"'),
    FA: 'FA-MISDEAL: "If the deck runs out mid-game, shuffle the discard pile (excluding the current top card) and '
        'continue."',
    MA: 'MA-RESHUFFLE: "If no one is out of cards by the time the DRAW pile is depleted, reshuffle and continue play."',
    OL: 'OL-RESTOCK: "If the DRAW pile runs out take the DISCARD pile minus the last card play, and make that your new '
        'DRAW pile, without mixing the cards."',
}
RESTOCK_CLAUSE = {CH: "CH-DRAW", FA: "FA-MISDEAL", MA: "MA-RESHUFFLE", OL: "OL-RESTOCK"}
MISMATCH = ('EVENTS.md count_mismatch: "a revealed hand holds a different number of cards than the log accounts '
            'for"')
WARN = ("README: \"What it read but had to ignore or guess goes to standard error as `warning:` lines\"")
MA_LAST = ('MA-LAST: "If the last card played in a hand is a Draw Two or Wild Draw Four card, the next player must draw '
           'the two or four cards. These cards are counted when points are totaled."')
SCORE = {
    CH: "CH-SCORE: 'При подсчете очков: цифровые карты идут по номиналу, обычные активные карты по 20 очков, черные "
        "карты по 50 очков.' (numbers face value, coloured action cards 20, black cards 50)",
    FA: 'FA-WIN: "The winner of the round receives the total points held by the other three players" with "the '
        'official Mattel ruleset, full stop" values: "All cards through 9 Face value. Draw 2 = 2. 0 points. Reverse '
        '= 2. 0 points. Skip = 2. 0 points. Wild = 5. 0 points. Wild Draw 4 = 5. 0 points." (20, 50)',
    MA: 'MA-SCORE: "he gets points for cards left in the opponent\'s hands as follows: All cards through 9 Face value. '
        'Draw 2 = 2. 0 points. Reverse = 2. 0 points. Skip = 2. 0 points. Wild = 5. 0 points. Wild Draw 4 = 5. 0 '
        'points." (the text lost digits: 20, 50)',
    OL: 'OL-SCORE: "Draw 2 ... 20 Points, Reverse ... 20 Points, Skip ... 20 Points, Wild ... 50 Points, Wild Draw 4 '
        '... 50 Points"; OL-GOAL: "all other player score points for the card still help in their hands"',
}
SCORE_CLAUSE = {CH: "CH-SCORE", FA: "FA-WIN", MA: "MA-SCORE", OL: "OL-SCORE"}
CHALLENGE = {
    FA: ("FA-W4", 'FA-W4: "The challenged player shows their hand to the referee."'),
    MA: ("MA-CHALLENGE", 'MA-CHALLENGE: "he must first show his hand to the player who challenged."'),
    OL: ("OL-W4-CHALLENGE", 'OL-W4-CHALLENGE: "The challenged player must show his/her hand to the player who '
                            'challenged."'),
}

# ------------------------------------------------------------------------------------------------ the hands
# 19 rounds of a legal draw and "pass" by every seat (MA-RENEGE: a seat may draw instead of playing): 76 cards leave
# the draw pile, which holds 108 - 28 - 1 = 79 after the deal and the starter; every hand grows to 26
DRAW_ROUNDS = "; ".join(f"D{s}; S{s}" for _ in range(19) for s in range(4))
# the pile down to 1 (red-5, red-6 and red-draw2 on the discard pile), then a Draw Two that needs 2: one from the pile,
# the other from the restocked discard pile (red-5, red-6 under the top red-draw2)
ACROSS = DRAW_ROUNDS + "; P0 red-6; D1; S1; D2; S2; P3 red-draw2; D0 2"
# the pile down to 0 with the starter alone on the discard pile; a Draw Two then asks for 2 cards and only one (the
# red-5 under it) is left on the whole table
BEYOND = DRAW_ROUNDS + "; D0; S0; D1; S1; D2; S2; P3 red-draw2; D0 2"
# two players: seat 0 goes out in seven plays while seat 1 draws and passes six times, so seat 1 holds 13 cards
OUT_IN_SEVEN = ("H1; T red-5; P0 red-1; D1; S1; P0 red-2; D1; S1; P0 red-3; D1; S1; P0 red-4; D1; S1; P0 red-6; D1; S1; "
                "U0; P0 red-8; D1; S1; P0 red-9")
THIRTEEN = ("yellow-0,yellow-9,blue-draw2,blue-reverse,blue-skip,wild,wild-draw4,"
            "green-5,green-5,green-1,blue-2,blue-3,yellow-4")
THIRTEEN_POINTS = 0 + 9 + 20 + 20 + 20 + 50 + 50 + 5 + 5 + 1 + 2 + 3 + 4  # 189
REST = "R2 red-1; R3 green-2"
LEGAL5 = "green-3,green-4,blue-1,blue-2,yellow-9"  # no red and no 5: legal under either restriction
LEGAL6 = LEGAL5 + ",yellow-8"
TWELVE = THIRTEEN.removeprefix("yellow-0,")  # THIRTEEN without its 0: red-0 takes its place


def _scores(rs: str, points: int) -> dict[str, list[list[int]]]:
    return {"hands": [[0, points] if rs == OL else [points, 0]]}


PASSING: list[RuleCase] = [
    # ---------------------------------------------------------------- the deal: 7 a seat, the rest is the draw pile
    DeckCase("MA-TABLE", MA, "H9; T red-5", players=10, state={"counts": [7] * 10, "draw_pile": 37, "discard_pile": 1},
             why='MA-TABLE "2 to 10 players"; ' + DEAL_MA + " 108 - 70 - 1 = 37"),
    DeckCase("OL-START", OL, "H1; T red-5", players=2, state={"counts": [7, 7], "draw_pile": 93, "discard_pile": 1},
             why='OL-START: "The dealer deals seven cards to each player, then flips over the top card from the '
                 'remaining deck (the DRAW pile) to begin the DISCARD pile." ' + DECK_OL),
    DeckCase("MA-START", MA, "H3; T wild-draw4", state={"draw_pile": 80, "discard_pile": 0, "turn": 0},
             why='MA-START: "Wild Draw Four - It\'s put back in the deck and another one is chosen." The card is back '
                 "in the draw pile until the next one is turned"),
    DeckCase("FA-START", FA, "H3; T wild-draw4; T red-5; P0 red-7",
             state={"draw_pile": 79, "discard_pile": 2, "counts": [6, 7, 7, 7]},
             why="FA-START: a Wild Draw Four starter is not covered; RULESETS.md's default is MA-START: 'put back in "
                 "the deck and another one is chosen' - " + DECK_FA),
    # ---------------------------------------------------------------- the second hand is dealt from a whole deck
    DeckCase("FA-DEAL", FA, "~6; P0 red-1; R1 red-9; R2 wild; R3 blue-skip; H0; T red-5",
             state={"hand": 2, "counts": [7, 7, 7, 7], "draw_pile": 79, "discard_pile": 1},
             scores={"hands": [[79, 0, 0, 0]]},
             why='FA-DEAL "Every player is dealt seven cards face down" from "one fresh 108-card UNO deck"'),
    # ---------------------------------------------------------------- the draw pile runs out in the middle of a draw
    *[DeckCase(RESTOCK_CLAUSE[rs], rs, ACROSS,
               state={"draw_pile": 1, "discard_pile": 1, "top_card": "red-draw2", "counts": [27, 27, 27, 25]},
               why=RESTOCK[rs] + " - a Draw Two's two cards: the last card of the pile, then one from the restocked "
                   "discard pile; the Draw Two stays on top")
      for rs in (CH, FA, MA, OL)],
    # a penalty card owed (FA-EARLY) paid by a draw that empties the pile and restocks it to exactly 0
    DeckCase("FA-EARLY", FA, DRAW_ROUNDS + "; D0; S0; D1; S1; D2; S2; P3 red-6; P0 red-8; U1; D1 2",
             ("early_uno@1/1:FA-EARLY",),
             state={"draw_pile": 0, "discard_pile": 1, "counts": [26, 29, 27, 25], "owed": [0, 0, 0, 0]},
             why='FA-EARLY: "Calling UNO while holding three or more cards: 1 penalty card." The penalty card and the '
                 "turn's card come from the pile's last card and the restocked red-5, red-6; " + RESTOCK[FA]),
    # ---------------------------------------------------------------- penalties owed, drawn, and challenged +4s
    DeckCase("MA-UNO", MA, "~5; P0 red-1; U0; P1 red-2; U1; P2 red-3; U2; P3 red-4; P0 red-5; R1 red-1; " + REST,
             ("missed_uno@3/2:MA-UNO",), state={"counts": [0, 1, 1, 3], "owed": [0, 0, 0, 2]},
             scores={"hands": [[4, 0, 0, 0]]},
             why='MA-UNO "Failure to do this results in having to pick up 2 cards from the DRAW": seat 3 was caught '
                 "but never drew them; the two cards are still in the draw pile, not in the hand shown. " + MISMATCH),
    DeckCase("OL-W4-CHALLENGE", OL, f"P0 wild-draw4 blue; X1; R0 red-2,{LEGAL5}; D0 6; P1 red-3",
             ("illegal_wild_draw4@0/6:OL-W4",), state={"counts": [13, 6, 7, 7], "draw_pile": 73, "discard_pile": 2},
             why='OL-W4-CHALLENGE: "she/he must draw 6 cards and miss his turn (taking the Wild Draw 4 Card back in '
                 'his hand)": the card leaves the discard pile for the hand, the six leave the draw pile'),
    DeckCase("MA-CHALLENGE", MA, f"P0 wild-draw4 blue; X1; R0 {LEGAL6}; D1 6; P2 blue-3",
             ("failed_challenge@1/6:MA-CHALLENGE",), state={"counts": [6, 13, 6, 7], "draw_pile": 73},
             why='MA-CHALLENGE: "If not guilty, the challenger must draw 2 cards in addition to the 4."'),
    # ---------------------------------------------------------------- MA-LAST: the cards drawn after the last card
    DeckCase("MA-LAST", MA, "~6; P0 wild-draw4 blue; D1 4; R1 red-9,red-1,red-2,red-3,red-4; " + REST,
             state={"counts": [0, 5, 1, 1], "draw_pile": 75, "discard_pile": 26}, scores={"hands": [[22, 0, 0, 0]]},
             why=MA_LAST + " The four leave the draw pile after the hand is over."),
    DeckCase("MA-LAST", MA, "~6; P0 wild-draw4 blue; R1 red-9; D1 4; R1 red-9,red-1,red-2,red-3,red-4; " + REST,
             ("wrong_draw@1:MA-LAST",), state={"counts": [0, 5, 1, 1]}, scores={"hands": [[22, 0, 0, 0]]},
             why=MA_LAST + " Seat 1 showed its hand, then drew the four and showed it again before the others: the "
                 "later reveal, with the four, is scored (the first reveal's penalty-free flag stands)"),
    # ---------------------------------------------------------------- scores from revealed hands, every kind of card
    *[DeckCase(SCORE_CLAUSE[rs], rs, f"{OUT_IN_SEVEN}; R1 {THIRTEEN}", players=2,
               state={"counts": [0, 13], "draw_pile": 93 - 6, "discard_pile": 8}, scores=_scores(rs, THIRTEEN_POINTS),
               why=SCORE[rs] + " - 0 + 9 + 3 x 20 + 2 x 50 + 5 + 5 + 1 + 2 + 3 + 4 = 189")
      for rs in (CH, FA, MA, OL)],
    # ---------------------------------------------------------------- reveals: the winner's, twice, too early
    DeckCase("MA-SCORE", MA, "~6; P0 red-1; R0 -; R1 red-9; R2 wild; R3 blue-skip", scores={"hands": [[79, 0, 0, 0]]},
             why='MA-SCORE "he gets points for cards left in the opponent\'s hands": the winner shows an empty hand, '
                 "as the log accounts for"),
    DeckCase("FA-WIN", FA, "~6; P0 red-1; R0 red-3; R1 red-9; R2 wild; R3 blue-skip", ("count_mismatch@0:FA-WIN",),
             scores={"hands": [[79, 0, 0, 0]]},
             why='FA-WIN "The first player to discard all their cards wins the round": a card seen in the winner\'s '
                 "hand is a count the log can't account for; " + MISMATCH),
    DeckCase("MA-SCORE", MA, "~6; P0 red-1; R1 red-9; R1 red-9; R2 wild; R3 blue-skip",
             scores={"hands": [[79, 0, 0, 0]]},
             why="the same hand shown twice (the camera read it twice) is one hand: scored once, nothing flagged"),
    DeckCase("CH-OPEN", CH, "P0 red-1; R1 red-9,red-8,red-7", warn_at=(-1,), state={"phase": "playing"},
             why="EVENTS.md reveal: \"a hand laid open: for a challenge, or at the end of a hand for scoring\" - a hand "
                 "shown in the middle of a hand is neither; CH-OPEN ('Игроки не имеют права скрывать количество карт') "
                 "asks for the number, not a reveal: ignored with a warning, no flag. " + WARN),
    DeckCase("MA-W4", MA, "P0 red-1; R1 red-9,red-8,red-7,red-6,red-5,red-4,red-3", warn_at=(-1,),
             why="a reveal before the last card with no Wild Draw Four challenged is no event the rules give: ignored "
                 "with a warning. " + WARN),
]

# cases where the engine disagrees with the rulebook text or the spec: (finding number, case, what the engine does)
FINDINGS: list[tuple[int, RuleCase, str]] = [
    # ---------------------------------------------------------------- finding 1: a draw the deck can't hold
    (1, DeckCase(RESTOCK_CLAUSE[MA], MA, BEYOND, whole_deck=False, warn_at=(-1,), state={"draw_pile": 0},
                 why="a 108-card deck: 28 + 76 + 3 cards in hands, the Draw Two and the red-5 on the discard pile - one "
                     "card is left to draw, the log says two. " + RESTOCK[MA] + " " + WARN),
     "finding 1: a draw larger than the draw pile and the restocked discard pile gives the seat a card that doesn't "
     "exist (109 cards on the table) and says nothing"),
    (1, DeckCase(RESTOCK_CLAUSE[OL], OL, BEYOND, whole_deck=False, warn_at=(-1,), state={"draw_pile": 0},
                 why=RESTOCK[OL] + " - the discard pile minus its top card is one card; two were drawn. " + WARN),
     "finding 1: a draw larger than the draw pile and the restocked discard pile gives the seat a card that doesn't "
     "exist (109 cards on the table) and says nothing"),
    # ---------------------------------------------------------------- finding 2: a starter turned after a good one
    (2, DeckCase("MA-START", MA, "H3; T red-5; T red-6; P0 red-7", warn_at=(-2,), state={"counts": [6, 7, 7, 7]},
                 why='EVENTS.md starter: "several in a row when the ruleset makes the dealer turn again" - a red 5 '
                     'is not sent back (MA-START names only the Wild Draw Four), so a second starter is a re-read or '
                     "a mistake; either way no card leaves the table. " + DEAL_MA + " " + WARN),
     "finding 2: a second starter after one the rules keep takes another card from the draw pile and sets the discard "
     "pile to 1: a card vanishes (107 on the table), and nothing is said"),
    (2, DeckCase("OL-START", OL, "H3; T red-5; T red-6; P0 red-6", warn_at=(-2,),
                 why='OL-START: "flips over the top card ... This card is played as the dealers first card"; one '
                     "card, not two - " + DECK_OL + " " + WARN),
     "finding 2: a second starter after one the rules keep takes another card from the draw pile and sets the discard "
     "pile to 1: a card vanishes (107 on the table), and nothing is said"),
    # ---------------------------------------------------------------- finding 3: a penalty taken back after it was drawn
    (3, DeckCase("MA-UNO", MA, "~5; P0 red-1; P1 red-2; U1; P2 red-3; U2; P3 red-4; U3; D0 2; !dis 24-missed_uno-0",
                 ("missed_uno@0",),
                 why="README: \"A `ruling` with `dismissed` removes its flag's penalty from the state that follows\" - "
                     "the two cards seat 0 drew for it leave its hand (counts 3 -> 1) and must be somewhere: back on "
                     "the draw pile. " + DECK_OL),
     "finding 3: dismissing a penalty the seat already drew takes the 2 cards out of its count but never puts them "
     "back on the draw pile (draw_pile stays 77: 106 cards on the table)"),
    (3, DeckCase("FA-EARLY", FA, "U0; P0 red-1; D0 1; P1 red-2; !dis 4-early_uno-0", ("early_uno@0",),
                 why="README: \"A `ruling` with `dismissed` removes its flag's penalty\" - the penalty card drawn for "
                     "it goes back, and the deck keeps its 108 cards. " + DECK_FA),
     "finding 3: dismissing a penalty the seat already drew takes the card out of its count but never puts it back "
     "on the draw pile (107 cards on the table)"),
    # ---------------------------------------------------------------- finding 4: reveals the deck can't hold
    (4, DeckCase("MA-SCORE", MA, f"{OUT_IN_SEVEN.replace('P0 red-1', 'P0 red-0')}; R1 red-0,{TWELVE}",
                 players=2, warn_at=(-1,),
                 why="red-0 was laid on the discard pile (no restock since) and the deck has one: " + DECK_OL
                     + " A reveal showing it again is a misread, and " + WARN),
     "finding 4: a reveal showing a card that lies on the discard pile (the deck's only red 0) is scored as shown "
     "and nothing is said"),
    (4, DeckCase("FA-WIN", FA, f"{OUT_IN_SEVEN}; R1 wild,wild,wild,wild,wild,green-5,green-5,green-1,blue-2,blue-3,"
                 "yellow-4,yellow-9,blue-skip", players=2, warn_at=(-1,),
                 why=DECK_FA + "; four Wilds in it: " + DECK_OL + " Five shown is a misread. " + WARN),
     "finding 4: a reveal showing five Wilds (the deck has four) is scored as shown (250 of its points) and nothing "
     "is said"),
    (4, DeckCase("MA-CHALLENGE", MA, "P0 wild-draw4 blue; X1; R0 wild-draw4,wild-draw4,wild-draw4,wild-draw4,green-3,"
                 "green-4", ("failed_challenge@1/6:MA-CHALLENGE",), warn_at=(-1,),
                 why='MA: "4 Wild Draw 4 cards" - one lies on the discard pile, the hand shows four more. ' + WARN),
     "finding 4: a challenge's reveal showing four Wild Draw Fours beside the one just laid is judged as shown and "
     "nothing is said"),
    (4, DeckCase("CH-SCORE", CH, f"{OUT_IN_SEVEN.replace('T red-5', 'T red-0')}; R1 red-0,{TWELVE}",
                 players=2, warn_at=(-1,),
                 why=DECK_CH + " - the red 0 is the starter, on the discard pile; a hand can't hold it too. " + WARN),
     "finding 4: a reveal repeating the starter (the deck's only red 0) is scored as shown and nothing is said"),
    # ---------------------------------------------------------------- finding 5: a hand revealed twice
    (5, DeckCase("MA-LAST", MA, "~6; P0 wild-draw4 blue; R1 red-9; " + REST + "; D1 4; "
                 "R1 red-9,red-1,red-2,red-3,red-4", ("wrong_draw@1:MA-LAST",), state={"counts": [0, 5, 1, 1]},
                 scores={"hands": [[22, 0, 0, 0]]},
                 why=MA_LAST + " Seat 1 drew the four after all three hands were shown and showed its five; the same "
                     "events with seat 1's second reveal before the others' score 22 (PASSING)"),
     "finding 5: a reveal after the last loser's is ignored: the four MA-LAST cards drawn and shown are not counted "
     "(12, not 22), silently"),
    (5, DeckCase("MA-SCORE", MA, "~6; P0 red-1; R1 red-9; R2 wild; R3 blue-skip; R1 red-8", warn_at=(-1,),
                 why="two reads of one hand that differ: one is a misread, and the score depends on which. " + WARN),
     "finding 5: a second, different reveal of a hand after the hand was scored is ignored, silently"),
    (5, DeckCase("MA-SCORE", MA, "~6; P0 red-1; R1 red-9; R1 red-8; R2 wild; R3 blue-skip", warn_at=(-3,),
                 why="two reads of one hand that differ: one is a misread, and the score depends on which. " + WARN),
     "finding 5: a second, different reveal of a hand before the hand was scored replaces the first, silently"),
    # ---------------------------------------------------------------- finding 6: a challenge's count cites scoring
    *[(6, DeckCase(CHALLENGE[rs][0], rs, f"P0 wild-draw4 blue; X1; R0 {LEGAL5}",
                   ("failed_challenge@1/6", f"count_mismatch@0:{CHALLENGE[rs][0]}"),
                   why=CHALLENGE[rs][1] + " Five cards shown of six: " + MISMATCH + " - the clause broken is the "
                       "challenge's showing of the hand, not the end-of-hand score"),
       f"finding 6: a challenge reveal's count_mismatch cites {SCORE_CLAUSE[rs]}, the end-of-hand scoring clause")
      for rs in (FA, MA, OL)],
    # ---------------------------------------------------------------- finding 7: a redeal (FA-MISDEAL)
    (7, DeckCase("FA-MISDEAL", FA, "H3; H3; T red-5; ~6; P0 red-1; R1 red-9; R2 wild; R3 blue-skip",
                 state={"hand": 1}, scores={"hands": [[79, 0, 0, 0]]},
                 why='FA-MISDEAL: "If a card is exposed during dealing, the dealer reshuffles and starts again." - '
                     "the same dealer deals the same hand again, before any card is turned"),
     "finding 7: a redeal is a new hand: seat 3 is flagged wrong_dealer (FA-TABLE) for dealing again, and hand 1 is a "
     "row of zeros 'ended with nobody out'"),
]

CASES: list[RuleCase] = PASSING + [case for _, case, _ in FINDINGS]  # read by test_rule_coverage


def _id(case: RuleCase) -> str:
    return f"{case.ruleset}:{case.clause}:{case.steps[-60:]}"


@pytest.mark.parametrize("case", [pytest.param(c, id=_id(c)) for c in PASSING])
def test_deck_corner(case: RuleCase) -> None:
    assert case.problems() == [], case.why


@pytest.mark.parametrize("case", [
    pytest.param(case, id=f"finding{n}:{_id(case)}")  # fixed at stop 63
    for n, case, reason in FINDINGS])
def test_deck_finding(case: RuleCase) -> None:
    assert case.problems() == [], case.why


# -------------------------------------------------------------------- `unotable replay --json` (EVENTS.md)


def _replay_json(tmp_path: Path, case: RuleCase, capsys: pytest.CaptureFixture[str]) -> dict:
    path = tmp_path / "game.jsonl"
    write_log(path, case.events())
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["replay", str(path), "--json"])
    assert args.func(args) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("rs", [CH, FA, MA, OL])
def test_replay_json_reports_the_restocked_piles(rs: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """EVENTS.md: `--json` prints `{"flags", "state", "scores"}`; after a restock the state's draw pile and discard
    pile are what lies on the table (the Draw Two alone on the discard pile), and with the hands they are 108."""
    doc = _replay_json(tmp_path, RuleCase(RESTOCK_CLAUSE[rs], rs, ACROSS), capsys)
    state = doc["state"]
    assert doc["flags"] == []
    assert (state["draw_pile"], state["discard_pile"], state["top_card"]) == (1, 1, "red-draw2")
    assert sum(state["counts"]) - sum(state["owed"]) + state["draw_pile"] + state["discard_pile"] == DECK


def test_replay_json_counts_penalty_cards_owed_apart_from_the_hand(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """README: "A penalty is added to the seat's count at once and owed until the seat draws it": `counts` holds the
    two missed-UNO cards, `owed` says they are still on the draw pile, and the reveal of the one card held is no
    count_mismatch."""
    case = PASSING[[c.clause for c in PASSING].index("MA-UNO")]
    doc = _replay_json(tmp_path, case, capsys)
    assert [f["code"] for f in doc["flags"]] == ["missed_uno"]
    assert doc["state"]["counts"][3] == 3 and doc["state"]["owed"][3] == 2 and doc["state"]["draw_pile"] == 79
    assert doc["scores"]["hands"] == [[4, 0, 0, 0]]
