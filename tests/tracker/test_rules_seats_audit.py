"""Tables of every size (stop 64, audit h9): two seats, three, and six to ten, under all four rulesets.

Where the rulebooks treat table size explicitly (two-player Reverse/Skip/Draw Two, 7-0 at two and at ten seats,
starters and the deal passing left at big tables, the deck running out with ten hands of seven, jump-ins and
interceptions at two seats, the UNO window at two seats whose next turn is the caller's own, Falsonal's four-seat
table, ЧемпиУНат's six, scoring with many seats), each case quotes the text that decides it. `CASES` hold; `FINDINGS`
are where the engine disagrees with the text (xfail, strict, until fixed)."""

import pytest

from tracker.engine import replay
from tracker.script import RuleCase, script

C, F, M, OL = "chempiunat", "falsonal", "mattel", "olympic"

# ------------------------------------------------------------------------------------------------ the texts
CH_SKIP = "'«Пропусти ход» – следующий игрок пропускает свой ход' (the next player misses the turn)"
CH_REV = "'«Наоборот» – направление хода меняется на противоположное' (no two-player rule in the text)"
CH_D2 = ("'«Возьми две» – следующий игрок берёт ... две карты ... и пропускает свой ход, при условии что у него нет "
         "такой же карты (любого цвета)... (следующий игрок должен будет взять уже 4 карты)'")
CH_JUMP = ("'В любой момент любой игрок может перебить ход своей картой, если она совпадает по цвету и номиналу с "
           "верхней картой ... следующим ходит игрок сидящий по ходу игры рядом с перебившим ход игроком'")
CH_PAIR = ("'Эти карты можно кидать в свой ход по 2 сразу если они одного цвета. т.е. 2шт красного цвета «наоборот» - "
           "ход продолжается как и шел. 2 пропуска - два человека пропускают ход по ходу игры'")
CH_START = ("'Первая карта должна быть только цифровой! Если вытащили активную - убираете ее в середину и тащите "
            "следующую'")
CH_DEAL = ("'В начале игры каждому раздаётся по 7 карт (в тёмную). Остальные карты кладутся рубашкой вверх – это "
           "колода «Прикуп»'")
CH_UNO = ("'Выкладывая предпоследнюю карту (пока он её ещё не отпустил), игрок должен успеть сказать «УНО!»' and "
          "README: 'where UNO is said while laying (chempiunat, olympic) the penalty keeps it in the hand'")
CH_GAME = "'Каждая игра будет вестись до 500 очков' (six a table: 'Количество игроков за одним столом = 6 человек')"
MA_TWO = ("'Rules for Two Players ... 1. Playing a Reverse card acts like a Skip. The player who plays the Reverse may "
          "immediately play another card. The person playing a Skip card may immediately play another card. When a "
          "Draw Two card is played and your opponent has drawn two cards, the play is back to you.'")
MA_SAFE = ("'A player who forgets to say UNO before his card touches the discard pile, but \"catches\" himself before "
           "any other player catches him, is safe and is not subject to the penalty.'")
MA_BEGIN = ("'you may not catch a player for failure to say UNO after the next player begins his turn. Beginning a "
            "turn is defines as either drawing a card from the DRAW pile or drawing a card from your hand to play.'")
MA_UNO = ("'When you have one card left, you must yell \"UNO\" (meaning one). Failure to do this results in you having "
          "to pick two cards from the DRAW pile. That is, of course if you get caught by the other players.'")
MA_START = ("'Reverse Card - The dealer plays first, but then goes to the right instead of the left.' / 'Draw Two Card "
            "- The player to the left of dealer must pick two cards and then the next player goes' / 'Wild Card - The "
            "player to the left of the dealer calls out a color - then plays.'")
MA_DEALER = ("'CHOOSING A DEALER Each player picks a card. The player who picks the highest number deals.' (the text "
             "names no next dealer; knob dealer_rotates = false)")
MA_TABLE = "'UNO is a card game where two to 10 players compete'"
MA_RESHUFFLE = "'If no one is out of cards by the time the DRAW pile is depleted, reshuffle and continue play.'"
MA_SCORE = ("'When a player is out of cards, he gets points for cards left in the opponent's hands' / 'The WINNER is "
            "the first player to reach 5[00]'")
