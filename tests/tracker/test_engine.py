"""The engine as a fold: purity, replay determinism, corrections, rulings and seats the senses couldn't name."""

from tracker.engine import Game, evolve, replay
from tracker.script import script
from tracker.simulate import SimConfig, simulate_match


def test_evolve_is_pure() -> None:
    events = script("mattel", "H3; T red-5; P0 red-7")
    game = Game()
    for ev in events[:-1]:
        game.apply(ev)
    before = game.state.to_dict()
    after = evolve(game.state, events[-1])
    assert game.state.to_dict() == before
    assert after.to_dict()["top_card"] == "red-7" and before["top_card"] == "red-5"


def test_state_is_the_fold_of_the_log() -> None:  # evolve, one event at a time, copying the state
    sim = simulate_match(SimConfig(ruleset="olympic", players=5, seed=3, max_hands=1))
    game = Game()
    state = game.state
    for ev in sim.events:
        state = evolve(state, ev)
    assert state.to_dict() == replay(sim.events).state.to_dict()


def test_the_same_log_gives_the_same_flag_ids() -> None:
    sim = simulate_match(SimConfig(ruleset="falsonal", players=4, seed=11, rate=0.1, max_hands=2))
    a = [f.to_dict() for f in replay(sim.events).flags]
    b = [f.to_dict() for f in replay(list(sim.events)).flags]
    assert a == b and len({f["id"] for f in a}) == len(a)


def test_an_unattributed_play_goes_to_the_seat_whose_turn_it_is() -> None:
    r = replay(script("mattel", "H3; T red-5; P0 red-7; P? red-8"))
    state = r.state.to_dict()
    assert state["last_play"]["seat"] == 1 and state["last_play"]["inferred"] is True
    assert state["inferred_lines"] == [5] and state["turn"] == 2 and r.flags == []


def test_a_correction_replaces_what_a_sense_got_wrong_and_a_later_one_wins() -> None:
    r = replay(script("mattel", "H3; T red-5; P0 blue-9; !fix 4 P0 red-9; !fix 4 P0 green-9"))
    assert [f.code for f in r.flags] == ["illegal_card"] and r.flags[0].line == 4
    r = replay(script("mattel", "H3; T red-5; P0 blue-9; !fix 4 P0 red-9"))
    assert r.flags == [] and r.state.top is not None and r.state.top.code == "red-9"


def test_striking_a_correction_restores_the_original() -> None:
    r = replay(script("mattel", "H3; T red-5; P0 blue-9; !fix 4 P0 red-9; !fix 5 -"))
    assert [f.code for f in r.flags] == ["illegal_card"]


def test_rulings_mark_flags_and_dismissal_takes_the_penalty_back() -> None:
    r = replay(script("olympic", "H3; T red-5; P2 red-8; !dis 4-out_of_turn-2"))
    (flag,) = r.flags
    assert flag.status == "dismissed" and flag.penalty == 2
    assert r.state.counts == [7, 7, 6, 7]
    r = replay(script("olympic", "H3; T red-5; P2 red-8; !dis 4-out_of_turn-2; !up 4-out_of_turn-2"))
    assert r.flags[0].status == "upheld" and r.state.counts == [7, 7, 8, 7]


def test_a_ruling_on_an_unknown_flag_is_a_warning_not_a_crash() -> None:
    r = replay(script("mattel", "H3; T red-5; !up 99-missed_uno-0"))
    assert "unknown flag" in r.state.warnings[0]


def test_json_shape_of_a_replay() -> None:
    out = replay(script("olympic", "H3; T red-5; ~6; P0 red-1; R1 red-9; R2 wild; R3 blue-skip")).to_json()
    assert set(out) == {"flags", "state", "scores"}
    assert out["scores"]["hands"] == [[0, 9, 50, 20]] and out["scores"]["totals"] == [0, 9, 50, 20]
    assert out["scores"]["winner"] is None
    for key in ("turn", "direction", "top_card", "color", "pending_draw", "counts"):
        assert key in out["state"]


def test_the_ruleset_argument_overrides_the_log() -> None:
    events = script("mattel", "H3; T red-5; P0 red-7; P2 red-7")
    assert [f.code for f in replay(events).flags] == ["illegal_jump_in"]
    assert replay(events, "chempiunat").flags == []


def test_a_flag_on_an_unattributed_play_says_the_seat_was_inferred() -> None:
    r = replay(script("olympic", "H3; T red-5; P0 red-8; P? blue-9"))
    assert [(f.code, f.seat) for f in r.flags] == [("illegal_card", 1)]
    assert "No sense saw who laid it" in r.flags[0].message


def test_events_before_match_start_and_corrections_of_blank_lines_are_warnings() -> None:
    from tracker.log import parse_event

    early = parse_event({"t": 0, "type": "uno", "seat": 0}, 1)
    events = [early, *script("mattel", "H3; T red-5; P0 red-7")]
    for i, ev in enumerate(events, start=1):
        object.__setattr__(ev, "line", i)
    events.append(parse_event({"t": 9, "type": "correction", "line": 99 - 90, "event": None}, 12))
    r = replay(events)
    assert any("uno event before match_start" in w for w in r.state.warnings)
    assert any("correction of line 9, which holds no event" in w for w in r.state.warnings)


def test_a_correction_written_later_keeps_the_event_at_its_own_moment() -> None:
    # the referee fixes seat 0's card half a minute later: no turn timer may fire on seat 0 for it (FA-TIMER)
    r = replay(script("falsonal", "H3; T red-5; P0 red-7; P1 red-9; P2 red-3; +30; !fix 4 P0 red-8"))
    assert [(f.code, f.seat) for f in r.flags] == [("turn_timeout", 3)]  # seat 3 really waited 30 s
    assert r.state.to_dict()["counts"][0] == 6
