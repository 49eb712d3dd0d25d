"""Hand scores and the match, in all four rulesets (shared/seeds/000_*..003_*): card values, who collects the points,
the target, a Draw Two / Wild Draw Four as the last card, penalties that change a hand before it is scored, reveals,
hands in a row, hands after the match was won, and what `unotable replay` prints for them (CH-GAME, CH-SCORE,
FA-WIN, MA-LAST, MA-SCORE, MA-TABLE, OL-GOAL, OL-SCORE, ...). Each verdict comes from the rulebook text, quoted in
`why` (stop 62's scoring audit). `FINDINGS` are the cases the engine got wrong
before stop 62's fixes, each with what it did."""

import argparse
import json
from pathlib import Path

import pytest

from tracker.commands import register
from tracker.log import write_log
from tracker.script import RuleCase

CH, FA, MA, OL = "chempiunat", "falsonal", "mattel", "olympic"

MA_LAST = ('"If the last card played in a hand is a Draw Two or Wild Draw Four card, the next player must draw the two '
           'or four cards. These cards are counted when points are totaled."')
MA_OUT = '"Once a player has no cards left, the hand is over. Points are scored (see scoring section)"'
MA_CATCH = ('"you may not catch a player for failure to say UNO after the next player begins his turn. Beginning a '
            'turn is defines as either drawing a card from the DRAW pile or drawing a card from your hand to play."')
MA_500 = '"UNO Deluxe Rules ... The first person to reach 500 points." / "The WINNER is the first player to reach [500]"'
FA_MATTEL = '"we use the official Mattel ruleset, full stop"'
FA_WIN = ('"The first player to discard all their cards wins the round. ... The winner of the round receives the total '
          'points held by the other three players at the table."')
OL_GOAL = ('"The aim of the game is to have the lowest score when one of the player\'s score reaches 500 points. Each '
           'rounds of play, the first player to discard all her/his cards stops the round and all other player score '
           'points for the card still help in their hands"')
OL_70 = ('"If you play a 0 or a 7 as last card you are giving the victory to someone else but you can still organise '
         'who you are getting the cards from to get a small amount points."')
CH_500 = "'Каждая игра будет вестись до 500 очков' (each game is played to 500 points)"
CH_CLASSIC = ("'Игра будет проводиться по классическим правилам, с небольшими исправлениями' (classic rules with small "
              "changes): the text is silent on a last Draw Two, so the classic (Mattel) rule applies: " + MA_LAST)

# hands of one card each (~6) for the three seats that don't go out
REST = "R2 red-1; R3 green-2"

# a reveal of the wrong size; a match won in hand 2 with a third hand dealt afterwards (also replayed below)
WRONG_SIZE = RuleCase(
    "MA-SCORE", MA, "~6; P0 red-1; R1 red-9,red-8; R2 wild; R3 blue-skip", ("count_mismatch@1:MA-SCORE",),
    scores={"hands": [[87, 0, 0, 0]]},
    why='"he gets points for cards left in the opponent\'s hands": the hand as shown is scored, the count flagged')
AFTER_THE_MATCH = RuleCase(
    "OL-GOAL", OL, "H0; T red-5; ~6@1; P1 red-1; R0 red-1; R2 red-9; "
    "H1; T red-5; ~6@2; P2 red-1; R0 red-2; R1 wild; H2; T red-5; ~6; P0 red-1; R1 wild; R2 wild",
    players=3, target=50, scores={"hands": [[1, 0, 9], [2, 50, 0]], "totals": [3, 50, 9], "winner": 0},
    why=OL_GOAL + " — the game ended with hand 2; a hand dealt afterwards changes neither score nor winner")

