"""Exact values of Kalah positions from a solved database (libkalah, kalah::api).

Positions are strings in the notation "s1,..,sm,SK/n1,..,nm,NK X" (South's pits and kalah,
North's pits and kalah, X the side to move: S or N); rule sets are names (rule_sets()). A
margin is the final score of the side to move minus the opponent's under perfect play by both,
counting the stones already in the kalahs.

Many boards at once: Database.values() takes a numpy array of boards, one a row (the side to
move's pits 1..m and kalah, then the opponent's pits 1..m and kalah), and Database.sample()
draws boards inside a table with their exact margins (numpy is needed for these two only).

Errors: ValueError for a malformed position, an unknown rule set, an illegal move, a bad
argument or a board array of the wrong shape or counts; TypeError for a board array of another
dtype than integers; DatabaseError for a missing, unreadable or corrupted database.
Database methods release the GIL while they look up or search, so other Python threads run
meanwhile; one Database may be used by any number of threads at once.
"""

from kalah._kalah import (
    Answer,
    Database,
    DatabaseError,
    MoveValue,
    Table,
    Value,
    __version__,
    play,
    rule_sets,
    start_position,
    version,
)

__all__ = [
    "Answer",
    "Database",
    "DatabaseError",
    "MoveValue",
    "Table",
    "Value",
    "__version__",
    "play",
    "rule_sets",
    "start_position",
    "version",
]

# The classes are shown as kalah's own (help(), repr of the types).
for _name in __all__:
    _obj = globals()[_name]
    if isinstance(_obj, type):
        _obj.__module__ = "kalah"
del _name, _obj
