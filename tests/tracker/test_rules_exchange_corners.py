"""Out-of-turn play and hand exchanges, where the turn order is hardest (stop 63's audit, theme h4): Olympic 7-0
(OL-SEVEN, OL-ZERO, OL-70-UNO, OL-70-PENALTY, OL-70-ONE), Olympic interceptions (OL-INTERCEPT, OL-D2-INTERCEPT,
OL-SKIP, OL-REV), ЧемпиУНат jump-ins and pairs (CH-JUMP, CH-PAIR), and how they meet UNO calls and their windows,
penalties (OL-PENALTY, one a turn) and the direction of play, at 2, 3, 4 and 6 seats. Many cases are long (10-20
steps) so that a wrong turn early shows later. Each verdict comes from the rulebook text (shared/seeds/000 Russian,
003 Olympic), quoted in `why`. `FINDINGS` are the cases the engine got wrong before stop 63's fixes ("finding N": what it
did)."""

import pytest

from tracker.script import RuleCase

C, OL = "chempiunat", "olympic"

# ---------------------------------------------------------------- the Olympic text (003_30cfefba0608d163.txt)
OL_INT = ('"At anytime of the game if you have the exact same card as the one on top of the DISCARD pile, you can play '
          'your card and intercept the current play. The following player after you will need to play."')
OL_SELF = ('"You you have 2 of the same exact card that can be intercepted you can put them all together. You would '
           'intercepting yourself. Unless it\'s a Skip Card, where the number of players to be skipped is added"')
OL_SKIP = ('"You can intercept on a skip card (see Interceptions), but you are not intercepting yourself as x cards '
           'will skip the following x players\' turn, not just the next one."')
OL_SKIPS = ('"More than one skip card can be played at the same time if they are of the same colour, the number cards '
            'played is the number of player next in sequence to miss a turn."')
OL_REV = ('"You can intercept on a Reverse Card (see Interceptions). The next player will be the person after the '
          'player who intercepted, in the direction which switches again."')
OL_D2 = ('"When you play this card, the next person to play draws 2 cards can play, or plays directly another Draw 2 '
         'Card (of any color) to add 2 more cards to draw for the following player."')
OL_D2I = ('"If the player who, at first, was supposed to take the cards has not seen them yet, they remain to be taken '
          'for the following player, until someone doesn\'t play a Draw 2 Card. If they were seen already the '
          'following player after the interception needs to draw only 2 cards while the first player who has seen '
          'his card take them."')
OL_D2SEEN = ('"If you are to intercept on a Draw 2 card, you can choose either to put your card before or after the '
             'player who is supposed to take the cards, sees them. As soon as he/she has seen them he/she needs to '
             'keep them."')
OL_ZERO = ('"When you play a 0 of any color, each player needs to pass all his cards to the following player in the '
           'current direction of the play."')
OL_SEVEN = '"When you play a 7 of any color, you must exchange all your cards with a player of your choice."'
OL_70UNO = ('"If you play a 0 or a 7 as next to last card you need to say "UNO" and the person you give your last card '
            'to, has to say "UNO" when receiving the card."')
OL_70LAST = ('"If you play a 0 or a 7 as your last card you will still need to give away the victory against another '
             'players\' cards."')
OL_70INT = ('"You can intercept on a 0 or 7 (see Interceptions), but all exchanges needs to be finished before anything '
            'is played"')
OL_70PEN = ('"If you had just been given a penalties in this turn, you pass your cards without the penalties cards that '
            'you keep for yourself."')
OL_UNO = ('"If you have not said "UNO" before you release your hand for the card you just played and another player '
          'catches you with just one card at any time you have to draw 2 cards."')
OL_WHOSE = ('"If someone is caught not knowing whose turn it is to play, whether it was his/her turn or not, he/she '
            'will get a penalty , draw 2 cards."')
OL_ONE = '"Only one penalty should be give to the same player per turn."'
OL_MISTAKE = '"If someone makes any mistake, he/she needs to draw 2 cards."'