PASSING = [
    # ---------------------------------------------------------------- the target each rulebook names
    RuleCase("CH-GAME", CH, "P0 red-8", scores={"target": 500, "totals": [0, 0, 0, 0]}, why=CH_500),
    RuleCase("FA-WIN", FA, "P0 red-8", scores={"target": 500, "totals": [0, 0, 0, 0]},
             why=FA_MATTEL + " — Falsonal names no target of its own; Mattel's is " + MA_500),
    RuleCase("MA-TABLE", MA, "P0 red-8", scores={"target": 500, "totals": [0, 0, 0, 0]}, why=MA_500),
    RuleCase("OL-GOAL", OL, "P0 red-8", scores={"target": 500, "totals": [0, 0, 0, 0], "lowest_wins": True},
             why=OL_GOAL),
    # ---------------------------------------------------------------- the last card is a Draw Two / Wild Draw Four
    RuleCase("CH-D2", CH, "~5; P0 red-draw2; U0; P1 blue-draw2; U1; P2 green-draw2; U2; P3 yellow-draw2; U3; "
             "P0 red-draw2; D1 10; R1 red-9,red-1,red-2,red-3,red-4,red-5,red-6,red-8,red-9,blue-1,blue-2; " + REST,
             state={"hand_winner": 0, "counts": [0, 11, 1, 1]}, scores={"hands": [[53, 0, 0, 0]]},
             why="the chain sums ('следующий игрок должен будет взять уже 4 карты') and " + CH_CLASSIC),
    RuleCase("CH-W4", CH, "~5; P0 red-1; U0; P1 red-2; U1; P2 red-3; U2; P3 wild-draw4 blue; U3; "
             "P0 wild-draw4 red; D1 4; R1 red-9,red-1,red-2,red-3,red-4; R2 red-1; R3 green-2",
             state={"hand_winner": 0}, scores={"hands": [[22, 0, 0, 0]]},
             why="'следующий игрок ... должен будет взять 4 карты, а не 8' (the +4 passed on with the last card: "
                 "the next draws 4, not 8) and " + CH_CLASSIC),
    RuleCase("MA-LAST", MA, "~5; P0 red-reverse; U0; P3 red-1; U3; P2 red-2; U2; P1 red-3; U1; P0 wild-draw4 blue; "
             "D3 4; R1 red-9; R2 red-1; R3 green-2,green-3,green-4,green-5,green-6",
             state={"hand_winner": 0, "counts": [0, 1, 1, 5]}, scores={"hands": [[30, 0, 0, 0]]},
             why=MA_LAST + " After a Reverse the next player is the one to the right (seat 3)."),
    RuleCase("MA-LAST", MA, "~6; P0 wild-draw4 blue; D1 4; D2; R1 red-9,red-1,red-2,red-3,red-4; R2 red-1,red-5; "
             "R3 green-2", state={"hand_winner": 0}, scores={"hands": [[27, 0, 0, 0]]},
             why=MA_LAST + " Once the four are drawn nothing is owed: a card another seat takes after the hand is "
                 "no move and no mistake (the camera sees the deck tidied or the next deal); it is in the hand shown"),
    RuleCase("OL-SCORE", OL, "~6; P0 wild-draw4 blue; R1 red-9; R2 wild; R3 blue-skip",
             state={"phase": "hand_over", "pending_draw": 0}, scores={"hands": [[0, 9, 50, 20]]},
             why='"Once a player plays their last card, the hand is over." — unlike Mattel, no four cards are owed'),
    # ---------------------------------------------------------------- who collects
    RuleCase("OL-70-UNO", OL, "~6; P0 red-7 >2; R0 red-4; R1 red-9; R3 wild", state={"hand_winner": 2},
             scores={"hands": [[4, 9, 0, 50]]},
             why=OL_70 + " The 7-player took seat 2's last card (4 points); seat 2 went out with the empty hand."),
    RuleCase("OL-70-UNO", OL, "H1; T red-5; ~6; P0 red-0; R0 red-4", players=2, state={"hand_winner": 1},
             scores={"hands": [[4, 0]]}, why=OL_70 + " Two players: the 0 passes the empty hand to the opponent."),
    RuleCase("OL-SCORE", OL, "~6; P0 red-1; R0 red-2; R1 red-9; R2 wild; R3 blue-skip",
             ("count_mismatch@0:OL-SCORE",), scores={"hands": [[0, 9, 50, 20]]},
             why='"Remember finishing the game (going out) get you the same number of points (0)": a card wrongly '
                 "seen in the winner's hand is flagged, and scores nothing"),
    RuleCase("OL-SCORE", OL, "~6; P0 red-1; R1 red-9; R2 wild,wild; R3 blue-skip", ("count_mismatch@2:OL-SCORE",),
             scores={"hands": [[0, 9, 100, 20]]},
             why='"you get the points for the cards left in you hand": the hand as shown is scored, the count flagged'),
    WRONG_SIZE,
    # ---------------------------------------------------------------- penalties that change a hand before it is scored
    RuleCase("MA-UNO", MA, "~5; P0 red-1; U0; P1 red-2; U1; P2 red-3; U2; P3 red-4; D0; S0; D3 2; P1 red-5; "
             "R0 red-6,blue-7; R2 red-1; R3 green-2,wild,blue-skip", ("missed_uno@3/2:MA-UNO",),
             state={"hand_winner": 1, "counts": [2, 0, 1, 3]}, scores={"hands": [[0, 86, 0, 0]]},
             why='"Failure to do this results in having to pick up 2 cards from the DRAW." The two penalty cards are '
                 'in the hand when "he gets points for cards left in the opponent\'s hands".'),
    RuleCase("OL-UNO", OL, "~5; P0 red-1; U0; P1 red-2; U1; P2 red-3; U2; P3 red-4; D0; S0; D3 2; P1 red-5; "
             "R0 red-6,blue-7; R2 red-1; R3 green-2,wild,blue-skip", ("missed_uno@3/2:OL-UNO",),
             scores={"hands": [[13, 0, 1, 72]]},
             why='"another player catches you with just one card at any time you have to draw 2 cards" and ' + OL_GOAL
                 + ": the penalised player scores the penalty cards against himself"),
    RuleCase("MA-UNO", MA, "~5; P0 red-1; P1 red-2; U1; D0 2; P2 red-3; U2; P3 red-4; U3; P0 red-5",
             ("missed_uno@0/2",), state={"hand_winner": None, "phase": "playing", "counts": [2, 1, 1, 1]},
             why='"Failure to do this results in having to pick up 2 cards": caught and having drawn them, the '
                 "player laying his old last card still holds two; he is not out"),
    # ---------------------------------------------------------------- the match: hands in a row, the target, after it
    RuleCase("OL-GOAL", OL, "H0; T red-5; ~6@1; P1 red-1; R0 red-1; R2 red-9; "
             "H1; T red-5; ~6@2; P2 red-1; R0 red-2; R1 wild", players=3, target=50,
             state={"phase": "match_over"},
             scores={"hands": [[1, 0, 9], [2, 50, 0]], "totals": [3, 50, 9], "winner": 0},
             why=OL_GOAL + " (target 50 here): seat 0 never went out, but has the lowest score when seat 1 reaches "
                 "the target"),
    RuleCase("OL-GOAL", OL, "H2; T red-5; ~6; P0 red-1; R1 red-1; R2 red-9; "
             "H0; T red-5; ~6@1; P1 red-1; R0 red-1; R2 wild", players=3, target=50,
             state={"phase": "match_over"}, scores={"hands": [[0, 1, 9], [1, 0, 50]], "totals": [1, 1, 59]},
             why=OL_GOAL + " — seat 2 reached the target, so the game is over; the text names no tie-break for two "
                 "equal lowest scores, so only the end of the match is checked here"),
    AFTER_THE_MATCH,
    RuleCase("CH-GAME", CH, "H1; T red-5; ~5; P0 red-1; U0; D1; S1; P0 red-2; R1 wild,wild-draw4,red-skip; "
             "H0; T red-5; ~6@1; P1 red-1; R0 wild", players=2, target=120,
             scores={"hands": [[120, 0]], "totals": [120, 0], "winner": 0},
             why=CH_500 + " (target 120 here): after the game is won, a further hand scores nothing"),
]

