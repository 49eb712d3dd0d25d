"""St. Petersburg ЧемпиУНат house rules (shared/seeds/000_04053542a56f51f8.txt, in Russian), clause by clause."""

import pytest

from tracker.script import RuleCase

R = "chempiunat"

CASES = [
    RuleCase("CH-DEAL", R, "", players=6, state={"counts": [7] * 6, "draw_pile": 65, "turn": 0}),
    RuleCase("CH-TABLE", R, "", players=6, state={"warnings": []}, why="six a table"),
    RuleCase("CH-START", R, "H3; T red-skip; T blue-5; P0 blue-3", why="an action starter goes back; turn again"),
    RuleCase("CH-START", R, "H3; T wild; T blue-5; P0 blue-3"),
    RuleCase("CH-START", R, "H3; T red-skip; P0 red-3", ("bad_starter@0:CH-START",)),
    RuleCase("CH-START", R, "H3; T red-skip; P3 blue-5; P0 blue-3", state={"turn": 1},
             why="the dealer's card on a returned starter is the replacement starter (what a camera reports)"),
    RuleCase("CH-START", R, "H3; T wild-draw4; P0 red-3", ("bad_starter@0",)),
    RuleCase("CH-START", R, "H3; T red-draw2; T red-6; P0 red-3", state={"pending_draw": 0, "turn": 1}),
    RuleCase("CH-ORDER", R, "P1 red-7", ("out_of_turn@1:CH-ORDER",), why="the player after the dealer starts"),
    RuleCase("CH-ORDER", R, "P0 red-7; P1 red-8; P2 red-9", state={"turn": 3, "direction": 1}),
    RuleCase("CH-ORDER", R, "H3; T red-5; P0 red-7; H2; T red-5", ("wrong_dealer@2:CH-ORDER",),
             why="the dealer moves clockwise each hand"),
    RuleCase("CH-MATCH", R, "P0 blue-7", ("illegal_card@0/0:CH-MATCH",)),
    RuleCase("CH-MATCH", R, "P0 blue-5; P1 blue-skip; P3 green-skip", state={"color": "green", "turn": 1}),
    RuleCase("CH-DRAW", R, "D0; S0; P1 red-3", why="no fitting card: draw one, keep it, say pass"),
    RuleCase("CH-DRAW", R, "D0; P0 red-3", why="a drawn card that fits may be laid"),
    RuleCase("CH-DRAW", R, "S0", ("wrong_draw@0:CH-DRAW",)),
    RuleCase("CH-JUMP", R, "P0 red-7; P2 red-7; P3 red-8", state={"turn": 0},
             why="an identical number card, any time; play goes on after the jumper"),
    RuleCase("CH-JUMP", R, "P0 red-7; P0 red-7", why="the player who just laid it may jump on it too"),
    RuleCase("CH-JUMP", R, "P0 red-7; P2 blue-7", ("illegal_jump_in@2:CH-JUMP",), why="colour and number must match"),
    RuleCase("CH-JUMP", R, "P0 red-skip; P3 red-skip", ("illegal_jump_in@3",), why="number cards only"),
    RuleCase("CH-JUMP", R, "P0 red-7; P2 green-3", ("out_of_turn@2",)),
    RuleCase("CH-JUMP", R, "P0 red-reverse; P3 red-7; P1 red-7", state={"turn": 0, "direction": -1},
             why="after a jump-in, play continues from the jumper in the current direction"),
    RuleCase("CH-UNO", R, "~5; P0 red-1; U0; P1 red-2", why="said as the card came down"),
    RuleCase("CH-UNO", R, "~5; U0; P0 red-1; P1 red-2"),
    RuleCase("CH-UNO", R, "~5; P0 red-1; +3; U0; P1 red-2", ("missed_uno@0/2:CH-UNO",),
             why="the call must come while laying the card, not after"),
    RuleCase("CH-UNO", R, "~5; P0 red-1; P1 red-2", ("missed_uno@0/2",)),
    RuleCase("CH-OPEN", R, "~6; P0 red-1; R1 red-9,red-8; R2 wild; R3 blue-skip", ("count_mismatch@1:CH-OPEN",)),
    RuleCase("CH-BLACK", R, "P0 wild-draw4 blue; D1 4; P2 blue-3", why="black cards any time"),
    RuleCase("CH-BLACK", R, "P0 wild-draw4 blue; X1; R0 red-1,red-2,red-3,red-4,red-5,red-6; D1 4; P2 blue-3",
             why="no restriction, so nothing to challenge"),
    RuleCase("CH-W4", R, "P0 wild-draw4 blue; P1 wild-draw4 green; D2 4; P3 green-3",
             why="+4 on +4 passes four on, never eight"),
    RuleCase("CH-W4", R, "P0 wild-draw4 blue; P1 wild-draw4 green; D2 8", ("wrong_draw@2",)),
    RuleCase("CH-W4", R, "P0 wild-draw4 blue; P1 wild-draw4 green", state={"pending_draw": 4, "turn": 2}),
    RuleCase("CH-W4", R, "P0 red-7; P2 wild-draw4 blue", ("out_of_turn@2",), why="only on your own turn"),
    RuleCase("CH-W4", R, "P0 red-draw2; P1 wild-draw4 blue", ("illegal_stack@1:CH-W4",)),
    RuleCase("CH-WILD", R, "P0 wild red; P1 red-3"),
    RuleCase("CH-WILD", R, "P0 wild red; P1 blue-3", ("illegal_card@1",), why="the next must play that colour"),
    RuleCase("CH-WILD", R, "P0 wild; C0 yellow; P1 yellow-3", state={"color": "yellow"}),
    RuleCase("CH-PAIR", R, "P0 red-skip+red-skip; P3 red-3", why="two Skips: two players skipped"),
    RuleCase("CH-PAIR", R, "P0 red-reverse+red-reverse; P1 red-3", state={"direction": 1},
             why="two Reverses: direction unchanged"),
    RuleCase("CH-PAIR", R, "P0 red-skip+red-reverse", state={"direction": -1, "turn": 2}),
    RuleCase("CH-PAIR", R, "P0 red-skip+blue-skip", ("too_many_cards@0:CH-PAIR",), why="only the same colour"),
    RuleCase("CH-PAIR", R, "P0 red-7+red-7", ("too_many_cards@0",), why="action cards only"),
    RuleCase("CH-PAIR", R, "P0 red-skip+red-skip+red-reverse", ("too_many_cards@0",), why="two at most"),
    RuleCase("CH-PAIR", R, "P0 red-draw2+red-draw2; D1 4; P2 red-3"),
    RuleCase("CH-REV", R, "P0 red-reverse; P3 red-3; P2 red-4", state={"direction": -1, "turn": 1}),
    RuleCase("CH-D2", R, "P0 red-draw2; P1 blue-draw2; D2 4; P3 blue-3", why="the chain sums"),
    RuleCase("CH-D2", R, "P0 red-draw2; P1 blue-draw2; D2 2", ("wrong_draw@2:CH-D2",)),
    RuleCase("CH-D2", R, "P0 red-draw2; D1 2; P2 red-3"),
    RuleCase("CH-D2", R, "P0 red-draw2; D1 2; P1 red-3", ("out_of_turn@1",), why="the drawer loses the turn"),
    RuleCase("CH-SKIP", R, "P0 red-skip; P2 red-3"),
    RuleCase("CH-SCORE", R, "~6; P0 red-1; R1 red-9; R2 wild; R3 blue-skip", scores={"hands": [[79, 0, 0, 0]]}),
    RuleCase("CH-GAME", R, "~6; P0 red-1; R1 wild-draw4; R2 wild; R3 blue-skip", target=100,
             scores={"winner": 0, "totals": [120, 0, 0, 0]}, why="the hand's winner scores the others' cards"),
    RuleCase("CH-GAME", R, "~6; P0 red-1; R1 red-1; R2 red-1; R3 red-1", scores={"winner": None, "totals": [3, 0, 0, 0]}),
    RuleCase("CH-DISPUTE", R, "P0 blue-7; !dis 4-illegal_card-0", ("illegal_card@0",),
             why="the organisers' ruling is recorded; no penalty to take back"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.clause}:{c.steps}")
def test_chempiunat_rule(case: RuleCase) -> None:
    assert case.problems() == [], case.why
