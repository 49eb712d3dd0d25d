"""Stop 57: the real-digits line of models/candidates/kws_noloan_s57/plan.txt, read from digits_words.py's output.
A candidate passes when it fires on the real spoken digits at most as often as the shipped card (the ship rule's
own criterion, checked before a test seed is spent). Prints PASS or STOP with both counts; exits 1 on STOP.
    digits_verdict.py DIGITS_WORDS.jsonl CAND_NAME        (the shipped card's row is named SHIP)"""
import json
import sys

fires = {r["name"]: r["fires"] for r in map(json.loads, open(sys.argv[1]))}
ok = fires[sys.argv[2]] <= fires["SHIP"]
print("PASS" if ok else "STOP", "real digits fires", fires)
sys.exit(0 if ok else 1)
