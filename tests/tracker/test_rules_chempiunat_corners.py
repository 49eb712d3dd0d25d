"""St. Petersburg ЧемпиУНат rules (shared/seeds/000_04053542a56f51f8.txt), corners beyond test_rules_chempiunat.py:
re-turned starters, jump-ins, pairs, chains, the UNO window, 6 seats, 500 points (CH-*). Each verdict comes from
the Russian text, quoted and translated in `why` (stop 61's audit)."""

import pytest

from tracker.script import RuleCase

R = "chempiunat"


# six seats: ~5 leaves 2 cards each; seat 0 calls UNO at one card, seats 1-5 draw and pass, seat 0 goes out
SIX_TO_ONE = "~5; P0 red-1; U0; D1; S1; D2; S2; D3; S3; D4; S4; D5; S5; P0 red-2"
HAND2 = "H0; T red-5; ~6@1; P1 red-3"

CASES = [
    # ---------------------------------------------------------------- CH-START
    RuleCase("CH-START", R, "H3; T blue-0; P0 blue-3",
             why="'Первая карта должна быть только цифровой' (the first card must be a number card): 0 is one"),
    RuleCase("CH-START", R, "H3; T red-skip; T wild-draw4; T blue-reverse; T green-2",
             state={"draw_pile": 79, "discard_pile": 1, "turn": 0, "top_card": "green-2", "pending_draw": 0},
             why="'Если вытащили активную - убираете ее в середину и тащите следующую' (an active card goes back "
                 "into the middle of the pile and the next is turned): as often as needed; the pile keeps them"),
    RuleCase("CH-START", R, "H3; T wild blue; P0 blue-3", ("bad_starter@0:CH-START",),
             why="a black card is an 'активная' card too ('Чёрные активные карты'): it must go back"),
    RuleCase("CH-START", R, "H3; T red-draw2; T blue-4; D0 2", ("wrong_draw@0:CH-DRAW",),
             why="the returned +2 never acts: with nothing owed a turn draws one card ('берёт одну карту')"),
    RuleCase("CH-START", R, "H3; T blue-reverse; T blue-4; P0 blue-6; P1 blue-7", state={"direction": 1, "turn": 2},
             why="the returned Reverse has no effect: 'Игра начинается «по часовой стрелке»'"),
    RuleCase("CH-START", R, "H5; T green-draw2; T green-6", players=6,
             state={"draw_pile": 65, "pending_draw": 0, "turn": 0, "discard_pile": 1},
             why="6 a table, 7 each (108-42=66), the returned +2 goes back into the pile, the 6 is turned"),
    RuleCase("CH-START", R, "H3; T red-7; P3 red-7", state={"turn": 0},
             why="'В любой момент любой игрок может перебить ход' with an identical number card: the starter is "
                 "the top card; play goes on from the seat next to the jumper (the dealer -> seat 0)"),
    RuleCase("CH-START", R, "H3; T red-7; P2 red-7; P3 red-8", state={"turn": 0},
             why="jump-in on the starter: 'следующим ходит игрок сидящий по ходу игры рядом с перебившим'"),

    # ---------------------------------------------------------------- CH-ORDER
    RuleCase("CH-ORDER", R, "H2; T red-5; P3 red-7; P4 red-8", players=6, state={"turn": 5},
             why="'Первым ходит игрок после раздающего' (the player after the dealer starts), clockwise"),
    RuleCase("CH-ORDER", R, "H2; T red-5; P0 red-7", ("out_of_turn@0:CH-ORDER",), players=6,
             why="seat 3 (after dealer 2) starts, not seat 0"),
    RuleCase("CH-ORDER", R, "H3; T red-5; P0 red-reverse; H0; T red-5; P1 red-7; P2 red-8",
             state={"direction": 1, "turn": 3, "dealer": 0, "hand": 2},
             why="'Игра начинается «по часовой стрелке»' each hand; 'раздающий каждый тур меняется ... по часовой'"),
    RuleCase("CH-ORDER", R, "H5; T red-5; P0 red-7; H0; T red-5; P1 red-3", players=6, state={"turn": 2},
             why="the deal passes clockwise from seat 5 to seat 0 (wraps round); seat 1 then starts"),

    # ---------------------------------------------------------------- CH-JUMP
    RuleCase("CH-JUMP", R, "P0 red-7; P1 red-8; P3 red-7", ("out_of_turn@3",),
             why="'успев первым до того, как верхнюю карту накрыли другой' (before the top card was covered): "
                 "red-7 is no longer on top"),
    RuleCase("CH-JUMP", R, "P0 red-7; P2 red-7; P1 red-3", ("out_of_turn@1",),
             why="after the jump-in the seat next to the jumper (3) plays: seat 1 lost its turn"),
    RuleCase("CH-JUMP", R, "P0 red-reverse; P5 red-3; P2 red-3; P1 red-4", players=6,
             state={"turn": 0, "direction": -1},
             why="'следующим ходит игрок сидящий по ходу игры рядом с перебившим' (in the direction of play)"),
    RuleCase("CH-JUMP", R, "P0 red-draw2; P2 red-draw2", ("illegal_jump_in@2:CH-JUMP",),
             why="'Правило действует только на цифровые карты, на активные не распространяется'"),
    RuleCase("CH-JUMP", R, "P0 wild blue; P2 wild green", ("illegal_jump_in@2",),
             why="number cards only: a Wild can't be jumped in"),
    RuleCase("CH-JUMP", R, "P0 red-7; D1; P3 red-7; P0 red-8", state={"turn": 1},
             why="'В любой момент' -- even while seat 1 holds its drawn card; seat 0 follows the jumper"),
    RuleCase("CH-JUMP", R, "~5; P0 red-1; U0; P1 red-2; U1; P0 red-2", state={"hand_winner": 0, "phase": "hand_over"},
             why="a jump-in with the last card: 'пока кто-то один из игроков не скинет все карты'"),
    RuleCase("CH-JUMP", R, "~5; P1 red-4; P2 red-6", ("missed_uno@1/2:CH-UNO",),
             why="a jump-in down to one card needs 'УНО!' like any second-to-last card"),
    RuleCase("CH-JUMP", R, "P0 wild blue; P1 blue-3; P3 blue-3; P0 blue-8", state={"turn": 1},
             why="identical number card on top: jump-in allowed, seat 0 (next to 3) follows"),

    # ---------------------------------------------------------------- CH-PAIR
    RuleCase("CH-PAIR", R, "P0 red-skip+red-skip; P3 red-3", players=6, state={"turn": 4},
             why="'2 пропуска - два человека пропускают ход по ходу игры' (seats 1 and 2)"),
    RuleCase("CH-PAIR", R, "P0 red-skip+red-skip; P1 red-3", ("out_of_turn@1",), players=6,
             why="two Skips: seat 1 is skipped"),
    RuleCase("CH-PAIR", R, "P0 red-reverse; P5 red-skip+red-skip; P2 red-3", players=6,
             state={"turn": 1, "direction": -1}, why="two Skips counter-clockwise skip seats 4 and 3"),
    RuleCase("CH-PAIR", R, "P0 red-reverse; P3 red-reverse+red-reverse; P2 red-3", state={"direction": -1, "turn": 1},
             why="'две карты «Наоборот» не оказывают никакого воздействия – ход продолжается в том же направлении'"),
    RuleCase("CH-PAIR", R, "P0 wild+wild blue", ("too_many_cards@0:CH-PAIR",),
             why="'Активные карты (не черного цвета) можно выкидывать две сразу' -- not black ones"),
    RuleCase("CH-PAIR", R, "P0 wild-draw4+wild-draw4 blue", ("too_many_cards@0",),
             why="black cards are not paired; +4 'Суммировать эту карту нельзя'"),
    RuleCase("CH-PAIR", R, "P0 blue-skip+blue-skip", ("illegal_card@0",),
             why="a pair must still fit the red-5 on top (CH-MATCH): blue Skip matches neither colour nor picture"),
    RuleCase("CH-PAIR", R, "P0 red-skip+red-draw2",
             why="'Активные карты (не черного цвета) можно выкидывать две сразу в свой ход, только если они одного "
                 "цвета' -- the only condition is the same colour"),
    RuleCase("CH-PAIR", R, "P0 red-draw2; P1 blue-draw2+blue-draw2; D2 6; P3 blue-3",
             why="two same-colour +2s on your turn continue the chain, which sums: 2+2+2"),
    RuleCase("CH-PAIR", R, "P2 red-skip+red-skip", ("out_of_turn@2",), why="pairs only 'в свой ход'"),
    RuleCase("CH-PAIR", R, "~4; P0 red-skip+red-skip; P3 red-3", ("missed_uno@0/2",),
             why="the pair leaves one card: the player 'обязан предупредить, что у него осталась одна карта'"),
    RuleCase("CH-PAIR", R, "~5; P0 red-skip+red-skip", state={"hand_winner": 0},
             why="going out with a pair: no second-to-last card laid alone, no UNO owed"),
    RuleCase("CH-PAIR", R, "D0; P0 red-skip+red-skip", ("too_many_cards@0",),
             why="'При отсутствии подходящий карты игрок берёт одну карту ... игрок может выложить карту' -- only "
                 "the drawn card; a pair after a draw lays a hand card that fitted before the draw"),

    # ---------------------------------------------------------------- CH-D2
    RuleCase("CH-D2", R, "P0 red-draw2; P1 red-draw2; P2 blue-draw2; D3 6; P4 blue-3", players=6,
             why="'следующий игрок должен будет взять уже 4 карты' -- the chain keeps summing: 6"),
    RuleCase("CH-D2", R, "P0 red-draw2; P1 blue-draw2; P2 green-draw2; D3 4", ("wrong_draw@3:CH-D2",),
             why="three +2s: six cards owed"),
    RuleCase("CH-D2", R, "P0 red-draw2; P1 red-3", ("wrong_draw@1:CH-D2",),
             why="'берёт ... две карты и пропускает свой ход' unless it lays a +2"),
    RuleCase("CH-D2", R, "P0 red-draw2; P1 wild blue", ("wrong_draw@1",),
             why="only 'такой же карты (любого цвета)' -- a +2 -- continues; a Wild doesn't cancel the draw"),
    RuleCase("CH-D2", R, "P0 red-draw2; D1 2; P2 blue-draw2; D3 2; P0 blue-3",
             why="once drawn, the chain is over: a new +2 starts a new one of 2"),
    RuleCase("CH-D2", R, "P0 red-reverse; P3 red-draw2; P2 blue-draw2; D1 4; P0 blue-3",
             state={"turn": 3, "direction": -1}, why="the chain follows the direction of play"),

    # ---------------------------------------------------------------- CH-W4 / CH-BLACK / CH-WILD
    RuleCase("CH-W4", R, "P0 wild-draw4 blue; P1 wild-draw4 green; P2 wild-draw4 red; D3 4; P4 red-3", players=6,
             why="'должен будет взять 4 карты, а не 8' -- never summed, however many"),
    RuleCase("CH-W4", R, "P0 wild-draw4 blue; P1 red-draw2", ("illegal_stack@1:CH-W4",),
             why="on a +4 only 'еще +4' may be laid"),
    RuleCase("CH-W4", R, "P0 wild-draw4 blue; D1 2", ("wrong_draw@1:CH-W4",),
             why="'Следующий игрок ... берёт ... четыре карты' -- the rule broken is CH-W4, not CH-D2"),
    RuleCase("CH-W4", R, "P0 wild-draw4 blue; P1 wild red", ("wrong_draw@1",),
             why="a plain Wild doesn't pass a +4 on"),
    RuleCase("CH-W4", R, "P0 wild-draw4 blue; P2 wild-draw4 green", ("illegal_jump_in@2",),
             why="'может быть выложена игроком только в свой ход'; an identical card out of turn is a jump-in "
                 "attempt, and jump-in is 'только на цифровые карты'"),
    RuleCase("CH-W4", R, "P0 wild-draw4 blue; D1 4; P2 red-5", ("illegal_card@2",),
             why="blue was named: the next player plays blue (or black)"),
    RuleCase("CH-W4", R, "P0 wild-draw4 blue; D1 4; P1 blue-3", ("out_of_turn@1",), why="'и пропускает ход'"),
    RuleCase("CH-W4", R, "P0 wild-draw4 blue; P1 blue-draw2+blue-draw2", ("illegal_stack@1:CH-W4",),
             why="on a +4 only 'еще +4' may be laid -- not a pair of +2s"),
    RuleCase("CH-W4", R, "P0 wild-draw4 blue; S1", ("wrong_draw@1:CH-W4",),
             why="'Следующий игрок (игрок-2) берёт из колоды «Прикуп» четыре карты' -- saying pass instead"),
    RuleCase("CH-D2", R, "P0 red-draw2; S1", ("wrong_draw@1:CH-D2",),
             why="'следующий игрок берёт из колоды «Прикуп» две карты' -- saying pass instead"),
    RuleCase("CH-BLACK", R, "P0 wild blue; P1 wild green; P2 green-3",
             why="'Кидаем в любой момент' -- a Wild on a Wild"),
    RuleCase("CH-BLACK", R, "P0 red-skip; P2 wild-draw4 red; D3 4; P0 red-3",
             why="'может быть любой, в том числе и текущий цвет'; no restriction on holding red"),

    # ---------------------------------------------------------------- CH-DRAW
    RuleCase("CH-DRAW", R, "D0 2", ("wrong_draw@0:CH-DRAW",), why="'игрок берёт одну карту'"),
    RuleCase("CH-DRAW", R, "D0; D0", ("wrong_draw@0:CH-DRAW",), why="one card, then play it or pass"),
    RuleCase("CH-DRAW", R, "D0; P0 blue-7", ("illegal_card@0",),
             why="'Если карта удовлетворяет указанным выше условиям – игрок может выложить' -- only if it fits"),
    RuleCase("CH-DRAW", R, "D0; S0; P0 red-3", ("out_of_turn@0",), why="'ход переходит к следующему игроку'"),
    RuleCase("CH-DRAW", R, "D0; S0; S1", ("wrong_draw@1:CH-DRAW",), why="pass only after drawing"),
    RuleCase("CH-DRAW", R, "D2", ("wrong_draw@2",), why="a draw on someone else's turn"),

    # ---------------------------------------------------------------- CH-UNO
    RuleCase("CH-UNO", R, "~5; P0 red-1; D1; U0", ("missed_uno@0/2",),
             why="'до начала хода следующего игрока (выкладывание карты или вытягивание карты из колоды)'"),
    RuleCase("CH-UNO", R, "~4; U0; P0 red-1; P1 red-2; P2 red-3; P3 red-4; P0 red-5; P1 red-6",
             ("missed_uno@0/2",),
             why="'Выкладывая предпоследнюю карту (пока он её ещё не отпустил), игрок должен успеть сказать "
                 "«УНО!»' -- a call while laying the third-to-last card a round earlier is not it"),
    RuleCase("CH-UNO", R, "~5; P0 red-1; P1 red-2; U1; D0 2; P2 red-3; U2", ("missed_uno@0/2",),
             state={"counts": [3, 1, 1, 2], "owed": [0, 0, 0, 0]},
             why="'берёт из колоды «Прикуп» две карты' -- drawing the penalty is no wrong draw"),

    # ---------------------------------------------------------------- CH-SCORE / CH-GAME
    RuleCase("CH-SCORE", R, "~6; P0 red-1; R1 red-0; R2 yellow-9; R3 blue-draw2; R4 green-reverse; R5 wild-draw4",
             players=6, scores={"hands": [[99, 0, 0, 0, 0, 0]], "winner": None},
             why="'цифровые карты идут по номиналу, обычные активные карты по 20 очков, черные карты по 50'"),
    RuleCase("CH-GAME", R, SIX_TO_ONE + "; R1 wild,wild,red-skip; R2 wild,wild,blue-skip; "
             "R3 wild-draw4,wild-draw4,green-skip; R4 wild-draw4,wild-draw4,yellow-skip; R5 red-9,red-9,red-2",
             players=6, scores={"totals": [500, 0, 0, 0, 0, 0], "winner": 0},
             why="'Каждая игра будет вестись до 500 очков' -- 500 reached"),
    RuleCase("CH-GAME", R, SIX_TO_ONE + "; R1 wild,wild,red-skip; R2 wild,wild,blue-skip; "
             "R3 wild-draw4,wild-draw4,green-skip; R4 wild-draw4,wild-draw4,yellow-skip; R5 red-9,red-9,red-1",
             players=6, scores={"totals": [499, 0, 0, 0, 0, 0], "winner": None}, why="499: not yet 500"),
    RuleCase("CH-GAME", R, f"H5; T red-5; ~6; P0 red-1; R1 wild; R2 wild; R3 wild-draw4; "
             f"R4 wild-draw4; R5 red-skip; {HAND2}; R0 blue-9; R2 wild; R3 wild; R4 wild-draw4; R5 wild-draw4",
             players=6, scores={"hands": [[220, 0, 0, 0, 0, 0], [0, 209, 0, 0, 0, 0]], "totals": [220, 209, 0, 0, 0, 0],
                                "winner": None},
             state={"hand": 2, "dealer": 0},
             why="scores add up over hands; dealer 5 then 0 ('раздающий каждый тур меняется ... по часовой')"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.clause}:{c.steps[:80]}")
def test_chempiunat_corner(case: RuleCase) -> None:
    assert case.problems() == [], case.why
