"""A minimal client of the Kalah Game Protocol (KGP 1), enough for a bot in freeplay or eval mode:
the server (kalah referee, go-kgp) sends `ID state <m,SK,NK,s1..sm,n1..nm>`, always from the bot's
side (South); the bot answers with lines that reference the state (`@ID move P`, `@ID eval X`,
`@ID yield`), and answers `ping` with `pong`. With the positions' helpers of table_bot.py and
fit_evaluator.py."""
import socket


def position_of(board):
    """A KGP board `<m,SK,NK,s1..sm,n1..nm>` as a position in kalah's notation, South to move."""
    cells = [int(x) for x in board.strip("<>").split(",")]
    m, south_kalah, north_kalah = cells[:3]
    south, north = cells[3:3 + m], cells[3 + m:3 + 2 * m]
    return "%s,%d/%s,%d S" % (",".join(map(str, south)), south_kalah,
                              ",".join(map(str, north)), north_kalah)


def kalah_difference(position):
    """The side to move's kalah minus the opponent's, of a position in kalah's notation."""
    halves, side = position.split()
    south, north = (int(h.split(",")[-1]) for h in halves.split("/"))
    return south - north if side == "S" else north - south


def run(host, port, mode, name, answer):
    """Connects, asks for `mode` and calls answer(position) for each state; it returns the lines
    to send back (without the reference). Returns when the server says goodbye or closes the
    connection; raises ConnectionError when it speaks another major version of KGP than 1."""
    with socket.create_connection((host, port)) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        stream = sock.makefile("rwb")
        next_id = [1]  # odd IDs: the referee's are even

        def send(text, ref=None):
            """Queues a line; the lines answering one command leave together (flush)."""
            head = str(next_id[0]) + ("" if ref is None else "@%d" % ref)
            next_id[0] += 2
            stream.write((head + " " + text + "\r\n").encode())

        for raw in stream:
            words = raw.decode().split()
            if not words:
                continue
            ident = None
            if words[0][0].isdigit() or words[0][0] == "@":
                ident = int(words.pop(0).partition("@")[0] or 0)
            if not words:
                continue
            command, args = words[0], words[1:]
            if command == "kgp":
                if not args or args[0] != "1":
                    raise ConnectionError("the server speaks KGP %s, not 1" % " ".join(args))
                send('set info:name "%s"' % name)
                send("mode " + mode)
                stream.flush()
            elif command == "state":
                for line in answer(position_of(args[0])):
                    send(line, ref=ident)
                stream.flush()
            elif command == "ping":
                send("pong", ref=ident)
                stream.flush()
            elif command == "goodbye":
                return
