# Sourced by the CI checks that run against a fresh `cloudant serve` of their own (.ci/run's CouchDB kit,
# .ci/aiocouch.sh, .ci/pycouchdb.sh): each needs a free port and a server that answers before its client starts.
#
# start_serve CLOUDANT DATA LOG [SERVE OPTION…]: starts `CLOUDANT serve` in the background with its data in
# DATA, on 127.0.0.1 at a port free now, its output in LOG; sets serve_port and serve_pid (a caller's locals of
# those names when it has them) and returns once the server answers /_up, or after 20 s (the client then fails
# and the log says why).
start_serve() {
  local cloudant="$1" data="$2" log="$3"
  shift 3
  serve_port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1]);s.close()')
  "$cloudant" serve --data "$data" --bind 127.0.0.1 --port "$serve_port" "$@" >"$log" 2>&1 &
  serve_pid=$!
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$serve_port/_up" >/dev/null 2>&1 && break; sleep 0.2; done
}
