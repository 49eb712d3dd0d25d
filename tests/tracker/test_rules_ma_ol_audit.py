"""Mattel's official rules (shared/seeds/002_a0bc2bb7abcb39a9.txt, MA-*) and the UNO Olympic rules
(shared/seeds/003_30cfefba0608d163.txt, OL-*), clause by clause, at the edges the earlier audits left: the order in
which the senses log a turn (a "pass" heard before its draw), a Draw Two / Wild Draw Four that its victim answers
with a card instead of drawing, the Wild Draw Four restriction and challenge (a Word card of the colour in force, a
second Wild Draw Four in hand, a guilty player's missed turn across a Reverse), starters intercepted and re-turned,
draws in several trips, 7-0 with a Draw Two's cards, the score at exactly the target and a tied Olympic match.

Each verdict comes from the rulebook text (or README / EVENTS.md where the engine's reading of the senses decides),
quoted in `why`. `FINDINGS` are the cases the engine gets wrong today: each test is marked
`xfail(strict=True, reason="finding N: ...")` and passes once the fault is fixed (report: /tmp/lead/s64/h4_ma_ol.md).
"""

import argparse
import json
from pathlib import Path

import pytest

from tracker.commands import register
from tracker.log import write_log
from tracker.script import RuleCase

MA, OL = "mattel", "olympic"

# ---------------------------------------------------------------- Mattel (002_a0bc2bb7abcb39a9.txt)
MA_CATCH = ('"Also, you may not catch a player for failure to say UNO after the next player begins his turn. '
            'Beginning a turn is defines as either drawing a card from the DRAW pile or drawing a card from your hand '
            'to play."')
MA_SAFE = ('"A player who forgets to say UNO before his card touches the discard pile, but "catches" himself before any '
           'other player catches him, is safe and is not subject to the penalty."')
MA_SKIP = '"Skip Card - The next player to play loses his turn and is "skipped.""'
MA_D2 = ('"Draw Two Cards - When this card is played, the next person to play must draw 2 cards and forfeit his '
         'turn."')
MA_W4 = ('"Not only does the player get to call the next color played, but the next player has to pick 4 cards and '
         'forfeit his turn. There is a hitch, however (of course): you can only play this card when you don\'t have a '
         'card in your hand that matches the color of the card previously played."')
MA_CH = ('"If guilty, he must draw 4 cards. If not guilty, the challenger must draw 2 cards in addition to the 4. The '
         'challenge can only be made by the person required to draw the four cards."')
MA_START_W4 = '"Wild Draw Four - It\'s put back in the deck and another one is chosen."'
MA_START_WILD = '"Wild Card - The player to the left of the dealer calls out a color - then plays."'
MA_START_D2 = ('"Draw Two Card - The player to the left of dealer must pick two cards and then the next player goes '
               '(sad, but true)."')
MA_TWO_D2 = ('"When a Draw Two card is played and your opponent has drawn two cards, the play is back to you."')
MA_DRAW = ('"If the player doesn\'t have anything to match, he must pick a card from the DRAW pile. If he can play what '
           'is drawn, great. Otherwise play moves to the next person."')
MA_LAST = ('"If the last card played in a hand is a Draw Two or Wild Draw Four card, the next player must draw the two '
           'or four cards. These cards are counted when points are totaled."')
MA_SCORE = ('"When a player is out of cards, he gets points for cards left in the opponent\'s hands as follows: All '
            'cards through 9 Face value. Draw 2 = 2. 0 points. Reverse = 2. 0 points. Skip = 2. 0 points. Wild = 5. 0 '
            'points. Wild Draw 4 = 5. 0 points." (digits lost: 20 and 50)')
MA_WIN = '"The WINNER is the first player to reach 5[00]." (here the match target)'
MA_DEALER = '"The player who picks the highest number deals. ... Player to the left of the dealer starts play."'

# ---------------------------------------------------------------- Olympic (003_30cfefba0608d163.txt)
OL_START = ('"This card is played as the dealers first card played and the possible actions associated with the card '
            'will need to be played"')
