"""Fitness from positions, shared by every evaluation kind: the Texel loss and its K
(loss.py); the linear kinds' features, which score a whole population with one
product (features.py); the scoring of genomes on a set, in-process or through a
trainer's executor (scoring.py); gradient descent on a linear kind's exact gradient
(gradient.py); the network kind's float model and its numpy reference
(network_model.py) and its trainer (network_training.py, its fast kernels in
genchess_core/network_fit.pyx); SPSA (spsa.py).
The sets themselves, and how they are made from games, are genchess/position_sets/.
Trainers that score genomes by games do not need this package.
"""