README_OUT = ("README: 'A seat that legally lays its last card while owing penalty cards it never drew is out under "
              "mattel and falsonal (warned)'")
FA_TABLE = ("'Each table has four players ... and a designated dealer who rotates each round. Cards are shuffled ... "
            "then cut by the player to the dealer's left.'")
FA_ACTION = ("'Skip: the next player loses their turn. Reverse: direction of play flips. In a two-player situation it "
             "acts as a Skip. Draw Two: the next player draws two cards and forfeits their turn.'")
FA_TIMER = ("'You have fifteen seconds to take your turn once the previous player has finished ... We're not strict "
            "about the first warning, but the second time it costs you.'")
FA_START = "'Skip starter? First player loses their turn.'"
FA_WIN = "'The winner of the round receives the total points held by the other three players at the table.'"
FA_MISDEAL = "'If the deck runs out mid-game, shuffle the discard pile (excluding the current top card) and continue.'"
FA_UNO = ("'When you play your second-to-last card, you must say \"UNO\" out loud, clearly, before the next player "
          "begins their turn. If another player or the table referee catches you not calling it in time, you draw two "
          "penalty cards.'")
OL_START = ("'This card is played as the dealers first card played and the possible actions associated with the card "
            "will need to be played' / 'If this card [Reverse] is turned up at the beginning of play, the player to "
            "the right now plays first'")
OL_D2 = "'When you play this card, the next person to play draws 2 cards can play, or plays directly another Draw 2'"
OL_ZERO = ("'When you play a 0 of any color, each player needs to pass all his cards to the following player in the "
           "current direction of the play.'")
OL_SEVEN = ("'When you play a 7 of any color, you must exchange all your cards with a player of your choice. You need "
            "to designate the player before you release your hand for the card 7 you just played.'")
OL_70_LAST = ("'If you play a 0 or a 7 as your last card you will still need to give away the victory against another "
              "players' cards.' / 'If you play a 0 or a 7 as last card you are giving the victory to someone else'")
OL_SKIP = ("'More than one skip card can be played at the same time if they are of the same colour, the number cards "
           "played is the number of player next in sequence to miss a turn.'")
OL_INTERCEPT = ("'At anytime of the game if you have the exact same card as the one on top of the DISCARD pile, you "
                "can play your card and intercept the current play. The following player after you will need to "
                "play.'")
OL_W4C = "'If the challenged player is guilty, she/he must draw 6 cards and miss his turn (taking the Wild Draw 4 back)'"
OL_DEALER = "'The dealer changes to the player on the left of the previous dealer.'"
OL_RESTOCK = ("'If the DRAW pile runs out take the DISCARD pile minus the last card play, and make that your new DRAW "
              "pile, without mixing the cards.'")
OL_GOAL = ("'The aim of the game is to have the lowest score when one of the player's score reaches 500 points ... all "
           "other player score points for the card still help in their hands'")

# ten seats of seven: 70 dealt, the starter turned, 37 left to draw. Each seat lays one number card (10 on the discard
# pile with the starter: 11), then draws and passes 38 times: the 38th draw finds the pile empty, and the discard pile
# minus its top card (10) becomes the new pile: 9 left.
TEN_PLAYS = "; ".join(f"P{i} {c}" for i, c in enumerate(
    ["red-1", "red-2", "red-3", "red-4", "red-6", "red-8", "red-9", "red-1", "red-2", "red-3"]))
TEN_DRAWS = "; ".join(f"D{k % 10}; S{k % 10}" for k in range(38))
RESTOCK_TEN = f"{TEN_PLAYS}; {TEN_DRAWS}"
RESTOCK_STATE = {"draw_pile": 9, "discard_pile": 1, "counts": [10] * 8 + [9, 9], "turn": 8, "top_card": "red-3"}
# Falsonal's four seats: 28 dealt, 79 left after the starter; one card each laid (discard 5), 80 draws: 79 + 4 - 80 = 3
FOUR_DRAWS = "; ".join(f"D{k % 4}; S{k % 4}" for k in range(80))
GUILTY6 = "red-2,green-3,green-4,blue-1,blue-2,yellow-9"  # a red card in hand: against MA-W4 / FA-W4 / OL-W4