OL_INT = ('"At anytime of the game if you have the exact same card as the one on top of the DISCARD pile, you can play '
          'your card and intercept the current play. The following player after you will need to play."')
OL_REV_INT = ('"You can intercept on a Reverse Card (see Interceptions). The next player will be the person after the '
              'player who intercepted, in the direction which switches again."')
OL_SKIP_INT = ('"You can intercept on a skip card (see Interceptions), but you are not intercepting yourself as x cards '
               'will skip the following x players\' turn, not just the next one."')
OL_SKIP_ON = '"This card may only be played on a matching color or on another Skip card."'
OL_D2 = ('"When you play this card, the next person to play draws 2 cards can play, or plays directly another Draw 2 '
         'Card (of any color) to add 2 more cards to draw for the following player. That continues until a player '
         'doesn\'t play a Draw 2 Card and draws the sum of all the Draw 2 Cards played."')
OL_D2_SELF = ('"You can play more than one Draw 2 Cards at the same time, you are just using the interception rule on '
              'yourself." / "If the player who, at first, was supposed to take the cards has not seen them yet, they '
              'remain to be taken for the following player"')
OL_W4 = ('"Wild Draw 4 Card ... requires the next player to pick 4 cards from the DRAW pile and forfeit his/her turn. '
         'However, there is hitch! You can only play this card when you don\'t have another playable card in your '
         'hand."')
OL_W4C = ('"If the challenged player is guilty, she/he must draw 6 cards and miss his turn (taking the Wild Draw 4 Card '
          'back in his hand). If the challenged player is not guilty the challenger must draw 6 cards."')
OL_70PEN = ('"If you had just been given a penalties in this turn, you pass your cards without the penalties cards that '
            'you keep for yourself."')
OL_ZERO = ('"When you play a 0 of any color, each player needs to pass all his cards to the following player in the '
           'current direction of the play."')
OL_GOAL = ('"The aim of the game is to have the lowest score when one of the player\'s score reaches 500 points. Each '
           'rounds of play, the first player to discard all her/his cards stops the round and all other player score '
           'points for the card still help in their hands"')
OL_MISTAKE = '"If someone makes any mistake, he/she needs to draw 2 cards."'
OL_MATCH = ('"If you don\'t have anything that matches, you must pick a card from the DRAW pile. If you draw a card you '
            'could play, you can play it. Otherwise, play moves to the next player."')

# ---------------------------------------------------------------- README / RULESETS.md
README_PASS = ('README: "A "pass" heard a moment before the same seat\'s draw (within `uno_call_lead_s`, the very next '
               'event: speech decides a word before the camera decides a draw) is that turn\'s pass after drawing, not '
               'a pass without drawing."')
README_WINDOW = ('README: "A UNO or colour window closes when a card is laid or when the seat whose turn it is draws; '
                 'another seat drawing out of turn closes nothing."')
README_SHORT = ('README: "A Draw Two or Wild Draw Four may be drawn in several draws ... once the table moves on it '
                'stands with its penalty and the cards not drawn stay owed."')
RULESETS_EARLY = ('RULESETS.md, the knobs table, row "early UNO (3+ cards)", column olympic: "— (a mistake: 2, by '
                  'OL-PENALTY)"')

# hands shown for a challenge: six cards (seven less the Wild Draw Four)
RED_D2_6 = "red-draw2,green-3,green-4,blue-1,blue-2,yellow-9"  # a Word card of the colour in force (red)
BLUE6 = "blue-1,green-3,green-4,blue-2,yellow-9,yellow-6"  # only the colour the +4 names; nothing fits a red 8
PLAYABLE6 = "red-2,green-3,green-4,blue-1,blue-2,yellow-9"  # red-2 fits a red 8
SKIP6 = "blue-skip,green-3,green-4,blue-2,yellow-9,yellow-6"  # a Skip of another colour fits a Skip
TWO_W4 = "wild-draw4,green-3,green-4,blue-1,blue-2,yellow-9"  # another +4, nothing else playable on a red 8

