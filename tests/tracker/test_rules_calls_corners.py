"""Spoken calls (UNO, colours, "pass") and their timing, across the four rulesets (CH-UNO, FA-UNO, FA-EARLY, MA-UNO,
OL-UNO, OL-70-UNO, MA-START, OL-START, OL-WILD, FA-ACTION, CH-DRAW): in time or late, a fraction of a second early or
late as the speech recogniser and the camera disagree, repeated calls, unattributed calls, calls by the wrong seat.
Each verdict comes from the rulebook text (shared/seeds/), quoted in `why`. `+-0.8` moves the next event to 0.2 s
after the previous one (each step adds 1 s). `xf` marks the cases the engine got wrong before stop
62's fixes, numbered as that audit's findings. Left as the engine decides (its finding 2): where UNO is said while
laying the card (CH-UNO, OL-UNO), the table moving on (another seat's card or the next seat's draw) closes the
window even inside the speech's grace after the play; the grace only spares a call when nothing else happened."""

import pytest

from tracker.script import RuleCase

CH, FA, MA, OL = "chempiunat", "falsonal", "mattel", "olympic"

CH_UNO = ("'Выкладывая предпоследнюю карту (пока он её ещё не отпустил), игрок должен успеть сказать «УНО!»' "
          "(while laying the second-to-last card, before letting go of it)")
CH_CATCH = ("'Друзья должны успеть это сделать от момента отпускания игроком своей предпоследней карты до начала хода "
            "следующего игрока (выкладывание карты или вытягивание карты из колоды)'")
FA_UNO = ('"When you play your second-to-last card, you must say "UNO" out loud, clearly, before the next player '
          'begins their turn."')
FA_EARLY = ('"You may not call "UNO" pre-emptively when you still have three or more cards. Doing so costs you one '
            'penalty card."')
MA_UNO = '"When you have one card left, you must yell "UNO" (meaning one)."'
MA_SAFE = ('"A player who forgets to say UNO before his card touches the discard pile, but "catches" himself before '
           'any other player catches him, is safe"')
MA_BEGIN = ('"you may not catch a player for failure to say UNO after the next player begins his turn. Beginning a '
            'turn is defines as either drawing a card from the DRAW pile or drawing a card from your hand to play."')
OL_UNO = ('"If you have not said "UNO" before you release your hand for the card you just played and another player '
          'catches you with just one card at any time you have to draw 2 cards."')
OL_70 = ('"If you play a 0 or a 7 as next to last card you need to say "UNO" and the person you give your last card '
         'to, has to say "UNO" when receiving the card."')
OL_COLOR = '"The color must be announced before releasing his hand from the card (see Penalties)."'
OL_DEALER = ('"The dealer can take penalties for mis dealing the cards or if for instance a Wild Card is flipped and '
             'she/he forgets to announce the color."')
MA_WILD_START = '"Wild Card - The player to the left of the dealer calls out a color - then plays."'
MA_CALLS = '"The person playing the card calls any color to continue play"'

# a call repeated after the card landed, then a draw, then the drawn card laid as the next-to-last card again
REPEAT_THEN_DRAW = "~5; U0; P0 red-1; +-0.5; U0; D1; S1; D0; P0 red-3; P1 red-4"
# a call 0.5 s after the next-to-last card (inside the senses' tolerance), but another card came down at 0.2 s


FINDINGS: dict[int, tuple[int, str]] = {}  # id(case) -> (finding number, what the engine gets wrong)


def xf(case: RuleCase, n: int, text: str) -> RuleCase:
    """A case the engine got wrong before stop 62's fixes (finding `n`: `text`); kept in CASES like the rest."""
    FINDINGS[id(case)] = (n, text)
    return case


