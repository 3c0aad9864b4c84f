"""The paper's baselines next to the blackboard (Salemi et al., Table 2), as interchangeable modes.

- blackboard: the request is broadcast; every helper decides on its own whether to help;
- master-slave (its Fig. 8): the main agent names the helpers that must answer;
- rag (its Fig. 9): the five files closest to the question are given up front; help requests
  go to the search agent only;
- all-files (DS-GRU): every file of the lake is given up front.

`offline_modes.py` runs each mode's data discovery with no model; `baseline_prompts.py` holds each mode's
main-agent prompt for runs with a model.
"""

MODES = ("blackboard", "master-slave", "rag", "all-files")
