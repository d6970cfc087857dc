"""`genchess lab`: a persistent queue of long runs, one worker that runs and resumes
them, and a local web page of their live state (docs/lab.md).

One module per subsystem: queue (the SQLite database and its transactions), kinds
(what each kind of job is: its validation, its command line, its progress), worker
(the loop that runs jobs as processes), web (the page), report (a finished job's
page) and cli (the `genchess lab` commands). Nothing below the command layer imports
this package.
"""

DEFAULT_LAB = "lab"