CASES = [
    # ================================================================ two seats: ЧемпиУНат (no two-player rule)
    RuleCase("CH-SKIP", C, "H1; T red-5; P0 red-skip; P0 red-3", players=2, state={"turn": 1, "counts": [5, 7]},
             why=CH_SKIP + " -- two seats: the skipped player is the only other one, the layer plays again"),
    RuleCase("CH-REV", C, "H1; T red-5; P0 red-reverse; P0 red-3", ("out_of_turn@0:CH-ORDER",), players=2,
             why=CH_REV + " -- a flipped direction at two seats still hands the turn to the other player"),
    RuleCase("CH-D2", C, "H1; T red-5; P0 red-draw2; P1 blue-draw2; D0 4; P1 blue-3", players=2,
             state={"turn": 0, "counts": [10, 5], "pending_draw": 0},
             why=CH_D2 + " -- two seats: the chain comes back to the first layer, who draws 4 and misses the turn"),
    RuleCase("CH-JUMP", C, "H1; T red-5; P0 red-3; P0 red-3; P1 red-4", players=2,
             state={"turn": 0, "counts": [5, 6]},
             why=CH_JUMP + " -- 'любой игрок' includes the one who laid the card: at two seats the player next to the "
                 "jumper is the opponent again"),
    RuleCase("CH-UNO", C, "H1; T red-5; ~5; P0 red-skip; +3; P0 red-3", ("missed_uno@0/2:CH-UNO",), players=2,
             state={"phase": "playing", "hand_winner": None, "owed": [2, 0]},
             why=CH_UNO + " -- the Skip at two seats gives the turn back, but the call was due as the Skip was laid"),
    RuleCase("CH-PAIR", C, "H1; T red-5; P0 red-draw2+red-draw2; D1 4; P0 red-3", players=2,
             state={"turn": 1, "counts": [4, 11]},
             why=CH_PAIR + " and " + CH_D2 + " -- two Draw Twos laid together add up; the opponent draws 4"),
    # ================================================================ two seats: Mattel and Falsonal (MA-TWO, FA-ACTION)
    RuleCase("MA-TWO", M, "H1; T red-5; ~5; P0 red-skip; U0; P0 red-3", players=2,
             state={"hand_winner": 0, "phase": "hand_over"},
             why=MA_TWO + " " + MA_SAFE + " -- nobody caught seat 0 before its own next turn; it called and went out"),
    RuleCase("MA-UNO", M, "H1; T red-5; ~5; P0 red-skip; D0; P0 red-3", ("missed_uno@0/2:MA-UNO",), players=2,
             state={"counts": [3, 2], "owed": [2, 0], "turn": 1},
             why=MA_TWO + " " + MA_BEGIN + " -- at two seats the next player to begin a turn after a Skip is seat 0 "
                 "itself: drawing one card from the DRAW pile begins it, the window is shut"),
    RuleCase("MA-TWO", M, "H1; T red-5; ~5; P0 red-draw2; D1 2; P0 red-3", ("missed_uno@0/2:MA-UNO",), players=2,
             state={"hand_winner": 0, "counts": [0, 4]},
             why=MA_TWO + " " + MA_BEGIN + " -- the opponent drawing the two began its turn; the play came back to "
                 "seat 0, who went out: " + README_OUT),
    RuleCase("MA-START", M, "H1; T wild; C0 blue; P0 blue-3; P1 blue-4", players=2,
             state={"turn": 0, "color": "blue"},
             why=MA_START + " -- two seats: the player left of the dealer names the colour and plays first"),
    RuleCase("FA-ACTION", F, "H1; T red-5; P0 red-draw2; D1 2; P0 red-3", players=2, state={"turn": 1, "counts": [5, 9]},
             why=FA_ACTION + " and 'we use the official Mattel ruleset, full stop': " + MA_TWO),
    RuleCase("FA-TIMER", F, "H1; T red-5; P0 red-skip; +16; P0 red-3; P1 red-4", ("turn_timeout@0/0:FA-TIMER",),
             players=2, state={"turn": 0},
             why=FA_TIMER + " -- after a Skip at two seats the player's next turn begins as the Skip is laid"),
    RuleCase("FA-TIMER", F, "H1; T red-5; +16; P0 red-skip; +16; P0 red-3", ("turn_timeout@0/0:FA-TIMER",
             "turn_timeout@0/1:FA-TIMER", "out_of_turn@0:FA-DEAL"), players=2, state={"turn": 1, "counts": [6, 7], "owed": [1, 0]},
             why=FA_TIMER + " -- the second overrun (the Skip's own next turn) costs a card and ends the turn: the "
                 "other seat's turn, so the late card is out of turn"),
    # ================================================================ two seats: Olympic (no two-player rule)
    RuleCase("OL-SEVEN", OL, "H1; T red-5; P0 red-7 >1; P1 red-3", players=2, state={"counts": [7, 5], "turn": 0},
             why=OL_SEVEN + " -- named: the two hands are exchanged"),
    RuleCase("OL-START", OL, "H1; T red-7 >0; P0 red-3", players=2, state={"counts": [6, 7], "turn": 1},
             why=OL_START + " " + OL_SEVEN + " -- the dealer's turned 7 names seat 0: two hands of seven exchanged"),
    RuleCase("OL-START", OL, "H1; T red-draw2; D0 2; P0 red-3", players=2, state={"counts": [8, 7], "turn": 1},
             why=OL_START + " " + OL_D2 + " -- two seats: seat 0 draws the starter's two and plays on"),
    RuleCase("OL-INTERCEPT", OL, "H1; T red-5; P0 red-3; P0 red-3; P1 red-4", players=2,
             state={"turn": 0, "counts": [5, 6]},
             why=OL_INTERCEPT + " -- the only seat after the interceptor is the opponent"),
    RuleCase("OL-ZERO", OL, "H1; T red-5; P0 red-reverse; P1 red-0; P0 red-3", players=2,
             state={"counts": [5, 6], "direction": -1, "turn": 1},
             why=OL_ZERO + " -- two seats, reversed: seat 1's six go to seat 0, seat 0's six to seat 1"),
    # ================================================================ three seats
    RuleCase("MA-START", M, "H2; T red-reverse; P2 red-3; P1 red-4", players=3, state={"turn": 0, "direction": -1},
             why=MA_START + " -- three seats: the dealer (2) first, then to the right: 1, then 0"),
    RuleCase("FA-START", F, "H2; T red-skip; P1 red-3", players=3, state={"turn": 2},
             why=FA_START + " -- seat 0, left of the dealer, is skipped; seat 1 starts"),
    RuleCase("OL-START", OL, "H2; T red-reverse; P1 red-3; P0 red-4", players=3, state={"turn": 2, "direction": -1},
             why=OL_START + " -- three seats: the dealer's right is seat 1"),
    RuleCase("CH-PAIR", C, "P0 red-reverse+red-reverse; P1 red-3", players=3, state={"turn": 2, "direction": 1},
             why=CH_PAIR + " -- two Reverses: direction unchanged"),
    RuleCase("CH-D2", C, "P0 red-draw2; P1 red-draw2; P2 blue-draw2; D0 6; P1 blue-3", players=3,
             state={"turn": 2, "counts": [12, 5, 6]},
             why=CH_D2 + " -- three seats: the chain wraps to seat 0, who draws 6 and misses the turn"),
    RuleCase("OL-SEVEN", OL, "P0 red-7 >2; P1 red-3", players=3, state={"counts": [7, 6, 6], "turn": 2},
             why=OL_SEVEN),
    RuleCase("OL-ZERO", OL, "P0 red-reverse; P2 red-0; P1 red-3", players=3,
             state={"counts": [7, 5, 6], "direction": -1, "turn": 0},
             why=OL_ZERO + " -- three seats counter-clockwise: 2's hand to 1, 1's to 0, 0's to 2"),
    RuleCase("OL-W4-CHALLENGE", OL, f"P0 wild-draw4 blue; X1; R0 {GUILTY6}; D0 6; P1 red-3; P2 red-4; P1 red-6",
             ("illegal_wild_draw4@0/6:OL-W4",), players=3, state={"counts": [13, 5, 6], "turn": 2},
             why=OL_W4C + " -- three seats: after seat 2, seat 0's turn is missed and seat 1 plays again"),
    # ================================================================ six to ten seats: starters
    RuleCase("MA-START", M, "H5; T red-reverse; P5 red-3; P4 red-4", players=6, state={"turn": 3, "direction": -1},
             why=MA_START + " -- six seats"),
    RuleCase("MA-START", M, "H5; T red-draw2; D0 2; P1 red-3", players=6, state={"turn": 2, "counts": [9, 6, 7, 7, 7, 7]},
             why=MA_START + " -- six seats: the dealer is seat 5, its left is seat 0 (wrapping round)"),
    RuleCase("MA-START", M, "H4; T red-reverse; P4 red-3; P3 red-4", players=10, state={"turn": 2, "direction": -1},
             why=MA_START + " -- ten seats, a dealer mid-table"),
    RuleCase("OL-START", OL, "H5; T red-reverse; P4 red-3", players=6, state={"turn": 3, "direction": -1},
             why=OL_START + " -- six seats"),
    RuleCase("OL-START", OL, "H3; T red-draw2; D4 2; P4 red-3; P5 red-4", players=10,
             state={"turn": 6, "counts": [7, 7, 7, 7, 8, 6, 7, 7, 7, 7]},
             why=OL_START + " " + OL_D2 + " -- ten seats: the player after the dealer draws and plays on"),
    RuleCase("CH-START", C, "H9; T red-skip; T wild; T red-draw2; T red-5; P0 red-3", players=10,
             state={"turn": 1, "draw_pile": 37, "discard_pile": 2},
             why=CH_START + " -- ten seats: three returned into the pile, the pile keeps its 37"),
    RuleCase("CH-DEAL", C, "H9; T red-5", players=10, state={"counts": [7] * 10, "draw_pile": 37, "turn": 0},
             why=CH_DEAL + " -- ten seats: 108 - 70 - the turned card"),
    # ================================================================ six to ten seats: the deal passing left
    RuleCase("OL-DEALER", OL, "H9; T red-5; P0 red-1; H0; T red-5; P1 red-2; H1; T red-5; P2 red-3", players=10,
             state={"dealer": 1, "turn": 3, "hand": 3},
             why=OL_DEALER + " -- ten seats: seat 9's left is seat 0"),
    RuleCase("OL-DEALER", OL, "H9; T red-5; P0 red-1; H8; T red-5", ("wrong_dealer@8:OL-DEALER",), players=10,
             why=OL_DEALER + " -- seat 8 is seat 9's right"),
    RuleCase("MA-DEALER", M, "H9; T red-5; P0 red-1; H4; T red-5", players=10, state={"dealer": 4, "turn": 5},
             why=MA_DEALER),
    RuleCase("FA-TABLE", F, "H3; T red-5; P0 red-1; H0; T red-5; P1 red-2; H1; T red-5; P2 red-2; H2; T red-5; "
             "P3 red-2; H3; T red-5", state={"dealer": 3, "turn": 0, "hand": 5},
             why=FA_TABLE + " -- the deal goes once round the four seats and back to seat 3"),
    RuleCase("CH-ORDER", C, "H5; T red-5; P0 red-1; H0; T red-5; P1 red-2; H1; T red-5", players=6,
             state={"dealer": 1, "turn": 2},
             why="'Первым ходит игрок после раздающего (раздающий каждый тур меняется, обычно по часовой стрелке)' -- "
                 "six seats: clockwise from 5 to 0 to 1"),
    # ================================================================ six to ten seats: play
    RuleCase("OL-SEVEN", OL, "P0 red-7 >9; P1 red-0", players=10, state={"counts": [6, 7, 6] + [7] * 7, "turn": 2},
             why=OL_SEVEN + " then " + OL_ZERO + " -- ten seats: seat 0 swaps with seat 9, then every hand moves one "
                 "seat clockwise"),
    RuleCase("OL-ZERO", OL, "P0 red-reverse; P9 red-7 >1; P8 red-0", players=10,
             state={"counts": [6, 7, 7, 7, 7, 7, 7, 6, 7, 6], "turn": 7, "direction": -1},
             why=OL_SEVEN + " then " + OL_ZERO + " -- ten seats counter-clockwise"),
    RuleCase("OL-SKIP", OL, "P0 red-skip+red-skip; P3 red-3", players=10, state={"turn": 4},
             why=OL_SKIP + " -- ten seats: seats 1 and 2 miss a turn"),
    RuleCase("OL-W4-CHALLENGE", OL, f"P0 red-reverse; P9 wild-draw4 blue; X8; R9 {GUILTY6}; D9 6; P8 red-3; P7 red-4; "
             "P6 red-6; P5 red-2; P4 red-3; P3 red-4; P2 red-6; P1 red-2; P0 red-3; P8 red-4",
             ("illegal_wild_draw4@9/6:OL-W4",), players=10, state={"turn": 7, "counts": [5, 6, 6, 6, 6, 6, 6, 6, 5, 13]},
             why=OL_W4C + " -- ten seats counter-clockwise: the round comes back past seat 9 to seat 8"),
    RuleCase("CH-JUMP", C, "P0 red-reverse; P9 red-3; P4 red-3; P3 red-4", players=10,
             state={"turn": 2, "direction": -1, "counts": [6, 7, 7, 6, 6, 7, 7, 7, 7, 6]},
             why=CH_JUMP + " -- ten seats counter-clockwise: after seat 4 jumps in, seat 3 plays"),
    RuleCase("CH-PAIR", C, "P0 red-reverse; P9 red-skip+red-skip; P6 red-3", players=10,
             state={"turn": 5, "direction": -1},
             why=CH_PAIR + " -- ten seats counter-clockwise: seats 8 and 7 miss their turns"),
    # ================================================================ the deck running out with ten hands of seven
    RuleCase("MA-RESHUFFLE", M, RESTOCK_TEN, players=10, state=RESTOCK_STATE, why=MA_TABLE + " " + MA_RESHUFFLE),
    RuleCase("OL-RESTOCK", OL, RESTOCK_TEN, players=10, state=RESTOCK_STATE, why=OL_RESTOCK),
    RuleCase("CH-DRAW", C, RESTOCK_TEN, players=10, state=RESTOCK_STATE,
             why="'При отсутствии подходящий карты игрок берёт одну карту из колоды «Прикуп» ... говорит «Пас»' -- "
                 "ten seats draw the pile dry; the text is silent on restocking (knob restock = shuffle)"),
    RuleCase("FA-MISDEAL", F, f"P0 red-1; P1 red-2; P2 red-3; P3 red-4; {FOUR_DRAWS}",
             state={"draw_pile": 3, "discard_pile": 1, "counts": [26] * 4, "turn": 0},
             why=FA_MISDEAL + " -- Falsonal's four seats: 79 left after the deal, 80 drawn"),
    # ================================================================ scoring with many seats
    RuleCase("CH-GAME", C, "H5; T red-5; ~6; P0 red-1; R1 red-9; R2 wild; R3 blue-skip; R4 green-0; R5 yellow-7",
             players=6, scores={"hands": [[86, 0, 0, 0, 0, 0]], "winner": None},
             why=CH_GAME + " -- the winner takes the other five hands"),
    RuleCase("FA-WIN", F, "H3; T red-5; ~6; P0 red-1; R1 red-9; R2 wild; R3 blue-skip",
             scores={"hands": [[79, 0, 0, 0]], "totals": [79, 0, 0, 0]}, why=FA_WIN),
    RuleCase("MA-SCORE", M, "H9; T red-5; ~6; P0 red-1; R1 red-9; R2 wild; R3 blue-skip; R4 green-0; R5 wild-draw4; "
             "R6 yellow-7; R7 red-reverse; R8 red-3; R9 blue-2", players=10, target=150,
             scores={"hands": [[161] + [0] * 9], "winner": 0, "over": True},
             why=MA_SCORE + " -- ten seats: nine hands, 161 points, past a target of 150"),
    RuleCase("OL-GOAL", OL, "H9; T red-5; ~6; P0 red-1; R1 red-9; R2 wild; R3 blue-skip; R4 green-0; R5 wild-draw4; "
             "R6 yellow-7; R7 red-reverse; R8 red-3; R9 blue-2", players=10, target=50,
             scores={"hands": [[0, 9, 50, 20, 0, 50, 7, 20, 3, 2]], "winner": None, "over": True},
             why=OL_GOAL + " -- ten seats: seats 0 and 4 level on 0 when seats 2 and 5 reach 50: no winner ('Remember "
                 "finishing the game (going out) get you the same number of points (0) than someone who has still a "
                 "couple of 0 cards in hand'; OL-GOAL names no tie-break; README: 'over: ... or level')"),
    RuleCase("OL-GOAL", OL, "H5; T red-5; ~6; P0 red-1; R1 red-9; R2 wild; R3 blue-skip; R4 wild; R5 wild",
             players=6, target=50, scores={"hands": [[0, 9, 50, 20, 50, 50]], "winner": 0, "over": True},
             why=OL_GOAL + " -- six seats"),
]

