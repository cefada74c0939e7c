#!/usr/bin/env python3
# drop-first-answer.py UPSTREAM_PORT LOG: a loopback HTTP proxy that forwards every request to
# 127.0.0.1:UPSTREAM_PORT and answers it, except the first POST: that one reaches the daemon and
# its answer is thrown away (the connection closed), as when a network drops after the request
# went out. Prints its own port on stdout; logs "METHOD PATH Idempotency-Key" per request.
import socket
import sys
import threading

upstream = int(sys.argv[1])
log = open(sys.argv[2], "a", buffering=1)
lock = threading.Lock()
posts = 0


def read_request(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        body += chunk
    kept = [l for l in lines[1:] if not l.lower().startswith("connection:")]
    raw = "\r\n".join([lines[0]] + kept + ["Connection: close", "", ""]).encode("latin-1") + body
    return lines[0], headers, raw


def serve(conn):
    global posts
    with conn:
        req = read_request(conn)
        if req is None:
            return
        first_line, headers, raw = req
        method, path = first_line.split(" ")[:2]
        log.write("%s %s %s\n" % (method, path, headers.get("idempotency-key", "-")))
        with socket.create_connection(("127.0.0.1", upstream)) as up:
            up.sendall(raw)
            answer = b""
            while True:
                chunk = up.recv(65536)
                if not chunk:
                    break
                answer += chunk
        with lock:
            drop = method == "POST" and posts == 0
            if method == "POST":
                posts += 1
        if not drop:
            conn.sendall(answer)


server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(16)
print(server.getsockname()[1], flush=True)
while True:
    c, _ = server.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
