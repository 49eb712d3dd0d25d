"""UNO Olympic rules (shared/seeds/003_30cfefba0608d163.txt), corners beyond test_rules_olympic.py: interception
counted from the interceptor, Draw Two chains and their interception, 7-0, colour named by the layer, one
penalty a turn (OL-*). Each verdict comes from the rulebook text, quoted in `why` (stop 61's audit)."""

import pytest

from tracker.script import RuleCase

R = "olympic"
INTERCEPT = ("At anytime of the game if you have the exact same card as the one on top of the DISCARD pile, you can "
             "play your card and intercept the current play. The following player after you will need to play.")
PENALTY1 = "Only one penalty should be give to the same player per turn."
COLOR = "The color must be announced before releasing his hand from the card (see Penalties)."

CASES = [
    # ---------------------------------------------------------------- OL-INTERCEPT
    RuleCase("OL-INTERCEPT", R, "H3; T red-5; P2 red-5; P3 red-6", state={"turn": 0, "counts": [7, 7, 6, 6]},
             why="the starter 'is played as the dealers first card played'; " + INTERCEPT),
    RuleCase("OL-INTERCEPT", R, "P0 red-reverse; P3 red-6; P1 red-6; P0 red-9",
             state={"turn": 3, "direction": -1},
             why=INTERCEPT + " (the player after the interceptor in the current direction)"),
    RuleCase("OL-INTERCEPT", R, "P0 red-6; P2 red-6; P1 red-7 >3", ("out_of_turn@1/2",),
             why=INTERCEPT + " P1 is no longer next once P2 intercepted"),
    RuleCase("OL-INTERCEPT", R, "P0 wild+wild blue", ("too_many_cards@0/2",),
             why="Wild Cards and Wild Draw 4 Cards can't be intercepted; 2 of the same card together = "
                 "intercepting yourself"),
    RuleCase("OL-INTERCEPT", R, "P0 wild-draw4+wild-draw4 blue", ("too_many_cards@0/2",),
             why="You can't intercept on a Wild Draw 4 Card"),
    RuleCase("OL-INTERCEPT", R, "P0 red-skip; P3 blue-skip", ("illegal_jump_in@3/2:OL-INTERCEPT",),
             why="interception needs 'the exact same card'"),
    RuleCase("OL-INTERCEPT", R, "P0 red-draw2; P3 blue-draw2", ("illegal_jump_in@3/2:OL-INTERCEPT",),
             why="'another Draw 2 Card (of any color)' is for the next player; interception needs the exact same card"),
    RuleCase("OL-INTERCEPT", R, "~6; P2 red-9", state={"hand_winner": 2, "phase": "hand_over"},
             why=INTERCEPT + " / Once a player plays their last card, the hand is over."),
    # ---------------------------------------------------------------- OL-SKIP interception
    RuleCase("OL-SKIP", R, "P0 red-skip; P1 red-skip; P3 red-3",
             why="the skipped player may intercept; the Skip then counts from the interceptor"),
    RuleCase("OL-SKIP", R, "P0 red-skip; P1 red-skip; P2 red-3", ("out_of_turn@2/2",),
             why="P1 intercepted the Skip: the player after P1 (P2) is skipped"),
    RuleCase("OL-SKIP", R, "P0 red-skip; P4 red-skip; P1 red-3", players=5,
             why="You can intercept on a skip card... x cards will skip the following x players' turn"),
    RuleCase("OL-SKIP", R, "P0 red-skip+red-skip; P0 red-3", players=3,
             why="the number cards played is the number of player next in sequence to miss a turn (3 seats: back "
                 "to the player)"),
    RuleCase("OL-SKIP", R, "P0 red-skip; P0 red-3", players=2, why="The next person ... loses her/his turn"),
    RuleCase("OL-SKIP", R, "P0 red-skip+red-skip; P1 red-3", players=2,
             why="two Skips: the next two players in sequence (P1, then P0) miss a turn"),
    # ---------------------------------------------------------------- OL-REV interception
    RuleCase("OL-REV", R, "P0 red-reverse; P1 red-reverse; P2 red-3", state={"direction": 1, "turn": 3},
             why="The next player will be the person after the player who intercepted, in the direction which "
                 "switches again."),
    RuleCase("OL-REV", R, "P0 red-reverse; P5 red-reverse; P6 red-3", players=10,
             state={"direction": 1, "turn": 7}, why="intercepting a Reverse, ten seats"),
    RuleCase("OL-REV", R, "P0 red-reverse; P1 red-3", players=2, state={"direction": -1, "turn": 0},
             why="This card reverses direction of play (no two-player exception in the text)"),
    RuleCase("OL-REV", R, "H1; T red-reverse; P0 red-3", players=2, state={"direction": -1, "turn": 1},
             why="If this card is turned up at the beginning of play, the player to the right now plays first"),
    # ---------------------------------------------------------------- OL-D2 / OL-D2-INTERCEPT
    RuleCase("OL-D2-INTERCEPT", R, "P0 red-draw2; P2 red-draw2; D3 4; P3 red-3",
             state={"counts": [6, 7, 6, 10], "turn": 0},
             why="If the player who, at first, was supposed to take the cards has not seen them yet, they remain to "
                 "be taken for the following player"),
    RuleCase("OL-D2-INTERCEPT", R, "P0 red-draw2; P1 blue-draw2; P3 blue-draw2; D0 6; P0 blue-3",
             state={"counts": [11, 6, 7, 6], "turn": 1},
             why="not seen: the whole chain stays for the player after the interceptor"),
    RuleCase("OL-D2-INTERCEPT", R, "P0 red-draw2; P1 blue-draw2; D2 4; P0 blue-draw2; D1 2",
             state={"counts": [5, 8, 11, 7], "turn": 1},
             why="If they were seen already the following player after the interception needs to draw only 2 cards"),
    RuleCase("OL-D2-INTERCEPT", R, "P0 red-draw2; P1 blue-draw2; D2 4; P0 blue-draw2; D1 6", ("wrong_draw@1",),
             why="The counter of Draw 2 Cards resets to only one Draw 2 Card."),
    RuleCase("OL-D2-INTERCEPT", R, "H3; T red-draw2; P2 red-draw2; D3 4; P3 red-3",
             why="the starter Draw Two is the dealer's play; interception before it is seen keeps the sum"),
    RuleCase("OL-D2", R, "P0 red-draw2; P1 red-draw2+blue-draw2", ("too_many_cards@1/2",),
             why="You can play more than one Draw 2 Cards at the same time, you are just using the interception rule "
                 "on yourself (interception = 'the exact same card')"),
    RuleCase("OL-D2", R, "P0 red-draw2; P1 blue-draw2+blue-draw2; D2 6", state={"counts": [6, 5, 13, 7]},
             why="two identical Draw Twos at once add 2 each"),
    RuleCase("OL-D2", R, "P0 red-draw2; D1 2; P1 red-draw2; D2 2; P2 red-3", state={"turn": 3},
             why="draws 2 cards can play -- a Draw Two played after drawing starts a new count"),
    RuleCase("OL-D2", R, "P0 red-draw2; D1 2; P1 wild-draw4 blue; D2 4; P3 blue-3",
             why="after drawing the player plays on; Wild Draw 4: next player draws 4 and forfeits the turn"),
    RuleCase("OL-D2", R, "P0 red-draw2; D1 2; P1 red-3; P0 red-4", players=2,
             why="the next person to play draws 2 cards can play"),
    # ---------------------------------------------------------------- OL-W4 / challenge
    RuleCase("OL-W4-CHALLENGE", R,
             "P0 red-draw2; D1 2; P1 wild-draw4 blue; X2; "
             "R1 green-draw2,green-3,green-4,blue-1,blue-2,yellow-9,yellow-8,yellow-7",
             ("illegal_wild_draw4@1/6:OL-W4",),
             why="You can only play this card when you don't have another playable card (a Draw Two on a Draw Two "
                 "matches by type)"),
    RuleCase("OL-W4-CHALLENGE", R,
             "P0 wild green; P1 wild-draw4 blue; X2; R1 green-2,red-3,red-4,yellow-1,yellow-2,yellow-9",
             ("illegal_wild_draw4@1/6",), why="the colour called on the Wild is the colour in force"),
    RuleCase("OL-W4-CHALLENGE", R,
             "P0 wild green; P1 wild-draw4 blue; X2; R1 red-3,red-4,yellow-1,yellow-2,yellow-9,blue-8",
             ("failed_challenge@2/6",), state={"turn": 3},
             why="If the challenged player is not guilty the challenger must draw 6 cards"),
    RuleCase("OL-W4-CHALLENGE", R,
             "P0 wild-draw4 blue; X1; R0 red-2,green-3,green-4,blue-1,blue-2,yellow-9; D0 6; P1 red-3; P1 red-4",
             ("illegal_wild_draw4@0/6",), players=2, state={"counts": [13, 5]},
             why="guilty: draw 6 cards and miss his turn (taking the Wild Draw 4 Card back in his hand)"),
    RuleCase("OL-W4-CHALLENGE", R,
             "P0 wild-draw4 blue; X1; R0 green-3,green-4,blue-1,blue-2,yellow-9,yellow-8; D1 6; P0 blue-3",
             ("failed_challenge@1/6",), players=2, state={"counts": [5, 13]},
             why="not guilty: the challenger must draw 6 cards (and, as the +4's target, forfeits the turn)"),
    # ---------------------------------------------------------------- OL-WILD / colour announcement
    RuleCase("OL-WILD", R, "P0 wild; C1 blue; P1 blue-3", ("no_color@0/2:OL-WILD",),
             why=COLOR + " -- another player naming it is not the player announcing it"),
    RuleCase("OL-W4", R, "P0 wild-draw4; C1 blue; D1 4; P2 blue-3", ("no_color@0/2:OL-W4",), why=COLOR),
    RuleCase("OL-START", R, "H3; T wild; C0 blue; P0 blue-3", ("no_color@3/2:OL-START",),
             why="The dealer can take penalties ... if for instance a Wild Card is flipped and she/he forgets to "
                 "announce the color."),
    RuleCase("OL-START", R, "H3; T wild; C3 green; P0 green-3", why="the dealer announced the turned Wild's colour"),
    RuleCase("OL-WILD", R, "C0 blue; P0 wild; P1 blue-3", why=COLOR + " (named before the card is let go)"),
    # ---------------------------------------------------------------- OL-START
    RuleCase("OL-START", R, "H3; T red-7; P0 red-3", ("no_target@3/2:OL-SEVEN",),
             why="the starter 'is played as the dealers first card played and the possible actions associated with "
                 "the card will need to be played'; 'You need to designate the player before you release your hand "
                 "for the card 7'"),
    RuleCase("OL-START", R, "H1; T red-skip; P1 red-3", players=2,
             why="the turned Skip is the dealer's play: the next player (P0) is skipped, the dealer plays"),
    # ---------------------------------------------------------------- OL-ZERO / OL-SEVEN / OL-70-*
    RuleCase("OL-ZERO", R, "P0 red-0", players=2, state={"counts": [7, 6], "turn": 1},
             why="each player needs to pass all his cards to the following player"),
    RuleCase("OL-ZERO", R, "P0 red-reverse; P9 red-0", players=10,
             state={"counts": [7, 7, 7, 7, 7, 7, 7, 7, 6, 6], "turn": 8},
             why="pass all his cards to the following player in the current direction of the play"),
    RuleCase("OL-SEVEN", R, "P0 red-7 >2; P3 red-7 >1", state={"counts": [7, 6, 6, 7], "turn": 0},
             why="You can intercept on a 0 or 7 (see Interceptions), but all exchanges needs to be finished before "
                 "anything is played"),
    RuleCase("OL-SEVEN", R, "P0 red-7 >1; P1 red-7 >2", state={"counts": [7, 7, 5, 7], "turn": 2},
             why="the player who received the 7-player's hand may intercept with the other 7"),
    RuleCase("OL-70-PENALTY", R, "D1; P0 red-0", ("wrong_draw@1/2",), state={"counts": [7, 8, 8, 7]},
             why="If you are given a penalty, when a 0 or 7 is played you need to pass your cards without the penalty "
                 "cards and keep those penalty cards for you."),
    RuleCase("OL-70-PENALTY", R, "D0 2; D0 2; P0 red-7 >2", ("wrong_draw@0/2",), state={"counts": [9, 7, 8, 7]},
             why="If you had just been given a penalties in this turn, you pass your cards without the penalties "
                 "cards"),
    RuleCase("OL-70-PENALTY", R, "D0 2; D0 2; S0; P1 red-0", ("wrong_draw@0/2",), state={"counts": [7, 11, 6, 7]},
             why="a penalty from an earlier turn is not 'in this turn': those cards pass with the rest"),
    RuleCase("OL-70-UNO", R, "~6; P0 red-0", state={"hand_winner": 1, "phase": "hand_over"},
             why="If you play a 0 or a 7 as your last card you will still need to give away the victory"),
    RuleCase("OL-70-UNO", R, "~6; P0 red-0; R0 red-4; R2 red-9; R3 wild", scores={"hands": [[4, 0, 9, 50]]},
             why="the player who receives the empty hand went out (0); the 0-player scores the hand received"),
    RuleCase("OL-70-UNO", R, "~5; U0; P0 red-0; U1; P1 red-8", state={"hand_winner": 1},
             why="the person you give your last card to, has to say UNO when receiving the card"),
    RuleCase("OL-70-UNO", R, "~5; U0; P0 red-0; P1 red-8", ("missed_uno@1/2:OL-70-UNO",),
             why="the person you give your last card to, has to say UNO when receiving the card"),
    # ---------------------------------------------------------------- OL-PENALTY
    RuleCase("OL-PENALTY", R, "D1; D2", ("wrong_draw@1/2", "wrong_draw@2/2"),
             why="Only one penalty ... to the same player per turn: two players each pay"),
    RuleCase("OL-PENALTY", R, "D2; P2 red-6", ("wrong_draw@2/2", "out_of_turn@2/0"), why=PENALTY1),
    RuleCase("OL-PENALTY", R, "D0 2; P0 wild; P1 blue-3", ("wrong_draw@0/2", "no_color@0/0"),
             why=PENALTY1 + " Both mistakes were made in seat 0's own turn."),
    RuleCase("OL-PENALTY", R, "P2 wild; +3; P3 red-3", ("out_of_turn@2/2", "no_color@2/0"),
             why=PENALTY1 + " One out-of-turn Wild laid with no colour, during seat 0's turn."),
    # ---------------------------------------------------------------- OL-GOAL / OL-SCORE / OL-DEALER
    RuleCase("OL-GOAL", R, "H1; T red-5; ~6; P0 red-1; R1 wild; H0; T red-skip; ~6; P0 red-1; R1 wild",
             players=2, target=100, scores={"hands": [[0, 50], [0, 50]], "totals": [0, 100], "winner": 0},
             state={"dealer": 0},
             why="The aim of the game is to have the lowest score when one of the player's score reaches 500 "
                 "points (here the match target is 100)"),
    RuleCase("OL-GOAL", R, "H1; T red-5; ~6; P0 red-1; R1 wild; H0; T red-skip; ~6; P0 red-1; R1 wild",
             players=2, target=150, scores={"totals": [0, 100], "winner": None},
             why="nobody has reached the target yet: no winner"),
    RuleCase("OL-SCORE", R, "~6; P0 red-1; R1 red-0; R2 blue-0; R3 green-0", scores={"hands": [[0, 0, 0, 0]]},
             why="finishing the game (going out) get you the same number of points (0) than someone who has still a "
                 "couple of 0 cards in hand"),
    RuleCase("OL-SCORE", R, "~6; P0 red-draw2; R1 red-9", state={"phase": "hand_over", "pending_draw": 0},
             why="Once a player plays their last card, the hand is over."),
    RuleCase("OL-DEALER", R, "H3; T red-5; P0 red-8; H0; T red-5; P1 red-3",
             why="The dealer changes to the player on the left of the previous dealer."),
    RuleCase("OL-DEALER", R, "H1; T red-5; P0 red-8; H0; T red-5; P1 red-3; H1; T red-5; P0 red-3", players=2,
             why="The dealer changes to the player on the left of the previous dealer."),
    RuleCase("OL-DEALER", R, "H3; T red-5; P0 red-8; H3; T red-5", ("wrong_dealer@3:OL-DEALER",),
             why="The dealer changes ... the same dealer twice is wrong"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.clause}:{c.steps}")
def test_olympic_corner(case: RuleCase) -> None:
    assert case.problems() == [], case.why