FINDINGS = [
    # ---------------------------------------------------------------- finding 1: draws owed after the last card
    (RuleCase("MA-LAST", MA, "~6; P0 wild-draw4 blue; D1 2; R1 red-9,blue-1,wild; " + REST, ("wrong_draw@1",),
              state={"hand_winner": 0}, scores={"hands": [[63, 0, 0, 0]]},
              why=MA_LAST + " Seat 1 drew two, not four."),
     "finding 1: after a last Wild Draw Four the next player drew 2 of the 4 owed; draws after the hand ended "
     "are never checked"),
    (RuleCase("MA-LAST", MA, "~5; P0 red-reverse; U0; P3 red-1; U3; P2 red-2; U2; P1 red-3; U1; "
              "P0 wild-draw4 blue; D1 4; D3 4; R1 red-9,red-1,red-2,red-3,red-4; R2 red-1; "
              "R3 green-2,green-3,green-4,green-5,green-6", ("wrong_draw@1",), state={"hand_winner": 0},
              why=MA_LAST + " After the Reverse the next player is seat 3; seat 1 drawing four is a wrong draw."),
     "finding 1: after a last Wild Draw Four a seat that is not the next player drew 4 and nothing was flagged"),
    (RuleCase("FA-WIN", FA, "~6; P0 red-draw2; D1; R1 red-9,blue-1; " + REST, ("wrong_draw@1",),
              state={"hand_winner": 0},
              why=FA_MATTEL + '; "Draw Two: the next player draws two cards" and ' + MA_LAST),
     "finding 1: after a last Draw Two the next player drew 1 of the 2 owed; draws after the hand ended are "
     "never checked"),
    (RuleCase("MA-LAST", MA, "~6; P0 wild-draw4 blue; R1 red-9; " + REST, ("wrong_draw@1",),
              state={"hand_winner": 0},
              why=MA_LAST + " Seat 1 showed its hand without drawing the four cards that count in the score."),
     "finding 1: the hand was scored without the 4 cards the next player had to draw, and nothing was flagged"),
    # ---------------------------------------------------------------- finding 2: a penalty from the very last play
    (RuleCase("MA-TWO", MA, "H1; T red-5; ~5; P0 red-skip; P0 red-3; R1 red-9,red-1", ("missed_uno@0",), players=2,
              state={"hand_winner": 0, "phase": "hand_over"}, scores={"hands": [[10, 0]]},
              why='"The person playing a Skip card may immediately play another card." ' + MA_CATCH + " " + MA_OUT),
     "finding 2: the missed-UNO penalty charged by the play of the last card keeps the hand going; it is never "
     "scored"),
    (RuleCase("FA-ACTION", FA, "H1; T red-5; ~5; P0 red-reverse; P0 red-3; R1 red-9,red-1", ("missed_uno@0",), players=2,
              state={"hand_winner": 0, "phase": "hand_over"}, scores={"hands": [[10, 0]]},
              why='"Reverse: ... In a two-player situation it acts as a Skip." "you must say UNO ... before the next '
                  'player begins their turn" — the next player is the Reverse player, who begins it by laying the '
                  "last card; " + FA_WIN),
     "finding 2: the missed-UNO penalty charged by the play of the last card keeps the hand going; it is never "
     "scored"),
    # ---------------------------------------------------------------- finding 3: a dismissed penalty after the last card
    (RuleCase("MA-SCORE", MA, "~5; P0 red-1; P1 red-2; U1; P2 red-3; U2; P3 red-4; U3; P0 red-5; "
              "!dis 24-missed_uno-0; R1 red-9; " + REST, ("missed_uno@0",),
              state={"hand_winner": 0, "counts": [0, 1, 1, 1]}, scores={"hands": [[12, 0, 0, 0]]},
              why="the referee took the penalty back: seat 0 laid its last card and holds none. " + MA_OUT),
     "finding 3: a ruling that takes back a penalty leaves a seat with no cards, but the hand never ends and is "
     "never scored"),
    (RuleCase("FA-WIN", FA, "~4; U0; P0 red-1; P1 red-2; P2 red-3; P3 red-4; P0 red-6; U0; P1 red-8; U1; P2 red-9; "
              "U2; P3 red-1; U3; P0 red-2; !dis 20-early_uno-0; R1 red-9; " + REST, ("early_uno@0",),
              state={"hand_winner": 0, "counts": [0, 1, 1, 1]}, scores={"hands": [[12, 0, 0, 0]]},
              why="the referee dismissed the early-UNO card (it was never drawn); seat 0 has discarded all its "
                  "cards: " + FA_WIN),
     "finding 3: a ruling that takes back a penalty leaves a seat with no cards, but the hand never ends and is "
     "never scored"),
    # ---------------------------------------------------------------- finding 4: a challenge of the last Wild Draw Four
    (RuleCase("MA-CHALLENGE", MA, "~6; P0 wild-draw4 blue; X1; D1 6; "
              "R1 red-9,red-1,red-2,red-3,red-4,red-5,red-6; " + REST, ("failed_challenge@1/6",),
              state={"hand_winner": 0}, scores={"hands": [[33, 0, 0, 0]]},
              why=MA_LAST + ' "The challenge can only be made by the person required to draw the four cards." '
                  '"If not guilty, the challenger must draw 2 cards in addition to the 4." Laid as the last card, '
                  "the +4 left no card of the colour in the hand: never guilty."),
     "finding 4: a challenge of a Wild Draw Four laid as the last card is ignored ('no Wild Draw Four to "
     "challenge'); the challenger's 6 cards go unflagged"),
]