PASSING = [
    # ================================================================ Mattel: UNO windows
    RuleCase("MA-UNO", MA, "~5; P0 red-draw2; D1 2; U0; P2 red-3", ("missed_uno@0/2:MA-UNO",),
             state={"counts": [3, 4, 1, 2]},
             why=MA_CATCH + " " + MA_D2 + " -- seat 1 drawing its two from the DRAW pile began its turn: too late"),
    RuleCase("MA-UNO", MA, "~5; P0 red-skip; P2 red-3", ("missed_uno@0/2:MA-UNO",),
             why=MA_SKIP + " " + MA_CATCH + " -- the next player is seat 2; laying its card ends the window"),
    RuleCase("MA-UNO", MA, "~5; P0 red-skip; +3; U0; P2 red-3", state={"uno": [True, False, False, False]},
             why=MA_SAFE + " -- the skipped seat 1 begins no turn, so seat 0 still catches itself"),
    RuleCase("MA-UNO", MA, "~5; P0 red-1; D1; S1; U0; P2 red-3", ("missed_uno@0/2:MA-UNO",),
             why=MA_CATCH + " -- seat 1 drew (then said pass): its turn had begun"),
    # ================================================================ Mattel: starter
    RuleCase("MA-START", MA, "H3; T wild-draw4; T wild-draw4; T red-5; P0 red-7", state={"turn": 1, "top_card": "red-7"},
             why=MA_START_W4 + " -- twice in a row, then a number card starts"),
    RuleCase("MA-START", MA, "H3; T wild; C3 green; P0 red-3", state={"color": "red", "turn": 1},
             why=MA_START_WILD + " -- the dealer naming green is not the player left of the dealer: any card may start"),
    RuleCase("MA-START", MA, "H3; T wild; C0 green; C2 blue; P0 blue-3", ("illegal_card@0:MA-MATCH",),
             why=MA_START_WILD + " -- seat 0 called green; seat 2's 'blue' is nobody's call"),
    RuleCase("MA-START", MA, "H3; T blue-draw2; D0; D0; P1 blue-3", state={"turn": 2, "counts": [9, 6, 7, 7]},
             why=MA_START_D2 + " -- the two cards taken in two trips to the pile"),
    # ================================================================ Mattel: two players, draws in trips
    RuleCase("MA-TWO", MA, "H1; T red-5; P0 red-draw2; D1; D1; P0 red-3", players=2,
             state={"turn": 1, "counts": [5, 9]}, why=MA_TWO_D2 + " -- drawn in two trips"),
    RuleCase("MA-DRAW", MA, "D0; D1; D2; P3 red-3", state={"turn": 0, "counts": [8, 8, 8, 6]},
             why=MA_DRAW + " -- three seats in a row draw and keep; no 'pass' is needed"),
    RuleCase("MA-DRAW", MA, "S0; D0; P1 red-3", state={"turn": 2, "counts": [8, 6, 7, 7]},
             why=MA_DRAW + " " + README_PASS),
    RuleCase("MA-DRAW", MA, "P0 wild-draw4 blue; D1; P2 blue-3", ("wrong_draw@1",),
             state={"counts": [6, 11, 6, 7], "owed": [0, 3, 0, 0]},
             why=MA_W4 + " " + README_SHORT + " (contrast for finding 1: here the cards not drawn stay owed)"),
    # ================================================================ Mattel: Wild Draw Four and the challenge
    RuleCase("MA-W4", MA, "P0 red-7; P1 wild-draw4 blue; X2; R1 " + RED_D2_6, ("illegal_wild_draw4@1/4:MA-W4",),
             state={"turn": 2},
             why=MA_W4 + " -- a red Draw Two is a card that matches the colour red"),
    RuleCase("MA-W4", MA, "P0 wild-draw4 blue; D1 4; P2 wild-draw4 green; X3; R2 blue-1,red-2,red-3,red-4,red-5,red-6",
             ("illegal_wild_draw4@2/4:MA-W4",),
             why=MA_W4 + " -- the card previously played was a Wild Draw Four calling blue; seat 2 held blue-1"),
    RuleCase("MA-CHALLENGE", MA, "P0 red-7; P1 wild-draw4 blue; X2; D1 2; D1 2; P2 blue-3",
             ("illegal_wild_draw4@1/4:MA-W4",),
             state={"turn": 3, "counts": [6, 10, 6, 7], "owed": [0, 0, 0, 0]},
             why=MA_CH + " -- the guilty four taken in two trips; the challenger plays on"),
    RuleCase("MA-CHALLENGE", MA, "~5; U0; P0 wild-draw4 blue; X1; R0 red-3; D0 4; P1 blue-3",
             ("illegal_wild_draw4@0/4:MA-W4",), state={"counts": [5, 1, 2, 2], "turn": 2, "color": "blue"},
             why=MA_CH + " -- laid as the next-to-last card (UNO called), shown with a red card: guilty"),
    # ================================================================ Mattel: last card, score, target, dealer
    RuleCase("MA-LAST", MA, "~6; P0 wild-draw4 blue; D1 2; D1 2; R1 red-9,red-1,red-2,red-3,red-4; R2 red-1; "
             "R3 green-2", state={"hand_winner": 0, "counts": [0, 5, 1, 1]}, scores={"hands": [[22, 0, 0, 0]]},
             why=MA_LAST + " -- the four drawn in two trips"),
    RuleCase("MA-SCORE", MA, "~6; P0 red-1; R1 red-0; R2 yellow-reverse; R3 red-draw2", scores={"hands": [[40, 0, 0, 0]]},
             why=MA_SCORE + " -- a 0 is worth 0, Reverse and Draw Two 20"),
    RuleCase("MA-TABLE", MA, "~6; P0 red-1; R1 red-9; R2 wild-draw4; R3 blue-skip", target=79,
             state={"phase": "match_over"}, scores={"winner": 0, "over": True, "totals": [79, 0, 0, 0]},
             why=MA_WIN + " -- reaching the target exactly wins"),
    RuleCase("MA-DEALER", MA, "H3; T red-5; ~6; P0 red-1; R1 red-9; R2 red-8; R3 red-6; H3; T red-5; P0 red-3",
             state={"dealer": 3, "hand": 2, "turn": 1}, scores={"totals": [23, 0, 0, 0]},
             why=MA_DEALER + " -- the text names no next dealer: the same seat dealing again is no mistake"),
    # ================================================================ Olympic: starter intercepted
    RuleCase("OL-START", OL, "H3; T red-reverse; P0 red-reverse; P1 red-3", state={"direction": 1, "turn": 2},
             why=OL_START + " " + OL_REV_INT + " -- seat 0 intercepts the turned Reverse: clockwise again, seat 1"),
    RuleCase("OL-START", OL, "H3; T red-skip; P0 red-skip; P2 red-3", state={"turn": 3},
             why=OL_START + " " + OL_SKIP_INT + " -- the skipped seat 0 intercepts: seat 1 is skipped"),
    # ================================================================ Olympic: interceptions
    RuleCase("OL-SKIP", OL, "P0 red-reverse; P3 red-skip; P2 red-skip; P0 red-3", state={"turn": 3, "direction": -1},
             why=OL_SKIP_INT + " -- counter-clockwise: seat 2, the one skipped, intercepts and skips seat 1"),
    RuleCase("OL-INTERCEPT", OL, "P0 red-8; P0 red-8; P1 red-9", state={"turn": 2, "counts": [5, 6, 7, 7]},
             why=OL_INT + " -- seat 0 lays its second red 8 a moment later: the player after it (seat 1) plays"),
    RuleCase("OL-D2-INTERCEPT", OL, "P0 red-draw2; P0 red-draw2; D1 4; P1 red-3",
             state={"turn": 2, "counts": [5, 10, 7, 7]},
             why=OL_D2_SELF + " -- seat 0 intercepts its own Draw Two before seat 1 saw the cards: seat 1 draws 4"),
    # ================================================================ Olympic: Draw Two
    RuleCase("OL-D2", OL, "P0 red-draw2; P1 blue-draw2; P2 green-draw2; D3 6; P3 green-3",
             state={"turn": 0, "counts": [6, 6, 6, 12]}, why=OL_D2 + " -- three in a chain: the fourth draws 6, plays"),
    RuleCase("OL-D2", OL, "P0 red-draw2; S1; P2 red-3", ("wrong_draw@1/2:OL-D2",),
             state={"counts": [6, 11, 6, 7], "owed": [0, 4, 0, 0]},
             why=OL_D2 + " " + OL_MISTAKE + " -- no draw follows the pass: the two cards and the penalty are owed"),
    RuleCase("OL-70-PENALTY", OL, "P0 red-draw2; D1 2; P1 red-0", state={"counts": [7, 6, 8, 7], "turn": 2},
             why=OL_70PEN + " " + OL_ZERO + " -- a Draw Two's cards are no penalty (Penalties: 'any mistake'): they "
                 "pass with the hand"),
    # ================================================================ Olympic: Wild Draw Four and the challenge
    RuleCase("OL-W4", OL, "P0 red-8; P1 wild-draw4 blue; X2; R1 " + BLUE6, ("failed_challenge@2/6:OL-W4-CHALLENGE",),
             state={"turn": 3, "color": "blue"},
             why=OL_W4 + " -- blue cards don't fit a red 8: holding the colour the +4 names is no offence"),
    RuleCase("OL-W4", OL, "P0 red-skip; P2 wild-draw4 blue; X3; R2 " + SKIP6, ("illegal_wild_draw4@2/6:OL-W4",),
             why=OL_W4 + " " + OL_SKIP_ON + " -- a blue Skip was playable on the red Skip"),
    RuleCase("OL-W4-CHALLENGE", OL, f"P0 red-8; P1 wild-draw4 blue; X2; R1 {PLAYABLE6}; D1 6; P2 red-3; P0 red-4; "
             "P2 red-5", ("illegal_wild_draw4@1/6:OL-W4",), players=3,
             state={"turn": 0, "counts": [5, 13, 5], "top_card": "red-5"},
             why=OL_W4C + " -- three seats: seat 1's turn comes after seat 0's and is missed"),
    RuleCase("OL-W4-CHALLENGE", OL, f"P0 red-8; P1 wild-draw4 blue; X2; R1 {PLAYABLE6}; D1 6; P2 red-reverse; "
             "P0 red-3", ("illegal_wild_draw4@1/6:OL-W4",), state={"turn": 3, "direction": -1, "counts": [5, 13, 6, 7]},
             why=OL_W4C + " -- after seat 2's Reverse the next turn is seat 1's, missed: seat 0 plays"),
    # ================================================================ Olympic: the goal
    RuleCase("OL-GOAL", OL, "H2; T red-5; ~6; P0 red-1; R1 red-0; R2 wild", players=3, target=50,
             state={"phase": "match_over"}, scores={"hands": [[0, 0, 50]], "winner": None, "over": True},
             why=OL_GOAL + " -- seats 0 and 1 tie on the lowest score; the text names no tie-break"),
]

