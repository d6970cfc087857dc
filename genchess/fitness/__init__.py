"""Fitness from positions, shared by every evaluation kind: the Texel loss and its K
(loss.py); the linear kinds' features, which score a whole population with one
product (features.py); the scoring of genomes on a set, in-process or through a
trainer's executor (scoring.py); a linear kind's exact gradient and the L2 term
(gradient.py); the network kind's float model and its numpy reference
(network_model.py) and its trainer (network_training.py, its fast kernels in
genchess_core/network_fit.pyx).
The sets themselves, and how they are made from games, are genchess/position_sets/;
the optimisers that walk these losses (Adam, CMA-ES, the GA) and SPSA are
genchess/optimise/.
Trainers that score genomes by games do not need this package.
"""
