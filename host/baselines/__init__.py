"""The paper's baselines next to the blackboard (Salemi et al., Table 2), as interchangeable modes.

`modes.py` defines the modes (their names, what each means, the main agent's prompt text in
each); `mode_setup.py` gives the main agent what a mode shows with the question, using
`listings.py` and `retrieval.py`; `offline_modes.py` runs each mode's data discovery with no model.
The agents import this package; it imports nothing of theirs.
"""