# (finding number, case, what the engine does today)
FINDINGS: list[tuple[int, RuleCase, str]] = [
    # ---------------------------------------------------------------- finding 1: the victim's card wipes its draw
    (1, RuleCase("MA-W4", MA, "P0 wild-draw4 blue; P1 blue-3; D1 4; P2 blue-4", ("wrong_draw@1",),
                 state={"counts": [6, 10, 6, 7], "owed": [0, 0, 0, 0]},
                 why=MA_W4 + " -- seat 1 laid a card instead of drawing; the table then made it draw its four: one "
                     "mistake, one flag (" + README_SHORT + ")"),
     "finding 1: the four vanish when seat 1 lays blue-3; its later draw of them is flagged a second time, 'when it "
     "was P2's turn and nothing was owed'"),
    (1, RuleCase("MA-W4", MA, "P0 wild-draw4 blue; P1 blue-3", ("wrong_draw@1",),
                 state={"counts": [6, 10, 7, 7], "owed": [0, 4, 0, 0]},
                 why=MA_W4 + " -- laying a card instead of drawing does not cancel the four (a pass instead of "
                     "drawing keeps them owed: 'P0 wild-draw4 blue; S1' owes 4)"),
     "finding 1: counts [6, 6, 7, 7], owed nothing: the four cards are gone"),
    (1, RuleCase("MA-W4", MA, "P0 wild-draw4 blue; D1; P1 blue-3", ("wrong_draw@1", "wrong_draw@1"),
                 state={"counts": [6, 10, 7, 7], "owed": [0, 3, 0, 0]},
                 why=MA_W4 + " " + README_SHORT + " -- with seat 2 moving on the 3 stay owed; seat 1 itself moving "
                     "on must not erase them"),
     "finding 1: the 3 cards not drawn vanish (counts [6, 7, 6, 7]), where after another seat's card they stay owed"),
    (1, RuleCase("OL-D2", OL, "P0 red-draw2; P1 red-3; D1 4; P2 red-4", ("wrong_draw@1/2:OL-D2",),
                 state={"counts": [6, 10, 6, 7], "owed": [0, 0, 0, 0]},
                 why=OL_D2 + " " + OL_MISTAKE + " -- seat 1 owes the Draw Two's 2 and 2 for the mistake"),
     "finding 1: only the 2 penalty cards are owed; the Draw Two's 2 vanish, so the 4 drawn are flagged again "
     "(wrong_draw, 'nothing was owed') with another 2-card penalty"),
    # ---------------------------------------------------------------- finding 2: a second +4 in hand
    (2, RuleCase("OL-W4-CHALLENGE", OL, "P0 red-8; P1 wild-draw4 blue; X2; R1 " + TWO_W4,
                 ("failed_challenge@2/6:OL-W4-CHALLENGE",), state={"turn": 3, "counts": [6, 6, 13, 7]},
                 why=OL_W4 + " -- the only other card that could be laid was the second Wild Draw Four, itself "
                     "playable only when no other card is: holding it leaves the first legal, or no player holding "
                     "two could ever lay either"),
     "finding 2: the +4 is judged guilty ('held playable card(s) wild-draw4'): seat 1 draws 6 and misses a turn"),
    # ---------------------------------------------------------------- finding 3: early UNO under Olympic
    (3, RuleCase("OL-PENALTY", OL, "U2", ("early_uno@2/2:OL-PENALTY",), state={"counts": [7, 7, 9, 7]},
                 why=RULESETS_EARLY + "; " + OL_MISTAKE),
     "finding 3: no flag: olympic.toml sets early_uno_penalty = 0 and names no clause for it"),
    # ---------------------------------------------------------------- finding 4: a pass heard before its draw
    (4, RuleCase("MA-UNO", MA, "~5; P0 red-1; S1; D1; U0; P2 red-3", ("missed_uno@0/2:MA-UNO",),
                 why=MA_CATCH + " " + README_PASS + " " + README_WINDOW + " -- seat 1's draw (its pass heard a "
                     "moment before) began seat 1's turn: seat 0's UNO after it is too late"),
     "finding 4: no flag: the pass moved the turn to seat 2, so seat 1's draw is not 'the turn seat's draw' and "
     "leaves seat 0's window open"),
    # ---------------------------------------------------------------- finding 5: a pass heard before a pending draw
    (5, RuleCase("OL-D2", OL, "P0 red-draw2; S1; D1 2; P2 red-3", state={"turn": 3, "counts": [6, 9, 6, 7],
                                                                       "owed": [0, 0, 0, 0]},
                 why=OL_D2 + " (RULESETS.md OL-D2 default: 'after drawing, the player plays a fitting card or "
                     "passes') " + README_PASS + " -- the same turn as 'D1 2; S1'"),
     "finding 5: wrong_draw@1 (OL-D2) with a 2-card penalty, and 2 more cards still owed after the draw: seat 1 "
     "ends on 11 cards owing 2"),
    (5, RuleCase("OL-W4", OL, "P0 wild-draw4 blue; S1; D1 4; P2 blue-3", state={"turn": 3, "counts": [6, 11, 6, 7],
                                                                              "owed": [0, 0, 0, 0]},
                 why=OL_W4 + " " + README_PASS),
     "finding 5: wrong_draw@1 (OL-W4) with a 2-card penalty and 2 phantom cards owed"),
    (5, RuleCase("MA-W4", MA, "P0 wild-draw4 blue; S1; D1 4; P2 blue-3", state={"turn": 3, "counts": [6, 11, 6, 7]},
                 why=MA_W4 + " " + README_PASS),
     "finding 5: a wrong_draw flag 'passed without drawing the 4 card(s) owed' for a seat that drew them"),
]

