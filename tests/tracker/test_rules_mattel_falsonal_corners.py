"""Mattel's official rules and the Falsonal championship (shared/seeds/002_*, 001_*), corners beyond their own tables:
starters, two players, the Wild Draw Four and its challenge, the UNO window, early UNO, the timer, scoring
(MA-*, FA-*). Each verdict comes from the rulebook text, quoted in `why` (stop 61's audit)."""

import pytest

from tracker.script import RuleCase

M = "mattel"
F = "falsonal"
W6 = "red-2,green-3,green-4,blue-1,blue-2,yellow-9"  # six cards holding red (the colour in force)
WILD6 = "wild,green-3,green-4,blue-1,blue-2,yellow-9"  # no red card, but a Wild
WORD6 = "blue-skip,green-3,green-4,blue-1,blue-2,yellow-9"  # no red card, but a Skip of another colour
D2WORD6 = "blue-draw2,green-3,green-4,blue-1,blue-2,yellow-9"  # no red card, but a Draw Two of another colour
NEW6 = "blue-1,blue-2,blue-3,green-4,yellow-5,yellow-6"  # only cards of the colour the +4 names, none of red
CLEAN6 = "green-7,green-3,green-4,blue-1,blue-2,yellow-9"
GREEN6 = "green-1,red-2,red-3,blue-4,blue-5,yellow-6"
BIG7 = "wild,wild-draw4,red-skip,blue-reverse,green-draw2,yellow-9,red-0"  # 50+50+20+20+20+9+0 = 169

MA_WILD = '"Wild Card - The player to the left of the dealer calls out a color - then plays."'
MA_W4 = ('"you can only play this card when you don\'t have a card in your hand that matches the color of the card '
         'previously played"')
MA_TWO = ('"Rules for Two Players ... Playing a Reverse card acts like a Skip. The player who plays the Reverse may '
          'immediately play another card. The person playing a Skip card may immediately play another card. When a '
          'Draw Two card is played and your opponent has drawn two cards, the play is back to you. The same principle '
          'applies to the Wild Draw Four card."')
MA_CATCH = ('"you may not catch a player for failure to say UNO after the next player begins his turn. Beginning a '
            'turn is defines as either drawing a card from the DRAW pile or drawing a card from your hand to play."')
FA_TIMER = ('"You have fifteen seconds to take your turn once the previous player has finished. ... If you exceed '
            'fifteen seconds, you draw one penalty card and your turn ends. We\'re not strict about the first warning, '
            'but the second time it costs you."')
FA_EARLY = '"You may not call UNO pre-emptively when you still have three or more cards. Doing so costs you one penalty card."'
FA_W4 = ('"you may only play it if you have no card in your hand that matches the current colour (numbers and symbols '
         'don\'t count for this restriction — only the colour)"')

