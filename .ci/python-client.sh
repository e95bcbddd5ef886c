# Sourced by the scripts that run a CouchDB client's own test suite (.ci/aiocouch.sh, .ci/pycouchdb.sh).
#
# prepare_client DIR PACKAGE VERSION [PIP SPEC…]: installs PACKAGE==VERSION and the given test tools into
# DIR/venv and unpacks the package's source distribution (its tests) into DIR. A folder already prepared is
# used as it is.
prepare_client() {
  local dir="$1" package="$2" version="$3"
  shift 3
  [ -f "$dir/prepared" ] && return 0
  mkdir -p "$dir"
  python3 -m venv "$dir/venv"
  "$dir/venv/bin/pip" install -q "$package==$version" "$@"
  "$dir/venv/bin/pip" download -q --no-deps --no-binary :all: -d "$dir" "$package==$version"
  tar -xzf "$dir/$package-$version.tar.gz" -C "$dir"
  touch "$dir/prepared"
}

# client_folders ARGUMENT…: the arguments both scripts take. `prepare FOLDER` prepares the client in FOLDER (with
# the script's own prepare function) and ends the script. Otherwise they are PATH/TO/cloudant [FOLDER]: sets
# cloudant, work (a new temporary folder with an empty data/ for the server, removed when the script exits, the
# server started by start_serve then stopped) and prepared (FOLDER, or a client prepared now in work).
client_folders() {
  if [ "$1" = "prepare" ]; then prepare "$2"; exit 0; fi
  cloudant="$1"
  work=$(mktemp -d)
  prepared="${2:-$work/client}"
  prepare "$prepared"
  mkdir "$work/data"
  trap 'kill "${serve_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
}
