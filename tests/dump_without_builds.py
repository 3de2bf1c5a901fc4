#!/usr/bin/env python3
"""Prints the records of a kalah database without what differs between two builds of the same
table: each level record's build identity and record checksum (bytes 48..63), and each block's
first checksum, which covers the build (db/FORMAT.md). Everything else, values and zstd frames
included, is printed as it was, a key and a value in hex a line, in key order, so two builds
compare record for record.

Usage: dump_without_builds.py DB
"""
import sys

from mdb_records import blocks_of, dump, group_of


def without_builds(key, value):
    if key[0] == 2 and len(value) == 64:  # level record
        return value[:48] + bytes(16)
    if key[0] == 3:  # block group
        return group_of([bytes(8) + block[8:] for block in blocks_of(value)])
    return value


for key, value in sorted(dump(sys.argv[1])[1].items()):
    print(key.hex(), without_builds(key, value).hex())
