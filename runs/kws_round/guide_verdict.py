"""Stop 55: the her-guide lines of models/candidates/kws_fix_s55/plan.txt, read from aside53.py's scores. A
candidate passes when its 10 dB recall on her is at most 5 points below the shipped card's and its alarms on her
talk at most 25% above. Prints PASS or STOP with the four figures; exits 1 on STOP.
    guide_verdict.py SCORES.jsonl CAND_NAME        (the shipped card's row is named SHIP)"""
import json
import sys

rows = {r["name"]: r for r in map(json.loads, open(sys.argv[1]))}
s, c = rows["SHIP"], rows[sys.argv[2]]
ok = c["10dB"]["recall"] >= s["10dB"]["recall"] - 0.05 and c["talk_fa_per_hour"] <= 1.25 * s["talk_fa_per_hour"]
print("PASS" if ok else "STOP", s["10dB"]["recall"], c["10dB"]["recall"], s["talk_fa_per_hour"], c["talk_fa_per_hour"])
sys.exit(0 if ok else 1)
