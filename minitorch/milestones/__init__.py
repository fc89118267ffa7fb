"""Milestones: five famous moments of neural networks, run on your own minitorch.

``minitorch milestone --list`` shows them and the course steps each needs;
``minitorch milestone N`` checks those steps, tells a short history, trains with a progress
bar and saves a picture under ``out/``. One module per milestone (:mod:`.perceptron`,
:mod:`.xor`, :mod:`.digits_mlp`, :mod:`.lenet`, :mod:`.attention`), the table of them in
:mod:`.registry`, the step checks in :mod:`.checks`, the command in :mod:`.cli`.
"""
