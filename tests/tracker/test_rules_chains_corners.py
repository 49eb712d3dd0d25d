"""Chains of action cards and turn order across all four rulebooks (shared/seeds/000-003): every kind of starter card
and who plays first, two- and three-seat tables, Draw Two / Wild Draw Four stacking, the Wild Draw Four challenge,
drawing (one card, a pending penalty, passing), 7-0 with the direction reversed, jump-ins and interceptions, and the
turn after each. Most cases are long (10-20 steps) so that a wrong turn early shows later. Each verdict comes from the
rulebook text, quoted in `why`. `FINDINGS` are the cases the engine got wrong before
stop 62's fixes ("finding N": what it did)."""

import pytest

from tracker.script import RuleCase

C, F, M, OL = "chempiunat", "falsonal", "mattel", "olympic"

# hands shown for a challenge (six cards: seven less the Wild Draw Four)
RED6 = "red-2,green-3,green-4,blue-1,blue-2,yellow-9"  # holds red, the colour in force
CLEAN6 = "green-7,green-3,green-4,blue-1,blue-2,yellow-9"  # no red, no Reverse, no black card

MA_TWO = ('"Rules for Two Players ... Playing a Reverse card acts like a Skip. The player who plays the Reverse may '
          'immediately play another card. The person playing a Skip card may immediately play another card. When a '
          'Draw Two card is played and your opponent has drawn two cards, the play is back to you. The same principle '
          'applies to the Wild Draw Four card."')
MA_D2 = ('"Draw Two Cards - When this card is played, the next person to play must draw 2 cards and forfeit his '
         'turn."')
MA_W4 = ('"the next player has to pick 4 cards and forfeit his turn ... you can only play this card when you don\'t '
         'have a card in your hand that matches the color of the card previously played"')
MA_CH = ('"If guilty, he must draw 4 cards. If not guilty, the challenger must draw 2 cards in addition to the 4. The '
         'challenge can only be made by the person required to draw the four cards."')
FA_ACT = ('"Skip: the next player loses their turn. Reverse: direction of play flips. In a two-player situation it acts '
          'as a Skip. Draw Two: the next player draws two cards and forfeits their turn. ... Wild Draw Four: next '
          'player draws four cards, loses their turn, and you nominate the colour."')
FA_W4 = ('"you may challenge them before drawing. The challenged player shows their hand to the referee. If the '
         'challenge is correct, the player who played the +4 draws the four cards instead. If the challenge is wrong, '
         'the challenger draws six cards"')
CH_D2 = ('"«Возьми две» – следующий игрок берёт из колоды «Прикуп» две карты (в тёмную) и пропускает свой ход, при '
         'условии что у него нет такой же карты (любого цвета), которую он может положить следом продолжив цепочку" '
         '(the next player draws two and misses the turn unless they lay a Draw Two of any colour, continuing the '
         'chain)')
CH_W4 = ('"положив "+4" - следующий игрок может положить еще "+4" - при этом следующий игрок ... должен будет взять 4 '
         'карты, а не 8" (a +4 on a +4: the player after draws 4, not 8) and "берёт ... четыре карты ... и пропускает '
         'ход"')
CH_JUMP = ('"В любой момент любой игрок может перебить ход своей картой, если она совпадает по цвету и номиналу с '
           'верхней картой ... следующим ходит игрок сидящий по ходу игры рядом с перебившим ход игроком" (any player, '
           'any time, with the identical number card; play goes on from the seat next to the jumper, in the '
           'direction of play)')
CH_PAIR = ('"2шт красного цвета "наоборот" - ход продолжается как и шел. 2 пропуска - два человека пропускают ход по '
           'ходу игра" (two Reverses: direction unchanged; two Skips: two players skipped)')
OL_D2 = ('"When you play this card, the next person to play draws 2 cards can play, or plays directly another Draw 2 '
         'Card (of any color) to add 2 more cards to draw for the following player."')
OL_W4C = ('"If the challenged player is guilty, she/he must draw 6 cards and miss his turn (taking the Wild Draw 4 '
          'Card back in his hand). If the challenged player is not guilty the challenger must draw 6 cards. The '
          'challenge must be announced before the first 4 cards are seen."')
OL_INT = ('"At anytime of the game if you have the exact same card as the one on top of the DISCARD pile, you can play '
          'your card and intercept the current play. The following player after you will need to play."')
OL_ZERO = ('"When you play a 0 of any color, each player needs to pass all his cards to the following player in the '
           'current direction of the play."')
OL_SEVEN = '"When you play a 7 of any color, you must exchange all your cards with a player of your choice."'
OL_START = ('"This card is played as the dealers first card played and the possible actions associated with the card '
            'will need to be played"')