CASES = PASSING + [case for case, _ in FINDINGS]  # read by test_rule_coverage


def _id(c: RuleCase) -> str:
    return f"{c.ruleset}:{c.clause}:{c.steps[:70]}"


PARAMS = [pytest.param(c, id=_id(c)) for c in CASES]


@pytest.mark.parametrize("case", PARAMS)
def test_scoring_corner(case: RuleCase) -> None:
    assert case.problems() == [], case.why


# -------------------------------------------------------------------- `unotable replay` (EVENTS.md) for such games


def _replay(tmp_path: Path, case: RuleCase, *flags: str, capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    path = tmp_path / "game.jsonl"
    write_log(path, case.events())
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["replay", str(path), *flags])
    assert args.func(args) == 0
    out = capsys.readouterr()
    return out.out, out.err



def test_replay_json_after_the_match_keeps_the_winner_and_the_scores(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    out, err = _replay(tmp_path, AFTER_THE_MATCH, "--json", capsys=capsys)
    doc = json.loads(out)
    assert set(doc) == {"flags", "state", "scores"}
    scores = doc["scores"]
    assert scores["hands"] == [[1, 0, 9], [2, 50, 0]] and scores["totals"] == [3, 50, 9] and scores["winner"] == 0
    assert "hand 3 was played after the match was won" in err


def test_replay_prints_only_flags_on_stdout_for_a_scored_match(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = _replay(tmp_path, AFTER_THE_MATCH, capsys=capsys)
    assert out == ""  # no flags: nothing but flags goes to standard output
    out, _ = _replay(tmp_path, WRONG_SIZE, capsys=capsys)
    flags = [json.loads(line) for line in out.splitlines()]
    assert [(f["code"], f["seat"], f["rule"]) for f in flags] == [("count_mismatch", 1, "MA-SCORE")]


def test_pretty_replay_shows_the_lowest_wins_sheet_and_its_winner(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = _replay(tmp_path, AFTER_THE_MATCH, "--pretty", capsys=capsys)
    assert "lowest wins, target 50" in out
    assert "winner: P0" in out
    total = next(line for line in out.splitlines() if line.strip().startswith("total"))
    assert total.split()[1:] == ["3", "50", "9"]


def test_pretty_score_sheet_says_a_tied_match_is_over() -> None:
    """OL-GOAL: the lowest total wins once a seat reaches the target; with the lowest totals tied the match is over
    and nobody won (the rules name no tie-break): the sheet must not say "none yet"."""
    from tracker.report import score_sheet

    tied = {"hands": [[30, 30, 60]], "totals": [30, 30, 60], "winner": None, "target": 50, "lowest_wins": True}
    assert score_sheet(tied, ["A", "B", "C"]).splitlines()[-1].startswith("winner: none, a tie")
    running = dict(tied, totals=[30, 30, 40], hands=[[30, 30, 40]])
    assert score_sheet(running, ["A", "B", "C"]).splitlines()[-1] == "winner: none yet"