CASES = [
    # ================================================================ Mattel (MA-UNO): the catch window
    RuleCase("MA-UNO", MA, "~5; U0; +-0.8; P0 red-1; P1 red-2",
             why=MA_UNO + " -- heard 0.2 s before the camera saw the card land: said while laying it"),
    RuleCase("MA-UNO", MA, "~5; P0 red-1; +-0.9; U0; P1 red-2",
             why=MA_SAFE + " -- 0.1 s after the card touched the pile, nobody had caught him yet"),
    RuleCase("MA-UNO", MA, "~5; P0 red-1; P1 red-2; +-0.9; U0", ("missed_uno@0/2:MA-UNO",),
             why=MA_BEGIN + " -- the next player took his card from the hand before it landed; a call 0.1 s after "
                 "it landed is after the next turn began"),
    RuleCase("MA-UNO", MA, "~5; P0 red-1; +-0.5; D1; +-0.4; U0", ("missed_uno@0/2:MA-UNO",),
             why=MA_BEGIN + " -- 0.1 s after the next player's draw is too late"),
    RuleCase("MA-UNO", MA, "~5; P0 red-skip; D1; U0; P2 red-3", ("wrong_draw@1",),
             why=MA_BEGIN + ' -- after a Skip "the next player" is seat 2; the skipped seat drawing out of turn '
                 "begins no turn, so seat 0's call still comes in time"),
    RuleCase("MA-UNO", MA, "~5; P0 red-draw2; D1 2; U0; P2 red-3", ("missed_uno@0/2:MA-UNO",),
             why=MA_BEGIN + " -- the next player drawing the Draw Two's cards from the DRAW pile has begun his turn"),
    RuleCase("MA-UNO", MA, "~5; P0 red-1; U0; D1; S1; D0; P0 red-3; P1 red-4", ("missed_uno@0/2:MA-UNO",),
             players=2,
             why=MA_UNO + " -- the call answered the first time seat 0 held one card; after drawing, seat 0 came "
                 "down to one card again and said nothing"),
    RuleCase("MA-UNO", MA, "~5; P0 red-1; U0; D1; S1; D0; +-0.5; U0; P0 red-3; P1 red-4", players=2,
             why=MA_UNO + " -- called again as the drawn card was laid"),
    xf(
        RuleCase("MA-UNO", MA, REPEAT_THEN_DRAW, ("missed_uno@0/2:MA-UNO",), players=2,
                 why=MA_UNO + " -- the second 'UNO' was said while seat 0 held one card, before it drew red-3; it "
                     "can't be the call for laying a card it did not hold yet"),
        1, "a call made while holding one card is kept as a lead for a later play, across a draw"),
    # ---------------------------------------------------------------- Mattel: colour of a Wild, a turned Wild
    RuleCase("MA-MATCH", MA, "C1 blue; +-0.5; P0 wild; P1 red-3",
             why=MA_CALLS + " -- seat 1 naming blue just before seat 0's Wild is not seat 0's call"),
    xf(
        RuleCase("MA-START", MA, "H3; C0 green; +-0.8; T wild; P0 blue-3", ("illegal_card@0:MA-MATCH",),
                 why=MA_WILD_START + " -- seat 0 called green (heard 0.2 s before the camera saw the card turned), "
                     "then laid blue-3"),
        3, "a colour heard a fraction of a second before a turned Wild is lost"),

    # ================================================================ Falsonal (FA-UNO, FA-EARLY, FA-ACTION)
    RuleCase("FA-UNO", FA, "~5; P0 red-1; +-0.9; P1 red-2; +-0.9; U0", ("missed_uno@0/2:FA-UNO",),
             why=FA_UNO + " -- 0.1 s after the next player's card landed: the next turn had begun"),
    RuleCase("FA-UNO", FA, "~5; P0 red-1; +-0.5; U0; +-0.7; U0; P1 red-2",
             why=FA_UNO + " -- said twice, with two cards and then one: neither is pre-emptive, nothing is flagged"),
    RuleCase("FA-UNO", FA, "~4; U1; P0 red-1; P1 red-2; P2 red-3; P3 red-4; P0 red-6; D1; U0; P1 red-8",
             ("early_uno@1/1:FA-EARLY",),
             why=FA_UNO + " -- seat 1 drawing the penalty card it owed does not begin its turn; seat 0's call "
                 "still comes first"),
    RuleCase("FA-UNO", FA, "~4; U1; P0 red-1; P1 red-2; P2 red-3; P3 red-4; P0 red-6; D1; D1; U0; P1 red-8",
             ("early_uno@1/1:FA-EARLY", "missed_uno@0/2:FA-UNO"),
             why=FA_UNO + " -- the second draw, with nothing owed, is seat 1 beginning its turn"),
    xf(
        RuleCase("FA-UNO", FA, REPEAT_THEN_DRAW, ("missed_uno@0/2:FA-UNO",), players=2,
                 why=FA_UNO + " -- nothing was said when seat 0 laid its second-to-last card the second time; the "
                     "last call came before it drew that card"),
        1, "a call made while holding one card is kept as a lead for a later play, across a draw"),
    xf(
        RuleCase("FA-EARLY", FA, "U0; +-0.7; U0", ("early_uno@0/1:FA-EARLY",),
                 why=FA_EARLY + " -- one 'UNO! UNO!' outburst (two recogniser events 0.3 s apart) is one "
                     "pre-emptive call: one card"),
        4, "one repeated pre-emptive shout is flagged twice, two penalty cards"),
    RuleCase("FA-ACTION", FA, "C1 blue; +-0.5; P0 wild; P1 blue-3", ("no_color@0:FA-ACTION",),
             why='"Wild: you choose the next colour" -- seat 1 naming blue just before seat 0\'s Wild is not seat '
                 "0's choice"),
    RuleCase("FA-ACTION", FA, "P0 wild; C0 blue; +-0.5; C0 blue; P1 blue-3",
             why='"Wild: you choose the next colour" -- the same colour said twice: one choice, no flag'),
    RuleCase("FA-ACTION", FA, "P0 wild; +-0.5; C? blue; P1 blue-3",
             why='"Wild: you choose the next colour" -- a colour heard from no placed seat while the Wild\'s colour '
                 "is due is the layer's"),
    RuleCase("FA-ACTION", FA, "C0 blue; +-0.5; P0 wild-draw4; D1 4; P2 blue-3",
             why='"Wild Draw Four: next player draws four cards, loses their turn, and you nominate the colour" -- '
                 "named as the card came down"),
    xf(
        RuleCase("FA-START", FA, "H3; C0 green; +-0.8; T wild; P0 blue-3", ("illegal_card@0:FA-TURN",),
                 why='"If the starter card is a Wild — pick a colour." -- green was picked (0.2 s before the camera '
                     "saw the turned card); blue-3 matches neither"),
        3, "a colour heard a fraction of a second before a turned Wild is lost"),

    # ================================================================ ЧемпиУНат (CH-UNO, CH-DRAW)
    RuleCase("CH-UNO", CH, "~5; U0; +-0.8; P0 red-1; P1 red-2", why=CH_UNO + " -- heard 0.2 s before the card landed"),
    RuleCase("CH-UNO", CH, "~5; P0 red-1; +-0.5; U0; P1 red-2",
             why=CH_UNO + " -- heard 0.5 s after the camera saw the card: within a referee's judgement of 'while "
                 "laying'"),
    RuleCase("CH-UNO", CH, "~5; U0; P0 red-1; +-0.5; U0; P1 red-2", why=CH_UNO + " -- said while laying and again"),
    RuleCase("CH-UNO", CH, "~5; P0 red-1; U0; D1; S1; D0; P0 red-3; P1 red-4", ("missed_uno@0/2:CH-UNO",),
             players=2, why=CH_UNO + " -- nothing said while laying the drawn card as the second-to-last"),
    xf(
        RuleCase("CH-UNO", CH, REPEAT_THEN_DRAW, ("missed_uno@0/2:CH-UNO",), players=2,
                 why=CH_UNO + " -- the last 'УНО' was said before seat 0 drew red-3, not while laying it"),
        1, "a call made while holding one card is kept as a lead for a later play, across a draw"),
    RuleCase("CH-DRAW", CH, "D0; S0; +-0.7; S0; P1 red-3",
             why="'игрок оставляет карту себе, говорит «Пас» и ход переходит к следующему игроку' -- a 'pass' "
                 "repeated 0.3 s later moves the turn once"),

    # ================================================================ UNO Olympic (OL-UNO, OL-70-UNO, OL-WILD, OL-START)
    RuleCase("OL-UNO", OL, "~5; U0; +-0.8; P0 red-1; P1 red-2", why=OL_UNO + " -- 0.2 s before the card landed"),
    RuleCase("OL-UNO", OL, "~5; P0 red-1; +-0.5; U0; +-0.5; U0; P1 red-2",
             why=OL_UNO + " -- heard inside the senses' tolerance, then repeated: one call, no flag"),
    RuleCase("OL-70-UNO", OL, "~5; P0 red-7 >1; +-0.5; U1; +-0.5; U0; P1 red-8",
             state={"hand_winner": 1, "phase": "hand_over"},
             why=OL_70 + " -- both called within a second of the 7, the receiver first"),
    RuleCase("OL-70-UNO", OL, "~5; P0 red-0; +-0.5; U?; +-0.5; U?; P1 red-8",
             state={"hand_winner": 1, "phase": "hand_over"},
             why=OL_70 + " -- two seats at one card at once, two calls no microphone could place: one each"),
    RuleCase("OL-WILD", OL, "P0 wild; +-0.6; C0 blue; P1 blue-3",
             why=OL_COLOR + " -- heard 0.4 s after the camera saw the card: a referee's 'as he let go'"),
    RuleCase("OL-WILD", OL, "C1 blue; +-0.5; P0 wild; P1 blue-3", ("no_color@0/2:OL-WILD",),
             why=OL_COLOR + " -- seat 1 naming blue before seat 0's Wild is not seat 0 announcing it"),
    RuleCase("OL-WILD", OL, "P0 wild blue; C0 green; P1 green-3", ("illegal_card@1/2:OL-MATCH",),
             why=OL_COLOR + " -- blue was announced with the card; green, a second after the hand left it, "
                 "changes nothing"),
    RuleCase("OL-START", OL, "H3; T wild-draw4; +-0.5; C3 blue; D0 4; P1 blue-3",
             why=OL_DEALER + " -- the dealer announced the turned Wild Draw Four's colour"),
    xf(
        RuleCase("OL-START", OL, "H3; C3 green; +-0.8; T wild; P0 green-3",
                 why=OL_DEALER + " -- the dealer did not forget: green was heard 0.2 s before the camera saw the "
                     "card turned"),
        3, "a colour heard a fraction of a second before a turned Wild is lost"),
]


def _params() -> list[object]:
    out: list[object] = []
    for c in CASES:
        if id(c) in FINDINGS:
            n, text = FINDINGS[id(c)]
            out.append(pytest.param(c, id=f"finding {n} (fixed at stop 62): {c.steps[:60]}"))
        else:
            out.append(c)
    return out


@pytest.mark.parametrize("case", _params(), ids=lambda c: f"{c.clause}:{c.steps}")
def test_call_corner(case: RuleCase) -> None:
    assert case.problems() == [], case.why
