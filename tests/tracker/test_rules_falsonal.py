"""The Falsonal championship (shared/seeds/001_e606294f3fdfc63a.txt): Mattel's rules, strictly (FA-*)."""

import pytest

from tracker.script import RuleCase

R = "falsonal"
W6 = "red-2,green-3,green-4,blue-1,blue-2,yellow-9"
CLEAN6 = "green-7,green-3,green-4,blue-1,blue-2,yellow-9"

CASES = [
    RuleCase("FA-TURN", R, "P0 blue-7", ("illegal_card@0/0:FA-TURN",)),
    RuleCase("FA-TURN", R, "P0 red-7+red-8", ("too_many_cards@0:FA-TURN",), why="never more than one card a turn"),
    RuleCase("FA-TURN", R, "D0 2", ("wrong_draw@0:FA-TURN",), why="draw exactly one card"),
    RuleCase("FA-TURN", R, "D0; P0 red-2", state={"turn": 1}, why="a drawn card that fits may be played at once"),
    RuleCase("FA-TURN", R, "D0; S0; P1 red-2", state={"turn": 2}, why="or kept"),
    RuleCase("FA-TURN", R, "P0 wild blue; P1 blue-2", state={"color": "blue"}),
    RuleCase("FA-DEAL", R, "P1 red-7", ("out_of_turn@1:FA-DEAL",), why="play starts left of the dealer"),
    RuleCase("FA-DEAL", R, "", state={"counts": [7, 7, 7, 7], "turn": 0, "direction": 1, "draw_pile": 79}),
    RuleCase("FA-START", R, "H3; T wild; C0 blue; P0 blue-3", state={"color": "blue", "turn": 1}),
    RuleCase("FA-START", R, "H3; T red-draw2; D0 2; P1 red-3", state={"turn": 2}, why="draws two and skips"),
    RuleCase("FA-START", R, "H3; T red-skip; P1 red-3"),
    RuleCase("FA-START", R, "H3; T red-reverse; P3 red-3; P2 red-4", state={"direction": -1}),
    RuleCase("FA-START", R, "H3; T wild-draw4; T red-5; P0 red-7"),
    RuleCase("FA-START", R, "H3; T wild-draw4; P0 red-7", ("bad_starter@0:FA-START",)),
    RuleCase("FA-TIMER", R, "P0 red-7; +20; P1 red-8", ("turn_timeout@1/0:FA-TIMER",), state={"turn": 2},
             why="the first time is a warning"),
    RuleCase("FA-TIMER", R, "P0 red-7; +20; P1 red-8; P2 red-9; P3 red-1; P0 red-2; +20; D1",
             ("turn_timeout@1/0", "turn_timeout@1"), state={"turn": 2, "counts": [5, 7, 6, 6], "owed": [0] * 4},
             why="the second time: one penalty card and the turn ends"),
    RuleCase("FA-TIMER", R, "P0 red-7; +13; P1 red-8", why="fifteen seconds from the end of the previous turn"),
    RuleCase("FA-TIMER", R, "P0 red-7; +6; D1; +6; P1 red-8", why="one turn, fifteen seconds in all"),
    RuleCase("FA-UNO", R, "~5; P0 red-1; P1 red-2", ("missed_uno@0/2:FA-UNO",)),
    RuleCase("FA-UNO", R, "~5; P0 red-1; +2; U0; P1 red-2", why="said before the next player begins"),
    RuleCase("FA-UNO", R, "~5; P0 red-1; D1; U0", ("missed_uno@0",)),
    RuleCase("FA-UNO", R, "~5; P0 red-1; U?; P1 red-2", why="a call no microphone could place answers the open window"),
    RuleCase("FA-EARLY", R, "U0", ("early_uno@0/1:FA-EARLY",), state={"counts": [8, 7, 7, 7]}),
    RuleCase("FA-EARLY", R, "~5; U0; P0 red-1", why="with two cards, while playing the second-to-last: fine"),
    RuleCase("FA-EARLY", R, "U?", why="an unattributed call punishes nobody"),
    RuleCase("FA-ACTION", R, "P0 red-skip; P2 red-3"),
    RuleCase("FA-ACTION", R, "P0 red-skip; P1 red-3", ("out_of_turn@1",)),
    RuleCase("FA-ACTION", R, "P0 red-reverse; P3 red-3", state={"direction": -1, "turn": 2}),
    RuleCase("FA-ACTION", R, "H1; T red-5; P0 red-reverse; P0 red-3", players=2, why="two players: Reverse skips"),
    RuleCase("FA-ACTION", R, "P0 red-draw2; D1 2; P2 red-3"),
    RuleCase("FA-ACTION", R, "P0 red-draw2; P1 red-3", ("wrong_draw@1:FA-ACTION",), why="didn't draw the two"),
    RuleCase("FA-ACTION", R, "P0 red-draw2; D1; P2 red-3", ("wrong_draw@1",)),
    RuleCase("FA-ACTION", R, "P0 wild; P1 red-3", ("no_color@0:FA-ACTION",)),
    RuleCase("FA-ACTION", R, "P0 wild; C0 blue; P1 blue-3", state={"color": "blue"}),
    RuleCase("FA-ACTION", R, "C0 blue; P0 wild; P1 blue-3", why="named as the card came down"),
    RuleCase("FA-ACTION", R, "P0 wild-draw4; C0 green; D1 4; P2 green-3", why="+4: you nominate the colour"),
    RuleCase("FA-W4", R, f"P0 red-7; P1 wild-draw4 blue; X2; R1 {W6}", ("illegal_wild_draw4@1/4:FA-W4",)),
    RuleCase("FA-W4", R, f"P0 red-7; P1 wild-draw4 blue; X2; R1 {CLEAN6}", ("failed_challenge@2/6:FA-W4",),
             state={"turn": 3}),
    RuleCase("FA-W4", R, "P0 red-7; P1 wild-draw4 blue; D2 4; X2", state={"turn": 3},
             why="the challenge comes before drawing"),
    RuleCase("FA-W4", R, "P0 red-7; P1 wild-draw4 blue; X2; R1 red-2,green-3", ("illegal_wild_draw4@1", "count_mismatch@1"),
             why="the hand shown holds fewer cards than the log accounts for"),
    RuleCase("FA-NOSTACK", R, "P0 red-draw2; P1 blue-draw2", ("illegal_stack@1:FA-NOSTACK",)),
    RuleCase("FA-NOSTACK", R, "P0 wild-draw4 blue; P1 blue-draw2", ("illegal_stack@1",)),
    RuleCase("FA-NOSTACK", R, "P0 wild-draw4 blue; P1 wild-draw4 red", ("illegal_stack@1",)),
    RuleCase("FA-NOSTACK", R, "P0 red-7; P2 red-7", ("illegal_jump_in@2:FA-NOSTACK",)),
    RuleCase("FA-NOSTACK", R, "P0 red-7 >2", state={"counts": [6, 7, 7, 7]}, why="no 7-0: a 7 swaps nothing"),
    RuleCase("FA-NOSTACK", R, "P0 red-0", state={"counts": [6, 7, 7, 7]}),
    RuleCase("FA-WIN", R, "~6; P0 red-1; R1 red-9; R2 wild; R3 blue-skip", state={"hand_winner": 0},
             scores={"hands": [[79, 0, 0, 0]], "totals": [79, 0, 0, 0]}),
    RuleCase("FA-WIN", R, "~6; P0 red-1; R1 red-9,red-1; R2 wild; R3 blue-skip", ("count_mismatch@1",),
             scores={"hands": [[80, 0, 0, 0]]}),
    RuleCase("FA-MISDEAL", R, "P0 red-7; P1 red-8; P2 red-9; D3 79; D3 2", ("wrong_draw@3", "wrong_draw@3"),
             state={"draw_pile": 1, "discard_pile": 1}, why="shuffle the discard pile except its top card"),
    RuleCase("FA-TABLE", R, "H3; T red-5; P0 red-7; H1; T red-5", ("wrong_dealer@1:FA-TABLE",)),
    RuleCase("FA-DISPUTE", R, "~5; P0 red-1; P1 red-2; !dis 24-missed_uno-0", ("missed_uno@0/2",),
             state={"counts": [1, 1, 2, 2]},
             why="a dismissed flag's penalty is taken back"),
    RuleCase("FA-DISPUTE", R, "~5; P0 red-1; P1 red-2; !up 24-missed_uno-0", ("missed_uno@0/2",),
             state={"counts": [3, 1, 2, 2]}),
    RuleCase("FA-DISPUTE", R, "P0 blue-7; P1 blue-8; !fix 4 P0 red-7",
             ("illegal_card@1",), why="a corrected card changes what follows"),
    RuleCase("FA-DISPUTE", R, "P2 red-7; !fix 4 -", state={"turn": 0, "counts": [7, 7, 7, 7]},
             why="a struck line never happened"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.clause}:{c.steps}")
def test_falsonal_rule(case: RuleCase) -> None:
    assert case.problems() == [], case.why