CASES = [
    # ------------------------------------------------------------------ Mattel: starter cards
    RuleCase("MA-START", M, "H3; T wild; C3 green; C0 red; P0 red-3", state={"color": "red", "turn": 1},
             why=MA_WILD + " The dealer saying 'green' is not the call; the player left of the dealer calls red."),
    RuleCase("MA-START", M, "H3; T wild; C0 green; P0 blue-3", ("illegal_card@0",),
             why=MA_WILD + " Having called green, blue-3 matches neither colour nor number."),
    RuleCase("MA-START", M, "H3; T blue-reverse; P0 blue-3", ("out_of_turn@0:MA-START",),
             why='"Reverse Card - The dealer plays first, but then goes to the right"; the rule broken is the starter rule'),
    RuleCase("MA-START", M, "H3; T blue-reverse; P3 blue-reverse; P0 blue-3", state={"direction": 1, "turn": 1},
             why='"The dealer plays first, but then goes to the right"; the dealer\'s own Reverse flips it back'),
    RuleCase("MA-START", M, "H1; T red-reverse; P1 red-3; P0 red-4", players=2, state={"turn": 1},
             why='"Reverse Card - The dealer plays first, but then goes to the right" (two players)'),
    RuleCase("MA-START", M, "H1; T red-skip; P1 red-3; P0 red-4", players=2, state={"turn": 1},
             why='"Skip Card - The player to the left of dealer doesn\'t start ... The player to the left of him '
                 'starts." At two seats that is the dealer.'),
    RuleCase("MA-START", M, "H0; T red-skip; P2 red-3; P0 red-4", players=3, state={"turn": 1},
             why='"The player to the left of dealer doesn\'t start ... The player to the left of him starts."'),
    RuleCase("MA-START", M, "H3; T blue-draw2; D0 2; P0 blue-3", ("out_of_turn@0",),
             why='"Draw Two Card - The player to the left of dealer must pick two cards and then the next player goes"'),
    RuleCase("MA-START", M, "H0; T red-draw2; D1 2; P2 red-3", players=3, state={"turn": 0, "counts": [7, 9, 6]},
             why='"The player to the left of dealer must pick two cards and then the next player goes"'),
    RuleCase("MA-START", M, "H3; T wild-draw4; T red-skip; P1 red-3", state={"turn": 2},
             why='"Wild Draw Four - It\'s put back in the deck and another one is chosen." then "Skip Card - The '
                 'player to the left of dealer doesn\'t start"'),
    RuleCase("MA-START", M, "H1; T wild-draw4; T red-draw2; D0 2; P1 red-3", players=2,
             state={"turn": 0, "counts": [9, 6]},
             why='W4 "put back in the deck and another one is chosen"; Draw Two: "pick two cards and then the next '
                 'player goes"'),
    RuleCase("MA-START", M, "H3; T wild-draw4; T wild; C0 green; P0 green-3", state={"color": "green", "turn": 1},
             why='W4 back, then ' + MA_WILD),
    RuleCase("MA-START", M, "H3; T wild; C0 green; P0 wild-draw4 blue; X1; R0 " + GREEN6,
             ("illegal_wild_draw4@0/4",),
             why=MA_WILD + " + " + MA_W4 + ": green, the colour called on the starter, is the colour in force"),
    # ------------------------------------------------------------------ Mattel: two players
    RuleCase("MA-TWO", M, "H1; T red-5; P0 red-reverse; P1 red-3", ("out_of_turn@1",), players=2,
             why=MA_TWO),
    RuleCase("MA-TWO", M, "H1; T red-5; P0 wild-draw4 blue; D1 4; P0 blue-3", players=2,
             state={"turn": 1, "counts": [5, 11]}, why=MA_TWO),
    RuleCase("MA-TWO", M, f"H1; T red-5; P0 wild-draw4 blue; X1; R0 {CLEAN6}; D1 6; P0 blue-3",
             ("failed_challenge@1/6:MA-CHALLENGE",), players=2, state={"turn": 1, "counts": [5, 13]},
             why='"If not guilty, the challenger must draw 2 cards in addition to the 4" and, two-handed, after the '
                 'Wild Draw Four "the play is back to you"'),
    RuleCase("MA-TWO", M, f"H1; T red-5; P0 wild-draw4 blue; X1; R0 {W6}; P1 blue-3",
             ("illegal_wild_draw4@0/4",), players=2, state={"turn": 0},
             why='"If guilty, he must draw 4 cards." The challenger drew nothing and plays on.'),
    RuleCase("MA-TWO", M, "P0 red-reverse; P2 red-3", players=3, state={"direction": -1, "turn": 1},
             why='Only "Rules for Two Players" make Reverse a Skip; "Regular UNO rules apply in all other instances"'),
    # ------------------------------------------------------------------ Mattel: Wild Draw Four restriction and challenge
    RuleCase("MA-W4", M, f"P0 red-7; P1 wild-draw4 blue; X2; R1 {WILD6}", ("failed_challenge@2/6:MA-CHALLENGE",),
             state={"turn": 3}, why=MA_W4 + ": a Wild has no colour, so it matches no colour"),
    RuleCase("MA-W4", M, f"P0 red-skip; P2 wild-draw4 blue; X3; R2 {WORD6}", ("failed_challenge@3/6:MA-CHALLENGE",),
             state={"turn": 0},
             why='"Note: A player may have a matching number or word card of a different color in his hand and plays '
                 'his Wild Draw Four card."'),
    RuleCase("MA-W4", M, f"P0 wild red; P1 wild-draw4 blue; X2; R1 {W6}", ("illegal_wild_draw4@1/4:MA-W4",),
             why=MA_W4 + "; the Wild called red, so red-2 matches"),
    RuleCase("MA-W4", M, f"P0 red-7; P1 wild-draw4 blue; X2; R1 {NEW6}", ("failed_challenge@2/6",),
             why=MA_W4 + ": holding the colour the +4 names is no offence"),
    RuleCase("MA-CHALLENGE", M, f"P0 red-reverse; P3 wild-draw4 blue; X2; R3 {W6}", ("illegal_wild_draw4@3/4",),
             state={"turn": 2, "counts": [6, 7, 7, 10]},
             why='"The challenge can only be made by the person required to draw the four cards" — after a Reverse, '
                 'seat 2. "If guilty, he must draw 4 cards."'),
    RuleCase("MA-CHALLENGE", M, f"P0 red-reverse; P3 wild-draw4 blue; X2; R3 {CLEAN6}", ("failed_challenge@2/6",),
             state={"turn": 1, "counts": [6, 7, 13, 6]},
             why='"If not guilty, the challenger must draw 2 cards in addition to the 4." and forfeits the turn'),
    RuleCase("MA-CHALLENGE", M, "P0 red-reverse; P3 wild-draw4 blue; X0; D2 4; P1 blue-3", state={"turn": 0},
             why='"The challenge can only be made by the person required to draw the four cards."'),
    # ------------------------------------------------------------------ Mattel: no stacking, drawing
    RuleCase("MA-MATCH", M, "P0 wild-draw4 blue; P1 blue-draw2", ("illegal_stack@1",),
             why='"the next player has to pick 4 cards and forfeit his turn"'),
    RuleCase("MA-MATCH", M, "P0 red-draw2; P1 wild-draw4 blue", ("illegal_stack@1",),
             why='"Draw Two Cards - When this card is played, the next person to play must draw 2 cards and forfeit '
                 'his turn."'),
    RuleCase("MA-MATCH", M, "P0 red-draw2; D1 2; P1 red-3", ("out_of_turn@1",),
             why='"the next person to play must draw 2 cards and forfeit his turn"'),
    RuleCase("MA-DRAW", M, "D0; S0; P0 red-3", ("out_of_turn@0",),
             why='"If he can play what is drawn, great. Otherwise play moves to the next person."'),
    # ------------------------------------------------------------------ Mattel: UNO
    RuleCase("MA-UNO", M, "~5; P0 red-1; D2; U0; P1 red-3", ("wrong_draw@2",),
             why=MA_CATCH + " Seat 2 drawing out of turn is not the next player beginning his turn; seat 0 caught "
                 "himself in time."),
    RuleCase("MA-UNO", M, "U0", state={"counts": [7, 7, 7, 7]},
             why="Mattel's text has no penalty for an early UNO call (that is Falsonal's FA-EARLY)"),
    RuleCase("MA-TABLE", M, "P0 red-7; +60; P1 red-8",
             why="Mattel's text has no turn timer (that is Falsonal's FA-TIMER)"),
    RuleCase("MA-MATCH", M, "P0 wild; C2 blue; P1 red-3",
             why='"The person playing the card calls any color to continue play" — seat 2 saying blue is not seat 0\'s '
                 'call, so nothing makes red-3 illegal'),
    # ------------------------------------------------------------------ Mattel: last card and scoring
    RuleCase("MA-LAST", M, "~6; P0 wild-draw4 blue; D1 4; R1 red-9,blue-1,green-2,yellow-3,wild; R2 red-1; R3 green-2",
             state={"hand_winner": 0}, scores={"hands": [[68, 0, 0, 0]]},
             why='"If the last card played in a hand is a Draw Two or Wild Draw Four card, the next player must draw '
                 'the two or four cards. These cards are counted when points are totaled."'),
    RuleCase("MA-LAST", M, "H1; T red-5; ~6; P0 red-draw2; D1 2; R1 red-9,wild,blue-skip", players=2,
             scores={"hands": [[79, 0]]},
             why='"If the last card played in a hand is a Draw Two ... the next player must draw ... These cards are '
                 'counted"'),
    RuleCase("MA-SCORE", M, "~6; P0 red-1; R1 red-0; R2 wild; R3 blue-reverse", scores={"hands": [[70, 0, 0, 0]]},
             why='"All cards through 9 Face value ... Reverse = 20 points ... Wild = 50 points"'),
    RuleCase("MA-TABLE", M,
             "H1; T red-5; ~6; P0 red-1; R1 red-9; H0; T red-5; P1 red-skip; P1 blue-skip; P1 green-skip; "
             f"P1 yellow-skip; P1 yellow-reverse; P1 green-reverse; U1; P1 green-4; R0 {BIG7}",
             players=2, target=150, state={"dealer": 0, "hand": 2, "phase": "match_over"},
             scores={"hands": [[9, 0], [0, 169]], "totals": [9, 169], "winner": 1},
             why='"The WINNER is the first player to reach [500]" with a running total; two-handed a Skip/Reverse '
                 '"may immediately play another card"'),
    # ------------------------------------------------------------------ Falsonal: starter
    RuleCase("FA-START", F, "H3; T wild blue; P0 red-3", ("illegal_card@0",),
             why='"If the starter card is a Wild — pick a colour." Blue was picked.'),
    RuleCase("FA-START", F, "H1; T red-skip; P1 red-3", players=2, state={"turn": 0},
             why='"Skip starter? First player loses their turn."'),
    RuleCase("FA-START", F, "H1; T red-draw2; D0 2; P1 red-3; P0 red-4", players=2,
             why='"If it\'s a Draw Two, the first player draws two and skips."'),
    RuleCase("FA-START", F, "H3; T red-draw2; P0 red-draw2", ("illegal_stack@0:FA-NOSTACK",),
             why='"the first player draws two and skips" and "You cannot stack a Draw Two on a Draw Two"'),
    RuleCase("FA-START", F, "H3; T red-skip; P0 red-3", ("out_of_turn@0",),
             why='"Skip starter? First player loses their turn."'),
    RuleCase("FA-START", F, "H3; T wild-draw4; T wild; C0 green; P0 green-3", state={"color": "green"},
             why='"we use the official Mattel ruleset" (W4 back) and "If the starter card is a Wild — pick a colour."'),
    # ------------------------------------------------------------------ Falsonal: actions, two players
    RuleCase("FA-ACTION", F, "P0 wild; C1 blue; P1 blue-3", ("no_color@0:FA-ACTION",),
             why='"Wild: you choose the next colour" — the next player naming it is not the Wild player\'s choice'),
    RuleCase("FA-ACTION", F, "H1; T red-5; P0 red-skip; P0 red-3", players=2,
             why='"we use the official Mattel ruleset, full stop" — Mattel two-handed: "The person playing a Skip '
                 'card may immediately play another card."'),
    RuleCase("FA-ACTION", F, "H1; T red-5; P0 red-draw2; D1 2; P1 red-3", ("out_of_turn@1",), players=2,
             why='"Draw Two: the next player draws two cards and forfeits their turn."'),
    RuleCase("FA-ACTION", F, "H1; T red-5; P0 wild-draw4 blue; D1 4; P0 blue-3", players=2,
             why='"Wild Draw Four: next player draws four cards, loses their turn, and you nominate the colour."'),
    RuleCase("FA-ACTION", F, "P0 red-reverse; P3 red-draw2; D2 2; P1 red-3", state={"turn": 0},
             why='"Reverse: direction of play flips." "Draw Two: the next player draws two cards and forfeits their turn."'),
    # ------------------------------------------------------------------ Falsonal: Wild Draw Four
    RuleCase("FA-W4", F, f"P0 red-7; P1 wild-draw4 blue; X2; R1 {WILD6}", ("failed_challenge@2/6:FA-W4",),
             why=FA_W4 + ": a Wild is no card of the current colour"),
    RuleCase("FA-W4", F, f"P0 red-draw2; D1 2; P2 wild-draw4 blue; X3; R2 {D2WORD6}", ("failed_challenge@3/6",),
             state={"turn": 0}, why=FA_W4),
    RuleCase("FA-W4", F, "P0 red-7; P1 wild-draw4 blue; X3; D2 4; P3 blue-3",
             why='"you may challenge them before drawing" — only the player who must draw'),
    RuleCase("FA-W4", F, f"H1; T red-5; P0 wild-draw4 blue; X1; R0 {CLEAN6}; P0 blue-3", ("failed_challenge@1/6:FA-W4",),
             players=2, why='"If the challenge is wrong, the challenger draws six cards" and loses the turn'),
    RuleCase("FA-W4", F, f"P0 red-7; P1 wild-draw4 blue; X2; R1 {W6}; D1 4; P2 blue-3", ("illegal_wild_draw4@1/4",),
             state={"counts": [6, 10, 6, 7]},
             why='"If the challenge is correct, the player who played the +4 draws the four cards instead."'),
    # ------------------------------------------------------------------ Falsonal: no stacking / jumping in
    RuleCase("FA-NOSTACK", F, "P0 red-draw2; P1 wild-draw4 blue", ("illegal_stack@1:FA-NOSTACK",),
             why='"no stacking ... None of these are allowed." "Draw Two: the next player draws two cards and forfeits '
                 'their turn."'),
    RuleCase("FA-NOSTACK", F, "P0 red-skip; P1 red-skip", ("illegal_jump_in@1:FA-NOSTACK",),
             why='"you cannot jump in with an identical card out of turn"'),
    RuleCase("FA-TURN", F, "H1; T red-5; P0 red-skip+red-3", ("too_many_cards@0:FA-TURN",), players=2,
             why='"You may not play more than one card per turn."'),
    # ------------------------------------------------------------------ Falsonal: UNO, early UNO
    RuleCase("FA-EARLY", F, "~4; U0", ("early_uno@0/1:FA-EARLY",), state={"counts": [4, 3, 3, 3]},
             why=FA_EARLY + " (exactly three)"),
    RuleCase("FA-EARLY", F, "U2", ("early_uno@2/1:FA-EARLY",), state={"counts": [7, 7, 8, 7]},
             why=FA_EARLY + " — on anyone's turn"),
    RuleCase("FA-EARLY", F, "~4; U0; P0 red-1", ("early_uno@0/1",), state={"counts": [3, 3, 3, 3]},
             why=FA_EARLY + " — three cards when calling, even while laying one"),
    RuleCase("FA-EARLY", F, "~5; P0 red-1; U0; U1", why=FA_EARLY + " — two cards is not three or more"),
    # ------------------------------------------------------------------ Falsonal: timer
    RuleCase("FA-TIMER", F, "P0 red-7; +20; P1 red-8; +20; P2 red-9", ("turn_timeout@1/0", "turn_timeout@2/0"),
             why=FA_TIMER + " — 'the second time it costs you': each player's own first time is a warning"),
    RuleCase("FA-TIMER", F, "P0 red-7; +14; P1 red-8", why=FA_TIMER + " — exactly fifteen seconds does not exceed"),
    RuleCase("FA-TIMER", F, "P0 red-skip; +15; P2 red-3", ("turn_timeout@2/0",),
             why=FA_TIMER + " — after a Skip the clock runs for the player after the skipped one"),
    RuleCase("FA-TIMER", F, "P0 red-7; +20; P1 red-8; P2 red-9; P3 red-1; P0 red-2; +20; P1 red-3",
             ("turn_timeout@1/0", "turn_timeout@1/1", "out_of_turn@1"),
             why=FA_TIMER + " — the turn has ended; a card laid afterwards is laid out of turn"),
    # ------------------------------------------------------------------ Falsonal: winning, dealer
    RuleCase("FA-WIN", F, "~6; P0 wild-draw4 blue; D1 4; R1 red-9,blue-1,green-2,yellow-3,wild; R2 red-1; R3 green-2",
             scores={"hands": [[68, 0, 0, 0]]},
             why='"we use the official Mattel ruleset, full stop" — Mattel: "If the last card played in a hand is a '
                 '... Wild Draw Four card, the next player must draw ... These cards are counted"'),
    RuleCase("FA-TABLE", F, "H3; T red-5; ~6; P0 red-1; R1 red-9; R2 red-8; R3 red-7; H0; T red-5; P1 red-3",
             state={"dealer": 0, "hand": 2, "turn": 2}, scores={"totals": [24, 0, 0, 0]},
             why='"a designated dealer who rotates each round" and "Play begins with the player to the dealer\'s left"'),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.ruleset}:{c.clause}:{c.steps}")
def test_corner(case: RuleCase) -> None:
    assert case.problems() == [], case.why