# ------------------------------------------------------------------------------------------------ findings
# A seat sitting on one uncalled card (Mattel / Falsonal: the window stays open until the next turn begins) whose
# opponent catches it. The other seats hold four, so their "UNO" is no call of their own.
TWO_CAUGHT = "H1; T red-5; ~4; P0 red-1; D1; S1; P0 red-skip"  # two seats: seat 0 on one card, its own turn again
FOUR_CAUGHT = "~4; P0 red-1; D1; S1; D2; S2; D3; S3; P0 red-6"  # four seats: seat 0 on one card, seat 1's turn

FINDINGS = [
    # finding 1 (below, as functions): an Olympic 7 at two seats with no seat named swaps nothing
    # finding 2: the caught seat's penalty draw is read as a turn's draw (or an out-of-turn draw) and charged again
    (2, RuleCase("MA-UNO", M, f"{TWO_CAUGHT}; U1; D0 2; P0 red-3", ("missed_uno@0/2:MA-UNO",), players=2,
                 state={"counts": [2, 4], "owed": [0, 0], "turn": 1},
                 why=MA_UNO + " " + MA_TWO + " -- seat 1 catches seat 0 after the Skip; seat 0 draws its two "
                     "penalty cards and then plays its turn: two cards drawn for one missed call, no wrong draw"),
     "finding 2: the two penalty cards are read as seat 0's turn draw (wrong_draw) and 2 more stay owed"),
    (2, RuleCase("FA-UNO", F, f"{TWO_CAUGHT}; U1; D0 2; P0 red-3", ("missed_uno@0/2:FA-UNO",), players=2,
                 state={"counts": [2, 4], "owed": [0, 0], "turn": 1},
                 why=FA_UNO + " " + FA_ACTION + " -- two seats: the catch is paid with two cards, once"),
     "finding 2: the two penalty cards are read as seat 0's turn draw (wrong_draw) and 2 more stay owed"),
    (2, RuleCase("MA-UNO", M, f"{FOUR_CAUGHT}; U2; D0 2; P1 red-8", ("missed_uno@0/2:MA-UNO",),
                 state={"counts": [3, 3, 4, 4], "owed": [0, 0, 0, 0], "turn": 2},
                 why=MA_UNO + " -- seat 2 catches seat 0 before seat 1 begins its turn; seat 0 draws two"),
     "finding 2: four seats: the penalty draw is flagged wrong_draw (out of turn) and 2 more are charged later"),
    (2, RuleCase("FA-UNO", F, f"{FOUR_CAUGHT}; U2; D0 2; P1 red-8", ("missed_uno@0/2:FA-UNO",),
                 state={"counts": [3, 3, 4, 4], "owed": [0, 0, 0, 0], "turn": 2},
                 why=FA_UNO + " -- 'you draw two penalty cards', once"),
     "finding 2: four seats: the penalty draw is flagged wrong_draw (out of turn) and 2 more are charged later"),
    # finding 3: a catch by another seat does not settle the missed call: a later call of the caught seat saves it
    (3, RuleCase("MA-UNO", M, f"{TWO_CAUGHT}; U1; U0; P0 red-3", ("missed_uno@0/2:MA-UNO",), players=2,
                 why=MA_SAFE + " -- seat 1 (four cards) caught seat 0 first; seat 0's own UNO after it is too late"),
     "finding 3: seat 0's UNO after seat 1's catch closes the window: no missed_uno"),
    (3, RuleCase("MA-UNO", M, f"{FOUR_CAUGHT}; U2; U0; P1 red-8", ("missed_uno@0/2:MA-UNO",),
                 why=MA_SAFE + " -- four seats: seat 2 caught seat 0 before seat 0 caught itself"),
     "finding 3: seat 0's UNO after seat 2's catch closes the window: no missed_uno"),
    # finding 4: a ЧемпиУНат pair of a Draw Two and a Skip / Reverse loses the Draw Two, or gives it to its layer
    (4, RuleCase("CH-PAIR", C, "P0 red-draw2+red-skip", state={"pending_draw": 2},
                 why=CH_PAIR + " (the only condition: the same colour) and " + CH_D2 + " -- the Draw Two laid in the "
                     "pair still makes a player draw two"),
     "finding 4: a Draw Two under a Skip in one pair is dropped (pending_draw 0)"),
    (4, RuleCase("CH-PAIR", C, "H1; T red-5; P0 red-draw2+red-reverse; D1 2", players=2, state={"counts": [5, 9]},
                 why=CH_PAIR + " and " + CH_D2 + " -- two seats: the opponent draws the two"),
     "finding 4: a Draw Two under a Reverse is dropped: seat 1's two cards are flagged wrong_draw"),
    (4, RuleCase("CH-PAIR", C, "H1; T red-5; P0 red-skip+red-draw2; D1 2", players=2, state={"counts": [5, 9]},
                 why=CH_PAIR + " and " + CH_D2 + " -- two seats: whoever draws, it is not the player who laid it"),
     "finding 4: at two seats the Skip under the Draw Two brings the Draw Two back to its own layer"),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=f"{c.ruleset}:{c.players}:{c.clause}:{c.steps[:60]}")
                                  for c in CASES])