# ---------------------------------------------------------------- the ЧемпиУНат text (000_04053542a56f51f8.txt)
CH_JUMP = ('"В любой момент любой игрок может перебить ход своей картой, если она совпадает по цвету и номиналу с '
           'верхней картой ... следующим ходит игрок сидящий по ходу игры рядом с перебившим ход игроком" (any player, '
           'any time, with the card identical in colour and number; play goes on from the seat next to the jumper, in '
           'the direction of play)')
CH_UNO = ('"Выкладывая предпоследнюю карту (пока он её ещё не отпустил), игрок должен успеть сказать «УНО!»" (while '
          'laying the second-to-last card, before letting go of it, the player must say UNO)')
CH_CATCH = ('"Друзья должны успеть это сделать от момента отпускания игроком своей предпоследней карты до начала хода '
            'следующего игрока (выкладывание карты или вытягивание карты из колоды)" (a catch: from the release until '
            'the next turn begins, a card laid or drawn)')
CH_PAIR = ('"Эти карты можно кидать в свой ход по 2сразу если они одного цвета. т.е. 2шт красного цвета "наоборот" - '
           'ход продолжается как и шел. 2 пропуска - два человека пропускают ход по ходу игра." (two of one colour on '
           'your turn: two Reverses leave the direction, two Skips skip two players)')
CH_D2 = ('"«Возьми две» – следующий игрок берёт из колоды «Прикуп» две карты (в тёмную) и пропускает свой ход, при '
         'условии что у него нет такой же карты (любого цвета), которую он может положить следом продолжив цепочку" '
         '(the next player draws two and misses the turn unless they lay a Draw Two of any colour)')
CH_REV = '"«Наоборот» – направление хода меняется на противоположное." (Reverse flips the direction)'
CH_ORDER = ('"Во время своего хода игрок имеет право выложить одну карту" (during HIS turn a player may lay one card) -- '
            'another seat laying a card is not that seat\'s turn')

