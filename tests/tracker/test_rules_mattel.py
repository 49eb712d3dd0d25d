"""Mattel's official rules (shared/seeds/002_a0bc2bb7abcb39a9.txt), clause by clause (RULESETS.md, MA-*)."""

import pytest

from tracker.script import RuleCase

R = "mattel"
W6 = "red-2,green-3,green-4,blue-1,blue-2,yellow-9"  # a six-card hand holding red
CLEAN6 = "green-7,green-3,green-4,blue-1,blue-2,yellow-9"  # no red card, but a 7 of another colour

CASES = [
    RuleCase("MA-MATCH", R, "P0 red-7", state={"top_card": "red-7", "color": "red", "turn": 1}),
    RuleCase("MA-MATCH", R, "P0 blue-5", state={"color": "blue", "turn": 1}, why="same number, other colour"),
    RuleCase("MA-MATCH", R, "P0 red-skip; P2 blue-skip", state={"turn": 0}, why="same word, other colour"),
    RuleCase("MA-MATCH", R, "P0 blue-7", ("illegal_card@0/0:MA-MATCH",)),
    RuleCase("MA-MATCH", R, "P0 wild green; P1 green-2", state={"color": "green", "turn": 2},
             why="a Wild may be played even holding a playable card"),
    RuleCase("MA-MATCH", R, "P0 wild green; P1 red-2", ("illegal_card@1",), why="the named colour is in force"),
    RuleCase("MA-MATCH", R, "P0 red-draw2; P1 blue-draw2", ("illegal_stack@1:MA-MATCH",), why="no stacking"),
    RuleCase("MA-MATCH", R, "P0 red-7; P2 red-7", ("illegal_jump_in@2",), why="no jumping in"),
    RuleCase("MA-MATCH", R, "P0 red-7+red-8", ("too_many_cards@0",), why="one card a turn"),
    RuleCase("MA-DEALER", R, "P2 red-7", ("out_of_turn@2:MA-DEALER",), state={"turn": 3}),
    RuleCase("MA-DEALER", R, "H1; T red-5; P2 red-7", state={"turn": 3, "dealer": 1},
             why="the player left of the dealer starts"),
    RuleCase("MA-DEALER", R, "H3; T red-5; P0 red-7; H1; T red-5", state={"dealer": 1, "hand": 2},
             why="the text picks the first dealer and names no next one: any seat may deal the next hand"),
    RuleCase("MA-DEALER", R, "H3; T red-5; P0 red-7; H0; T red-5", state={"dealer": 0, "hand": 2}),
    RuleCase("MA-START", R, "H3; T wild-draw4; T red-5; P0 red-7", state={"turn": 1},
             why="a Wild Draw Four starter goes back; another card is turned"),
    RuleCase("MA-START", R, "H3; T wild-draw4; P0 red-7", ("bad_starter@0:MA-START",)),
    RuleCase("MA-START", R, "H3; T wild-draw4; P3 red-5; P0 red-7", state={"turn": 1},
             why="the dealer's card on a returned starter is the replacement starter (what a camera reports)"),
    RuleCase("MA-START", R, "H3; T blue-draw2; D0 2; P1 blue-3", state={"turn": 2},
             why="Draw Two starter: the first player draws two and the next goes"),
    RuleCase("MA-START", R, "H3; T blue-draw2; P0 blue-3", ("wrong_draw@0",)),
    RuleCase("MA-START", R, "H3; T blue-reverse; P3 blue-3; P2 blue-4", state={"direction": -1, "turn": 1},
             why="Reverse starter: the dealer plays first, then to the right"),
    RuleCase("MA-START", R, "H3; T blue-skip; P1 blue-3", state={"turn": 2}),
    RuleCase("MA-START", R, "H3; T blue-skip; P0 blue-3", ("out_of_turn@0",), why="the skipped player can't start"),
    RuleCase("MA-START", R, "H3; T wild; C0 green; P0 green-3", state={"color": "green"},
             why="Wild starter: the player left of the dealer names the colour, then plays"),
    RuleCase("MA-W4", R, f"P0 red-7; P1 wild-draw4 blue; X2; R1 {W6}", ("illegal_wild_draw4@1/4:MA-W4",),
             state={"turn": 2, "pending_draw": 0}, why="held red, the colour in force"),
    RuleCase("MA-W4", R, f"P0 red-7; P1 wild-draw4 blue; X2; R1 {CLEAN6}", ("failed_challenge@2/6",),
             why="a matching number of another colour does not make the +4 illegal"),
    RuleCase("MA-W4", R, "P0 red-7; P1 wild-draw4 blue; D2 4; P3 blue-3", state={"turn": 0},
             why="unchallenged, the next player draws four and loses the turn"),
    RuleCase("MA-CHALLENGE", R, f"P0 red-7; P1 wild-draw4 blue; X2; R1 {CLEAN6}", ("failed_challenge@2/6:MA-CHALLENGE",),
             state={"turn": 3}, why="wrong challenge: 4 + 2 and the turn is lost"),
    RuleCase("MA-CHALLENGE", R, "P0 red-7; P1 wild-draw4 blue; X2; D1 4; P2 blue-3", ("illegal_wild_draw4@1/4",),
             state={"turn": 3, "counts": [6, 10, 6, 7], "pending_draw": 0},
             why="the hand is shown to the challenger alone: the +4 player drawing four settles it as guilty"),
    RuleCase("MA-CHALLENGE", R, "P0 red-7; P1 wild-draw4 blue; X2; D2 6", ("failed_challenge@2/6:MA-CHALLENGE",),
             state={"turn": 3, "counts": [6, 6, 13, 7], "pending_draw": 0},
             why="the hand is shown to the challenger alone: the challenger drawing six settles it as legal"),
    RuleCase("MA-CHALLENGE", R, "P0 red-7; P1 wild-draw4 blue; X3; D2 4", state={"turn": 3},
             why="only the player who must draw four may challenge"),
    RuleCase("MA-CHALLENGE", R, f"P0 red-7; P1 wild-draw4 blue; X2; R1 {W6}; P2 blue-3",
             ("illegal_wild_draw4@1/4",), state={"turn": 3}, why="guilty: the challenger plays on"),
    RuleCase("MA-DRAW", R, "D0; P0 red-9", state={"turn": 1}),
    RuleCase("MA-DRAW", R, "D0; S0; P1 red-9", state={"turn": 2}),
    RuleCase("MA-DRAW", R, "D0; D0", ("wrong_draw@0:MA-RENEGE",), why="one card, then play or move on"),
    RuleCase("MA-DRAW", R, "D0 2", ("wrong_draw@0:MA-DRAW",)),
    RuleCase("MA-DRAW", R, "S0", ("wrong_draw@0",), why="nothing to play: draw before passing"),
    RuleCase("MA-RENEGE", R, "D0; P1 red-9", state={"turn": 2}, why="keeping the drawn card, play moves on"),
    RuleCase("MA-UNO", R, "~5; P0 red-1; U0; P1 red-2", state={"uno": [True, False, False, False]}),
    RuleCase("MA-UNO", R, "~5; U0; P0 red-1; P1 red-2", why="said while laying the card"),
    RuleCase("MA-UNO", R, "~5; P0 red-1; +4; U0; P1 red-2", why="caught himself before anyone else: safe"),
    RuleCase("MA-UNO", R, "~5; P0 red-1; P1 red-2", ("missed_uno@0/2:MA-UNO",), state={"counts": [3, 1, 2, 2]}),
    RuleCase("MA-UNO", R, "~5; P0 red-1; D1; U0", ("missed_uno@0",), why="too late once the next player drew"),
    RuleCase("MA-LAST", R, "~6; P0 red-draw2; D1 2; R1 red-9,blue-1,wild; R2 red-1; R3 green-2",
             state={"hand_winner": 0}, scores={"hands": [[63, 0, 0, 0]], "totals": [63, 0, 0, 0]}),
    RuleCase("MA-SCORE", R, "~6; P0 red-1; R1 red-9; R2 wild-draw4; R3 blue-skip",
             scores={"hands": [[79, 0, 0, 0]], "winner": None}),
    RuleCase("MA-TABLE", R, "~6; P0 red-1; R1 red-9; R2 wild-draw4; R3 blue-skip", target=50,
             scores={"winner": 0}, state={"phase": "match_over"}, why="first to the target wins the game"),
    RuleCase("MA-TWO", R, "H1; T red-5; P0 red-reverse; P0 red-3", players=2, why="Reverse acts as a Skip"),
    RuleCase("MA-TWO", R, "H1; T red-5; P0 red-skip; P0 red-3", players=2),
    RuleCase("MA-TWO", R, "H1; T red-5; P0 red-draw2; D1 2; P0 red-3", players=2),
    RuleCase("MA-TWO", R, "H1; T red-5; P0 red-skip; P1 red-3", ("out_of_turn@1",), players=2),
    RuleCase("MA-RESHUFFLE", R, "P0 red-7; P1 red-8; P2 red-9; D3 79; D3 2", ("wrong_draw@3", "wrong_draw@3"),
             state={"draw_pile": 1, "discard_pile": 1}, why="the discard pile, top card kept, becomes the pile"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.clause}:{c.steps}")
def test_mattel_rule(case: RuleCase) -> None:
    assert case.problems() == [], case.why