def test_seats_audit(case: RuleCase) -> None:
    assert case.problems() == [], case.why


FIXED: set[int] = {2, 3, 4}  # findings fixed since this audit: their cases then hold as ordinary cases


@pytest.mark.parametrize("case", [
    pytest.param(case, id=f"finding {n}: {case.ruleset}:{case.players}:{case.steps[-40:]}",
                 marks=() if n in FIXED else pytest.mark.xfail(strict=True, reason=reason))
    for n, case, reason in FINDINGS])
def test_seats_finding(case: RuleCase) -> None:
    assert case.problems() == [], case.why


def _held(steps: str, players: int) -> tuple[list[int], object]:
    r = replay(script(OL, steps, players=players))
    s = r.state
    return [c - o for c, o in zip(s.counts, s.owed, strict=True)], s


def test_olympic_seven_at_two_seats_swaps_with_the_only_other_seat() -> None:
    """OL-SEVEN: "When you play a 7 of any color, you must exchange all your cards with a player of your choice." At two
    seats there is one choice: the hands are exchanged even when the log names no target (whether not naming it is
    also a mistake, no_target, is left open here). Seat 0 lays its 7 from seven cards: it receives seat 1's seven and
    seat 1 its six."""
    held, _ = _held("H1; T red-5; P0 red-7", 2)
    assert held == [7, 6], OL_SEVEN