CASES = [
    # ================================================================ starters and who plays first
    RuleCase("MA-START", M, "H3; T wild; C0 yellow; P0 yellow-skip; P2 yellow-reverse; P1 yellow-3; P0 yellow-4; "
             "P3 yellow-5; P2 yellow-draw2; D1 2; P0 yellow-6",
             state={"turn": 3, "direction": -1, "counts": [4, 8, 5, 6], "color": "yellow"},
             why='"Wild Card - The player to the left of the dealer calls out a color - then plays." then "Skip Card - '
                 'The next player to play loses his turn", "Reverse Card - Simply reverse direction of play", ' + MA_D2),
    RuleCase("MA-START", M, "H0; T red-reverse; P0 red-3; P2 red-4; P1 red-skip; P2 red-6; P1 red-draw2; D0 2; "
             "P2 red-8; P1 red-reverse; P2 red-9; P0 red-1", players=3,
             state={"turn": 1, "direction": 1, "counts": [7, 4, 3]},
             why='"Reverse Card - The dealer plays first, but then goes to the right instead of the left." Three seats: '
                 'a Reverse is a Reverse ("Regular UNO rules apply in all other instances"); ' + MA_D2),
    RuleCase("MA-START", M, "H3; T wild-draw4; T red-reverse; P3 red-3; P2 red-skip; P0 red-4; P3 red-draw2; D2 2; "
             "P1 red-5; P0 red-6",
             state={"turn": 3, "direction": -1, "counts": [5, 6, 8, 5]},
             why='"Wild Draw Four - It\'s put back in the deck and another one is chosen." then "Reverse Card - The '
                 'dealer plays first, but then goes to the right"'),
    RuleCase("MA-START", M, "H3; T blue-skip; P1 blue-draw2; D2 2; P3 wild-draw4 red; D0 4; P1 red-3; "
             "P2 red-reverse; P1 red-4; P0 red-5",
             state={"turn": 3, "direction": -1, "counts": [10, 4, 8, 6]},
             why='"Skip Card - The player to the left of dealer doesn\'t start (get it, he\'s skipped). The player to '
                 'the left of him starts." ' + MA_D2 + " " + MA_W4),
    RuleCase("MA-START", M, "H2; T green-draw2; D3 2; P0 green-3; P1 green-skip; P3 green-4; D0; S0; P1 green-5",
             state={"turn": 2, "counts": [7, 5, 7, 8]},
             why='"Draw Two Card - The player to the left of dealer must pick two cards and then the next player goes '
                 '(sad, but true)." The dealer is seat 2; seat 3 draws, seat 0 goes.'),
    RuleCase("FA-START", F, "H3; T red-reverse; P3 red-3; P2 red-skip; P0 red-draw2; D3 2; P2 red-4; P1 red-reverse; "
             "P2 red-6; P3 red-8",
             state={"turn": 0, "direction": 1, "counts": [6, 6, 4, 7]},
             why='"Reverse starter? Play moves counter-clockwise from the dealer." and "we use the official Mattel '
                 'ruleset, full stop" (Mattel: "The dealer plays first"); ' + FA_ACT),
    RuleCase("FA-START", F, "H1; T yellow-draw2; D2 2; P3 yellow-3; P0 yellow-skip; P2 yellow-4; P3 yellow-reverse; "
             "P2 yellow-5; P1 yellow-6",
             state={"turn": 0, "direction": -1, "counts": [6, 6, 7, 5]},
             why='"If it\'s a Draw Two, the first player draws two and skips." (dealer 1: seat 2 draws, seat 3 plays) '
                 + FA_ACT),
    RuleCase("FA-START", F, "H0; T green-skip; P2 green-3; P3 green-skip; P1 green-4; P2 wild blue; P3 blue-3",
             state={"turn": 0, "counts": [7, 6, 5, 5], "color": "blue"},
             why='"Skip starter? First player loses their turn." (dealer 0: seat 1 is skipped, seat 2 starts) '
                 '"Wild: you choose the next colour and play continues."'),
    RuleCase("OL-START", OL, "H2; T red-reverse; P1 red-draw2; P0 blue-draw2; D3 4; P3 blue-skip; P1 blue-3; "
             "P0 blue-0; P3 blue-4",
             state={"turn": 2, "direction": -1, "counts": [5, 7, 10, 4]},
             why='"If this card is turned up at the beginning of play, the player to the right now plays first" '
                 '(the dealer\'s right: seat 1); ' + OL_D2 + " " + OL_ZERO),
    RuleCase("OL-START", OL, "H3; T blue-0; P0 blue-3; P1 blue-reverse; P0 blue-4; P3 blue-5",
             state={"turn": 2, "direction": -1, "counts": [5, 6, 7, 6]},
             why=OL_START + " -- a turned 0 passes every hand of seven on (no count changes) and seat 0 starts"),
    RuleCase("OL-START", OL, "H3; T blue-7 >2; P0 blue-7 >3; P1 blue-3; P2 blue-4",
             state={"turn": 3, "counts": [7, 6, 6, 6]},
             why=OL_START + " -- the dealer's 7 swaps with seat 2; seat 0's own 7 swaps its six cards for seat 3's "
                 "seven: " + OL_SEVEN),
    RuleCase("OL-START", OL, "H3; T red-skip; P2 red-skip; P0 red-3; P1 red-4",
             state={"turn": 2, "counts": [6, 6, 6, 7]},
             why=OL_START + "; 'You can intercept on a skip card': seat 2 intercepts the dealer's Skip and seat 3, the "
                 "player after the interceptor, is skipped"),
    RuleCase("OL-START", OL, "H3; T red-reverse; P0 red-reverse; P1 red-3; P2 red-4",
             state={"turn": 3, "direction": 1},
             why='"Intercepting a Reverse: The next player will be the person after the player who intercepted, in the '
                 'direction which switches again." -- on the dealer\'s turned Reverse'),
    RuleCase("OL-START", OL, "H2; T red-skip; P1 red-3; P2 red-4; P0 red-5", players=3, state={"turn": 1},
             why=OL_START + " -- the dealer's Skip at three seats: seat 0 is skipped, seat 1 starts"),
    RuleCase("OL-START", OL, "H0; T wild-draw4 blue; D1 4; P0 blue-3; P1 blue-4", players=2,
             state={"turn": 0, "counts": [6, 10]},
             why=OL_START + "; 'requires the next player to pick 4 cards from the DRAW pile and forfeit his/her turn' "
                 "-- two seats: the dealer plays next"),
    RuleCase("MA-START", M, "H3; T wild-draw4; T wild-draw4; T red-skip; P1 red-3; P2 red-draw2; D3 2; P0 red-4",
             state={"turn": 1, "counts": [6, 6, 6, 9], "draw_pile": 77},
             why='"Wild Draw Four - It\'s put back in the deck and another one is chosen." (twice) then "Skip Card - '
                 'The player to the left of dealer doesn\'t start"; ' + MA_D2),
    RuleCase("CH-START", C, "H3; T red-reverse; T wild; T blue-draw2; T blue-7; P2 blue-7; P3 blue-skip+blue-skip; "
             "P2 blue-3; P3 blue-4",
             state={"turn": 0, "direction": 1, "counts": [7, 7, 5, 4], "top_card": "blue-4"},
             why='"Первая карта должна быть только цифровой! Если вытащили активную - убираете ее в середину и тащите '
                 'следующую" (three re-turned) then ' + CH_JUMP + " and " + CH_PAIR),

    # ================================================================ two and three seats
    RuleCase("MA-TWO", M, "H1; T red-5; P0 red-reverse; P0 red-draw2; D1 2; P0 wild-draw4 blue; D1 4; P0 blue-3; "
             "P1 blue-reverse; P1 blue-skip; P1 blue-draw2; D0 2; P1 blue-4; D0; S0; P1 blue-5",
             players=2, state={"turn": 0, "counts": [6, 8]}, why=MA_TWO),
    RuleCase("FA-ACTION", F, "H1; T red-5; P0 red-reverse; P0 red-draw2; D1 2; P0 wild-draw4 blue; D1 4; P0 blue-3; "
             "P1 blue-reverse; P1 blue-skip; P1 blue-draw2; D0 2; P1 blue-4; D0; S0; P1 blue-5",
             players=2, state={"turn": 0, "counts": [6, 8]},
             why=FA_ACT + ' and "we use the official Mattel ruleset, full stop": ' + MA_TWO),
    RuleCase("MA-TWO", M, "H1; T red-5; P0 red-reverse; P1 red-3", ("out_of_turn@1",), players=2,
             why=MA_TWO + " -- the Reverse player plays again; the opponent's card is out of turn"),
    RuleCase("MA-TWO", M, "H0; T red-5; P1 red-draw2; D0 2; P0 red-3", ("out_of_turn@0",), players=2,
             why=MA_TWO + " -- after drawing two the opponent does not play: the play is back to the Draw Two player"),
    RuleCase("CH-REV", C, "H1; T red-5; P0 red-skip; P0 red-draw2; D1 2; P0 red-reverse; P1 red-3; "
             "P0 wild-draw4 blue; D1 4; P0 blue-4; P1 blue-5",
             players=2, state={"turn": 0, "counts": [2, 11]},
             why='"«Наоборот» – направление хода меняется на противоположное" -- the text has no two-player rule, '
                 'so at two seats the Reverse passes the turn on; Skip, Draw Two and +4 each cost the opponent the '
                 'turn: ' + CH_D2),
    RuleCase("OL-REV", OL, "H1; T red-5; P0 red-reverse; P1 red-skip; P1 red-draw2; D0 2; P0 red-3; "
             "P1 wild-draw4 blue; D0 4; P1 blue-7 >0; P0 blue-3",
             players=2, state={"turn": 1, "counts": [2, 11]},
             why='"This card reverses direction of play" (no two-player exception in the olympic text); "The next '
                 'person in line to play after this card is played loses her/his turn"; ' + OL_D2 + "; " + OL_SEVEN),
    RuleCase("CH-W4", C, "H1; T red-5; P0 wild-draw4 blue; P1 wild-draw4 green; D0 4; P1 green-3; "
             "P0 green-draw2; P1 blue-draw2; D0 4; P1 blue-3",
             players=2, state={"turn": 0, "counts": [13, 3], "color": "blue"},
             why=CH_W4 + "; " + CH_D2 + " -- two seats: whoever draws misses the turn, so the other plays again"),
    RuleCase("FA-W4", F, f"H1; T red-5; P0 wild-draw4 blue; X1; R0 {RED6}; D0 4; P1 blue-3; P0 blue-4",
             ("illegal_wild_draw4@0/4:FA-W4",), players=2, state={"turn": 1, "counts": [9, 6]},
             why=FA_W4 + " -- two seats: the challenger drew nothing and takes the turn"),
    RuleCase("MA-TWO", M, "H1; T red-5; D0; P0 red-reverse; P0 red-3; P1 red-4", players=2,
             state={"turn": 0, "counts": [6, 6]},
             why='"If playable, that card can be played" and ' + MA_TWO + " -- the drawn Reverse is a Skip too"),
    RuleCase("OL-SKIP", OL, "H1; T red-5; P0 red-skip; P1 red-skip; P1 red-3; P0 red-4", players=2,
             state={"turn": 1, "counts": [5, 5]},
             why='"You can intercept on a skip card" -- two seats: the skipped seat 1 intercepts, so seat 0 is '
                 "skipped and seat 1 plays on"),
    RuleCase("OL-D2-INTERCEPT", OL, "P0 red-draw2; P2 red-draw2; D0 4; P0 red-3; P1 red-4", players=3,
             state={"turn": 2, "counts": [9, 6, 6]},
             why='"If the player who, at first, was supposed to take the cards has not seen them yet, they remain to '
                 'be taken for the following player" -- three seats: seat 0, after the interceptor, draws 4'),
    RuleCase("OL-D2", OL, "H1; T red-5; P0 red-draw2; P1 red-draw2; D0 4; P0 red-3; P1 red-4", players=2,
             state={"turn": 0, "counts": [9, 5]},
             why=OL_D2 + " -- two seats: the chain comes back and seat 0 draws 4, then plays on"),
    RuleCase("CH-SKIP", C, "H2; T red-5; P0 red-skip+red-skip; P0 red-3; P1 red-reverse; P0 red-4; P2 red-6",
             players=3, state={"turn": 1, "direction": -1, "counts": [3, 6, 6]},
             why=CH_PAIR + " -- at three seats the two skipped are seats 1 and 2, and seat 0 plays again; then a Reverse at three seats turns play back to seat 0"),
    RuleCase("MA-TWO", M, "P0 red-reverse; P2 red-skip; P0 red-draw2; D2 2; P1 red-3; P0 red-4", players=3,
             state={"turn": 2, "direction": -1, "counts": [4, 6, 8]},
             why='"Regular UNO rules apply in all other instances" -- at three seats a Reverse only reverses; '
                 'the Skip after it skips seat 1; ' + MA_D2),

    # ================================================================ stacking allowed / refused
    RuleCase("CH-D2", C, "P0 red-reverse; P5 red-draw2; P4 blue-draw2; P3 green-draw2; D2 6; P1 green-3; "
             "P5 green-3; P4 green-skip+green-skip; P1 green-7; P0 green-8",
             players=6, state={"turn": 5, "direction": -1, "counts": [5, 5, 13, 6, 4, 5]},
             why=CH_D2 + " -- the chain sums in the reversed direction (6), the drawer misses the turn; then " + CH_JUMP
                 + " and " + CH_PAIR),
    RuleCase("CH-W4", C, "P0 red-reverse; P3 wild-draw4 blue; P2 wild-draw4 green; D1 4; P0 green-3; P2 green-3; "
             "P1 green-reverse+green-skip; P3 green-4",
             state={"turn": 0, "direction": 1, "counts": [5, 9, 5, 5]},
             why=CH_W4 + "; then " + CH_JUMP + '; a Reverse and a Skip of one colour laid together ("Активные карты '
                 '(не черного цвета) можно выкидывать две сразу в свой ход, только если они одного цвета")'),
    RuleCase("CH-W4", C, "P0 wild-draw4 blue; P1 wild-draw4 green; P2 wild-draw4 red; P3 wild-draw4 yellow; "
             "D0 8; P1 yellow-3", ("wrong_draw@0:CH-W4",),
             why=CH_W4 + " -- four +4s in a row are still 4, never summed: eight drawn is wrong"),
    RuleCase("CH-D2", C, "P0 red-draw2; P1 red-draw2; P2 red-draw2; P3 red-draw2; D0 8; P1 red-3",
             state={"turn": 2, "counts": [14, 5, 6, 6]},
             why=CH_D2 + ' and "следующий игрок должен будет взять уже 4 карты" -- the chain keeps summing: 8'),
    RuleCase("FA-NOSTACK", F, "P0 red-7; P1 wild-draw4 blue; P2 wild-draw4 green", ("illegal_stack@2:FA-NOSTACK",),
             why='"No house rules, no stacking +2 on +4" and "Wild Draw Four: next player draws four cards, loses '
                 'their turn" -- a +4 on a +4 is stacking too'),
    RuleCase("MA-MATCH", M, "P0 red-draw2; D1 2; P2 red-draw2; D3 2; P0 red-3; P1 red-draw2; D2 2; P3 red-4",
             state={"turn": 0, "counts": [5, 8, 8, 8]},
             why=MA_D2 + " -- Draw Twos that each wait for the draw before them are no stack"),
    RuleCase("OL-D2", OL, "P0 red-reverse; P3 red-draw2; P2 blue-draw2; P3 blue-draw2; D2 6; P2 blue-3; P1 blue-4",
             state={"turn": 0, "direction": -1, "counts": [6, 6, 11, 5]},
             why=OL_D2 + ' "If the player who, at first, was supposed to take the cards has not seen them yet, they '
                 'remain to be taken for the following player" -- seat 3 intercepts the chain in the reversed '
                 'direction, so seat 2 after it draws all six, and plays on'),
    RuleCase("OL-D2-INTERCEPT", OL, "P0 red-reverse; P3 red-draw2; D2 2; P1 red-draw2; D0 2; P0 red-3; P3 red-4",
             state={"turn": 2, "direction": -1, "counts": [7, 6, 9, 5]},
             why='"If they were seen already the following player after the interception needs to draw only 2 cards '
                 'while the first player who has seen his card take them." -- reversed direction: after seat 1 comes '
                 'seat 0'),
    RuleCase("OL-D2", OL, "P0 red-draw2; P1 blue-draw2; D2 4; S2; P3 blue-3; P0 blue-skip; P2 blue-4",
             state={"turn": 3, "counts": [5, 6, 10, 6]},
             why=OL_D2 + " -- having drawn the sum, seat 2 may play or (the digest's default) pass"),

    # ================================================================ the Wild Draw Four challenge
    RuleCase("MA-CHALLENGE", M, f"P0 red-7; P1 wild-draw4 blue; X2; R1 {RED6}; D1 4; P2 blue-3; P3 blue-reverse; "
             "P2 blue-skip; P0 blue-4; P3 blue-5",
             ("illegal_wild_draw4@1/4:MA-W4",), state={"turn": 2, "direction": -1, "counts": [5, 10, 5, 5]},
             why=MA_CH + " The challenger drew nothing and plays on; the game goes round from there."),
    RuleCase("MA-CHALLENGE", M, f"P0 red-reverse; P3 red-7; P2 wild-draw4 blue; X1; R2 {CLEAN6}; D1 6; P0 blue-3; "
             "P3 blue-skip; P1 blue-4",
             ("failed_challenge@1/6:MA-CHALLENGE",), state={"turn": 0, "direction": -1, "counts": [5, 12, 6, 5]},
             why=MA_CH + " " + MA_W4 + " -- reversed direction: seat 1 must draw and may challenge; it draws 6 and "
                 "forfeits the turn, seat 0 plays"),
    RuleCase("MA-CHALLENGE", M, "P0 red-7; P1 wild-draw4 blue; D2 4; P3 blue-3; X2; P0 blue-4",
             state={"turn": 1, "counts": [5, 6, 11, 6]},
             why=MA_CH + " -- the next player drew the four and play went on: there is nothing left to challenge"),
    RuleCase("MA-CHALLENGE", M, f"P0 red-7; P1 wild-draw4 blue; X3; X2; R1 {CLEAN6}; D2 6; P3 blue-3",
             ("failed_challenge@2/6",), state={"turn": 0, "counts": [6, 6, 13, 6]},
             why=MA_CH + " -- seat 3's challenge is no challenge; seat 2's is, and fails"),
    RuleCase("FA-W4", F, f"P0 red-7; P1 wild-draw4 blue; X2; R1 {RED6}; D1 4; P2 blue-draw2; D3 2; P0 blue-3; "
             "P1 blue-skip; P3 blue-4",
             ("illegal_wild_draw4@1/4:FA-W4",), state={"turn": 0, "counts": [5, 9, 6, 8]},
             why=FA_W4 + " " + FA_ACT),
    RuleCase("FA-W4", F, f"P0 red-reverse; P3 wild-draw4 blue; X2; R3 {CLEAN6}; D2 6; P1 blue-3; P0 blue-reverse; "
             "P1 blue-4; P2 blue-5",
             ("failed_challenge@2/6:FA-W4",), state={"turn": 3, "direction": 1, "counts": [5, 5, 12, 6]},
             why=FA_W4 + " -- the wrong challenger also loses the turn the +4 took: seat 1 (next after seat 2 in the "
                 "reversed direction) plays"),
    RuleCase("FA-ACTION", F, "P0 red-7; P1 wild-draw4 blue; S2; +6; D2 4; P3 blue-3", ("wrong_draw@2:FA-ACTION",),
             state={"counts": [6, 6, 11, 6], "turn": 0},
             why=FA_ACT + " -- saying pass instead of drawing the four; the four are still owed (drawn 7 s later: "
                 "not the draw the word came just before, README)"),
    RuleCase("FA-ACTION", F, "P0 red-7; P1 wild-draw4 blue; S2; D2 4; P3 blue-3", (),
             state={"counts": [6, 6, 11, 6], "turn": 0},
             why=FA_ACT + " -- README: a \"pass\" heard a moment before the same seat's draw is that turn's pass "
                 "after drawing (speech decides a word before the camera decides a draw): the four drawn, no flag"),
    RuleCase("OL-W4-CHALLENGE", OL, "P0 red-reverse; P3 red-8; P2 wild-draw4 blue; X1; "
             "R2 red-2,green-3,green-4,blue-1,yellow-9,yellow-8; D2 6; P1 red-3; P0 red-4; P3 red-5; P1 red-6",
             ("illegal_wild_draw4@2/6:OL-W4",),
             state={"turn": 0, "direction": -1, "counts": [5, 5, 13, 5], "top_card": "red-6"},
             why=OL_W4C + " -- the +4 goes back, red-8 is on top again; the challenger plays; seat 2 misses its "
                 "next turn (after seat 3 comes seat 1)"),
    RuleCase("OL-W4-CHALLENGE", OL, "P0 red-reverse; P2 wild-draw4 blue; X1; "
             "R2 green-3,green-4,yellow-1,yellow-2,yellow-9,blue-1; D1 6; P0 blue-3; P2 blue-4",
             ("failed_challenge@1/6:OL-W4-CHALLENGE",), players=3,
             state={"turn": 1, "direction": -1, "counts": [5, 13, 5]},
             why=OL_W4C + " -- three seats, reversed: seat 1 challenged wrongly, draws 6 and (as the +4's target) "
                 "forfeits the turn"),
    RuleCase("OL-W4-CHALLENGE", OL, "P0 red-8; P1 wild-draw4 blue; D2 4; X2; P3 blue-3", state={"turn": 0},
             why=OL_W4C + " -- the four were seen: too late to challenge"),
    RuleCase("OL-W4-CHALLENGE", OL, "P0 red-8; P1 wild-draw4 blue; X3; D2 4; P3 blue-3", state={"turn": 0},
             why='"If the next player suspects the Wild Draw 4 Card was played illegally, she/he can challenge" -- '
                 "only the next player"),

    # ================================================================ drawing
    RuleCase("MA-RENEGE", M, "D0; S0; D1; P1 red-skip; P3 red-3; D0; P0 red-reverse; P3 red-4; P2 red-5",
             state={"turn": 1, "direction": -1, "counts": [8, 7, 6, 5]},
             why='"If playable, that card can be played" (the drawn Skip and Reverse act as played cards); "Otherwise '
                 'play moves to the next person."'),
    RuleCase("MA-DRAW", M, "P0 red-draw2; D1 3; P2 red-3; P3 red-draw2; D0 1; P1 red-4",
             ("wrong_draw@1", "wrong_draw@0"), state={"turn": 2, "counts": [8, 9, 6, 6], "owed": [1, 0, 0, 0]},
             why=MA_D2 + " -- three is too many, one too few; either way the turn is forfeited, and the card "
                         "not drawn is still owed"),
    RuleCase("CH-DRAW", C, "P0 red-3; D1; S1; D2; P2 red-7; P0 red-7; D1; P1 red-8; D2; S2; P3 red-9",
             state={"turn": 0, "counts": [5, 8, 8, 6]},
             why='"игрок берёт одну карту ... Если карта удовлетворяет ... может выложить ... если не удовлетворяет – '
                 'игрок оставляет карту себе, говорит «Пас» и ход переходит к следующему игроку"; ' + CH_JUMP),
    RuleCase("OL-MATCH", OL, "D0; S0; D1; P1 red-draw2; D2 2; S2; D3; P3 red-3; P0 red-4",
             state={"turn": 1, "counts": [7, 7, 9, 7]},
             why='"If you draw a card you could play, you can play it. Otherwise, play moves to the next player." '
                 + OL_D2),
    RuleCase("FA-TURN", F, "D0; S0; D1; P1 red-skip; D3; S3; P0 red-3; D1; P1 red-4; P2 red-5",
             state={"turn": 3, "counts": [7, 7, 6, 8]},
             why='"draw exactly one card from the deck. If the drawn card is playable, you may choose to play it '
                 'immediately or hold it." -- seat 1 plays the drawn Skip (seat 2 skipped), seat 3 holds its card'),
    RuleCase("OL-W4", OL, "P0 red-8; P1 wild-draw4 blue; D2 5; P3 blue-3; P0 blue-4", ("wrong_draw@2/2:OL-W4",),
             state={"turn": 1, "counts": [5, 6, 14, 6]},
             why='"requires the next player to pick 4 cards ... and forfeit his/her turn"; "If someone makes any '
                 'mistake, he/she needs to draw 2 cards." -- five drawn is a mistake; the turn is still forfeited'),

    # ================================================================ 7-0 with the direction reversed
    RuleCase("OL-ZERO", OL, "~5; U0; P0 red-reverse; U3; P3 red-0; U2; P2 red-3",
             state={"hand_winner": 2, "phase": "hand_over"},
             why=OL_ZERO + ' -- counter-clockwise, seat 3\'s last card goes to seat 2, who "has to say UNO when '
                 'receiving the card", plays next and goes out'),
    RuleCase("OL-70-UNO", OL, "~5; U0; P0 red-reverse; U3; P3 red-0; P2 red-3", ("missed_uno@2/2:OL-70-UNO",),
             why='"the person you give your last card to, has to say "UNO" when receiving the card" -- seat 2 did '
                 "not"),
    RuleCase("OL-70-UNO", OL, "~5; U0; P0 red-reverse; U3; P3 red-6; U2; P2 red-8; U1; P1 red-9; P0 red-0",
             state={"hand_winner": 3, "phase": "hand_over"},
             why='"If you play a 0 or a 7 as your last card you will still need to give away the victory" and ' + OL_ZERO
                 + " -- counter-clockwise, seat 0's empty hand goes to seat 3"),
    RuleCase("OL-SEVEN", OL, "P0 red-reverse; P3 red-7 >0; P1 red-7 >3; P0 red-3; P3 red-4",
             state={"turn": 2, "direction": -1, "counts": [5, 6, 7, 5]},
             why=OL_SEVEN + " " + OL_INT + " -- reversed: after the interceptor (seat 1) comes seat 0"),
    RuleCase("OL-ZERO", OL, "P0 red-reverse; P4 red-skip; P2 red-0; P1 red-3", players=5,
             state={"turn": 0, "direction": -1, "counts": [7, 5, 7, 6, 6]},
             why=OL_ZERO + " -- five seats counter-clockwise: seat 3 skipped, seat 2 lays the 0 and passes its six "
                 "cards to seat 1, who plays next"),

    # ================================================================ jump-ins and interceptions
    RuleCase("CH-JUMP", C, "P0 red-7; P3 red-7; P0 red-8; P2 red-8; P3 red-9; P0 red-1",
             state={"turn": 1, "counts": [4, 7, 6, 5]}, why=CH_JUMP),
    RuleCase("CH-JUMP", C, "P0 red-reverse; P3 red-4; P1 red-4; P0 red-5; P2 red-5; P1 red-6", players=4,
             state={"turn": 0, "direction": -1, "counts": [5, 5, 6, 6]},
             why=CH_JUMP + " -- counter-clockwise, the seat after the jumper is the one on its right"),
    RuleCase("CH-PAIR", C, "D0; P1 red-skip+red-skip; P0 red-3", state={"turn": 1, "counts": [7, 5, 7, 7]},
             why=CH_PAIR + " -- seat 0 drew and kept its card; seat 1's pair is laid on seat 1's own turn"),
    RuleCase("OL-INTERCEPT", OL, "D0; P1 red-8+red-8; P2 red-9", state={"turn": 3, "counts": [8, 5, 6, 7]},
             why='"You you have 2 of the same exact card ... you can put them all together" -- seat 0 drew, seat 1 '
                 "has drawn nothing"),
    RuleCase("OL-SKIP", OL, "P0 red-reverse; P3 red-skip; P2 red-skip; P0 red-3; P3 red-4",
             state={"turn": 2, "direction": -1, "counts": [5, 7, 6, 5]},
             why='"You can intercept on a skip card" -- the skipped seat 2 intercepts; the Skip counts from it (seat 1 '
                 "is skipped)"),
    RuleCase("OL-REV", OL, "P0 red-reverse; P1 red-reverse; P2 red-3; P1 red-3", players=3,
             state={"turn": 2, "direction": 1, "counts": [6, 5, 6]},
             why='"The next player will be the person after the player who intercepted, in the direction which '
                 'switches again." then ' + OL_INT),
]

