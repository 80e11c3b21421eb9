#!/usr/bin/python3
"""resume_scenes.py DIR: writes the two scenes that resume.sh and record_stride.sh run to
DIR: pile.json, the pile of 10 boxes on PGS (tol 1e-6, warm start) with sleeping and a box
thrown up at 8 m/s that falls back on it and wakes it at step 169 (the pile sleeps from
step ~45, all of it again from ~180); jt.json, the double pendulum of
data/double_pendulum.json with box links, its tip on a 0.25 m rope to a world point and a
floor it swings onto."""
import json
import sys

d = sys.argv[1]
s = json.load(open("data/pile_10.json"))
s["sleep"] = {"enabled": True, "time": 0.1, "linear_speed": 0.02, "angular_speed": 0.1}
s["solver"] = {"name": "pgs", "tol": 1e-6, "max_iter": 200}
s["steps"] = 300
s["bodies"].append({"name": "thrown", "density": 500, "position": [0.02, -0.1, 1.6],
                    "velocity": [0, 0, 8],
                    "shapes": [{"type": "box", "half_extents": [0.1, 0.1, 0.1], "mu": 0.5}]})
json.dump(s, open(d + "/pile.json", "w"), indent=1)
s = json.load(open("data/double_pendulum.json"))
s["duration"], s["time_step"] = 1.0, 0.005
for b in s["bodies"]:
    b["shapes"] = [{"type": "box", "half_extents": [0.4, 0.05], "mu": 0.3}]
s["bodies"].append({"name": "floor", "type": "static", "position": [0, -1.15],
                    "shapes": [{"type": "plane", "mu": 0.3}]})
s["tethers"] = [{"name": "rope", "length": 0.25,
                 "ends": [{"body": "lower", "point": [0.5, 0]}, {"world": [1.2, -1.0]}]}]
json.dump(s, open(d + "/jt.json", "w"), indent=1)