def test_olympic_last_card_seven_at_two_seats_gives_the_hand_away() -> None:
    """OL-70-UNO: "If you play a 0 or a 7 as your last card you will still need to give away the victory against
    another players' cards." At two seats the other player is the only one: seat 0's last card, a 7, hands seat 1 an
    empty hand, and seat 1 wins the hand."""
    _, s = _held("H1; T red-5; ~6; P0 red-7", 2)
    assert (s.phase, s.hand_winner) == ("hand_over", 1), OL_70_LAST


def test_olympic_seven_at_three_seats_with_no_target_is_flagged() -> None:
    """OL-SEVEN "You need to designate the player before you release your hand": at three seats the partner is a
    choice, so a 7 with none named can't be carried out: no_target (README's extension flag), and no hands move."""
    held, s = _held("H2; T red-5; P0 red-7", 3)
    assert [(f.code, f.seat, f.rule) for f in s.flags] == [("no_target", 0, "OL-SEVEN")]
    assert held == [6, 7, 7]


@pytest.mark.parametrize("ruleset,players,warned", [
    (F, 4, False), (F, 2, False), (F, 5, True), (C, 6, False), (C, 10, False), (M, 10, False), (M, 11, True),
    (OL, 10, False)])
def test_table_sizes_each_ruleset_seats(ruleset: str, players: int, warned: bool) -> None:
    """FA-TABLE "Each table has four players" (FA-ACTION's "two-player situation" keeps 2 and 3 legal: a player
    ejected under FA-CONDUCT leaves the table short); MA-TABLE "two to 10 players"; OL: any number up to a deck's 10
    (*default* 2-10); CH-TABLE's 6 is the tournament's seating, not a limit on a table (README: the tournament page
    proposes tables of at most 6). More seats than the ruleset's limit is warned, never refused."""
    r = replay(script(ruleset, f"H{players - 1}; T red-5; P0 red-3", players=players))
    assert any("this match has" in w for w in r.state.warnings) == warned
    assert r.state.turn == 1 and r.flags == []