CASES = [
    # ================================================================ 7-0 and interceptions, 6 seats
    RuleCase("OL-SEVEN", OL, "H5; T red-5; P0 red-7 >3; P3 red-7 >0; P4 red-reverse; P1 red-reverse; P2 red-0; "
             "P3 red-3; P4 red-3; P5 red-skip; P0 red-skip; P2 red-6; P3 red-6; P4 red-8; P5 red-8",
             players=6, state={"turn": 0, "direction": 1, "counts": [6, 5, 5, 4, 5, 4], "top_card": "red-8"},
             why=OL_SEVEN + " " + OL_70INT + " -- seat 3 swaps back at once, the player after it (4) plays; " + OL_REV
                 + " (seat 1 intercepts seat 4's Reverse: clockwise again, seat 2 next); " + OL_ZERO + " (clockwise); "
                 + OL_SKIP + " (seat 0, the skipped one, intercepts: seat 1 is skipped)"),
    RuleCase("OL-SKIP", OL, "H5; T red-5; P0 red-reverse; P5 red-skip+red-skip; P2 red-3; P1 red-3; P0 red-1; "
             "P4 red-1; P3 blue-1; P2 blue-skip; P1 blue-skip; P5 blue-2",
             players=6, state={"turn": 4, "direction": -1, "counts": [5, 5, 5, 6, 6, 4]},
             why=OL_SKIPS + " (counter-clockwise: seats 4 and 3 miss a turn) " + OL_INT + " (seat 4 intercepts, seat 3 "
                 "follows) " + OL_SKIP + " (seat 1 intercepts the Skip meant for it: seat 0 is skipped, seat 5 plays)"),
    # ================================================================ 3 seats
    RuleCase("OL-REV", OL, "H2; T red-5; P0 red-draw2; P1 blue-draw2; D2 4; P2 blue-3; P0 blue-reverse; "
             "P1 blue-reverse; P2 blue-7 >0; P0 blue-9; P1 blue-9; P2 blue-skip; P1 blue-skip; P0 blue-1",
             players=3, state={"turn": 1, "direction": 1, "counts": [7, 3, 4]},
             why=OL_D2 + " -- seat 2 draws the sum and plays on; " + OL_REV + " (three seats: seat 1 intercepts seat "
                 "0's Reverse, clockwise again, seat 2 next); " + OL_SEVEN + "; the Skips skip seat 0, then seat 2"),
    RuleCase("OL-ZERO", OL, "H2; T red-5; P0 red-8+red-8; P1 red-reverse; P2 red-reverse; P0 red-0; P1 blue-0; "
             "P2 blue-3", players=3, state={"turn": 0, "direction": 1, "counts": [6, 6, 2]},
             why=OL_SELF + "; " + OL_REV + " (seat 2 intercepts: clockwise again, seat 0 next); " + OL_ZERO + " -- "
                 "both 0s pass the hands clockwise, the direction the interception restored"),
    RuleCase("OL-SKIP", OL, "H2; T red-5; P0 red-skip; P1 red-skip; P0 red-3; P1 red-4; P2 red-6",
             players=3, state={"turn": 0, "counts": [5, 5, 6]},
             why=OL_SKIP + " -- three seats: the skipped seat 1 intercepts, seat 2 is skipped and seat 0 plays"),
    # ================================================================ 2 seats
    RuleCase("OL-ZERO", OL, "H1; T red-5; P0 red-8; P0 red-8; P1 red-reverse; P0 red-reverse; P1 red-0; "
             "P0 red-7 >1; P1 red-9", players=2, state={"turn": 0, "direction": 1, "counts": [4, 3]},
             why=OL_INT + " (seat 0 lays its second red 8 on its own: seat 1 follows) " + OL_ZERO + " -- two seats: "
                 "the 0 swaps the hands, then " + OL_SEVEN),
    # ================================================================ 7-0 with UNO calls
    RuleCase("OL-70-UNO", OL, "~5; U0; P0 red-7 >2; U3; P3 red-7 >1; U1; U0; P0 red-8; P1 red-9",
             ("missed_uno@2/2:OL-70-UNO",), state={"hand_winner": 1, "phase": "hand_over"},
             why=OL_70UNO + " -- seat 2 receives seat 0's last card and says nothing before seat 3 intercepts the 7 "
                 "(" + OL_70INT + "); seat 1, given seat 3's last card, calls, plays after seat 0 and goes out"),
    RuleCase("OL-70-UNO", OL, "~5; U0; P0 red-7 >2; U2; P2 red-7 >3", state={"hand_winner": 3, "phase": "hand_over"},
             why=OL_70LAST + " -- seat 2 intercepts with its single card, a 7 naming seat 3: seat 3 receives the "
                 "empty hand and wins"),
    RuleCase("OL-70-UNO", OL, "~4; D0; S0; P1 red-1; P2 red-2; U3; P3 red-3+red-3; P0 red-0; U0; P1 red-4; U2; "
             "P2 red-6; U3; P3 red-8; P0 red-9", state={"hand_winner": 0, "phase": "hand_over"},
             why=OL_ZERO + " " + OL_70UNO + " -- seat 3 passes its last card to seat 0, who calls on receiving it"),
    RuleCase("OL-70-UNO", OL, "H1; T red-5; ~5; D0; S0; U1; P1 red-4; P0 red-0; U0; U1; P1 red-2; P0 red-3", players=2,
             state={"hand_winner": 0, "phase": "hand_over"},
             why=OL_70UNO + " -- two seats: the 0 hands seat 1's last card to seat 0, who calls on receiving it"),
    RuleCase("OL-70-UNO", OL, "~4; P0 red-3; U1; P1 red-6+red-6; P2 red-7 >1; U2; P3 red-2; U0; P0 red-1; U1; "
             "P1 red-4; P2 red-5", state={"hand_winner": 2, "phase": "hand_over"},
             why=OL_SEVEN + " " + OL_70UNO + " -- seat 2 takes seat 1's single card, calls, and goes out in turn"),
    # ================================================================ OL-70-PENALTY and OL-70-ONE with interceptions
    RuleCase("OL-70-PENALTY", OL, "P0 red-7 >1; D3; D3 2; P2 red-7 >3", ("wrong_draw@3/2:OL-MATCH",),
             state={"turn": 3, "counts": [7, 6, 8, 8]},
             why=OL_70PEN + " -- the target keeps the two penalty cards it drew in this turn (seat 1's) when seat 2 "
                 "intercepts with the other 7 and swaps; the wrongly drawn card is no penalty card and goes"),
    RuleCase("OL-70-ONE", OL, "P0 red-7 >1; P0 red-7 >2; P1 red-3", state={"turn": 2, "counts": [7, 5, 6, 7]},
             why=OL_70INT + ' -- the exchange is finished: the second red 7 came to seat 0 with seat 1\'s hand, so it '
                 'is seat 0\'s card now, laid after the first, not "2 cards at the same time"'),
    # ================================================================ Draw Two interceptions
    RuleCase("OL-D2-INTERCEPT", OL, "P0 red-draw2; P1 blue-draw2; P0 blue-draw2; D1 6; P1 blue-3",
             state={"turn": 2, "counts": [5, 11, 7, 7]},
             why=OL_D2I + " -- seat 2 has not seen the four; seat 0 intercepts the blue Draw Two, so seat 1 (after "
                 "seat 0), who laid the blue one, draws all six and plays on"),
    RuleCase("OL-D2-INTERCEPT", OL, "H3; T red-draw2; P3 red-draw2; D0 4; P0 red-3",
             state={"turn": 1, "counts": [10, 7, 7, 6]},
             why='"This card is played as the dealers first card played" and ' + OL_D2I + " -- the dealer intercepts "
                 "the turned Draw Two before seat 0 saw the cards: seat 0 draws four"),
    RuleCase("OL-D2", OL, "P0 red-draw2; D1 2; P1 red-skip+red-skip; P0 red-3", state={"turn": 1, "counts": [5, 7, 7, 7]},
             why=OL_D2 + " " + OL_SKIPS + " -- after drawing, a pair of Skips skips seats 2 and 3"),
    # ================================================================ interceptions and UNO windows
    RuleCase("OL-INTERCEPT", OL, "~5; P0 red-1; U2; P2 red-1; U3; P3 red-2", ("missed_uno@0/2:OL-UNO",),
             state={"turn": 0, "counts": [3, 2, 1, 1]},
             why=OL_UNO + " " + OL_INT + " -- seat 2, holding two, calls and intercepts; seat 0 never called"),
    RuleCase("OL-INTERCEPT", OL, "~4; U0; P0 red-8+red-8; U1; P1 red-skip+red-skip; P0 red-6",
             state={"hand_winner": 0, "phase": "hand_over"},
             why=OL_SELF + " " + OL_SKIPS + " -- both pairs leave one card, both called; seats 2 and 3 are skipped"),
    # ================================================================ OL-PENALTY: whose turn after an interception
    RuleCase("OL-PENALTY", OL, "P0 red-8; P3 red-8; D1; P1 red-9", ("wrong_draw@1/2:OL-MATCH", "out_of_turn@1/0"),
             state={"turn": 2},
             why=OL_INT + " -- after seat 3 intercepts it is seat 0's turn; seat 1 drawing and then laying are two "
                 "mistakes in that one turn: " + OL_WHOSE + " " + OL_ONE),
    RuleCase("OL-PENALTY", OL, "P0 red-8; D1 2; P3 red-8; P1 red-9", ("wrong_draw@1/2", "out_of_turn@1/2:OL-PENALTY"),
             why=OL_ONE + " -- seat 1 drew two in its own turn; seat 3's interception ends it, and laying a card in "
                 "seat 0's turn is a mistake of another turn: " + OL_WHOSE),
    # ================================================================ ЧемпиУНат: jump-ins, pairs, UNO
    RuleCase("CH-JUMP", C, "H5; T red-5; P0 red-skip+red-skip; P3 red-4; P1 red-4; P2 red-reverse; P1 red-draw2; "
             "P0 blue-draw2; D5 4; P4 blue-6; P0 blue-6; P5 blue-skip+blue-skip; P2 blue-1; P1 blue-reverse; "
             "P2 blue-8; P4 blue-8; P5 blue-9; P0 blue-9",
             players=6, state={"turn": 1, "direction": 1, "counts": [2, 4, 4, 6, 5, 8], "top_card": "blue-9"},
             why=CH_PAIR + "; " + CH_JUMP + " (seat 1 jumps in, seat 2 follows); " + CH_REV + "; " + CH_D2 + " (the "
                 "chain sums to four for seat 5); seat 0's jump-in counter-clockwise hands the turn to seat 5"),
    RuleCase("CH-JUMP", C, "H2; T red-5; P0 red-reverse; P2 red-4; P0 red-4; P2 red-6; P1 red-6; P0 red-skip; "
             "P1 red-9; P2 red-9; P1 red-1", players=3, state={"turn": 0, "direction": -1, "counts": [4, 4, 4]},
             why=CH_REV + "; " + CH_JUMP + " -- three seats counter-clockwise: after a jump-in by seat 0 comes seat 2, "
                 "after one by seat 2 comes seat 1"),
    RuleCase("CH-JUMP", C, "H1; T red-5; ~5; U0; P0 red-3; P0 red-3", players=2,
             state={"hand_winner": 0, "phase": "hand_over"},
             why=CH_JUMP + " and " + CH_UNO + ' -- two seats: seat 0 calls with its second-to-last card and jumps in '
                 'on it with the last one: "пока кто-то один из игроков не скинет все карты"'),
    RuleCase("CH-UNO", C, "~5; U2; P2 red-4; U3; P3 red-5; U0; P0 red-5; U1; P1 red-6; P2 red-6",
             state={"hand_winner": 2, "phase": "hand_over"},
             why=CH_UNO + " -- seats holding two cards jump in (seats 2 and 0) and call while laying; " + CH_JUMP),
    RuleCase("CH-UNO", C, "~5; P0 red-1; U2; P2 red-1; U3; P3 red-2", ("missed_uno@0/2:CH-UNO",),
             state={"turn": 0, "counts": [3, 2, 1, 1]},
             why=CH_CATCH + " -- seat 2's jump-in is a card laid: seat 0's window is closed; seat 2 called"),
]


