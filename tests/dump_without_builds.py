#!/usr/bin/env python3
"""Prints an `mdb_dump` of a kalah database (stdin) without what differs between two builds of the
same table: each level record's build identity and record checksum (bytes 48..63), and each block's
first checksum, which covers the build (db/FORMAT.md). Everything else, values and zstd frames
included, is printed as it was, so two builds compare record for record.

Usage: mdb_dump DB | dump_without_builds.py
"""
import struct
import sys


def without_builds(key, value):
    if key[0] == 2 and len(value) == 64:  # level record
        return value[:48] + bytes(16)
    if key[0] == 3:  # block group: count, reserved, count + 1 offsets, the blocks
        value = bytearray(value)
        count = struct.unpack_from("<I", value, 0)[0]
        for j in range(count):
            begin = struct.unpack_from("<I", value, 8 + 4 * j)[0]
            value[begin:begin + 8] = bytes(8)
        return bytes(value)
    return value


def main():
    lines = sys.stdin.read().split("\n")
    out, key, in_data = [], None, False
    for line in lines:
        if not in_data or not line.startswith(" "):
            in_data = in_data or line == "HEADER=END"
            out.append(line)
            continue
        data = bytes.fromhex(line[1:])
        if key is None:
            key = data
            out.append(line)
        else:
            out.append(" " + without_builds(key, data).hex())
            key = None
    sys.stdout.write("\n".join(out))


main()
