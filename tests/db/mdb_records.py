"""The records of a kalah database as mdb_dump prints them and mdb_load reads them, and the layout
of a block-group record (db/FORMAT.md): how damaged_db_test.py moves whole records and blocks,
writing them back (`kalah dump` prints records decoded but writes nothing)."""
import os
import struct
import subprocess


def dump(db):
    """(header lines, {key: value}) of mdb_dump's output for db; the header without the page size
    (which mdb_load does not take)."""
    lines = subprocess.run(["mdb_dump", db], capture_output=True, text=True,
                           check=True).stdout.split("\n")
    end = lines.index("HEADER=END")
    data = [line for line in lines[end + 1:] if line.startswith(" ")]
    header = [line for line in lines[:end + 1] if not line.startswith("db_pagesize=")]
    return header, {bytes.fromhex(k[1:]): bytes.fromhex(v[1:])
                    for k, v in zip(data[0::2], data[1::2])}


def load(header, records, db):
    """A new database db holding exactly `records` (mdb_load)."""
    os.makedirs(db)
    text = header + [" %s\n %s" % (k.hex(), v.hex()) for k, v in sorted(records.items())]
    with open(db + ".dump", "w") as f:
        f.write("\n".join(text + ["DATA=END", ""]))
    subprocess.run(["mdb_load", "-f", db + ".dump", db], check=True)


def blocks_of(group):
    """The blocks of a block-group record: a count, a reserved word, count + 1 offsets, blocks."""
    count = struct.unpack_from("<I", group, 0)[0]
    offsets = struct.unpack_from("<%dI" % (count + 1), group, 8)
    return [group[offsets[j]:offsets[j + 1]] for j in range(count)]


def group_of(blocks):
    """The block-group record of `blocks`."""
    offsets, at = [], 8 + 4 * (len(blocks) + 1)
    for b in blocks:
        offsets.append(at)
        at += len(b)
    return struct.pack("<II%dI" % (len(blocks) + 1), len(blocks), 0, *offsets, at) + b"".join(
        blocks)