# cases the engine gets wrong: (finding number, case, what the engine does)
FINDINGS: list[tuple[int, RuleCase, str]] = [
    (1, RuleCase("OL-D2-INTERCEPT", OL, "P0 red-draw2; D1; P3 red-draw2; D1; D0 2; P0 red-3",
                 state={"turn": 1, "counts": [7, 9, 7, 6], "owed": [0, 0, 0, 0]},
                 why=OL_D2SEEN + " " + OL_D2I + " -- seat 1 has seen one card when seat 3 intercepts: it keeps both "
                     "(it draws the second) and seat 0 draws only 2; nobody made a mistake"),
     "finding 1: an interception between two draws of a Draw Two is read as the table moving on: seat 1 gets "
     "wrong_draw (OL-D2) with a 2-card penalty, and its second card is counted as paying that penalty"),
    (2, RuleCase("OL-D2", OL, "P0 red-draw2; P2 blue-3; D1 2", ("out_of_turn@2/2:OL-PENALTY",),
                 state={"counts": [6, 9, 8, 7], "owed": [0, 0, 2, 0]},
                 why=OL_D2 + " -- the Draw Two is seat 1's to draw; " + OL_WHOSE + " -- seat 2's card out of turn "
                     "is seat 2's mistake and does not cancel seat 1's two cards"),
     "finding 2: a third seat's card laid out of turn on a pending Draw Two wipes the draw (resolve: 'that draw is "
     "gone'); seat 1 then drawing its two is flagged wrong_draw with 2 penalty cards"),
    (2, RuleCase("CH-D2", C, "P0 red-draw2; P2 blue-3; D1 2", ("out_of_turn@2:CH-ORDER",),
                 state={"counts": [6, 9, 6, 7]},
                 why=CH_D2 + "; " + CH_ORDER),
     "finding 2: under chempiunat the owing seat's draw is flagged wrong_draw (CH-DRAW, 'nothing was owed')"),
    (3, RuleCase("OL-70-UNO", OL, "~4; D0; S0; P1 red-1; P2 red-2; U3; P3 red-3+red-3; P0 red-0; P1 red-4; U2; "
                 "P2 red-6; U3; P3 red-8; P0 red-9", ("missed_uno@0/2:OL-70-UNO",),
                 why=OL_ZERO + " " + OL_70UNO + " -- seat 3 gives its last card to seat 0 (the one who laid the 0), "
                     "who never calls; " + OL_UNO),
     "finding 3: the seat that laid the 0 is never given a receive window (plays.exchange: `i != seat`): it takes a "
     "single card, never calls, and goes out unflagged"),
    (3, RuleCase("OL-70-UNO", OL, "H1; T red-5; ~5; D0; S0; U1; P1 red-4; P0 red-0; U1; P1 red-2; P0 red-3",
                 ("missed_uno@0/2:OL-70-UNO",), players=2,
                 why=OL_70UNO + " -- two seats: the 0 hands seat 1's last card to seat 0, who never calls"),
     "finding 3: two seats, the same: seat 0 goes out with no flag"),
    (3, RuleCase("OL-70-UNO", OL, "~4; P0 red-3; U1; P1 red-6+red-6; P2 red-7 >1; P3 red-2; U0; P0 red-1; U1; "
                 "P1 red-4; P2 red-5", ("missed_uno@2/2:OL-70-UNO",),
                 why=OL_SEVEN + " " + OL_UNO + " -- seat 2's 7 takes seat 1's single card; seat 2 holds one card "
                     "and never calls (RULESETS.md OL-70-UNO: 'whoever receives the single card must say UNO')"),
     "finding 3: a 7 that brings its layer a single card: no window, seat 2 goes out unflagged"),
    (4, RuleCase("OL-PENALTY", OL, "~5; P2 blue-4; U3; P3 blue-5",
                 ("illegal_jump_in@2/2:OL-INTERCEPT", "missed_uno@2/0:OL-UNO"),
                 why=OL_ONE + " -- seat 2 intercepts with a card that is not the same and leaves itself one card "
                     "without UNO: two mistakes in one act, in seat 0's turn; " + OL_MISTAKE),
     "finding 4: the missed UNO is charged to the turn in which its window closes (seat 3's), so seat 2 pays 2 + 2"),
    (4, RuleCase("OL-PENALTY", OL, "~5; P0 red-7; U1; P1 red-8", ("no_target@0/2:OL-SEVEN", "missed_uno@0/0:OL-UNO"),
                 why=OL_ONE + " -- seat 0 lays its next-to-last card, a 7 naming nobody, without UNO: both in its own "
                     "turn (as a colour not named counts with its turn: no_color)"),
     "finding 4: the same on seat 0's own turn: no_target and missed_uno both cost 2"),
]


def _param(case: RuleCase) -> object:
    return pytest.param(case, id=f"{case.ruleset}:{case.clause}:{case.steps[:70]}")


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_exchange_corner(case: RuleCase) -> None:
    assert case.problems() == [], case.why


@pytest.mark.parametrize("case", [
    pytest.param(case, id=f"finding {n}: {case.ruleset}:{case.steps[:60]}")
    for n, case, _reason in FINDINGS])
def test_exchange_finding(case: RuleCase) -> None:
    assert case.problems() == [], case.why
