"""The shipped nginx site (examples/serve/nginx.conf) in front of `kalah serve`, for the script
tests: an unprivileged nginx whose main nginx.conf, written into a work directory, includes a copy
of the site file changed only in its `listen` address and the upstream's port."""
import os
import resource
import shutil
import socket
import subprocess
import time

from checks import abort

SITE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "examples", "serve",
                    "nginx.conf")


def find_nginx(test):
    """nginx's path; `test` (the caller's name) exits when it is not installed."""
    found = shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/sbin/nginx") if os.access(p, os.X_OK)), None)
    if not found:
        abort("%s: nginx is not installed; tools/setup.sh installs it (Debian package nginx)"
                 % test)
    return found


def version(nginx):
    return subprocess.run([nginx, "-v"], capture_output=True, text=True).stderr.strip()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_conf(work, nginx_port, serve_port, test):
    """The main nginx.conf in `work`, including a copy of the shipped site file in which only
    `listen 80;` and the upstream's 127.0.0.1:8080 are changed; returns its path."""
    lines = open(SITE).read().splitlines(keepends=True)
    listens = [i for i, l in enumerate(lines) if l.strip() == "listen 80;"]
    upstreams = [i for i, l in enumerate(lines) if l.strip() == "server 127.0.0.1:8080;"]
    if len(listens) != 1 or len(upstreams) != 1:
        abort("%s: %s: want one `listen 80;` and one `server 127.0.0.1:8080;`, found %d and %d"
                 % (test, SITE, len(listens), len(upstreams)))
    lines[listens[0]] = lines[listens[0]].replace("listen 80;", "listen 127.0.0.1:%d;" % nginx_port)
    lines[upstreams[0]] = lines[upstreams[0]].replace("8080", str(serve_port))
    site = os.path.join(work, "kalah-site.conf")
    with open(site, "w") as f:
        f.writelines(lines)
    temp = os.path.join(work, "nginx-temp")
    os.makedirs(temp, exist_ok=True)
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    nofile = 16384 if hard == resource.RLIM_INFINITY else min(16384, hard)
    conf = os.path.join(work, "nginx.conf")
    with open(conf, "w") as f:
        # As root, nginx's workers would run as nobody, who may not reach the work's temp paths.
        f.write("user root root;\n" if os.geteuid() == 0 else "")
        f.write("worker_processes 1;\n"
                "pid %(w)s/nginx.pid;\n"
                "error_log %(w)s/nginx-error.log info;\n"
                "worker_rlimit_nofile %(n)d;\n"
                "events { worker_connections 4096; }\n"
                "http {\n"
                "    access_log %(w)s/nginx-access.log;\n"
                "    client_body_temp_path %(t)s/body;\n"
                "    proxy_temp_path %(t)s/proxy;\n"
                "    fastcgi_temp_path %(t)s/fastcgi;\n"
                "    uwsgi_temp_path %(t)s/uwsgi;\n"
                "    scgi_temp_path %(t)s/scgi;\n"
                "    include %(s)s;\n"
                "}\n" % {"w": work, "t": temp, "n": nofile, "s": site})
    return conf


def start(nginx, work, serve_port, test):
    """nginx on a free loopback port in front of kalah serve's `serve_port`: (process, port). The
    caller stops it (SIGTERM); `test` exits, nginx killed, when it does not start."""
    port = free_port()
    conf = write_conf(work, port, serve_port, test)
    check = subprocess.run([nginx, "-t", "-c", conf, "-p", work + "/"], capture_output=True,
                           text=True, timeout=30)
    if check.returncode != 0:
        abort("%s: nginx -t refuses the configuration:\n%s" % (test, check.stderr))
    err = open(os.path.join(work, "nginx.stderr"), "w")
    proc = subprocess.Popen([nginx, "-c", conf, "-p", work + "/", "-g", "daemon off;"],
                            stdout=err, stderr=err)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            abort("%s: nginx exited with status %d: %s" % (
                test, proc.returncode, open(os.path.join(work, "nginx.stderr")).read()))
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return proc, port
        except OSError:
            time.sleep(0.05)
    proc.kill()
    proc.wait()
    abort("%s: nginx does not accept connections on port %d" % (test, port))