CASES = PASSING + [case for _, case, _ in FINDINGS]  # read by test_rule_coverage


def _id(c: RuleCase) -> str:
    return f"{c.ruleset}:{c.clause}:{c.steps[:70]}"


@pytest.mark.parametrize("case", [pytest.param(c, id=_id(c)) for c in PASSING])
def test_ma_ol_rule(case: RuleCase) -> None:
    assert case.problems() == [], case.why


FIXED: set[int] = {1, 2, 3, 4, 5}  # findings fixed since the audit (stop 64): their cases now hold as ordinary cases


@pytest.mark.parametrize("case", [
    pytest.param(case, id=f"finding {n}: {_id(case)}",
                 marks=() if n in FIXED else pytest.mark.xfail(strict=True, reason=reason))
    for n, case, reason in FINDINGS])
def test_ma_ol_finding(case: RuleCase) -> None:
    assert case.problems() == [], case.why


# -------------------------------------------------------------------- `unotable replay` (EVENTS.md) on such logs


def _replay(tmp_path: Path, case: RuleCase, *flags: str, capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    path = tmp_path / "game.jsonl"
    write_log(path, case.events())
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["replay", str(path), *flags])
    assert args.func(args) == 0
    out = capsys.readouterr()
    return out.out, out.err


def test_replay_json_scores_a_mattel_hand_ended_by_a_wild_draw_four(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """MA-LAST / MA-SCORE: "If the last card played in a hand is a Draw Two or Wild Draw Four card, the next player
    must draw the two or four cards. These cards are counted when points are totaled." EVENTS.md: `--json` prints
    {"flags", "state", "scores"}, scores {"hands", "totals", "winner"}."""
    case = next(c for c in PASSING if c.clause == "MA-LAST")
    out, _ = _replay(tmp_path, case, "--json", capsys=capsys)
    doc = json.loads(out)
    assert doc["flags"] == []
    assert doc["scores"]["hands"] == [[22, 0, 0, 0]] and doc["scores"]["winner"] is None
    assert doc["state"]["hand_winner"] == 0


def test_replay_prints_the_olympic_challenge_flag_with_its_clause(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """OL-W4-CHALLENGE: "If the challenged player is guilty, she/he must draw 6 cards and miss his turn". EVENTS.md:
    one flag a line, its `rule` a clause id of RULESETS.md, `penalty` {"seat", "cards"}."""
    case = next(c for c in PASSING if c.clause == "OL-W4-CHALLENGE" and c.players == 3)
    out, _ = _replay(tmp_path, case, capsys=capsys)
    flags = [json.loads(line) for line in out.splitlines()]
    assert [(f["code"], f["seat"], f["rule"], f["penalty"]) for f in flags] == [
        ("illegal_wild_draw4", 1, "OL-W4", {"seat": 1, "cards": 6})]