# cases where the engine disagrees with the rulebook text: finding number -> (case, what the engine does)
FINDINGS: list[tuple[int, RuleCase, str]] = [
    (1, RuleCase("MA-DRAW", M, "P0 red-draw2; D1; D1; P2 red-3", state={"turn": 3, "counts": [6, 9, 6, 7]},
                 why=MA_D2 + " -- two cards drawn one after the other are the two cards"),
     "finding 1: a pending Draw Two / Wild Draw Four drawn card by card is flagged twice (wrong count, then drew "
     "out of turn)"),
    (1, RuleCase("OL-W4", OL, "P0 red-8; P1 wild-draw4 blue; D2; D2; D2; D2; P3 blue-3",
                 state={"turn": 0, "counts": [6, 6, 11, 6], "owed": [0, 0, 0, 0]},
                 why='"requires the next player to pick 4 cards from the DRAW pile and forfeit his/her turn"'),
     "finding 1: the four cards of a +4 drawn one by one cost seat 2 a 2-card penalty"),
    (1, RuleCase("CH-D2", C, "P0 red-draw2; P1 blue-draw2; D2 2; D2 2; P3 blue-3",
                 state={"turn": 0, "counts": [6, 6, 11, 6]},
                 why=CH_D2 + ' and "следующий игрок должен будет взять уже 4 карты" -- four cards, in two handfuls'),
     "finding 1: a chain's sum drawn in two handfuls is flagged twice"),
    (3, RuleCase("MA-DRAW", M, "P0 red-draw2; D1; P2 red-3", ("wrong_draw@1",),
                 state={"counts": [6, 9, 6, 7], "owed": [0, 1, 0, 0]},
                 why=MA_D2 + " -- one card drawn of two: the flag is right, but the second card is still owed"),
     "finding 3: after a short draw on a pending Draw Two the card still owed is forgotten (counts 8, owed 0)"),
    (3, RuleCase("OL-W4", OL, "P0 red-8; P1 wild-draw4 blue; D2 2; P3 blue-3; P0 blue-4", ("wrong_draw@2/2:OL-W4",),
                 state={"turn": 1, "counts": [5, 6, 13, 6], "owed": [0, 0, 4, 0]},
                 why='"requires the next player to pick 4 cards from the DRAW pile and forfeit his/her turn"; "If '
                     'someone makes any mistake, he/she needs to draw 2 cards." -- two of four drawn: two more are '
                     'owed, and two for the mistake'),
     "finding 3: after a short draw on a pending +4 the two cards still owed are forgotten (counts 11, owed 2)"),
    (3, RuleCase("CH-W4", C, "P0 wild-draw4 blue; P1 wild-draw4 green; D2 2; P3 green-3", ("wrong_draw@2:CH-W4",),
                 state={"counts": [6, 6, 11, 6], "owed": [0, 0, 2, 0]},
                 why=CH_W4 + " -- two drawn of the four passed on: two are still owed"),
     "finding 3: after a short draw on a passed-on +4 the cards still owed are forgotten (counts 9, owed 0)"),
    (2, RuleCase("OL-D2", OL, "P0 red-draw2; D1 2; P1 red-8+red-8; P2 red-9",
                 state={"turn": 3, "counts": [6, 7, 6, 7]},
                 why=OL_D2 + ' "You you have 2 of the same exact card that can be intercepted you can put them all '
                     'together." -- after drawing the sum the player "can play", from the whole hand'),
     "finding 2: a self-interception pair after drawing a Draw Two's sum is flagged too_many_cards (OL-MATCH)"),
]

CASES += [case for _, case, _ in FINDINGS]


def _param(case: RuleCase) -> object:
    return pytest.param(case, id=f"{case.ruleset}:{case.clause}:{case.steps[:70]}")


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_chain_corner(case: RuleCase) -> None:
    assert case.problems() == [], case.why
